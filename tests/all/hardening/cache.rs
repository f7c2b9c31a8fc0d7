//! Issue 16, the cache: planted links, directories others may write or own, forged entries,
//! FIFOs, a directory that is not a cache, the spellings of `TUNESPEC_CACHE`.

use super::*;

#[test]
fn links_planted_in_the_cache_are_never_written_through() {
    let cache = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victims: Vec<PathBuf> = ["stats.log", "lock", "stats.json", "stats.log.fold"]
        .iter()
        .map(|name| {
            let victim = outside.path().join(format!("victim-{name}"));
            std::fs::write(&victim, b"precious\n").unwrap();
            std::os::unix::fs::symlink(&victim, cache.path().join(name)).unwrap();
            victim
        })
        .collect();
    let reference = reference_link();
    for _ in 0..2 {
        let output = run(tunespec(cache.path()).args(["link", "--target", "gfx942"]));
        assert_eq!(output.stdout, reference);
    }
    run(tunespec(cache.path()).args(["cache", "stats"]));
    for victim in &victims {
        assert_eq!(
            std::fs::read(victim).unwrap(),
            b"precious\n",
            "{} was written through a link",
            victim.display()
        );
    }
}

#[test]
fn a_cache_directory_others_may_write_is_not_used() {
    let parent = tempfile::tempdir().unwrap();
    let cache = parent.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = run(tunespec(&cache).args(["link", "--target", "gfx942"]));
    assert_eq!(output.stdout, reference_link());
    let message = stderr(&output);
    assert_eq!(
        message.matches("writable by every user").count(),
        1,
        "{message}"
    );
    assert!(
        std::fs::read_dir(&cache).unwrap().next().is_none(),
        "tunespec wrote into a world-writable cache directory"
    );
    // With the sticky bit (like /tmp) it is fine: others cannot replace this user's files.
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let output = run(tunespec(&cache).args(["link", "--target", "gfx942"]));
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    assert_eq!(entry_names(&cache).len(), 1);
}

#[test]
fn a_cache_directory_of_another_user_is_not_used() {
    if skip_without_root("a_cache_directory_of_another_user_is_not_used") {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let cache = parent.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    // The other user planted a link where the counters go.
    let victim = parent.path().join("victim");
    std::fs::write(&victim, b"precious\n").unwrap();
    std::os::unix::fs::symlink(&victim, cache.join("stats.log")).unwrap();
    std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
    let output = run(tunespec(&cache).args(["link", "--target", "gfx942"]));
    assert_eq!(output.stdout, reference_link());
    let message = stderr(&output);
    assert_eq!(
        message.matches("is owned by another user").count(),
        1,
        "{message}"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n");
    assert!(entry_names(&cache).is_empty());
    // `cache clean` refuses it too.
    let clean = tunespec(&cache).args(["cache", "clean"]).output().unwrap();
    assert_eq!(clean.status.code(), Some(2), "{}", stderr(&clean));
}

/// Re-encodes an entry with `payload`, its checksum recomputed the only way a forger without the
/// cache's secret can: unkeyed BLAKE3 over the header and body.
fn forge(entry: &[u8], payload: &[u8]) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(entry[at..at + 4].try_into().unwrap()) as usize;
    let body_start = 60 + u32_at(12) + u32_at(16);
    let mut forged = entry[..body_start].to_vec();
    forged[20..28].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    forged.extend_from_slice(payload);
    let mut hasher = blake3::Hasher::new();
    hasher.update(&forged[..28]);
    hasher.update(&forged[60..]);
    let checksum = *hasher.finalize().as_bytes();
    forged[28..60].copy_from_slice(&checksum);
    forged
}

#[test]
fn a_forged_entry_is_dropped_counted_and_relinked() {
    let cache = tempfile::tempdir().unwrap();
    let reference = run(tunespec(cache.path()).args(["link", "--target", "gfx942"])).stdout;
    let names = entry_names(cache.path());
    assert_eq!(names.len(), 1);
    let entry = cache.path().join("entries").join(&names[0]);
    let forged = forge(&std::fs::read(&entry).unwrap(), b"// not the library\n");
    std::fs::write(&entry, &forged).unwrap();
    let output = run(tunespec(cache.path()).args(["link", "--target", "gfx942"]));
    assert_eq!(output.stdout, reference, "a forged entry was written out");
    assert_ne!(std::fs::read(&entry).unwrap(), forged, "not replaced");
    let stats = run(tunespec(cache.path()).args(["cache", "stats", "--format", "json"]));
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["corrupt"], 1);
    // The relinked entry is a hit again.
    let again = run(tunespec(cache.path()).args(["link", "--target", "gfx942"]));
    assert_eq!(again.stdout, reference);
}

#[test]
fn fifos_in_the_cache_do_not_hang() {
    let cache = tempfile::tempdir().unwrap();
    let reference = run(tunespec(cache.path()).args(["link", "--target", "gfx942"])).stdout;
    let names = entry_names(cache.path());
    let entry = cache.path().join("entries").join(&names[0]);
    std::fs::remove_file(&entry).unwrap();
    mkfifo(&entry);
    for name in ["stats.log", "stats.json"] {
        let _ = std::fs::remove_file(cache.path().join(name));
        mkfifo(&cache.path().join(name));
    }
    let child = spawn(tunespec(cache.path()).args(["link", "--target", "gfx942"]));
    let output = finish(child, 60, "link with FIFOs in the cache");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(output.stdout, reference);
    let stats = spawn(tunespec(cache.path()).args(["cache", "stats"]));
    assert!(finish(stats, 60, "cache stats with FIFOs").status.success());
}

#[test]
fn a_directory_that_is_not_a_cache_is_neither_used_nor_cleaned() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("stats.json"), b"{\"project\": true}\n").unwrap();
    std::fs::write(project.path().join("README.md"), b"# a project\n").unwrap();
    let output = run(tunespec(project.path()).args(["link", "--target", "gfx942"]));
    assert_eq!(output.stdout, reference_link());
    assert!(
        stderr(&output).contains("is not a tunespec cache"),
        "{}",
        stderr(&output)
    );
    assert!(!project.path().join("CACHEDIR.TAG").exists());
    assert!(!project.path().join("entries").exists());
    let clean = tunespec(project.path())
        .args(["cache", "clean", "--counters"])
        .output()
        .unwrap();
    assert_eq!(clean.status.code(), Some(2), "{}", stderr(&clean));
    assert_eq!(
        std::fs::read(project.path().join("stats.json")).unwrap(),
        b"{\"project\": true}\n"
    );
}

#[test]
fn tunespec_cache_accepts_the_usual_spellings_and_rejects_others() {
    use tunespec::cache::Mode;
    for (text, mode) in [
        ("OFF", Mode::Off),
        ("off", Mode::Off),
        ("0", Mode::Off),
        ("False", Mode::Off),
        ("no", Mode::Off),
        ("On", Mode::On),
        ("1", Mode::On),
        ("TRUE", Mode::On),
        ("yes", Mode::On),
        ("ReadOnly", Mode::ReadOnly),
        ("read-only", Mode::ReadOnly),
        ("RECACHE", Mode::Recache),
    ] {
        assert_eq!(Mode::parse(text), Some(mode), "{text}");
    }
    assert_eq!(Mode::parse("sometimes"), None);
    // OFF in capitals turns the cache off: nothing is written.
    let cache = tempfile::tempdir().unwrap();
    run(tunespec(cache.path())
        .env("TUNESPEC_CACHE", "OFF")
        .args(["link", "--target", "gfx942"]));
    assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none());
    // Anything else is a usage error.
    for command in [&["link", "--target", "gfx942"][..], &["cache", "stats"][..]] {
        let output = tunespec(cache.path())
            .env("TUNESPEC_CACHE", "sometimes")
            .args(command)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        assert!(stderr(&output).contains("TUNESPEC_CACHE=sometimes"));
        assert!(output.stdout.is_empty());
    }
}
