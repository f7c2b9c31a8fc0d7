//! The build-time check: runs the compiled build script itself (the program cargo runs before
//! compiling tunespec) on a specs directory, as cargo would, and checks its verdict.

use std::path::PathBuf;
use std::process::Command;

/// The newest `build-script-build` of this package in the profile directory of this test binary.
pub(crate) fn build_script() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> =
        std::fs::read_dir(profile_dir.join("build"))
            .expect("build directory")
            .filter_map(Result::ok)
            // `tunespec-<hash>`: not the build scripts of tunespec-mlir-shim or tunespec-core.
            .filter(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .strip_prefix("tunespec-")
                    .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
            })
            .map(|entry| entry.path().join("build-script-build"))
            .filter(|path| path.is_file())
            .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
            .collect();
    candidates.sort();
    candidates
        .pop()
        .expect("cargo built tunespec's build script")
        .1
}

pub(crate) fn run_build_script(
    specs: &[(&str, &str)],
) -> (bool, String, PathBuf, tempfile::TempDir) {
    let crate_dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in specs {
        let path = crate_dir.path().join("specs").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out_dir = crate_dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let output = Command::new(build_script())
        .env("CARGO_MANIFEST_DIR", crate_dir.path())
        .env("OUT_DIR", &out_dir)
        .env_remove("TUNESPEC_SPECS_DIR")
        .output()
        .expect("build script runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.success(), stderr, out_dir, crate_dir)
}

pub(crate) const REGISTRY: &str =
    "schema = 1\n[targets.gfx942]\ndescription = \"test\"\nspecs = [\"gfx942/*.mlir\"]\n";

pub(crate) const GOOD: &str = r#"module @good attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_mm(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    %c = transform.param.constant 1 : i64 -> !transform.any_param
    transform.yield %op, %c : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %r = transform.foreach_match in %arg @match_mm -> @apply : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
}
"#;

#[test]
fn invalid_spec_fails_the_build_with_a_located_message() {
    let bad = GOOD.replace("@match_mm -> @apply", "@match_mx -> @apply");
    let (ok, stderr, _out, _dir) = run_build_script(&[
        ("registry.toml", REGISTRY),
        ("gfx942/good.mlir", GOOD),
        ("gfx942/bad.mlir", &bad),
    ]);
    assert!(!ok, "the build script must fail; stderr:\n{stderr}");
    assert!(
        stderr.contains("specs/gfx942/bad.mlir:12:10: error: unresolved matcher symbol @match_mx"),
        "stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("1 problem(s) in the default specs"),
        "stderr:\n{stderr}"
    );
}

/// A measured default must have beaten IREE's own config: a record measured slower (a derived
/// config once timed at 1.077 of IREE's time, say) fails the build; one below 1 is embedded with
/// its record.
#[test]
fn a_measured_default_slower_than_iree_fails_the_build() {
    let measured = |speedup: &str| {
        GOOD.replace(
            "@match_mm(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {",
            &format!("@match_mm(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) attributes {{tunespec.measurement = {{device = \"cuda://0\", gpu = \"Some GPU\", iree = \"3.13.0\", speedup = \"{speedup}\"}}}} {{"),
        )
    };
    let (ok, stderr, _out, _dir) = run_build_script(&[
        ("registry.toml", REGISTRY),
        ("gfx942/slow.mlir", &measured("1.077")),
    ]);
    assert!(!ok, "the build script must fail; stderr:\n{stderr}");
    assert!(
        stderr.contains("specs/gfx942/slow.mlir: measured matcher @match_mm has speedup '1.077' on Some GPU: a measured default must beat IREE's own config"),
        "stderr:\n{stderr}"
    );
    let (ok, stderr, out, _dir) = run_build_script(&[
        ("registry.toml", REGISTRY),
        ("gfx942/fast.mlir", &measured("0.955")),
    ]);
    assert!(ok, "stderr:\n{stderr}");
    let index = std::fs::read_to_string(out.join("index.rs")).unwrap();
    assert!(index.contains("measured_matchers: 1"), "{index}");
    assert!(
        index.contains("measured_records: &[(\"Some GPU\", \"3.13.0\", \"0.955\")]"),
        "{index}"
    );
}

#[test]
fn invalid_manifest_fails_the_build_with_a_located_message() {
    let registry = REGISTRY.replace("gfx942/*.mlir", "../outside.mlir");
    let (ok, stderr, _out, _dir) =
        run_build_script(&[("registry.toml", &registry), ("gfx942/good.mlir", GOOD)]);
    assert!(!ok);
    assert!(
        stderr.contains("specs/registry.toml:4:10: error: spec path '../outside.mlir' of target 'gfx942' escapes the specs directory with '..'"),
        "stderr:\n{stderr}"
    );
}

#[test]
fn valid_specs_are_embedded_with_an_index() {
    let (ok, stderr, out, _dir) =
        run_build_script(&[("registry.toml", REGISTRY), ("gfx942/good.mlir", GOOD)]);
    assert!(ok, "stderr:\n{stderr}");
    let bytecode =
        std::fs::read(out.join("embedded/gfx942/good.mlirbc")).expect("bytecode written");
    assert!(bytecode.starts_with(b"ML\xEFR"));
    let index = std::fs::read_to_string(out.join("index.rs")).expect("index written");
    assert!(
        index.contains("path: \"specs/gfx942/good.mlir\""),
        "{index}"
    );
    assert!(index.contains("matcher_count: 1"), "{index}");
    assert!(index.contains(&format!(
        "source_hash: \"{}\"",
        blake3::hash(GOOD.as_bytes()).to_hex()
    )));
    assert!(index.contains(&format!(
        "bytecode_hash: \"{}\"",
        blake3::hash(&bytecode).to_hex()
    )));
    assert!(
        index.contains("EmbeddedTarget { name: \"gfx942\""),
        "{index}"
    );
}
