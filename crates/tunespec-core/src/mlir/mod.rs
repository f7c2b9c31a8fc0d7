//! The one module that holds raw MLIR handles.
//!
//! Everything else in tunespec works on owned Rust values (`ir::Module`, bytes, strings). Keeping
//! the `unsafe` C-API calls here means one place to audit for lifetimes, null handles and
//! diagnostics, and lets `build.rs` share the exact parsing code the CLI uses (this module is
//! part of tunespec-core, which `build.rs` also uses; it uses only `melior`, `mlir-sys`, the shim
//! and sibling modules).
//!
//! By concern:
//! - `context`: the MLIR context (dialects, the IREE extension) and diagnostics capture;
//! - `parse`: parsing (depth and size limits), MLIR's verifier, printing, bytecode;
//! - `snapshot`: plain-data snapshots (`ir::Module`) for the rules and analyses;
//! - `edit`: editing modules (symbol renaming and moving for the linker, blob attributes);
//! - `payload`: applying libraries to payloads, op features for the native matcher, IREE's
//!   dispatch view;
//! - `parallel`: worker threads sharing one context (the linker's inputs);
//! - `ffi`: small helpers at the C API boundary (string refs, print callbacks, op children).
//!
//! Ownership rule for every `unsafe` block here: an `MlirOperation` handle is only used while the
//! [`OwnedOp`] it was reached from (its root) is alive and borrowed, and every handle belongs to
//! the context of the [`Mlir`] that the `OwnedOp` borrows; no handle escapes this module.
//!
//! Contexts are not `Send`: create one [`Mlir`] per thread, or share a threaded one with
//! [`Mlir::parallel`].

use std::marker::PhantomData;

use mlir_sys::*;

mod context;
mod edit;
mod ffi;
mod parallel;
mod parse;
mod payload;
mod smtlib;
mod snapshot;

pub use context::{Mlir, MLIR_STACK_BYTES};
pub use edit::BlobForm;
pub use parallel::{SendOp, Worker};
pub use parse::{
    expansion_budget, Parsed, BYTECODE_VERSION, MAX_IR_DEPTH, PAYLOAD_BYTECODE_VERSION,
};
pub use payload::Features;

/// An owned top-level operation, destroyed on drop.
pub struct OwnedOp<'c> {
    raw: MlirOperation,
    _context: PhantomData<&'c Mlir>,
}

impl Drop for OwnedOp<'_> {
    fn drop(&mut self) {
        // SAFETY: an `OwnedOp` is only made from an op that nothing else owns (a parse result, or a
        // clone); no handle into it outlives it, as every handle is used only while the `OwnedOp`
        // is borrowed.
        unsafe { mlirOperationDestroy(self.raw) }
    }
}
