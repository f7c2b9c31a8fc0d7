//! Issue 16, inputs: FIFOs and walk errors in spec directories, the bytecode probe, configs of
//! another user, file names that are not UTF-8, broken configs, `attach`'s attribute guards.

use super::*;

#[test]
fn a_fifo_in_a_spec_directory_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join("one.mlir")).unwrap();
    mkfifo(&dir.path().join("x.mlir"));
    let verify = spawn(tunespec(cache.path()).arg("verify").arg(dir.path()));
    let output = finish(verify, 60, "verify DIR with a FIFO");
    assert!(output.status.success(), "{}", stderr(&output));
    let link = spawn(
        tunespec(cache.path())
            .args(["link", "--no-default", "--spec"])
            .arg(dir.path()),
    );
    let output = finish(link, 60, "link --spec DIR with a FIFO");
    assert!(output.status.success(), "{}", stderr(&output));
    // A FIFO named explicitly, with no writer, reads as empty instead of blocking.
    let verify = spawn(
        tunespec(cache.path())
            .arg("verify")
            .arg(dir.path().join("x.mlir")),
    );
    let output = finish(verify, 60, "verify FIFO");
    assert!(!output.status.success());
}

#[test]
fn walk_errors_are_located_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join("one.mlir")).unwrap();
    let dangling = dir.path().join("gone.mlir");
    std::os::unix::fs::symlink(dir.path().join("nowhere.mlir"), &dangling).unwrap();
    for args in [
        vec!["verify".to_string()],
        vec![
            "link".to_string(),
            "--no-default".to_string(),
            "--spec".to_string(),
        ],
    ] {
        let output = tunespec(cache.path())
            .args(&args)
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            report(&output)
        );
        assert!(
            report(&output).contains(&dangling.display().to_string()),
            "{args:?}: {}",
            report(&output)
        );
    }
}

#[test]
fn the_bytecode_probe_survives_a_replaced_binary() {
    let cache = tempfile::tempdir().unwrap();
    let bytecode = run(tunespec(cache.path())
        .env("TUNESPEC_CACHE", "off")
        .args(["link", "--no-default", "--emit", "mlirbc", "--spec"])
        .arg(fixture("one_matcher.mlir")))
    .stdout;
    // A second name for the binary, removed while it runs (as a package upgrade does).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let binary = dir.path().join("tunespec");
    std::fs::hard_link(env!("CARGO_BIN_EXE_tunespec"), &binary)
        .or_else(|_| std::fs::copy(env!("CARGO_BIN_EXE_tunespec"), &binary).map(|_| ()))
        .unwrap();
    let mut child = Command::new(&binary)
        .args(["verify", "/dev/stdin"])
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE_DIR", cache.path())
        .env_remove("TUNESPEC_TRUST_BYTECODE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::fs::remove_file(&binary).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&bytecode).unwrap();
    drop(stdin);
    let output = finish(child, 60, "verify after the binary was removed");
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn a_project_config_of_another_user_is_ignored_unless_listed_as_safe() {
    if skip_without_root("a_project_config_of_another_user_is_ignored_unless_listed_as_safe") {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("mine")).unwrap();
    std::fs::copy(
        fixture("one_matcher.mlir"),
        project.path().join("mine/planted.mlir"),
    )
    .unwrap();
    let config = project.path().join("tunespec.toml");
    std::fs::write(&config, "spec_dirs = [\"mine\"]\n").unwrap();
    std::os::unix::fs::chown(&config, Some(65534), Some(65534)).unwrap();
    let resolve = || {
        let output = tunespec(cache.path())
            .env_remove("TUNESPEC_NO_CONFIG")
            .env("XDG_CONFIG_HOME", xdg.path())
            .current_dir(project.path())
            .args(["resolve", "gfx942"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        output
    };
    let ignored = resolve();
    assert!(!String::from_utf8_lossy(&ignored.stdout).contains("planted.mlir"));
    assert_eq!(
        stderr(&ignored).matches("owned by another user").count(),
        1,
        "{}",
        stderr(&ignored)
    );
    // Listed in the user config's allow-list: used.
    std::fs::create_dir(xdg.path().join("tunespec")).unwrap();
    std::fs::write(
        xdg.path().join("tunespec/config.toml"),
        format!("safe_configs = [{:?}]\n", config.display().to_string()),
    )
    .unwrap();
    let allowed = resolve();
    assert!(
        String::from_utf8_lossy(&allowed.stdout).contains("planted.mlir"),
        "{}",
        String::from_utf8_lossy(&allowed.stdout)
    );
    assert!(stderr(&allowed).is_empty(), "{}", stderr(&allowed));
}

#[test]
fn a_file_name_that_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.mlir");
    std::fs::copy(fixture("one_matcher.mlir"), dir.path().join(name)).unwrap();
    let verify = tunespec(cache.path())
        .arg("verify")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", report(&verify));
    assert!(
        report(&verify).contains("caf\u{fffd}.mlir"),
        "{}",
        report(&verify)
    );
    let link = tunespec(cache.path())
        .args(["link", "--no-default", "--spec"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(link.status.success(), "{}", stderr(&link));
    assert!(String::from_utf8_lossy(&link.stdout).contains("@__kernel_config"));
}

#[test]
fn a_broken_config_is_one_exit_status_and_one_message_everywhere() {
    let project = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("tunespec.toml"), "spec_dirs = 3\n").unwrap();
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    let payload = payload.to_str().unwrap();
    for command in [
        &["link", "--target", "gfx942"][..],
        &["resolve", "gfx942"][..],
        &["explain", "--target", "gfx942", payload][..],
        &["attach", "--target", "gfx942", payload][..],
        &["apply", "--target", "gfx942", payload][..],
    ] {
        let output = tunespec(cache.path())
            .env_remove("TUNESPEC_NO_CONFIG")
            .env("XDG_CONFIG_HOME", xdg.path())
            .env("TUNESPEC_CACHE", "off")
            .current_dir(project.path())
            .args(command)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{command:?}: {}",
            report(&output)
        );
        assert_eq!(
            stderr(&output).matches("expected a sequence").count(),
            1,
            "{command:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("tunespec.toml:1:13"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn attach_refuses_bad_attribute_names_and_foreign_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    let out = dir.path().join("out.mlir");
    for attr in ["a b", "", "\"", "1abc", "a.b\"c"] {
        let output = tunespec(cache.path())
            .args(["attach", "--target", "gfx942", "--attr", attr, "-o"])
            .arg(&out)
            .arg(&payload)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{attr:?}: {}",
            stderr(&output)
        );
        assert!(!out.exists(), "{attr:?}: an output was written");
    }
    // An attribute the payload uses with another meaning is not replaced.
    let foreign = dir.path().join("foreign.mlir");
    std::fs::write(
        &foreign,
        "module attributes {llvm.data_layout = \"e-m:e\"} {\n  func.func @f() {\n    return\n  }\n}\n",
    )
    .unwrap();
    let output = tunespec(cache.path())
        .args([
            "attach",
            "--target",
            "gfx942",
            "--attr",
            "llvm.data_layout",
            "-o",
        ])
        .arg(&out)
        .arg(&foreign)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("tunespec::apply::payload")
            && stderr(&output).contains("'llvm.data_layout' attribute"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    // A good name, and attaching again over tunespec's own attribute, work; the output
    // parses and gives the library back.
    for _ in 0..2 {
        let source = if out.exists() {
            out.clone()
        } else {
            foreign.clone()
        };
        let output = tunespec(cache.path())
            .args([
                "attach",
                "--target",
                "gfx942",
                "--attr",
                "my_dialect.spec$1",
                "-o",
            ])
            .arg(dir.path().join("next.mlir"))
            .arg(&source)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        std::fs::rename(dir.path().join("next.mlir"), &out).unwrap();
    }
    run(tunespec(cache.path())
        .args(["extract", "--attr", "my_dialect.spec$1"])
        .arg(&out));
}
