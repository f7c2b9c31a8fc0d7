//! Writes: a process killed at each step of a write leaves no torn entry, stale temporary
//! files are swept, and the size cap evicts least recently used entries while 8 processes
//! race on one key.

use super::*;

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
