//! IREE 3.13's own default tuning spec, dumped from the installed compiler at test time (it is
//! never copied into the repository): tunespec verifies it, links it alone and after a user's
//! tuner spec (the case that matters most: a tuned model on top of IREE's defaults), and
//! applying either library configures exactly what IREE's own materialization configures.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::reference::iree_opt;
use crate::support::run;

fn tunespec(dir: &Path, iree_opt: &Path) -> Command {
    let mut command = crate::support::tunespec(&dir.join("cache"));
    command.env("TUNESPEC_IREE_OPT", iree_opt);
    command
}

/// Dumps IREE's built-in default spec for `arch` with iree-opt's own flags.
pub(crate) fn dump_default_spec(iree_opt: &Path, arch: &str, dir: &Path) -> PathBuf {
    let payload = dir.join(format!("target_{arch}.mlir"));
    std::fs::write(
        &payload,
        format!(
            "module attributes {{hal.executable.target = #hal.executable.target<\"rocm\", \"rocm-hsaco-fb\", {{iree_codegen.default_tuning_spec = #rocm.builtin.tuning_module<\"iree_default_tuning_spec_{arch}.mlir\">}}>}} {{\n}}\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("dump_{arch}"));
    std::fs::create_dir_all(&out).unwrap();
    run(Command::new(iree_opt)
        .arg("--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs)")
        .arg("--iree-codegen-enable-default-tuning-specs")
        .arg(format!(
            "--iree-codegen-dump-tuning-specs-to={}",
            out.display()
        ))
        .arg(&payload)
        .args(["-o", "/dev/null"]));
    let mut dumped: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(dumped.len(), 1, "one dumped spec for {arch}: {dumped:?}");
    dumped.pop().unwrap()
}

/// Dispatch-like payload: one function per op, nested in a module as IREE's passes want.
/// `2048x1280x5120` A*B^T in f16 is a shape of IREE's gfx942 default spec; 4096^3 is not;
/// the bf16 twin of the default's shape must not match it (types are compared exactly).
const PAYLOAD: &str = r#"module {
  module @dispatches {
    func.func @mmt_f16(%a: tensor<2048x5120xf16>, %b: tensor<1280x5120xf16>, %c: tensor<2048x1280xf32>) -> tensor<2048x1280xf32> {
      %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<2048x5120xf16>, tensor<1280x5120xf16>) outs(%c : tensor<2048x1280xf32>) -> tensor<2048x1280xf32>
      return %r : tensor<2048x1280xf32>
    }
    func.func @mmt_bf16(%a: tensor<2048x5120xbf16>, %b: tensor<1280x5120xbf16>, %c: tensor<2048x1280xf32>) -> tensor<2048x1280xf32> {
      %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<2048x5120xbf16>, tensor<1280x5120xbf16>) outs(%c : tensor<2048x1280xf32>) -> tensor<2048x1280xf32>
      return %r : tensor<2048x1280xf32>
    }
    func.func @mm_4096(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
      return %r : tensor<4096x4096xf32>
    }
  }
}
"#;

/// A user's tuner spec: a config of its own for the default spec's shape, and one for 4096^3.
const USER_SPEC: &str = r#"module @user_spec attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_mmt_2048x1280x5120_f16_f16_f32(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1280] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [2, 2, 0], workgroup = [128, 64, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %op, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @match_mm_4096(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32 : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %op, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%root: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %root
        @match_mmt_2048x1280x5120_f16_f16_f32 -> @apply_op_config,
        @match_mm_4096 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
"#;

/// Per function of a materialized payload: the lines carrying a config, in order.
type Configs = Vec<(String, Vec<String>)>;

fn configs(text: &[u8]) -> Configs {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in String::from_utf8_lossy(text).lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("func.func @") {
            let name = rest.split('(').next().unwrap().to_string();
            out.push((name, Vec::new()));
            if line.contains("translation_info") {
                out.last_mut().unwrap().1.push(
                    line[line.find("translation_info").unwrap()..]
                        .split(" {")
                        .next()
                        .unwrap()
                        .to_string(),
                );
            }
        } else if line.contains("lowering_config") || line.contains("compilation_info") {
            out.last_mut().unwrap().1.push(line.to_string());
        }
    }
    out
}

/// What IREE's materialization gives for `library` on the payload, and what tunespec's `apply`
/// of the same library gives once IREE turns its `compilation_info` into configs.
fn iree_and_tunespec(
    iree_opt: &Path,
    dir: &Path,
    payload: &Path,
    library: &Path,
) -> (Configs, Configs) {
    let theirs = run(Command::new(iree_opt)
        .arg("--no-implicit-module")
        .arg(format!(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs))",
            library.display()
        ))
        .arg(payload))
    .stdout;
    let applied = dir.join(format!(
        "{}.applied.mlir",
        library.file_stem().unwrap().to_string_lossy()
    ));
    run(tunespec(dir, iree_opt)
        .args(["apply", "--no-default", "--spec"])
        .arg(library)
        .arg(payload)
        .arg("-o")
        .arg(&applied));
    let ours = run(Command::new(iree_opt)
        .arg("--no-implicit-module")
        .arg(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-user-configs))",
        )
        .arg(&applied))
    .stdout;
    (configs(&theirs), configs(&ours))
}

#[test]
fn iree_default_spec_verifies_links_and_applies_as_iree_does() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let default = dump_default_spec(&iree_opt, "gfx942", dir);
    let payload = dir.join("dispatches.mlir");
    std::fs::write(&payload, PAYLOAD).unwrap();
    let user = dir.join("user_spec.mlir");
    std::fs::write(&user, USER_SPEC).unwrap();

    // It verifies: no error (its IREE attributes checked by iree-opt too).
    let verified = run(tunespec(dir, &iree_opt)
        .args(["verify", "--format", "json"])
        .arg(&default));
    let text = String::from_utf8_lossy(&verified.stdout);
    assert!(
        !text.contains("\"severity\":\"error\""),
        "IREE's default spec gets errors: {text}"
    );

    // Alone: tunespec's link of it configures what IREE's materialization of it configures.
    let alone = dir.join("alone.mlir");
    run(tunespec(dir, &iree_opt)
        .args(["link", "--no-default", "--emit", "mlir", "--spec"])
        .arg(&default)
        .arg("-o")
        .arg(&alone));
    let (theirs, ours) = iree_and_tunespec(&iree_opt, dir, &payload, &alone);
    assert_eq!(ours, theirs, "IREE's default spec linked alone");
    let configured = |list: &[(String, Vec<String>)], function: &str| -> String {
        list.iter()
            .find(|(name, _)| name == function)
            .map(|(_, lines)| lines.join("\n"))
            .unwrap_or_default()
    };
    assert!(
        configured(&theirs, "mmt_f16").contains("workgroup = [64, 128, 0]"),
        "the default spec's config lands on its shape: {theirs:?}"
    );
    assert!(
        !configured(&theirs, "mmt_bf16").contains("lowering_config"),
        "a bf16 twin of the shape is not matched: {theirs:?}"
    );

    // After a user's tuner spec: the user's config wins on the shared shape, the default still
    // serves nothing else here, and IREE's materialization of tunespec's link agrees.
    let linked = dir.join("linked.mlir");
    run(tunespec(dir, &iree_opt)
        .args(["link", "--no-default", "--emit", "mlir", "--spec"])
        .arg(&user)
        .arg("--spec")
        .arg(&default)
        .arg("-o")
        .arg(&linked));
    let (theirs, ours) = iree_and_tunespec(&iree_opt, dir, &payload, &linked);
    assert_eq!(
        ours, theirs,
        "a user spec linked before IREE's default spec"
    );
    assert!(
        configured(&theirs, "mmt_f16").contains("workgroup = [128, 64, 0]"),
        "the user's config wins: {theirs:?}"
    );
    assert!(
        configured(&theirs, "mm_4096").contains("workgroup = [128, 128, 0]"),
        "{theirs:?}"
    );

    // The same library attached by IREE (bytecode of IREE's newer MLIR) is applied by tunespec
    // (read through iree-opt's text) with the same result.
    let iree_attached = dir.join("iree_attached.mlir");
    run(Command::new(&iree_opt)
        .arg("--no-implicit-module")
        .arg(format!(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}}))",
            linked.display()
        ))
        .arg(&payload)
        .arg("-o")
        .arg(&iree_attached));
    let applied = dir.join("iree_attached.applied.mlir");
    run(tunespec(dir, &iree_opt)
        .arg("apply")
        .arg(&iree_attached)
        .arg("-o")
        .arg(&applied));
    let from_attached = run(Command::new(&iree_opt)
        .arg("--no-implicit-module")
        .arg(
            "--pass-pipeline=builtin.module(builtin.module(iree-codegen-materialize-user-configs))",
        )
        .arg(&applied))
    .stdout;
    assert_eq!(configs(&from_attached), theirs, "IREE's attached library");
}

/// `tunespec import-iree` writes IREE's built-in spec (the same text as IREE's own dump) as a
/// spec library that links before tunespec's gfx942 defaults, so `--target gfx942 --spec LIB`
/// configures the default spec's shape as IREE's own default does.
#[test]
fn import_iree_writes_iree_default_spec_as_a_spec_library() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let library = dir.join("iree-defaults");
    let import = |out: &Path, extra: &[&str]| {
        tunespec(dir, &iree_opt)
            .args(["import-iree", "-o"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = import(&library, &["--target", "mi300x"]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let spec = library.join("gfx942/iree_default_tuning_spec_gfx942.mlir");
    let dumped = dump_default_spec(&iree_opt, "gfx942", dir);
    assert_eq!(
        std::fs::read(&spec).unwrap(),
        std::fs::read(&dumped).unwrap(),
        "the library holds IREE's own dump"
    );
    let manifest = std::fs::read_to_string(library.join("registry.toml")).unwrap();
    assert!(
        manifest
            .contains("[extend.gfx942]\nspecs = [\"gfx942/iree_default_tuning_spec_gfx942.mlir\"]"),
        "{manifest}"
    );
    assert!(manifest.contains("iree-base-compiler 3.13.0"), "{manifest}");

    // Again over the earlier import: replaced, byte-identical.
    let again = import(&library, &[]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(
        std::fs::read_to_string(library.join("registry.toml")).unwrap(),
        manifest
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("no built-in spec"));

    // Never over a directory of someone's own files, and never for a target IREE has no spec for.
    let foreign = dir.join("mine");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("registry.toml"), "schema = 1\n").unwrap();
    let refused = import(&foreign, &[]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert_eq!(
        std::fs::read_to_string(foreign.join("registry.toml")).unwrap(),
        "schema = 1\n"
    );
    let none = import(&dir.join("gfx950"), &["--target", "gfx950"]);
    assert_eq!(none.status.code(), Some(2), "{none:?}");
    assert!(!dir.join("gfx950").exists());

    // Linked before tunespec's gfx942 defaults: IREE's config lands on its shape, and IREE's
    // materialization of the same library agrees with tunespec's.
    let payload = dir.join("dispatches.mlir");
    std::fs::write(&payload, PAYLOAD).unwrap();
    let linked = dir.join("linked.mlir");
    run(tunespec(dir, &iree_opt)
        .args(["link", "--target", "gfx942", "--emit", "mlir", "--spec"])
        .arg(&library)
        .arg("-o")
        .arg(&linked));
    let (theirs, ours) = iree_and_tunespec(&iree_opt, dir, &payload, &linked);
    assert_eq!(ours, theirs);
    let mmt = theirs
        .iter()
        .find(|(name, _)| name == "mmt_f16")
        .map(|(_, lines)| lines.join("\n"))
        .unwrap_or_default();
    assert!(mmt.contains("workgroup = [64, 128, 0]"), "{theirs:?}");
}

/// IREE's real default spec (online attention with operand type checks, an action annotating
/// three attributes, one of them a unit) is of the native matcher's form: `--engine native`
/// writes the very payload the interpreter writes, and both configure what IREE configures.
#[test]
fn native_matcher_applies_iree_default_spec_as_the_interpreter_does() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let default = dump_default_spec(&iree_opt, "gfx942", dir);
    let payload =
        crate::reference::repo_root().join("tests/fixtures/iree/payloads/default_gfx942.mlir");
    let mut outputs = Vec::new();
    for engine in ["interpreter", "native"] {
        let out = dir.join(format!("{engine}.mlir"));
        run(tunespec(dir, &iree_opt)
            .args(["apply", "--no-default", "--engine", engine, "--spec"])
            .arg(&default)
            .arg("-o")
            .arg(&out)
            .arg(&payload));
        outputs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(
        outputs[0], outputs[1],
        "engines differ on IREE's default spec"
    );
    assert_eq!(
        outputs[1].matches("__tuning_spec_applied__").count(),
        2,
        "{}",
        outputs[1]
    );
    assert!(
        outputs[1].contains("decomposition_config"),
        "{}",
        outputs[1]
    );
    let theirs = run(Command::new(&iree_opt)
        .args(["--allow-unregistered-dialect", "--mlir-print-local-scope"])
        .arg(format!(
            "--pass-pipeline=builtin.module(iree-codegen-materialize-tuning-specs{{tuning-spec-path={}}},iree-codegen-materialize-user-configs)",
            default.display()
        ))
        .arg(&payload))
    .stdout;
    assert_eq!(
        crate::iree_ops::configs_by_function(&theirs),
        crate::iree_ops::configs_by_function(outputs[1].as_bytes())
    );
}
