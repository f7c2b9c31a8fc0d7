//! `sm_90` with IREE 3.13 and the first measured defaults (issue 30, items 5 and 6): IREE 3.13
//! has no sm_90 target, so tunespec compiles sm_90 as sm_89 PTX (and says so in `targets` and
//! `doctor`); `explain --exact` and `check` work for sm_90; a plain `link --target sm_90` has the
//! H100 measured configs (`specs/sm_90/h100_measured.mlir`, written by
//! `tools/gen-sm90-measured.sh`), whose provenance names the GPU and the sm_89 PTX; and on CUDA
//! IREE 3.13 ignores `--iree-codegen-tuning-spec-path`, so `tunespec attach` is how a spec
//! reaches the compile. Tests that need IREE fail under `CI=true` without it (`reference.rs`).

use std::path::Path;
use std::process::{Command, Output};

use crate::iree_library::{venv, with_iree};
use crate::reference::{iree_compile, output_with_timeout, repo_root};
use crate::support::{private_home, tunespec_command};
use tunespec::iree::compile_target;
use tunespec::iree::target::IREE_CUDA_TARGETS;

const MM_4096: &str = "tests/fixtures/payloads/mm_4096x4096x4096_f16.mlir";
const MEASURED: &str = "specs/sm_90/h100_measured.mlir";
const SM_89: &[&str] = &["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"];
/// The measured default's config for matmul 4096x4096x4096 (candidate 6 of the H100 sweep);
/// IREE 3.13's own for sm_89 is `subgroup = [4, 4, 0], workgroup = [128, 64, 0]`.
const MEASURED_CONFIG: &str = "subgroup = [4, 8, 0], workgroup = [128, 128, 0]";
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

/// `explain --exact -t sm_90` (which failed: IREE rejected sm_90) agrees with IREE, and the
/// measured default is the config it checks; `check` of the measured default spec passes.
#[test]
fn explain_exact_and_check_work_for_sm_90() {
    let Some(venv) = venv() else { return };
    let output = output_with_timeout(
        with_iree(&venv)
            .env_remove("TUNESPEC_DERIVED")
            .args(["explain", "--exact", "-t", "sm_90", "--format", "short"])
            .arg(repo_root().join(MM_4096)),
    );
    let stdout = ok(&output, "explain --exact -t sm_90");
    let summary = stdout
        .lines()
        .find(|line| line.starts_with("exact: IREE 3."))
        .unwrap_or_else(|| panic!("no exact summary in: {stdout}"));
    assert!(summary.ends_with(", 0 differ"), "{summary}");
    assert!(!summary.contains(" 0 of "), "{summary}");
    assert!(stdout.contains("h100_measured"), "{stdout}");

    assert!(
        stdout.contains(&format!("note: {SUBSTITUTION}\n")),
        "{stdout}"
    );

    let output = output_with_timeout(
        with_iree(&venv)
            .args(["check", "--target", "sm_90"])
            .arg(repo_root().join(MEASURED)),
    );
    let stdout = ok(&output, "check -t sm_90");
    assert!(
        stdout.contains(&format!("note: {SUBSTITUTION}\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains("checked 5 matcher(s) in 1 file(s) with IREE 3.13")
            && stdout.contains(": 5 passed, 0 failed, 0 warning(s)"),
        "{stdout}"
    );
}

/// The H100 measured configs are sm_90's defaults: a plain link has them (no `--derived`),
/// with their GPU and sm_89 PTX; each beat IREE's own config; `targets` and `resolve` count them.
#[test]
fn a_plain_link_for_sm_90_has_the_h100_measured_defaults() {
    let dir = private_home();
    let linked = dir.join("linked.mlir");
    let output = tunespec_command()
        .env_remove("TUNESPEC_DERIVED")
        .args(["link", "--target", "sm_90", "-o"])
        .arg(&linked)
        .output()
        .unwrap();
    ok(&output, "link --target sm_90");
    let library = std::fs::read_to_string(&linked).unwrap();
    assert_eq!(library.matches("tunespec.measurement = {").count(), 5);
    assert_eq!(
        library.matches("tunespec.provenance = \"derived").count(),
        0
    );
    assert_eq!(
        library
            .matches("measured on NVIDIA H100 80GB HBM3 (cuda://0, driver 580.159.04) with sm_89 PTX (--iree-hal-target-device=cuda --iree-cuda-target=sm_89)")
            .count(),
        5,
        "{library}"
    );
    for speedup in library.split("speedup = \"").skip(1) {
        let value: f64 = speedup.split('"').next().unwrap().parse().unwrap();
        assert!(
            value < 1.0,
            "a measured default slower than IREE's own: {value}"
        );
    }

    let json = ok(
        &tunespec_command()
            .args(["targets", "--format", "json"])
            .output()
            .unwrap(),
        "targets",
    );
    let sm_90: serde_json::Value = json
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|value| value["target"] == "sm_90")
        .unwrap();
    let first = &sm_90["specs"][0];
    assert_eq!(first["path"], "specs/sm_90/h100_measured.mlir", "{sm_90:#}");
    assert_eq!(first["provenance"]["kind"], "measured");
    assert_eq!(first["provenance"]["measured"], 5);

    // explain names the GPU; with --derived too, the measured config wins for its shape.
    for derived in [&[][..], &["--derived"][..]] {
        let output = tunespec_command()
            .env_remove("TUNESPEC_DERIVED")
            .args(["explain", "-t", "sm_90", "--format", "short"])
            .args(derived)
            .arg(repo_root().join(MM_4096))
            .output()
            .unwrap();
        let explain = ok(&output, "explain -t sm_90");
        assert!(
            explain.contains("h100_measured.mlir:")
                && explain.contains(
                    "[measured on NVIDIA H100 80GB HBM3, IREE 3.13.0rc20261016, speedup 0.734]"
                ),
            "{derived:?}: {explain}"
        );
    }

    let output = tunespec_command()
        .env_remove("TUNESPEC_DERIVED")
        .args(["resolve", "sm_90"])
        .output()
        .unwrap();
    let resolve = ok(&output, "resolve -t sm_90");
    assert!(
        resolve.contains("measured: 5 on NVIDIA H100 80GB HBM3 with IREE 3.13.0rc20261016"),
        "{resolve}"
    );
}

/// On CUDA, IREE 3.13 ignores `--iree-codegen-tuning-spec-path` (the same spec is honoured on
/// HIP, so the spec is not the reason); the spec attached by `tunespec attach` takes effect.
#[test]
fn on_cuda_iree_ignores_the_tuning_spec_path_and_attach_is_what_works() {
    let Some(compile) = iree_compile() else {
        return;
    };
    let payload = repo_root().join(MM_4096);
    let spec = repo_root().join(MEASURED);
    let path_flag = format!("--iree-codegen-tuning-spec-path={}", spec.display());
    let plain = ok(&configurations(&compile, &payload, SM_89), "plain");
    assert!(
        !plain.contains(MEASURED_CONFIG),
        "IREE's own config changed"
    );
    let by_path = ok(
        &configurations(&compile, &payload, &[SM_89[0], SM_89[1], &path_flag]),
        "spec path",
    );
    assert!(
        !by_path.contains(MEASURED_CONFIG),
        "IREE now honours --iree-codegen-tuning-spec-path on CUDA: update the docs"
    );
    let hip = [
        "--iree-hal-target-device=hip",
        "--iree-rocm-target=gfx942",
        path_flag.as_str(),
    ];
    let on_hip = ok(&configurations(&compile, &payload, &hip), "spec path, hip");
    assert!(on_hip.contains(MEASURED_CONFIG), "{on_hip}");

    let attached = private_home().join("attached.mlir");
    let output = tunespec_command()
        .args(["attach", "--no-default", "--spec"])
        .arg(&spec)
        .args(["-t", "sm_90", "-o"])
        .arg(&attached)
        .arg(&payload)
        .output()
        .unwrap();
    ok(&output, "attach");
    let by_attach = ok(&configurations(&compile, &attached, SM_89), "attached");
    assert!(by_attach.contains(MEASURED_CONFIG), "{by_attach}");
}
