//! `attach` cuts a big library down to the pairs that fire on the payload: the same configs in
//! IREE 3.13's real compile (executable-configurations of every dispatch) as the whole library,
//! at a fraction of the compile's cost (BENCHMARKS.md, `tools/bench-prune`).

use std::path::Path;
use std::process::Command;

use crate::prune_differential::{dispatch_configs, Backend};
use crate::reference::{iree_compile, repo_root};
use crate::support::tunespec_command;

/// A tuner-form library of `matchers` matchers and `ops` matmul functions (80% of a matcher's
/// shape), the functions at the top level of the payload.
fn generate(dir: &Path, matchers: usize, ops: usize) {
    let status = Command::new("python3")
        .arg(repo_root().join("tools/gen-apply-bench.py"))
        .args([
            "--form",
            "tuner",
            "--matchers",
            &matchers.to_string(),
            "--ops",
            &ops.to_string(),
        ])
        .arg("--out")
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(dir.join("payload.mlir")).unwrap();
    let start = text.find("module @dispatches {").unwrap() + "module @dispatches {".len();
    let end = text[..text.rfind('}').unwrap()].rfind('}').unwrap();
    std::fs::write(
        dir.join("model.mlir"),
        format!("module {{{}}}\n", &text[start..end]),
    )
    .unwrap();
}

fn attach(dir: &Path, extra: &[&str], out: &str) -> String {
    let output = tunespec_command()
        .args(["attach", "--no-default", "--spec"])
        .arg(dir.join("lib.mlir"))
        .arg(dir.join("model.mlir"))
        .arg("-o")
        .arg(dir.join(out))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_pruned_library_gives_every_dispatch_the_configs_of_the_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 120, 5);
    let note = attach(dir.path(), &[], "pruned.mlir");
    assert!(note.contains("of 120 pair(s) of the library"), "{note}");
    let whole_note = attach(dir.path(), &["--keep-all"], "whole.mlir");
    assert!(
        !whole_note.contains("pair(s) of the library"),
        "{whole_note}"
    );
    let (pruned, whole) = (
        std::fs::read_to_string(dir.path().join("pruned.mlir")).unwrap(),
        std::fs::read_to_string(dir.path().join("whole.mlir")).unwrap(),
    );
    assert!(
        pruned.len() * 5 < whole.len(),
        "{} vs {}",
        pruned.len(),
        whole.len()
    );
    // The pruned library holds only matchers that fire: as many pairs as the note says.
    let extracted = tunespec_command()
        .arg("extract")
        .arg(dir.path().join("pruned.mlir"))
        .output()
        .unwrap();
    assert!(extracted.status.success());
    let library = String::from_utf8_lossy(&extracted.stdout);
    let kept: usize = note
        .split("attached ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((1..120).contains(&kept), "{note}");
    assert_eq!(
        library.matches("transform.iree.match.contraction").count(),
        kept,
        "{library}"
    );
    let Some(compile) = iree_compile() else {
        return;
    };
    let (with_pruned, with_whole) = (
        dispatch_configs(&compile, Backend::Hip, &dir.path().join("pruned.mlir")),
        dispatch_configs(&compile, Backend::Hip, &dir.path().join("whole.mlir")),
    );
    assert!(!with_whole.is_empty());
    assert_eq!(with_pruned, with_whole);
}

#[test]
fn a_small_library_is_attached_whole() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 20, 3);
    let note = attach(dir.path(), &[], "attached.mlir");
    assert!(!note.contains("pair(s) of the library"), "{note}");
    let extracted = tunespec_command()
        .arg("extract")
        .arg(dir.path().join("attached.mlir"))
        .output()
        .unwrap();
    let library = String::from_utf8_lossy(&extracted.stdout);
    assert_eq!(
        library.matches("transform.iree.match.contraction").count(),
        20
    );
}

#[test]
fn a_warm_attach_asks_iree_nothing_and_writes_the_same_bytes() {
    // The cut-down library and IREE's bytecode of it are pure functions of their inputs, kept
    // in the cache: a second attach of the same library onto the same payload neither runs the
    // matchers over the payload again nor starts IREE (issue 32: warm / cold <= 0.1).
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 120, 5);
    let cache = dir.path().join("cache");
    let run = |out: &str| {
        let output = crate::iree_library::with_iree(&venv)
            .env("TUNESPEC_CACHE_DIR", &cache)
            .args(["-vv", "attach", "--no-default", "--spec"])
            .arg(dir.path().join("lib.mlir"))
            .arg(dir.path().join("model.mlir"))
            .arg("-o")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{log}");
        log
    };
    let cold = run("cold.mlir");
    assert!(cold.contains("iree.request"), "{cold}");
    let warm = run("warm.mlir");
    assert!(!warm.contains("iree.request"), "{warm}");
    assert!(warm.contains("of 120 pair(s) of the library"), "{warm}");
    assert_eq!(
        std::fs::read(dir.path().join("cold.mlir")).unwrap(),
        std::fs::read(dir.path().join("warm.mlir")).unwrap()
    );
}
