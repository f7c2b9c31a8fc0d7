//! `tunespec import-tuner`: SHARK tuner run directories (fixtures in the tuner's layout and
//! formats, tests/fixtures/tuner/README.md) to a measured spec library.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::reference;
use crate::support::{private_home, tunespec_command};

const RUN_A: &str = "tests/fixtures/tuner/tuning_2026_11_20_10_00";
const RUN_B: &str = "tests/fixtures/tuner/tuning_2026_11_21_09_30";
const RUN_SLOWER: &str = "tests/fixtures/tuner/tuning_2026_11_22_08_00";
const PAYLOAD: &str = "tests/fixtures/tuner/mmt_payload.mlir";
const RUN_NAMED_GPU: &str = "tests/fixtures/tuner/named_gpu/tuning_2026_11_23_07_00";

fn import(runs: &[&str], library: &Path) -> Output {
    let mut command = tunespec_command();
    command.arg("import-tuner").args(runs);
    command.args(["--target", "gfx942", "-o"]).arg(library);
    command.output().expect("tunespec runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The library's spec files (relative paths, sorted).
fn spec_files(library: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(library)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "mlir"))
        .map(|entry| entry.path().strip_prefix(library).unwrap().to_path_buf())
        .collect();
    files.sort();
    files
}

fn only_spec(library: &Path) -> String {
    let files = spec_files(library);
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(library.join(&files[0])).unwrap()
}

#[test]
fn import_tuner_picks_the_fastest_candidate_that_beat_the_baseline() {
    let library = private_home().join("lib");
    let output = import(&[RUN_A, RUN_SLOWER], &library);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let spec = only_spec(&library);
    // Candidate 2 (80 us, workgroup 64x64) of 1 (90 us), 2 and 3 (120 us, slower than the
    // 100 us baseline).
    assert!(spec.contains("workgroup = [64, 64, 0]"), "{spec}");
    assert!(spec.contains("tuned_us = \"80\""), "{spec}");
    assert!(spec.contains("candidate = \"2\""), "{spec}");
    assert!(spec.contains("device = \"hip://0\""), "{spec}");
    assert!(spec.contains("iree = \"3.13.0\""), "{spec}");
    assert!(spec.contains("date = \"2026-11-20\""), "{spec}");
    // The run whose candidates were all slower than its baseline adds nothing, with a note.
    let err = stderr(&output);
    assert!(err.contains("no candidate beat the baseline"), "{err}");
    assert!(!spec.contains("8192"), "{spec}");
    let manifest = std::fs::read_to_string(library.join("registry.toml")).unwrap();
    assert!(manifest.contains("[extend.gfx942]"), "{manifest}");
}

/// A run whose summary.log names the GPU and the compile flags: the record keeps them and the
/// provenance names the GPU and the PTX's architecture (`cuda://0` alone says nothing).
#[test]
fn import_tuner_records_the_gpu_and_the_flags_of_summary_log() {
    let home = private_home();
    let library = home.join("lib");
    let output = tunespec_command()
        .args(["import-tuner", RUN_NAMED_GPU, "--target", "sm_90", "-o"])
        .arg(&library)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let spec = only_spec(&library);
    for field in [
        "device = \"cuda://0\"",
        "device_name = \"Fixture GPU 80GB\"",
        "driver = \"123.45.67\"",
        "flags = \"--iree-hal-target-device=cuda --iree-cuda-target=sm_89\"",
        "candidate = \"1\"",
    ] {
        assert!(spec.contains(field), "{field} in {spec}");
    }
    assert!(spec.contains("tunespec.provenance = \"measured on Fixture GPU 80GB (cuda://0, driver 123.45.67) with sm_89 PTX (--iree-hal-target-device=cuda --iree-cuda-target=sm_89) (speedup 0.750"), "{spec}");
    // Reports name the GPU.
    let resolve = tunespec_command()
        .env_remove("TUNESPEC_DERIVED")
        .args(["resolve", "sm_90", "--spec"])
        .arg(&library)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&resolve.stdout);
    assert!(
        out.contains("measured: 1 on Fixture GPU 80GB with IREE 3.13.0"),
        "{out}\n{}",
        stderr(&resolve)
    );
    // Re-importing reads the record back (merge by key keeps it).
    let again = tunespec_command()
        .args(["import-tuner", RUN_NAMED_GPU, "--target", "sm_90", "-o"])
        .arg(&library)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(only_spec(&library).contains("device_name = \"Fixture GPU 80GB\""));
}

#[test]
fn import_tuner_merges_runs_by_key_faster_replaces_slower() {
    let library = private_home().join("lib");
    let first = import(&[RUN_A], &library);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    // Another model's dispatch tuned the same GEMM faster (70 us): one entry, the faster one.
    let second = import(&[RUN_B], &library);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let err = stderr(&second);
    assert!(err.contains("replaces") && err.contains("80 us"), "{err}");
    let spec = only_spec(&library);
    assert!(spec.contains("tuned_us = \"70\""), "{spec}");
    assert!(spec.contains("@match_prefill_dispatch_7"), "{spec}");
    // Importing the slower run again keeps the faster entry, and says so.
    let again = import(&[RUN_A], &library);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("not imported"),
        "{}",
        stderr(&again)
    );
    assert!(only_spec(&library).contains("tuned_us = \"70\""));
    // Both runs in one import: also one entry.
    let both = private_home().join("lib");
    let output = import(&[RUN_A, RUN_B], &both);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(only_spec(&both).contains("tuned_us = \"70\""));
}

#[test]
fn import_tuner_refuses_broken_runs_and_writes_nothing() {
    for (run, expected) in [
        ("missing_columns", "missing column(s) benchmark_time_us"),
        ("bad_row", "_candidate_analysis.csv:3:"),
        ("bad_spec", "2_spec.mlir:"),
        ("no_results", "no benchmark results"),
    ] {
        let home = private_home();
        let library = home.join("lib");
        let path = format!("tests/fixtures/tuner/broken/{run}");
        let output = import(&[RUN_A, &path], &library);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{run}: {err}");
        assert!(err.contains(expected), "{run}: {err}");
        assert!(err.contains("nothing written"), "{run}: {err}");
        assert!(!library.exists(), "{run}: a library was written");
        assert_eq!(std::fs::read_dir(&home).unwrap().count(), 0, "{run}");
    }
    // The missing column is located at the header line.
    let output = import(
        &["tests/fixtures/tuner/broken/missing_columns"],
        &private_home().join("lib"),
    );
    assert!(stderr(&output).contains("_candidate_analysis.csv:1:"));
    // An existing library is left as it was.
    let library = private_home().join("lib");
    assert_eq!(import(&[RUN_A], &library).status.code(), Some(0));
    let before = only_spec(&library);
    let output = import(&[RUN_B, "tests/fixtures/tuner/broken/bad_spec"], &library);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(only_spec(&library), before);
}

#[test]
fn import_tuner_json_reports_each_dispatch_and_follows_the_schema() {
    let library = private_home().join("lib");
    let mut command = tunespec_command();
    command.args(["import-tuner", "--format", "json", RUN_A, RUN_B, RUN_SLOWER]);
    let output = command
        .args(["-t", "mi300x", "-o"])
        .arg(&library)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    crate::cli_formats::assert_valid("import-tuner.schema.json", [text.as_str()]);
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(document["target"], "gfx942", "{document}");
    assert_eq!(document["entries"], 1, "{document}");
    let rows = document["dispatches"].as_array().unwrap();
    let outcome = |run: &str| -> Vec<&str> {
        rows.iter()
            .filter(|row| row["run"] == run)
            .map(|row| row["outcome"].as_str().unwrap())
            .collect()
    };
    // Run A's winner (candidate 2, 80 us) is superseded by run B's (70 us) in the same import.
    assert_eq!(outcome(RUN_A), ["superseded"], "{document}");
    assert_eq!(outcome(RUN_B), ["replaced"], "{document}");
    assert_eq!(outcome(RUN_SLOWER), ["not-beaten"], "{document}");
    let a = rows.iter().find(|row| row["run"] == RUN_A).unwrap();
    assert_eq!(a["candidate"], 2);
    assert_eq!(a["tuned_us"].as_f64(), Some(80.0));
    assert_eq!(a["baseline_us"].as_f64(), Some(100.0));
    assert!(
        stderr_is_quiet(&output.stderr),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // An unknown target is a JSON diagnostic with the nearest names.
    let mut command = tunespec_command();
    command.args([
        "import-tuner",
        "--format",
        "json",
        RUN_A,
        "-t",
        "gfx94",
        "-o",
    ]);
    let output = command.arg(private_home().join("x")).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let diagnostic: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
    assert!(
        diagnostic["help"].as_str().unwrap().contains("gfx942"),
        "{diagnostic}"
    );
}

fn stderr_is_quiet(stderr: &[u8]) -> bool {
    !String::from_utf8_lossy(stderr).contains("imported")
}

#[test]
fn import_tuner_usage_errors_exit_2() {
    let library = private_home().join("lib");
    let mut command = tunespec_command();
    command.args(["import-tuner", RUN_A, "--target", "gfx9999x", "-o"]);
    let output = command.arg(&library).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("unknown target"));
    assert!(!library.exists());
    // A directory of someone's own specs is never merged into.
    let theirs = private_home();
    std::fs::write(theirs.join("mine.mlir"), "module {}\n").unwrap();
    let output = import(&[RUN_A], &theirs);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 1);
}

#[test]
fn import_tuner_library_verifies_links_and_explain_shows_the_measurement() {
    let home = private_home();
    let library = home.join("lib");
    let output = import(&[RUN_A, RUN_B], &library);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let verify = tunespec_command()
        .arg("verify")
        .arg(&library)
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));
    let linked = home.join("linked.mlir");
    let link = tunespec_command()
        .args(["link", "--target", "gfx942", "--spec"])
        .arg(&library)
        .arg("-o")
        .arg(&linked)
        .output()
        .unwrap();
    assert_eq!(link.status.code(), Some(0), "{}", stderr(&link));
    let text = std::fs::read_to_string(&linked).unwrap();
    assert!(
        text.contains("measured on hip://0 (speedup 0.700"),
        "provenance lost in link"
    );
    let explain = tunespec_command()
        .args(["explain", "--target", "gfx942", "--spec"])
        .arg(&library)
        .arg(PAYLOAD)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&explain.stdout);
    assert_eq!(explain.status.code(), Some(0), "{}", stderr(&explain));
    assert!(out.contains("@match_prefill_dispatch_7"), "{out}");
    assert!(
        out.contains("provenance: 1 config(s) measured on hip://0 (speedup 0.700"),
        "{out}"
    );
}

/// The imported library takes effect in iree-compile (3.13): the GEMM gets the measured config.
#[test]
fn import_tuner_library_takes_effect_in_iree_compile() {
    let Some(iree_compile) = reference::iree_compile() else {
        return;
    };
    let home = private_home();
    let library = home.join("lib");
    assert_eq!(import(&[RUN_A, RUN_B], &library).status.code(), Some(0));
    let linked = home.join("linked.mlir");
    let link = tunespec_command()
        .args(["link", "--target", "gfx942", "--spec"])
        .arg(&library)
        .arg("-o")
        .arg(&linked)
        .output()
        .unwrap();
    assert_eq!(link.status.code(), Some(0), "{}", stderr(&link));
    let configs = |spec: Option<&Path>| {
        let mut command = std::process::Command::new(&iree_compile);
        command.arg(reference::repo_root().join(PAYLOAD)).args([
            "--iree-hal-target-device=hip",
            "--iree-rocm-target=gfx942",
            "--compile-to=executable-configurations",
        ]);
        if let Some(spec) = spec {
            command.arg(format!(
                "--iree-codegen-tuning-spec-path={}",
                spec.display()
            ));
        }
        let output = reference::output_with_timeout(&mut command);
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // Candidate 1 of the faster run: workgroup tiles 32x32, which IREE's own heuristic does not
    // choose.
    assert!(!configs(None).contains("workgroup = [32, 32, 0]"));
    let out = configs(Some(&linked));
    assert!(out.contains("workgroup = [32, 32, 0]"), "{out}");
}

#[test]
fn a_library_for_another_target_is_said_never_silent() {
    // A gfx942 library given to an sm_80 explain configures nothing: a warning names it, and
    // `resolve` lists its specs as skipped with why.
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("lib");
    assert!(import(&[RUN_A], &library).status.success());
    let explained = tunespec_command()
        .args(["explain", "-t", "sm_80", "--spec"])
        .arg(&library)
        .arg(PAYLOAD)
        .output()
        .unwrap();
    assert!(explained.status.success(), "{}", stderr(&explained));
    let text = stderr(&explained);
    assert_eq!(
        text.matches("has no spec for sm_80 (its specs are for gfx942): nothing of it is linked")
            .count(),
        1,
        "{text}"
    );
    let resolved = tunespec_command()
        .args(["resolve", "sm_80", "--format", "json", "--spec"])
        .arg(&library)
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&resolved.stdout).unwrap();
    let skipped = document["skipped"].as_array().unwrap();
    assert!(
        skipped.iter().any(|spec| spec["reason"]
            .as_str()
            .unwrap()
            .contains("the library has no spec for sm_80 (sm_80 > nvidia)")),
        "{document:#}"
    );
}
