//! A SHARK tuner run given as specs (`--spec tuning_*/` or its `candidates/specs/`): every
//! candidate of a dispatch matches the same op and `0_spec.mlir` is the baseline's placeholder,
//! so linking them is refused with the way to pick the measured winner (`import-tuner`).
//! Fixtures: tests/fixtures/tuner/ (the tuner's layout, written for these tests).

use crate::support::tunespec_command;

const RUN: &str = "tests/fixtures/tuner/tuning_2026_11_20_10_00";

#[test]
fn a_tuner_run_given_as_specs_is_refused_with_the_import_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlir");
    for given in [RUN.to_string(), format!("{RUN}/candidates/specs/")] {
        let output = tunespec_command()
            .args(["link", "-t", "gfx942", "--spec", &given, "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{given}: {stderr}");
        assert!(
            stderr.contains("is a SHARK tuner run's candidates"),
            "{stderr}"
        );
        // The help names the run as the user wrote it.
        assert!(
            stderr.contains(&format!(
                "tunespec import-tuner {RUN} --target TARGET -o LIBRARY"
            )),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing is written");
    }
}

#[test]
fn a_plain_directory_of_numbered_specs_is_still_linked() {
    // Numbered spec files without a run's benchmark results or summary are ordinary specs.
    let dir = tempfile::tempdir().unwrap();
    let specs = dir.path().join("candidates/specs");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::copy(
        format!("{RUN}/candidates/specs/1_spec.mlir"),
        specs.join("1_spec.mlir"),
    )
    .unwrap();
    let output = tunespec_command()
        .args(["link", "-t", "gfx942", "--spec"])
        .arg(&specs)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("transform.foreach_match"));
}
