//! `tunespec tune --compile-only` for GPU targets without a GPU: a Llama-2 prefill projection
//! (a transposed-weight matmul) and the attention scores' batch matmul, for `gfx942` and
//! `sm_90` (compiled as sm_89 PTX), with the reference venv's IREE. Every candidate must come
//! from IREE's constraints, be materialized by IREE, compile, and carry its own config on the
//! dispatch IREE formed; and one candidate is checked again by the reference iree-compile alone
//! (the spec through `--iree-codegen-tuning-spec-path`, gfx942 honours it), not through
//! tunespec. Fails under `CI=true` when IREE is missing.

use std::path::Path;
use std::process::Command;

use crate::iree_library::{venv, with_iree};
use crate::reference::{output_with_timeout, repo_root};

const MODEL: &str = "tests/fixtures/tune/llama2_prefill_gpu.mlir";

/// Few solutions and candidates: the test is of the path, not of the search's reach.
fn compile_only(venv: &Path, target: &str, out: &Path) -> serde_json::Value {
    let mut command = with_iree(venv);
    command
        .current_dir(repo_root())
        .args(["tune", MODEL, "--compile-only", "-t", target])
        .args(["--solutions", "40", "--max-candidates", "4", "--jobs", "2"])
        .args(["--format", "json", "-o"])
        .arg(out);
    let output = output_with_timeout(&mut command);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    crate::cli_formats::assert_valid("tune-compile.schema.json", [text.as_ref()]);
    serde_json::from_str(&text).unwrap()
}

fn check_report(report: &serde_json::Value, out: &Path) {
    let dispatches = report["dispatches"].as_array().unwrap();
    let keys: Vec<&str> = dispatches
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "matmul_transpose_b 4096x11008x4096 f16*f16->f32",
            "batch_matmul 32x4096x4096x128 f16*f16->f32"
        ]
    );
    for dispatch in dispatches {
        let candidates = dispatch["candidates"].as_array().unwrap();
        assert_eq!(candidates.len(), 4, "{dispatch:#}");
        assert_eq!(candidates[0]["knobs"], "iree");
        for candidate in candidates {
            assert_eq!(candidate["status"], "compiled", "{candidate:#}");
            assert!(out.join(candidate["spec"].as_str().unwrap()).is_file());
        }
        // Candidate 1 may be the config tunespec links today (its defaults for the target);
        // the rest are solutions of IREE's constraints.
        let solved = candidates[1..]
            .iter()
            .map(|candidate| candidate["knobs"].as_str().unwrap())
            .filter(|knobs| !knobs.starts_with("linked: "))
            .inspect(|knobs| {
                assert!(
                    knobs.starts_with("TileAndFuse ") || knobs.starts_with("VectorDistribute "),
                    "{knobs}"
                )
            })
            .count();
        assert!(solved >= 2, "{dispatch:#}");
    }
    // The batch matmul's space is its batch-free surrogate's (IREE 3.13 emits none for it).
    let generation = report["generation"].as_array().unwrap();
    assert!(generation.iter().any(|g| {
        g["dispatch"] == "batch_matmul 32x4096x4096x128 f16*f16->f32"
            && g["note"]
                .as_str()
                .is_some_and(|note| note.contains("batch tile 1"))
    }));
    assert!(generation
        .iter()
        .all(|g| g["solutions"].as_u64().unwrap() > 0));
    assert!(out.join("compile-report.json").is_file());
    for dispatch in dispatches {
        let matcher = dispatch["matcher"].as_str().unwrap();
        assert!(out
            .join("candidates")
            .join(matcher)
            .join("payload.mlir")
            .is_file());
    }
}

#[test]
fn gpu_candidates_come_from_irees_constraints_and_all_compile_with_their_config() {
    let Some(venv) = venv() else { return };
    let scratch = tempfile::tempdir().unwrap();
    for target in ["gfx942", "sm_90"] {
        let out = scratch.path().join(target);
        let report = compile_only(&venv, target, &out);
        check_report(&report, &out);
    }
    // The reference compiler alone applies candidate 1 of the projection for gfx942.
    let out = scratch.path().join("gfx942");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("compile-report.json")).unwrap())
            .unwrap();
    let spec = out.join(
        report["dispatches"][0]["candidates"][1]["spec"]
            .as_str()
            .unwrap(),
    );
    let spec_text = std::fs::read_to_string(&spec).unwrap();
    let configured = output_with_timeout(
        Command::new(venv.join("bin/iree-compile"))
            .arg(repo_root().join(MODEL))
            .args(["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"])
            .arg(format!(
                "--iree-codegen-tuning-spec-path={}",
                spec.display()
            ))
            .args(["--compile-to=executable-configurations", "-o", "-"]),
    );
    assert!(configured.status.success());
    let text = String::from_utf8_lossy(&configured.stdout);
    let workgroup = |text: &str| -> Option<String> {
        let at = text.find("workgroup = [")?;
        Some(text[at..at + text[at..].find(']')? + 1].to_string())
    };
    let projection = text
        .lines()
        .find(|line| line.contains("linalg.generic") && line.contains("4096x11008"))
        .or_else(|| {
            text.lines()
                .find(|line| line.contains("lowering_config") && line.contains("11008"))
        })
        .expect("the projection's root op");
    assert_eq!(
        workgroup(projection),
        workgroup(&spec_text),
        "the reference compile applies the candidate's tiles"
    );
}

#[test]
fn a_gpu_model_without_a_contraction_has_nothing_to_compile_and_bad_options_are_refused() {
    let Some(venv) = venv() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut command = with_iree(&venv);
        command
            .current_dir(repo_root())
            .args([
                "tune",
                "tests/fixtures/tune/no_matmul_model.mlir",
                "--compile-only",
            ])
            .args(["-t", "gfx942", "-o"])
            .arg(scratch.path().join("out"))
            .args(extra);
        output_with_timeout(&mut command)
    };
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("no contraction dispatch to tune"),
        "{stdout}"
    );
    assert!(stdout.contains("it is not a contraction"), "{stdout}");
    let output = run(&["--solutions", "0"]);
    assert_eq!(output.status.code(), Some(2));
}
