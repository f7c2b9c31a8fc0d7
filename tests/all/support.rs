//! What the IREE end-to-end tests share: the tunespec binary run hermetically (a private cache,
//! no user config, no spec path from the environment) and a runner that shows the failure.

use std::path::Path;
use std::process::{Command, Output};

use crate::reference::repo_root;

/// `tunespec` from this build, run in the repository with its cache under `cache`.
pub fn tunespec(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tunespec"));
    command
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE_DIR", cache)
        .env_remove("TUNESPEC_SPEC_PATH");
    command
}

/// Runs `command`; a failure shows its first lines of stderr.
pub fn run(command: &mut Command) -> Output {
    let output = command.output().expect("command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
    output
}
