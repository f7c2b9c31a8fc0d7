//! `tune` in phases: the candidates generated and compiled here (`tune --plan`), screened and
//! confirmed in two shards where only IREE's runtime is installed (`tunespec time`), merged and
//! decided elsewhere (`tunespec decide`); and a GPU target's plan, compiled on this CPU-only
//! machine, refused by a CPU device.

use std::path::Path;

use crate::bench_phases::{copy_dir, names, run, runtime_only, runtime_venv};
use crate::cli_formats::assert_valid;
use crate::iree_library::{venv, with_iree};
use crate::support::tunespec_command;

const MODEL: &str = "tests/fixtures/tune/two_matmuls_model.mlir";
/// The least timing: what is checked is the flow (screen, survivors, confirmations, report), not
/// a verdict.
const TIMING: &[&str] = &[
    "--repetitions",
    "1",
    "--min-time",
    "0.01",
    "--rounds",
    "2",
    "--max-rounds",
    "2",
];

#[test]
fn a_tune_planned_here_timed_in_shards_with_the_runtime_alone_is_decided_elsewhere() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    let (status, stdout, stderr) = run(with_iree(&venv)
        .args([
            "tune",
            MODEL,
            "-t",
            "host",
            "--plan",
            "--max-candidates",
            "3",
        ])
        .args(["--screen-rounds", "2", "-o"])
        .arg(&plan));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("planned 6 candidate(s) of 2 dispatch(es)"),
        "{stdout}"
    );
    // Two machines, each timing whole dispatches of its shard.
    let merged = work.path().join("merged");
    copy_dir(&plan, &merged);
    let mut screened = Vec::new();
    for k in 1..=2 {
        let shard = work.path().join(format!("gpu-{k}"));
        copy_dir(&plan, &shard);
        let (status, stdout, stderr) = run(runtime_only(&runtime, work.path())
            .args(["time", &format!("gpu-{k}"), "--shard", &format!("{k}/2")])
            .args(TIMING));
        assert_eq!(status, Some(0), "{stdout}\n{stderr}");
        assert!(stdout.contains("screened"), "{stdout}");
        let screen = names(&shard.join("results-screen"));
        // Whole dispatches: 0, 3 or 6 candidates (3 per dispatch).
        assert_eq!(screen.len() % 3, 0, "{screen:?}");
        screened.extend(screen);
        // The confirmations are of candidates the screen timed in this shard.
        for confirmed in names(&shard.join("results")) {
            assert!(names(&shard.join("results-screen")).contains(&confirmed));
        }
        for results in ["results-screen", "results"] {
            if shard.join(results).is_dir() {
                copy_dir(&shard.join(results), &merged.join(results));
            }
        }
    }
    screened.sort();
    assert_eq!(
        screened,
        (0..6).map(|i| format!("{i:04}.json")).collect::<Vec<_>>()
    );
    // Decided on a machine without IREE: tune's report, the same twice.
    let decide = || {
        run(tunespec_command()
            .args(["decide", "--format", "json"])
            .arg(&merged))
    };
    let (status, first, stderr) = decide();
    assert_eq!(status, Some(0), "{first}\n{stderr}");
    assert_eq!(decide().1, first);
    assert_valid("tune.schema.json", [first.as_str()]);
    let report: serde_json::Value = serde_json::from_str(&first).unwrap();
    let dispatches = report["dispatches"].as_array().unwrap();
    assert_eq!(dispatches.len(), 2, "{report:#}");
    for dispatch in dispatches {
        for candidate in dispatch["candidates"].as_array().unwrap() {
            assert!(candidate["screen"].is_object(), "{candidate:#}");
        }
    }
    assert!(merged.join("report.json").is_file());
    assert!(report["model_note"]
        .as_str()
        .is_some_and(|note| note.contains("does not time the model whole")));
    // A tune plan's library goes into the plan: --write is refused.
    let (status, _, stderr) = run(tunespec_command()
        .arg("decide")
        .arg(&merged)
        .args(["--write", "elsewhere"]));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("--write is for bench plans"), "{stderr}");
}

#[test]
fn a_gpu_tune_plan_compiles_on_a_cpu_machine_and_only_its_gpu_can_time_it() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    let (status, stdout, stderr) = run(with_iree(&venv)
        .args([
            "tune",
            "tests/fixtures/tune/llama2_prefill_gpu.mlir",
            "-t",
            "gfx942",
        ])
        .args(["--plan", "--max-candidates", "3", "--solutions", "50", "-o"])
        .arg(&plan));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("tunespec time") && stdout.contains("--device hip"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(plan.join("plan.json")).unwrap();
    assert_valid("plan.schema.json", [text.as_str()]);
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(document["target_device"], "hip");
    // Every module of the plan is named relative to it, with its hash.
    let modules: Vec<&serde_json::Value> = document["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["outcome"]["kind"] == "time")
        .collect();
    assert!(!modules.is_empty(), "{document:#}");
    for case in modules {
        let base = &case["outcome"]["base"];
        let path = base["path"].as_str().unwrap();
        assert!(
            path.starts_with("cases/") && plan.join(path).is_file(),
            "{base}"
        );
        assert_eq!(base["blake3"].as_str().unwrap().len(), 64);
    }
    let (status, _, stderr) =
        run(runtime_only(&runtime, work.path()).args(["time", "plan", "--device", "local-task"]));
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("compiled for the hip HAL device"),
        "{stderr}"
    );
}

/// On llvm-cpu, a batch matmul and a matmul with a transposed right-hand side are searched like
/// a plain matmul, their tiles where their loops are: every candidate of each, compiled by
/// iree-compile 3.13 in the plan, carries exactly its config in the dispatch IREE formed (the
/// plan keeps the tuned modules' dispatch dumps), batch loop tiled at 1 as IREE tiles it.
#[test]
fn a_batch_matmul_and_a_transposed_matmul_are_tuned_on_llvm_cpu_with_their_configs_applied() {
    let Some(venv) = venv() else { return };
    let work = tempfile::tempdir().unwrap();
    // The model's four candidates per dispatch, planned (`--plan`) or compiled and checked
    // (`--compile-only`) into `out`.
    let tune_into = |mode: &str, out: &Path| {
        let (status, stdout, stderr) = run(with_iree(&venv)
            .current_dir(crate::reference::repo_root())
            .args([
                "tune",
                "tests/fixtures/tune/batch_and_transposed_model.mlir",
            ])
            .args(["-t", "host", "--max-candidates", "4", mode, "-o"])
            .arg(out));
        assert_eq!(status, Some(0), "{mode}: {stdout}\n{stderr}");
    };
    let plan = work.path().join("plan");
    tune_into("--plan", &plan);
    let tune: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plan.join("tune.json")).unwrap()).unwrap();
    let searches = tune["searches"].as_array().unwrap();
    let keys: Vec<&str> = searches
        .iter()
        .map(|s| s["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys.iter()
            .filter(|key| key.starts_with("batch_matmul 4x256x512x128"))
            .count()
            + keys
                .iter()
                .filter(|key| key.starts_with("matmul_transpose_b 256x512x128"))
                .count(),
        2,
        "{keys:?}"
    );
    assert!(tune["skipped"].as_array().unwrap().is_empty(), "{tune:#}");
    let squash = |text: &str| text.split_whitespace().collect::<String>();
    for (search, cases) in searches.iter().zip(tune["cases"].as_array().unwrap()) {
        let candidates = search["candidates"].as_array().unwrap();
        assert_eq!(candidates.len(), 4, "{search:#}");
        for (candidate, case) in candidates.iter().zip(cases.as_array().unwrap()) {
            let config = candidate[0]["lowering_config"].as_str().unwrap();
            if search["key"].as_str().unwrap().starts_with("batch_matmul") {
                assert!(config.contains("distribution = [1, "), "{config}");
            }
            let dumps = plan.join(format!(
                "cases/{:04}/tuned-dispatches",
                case.as_u64().unwrap()
            ));
            let dumped: String = walkdir::WalkDir::new(&dumps)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|entry| entry.file_type().is_file())
                .map(|entry| std::fs::read_to_string(entry.path()).unwrap_or_default())
                .collect();
            assert!(
                squash(&dumped).contains(&squash(config)),
                "{}: candidate {} ({}) is not the config IREE put on the dispatch",
                search["key"],
                candidate[0]["index"],
                candidate[0]["knobs"]
            );
        }
    }
    // `--compile-only` says the same of each candidate: compiled with its config applied.
    let checked = work.path().join("compiled");
    tune_into("--compile-only", &checked);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(checked.join("compile-report.json")).unwrap(),
    )
    .unwrap();
    // The CPU's cost model ordered them, and IREE's vector-size check left none to fail.
    assert_eq!(report["order"], "model", "{report:#}");
    for dispatch in report["dispatches"].as_array().unwrap() {
        for candidate in dispatch["candidates"].as_array().unwrap() {
            assert_eq!(candidate["status"], "compiled", "{candidate:#}");
        }
    }
}
