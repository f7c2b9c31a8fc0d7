//! The target registry: manifest validation (every rule, located), target IDs and fallback
//! chains, user spec libraries at every level and their precedence, `tunespec resolve`, the
//! checks `tunespec verify` runs on manifests and configs, the build script's index, and the C
//! export compiled with `cc`.

use std::path::Path;

use snapbox::cmd::Command;

/// The binary, hermetic (see `crate::support`), with the cache off.
fn tunespec() -> Command {
    crate::support::snapbox_tunespec().env("TUNESPEC_CACHE", "off")
}

/// Writes `files` (relative path, content) under `dir`.
fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

mod chains;
mod cli;
mod export;
mod manifests;
mod user_specs;
