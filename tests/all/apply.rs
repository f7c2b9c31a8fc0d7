//! attach / extract / apply / explain / coverage, checked against the reference tools:
//! `apply` must give exactly the payload `mlir-opt --transform-interpreter` gives with the same
//! library (upstream-form libraries: mlir-opt 22 cannot parse IREE's match ops), and exactly what
//! `iree-opt --transform-interpreter` gives with the default specs (IREE's tuner form); IREE's own
//! materialization must accept what tunespec attaches.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::reference::{iree_opt, mlir_opt, repo_root};

fn tunespec() -> Command {
    let mut command = crate::support::tunespec_command();
    // No cache of linked libraries: every run links.
    command.env("TUNESPEC_CACHE", "off");
    command
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        tail(&String::from_utf8_lossy(&output.stderr))
    );
    output
}

/// The end of a long message: MLIR tools can print whole payloads.
fn tail(text: &str) -> String {
    let start = text.len().saturating_sub(2000);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[start..].to_string()
}

fn payloads() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures/payloads"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).expect("payload dir") {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "mlir") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    files
}

fn link_library(dir: &Path, target: &str, emit: &str) -> PathBuf {
    let path = dir.join(format!("{target}.{emit}"));
    run(tunespec()
        .args(["link", "--target", target, "--emit", emit, "-o"])
        .arg(&path));
    path
}

/// The old chains of the default specs in upstream MLIR's form (tests/fixtures/specs/upstream):
/// op names, ranks, loop ranges and element bit widths, which mlir-opt 22 can run.
const UPSTREAM_CHAINS: [(&str, [&str; 2]); 3] = [
    ("gfx942", ["gfx942", "gfx9"]),
    ("gfx950", ["gfx950", "gfx9"]),
    ("sm_90", ["sm_90", "nvidia"]),
];

fn link_upstream_library(dir: &Path, name: &str, chain: &[&str]) -> PathBuf {
    let path = dir.join(format!("upstream_{name}.mlir"));
    let mut command = tunespec();
    command.args(["link", "--no-default", "-o"]).arg(&path);
    for link in chain {
        command
            .arg("--spec")
            .arg(repo_root().join("tests/fixtures/specs/upstream").join(link));
    }
    run(&mut command);
    path
}

#[test]
fn apply_equals_mlir_opt_transform_interpreter_on_every_payload() {
    let Some(mlir_opt) = mlir_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut configured = 0;
    for (target, chain) in UPSTREAM_CHAINS {
        let library = link_upstream_library(dir.path(), target, &chain);
        for payload in payloads() {
            let ours = run(tunespec()
                .args(["apply", "--no-default", "--spec"])
                .arg(&library)
                .arg(&payload))
            .stdout;
            let theirs = run(Command::new(&mlir_opt)
                .arg("--allow-unregistered-dialect")
                .arg(format!(
                    "--transform-preload-library=transform-library-paths={}",
                    library.display()
                ))
                .arg("--transform-interpreter=entry-point=__kernel_config")
                .arg(&payload))
            .stdout;
            assert!(
                ours == theirs,
                "{target} on {}: output differs from mlir-opt",
                payload.display()
            );
            configured += String::from_utf8_lossy(&ours)
                .matches("compilation_info = ")
                .count();
        }
    }
    // Not a comparison of untouched payloads: the libraries configure ops.
    assert!(configured >= 50, "{configured} ops configured");
}

/// The default specs are in IREE's tuner form, which mlir-opt cannot parse: iree-opt (3.13) runs
/// them with the same upstream interpreter pass. iree-opt prints IREE's attributes in its own
/// spelling (nested prefixes elided), so tunespec's output is compared as iree-opt reads it back.
#[test]
fn apply_equals_iree_opt_transform_interpreter_on_every_payload_with_the_default_specs() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut configured = 0;
    for target in ["gfx942", "gfx950", "gfx1201", "sm_90"] {
        let library = link_library(dir.path(), target, "mlir");
        assert!(std::fs::read_to_string(&library)
            .unwrap()
            .contains("transform.iree.match.contraction"));
        for payload in payloads() {
            let applied = dir.path().join("applied.mlir");
            run(tunespec()
                .args(["apply", "--no-default", "-o"])
                .arg(&applied)
                .arg("--spec")
                .arg(&library)
                .arg(&payload));
            let ours = run(Command::new(&iree_opt)
                .arg("--allow-unregistered-dialect")
                .arg(&applied))
            .stdout;
            let theirs = run(Command::new(&iree_opt)
                .arg("--allow-unregistered-dialect")
                .arg(format!(
                    "--transform-preload-library=transform-library-paths={}",
                    library.display()
                ))
                .arg("--transform-interpreter=entry-point=__kernel_config")
                .arg(&payload))
            .stdout;
            assert!(
                ours == theirs,
                "{target} on {}: output differs from iree-opt",
                payload.display()
            );
            configured += String::from_utf8_lossy(&ours)
                .matches("compilation_info = ")
                .count();
        }
    }
    assert!(configured >= 50, "{configured} ops configured");
}

#[test]
fn attach_then_extract_round_trips_the_library_bytecode() {
    let Some(mlir_opt) = mlir_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let library = link_library(dir.path(), "gfx942", "mlirbc");
    let payload = repo_root().join("examples/llama2_7b_f16_prefill_4096.mlir");
    for blob in ["dense", "resource"] {
        let attached = dir.path().join(format!("attached-{blob}.mlir"));
        // --keep-all: the whole library, as `link` wrote it (a library this big is otherwise
        // cut down to the pairs that fire on the payload: tests/all/attach_prune.rs).
        run(tunespec()
            .args([
                "attach",
                "--keep-all",
                "--target",
                "gfx942",
                "--blob",
                blob,
                "-o",
            ])
            .arg(&attached)
            .arg(&payload));
        let text = std::fs::read_to_string(&attached).unwrap();
        assert!(
            text.contains("iree_codegen.tuning_spec_mlirbc = dense"),
            "{blob}"
        );
        run(Command::new(&mlir_opt)
            .arg("--allow-unregistered-dialect")
            .arg(&attached)
            .arg("-o")
            .arg("/dev/null"));
        let extracted = dir.path().join(format!("extracted-{blob}.mlirbc"));
        run(tunespec()
            .args(["extract", "--emit", "mlirbc", "-o"])
            .arg(&extracted)
            .arg(&attached));
        assert_eq!(
            std::fs::read(&extracted).unwrap(),
            std::fs::read(&library).unwrap(),
            "{blob}"
        );
        // Applying the attached library equals applying the linked one, and removes the attribute.
        let from_attached = run(tunespec().arg("apply").arg(&attached)).stdout;
        let from_target = run(tunespec()
            .args(["apply", "--target", "gfx942"])
            .arg(&payload))
        .stdout;
        assert!(
            from_attached == from_target,
            "{blob}: apply of the attached library differs"
        );
        assert!(!String::from_utf8_lossy(&from_attached).contains("tuning_spec_mlirbc"));
    }
}

#[test]
fn extract_reports_a_missing_or_corrupt_library() {
    let dir = tempfile::tempdir().unwrap();
    let payload = repo_root().join("examples/llama2_7b_f16_decode.mlir");
    let output = tunespec().arg("extract").arg(&payload).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec::apply::no-library"));
    // A blob that is not a library.
    let text = std::fs::read_to_string(&payload).unwrap();
    let corrupt = dir.path().join("corrupt.mlir");
    std::fs::write(
        &corrupt,
        format!("module attributes {{iree_codegen.tuning_spec_mlirbc = dense<[77, 76, 1, 2, 3]> : vector<5xi8>}} {{\n{text}}}\n"),
    )
    .unwrap();
    let output = tunespec().arg("extract").arg(&corrupt).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec::apply::corrupt-library"));
}

/// The matchers of `explain --format json` that configured an op, in op order.
fn matched(report: &serde_json::Value) -> Vec<String> {
    report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|op| op["matcher"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn explain_names_the_matcher_and_spec_line_for_every_op() {
    let payload_path = "tests/fixtures/payloads/llama2_f16_decoder.mlir";
    // The payload's ops are tagged by the spec author with the matcher expected to fire
    // ("tunespec.expect"); every candidate op must agree with that tag.
    let payload = std::fs::read_to_string(repo_root().join(payload_path)).unwrap();
    let expected: Vec<&str> = payload
        .lines()
        .filter_map(|line| line.split("tunespec.expect = \"").nth(1))
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert!(expected.len() >= 8, "{expected:?}");
    let expected_matchers: Vec<String> = expected
        .iter()
        .filter(|tag| **tag != "none")
        .map(|tag| tag.to_string())
        .collect();
    assert_eq!(expected_matchers.len(), 10, "{expected_matchers:?}");
    // sm_90's measured defaults (specs/sm_90/h100_measured.mlir, the H100 shapes of this
    // layer) come before its derived ones: where one covers an op, it is the winner.
    let measured =
        std::fs::read_to_string(repo_root().join("specs/sm_90/h100_measured.mlir")).unwrap();
    let sm_90_expected: Vec<String> = expected_matchers
        .iter()
        .map(|name| {
            let shape = name
                .strip_prefix("match_")
                .and_then(|rest| rest.strip_suffix("_f16_ab"))
                .unwrap_or(name);
            let twin = format!("match_main_dispatch_0_{shape}_f16xf16xf32");
            if measured.contains(&format!("@{twin}(")) {
                twin
            } else {
                name.clone()
            }
        })
        .collect();
    assert_ne!(sm_90_expected, expected_matchers);
    // Every architecture's llama2_f16.mlir has the same matchers (its configs differ).
    for target in ["gfx942", "gfx950", "gfx1100", "gfx1201", "sm_80", "sm_90"] {
        let expected_matchers = if target == "sm_90" {
            &sm_90_expected
        } else {
            &expected_matchers
        };
        // The default view: the payload as IREE's dispatches see it.
        let output = run(tunespec()
            .args(["explain", "--target", target, "--format", "json"])
            .arg(payload_path));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(&matched(&report), expected_matchers, "{target}");
        for op in report["ops"].as_array().unwrap() {
            if op["matcher"].is_string() {
                let location = op["matcher_location"].as_str().unwrap();
                let spec_file = if op["matcher"]
                    .as_str()
                    .unwrap()
                    .starts_with("match_main_dispatch_0_")
                {
                    "h100_measured"
                } else {
                    "llama2_f16"
                };
                assert!(
                    location.starts_with(&format!("specs/{target}/{spec_file}.mlir:")),
                    "{location}"
                );
                // The line of the matcher's definition.
                let line: usize = location.split(':').nth(1).unwrap().parse().unwrap();
                let spec =
                    std::fs::read_to_string(repo_root().join(location.split(':').next().unwrap()))
                        .unwrap();
                assert!(
                    spec.lines().nth(line - 1).unwrap().contains(&format!(
                        "transform.named_sequence @{}(",
                        op["matcher"].as_str().unwrap()
                    )),
                    "{location}"
                );
                assert!(op["config"][0]["value"]
                    .as_str()
                    .unwrap()
                    .contains("#iree_codegen.compilation_info"));
            }
        }
        assert_eq!(report["matched"], 10, "{target}");
        // IREE-form matchers see a named op and its generalization alike: the payload as written
        // gets the same account.
        let written = run(tunespec()
            .args([
                "explain", "--target", target, "--format", "json", "--view", "written",
            ])
            .arg(payload_path));
        let written: serde_json::Value = serde_json::from_slice(&written.stdout).unwrap();
        assert_eq!(&matched(&written), expected_matchers, "{target} written");
    }
}

#[test]
fn coverage_lists_matchers_that_never_fire() {
    let coverage = |payloads: &[&str], view: &str| -> serde_json::Value {
        let output = run(tunespec()
            .args([
                "coverage", "--target", "gfx942", "--format", "json", "--view", view,
            ])
            .args(payloads));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let explained = |payload: &str| -> Vec<String> {
        let output =
            run(tunespec().args(["explain", "--target", "gfx942", "--format", "json", payload]));
        matched(&serde_json::from_slice(&output.stdout).unwrap())
    };
    let never_fired = |report: &serde_json::Value| -> std::collections::BTreeSet<String> {
        report["never_fired"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["matcher"].as_str().unwrap().to_string())
            .collect()
    };
    let llama2 = "tests/fixtures/payloads/llama2_f16_decoder.mlir";
    let llama3 = "tests/fixtures/payloads/llama3_bf16_decoder.mlir";
    let report = coverage(&[llama2], "dispatch");
    // gfx942's 28 + 28 matchers and the 20 of its family, gfx9 (Llama-3-70B shapes).
    assert_eq!(report["matchers"], 76);
    // Ten ops of the Llama-2 payload are configured, by nine matchers (the 4096^3 GEMM is there
    // as linalg.matmul and as linalg.generic).
    let mut fired: std::collections::BTreeSet<String> = explained(llama2).into_iter().collect();
    assert_eq!(fired.len(), 9);
    assert_eq!(report["fired"], 9);
    let dead = report["never_fired"].as_array().unwrap();
    assert_eq!(dead.len(), 67);
    // Each never-fired matcher is listed once, with its spec file and line, and none fired.
    assert_eq!(never_fired(&report).len(), 67);
    assert!(never_fired(&report).is_disjoint(&fired));
    for entry in dead {
        let location = entry["location"].as_str().unwrap();
        let (file, line) = location.split_once(':').unwrap();
        assert!(
            file.starts_with("specs/gfx942/") || file.starts_with("specs/gfx9/"),
            "{location}"
        );
        let line: usize = line.split(':').next().unwrap().parse().unwrap();
        let spec = std::fs::read_to_string(repo_root().join(file)).unwrap();
        assert!(spec.lines().nth(line - 1).unwrap().contains(&format!(
            "transform.named_sequence @{}(",
            entry["matcher"].as_str().unwrap()
        )));
    }
    // The bf16 file fires nothing on an f16 payload: its 28 matchers are all listed.
    assert_eq!(
        dead.iter()
            .filter(|entry| entry["location"]
                .as_str()
                .unwrap()
                .starts_with("specs/gfx942/llama3_bf16.mlir:"))
            .count(),
        28
    );
    // With both payloads: the nine of the Llama-3 payload too (eight of llama3_bf16.mlir and the
    // family's 64-head attention GEMM).
    let report = coverage(&[llama2, llama3], "dispatch");
    fired.extend(explained(llama3));
    assert_eq!(fired.len(), 18);
    assert_eq!(report["fired"], 18);
    assert_eq!(report["never_fired"].as_array().unwrap().len(), 58);
    assert!(never_fired(&report).is_disjoint(&fired));
    // IREE-form matchers fire on the payload as written as on IREE's dispatches.
    assert_eq!(coverage(&[llama2, llama3], "written"), report);
}

#[test]
fn apply_refuses_a_library_as_payload_and_bad_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let output = tunespec()
        .args([
            "apply",
            "--target",
            "gfx942",
            "specs/gfx942/llama2_f16.mlir",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec::apply::not-a-payload"));
    let broken = dir.path().join("broken.mlir");
    std::fs::write(&broken, "func.func @f( {\n").unwrap();
    let out = dir.path().join("out.mlir");
    let output = tunespec()
        .args(["apply", "--target", "gfx942", "-o"])
        .arg(&out)
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.mlir:1:"));
    assert!(!out.exists(), "no output on failure");
    let output = tunespec()
        .args(["apply", "--target", "gfx942", "no/such.mlir"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// A dispatch-like payload for IREE: one function per op, as IREE materializes one config per
/// dispatch function. Nested in a module so that IREE's pass reads the attribute from the
/// ancestor, as it does in a real compile.
fn dispatch_payload() -> String {
    let shapes = [
        (4096, 4096, 4096),
        (4096, 11008, 4096),
        (4096, 4096, 11008),
        (33, 64, 64),
    ];
    let mut functions = String::new();
    for (index, (m, n, k)) in shapes.iter().enumerate() {
        functions.push_str(&format!(
            "    func.func @dispatch_{index}(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n      %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>\n      return %r : tensor<{m}x{n}xf32>\n    }}\n"
        ));
    }
    format!("module {{\n  module @dispatches {{\n{functions}  }}\n}}\n")
}

#[test]
fn iree_materializes_what_tunespec_attaches_and_tunespec_applies_what_iree_attaches() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let payload = dir.path().join("dispatches.mlir");
    std::fs::write(&payload, dispatch_payload()).unwrap();
    let library = link_library(dir.path(), "gfx942", "mlir");

    // tunespec attaches; IREE materializes.
    let attached = dir.path().join("attached.mlir");
    run(tunespec()
        .args(["attach", "--target", "gfx942", "-o"])
        .arg(&attached)
        .arg(&payload));
    let ours = run(Command::new(&iree_opt)
        .arg("--no-implicit-module")
        .arg(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-user-configs))",
        )
        .arg(&attached))
    .stdout;
    // IREE attaches the same library and materializes.
    let theirs = run(Command::new(&iree_opt)
        .arg("--no-implicit-module")
        .arg(format!(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs))",
            library.display()
        ))
        .arg(&payload))
    .stdout;
    let configs = |text: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(text)
            .lines()
            .filter(|line| line.contains("lowering_config") || line.contains("translation_info"))
            .map(|line| line.trim().to_string())
            .collect()
    };
    let configured = String::from_utf8_lossy(&ours)
        .lines()
        .filter(|line| line.contains("linalg.matmul") && line.contains("lowering_config"))
        .count();
    assert_eq!(
        configured, 3,
        "three of the four dispatches match a default spec"
    );
    assert_eq!(configs(&ours), configs(&theirs));

    // IREE attaches; tunespec extracts and applies. IREE writes the library as bytecode of its
    // own MLIR (24), which encodes affine maps in a way MLIR 22 cannot read, and every IREE-form
    // matcher has indexing maps; so this direction uses the upstream-form chain of gfx942.
    let library = link_upstream_library(dir.path(), "gfx942", &["gfx942", "gfx9"]);
    let iree_attached = dir.path().join("iree_attached.mlir");
    run(Command::new(&iree_opt)
        .arg("--no-implicit-module")
        .arg(format!(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}}))",
            library.display()
        ))
        .arg(&payload)
        .arg("-o")
        .arg(&iree_attached));
    let extracted = run(tunespec().args(["extract"]).arg(&iree_attached)).stdout;
    assert!(
        String::from_utf8_lossy(&extracted).contains("transform.named_sequence @__kernel_config")
    );
    let applied = dir.path().join("applied.mlir");
    run(tunespec()
        .args(["apply", "-o"])
        .arg(&applied)
        .arg(&iree_attached));
    let direct = dir.path().join("direct.mlir");
    run(tunespec()
        .args(["apply", "--no-default", "-o"])
        .arg(&direct)
        .arg("--spec")
        .arg(&library)
        .arg(&payload));
    // IREE writes its attributes into the bytecode with its own printer, which elides nested
    // dialect prefixes (`translation_info = <...>`); both spellings mean the same to IREE, so
    // compare what iree-opt reads back.
    let canonical = |path: &Path| run(Command::new(&iree_opt).arg(path)).stdout;
    let applied_text = canonical(&applied);
    assert!(
        applied_text == canonical(&direct),
        "applying IREE's attached library differs from applying it directly"
    );
    assert_eq!(
        String::from_utf8_lossy(&applied_text)
            .matches("compilation_info = ")
            .count(),
        3
    );
}

#[test]
fn explain_gives_the_same_account_with_either_engine() {
    for payload in [
        "tests/fixtures/payloads/llama2_f16_decoder.mlir",
        "examples/llama3_8b_bf16_prefill_8192.mlir",
    ] {
        let explain = |engine: &str| {
            run(tunespec().args([
                "explain", "--target", "gfx950", "--format", "json", "--view", "written",
                "--engine", engine, payload,
            ]))
            .stdout
        };
        let native = explain("auto");
        assert!(native == explain("interpreter"), "{payload}");
        let report: serde_json::Value = serde_json::from_slice(&native).unwrap();
        assert!(report["matched"].as_u64().unwrap() >= 6, "{payload}");
    }
}
