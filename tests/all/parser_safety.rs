//! Untrusted text cannot corrupt the process (issue 24): MLIR 22's parser, failing in a region
//! after it resolved an earlier use into that region (a `^bb0` defined twice), frees values an
//! op still uses; glibc then aborts tunespec at exit ("unaligned tcache chunk"). Text with a
//! forward reference is parsed in a child first (`tunespec::contain::scan`).

use std::path::PathBuf;

use tunespec::contain::scan::{has_forward_reference, has_generic_transform_op};

use crate::reference::repo_root;
use crate::support::tunespec_command;

/// The reproducer: an op uses `%v` before the nested region that defines it, and the region
/// then defines `^bb0` twice.
const BLOCK_DEFINED_TWICE: &str = r#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @m(%root: !transform.any_op {transform.readonly}) {
    transform.debug.emit_remark_at %v, "x" : !transform.any_op
    transform.foreach %root : !transform.any_op {
    ^bb0(%v: !transform.any_op):
      transform.yield
    ^bb0(%w: !transform.any_op):
      transform.yield
    }
    transform.yield
  }
}
"#;

#[test]
fn block_defined_twice_after_a_forward_reference_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("bb0_twice.mlir");
    std::fs::write(&spec, BLOCK_DEFINED_TWICE).unwrap();
    for (command, all) in verify_and_link(&spec) {
        assert!(
            all.contains("bb0_twice.mlir:7:5") && all.contains("redefinition of block '^bb0'"),
            "{command}: {all}"
        );
        assert!(!all.contains("tcache"), "{command}: {all}");
    }
}

/// `verify` and `link` of `spec`, each expected to refuse it with exit 1: the command and its
/// stdout and stderr together.
fn verify_and_link(spec: &std::path::Path) -> Vec<(String, String)> {
    let mut runs = Vec::new();
    for command in [
        vec!["verify", "--no-iree-check", "--format", "short"],
        vec!["link", "--no-default", "-o", "-", "--spec"],
    ] {
        let output = tunespec_command()
            .args(&command)
            .arg(spec)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(1), "{command:?}: {all}");
        runs.push((command.join(" "), all));
    }
    runs
}

#[test]
fn sequential_specs_have_no_forward_reference() {
    let spec = br#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @m(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op) {
    %ins, %outs:2 = transform.iree.match.cast_compatible_dag_from_root %root {
    ^bb0(%x: f32, %y : f32):
      %0 = arith.addf %x, %y : f32 // %later in a comment
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.print %root {name = "%not_a_value"} : !transform.any_op
    transform.yield %outs#1 : !transform.any_op
  }
  transform.named_sequence @n(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}"#;
    assert!(!has_forward_reference(spec));
}

#[test]
fn uses_before_definitions_are_forward_references() {
    assert!(has_forward_reference(BLOCK_DEFINED_TWICE.as_bytes()));
    // A signature's arguments are not visible in the next sequence.
    assert!(has_forward_reference(
        b"transform.named_sequence @a(%x: t) {\n}\ntransform.named_sequence @b(%y: t) {\n  op %x\n}"
    ));
    // A value defined in a region is not visible after it (invalid either way: probed).
    assert!(has_forward_reference(
        b"op {\n^bb0(%v: t):\n  op2\n}\nop3 %v"
    ));
    // A successor's operands are uses.
    assert!(has_forward_reference(
        b"cf.br ^bb1(%v : i32)\n^bb1(%v: i32):"
    ));
}

/// Every spec of the registry and every good fixture is parsed in process: the probe costs a
/// process start and a second parse, so only text that needs it gets it.
#[test]
fn valid_specs_are_not_probed() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        "specs",
        "tests/fixtures/iree/good",
        "tests/fixtures/iree/bytecode",
    ] {
        for entry in walkdir::WalkDir::new(repo_root().join(dir)) {
            let path = entry.unwrap().into_path();
            if path.extension().is_some_and(|ext| ext == "mlir") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 10, "{files:?}");
    let probed: Vec<&PathBuf> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read(path).unwrap();
            has_forward_reference(&text) || has_generic_transform_op(&text)
        })
        .collect();
    assert!(probed.is_empty(), "probed: {probed:?}");
}

/// An op in generic form without the region its kind requires: MLIR 22's verifier reads the
/// missing region and crashes (mlir-opt 22 does too). Text with a generic-form op is parsed and
/// verified in a child first, so the crash is a located diagnostic and exit 1, for `verify`
/// and `link` alike.
#[test]
fn a_generic_op_without_its_region_is_an_error_not_a_crash() {
    let text = "module attributes {transform.with_named_sequence} {
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op {
    \"transform.sequence\"() : () -> ()
    transform.yield %arg0 : !transform.any_op
  }
}
";
    assert!(has_generic_transform_op(text.as_bytes()));
    assert!(!has_generic_transform_op(
        b"transform.match.operation_name %op [\"linalg.matmul\"] : !transform.any_op"
    ));
    // A payload op in generic form (a DAG matcher's pattern) is not probed.
    assert!(!has_generic_transform_op(
        b"%0 = \"some.op\"(%x, %y) : (f32, f32) -> f32"
    ));
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("no_region.mlir");
    std::fs::write(&spec, text).unwrap();
    for (command, all) in verify_and_link(&spec) {
        assert!(
            all.contains("no_region.mlir")
                && all.contains("MLIR's parser or verifier crashed on this input"),
            "{command}: {all}"
        );
    }
}
