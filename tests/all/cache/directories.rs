//! Unusable directories degrade to uncached work with one warning, never a failure; the
//! `cache` commands; the cache settings read from the environment.

use super::*;

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
