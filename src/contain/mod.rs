//! Containment of MLIR's bytecode reader and text parser for untrusted input.
//!
//! Why: MLIR 22's bytecode reader trusts its input. A flipped byte can make it abort
//! ("LLVM ERROR: SmallVector unable to grow"), crash or spin, and an abort cannot be caught in
//! process. So the `tunespec` binary first parses untrusted bytecode in a child process (itself,
//! re-executed with a hidden subcommand, under a time limit); only bytecode the child read
//! cleanly is parsed in process. Text goes straight to the parser, except text with a forward
//! reference to a value ([`scan`]): a parse error after such a reference is resolved into a
//! nested region corrupts the heap (MLIR 22 frees the region's values while an earlier op still
//! uses them), so such text is parsed in the child first, which reports MLIR's errors back; it is
//! parsed in process only when the child parsed it.
//!
//! The boundary: containment is on for the CLI (`main` calls [`enable`]); library users that
//! embed tunespec load bytecode in process, as MLIR itself would. `TUNESPEC_TRUST_BYTECODE=1`
//! turns the probe off for pipelines whose bytecode is known good (it costs a process start and
//! one extra parse per bytecode input).

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::problem::{codes, Problem};
use crate::verify::BYTECODE_MAGIC;

pub mod scan;

/// The hidden subcommand the probe runs.
pub const PROBE_COMMAND: &str = "__probe-bytecode";

/// How long the reader may take on one input before it counts as hung.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// Whether untrusted bytecode is probed in a child. Process-wide by nature: the probe is this
/// binary re-executing itself (`PROBE_COMMAND`), which only the tunespec binary can do, so it is
/// on in the process that is that binary (`enable`, at start) and off in any program that
/// embeds the library; every parse of untrusted bytecode, on any thread, asks it.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// This binary, opened when containment is enabled: the probe re-executes it through this
/// descriptor (`/proc/self/fd/N`), so a package upgrade that replaces or deletes the binary while
/// tunespec runs does not break the probe. Process-wide by nature: there is one executable.
static EXECUTABLE: OnceLock<Option<File>> = OnceLock::new();

/// The switch that turns containment off (`1`): the CLI reads it from its environment.
pub const ENV_TRUST: &str = "TUNESPEC_TRUST_BYTECODE";

/// Turns containment on for this process when `on` (the CLI does, at start, unless
/// [`ENV_TRUST`] is `1`).
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
    if on {
        EXECUTABLE.get_or_init(|| File::open("/proc/self/exe").ok());
    }
}

/// The program the probe runs: this binary through the descriptor opened at start-up (the
/// kernel resolves the path before the close-on-exec descriptor closes), else its path.
fn probe_program() -> std::io::Result<PathBuf> {
    if let Some(Some(file)) = EXECUTABLE.get() {
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if path.exists() {
            return Ok(path);
        }
    }
    std::env::current_exe()
}

/// Checks untrusted input before it is parsed in process. Everything passes when containment
/// is off, and text without forward references ([`scan::has_forward_reference`]); bytecode, and
/// other text, passes when a child process could parse it. Text the child could not parse is
/// refused with MLIR's first error (`tunespec::parse`, at its place in the input).
pub fn check(bytes: &[u8], name: &str) -> Result<(), Box<Problem>> {
    let bytecode = bytes.starts_with(BYTECODE_MAGIC);
    if !ENABLED.load(Ordering::Relaxed)
        || (!bytecode
            && (!(scan::has_forward_reference(bytes) || scan::has_generic_transform_op(bytes))
                // Refused before MLIR sees it (NUL bytes, invalid UTF-8, too large or deep):
                // reported as such, not parsed.
                || !crate::verify::byte_checks(bytes, name).1))
    {
        return Ok(());
    }
    let what = if bytecode {
        "bytecode reader or verifier"
    } else {
        "parser or verifier"
    };
    let failure = |message: String| {
        let (code, help) = if bytecode {
            (
                codes::BAD_BYTECODE,
                "the bytecode is corrupt or was written by an incompatible MLIR; it was not loaded",
            )
        } else {
            (
                codes::PARSE,
                "MLIR's parser could not read this text safely; it was not loaded",
            )
        };
        Box::new(
            Problem::error(
                code,
                message,
                Some(crate::ir::Loc {
                    file: name.to_string(),
                    line: 1,
                    col: 1,
                }),
            )
            .with_help(help),
        )
    };
    // A probe that cannot run is tunespec's failure (an I/O error, exit 2), not the input's.
    let internal = |error: std::io::Error| {
        Box::new(
            Problem::error(
                codes::IO,
                format!(
                    "cannot run the parse probe for {name} (tunespec re-executes itself): {error}"
                ),
                None,
            )
            .with_help(
                "this is not a problem in the input; TUNESPEC_TRUST_BYTECODE=1 skips the probe",
            ),
        )
    };
    let exe = probe_program().map_err(internal)?;
    let mut child = Command::new(exe)
        .arg(PROBE_COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(internal)?;
    if let Some(mut stdin) = child.stdin.take() {
        // A child that dies early closes the pipe; its exit status says why.
        let _ = stdin.write_all(bytes);
    }
    // What the child reports fits in a pipe's buffer (see `run_probe`), so it is read after
    // the child ends.
    let mut stdout = child.stdout.take();
    let status = crate::child::wait_or_kill(&mut child, PROBE_TIMEOUT);
    let mut report = String::new();
    if let Some(pipe) = stdout.as_mut() {
        let _ = std::io::Read::read_to_string(pipe, &mut report);
    }
    if !bytecode {
        // Text: MLIR's first error, whatever became of the child after it.
        if let Some(problem) = reported_error(&report, name) {
            return Err(Box::new(problem));
        }
    }
    match status {
        Ok(Some(status)) => match status.code() {
            Some(0) | Some(1) => Ok(()), // read cleanly (1: a clean parse error, reported later)
            Some(code) => Err(failure(format!(
                "MLIR's {what} failed hard on this input (exit {code})"
            ))),
            None => Err(failure(signal_message(&status, what))),
        },
        Ok(None) => Err(failure(format!(
            "MLIR's {what} did not finish within {} s on this input",
            PROBE_TIMEOUT.as_secs()
        ))),
        Err(error) => Err(internal(error)),
    }
}

/// The first error the child reported (`line<TAB>col<TAB>message`, see `run_probe`), in `name`.
fn reported_error(report: &str, name: &str) -> Option<Problem> {
    let line = report.lines().next()?;
    let mut fields = line.splitn(3, '\t');
    let (line, col, message) = (fields.next()?, fields.next()?, fields.next()?);
    let loc = match (line.parse(), col.parse()) {
        (Ok(line), Ok(col)) if line > 0 => Some(crate::ir::Loc {
            file: name.to_string(),
            line,
            col,
        }),
        _ => None,
    };
    Some(Problem::error(
        codes::PARSE,
        message.replace("\\n", "\n"),
        loc,
    ))
}

#[cfg(unix)]
fn signal_message(status: &std::process::ExitStatus, what: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => format!("MLIR's {what} aborted on this input"),
        Some(signal) => format!("MLIR's {what} crashed on this input (signal {signal})"),
        None => format!("MLIR's {what} failed on this input"),
    }
}

#[cfg(not(unix))]
fn signal_message(_status: &std::process::ExitStatus, what: &str) -> String {
    format!("MLIR's {what} crashed on this input")
}

/// The child side: parse stdin as MLIR; exit 0 when it parsed, 1 when it failed cleanly. MLIR's
/// errors are written to stdout as they come, before anything MLIR left behind can end the
/// process: one `line<TAB>col<TAB>message` line each (newlines in messages as `\\n`), the first
/// few only, short enough for a pipe's buffer.
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
            let parsed = mlir.parse(&bytes, "<probe>");
            let mut report = String::new();
            for problem in parsed
                .problems
                .iter()
                .filter(|problem| problem.severity == crate::problem::Severity::Error)
                .take(8)
            {
                let (line, col) = problem
                    .loc
                    .as_ref()
                    .map_or((0, 0), |loc| (loc.line, loc.col));
                let message: String = problem.message.chars().take(2000).collect();
                report.push_str(&format!(
                    "{line}\t{col}\t{}\n",
                    message.replace('\n', "\\n")
                ));
            }
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(report.as_bytes());
            let _ = stdout.flush();
            // MLIR's verifier too: the parent runs it last, and an op the generic form left
            // incomplete can crash it; here a crash is a diagnostic. Its findings are the
            // parent's to report.
            if let Some(module) = &parsed.module {
                let _ = mlir.verify(module);
            }
            parsed.module.is_some()
        });
    let parsed = matches!(parse.map(std::thread::JoinHandle::join), Ok(Ok(true)));
    std::process::ExitCode::from(if parsed { 0 } else { 1 })
}
