//! IREE's tools run as children, one way: input written and outputs read on threads (a child
//! that fills a pipe before reading all its input never deadlocks with us), the wait under a
//! time limit (`tunespec_core::child::wait_or_kill`). Callers word the failures.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

/// What a finished child wrote, and how it ended.
pub struct Captured {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

/// Why a child gave no [`Captured`].
pub enum RunError {
    /// It could not be started.
    Start(std::io::Error),
    /// Waiting for it failed.
    Wait(std::io::Error),
    /// It ran past the time limit and was killed.
    Timeout,
}

/// Runs `command` with `stdin` as its input (none: `/dev/null`) to completion, at most
/// `timeout`.
pub fn capture(
    command: &mut Command,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<Captured, RunError> {
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(RunError::Start)?;
    let writer = match (child.stdin.take(), stdin) {
        (Some(mut pipe), Some(input)) => {
            let input = input.to_vec();
            Some(std::thread::spawn(move || {
                let _ = pipe.write_all(&input);
            }))
        }
        _ => None,
    };
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            out
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("piped stderr")));
    let status = tunespec_core::child::wait_or_kill(&mut child, timeout).map_err(RunError::Wait)?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    let status = status.ok_or(RunError::Timeout)?;
    Ok(Captured {
        status,
        stdout,
        stderr,
    })
}
