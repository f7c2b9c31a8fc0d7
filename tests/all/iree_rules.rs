//! IREE's rules as IREE 3.13 applies them (issue 24, items 5 to 7), each checked against
//! iree-opt or iree-compile 3.13: `transform.structured.match` only reads; the named-op
//! matcher rule depends on the backend; attributes of dialects IREE lacks; a module without
//! `transform.with_named_sequence`; a nested module marked as an entry point.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::reference::{iree_compile, iree_opt, output_with_timeout, repo_root};
use crate::support::tunespec_command;

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/iree/rules").join(name)
}

/// A finding: code, line, message, help.
type Finding = (String, u64, String, String);

/// `tunespec verify --format json` of `spec` with `args`: the exit code and the findings.
fn verify(spec: &Path, args: &[&str]) -> (Option<i32>, Vec<Finding>) {
    let output = tunespec_command()
        .args(["verify", "--format", "json", "--no-iree-check"])
        .args(args)
        .arg(spec)
        .output()
        .unwrap();
    let findings = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|record| record.get("code").is_some())
        .map(|record| {
            let text = |key: &str| record[key].as_str().unwrap_or_default().to_string();
            (
                text("code"),
                record["line"].as_u64().unwrap_or(0),
                text("message"),
                text("help"),
            )
        })
        .collect();
    (output.status.code(), findings)
}

fn iree_opt_accepts(spec: &Path) {
    let Some(iree_opt) = iree_opt() else { return };
    let output = output_with_timeout(Command::new(iree_opt).arg(spec).args(["-o", "/dev/null"]));
    assert!(
        output.status.success(),
        "iree-opt refuses {}: {}",
        spec.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn structured_match_in_a_main_entry_point_only_reads() {
    let spec = fixture("main_structured_match.mlir");
    iree_opt_accepts(&spec);
    let (status, findings) = verify(&spec, &[]);
    assert_eq!(status, Some(0), "{findings:?}");
    let codes: Vec<&str> = findings.iter().map(|f| f.0.as_str()).collect();
    assert!(
        !codes.contains(&"tunespec::verify::entry-effect")
            && !codes.contains(&"tunespec::verify::unsafe-op"),
        "{findings:?}"
    );
    // What still applies: the matcher on `linalg.matmul` (GPU rule, no target given).
    assert_eq!(
        codes,
        ["tunespec::verify::named-op-matcher"],
        "{findings:?}"
    );
}

const NAMED: &str = "tunespec::verify::named-op-matcher";

#[test]
fn named_op_matcher_rule_follows_the_backend() {
    let spec = fixture("named_matmul_tag.mlir");
    // No backend: the GPU rule, and it says so.
    let (status, findings) = verify(&spec, &[]);
    assert_eq!(status, Some(0));
    assert_eq!(findings.len(), 1, "{findings:?}");
    let (code, line, message, help) = &findings[0];
    assert_eq!((code.as_str(), *line), (NAMED, 5));
    assert!(
        message.starts_with(
            "this matcher never fires in IREE on GPU targets: it accepts only `linalg.matmul`"
        ),
        "{message}"
    );
    assert!(help.contains("this is the GPU rule (no `--backend` or `--target` given): on llvm-cpu IREE keeps named ops"), "{help}");
    // A GPU backend or a registry target: the warning, without the note.
    for args in [
        &["--backend", "rocm"][..],
        &["--backend", "cuda"],
        &["--target", "gfx942"],
    ] {
        let (_, findings) = verify(&spec, args);
        assert_eq!(findings.len(), 1, "{args:?}: {findings:?}");
        assert_eq!(findings[0].0, NAMED, "{args:?}");
        assert!(
            !findings[0].3.contains("GPU rule"),
            "{args:?}: {}",
            findings[0].3
        );
    }
    // llvm-cpu keeps named ops: no warning.
    let (status, findings) = verify(&spec, &["--backend", "llvm-cpu"]);
    assert_eq!((status, findings.len()), (Some(0), 0), "{findings:?}");
    // An op that exists nowhere never fires on any backend.
    let removed = tempfile::NamedTempFile::with_suffix(".mlir").unwrap();
    std::fs::write(
        removed.path(),
        std::fs::read_to_string(&spec)
            .unwrap()
            .replace("[\"linalg.matmul\"]", "[\"linalg.matmul_transpose_b\"]"),
    )
    .unwrap();
    let (_, findings) = verify(removed.path(), &["--backend", "llvm-cpu"]);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].2.contains("no such op exists"), "{findings:?}");
}

/// `--target` takes the backend from the registry: the default registry's targets name theirs
/// (inherited along fallbacks), and a spec library may define a CPU target.
#[test]
fn named_op_matcher_rule_follows_the_targets_backend() {
    let registry = tunespec::registry::Registry::embedded().with_derived(true);
    for (target, backend) in [("mi308x", "rocm"), ("gfx1100", "rocm"), ("sm_80", "cuda")] {
        assert_eq!(
            registry.backend(target).unwrap().as_deref(),
            Some(backend),
            "{target}"
        );
    }
    let library = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("named_matmul_tag.mlir"),
        library.path().join("znver4_tag.mlir"),
    )
    .unwrap();
    let manifest = |backend: &str| {
        format!(
            "schema = 1\n\n[targets.znver4]\ndescription = \"AMD Zen 4 CPUs\"\nkind = \"arch\"\nbackend = \"{backend}\"\nspecs = [\"*.mlir\"]\n"
        )
    };
    std::fs::write(library.path().join("registry.toml"), manifest("llvm-cpu")).unwrap();
    let verify_for = |target: &str| {
        let output = tunespec_command()
            .env("TUNESPEC_SPEC_PATH", library.path())
            .args([
                "verify",
                "--no-iree-check",
                "--format",
                "short",
                "--target",
                target,
            ])
            .arg(fixture("named_matmul_tag.mlir"))
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).to_string()
                + &String::from_utf8_lossy(&output.stderr),
        )
    };
    let (status, cpu) = verify_for("znver4");
    assert_eq!(status, Some(0), "{cpu}");
    assert!(!cpu.contains(NAMED), "{cpu}");
    let (status, gpu) = verify_for("mi308x");
    assert_eq!(status, Some(0), "{gpu}");
    assert!(gpu.contains(NAMED), "{gpu}");
    // A backend IREE does not have is a manifest error, at the value.
    std::fs::write(library.path().join("registry.toml"), manifest("llvm_cpu")).unwrap();
    let output = tunespec_command()
        .args(["verify", "--format", "short"])
        .arg(library.path().join("registry.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("registry.toml:6:11: error[tunespec::registry::manifest]: backend 'llvm_cpu' of target 'znver4' is not one of rocm, hip, cuda, vulkan-spirv, llvm-cpu"),
        "{text}"
    );
}

/// The fact the rule rests on, from iree-compile 3.13: the op-name matcher tags the matmul on
/// llvm-cpu and nothing on gfx942.
#[test]
fn iree_compile_keeps_matmul_named_on_llvm_cpu_only() {
    let Some(iree_compile) = iree_compile() else {
        return;
    };
    let compile = |device: &[&str]| {
        let output = output_with_timeout(
            Command::new(&iree_compile)
                .arg(fixture("payload_matmul.mlir"))
                .args(device)
                .arg(format!(
                    "--iree-codegen-tuning-spec-path={}",
                    fixture("named_matmul_tag.mlir").display()
                ))
                .args(["--compile-to=executable-configurations", "-o", "-"]),
        );
        assert!(
            output.status.success(),
            "{device:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let cpu = compile(&[
        "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
    ]);
    assert!(
        cpu.lines()
            .any(|line| line.contains("linalg.matmul") && line.contains("__tuning_spec_applied__")),
        "{cpu}"
    );
    let gpu = compile(&["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]);
    assert!(!gpu.contains("__tuning_spec_applied__"), "{gpu}");
    assert!(!gpu.contains("linalg.matmul"), "{gpu}");
}

fn iree_opt_errors(spec: &Path) -> Option<Vec<(u64, String)>> {
    let iree_opt = iree_opt()?;
    let output = output_with_timeout(Command::new(iree_opt).arg(spec).args(["-o", "/dev/null"]));
    assert!(
        !output.status.success(),
        "iree-opt accepts {}",
        spec.display()
    );
    let file = spec.display().to_string();
    Some(
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix(&file)?.strip_prefix(':')?;
                let (line_number, rest) = rest.split_once(':')?;
                let (_, message) = rest.split_once(": error: ")?;
                Some((line_number.parse().ok()?, message.to_string()))
            })
            .collect(),
    )
}

#[test]
fn attributes_of_dialects_iree_lacks_are_errors_without_iree_opt() {
    let spec = fixture("misspelt_dialect.mlir");
    if let Some(theirs) = iree_opt_errors(&spec) {
        assert!(
            theirs
                .iter()
                .any(|(line, message)| *line == 14 && message.contains("unregistered dialect")),
            "{theirs:?}"
        );
    }
    // `--no-iree-check`: tunespec finds both without iree-opt, at each attribute.
    let (status, findings) = verify(&spec, &[]);
    assert_eq!(status, Some(1), "{findings:?}");
    let found: Vec<(u64, &str, &str)> = findings
        .iter()
        .map(|(code, line, message, _)| (*line, code.as_str(), message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                14,
                "tunespec::iree::attribute",
                "IREE has no attribute dialect `iree_codegn`"
            ),
            (
                28,
                "tunespec::iree::attribute",
                "IREE has no attribute dialect `ireecodegen`"
            ),
        ]
    );
    assert_eq!(
        findings[0].3,
        "did you mean `#iree_codegen`? (IREE would fail to load this spec)"
    );
    // With iree-opt as well: still one finding per attribute.
    if let Some(iree_opt) = iree_opt() {
        let (_, findings) = {
            let output = tunespec_command()
                .args(["verify", "--format", "short", "--iree-opt"])
                .arg(&iree_opt)
                .arg(&spec)
                .output()
                .unwrap();
            (
                output.status.code(),
                String::from_utf8_lossy(&output.stdout).to_string(),
            )
        };
        assert_eq!(
            findings.matches("no attribute dialect").count(),
            2,
            "{findings}"
        );
    }
}

#[test]
fn a_module_without_with_named_sequence_gets_every_finding() {
    let spec = fixture("no_with_named_sequence.mlir");
    let (status, findings) = verify(&spec, &[]);
    assert_eq!(status, Some(1));
    let errors: Vec<(u64, &str)> = findings
        .iter()
        .filter(|finding| finding.0 != NAMED)
        .map(|finding| (finding.1, finding.2.as_str()))
        .collect();
    const SEQUENCE: &str =
        "expects the parent symbol table to have the 'transform.with_named_sequence' attribute";
    assert_eq!(
        errors,
        [
            (3, "Module without the 'transform.with_named_sequence' attribute is not a transform dialect library"),
            (4, SEQUENCE),
            (8, SEQUENCE),
            (13, "Must return one 'any_op' (required by 'iree_codegen.tuning_spec_entrypoint')"),
            (13, SEQUENCE),
        ]
    );
    // iree-opt 3.13 reports the same at each named sequence and at the entry point (the first
    // error of each op): each of its errors is one of tunespec's.
    if let Some(theirs) = iree_opt_errors(&spec) {
        assert_eq!(theirs.len(), 3, "{theirs:?}");
        for (line, message) in &theirs {
            assert!(
                errors.contains(&(*line, message.as_str())),
                "iree-opt's {line}: {message} is not reported: {errors:?}"
            );
        }
    }
}

#[test]
fn a_nested_module_marked_as_an_entry_point_counts_as_iree_counts_it() {
    let spec = fixture("nested_module_marked.mlir");
    const FOUND_TWO: &str = "Expected one named sequence with 'iree_codegen.tuning_spec_entrypoint', but found 2 (required by 'iree_codegen.tuning_spec_with_default_entrypoint')";
    if let Some(theirs) = iree_opt_errors(&spec) {
        assert_eq!(theirs, [(3, FOUND_TWO.to_string())]);
    }
    let (status, findings) = verify(&spec, &[]);
    assert_eq!(status, Some(1));
    let errors: Vec<(&str, u64, &str)> = findings
        .iter()
        .map(|finding| (finding.0.as_str(), finding.1, finding.2.as_str()))
        .collect();
    assert_eq!(
        errors,
        [("tunespec::verify::default-entrypoint", 3, FOUND_TWO)]
    );
    // The same module unmarked, with its sequence marked instead: IREE counts only the body's
    // ops, so one.
    let unmarked = tempfile::NamedTempFile::with_suffix(".mlir").unwrap();
    std::fs::write(
        unmarked.path(),
        std::fs::read_to_string(&spec).unwrap().replace(
            "transform.with_named_sequence, iree_codegen.tuning_spec_entrypoint} {",
            "transform.with_named_sequence} {",
        ),
    )
    .unwrap();
    assert_eq!(verify(unmarked.path(), &[]), (Some(0), Vec::new()));
}

/// iree-opt 3.13's verdict on `spec`: accepted, or its first error.
fn iree_opt_verdict(spec: &Path) -> Option<Result<(), String>> {
    let iree_opt = iree_opt()?;
    let output = output_with_timeout(Command::new(iree_opt).arg(spec).args(["-o", "/dev/null"]));
    Some(if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).to_string())
    })
}

#[test]
fn transform_print_names_get_the_spelling_both_read() {
    const SYNTAX: &str = "tunespec::iree::syntax";
    const BOTH: &str = "`transform.print %op : !transform.any_op`";
    // IREE 3.13's spelling: iree-opt reads it, MLIR 22 cannot; tunespec says so.
    let iree_form = fixture("print_name_iree.mlir");
    if let Some(verdict) = iree_opt_verdict(&iree_form) {
        assert_eq!(verdict, Ok(()));
    }
    let (status, findings) = verify(&iree_form, &[]);
    assert_eq!(status, Some(1));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!((findings[0].0.as_str(), findings[0].1), (SYNTAX, 4));
    assert!(
        findings[0].2.starts_with("`transform.print ... name = \"...\"` is IREE 3.13's syntax (MLIR 24), which MLIR 22 cannot parse: "),
        "{findings:?}"
    );
    assert!(findings[0].3.contains(BOTH), "{findings:?}");
    // MLIR 22's spelling: tunespec parses it, iree-opt refuses it; tunespec says so.
    let mlir22_form = fixture("print_name_mlir22.mlir");
    if let Some(verdict) = iree_opt_verdict(&mlir22_form) {
        let error = verdict.unwrap_err();
        assert!(
            error.contains("inherent attribute 'name' cannot be parsed from attr-dict"),
            "{error}"
        );
    }
    let (status, findings) = verify(&mlir22_form, &[]);
    assert_eq!(status, Some(1));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!((findings[0].0.as_str(), findings[0].1), (SYNTAX, 4));
    assert!(findings[0]
        .2
        .starts_with("IREE 3.13 refuses `transform.print` with `{name = \"...\"}`"));
    assert!(findings[0].3.contains(BOTH), "{findings:?}");
    // Without a name: both read it, nothing to say.
    let both = fixture("print_no_name.mlir");
    if let Some(verdict) = iree_opt_verdict(&both) {
        assert_eq!(verdict, Ok(()));
    }
    assert_eq!(verify(&both, &[]), (Some(0), Vec::new()));
}

/// The workgroup tiles of the configs `iree-compile` put on `model`'s dispatches for gfx942
/// with `spec` (none: IREE's own), from `--compile-to=executable-configurations`.
fn workgroup_tiles(iree_compile: &Path, model: &Path, spec: Option<&Path>) -> Vec<String> {
    let mut command = Command::new(iree_compile);
    command
        .args([
            "--iree-hal-target-device=hip",
            "--iree-rocm-target=gfx942",
            "--compile-to=executable-configurations",
            "-o",
            "-",
        ])
        .arg(model);
    if let Some(spec) = spec {
        command.arg(format!(
            "--iree-codegen-tuning-spec-path={}",
            spec.display()
        ));
    }
    let output = output_with_timeout(&mut command);
    assert!(
        output.status.success(),
        "iree-compile: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.match_indices("workgroup = [")
        .map(|(at, _)| text[at..].split(']').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn an_entry_argument_without_effect_annotation_is_applied_by_iree_and_only_warned_about() {
    // IREE 3.13 loads and applies a tuning spec whose entry argument is marked neither
    // readonly nor consumed (its interpreter refuses only a readonly argument the body
    // consumes): tunespec warns and does not refuse it.
    let original = repo_root().join("tests/fixtures/models/tosa_matmul_spec.mlir");
    let text = std::fs::read_to_string(&original).unwrap();
    let entry = "@__kernel_config(%arg0: !transform.any_op {transform.consumed})";
    assert!(text.contains(entry));
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("unmarked.mlir");
    std::fs::write(
        &spec,
        text.replace(entry, "@__kernel_config(%arg0: !transform.any_op)"),
    )
    .unwrap();
    let (status, findings) = verify(&spec, &["-t", "gfx942"]);
    assert_eq!(status, Some(0), "{findings:?}");
    assert!(
        findings
            .iter()
            .any(|f| f.0 == "tunespec::verify::entry-effect"
                && f.2
                    .contains("marked neither transform.readonly nor transform.consumed")),
        "{findings:?}"
    );
    let Some(iree_compile) = iree_compile() else {
        return;
    };
    let model = repo_root().join("tests/fixtures/models/tosa_matmul_2048x1280x5120_f32.mlir");
    let own = workgroup_tiles(&iree_compile, &model, None);
    let with_spec = workgroup_tiles(&iree_compile, &model, Some(&spec));
    // The spec's 64 x 128 tile, not IREE's own 128 x 128: IREE applied the unmarked entry.
    assert_eq!(with_spec, ["workgroup = [1, 64, 128, 0"], "{own:?}");
    assert_ne!(own, with_spec);
    // And a library linked from it reaches iree-compile the same way.
    let library = dir.path().join("linked.mlir");
    let linked = tunespec_command()
        .args(["link", "-t", "gfx942", "--no-default", "-o"])
        .arg(&library)
        .arg("-s")
        .arg(&spec)
        .output()
        .unwrap();
    assert!(
        linked.status.success(),
        "{}",
        String::from_utf8_lossy(&linked.stderr)
    );
    assert_eq!(
        workgroup_tiles(&iree_compile, &model, Some(&library)),
        with_spec
    );
}
