//! tunespec: the registry and linker for MLIR transform-dialect tuning specs.
//!
//! See ARCHITECTURE.md for the code map. Data flows one way: the CLI resolves a target in the
//! registry, specs load and verify, then link, cache, attach and apply. Nothing below the CLI
//! prints or exits; everything returns values and [`problem::Problem`]s.
//!
//! Embedding: every parse refuses input that nests deeper than the limits (see
//! [`mlir::MAX_IR_DEPTH`]), but MLIR still recurses up to those limits. Run tunespec on a thread
//! with [`mlir::MLIR_STACK_BYTES`] of stack, as the CLI does (`std::thread::Builder::stack_size`);
//! a main thread's default 8 MiB also covers inputs at the limits. Untrusted bytecode is parsed in
//! process (see [`contain`] for the CLI's child-process probe).
//!
//! ```
//! use tunespec::{mlir::Mlir, verify, Registry};
//!
//! // The embedded registry resolves SKU aliases, case-insensitively.
//! let registry = Registry::embedded();
//! let target = registry.find("MI300X").expect("gfx942 is a default target");
//! assert_eq!(target.name, "gfx942");
//!
//! // Every embedded spec verifies with the same rules `tunespec verify` applies.
//! let mlir = Mlir::new(); // one MLIR context per thread
//! for spec in target.default_specs() {
//!     let verified = verify::verify_bytes(&mlir, spec.bytecode(), spec.path);
//!     assert!(verified.problems.is_empty());
//!     assert_eq!(verified.facts.unwrap().matcher_count, spec.matcher_count);
//! }
//!
//! // A file that is not a spec gets located problems with stable codes.
//! let verified = verify::verify_bytes(&mlir, b"func.func @f() { return }", "payload.mlir");
//! assert!(verified.problems.iter().any(|p| p.code == "tunespec::verify::payload-not-spec"));
//! ```

// Every public item says what it is for: this crate is tunespec's library API (the CLI is the
// binary's), and its documentation is what a user of the API reads.
#![warn(missing_docs)]

pub mod apply;
pub mod bench;
pub mod cache;
pub mod config;
// Not API: the contained bytecode probe, public only because the `tunespec` binary starts it
// (`PROBE_COMMAND`, `run_probe`, `enable`) and checks files with it.
#[doc(hidden)]
pub mod contain;
pub mod device;
pub mod diagnostic_codes;
pub mod export;
pub mod farm;
pub mod fastpath;
pub mod files;
pub mod iree;
pub mod jobs;
pub mod link;
pub mod measured;
pub mod provenance;
pub mod registry;
pub mod settings;
pub mod spec_check;
pub mod store;
pub mod tune;

pub use registry::Registry;
// Shared with build.rs through the tunespec-core crate; re-exported under their own names.
pub use tunespec_core::{alias, child, ir, iree_attrs, iree_ops, manifest, mlir, problem, verify};
