//! Golden CLI tests: fixed width, no colour. `SNAPSHOTS=overwrite cargo test` rewrites the
//! files under `tests/all/snapshots/` (review the diff before committing).

use std::path::Path;

use snapbox::cmd::Command;

use crate::reference::repo_root;

fn tunespec() -> Command {
    // Hermetic (crate::support), and no cache of linked libraries: every run links.
    crate::support::snapbox_tunespec().env("TUNESPEC_CACHE", "off")
}

fn fixture(path: &str) -> String {
    format!("tests/fixtures/specs/{path}")
}

#[test]
fn verify_good_fixtures() {
    tunespec()
        .args(["verify", &fixture("good")])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/verify_good.stdout"]);
}

#[test]
fn verify_reports_every_problem_in_a_file() {
    tunespec()
        .args(["verify", &fixture("bad/several_problems.mlir")])
        .assert()
        .code(1)
        .stdout_eq(snapbox::file!["snapshots/verify_several_problems.stdout"]);
}

#[test]
fn verify_json_lines() {
    tunespec()
        .args(["verify", "--format", "json", &fixture("bad")])
        .assert()
        .code(1)
        .stdout_eq(snapbox::file!["snapshots/verify_bad.jsonl"]);
}

#[test]
fn verify_json_is_one_valid_object_per_line_with_the_documented_fields() {
    let output = tunespec()
        .args(["verify", "--format", "json", &fixture("bad")])
        .output()
        .expect("runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 8);
    // One diagnostic per problem, then one summary object.
    let (summary, diagnostics) = lines.split_last().unwrap();
    for line in diagnostics {
        let value: serde_json::Value =
            serde_json::from_str(line).expect("one JSON object per line");
        for field in [
            "version", "severity", "code", "message", "file", "line", "column", "help", "related",
        ] {
            assert!(value.get(field).is_some(), "{field} missing in {line}");
        }
        assert_eq!(value["version"], 1);
    }
    let summary: serde_json::Value = serde_json::from_str(summary).expect("JSON");
    assert_eq!(summary["version"], 1);
    assert_eq!(summary["summary"]["errors"], diagnostics.len());
    // -q: no summary.
    let quiet = tunespec()
        .args(["verify", "-q", "--format", "json", &fixture("bad")])
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8(quiet.stdout).unwrap().lines().count(),
        diagnostics.len()
    );
}

#[test]
fn verify_output_does_not_depend_on_worker_count() {
    let run = |jobs: &str| {
        tunespec()
            .args([
                "verify",
                "-j",
                jobs,
                &fixture("bad"),
                &fixture("good"),
                "specs",
            ])
            .output()
            .expect("runs")
    };
    let one = run("1");
    let two = run("2");
    let eight = run("8");
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stdout, eight.stdout);
}

/// The matchers of the default specs, counted in their source text.
fn default_matchers() -> usize {
    tunespec::registry::specs()
        .iter()
        .map(|spec| {
            std::fs::read_to_string(repo_root().join(spec.path))
                .unwrap()
                .matches("transform.named_sequence @match_")
                .count()
        })
        .sum()
}

#[test]
fn verify_embedded_registry() {
    tunespec()
        .args(["verify"])
        .assert()
        .code(0)
        .stdout_eq(format!(
            "verified 16 file(s), {} matcher(s): 0 error(s), 0 warning(s)\n",
            default_matchers()
        ));
}

#[test]
fn verify_missing_file_is_a_usage_error() {
    tunespec()
        .args(["verify", "no/such/spec.mlir"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: cannot read no/such/spec.mlir: no such file or directory\n");
}

#[test]
fn verify_directory_without_specs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a spec").unwrap();
    let output = tunespec()
        .args(["verify"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("holds no spec files (.mlir, .mlirbc)")
    );
}

/// Runs `verify --format json` on one file and returns (exit code, codes reported). IREE's
/// attributes are not checked here (tests/all/iree_verify.rs does): these tests are about bytes.
fn codes_for(path: &Path) -> (i32, Vec<String>) {
    let output = tunespec()
        .args(["verify", "--format", "json", "--no-iree-check"])
        .arg(path)
        .output()
        .expect("runs");
    let codes = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| !line.starts_with("{\"summary\""))
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("json");
            value["code"].as_str().unwrap().to_string()
        })
        .collect();
    (output.status.code().expect("no signal"), codes)
}

#[test]
fn bad_inputs_get_a_code_and_exit_one_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    // A good spec in IREE's tuner form (an upstream-form one would get IREE's named-op warning).
    let good = std::fs::read(repo_root().join(fixture("good/iree_one_matcher.mlir"))).unwrap();
    // Bytecode of a good spec, written by tunespec's own writer, then truncated.
    let mlir = tunespec::mlir::Mlir::new();
    let bytecode = mlir
        .parse(&good, "iree_one_matcher.mlir")
        .module
        .unwrap()
        .to_bytecode()
        .unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.mlir", Vec::new(), "tunespec::verify::empty"),
        (
            "comments.mlir",
            b"// nothing here\n".to_vec(),
            "tunespec::verify::empty",
        ),
        (
            "garbage.mlirbc",
            (0..=255u8).cycle().take(4096).collect(),
            "tunespec::verify::nul-byte",
        ),
        (
            "latin1.mlir",
            b"module {\n  \"x.y\"() {s = \"caf\xE9\"} : () -> ()\n}\n".to_vec(),
            "tunespec::verify::invalid-utf8",
        ),
        (
            "truncated.mlirbc",
            bytecode[..bytecode.len() / 2].to_vec(),
            "tunespec::verify::bad-bytecode",
        ),
        (
            "magic_only.mlirbc",
            b"ML\xEFR".to_vec(),
            "tunespec::verify::bad-bytecode",
        ),
        (
            "payload.mlir",
            std::fs::read(repo_root().join(fixture("bad/payload.mlir"))).unwrap(),
            "tunespec::verify::payload-not-spec",
        ),
    ];
    for (name, bytes, code) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let (exit, codes) = codes_for(&path);
        assert_eq!(exit, 1, "{name}: {codes:?}");
        assert!(
            codes.iter().any(|c| c == code),
            "{name}: expected {code}, got {codes:?}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was modified");
    }
    // The untruncated bytecode verifies.
    let path = dir.path().join("good.mlirbc");
    std::fs::write(&path, &bytecode).unwrap();
    assert_eq!(codes_for(&path), (0, vec![]));
}

#[test]
fn a_50_mb_spec_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let one =
        std::fs::read_to_string(repo_root().join(fixture("good/iree_one_matcher.mlir"))).unwrap();
    // Pad the spec with a large comment-free payload: one matcher per ~2 KB, renamed uniquely.
    let matcher_start = one.find("  transform.named_sequence @match_mmt").unwrap();
    let matcher_end = one
        .find("  transform.named_sequence @__kernel_config")
        .unwrap();
    let matcher = &one[matcher_start..matcher_end];
    let mut text = String::with_capacity(52 << 20);
    text.push_str(&one[..matcher_end]);
    let mut count = 0;
    while text.len() < 50 << 20 {
        text.push_str(
            &matcher.replace("@match_mmt_f16_2048x4096x4096", &format!("@extra_{count}")),
        );
        count += 1;
    }
    text.push_str(&one[matcher_end..]);
    let path = dir.path().join("big.mlir");
    std::fs::write(&path, &text).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() >= 50 << 20);
    let (exit, codes) = codes_for(&path);
    assert_eq!((exit, codes), (0, vec![]));
}

#[test]
fn deny_warnings_turns_warnings_into_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_root().join(fixture("good/one_matcher.mlir")))
        .unwrap()
        // In a sequence nothing runs: a warning (reachable, it would be `changes-semantics`).
        .replacen(
            "  transform.named_sequence @apply_op_config(",
            "  transform.named_sequence @unused(%op: !transform.any_op {transform.readonly}) {\n    transform.apply_patterns to %op {\n    } : !transform.any_op\n    transform.yield\n  }\n  transform.named_sequence @apply_op_config(",
            1,
        );
    let path = dir.path().join("rewrites.mlir");
    std::fs::write(&path, text).unwrap();
    let plain = tunespec()
        .args(["verify", "-q"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&plain.stdout).contains("rewrites the payload"));
    let strict = tunespec()
        .args(["verify", "-q", "--deny-warnings"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn targets_lists_the_registry() {
    tunespec()
        .args(["targets"])
        .assert()
        .code(0)
        .stdout_eq(snapbox::file!["snapshots/targets.stdout"]);
}

#[test]
fn show_prints_a_target_by_alias() {
    let output = tunespec().args(["show", "MI300X"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let matchers = std::fs::read_to_string(repo_root().join("specs/gfx942/llama2_f16.mlir"))
        .unwrap()
        .matches("transform.named_sequence @match_")
        .count();
    assert!(text.contains(&format!(
        "// specs/gfx942/llama2_f16.mlir ({matchers} matchers)"
    )));
    assert!(text.contains("transform.iree.match.contraction"));
    assert!(text.contains("module @gfx942_llama2_f16 attributes"));
    assert!(text.contains("#iree_gpu.mma_layout<MFMA_F32"));
}

#[test]
fn show_unknown_target_suggests_the_nearest() {
    tunespec()
        .args(["show", "gfx943"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: unknown target 'gfx943' (did you mean gfx942?)\n");
}

#[test]
fn link_writes_atomically_and_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlir");
    let run = || {
        tunespec()
            .args([
                "link",
                "--target",
                "mi300x",
                "--spec",
                &fixture("good/one_matcher.mlir"),
                "-o",
            ])
            .arg(&out)
            .assert()
            .code(0);
        std::fs::read(&out).unwrap()
    };
    let first = run();
    let second = run();
    assert_eq!(first, second);
    let text = String::from_utf8(first).unwrap();
    // The indexing maps of the defaults' matchers are printed as aliases before the module.
    let module = text.lines().find(|line| !line.starts_with("#map")).unwrap();
    assert!(text.starts_with("#map = affine_map<"));
    assert!(module.starts_with("module @iree_linked_tuning_spec attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}"));
    // User spec first: its matcher leads the list; the defaults follow: gfx942's pairs, then
    // those of its family, gfx9.
    let list_start = text.find("transform.foreach_match in").unwrap();
    let list = &text[list_start..];
    let pairs: Vec<&str> = list
        .split(" -> @")
        .map(|before| before.rsplit('@').next().unwrap())
        .collect();
    assert_eq!(pairs[0], "match_mmt_f16_2048x4096x4096");
    assert_eq!(pairs.len() - 1, 1 + chain_matchers("gfx942"));
    // No temporary files left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert_eq!(leftovers.len(), 1);
}

#[test]
fn link_bytecode_output_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlirbc");
    tunespec()
        .args(["link", "--target", "gfx950", "--emit", "mlirbc", "-o"])
        .arg(&out)
        .assert()
        .code(0);
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"ML\xEFR"));
    tunespec().args(["verify", "-q"]).arg(&out).assert().code(0);
}

#[test]
fn link_refuses_bad_specs_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlir");
    let output = tunespec()
        .args([
            "link",
            "--no-default",
            "--spec",
            &fixture("bad/several_problems.mlir"),
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unresolved matcher symbol @nosuch"),
        "{stderr}"
    );
    assert!(
        stderr.contains("tests/fixtures/specs/bad/several_problems.mlir:13:10"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn link_usage_errors() {
    tunespec()
        .args(["link", "--target", "gfx943"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: unknown target 'gfx943' (did you mean gfx942?)\n");
    tunespec()
        .args(["link"])
        .assert()
        .code(2)
        .stderr_eq("tunespec: error: --target is required unless --no-default is given\n");
    tunespec()
        .args(["link", "--no-default", "-o", "/nonexistent-dir/out.mlir"])
        .assert()
        .code(2);
}

/// The matchers a target's chain of default specs has.
fn chain_matchers(target: &str) -> usize {
    tunespec::Registry::embedded()
        .with_derived(true)
        .resolve(target, &[])
        .unwrap()
        .specs
        .iter()
        .filter_map(|spec| spec.matchers())
        .sum()
}

#[test]
fn link_reports_shadowed_matchers_and_dedupes() {
    // A copy of a default spec given as a user spec: every one of the default's matchers is
    // overridden by the copy's (a note naming both; no warning: overriding a default is what a
    // user spec is for).
    let dir = tempfile::tempdir().unwrap();
    let default =
        std::fs::read_to_string(repo_root().join("specs/gfx942/llama2_f16.mlir")).unwrap();
    let copied = default.matches("transform.named_sequence @match_").count();
    assert!(copied >= 8);
    let spec_path = dir.path().join("copy_of_gfx942_llama2_f16.mlir");
    std::fs::write(&spec_path, &default).unwrap();
    let spec = spec_path.to_str().unwrap().to_string();
    let output = tunespec()
        .args(["link", "--target", "gfx942", "--spec", &spec, "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("tunespec::link::overrides-default").count(),
        copied,
        "{stderr}"
    );
    assert!(!stderr.contains("shadowed-matcher"), "{stderr}");
    assert!(stderr.contains("user spec matcher"), "{stderr}");
    assert!(stderr.contains("tunespec default matcher"), "{stderr}");
    let linked = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        linked.matches(" -> @").count(),
        copied + chain_matchers("gfx942")
    );
    let deduped = tunespec()
        .args([
            "link", "--target", "gfx942", "--dedupe", "--spec", &spec, "-o", "-",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(deduped.stdout).unwrap();
    // The copy's matchers and the chain's others (gfx942's other spec, gfx9's): the shadowed
    // ones are dropped.
    assert_eq!(text.matches(" -> @").count(), chain_matchers("gfx942"));
}
