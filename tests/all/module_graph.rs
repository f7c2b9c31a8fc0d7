//! The library's module graph has no cycle between top-level modules
//! (`tools/check-module-cycles`): a cycle (`apply -> iree_bytecode -> iree -> cache -> link ->
//! link/key -> apply` once) ties modules together so that none can be moved or understood alone.

use std::path::Path;
use std::process::Command;

use crate::reference::repo_root;

fn check(src: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(repo_root().join("tools/check-module-cycles"))
        .arg(src)
        .output()
        .expect("python3 runs tools/check-module-cycles")
}

#[test]
fn the_library_has_no_module_cycle() {
    let output = check(&repo_root().join("src"));
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The check itself finds a cycle made by `use` groups, inline `crate::` paths and `super::`,
/// and ignores paths in comments and strings.
#[test]
fn the_check_finds_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\npub mod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::{b::{self, X}};\n").unwrap();
    std::fs::write(src.join("b/mod.rs"), "mod inner;\n").unwrap();
    std::fs::write(
        src.join("b/inner.rs"),
        "fn f() { super::super::c::g() }\n// crate::a::f\nconst S: &str = \"crate::a\";\n",
    )
    .unwrap();
    std::fs::write(src.join("c.rs"), "fn g() { let _ = crate::a::f; }\n").unwrap();
    let output = check(src);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("a <-> b <-> c"), "{stdout}");
    // Without the edge back to `a`, no cycle: comments and strings do not count.
    std::fs::write(src.join("c.rs"), "// crate::a::f\nfn g() {}\n").unwrap();
    let output = check(src);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// No test changes this process's environment (issue 31): the harness runs tests on several
/// threads, and setting a variable in one races with every test reading the environment (and
/// is `unsafe` since Rust 2024). Tests pass settings explicitly, to a child or to the library
/// (`support::in_hermetic_child`). The names are assembled so that this file passes its check.
#[test]
fn no_test_sets_the_process_environment() {
    let forbidden = [["set", "_var"].concat(), ["remove", "_var"].concat()];
    let mut offenders = Vec::new();
    let mut scanned = 0;
    for entry in walkdir::WalkDir::new(repo_root().join("tests")) {
        let entry = entry.expect("tests/ is readable");
        if entry.path().extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        scanned += 1;
        let text = std::fs::read_to_string(entry.path()).expect("a test source is UTF-8");
        for (number, line) in text.lines().enumerate() {
            if forbidden.iter().any(|name| line.contains(name.as_str())) {
                offenders.push(format!("{}:{}: {line}", entry.path().display(), number + 1));
            }
        }
    }
    assert!(scanned > 10, "only {scanned} test sources found");
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// One module layout: a module with submodules is a folder with its `mod.rs`, never a `foo.rs`
/// beside a `foo/` (in the crate, the core crate and the tests).
#[test]
fn one_module_layout() {
    let root = repo_root();
    let mut mixed = Vec::new();
    for tree in ["src", "crates/tunespec-core/src", "tests/all"] {
        for entry in walkdir::WalkDir::new(root.join(tree)) {
            let entry = entry.expect("the sources can be walked");
            let path = entry.path();
            if entry.file_type().is_dir() && path.with_extension("rs").is_file() {
                mixed.push(
                    path.with_extension("rs")
                        .strip_prefix(root)
                        .unwrap()
                        .display()
                        .to_string(),
                );
            }
        }
    }
    assert!(
        mixed.is_empty(),
        "a module with submodules is a folder with mod.rs, not a file beside the folder: {mixed:?}"
    );
}
