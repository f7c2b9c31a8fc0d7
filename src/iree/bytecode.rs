//! Reading bytecode that IREE wrote.
//!
//! IREE 3.13's tools are built on MLIR 24, whose bytecode encodes some builtin attributes
//! (affine maps, which every IREE-form matcher has in its `indexing_maps`) with codes MLIR 22
//! does not know: a library that `iree-opt --emit-bytecode` wrote, or that IREE attached to a
//! payload (`iree_codegen.tuning_spec_mlirbc`), fails in tunespec's reader with "unknown attribute
//! code". The text form is readable by every version, so when IREE is at hand (its library, else
//! iree-opt as every command finds it: [`super::Session::iree_opt`]), such bytes are printed to text by it
//! and read from that. Without iree-opt, the reader's diagnostic says what
//! happened and how to convert the file (see `verify::verify_bytes`).

use std::borrow::Cow;
use std::process::Command;

use super::Session;
use crate::verify::{bytecode_producer, mlir_major, BYTECODE_MAGIC};

/// The MLIR major version tunespec is built on.
const OUR_MLIR_MAJOR: u32 = 22;

/// Whether `bytes` is bytecode written by an MLIR newer than tunespec's.
pub fn is_newer_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(BYTECODE_MAGIC)
        && bytecode_producer(bytes)
            .and_then(|producer| mlir_major(&producer))
            .is_some_and(|major| major > OUR_MLIR_MAJOR)
}

/// `bytes` as tunespec can read them: unchanged, or (newer bytecode, iree-opt found) the text
/// iree-opt prints of them. Errors only when iree-opt was found and failed; without iree-opt
/// (or without a `session`: bytes this process wrote are never newer) the bytes come back
/// unchanged and the reader reports them.
pub fn readable<'b>(bytes: &'b [u8], session: Option<&Session>) -> Result<Cow<'b, [u8]>, String> {
    let Some(session) = session.filter(|_| is_newer_bytecode(bytes)) else {
        return Ok(Cow::Borrowed(bytes));
    };
    // IREE's own library, where found (cheaply), prints its bytecode as text; else iree-opt.
    if let Some(Ok(iree)) = session.optional() {
        // Generic form: MLIR 22 reads it whatever IREE's custom syntax of an op.
        return iree
            .generic(bytes, "<bytecode>")
            .map(Cow::Owned)
            .map_err(|failure| {
                format!(
                    "IREE {} could not read this bytecode either: {}",
                    super::release(&iree.revision),
                    failure.summary()
                )
            });
    }
    let Ok(iree_opt) = session.iree_opt(None) else {
        return Ok(Cow::Borrowed(bytes));
    };
    let (status, stdout, stderr) = print_text(&iree_opt, bytes, session.limits().opt_run)?;
    if !status.success() {
        let stderr = String::from_utf8_lossy(&stderr);
        // Its input was the bytes on stdin: `<stdin>:L:C:` would name no file of the user's.
        let first = stderr.lines().next().unwrap_or("(no message)");
        let first = first
            .strip_prefix("<stdin>:")
            .and_then(|rest| rest.splitn(3, ':').nth(2))
            .map_or(first, str::trim_start);
        return Err(format!(
            "{} could not read this bytecode either: {first}",
            iree_opt.display(),
        ));
    }
    Ok(Cow::Owned(stdout))
}

/// Runs `iree_opt` on `bytes` (stdin) under the time limit of every iree-opt run
/// (`TUNESPEC_IREE_TIMEOUT_SECS`): its status, stdout and stderr.
fn print_text(
    iree_opt: &std::path::Path,
    bytes: &[u8],
    timeout: std::time::Duration,
) -> Result<(std::process::ExitStatus, Vec<u8>, Vec<u8>), String> {
    let captured = super::child::capture(
        Command::new(iree_opt).args([
            "--allow-unregistered-dialect",
            "--mlir-print-op-generic",
            "--mlir-print-debuginfo",
            "-",
        ]),
        Some(bytes),
        timeout,
    );
    match captured {
        Ok(captured) => Ok((captured.status, captured.stdout, captured.stderr)),
        Err(super::child::RunError::Start(error)) => {
            Err(format!("cannot run {}: {error}", iree_opt.display()))
        }
        Err(super::child::RunError::Wait(error)) => Err(format!("{}: {error}", iree_opt.display())),
        Err(super::child::RunError::Timeout) => Err(format!(
            "{} did not finish within {} s and was stopped ({} sets the limit)",
            iree_opt.display(),
            timeout.as_secs(),
            crate::iree_attrs::ENV_TIMEOUT
        )),
    }
}
