//! Issue 16: outputs, the cache and inputs under hostile or unusual filesystems. One test (or
//! more) per finding, named after it (F01 ... F17); each failed before its fix.
//!
//! Tests that need another user run as root (the owner is changed with `chown`); run as another
//! user they print why they skip, except under `CI=true`, where they fail.

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

// ---------------------------------------------------------------------------------------------
// The cache

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

// ---------------------------------------------------------------------------------------------
// Outputs

#[test]
fn an_output_link_to_this_process_stdout_writes_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let link = dir.path().join("out");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    for output in [link.as_path(), Path::new("/dev/stdout")] {
        let file = dir.path().join("captured");
        let captured = std::fs::File::create(&file).unwrap();
        let status = tunespec(cache.path())
            .env("TUNESPEC_CACHE", "off")
            .args(["link", "--target", "gfx942", "-o"])
            .arg(output)
            .stdout(captured)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            std::fs::read(&file).unwrap(),
            reference_link(),
            "-o {}",
            output.display()
        );
    }
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
    // A FIFO is written through, not replaced.
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::read(fifo).unwrap()
    });
    let writer = spawn(
        tunespec(cache.path())
            .env("TUNESPEC_CACHE", "off")
            .args(["link", "--target", "gfx942", "-o"])
            .arg(&fifo),
    );
    assert!(finish(writer, 60, "link -o FIFO").status.success());
    assert_eq!(reader.join().unwrap(), reference_link());
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn an_output_link_is_kept_and_modes_follow_the_umask_or_the_replaced_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.mlir");
    std::fs::write(&real, b"old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.mlir");
    std::os::unix::fs::symlink("real.mlir", &link).unwrap();
    run(tunespec(cache.path())
        .args(["link", "--target", "gfx942", "-o"])
        .arg(&link));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&real).unwrap(), reference_link());
    assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o640);
    // A new file: 0666 minus the umask.
    let new = dir.path().join("new.mlir");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 027; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_tunespec"))
        .args(["link", "--target", "gfx942", "--derived", "-o"])
        .arg(&new)
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE_DIR", cache.path())
        .current_dir(repo_root())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::metadata(&new).unwrap().mode() & 0o777, 0o640);
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let spec = dir.path().join("a.mlir");
    std::fs::copy(fixture("one_matcher.mlir"), &spec).unwrap();
    let original = std::fs::read(&spec).unwrap();
    let alias = dir.path().join("alias.mlir");
    std::fs::hard_link(&spec, &alias).unwrap();
    for output in [&spec, &alias] {
        let result = tunespec(cache.path())
            .args(["link", "--no-default", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(output)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        assert!(
            stderr(&result).contains("is the input"),
            "{}",
            stderr(&result)
        );
        assert_eq!(std::fs::read(&spec).unwrap(), original);
    }
    // An output inside a spec directory that is an input would be linked into the next output.
    let result = tunespec(cache.path())
        .args(["link", "--no-default", "--spec"])
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("library.mlir"))
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(!dir.path().join("library.mlir").exists());
    // attach and apply write payloads: not over a spec either.
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    for command in ["attach", "apply"] {
        let result = tunespec(cache.path())
            .args([command, "--no-default", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(&alias)
            .arg(&payload)
            .output()
            .unwrap();
        assert_eq!(
            result.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&result)
        );
        assert_eq!(std::fs::read(&spec).unwrap(), original, "{command}");
    }
}

#[test]
fn export_on_a_full_disk_leaves_neither_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // 100 blocks: room for the header (a few KiB), not for the source (hundreds of KiB).
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 100; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_tunespec"))
        .args(["export", "--format", "c", "-o"])
        .arg(&out)
        .env("TUNESPEC_NO_CONFIG", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|item| item.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn stale_temporary_outputs_are_swept() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".tunespec-AbC123");
    let fresh = dir.path().join(".tunespec-XyZ789");
    std::fs::write(&stale, b"partial").unwrap();
    std::fs::write(&fresh, b"partial").unwrap();
    set_age(&stale, Duration::from_secs(2 * 24 * 3600));
    run(tunespec(cache.path())
        .args(["link", "--target", "gfx942", "-o"])
        .arg(dir.path().join("out.mlir")));
    assert!(!stale.exists(), "a two-day-old temporary file was kept");
    assert!(fresh.exists(), "a live writer's temporary file was removed");
}

// ---------------------------------------------------------------------------------------------
// Inputs

#[test]
fn a_fifo_in_a_spec_directory_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join("one.mlir")).unwrap();
    mkfifo(&dir.path().join("x.mlir"));
    let verify = spawn(tunespec(cache.path()).arg("verify").arg(dir.path()));
    let output = finish(verify, 60, "verify DIR with a FIFO");
    assert!(output.status.success(), "{}", stderr(&output));
    let link = spawn(
        tunespec(cache.path())
            .args(["link", "--no-default", "--spec"])
            .arg(dir.path()),
    );
    let output = finish(link, 60, "link --spec DIR with a FIFO");
    assert!(output.status.success(), "{}", stderr(&output));
    // A FIFO named explicitly, with no writer, reads as empty instead of blocking.
    let verify = spawn(
        tunespec(cache.path())
            .arg("verify")
            .arg(dir.path().join("x.mlir")),
    );
    let output = finish(verify, 60, "verify FIFO");
    assert!(!output.status.success());
}

#[test]
fn walk_errors_are_located_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join("one.mlir")).unwrap();
    let dangling = dir.path().join("gone.mlir");
    std::os::unix::fs::symlink(dir.path().join("nowhere.mlir"), &dangling).unwrap();
    for args in [
        vec!["verify".to_string()],
        vec![
            "link".to_string(),
            "--no-default".to_string(),
            "--spec".to_string(),
        ],
    ] {
        let output = tunespec(cache.path())
            .args(&args)
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            report(&output)
        );
        assert!(
            report(&output).contains(&dangling.display().to_string()),
            "{args:?}: {}",
            report(&output)
        );
    }
}

#[test]
fn the_bytecode_probe_survives_a_replaced_binary() {
    let cache = tempfile::tempdir().unwrap();
    let bytecode = run(tunespec(cache.path())
        .env("TUNESPEC_CACHE", "off")
        .args(["link", "--no-default", "--emit", "mlirbc", "--spec"])
        .arg(fixture("one_matcher.mlir")))
    .stdout;
    // A second name for the binary, removed while it runs (as a package upgrade does).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let binary = dir.path().join("tunespec");
    std::fs::hard_link(env!("CARGO_BIN_EXE_tunespec"), &binary)
        .or_else(|_| std::fs::copy(env!("CARGO_BIN_EXE_tunespec"), &binary).map(|_| ()))
        .unwrap();
    let mut child = Command::new(&binary)
        .args(["verify", "/dev/stdin"])
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE_DIR", cache.path())
        .env_remove("TUNESPEC_TRUST_BYTECODE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::fs::remove_file(&binary).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&bytecode).unwrap();
    drop(stdin);
    let output = finish(child, 60, "verify after the binary was removed");
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn a_project_config_of_another_user_is_ignored_unless_listed_as_safe() {
    if skip_without_root("a_project_config_of_another_user_is_ignored_unless_listed_as_safe") {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("mine")).unwrap();
    std::fs::copy(
        fixture("one_matcher.mlir"),
        project.path().join("mine/planted.mlir"),
    )
    .unwrap();
    let config = project.path().join("tunespec.toml");
    std::fs::write(&config, "spec_dirs = [\"mine\"]\n").unwrap();
    std::os::unix::fs::chown(&config, Some(65534), Some(65534)).unwrap();
    let resolve = || {
        let output = tunespec(cache.path())
            .env_remove("TUNESPEC_NO_CONFIG")
            .env("XDG_CONFIG_HOME", xdg.path())
            .current_dir(project.path())
            .args(["resolve", "gfx942"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        output
    };
    let ignored = resolve();
    assert!(!String::from_utf8_lossy(&ignored.stdout).contains("planted.mlir"));
    assert_eq!(
        stderr(&ignored).matches("owned by another user").count(),
        1,
        "{}",
        stderr(&ignored)
    );
    // Listed in the user config's allow-list: used.
    std::fs::create_dir(xdg.path().join("tunespec")).unwrap();
    std::fs::write(
        xdg.path().join("tunespec/config.toml"),
        format!("safe_configs = [{:?}]\n", config.display().to_string()),
    )
    .unwrap();
    let allowed = resolve();
    assert!(
        String::from_utf8_lossy(&allowed.stdout).contains("planted.mlir"),
        "{}",
        String::from_utf8_lossy(&allowed.stdout)
    );
    assert!(stderr(&allowed).is_empty(), "{}", stderr(&allowed));
}

#[test]
fn a_file_name_that_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.mlir");
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join(name)).unwrap();
    let verify = tunespec(cache.path())
        .arg("verify")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", report(&verify));
    assert!(
        report(&verify).contains("caf\u{fffd}.mlir"),
        "{}",
        report(&verify)
    );
    let link = tunespec(cache.path())
        .args(["link", "--no-default", "--spec"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(link.status.success(), "{}", stderr(&link));
    assert!(String::from_utf8_lossy(&link.stdout).contains("@__kernel_config"));
}

#[test]
fn a_broken_config_is_one_exit_status_and_one_message_everywhere() {
    let project = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("tunespec.toml"), "spec_dirs = 3\n").unwrap();
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    let payload = payload.to_str().unwrap();
    for command in [
        &["link", "--target", "gfx942"][..],
        &["resolve", "gfx942"][..],
        &["explain", "--target", "gfx942", payload][..],
        &["attach", "--target", "gfx942", payload][..],
        &["apply", "--target", "gfx942", payload][..],
    ] {
        let output = tunespec(cache.path())
            .env_remove("TUNESPEC_NO_CONFIG")
            .env("XDG_CONFIG_HOME", xdg.path())
            .env("TUNESPEC_CACHE", "off")
            .current_dir(project.path())
            .args(command)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{command:?}: {}",
            report(&output)
        );
        assert_eq!(
            stderr(&output).matches("expected a sequence").count(),
            1,
            "{command:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("tunespec.toml:1:13"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn attach_refuses_bad_attribute_names_and_foreign_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    let out = dir.path().join("out.mlir");
    for attr in ["a b", "", "\"", "1abc", "a.b\"c"] {
        let output = tunespec(cache.path())
            .args(["attach", "--target", "gfx942", "--attr", attr, "-o"])
            .arg(&out)
            .arg(&payload)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{attr:?}: {}",
            stderr(&output)
        );
        assert!(!out.exists(), "{attr:?}: an output was written");
    }
    // An attribute the payload uses with another meaning is not replaced.
    let foreign = dir.path().join("foreign.mlir");
    std::fs::write(
        &foreign,
        "module attributes {llvm.data_layout = \"e-m:e\"} {\n  func.func @f() {\n    return\n  }\n}\n",
    )
    .unwrap();
    let output = tunespec(cache.path())
        .args([
            "attach",
            "--target",
            "gfx942",
            "--attr",
            "llvm.data_layout",
            "-o",
        ])
        .arg(&out)
        .arg(&foreign)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("tunespec::apply::payload")
            && stderr(&output).contains("'llvm.data_layout' attribute"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    // A good name, and attaching again over tunespec's own attribute, work; the output
    // parses and gives the library back.
    for _ in 0..2 {
        let source = if out.exists() {
            out.clone()
        } else {
            foreign.clone()
        };
        let output = tunespec(cache.path())
            .args([
                "attach",
                "--target",
                "gfx942",
                "--attr",
                "my_dialect.spec$1",
                "-o",
            ])
            .arg(dir.path().join("next.mlir"))
            .arg(&source)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        std::fs::rename(dir.path().join("next.mlir"), &out).unwrap();
    }
    run(tunespec(cache.path())
        .args(["extract", "--attr", "my_dialect.spec$1"])
        .arg(&out));
}
