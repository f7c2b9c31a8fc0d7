//! Locating the reference tools (mlir-opt 22, iree-opt from iree-base-compiler).
//!
//! A test that needs a reference tool FAILS when `CI=true` and the tool is missing (CI runs
//! tools/setup.sh and tools/iree-venv.sh, so a missing tool there is a broken setup); elsewhere
//! it prints why it did nothing and returns.

use std::path::{Path, PathBuf};

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

fn require(tool: &str, path: Option<PathBuf>) -> Option<PathBuf> {
    match path {
        Some(path) => Some(path),
        None if in_ci() => panic!("{tool} is required when CI=true but was not found"),
        None => {
            eprintln!("note: {tool} not found; this differential check did not run");
            None
        }
    }
}

pub fn mlir_opt() -> Option<PathBuf> {
    let candidate = std::env::var_os("TUNESPEC_MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    require(
        "mlir-opt (mlir-22-tools)",
        candidate.is_file().then_some(candidate),
    )
}

pub fn iree_opt() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidate = std::env::var_os("TUNESPEC_IREE_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/iree-venv/bin/iree-opt"));
    require(
        "iree-opt (tools/iree-venv.sh)",
        candidate.is_file().then_some(candidate),
    )
}

/// `iree-compile` from the reference venv (tools/iree-venv.sh), like `iree-opt`.
pub fn iree_compile() -> Option<PathBuf> {
    let candidate = std::env::var_os("TUNESPEC_IREE_COMPILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/iree-venv/bin/iree-compile"));
    require(
        "iree-compile (tools/iree-venv.sh)",
        candidate.is_file().then_some(candidate),
    )
}

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// How long one run of a reference compiler may take. A compile takes seconds; iree-compile has
/// been seen to deadlock at start-up (every thread in a futex, no CPU time used), which must not
/// hang the suite.
const REFERENCE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Runs a reference tool like `Command::output`, killing a run past [`REFERENCE_TIMEOUT`] and
/// trying once more (a hang is the tool's flake, never a result); panics after two hangs.
pub fn output_with_timeout(command: &mut std::process::Command) -> std::process::Output {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    for attempt in 1..=2 {
        // Its own process group: the venv's `iree-compile` is a Python launcher whose compiler
        // process, when it hangs, outlives the killed launcher and keeps the pipes open (the
        // readers below would wait for ever); the whole group is killed.
        let mut child = command
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("{command:?} does not start: {error}"));
        // Both pipes are drained while the tool runs, so a large output never blocks it.
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                bytes
            })
        };
        let stdout = drain(Box::new(child.stdout.take().expect("piped")));
        let stderr = drain(Box::new(child.stderr.take().expect("piped")));
        let status = tunespec::child::wait_or_kill(&mut child, REFERENCE_TIMEOUT)
            .unwrap_or_else(|error| panic!("{command:?}: {error}"));
        if status.is_none() {
            let group = libc::pid_t::try_from(child.id()).expect("a pid");
            // SAFETY: a plain syscall; `-group` names the process group this function created
            // for the child (its id), so only the tool and what it started are signalled.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let stdout = stdout.join().expect("stdout reader");
        let stderr = stderr.join().expect("stderr reader");
        match status {
            Some(status) => {
                return std::process::Output {
                    status,
                    stdout,
                    stderr,
                }
            }
            None => eprintln!(
                "note: {command:?} hung past {} s (attempt {attempt}); killed",
                REFERENCE_TIMEOUT.as_secs()
            ),
        }
    }
    panic!(
        "{command:?} hung twice past {} s",
        REFERENCE_TIMEOUT.as_secs()
    )
}
