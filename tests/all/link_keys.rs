//! Matchers keyed by what they match (issue 25): shadowing by key in `link`, overrides of
//! defaults named by layer in `link` and `explain`, measured configs before derived ones.
//!
//! The specs are written here in the SHARK tuner's candidate form (tests/fixtures/tuner/README.md,
//! tuner-formats.md: `@apply_op_config`, one `@match_<dispatch>` of
//! `transform.iree.match.contraction` + `dims_equal`, no `has_no_lowering_config`, the config
//! yielded by the matcher, `@__kernel_config` with one `foreach_match`); nothing is copied from
//! the tuner or IREE.

use std::path::{Path, PathBuf};
use std::process::Output;

use tunespec::link::{self, key, link, LinkInput, LinkOptions, Role};
use tunespec::mlir::Mlir;

use crate::support::tunespec_command;

const AB: &str = "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]";
const ABT: &str = "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]";

/// A GEMM the tuner tuned: its dispatch function, element type, layout, shape and the
/// workgroup tile of its config.
struct Gemm<'a> {
    dispatch: &'a str,
    elem: &'a str,
    maps: &'a str,
    mnk: (u64, u64, u64),
    tile: u64,
    /// Extra matcher attributes (`tunespec.provenance`, `tunespec.measurement`).
    attrs: &'a str,
}

impl Gemm<'_> {
    fn spec(&self) -> String {
        let Gemm {
            dispatch,
            elem,
            maps,
            mnk: (m, n, k),
            tile,
            attrs,
        } = self;
        let mma = if *elem == "bf16" { "BF16" } else { "F16" };
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" attributes {{{attrs}}}")
        };
        format!(
            r#"module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {{transform.readonly}}, %arg1: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @match_{dispatch}(%arg0: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param){attrs} {{
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = {elem}, rhs_type = {elem}, output_type = f32, indexing_maps = {maps} : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_{mma}>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [2, 2, 0], workgroup = [{tile}, {tile}, 0]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }}
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %updated_root = transform.foreach_match in %arg0
        @match_{dispatch} -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }}
}}
"#
        )
    }
}

fn gemm<'a>(dispatch: &'a str, mnk: (u64, u64, u64), tile: u64) -> Gemm<'a> {
    Gemm {
        dispatch,
        elem: "f16",
        maps: ABT,
        mnk,
        tile,
        attrs: "",
    }
}

/// A tuner-form convolution matcher (nhwc_hwcf) spec.
fn convolution_spec(dispatch: &str) -> String {
    format!(
        r#"module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {{transform.readonly}}, %arg1: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @match_{dispatch}(%arg0: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %batch, %oi, %oc, %fl, %ic, %depth, %strides, %dilations = transform.iree.match.convolution %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [2] : !transform.param<i64>
    transform.iree.match.dims_equal %oi, [32, 32] : !transform.param<i64>
    transform.iree.match.dims_equal %oc, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %fl, [3, 3] : !transform.param<i64>
    transform.iree.match.dims_equal %ic, [4096] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 0, 0, 0, 4], subgroup = [1, 1, 2, 2, 0, 0, 0], workgroup = [1, 1, 64, 64, 0, 0, 0]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }}
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %updated_root = transform.foreach_match in %arg0
        @match_{dispatch} -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }}
}}
"#
    )
}

/// Writes `specs` (file name, text) into a new directory; their paths in order.
fn write_specs(specs: &[(&str, String)]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let paths = specs
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    (dir, paths)
}

/// `tunespec link` of `specs` (no defaults unless `args` gives a target).
fn link_cli(specs: &[PathBuf], args: &[&str], output: &Path) -> Output {
    let mut command = tunespec_command();
    command.arg("link");
    if !args.contains(&"--target") {
        command.arg("--no-default");
    }
    // Wide enough that no message is wrapped.
    command.env("TUNESPEC_TERM_WIDTH", "1000");
    command.args(args).arg("-o").arg(output);
    for spec in specs {
        command.arg("--spec").arg(spec);
    }
    command.output().expect("tunespec runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Links `specs` (with `--deny-warnings` too, and `--dedupe`): checks that each warns of a
/// shadowed matcher, that `--deny-warnings` exits 1 and writes nothing, and that `--dedupe`
/// keeps only the first pair (`first`, not `later`: matcher names in the linked library).
fn assert_shadowed(specs: &[(&str, String)], first: &str, later: &str) {
    let (dir, paths) = write_specs(specs);
    let out = dir.path().join("out.mlir");
    let plain = link_cli(&paths, &[], &out);
    let err = stderr(&plain);
    assert_eq!(plain.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("tunespec::link::shadowed-matcher").count(),
        1,
        "{err}"
    );
    let linked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(linked.matches(" -> @").count(), 2, "{linked}");
    std::fs::remove_file(&out).unwrap();

    let denied = link_cli(&paths, &["--deny-warnings"], &out);
    assert_eq!(denied.status.code(), Some(1), "{}", stderr(&denied));
    assert!(stderr(&denied).contains("shadowed-matcher"));
    assert!(!out.exists(), "--deny-warnings wrote the library");

    let deduped = link_cli(&paths, &["--dedupe"], &out);
    assert_eq!(deduped.status.code(), Some(0), "{}", stderr(&deduped));
    let linked = std::fs::read_to_string(&out).unwrap();
    let foreach = &linked[linked.find("foreach_match").expect("a foreach_match")..];
    assert_eq!(foreach.matches(" -> @").count(), 1, "{linked}");
    assert!(foreach.contains(&format!("@{first} -> ")), "{linked}");
    assert!(!foreach.contains(&format!("@{later} -> ")), "{linked}");
}

#[test]
fn two_tuner_candidates_for_one_shape_are_shadowed() {
    // Candidates 1 and 2 of one dispatch: same matcher, different configs.
    let dispatch = "main_dispatch_0_matmul_transpose_b_2048x4096x4096_f16xf16xf32";
    assert_shadowed(
        &[
            ("1_spec.mlir", gemm(dispatch, (2048, 4096, 4096), 32).spec()),
            ("2_spec.mlir", gemm(dispatch, (2048, 4096, 4096), 64).spec()),
        ],
        &format!("match_{dispatch}"),
        &format!("match_{dispatch}_0"),
    );
}

#[test]
fn one_gemm_tuned_from_two_dispatches_is_shadowed() {
    // Llama's q and o projections are both 4096^3: two matcher names, two configs.
    assert_shadowed(
        &[
            (
                "q_proj.mlir",
                gemm(
                    "prefill_dispatch_3_matmul_q_4096x4096x4096",
                    (4096, 4096, 4096),
                    128,
                )
                .spec(),
            ),
            (
                "o_proj.mlir",
                gemm(
                    "prefill_dispatch_9_matmul_o_4096x4096x4096",
                    (4096, 4096, 4096),
                    256,
                )
                .spec(),
            ),
        ],
        "match_prefill_dispatch_3_matmul_q_4096x4096x4096",
        "match_prefill_dispatch_9_matmul_o_4096x4096x4096",
    );
}

#[test]
fn different_shapes_types_layouts_and_ops_are_not_shadowed() {
    let base = gemm("d0", (4096, 4096, 4096), 128);
    let specs = vec![
        ("base.mlir", base.spec()),
        ("shape.mlir", gemm("d1", (2048, 4096, 4096), 64).spec()),
        (
            "type.mlir",
            Gemm {
                elem: "bf16",
                ..gemm("d2", (4096, 4096, 4096), 64)
            }
            .spec(),
        ),
        (
            "layout.mlir",
            Gemm {
                maps: AB,
                ..gemm("d3", (4096, 4096, 4096), 64)
            }
            .spec(),
        ),
        ("conv.mlir", convolution_spec("d4")),
    ];
    let (dir, paths) = write_specs(&specs);
    let out = dir.path().join("out.mlir");
    let output = link_cli(&paths, &["--deny-warnings"], &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(!err.contains("shadowed-matcher"), "{err}");
    let linked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(linked.matches(" -> @").count(), 5, "{linked}");
}

/// The gfx942 default that matches 4096^3 f16 A*B (specs/gfx942/llama2_f16.mlir).
const DEFAULT_MATCHER: &str = "match_matmul_4096x4096x4096_f16_ab";
const DEFAULT_SPEC: &str = "specs/gfx942/llama2_f16.mlir";

fn user_override_spec() -> String {
    Gemm {
        maps: AB,
        ..gemm(
            "prefill_dispatch_3_matmul_4096x4096x4096_f16",
            (4096, 4096, 4096),
            128,
        )
    }
    .spec()
}

#[test]
fn a_user_tuner_matcher_over_a_default_is_an_override_in_text_and_json() {
    let (dir, paths) = write_specs(&[("tuned.mlir", user_override_spec())]);
    let out = dir.path().join("out.mlir");
    let output = link_cli(&paths, &["--target", "gfx942", "--deny-warnings"], &out);
    let err = stderr(&output);
    // A note, not a warning: --deny-warnings still writes.
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(out.exists());
    assert_eq!(
        err.matches("tunespec::link::overrides-default").count(),
        1,
        "{err}"
    );
    assert!(err.contains(&format!(
        "user spec matcher @match_prefill_dispatch_3_matmul_4096x4096x4096_f16 ({}) overrides tunespec default matcher @{DEFAULT_MATCHER} ({DEFAULT_SPEC})",
        paths[0].display()
    )), "{err}");
    // The default stays (harmless) unless --dedupe.
    let linked = std::fs::read_to_string(&out).unwrap();
    assert!(
        linked.contains(&format!("@{DEFAULT_MATCHER} -> ")),
        "{linked}"
    );

    let json = link_cli(
        &paths,
        &["--target", "gfx942", "--format", "json", "--dedupe"],
        &out,
    );
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let overrides: Vec<serde_json::Value> = stderr(&json)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|value| value["code"] == "tunespec::link::overrides-default")
        .collect();
    assert_eq!(overrides.len(), 1, "{}", stderr(&json));
    let note = &overrides[0];
    assert_eq!(note["severity"], "note");
    assert_eq!(note["file"], DEFAULT_SPEC);
    assert_eq!(note["related"][0]["file"], paths[0].display().to_string());
    assert!(note["message"]
        .as_str()
        .unwrap()
        .contains(&format!("tunespec default matcher @{DEFAULT_MATCHER}")));
    let linked = std::fs::read_to_string(&out).unwrap();
    assert!(
        !linked.contains(&format!("@{DEFAULT_MATCHER} -> ")),
        "{linked}"
    );
}

/// The measurement record `import-tuner` writes (values invented for the test).
const MEASURED: &str = r#"tunespec.provenance = "measured on hip://0", tunespec.measurement = {source = "measured", device = "hip://0", iree = "3.13.0", date = "2026-11-20", baseline_us = "100", tuned_us = "80", speedup = "0.800", dispatch = "d", candidate = "2"}"#;
const DERIVED: &str = r#"tunespec.provenance = "derived by rule R1 (not measured on hardware)""#;

fn link_in_process(
    inputs: &[(&str, String)],
    options: LinkOptions,
) -> (Vec<link::LinkedPair>, Vec<link::LinkedPair>, Vec<String>) {
    let mlir = Mlir::new();
    let inputs: Vec<LinkInput> = inputs
        .iter()
        .map(|(name, text)| LinkInput::new(*name, text.as_bytes().to_vec(), Role::User))
        .collect();
    let linked = link(&mlir, &inputs, options).unwrap_or_else(|problems| panic!("{problems:?}"));
    let codes = linked
        .problems
        .iter()
        .map(|problem| format!("{} {}", problem.code, problem.message))
        .collect();
    (linked.pairs, linked.withheld, codes)
}

#[test]
fn measured_beats_derived_whatever_the_order() {
    let measured = Gemm {
        attrs: MEASURED,
        ..gemm("measured", (4096, 4096, 4096), 128)
    }
    .spec();
    let derived = Gemm {
        attrs: DERIVED,
        ..gemm("derived", (4096, 4096, 4096), 256)
    }
    .spec();
    for order in [
        [("m.mlir", measured.clone()), ("d.mlir", derived.clone())],
        [("d.mlir", derived.clone()), ("m.mlir", measured.clone())],
    ] {
        let (pairs, withheld, problems) = link_in_process(&order, LinkOptions::default());
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0].matcher, "match_measured", "{order:?}");
        assert_eq!(pairs[0].provenance, tunespec::provenance::Kind::Measured);
        assert_eq!(pairs[1].provenance, tunespec::provenance::Kind::Derived);
        assert!(withheld.is_empty());
        // A note either way, never a shadowed-matcher warning.
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with(link::codes::MEASURED_FIRST)),
            "{problems:?}"
        );
        assert!(
            !problems
                .iter()
                .any(|p| p.starts_with(link::codes::SHADOWED)),
            "{problems:?}"
        );
    }
    // Without derived configs, the derived pair is withheld: listed, not linked.
    let (pairs, withheld, _) = link_in_process(
        &[("d.mlir", derived), ("m.mlir", measured)],
        LinkOptions {
            derived: false,
            ..LinkOptions::default()
        },
    );
    assert_eq!(pairs.len(), 1);
    assert_eq!(pairs[0].matcher, "match_measured");
    assert_eq!(withheld.len(), 1);
    assert_eq!(withheld[0].matcher, "match_derived");
}

/// The key of the only matcher named `match_*` in `text`.
fn key_of(text: &str) -> Option<key::MatcherKey> {
    key_named(text, "")
}

/// The key of the last matcher in `text` named `match_*` (`name` itself when not empty).
fn key_named(text: &str, name: &str) -> Option<key::MatcherKey> {
    let mlir = Mlir::new();
    let verified = tunespec::verify::verify_bytes(&mlir, text.as_bytes(), "k.mlir");
    assert!(!verified.has_errors(), "{:?}", verified.problems);
    let module = verified.snapshot.expect("a snapshot");
    let mut found = None;
    module.root.walk(&mut |op| {
        let wanted = |sym: &str| {
            if name.is_empty() {
                sym.starts_with("match_")
            } else {
                sym == name
            }
        };
        if op.sym_name().is_some_and(wanted) {
            found = Some(key::matcher_key(op));
        }
    });
    found.expect("a matcher")
}

#[test]
fn keys_contain_by_subset_of_constraints() {
    let tuner = key_of(&gemm("t", (4096, 4096, 4096), 64).spec()).expect("keyed");
    assert_eq!(tuner.root, "contraction");
    assert!(
        tuner
            .constraints
            .contains("dims_equal(m) {expected_values = [4096]}"),
        "{tuner}"
    );
    // The default form adds has_no_lowering_config: the tuner's key contains it, not the
    // reverse.
    let default_form = gemm("t", (4096, 4096, 4096), 64).spec().replace(
        "    %batch, %m",
        "    transform.iree.match.has_no_lowering_config %arg0 : !transform.any_op\n    %batch, %m",
    );
    let default_key = key_of(&default_form).expect("keyed");
    assert!(tuner.contains(&default_key), "{tuner}\n{default_key}");
    assert!(!default_key.contains(&tuner), "{tuner}\n{default_key}");
    assert!(tuner.overlaps(&default_key) && default_key.overlaps(&tuner));
    // Dropping a dims_equal widens the match set: the wider key contains the narrower.
    let wider = gemm("t", (4096, 4096, 4096), 64).spec().replace(
        "    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>\n",
        "",
    );
    let wider = key_of(&wider).expect("keyed");
    assert!(wider.contains(&tuner) && !tuner.contains(&wider));
    // Other shapes, types, maps, ops: no containment either way.
    for other in [
        gemm("t", (4096, 4096, 2048), 64).spec(),
        Gemm {
            elem: "bf16",
            ..gemm("t", (4096, 4096, 4096), 64)
        }
        .spec(),
        Gemm {
            maps: AB,
            ..gemm("t", (4096, 4096, 4096), 64)
        }
        .spec(),
        convolution_spec("t"),
    ] {
        let other = key_of(&other).expect("keyed");
        assert!(!other.overlaps(&tuner), "{other}\n{tuner}");
    }
    // Keys print deterministically, and targets keep registry entries apart.
    assert_eq!(
        tuner.to_string(),
        key_of(&gemm("u", (4096, 4096, 4096), 8).spec())
            .unwrap()
            .to_string()
    );
    let on_942 = tuner.clone().for_target("gfx942");
    assert!(on_942.contains(&tuner));
    assert!(!on_942.contains(&tuner.clone().for_target("gfx950")));
}

#[test]
fn a_matcher_with_an_op_the_key_does_not_know_has_no_key() {
    // transform.print (an op with effects) in the body: no key, only the fingerprint check.
    let text = gemm("t", (4096, 4096, 4096), 64).spec().replace(
        "    transform.iree.match.dims_equal %batch",
        "    transform.print %arg0 : !transform.any_op\n    transform.iree.match.dims_equal %batch",
    );
    assert_eq!(key_of(&text), None);
    // And two such matchers that differ only in their config are not reported.
    let other = text.replace("workgroup = [64, 64, 0]", "workgroup = [32, 32, 0]");
    let (_, _, problems) = link_in_process(
        &[("a.mlir", text), ("b.mlir", other)],
        LinkOptions::default(),
    );
    assert!(
        !problems
            .iter()
            .any(|p| p.starts_with(link::codes::SHADOWED)),
        "{problems:?}"
    );
}

/// A 4096^3 f16 A*B GEMM with f32 accumulation (what `user_override_spec` and the gfx942
/// default `DEFAULT_MATCHER` both match).
const AB_PAYLOAD: &str = r#"func.func @mm(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
"#;

fn explain_cli(spec: &Path, payload: &Path, format: &str) -> Output {
    let mut command = tunespec_command();
    command.env("TUNESPEC_TERM_WIDTH", "1000");
    command.args([
        "explain", "--target", "gfx942", "--format", format, "--spec",
    ]);
    command.arg(spec).arg(payload);
    command.output().expect("tunespec runs")
}

#[test]
fn explain_names_the_winner_layer_and_the_default_it_overrode() {
    let (dir, paths) = write_specs(&[("tuned.mlir", user_override_spec())]);
    let payload = dir.path().join("mm.mlir");
    std::fs::write(&payload, AB_PAYLOAD).unwrap();
    let user_matcher = "match_prefill_dispatch_3_matmul_4096x4096x4096_f16";

    let text = explain_cli(&paths[0], &payload, "human");
    let out = String::from_utf8_lossy(&text.stdout);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let line = out
        .lines()
        .find(|line| line.starts_with("override: "))
        .unwrap_or_else(|| panic!("no override line:\n{out}"));
    assert!(
        line.contains(&format!(
            "@{user_matcher} (user spec, {}",
            paths[0].display()
        )),
        "{line}"
    );
    assert!(
        line.contains(&format!(
            "overrides @{DEFAULT_MATCHER} (tunespec default, {DEFAULT_SPEC}:"
        )),
        "{line}"
    );
    assert!(out.contains("layers: config(s) 1 from user spec"), "{out}");

    let json = explain_cli(&paths[0], &payload, "json");
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let ops = doc["ops"].as_array().unwrap();
    let matmul = ops
        .iter()
        .find(|op| op["matcher"] == user_matcher)
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(matmul["layer"], "user spec");
    let overrides = matmul["overrides"].as_array().unwrap();
    assert_eq!(overrides.len(), 1, "{matmul:#}");
    assert_eq!(overrides[0]["matcher"], DEFAULT_MATCHER);
    assert_eq!(overrides[0]["layer"], "tunespec default");
    assert!(overrides[0]["matcher_location"]
        .as_str()
        .unwrap()
        .starts_with(DEFAULT_SPEC));
    // The config is the user's (workgroup tile 128), not the default's.
    assert!(
        matmul["config"]
            .to_string()
            .contains("workgroup = [128, 128, 0]"),
        "{matmul:#}"
    );
}

#[test]
fn coverage_says_a_default_never_fired_because_a_user_matcher_overrides_it() {
    let (dir, paths) = write_specs(&[("tuned.mlir", user_override_spec())]);
    let payload = dir.path().join("mm.mlir");
    std::fs::write(&payload, AB_PAYLOAD).unwrap();
    let coverage = |format: &str| {
        let mut command = tunespec_command();
        command.env("TUNESPEC_TERM_WIDTH", "1000");
        command.args([
            "coverage", "--target", "gfx942", "--format", format, "--spec",
        ]);
        command.arg(&paths[0]).arg(&payload);
        command.output().expect("tunespec runs")
    };
    let text = coverage("human");
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let out = String::from_utf8_lossy(&text.stdout);
    let line = out
        .lines()
        .find(|line| line.starts_with(&format!("never fired: @{DEFAULT_MATCHER} ")))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains(&format!(
            ": overridden by @match_prefill_dispatch_3_matmul_4096x4096x4096_f16 (user spec, {}",
            paths[0].display()
        )),
        "{line}"
    );
    // Defaults of other shapes never fired for want of an op, not because of an override.
    let others = out
        .lines()
        .filter(|line| line.starts_with("never fired: ") && line.contains("overridden by"))
        .count();
    assert_eq!(others, 1, "{out}");

    let json = coverage("json");
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let dead = doc["never_fired"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["matcher"] == DEFAULT_MATCHER)
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(dead["layer"], "tunespec default");
    assert_eq!(dead["overridden_by"]["layer"], "user spec");
    assert_eq!(
        dead["overridden_by"]["matcher"],
        "match_prefill_dispatch_3_matmul_4096x4096x4096_f16"
    );
}

/// A spec library in `dir` extending gfx942 with `spec`; `marker` is its manifest's first line.
fn library(dir: &Path, marker: &str, spec: &str) -> PathBuf {
    let root = dir.join("lib");
    std::fs::create_dir_all(root.join("gfx942")).unwrap();
    std::fs::write(
        root.join("registry.toml"),
        format!("{marker}\nschema = 1\n\n[extend.gfx942]\nspecs = [\"gfx942/mm.mlir\"]\n"),
    )
    .unwrap();
    std::fs::write(root.join("gfx942/mm.mlir"), spec).unwrap();
    root
}

#[test]
fn spec_libraries_and_iree_defaults_are_layers() {
    // A team's spec library over tunespec's default: an override by the spec library layer.
    let dir = tempfile::tempdir().unwrap();
    let team = library(dir.path(), "# our team's configs", &user_override_spec());
    let out = dir.path().join("out.mlir");
    let output = link_cli(&[team], &["--target", "gfx942", "--deny-warnings"], &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains("spec library matcher @match_prefill_dispatch_3_matmul_4096x4096x4096_f16 ("),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "overrides tunespec default matcher @{DEFAULT_MATCHER}"
        )),
        "{err}"
    );

    // A library `tunespec import-iree` wrote (its manifest's first line) is the IREE default
    // layer: a user spec before it overrides it.
    let dir = tempfile::tempdir().unwrap();
    let iree_form = user_override_spec().replace(
        "    %batch, %m",
        "    transform.iree.match.has_no_lowering_config %arg0 : !transform.any_op\n    %batch, %m",
    );
    let iree = library(
        dir.path(),
        &format!(
            "{} from IREE compiler version 3.13.0.",
            tunespec::iree::import::MANIFEST_MARKER
        ),
        &iree_form.replace("match_prefill", "match_iree"),
    );
    let (_keep, user) = write_specs(&[("tuned.mlir", user_override_spec())]);
    let output = link_cli(
        &[user[0].clone(), iree],
        &["--target", "gfx942", "--deny-warnings"],
        &out,
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "overrides IREE default matcher @match_iree_dispatch_3_matmul_4096x4096x4096_f16"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "overrides tunespec default matcher @{DEFAULT_MATCHER}"
        )),
        "{err}"
    );
    assert!(!err.contains("shadowed-matcher"), "{err}");
}

#[test]
fn the_winner_explain_names_is_what_iree_compile_applies() {
    let Some(iree_compile) = crate::reference::iree_compile() else {
        return;
    };
    let (dir, paths) = write_specs(&[("tuned.mlir", user_override_spec())]);
    let payload = dir.path().join("mm.mlir");
    std::fs::write(&payload, AB_PAYLOAD).unwrap();
    let linked = dir.path().join("linked.mlir");
    let output = link_cli(&paths, &["--target", "gfx942"], &linked);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json = explain_cli(&paths[0], &payload, "json");
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let matmul = doc["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|op| op["overrides"].as_array().is_some_and(|o| !o.is_empty()))
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(
        matmul["matcher"],
        "match_prefill_dispatch_3_matmul_4096x4096x4096_f16"
    );
    let lowering = matmul["config"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == "compilation_info")
        .and_then(|entry| entry["value"].as_str())
        .unwrap_or_else(|| panic!("{matmul:#}"))
        .to_string();
    let configs = |spec: Option<&Path>| {
        let mut command = std::process::Command::new(&iree_compile);
        command.arg(&payload).args([
            "--iree-hal-target-device=hip",
            "--iree-rocm-target=gfx942",
            "--compile-to=executable-configurations",
        ]);
        if let Some(spec) = spec {
            command.arg(format!(
                "--iree-codegen-tuning-spec-path={}",
                spec.display()
            ));
        }
        let output = crate::reference::output_with_timeout(&mut command);
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    // What explain names (the user's lowering config) is what IREE put on the dispatch, and
    // not what IREE chooses by itself.
    let start = lowering
        .find("#iree_gpu.lowering_config<")
        .expect("a lowering config");
    let end = start + lowering[start..].find("}>").expect("its end") + 2;
    let config = &lowering[start..end];
    assert!(config.contains("workgroup = [128, 128, 0]"), "{config}");
    assert!(!configs(None).contains(config), "{config}");
    let applied = configs(Some(&linked));
    assert!(applied.contains(config), "{config}\n{applied}");
}

#[test]
fn upstream_matchers_are_keyed_and_only_same_shape_ones_shadow() {
    // tunespec's upstream-form fixture (transform.match.operation_name + match.structured +
    // param.cmpi): its matchers are keyed, and none contains another.
    let spec = "tests/fixtures/specs/upstream/gfx942/llama2_f16.mlir";
    let text = std::fs::read_to_string(crate::reference::repo_root().join(spec)).unwrap();
    let key = key_named(&text, "match_matmul_4096x4096x4096").expect("an upstream key");
    assert_eq!(key.root, "operation_name[linalg.matmul]", "{key}");
    assert!(
        key.constraints.iter().any(|c| c.starts_with("structured")),
        "{key}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mlir");
    let path = crate::reference::repo_root().join(spec);
    let once = link_cli(std::slice::from_ref(&path), &["--deny-warnings"], &out);
    assert_eq!(once.status.code(), Some(0), "{}", stderr(&once));
    // Given twice (a copy, so not deduplicated as the same input): every matcher of the copy
    // is shadowed.
    let copy = dir.path().join("copy.mlir");
    std::fs::write(&copy, text.replace("// ", "//  ")).unwrap();
    let twice = link_cli(&[path, copy], &[], &out);
    let err = stderr(&twice);
    let matchers = text.matches("transform.named_sequence @match_").count();
    assert_eq!(
        err.matches("tunespec::link::shadowed-matcher").count(),
        matchers,
        "{err}"
    );
}
