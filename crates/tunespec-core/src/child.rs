//! Child processes with a time limit: the bytecode probe, iree-opt's attribute check and
//! `import-iree`'s dump.
//!
//! Why one helper: each of them used to poll `try_wait` in a sleep loop (every 2 or 10 ms), which
//! both wakes the CPU for nothing and adds up to a poll interval to every run. `wait-timeout`
//! waits for the child's exit itself and returns as soon as it happens.

use std::io;
use std::process::{Child, ExitStatus};
use std::time::Duration;

use wait_timeout::ChildExt;

/// Waits for `child` to exit, at most `timeout`. A child still running then is killed and reaped,
/// and `Ok(None)` says so; `Err` is a failure to wait at all.
pub fn wait_or_kill(child: &mut Child, timeout: Duration) -> io::Result<Option<ExitStatus>> {
    match child.wait_timeout(timeout)? {
        Some(status) => Ok(Some(status)),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Ok(None)
        }
    }
}
