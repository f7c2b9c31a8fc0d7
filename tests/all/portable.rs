//! Issue 16, F14: the same specs link to byte-identical libraries wherever they are checked
//! out. Locations in a written library name each spec relative to its root (the directory
//! given, the spec library, the config's directory; a file given alone by its own name), never
//! by an absolute path; diagnostics and `explain` still name the file as the user gave it.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::reference::repo_root;
use crate::support::tunespec_command;

const PAYLOAD: &str = "tests/fixtures/payloads/llama2_f16_decoder.mlir";

/// The fixture `one_matcher.mlir` with its matcher renamed to `tag` and its M extent `m`, so
/// that every spec of a tree has its own content.
fn spec(tag: &str, m: u32) -> String {
    std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir"))
        .unwrap()
        .replace("match_mmt_f16_2048x4096x4096", &format!("match_{tag}"))
        .replace("2048 : i64", &format!("{m} : i64"))
        .replace("@gfx942_llama", &format!("@{tag}"))
}

/// A project at `root`: a spec file, a plain spec directory (with a subdirectory), a spec
/// library extending gfx942, and a project config listing a spec for gfx942.
fn populate(root: &Path) {
    let files = [
        ("alone.mlir", spec("alone", 4096)),
        ("plain/a.mlir", spec("plain_a", 1024)),
        ("plain/sub/b.mlir", spec("plain_b", 512)),
        (
            "lib/registry.toml",
            "schema = 1\n[extend.gfx942]\nspecs = [\"gfx942/extra.mlir\"]\n".to_string(),
        ),
        ("lib/gfx942/extra.mlir", spec("lib_extra", 256)),
        (
            "tunespec.toml",
            "[targets.gfx942]\nspecs = [\"tuning/proj.mlir\"]\n".to_string(),
        ),
        ("tuning/proj.mlir", spec("proj", 128)),
        // Same file name as `plain/a.mlir`, given alone: its location gets a directory.
        ("other/a.mlir", spec("other_a", 64)),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Two checkouts of the same project at different depths, canonical paths.
fn two_checkouts() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().canonicalize().unwrap();
    let shallow = root.join("a");
    let deep = root.join("b/deeper/still/checkout");
    populate(&shallow);
    populate(&deep);
    (scratch, shallow, deep)
}

/// `tunespec ARGS` with the project config of `project` in effect (run in `cwd`).
fn run_in(project: &Path, cwd: &Path, args: &[&str]) -> Output {
    let output = tunespec_command()
        .env_remove("TUNESPEC_NO_CONFIG")
        .env("XDG_CONFIG_HOME", project.join("no-user-config"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The spec arguments, absolute (`prefix` = the checkout) or relative (`prefix` empty).
fn spec_args(prefix: &str) -> Vec<String> {
    ["alone.mlir", "plain", "lib", "other/a.mlir"]
        .iter()
        .flat_map(|path| ["--spec".to_string(), format!("{prefix}{path}")])
        .collect()
}

/// Links (bytecode and text, `-o`) and attaches in `checkout`, with the specs named by absolute
/// paths or relative to the working directory; returns (bytecode, text, attached payload).
fn outputs(checkout: &Path, absolute: bool) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let prefix = if absolute {
        format!("{}/", checkout.display())
    } else {
        String::new()
    };
    let specs = spec_args(&prefix);
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let out = checkout.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let payload = repo_root().join(PAYLOAD);
    let payload = payload.to_str().unwrap();
    let mut link_bc = vec!["link", "--target", "gfx942", "--emit", "mlirbc", "-o"];
    let bc_path = out.join("lib.mlirbc");
    link_bc.push(bc_path.to_str().unwrap());
    link_bc.extend(&specs);
    run_in(checkout, checkout, &link_bc);
    let mut link_text = vec!["link", "--target", "gfx942", "-o"];
    let text_path = out.join("lib.mlir");
    link_text.push(text_path.to_str().unwrap());
    link_text.extend(&specs);
    run_in(checkout, checkout, &link_text);
    let mut attach = vec!["attach", "--target", "gfx942", "-o"];
    let attached_path = out.join("attached.mlir");
    attach.push(attached_path.to_str().unwrap());
    attach.extend(&specs);
    attach.push(payload);
    run_in(checkout, checkout, &attach);
    let read = |path: &Path| std::fs::read(path).unwrap();
    (read(&bc_path), read(&text_path), read(&attached_path))
}

#[test]
fn the_same_specs_link_and_attach_to_the_same_bytes_in_any_checkout() {
    let (_scratch, shallow, deep) = two_checkouts();
    let reference = outputs(&shallow, true);
    // Every kind of source is in the library: the specs were all linked.
    let text = String::from_utf8_lossy(&reference.1).into_owned();
    for tag in [
        "alone",
        "plain_a",
        "plain_b",
        "lib_extra",
        "proj",
        "other_a",
    ] {
        assert!(text.contains(&format!("@match_{tag}")), "{tag}");
    }
    assert_eq!(
        outputs(&deep, true),
        reference,
        "absolute paths, another depth"
    );
    assert_eq!(outputs(&deep, false), reference, "relative paths");
    assert_eq!(outputs(&shallow, false), reference, "relative paths");
    // No checkout path is in the bytecode; the roots' relative names are.
    for checkout in [&shallow, &deep] {
        let needle = checkout.display().to_string();
        let bytecode = String::from_utf8_lossy(&reference.0).into_owned();
        assert!(!bytecode.contains(&needle), "{needle} in the bytecode");
    }
    let bytecode = String::from_utf8_lossy(&reference.0).into_owned();
    for location in [
        "alone.mlir",
        "a.mlir",
        "sub/b.mlir",
        "gfx942/extra.mlir",
        "tuning/proj.mlir",
        "other/a.mlir",
        "specs/gfx942/",
    ] {
        assert!(
            bytecode.contains(location),
            "{location} not in the bytecode"
        );
    }
    assert!(
        !bytecode.contains("/tmp"),
        "an absolute path in the bytecode"
    );
}

#[test]
fn diagnostics_and_explain_still_name_the_spec_file_the_user_gave() {
    let (_scratch, shallow, _deep) = two_checkouts();
    assert_link_diagnostics_name_the_given_file(&shallow);
    assert_explain_names_the_given_file(&shallow);
}

/// link's warnings and errors name a spec file as the user gave it (a path, or a file found
/// under a directory given relative to the working directory `shallow`). Part of
/// `diagnostics_and_explain_still_name_the_spec_file_the_user_gave`, split out to keep it
/// short.
fn assert_link_diagnostics_name_the_given_file(shallow: &Path) {
    let given = shallow.join("plain/sub/b.mlir");
    // A link warning names the file as given (a duplicate of another spec's content).
    let copy = shallow.join("copy_of_b.mlir");
    std::fs::copy(&given, &copy).unwrap();
    let output = run_in(
        shallow,
        shallow,
        &[
            "link",
            "--no-default",
            "--format",
            "short",
            "-o",
            "/dev/null",
            "--spec",
            given.to_str().unwrap(),
            "--spec",
            copy.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains(&format!("{} has the same content", copy.display())),
        "{stderr}"
    );
    // An error in a spec of a directory: located in the file as the user can open it.
    std::fs::write(
        shallow.join("plain/sub/b.mlir"),
        spec("plain_b", 512).replace("@apply_op_config\n", "@nosuch\n"),
    )
    .unwrap();
    let output = tunespec_command()
        .current_dir(shallow)
        .args([
            "link",
            "--no-default",
            "--format",
            "short",
            "-o",
            "/dev/null",
            "--spec",
            "plain",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.starts_with("plain/sub/b.mlir:") && stderr.contains("@nosuch"),
        "{stderr}"
    );
    std::fs::write(&given, spec("plain_b", 512)).unwrap();
}

/// `explain --spec`, and explain of a payload carrying an attached library, name the spec file
/// by the path given. Part of `diagnostics_and_explain_still_name_the_spec_file_the_user_gave`,
/// split out to keep it short.
fn assert_explain_names_the_given_file(shallow: &Path) {
    // `explain --spec` names the spec file by the path given.
    let alone = shallow.join("alone.mlir");
    let payload = repo_root().join(PAYLOAD);
    let explain = |args: &[&str]| -> serde_json::Value {
        // The fixture's matcher names `linalg.matmul`: it fires on the payload as written.
        let mut all = vec!["explain", "--format", "json", "--view", "written"];
        all.extend(args);
        all.push(payload.to_str().unwrap());
        let output = run_in(shallow, shallow, &all);
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let locations = |report: &serde_json::Value| -> Vec<String> {
        report["ops"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|op| op["matcher_location"].as_str().map(str::to_string))
            .collect()
    };
    let report = explain(&["--no-default", "--spec", alone.to_str().unwrap()]);
    let found = locations(&report);
    assert!(!found.is_empty(), "{report}");
    for location in &found {
        assert!(
            location.starts_with(&format!("{}:", alone.display())),
            "{location}"
        );
    }
    let report = explain(&["--no-default", "--spec", "alone.mlir"]);
    assert!(locations(&report)
        .iter()
        .all(|location| location.starts_with("alone.mlir:")));
    // A payload carrying a written (portable) library: its matchers are named relative to
    // their roots, still the file's own name.
    let attached = shallow.join("attached.mlir");
    run_in(
        shallow,
        shallow,
        &[
            "attach",
            "--no-default",
            "--spec",
            alone.to_str().unwrap(),
            "-o",
            attached.to_str().unwrap(),
            payload.to_str().unwrap(),
        ],
    );
    let output = run_in(
        shallow,
        shallow,
        &[
            "explain",
            "--format",
            "json",
            "--view",
            "written",
            attached.to_str().unwrap(),
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let found = locations(&report);
    assert!(!found.is_empty(), "{report}");
    assert!(
        found
            .iter()
            .all(|location| location.starts_with("alone.mlir:")),
        "{found:?}"
    );
}
