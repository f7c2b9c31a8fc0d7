//! The cache of linked libraries (src/cache/): every key input changes the key, the key is
//! stable across runs, processes, directory-listing order and environment noise; bad entries
//! (torn, flipped bit, wrong schema, foreign) are relinked and counted; a process killed at each
//! step of a write leaves no torn entry; 8 processes race on one key while eviction runs;
//! read-only and missing directories degrade to uncached work with one warning.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tunespec::cache::{
    self, decode_entry, decode_entry_with, encode_entry, encode_entry_with, Artifact, Cache,
    EntryError, Form, Key, KeyParts, Mode, Settings,
};
use tunespec::link::{self, LinkInput, LinkOptions, Role};
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::registry;

use crate::reference::repo_root;

// ---------------------------------------------------------------------------------------------
// Helpers

/// The binary with a private cache directory and none of the caller's cache settings.
fn tunespec(cache_dir: &Path) -> Command {
    let mut command = crate::support::tunespec_command();
    command
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TUNESPEC_TERM_WIDTH", "100")
        .env("TUNESPEC_CACHE_DIR", cache_dir)
        .env("TUNESPEC_NO_CONFIG", "1");
    for name in [
        "TUNESPEC_SPEC_PATH",
        "TUNESPEC_CACHE",
        "TUNESPEC_CACHE_MAX_BYTES",
        "TUNESPEC_CACHE_FAULT",
    ] {
        command.env_remove(name);
    }
    command
}

fn fixture(name: &str) -> String {
    repo_root()
        .join("tests/fixtures/specs/good")
        .join(name)
        .display()
        .to_string()
}

/// A copy of the default spec specs/gfx942/llama2_f16.mlir in `dir`, and its matcher count: given
/// as a user spec for gfx942, it shadows every matcher of the default.
fn copy_of_default_spec(dir: &Path) -> (String, usize) {
    let text = std::fs::read_to_string(repo_root().join("specs/gfx942/llama2_f16.mlir")).unwrap();
    let path = dir.join("copy_of_gfx942_llama2_f16.mlir");
    std::fs::write(&path, &text).unwrap();
    (
        path.display().to_string(),
        text.matches("transform.named_sequence @match_").count(),
    )
}

/// Decodes an entry of the cache in `dir` (its checksum is keyed with the cache's secret).
fn decode_disk(dir: &Path, bytes: &[u8], key: &Key) -> Result<Artifact, EntryError> {
    let secret = cache::entry_secret(dir).expect("the cache has a secret");
    decode_entry_with(bytes, key, Some(&secret))
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("tunespec runs");
    assert!(
        output.status.success(),
        "{:?} failed: {:?}\n{}",
        command,
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn link_gfx942(dir: &Path) -> Output {
    run(tunespec(dir).args(["link", "--target", "gfx942"]))
}

/// The reference: the same link with the cache off.
fn uncached(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let output = run(tunespec(dir.path()).env("TUNESPEC_CACHE", "off").args(args));
    assert!(
        !dir.path().join("entries").exists(),
        "TUNESPEC_CACHE=off wrote to the cache"
    );
    output
}

#[derive(Debug, PartialEq, Eq)]
struct Stats {
    hits: u64,
    misses: u64,
    corrupt: u64,
    entries: u64,
    temp_files: u64,
}

fn stats(dir: &Path) -> Stats {
    let output = run(tunespec(dir).args(["cache", "stats", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let field = |name: &str| json[name].as_u64().unwrap();
    assert_eq!(json["dir"], dir.display().to_string());
    Stats {
        hits: field("hits"),
        misses: field("misses"),
        corrupt: field("corrupt"),
        entries: field("entries"),
        temp_files: field("temp_files"),
    }
}

/// Entry files (64 hex digits) in the cache.
fn entry_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("entries"))
        .map(|items| {
            items
                .filter_map(Result::ok)
                .map(|item| item.path())
                .filter(|path| {
                    let name = path.file_name().unwrap().to_string_lossy();
                    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("entries"))
        .map(|items| {
            items
                .filter_map(Result::ok)
                .map(|item| item.path())
                .filter(|path| {
                    path.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(".tmp-")
                })
                .collect()
        })
        .unwrap_or_default()
}

fn only_entry(dir: &Path) -> PathBuf {
    let files = entry_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// The inputs `tunespec link --target gfx942` links, as the library sees them.
fn gfx942_inputs() -> Vec<LinkInput> {
    registry::Registry::embedded()
        .with_derived(true)
        .chain("gfx942")
        .unwrap()
        .into_iter()
        .filter_map(|target| target.embedded())
        .flat_map(|target| {
            target.specs().map(move |spec| LinkInput {
                name: spec.path.to_string(),
                location: spec.path.to_string(),
                bytes: spec.bytecode().to_vec(),
                role: Role::Default {
                    target: target.name.to_string(),
                },
            })
        })
        .collect()
}

/// The target part of the key `link --target gfx942` uses: its resolved fallback chain.
fn gfx942_target() -> String {
    let registry = registry::Registry::embedded().with_derived(true);
    let chain: Vec<&str> = registry
        .chain("gfx942")
        .unwrap()
        .iter()
        .map(|target| target.name.as_str())
        .collect();
    chain.join(">")
}

fn gfx942_key() -> Key {
    KeyParts::new(&gfx942_target(), &gfx942_inputs(), &LinkOptions::default()).key()
}

/// The key of the entry `link --target gfx942` (text output) stores.
fn gfx942_text_key() -> Key {
    let mut parts = KeyParts::new(&gfx942_target(), &gfx942_inputs(), &LinkOptions::default());
    parts.form = Form::Text;
    parts.key()
}

// ---------------------------------------------------------------------------------------------
// Key: one test per input

fn base_parts() -> KeyParts {
    let mut inputs = gfx942_inputs();
    inputs.insert(
        0,
        LinkInput {
            name: "user.mlir".into(),
            location: "user.mlir".into(),
            bytes: std::fs::read(fixture("one_matcher.mlir")).unwrap(),
            role: Role::User,
        },
    );
    KeyParts::new("gfx942", &inputs, &LinkOptions::default())
}

/// Changing one part of the key (by `change`) changes the key; undoing it restores the key.
fn assert_key_depends_on(change: impl Fn(&mut KeyParts)) {
    let base = base_parts();
    let mut changed = base.clone();
    change(&mut changed);
    assert_ne!(base, changed, "the change must change a key part");
    assert_ne!(base.key().hash(), changed.key().hash());
    assert_ne!(base.key().hex(), changed.key().hex());
    assert_eq!(base.key(), base_parts().key());
}

#[test]
fn key_depends_on_schema() {
    assert_key_depends_on(|parts| parts.schema += 1);
}

#[test]
fn key_depends_on_form() {
    assert_key_depends_on(|parts| parts.form = Form::Text);
}

#[test]
fn key_depends_on_tunespec_version() {
    assert_key_depends_on(|parts| parts.tunespec_version.push_str("-next"));
}

#[test]
fn key_depends_on_build_fingerprint() {
    assert_eq!(base_parts().build, cache::build_fingerprint());
    assert_eq!(cache::build_fingerprint().len(), 32);
    assert_key_depends_on(|parts| parts.build = "0".repeat(32));
}

#[test]
fn key_depends_on_mlir_version() {
    assert_eq!(base_parts().mlir_version, "22");
    assert_key_depends_on(|parts| parts.mlir_version = "23".into());
}

#[test]
fn key_depends_on_mlir_producer() {
    // The producer MLIR wrote into the embedded bytecode: the exact release built against.
    let producer = cache::mlir_producer();
    assert!(producer.starts_with("MLIR22."), "{producer}");
    assert_key_depends_on(|parts| parts.mlir_producer = "MLIR22.0.0".into());
}

#[test]
fn key_depends_on_bytecode_version() {
    assert_eq!(
        base_parts().bytecode_version,
        tunespec::mlir::BYTECODE_VERSION
    );
    assert_key_depends_on(|parts| parts.bytecode_version += 1);
}

#[test]
fn key_depends_on_target() {
    assert_key_depends_on(|parts| parts.target = "gfx942:xnack+".into());
    assert_key_depends_on(|parts| parts.target.clear());
}

#[test]
fn key_depends_on_entry_point() {
    assert_key_depends_on(|parts| parts.entry_point = "__other_config".into());
}

#[test]
fn key_depends_on_every_link_option() {
    let inputs = gfx942_inputs();
    let plain = KeyParts::new(
        "gfx942",
        &inputs,
        &LinkOptions {
            dedupe: false,
            ..LinkOptions::default()
        },
    );
    let dedupe = KeyParts::new(
        "gfx942",
        &inputs,
        &LinkOptions {
            dedupe: true,
            ..LinkOptions::default()
        },
    );
    assert_ne!(plain.key(), dedupe.key());
    assert_key_depends_on(|parts| parts.dedupe = !parts.dedupe);
    let chosen = |device: Option<&str>| {
        KeyParts::new(
            "gfx942",
            &inputs,
            &LinkOptions {
                measured_on: device.map(str::to_string),
                ..LinkOptions::default()
            },
        )
        .key()
    };
    assert_ne!(chosen(None), chosen(Some("local-task")));
    assert_ne!(chosen(Some("local-sync")), chosen(Some("local-task")));
    assert_eq!(chosen(None), plain.key());
}

#[test]
fn key_depends_on_input_bytes() {
    let mut inputs = gfx942_inputs();
    let before = KeyParts::new("gfx942", &inputs, &LinkOptions::default()).key();
    // One byte of one spec.
    let last = inputs[1].bytes.len() - 1;
    inputs[1].bytes[last] ^= 1;
    let after = KeyParts::new("gfx942", &inputs, &LinkOptions::default()).key();
    assert_ne!(before, after);
    assert_key_depends_on(|parts| parts.inputs[0].hash[31] ^= 0x80);
    assert_key_depends_on(|parts| parts.inputs[0].len += 1);
}

#[test]
fn key_depends_on_input_order() {
    assert_key_depends_on(|parts| parts.inputs.swap(0, 1));
    assert_key_depends_on(|parts| parts.inputs.rotate_left(1));
}

#[test]
fn key_depends_on_input_set() {
    assert_key_depends_on(|parts| {
        parts.inputs.pop();
    });
    assert_key_depends_on(|parts| {
        let extra = parts.inputs[0].clone();
        parts.inputs.push(extra);
    });
}

#[test]
fn key_depends_on_input_role() {
    assert_key_depends_on(|parts| parts.inputs[0].role = Role::Default { target: "".into() });
    assert_key_depends_on(|parts| parts.inputs[1].role = Role::User);
    assert_key_depends_on(|parts| {
        parts.inputs[1].role = Role::Default {
            target: "gfx950".into(),
        }
    });
}

#[test]
fn key_depends_on_input_name() {
    // The name is the file of every location in the linked bytecode.
    assert_key_depends_on(|parts| parts.inputs[0].name = "other.mlir".into());
}

#[test]
fn key_encoding_is_unambiguous() {
    // Moving bytes between adjacent fields must not give the same preimage (length prefixes).
    let mut a = base_parts();
    let mut b = base_parts();
    a.inputs[0].name = "ab".into();
    a.target = "gfx942".into();
    b.inputs[0].name = "a".into();
    b.target = "gfx942".into();
    assert_ne!(a.key(), b.key());
    let mut c = base_parts();
    let mut d = base_parts();
    c.target = "x".into();
    c.entry_point = "yz".into();
    d.target = "xy".into();
    d.entry_point = "z".into();
    assert_ne!(c.key(), d.key());
}

#[test]
fn key_is_stable_within_a_process() {
    let first = gfx942_key();
    for _ in 0..3 {
        assert_eq!(gfx942_key(), first);
    }
    // Computed on other threads too.
    let keys: Vec<Key> = (0..4)
        .map(|_| std::thread::spawn(gfx942_key))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|handle| handle.join().unwrap())
        .collect();
    assert!(keys.iter().all(|key| *key == first));
    // A pinned preimage prefix: the documented encoding.
    let preimage = first.preimage();
    assert_eq!(&preimage[..4], &18u32.to_le_bytes());
    assert_eq!(&preimage[4..22], b"tunespec-cache-key");
}

#[test]
fn key_is_stable_across_processes_and_environment_noise() {
    let dir = tempfile::tempdir().unwrap();
    let first = link_gfx942(dir.path());
    // The entry the binary wrote is named by the key the library computes.
    assert_eq!(
        only_entry(dir.path())
            .file_name()
            .unwrap()
            .to_string_lossy(),
        gfx942_text_key().hex()
    );
    // Noise: locale, time zone, unrelated variables, home, XDG directories, another working
    // directory, another cap, an alias of the target.
    let elsewhere = tempfile::tempdir().unwrap();
    let second = run(tunespec(dir.path())
        .current_dir(elsewhere.path())
        .env("LANG", "de_DE.UTF-8")
        .env("LC_ALL", "tr_TR.UTF-8")
        .env("TZ", "Pacific/Kiritimati")
        .env("HOME", elsewhere.path())
        .env("XDG_CACHE_HOME", elsewhere.path())
        .env("RANDOM_NOISE", format!("{:?}", SystemTime::now()))
        .env("TUNESPEC_CACHE_MAX_BYTES", "100MiB")
        .args(["link", "--target", "MI300X"]));
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(
        stats(dir.path()),
        Stats {
            hits: 1,
            misses: 1,
            corrupt: 0,
            entries: 1,
            temp_files: 0
        }
    );
}

#[test]
fn key_is_stable_across_directory_listing_order() {
    let cache_dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let specs = work.path().join("specs");
    let names = ["a_first.mlir", "b_second.mlir", "c_third.mlir"];
    let sources = [
        std::fs::read(fixture("one_matcher.mlir")).unwrap(),
        std::fs::read(fixture("gfx942_llama2_f16.mlir")).unwrap(),
        std::fs::read(repo_root().join("specs/gfx950/llama3_bf16.mlir")).unwrap(),
    ];
    let mut outputs = Vec::new();
    // Files created in three orders, so the directory lists them differently.
    for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
        let _ = std::fs::remove_dir_all(&specs);
        std::fs::create_dir(&specs).unwrap();
        for index in order {
            std::fs::write(specs.join(names[index]), &sources[index]).unwrap();
        }
        let output = run(tunespec(cache_dir.path())
            .args(["link", "--no-default", "--spec"])
            .arg(&specs));
        outputs.push(output.stdout);
    }
    assert!(outputs.windows(2).all(|pair| pair[0] == pair[1]));
    let stats = stats(cache_dir.path());
    assert_eq!((stats.hits, stats.misses, stats.entries), (2, 1, 1));
}

// ---------------------------------------------------------------------------------------------
// Hits give what a cold link gives

#[test]
fn a_hit_prints_byte_identical_text_and_the_same_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let (spec, matchers) = copy_of_default_spec(work.path());
    assert!(matchers >= 8);
    let args = ["link", "--target", "gfx942", "--spec", spec.as_str()];
    let cold = uncached(&args);
    let miss = run(tunespec(dir.path()).args(args));
    let hit = run(tunespec(dir.path()).args(args));
    assert_eq!(cold.stdout, miss.stdout);
    assert_eq!(cold.stdout, hit.stdout);
    // The override notes (the copy overrides every default matcher) are stored in the entry and replayed on a hit.
    let warnings = String::from_utf8_lossy(&cold.stderr);
    assert_eq!(
        warnings
            .matches("tunespec::link::overrides-default")
            .count(),
        matchers
    );
    assert_eq!(cold.stderr, miss.stderr);
    assert_eq!(cold.stderr, hit.stderr);
    // Bytecode has an entry of its own: miss and hit write what a cold link writes.
    let bc_args = [&args[..], &["--emit", "mlirbc"]].concat();
    let cold_bc = uncached(&bc_args);
    let miss_bc = run(tunespec(dir.path()).args(&bc_args));
    let hit_bc = run(tunespec(dir.path()).args(&bc_args));
    assert_eq!(cold_bc.stdout, miss_bc.stdout);
    assert_eq!(cold_bc.stdout, hit_bc.stdout);
    assert!(hit_bc.stdout.starts_with(b"ML\xEFR"));
    assert_eq!(cold_bc.stderr, hit_bc.stderr);
    let stats = stats(dir.path());
    assert_eq!((stats.hits, stats.misses, stats.entries), (2, 2, 2));
}

#[test]
fn options_and_targets_get_their_own_entries() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // A copy of a default spec, so that --dedupe has shadowed matchers to drop.
    let (spec, _) = copy_of_default_spec(work.path());
    let plain = run(tunespec(dir.path()).args(["link", "-t", "gfx942", "-s", &spec]));
    let deduped = run(tunespec(dir.path()).args(["link", "-t", "gfx942", "-s", &spec, "--dedupe"]));
    assert_ne!(plain.stdout, deduped.stdout);
    run(tunespec(dir.path()).args(["link", "-t", "gfx950", "-s", &spec]));
    run(tunespec(dir.path()).args(["link", "--no-default", "-s", &spec]));
    assert_eq!(entry_files(dir.path()).len(), 4);
    // And each is found again.
    let again = run(tunespec(dir.path()).args(["link", "-t", "gfx942", "-s", &spec, "--dedupe"]));
    assert_eq!(again.stdout, deduped.stdout);
    assert_eq!(stats(dir.path()).hits, 1);
}

#[test]
fn recache_relinks_and_stores_and_readonly_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let first = link_gfx942(dir.path());
    let entry = only_entry(dir.path());
    std::fs::write(&entry, b"stale").unwrap();
    let recached = run(tunespec(dir.path())
        .env("TUNESPEC_CACHE", "recache")
        .args(["link", "--target", "gfx942"]));
    assert_eq!(first.stdout, recached.stdout);
    // recache does not read the entry (not counted as corrupt) and replaces it.
    let stats_now = stats(dir.path());
    assert_eq!(
        (stats_now.hits, stats_now.misses, stats_now.corrupt),
        (0, 2, 0)
    );
    assert!(decode_disk(
        dir.path(),
        &std::fs::read(&entry).unwrap(),
        &gfx942_text_key()
    )
    .is_ok());

    // readonly: a hit is served, a miss links, nothing is written (no entry, no counter).
    let log_before = std::fs::read(dir.path().join("stats.log")).unwrap();
    let hit = run(tunespec(dir.path())
        .env("TUNESPEC_CACHE", "readonly")
        .args(["link", "--target", "gfx942"]));
    assert_eq!(hit.stdout, first.stdout);
    let miss = run(tunespec(dir.path())
        .env("TUNESPEC_CACHE", "readonly")
        .args(["link", "--target", "gfx950"]));
    assert!(
        miss.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&miss.stderr)
    );
    assert_eq!(
        uncached(&["link", "--target", "gfx950"]).stdout,
        miss.stdout
    );
    assert_eq!(entry_files(dir.path()), vec![entry]);
    assert_eq!(
        std::fs::read(dir.path().join("stats.log")).unwrap(),
        log_before
    );
}

// ---------------------------------------------------------------------------------------------
// Bad entries: a miss, counted as corrupt, removed, relinked

/// Damages the gfx942 entry with `damage`, then links again: the output is a cold link's, the
/// entry counts as corrupt once, and a valid entry replaces it.
fn assert_relinked_after(damage: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let cold = link_gfx942(dir.path());
    let entry = only_entry(dir.path());
    damage(&entry);
    let relinked = link_gfx942(dir.path());
    assert_eq!(cold.stdout, relinked.stdout);
    assert!(
        relinked.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&relinked.stderr)
    );
    assert_eq!(
        stats(dir.path()),
        Stats {
            hits: 0,
            misses: 2,
            corrupt: 1,
            entries: 1,
            temp_files: 0
        }
    );
    let bytes = std::fs::read(&entry).unwrap();
    assert!(decode_disk(dir.path(), &bytes, &gfx942_text_key()).is_ok());
    // And the repaired entry is a hit.
    assert_eq!(link_gfx942(dir.path()).stdout, cold.stdout);
    assert_eq!(stats(dir.path()).hits, 1);
}

#[test]
fn a_flipped_bit_is_relinked_and_counted_corrupt() {
    assert_relinked_after(|entry| {
        let mut bytes = std::fs::read(entry).unwrap();
        let at = bytes.len() - 100; // inside the bytecode
        bytes[at] ^= 0x04;
        std::fs::write(entry, bytes).unwrap();
    });
}

#[test]
fn a_flipped_bit_in_the_header_is_relinked() {
    assert_relinked_after(|entry| {
        let mut bytes = std::fs::read(entry).unwrap();
        bytes[40] ^= 0x01; // inside the checksum
        std::fs::write(entry, bytes).unwrap();
    });
}

#[test]
fn a_torn_entry_is_relinked() {
    assert_relinked_after(|entry| {
        let bytes = std::fs::read(entry).unwrap();
        std::fs::write(entry, &bytes[..bytes.len() / 2]).unwrap();
    });
}

#[test]
fn an_empty_entry_is_relinked() {
    assert_relinked_after(|entry| std::fs::write(entry, b"").unwrap());
}

#[test]
fn an_entry_of_another_schema_is_relinked() {
    assert_relinked_after(|entry| {
        let mut bytes = std::fs::read(entry).unwrap();
        bytes[8..12].copy_from_slice(&(cache::SCHEMA + 1).to_le_bytes());
        // A well-formed entry of that schema: recompute its checksum.
        let secret = cache::entry_secret(entry.parent().unwrap().parent().unwrap()).unwrap();
        let mut hasher = blake3::Hasher::new_keyed(&secret);
        hasher.update(&bytes[..28]);
        hasher.update(&bytes[60..]);
        let checksum = *hasher.finalize().as_bytes();
        bytes[28..60].copy_from_slice(&checksum);
        assert_eq!(
            decode_entry_with(&bytes, &gfx942_text_key(), Some(&secret)).err(),
            Some(EntryError::Schema)
        );
        std::fs::write(entry, bytes).unwrap();
    });
}

#[test]
fn a_foreign_file_is_relinked() {
    assert_relinked_after(|entry| {
        std::fs::write(entry, "#!/bin/sh\necho this is not a cache entry\n").unwrap()
    });
}

#[test]
fn an_entry_of_another_key_is_relinked() {
    // Another key's valid entry under this key's name (a hash collision, or a copied file): the
    // stored preimage does not match.
    assert_relinked_after(|entry| {
        let other = tempfile::tempdir().unwrap();
        run(tunespec(other.path()).args(["link", "--target", "gfx950"]));
        let bytes = std::fs::read(only_entry(other.path())).unwrap();
        assert_eq!(
            decode_entry(&bytes, &gfx942_text_key()).err(),
            Some(EntryError::Preimage)
        );
        std::fs::write(entry, bytes).unwrap();
    });
}

#[test]
fn a_directory_in_place_of_an_entry_is_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    let entry = dir.path().join("entries").join(gfx942_text_key().hex());
    std::fs::create_dir_all(&entry).unwrap();
    let output = link_gfx942(dir.path());
    assert_eq!(
        output.stdout,
        uncached(&["link", "--target", "gfx942"]).stdout
    );
}

#[test]
fn foreign_files_beside_entries_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("entries")).unwrap();
    let foreign = dir.path().join("entries/README");
    std::fs::write(&foreign, "mine").unwrap();
    link_gfx942(dir.path());
    run(tunespec(dir.path()).args(["cache", "clean"]));
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "mine");
    assert_eq!(stats(dir.path()).entries, 0);
}

#[test]
fn entry_checks_each_field() {
    let key = gfx942_key();
    let artifact = Artifact {
        bytecode: registry::specs()[0].bytecode().to_vec(),
        problems: vec![
            Problem::warning("tunespec::link::shadowed-matcher", "m", None).with_help("h"),
        ],
    };
    let good = encode_entry(&key, &artifact);
    let decoded = decode_entry(&good, &key).unwrap();
    assert_eq!(decoded.bytecode, artifact.bytecode);
    assert_eq!(decoded.problems, artifact.problems);
    assert_eq!(&good[..8], &cache::MAGIC);

    let damaged = |at: usize| {
        let mut bytes = good.clone();
        bytes[at] ^= 1;
        decode_entry(&bytes, &key).err()
    };
    assert_eq!(damaged(0), Some(EntryError::Magic));
    assert_eq!(damaged(8), Some(EntryError::Schema));
    assert_eq!(damaged(12), Some(EntryError::Length));
    assert_eq!(damaged(16), Some(EntryError::Length));
    assert_eq!(damaged(20), Some(EntryError::Length));
    assert_eq!(damaged(30), Some(EntryError::Checksum));
    assert_eq!(damaged(61), Some(EntryError::Preimage));
    assert_eq!(damaged(good.len() - 1), Some(EntryError::Checksum));
    for cut in [0, 7, 59, 60, good.len() - 1] {
        assert!(decode_entry(&good[..cut], &key).is_err(), "cut at {cut}");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(decode_entry(&longer, &key).err(), Some(EntryError::Length));
    // A well-formed entry whose payload is not bytecode.
    let not_bytecode = encode_entry(
        &key,
        &Artifact {
            bytecode: b"module {}".to_vec(),
            problems: Vec::new(),
        },
    );
    assert_eq!(
        decode_entry(&not_bytecode, &key).err(),
        Some(EntryError::Payload)
    );
    // A text entry holds UTF-8 text, never bytecode.
    let text_key = gfx942_text_key();
    let text_entry = |payload: &[u8]| {
        let artifact = Artifact {
            bytecode: payload.to_vec(),
            problems: Vec::new(),
        };
        decode_entry(&encode_entry(&text_key, &artifact), &text_key).map(|a| a.bytecode)
    };
    assert_eq!(text_entry(b"module {\n}\n"), Ok(b"module {\n}\n".to_vec()));
    assert_eq!(
        text_entry(&artifact.bytecode).err(),
        Some(EntryError::Payload)
    );
    assert_eq!(text_entry(b"module \xff").err(), Some(EntryError::Payload));
    // The forms do not share entries.
    assert_eq!(
        decode_entry(&good, &text_key).err(),
        Some(EntryError::Preimage)
    );
}

// ---------------------------------------------------------------------------------------------
// Crash safety: a process killed at each step of a write

#[test]
fn a_process_killed_at_each_step_of_a_write_leaves_no_torn_entry() {
    let reference = uncached(&["link", "--target", "gfx942"]).stdout;
    for step in [
        "after-create",
        "mid-write",
        "after-write",
        "before-rename",
        "after-rename",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let killed = tunespec(dir.path())
            .env("TUNESPEC_CACHE_FAULT", step)
            .args(["link", "--target", "gfx942"])
            .output()
            .unwrap();
        assert!(
            !killed.status.success(),
            "{step}: the fault hook did not fire"
        );
        assert!(killed.stdout.is_empty(), "{step}");
        let entry = dir.path().join("entries").join(gfx942_text_key().hex());
        if step == "after-rename" {
            // The entry is complete; nothing else is left.
            let bytes = std::fs::read(&entry).unwrap();
            assert!(
                decode_disk(dir.path(), &bytes, &gfx942_text_key()).is_ok(),
                "{step}"
            );
            assert!(temp_files(dir.path()).is_empty(), "{step}");
        } else {
            assert!(!entry.exists(), "{step}: a final entry exists");
            assert_eq!(temp_files(dir.path()).len(), 1, "{step}");
        }
        // The next process gets the right library, and its store sweeps the dead temp file.
        let next = link_gfx942(dir.path());
        assert_eq!(next.stdout, reference, "{step}");
        assert!(
            temp_files(dir.path()).is_empty(),
            "{step}: temp file not swept"
        );
        let stats = stats(dir.path());
        assert_eq!(
            (stats.entries, stats.corrupt, stats.temp_files),
            (1, 0, 0),
            "{step}"
        );
        assert!(decode_disk(
            dir.path(),
            &std::fs::read(&entry).unwrap(),
            &gfx942_text_key()
        )
        .is_ok());
    }
}

#[test]
fn clean_sweeps_stale_temp_files_but_not_live_ones() {
    let dir = tempfile::tempdir().unwrap();
    link_gfx942(dir.path());
    let entries = dir.path().join("entries");
    // A temp file of a process that is gone (pid beyond pid_max) and one of a live process.
    let dead = entries.join(format!(".tmp-{}-4194305-0", "a".repeat(64)));
    let live = entries.join(format!(".tmp-{}-{}-0", "b".repeat(64), std::process::id()));
    std::fs::write(&dead, b"partial").unwrap();
    std::fs::write(&live, b"partial").unwrap();
    assert_eq!(stats(dir.path()).temp_files, 2);
    let cleaned = run(tunespec(dir.path()).args(["cache", "clean"]));
    assert_eq!(
        String::from_utf8_lossy(&cleaned.stdout),
        format!("removed 1 entry from {}\n", dir.path().display())
    );
    assert!(!dead.exists());
    assert!(live.exists());
    assert!(entry_files(dir.path()).is_empty());
    // Counters survive `clean`, and go with `clean --counters`.
    assert_eq!(stats(dir.path()).misses, 1);
    run(tunespec(dir.path()).args(["cache", "clean", "--counters"]));
    assert_eq!(stats(dir.path()).misses, 0);
}

// ---------------------------------------------------------------------------------------------
// Size cap and eviction

fn set_age(path: &Path, age: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
}

#[test]
fn eviction_removes_least_recently_used_entries_down_to_80_percent() {
    let dir = tempfile::tempdir().unwrap();
    let targets = ["gfx942", "gfx950", "gfx1100"];
    let mut paths = Vec::new();
    for target in targets {
        let before = entry_files(dir.path());
        run(tunespec(dir.path()).args(["link", "--target", target]));
        let after = entry_files(dir.path());
        paths.push(
            after
                .into_iter()
                .find(|path| !before.contains(path))
                .unwrap(),
        );
    }
    // Ages: gfx950 oldest, then gfx942, then gfx1100.
    set_age(&paths[1], Duration::from_secs(3 * 3600));
    set_age(&paths[0], Duration::from_secs(2 * 3600));
    set_age(&paths[2], Duration::from_secs(3600));
    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    // The size of the fourth entry, from a scratch cache (entries are deterministic).
    let scratch = tempfile::tempdir().unwrap();
    run(tunespec(scratch.path()).args(["link", "--target", "sm_80"]));
    let fourth = size(&only_entry(scratch.path()));
    // A cap whose 80% just holds the newest two: the fourth store overflows it, and eviction
    // removes the two oldest, in age order, and stops.
    let keep = size(&paths[2]) + fourth;
    let cap = (keep / 80 + 1) * 100;
    assert!(size(&paths[0]) + size(&paths[1]) + keep > cap);
    run(tunespec(dir.path())
        .env("TUNESPEC_CACHE_MAX_BYTES", cap.to_string())
        .args(["link", "--target", "sm_80"]));
    assert!(!paths[1].exists(), "the oldest entry stays");
    assert!(!paths[0].exists(), "the second oldest entry stays");
    assert!(paths[2].exists());
    assert_eq!(entry_files(dir.path()).len(), 2);
    let stats = stats(dir.path());
    assert!(stats.entries == 2);
}

#[test]
fn a_hit_refreshes_the_entry_age() {
    let dir = tempfile::tempdir().unwrap();
    link_gfx942(dir.path());
    let entry = only_entry(dir.path());
    set_age(&entry, Duration::from_secs(3600));
    link_gfx942(dir.path());
    let age = std::fs::metadata(&entry)
        .unwrap()
        .modified()
        .unwrap()
        .elapsed()
        .unwrap();
    assert!(age < Duration::from_secs(600), "{age:?}");
}

#[test]
fn an_entry_larger_than_the_cap_is_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(tunespec(dir.path())
        .env("TUNESPEC_CACHE_MAX_BYTES", "1K")
        .args(["link", "--target", "gfx942"]));
    assert!(output.stderr.is_empty());
    assert!(entry_files(dir.path()).is_empty());
}

#[test]
fn eight_processes_race_on_one_key_while_eviction_runs() {
    let dir = tempfile::tempdir().unwrap();
    let reference = uncached(&["link", "--target", "gfx942"]).stdout;
    let entry_size = {
        link_gfx942(dir.path());
        std::fs::metadata(only_entry(dir.path())).unwrap().len()
    };
    // A cap of about two entries: every store by the other targets' processes evicts.
    let cap = (entry_size * 5 / 2).to_string();
    let others = ["gfx950", "gfx1100", "gfx1201", "sm_80", "sm_90"];
    for round in 0..3 {
        // Round 0 starts with the entry present, the others after a clean.
        if round > 0 {
            run(tunespec(dir.path()).args(["cache", "clean"]));
        }
        let mut racers = Vec::new();
        for index in 0..8 {
            let mut command = tunespec(dir.path());
            command
                .env("TUNESPEC_CACHE_MAX_BYTES", &cap)
                .args(["link", "--target", "gfx942"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            if index % 2 == 1 {
                command.env("TUNESPEC_CACHE", "recache");
            }
            racers.push(command.spawn().unwrap());
        }
        let mut evictors = Vec::new();
        for target in others {
            evictors.push(
                tunespec(dir.path())
                    .env("TUNESPEC_CACHE_MAX_BYTES", &cap)
                    .env("TUNESPEC_CACHE", "recache")
                    .args(["link", "--target", target])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap(),
            );
        }
        for racer in racers {
            let output = racer.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(
                output.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(output.stdout == reference, "round {round}: output differs");
        }
        for evictor in evictors {
            let output = evictor.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // Whatever survived is whole, and nothing is left half-written.
        assert!(temp_files(dir.path()).is_empty());
        for path in entry_files(dir.path()) {
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[..8], &cache::MAGIC);
        }
    }
    let stats = stats(dir.path());
    assert_eq!(stats.corrupt, 0);
    // The last store's eviction brought the cache under the cap.
    run(tunespec(dir.path())
        .env("TUNESPEC_CACHE_MAX_BYTES", &cap)
        .env("TUNESPEC_CACHE", "recache")
        .args(["link", "--target", "gfx942"]));
    let bytes: u64 = entry_files(dir.path())
        .iter()
        .map(|path| std::fs::metadata(path).unwrap().len())
        .sum();
    assert!(bytes <= entry_size * 5 / 2, "{bytes}");
}

// ---------------------------------------------------------------------------------------------
// Unusable directories: uncached work, one warning, never a failure

fn warnings_in(output: &Output) -> usize {
    String::from_utf8_lossy(&output.stderr)
        .matches("tunespec::cache::unavailable")
        .count()
}

#[test]
fn a_cache_path_under_a_regular_file_degrades_with_one_warning() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("file");
    std::fs::write(&file, "not a directory").unwrap();
    let dir = file.join("cache");
    let reference = uncached(&["link", "--target", "gfx942"]);
    for emit in ["mlir", "mlirbc"] {
        let output = run(tunespec(&dir).args(["link", "--target", "gfx942", "--emit", emit]));
        assert_eq!(
            warnings_in(&output),
            1,
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        if emit == "mlir" {
            assert_eq!(output.stdout, reference.stdout);
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn a_read_only_cache_directory_serves_hits_and_degrades_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let reference = link_gfx942(&cache_dir);
    let mut permissions = std::fs::metadata(&cache_dir).unwrap().permissions();
    use std::os::unix::fs::PermissionsExt;
    permissions.set_mode(0o555);
    std::fs::set_permissions(&cache_dir, permissions.clone()).unwrap();
    std::fs::set_permissions(cache_dir.join("entries"), permissions.clone()).unwrap();
    // Root ignores permissions: then the directory is still writable, and only the hit is tested.
    let root = rustix::process::geteuid().is_root();
    let hit = link_gfx942(&cache_dir);
    assert_eq!(hit.stdout, reference.stdout);
    assert_eq!(warnings_in(&hit), 0);
    let miss = run(tunespec(&cache_dir).args(["link", "--target", "gfx950"]));
    assert_eq!(
        miss.stdout,
        uncached(&["link", "--target", "gfx950"]).stdout
    );
    if root {
        assert_eq!(warnings_in(&miss), 0);
    } else {
        assert_eq!(
            warnings_in(&miss),
            1,
            "{}",
            String::from_utf8_lossy(&miss.stderr)
        );
        assert_eq!(entry_files(&cache_dir).len(), 1);
    }
    permissions.set_mode(0o755);
    std::fs::set_permissions(cache_dir.join("entries"), permissions.clone()).unwrap();
    std::fs::set_permissions(&cache_dir, permissions).unwrap();
}

#[test]
fn a_missing_cache_directory_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("does/not/exist/yet");
    let output = link_gfx942(&cache_dir);
    assert!(output.stderr.is_empty());
    assert_eq!(entry_files(&cache_dir).len(), 1);
    assert!(std::fs::read_to_string(cache_dir.join("CACHEDIR.TAG"))
        .unwrap()
        .starts_with("Signature: 8a477f597d28d172789f06886806bc55"));
}

#[test]
fn cache_commands_path_stats_clean() {
    let dir = tempfile::tempdir().unwrap();
    let path = run(tunespec(dir.path()).args(["cache", "path"]));
    assert_eq!(
        String::from_utf8_lossy(&path.stdout),
        format!("{}\n", dir.path().display())
    );
    // A cache that does not exist yet has empty stats.
    let empty = dir.path().join("none");
    assert_eq!(
        stats(&empty),
        Stats {
            hits: 0,
            misses: 0,
            corrupt: 0,
            entries: 0,
            temp_files: 0
        }
    );
    assert!(!empty.exists(), "stats must not create the directory");
    link_gfx942(dir.path());
    link_gfx942(dir.path());
    let human = run(tunespec(dir.path()).args(["cache", "stats"]));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("hits       1 (50.0% of 2 lookups)"), "{text}");
    assert!(text.contains("entries    1\n"), "{text}");
    // XDG: the default directory.
    let xdg = tempfile::tempdir().unwrap();
    let default = run(crate::support::tunespec_command()
        .env_remove("TUNESPEC_CACHE_DIR")
        .env("XDG_CACHE_HOME", xdg.path())
        .args(["cache", "path"]));
    assert_eq!(
        String::from_utf8_lossy(&default.stdout),
        format!("{}\n", xdg.path().join("tunespec").display())
    );
}

#[test]
fn settings_from_the_environment() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| std::ffi::OsString::from(value))
        }
    };
    let (settings, warnings) = Settings::from_vars(vars(&[("HOME", "/home/u")]));
    assert_eq!(settings.mode, Mode::On);
    assert_eq!(settings.dir, Some(PathBuf::from("/home/u/.cache/tunespec")));
    assert_eq!(settings.max_bytes, 256 << 20);
    assert!(warnings.is_empty());
    let (settings, _) = Settings::from_vars(vars(&[
        ("HOME", "/home/u"),
        ("XDG_CACHE_HOME", "/xdg"),
        ("TUNESPEC_CACHE", "readonly"),
        ("TUNESPEC_CACHE_MAX_BYTES", "64MiB"),
    ]));
    assert_eq!(settings.dir, Some(PathBuf::from("/xdg/tunespec")));
    assert_eq!(
        (settings.mode, settings.max_bytes),
        (Mode::ReadOnly, 64 << 20)
    );
    let (settings, _) = Settings::from_vars(vars(&[
        ("XDG_CACHE_HOME", "relative/ignored"),
        ("TUNESPEC_CACHE_DIR", "/explicit"),
        ("TUNESPEC_CACHE", "recache"),
    ]));
    assert_eq!(settings.dir, Some(PathBuf::from("/explicit")));
    assert_eq!(settings.mode, Mode::Recache);
    let (settings, warnings) = Settings::from_vars(vars(&[
        ("TUNESPEC_CACHE", "sometimes"),
        ("TUNESPEC_CACHE_MAX_BYTES", "lots"),
    ]));
    assert_eq!(
        (settings.mode, settings.max_bytes, settings.dir),
        (Mode::On, 256 << 20, None)
    );
    assert_eq!(warnings.len(), 2);
    assert_eq!(cache::parse_size("1G"), Some(1 << 30));
    assert_eq!(cache::parse_size("12k"), Some(12 << 10));
    assert_eq!(cache::parse_size("7"), Some(7));
    assert_eq!(cache::parse_size("-1"), None);
    assert_eq!(cache::parse_size("99999999999999999999G"), None);
}

// ---------------------------------------------------------------------------------------------
// In-process cache (library API)

fn settings(dir: Option<&Path>) -> Settings {
    Settings {
        mode: Mode::On,
        dir: dir.map(Path::to_path_buf),
        max_bytes: 1 << 30,
        memory_entries: 64,
        memory_bytes: 64 << 20,
        fault: None,
    }
}

#[test]
fn library_link_equals_a_direct_link() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let inputs = gfx942_inputs();
    let direct = link::link(&mlir, &inputs, LinkOptions::default()).unwrap();
    let expected = direct.module.to_bytecode().unwrap();
    let first = cache
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(!first.hit);
    assert_eq!(first.bytecode, expected);
    assert_eq!(first.key, gfx942_key());
    let second = cache
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(second.hit);
    assert_eq!(second.bytecode, expected);
    // Another cache object (another process, as far as the disk goes) hits on disk.
    let other = Cache::new(settings(Some(dir.path())));
    let third = other
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(third.hit);
    assert_eq!(other.process_stats().disk_hits, 1);
    assert_eq!(cache.process_stats().memory_hits, 1);
    assert_eq!(cache.process_stats().links, 1);
    // The module parsed from the cache prints what the direct link prints.
    let (module, library) = other
        .link_module(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(library.hit);
    assert_eq!(module.print(), direct.module.print());
    assert!(cache.take_warnings().is_empty());
}

#[test]
fn concurrent_requests_for_one_key_link_once() {
    let cache = Arc::new(Cache::new(settings(None)));
    let _ = cache.take_warnings(); // "no cache directory": memory only
    let key = gfx942_key();
    let bytecode = registry::specs()[0].bytecode().to_vec();
    let builds = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (cache, key, bytecode, builds, barrier) = (
                cache.clone(),
                key.clone(),
                bytecode.clone(),
                builds.clone(),
                barrier.clone(),
            );
            std::thread::spawn(move || {
                barrier.wait();
                cache
                    .get_or_insert_with(&key, || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(300));
                        Ok(Artifact {
                            bytecode,
                            problems: Vec::new(),
                        })
                    })
                    .unwrap()
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    assert_eq!(results.iter().filter(|result| !result.hit).count(), 1);
    assert!(results.iter().all(|result| result.bytecode == bytecode));
    let stats = cache.process_stats();
    assert_eq!(stats.links, 1);
    assert_eq!(stats.shared + stats.memory_hits, 7);
}

#[test]
fn concurrent_links_on_threads_with_their_own_contexts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::new(settings(Some(dir.path()))));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let mlir = Mlir::new();
                cache
                    .link(
                        &mlir,
                        &gfx942_target(),
                        &gfx942_inputs(),
                        LinkOptions::default(),
                    )
                    .unwrap()
                    .bytecode
            })
        })
        .collect();
    let results: Vec<Vec<u8>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(results.windows(2).all(|pair| pair[0] == pair[1]));
    assert_eq!(cache.process_stats().links, 1);
}

#[test]
fn failures_are_not_cached_and_waiters_get_them() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let bad = vec![LinkInput {
        name: "bad.mlir".into(),
        location: "bad.mlir".into(),
        bytes: b"func.func @f() { return }".to_vec(),
        role: Role::User,
    }];
    for _ in 0..2 {
        let problems = cache
            .link(&mlir, "", &bad, LinkOptions::default())
            .unwrap_err();
        assert!(problems.iter().any(Problem::is_error));
    }
    assert_eq!(cache.process_stats().links, 2);
    assert!(entry_files(dir.path()).is_empty());
}

#[test]
fn a_panicking_link_does_not_wedge_other_requests() {
    let cache = Arc::new(Cache::new(settings(None)));
    let key = gfx942_key();
    let panicking = {
        let (cache, key) = (cache.clone(), key.clone());
        std::thread::spawn(move || {
            let _ = cache.get_or_insert_with(&key, || {
                std::thread::sleep(Duration::from_millis(200));
                panic!("link bug");
            });
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let result = cache.get_or_insert_with(&key, || {
        Ok(Artifact {
            bytecode: b"ML\xEFR".to_vec(),
            problems: Vec::new(),
        })
    });
    assert!(panicking.join().is_err());
    assert_eq!(result.unwrap().bytecode, b"ML\xEFR");
}

#[test]
fn the_memory_cache_is_bounded_by_entries_and_bytes() {
    let mut limits = settings(None);
    limits.memory_entries = 2;
    limits.memory_bytes = 1000;
    let cache = Cache::new(limits);
    let builds = AtomicUsize::new(0);
    let get = |target: &str, size: usize| {
        let key = KeyParts::new(target, &[], &LinkOptions::default()).key();
        cache
            .get_or_insert_with(&key, || {
                builds.fetch_add(1, Ordering::SeqCst);
                Ok(Artifact {
                    bytecode: vec![7; size],
                    problems: Vec::new(),
                })
            })
            .unwrap()
            .hit
    };
    assert!(!get("a", 100));
    assert!(!get("b", 100));
    assert!(get("a", 100)); // a is now the most recently used
    assert!(!get("c", 100)); // evicts b
    assert!(get("a", 100));
    assert!(!get("b", 100));
    assert!(!get("big", 2000)); // larger than the byte bound: never kept
    assert!(!get("big", 2000));
    assert_eq!(builds.load(Ordering::SeqCst), 6);
}

#[test]
fn an_entry_mlir_cannot_parse_is_relinked() {
    // A checksum-valid entry whose bytecode MLIR rejects (a version from the future), in a
    // cache that has its secret (made by a first link).
    let dir = tempfile::tempdir().unwrap();
    let key = gfx942_key();
    link_gfx942(dir.path());
    let secret = cache::entry_secret(dir.path()).unwrap();
    let mut bogus = b"ML\xEFR".to_vec();
    bogus.push((99 << 1) | 1);
    bogus.extend_from_slice(b"MLIR99\0");
    std::fs::write(
        dir.path().join("entries").join(key.hex()),
        encode_entry_with(
            &key,
            &Artifact {
                bytecode: bogus,
                problems: Vec::new(),
            },
            Some(&secret),
        ),
    )
    .unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let (module, library) = cache
        .link_module(
            &mlir,
            &gfx942_target(),
            &gfx942_inputs(),
            LinkOptions::default(),
        )
        .unwrap();
    assert!(!library.hit);
    assert!(module.print().contains("@__kernel_config"));
    assert_eq!(cache.process_stats().corrupt, 1);
    assert_eq!(stats(dir.path()).corrupt, 1);
    let stored = std::fs::read(dir.path().join("entries").join(key.hex())).unwrap();
    assert_eq!(
        decode_entry_with(&stored, &key, Some(&secret))
            .unwrap()
            .bytecode,
        library.bytecode
    );
}
