//! `tunespec bench` on IREE's CPU backend (`local-task`): the real iree-compile and
//! iree-benchmark-module of the reference venv (tools/iree-venv.sh), small shapes, and configs
//! whose effect is large enough to be robust on a busy 2-core machine (tiles of 1 are tens of
//! times slower than IREE's own config). Fails under `CI=true` when IREE is missing.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli_formats::assert_valid;
use crate::iree_library::{venv, with_iree};
use crate::reference::{output_with_timeout, repo_root};

const CPU_LIB: &str = "tests/fixtures/bench/cpu_lib";
/// Short runs: the effects timed here are 20x and more. 15 samples a side: with fewer, a few
/// samples disturbed by a loaded machine (tests run in parallel) keep the rank test above 0.01.
/// Short runs, with the default first look (10 rounds), doubled up to 80 rounds while unsettled:
/// the suite runs tests side by side on a loaded machine, where a grossly slower config can
/// still lose a round now and then.
const QUICK: &[&str] = &[
    "--repetitions",
    "2",
    "--min-time",
    "0.02",
    "--max-rounds",
    "80",
];

fn bench(venv: &Path, args: &[&str]) -> Output {
    output_with_timeout(with_iree(venv).arg("bench").args(QUICK).args(args))
}

fn json(output: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&output.stdout);
    assert_valid("bench.schema.json", [text.as_ref()]);
    serde_json::from_str(&text).unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn row<'a>(document: &'a serde_json::Value, field: &str, value: &str) -> &'a serde_json::Value {
    document["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| {
            row[field]
                .as_str()
                .is_some_and(|found| found.contains(value))
        })
        .unwrap_or_else(|| panic!("no row with {field} ~ {value}: {document:#}"))
}

#[test]
fn a_tiny_tiled_matcher_is_measured_slower_and_left_out_of_the_written_library() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("measured");
    let output = bench(
        &venv,
        &[
            "-t",
            "bench_cpu",
            "--spec",
            CPU_LIB,
            "--format",
            "json",
            "--write",
            library.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document = json(&output);
    let tiny = row(&document, "matcher", "match_mm_128_tiny_tiles");
    assert_eq!(tiny["status"], "slower", "{tiny:#}");
    assert_eq!(tiny["outputs"]["ok"], true);
    assert!(tiny["timing"]["ratio"].as_f64().unwrap() > 3.0, "{tiny:#}");
    // Settled at a look (10, 20 or 40 rounds), its interval above 1, every round's samples kept.
    let rounds = tiny["timing"]["rounds"].as_u64().unwrap();
    assert!([10, 20, 40, 80].contains(&rounds), "{tiny:#}");
    assert_eq!(tiny["timing"]["settled"], true);
    assert!(tiny["timing"]["p_value"].as_f64().unwrap() < 0.01);
    assert!(tiny["timing"]["ci_low"].as_f64().unwrap() > 1.0, "{tiny:#}");
    assert_eq!(
        tiny["samples_us"][0].as_array().unwrap().len() as u64,
        2 * rounds
    );
    // The op of the payload built for it, and where the matcher is written.
    assert_eq!(tiny["ops"][0]["loops"], serde_json::json!([128, 128, 128]));
    assert!(
        tiny["ops"][0]["matcher_location"]
            .as_str()
            .is_some_and(|at| at.ends_with("cpu_lib/specs/two_matmuls.mlir:5:3")),
        "{tiny:#}"
    );
    let note = row(&document, "matcher", "match_mm_96_note");
    assert_eq!(note["outputs"]["ok"], true, "{note:#}");
    assert!(note["timing"].is_object(), "{note:#}");
    // The library is written, without the loser, which is listed.
    let written: Vec<&str> = document["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap())
        .collect();
    assert!(
        written
            .iter()
            .any(|line| line.contains("@match_mm_128_tiny_tiles: slower (left out)")),
        "{written:?}"
    );
    // The other matcher's config may or may not win on this machine: a winner is written, and
    // without one nothing is.
    if note["status"] != "faster" {
        assert!(!library.exists(), "{written:?}");
        assert!(
            written.iter().any(|line| line.contains("no matcher won")),
            "{written:?}"
        );
        return;
    }
    let manifest = std::fs::read_to_string(library.join("registry.toml")).unwrap();
    assert!(!manifest.contains("tiny"), "{manifest}");
    let specs: Vec<PathBuf> = walk(&library);
    assert!(
        specs
            .iter()
            .all(|spec| !std::fs::read_to_string(spec).unwrap().contains("tiny")),
        "{specs:?}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else if path.extension().is_some_and(|ext| ext == "mlir") {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_model_is_timed_whole_and_per_changed_dispatch_and_an_untouched_one_is_unchanged() {
    let Some(venv) = venv() else { return };
    let output = bench(
        &venv,
        &[
            "-t",
            "bench_cpu",
            "--spec",
            CPU_LIB,
            "--dispatches",
            "--format",
            "json",
            "tests/fixtures/bench/two_matmuls_model.mlir",
            "tests/fixtures/models/linalg_matmul_256_f32.mlir",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let document = json(&output);
    let rows = document["rows"].as_array().unwrap();
    let model: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|row| {
            row["case"]
                .as_str()
                .unwrap()
                .ends_with("two_matmuls_model.mlir")
        })
        .collect();
    // The whole function, and one dispatch alone: the 64x64 matmul keeps IREE's config.
    assert_eq!(model.len(), 2, "{document:#}");
    assert_eq!(model[0]["kind"], "function");
    assert_eq!(model[0]["status"], "slower");
    assert_eq!(model[0]["outputs"]["ok"], true);
    assert_eq!(model[1]["kind"], "dispatch");
    assert_eq!(model[1]["status"], "slower", "{:#}", model[1]);
    // Both name what they measured: the 128x128x128 matmul, where the model holds it, and the
    // matcher that configured it, where its spec holds it.
    for row in &model {
        let ops = row["ops"].as_array().unwrap();
        assert_eq!(ops.len(), 1, "{row:#}");
        assert_eq!(ops[0]["op"], "linalg.matmul", "{row:#}");
        assert_eq!(ops[0]["loops"], serde_json::json!([128, 128, 128]));
        assert_eq!(
            ops[0]["element_types"],
            serde_json::json!(["f32", "f32", "f32"])
        );
        assert_eq!(
            ops[0]["location"],
            "tests/fixtures/bench/two_matmuls_model.mlir:8:11"
        );
        assert!(
            ops[0]["matcher"]
                .as_str()
                .unwrap()
                .ends_with("match_mm_128_tiny_tiles"),
            "{row:#}"
        );
        assert_eq!(
            ops[0]["matcher_location"],
            "tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir:5:3"
        );
    }
    let untouched = row(&document, "case", "linalg_matmul_256_f32.mlir");
    assert_eq!(untouched["status"], "unchanged", "{untouched:#}");
    assert!(untouched["timing"].is_null());
}

#[test]
fn a_config_that_changes_the_result_is_a_wrong_output_never_a_winner() {
    let Some(venv) = venv() else { return };
    // As written, the spec is refused before anything is compiled: its action changes the
    // initializer (`tunespec::verify::changes-semantics`).
    let refused = bench(
        &venv,
        &[
            "--no-default",
            "--spec",
            "tests/fixtures/bench/wrong_init.mlir",
            "--format",
            "json",
            "tests/fixtures/models/linalg_matmul_256_f32.mlir",
        ],
    );
    assert_ne!(refused.status.code(), Some(0), "{}", stderr(&refused));
    let said = format!("{}{}", stdout(&refused), stderr(&refused));
    assert!(
        said.contains("tunespec::verify::changes-semantics") && said.contains("`value`"),
        "{said}"
    );
    // Opted in (`tunespec.rewrites` on the action), bench runs it, and its outputs must be
    // caught: the check that no wrong config ever wins does not rest on the verifier alone.
    let dir = tempfile::tempdir().unwrap();
    let opted = dir.path().join("wrong_init.mlir");
    let text =
        std::fs::read_to_string(repo_root().join("tests/fixtures/bench/wrong_init.mlir")).unwrap();
    let header = "%one: !transform.any_param {transform.readonly}) {";
    assert!(text.contains(header), "fixture changed");
    std::fs::write(
        &opted,
        text.replace(
            header,
            "%one: !transform.any_param {transform.readonly}) attributes {tunespec.rewrites = \"bench must catch wrong outputs\"} {",
        ),
    )
    .unwrap();
    let output = bench(
        &venv,
        &[
            "--no-default",
            "--spec",
            opted.to_str().unwrap(),
            "--format",
            "json",
            "tests/fixtures/models/linalg_matmul_256_f32.mlir",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let document = json(&output);
    let wrong = row(&document, "case", "linalg_matmul_256_f32.mlir");
    assert_eq!(wrong["status"], "wrong-output", "{wrong:#}");
    assert_eq!(wrong["outputs"]["ok"], false);
    // Every element is off by exactly the 1.0 the spec put in the initializer.
    assert_eq!(
        wrong["outputs"]["max_abs_diff"].as_f64().unwrap().round(),
        1.0
    );
    let mismatch = wrong["outputs"]["first_mismatch"].as_array().unwrap();
    let (iree, tuned) = (mismatch[2].as_f64().unwrap(), mismatch[3].as_f64().unwrap());
    assert!((tuned - iree - 1.0).abs() < 1e-3, "{mismatch:?}");
    assert!(wrong["timing"].is_null(), "a wrong config is not timed");
}

#[test]
fn a_payload_that_fails_is_a_failed_row_and_the_rest_go_on() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.mlir");
    std::fs::write(&broken, "func.func @main( {\n").unwrap();
    let output = bench(
        &venv,
        &[
            "-t",
            "bench_cpu",
            "--spec",
            CPU_LIB,
            "--format",
            "json",
            broken.to_str().unwrap(),
            "tests/fixtures/bench/two_matmuls_model.mlir",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let document = json(&output);
    let failed = row(&document, "case", "broken.mlir");
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["message"].as_str().unwrap().contains("failed"),
        "{failed:#}"
    );
    assert_eq!(
        row(&document, "case", "two_matmuls_model.mlir")["status"],
        "slower"
    );
}

#[test]
fn an_unknown_device_lists_the_runtime_devices() {
    let Some(venv) = venv() else { return };
    let output = bench(
        &venv,
        &["-t", "bench_cpu", "--spec", CPU_LIB, "--device", "nosuch"],
    );
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("device 'nosuch' is not one the runtime has"),
        "{text}"
    );
    assert!(text.contains("local-task"), "{text}");
}

#[test]
fn a_compiler_without_its_runtime_is_exit_2_with_the_install_hint() {
    let Some(venv) = venv() else { return };
    let library = walk_for(&venv, "libIREECompiler.so").expect("the venv has the library");
    // An install that has the compiler library and nothing of the runtime beside it.
    let dir = tempfile::tempdir().unwrap();
    let libs = dir.path().join("iree/compiler/_mlir_libs");
    std::fs::create_dir_all(&libs).unwrap();
    std::os::unix::fs::symlink(&library, libs.join("libIREECompiler.so")).unwrap();
    let output = output_with_timeout(
        with_iree(&venv)
            .arg("--iree")
            .arg(libs.join("libIREECompiler.so"))
            .args(["bench", "-t", "bench_cpu", "--spec", CPU_LIB]),
    );
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("IREE's runtime (iree-benchmark-module) was not found"),
        "{text}"
    );
    assert!(
        text.contains("pip install iree-base-runtime==3.13.0"),
        "{text}"
    );
}

fn walk_for(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|found| found == name) {
            return Some(path);
        }
        if path.is_dir() && !path.is_symlink() {
            if let Some(found) = walk_for(&path, name) {
                return Some(found);
            }
        }
    }
    None
}

/// Rounds that can never reach `--alpha` are said at the start, and every row stays unsettled
/// with an unbounded interval: "no difference" is then not a finding (issue 40).
#[test]
fn rounds_that_cannot_reach_alpha_are_a_warning_not_a_silent_no_difference() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("measured");
    // Not `bench()`: its --max-rounds would be given twice.
    let output = output_with_timeout(
        with_iree(&venv)
            .args(["bench", "--repetitions", "2", "--min-time", "0.02"])
            .args([
                "--spec",
                CPU_LIB,
                "-t",
                "bench_cpu",
                "--rounds",
                "3",
                "--max-rounds",
                "3",
                "--format",
                "json",
                "--write",
                library.to_str().unwrap(),
            ]),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("3 round(s) can never call a difference at --alpha 0.01: with 1 look(s), at least 8 rounds are needed"),
        "{}",
        stderr(&output)
    );
    let document = json(&output);
    let tiny = row(&document, "matcher", "match_mm_128_tiny_tiles");
    assert_eq!(tiny["status"], "no-difference", "{tiny:#}");
    assert_eq!(tiny["timing"]["settled"], false, "{tiny:#}");
    assert!(tiny["timing"]["ci_low"].is_null() && tiny["timing"]["ci_high"].is_null());
    assert_eq!(tiny["timing"]["rounds"], 3);
    // Nothing won, so nothing is written: no empty library is left behind.
    assert!(!library.exists());
    assert!(
        document["written"]
            .to_string()
            .contains("no matcher won: nothing written"),
        "{document:#}"
    );
}

#[test]
fn bad_options_are_usage_errors() {
    let Some(venv) = venv() else { return };
    for args in [
        &["--shard", "0/2"][..],
        &["--shard", "3/2"],
        &["--min-time", "0"],
        &["--budget", "0"],
        &[
            "--write",
            "x",
            "tests/fixtures/models/linalg_matmul_256_f32.mlir",
        ],
    ] {
        // Without `bench()`'s options: an option given twice would be refused for that alone.
        let output = output_with_timeout(
            with_iree(&venv)
                .args(["bench", "--spec", CPU_LIB, "-t", "bench_cpu"])
                .args(args),
        );
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            !stderr(&output).contains("cannot be used multiple times"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // A destination `--write` cannot merge into is refused before anything is compiled or
    // timed, and left as it was.
    let foreign = tempfile::tempdir().unwrap();
    std::fs::write(foreign.path().join("notes.txt"), "mine").unwrap();
    let output = bench(
        &venv,
        &[
            "--spec",
            CPU_LIB,
            "-t",
            "bench_cpu",
            "--write",
            foreign.path().to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is not empty and was not written by"),
        "{}",
        stderr(&output)
    );
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let left: Vec<_> = std::fs::read_dir(foreign.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
    // --time-unchanged never writes: an A/A difference is noise, not a winner.
    let output = bench(
        &venv,
        &[
            "--spec",
            CPU_LIB,
            "-t",
            "bench_cpu",
            "--time-unchanged",
            "--write",
            "x",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn check_bench_warns_of_a_measured_entry_that_no_longer_wins_and_deny_slower_fails() {
    let Some(venv) = venv() else { return };
    let check = |extra: &[&str]| {
        output_with_timeout(
            with_iree(&venv)
                .args(["check", "tests/fixtures/bench/stale_lib", "--bench"])
                .args(QUICK)
                .args(["--format", "json"])
                .args(extra),
        )
    };
    let output = check(&[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert_valid("check.schema.json", [text.as_ref()]);
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let result = &document["results"][0];
    assert_eq!(result["performance"]["status"], "slower", "{result:#}");
    assert_eq!(result["performance"]["recorded_speedup"], 0.8);
    assert!(result["performance"]["ratio"].as_f64().unwrap() > 3.0);
    assert!(
        result["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("no longer faster than IREE's own config")),
        "{result:#}"
    );
    assert_eq!(check(&["--deny-slower"]).status.code(), Some(1));
}

/// Ctrl-C (SIGINT) during a bench: exit 130, and no work directory left in the temporary
/// directory; a work directory whose process was killed outright is swept by the next run.
#[test]
fn ctrl_c_leaves_no_work_directory_behind() {
    let Some(venv) = venv() else { return };
    let temp = tempfile::tempdir().unwrap();
    let work_dirs = || -> Vec<String> {
        std::fs::read_dir(temp.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("tunespec-bench-"))
            .collect()
    };
    // A work directory of a process that no longer runs (pid beyond pid_max).
    std::fs::create_dir(temp.path().join("tunespec-bench-999999999-orphan")).unwrap();
    let mut child = with_iree(&venv)
        .env("TMPDIR", temp.path())
        .args(["bench", "-t", "bench_cpu", "--spec", CPU_LIB])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mine = format!("tunespec-bench-{pid}-");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !work_dirs().iter().any(|name| name.starts_with(&mine)) {
        assert!(
            std::time::Instant::now() < deadline,
            "no work directory appeared"
        );
        assert!(child.try_wait().unwrap().is_none(), "bench ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        !work_dirs().iter().any(|name| name.contains("orphan")),
        "the orphan was swept: {:?}",
        work_dirs()
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert!(work_dirs().is_empty(), "left behind: {:?}", work_dirs());
}

#[test]
fn an_interrupted_bench_leaves_no_library() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("measured");
    let mut child = with_iree(&venv)
        .args(["bench", "-t", "bench_cpu", "--spec", CPU_LIB, "--write"])
        .arg(&library)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed while it compiles or times (a whole run takes seconds more than this).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "bench ended before it was interrupted"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "nothing written, no staging left: {left:?}"
    );
}

/// `--device` is parsed once, by clap, into the device type (issue 43): a device that is not
/// a driver's name or a URI of one is a usage error that says why, before IREE is looked for,
/// for each command that takes it.
#[test]
fn a_malformed_device_is_a_usage_error_that_says_why() {
    for (args, says) in [
        (
            &["bench", "--device", "CUDA"][..],
            "a driver's name is lowercase",
        ),
        (&["bench", "--device", "://1"], "no driver named"),
        (&["check", "--bench", "--device", "cu da", "x"], "not ' '"),
        (&["tune", "-t", "host", "--device", ""], "no driver named"),
    ] {
        let output = crate::support::tunespec_command()
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // In JSON, the usage error is a diagnostic like any other.
    let output = crate::support::tunespec_command()
        .args(["bench", "--format", "json", "--device", "CUDA"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("\"code\":\"tunespec::usage\""),
        "{}",
        stderr(&output)
    );
}
