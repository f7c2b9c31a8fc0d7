//! "Which IREE?" has one answer: the library `doctor` reports is the one every command that
//! can use IREE loads, and the iree-opt it reports (beside that library) is the one they run
//! (issue 32: `doctor` found IREE in the checkout's `target/iree-venv` while `verify` in the
//! same shell said "iree-opt not found"). Each command's choice is read from its `-vv` log
//! (`TUNESPEC_LOG=tunespec::iree=debug`: `iree.found (library=...)`, `iree.tool (program=...,
//! path=...)`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::iree_library::{model, venv};
use crate::reference::{output_with_timeout, repo_root};
use crate::support::tunespec_command;

/// What `doctor --format json` reports: the library and iree-opt.
fn doctor(setup: &dyn Fn() -> Command) -> (PathBuf, PathBuf) {
    let output = output_with_timeout(setup().args(["doctor", "--format", "json"]));
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["iree"]["found"], true, "{report}");
    let library = PathBuf::from(report["iree"]["library"].as_str().unwrap());
    let iree_opt = PathBuf::from(
        report["iree_opt"]
            .as_str()
            .unwrap_or_else(|| panic!("doctor found no iree-opt: {report}")),
    );
    assert_eq!(
        iree_opt.parent(),
        library.parent(),
        "iree-opt is the one beside the library: {report}"
    );
    (library, iree_opt)
}

/// Runs each command that can use IREE and checks that it used `library` (and `iree_opt`
/// where it runs iree-opt).
fn every_command_uses(setup: &dyn Fn() -> Command, library: &Path, iree_opt: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let uses_library = format!("library={}", library.display());
    let runs_iree_opt = format!("iree.tool (program=iree-opt, path={})", iree_opt.display());
    let spec = repo_root()
        .join("tests/fixtures/tuner/tuning_2026_11_21_09_30/candidates/specs/0_spec.mlir");
    let torch = model("torch_mm_4096_f16.mlir");
    let linalg = repo_root().join("tests/fixtures/payloads");
    let payload = std::fs::read_dir(&linalg)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mlir"))
        .min()
        .expect("a linalg payload");
    let cases: Vec<(&str, Vec<std::ffi::OsString>, bool)> = vec![
        (
            "verify of a spec with IREE attributes",
            vec![
                "verify".into(),
                repo_root()
                    .join("tests/fixtures/iree_verify/configs.mlir")
                    .into(),
            ],
            true,
        ),
        (
            "check",
            vec![
                "check".into(),
                "-t".into(),
                "gfx942".into(),
                spec.clone().into(),
            ],
            false,
        ),
        (
            "explain --exact",
            vec![
                "explain".into(),
                "-t".into(),
                "gfx942".into(),
                "--exact".into(),
                torch.into(),
            ],
            false,
        ),
        (
            "attach",
            vec![
                "attach".into(),
                "-t".into(),
                "gfx942".into(),
                "-o".into(),
                dir.path().join("attached.mlir").into(),
                payload.into(),
            ],
            false,
        ),
        (
            "import-iree",
            vec![
                "import-iree".into(),
                "-t".into(),
                "gfx942".into(),
                "-o".into(),
                dir.path().join("iree-defaults").into(),
            ],
            true,
        ),
    ];
    for (what, args, runs_opt) in cases {
        let output = output_with_timeout(
            setup()
                .env("TUNESPEC_LOG", "tunespec::iree=debug")
                .args(&args),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&uses_library),
            "{what}: not {uses_library}:\n{stderr}"
        );
        if runs_opt {
            assert!(
                stderr.contains(&runs_iree_opt),
                "{what}: not {runs_iree_opt}:\n{stderr}"
            );
        }
        assert!(!stderr.contains("iree-opt not found"), "{what}:\n{stderr}");
        assert!(
            !stderr.contains("were not checked"),
            "{what}: IREE attributes unchecked:\n{stderr}"
        );
    }
}

/// The case: nothing set, IREE only in the checkout's `target/iree-venv`, no
/// iree-compile on PATH.
#[test]
fn the_checkouts_iree_is_every_commands_iree() {
    let Some(venv) = venv() else { return };
    if venv != repo_root().join("target/iree-venv") {
        return;
    }
    let setup = || {
        let mut command = tunespec_command();
        command
            .env_remove("TUNESPEC_NO_IREE")
            .env_remove("TUNESPEC_IREE_VENV")
            .env_remove("TUNESPEC_IREE_LIB")
            .env_remove("TUNESPEC_IREE_OPT")
            .env("PATH", "/usr/bin:/bin");
        command
    };
    let (library, iree_opt) = doctor(&setup);
    assert!(library.starts_with(&venv), "{}", library.display());
    every_command_uses(&setup, &library, &iree_opt);
}

/// `TUNESPEC_IREE_VENV`: the venv's library, and the iree-opt beside it.
#[test]
fn the_venvs_iree_is_every_commands_iree() {
    let Some(venv) = venv() else { return };
    let setup = || {
        let mut command = tunespec_command();
        command
            .env_remove("TUNESPEC_NO_IREE")
            .env_remove("TUNESPEC_IREE_LIB")
            .env_remove("TUNESPEC_IREE_OPT")
            .env("TUNESPEC_IREE_VENV", &venv)
            .env("PATH", "/usr/bin:/bin");
        command
    };
    let (library, iree_opt) = doctor(&setup);
    assert!(library.starts_with(&venv), "{}", library.display());
    every_command_uses(&setup, &library, &iree_opt);
}
