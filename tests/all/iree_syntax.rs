//! What the user's IREE accepts, tunespec does not refuse (issue 32, section 1): text in IREE
//! 3.13's syntax is read through IREE by every command when IREE is found, and every reader of
//! an attachment reads IREE's own bytecode.

use std::path::{Path, PathBuf};

use crate::iree_library::{venv, with_iree};
use crate::reference::{iree_opt, output_with_timeout, repo_root};

fn print_name_spec() -> PathBuf {
    repo_root().join("tests/fixtures/iree/rules/print_name_iree.mlir")
}

fn run_ok(command: &mut std::process::Command) -> std::process::Output {
    let output = output_with_timeout(command);
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn iree_opt_accepts(file: &Path) {
    let Some(iree_opt) = iree_opt() else { return };
    let output = output_with_timeout(
        std::process::Command::new(iree_opt)
            .arg("--allow-unregistered-dialect")
            .arg(file),
    );
    assert!(
        output.status.success(),
        "iree-opt refuses {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_spec_in_iree_syntax_is_verified_linked_and_attached_with_iree_found() {
    let Some(venv) = venv() else { return };
    let spec = print_name_spec();
    iree_opt_accepts(&spec);
    // verify: no `tunespec::iree::syntax` (IREE read it), exit 0.
    let output = run_ok(
        with_iree(&venv)
            .args(["verify", "--format", "json", "--no-iree-check"])
            .arg(&spec),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("tunespec::iree::syntax"), "{stdout}");
    // link: the written library is IREE's (iree-opt reads it), and tunespec reads it back.
    let dir = tempfile::tempdir().unwrap();
    let linked = dir.path().join("linked.mlir");
    run_ok(
        with_iree(&venv)
            .args(["link", "--no-default", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(&linked),
    );
    let text = std::fs::read_to_string(&linked).unwrap();
    assert!(
        text.contains("transform.print %arg0 name = \"x\""),
        "{text}"
    );
    iree_opt_accepts(&linked);
    run_ok(
        with_iree(&venv)
            .args(["verify", "--no-iree-check"])
            .arg(&linked),
    );
    let bytecode = dir.path().join("linked.mlirbc");
    run_ok(
        with_iree(&venv)
            .args(["link", "--no-default", "--emit", "mlirbc", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(&bytecode),
    );
    // attach, and every reader of the attachment.
    let payload = repo_root().join("tests/fixtures/payloads/llama3_bf16_decoder.mlir");
    let attached = dir.path().join("attached.mlir");
    run_ok(
        with_iree(&venv)
            .args(["attach", "--no-default", "--keep-all", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(&attached)
            .arg(&payload),
    );
    let extracted = dir.path().join("extracted.mlir");
    run_ok(
        with_iree(&venv)
            .args(["extract", "-o"])
            .arg(&extracted)
            .arg(&attached),
    );
    assert!(std::fs::read_to_string(&extracted)
        .unwrap()
        .contains("transform.print"));
}

#[test]
fn without_iree_the_iree_spelling_is_still_explained() {
    // The hermetic command has no IREE: MLIR 22's error, with its help.
    let output = output_with_timeout(
        crate::support::tunespec_command()
            .args(["verify", "--format", "json", "--no-iree-check"])
            .arg(print_name_spec()),
    );
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("tunespec::iree::syntax"), "{stdout}");
}

#[test]
fn what_attach_writes_with_iree_is_read_by_apply_explain_extract() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let model = repo_root().join("examples/llama3_8b_bf16_prefill_8192.mlir");
    let attached = dir.path().join("attached.mlir");
    run_ok(
        with_iree(&venv)
            .args(["attach", "-t", "gfx942", "--derived", "-o"])
            .arg(&attached)
            .arg(&model),
    );
    let applied = dir.path().join("applied.mlir");
    let output = run_ok(
        with_iree(&venv)
            .args(["apply", "--explain", "-o"])
            .arg(&applied)
            .arg(&attached),
    );
    // With the payload written to a file, the explanation goes to stderr.
    let explained = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        explained.contains("candidate op(s) configured"),
        "{explained}"
    );
    assert!(std::fs::read_to_string(&applied)
        .unwrap()
        .contains("lowering_config"));
    let again = dir.path().join("again.mlir");
    run_ok(
        with_iree(&venv)
            .args(["apply", "-o"])
            .arg(&again)
            .arg(&attached),
    );
    let output = run_ok(with_iree(&venv).arg("explain").arg(&attached));
    let explained = String::from_utf8_lossy(&output.stdout);
    assert!(
        explained.contains("candidate op(s) configured"),
        "{explained}"
    );
    let extracted = dir.path().join("library.mlir");
    run_ok(
        with_iree(&venv)
            .args(["extract", "-o"])
            .arg(&extracted)
            .arg(&attached),
    );
    assert!(std::fs::read_to_string(&extracted)
        .unwrap()
        .contains("transform.named_sequence"));
}
