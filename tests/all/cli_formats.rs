//! The CLI as its ecosystem expects it (issue 17): diagnostics formats for CI (short, github,
//! sarif), JSON everywhere and valid against docs/schema/, stdin, colour, `--version`,
//! completions and manual pages. Goldens are under `tests/all/snapshots/`
//! (`SNAPSHOTS=overwrite cargo test` rewrites them; review the diff).

use std::path::Path;

use snapbox::cmd::Command;

use crate::reference::repo_root;

/// tunespec from this build, hermetic (no config, no spec path, no cache) and with output that
/// does not depend on the terminal or the environment's colour settings.
fn tunespec() -> Command {
    Command::new(snapbox::cmd::cargo_bin!("tunespec"))
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TUNESPEC_TERM_WIDTH", "100")
        .env("COLUMNS", "100")
        .env("TUNESPEC_NO_CONFIG", "1")
        // The formats are shown on tunespec's derived defaults (see support::hermetic_env).
        .env("TUNESPEC_DERIVED", "1")
        .env("TUNESPEC_CACHE", "off")
        .env_remove("TUNESPEC_SPEC_PATH")
        .env_remove("TUNESPEC_LOG")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
}

fn output(command: Command) -> (i32, String, String) {
    let output = command.output().expect("runs");
    (
        output.status.code().expect("no signal"),
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
    )
}

const SEVERAL: &str = "tests/fixtures/specs/bad/several_problems.mlir";
const PAYLOAD: &str = "examples/llama2_7b_f16_decode.mlir";

/// A schema from docs/schema/, with references to the other schemas there inlined (the
/// validator then needs no resolver).
fn schema(name: &str) -> serde_json::Value {
    fn inline(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(reference)) = map.get("$ref") {
                    if !reference.starts_with('#') {
                        let mut other = schema(reference);
                        let other = other.as_object_mut().unwrap();
                        other.remove("$schema");
                        other.remove("$id");
                        *value = serde_json::Value::Object(other.clone());
                        return;
                    }
                }
                map.values_mut().for_each(inline);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(inline),
            _ => {}
        }
    }
    let path = repo_root().join("docs/schema").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    inline(&mut value);
    value
}

/// Asserts that every JSON document in `documents` is valid against the schema `name`.
pub(crate) fn assert_valid<'a>(name: &str, documents: impl IntoIterator<Item = &'a str>) -> usize {
    let validator = jsonschema::validator_for(&schema(name)).expect("the schema compiles");
    let mut count = 0;
    for document in documents {
        let value: serde_json::Value =
            serde_json::from_str(document).unwrap_or_else(|e| panic!("not JSON ({e}): {document}"));
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}\n{document}");
        count += 1;
    }
    count
}

#[test]
fn verify_short_is_one_line_per_problem() {
    tunespec()
        .args(["verify", "--format", "short", SEVERAL])
        .assert()
        .code(1)
        .stdout_eq(snapbox::file!["snapshots/verify_several_problems.short"]);
}

#[test]
fn verify_github_prints_workflow_commands() {
    tunespec()
        .args(["verify", "--format", "github", SEVERAL])
        .assert()
        .code(1)
        .stdout_eq(snapbox::file!["snapshots/verify_several_problems.github"]);
}

#[test]
fn verify_sarif_is_one_log_valid_against_the_schema() {
    let (code, stdout, _) = output(tunespec().args(["verify", "--format", "sarif", SEVERAL]));
    assert_eq!(code, 1);
    assert_valid("sarif.schema.json", [stdout.as_str()]);
    let log: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect();
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], result["ruleId"].as_str().unwrap());
    }
    // The same findings as the JSON format, one result each.
    let (_, json, _) = output(tunespec().args(["verify", "--format", "json", SEVERAL]));
    let diagnostics = json
        .lines()
        .filter(|line| line.contains("\"severity\""))
        .count();
    assert_eq!(run["results"].as_array().unwrap().len(), diagnostics);
    tunespec()
        .args(["verify", "--format", "sarif", SEVERAL])
        .assert()
        .stdout_eq(snapbox::file!["snapshots/verify_several_problems.sarif"]);
}

#[test]
fn json_outputs_are_valid_against_their_schemas() {
    // verify: diagnostics and the summary.
    let (code, stdout, _) = output(tunespec().args([
        "verify",
        "--format",
        "json",
        "--no-iree-check",
        "tests/fixtures/specs/bad",
    ]));
    assert_eq!(code, 1);
    assert!(assert_valid("verify.schema.json", stdout.lines()) >= 8);
    let summary: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let errors = stdout
        .lines()
        .filter(|l| l.contains("\"severity\":\"error\""))
        .count();
    assert_eq!(summary["summary"]["errors"], errors);
    // Every spec file in the directory (fixtures are added there over time).
    let files = std::fs::read_dir(repo_root().join("tests/fixtures/specs/bad"))
        .unwrap()
        .filter(|entry| {
            let path = entry.as_ref().unwrap().path();
            path.extension()
                .is_some_and(|extension| extension == "mlir" || extension == "mlirbc")
        })
        .count();
    assert_eq!(summary["summary"]["files"], files);

    let (code, stdout, _) = output(tunespec().args(["targets", "--format", "json"]));
    assert_eq!(code, 0);
    assert!(assert_valid("targets.schema.json", stdout.lines()) > 3);

    let (code, stdout, _) = output(tunespec().args(["resolve", "mi300x", "--format", "json"]));
    assert_eq!(code, 0);
    assert_valid("resolve.schema.json", [stdout.as_str()]);

    let (code, stdout, _) =
        output(tunespec().args(["explain", "--target", "gfx942", "--format", "json", PAYLOAD]));
    assert_eq!(code, 0);
    assert_valid("explain.schema.json", [stdout.as_str()]);

    let (code, stdout, _) = output(tunespec().args([
        "coverage", "--target", "gfx942", "--format", "json", PAYLOAD,
    ]));
    assert_eq!(code, 0);
    assert_valid("coverage.schema.json", [stdout.as_str()]);

    let cache = tempfile::tempdir().unwrap();
    let (code, stdout, _) = output(
        tunespec()
            .env("TUNESPEC_CACHE", "on")
            .env("TUNESPEC_CACHE_DIR", cache.path())
            .args(["cache", "stats", "--format", "json"]),
    );
    assert_eq!(code, 0);
    assert_valid("cache-stats.schema.json", [stdout.as_str()]);
}

#[test]
fn in_json_mode_usage_and_io_errors_are_json_too() {
    // A command line clap rejects.
    let (code, stdout, stderr) = output(tunespec().args(["verify", "--format", "json", "--bogus"]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert_eq!(assert_valid("diagnostic.schema.json", stderr.lines()), 1);
    assert!(stderr.contains("\"code\":\"tunespec::usage\""), "{stderr}");
    // An unreadable payload: an I/O error.
    let (code, _, stderr) = output(tunespec().args([
        "explain",
        "--target",
        "gfx942",
        "--format",
        "json",
        "no/such/payload.mlir",
    ]));
    assert_eq!(code, 2);
    assert_eq!(assert_valid("diagnostic.schema.json", stderr.lines()), 1);
    assert!(stderr.contains("\"code\":\"tunespec::io\""), "{stderr}");
    // An unknown target.
    let (code, _, stderr) = output(tunespec().args(["resolve", "nosuch", "--format", "json"]));
    assert_eq!(code, 2);
    assert_eq!(assert_valid("diagnostic.schema.json", stderr.lines()), 1);
    // Human mode keeps clap's and tunespec's own messages.
    let (code, _, stderr) = output(tunespec().args(["verify", "--bogus"]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: unexpected argument '--bogus'"),
        "{stderr}"
    );
}

#[test]
fn link_takes_format_and_deny_warnings() {
    // Two copies of one spec: the second's matchers are shadowed by the first's (warnings).
    let spec = "tests/fixtures/specs/good/one_matcher.mlir";
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.mlir");
    std::fs::copy(repo_root().join(spec), &copy).unwrap();
    let link = |extra: &[&str]| {
        let mut command = tunespec().args(["link", "--no-default", "-o"]);
        command = command.arg(dir.path().join("out.mlir"));
        command = command.args(["--spec", spec, "--spec"]).arg(&copy);
        output(command.args(extra))
    };
    let (code, _, stderr) = link(&["--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let warnings = assert_valid("diagnostic.schema.json", stderr.lines());
    assert!(warnings > 0, "no warnings to deny: {stderr}");
    assert!(stderr.contains("\"severity\":\"warning\""));
    let (code, _, short) = link(&["--format", "short"]);
    assert_eq!(code, 0);
    assert_eq!(short.lines().count(), warnings);
    assert!(
        short
            .lines()
            .all(|line| line.contains("warning[tunespec::")),
        "{short}"
    );
    std::fs::remove_file(dir.path().join("out.mlir")).unwrap();
    let (code, _, short) = link(&["--format", "short", "--deny-warnings"]);
    assert_eq!(code, 1);
    assert!(
        short.lines().all(|line| line.contains("error[tunespec::")),
        "{short}"
    );
    assert!(
        !dir.path().join("out.mlir").exists(),
        "nothing is written when warnings are denied"
    );
}

#[test]
fn stdin_is_read_for_dash_and_named_stdin() {
    let spec = std::fs::read(repo_root().join(SEVERAL)).unwrap();
    let (code, stdout, _) = output(
        tunespec()
            .args(["verify", "--format", "short", "-"])
            .stdin(spec),
    );
    assert_eq!(code, 1);
    let (_, from_file, _) = output(tunespec().args(["verify", "--format", "short", SEVERAL]));
    assert_eq!(stdout, from_file.replace(SEVERAL, "<stdin>"));
    assert!(stdout.starts_with("<stdin>:"), "{stdout}");

    let payload = std::fs::read(repo_root().join(PAYLOAD)).unwrap();
    let (code, from_stdin, _) = output(
        tunespec()
            .args(["explain", "--target", "gfx942", "--format", "json", "-"])
            .stdin(payload.clone()),
    );
    assert_eq!(code, 0);
    let (_, from_file, _) =
        output(tunespec().args(["explain", "--target", "gfx942", "--format", "json", PAYLOAD]));
    assert_eq!(from_stdin, from_file.replace(PAYLOAD, "<stdin>"));
    // attach from stdin to stdout (`-o -`), then apply the attached library from stdin.
    let (code, attached, stderr) = output(
        tunespec()
            .args(["attach", "--target", "gfx942", "-", "-o", "-"])
            .stdin(payload),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(attached.contains("iree_codegen.tuning_spec_mlirbc"));
    let (code, applied, stderr) =
        output(tunespec().args(["apply", "-", "-o", "-"]).stdin(attached));
    assert_eq!(code, 0, "{stderr}");
    assert!(applied.contains("compilation_info"), "no config applied");
}

#[test]
fn color_follows_the_flag_and_the_environment() {
    let has_ansi = |text: &str| text.contains("\u{1b}[");
    let run = |command: Command| output(command.args(["verify", SEVERAL])).1;
    // Not a terminal: no colour by default, even without NO_COLOR.
    assert!(!has_ansi(&run(tunespec().env_remove("NO_COLOR"))));
    assert!(has_ansi(&run(tunespec().args(["--color", "always"]))));
    assert!(has_ansi(&run(tunespec()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1"))));
    // NO_COLOR wins over CLICOLOR_FORCE; --color never over everything.
    assert!(!has_ansi(&run(tunespec().env("CLICOLOR_FORCE", "1"))));
    assert!(!has_ansi(&run(tunespec()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["--color", "never"]))));
}

#[test]
fn version_names_mlir_and_the_bytecode_version() {
    let (code, stdout, _) = output(tunespec().arg("--version"));
    assert_eq!(code, 0);
    let expected_start = format!("tunespec {} (MLIR 22.", env!("CARGO_PKG_VERSION"));
    assert!(stdout.starts_with(&expected_start), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(&format!(
            ", bytecode v{})",
            tunespec::mlir::BYTECODE_VERSION
        )),
        "{stdout}"
    );
}

#[test]
fn help_lists_examples_environment_and_exit_statuses() {
    tunespec()
        .args(["verify", "--help"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/verify_help.stdout"]);
    let commands = [
        "verify",
        "link",
        "attach",
        "extract",
        "apply",
        "explain",
        "coverage",
        "resolve",
        "export",
        "targets",
        "show",
        "cache",
        "import-tuner",
        "check",
        "completions",
        "man",
    ];
    for command in commands {
        let (code, help, _) = output(tunespec().args([command, "--help"]));
        assert_eq!(code, 0);
        for section in [
            "Examples:",
            "Environment:",
            "NO_COLOR",
            "TUNESPEC_LOG",
            "Exit status:",
        ] {
            assert!(help.contains(section), "{command} --help lacks {section}");
        }
        // The exit-status block names only flags the command has.
        assert_eq!(
            help.contains("unless --deny-warnings"),
            help.contains("      --deny-warnings"),
            "{command}"
        );
        for line in help
            .lines()
            .filter(|l| l.trim_start().starts_with("tunespec "))
        {
            let example = line.trim_start();
            assert!(
                example.starts_with(&format!("tunespec {command}")),
                "{command}: {line}"
            );
        }
    }
    let (_, link, _) = output(tunespec().args(["link", "--help"]));
    assert!(link.contains("TUNESPEC_CACHE_DIR") && link.contains("TUNESPEC_SPEC_PATH"));
}

#[test]
fn completions_for_every_shell() {
    tunespec()
        .args(["completions", "fish"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/completions.fish"]);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, script, _) = output(tunespec().args(["completions", shell]));
        assert_eq!(code, 0, "{shell}");
        for command in ["verify", "link", "explain", "completions", "man"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    let (code, _, _) = output(tunespec().args(["completions", "tcsh"]));
    assert_eq!(code, 2);
}

#[test]
fn man_pages() {
    tunespec()
        .args(["man", "verify"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/tunespec-verify.1"]);
    let (code, page, _) = output(tunespec().arg("man"));
    assert_eq!(code, 0);
    assert!(page.starts_with(".ie \\n(.g .ds Aq \\(aq") || page.contains(".TH tunespec"));
    assert!(page.contains("verify") && page.contains("completions"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let (code, _, stderr) = output(tunespec().args(["man", "--all", "-o"]).arg(&out));
    assert_eq!(code, 0, "{stderr}");
    for page in [
        "tunespec.1",
        "tunespec-verify.1",
        "tunespec-link.1",
        "tunespec-man.1",
    ] {
        assert!(Path::new(&out.join(page)).is_file(), "{page} missing");
    }
    let (code, _, stderr) = output(tunespec().args(["man", "nosuch"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown command 'nosuch'"));
}

/// The report commands, each with what its `--format json` output is checked against, and
/// whether its report goes to stdout (`apply` writes the payload there: its report, the
/// `--explain` table, and its diagnostics go to stderr).
fn report_commands(cache: &Path, out: &Path) -> Vec<(&'static str, Command, &'static str, bool)> {
    let apply = tunespec()
        .args(["apply", "--target", "gfx942", "--explain", PAYLOAD, "-o"])
        .arg(out);
    let cache_stats = tunespec()
        .env("TUNESPEC_CACHE", "on")
        .env("TUNESPEC_CACHE_DIR", cache)
        .args(["cache", "stats"]);
    vec![
        ("apply", apply, "explain.schema.json", false),
        (
            "explain",
            tunespec().args(["explain", "--target", "gfx942", PAYLOAD]),
            "explain.schema.json",
            true,
        ),
        (
            "coverage",
            tunespec().args(["coverage", "--target", "gfx942", PAYLOAD]),
            "coverage.schema.json",
            true,
        ),
        (
            "resolve",
            tunespec().args(["resolve", "mi300x"]),
            "resolve.schema.json",
            true,
        ),
        (
            "targets",
            tunespec().arg("targets"),
            "targets.schema.json",
            true,
        ),
        ("cache stats", cache_stats, "cache-stats.schema.json", true),
    ]
}

#[test]
fn every_report_command_takes_every_format_and_prints_that_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("configured.mlir");
    let formats = ["human", "json", "short", "github", "sarif"];
    for index in 0..report_commands(dir.path(), &out).len() {
        let mut reports = Vec::new();
        for format in formats {
            let (name, command, schema, on_stdout) =
                report_commands(dir.path(), &out).swap_remove(index);
            let (code, stdout, stderr) = output(command.args(["--format", format]));
            assert_eq!(code, 0, "{name} --format {format}: {stderr}");
            let (report, other) = if on_stdout {
                (stdout, stderr)
            } else {
                (stderr, stdout)
            };
            assert!(!report.is_empty(), "{name} --format {format}: no report");
            let parses_as_json =
                |text: &str| serde_json::from_str::<serde_json::Value>(text).is_ok();
            match format {
                "json" => {
                    assert!(assert_valid(schema, report.lines()) > 0, "{name}");
                    // Everything is JSON: the other stream too, if anything is on it.
                    if on_stdout {
                        assert_valid("diagnostic.schema.json", other.lines());
                    }
                }
                "sarif" => {
                    assert_valid("sarif.schema.json", [report.as_str()]);
                    if on_stdout {
                        assert!(other.is_empty(), "{name}: one log, on stdout: {other}");
                    }
                }
                "short" => {
                    assert!(
                        report
                            .lines()
                            .all(|line| !line.trim().is_empty() && !parses_as_json(line)),
                        "{name} --format short:\n{report}"
                    );
                }
                "github" => {
                    // The human report, with diagnostics as workflow commands.
                    let human: &String = &reports[0];
                    let without_commands: String = report
                        .lines()
                        .filter(|line| !line.starts_with("::"))
                        .map(|line| format!("{line}\n"))
                        .collect();
                    assert_eq!(&without_commands, human, "{name} --format github");
                }
                _ => assert!(!parses_as_json(report.lines().next().unwrap()), "{name}"),
            }
            if !on_stdout {
                assert!(
                    other.is_empty(),
                    "{name}: stdout is the payload's (-o): {other}"
                );
            }
            reports.push(report);
        }
        // No format is silently another: every format prints something of its own.
        for (a, b) in [(0, 2), (0, 4), (1, 2), (2, 4)] {
            assert_ne!(reports[a], reports[b], "{} vs {}", formats[a], formats[b]);
        }
    }
}

/// Paths of this machine (temporary directories) replaced by a placeholder, for goldens.
fn normalize(text: &str, path: &Path) -> String {
    text.replace(&path.display().to_string(), "[DIR]")
}

#[test]
fn report_command_goldens_in_short_github_and_sarif() {
    let explain = ["explain", "--target", "gfx942", PAYLOAD];
    let coverage = ["coverage", "--target", "gfx942", PAYLOAD];
    tunespec()
        .args(explain)
        .args(["--format", "short"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/explain_llama2.short"]);
    tunespec()
        .args(explain)
        .args(["--format", "github"])
        .assert()
        .code(0)
        .stderr_eq(snapbox::file!["snapshots/explain_llama2.github.stderr"]);
    tunespec()
        .args(explain)
        .args(["--format", "sarif"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/explain_llama2.sarif"]);
    tunespec()
        .args(coverage)
        .args(["--format", "short"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/coverage_llama2.short"]);
    tunespec()
        .args(coverage)
        .args(["--format", "github"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/coverage_llama2.github"]);
    tunespec()
        .args(["resolve", "mi300x", "--format", "short"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/resolve_mi300x.short"]);
    tunespec()
        .args(["resolve", "mi300x", "--format", "sarif"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/no_diagnostics.sarif"]);
    tunespec()
        .args(["targets", "--format", "short"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/targets.short"]);
    tunespec()
        .args(["targets", "--format", "sarif"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/no_diagnostics.sarif"]);
    let cache = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = output(
        tunespec()
            .env("TUNESPEC_CACHE", "on")
            .env("TUNESPEC_CACHE_DIR", cache.path())
            .env_remove("TUNESPEC_CACHE_MAX_BYTES")
            .args(["cache", "stats", "--format", "short"]),
    );
    assert_eq!(code, 0, "{stderr}");
    snapbox::assert_data_eq!(
        normalize(&stdout, cache.path()),
        snapbox::file!["snapshots/cache_stats_empty.short"]
    );
}

#[test]
fn coverage_sarif_has_a_warning_at_each_matcher_that_never_fired() {
    let (code, stdout, _) = output(tunespec().args([
        "coverage", "--target", "gfx942", "--format", "json", PAYLOAD,
    ]));
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let dead: Vec<&str> = report["never_fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["location"].as_str().unwrap())
        .collect();
    assert!(!dead.is_empty());
    let (code, stdout, _) = output(tunespec().args([
        "coverage", "--target", "gfx942", "--format", "sarif", PAYLOAD,
    ]));
    assert_eq!(code, 0, "findings are warnings: the exit status stays 0");
    assert_valid("sarif.schema.json", [stdout.as_str()]);
    let log: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let located: Vec<String> = results
        .iter()
        .map(|result| {
            assert_eq!(result["ruleId"], "tunespec::coverage::never-fired");
            assert_eq!(result["level"], "warning");
            let location = &result["locations"][0]["physicalLocation"];
            format!(
                "{}:{}:{}",
                location["artifactLocation"]["uri"].as_str().unwrap(),
                location["region"]["startLine"],
                location["region"]["startColumn"]
            )
        })
        .collect();
    assert_eq!(located, dead, "one result per dead matcher, at its line");
}

#[test]
fn explain_and_apply_agree_in_every_format() {
    // `apply --explain` prints (to stderr) what `explain` prints (to stdout) for the same
    // payload, in each format but sarif, whose log also carries apply's diagnostics.
    let dir = tempfile::tempdir().unwrap();
    for format in ["human", "json", "short", "github"] {
        let (_, explained, _) =
            output(tunespec().args(["explain", "--target", "gfx942", "--format", format, PAYLOAD]));
        let (code, _, applied) = output(
            tunespec()
                .args([
                    "apply",
                    "--target",
                    "gfx942",
                    "--explain",
                    "--format",
                    format,
                    PAYLOAD,
                ])
                .arg("-o")
                .arg(dir.path().join("out.mlir")),
        );
        assert_eq!(code, 0, "{applied}");
        let applied: String = applied
            .lines()
            .filter(|line| !line.starts_with("::"))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(applied, explained, "--format {format}");
    }
    let (_, _, sarif) = output(
        tunespec()
            .args([
                "apply",
                "--target",
                "gfx942",
                "--explain",
                "--format",
                "sarif",
                PAYLOAD,
            ])
            .arg("-o")
            .arg(dir.path().join("out.mlir")),
    );
    let (_, explained, _) = output(tunespec().args([
        "explain", "--target", "gfx942", "--format", "sarif", PAYLOAD,
    ]));
    assert_eq!(sarif, explained);
}

#[test]
fn report_commands_print_usage_and_io_errors_in_their_format() {
    let cases: [&[&str]; 3] = [
        &["explain", "--target", "gfx942", "no/such/payload.mlir"],
        &["coverage", "--target", "nosuch", PAYLOAD],
        &["resolve", "nosuch"],
    ];
    for args in cases {
        let (code, stdout, stderr) = output(tunespec().args(args).args(["--format", "short"]));
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error[tunespec::"), "{stderr}");
        let (code, _, stderr) = output(tunespec().args(args).args(["--format", "github"]));
        assert_eq!(code, 2);
        assert!(
            stderr.starts_with("::error title=tunespec%3A%3A"),
            "{stderr}"
        );
        // In sarif the error is the log's one result, on stdout with the report.
        let (code, stdout, stderr) = output(tunespec().args(args).args(["--format", "sarif"]));
        assert_eq!(code, 2);
        assert!(stderr.is_empty(), "{stderr}");
        assert_valid("sarif.schema.json", [stdout.as_str()]);
        let log: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(log["runs"][0]["results"][0]["level"], "error");
    }
    // A command line clap rejects, in a report command's format.
    let (code, stdout, stderr) =
        output(tunespec().args(["targets", "--format", "sarif", "--bogus"]));
    assert_eq!(code, 2);
    assert!(stderr.is_empty(), "{stderr}");
    assert_valid("sarif.schema.json", [stdout.as_str()]);
}

#[test]
fn check_json_is_valid_against_its_schema() {
    let Some(compile) = crate::reference::iree_compile() else {
        return;
    };
    let venv = compile.parent().unwrap().parent().unwrap();
    let good = "tests/fixtures/tuner/tuning_2026_11_20_10_00/candidates/specs/1_spec.mlir";
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.mlir");
    let text = std::fs::read_to_string(repo_root().join(good)).unwrap();
    std::fs::write(
        &old,
        text.replace("#iree_gpu.pipeline<TileAndFuse>", "LLVMGPUTileAndFuse"),
    )
    .unwrap();
    let check = |args: &[&str]| {
        output(
            tunespec()
                .env_remove("TUNESPEC_NO_IREE")
                .env("TUNESPEC_IREE_VENV", venv)
                .args(["check", "--target", "gfx942", "--format", "json"])
                .args(args),
        )
    };
    let (code, stdout, stderr) = check(&[good]);
    assert_eq!(code, 0, "{stderr}");
    assert_valid("check.schema.json", [stdout.as_str()]);
    let (code, stdout, _) = check(&[old.to_str().unwrap(), good]);
    assert_eq!(code, 1);
    assert_valid("check.schema.json", [stdout.as_str()]);
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(document["fixes"][0]["applied"], false);
    assert_eq!(document["results"][0]["parse"]["status"], "failed");
    assert_eq!(document["results"][1]["ok"], true);
}
