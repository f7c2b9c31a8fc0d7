//! tunespec: the registry and linker for MLIR transform-dialect tuning specs.
//!
//! See ARCHITECTURE.md for the code map. Data flows one way: the CLI resolves a target in the
//! registry, specs load and verify, then link, cache, attach and apply. Nothing below the CLI
//! prints or exits; everything returns values and [`problem::Problem`]s.

pub mod cli;
pub mod diagnostics;
pub mod ir;
pub mod manifest;
pub mod mlir;
pub mod problem;
pub mod registry;
pub mod verify;
