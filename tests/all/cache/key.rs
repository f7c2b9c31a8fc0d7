//! The cache key: each input changes it (one test per input), its encoding is unambiguous, and
//! it is stable within a process, across processes and environment noise, and across
//! directory-listing order.

use super::*;

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
