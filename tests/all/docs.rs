//! The docs tell the truth about the tree (`tools/check-docs`): ARCHITECTURE.md's code map names
//! paths that exist, relative links in README.md and `docs/` resolve, README.md stays a front
//! page (under 300 lines), and every diagnostic code in the source is in `docs/diagnostics.md`.

use std::process::Command;

use crate::reference::repo_root;

#[test]
fn the_docs_match_the_tree() {
    let output = Command::new("python3")
        .arg(repo_root().join("tools/check-docs"))
        .current_dir(repo_root())
        .output()
        .expect("python3 runs tools/check-docs");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
