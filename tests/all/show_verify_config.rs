//! Two CLI defects of issue 26: `show`'s separators and aliases, and `verify` with no paths
//! in a directory whose `tunespec.toml` is broken.

use std::process::Command;

use crate::reference::{iree_opt, output_with_timeout};
use crate::support::tunespec_command;

#[test]
fn show_output_splits_at_lone_markers_and_reads_as_one_file_in_iree_opt() {
    let output = output_with_timeout(tunespec_command().args(["show", "gfx942"]));
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let markers: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("// -----"))
        .collect();
    assert!(!markers.is_empty(), "gfx942 has several specs");
    assert!(
        markers.iter().all(|line| *line == "// -----"),
        "{markers:?}"
    );
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("show.mlir");
    std::fs::write(&file, &text).unwrap();
    for split in [true, false] {
        let mut command = Command::new(&iree_opt);
        if split {
            command.arg("--split-input-file");
        }
        let output = output_with_timeout(command.arg(&file).args(["-o", "/dev/null"]));
        assert!(
            output.status.success(),
            "split {split}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn verify_without_paths_reports_a_broken_project_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tunespec.toml"), "specs = [\n").unwrap();
    let mut command = tunespec_command();
    command
        .env_remove("TUNESPEC_NO_CONFIG")
        .current_dir(dir.path())
        .args(["verify", "-q"]);
    let output = output_with_timeout(&mut command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tunespec.toml"), "{stderr}");
    assert!(stderr.contains("tunespec::config"), "{stderr}");
}
