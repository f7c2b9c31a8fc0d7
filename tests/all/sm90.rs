//! `sm_90` with IREE 3.13 (issue 30, item 6): IREE 3.13 has no sm_90 target, so tunespec
//! compiles sm_90 as sm_89 PTX (and says so in `targets` and `doctor`). Tests that need IREE
//! fail under `CI=true` without it (`reference.rs`).

use std::path::Path;
use std::process::{Command, Output};

use crate::reference::{iree_compile, output_with_timeout, repo_root};
use crate::support::{private_home, tunespec_command};
use tunespec::iree::compile_target;
use tunespec::iree::target::IREE_CUDA_TARGETS;

const MM_4096: &str = "tests/fixtures/payloads/mm_4096x4096x4096_f16.mlir";
const SUBSTITUTION: &str =
    "sm_90: compiled as sm_89 PTX, JIT-compiled by the driver: IREE 3.13 has no sm_90 target";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(output: &Output, what: &str) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: {}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// iree-compile of `payload` to executable-configurations with `flags`.
fn configurations(compile: &Path, payload: &Path, flags: &[&str]) -> Output {
    output_with_timeout(Command::new(compile).arg(payload).args(flags).args([
        "--compile-to=executable-configurations",
        "-o",
        "-",
    ]))
}

/// The list of CUDA targets tunespec takes for IREE 3.13's is the installed IREE's: each listed
/// one compiles; each that tunespec substitutes fails by name ("missing GPU target") and
/// compiles with the flags tunespec gives it.
#[test]
fn the_cuda_targets_tunespec_substitutes_are_those_the_iree_lacks() {
    let Some(compile) = iree_compile() else {
        return;
    };
    let dir = private_home();
    let payload = dir.join("mm.mlir");
    std::fs::write(
        &payload,
        std::fs::read_to_string(repo_root().join(MM_4096))
            .unwrap()
            .replace("4096", "256"),
    )
    .unwrap();
    for capability in IREE_CUDA_TARGETS {
        let name = format!("sm_{capability}");
        let flag = format!("--iree-cuda-target={name}");
        let output = configurations(
            &compile,
            &payload,
            &["--iree-hal-target-device=cuda", &flag],
        );
        ok(&output, &name);
        assert_eq!(compile_target(&name).unwrap().substitution, None, "{name}");
    }
    for name in ["sm_90", "sm_90a", "sm_100", "sm_120a"] {
        let flag = format!("--iree-cuda-target={name}");
        let output = configurations(
            &compile,
            &payload,
            &["--iree-hal-target-device=cuda", &flag],
        );
        assert!(
            !output.status.success(),
            "IREE now has {name}: update IREE_CUDA_TARGETS"
        );
        assert!(
            text(&output.stderr).contains("missing GPU target"),
            "{name}: {}",
            text(&output.stderr)
        );
        let target = compile_target(name).unwrap();
        assert!(target.substitution.is_some(), "{name}");
        let flags: Vec<&str> = target.flags.iter().map(String::as_str).collect();
        ok(&configurations(&compile, &payload, &flags), name);
    }
}

#[test]
fn targets_and_doctor_say_sm_90_compiles_as_sm_89_ptx_and_why() {
    let json = ok(
        &tunespec_command()
            .args(["targets", "--format", "json"])
            .output()
            .unwrap(),
        "targets",
    );
    let line = |name: &str| -> serde_json::Value {
        json.lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .find(|value| value["target"] == name)
            .unwrap_or_else(|| panic!("no {name} in {json}"))
    };
    let sm_90 = line("sm_90");
    assert_eq!(sm_90["iree"]["compiled_as"], "sm_89");
    assert_eq!(
        sm_90["iree"]["flags"],
        serde_json::json!(["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"])
    );
    assert_eq!(sm_90["iree"]["substitution"], SUBSTITUTION);
    assert_eq!(line("sm_80")["iree"]["compiled_as"], "sm_80");
    assert_eq!(
        line("sm_80")["iree"]["substitution"],
        serde_json::Value::Null
    );
    assert_eq!(line("nvidia")["iree"], serde_json::Value::Null);

    let human = ok(
        &tunespec_command().arg("targets").output().unwrap(),
        "targets",
    );
    assert!(
        human.contains(&format!(
            "* {SUBSTITUTION} (--iree-hal-target-device=cuda --iree-cuda-target=sm_89)"
        )),
        "{human}"
    );
    let doctor = ok(
        &tunespec_command().arg("doctor").output().unwrap(),
        "doctor",
    );
    assert!(
        doctor.contains(&format!(
            "  sm_90: --iree-hal-target-device=cuda --iree-cuda-target=sm_89 ({SUBSTITUTION})\n"
        )),
        "{doctor}"
    );
    assert!(
        doctor.contains("  sm_80: --iree-hal-target-device=cuda --iree-cuda-target=sm_80\n"),
        "{doctor}"
    );
    let doctor_json: serde_json::Value = serde_json::from_str(&ok(
        &tunespec_command()
            .args(["doctor", "--format", "json"])
            .output()
            .unwrap(),
        "doctor --format json",
    ))
    .unwrap();
    let entry = doctor_json["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["target"] == "sm_90")
        .unwrap();
    assert_eq!(entry["compiled_as"], "sm_89");
    assert_eq!(entry["substitution"], SUBSTITUTION);
}
