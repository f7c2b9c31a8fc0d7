//! Every entry-point form iree-compile 3.13 accepts, run as IREE runs it: the legacy
//! `@__kernel_config` without result or marker (IREE's SDXL specs), several marked entry points
//! in one spec, entry points named otherwise (`@main`), and a marked entry point beside an
//! unmarked `@__kernel_config`. Each is checked against iree-opt's materialization (tags on the
//! payload) or iree-compile's configs; `explain` and `coverage` follow the configs through
//! `transform.include`. Fixtures: `tests/fixtures/iree/forms/`, written for these tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::iree_e2e::{by_location, compare, compile_configs, without_locations};
use crate::reference::{iree_compile, iree_opt, output_with_timeout, repo_root};
use crate::support::{run, tunespec_command};

const GFX942: &[&str] = &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"];

fn forms() -> PathBuf {
    repo_root().join("tests/fixtures/iree/forms")
}

fn payloads() -> PathBuf {
    repo_root().join("tests/fixtures/iree/payloads")
}

/// iree-opt's materialization of `spec` (by path, alone) on `payload`.
fn iree_materialize(iree_opt: &Path, spec: &Path, payload: &Path) -> Output {
    output_with_timeout(
        Command::new(iree_opt)
            .args(["--allow-unregistered-dialect", "--mlir-print-local-scope"])
            .arg(format!(
                "--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs)",
                spec.display()
            ))
            .arg(payload),
    )
}

/// Function -> the sorted `tag_*` attributes of each linalg op in it, from printed IR.
fn tags_by_function(text: &[u8]) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    let mut function = String::new();
    for line in String::from_utf8_lossy(text).lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("func.func @") {
            function = rest.split('(').next().unwrap().to_string();
            continue;
        }
        if !line.contains("linalg.") {
            continue;
        }
        let mut tags: Vec<String> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|word| word.starts_with("tag_"))
            .map(str::to_string)
            .collect();
        tags.sort();
        out.entry(function.clone()).or_default().push(tags);
    }
    out
}

fn tunespec_apply(spec: &Path, payload: &Path) -> Output {
    tunespec_command()
        .args(["apply", "--no-default", "--spec"])
        .arg(spec)
        .arg(payload)
        .output()
        .unwrap()
}

fn explain_json(specs: &[&Path], payload: &Path, extra: &[&str]) -> serde_json::Value {
    let mut command = tunespec_command();
    command.args(["explain", "--no-default", "--format", "json"]);
    for spec in specs {
        command.arg("--spec").arg(spec);
    }
    let output = run(command.args(extra).arg(payload));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The entry-point forms on a payload of two matmuls: iree-opt 3.13 and `tunespec apply` put
/// the same tags on every op (IREE runs every marked entry point in file order, whatever its
/// name, and never an unmarked `@__kernel_config` beside a marked one).
#[test]
fn entry_point_forms_run_as_in_iree() {
    let Some(iree_opt) = iree_opt() else { return };
    let payload = payloads().join("entry.mlir");
    // (spec, the tags IREE puts on every matmul)
    let cases = [
        ("multi_entry.mlir", vec!["tag_a", "tag_b"]),
        ("main_entry.mlir", vec!["tag_b"]),
        ("marked_beside_unmarked.mlir", vec!["tag_a"]),
        ("legacy_readonly.mlir", vec!["tag_r"]),
    ];
    for (name, expected) in cases {
        let spec = forms().join(name);
        let theirs = iree_materialize(&iree_opt, &spec, &payload);
        assert!(
            theirs.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&theirs.stderr)
        );
        let theirs = tags_by_function(&theirs.stdout);
        let expected: Vec<String> = expected.iter().map(|tag| tag.to_string()).collect();
        assert_eq!(theirs.len(), 2, "{name}: {theirs:?}");
        for ops in theirs.values() {
            assert_eq!(ops, &vec![expected.clone()], "{name}: IREE's tags");
        }
        let ours = tunespec_apply(&spec, &payload);
        assert!(
            ours.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        assert_eq!(tags_by_function(&ours.stdout), theirs, "{name}");
    }
}

/// `explain` follows the configs through the linked library's `transform.include` of each entry
/// point: every matmul is explained by the pair that ran last on it, each pair that ran is
/// listed, and `coverage` counts a pair as fired when any entry point ran it.
#[test]
fn explain_and_coverage_follow_includes_and_every_entry_point() {
    let payload = payloads().join("entry.mlir");
    for (name, matchers, actions) in [
        ("multi_entry.mlir", 2, vec!["tag_a", "tag_b"]),
        ("main_entry.mlir", 1, vec!["tag_b"]),
    ] {
        let spec = forms().join(name);
        let report = explain_json(&[&spec], &payload, &["--view", "written"]);
        let ops = report["ops"].as_array().unwrap();
        assert_eq!(ops.len(), 2, "{name}: {report}");
        for op in ops {
            assert!(!op["matcher"].is_null(), "{name}: no match for {op}");
            let config: Vec<&str> = op["config"]
                .as_array()
                .unwrap()
                .iter()
                .map(|entry| entry["name"].as_str().unwrap())
                .collect();
            assert_eq!(config, actions, "{name}: {op}");
            // Each entry point's pair that ran, in order; the last one is the row's matcher.
            let fired = op["fired"].as_array().unwrap();
            assert_eq!(fired.len(), matchers, "{name}: {op}");
            assert_eq!(fired.last().unwrap()["matcher"], op["matcher"], "{name}");
        }
        // The short form names the pairs that ran before the row's own.
        let short = run(tunespec_command()
            .args([
                "explain",
                "--no-default",
                "--view",
                "written",
                "--format",
                "short",
                "--spec",
            ])
            .arg(&spec)
            .arg(&payload));
        let short = String::from_utf8(short.stdout).unwrap();
        assert_eq!(
            short
                .matches(" after @multi_entry::match_any -> @multi_entry::tag_a")
                .count(),
            if matchers == 2 { 2 } else { 0 },
            "{name}: {short}"
        );
        let output = run(tunespec_command()
            .args(["coverage", "--no-default", "--format", "json", "--spec"])
            .arg(&spec)
            .arg(&payload));
        let coverage: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(coverage["matchers"], matchers, "{name}: {coverage}");
        assert_eq!(coverage["fired"], matchers, "{name}: {coverage}");
        assert_eq!(
            coverage["never_fired"].as_array().unwrap().len(),
            0,
            "{name}"
        );
    }
}

/// Linking two specs that mark two entry points each: IREE's linker includes all four (checked
/// with iree-opt's `--iree-codegen-link-tuning-specs` on a module holding both), and so does
/// tunespec's link.
#[test]
fn two_multi_entry_specs_link_four_entry_points_as_in_iree() {
    let spec = forms().join("multi_entry.mlir");
    let text = std::fs::read_to_string(&spec).unwrap();
    let body: String = text
        .lines()
        .filter(|line| !line.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let dir = tempfile::tempdir().unwrap();
    let second = dir.path().join("multi_entry_b.mlir");
    std::fs::write(
        &second,
        text.replace("tag_a", "tag_c").replace("tag_b", "tag_d"),
    )
    .unwrap();
    let output = run(tunespec_command()
        .args([
            "link",
            "--no-default",
            "--emit",
            "mlir",
            "-o",
            "-",
            "--spec",
        ])
        .arg(&spec)
        .arg("--spec")
        .arg(&second));
    let ours = String::from_utf8(output.stdout).unwrap();
    let includes = |text: &str| {
        text.lines()
            .filter(|line| {
                line.contains("transform.include") && line.contains("failures(suppress)")
            })
            .count()
    };
    assert_eq!(includes(&ours), 4, "{ours}");
    // Applied, every op gets the four tags, as IREE's linked library gives them.
    let linked = dir.path().join("linked.mlir");
    std::fs::write(&linked, &ours).unwrap();
    let applied = run(tunespec_command()
        .args(["apply", "--spec"])
        .arg(&linked)
        .args(["--no-default"])
        .arg(payloads().join("entry.mlir")));
    let applied = tags_by_function(&applied.stdout);
    assert_eq!(applied.len(), 2, "{applied:?}");
    for ops in applied.values() {
        assert_eq!(ops, &vec![vec!["tag_a", "tag_b", "tag_c", "tag_d"]]);
    }
    let Some(iree_opt) = iree_opt() else { return };
    let container = dir.path().join("container.mlir");
    std::fs::write(
        &container,
        format!(
            "module @td attributes {{transform.with_named_sequence}} {{\n{}\n{}\n}}\n",
            body.replacen("module attributes", "module @a attributes", 1),
            body.replacen("module attributes", "module @b attributes", 1)
                .replace("tag_a", "tag_c")
                .replace("tag_b", "tag_d")
        ),
    )
    .unwrap();
    let theirs = output_with_timeout(
        Command::new(&iree_opt)
            .args(["--no-implicit-module", "--iree-codegen-link-tuning-specs"])
            .arg(&container),
    );
    assert!(
        theirs.status.success(),
        "{}",
        String::from_utf8_lossy(&theirs.stderr)
    );
    assert_eq!(includes(&String::from_utf8_lossy(&theirs.stdout)), 4);
    // IREE's linked library, materialized by IREE, tags as tunespec's does.
    let iree_linked = dir.path().join("iree_linked.mlir");
    std::fs::write(&iree_linked, &theirs.stdout).unwrap();
    let materialized = iree_materialize(&iree_opt, &iree_linked, &payloads().join("entry.mlir"));
    assert!(
        materialized.status.success(),
        "{}",
        String::from_utf8_lossy(&materialized.stderr)
    );
    assert_eq!(tags_by_function(&materialized.stdout), applied);
}

/// The legacy entry point (IREE's SDXL form) links without IREE at hand: verify warns that it is
/// unmarked, link succeeds and nests it; the linked library's copy returns the handle its
/// foreach_match returns, so that later specs still get a valid handle.
#[test]
fn legacy_entry_point_links_and_applies() {
    let spec = forms().join("sdxl_legacy.mlir");
    let verify = tunespec_command()
        .args(["verify", "--no-iree-check"])
        .arg(&spec)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    assert!(
        String::from_utf8_lossy(&verify.stdout).contains("missing-entrypoint"),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let linked = run(tunespec_command()
        .args([
            "link", "--target", "gfx942", "--emit", "mlir", "-o", "-", "--spec",
        ])
        .arg(&spec));
    let text = String::from_utf8(linked.stdout).unwrap();
    assert!(
        text.contains("transform.include @sdxl_legacy::@__kernel_config failures(suppress)"),
        "{text}"
    );
    assert!(
        text.contains("@__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op {"),
        "the nested legacy entry point returns its handle: {text}"
    );
    // tunespec's defaults for gfx942 run after it, on the handle it returned.
    let applied = run(tunespec_command()
        .args(["apply", "--target", "gfx942", "--spec"])
        .arg(&spec)
        .arg(payloads().join("sdxl_matmuls.mlir")));
    let applied = String::from_utf8(applied.stdout).unwrap();
    assert_eq!(
        applied.matches("workgroup = [128, 128, 0]").count(),
        1,
        "{applied}"
    );
    assert_eq!(
        applied.matches("workgroup = [64, 64, 0]").count(),
        1,
        "{applied}"
    );
    assert_eq!(
        applied.matches("workgroup = [64, 128, 0]").count(),
        1,
        "{applied}"
    );
}

/// The SDXL-form spec by itself, as iree-compile 3.13 applies it (`--iree-codegen-tuning-spec-path`):
/// `explain` reports the config IREE puts on each dispatch; the library `link` writes, given to
/// iree-compile, and the payload `apply --as-dispatch` writes, compiled without a spec, give
/// IREE's dispatches the same configs.
#[test]
fn sdxl_form_spec_configures_what_iree_compile_does() {
    let Some(compiler) = iree_compile() else {
        return;
    };
    let spec = forms().join("sdxl_legacy.mlir");
    let payload = payloads().join("sdxl_matmuls.mlir");
    let theirs = compile_configs(&compiler, GFX942, &payload, Some(&spec));
    let tuned = by_location(&theirs);
    let report = explain_json(&[&spec], &payload, &["--target", "gfx942"]);
    let configured = compare("sdxl_legacy", &report, &tuned, None);
    assert_eq!(configured, 3, "{report}");

    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("linked.mlir");
    run(tunespec_command()
        .args(["link", "--no-default", "--emit", "mlir", "-o"])
        .arg(&library)
        .arg("--spec")
        .arg(&spec));
    let linked = compile_configs(&compiler, GFX942, &payload, Some(&library));
    assert_eq!(without_locations(&linked), without_locations(&theirs));

    let applied = dir.path().join("applied.mlir");
    run(tunespec_command()
        .args(["apply", "--no-default", "--as-dispatch", "-o"])
        .arg(&applied)
        .arg("--spec")
        .arg(&spec)
        .arg(&payload));
    // The dispatch of a generalized `linalg.matmul` is named `matmul_like_...`: configs only.
    let configs = |dispatches: &[crate::iree_e2e::Dispatch]| {
        without_locations(dispatches)
            .into_iter()
            .map(|(_, ops, translation)| (ops, translation))
            .collect::<Vec<_>>()
    };
    let materialized = compile_configs(&compiler, GFX942, &applied, None);
    assert_eq!(configs(&materialized), configs(&theirs));
}

/// The legacy entry point in a library for IREE: linked before tunespec's gfx942 defaults and
/// given to iree-compile by path, and attached to the payload (IREE reads the bytecode), it
/// configures every dispatch as `explain` says; the adapted chain (the legacy copy returns its
/// handle, the defaults run on it) passes IREE's handle checks.
#[test]
fn legacy_entry_point_before_defaults_configures_what_iree_compile_does() {
    let Some(compiler) = iree_compile() else {
        return;
    };
    let spec = forms().join("legacy_contraction.mlir");
    let payload = payloads().join("sdxl_matmuls.mlir");
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("linked.mlir");
    run(tunespec_command()
        .args(["link", "--target", "gfx942", "--emit", "mlir", "-o"])
        .arg(&library)
        .arg("--spec")
        .arg(&spec));
    let by_path = compile_configs(&compiler, GFX942, &payload, Some(&library));
    let alone = explain_json(&[&spec], &payload, &[]);
    assert_eq!(alone["matched"], 2, "{alone}");
    let mut command = tunespec_command();
    command.args([
        "explain", "--format", "json", "--target", "gfx942", "--spec",
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&run(command.arg(&spec).arg(&payload)).stdout).unwrap();
    let configured = compare("legacy_contraction", &report, &by_location(&by_path), None);
    assert_eq!(configured, 2, "{report}");

    let attached = dir.path().join("attached.mlir");
    run(tunespec_command()
        .args(["attach", "--target", "gfx942", "-o"])
        .arg(&attached)
        .arg("--spec")
        .arg(&spec)
        .arg(&payload));
    let from_attached = compile_configs(&compiler, GFX942, &attached, None);
    assert_eq!(
        without_locations(&from_attached),
        without_locations(&by_path)
    );
}

/// IREE runs a legacy spec alone directly, without `failures(suppress)`: a failure in its body
/// fails the compile, and `apply` of that spec alone fails too. Linked with other specs (where
/// IREE drops it), tunespec includes it with its failures suppressed, like any spec.
#[test]
fn a_failing_legacy_entry_point_fails_alone_as_in_iree() {
    let spec = forms().join("legacy_failing.mlir");
    let payload = payloads().join("entry.mlir");
    let ours = tunespec_apply(&spec, &payload);
    assert_eq!(
        ours.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    assert!(
        String::from_utf8_lossy(&ours.stderr).contains("wrong operation name"),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let linked = run(tunespec_command()
        .args(["apply", "--target", "gfx942", "--spec"])
        .arg(&spec)
        .arg(&payload));
    assert_eq!(
        tags_by_function(&linked.stdout)
            .values()
            .flatten()
            .filter(|tags| tags == &&vec!["tag_a".to_string()])
            .count(),
        2
    );
    let Some(iree_opt) = iree_opt() else { return };
    let theirs = iree_materialize(&iree_opt, &spec, &payload);
    assert!(!theirs.status.success());
    assert!(String::from_utf8_lossy(&theirs.stderr).contains("wrong operation name"));
}

/// A legacy entry point whose argument is consumed by an op that returns no handle in its place
/// cannot go on in a chain: `link` says why (exit 1, `entry-signature`), at the entry point.
#[test]
fn a_legacy_entry_point_that_leaves_no_handle_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("no_handle.mlir");
    std::fs::write(
        &spec,
        r#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @inner(%op: !transform.any_op {transform.consumed}) {
    %res = transform.foreach_match in %op @match -> @tag : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @match(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tag(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "__tuning_spec_applied__" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__kernel_config(%root: !transform.any_op {transform.consumed}) {
    transform.include @inner failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
"#,
    )
    .unwrap();
    let output = tunespec_command()
        .args(["link", "--target", "gfx942", "-o", "-", "--spec"])
        .arg(&spec)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("tunespec::link::entry-signature"),
        "{stderr}"
    );
    assert!(
        stderr.contains("consumes its argument and no op of its body returns the handle"),
        "{stderr}"
    );
    assert!(stderr.contains("no_handle.mlir:14:3"), "{stderr}");
}
