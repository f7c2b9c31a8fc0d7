//! Issue 16: outputs, the cache and inputs under hostile or unusual filesystems. One test (or
//! more) per finding, named after it (F01 ... F17); each failed before its fix.
//!
//! Tests that need another user run as root (the owner is changed with `chown`); run as another
//! user they print why they skip, except under `CI=true`, where they fail.
//!
//! One file per area: `cache`, `outputs`, `inputs`; the helpers they share are here (`streams.rs`
//! uses `finish`, `mkfifo`, `report` and `spawn` too).

mod cache;
mod inputs;
mod outputs;

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::reference::repo_root;
use crate::support::{run, tunespec};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/specs/good").join(name)
}

/// `tunespec link --target gfx942` with the cache off: the reference output.
fn reference_link() -> Vec<u8> {
    let cache = tempfile::tempdir().unwrap();
    run(tunespec(cache.path())
        .env("TUNESPEC_CACHE", "off")
        .args(["link", "--target", "gfx942"]))
    .stdout
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Both streams (`verify` reports on stdout).
pub(crate) fn report(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Waits for `child` at most `seconds` (reading its output meanwhile); a child still running
/// then is killed and the test fails (the hang the finding describes).
pub(crate) fn finish(mut child: Child, seconds: u64, what: &str) -> Output {
    use std::io::Read;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {seconds} s (hung)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

pub(crate) fn spawn(command: &mut Command) -> Child {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub(crate) fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether a test that needs root may skip (not root, and not in CI).
fn skip_without_root(test: &str) -> bool {
    if is_root() {
        return false;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test} needs root under CI=true"
    );
    eprintln!("{test}: skipped (needs root to give a directory to another user)");
    true
}

fn entry_names(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("entries"))
        .map(|items| {
            items
                .flatten()
                .map(|item| item.file_name().to_string_lossy().into_owned())
                .filter(|name| name.len() == 64)
                .collect()
        })
        .unwrap_or_default()
}

fn set_age(path: &Path, age: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
}
