//! `-v`/`-vv`, `TUNESPEC_LOG` and `-q` (issue 17): what tunespec does and how long each phase
//! took, on stderr, without changing stdout; nothing new without them.

use std::path::Path;

use crate::support::tunespec_command;

const PAYLOAD: &str = "examples/llama2_7b_f16_decode.mlir";
const SEVERAL: &str = "tests/fixtures/specs/bad/several_problems.mlir";

/// (exit code, stdout, stderr) of a hermetic tunespec run with `env` set.
fn run(args: &[&str], env: &[(&str, &Path)]) -> (i32, Vec<u8>, String) {
    let mut command = tunespec_command();
    command.env("TUNESPEC_CACHE", "off").args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("runs");
    (
        output.status.code().expect("no signal"),
        output.stdout,
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
    )
}

/// The phase lines of a log: (level, phase, milliseconds).
fn phases(stderr: &str) -> Vec<(String, String, f64)> {
    stderr
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("tunespec: [")?;
            let (level, rest) = rest.split_once("] ")?;
            let (phase, rest) = rest.split_once(": ")?;
            let millis = rest.split_once(" ms")?.0.parse().ok()?;
            Some((level.to_string(), phase.to_string(), millis))
        })
        .collect()
}

fn names(phases: &[(String, String, f64)]) -> Vec<&str> {
    phases.iter().map(|(_, name, _)| name.as_str()).collect()
}

#[test]
fn verbose_prints_phases_with_durations_and_leaves_stdout_alone() {
    let explain = ["explain", "--target", "gfx942", PAYLOAD];
    let (code, quiet_stdout, quiet_stderr) = run(&explain, &[]);
    assert_eq!(code, 0);
    assert!(
        quiet_stderr.is_empty(),
        "nothing new without -v: {quiet_stderr}"
    );
    let mut verbose_args = vec!["-v"];
    verbose_args.extend(explain);
    let (code, stdout, stderr) = run(&verbose_args, &[]);
    assert_eq!(code, 0);
    assert_eq!(stdout, quiet_stdout, "stdout is byte-identical with -v");
    let logged = phases(&stderr);
    for phase in [
        "read",
        "link.prepare",
        "link.plan",
        "link.assemble",
        "link",
        "explain.match",
    ] {
        assert!(names(&logged).contains(&phase), "no {phase} in:\n{stderr}");
    }
    assert!(
        logged
            .iter()
            .all(|(level, _, millis)| level == "info" && *millis >= 0.0),
        "{stderr}"
    );
    // A phase closes after the phases inside it, and lasts at least as long as each.
    let duration = |name: &str| logged.iter().find(|(_, n, _)| n == name).unwrap().2;
    assert!(duration("link") >= duration("link.prepare"));
    assert!(duration("link") >= duration("link.assemble"));
    // Every line of -v is a phase line.
    assert_eq!(logged.len(), stderr.lines().count(), "{stderr}");
}

#[test]
fn very_verbose_and_tunespec_log_add_detail() {
    let verify = ["verify", "--no-iree-check", "--format", "short", SEVERAL];
    let (_, plain, _) = run(&verify, &[]);
    let mut args = vec!["-vv"];
    args.extend(verify);
    let (code, stdout, stderr) = run(&args, &[]);
    assert_eq!(code, 1);
    assert_eq!(stdout, plain);
    let logged = phases(&stderr);
    assert!(names(&logged).contains(&"verify"), "{stderr}");
    assert!(
        logged
            .iter()
            .any(|(level, name, _)| level == "debug" && name == "verify.file"),
        "-vv shows per-file phases: {stderr}"
    );
    // TUNESPEC_LOG is the filter, without -v.
    let (_, stdout, from_env) = run(&verify, &[("TUNESPEC_LOG", Path::new("debug"))]);
    assert_eq!(stdout, plain);
    assert_eq!(names(&phases(&from_env)), names(&logged));
    // Only the verify phases, at info.
    let (_, _, filtered) = run(
        &verify,
        &[("TUNESPEC_LOG", Path::new("tunespec::cli::verify=info"))],
    );
    assert_eq!(names(&phases(&filtered)), ["verify"], "{filtered}");
}

#[test]
fn cache_phases_show_a_miss_then_a_hit() {
    let dir = tempfile::tempdir().unwrap();
    let link = [
        "-v", "link", "--target", "gfx942", "-o", "-", "--emit", "mlirbc",
    ];
    let env = [("TUNESPEC_CACHE_DIR", dir.path())];
    let mut command = tunespec_command();
    command.env("TUNESPEC_CACHE", "on").envs(env).args(link);
    let cold = command.output().unwrap();
    let cold_log = String::from_utf8(cold.stderr).unwrap();
    let cold_phases = phases(&cold_log);
    for phase in ["cache.lookup", "link.prepare", "cache.store"] {
        assert!(names(&cold_phases).contains(&phase), "{cold_log}");
    }
    let mut command = tunespec_command();
    command.env("TUNESPEC_CACHE", "on").envs(env).args(link);
    let warm = command.output().unwrap();
    assert_eq!(warm.stdout, cold.stdout);
    let warm_log = String::from_utf8(warm.stderr).unwrap();
    let warm_phases = phases(&warm_log);
    assert!(names(&warm_phases).contains(&"cache.lookup"), "{warm_log}");
    assert!(
        !names(&warm_phases).contains(&"link.prepare"),
        "a hit does not link: {warm_log}"
    );
}

#[test]
fn a_bad_tunespec_log_is_a_usage_error() {
    let bad = [("TUNESPEC_LOG", Path::new("tunespec=loud"))];
    let (code, stdout, stderr) = run(&["targets"], &bad);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with(
            "tunespec: error: TUNESPEC_LOG=\"tunespec=loud\" is not a valid log filter"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["targets", "--format", "json"], &bad);
    assert_eq!(code, 2);
    let diagnostic: serde_json::Value = serde_json::from_str(stderr.trim()).expect("JSON");
    assert_eq!(diagnostic["code"], "tunespec::usage");
    // -v and -q contradict each other.
    let (code, _, _) = run(&["-v", "-q", "targets"], &[]);
    assert_eq!(code, 2);
}

#[test]
fn quiet_hides_summaries_but_not_findings() {
    let (_, loud, _) = run(
        &[
            "coverage", "--target", "gfx942", "--format", "short", PAYLOAD,
        ],
        &[],
    );
    let (_, quiet, _) = run(
        &[
            "-q", "coverage", "--target", "gfx942", "--format", "short", PAYLOAD,
        ],
        &[],
    );
    let loud = String::from_utf8(loud).unwrap();
    let quiet = String::from_utf8(quiet).unwrap();
    assert_eq!(quiet.lines().count() + 1, loud.lines().count());
    assert!(loud.starts_with(&quiet));
    assert!(loud
        .lines()
        .last()
        .unwrap()
        .contains("matcher(s) fired across"));
    let (_, loud, _) = run(&["explain", "--target", "gfx942", PAYLOAD], &[]);
    let (_, quiet, _) = run(&["explain", "--target", "gfx942", PAYLOAD, "-q"], &[]);
    let loud = String::from_utf8(loud).unwrap();
    let quiet = String::from_utf8(quiet).unwrap();
    assert!(loud.starts_with(&quiet) && loud.len() > quiet.len());
    assert!(!quiet.contains("candidate op(s)"), "{quiet}");
}

#[test]
fn in_json_mode_the_log_is_json_too() {
    let explain = ["explain", "--target", "gfx942", "--format", "json", PAYLOAD];
    let (_, plain, _) = run(&explain, &[]);
    let mut args = vec!["-vv"];
    args.extend(explain);
    let (code, stdout, stderr) = run(&args, &[]);
    assert_eq!(code, 0);
    assert_eq!(stdout, plain);
    let records = crate::cli_formats::assert_valid("log.schema.json", stderr.lines());
    assert!(records >= 6, "{stderr}");
    let phases: Vec<String> = stderr
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|record| record["kind"] == "phase")
        .map(|record| record["name"].as_str().unwrap().to_string())
        .collect();
    for phase in [
        "read",
        "link.prepare",
        "link.plan",
        "link.assemble",
        "explain.match",
    ] {
        assert!(phases.iter().any(|name| name == phase), "{stderr}");
    }
}
