//! The CI integrations a team copies (issue 44): the GitHub Actions composite action
//! (`action.yml`) and the GitLab CI job template (`ci/gitlab-tunespec.yml`), checked against
//! schemas of the parts of each syntax they use (`tests/fixtures/ci/`, written from GitHub's
//! and GitLab's references: no network at test time), and their shell steps run here with bash
//! as the runners run them (the installs skipped: the action's `install: false`, the template's
//! `TUNESPEC_INSTALL=false`; this build's tunespec and the reference IREE stand in). Also
//! `check` without IREE: one line on what was and was not checked, `--require-iree` a failure.
//!
//! YAML is read by PyYAML from pre-commit's venv (tools/pre-commit-venv.sh), required under
//! CI=true like pre-commit itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::iree_library::venv;
use crate::reference::{in_ci, output_with_timeout, repo_root};
use crate::support::{hermetic, private_home, tunespec_command};

/// `file` (YAML) as JSON, read by PyYAML; `None` (a failure under CI=true) without it.
fn yaml(file: &Path) -> Option<Value> {
    let venv = std::env::var_os("TUNESPEC_PRE_COMMIT_VENV")
        .map_or_else(|| repo_root().join("target/pre-commit-venv"), PathBuf::from);
    let python = venv.join("bin/python");
    if !python.is_file() {
        assert!(
            !in_ci(),
            "PyYAML from tools/pre-commit-venv.sh is required when CI=true"
        );
        eprintln!("note: tools/pre-commit-venv.sh not run; the CI templates were not read");
        return None;
    }
    let output = Command::new(python)
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
        ])
        .arg(file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}: {output:?}", file.display());
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Every schema error of `document` against `tests/fixtures/ci/<schema>`.
fn schema_errors(schema: &str, document: &Value) -> Vec<String> {
    let path = repo_root().join("tests/fixtures/ci").join(schema);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator
        .iter_errors(document)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

/// `text` with each `${{ NAME }}` replaced from `values`; an expression not there fails.
fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        let name = rest[start + 3..end].trim();
        let value = values
            .get(name)
            .unwrap_or_else(|| panic!("an expression the test does not know: {name}"));
        out.push_str(value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A temporary runner: `bin/tunespec` (this build) first on PATH, a team's `specs/`.
struct Runner {
    home: PathBuf,
    work: PathBuf,
    path: std::ffi::OsString,
}

impl Runner {
    fn new(broken: bool) -> Runner {
        let home = private_home();
        let bin = home.join("bin");
        let work = home.join("work");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(work.join("specs")).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tunespec"), bin.join("tunespec")).unwrap();
        let fixtures = repo_root().join("tests/fixtures/specs");
        std::fs::copy(
            fixtures.join("good/iree_one_matcher.mlir"),
            work.join("specs/good.mlir"),
        )
        .unwrap();
        if broken {
            std::fs::copy(
                fixtures.join("bad/syntax_error.mlir"),
                work.join("specs/broken.mlir"),
            )
            .unwrap();
        }
        let path = std::env::join_paths([bin, "/usr/bin".into(), "/bin".into()]).unwrap();
        Runner { home, work, path }
    }

    /// `script` run by `bash --noprofile --norc -eo pipefail` (GitHub's `shell: bash`) in the
    /// team's checkout with `env`; `iree`: the reference IREE found, else none.
    fn bash(&self, script: &str, env: &BTreeMap<String, String>, iree: Option<&Path>) -> Output {
        let file = self.home.join("step.sh");
        std::fs::write(&file, script).unwrap();
        let mut command = Command::new("bash");
        hermetic(&mut command)
            .current_dir(&self.work)
            .env("PATH", &self.path)
            .envs(env)
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file);
        if let Some(venv) = iree {
            command
                .env_remove("TUNESPEC_NO_IREE")
                .env("TUNESPEC_IREE_VENV", venv);
        }
        output_with_timeout(&mut command)
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The action's `run` steps for `inputs` (its defaults, overridden), in order, with their
/// environments; steps whose `if` names `inputs.install` are left out when it is `false`.
fn action_steps(
    action: &Value,
    runner: &Runner,
    inputs: &[(&str, &str)],
) -> Vec<(String, BTreeMap<String, String>)> {
    let mut values = BTreeMap::new();
    for (name, input) in action["inputs"].as_object().unwrap() {
        let default = input["default"].as_str().unwrap_or_default();
        values.insert(format!("inputs.{name}"), default.to_string());
    }
    for (name, value) in inputs {
        values.insert(format!("inputs.{name}"), value.to_string());
    }
    let temp = runner.home.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    values.insert("runner.temp".into(), temp.display().to_string());
    let install = values["inputs.install"] == "true";
    let mut steps = Vec::new();
    for step in action["runs"]["steps"].as_array().unwrap() {
        let Some(run) = step["run"].as_str() else {
            continue;
        };
        let condition = step["if"].as_str().unwrap_or_default();
        if condition.contains("inputs.install == 'true'") && !install {
            continue;
        }
        let mut env: BTreeMap<String, String> = step["env"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, value)| (name.clone(), expand(value.as_str().unwrap(), &values)))
            .collect();
        env.insert("RUNNER_TEMP".into(), temp.display().to_string());
        env.insert(
            "GITHUB_PATH".into(),
            runner.home.join("github-path").display().to_string(),
        );
        steps.push((expand(run, &values), env));
    }
    steps
}

/// Runs the action's steps; the last one's output (the earlier ones must pass).
fn run_action(
    action: &Value,
    runner: &Runner,
    inputs: &[(&str, &str)],
    iree: Option<&Path>,
) -> Output {
    let steps = action_steps(action, runner, inputs);
    assert!(!steps.is_empty());
    let mut last = None;
    for (script, env) in &steps {
        if let Some(output) = &last {
            let output: &Output = output;
            assert!(output.status.success(), "{}", text(output));
        }
        last = Some(runner.bash(script, env, iree));
    }
    last.unwrap()
}

#[test]
fn the_action_is_valid_and_its_steps_run() {
    let Some(action) = yaml(&repo_root().join("action.yml")) else {
        return;
    };
    let errors = schema_errors("github-action.schema.json", &action);
    assert!(errors.is_empty(), "{errors:#?}");
    // Every input an expression names is declared; the installs are pinned.
    let declared: Vec<&String> = action["inputs"].as_object().unwrap().keys().collect();
    let source = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
    for (at, _) in source.match_indices("inputs.") {
        let name: String = source[at + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        assert!(declared.contains(&&name), "inputs.{name} is not declared");
    }
    assert!(source.contains("iree-base-compiler==$IREE_VERSION"));
    let uses: Vec<&str> = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|step| step["uses"].as_str())
        .collect();
    assert!(uses.contains(&"actions/cache@v4"), "{uses:?}");
    assert!(
        uses.contains(&"github/codeql-action/upload-sarif@v3"),
        "{uses:?}"
    );

    // No IREE, not required: passes, with the one line as an annotation.
    let runner = Runner::new(false);
    let inputs = [
        ("paths", "specs"),
        ("install", "false"),
        ("require-iree", "false"),
    ];
    let output = run_action(&action, &runner, &inputs, None);
    let all = text(&output);
    assert!(output.status.success(), "{all}");
    assert!(
        all.contains("::warning title=tunespec%3A%3Airee%3A%3Anot-checked::IREE not found: checked that 1 file(s) parse"),
        "{all}"
    );
    // Required (the action's default): a missing IREE fails the step.
    let output = run_action(
        &action,
        &runner,
        &[("paths", "specs"), ("install", "false")],
        None,
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));

    // A broken spec: GitHub's annotation at its location, the step fails.
    let runner = Runner::new(true);
    let output = run_action(&action, &runner, &inputs, None);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(1), "{all}");
    assert!(
        all.contains("::error file=specs/broken.mlir,line=2,col=31"),
        "{all}"
    );

    // SARIF: one log per command in sarif-dir.
    let sarif = [
        ("paths", "specs"),
        ("install", "false"),
        ("require-iree", "false"),
        ("format", "sarif"),
    ];
    let output = run_action(&action, &runner, &sarif, None);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    for log in ["verify.sarif", "check.sarif"] {
        let path = runner.work.join("tunespec-sarif").join(log);
        let log: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(log["version"], "2.1.0", "{}", path.display());
    }
    // Code scanning shows what check did not check without IREE.
    let check = std::fs::read_to_string(runner.work.join("tunespec-sarif/check.sarif")).unwrap();
    assert!(
        check.contains("IREE not found: checked that 2 file(s) parse"),
        "{check}"
    );
}

#[test]
fn the_action_checks_against_iree_and_keeps_the_cache() {
    let Some(action) = yaml(&repo_root().join("action.yml")) else {
        return;
    };
    let Some(venv) = venv() else { return };
    let runner = Runner::new(false);
    let inputs = [
        ("paths", "specs"),
        ("install", "false"),
        ("target", "gfx942"),
    ];
    let output = run_action(&action, &runner, &inputs, Some(&venv));
    let all = text(&output);
    assert!(output.status.success(), "{all}");
    assert!(all.contains("(contraction, gfx942): ok"), "{all}");
    assert!(all.contains("compile: ok"), "{all}");
    assert!(!all.contains("IREE not found"), "{all}");
    // tunespec's cache is where the cache step keeps it.
    let cache = runner.home.join("runner-temp/tunespec-cache");
    assert!(
        std::fs::read_dir(&cache).is_ok_and(|mut entries| entries.next().is_some()),
        "nothing in {}",
        cache.display()
    );
}

#[test]
fn the_gitlab_template_is_valid_and_its_script_runs() {
    let path = repo_root().join("ci/gitlab-tunespec.yml");
    let Some(template) = yaml(&path) else {
        return;
    };
    let errors = schema_errors("gitlab-ci-template.schema.json", &template);
    assert!(errors.is_empty(), "{errors:#?}");
    let job = &template[".tunespec"];
    assert_eq!(job["variables"]["IREE_VERSION"], "3.13.0", "pinned");
    let source = std::fs::read_to_string(&path).unwrap();
    assert!(source.contains("iree-base-compiler==$IREE_VERSION"));
    let cache_dir = job["variables"]["TUNESPEC_CACHE_DIR"].as_str().unwrap();
    let kept = job["cache"]["paths"][0].as_str().unwrap();
    assert_eq!(
        cache_dir.strip_prefix("$CI_PROJECT_DIR/"),
        Some(kept.trim_end_matches('/')),
        "the cache kept is tunespec's"
    );

    // The job as the runner runs it: before_script and script in one shell, the variables
    // expanded ($CI_PROJECT_DIR), the install off.
    let run = |runner: &Runner, overrides: &[(&str, &str)]| {
        let mut env = BTreeMap::new();
        let project = runner.work.display().to_string();
        for (name, value) in job["variables"].as_object().unwrap() {
            let value = value.as_str().unwrap().replace("$CI_PROJECT_DIR", &project);
            env.insert(name.clone(), value);
        }
        env.insert("CI_PROJECT_DIR".into(), project);
        for (name, value) in overrides {
            env.insert(name.to_string(), value.to_string());
        }
        let mut script = String::new();
        for key in ["before_script", "script"] {
            for line in job[key].as_array().unwrap() {
                script.push_str(line.as_str().unwrap());
                script.push('\n');
            }
        }
        runner.bash(&script, &env, None)
    };
    let no_install = [
        ("TUNESPEC_INSTALL", "false"),
        ("TUNESPEC_REQUIRE_IREE", "false"),
    ];
    let runner = Runner::new(false);
    let output = run(&runner, &no_install);
    let all = text(&output);
    assert!(output.status.success(), "{all}");
    assert!(
        all.contains("warning[tunespec::iree::not-checked]: IREE not found"),
        "{all}"
    );
    assert!(runner.work.join("tunespec-sarif/verify.sarif").is_file());
    let output = run(&runner, &[("TUNESPEC_INSTALL", "false")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));

    let runner = Runner::new(true);
    let output = run(&runner, &no_install);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(1), "{all}");
    assert!(all.contains("specs/broken.mlir:2:31: error"), "{all}");
}

/// `check` without IREE: one line says what was checked and what was not, the exit is 0 (1
/// for a file that cannot be read); `--require-iree` makes it exit 2; `--fix` still needs IREE.
#[test]
fn check_without_iree_says_what_it_did_not_check() {
    let spec = repo_root().join("tests/fixtures/specs/good/iree_one_matcher.mlir");
    let broken = repo_root().join("tests/fixtures/specs/bad/syntax_error.mlir");
    let output = tunespec_command().arg("check").arg(&spec).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("tunespec: warning: IREE not found: checked that 1 file(s) parse with tunespec's own MLIR (1 matcher(s) read, 0 unreadable); not checked: IREE's parse, effect and compile"),
        "{stderr}"
    );
    assert!(lines[0].contains("--require-iree"), "{stderr}");

    let output = tunespec_command()
        .arg("check")
        .arg(&spec)
        .arg(&broken)
        .output()
        .unwrap();
    let all = text(&output);
    assert_eq!(output.status.code(), Some(1), "{all}");
    assert!(all.contains("syntax_error.mlir: cannot be read"), "{all}");
    assert!(all.contains("1 unreadable"), "{all}");

    for flag in ["--require-iree", "--fix"] {
        let output = tunespec_command()
            .args(["check", flag])
            .arg(&spec)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains("which needs IREE's compiler"),
            "{flag}: {stderr}"
        );
    }
}
