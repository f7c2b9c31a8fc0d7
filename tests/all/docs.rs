//! The docs tell the truth about the tree (`tools/check-docs`): ARCHITECTURE.md's code map names
//! paths that exist, relative links in README.md and `docs/` resolve, README.md stays a front
//! page (under 300 lines); and the diagnostic codes are one table (`tunespec::diagnostic_codes`):
//! `docs/diagnostics.md`'s list and the schemas' code enums are generated from it (these tests
//! fail with a diff when they are stale, and rewrite them with `TUNESPEC_UPDATE_DOCS=1`), and
//! every `"tunespec::..."` string in the source is in it, and the reverse.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tunespec::diagnostic_codes;

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

/// The Python API's hand-written JSON classes read and write only what `docs/schema/` defines,
/// and read every field it requires (`tools/check-python-schema`).
#[test]
fn the_python_api_reads_what_the_schemas_define() {
    let output = Command::new("python3")
        .arg(repo_root().join("tools/check-python-schema"))
        .current_dir(repo_root())
        .output()
        .expect("python3 runs tools/check-python-schema");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("check-python-schema: ok"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Whether the tests should rewrite the generated parts of the docs instead of failing.
fn updating() -> bool {
    std::env::var_os("TUNESPEC_UPDATE_DOCS").is_some_and(|v| v == "1")
}

/// The lines of `expected` and `actual` that the other lacks, for a failure message.
fn line_diff(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    for line in expected
        .lines()
        .filter(|l| !actual.lines().any(|a| a == *l))
    {
        out.push_str(&format!("+ {line}\n"));
    }
    for line in actual
        .lines()
        .filter(|l| !expected.lines().any(|e| e == *l))
    {
        out.push_str(&format!("- {line}\n"));
    }
    out
}

#[test]
fn the_docs_code_list_is_generated_from_the_table() {
    let path = repo_root().join(diagnostic_codes::DOCS_PAGE);
    let text = std::fs::read_to_string(&path).unwrap();
    let begin = text
        .find(diagnostic_codes::DOCS_BEGIN)
        .expect("the begin marker")
        + diagnostic_codes::DOCS_BEGIN.len()
        + 1;
    let end = text
        .find(diagnostic_codes::DOCS_END)
        .expect("the end marker");
    let expected = diagnostic_codes::docs_markdown();
    let actual = &text[begin..end];
    if actual != expected && updating() {
        std::fs::write(
            &path,
            format!("{}{expected}{}", &text[..begin], &text[end..]),
        )
        .unwrap();
        return;
    }
    assert!(
        actual == expected,
        "docs/diagnostics.md's code list differs from src/diagnostic_codes.rs \
         (TUNESPEC_UPDATE_DOCS=1 cargo test --test all docs rewrites it):\n{}",
        line_diff(&expected, actual)
    );
}

/// The byte ranges of the `"enum": [...]` arrays of diagnostic codes in a schema's text: from
/// the first item's line to the closing bracket's line.
fn code_enums(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("\"enum\": [\n") {
        let start = from + at + "\"enum\": [\n".len();
        let close = start + text[start..].find(']').expect("the enum closes");
        let close_line = text[..close].rfind('\n').map_or(0, |n| n + 1);
        if text[start..].trim_start().starts_with("\"tunespec::") {
            ranges.push((start, close_line));
        }
        from = close;
    }
    ranges
}

#[test]
fn the_schemas_enumerate_the_table() {
    let codes: Vec<&str> = diagnostic_codes::CODES
        .iter()
        .map(|info| info.code)
        .collect();
    for (name, wanted) in [("diagnostic.schema.json", 1), ("sarif.schema.json", 1)] {
        let path = repo_root().join("docs/schema").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let ranges = code_enums(&text);
        assert_eq!(
            ranges.len(),
            wanted,
            "{name}: the enums of diagnostic codes"
        );
        let mut updated = text.clone();
        for &(start, end) in ranges.iter().rev() {
            let items = &text[start..end];
            let indent: String = items.chars().take_while(|c| *c == ' ').collect();
            let listed: Vec<String> = serde_json::from_str(&format!("[{items}]")).unwrap();
            if listed != codes {
                let rendered: Vec<String> = codes
                    .iter()
                    .map(|code| format!("{indent}\"{code}\""))
                    .collect();
                updated.replace_range(start..end, &(rendered.join(",\n") + "\n"));
            }
        }
        if updated != text && updating() {
            std::fs::write(&path, &updated).unwrap();
        } else {
            assert!(
                updated == text,
                "{name}: the code enum differs from src/diagnostic_codes.rs \
                 (TUNESPEC_UPDATE_DOCS=1 cargo test --test all docs rewrites it):\n{}",
                line_diff(&updated, &text)
            );
        }
        let _: serde_json::Value = serde_json::from_str(&updated).expect("the schema is JSON");
    }
}

/// The `"tunespec::..."` string literals of the Rust sources under `dir`, with where they are.
fn source_codes(dir: &Path, found: &mut BTreeMap<String, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() && name != "target" {
            source_codes(&path, found);
        } else if name == "diagnostic_codes.rs" {
            // The table itself: its strings must each be found somewhere else.
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for piece in text.split("\"tunespec::").skip(1) {
                let end =
                    piece.find(|c: char| !matches!(c, 'a'..='z' | '0'..='9' | ':' | '_' | '-'));
                if let Some(end) = end.filter(|&end| piece[end..].starts_with('"')) {
                    found
                        .entry(format!("tunespec::{}", &piece[..end]))
                        .or_insert(path.clone());
                }
            }
        }
    }
}

#[test]
fn every_code_in_the_source_is_in_the_table() {
    let mut found = BTreeMap::new();
    source_codes(&repo_root().join("src"), &mut found);
    source_codes(&repo_root().join("crates"), &mut found);
    assert!(found.len() > 40, "the scan finds the codes: {found:?}");
    let missing: Vec<String> = found
        .iter()
        .filter(|(code, _)| diagnostic_codes::lookup(code).is_none())
        .map(|(code, path)| format!("{code} ({})", path.display()))
        .collect();
    assert!(
        missing.is_empty(),
        "codes not in src/diagnostic_codes.rs: {missing:?}"
    );
    let unused: Vec<&str> = diagnostic_codes::CODES
        .iter()
        .map(|info| info.code)
        .filter(|code| !found.contains_key(*code))
        .collect();
    assert!(
        unused.is_empty(),
        "codes in the table that no source has: {unused:?}"
    );
}
