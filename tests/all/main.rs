//! The integration tests, in one binary: MLIR links statically into every test binary, so one
//! binary instead of many saves minutes of linking and gigabytes of disk.

mod apply;
mod build_check;
mod cache;
mod cli;
mod cli_formats;
mod cli_logging;
mod corpus;
mod determinism;
mod differential;
mod environment;
mod fastpath;
mod forms;
mod hardening;
mod import_tuner;
mod iree_default_spec;
mod iree_e2e;
mod iree_library;
mod iree_ops;
mod iree_read_back;
mod iree_rules;
mod iree_semantics;
mod iree_verify;
mod link;
mod mutation_fuzz;
mod parallel;
mod parser_safety;
mod portable;
mod reference;
mod registry;
mod rules;
mod show_verify_config;
mod stdin_specs;
mod support;
mod swaps;
mod user_paths;
