//! Measured first; derived only when asked; provenance everywhere (issue 25). The hermetic
//! environment of the other tests turns derived defaults on (`TUNESPEC_DERIVED=1`, see
//! `support.rs`); these tests remove it and check tunespec's real default: a target links its
//! measured entries and the user's specs, and its derived defaults only with `--derived`, a
//! config's `derived = true` or `TUNESPEC_DERIVED=1`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::cli_formats::assert_valid;
use crate::reference::repo_root;
use crate::support::{private_home, tunespec_command};

const RUN_A: &str = "tests/fixtures/tuner/tuning_2026_11_20_10_00";
const MMT_PAYLOAD: &str = "tests/fixtures/tuner/mmt_payload.mlir";
const LLAMA_PAYLOAD: &str = "tests/fixtures/payloads/llama2_f16_decoder.mlir";

/// tunespec with the measured-first default: no `TUNESPEC_DERIVED` from the hermetic env.
fn measured_first() -> Command {
    let mut command = tunespec_command();
    command.env_remove("TUNESPEC_DERIVED");
    command
}

fn run_ok(command: &mut Command) -> Output {
    let output = command.output().expect("tunespec runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

/// How many matchers of a linked library say they were derived by rule.
fn derived_matchers(library: &str) -> usize {
    library.matches("tunespec.provenance = \"derived").count()
}

/// The measurement `import-tuner` takes from a run, computed here from the run's CSV (the
/// tuner's format): the fastest candidate that beat its baseline, its speedup (tuned over
/// baseline time), and the device; the IREE version from the run's summary.log.
struct Expected {
    device: String,
    iree: String,
    speedup: f64,
}

fn expected_measurement(run: &str) -> Expected {
    let dir = repo_root().join(run);
    let csv = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with("_candidate_analysis.csv"))
        .expect("the run has an analysis CSV");
    let mut reader = csv::Reader::from_path(csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut best: Option<(f64, f64, String)> = None;
    for record in reader.records() {
        let record = record.unwrap();
        let candidate: u64 = record[column("candidate_id")].parse().unwrap();
        let baseline: f64 = record[column("baseline_benchmark_time_us")]
            .parse()
            .unwrap();
        let time: f64 = record[column("benchmark_time_us")].parse().unwrap();
        if candidate == 0 || time >= baseline {
            continue;
        }
        if best.as_ref().is_none_or(|(known, _, _)| time < *known) {
            best = Some((
                time,
                time / baseline,
                record[column("benchmark_device_id")].to_string(),
            ));
        }
    }
    let (_, speedup, device) = best.expect("a candidate beat the baseline");
    let summary = std::fs::read_to_string(dir.join("summary.log")).unwrap();
    let iree = summary
        .lines()
        .find_map(|line| line.strip_prefix("IREE compiler version: "))
        .expect("summary.log names the IREE version")
        .trim()
        .to_string();
    Expected {
        device,
        iree,
        speedup,
    }
}

/// A measured spec library imported from `run` (the tuner's fixtures) for gfx942.
fn measured_library(run: &str) -> PathBuf {
    let library = private_home().join("measured");
    run_ok(
        measured_first()
            .arg("import-tuner")
            .arg(run)
            .args(["--target", "gfx942", "-o"])
            .arg(&library),
    );
    library
}

#[test]
fn measured_first_links_no_derived_defaults_and_explain_says_where_they_would_apply() {
    let home = private_home();
    assert_link_and_resolve_leave_derived_defaults_out(&home);
    let (withheld_lines, withheld) = assert_explain_names_withheld_defaults();
    assert_github_apply_and_derived_agree_with_explain(&home, withheld_lines, withheld);
}

/// `link` links no derived default and `resolve` says why each was left out. Part of
/// `measured_first_links_no_derived_defaults_and_explain_says_where_they_would_apply`, split
/// out to keep it short.
fn assert_link_and_resolve_leave_derived_defaults_out(home: &Path) {
    let out = home.join("linked.mlir");
    run_ok(
        measured_first()
            .args(["link", "--target", "gfx942", "-o"])
            .arg(&out),
    );
    let linked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(derived_matchers(&linked), 0, "{linked}");
    assert!(!linked.contains("foreach_match"), "{linked}");

    // resolve says why each default was left out.
    let resolved = json(&run_ok(
        measured_first().args(["resolve", "gfx942", "--format", "json"]),
    ));
    assert_eq!(resolved["derived"], false);
    assert_eq!(resolved["specs"].as_array().unwrap().len(), 0);
    let skipped = resolved["skipped"].as_array().unwrap();
    assert!(!skipped.is_empty());
    for spec in skipped {
        assert!(
            spec["reason"]
                .as_str()
                .unwrap()
                .contains("derived by rule, not measured"),
            "{spec}"
        );
    }
}

/// explain: nothing configures the decoder's ops, and each op a derived default would
/// configure is named, in text and JSON. Returns the count of withheld lines in the text
/// output and of withheld entries in the JSON, which the other outputs must match. Part of
/// `measured_first_links_no_derived_defaults_and_explain_says_where_they_would_apply`, split
/// out to keep it short.
fn assert_explain_names_withheld_defaults() -> (usize, usize) {
    let text = stdout(&run_ok(measured_first().args([
        "explain",
        "--target",
        "gfx942",
        LLAMA_PAYLOAD,
    ])));
    assert!(text.contains("0 of "), "{text}");
    let withheld_lines = text
        .lines()
        .filter(|line| line.starts_with("derived (withheld): "))
        .count();
    assert!(withheld_lines > 0, "{text}");
    assert!(text.contains("with --derived"), "{text}");
    assert!(text.contains("derived by rule R"), "{text}");
    let output = run_ok(measured_first().args([
        "explain",
        "--target",
        "gfx942",
        "--format",
        "json",
        LLAMA_PAYLOAD,
    ]));
    let document = stdout(&output);
    assert_valid("explain.schema.json", [document.as_str()]);
    let explained = json(&output);
    assert_eq!(explained["matched"], 0);
    let withheld = explained["provenance"]["derived_withheld"]
        .as_array()
        .unwrap();
    assert_eq!(withheld.len(), withheld_lines);
    assert!(withheld.iter().all(|entry| entry["matcher_location"]
        .as_str()
        .unwrap()
        .starts_with("specs/gfx942/")
        || entry["matcher_location"]
            .as_str()
            .unwrap()
            .starts_with("specs/gfx9/")));
    (withheld_lines, withheld.len())
}

/// github, `apply --explain` and `explain --derived` agree with explain on which ops a derived
/// default would configure (`withheld_lines` text lines, `withheld` JSON entries). Part of
/// `measured_first_links_no_derived_defaults_and_explain_says_where_they_would_apply`, split
/// out to keep it short.
fn assert_github_apply_and_derived_agree_with_explain(
    home: &Path,
    withheld_lines: usize,
    withheld: usize,
) {
    // github (and sarif): each unmatched op's note names the derived default it would get.
    let github = measured_first()
        .args([
            "explain",
            "--target",
            "gfx942",
            "--format",
            "github",
            LLAMA_PAYLOAD,
        ])
        .output()
        .unwrap();
    assert_eq!(github.status.code(), Some(0));
    let notes = String::from_utf8_lossy(&github.stderr);
    assert_eq!(
        notes
            .lines()
            .filter(|line| line.contains("would configure it"))
            .count(),
        withheld,
        "{notes}"
    );

    // apply --explain says the same (on stderr; the payload, configured by nothing, to -o).
    let applied = measured_first()
        .args([
            "apply",
            "--target",
            "gfx942",
            "--explain",
            LLAMA_PAYLOAD,
            "-o",
        ])
        .arg(home.join("applied.mlir"))
        .output()
        .unwrap();
    assert_eq!(applied.status.code(), Some(0));
    let report = String::from_utf8_lossy(&applied.stderr);
    assert_eq!(
        report
            .lines()
            .filter(|line| line.starts_with("derived (withheld): "))
            .count(),
        withheld_lines,
        "{report}"
    );

    // The same ops, configured, with --derived: exactly those the note named.
    let with_derived = json(&run_ok(measured_first().args([
        "explain",
        "--target",
        "gfx942",
        "--derived",
        "--format",
        "json",
        LLAMA_PAYLOAD,
    ])));
    assert_eq!(with_derived["matched"].as_u64().unwrap(), withheld as u64);
    assert_eq!(
        with_derived["provenance"]["derived"].as_u64().unwrap(),
        withheld as u64
    );
    assert!(with_derived["provenance"]["derived_withheld"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn derived_defaults_link_on_request_by_flag_config_and_environment() {
    let linked_derived = |command: &mut Command, flags: &[&str]| {
        let out = private_home().join("linked.mlir");
        run_ok(
            command
                .args(["link", "--target", "gfx942"])
                .args(flags)
                .arg("-o")
                .arg(&out),
        );
        derived_matchers(&std::fs::read_to_string(out).unwrap())
    };
    let defaults: usize = json(&run_ok(measured_first().args([
        "resolve",
        "gfx942",
        "--derived",
        "--format",
        "json",
    ])))["specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|spec| spec["provenance"]["derived"].as_u64().unwrap() as usize)
        .sum();
    assert!(defaults > 0);
    // The flag.
    assert_eq!(
        linked_derived(&mut measured_first(), &["--derived"]),
        defaults
    );
    // The environment, and --no-derived over it.
    assert_eq!(
        linked_derived(measured_first().env("TUNESPEC_DERIVED", "1"), &[]),
        defaults
    );
    assert_eq!(
        linked_derived(
            measured_first().env("TUNESPEC_DERIVED", "1"),
            &["--no-derived"]
        ),
        0
    );
    // A project config's `derived = true`, and `false` there over a user config's `true`.
    let project = private_home();
    std::fs::write(project.join("tunespec.toml"), "derived = true\n").unwrap();
    let in_project = |command: &mut Command, project: &Path| {
        command
            .env_remove("TUNESPEC_NO_CONFIG")
            .current_dir(project);
    };
    let mut command = measured_first();
    in_project(&mut command, &project);
    assert_eq!(linked_derived(&mut command, &[]), defaults);
    let resolved = {
        let mut command = measured_first();
        in_project(&mut command, &project);
        json(&run_ok(
            command.args(["resolve", "gfx942", "--format", "json"]),
        ))
    };
    assert_eq!(resolved["derived"], true);
    let off = private_home();
    std::fs::write(off.join("tunespec.toml"), "derived = false\n").unwrap();
    let config_home = private_home();
    std::fs::create_dir_all(config_home.join("tunespec")).unwrap();
    std::fs::write(config_home.join("tunespec/config.toml"), "derived = true\n").unwrap();
    let mut command = measured_first();
    in_project(&mut command, &off);
    command.env("XDG_CONFIG_HOME", &config_home);
    assert_eq!(linked_derived(&mut command, &[]), 0);
    // A config value of the wrong type is a located config problem (exit 1).
    let bad = private_home();
    std::fs::write(bad.join("tunespec.toml"), "derived = \"yes\"\n").unwrap();
    let mut command = measured_first();
    in_project(&mut command, &bad);
    let output = command
        .args(["resolve", "gfx942"])
        .output()
        .expect("tunespec runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec.toml"));
}

#[test]
fn measured_library_is_linked_by_default_and_its_provenance_shows_everywhere() {
    let library = measured_library(RUN_A);
    let expected = expected_measurement(RUN_A);
    let speedup = format!("{:.3}", expected.speedup);

    // Linked without --derived: its one measured matcher, no derived one.
    let out = private_home().join("linked.mlir");
    run_ok(
        measured_first()
            .args(["link", "--target", "gfx942", "--spec"])
            .arg(&library)
            .arg("-o")
            .arg(&out),
    );
    let linked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(derived_matchers(&linked), 0);
    assert_eq!(linked.matches("tunespec.measurement = {").count(), 1);
    assert_explain_shows_the_measurement(&library, &expected, &speedup);
    assert_resolve_shows_the_measurement(&library, &expected, &speedup);
    assert_targets_say_the_defaults_are_derived();
}

/// explain, in text, short and JSON, shows the measured library's record per config and in
/// the summary. Part of
/// `measured_library_is_linked_by_default_and_its_provenance_shows_everywhere`, split out to
/// keep it short.
fn assert_explain_shows_the_measurement(library: &Path, expected: &Expected, speedup: &str) {
    // explain, text: the config's record and the summary line.
    let text = stdout(&run_ok(
        measured_first()
            .args(["explain", "--target", "gfx942", "--spec"])
            .arg(library)
            .arg(MMT_PAYLOAD),
    ));
    let summary = format!(
        "provenance summary: 1 config(s) measured on {} with IREE {} (median speedup {speedup})",
        expected.device, expected.iree
    );
    assert!(text.lines().any(|line| line == summary), "{text}");
    // short: per config.
    let short = stdout(&run_ok(
        measured_first()
            .args([
                "explain", "--format", "short", "--target", "gfx942", "--spec",
            ])
            .arg(library)
            .arg(MMT_PAYLOAD),
    ));
    let per_config = format!(
        "[measured on {}, IREE {}, speedup {speedup}]",
        expected.device, expected.iree
    );
    assert!(short.contains(&per_config), "{short}");
    assert!(short.lines().any(|line| line == summary), "{short}");

    // explain, JSON: the record per op and the summary, valid against the schema.
    let output = run_ok(
        measured_first()
            .args([
                "explain", "--format", "json", "--target", "gfx942", "--spec",
            ])
            .arg(library)
            .arg(MMT_PAYLOAD),
    );
    let document = stdout(&output);
    assert_valid("explain.schema.json", [document.as_str()]);
    let explained = json(&output);
    let op = &explained["ops"][0];
    assert_eq!(op["provenance_kind"], "measured");
    assert_eq!(op["measurement"]["device"], expected.device.as_str());
    assert_eq!(op["measurement"]["iree"], expected.iree.as_str());
    let recorded = op["measurement"]["speedup"].as_f64().unwrap();
    assert!((recorded - expected.speedup).abs() < 5e-4, "{recorded}");
    // Times are numbers and the candidate an integer, as the schema says (the record holds
    // strings).
    let measurement = &op["measurement"];
    let (baseline, tuned) = (
        measurement["baseline_us"].as_f64().unwrap(),
        measurement["tuned_us"].as_f64().unwrap(),
    );
    assert!(tuned < baseline, "{measurement}");
    assert!(measurement["candidate"].is_u64(), "{measurement}");
    assert!(measurement["date"].is_string(), "{measurement}");
    let provenance = &explained["provenance"];
    assert_eq!(provenance["measured"], 1);
    assert_eq!(provenance["derived"], 0);
    assert_eq!(provenance["devices"][0], expected.device.as_str());
    assert_eq!(provenance["iree_versions"][0], expected.iree.as_str());
    assert_eq!(
        provenance["summary"].as_str().unwrap(),
        summary.trim_start_matches("provenance summary: ")
    );
}

/// resolve, in text, JSON and short, says the spec is measured, with device, IREE version
/// and speedup. Part of
/// `measured_library_is_linked_by_default_and_its_provenance_shows_everywhere`, split out to
/// keep it short.
fn assert_resolve_shows_the_measurement(library: &Path, expected: &Expected, speedup: &str) {
    // resolve: the spec is measured, with device, IREE version and speedup; the defaults are
    // skipped as derived.
    let human = stdout(&run_ok(
        measured_first()
            .args(["resolve", "gfx942", "--spec"])
            .arg(library),
    ));
    assert!(
        human.contains(&format!(
            "provenance: measured: 1 on {} with IREE {} (median speedup {speedup})",
            expected.device, expected.iree
        )),
        "{human}"
    );
    let output = run_ok(
        measured_first()
            .args(["resolve", "gfx942", "--format", "json", "--spec"])
            .arg(library),
    );
    let document = stdout(&output);
    assert_valid("resolve.schema.json", [document.as_str()]);
    let resolved = json(&output);
    let specs = resolved["specs"].as_array().unwrap();
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0]["provenance"]["kind"], "measured");
    assert_eq!(
        specs[0]["provenance"]["measured"][0]["device"],
        expected.device.as_str()
    );
    assert_eq!(
        specs[0]["provenance"]["measured"][0]["iree"],
        expected.iree.as_str()
    );
    let short = stdout(&run_ok(
        measured_first()
            .args(["resolve", "gfx942", "--format", "short", "--spec"])
            .arg(library),
    ));
    assert!(short.contains("provenance=measured"), "{short}");
}

/// targets: the embedded registry's specs say they are derived, and by which rules. Part of
/// `measured_library_is_linked_by_default_and_its_provenance_shows_everywhere`, split out to
/// keep it short.
fn assert_targets_say_the_defaults_are_derived() {
    // targets: the embedded registry's specs say they are derived, and by which rules.
    let output = run_ok(measured_first().args(["targets", "--format", "json"]));
    let lines = stdout(&output);
    assert_valid("targets.schema.json", lines.lines());
    let gfx942: serde_json::Value = lines
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|target| target["target"] == "gfx942")
        .unwrap();
    for spec in gfx942["specs"].as_array().unwrap() {
        assert_eq!(spec["provenance"]["kind"], "derived", "{spec}");
        assert_eq!(spec["provenance"]["derived"], spec["matchers"], "{spec}");
        assert!(!spec["provenance"]["rules"].as_array().unwrap().is_empty());
    }
    let table = stdout(&run_ok(measured_first().arg("targets")));
    assert!(table.contains("derived (rule R"), "{table}");
}

#[test]
fn explain_with_derived_and_measured_sums_both() {
    // With --derived a measured entry and the derived defaults link together; the measured
    // user spec comes first, so it configures the GEMM it was tuned for, and the summary
    // counts it apart from the derived configs of the decoder's ops.
    let library = measured_library(RUN_A);
    let expected = expected_measurement(RUN_A);
    let combined = private_home().join("both.mlir");
    let mmt = std::fs::read_to_string(repo_root().join(MMT_PAYLOAD)).unwrap();
    let llama = std::fs::read_to_string(repo_root().join(LLAMA_PAYLOAD)).unwrap();
    // The GEMM's function inside the decoder's module: one payload with both.
    let module = llama
        .trim_end()
        .strip_suffix('}')
        .expect("the decoder is one module");
    std::fs::write(&combined, format!("{module}\n{mmt}\n}}\n")).unwrap();
    let explained = json(&run_ok(
        measured_first()
            .args([
                "explain",
                "--derived",
                "--format",
                "json",
                "--target",
                "gfx942",
                "--spec",
            ])
            .arg(&library)
            .arg(&combined),
    ));
    let provenance = &explained["provenance"];
    assert_eq!(provenance["measured"], 1);
    let derived = provenance["derived"].as_u64().unwrap();
    assert!(derived > 0);
    assert_eq!(
        explained["matched"].as_u64().unwrap(),
        derived + 1,
        "every configured op is measured or derived"
    );
    assert_eq!(
        provenance["summary"].as_str().unwrap(),
        format!(
            "1 config(s) measured on {} with IREE {} (median speedup {:.3}), {derived} derived by rule",
            expected.device, expected.iree, expected.speedup
        )
    );
}
