//! The bad-input corpus: every reader gets broken input and must answer with a located
//! diagnostic and a documented exit status; never a panic or an abort, never a partial output
//! file, never a modified input. Cases are generated from good inputs (truncations, flipped
//! versions, broken rules) and read from `tests/corpus/`.

use std::process::Command;

use tunespec::mlir::Mlir;

use crate::reference::repo_root;

struct Case {
    name: String,
    /// Arguments; `{input}` is the input file, `{out}` an output path that must not appear.
    args: Vec<String>,
    input: Vec<u8>,
    /// File name of the input (its extension matters).
    file: String,
    exit: i32,
    /// Text that stdout or stderr must contain (a diagnostic code, or a tool error).
    expect: String,
}

fn case(
    name: &str,
    args: &[&str],
    file: &str,
    input: impl Into<Vec<u8>>,
    exit: i32,
    expect: &str,
) -> Case {
    Case {
        name: name.to_string(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        input: input.into(),
        file: file.to_string(),
        exit,
        expect: expect.to_string(),
    }
}

fn run_case(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(&case.file);
    std::fs::write(&input, &case.input).unwrap();
    let out = dir.path().join("out.mlir");
    let args: Vec<String> = case
        .args
        .iter()
        .map(|arg| {
            arg.replace("{input}", &input.display().to_string())
                .replace("{out}", &out.display().to_string())
                .replace("{dir}", &dir.path().display().to_string())
        })
        .collect();
    let output = crate::support::tunespec_command()
        .args(&args)
        .env("TUNESPEC_CACHE", "off")
        .output()
        .map_err(|error| format!("cannot run: {error}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let tail: String = text
        .chars()
        .rev()
        .take(600)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if output.status.code() != Some(case.exit) {
        return Err(format!(
            "exit {:?}, expected {}: {tail}",
            output.status.code(),
            case.exit
        ));
    }
    if !text.contains(&case.expect) {
        return Err(format!("output lacks {:?}: {tail}", case.expect));
    }
    if text.contains("panicked") || text.contains("RUST_BACKTRACE") {
        return Err(format!("panicked: {tail}"));
    }
    if out.exists() {
        return Err("an output file was written".into());
    }
    if std::fs::read(&input).unwrap() != case.input {
        return Err("the input was modified".into());
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != &case.file)
        .collect();
    if !leftovers.is_empty() {
        return Err(format!("files left behind: {leftovers:?}"));
    }
    Ok(())
}

/// The good inputs the cases break.
struct Inputs {
    spec: String,
    /// The spec as bytecode.
    bytecode: Vec<u8>,
    payload: String,
}

impl Inputs {
    fn new() -> Inputs {
        let spec = good_spec();
        let bytecode = Mlir::new()
            .parse(spec.as_bytes(), "spec.mlir")
            .module
            .unwrap()
            .to_bytecode()
            .unwrap();
        Inputs {
            spec,
            bytecode,
            payload: std::fs::read_to_string(
                repo_root().join("examples/llama2_7b_f16_decode.mlir"),
            )
            .unwrap(),
        }
    }
}

/// The good spec the cases break.
fn good_spec() -> String {
    std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir")).unwrap()
}

/// A file of `tests/corpus/`.
fn corpus(file: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("tests/corpus").join(file)).unwrap()
}

const VERIFY: &[&str] = &["verify", "--format", "json", "{input}"];
const LINK: &[&str] = &["link", "--no-default", "--spec", "{input}", "-o", "{out}"];
const APPLY: &[&str] = &["apply", "--target", "gfx942", "{input}", "-o", "{out}"];
const ATTACH: &[&str] = &["attach", "--target", "gfx942", "{input}", "-o", "{out}"];
const EXTRACT: &[&str] = &["extract", "{input}", "-o", "{out}"];

mod cases;
mod limits;

use cases::cases;

#[test]
fn every_bad_input_gets_a_diagnostic_and_a_documented_exit_status() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case)
                .err()
                .map(|error| format!("{}: {error}", case.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_full_disk_leaves_no_partial_output_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("linked.mlir");
    std::fs::write(&out, "old content\n").unwrap();
    // A 1-block file-size limit: writing the library fails with EFBIG (SIGXFSZ is ignored).
    let output = crate::support::hermetic(&mut Command::new("bash"))
        .arg("-c")
        .arg(format!(
            "ulimit -f 1; exec '{}' link --target gfx942 -o '{}'",
            env!("CARGO_BIN_EXE_tunespec"),
            out.display()
        ))
        .env("TUNESPEC_CACHE", "off")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("tunespec: error: cannot write"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old content\n");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn the_corpus_directory_holds_only_inputs_the_tests_use() {
    let sources: String = ["mod.rs", "cases.rs", "limits.rs"]
        .iter()
        .map(|file| {
            std::fs::read_to_string(repo_root().join("tests/all/corpus").join(file)).unwrap()
        })
        .collect();
    for entry in std::fs::read_dir(repo_root().join("tests/corpus")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(sources.contains(&name), "{name} is not used by any case");
    }
}
