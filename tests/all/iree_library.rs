//! The user's IREE compiler library (issue 24): models read through IREE's dispatches,
//! `explain --exact` against IREE's own configuration phase, attach of a model read back by
//! iree-compile, `doctor`, and the behaviour without IREE.
//!
//! Every model here is the tests' own (tests/fixtures/models/); the dispatch dump is made by
//! the installed iree-compile at test time.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::reference::{iree_compile, output_with_timeout, repo_root};
use crate::support::tunespec_command;

const GFX942: &[&str] = &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"];

/// The reference venv (the one iree-compile belongs to), or `None` outside CI without it.
pub(crate) fn venv() -> Option<PathBuf> {
    let compile = iree_compile()?;
    Some(compile.parent()?.parent()?.to_path_buf())
}

/// IREE 3.12 (tools/iree-venv.sh makes it beside the reference), required under CI.
fn venv_3_12() -> Option<PathBuf> {
    venv_of("3.12.0")
}

/// Another IREE release's venv (`tools/iree-venv.sh VERSION` makes `target/iree-venv-VERSION`;
/// without arguments it makes every release tunespec supports), required under CI: a missing
/// one fails there, and is a note elsewhere.
pub(crate) fn venv_of(version: &str) -> Option<PathBuf> {
    let venv = repo_root().join(format!("target/iree-venv-{version}"));
    let found = venv.join("bin/iree-compile").is_file().then_some(venv);
    if found.is_none() {
        assert!(
            !crate::reference::in_ci(),
            "IREE {version} (tools/iree-venv.sh) is required when CI=true"
        );
        eprintln!("note: IREE {version} not found; its checks did not run");
    }
    found
}

pub(crate) fn with_iree(venv: &Path) -> Command {
    let mut command = tunespec_command();
    command
        .env_remove("TUNESPEC_NO_IREE")
        .env("TUNESPEC_IREE_VENV", venv);
    command
}

/// iree-compile's (of `venv`) configured dispatches of `input` for gfx942.
pub(crate) fn configured_by(venv: &Path, input: &Path) -> String {
    // IREE 3.10 names the ROCm target flag `--iree-hip-target` only.
    let old = venv.to_string_lossy().ends_with("-3.10.0");
    let flags = if old {
        &["--iree-hal-target-device=hip", "--iree-hip-target=gfx942"]
    } else {
        GFX942
    };
    let output = output_with_timeout(
        Command::new(venv.join("bin/iree-compile"))
            .args(flags)
            .args(["--compile-to=executable-configurations", "-o", "-"])
            .arg(input),
    );
    assert!(output.status.success(), "{}: {output:?}", venv.display());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `tunespec attach -t gfx942 ARGS -o DIR/attached.mlir PAYLOAD` with `venv`'s IREE: the file.
pub(crate) fn attach_with(venv: &Path, dir: &Path, args: &[&str], payload: &Path) -> PathBuf {
    let attached = dir.join("attached.mlir");
    let output = output_with_timeout(
        with_iree(venv)
            .args(["attach", "-t", "gfx942"])
            .args(args)
            .arg("-o")
            .arg(&attached)
            .arg(payload),
    );
    assert!(output.status.success(), "{}: {output:?}", payload.display());
    attached
}

pub(crate) fn model(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/models").join(name)
}

/// `explain --exact`'s summary line and exit status, after checking that every predicted
/// config was checked equal.
pub(crate) fn exact(venv: &Path, payload: &Path) -> String {
    exact_with(venv, payload, &[])
}

/// [`exact`] with more arguments (specs).
pub(crate) fn exact_with(venv: &Path, payload: &Path, args: &[&str]) -> String {
    let output = output_with_timeout(
        with_iree(venv)
            .args(["explain", "--exact", "-t", "gfx942", "--format", "short"])
            .args(args)
            .arg(payload),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "explain --exact {}: {stdout}\n{}",
        payload.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = stdout
        .lines()
        .find(|line| line.starts_with("exact: IREE 3."))
        .unwrap_or_else(|| panic!("no exact summary in: {stdout}"))
        .to_string();
    assert!(summary.ends_with(", 0 differ"), "{summary}");
    assert!(
        !summary.contains(" 0 of "),
        "no predicted config was checked: {summary}"
    );
    summary
}

#[test]
fn a_torch_model_is_explained_exactly_through_iree() {
    let Some(venv) = venv() else { return };
    let payload = model("torch_mm_4096_f16.mlir");
    exact(&venv, &payload);
    // The row maps back to the model's own line (the torch.aten.mm).
    let output = output_with_timeout(
        with_iree(&venv)
            .args(["explain", "-t", "gfx942", "--format", "json"])
            .arg(&payload),
    );
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let configured: Vec<&serde_json::Value> = report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|op| op["matcher"].is_string())
        .collect();
    assert_eq!(configured.len(), 1, "{report}");
    assert!(
        configured[0]["location"]
            .as_str()
            .unwrap()
            .ends_with("torch_mm_4096_f16.mlir:4:14"),
        "{}",
        configured[0]
    );
}

#[test]
fn with_the_cache_off_one_command_asks_iree_each_question_once() {
    // `explain --exact` of a torch model reads IREE's dispatch sources for the explanation and
    // again for IREE's configuration phase: the second is the first's answer (a pure function
    // of the same key), even with nothing kept between processes.
    let Some(venv) = venv() else { return };
    let output = output_with_timeout(
        with_iree(&venv)
            .env("TUNESPEC_CACHE", "off")
            .args(["-vv", "explain", "--exact", "-t", "gfx942"])
            .arg(model("torch_mm_4096_f16.mlir")),
    );
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{log}");
    // The sources, the IR before config materialization, the configuration phase.
    assert_eq!(log.matches("iree.request:").count(), 3, "{log}");
}

#[test]
fn an_attention_model_is_explained_as_iree_3_13_matches_it_online_attention() {
    let Some(venv) = venv() else { return };
    let spec = model("attention_spec.mlir");
    let payload = model("torch_attention_f16.mlir");
    let summary = exact_with(
        &venv,
        &payload,
        &["--no-default", "-s", spec.to_str().unwrap()],
    );
    assert!(summary.contains("1 of 1 predicted"), "{summary}");
    // The row is IREE's own root op, at the model's line.
    let output = output_with_timeout(
        with_iree(&venv)
            .args([
                "explain",
                "-t",
                "gfx942",
                "--no-default",
                "--format",
                "short",
                "-s",
            ])
            .arg(&spec)
            .arg(&payload),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("torch_attention_f16.mlir:8:10: iree_linalg_ext.online_attention"),
        "{stdout}"
    );
    assert!(stdout.contains("@match_online_attention"), "{stdout}");
}

/// IREE's SDXL form (legacy `@__kernel_config` without result or marker,
/// `cast_compatible_dag_from_root` matchers) on a torch linear layer, in IREE 3.13 and 3.12:
/// explained exactly, and attached as each IREE reads and applies it.
#[test]
fn an_sdxl_form_spec_on_a_torch_model_is_exact_and_attached_in_each_iree() {
    let spec = repo_root().join("tests/fixtures/iree/forms/sdxl_legacy.mlir");
    let payload = model("torch_linear_2048x1280x5120.mlir");
    let venvs: Vec<PathBuf> = venv().into_iter().chain(venv_3_12()).collect();
    for venv in venvs {
        let summary = exact_with(
            &venv,
            &payload,
            &["--no-default", "-s", spec.to_str().unwrap()],
        );
        assert!(summary.contains("1 of 1 predicted"), "{summary}");
        let dir = tempfile::tempdir().unwrap();
        let spec_arg = spec.to_str().unwrap();
        let attached = attach_with(
            &venv,
            dir.path(),
            &["--no-default", "-s", spec_arg],
            &payload,
        );
        // The spec's tiles (IREE's own heuristic picks reduction [0, 0, 2], subgroup [4, 4, 0]).
        let marker = "reduction = [0, 0, 4], subgroup = [4, 2, 0]";
        assert!(
            configured_by(&venv, &attached).contains(marker),
            "{}: the spec's config is not on the dispatch",
            venv.display()
        );
        assert!(!configured_by(&venv, &payload).contains(marker));
    }
}

#[test]
fn a_util_global_model_is_explained_exactly_through_iree() {
    let Some(venv) = venv() else { return };
    exact(&venv, &model("util_global_linear.mlir"));
}

#[test]
fn iree_dispatch_dumps_are_explained_exactly() {
    let Some(venv) = venv() else { return };
    let compile = iree_compile().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("sources");
    let output = output_with_timeout(
        Command::new(&compile)
            .args(GFX942)
            .arg(model("torch_mm_4096_f16.mlir"))
            .args(["-o", "/dev/null"])
            .arg(format!(
                "--iree-hal-dump-executable-sources-to={}",
                dump.display()
            )),
    );
    assert!(output.status.success(), "{output:?}");
    let mut dumped: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    dumped.sort();
    assert_eq!(dumped.len(), 1, "{dumped:?}");
    exact(&venv, &dumped[0]);
}

#[test]
fn attach_of_a_torch_model_is_read_by_iree_compile_with_the_explained_config() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let payload = model("torch_mm_4096_f16.mlir");
    let attached = attach_with(&venv, dir.path(), &[], &payload);
    let written = std::fs::read_to_string(&attached).unwrap();
    assert!(written.contains("iree_codegen.tuning_spec_mlirbc"));
    assert!(
        written.contains("torch.aten.mm"),
        "the model stays a torch model"
    );
    // What explain says the matmul gets...
    let output = output_with_timeout(
        with_iree(&venv)
            .args(["explain", "-t", "gfx942", "--format", "json"])
            .arg(&payload),
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let info = report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|op| op["config"].as_array().unwrap().iter())
        .find(|entry| entry["name"] == "compilation_info")
        .expect("explain configures the matmul")["value"]
        .as_str()
        .unwrap()
        .to_string();
    let squash = |text: &str| {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    let lowering = tunespec::iree::configs::attribute_named(&info, "lowering_config").unwrap();
    // ... is what iree-compile puts on the dispatch of the attached model, and not its own.
    let configured = |input: &Path| squash(&configured_by(&venv, input));
    assert!(configured(&attached).contains(&squash(&lowering)));
    assert!(!configured(&payload).contains(&squash(&lowering)));
}

#[test]
fn without_iree_a_model_says_what_is_missing_and_how_to_install_it() {
    let mut command = tunespec_command();
    command
        .env_remove("TUNESPEC_IREE_VENV")
        .env_remove("TUNESPEC_IREE_LIB")
        // No iree-compile, and a python3 without IREE (Debian's), if any.
        .env("PATH", "/usr/bin:/bin")
        .args(["explain", "-t", "gfx942"])
        .arg(model("torch_mm_4096_f16.mlir"));
    let output = output_with_timeout(&mut command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("torch ops"), "{stderr}");
    assert!(
        stderr.contains("pip install iree-base-compiler"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error").count(), 1, "said once: {stderr}");
    assert!(output.stdout.is_empty());
}

/// Attach of each model form (`util.global` weights, an attention) is read by iree-compile
/// 3.13, with the library's config on the dispatch and not IREE's own.
#[test]
fn attach_of_util_global_and_attention_models_takes_effect_in_iree_compile() {
    let Some(venv) = venv() else { return };
    let attention_spec = model("attention_spec.mlir");
    let cases: [(&str, Vec<&str>, &str); 2] = [
        (
            "util_global_linear.mlir",
            vec![],
            "workgroup = [256, 128, 0]",
        ),
        (
            "torch_attention_f16.mlir",
            vec!["--no-default", "-s", attention_spec.to_str().unwrap()],
            "workgroup = [1, 128, 64, 0, 0]",
        ),
    ];
    for (name, args, marker) in cases {
        let payload = model(name);
        let dir = tempfile::tempdir().unwrap();
        let attached = attach_with(&venv, dir.path(), &args, &payload);
        assert!(
            configured_by(&venv, &attached).contains(marker),
            "{name}: {marker}"
        );
        assert!(
            !configured_by(&venv, &payload).contains(marker),
            "{name}: IREE's own choice"
        );
    }
}

#[test]
fn doctor_names_the_iree_found_and_a_broken_one_is_an_error() {
    if let Some(venv) = venv() {
        let output = output_with_timeout(with_iree(&venv).args(["doctor", "--format", "json"]));
        assert!(output.status.success(), "{output:?}");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["iree"]["found"], true, "{report}");
        assert_eq!(report["iree"]["origin"], "TUNESPEC_IREE_VENV");
        assert!(report["iree"]["revision"]
            .as_str()
            .unwrap()
            .starts_with("3."));
        let version = output_with_timeout(with_iree(&venv).args(["--version", "-v"]));
        assert!(String::from_utf8_lossy(&version.stdout).contains("IREE 3."));
    }
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("libIREECompiler.so");
    std::fs::write(&fake, b"not a library").unwrap();
    let output = output_with_timeout(
        tunespec_command()
            .env_remove("TUNESPEC_NO_IREE")
            .env("TUNESPEC_IREE_LIB", &fake)
            .args(["doctor"]),
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("IREE compiler: not found"), "{stdout}");
    assert!(stdout.contains("cannot load"), "{stdout}");
}

#[test]
fn memory_spaces_of_iree_dialects_are_quoted_for_mlir_22() {
    let text = b"%0 = \"a.b\"() : () -> memref<4x4xf16, #hal.descriptor_type<storage_buffer>>\n%1 = \"a.c\"() : () -> memref<4xf16, strided<[1], offset: ?>, #gpu.address_space<workgroup>>\n";
    let quoted = String::from_utf8(tunespec::iree::quote_memory_spaces(text)).unwrap();
    assert!(
        quoted.contains("memref<4x4xf16, \"#hal.descriptor_type<storage_buffer>\">"),
        "{quoted}"
    );
    // A registered dialect's space stays as it is.
    assert!(
        quoted.contains("memref<4xf16, strided<[1], offset: ?>, #gpu.address_space<workgroup>>"),
        "{quoted}"
    );
}

/// What IREE shapes is cached under IREE's revision: linking for IREE 3.12 after 3.13 (the same
/// specs, the same cache) asks 3.12 and stores its own entries; back on 3.13, nothing new.
#[test]
fn switching_iree_versions_never_serves_the_other_versions_output() {
    let (Some(venv_13), Some(venv_12)) = (venv(), venv_3_12()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let entries = || {
        let output = output_with_timeout(
            tunespec_command()
                .env("TUNESPEC_CACHE_DIR", &cache)
                .args(["cache", "stats", "--format", "json"]),
        );
        let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        stats["entries"].as_u64().unwrap()
    };
    let link = |venv: &Path| {
        let out = dir.path().join("library.mlirbc");
        let output = output_with_timeout(
            with_iree(venv)
                .env("TUNESPEC_CACHE_DIR", &cache)
                .args(["link", "-t", "gfx942", "--emit", "mlirbc", "-o"])
                .arg(&out),
        );
        assert!(output.status.success(), "{output:?}");
        // The IREE it was written for reads it.
        let read = output_with_timeout(
            Command::new(venv.join("bin/iree-opt"))
                .arg(&out)
                .args(["-o", "/dev/null"]),
        );
        assert!(read.status.success(), "{}: {read:?}", venv.display());
        // The text `link` writes (checked by that IREE) parses in it too.
        let text = dir.path().join("library.mlir");
        let output = output_with_timeout(
            with_iree(venv)
                .env("TUNESPEC_CACHE_DIR", &cache)
                .args(["link", "-t", "gfx942", "-o"])
                .arg(&text),
        );
        assert!(output.status.success(), "{output:?}");
        let read = output_with_timeout(
            Command::new(venv.join("bin/iree-opt"))
                .arg(&text)
                .args(["-o", "/dev/null"]),
        );
        assert!(read.status.success(), "{}: {read:?}", venv.display());
    };
    link(&venv_13);
    let after_13 = entries();
    link(&venv_12);
    let after_12 = entries();
    assert_eq!(
        after_12,
        after_13 + 2,
        "3.12's bytecode and its check of the text are entries of their own (each wheel's revision is read from its version.py, not cached)"
    );
    link(&venv_13);
    assert_eq!(
        entries(),
        after_12,
        "3.13 again: served from its own entries"
    );
}

/// The dispatch view follows the backend: IREE's llvm-cpu backend keeps `linalg.matmul` named
/// where its tuning specs match, so a named-op matcher fires there, in IREE's own dispatches
/// (`--dispatches iree --exact`) and in tunespec's prediction without IREE alike (a spec
/// library defines the CPU target with `backend = "llvm-cpu"`).
#[test]
fn on_the_cpu_backend_a_named_op_matcher_fires_as_in_iree() {
    let library = model("cpu_library");
    let payload = model("linalg_matmul_256_f32.mlir");
    let args = [
        "-t",
        "test_cpu",
        "--no-default",
        "-s",
        library.to_str().unwrap(),
    ];
    let mut predicted = tunespec_command();
    predicted
        .env_remove("TUNESPEC_IREE_VENV")
        .env("PATH", "/usr/bin:/bin")
        .args(["explain", "--format", "short"])
        .args(args)
        .arg(&payload);
    let output = output_with_timeout(&mut predicted);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.contains(
            "linalg.matmul loops=256x256x256 types=f32,f32,f32: @named_matmul::match_matmul_256"
        ),
        "{stdout}"
    );
    let Some(venv) = venv() else { return };
    let output = output_with_timeout(
        with_iree(&venv)
            .args([
                "explain",
                "--dispatches",
                "iree",
                "--exact",
                "--format",
                "short",
            ])
            .args(args)
            .arg(&payload),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{output:?}");
    assert!(
        stdout.contains("1 of 1 predicted config(s) checked equal, 0 differ"),
        "{stdout}"
    );
}

#[test]
fn a_rerun_of_exact_asks_iree_nothing_and_an_edited_spec_asks_again() {
    let Some(venv) = venv() else { return };
    let cache = tempfile::tempdir().unwrap();
    let payload = model("torch_mm_4096_f16.mlir");
    let spec_dir = tempfile::tempdir().unwrap();
    let spec = spec_dir.path().join("spec.mlir");
    let original = std::fs::read_to_string(model("tosa_matmul_spec.mlir")).unwrap();
    // `-v` logs each phase that ran; IREE's configuration phase is `iree.configure`.
    let configures = |spec_text: &str| {
        std::fs::write(&spec, spec_text).unwrap();
        let output = output_with_timeout(
            with_iree(&venv)
                .env("TUNESPEC_CACHE_DIR", cache.path())
                .args([
                    "-v", "explain", "--exact", "-t", "gfx942", "--format", "short",
                ])
                .arg("--spec")
                .arg(&spec)
                .arg(&payload),
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("1 of 1 predicted config(s) checked equal, 0 differ"));
        String::from_utf8_lossy(&output.stderr).contains("iree.configure")
    };
    assert!(configures(&original), "the first run asks IREE");
    assert!(!configures(&original), "the same inputs again: cached");
    let edited = original.replace("@match_main_dispatch_0", "@match_edited_dispatch_0");
    assert!(
        configures(&edited),
        "an edited spec: IREE's phase runs again"
    );
}

#[test]
fn an_unmatched_attention_op_is_listed_the_op_a_user_wants_to_tune() {
    let Some(venv) = venv() else { return };
    let output = output_with_timeout(with_iree(&venv).args([
        "explain",
        "-t",
        "gfx942",
        "tests/fixtures/models/torch_attention_f16.mlir",
    ]));
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let row = text
        .lines()
        .find(|line| line.starts_with("iree_linalg_ext.online_attention"))
        .unwrap_or_else(|| panic!("no online_attention row: {text}"));
    assert!(row.contains("(no match)"), "{row}");
}
