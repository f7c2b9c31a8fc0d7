//! `tunespec tune -t host` on IREE's CPU backend (`local-task`) with the reference venv's
//! iree-compile and runtime: a model of a 512³ and a 1024³ f32 matmul, at least 8 compiled
//! candidates per dispatch, every output checked, a winner written or an honest "none beat
//! IREE's own"; and a run killed (SIGKILL) once its journal has outcomes, run again: it
//! continues without timing a journaled candidate again. No timed assertions: which candidate
//! wins depends on the machine. Fails under `CI=true` when IREE is missing.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::cli_formats::assert_valid;
use crate::iree_library::{venv, with_iree};
use crate::reference::{output_with_timeout, repo_root};

const MODEL: &str = "tests/fixtures/tune/two_matmuls_model.mlir";

/// Short timing: 2 screen rounds, 8 confirm rounds (the fewest that can call a difference at
/// alpha 0.01 in one look), 9 candidates per dispatch (IREE's own and 8 more).
const QUICK: &[&str] = &[
    "--repetitions",
    "2",
    "--min-time",
    "0.02",
    "--screen-rounds",
    "2",
    "--rounds",
    "8",
    "--max-rounds",
    "8",
    "--max-candidates",
    "9",
    "-t",
    "host",
    "--format",
    "json",
];

fn tune(venv: &Path, out: &Path) -> Command {
    tune_within(venv, out, "10m")
}

fn tune_within(venv: &Path, out: &Path, budget: &str) -> Command {
    let mut command = with_iree(venv);
    command
        .current_dir(repo_root())
        .arg("tune")
        .arg(MODEL)
        .args(QUICK)
        .args(["--budget", budget, "-o"])
        .arg(out);
    command
}

fn report(output: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&output.stdout);
    assert_valid("tune.schema.json", [text.as_ref()]);
    serde_json::from_str(&text).unwrap()
}

/// The journal's records (the header left out).
fn journal(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Checks what every run must give: both dispatches searched, at least 8 compiled candidates
/// each, every candidate that ran checked (outputs equal: IREE's own tiles and the space's are
/// all correct), and per dispatch either a winner the rule called faster, written in the
/// library, or none.
fn check(venv: &Path, document: &serde_json::Value, out: &Path) {
    let dispatches = document["dispatches"].as_array().unwrap();
    // Every candidate was screened (below): the picture has a panel per dispatch.
    let svg = std::fs::read_to_string(out.join("report.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("matmul 1024x1024x1024"));
    let keys: Vec<&str> = dispatches
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    // Heaviest first: the 1024³ matmul is eight times the 512³'s work.
    assert_eq!(
        keys,
        [
            "matmul 1024x1024x1024 f32*f32->f32",
            "matmul 512x512x512 f32*f32->f32"
        ]
    );
    let shares: Vec<f64> = dispatches
        .iter()
        .map(|d| d["share"].as_f64().expect("shares measured"))
        .collect();
    assert!(
        shares[0] > shares[1] && shares[0] + shares[1] <= 1.0 + 1e-9,
        "{shares:?}"
    );
    let mut winners = 0;
    for dispatch in dispatches {
        assert!(dispatch["compiled"].as_u64().unwrap() >= 8, "{dispatch:#}");
        for candidate in dispatch["candidates"].as_array().unwrap() {
            let screen = &candidate["screen"];
            assert!(
                screen.is_object(),
                "every candidate screened: {candidate:#}"
            );
            assert_ne!(screen["status"], "wrong-output", "{candidate:#}");
            assert_ne!(screen["status"], "failed", "{candidate:#}");
            if screen["status"] != "unchanged" {
                assert!(
                    screen["max_abs_diff"].is_number(),
                    "outputs checked: {candidate:#}"
                );
            }
        }
        if let Some(winner) = dispatch["winner"].as_u64() {
            winners += 1;
            let candidate = &dispatch["candidates"][winner as usize];
            assert_eq!(candidate["verdict"], "winner");
            assert_eq!(candidate["confirm"]["status"], "faster", "{candidate:#}");
        }
    }
    // The model benched with the winners together: their matchers take effect in the model's
    // own dispatches (not `unchanged`) and its outputs are IREE's.
    let model = document["model"].as_array().unwrap();
    if winners == 0 {
        assert!(model.is_empty());
        assert!(document["model_note"].is_string());
    } else {
        assert_eq!(model.len(), 1, "{model:#?}");
        let status = model[0]["outcome"]["status"].as_str().unwrap();
        assert!(
            ["faster", "slower", "no-difference"].contains(&status),
            "{model:#?}"
        );
        assert!(model[0]["outcome"]["max_abs_diff"].is_number());
    }
    let library = out.join("library");
    if winners == 0 {
        assert!(document["library"].is_null());
        assert!(!library.exists());
        let notes = document["written"].to_string();
        assert!(notes.contains("none beat IREE's own"), "{notes}");
    } else {
        let texts: String = walkdir::WalkDir::new(&library)
            .into_iter()
            .flatten()
            .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "mlir"))
            .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
            .collect();
        assert_eq!(
            texts.matches("tunespec.measurement").count(),
            winners,
            "{texts}"
        );
        assert!(texts.contains("method = \"tunespec tune\""), "{texts}");
        assert!(
            texts.contains("candidate_knobs = \"distribution="),
            "{texts}"
        );
        assert!(
            texts.contains("candidates_tried = \"9 (9 compiled)\""),
            "{texts}"
        );
        // The written library passes `check` with its measurements re-timed.
        let checked = output_with_timeout(
            with_iree(venv)
                .args([
                    "check",
                    "--bench",
                    "--repetitions",
                    "2",
                    "--min-time",
                    "0.02",
                ])
                .arg(&library),
        );
        assert_eq!(
            checked.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&checked.stderr)
        );
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(saved["dispatches"], document["dispatches"]);
}

#[test]
fn a_killed_tune_resumes_from_its_journal_and_finds_a_winner_or_says_none_won() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tuned");
    // Killed once the journal holds outcomes of the screen.
    let mut child = {
        use std::os::unix::process::CommandExt;
        tune(&venv, &out)
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let started = Instant::now();
    while journal(&out).len() < 4 {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no journal after 5 minutes"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "tune ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The whole group: iree-compile and the runtime's processes with it.
    let group = i32::try_from(child.id()).unwrap();
    unsafe { libc::kill(-group, libc::SIGKILL) };
    child.wait().unwrap();
    let before = journal(&out);
    assert!(before.len() >= 4);
    // The resumed run pushes its winners to a shared store (docs/store.md).
    let store = format!("file://{}", dir.path().join("store").display());
    let output = output_with_timeout(tune(&venv, &out).args(["--store", &store]));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document = report(&output);
    check(&venv, &document, &out);
    // Nothing journaled before the kill was measured again: each is journaled once, and the
    // report says its outcome came from the journal.
    let after = journal(&out);
    let id = |record: &serde_json::Value| {
        format!(
            "{}|{}|{}",
            record["dispatch"], record["knobs"], record["stage"]
        )
    };
    for record in &before {
        let count = after.iter().filter(|later| id(later) == id(record)).count();
        assert_eq!(count, 1, "measured again: {record:#}");
        let dispatch = document["dispatches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["key"] == record["dispatch"])
            .unwrap();
        let candidate = &dispatch["candidates"][record["candidate"].as_u64().unwrap() as usize];
        let stage = if record["stage"] == "screen" {
            "screen"
        } else {
            "confirm"
        };
        assert_eq!(candidate[stage]["journaled"], true, "{candidate:#}");
        assert_eq!(
            candidate[stage]["status"], record["status"],
            "{candidate:#}"
        );
    }
    assert!(document["resumed"].as_u64().unwrap() >= before.len() as u64);
    // The same command once more: everything from the journal, the same outcomes.
    let again = output_with_timeout(&mut tune(&venv, &out));
    assert_eq!(again.status.code(), Some(0));
    let again = report(&again);
    assert_eq!(
        journal(&out).len(),
        after.len(),
        "nothing measured a third time"
    );
    let verdicts = |document: &serde_json::Value| -> Vec<String> {
        document["dispatches"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d["candidates"].as_array().unwrap().iter())
            .map(|c| c["verdict"].to_string())
            .collect()
    };
    assert_eq!(verdicts(&again), verdicts(&document));
    // The default order is the CPU's cost model; a run in another order is another search,
    // whose journal this one is not (refused, never mixed in).
    assert_eq!(document["order"], "model", "{document:#}");
    let reordered = output_with_timeout(tune(&venv, &out).args(["--order", "random"]));
    assert_eq!(reordered.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&reordered.stderr).contains("journal of another tune"));
    // A tune elsewhere with the same store, device and IREE skips the dispatches whose winner
    // the store holds, and says so (nothing of them is searched; the budget is spent at once).
    let winners = document["dispatches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["winner"].is_null())
        .count();
    eprintln!("note: {winners} dispatch(es) won: as many skipped from the store");
    let elsewhere = dir.path().join("elsewhere");
    let skipping =
        output_with_timeout(tune_within(&venv, &elsewhere, "0.001").args(["--store", &store]));
    let status = skipping.status.code();
    let skipping = report(&skipping);
    // Every dispatch held: nothing left to search is a finished run (exit 0), as a farm's
    // rerun must see it; else the budget of 0.001 s leaves the rest untried (exit 1).
    let all = document["dispatches"].as_array().unwrap().len();
    assert_eq!(
        status,
        Some(if winners == all { 0 } else { 1 }),
        "{skipping:#}"
    );
    let already = skipping["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.to_string().contains("already measured in file://"))
        .count();
    assert_eq!(already, winners, "{skipping:#}");
    assert_eq!(skipping["held_in_store"], winners, "{skipping:#}");
    assert_eq!(
        skipping["dispatches"].as_array().unwrap().len(),
        document["dispatches"].as_array().unwrap().len() - winners
    );
}

#[test]
fn tune_refuses_a_gpu_target_another_tunes_journal_and_a_bad_payload_and_says_when_nothing_is_tunable(
) {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let output = output_with_timeout(
        with_iree(&venv)
            .current_dir(repo_root())
            .args(["tune", MODEL, "-t", "gfx942", "-o"])
            .arg(dir.path()),
    );
    assert_eq!(output.status.code(), Some(2));
    // A GPU target is timed on its GPU, or generated and compiled only (tests/all/tune_gpu.rs).
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is a GPU target") && stderr.contains("--compile-only"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("journal.jsonl"),
        "{\"journal\":\"tunespec tune\",\"version\":1,\"payload\":\"other\",\"target\":\"host\",\"flags\":[],\"device\":\"local-task\",\"iree\":\"x\",\"timing\":\"x\"}\n",
    )
    .unwrap();
    let output = output_with_timeout(&mut tune(&venv, dir.path()));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("journal of another tune"));
    // A payload IREE cannot read: exit 2, IREE's error located in the user's file.
    let bad = dir.path().join("bad.mlir");
    std::fs::write(&bad, "garbage {\n").unwrap();
    let output = output_with_timeout(
        with_iree(&venv)
            .args(["tune", "-t", "host", "-o"])
            .arg(dir.path().join("bad-out"))
            .arg(&bad),
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:1:1: error", bad.display())),
        "{stderr}"
    );
    // A model without a matmul: nothing to tune, exit 1, no library.
    let out = dir.path().join("none");
    let output = output_with_timeout(
        with_iree(&venv)
            .current_dir(repo_root())
            .args([
                "tune",
                "tests/fixtures/tune/no_matmul_model.mlir",
                "-t",
                "host",
            ])
            .args(["--format", "json", "-o"])
            .arg(&out),
    );
    assert_eq!(output.status.code(), Some(1));
    let document = report(&output);
    assert!(document["dispatches"].as_array().unwrap().is_empty());
    assert!(!out.join("library").exists());
}

/// `tunespec tune ARGS` in the repository with the reference IREE, compile-only runs and usage
/// errors: (exit status, stdout, stderr).
fn tune_cli(venv: &Path, args: &[&str], out: &Path) -> (Option<i32>, Vec<u8>, String) {
    let output = output_with_timeout(
        with_iree(venv)
            .current_dir(repo_root())
            .arg("tune")
            .args(args)
            .arg("-o")
            .arg(out),
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), output.stdout, stderr)
}

/// The keys of a compile-only report's dispatches, and every candidate's compile status.
fn keys_and_statuses(stdout: &[u8]) -> (Vec<String>, Vec<String>) {
    let compiled: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    assert_valid("tune-compile.schema.json", [compiled.to_string().as_str()]);
    let dispatches = compiled["dispatches"].as_array().unwrap();
    let keys = dispatches
        .iter()
        .map(|d| d["key"].as_str().unwrap().to_string())
        .collect();
    let statuses = dispatches
        .iter()
        .flat_map(|d| d["candidates"].as_array().unwrap())
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect();
    (keys, statuses)
}

#[test]
fn tune_scopes_one_dispatch_or_a_librarys_keys_and_refuses_orders_it_cannot_take() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let quick = [
        "-t",
        "host",
        "--compile-only",
        "--max-candidates",
        "2",
        "--format",
        "json",
    ];
    // `--order nearest` is a grid around IREE's own config: llvm-cpu's; a GPU's space is
    // IREE's constraints. An order tunespec does not know is clap's usage error.
    for (order, expected) in [
        ("nearest", "--order nearest is llvm-cpu's"),
        ("fastest", "model, nearest or random"),
    ] {
        let args = [MODEL, "-t", "gfx942", "--compile-only", "--order", order];
        let (status, _, stderr) = tune_cli(&venv, &args, &dir.path().join("gpu"));
        assert_eq!(status, Some(2));
        assert!(stderr.contains(expected), "{stderr}");
    }
    // `--dispatch`: one dispatch of the model; a pattern that selects none is refused with the
    // dispatches there are.
    let args = [&[MODEL, "--dispatch", "1024x1024"][..], &quick].concat();
    let (status, stdout, stderr) = tune_cli(&venv, &args, &dir.path().join("scoped"));
    assert_eq!(status, Some(0), "{stderr}");
    let (keys, statuses) = keys_and_statuses(&stdout);
    assert_eq!(keys, ["matmul 1024x1024x1024 f32*f32->f32"]);
    assert_eq!(statuses, ["compiled"; 2]);
    let args = [MODEL, "-t", "host", "--compile-only", "--dispatch", "999x"];
    let (status, _, stderr) = tune_cli(&venv, &args, &dir.path().join("unscoped"));
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("'999x' selects no dispatch") && stderr.contains("matmul 512x512x512"),
        "{stderr}"
    );
    // `--keys`: a library's keys as the model, each matcher an op of its shape (a
    // `linalg.generic`, which llvm-cpu configures as the named matmul), every candidate
    // compiled with its config; the model kept beside the results.
    let keyed = dir.path().join("keyed");
    let args = [&["--keys", "tests/fixtures/bench/cpu_lib"][..], &quick].concat();
    let (status, stdout, stderr) = tune_cli(&venv, &args, &keyed);
    assert_eq!(status, Some(0), "{stderr}");
    let (keys, statuses) = keys_and_statuses(&stdout);
    assert_eq!(
        keys,
        [
            "matmul 128x128x128 f32*f32->f32",
            "matmul 96x96x96 f32*f32->f32"
        ]
    );
    assert_eq!(statuses, ["compiled"; 4]);
    let model = std::fs::read_to_string(keyed.join("keys-model.mlir")).unwrap();
    assert_eq!(model.matches("linalg.generic").count(), 2, "{model}");
    // A library without a root matcher, a missing one, and a model with --keys: exit 2.
    let empty = dir.path().join("no-keys.mlir");
    std::fs::write(
        &empty,
        "module attributes {transform.with_named_sequence} {}\n",
    )
    .unwrap();
    for args in [
        vec!["--keys", empty.to_str().unwrap()],
        vec!["--keys", "tests/fixtures/no/such/lib"],
        vec![MODEL, "--keys", "tests/fixtures/bench/cpu_lib"],
    ] {
        let args = [&args[..], &["-t", "host", "--compile-only"]].concat();
        let (status, _, stderr) = tune_cli(&venv, &args, &dir.path().join("keyless"));
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
    }
}

#[test]
fn a_budget_spent_before_any_candidate_leaves_them_all_not_tried_and_writes_nothing() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Reading IREE's configs alone takes longer than a millisecond.
    let output = output_with_timeout(&mut tune_within(&venv, dir.path(), "0.001"));
    assert_eq!(output.status.code(), Some(1));
    let document = report(&output);
    assert_eq!(document["budget_exhausted"], true);
    for dispatch in document["dispatches"].as_array().unwrap() {
        assert!(dispatch["winner"].is_null());
        for candidate in dispatch["candidates"].as_array().unwrap() {
            assert_eq!(candidate["verdict"], "not tried", "{candidate:#}");
            assert!(candidate["compiled"].is_null());
        }
    }
    assert!(!dir.path().join("library").exists());
    assert_eq!(journal(dir.path()).len(), 0);
}

#[test]
fn the_config_the_linked_library_gives_is_candidate_one_on_a_user_defined_cpu_target() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let output = output_with_timeout(
        with_iree(&venv)
            .current_dir(repo_root())
            .args([
                "tune",
                MODEL,
                "-t",
                "tune_cpu",
                "--spec",
                "tests/fixtures/tune/linked_lib",
            ])
            .args([
                "--max-candidates",
                "4",
                "--budget",
                "0.001",
                "--format",
                "json",
                "-o",
            ])
            .arg(dir.path()),
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "nothing tried within the budget"
    );
    let document = report(&output);
    assert_eq!(document["target"], "tune_cpu");
    // Dispatches come heaviest first: found by key.
    let all = document["dispatches"].as_array().unwrap();
    let by_key = |key: &str| all.iter().find(|d| d["key"] == key).unwrap().clone();
    let dispatches = [
        by_key("matmul 512x512x512 f32*f32->f32"),
        by_key("matmul 1024x1024x1024 f32*f32->f32"),
    ];
    let knobs = |index: usize| -> Vec<String> {
        dispatches[index]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["knobs"].as_str().unwrap().to_string())
            .collect()
    };
    // The library configures the 512^3 matmul only.
    assert_eq!(
        knobs(0)[1],
        "linked: distribution=128x128 vector=8x32 reduction=16"
    );
    assert!(dispatches[0]["candidates"][1]["lowering_config"]
        .as_str()
        .unwrap()
        .contains("distribution = [128, 128, 0]"));
    assert_eq!(knobs(0).len(), 4);
    assert!(knobs(1).iter().all(|k| !k.starts_with("linked")));
}
