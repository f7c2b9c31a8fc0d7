//! Random IREE-form specs and payloads (tools/gen-iree-semantics.py), applied by tunespec's two
//! engines and materialized by iree-opt 3.13: for every function, the same matcher configures the
//! same ops, and both engines write byte-identical payloads.
//!
//! The generator aims each matcher at a payload op and perturbs it (other element types, wrong
//! or wildcard sizes, indexing maps right or wrong, has_no_lowering_config on configured ops,
//! operand checks), over contractions in many layouts and types, convolutions, attention and
//! online attention, and ops nothing should match; so most matchers nearly match and the
//! comparison exercises each rule's edge. `TUNESPEC_SEMANTIC_SEEDS` sets how many seeds of each
//! form run (default 6; `tools/semantics-fuzz` runs more).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use crate::iree_ops::configs_by_function;
use crate::reference::{in_ci, iree_opt, repo_root};

fn seeds() -> u64 {
    std::env::var("TUNESPEC_SEMANTIC_SEEDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(6)
}

fn generate(dir: &Path, seed: u64, tuner_form: bool) -> bool {
    let mut command = Command::new("python3");
    command
        .arg(repo_root().join("tools/gen-iree-semantics.py"))
        .args([
            "--seed",
            &seed.to_string(),
            "--ops",
            "40",
            "--matchers",
            "30",
        ])
        .arg("--out")
        .arg(dir);
    if tuner_form {
        command.arg("--tuner-form");
    }
    match command.status() {
        Ok(status) => {
            assert!(status.success(), "generator failed for seed {seed}");
            true
        }
        Err(error) if !in_ci() => {
            eprintln!("note: python3 not runnable ({error}); this differential check did not run");
            false
        }
        Err(error) => panic!("python3 is required when CI=true: {error}"),
    }
}

/// IREE's materialization of `spec` on `payload` (iree-opt's output, however it exits; a hung
/// run is killed and tried again, see `reference::output_with_timeout`).
fn iree_materialize(iree_opt: &Path, spec: &Path, payload: &Path) -> Output {
    crate::reference::output_with_timeout(
        Command::new(iree_opt)
            .args(["--allow-unregistered-dialect", "--mlir-print-local-scope"])
            .arg(format!(
                "--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs)",
                spec.display()
            ))
            .arg(payload),
    )
}

/// Function name -> the name of its root op (the first op of the body other than a constant),
/// from the generated payload's text.
fn root_ops(payload: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut function: Option<String> = None;
    for line in payload.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("func.func @") {
            function = rest.split('(').next().map(str::to_string);
            continue;
        }
        let Some((_, rest)) = line.split_once(" = ") else {
            continue;
        };
        let op = rest
            .trim_start()
            .trim_start_matches('"')
            .split(['"', ' '])
            .next()
            .unwrap_or_default();
        if op != "arith.constant" {
            if let Some(name) = function.take() {
                out.insert(name, op.to_string());
            }
        }
    }
    out
}

#[test]
fn random_specs_configure_what_iree_materializes() {
    let Some(iree_opt) = iree_opt() else { return };
    let tunespec = crate::support::tunespec_command;
    let mut configured_kinds: BTreeSet<String> = BTreeSet::new();
    let mut configured = 0;
    let mut functions = 0;
    for tuner_form in [false, true] {
        // The tuner form is what the native matcher evaluates: `--engine native` refuses
        // anything else, so this also checks that it takes every such spec.
        let engine = if tuner_form { "native" } else { "auto" };
        for seed in 1..=seeds() {
            let dir = tempfile::tempdir().unwrap();
            if !generate(dir.path(), seed, tuner_form) {
                return;
            }
            let spec = dir.path().join("spec.mlir");
            let payload = dir.path().join("payload.mlir");
            let case = format!("seed {seed}, tuner form {tuner_form}");
            let theirs = iree_materialize(&iree_opt, &spec, &payload);
            assert!(
                theirs.status.success(),
                "{case}: iree-opt failed: {}",
                String::from_utf8_lossy(&theirs.stderr)
            );
            let mut outputs = Vec::new();
            for engine in ["interpreter", engine] {
                let out = dir.path().join(format!("{engine}.mlir"));
                let ours = tunespec()
                    .args(["apply", "--no-default", "--engine", engine, "--spec"])
                    .arg(&spec)
                    .arg("-o")
                    .arg(&out)
                    .arg(&payload)
                    .output()
                    .unwrap();
                assert!(
                    ours.status.success(),
                    "{case}: tunespec apply --engine {engine} failed: {}",
                    String::from_utf8_lossy(&ours.stderr)
                );
                outputs.push(std::fs::read(&out).unwrap());
            }
            assert!(
                outputs[0] == outputs[1],
                "{case}: the interpreter and the {engine} engine wrote different payloads"
            );
            let theirs = configs_by_function(&theirs.stdout);
            let ours = configs_by_function(&outputs[0]);
            assert_eq!(
                ours, theirs,
                "{case}: configs by function differ from iree-opt"
            );

            let roots = root_ops(&std::fs::read_to_string(&payload).unwrap());
            functions += roots.len();
            // Ops the generator configured beforehand carry tiles [7, 7, 0]; no matcher has them.
            for (function, tiles) in &theirs {
                if tiles.iter().all(|tiles| tiles == "7, 7, 0") {
                    continue;
                }
                configured += 1;
                if let Some(op) = roots.get(function) {
                    configured_kinds.insert(op.clone());
                }
            }
        }
    }
    // The comparison means something only when the specs configure ops of every kind (and
    // leave others alone).
    assert!(
        configured * 5 > functions && configured * 10 < functions * 9,
        "{configured} of {functions} functions configured"
    );
    let kinds: [&[&str]; 5] = [
        &["linalg.generic"],
        &[
            "linalg.matmul",
            "linalg.batch_matmul",
            "linalg.matvec",
            "linalg.vecmat",
        ],
        &[
            "linalg.conv_2d_nhwc_hwcf",
            "linalg.conv_2d_nchw_fchw",
            "linalg.depthwise_conv_2d_nhwc_hwc",
        ],
        &["iree_linalg_ext.attention"],
        &["iree_linalg_ext.online_attention"],
    ];
    for kind in kinds {
        assert!(
            kind.iter().any(|name| configured_kinds.contains(*name)),
            "none of {kind:?} configured in {} seeds: {configured_kinds:?}",
            seeds()
        );
    }
}

/// IREE 3.13's entry-point rules on whole files (`tests/fixtures/iree/entry/`): specs nested in
/// container modules (named or not, several, deeper), a nested spec before a top-level entry
/// point, `func.func` inside a spec, two top-level modules, an entry point without IREE's marker,
/// a broken spec after the one IREE runs (IREE's loader verifies the whole file). For each file,
/// iree-opt's materialization and `tunespec apply` configure the same functions the same way,
/// or both refuse the file.
#[test]
fn entry_point_rules_match_iree() {
    let Some(iree_opt) = iree_opt() else { return };
    let root = repo_root().join("tests/fixtures/iree");
    let payload = root.join("payloads/entry.mlir");
    let mut specs: Vec<_> = std::fs::read_dir(root.join("entry"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    specs.sort();
    assert!(specs.len() >= 8, "{specs:?}");
    let mut refused = 0;
    for spec in &specs {
        let name = spec.file_name().unwrap().to_string_lossy().to_string();
        let theirs = iree_materialize(&iree_opt, spec, &payload);
        let ours = crate::support::tunespec_command()
            .args(["apply", "--no-default", "--spec"])
            .arg(spec)
            .arg(&payload)
            .output()
            .unwrap();
        assert_eq!(
            ours.status.success(),
            theirs.status.success(),
            "{name}: iree-opt {:?}: {}\ntunespec {:?}: {}",
            theirs.status,
            String::from_utf8_lossy(&theirs.stderr),
            ours.status,
            String::from_utf8_lossy(&ours.stderr)
        );
        if !theirs.status.success() {
            assert_eq!(ours.status.code(), Some(1), "{name}");
            refused += 1;
            continue;
        }
        let theirs = configs_by_function(&theirs.stdout);
        assert!(!theirs.is_empty(), "{name}: IREE configured nothing");
        assert_eq!(configs_by_function(&ours.stdout), theirs, "{name}");
        // Where IREE silently runs only the first nested spec, tunespec says so.
        let nested = std::fs::read_to_string(spec)
            .unwrap()
            .lines()
            .filter(|line| line.trim_start().starts_with("module"))
            .count()
            > 1;
        let warned = String::from_utf8_lossy(&ours.stderr).contains("nested-entrypoint");
        let top_level_entry = name == "nested_first.mlir";
        assert_eq!(warned, nested && !top_level_entry, "{name}");
    }
    assert!(refused >= 2, "{refused} refused");
}
