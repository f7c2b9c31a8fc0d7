//! tunespec-core: the part of tunespec that runs both at build time (`build.rs` verifies and
//! embeds the default specs) and at run time (the library and CLI).
//!
//! It exists so that the build script and the library use the *same compiled code* for parsing,
//! verification and the registry manifest, rather than the build script including the library's
//! files a second time by path. The `tunespec` crate re-exports every module here under its own
//! name (`tunespec::verify`, `tunespec::mlir`, ...), so users of tunespec never name this crate.

// Every `unsafe` block (all in `mlir/`) says why it is sound.
#![warn(clippy::undocumented_unsafe_blocks)]
// Every public item says what it is for: the crate is the API of build.rs and the library.
#![warn(missing_docs)]

pub mod alias;
pub mod child;
pub mod ir;
pub mod iree_attrs;
pub mod iree_ops;
pub mod manifest;
pub mod mlir;
pub mod problem;
pub mod provenance;
pub mod verify;
