//! What the tests share to be hermetic: every run of the tunespec binary gets a private home
//! (`HOME`, the XDG config and cache homes, `TUNESPEC_CACHE_DIR` all inside it), no user config
//! (`TUNESPEC_NO_CONFIG`) and none of the caller's tunespec settings. Tests that call the library
//! in process pass what it needs explicitly (a `Discovery` from an environment closure, cache
//! `Settings`, `LinkOptions`) and never change this process's environment: the harness runs tests
//! on several threads, and a variable set by one races with every other test reading the
//! environment. A test that must read the process environment itself runs in a hermetic child
//! ([`in_hermetic_child`]). No test reads or writes the developer's config or cache, whatever
//! `$HOME` holds.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::reference::repo_root;

/// The caller's settings that would change what tunespec does; tests set what they need.
const CALLER_SETTINGS: &[&str] = &[
    "TUNESPEC_SPEC_PATH",
    "TUNESPEC_CACHE",
    "TUNESPEC_CACHE_DIR",
    "TUNESPEC_CACHE_MAX_BYTES",
    "TUNESPEC_CACHE_FAULT",
    "TUNESPEC_TRUST_BYTECODE",
    "TUNESPEC_TERM_WIDTH",
    "TUNESPEC_LOG",
    "TUNESPEC_DERIVED",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "TUNESPEC_STORE_READ_ONLY",
    "REDISCLI_AUTH",
];

/// A new, empty directory under Cargo's scratch directory for integration tests, unique in this
/// run (process id and a counter).
pub fn private_home() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "home-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("the scratch directory is writable");
    home
}

/// The environment of a hermetic run in `home`: (variable, value) to set; every other name of
/// [`CALLER_SETTINGS`] is removed.
pub fn hermetic_env(home: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("HOME", home.into()),
        ("XDG_CONFIG_HOME", home.join("config").into()),
        ("XDG_CACHE_HOME", home.join("cache").into()),
        ("TUNESPEC_CACHE_DIR", home.join("cache/tunespec").into()),
        ("TUNESPEC_NO_CONFIG", "1".into()),
        ("NO_COLOR", "1".into()),
        // tunespec's own behaviour unless a test asks for IREE's library (a build from this
        // checkout would otherwise find target/iree-venv).
        ("TUNESPEC_NO_IREE", "1".into()),
        // The suite was written when tunespec's derived default specs were linked by default;
        // most tests are about linking, applying and explaining those defaults, not about the
        // measured-first policy, so they keep them. `measured_first.rs` removes this to test
        // the real default (derived defaults withheld).
        ("TUNESPEC_DERIVED", "1".into()),
    ]
}

/// Makes `command` hermetic with a fresh private home.
pub fn hermetic(command: &mut Command) -> &mut Command {
    for name in CALLER_SETTINGS {
        command.env_remove(name);
    }
    command.envs(hermetic_env(&private_home()))
}

/// `tunespec` from this build, hermetic, run in the repository.
pub fn tunespec_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tunespec"));
    hermetic(&mut command).current_dir(repo_root());
    command
}

/// [`tunespec_command`] with its cache under `cache`.
pub fn tunespec(cache: &Path) -> Command {
    let mut command = tunespec_command();
    command.env("TUNESPEC_CACHE_DIR", cache);
    command
}

/// [`tunespec_command`] for snapbox's assertions (`TUNESPEC_TERM_WIDTH` 100, as the snapshots
/// were taken).
pub fn snapbox_tunespec() -> snapbox::cmd::Command {
    let mut command =
        snapbox::cmd::Command::new(snapbox::cmd::cargo_bin!("tunespec")).current_dir(repo_root());
    for name in CALLER_SETTINGS {
        command = command.env_remove(*name);
    }
    for (name, value) in hermetic_env(&private_home()) {
        command = command.env(name, value);
    }
    command.env("TUNESPEC_TERM_WIDTH", "100")
}

/// Set in the environment of a test run by [`in_hermetic_child`], for the test to know it is
/// the child.
const CHILD_MARKER: &str = "TUNESPEC_TEST_HERMETIC_CHILD";

/// For a test that reads the process environment itself (the library's `process_env`, or a
/// crate that reads it directly): whether the caller is that test in a hermetic child and
/// should run its body. Outside the child, this runs `test` (its path in this binary,
/// `module::name`) alone in a child of this test binary with [`hermetic_env`], checks that it
/// ran and passed, and returns `false`. A child, not variables set in this process: those would
/// race with every other test reading the environment.
pub fn in_hermetic_child(test: &str) -> bool {
    if std::env::var_os(CHILD_MARKER).is_some() {
        return true;
    }
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    hermetic(&mut command)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_MARKER, "1");
    let output = command.output().expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{test} failed or did not run in the hermetic child: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

/// Runs `command`; a failure shows its first lines of stderr.
pub fn run(command: &mut Command) -> Output {
    let output = command.output().expect("command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
    output
}
