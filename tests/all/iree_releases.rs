//! Every IREE release tunespec supports (issue 45): 3.10 and 3.11 (the SHARK tuner's), 3.12,
//! and 3.13 (the reference, which the rest of the suite runs on). On each older release the
//! end-to-end subset: `link` writes a library that release reads, `explain --exact` of a torch
//! model agrees with its compile, `attach` is read back by its iree-compile with the config, and
//! a spec in the tuner's 3.11 form is checked and explained exactly (as it is on 3.10 and 3.11,
//! after `check --fix` on 3.12 and 3.13).
//!
//! The venvs are made by `tools/iree-venv.sh` (every supported release); under CI a missing one
//! fails the test. The fixtures are the tests' own (tests/fixtures/iree_old/).

use std::path::{Path, PathBuf};

use crate::iree_library::{
    attach_with, configured_by, exact, exact_with, model, venv_of, with_iree,
};
use crate::reference::{output_with_timeout, repo_root};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/iree_old").join(name)
}

/// `iree-opt` of `venv` reads `file`.
fn read_by(venv: &Path, file: &Path) {
    let output = output_with_timeout(
        std::process::Command::new(venv.join("bin/iree-opt"))
            .arg(file)
            .args(["-o", "/dev/null"]),
    );
    assert!(
        output.status.success(),
        "{} refuses {}: {}",
        venv.display(),
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `link -t gfx942 --derived` with `venv`'s IREE: the library it wrote, read by that IREE.
fn linked(venv: &Path, dir: &Path, release: &str) -> String {
    let library = dir.join("library.mlir");
    let output = output_with_timeout(
        with_iree(venv)
            .args(["link", "-t", "gfx942", "--derived", "-o"])
            .arg(&library),
    );
    assert!(output.status.success(), "{release}: {output:?}");
    read_by(venv, &library);
    std::fs::read_to_string(&library).unwrap()
}

/// The tuner-form spec (written for IREE 3.10/3.11) as `venv`'s IREE reads it: as it is for
/// `old`, else migrated by `check --fix`; then `check -t gfx942` of it passes.
fn tuner_spec_for(venv: &Path, dir: &Path, old: bool) -> PathBuf {
    let spec = dir.join("tuner_spec.mlir");
    std::fs::copy(fixture("tuner_3_11_spec.mlir"), &spec).unwrap();
    if !old {
        let output = output_with_timeout(with_iree(venv).args(["check", "--fix"]).arg(&spec));
        assert!(output.status.success(), "check --fix: {output:?}");
        assert!(std::fs::read_to_string(&spec)
            .unwrap()
            .contains("pipeline = #iree_gpu.pipeline<VectorDistribute>"));
    }
    let output = output_with_timeout(with_iree(venv).args(["check", "-t", "gfx942"]).arg(&spec));
    assert!(
        output.status.success(),
        "check of the tuner spec: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    spec
}

/// The end-to-end subset on IREE `version` (`old`: 3.10 or 3.11, the pre-3.12 syntax).
fn end_to_end(version: &str, old: bool) {
    let Some(venv) = venv_of(version) else { return };
    let release = &version[..version.rfind('.').unwrap()];
    let dir = tempfile::tempdir().unwrap();
    // link: the defaults (derived ones included) in the release's syntax.
    let library = linked(&venv, dir.path(), release);
    assert_eq!(library.contains("pipeline = LLVMGPU"), old, "{release}");
    assert_eq!(library.contains("#iree_gpu.pipeline<"), !old, "{release}");
    // explain --exact of a torch model, and attach read back by the release's iree-compile.
    let payload = model("torch_mm_4096_f16.mlir");
    let summary = exact(&venv, &payload);
    assert!(
        summary.starts_with(&format!("exact: IREE {release}.")),
        "{summary}"
    );
    let attached = attach_with(&venv, dir.path(), &[], &payload);
    let marker = "workgroup = [256, 128, 0]";
    assert!(configured_by(&venv, &attached).contains(marker));
    assert!(
        !configured_by(&venv, &payload).contains(marker),
        "IREE's own choice"
    );
    // A tuner spec written for 3.11: check, then explain --exact on its op.
    let spec = tuner_spec_for(&venv, dir.path(), old);
    let spec = spec.to_str().unwrap();
    let summary = exact_with(
        &venv,
        &fixture("mmt_2048x1280x5120_f16.mlir"),
        &["--no-default", "--spec", spec],
    );
    assert!(summary.contains("1 of 1 predicted"), "{summary}");
}

#[test]
fn iree_3_10_links_explains_attaches_and_checks() {
    end_to_end("3.10.0", true);
}

#[test]
fn iree_3_11_links_explains_attaches_and_checks() {
    end_to_end("3.11.0", true);
}

#[test]
fn iree_3_12_links_explains_attaches_and_checks() {
    end_to_end("3.12.0", false);
}

/// The reference release gets the tuner's 3.11 spec migrated as 3.12 does.
#[test]
fn iree_3_13_explains_a_migrated_tuner_spec_exactly() {
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = tuner_spec_for(&venv, dir.path(), false);
    let summary = exact_with(
        &venv,
        &fixture("mmt_2048x1280x5120_f16.mlir"),
        &["--no-default", "--spec", spec.to_str().unwrap()],
    );
    assert!(summary.contains("1 of 1 predicted"), "{summary}");
}

/// A config 3.11 cannot express (an NVIDIA mma.sync intrinsic of the sm_90 defaults) leaves its
/// entry out with a warning naming it; the rest is written and read by 3.11.
#[test]
fn what_iree_3_11_cannot_express_is_left_out_with_a_warning() {
    let Some(venv) = venv_of("3.11.0") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library.mlir");
    let output = output_with_timeout(
        with_iree(&venv)
            .args(["link", "-t", "sm_90", "-o"])
            .arg(&library),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("tunespec::iree::left-out"), "{stderr}");
    assert!(
        stderr.contains("is left out of the library for IREE 3.11"),
        "{stderr}"
    );
    read_by(&venv, &library);
    let text = std::fs::read_to_string(&library).unwrap();
    assert!(!text.contains("NV_MMA_SYNC"));
    assert!(text.contains("transform.foreach_match"));
    // `--deny-warnings` makes it an error, whatever the form written.
    for emit in ["mlir", "mlirbc"] {
        let output = output_with_timeout(
            with_iree(&venv)
                .args([
                    "link",
                    "-t",
                    "sm_90",
                    "--deny-warnings",
                    "--emit",
                    emit,
                    "-o",
                ])
                .arg(dir.path().join("denied")),
        );
        assert_eq!(output.status.code(), Some(1), "{emit}: {output:?}");
        assert!(!dir.path().join("denied").exists());
    }
}

/// `doctor` says which releases tunespec supports and which one it found.
#[test]
fn doctor_names_the_supported_releases_and_the_one_found() {
    let Some(venv) = venv_of("3.11.0") else {
        return;
    };
    let output = output_with_timeout(with_iree(&venv).arg("doctor"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("IREE releases supported: 3.10, 3.11, 3.12, 3.13; found: 3.11 (supported)"),
        "{stdout}"
    );
}

/// `import-tuner` of a run made with IREE 3.11 works with 3.11 or 3.13 installed, and the
/// library it writes links for either (each in its own syntax, read by it).
#[test]
fn a_tuner_run_made_with_iree_3_11_is_imported_and_linked_with_either() {
    let venvs = [
        (
            "3.11",
            venv_of("3.11.0"),
            "pipeline = LLVMGPUVectorDistribute",
        ),
        (
            "3.13",
            crate::iree_library::venv(),
            "pipeline = #iree_gpu.pipeline<VectorDistribute>",
        ),
    ];
    for (release, venv, spelling) in venvs {
        let Some(venv) = venv else { continue };
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("lib");
        let output = output_with_timeout(
            with_iree(&venv)
                .arg("import-tuner")
                .arg(fixture("tuning_2026_11_24_09_00"))
                .args(["--target", "gfx942", "-o"])
                .arg(&library),
        );
        assert!(output.status.success(), "{release}: {output:?}");
        let linked = dir.path().join("linked.mlir");
        let output = output_with_timeout(
            with_iree(&venv)
                .args(["link", "-t", "gfx942", "--no-default", "--spec"])
                .arg(&library)
                .arg("-o")
                .arg(&linked),
        );
        assert!(output.status.success(), "{release}: {output:?}");
        read_by(&venv, &linked);
        let text = std::fs::read_to_string(&linked).unwrap();
        assert!(text.contains(spelling), "{release}: {text}");
        assert!(text.contains("workgroup_size = [128, 2, 1]"), "{release}");
    }
}
