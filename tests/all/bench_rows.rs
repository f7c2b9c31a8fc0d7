//! `tunespec bench`'s rows say what they measured (issue 40): a module of several exported
//! functions timed function by function, a contraction matcher without batch dims benched on
//! the batch-free op, the ops and matcher of each row, the help's example targets, and an
//! unknown target called unknown. Real iree-compile and iree-benchmark-module of the reference
//! venv on `local-task`; fails under `CI=true` when IREE is missing. No verdict is asserted
//! here (the configs timed are IREE's own code): what is asserted is which rows there are and
//! what they name.

use std::process::Output;

use crate::iree_library::{venv, with_iree};
use crate::reference::output_with_timeout;

const CPU_LIB: &str = "tests/fixtures/bench/cpu_lib";
/// Few, short rounds: nothing here depends on a verdict.
const QUICK: &[&str] = &[
    "--repetitions",
    "1",
    "--min-time",
    "0.01",
    "--rounds",
    "8",
    "--max-rounds",
    "8",
];

fn bench(args: &[&str]) -> Option<Output> {
    let venv = venv()?;
    Some(output_with_timeout(
        with_iree(&venv).arg("bench").args(QUICK).args(args),
    ))
}

fn json(output: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&output.stdout);
    crate::cli_formats::assert_valid("bench.schema.json", [text.as_ref()]);
    serde_json::from_str(&text).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_module_of_two_functions_is_timed_function_by_function() {
    let Some(output) = bench(&[
        "-t",
        "bench_cpu",
        "--spec",
        CPU_LIB,
        "--format",
        "json",
        "tests/fixtures/bench/two_functions_model.mlir",
    ]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document = json(&output);
    let rows = document["rows"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["first", "second"], "{document:#}");
    // Each names the op the library configured in it (its own: one), where the model holds
    // it, and the matcher.
    for (row, (loops, line, matcher)) in rows.iter().zip([(96, 9, 14), (128, 16, 5)]) {
        assert_eq!(row["kind"], "function");
        assert_eq!(row["outputs"]["ok"], true, "{row:#}");
        assert!(row["timing"].is_object(), "{row:#}");
        let ops = row["ops"].as_array().unwrap();
        assert_eq!(ops.len(), 1, "{row:#}");
        assert_eq!(ops[0]["loops"], serde_json::json!([loops, loops, loops]));
        assert_eq!(
            ops[0]["location"],
            format!("tests/fixtures/bench/two_functions_model.mlir:{line}:10"),
            "{row:#}"
        );
        assert!(
            ops[0]["matcher_location"].as_str().is_some_and(
                |at| at.ends_with(&format!("cpu_lib/specs/two_matmuls.mlir:{matcher}:3"))
            ),
            "{row:#}"
        );
    }
}

#[test]
fn a_contraction_matcher_without_batch_dims_is_benched_on_the_batch_free_op() {
    let Some(output) = bench(&[
        "--no-default",
        "--spec",
        "tests/fixtures/bench/no_batch_dims.mlir",
        "--format",
        "json",
    ]) else {
        return;
    };
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document = json(&output);
    let rows = document["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{document:#}");
    let row = &rows[0];
    assert_eq!(row["matcher"], "match_mm_96_no_batch");
    assert_ne!(row["status"], "failed", "{row:#}");
    let op = &row["ops"][0];
    assert_eq!(op["loops"], serde_json::json!([96, 96, 96]), "{row:#}");
    assert_eq!(
        op["element_types"],
        serde_json::json!(["f32", "f32", "f32"])
    );
    assert_eq!(op["matcher"], "match_mm_96_no_batch");
    assert_eq!(
        op["matcher_location"], "tests/fixtures/bench/no_batch_dims.mlir:4:3",
        "{row:#}"
    );
    // A payload bench built is no file of the user's.
    assert!(op["location"].is_null(), "{row:#}");
}

#[test]
fn the_helps_example_targets_exist_and_an_unknown_target_is_called_unknown() {
    let Some(venv) = venv() else { return };
    let help = output_with_timeout(with_iree(&venv).args(["bench", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let targets = output_with_timeout(with_iree(&venv).args(["targets", "--format", "json"]));
    let targets = String::from_utf8_lossy(&targets.stdout).into_owned();
    let examples = help.split("Examples:").nth(1).expect("examples");
    let named: Vec<&str> = examples
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with("  tunespec"))
        .filter_map(|line| line.split(" -t ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    assert!(!named.is_empty(), "{examples}");
    for name in named {
        assert!(
            targets.contains(&format!("\"{name}\"")),
            "the help's example target {name} is not among the targets: {targets}"
        );
    }
    let unknown = output_with_timeout(with_iree(&venv).args([
        "bench",
        "-t",
        "no_such_target",
        "tests/fixtures/bench/two_matmuls_model.mlir",
    ]));
    assert_eq!(unknown.status.code(), Some(2));
    let message = stderr(&unknown);
    assert!(message.contains("'no_such_target' is unknown"), "{message}");
    assert!(!message.contains("family"), "{message}");
}
