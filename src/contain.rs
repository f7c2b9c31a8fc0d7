//! Containment of MLIR's bytecode reader for untrusted input.
//!
//! Why: MLIR 22's bytecode reader trusts its input. A flipped byte can make it abort
//! ("LLVM ERROR: SmallVector unable to grow"), crash or spin, and an abort cannot be caught in
//! process. So the `tunespec` binary first parses untrusted bytecode in a child process (itself,
//! re-executed with a hidden subcommand, under a time limit); only bytecode the child read
//! cleanly is parsed in process. Text goes straight to the parser, whose failures are clean.
//!
//! The boundary: containment is on for the CLI (`main` calls [`enable`]); library users that
//! embed tunespec load bytecode in process, as MLIR itself would. `TUNESPEC_TRUST_BYTECODE=1`
//! turns the probe off for pipelines whose bytecode is known good (it costs a process start and
//! one extra parse per bytecode input).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::problem::{codes, Problem};
use crate::verify::BYTECODE_MAGIC;

/// The hidden subcommand the probe runs.
pub const PROBE_COMMAND: &str = "__probe-bytecode";

/// How long the reader may take on one input before it counts as hung.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Turns containment on for this process (the CLI does, at start).
pub fn enable() {
    let trusted = std::env::var("TUNESPEC_TRUST_BYTECODE").is_ok_and(|value| value == "1");
    ENABLED.store(!trusted, Ordering::Relaxed);
}

/// Checks untrusted input before it is parsed in process. Text, and everything when
/// containment is off, passes; bytecode passes when a child process could parse it.
pub fn check(bytes: &[u8], name: &str) -> Result<(), Box<Problem>> {
    if !bytes.starts_with(BYTECODE_MAGIC) || !ENABLED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let failure =
        |message: String| {
            Box::new(Problem::error(
            codes::BAD_BYTECODE,
            message,
            Some(crate::ir::Loc {
                file: name.to_string(),
                line: 1,
                col: 1,
            }),
        )
        .with_help(
            "the bytecode is corrupt or was written by an incompatible MLIR; it was not loaded",
        ))
        };
    let exe = std::env::current_exe()
        .map_err(|error| failure(format!("cannot start the bytecode probe: {error}")))?;
    let mut child = Command::new(exe)
        .arg(PROBE_COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| failure(format!("cannot start the bytecode probe: {error}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A child that dies early closes the pipe; its exit status says why.
        let _ = stdin.write_all(bytes);
    }
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return match status.code() {
                    Some(0) | Some(1) => Ok(()), // read cleanly (1: a clean parse error, reported later)
                    Some(code) => Err(failure(format!(
                        "MLIR's bytecode reader failed hard on this input (exit {code})"
                    ))),
                    None => Err(failure(signal_message(&status))),
                };
            }
            Ok(None) if started.elapsed() > PROBE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failure(format!(
                    "MLIR's bytecode reader did not finish within {} s on this input",
                    PROBE_TIMEOUT.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(error) => return Err(failure(format!("bytecode probe failed: {error}"))),
        }
    }
}

#[cfg(unix)]
fn signal_message(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => "MLIR's bytecode reader aborted on this input".to_string(),
        Some(signal) => format!("MLIR's bytecode reader crashed on this input (signal {signal})"),
        None => "MLIR's bytecode reader failed on this input".to_string(),
    }
}

#[cfg(not(unix))]
fn signal_message(_status: &std::process::ExitStatus) -> String {
    "MLIR's bytecode reader crashed on this input".to_string()
}

/// The child side: parse stdin as MLIR; exit 0 when it parsed, 1 when it failed cleanly.
pub fn run_probe() -> std::process::ExitCode {
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).is_err() {
        return std::process::ExitCode::from(1);
    }
    // The parse runs with the stack the parent's MLIR threads have: with more, the probe could
    // pass input that overflows the parent.
    let parse = std::thread::Builder::new()
        .stack_size(crate::mlir::MLIR_STACK_BYTES)
        .spawn(move || {
            let mlir = crate::mlir::Mlir::new();
            let parsed = mlir.parse(&bytes, "<probe>").module.is_some();
            parsed
        });
    let parsed = matches!(parse.map(std::thread::JoinHandle::join), Ok(Ok(true)));
    std::process::ExitCode::from(if parsed { 0 } else { 1 })
}
