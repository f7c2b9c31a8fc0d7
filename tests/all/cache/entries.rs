//! Entries: a hit gives what a cold link gives (text and warnings), options and targets get
//! their own entries; a bad entry (flipped bit, torn, empty, another schema or key, foreign)
//! is a miss, counted as corrupt, removed and relinked.

use super::*;

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

/// The target part of the key is built from the resolution (its chain and canonical features),
/// not from the text given: one request spelled two ways (case, feature order) is one entry,
/// found again; other features, which may choose other specs, get their own entry.
#[test]
fn a_request_spelled_two_ways_is_one_entry() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(tunespec(dir.path()).args(["link", "-t", "gfx942:xnack+:sramecc-"]));
    let second = run(tunespec(dir.path()).args(["link", "-t", "GFX942:sramecc-:xnack+"]));
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(entry_files(dir.path()).len(), 1);
    assert_eq!(stats(dir.path()).hits, 1);
    run(tunespec(dir.path()).args(["link", "-t", "gfx942"]));
    assert_eq!(entry_files(dir.path()).len(), 2);
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
