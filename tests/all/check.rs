//! `tunespec check` (issue 25): every matcher of specs and spec libraries re-checked against
//! the installed IREE 3.13, `--fix` of IREE 3.10's pipeline enums, the pipeline hint, and the
//! behaviour without IREE.
//!
//! The specs are written here, in the SHARK tuner's candidate form (see
//! tests/fixtures/tuner/README.md): `@apply_op_config`, `@match_*` matchers with
//! `transform.iree.match.contraction` + `dims_equal` yielding a `compilation_info`, and
//! `@__kernel_config` with one `foreach_match`. None is copied from the tuner or IREE.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::iree_library::{venv, with_iree};
use crate::reference::iree_opt;
use crate::support::{private_home, tunespec_command};

const MAPS: &str = "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]";
/// A TileAndFuse config IREE 3.13 compiles for a large f16 A*B^T GEMM on gfx942.
const TILE_AND_FUSE: &str = "#iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [32, 32, 0]}>";
/// A VectorDistribute config IREE 3.13 compiles for a 1024x1024x4096 f16 GEMM on gfx942.
const VECTOR_DISTRIBUTE: &str = "#iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 64], subgroup_basis = [[2, 2, 1], [0, 1, 2]], workgroup = [64, 64, 0]}>";

/// One tuner-form matcher: (name, m, n, k, lowering_config, pipeline as written, header
/// attributes).
struct Matcher<'a> {
    name: &'a str,
    mnk: [u32; 3],
    lowering: &'a str,
    pipeline: &'a str,
    attributes: &'a str,
}

fn contraction(matcher: &Matcher<'_>) -> String {
    let [m, n, k] = matcher.mnk;
    format!(
        "  transform.named_sequence @{name}(%arg0: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param){attributes} {{
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = {MAPS} : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = {lowering}, translation_info = #iree_codegen.translation_info<pipeline = {pipeline} workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }}
",
        name = matcher.name,
        attributes = matcher.attributes,
        lowering = matcher.lowering,
        pipeline = matcher.pipeline,
    )
}

/// A spec of `matchers` (their texts and names) in the tuner's form.
fn spec(bodies: &[(String, &str)]) -> String {
    let mut text = String::from(
        "module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 \"compilation_info\" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
",
    );
    for (body, _) in bodies {
        text.push_str(body);
    }
    let pairs: Vec<String> = bodies
        .iter()
        .map(|(_, name)| format!("@{name} -> @apply_op_config"))
        .collect();
    text.push_str(&format!(
        "  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %updated_root = transform.foreach_match in %arg0
        {} : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }}
}}
",
        pairs.join(",\n        ")
    ));
    text
}

const BIG: &str = "match_main_dispatch_0_matmul_transpose_b_2048x4096x4096_f16xf16xf32";
const SMALL: &str = "match_main_dispatch_1_matmul_transpose_b_1024x1024x4096_f16xf16xf32";

fn big(pipeline: &str, lowering: &str, attributes: &str) -> (String, &'static str) {
    let text = contraction(&Matcher {
        name: BIG,
        mnk: [2048, 4096, 4096],
        lowering,
        pipeline,
        attributes,
    });
    (text, BIG)
}

fn small(pipeline: &str, attributes: &str) -> (String, &'static str) {
    let text = contraction(&Matcher {
        name: SMALL,
        mnk: [1024, 1024, 4096],
        lowering: VECTOR_DISTRIBUTE,
        pipeline,
        attributes,
    });
    (text, SMALL)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn text_of(output: &Output) -> (i32, String, String) {
    (
        output.status.code().expect("no signal"),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn json(venv: &Path, args: &[&str], paths: &[&Path]) -> (i32, serde_json::Value) {
    let output = with_iree(venv)
        .arg("check")
        .args(args)
        .args(["--format", "json"])
        .args(paths)
        .output()
        .unwrap();
    let (code, stdout, stderr) = text_of(&output);
    let value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}\n{stderr}"));
    (code, value)
}

fn result<'a>(document: &'a serde_json::Value, matcher: &str) -> &'a serde_json::Value {
    document["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|result| result["matcher"] == matcher)
        .unwrap_or_else(|| panic!("no result for {matcher}: {document}"))
}

fn old_spec() -> String {
    spec(&[
        big("LLVMGPUTileAndFuse", TILE_AND_FUSE, ""),
        small("LLVMGPUVectorDistribute", ""),
    ])
}

#[test]
fn a_3_10_spec_is_flagged_and_fix_repairs_it_in_place() {
    let Some(venv) = venv() else { return };
    let Some(iree_opt) = iree_opt() else { return };
    let dir = private_home();
    let old = write(&dir, "old.mlir", &old_spec());
    let before = std::fs::read(&old).unwrap();
    let mtime = std::fs::metadata(&old).unwrap().modified().unwrap();

    // Without --fix: flagged (IREE 3.13 cannot parse it), edits listed, the file untouched.
    let output = with_iree(&venv)
        .args(["check", "--target", "gfx942"])
        .arg(&old)
        .output()
        .unwrap();
    let (code, stdout, _) = text_of(&output);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("parse: failed: "), "{stdout}");
    assert!(
        stdout.contains(
            ":12:327: fixable (--fix): LLVMGPUTileAndFuse -> #iree_gpu.pipeline<TileAndFuse>"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(":21:347: fixable (--fix): LLVMGPUVectorDistribute -> #iree_gpu.pipeline<VectorDistribute>"),
        "{stdout}"
    );
    assert_eq!(std::fs::read(&old).unwrap(), before);
    assert_eq!(std::fs::metadata(&old).unwrap().modified().unwrap(), mtime);

    // --fix: both edits reported and made; every step passes on the fixed spec.
    let (code, document) = json(&venv, &["--target", "gfx942", "--fix"], &[&old]);
    assert_eq!(code, 0, "{document}");
    let fixes = document["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 2, "{document}");
    assert_eq!(fixes[0]["line"], 12);
    assert_eq!(fixes[0]["col"], 327);
    assert_eq!(fixes[0]["before"], "LLVMGPUTileAndFuse");
    assert_eq!(fixes[0]["after"], "#iree_gpu.pipeline<TileAndFuse>");
    assert_eq!(fixes[1]["line"], 21);
    assert_eq!(fixes[1]["after"], "#iree_gpu.pipeline<VectorDistribute>");
    assert!(fixes.iter().all(|fix| fix["applied"] == true));
    for matcher in [BIG, SMALL] {
        let result = result(&document, matcher);
        for step in ["parse", "effect", "compile"] {
            assert_eq!(result[step]["status"], "ok", "{matcher} {step}: {result}");
        }
    }
    let fixed = std::fs::read_to_string(&old).unwrap();
    assert_eq!(
        fixed,
        old_spec()
            .replace("LLVMGPUTileAndFuse", "#iree_gpu.pipeline<TileAndFuse>")
            .replace(
                "LLVMGPUVectorDistribute",
                "#iree_gpu.pipeline<VectorDistribute>"
            )
    );
    // iree-opt 3.13 reads the fixed file; it refused the original.
    let opt = |path: &Path| Command::new(&iree_opt).arg(path).output().unwrap();
    assert!(opt(&old).status.success());
    let original = write(&dir, "original.mlir", &old_spec());
    assert!(!opt(&original).status.success());

    // --fix again: nothing to fix, the file is not rewritten (bytes and mtime).
    let mtime = std::fs::metadata(&old).unwrap().modified().unwrap();
    let (code, document) = json(&venv, &["--target", "gfx942", "--fix"], &[&old]);
    assert_eq!(code, 0);
    assert_eq!(document["fixes"].as_array().unwrap().len(), 0);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), fixed);
    assert_eq!(std::fs::metadata(&old).unwrap().modified().unwrap(), mtime);
}

#[test]
fn a_good_spec_passes_and_a_config_that_does_not_compile_fails_step_c() {
    let Some(venv) = venv() else { return };
    let dir = private_home();
    let good = write(
        &dir,
        "good.mlir",
        &spec(&[big("#iree_gpu.pipeline<TileAndFuse>", TILE_AND_FUSE, "")]),
    );
    // Reduction tiles of 3 over K = 4096 with 16-wide MFMAs: configured, but not compiled.
    let bad_config = TILE_AND_FUSE.replace("reduction = [0, 0, 4]", "reduction = [0, 0, 3]");
    let bad = write(
        &dir,
        "bad.mlir",
        &spec(&[big("#iree_gpu.pipeline<TileAndFuse>", &bad_config, "")]),
    );
    let (code, document) = json(
        &venv,
        &["--target", "gfx942", "--jobs", "2"],
        &[&good, &bad],
    );
    assert_eq!(code, 1, "{document}");
    let results = document["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let good_result = &results[0];
    assert!(good_result["file"].as_str().unwrap().ends_with("good.mlir"));
    for step in ["parse", "effect", "compile"] {
        assert_eq!(good_result[step]["status"], "ok", "{good_result}");
    }
    assert_eq!(good_result["ok"], true);
    // Its tiles are not IREE's own choice: the effect is observable, no remark.
    assert!(
        good_result["effect"].get("message").is_none(),
        "{good_result}"
    );
    assert_eq!(good_result["kind"], "contraction");
    let bad_result = &results[1];
    assert_eq!(bad_result["parse"]["status"], "ok", "{bad_result}");
    assert_eq!(bad_result["effect"]["status"], "ok", "{bad_result}");
    assert_eq!(bad_result["compile"]["status"], "failed", "{bad_result}");
    assert!(bad_result["compile"]["message"]
        .as_str()
        .unwrap()
        .starts_with("IREE's compile failed: "));
    assert_eq!(bad_result["ok"], false);
    assert_eq!(document["summary"]["passed"], 1);
    assert_eq!(document["summary"]["failed"], 1);
    assert!(document["iree"].as_str().unwrap().starts_with("3.13"));

    // IREE's own choice for that payload as the spec's config: ok, but said to be unobservable.
    let default = TILE_AND_FUSE
        .replace("reduction = [0, 0, 4]", "reduction = [0, 0, 2]")
        .replace("workgroup = [32, 32, 0]", "workgroup = [128, 128, 0]");
    let same = write(
        &dir,
        "same.mlir",
        &spec(&[big("#iree_gpu.pipeline<TileAndFuse>", &default, "")]).replace(
            "subgroup_size = 64>>",
            "subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2, no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>>",
        ),
    );
    let (code, document) = json(&venv, &["--target", "gfx942"], &[&same]);
    assert_eq!(code, 0, "{document}");
    let effect = &result(&document, BIG)["effect"];
    assert_eq!(effect["status"], "ok");
    assert_eq!(
        effect["message"],
        "IREE chooses the same config without the spec: the match is not observable"
    );

    // A matcher that @__kernel_config never runs: its config never reaches the payload, step
    // b fails.
    let (unused, _) = small("#iree_gpu.pipeline<VectorDistribute>", "");
    let text = spec(&[big("#iree_gpu.pipeline<TileAndFuse>", TILE_AND_FUSE, "")]).replace(
        "  transform.named_sequence @__kernel_config",
        &format!("{unused}  transform.named_sequence @__kernel_config"),
    );
    let unreached = write(&dir, "unreached.mlir", &text);
    let (code, document) = json(&venv, &["--target", "gfx942"], &[&unreached]);
    assert_eq!(code, 1, "{document}");
    assert_eq!(result(&document, BIG)["ok"], true, "{document}");
    let result = result(&document, SMALL);
    assert_eq!(result["effect"]["status"], "failed", "{result}");
    let message = result["effect"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the payload's dispatch did not get the matcher's config"),
        "{message}"
    );
    // A real difference: both configs, expected above got, and the fields that differ.
    assert!(
        message.contains("lowering_config:\n      expected #iree_gpu.lowering_config<")
            && message.contains("\n      got      #iree_gpu.lowering_config<"),
        "{message}"
    );
    assert!(
        message.contains("translation_info:\n      expected #iree_codegen.translation_info<"),
        "{message}"
    );
    assert!(
        message.contains("differs in: lowering_config `"),
        "{message}"
    );
}

#[test]
fn measurements_of_another_iree_and_attention_matchers_are_warned_about() {
    let Some(venv) = venv() else { return };
    let library = private_home();
    let measured = |iree: &str| {
        format!(
            " attributes {{tunespec.measurement = {{source = \"measured\", device = \"hip://0\", iree = \"{iree}\", date = \"2026-01-02\", baseline_us = \"100\", tuned_us = \"80\", speedup = \"0.800\", dispatch = \"main_dispatch_0\", candidate = \"1\"}}}}"
        )
    };
    let stale = measured("3.10.0");
    write(
        &library,
        "gfx942/stale.mlir",
        &spec(&[big(
            "#iree_gpu.pipeline<TileAndFuse>",
            TILE_AND_FUSE,
            &stale,
        )]),
    );
    let current = measured("3.13.0");
    write(
        &library,
        "gfx942/current.mlir",
        &spec(&[small("#iree_gpu.pipeline<VectorDistribute>", &current)]),
    );
    write(
        &library,
        "gfx942/attention.mlir",
        &spec(&[(ATTENTION.to_string(), "match_attention")]),
    );
    // The tuner's baseline placeholder: no matcher, nothing to check.
    write(
        &library,
        "gfx942/placeholder.mlir",
        "module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {\n  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {\n    transform.yield %arg0 : !transform.any_op\n  }\n}\n",
    );
    write(
        &library,
        "registry.toml",
        "schema = 1\n\n[extend.gfx942]\nspecs = [\"gfx942/*.mlir\"]\n",
    );
    // No --target: the library registers its specs for gfx942.
    let (code, document) = json(&venv, &[], &[&library]);
    assert_eq!(code, 0, "{document}");
    let stale = result(&document, BIG);
    assert_eq!(stale["recorded_iree"], "3.10.0");
    assert_eq!(stale["target"], "gfx942");
    let warnings = stale["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{stale}");
    assert!(warnings[0]
        .as_str()
        .unwrap()
        .starts_with("measured with IREE 3.10.0, checked with IREE 3.13"));
    assert_eq!(stale["compile"]["status"], "ok");
    let current = result(&document, SMALL);
    assert_eq!(current["recorded_iree"], "3.13.0");
    assert_eq!(
        current["warnings"].as_array().unwrap().len(),
        0,
        "{current}"
    );
    let attention = result(&document, "match_attention");
    assert_eq!(attention["kind"], "attention");
    assert_eq!(attention["parse"]["status"], "ok", "{attention}");
    assert_eq!(attention["effect"]["status"], "skipped");
    let warning = attention["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("online_attention")
            && warning.contains("transform.iree.match.online_attention"),
        "{warning}"
    );
    assert_eq!(document["summary"]["warnings"], 2);
    let without = document["without_matchers"].as_array().unwrap();
    assert_eq!(without.len(), 1, "{document}");
    assert!(without[0].as_str().unwrap().ends_with("placeholder.mlir"));

    // In the short format each warning is a diagnostic line.
    let output = with_iree(&venv)
        .args(["check", "--format", "short"])
        .arg(&library)
        .output()
        .unwrap();
    let (code, stdout, _) = text_of(&output);
    assert_eq!(code, 0);
    assert_eq!(
        stdout
            .lines()
            .filter(|line| line.contains("warning[tunespec::check::warning]"))
            .count(),
        2,
        "{stdout}"
    );
}

/// An attention matcher in IREE 3.13's syntax (query, key, value, output types and maps).
const ATTENTION: &str = "  transform.named_sequence @match_attention(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k1, %k2 = transform.iree.match.attention %arg0, query_type = f16, key_type = f16, value_type = f16, output_type = f16, indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 64]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }
";

#[test]
fn the_pipeline_hint_names_the_specs_own_pipeline() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = private_home();
    let old = write(
        &dir,
        "vd.mlir",
        &spec(&[small("LLVMGPUVectorDistribute", "")]),
    );
    let output = tunespec_command()
        .env("TUNESPEC_IREE_OPT", &iree_opt)
        .arg("verify")
        .arg(&old)
        .output()
        .unwrap();
    let (code, stdout, stderr) = text_of(&output);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("#iree_gpu.pipeline<VectorDistribute>"),
        "{all}"
    );
    assert!(!all.contains("#iree_gpu.pipeline<TileAndFuse>"), "{all}");
}

#[test]
fn without_iree_check_exits_2_with_the_install_hint_and_writes_nothing() {
    let dir = private_home();
    let old = write(&dir, "old.mlir", &old_spec());
    let mtime = std::fs::metadata(&old).unwrap().modified().unwrap();
    // tunespec_command sets TUNESPEC_NO_IREE=1.
    let output = tunespec_command()
        .args(["check", "--fix", "--target", "gfx942"])
        .arg(&old)
        .output()
        .unwrap();
    let (code, stdout, stderr) = text_of(&output);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("tunespec check, which needs IREE's compiler"),
        "{stderr}"
    );
    assert!(
        stderr.contains("pip install iree-base-compiler"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&old).unwrap(), old_spec());
    assert_eq!(std::fs::metadata(&old).unwrap().modified().unwrap(), mtime);

    // Usage errors: no such path, a family target.
    let output = tunespec_command()
        .args(["check", "--target", "gfx942"])
        .arg(dir.join("missing.mlir"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = tunespec_command()
        .args(["check", "--target", "gfx9"])
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not an architecture"));
    // A file in no library, without --target: not a usage error (step a needs no target);
    // here IREE is what is missing (required: without --require-iree, see ci_templates.rs).
    let output = tunespec_command()
        .args(["check", "--require-iree"])
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("which needs IREE's compiler"));
}

#[test]
fn without_a_target_a_spec_is_parsed_in_iree_and_the_compiles_are_skipped_with_the_reason() {
    let Some(venv) = venv() else { return };
    let dir = private_home();
    let current = write(
        &dir,
        "current.mlir",
        &spec(&[small("#iree_gpu.pipeline<VectorDistribute>", "")]),
    );
    let (code, document) = json(&venv, &[], &[&current]);
    assert_eq!(code, 0, "{document}");
    let result = result(&document, SMALL);
    assert_eq!(result["parse"]["status"], "ok", "{result}");
    for step in ["effect", "compile"] {
        assert_eq!(result[step]["status"], "skipped", "{result}");
        let message = result[step]["message"].as_str().unwrap();
        assert!(
            message.contains("needs a target to compile for: give --target"),
            "{message}"
        );
    }
    // A spec IREE refuses fails step (a) without a target too.
    let broken = write(
        &dir,
        "broken.mlir",
        &old_spec().replace("lhs_type = f16", "lhs_type = f17"),
    );
    let (code, _) = json(&venv, &[], &[&broken]);
    assert_eq!(code, 1);
}

/// IREE 3.10's tuner form, written here: VectorDistribute with a virtual MMA layout,
/// `subgroup_basis`, subgroup counts written without their integer type (IREE prints them
/// `: i64`), `gpu_pipeline_options` and `llvm_func_attrs` in the translation info.
const TUNER_3_10: &str = "#iree_gpu.lowering_config<{workgroup = [64, 64, 0], reduction = [0, 0, 128], subgroup_basis = [[2, 2, 1], [0, 1, 2]], mma_kind = #iree_gpu.virtual_mma_layout<VMFMA_F32_16x16x32_F16>, promote_operands = [0, 1], subgroup_m_count = 2, subgroup_n_count = 2}>";

#[test]
fn a_config_iree_applies_verbatim_is_an_effect_however_it_is_spelt() {
    let Some(venv) = venv() else { return };
    let dir = private_home();
    let text = contraction(&Matcher {
        name: SMALL,
        mnk: [1024, 1024, 4096],
        lowering: TUNER_3_10,
        pipeline: "LLVMGPUVectorDistribute",
        attributes: "",
    })
    .replace(
        "subgroup_size = 64>>",
        "subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true>, llvm_func_attrs = {\"amdgpu-waves-per-eu\" = \"2\"}}>>",
    );
    let tuned = write(&dir, "tuned.mlir", &spec(&[(text, SMALL)]));
    let (code, document) = json(&venv, &["--target", "gfx942", "--fix"], &[&tuned]);
    assert_eq!(code, 0, "{document}");
    let result = result(&document, SMALL);
    for step in ["parse", "effect", "compile"] {
        assert_eq!(result[step]["status"], "ok", "{step}: {result}");
    }
}

/// A tuner-form convolution matcher (NHWC x HWCF, 2x32x32x128 output, 3x3 filter, 64 input
/// channels) with a TileAndFuse config of its 7 loops.
const CONVOLUTION: &str = "  transform.named_sequence @match_conv(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %oi, %oc, %fd, %ic, %depth, %strides, %dilations = transform.iree.match.convolution %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [2] : !transform.param<i64>
    transform.iree.match.dims_equal %oi, [32, 32] : !transform.param<i64>
    transform.iree.match.dims_equal %oc, [128] : !transform.param<i64>
    transform.iree.match.dims_equal %fd, [3, 3] : !transform.param<i64>
    transform.iree.match.dims_equal %ic, [64] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 0, 1, 1, 4], subgroup = [1, 1, 1, 2, 0, 0, 0], workgroup = [1, 2, 32, 64, 0, 0, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }
";

#[test]
fn a_convolution_matcher_takes_effect_on_an_nhwc_hwcf_payload() {
    let Some(venv) = venv() else { return };
    let dir = private_home();
    let conv = write(
        &dir,
        "conv.mlir",
        &spec(&[(CONVOLUTION.to_string(), "match_conv")]),
    );
    let (code, document) = json(&venv, &["--target", "gfx942"], &[&conv]);
    assert_eq!(code, 0, "{document}");
    let result = result(&document, "match_conv");
    assert_eq!(result["kind"], "convolution");
    for step in ["parse", "effect", "compile"] {
        assert_eq!(result[step]["status"], "ok", "{step}: {result}");
    }
}

/// A SHARK-tuner-form spec of IREE 3.10 for an mmt 2048x1280x5120 f16 (VectorDistribute,
/// `workgroup_size = [256, 2, 1]`, `gpu_pipeline_options`, `llvm_func_attrs`), migrated by
/// `check --fix`, as written and as IREE prints it (its configs behind `#translation` and
/// `#compilation` aliases): IREE applies it exactly, so every step passes (issue 39).
#[test]
fn a_migrated_3_10_vector_distribute_spec_is_judged_as_iree_applies_it() {
    let Some(venv) = venv() else { return };
    let Some(iree_opt) = iree_opt() else { return };
    let dir = private_home();
    let config = "#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 128], subgroup_basis = [[2, 2, 1], [0, 1, 2]], workgroup = [64, 64, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [256, 2, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>, llvm_func_attrs = {\"amdgpu-waves-per-eu\" = \"2\"}}>>";
    let text = format!(
        "module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {{transform.readonly}}, %arg1: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %arg0 \"compilation_info\" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @match_mmt_2048x1280x5120(%arg0: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1280] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %0 = transform.param.constant {config} -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }}
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %updated_root = transform.foreach_match in %arg0
        @match_mmt_2048x1280x5120 -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }}
}}
"
    );
    let written = write(&dir, "tuner_3_10.mlir", &text);
    let (code, document) = json(&venv, &["--target", "gfx942", "--fix"], &[&written]);
    assert_eq!(code, 0, "{document}");
    // The same spec as IREE prints it (aliases), then checked again.
    let printed = Command::new(&iree_opt).arg(&written).output().unwrap();
    assert!(printed.status.success(), "{printed:?}");
    let printed_text = String::from_utf8(printed.stdout).unwrap();
    assert!(printed_text.contains("#translation = "), "{printed_text}");
    let aliased = write(&dir, "printed.mlir", &printed_text);
    for (path, fixed) in [(&written, true), (&aliased, false)] {
        let (code, document) = json(&venv, &["--target", "gfx942"], &[path]);
        assert_eq!(code, 0, "{document}");
        let result = result(&document, "match_mmt_2048x1280x5120");
        for step in ["parse", "effect", "compile"] {
            assert_eq!(
                result[step]["status"], "ok",
                "fixed {fixed}, {step}: {result}"
            );
        }
    }
}
