//! IREE's matcher ops (`transform.iree.match.*`, the shim's transform dialect extension),
//! checked against iree-opt 3.13:
//! - syntax: every good spec under `tests/fixtures/iree/good/` prints as iree-opt prints it,
//!   read from its text, from iree-opt's generic form and (without affine maps) from iree-opt's
//!   bytecode;
//! - verifiers: every bad use under `tests/fixtures/iree/bad/` fails `tunespec verify` with
//!   iree-opt's first diagnostic (same line, same message, same severity);
//! - semantics: for each spec and payload pair, the interpreter in `tunespec apply` configures
//!   the same ops of the same functions as IREE's materialization.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::reference::{iree_opt, repo_root};

fn tunespec() -> Command {
    crate::support::tunespec_command()
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = repo_root().join("tests/fixtures/iree").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    files
}

/// The printed ops of a spec, without what only differs by printer: attribute alias
/// definitions (iree-opt names IREE attributes, MLIR 22 prints them opaque and inline), the
/// module line (tunespec's link names the module) and the constants holding IREE attributes.
fn ops_text(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|line| {
            !line.starts_with('#')
                && !line.starts_with("module")
                && !line.contains("transform.param.constant")
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

fn printed_by_tunespec(spec: &Path) -> String {
    let output = run(tunespec()
        .args(["link", "--no-default", "--emit", "mlir", "--spec"])
        .arg(spec));
    ops_text(&output.stdout)
}

#[test]
fn iree_ops_print_as_iree_opt_prints_them() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let good = fixtures("good");
    assert!(good.len() >= 3, "{good:?}");
    let mut read_as_bytecode = 0;
    for spec in &good {
        let name = spec.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(spec).unwrap();
        let theirs = ops_text(
            &run(Command::new(&iree_opt)
                .arg("--allow-unregistered-dialect")
                .arg(spec))
            .stdout,
        );
        assert!(theirs.contains("transform.iree.match."), "{name}");
        assert_eq!(printed_by_tunespec(spec), theirs, "{name}: text");

        // iree-opt's generic form of the same spec reads back to the same ops.
        let generic = dir.path().join(format!("generic_{name}"));
        run(Command::new(&iree_opt)
            .args([
                "--allow-unregistered-dialect",
                "--mlir-print-op-generic",
                "-o",
            ])
            .arg(&generic)
            .arg(spec));
        assert!(std::fs::read_to_string(&generic)
            .unwrap()
            .contains("\"transform.iree.match."));
        assert_eq!(
            printed_by_tunespec(&generic),
            theirs,
            "{name}: generic form"
        );

        // iree-opt's bytecode: IREE's property encoding must be ours. MLIR 24 (iree-opt 3.13)
        // writes affine maps with an attribute code MLIR 22 does not know (mlir-opt 22 refuses
        // them too), so only specs without affine maps can round-trip.
        let bytecode = dir.path().join(format!("{name}bc"));
        run(Command::new(&iree_opt)
            .args(["--allow-unregistered-dialect", "--emit-bytecode", "-o"])
            .arg(&bytecode)
            .arg(spec));
        if !text.contains("affine_map") {
            assert_eq!(printed_by_tunespec(&bytecode), theirs, "{name}: bytecode");
            read_as_bytecode += 1;
        }
    }
    assert!(read_as_bytecode >= 1);
}

/// The first diagnostic of an MLIR tool: (line, severity, message).
fn first_diagnostic(stderr: &str, file: &str) -> Option<(u64, String, String)> {
    stderr.lines().find_map(|line| {
        let rest = line.strip_prefix(file)?.strip_prefix(':')?;
        let (line_number, rest) = rest.split_once(':')?;
        let (_column, rest) = rest.split_once(": ")?;
        let (severity, message) = rest.split_once(": ")?;
        if !matches!(severity, "error" | "warning") {
            return None;
        }
        Some((
            line_number.parse().ok()?,
            severity.to_string(),
            message.to_string(),
        ))
    })
}

#[test]
fn bad_uses_fail_where_iree_opt_fails_with_its_message() {
    let Some(iree_opt) = iree_opt() else { return };
    let bad_dir = repo_root().join("tests/fixtures/iree/bad");
    let bad = fixtures("bad");
    assert!(bad.len() >= 20, "{bad:?}");
    for spec in &bad {
        let name = spec.file_name().unwrap().to_string_lossy().to_string();
        let theirs = Command::new(&iree_opt)
            .current_dir(&bad_dir)
            .args(["--allow-unregistered-dialect", "-o", "/dev/null"])
            .arg(&name)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&theirs.stderr);
        let (line, severity, message) = first_diagnostic(&stderr, &name)
            .unwrap_or_else(|| panic!("{name}: iree-opt gave no diagnostic: {stderr}"));
        assert_eq!(
            theirs.status.success(),
            severity == "warning",
            "{name}: {stderr}"
        );

        let ours = tunespec()
            .args(["verify", "--format", "json"])
            .arg(spec)
            .output()
            .unwrap();
        // Every fixture also lacks an entry point, so tunespec reports an error either way.
        assert_eq!(ours.status.code(), Some(1), "{name}");
        let problems: Vec<serde_json::Value> = String::from_utf8_lossy(&ours.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&ours.stderr).lines())
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let same = problems.iter().any(|problem| {
            problem["line"] == line
                && problem["severity"] == severity.as_str()
                && problem["message"] == message.as_str()
        });
        assert!(
            same,
            "{name}: iree-opt says line {line} {severity}: {message}; tunespec: {problems:#?}"
        );
    }
}

/// For each function of a materialized payload, the `workgroup` tiles of the configs on its
/// ops (IREE's `lowering_config` after `materialize-user-configs`, tunespec's
/// `compilation_info`): each spec gives every matcher distinct tiles, so this says which matcher
/// configured which op.
pub(crate) fn configs_by_function(text: &[u8]) -> BTreeMap<String, Vec<String>> {
    let mut configs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut function = String::new();
    for line in String::from_utf8_lossy(text).lines() {
        if let Some(rest) = line.trim_start().strip_prefix("func.func @") {
            function = rest
                .split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .unwrap()
                .to_string();
        }
        if line.contains("func.func") || !line.contains("lowering_config") {
            continue;
        }
        let tiles = line
            .split_once("workgroup = [")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(tiles, _)| tiles.to_string())
            .unwrap_or_else(|| "no workgroup tiles".to_string());
        configs.entry(function.clone()).or_default().push(tiles);
    }
    configs
}

#[test]
fn interpreter_configures_what_iree_materializes() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root().join("tests/fixtures/iree");
    // (spec, payload, functions IREE configures)
    let cases = [
        (
            "good/contraction_family.mlir",
            "payloads/contractions.mlir",
            13,
        ),
        ("good/dag_and_values.mlir", "payloads/dags.mlir", 3),
    ];
    for (spec, payload, expected) in cases {
        let spec = root.join(spec);
        let payload = root.join(payload);
        let theirs = run(Command::new(&iree_opt)
            .args(["--allow-unregistered-dialect", "--mlir-print-local-scope"])
            .arg(format!(
                "--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs)",
                spec.display()
            ))
            .arg(&payload))
        .stdout;
        let applied = dir.path().join("applied.mlir");
        run(tunespec()
            .args(["apply", "--no-default", "--engine", "interpreter", "-o"])
            .arg(&applied)
            .arg("--spec")
            .arg(&spec)
            .arg(&payload));
        let ours = std::fs::read(&applied).unwrap();
        let theirs = configs_by_function(&theirs);
        assert_eq!(theirs.len(), expected, "{}: {theirs:#?}", payload.display());
        assert_eq!(
            configs_by_function(&ours),
            theirs,
            "{} with {}",
            payload.display(),
            spec.display()
        );
    }
}
