//! Locating the reference tools (mlir-opt 22, iree-opt from iree-base-compiler).
//!
//! A test that needs a reference tool FAILS when `CI=true` and the tool is missing (CI runs
//! tools/setup.sh and tools/iree-venv.sh, so a missing tool there is a broken setup); elsewhere
//! it prints why it did nothing and returns.

use std::path::{Path, PathBuf};

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

fn require(tool: &str, path: Option<PathBuf>) -> Option<PathBuf> {
    match path {
        Some(path) => Some(path),
        None if in_ci() => panic!("{tool} is required when CI=true but was not found"),
        None => {
            eprintln!("note: {tool} not found; this differential check did not run");
            None
        }
    }
}

pub fn mlir_opt() -> Option<PathBuf> {
    let candidate = std::env::var_os("TUNESPEC_MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    require(
        "mlir-opt (mlir-22-tools)",
        candidate.is_file().then_some(candidate),
    )
}

pub fn iree_opt() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidate = std::env::var_os("TUNESPEC_IREE_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/iree-venv/bin/iree-opt"));
    require(
        "iree-opt (tools/iree-venv.sh)",
        candidate.is_file().then_some(candidate),
    )
}

/// `iree-compile` from the reference venv (tools/iree-venv.sh), like `iree-opt`.
pub fn iree_compile() -> Option<PathBuf> {
    let candidate = std::env::var_os("TUNESPEC_IREE_COMPILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/iree-venv/bin/iree-compile"));
    require(
        "iree-compile (tools/iree-venv.sh)",
        candidate.is_file().then_some(candidate),
    )
}

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}
