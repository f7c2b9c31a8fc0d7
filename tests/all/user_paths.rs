//! Issue 16: error messages name the user's file, never one of tunespec's temporary files
//! (`.tunespec-*` outputs, the bytecode probe's input, iree-opt's inputs and dump directory).
//! One test per place where tunespec hands a file or bytes of its own to MLIR or a child.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::reference::{iree_opt, repo_root};
use crate::support::tunespec_command;

/// A directory for the user's files outside the system's temp dir, so that a temp path in a
/// message cannot be the user's own.
fn user_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("user-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Everything a run printed (`verify` reports on stdout, the other commands on stderr).
fn printed(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// No name of tunespec's own files in `message` (once the user's directory `user` is taken
/// out: it is under the target directory, whose name ends in `tmp`).
fn assert_no_internal_names(message: &str, user: &Path) {
    let message = message.replace(&user.display().to_string(), "USER");
    let temp_dir = std::env::temp_dir().display().to_string();
    for internal in [".tunespec-", "<probe>", ".tmp", temp_dir.as_str()] {
        assert!(
            !message.contains(internal),
            "{internal:?} in the message: {message}"
        );
    }
}

#[test]
fn bytecode_the_probe_rejects_is_reported_in_the_users_file() {
    let dir = user_dir();
    // Bytecode of a good spec with three bytes changed: MLIR 22's reader aborts on it, so only
    // the probe (a child reading it from a pipe) sees it.
    let bad = dir.path().join("flipped.mlirbc");
    std::fs::copy(
        repo_root().join("tests/fixtures/specs/bad/aborts_reader.mlirbc"),
        &bad,
    )
    .unwrap();
    let good = repo_root().join("tests/fixtures/specs/good/one_matcher.mlir");
    let bad_text = bad.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["verify", "--format", "short", bad_text],
        vec![
            "link",
            "--no-default",
            "--format",
            "short",
            "-o",
            "/dev/null",
            "--spec",
            bad_text,
        ],
        // As a payload.
        vec![
            "attach",
            "--no-default",
            "--format",
            "short",
            "-o",
            "/dev/null",
            "--spec",
            good.to_str().unwrap(),
            bad_text,
        ],
    ];
    for args in commands {
        let output = tunespec_command()
            .env("TUNESPEC_CACHE", "off")
            .args(&args)
            .output()
            .unwrap();
        let message = printed(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {message}");
        assert!(
            message.contains(&format!(
                "{bad_text}:1:1: error[tunespec::verify::bad-bytecode]: MLIR's bytecode reader"
            )),
            "{args:?}: {message}"
        );
        assert_no_internal_names(&message, dir.path());
    }
}

#[test]
fn iree_attributes_iree_opt_rejects_are_reported_in_the_users_file() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = user_dir();
    let spec = dir.path().join("my_spec.mlir");
    std::fs::copy(
        repo_root().join("tests/fixtures/iree_verify/attributes.mlir"),
        &spec,
    )
    .unwrap();
    let output = tunespec_command()
        .args(["verify", "--format", "short", "--iree-opt"])
        .arg(&iree_opt)
        .arg(&spec)
        .output()
        .unwrap();
    let message = printed(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    let findings: Vec<&str> = message
        .lines()
        .filter(|line| line.contains("tunespec::iree::attribute"))
        .collect();
    assert_eq!(findings.len(), 4, "{message}");
    for line in findings {
        assert!(line.starts_with(&format!("{}:", spec.display())), "{line}");
    }
    assert!(!message.contains("<stdin>"), "{message}");
    assert_no_internal_names(&message, dir.path());
}

/// Runs `tunespec ARGS` with writes limited to `limit_kib` KiB per file (`ulimit -f`, the signal
/// it raises ignored, so that writes past it fail with EFBIG as on a full quota).
fn with_file_size_limit(limit_kib: u32, args: &[&str], cwd: &Path) -> Output {
    let command = tunespec_command();
    let program = command.get_program().to_owned();
    let mut shell = std::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {limit_kib}; exec \"$0\" \"$@\""
        ))
        .arg(program)
        .args(args)
        .current_dir(cwd);
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => shell.env(name, value),
            None => shell.env_remove(name),
        };
    }
    shell.env("TUNESPEC_CACHE", "off").output().unwrap()
}

#[test]
fn a_failing_write_names_the_output_never_the_temporary_file() {
    let dir = user_dir();
    let spec = repo_root().join("tests/fixtures/specs/good/gfx942_llama2_f16.mlir");
    // The linked text is larger than 1 KiB: writing it fails part way.
    let output = with_file_size_limit(
        1,
        &[
            "link",
            "--no-default",
            "-o",
            "lib.mlir",
            "--spec",
            spec.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("cannot write lib.mlir: "), "{message}");
    assert!(message.contains("os error 27"), "{message}");
    assert_no_internal_names(&message, dir.path());
    // Nothing was left behind: no output, no temporary file.
    let left: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // A directory where no file can be created (not even by root: a file is in its way).
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, "").unwrap();
    let output = tunespec_command()
        .env("TUNESPEC_CACHE", "off")
        .current_dir(dir.path())
        .args(["link", "--no-default", "-o", "blocked/lib.mlir", "--spec"])
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.contains("cannot write blocked/lib.mlir: "),
        "{message}"
    );
    assert_no_internal_names(&message, dir.path());
}

#[test]
fn import_iree_failures_never_name_its_request_or_dump_directory() {
    let dir = user_dir();
    // An iree-opt that fails the way iree-opt does, naming its input file and every path it
    // was given.
    let fake = dir.path().join("iree-opt");
    std::fs::write(
        &fake,
        "#!/bin/sh\n\
         if [ \"$1\" = --version ]; then echo 'IREE compiler version 3.13.0'; exit 0; fi\n\
         for last in \"$@\"; do :; done\n\
         echo \"$last:1:1: error: no builtin spec ($*)\" >&2\n\
         exit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = tunespec_command()
        .args(["import-iree", "--target", "gfx942", "--iree-opt"])
        .arg(&fake)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("error: no builtin spec"), "{message}");
    assert!(message.contains("<dump directory>"), "{message}");
    assert!(!message.contains("request.mlir"), "{message}");
    assert_no_internal_names(&message, dir.path());
}
