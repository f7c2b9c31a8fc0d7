//! Issue 17: `--spec -` reads a spec from stdin wherever a spec file is taken (`link`, `attach`,
//! `apply`, `explain`, `coverage`; `verify -`), as mlir-opt and iree-opt read `-`; diagnostics
//! name it `<stdin>`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::reference::repo_root;
use crate::support::tunespec_command;

const PAYLOAD: &str = "tests/fixtures/payloads/llama2_f16_decoder.mlir";

fn spec_path() -> PathBuf {
    repo_root().join("tests/fixtures/specs/good/one_matcher.mlir")
}

/// The fixture with its M extent 4096, so that it configures an op of the payload.
fn spec_text() -> String {
    std::fs::read_to_string(spec_path())
        .unwrap()
        .replace("2048 : i64", "4096 : i64")
}

/// `tunespec ARGS` with `stdin` on its standard input (no cache).
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = tunespec_command()
        .env("TUNESPEC_CACHE", "off")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let output = run(args, stdin);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn with_spec<'a>(command: &[&'a str], spec: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = command.to_vec();
    args.extend(["--no-default", "--spec", spec]);
    args.extend(rest);
    args
}

#[test]
fn a_spec_from_stdin_works_like_the_same_spec_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spec.mlir");
    std::fs::write(&file, spec_text()).unwrap();
    let file = file.to_str().unwrap();
    let text = spec_text();
    let stdin = text.as_bytes();
    let payload = repo_root().join(PAYLOAD);
    let payload = payload.to_str().unwrap();
    // The linked text (no locations in it), the applied payload and the coverage report (with
    // the spec named `<stdin>`) are the same.
    for (command, rest) in [
        (&["link"][..], &[][..]),
        (&["apply"][..], &[payload][..]),
        (&["coverage"][..], &[payload][..]),
    ] {
        let from_file = String::from_utf8(ok(&with_spec(command, file, rest), b"")).unwrap();
        assert_eq!(
            String::from_utf8(ok(&with_spec(command, "-", rest), stdin)).unwrap(),
            from_file.replace(file, "<stdin>"),
            "{command:?}"
        );
    }
    // The library's locations name it `<stdin>`.
    let bytecode = ok(
        &with_spec(&["link"], "-", &["--emit", "mlirbc", "-o", "-"]),
        stdin,
    );
    assert!(String::from_utf8_lossy(&bytecode).contains("<stdin>"));
    // Attached, and explained from the payload: the matcher is located in `<stdin>`.
    let attached = dir.path().join("attached.mlir");
    ok(
        &with_spec(
            &["attach"],
            "-",
            &["-o", attached.to_str().unwrap(), payload],
        ),
        stdin,
    );
    for args in [
        with_spec(
            &["explain"],
            "-",
            &["--format", "json", "--view", "written", payload],
        ),
        vec![
            "explain",
            "--format",
            "json",
            "--view",
            "written",
            attached.to_str().unwrap(),
        ],
    ] {
        let report: serde_json::Value = serde_json::from_slice(&ok(&args, stdin)).unwrap();
        let locations: Vec<&str> = report["ops"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|op| op["matcher_location"].as_str())
            .collect();
        assert!(!locations.is_empty(), "{args:?}: {report}");
        assert!(
            locations.iter().all(|loc| loc.starts_with("<stdin>:")),
            "{args:?}: {locations:?}"
        );
    }
    // With a target: stdin first, the defaults after it.
    let resolved = ok(&["link", "--target", "gfx942", "--spec", "-"], stdin);
    assert!(String::from_utf8_lossy(&resolved).contains("@match_mmt_f16_2048x4096x4096"));
}

#[test]
fn problems_in_a_spec_from_stdin_are_located_in_stdin() {
    let bad = spec_text().replace("@apply_op_config\n", "@nosuch\n");
    for command in ["link", "explain"] {
        let mut args = with_spec(&[command], "-", &["--format", "short"]);
        if command == "explain" {
            args.pop();
            args.pop();
            args.push(PAYLOAD);
        }
        let output = run(&args, bad.as_bytes());
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("<stdin>:") && stderr.contains("@nosuch"),
            "{args:?}: {stderr}"
        );
    }
    // `verify -` too.
    let output = run(&["verify", "--format", "short", "-"], bad.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("<stdin>:"));
}

#[test]
fn stdin_feeds_one_input_only() {
    let payload = std::fs::read(repo_root().join(PAYLOAD)).unwrap();
    let output = run(
        &with_spec(&["attach"], "-", &["-o", "/dev/null", "-"]),
        &payload,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "standard input is already read as the input `-`; it cannot also be `--spec -`"
        ),
        "{stderr}"
    );
    // Named twice, it is one spec (the second is a repeat).
    let text = spec_text();
    let twice = ok(
        &["link", "--no-default", "--spec", "-", "--spec", "-"],
        text.as_bytes(),
    );
    let once = ok(&with_spec(&["link"], "-", &[]), text.as_bytes());
    assert_eq!(twice, once);
    assert!(Path::new(PAYLOAD).is_relative());
}
