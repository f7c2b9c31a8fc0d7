//! The native matcher must give exactly what MLIR's transform interpreter gives. Each case
//! applies one library three ways (tunespec native, tunespec interpreter, mlir-opt) and
//! compares the payloads byte for byte.

use std::path::Path;
use std::process::Command;

use crate::reference::mlir_opt;

fn tunespec() -> Command {
    let mut command = crate::support::tunespec_command();
    command.env("TUNESPEC_CACHE", "off");
    command
}

/// A matcher: `structured` is the body of match.structured (yielding `yields` params), `checks`
/// the ops after it (comparisons), `names` the operation_name list (empty: no name check).
fn matcher(
    name: &str,
    names: &[&str],
    structured: &str,
    yields: &[&str],
    checks: &str,
    tag: &str,
) -> String {
    let name_check = if names.is_empty() {
        String::new()
    } else {
        format!(
            "    transform.match.operation_name %root [{}] : !transform.any_op\n",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let types = vec!["!transform.param<i64>"; yields.len()].join(", ");
    let results = yields
        .iter()
        .map(|y| format!("%{y}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"  transform.named_sequence @{name}(%root: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
{name_check}    {results} = transform.match.structured failures(propagate) %root : (!transform.any_op) -> ({types}) {{
    ^bb0(%s: !transform.any_op):
{structured}      transform.match.structured.yield {inner} : {types}
    }}
{checks}    %config = transform.param.constant "{tag}" -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }}
"#,
        inner = yields
            .iter()
            .map(|y| format!("%{y}_"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

const DIMS_ALL: &str = "      %dims_ = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>\n";
const RANK: &str = "      %rank_ = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>\n";
const LHS_BW: &str = "      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value\n      %lbw_ = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>\n";
const LAST_INPUT_BW: &str = "      %last = transform.match.structured.input %s[-1] : (!transform.any_op) -> !transform.any_value\n      %xbw_ = transform.match.structured.elemental_bitwidth %last : (!transform.any_value) -> !transform.param<i64>\n";
const ACC_BW: &str = "      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value\n      %abw_ = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>\n";
const THIRD_INPUT_BW: &str = "      %third = transform.match.structured.input %s[2] : (!transform.any_op) -> !transform.any_value\n      %tbw_ = transform.match.structured.elemental_bitwidth %third : (!transform.any_value) -> !transform.param<i64>\n";
const OUTER_DIMS: &str = "      %outer_ = transform.match.structured.dim %s[0, -1] : (!transform.any_op) -> !transform.param<i64>\n";

fn cmp(predicate: &str, param: &str, values: &[i64]) -> String {
    let mut text = String::new();
    let mut names = Vec::new();
    for (index, value) in values.iter().enumerate() {
        let name = format!("%{param}_c{index}_{predicate}");
        text.push_str(&format!(
            "    {name} = transform.param.constant {value} : i64 -> !transform.param<i64>\n"
        ));
        names.push(name);
    }
    let reference = if names.len() == 1 {
        names[0].clone()
    } else {
        let merged = format!("%{param}_m_{predicate}");
        text.push_str(&format!(
            "    {merged} = transform.merge_handles {} : !transform.param<i64>\n",
            names.join(", ")
        ));
        merged
    };
    text.push_str(&format!("    transform.match.param.cmpi {predicate} %{param}, {reference} : !transform.param<i64>\n"));
    text
}

fn library(matchers: &[String]) -> String {
    let pairs = (0..matchers.len())
        .map(|i| format!("@m{i} -> @apply"))
        .collect::<Vec<_>>()
        .join(", ");
    let bodies: Vec<String> = matchers
        .iter()
        .enumerate()
        .map(|(i, text)| text.replacen("@NAME(", &format!("@m{i}("), 1))
        .collect();
    format!(
        r#"module attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{
  transform.named_sequence @apply(%op: !transform.any_op {{transform.readonly}}, %config: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }}
{}  transform.named_sequence @__kernel_config(%arg: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %r = transform.foreach_match in %arg {pairs} : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }}
}}
"#,
        bodies.concat()
    )
}

const PAYLOAD: &str = r#"func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>, %d: tensor<?x32xf16>, %e: tensor<?x128xf32>, %g: tensor<4x64x32xbf16>, %h: tensor<4x32x16xbf16>, %i: tensor<4x64x16xf32>, %s: f32, %i8a: tensor<64x32xi8>, %i8b: tensor<32x128xi8>, %i32c: tensor<64x128xi32>) -> (tensor<64x128xf32>, tensor<?x128xf32>, tensor<4x64x16xf32>, tensor<64x128xf32>, tensor<64x128xi32>, tensor<64x128xf32>, tensor<128x64xf32>) {
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x128xf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %dyn = linalg.matmul ins(%d, %b : tensor<?x32xf16>, tensor<32x128xf16>) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  %bmm = linalg.batch_matmul ins(%g, %h : tensor<4x64x32xbf16>, tensor<4x32x16xbf16>) outs(%i : tensor<4x64x16xf32>) -> tensor<4x64x16xf32>
  %fill = linalg.fill ins(%s : f32) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %imm = linalg.matmul ins(%i8a, %i8b : tensor<64x32xi8>, tensor<32x128xi8>) outs(%i32c : tensor<64x128xi32>) -> tensor<64x128xi32>
  %gen = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x32xf16>, tensor<32x128xf16>) outs(%c : tensor<64x128xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %q = arith.addf %z, %p : f32
    linalg.yield %q : f32
  } -> tensor<64x128xf32>
  %empty = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%c : tensor<64x128xf32>) outs(%empty : tensor<128x64xf32>) permutation = [1, 0]
  return %mm, %dyn, %bmm, %fill, %imm, %gen, %t : tensor<64x128xf32>, tensor<?x128xf32>, tensor<4x64x16xf32>, tensor<64x128xf32>, tensor<64x128xi32>, tensor<64x128xf32>, tensor<128x64xf32>
}
"#;

fn m(names: &[&str], structured: &[&str], yields: &[&str], checks: &str, tag: &str) -> String {
    matcher("NAME", names, &structured.concat(), yields, checks, tag)
}

/// Applies `library` three ways and checks they agree; returns the payload.
fn three_ways(library: &str, native_must_apply: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.mlir");
    std::fs::write(&lib, library).unwrap();
    let payload = dir.path().join("payload.mlir");
    std::fs::write(&payload, PAYLOAD).unwrap();
    let apply = |engine: &str| {
        tunespec()
            .args(["apply", "--no-default", "--engine", engine, "--spec"])
            .arg(&lib)
            .arg(&payload)
            .output()
            .unwrap()
    };
    let interpreter = apply("interpreter");
    assert!(
        interpreter.status.success(),
        "{}",
        String::from_utf8_lossy(&interpreter.stderr)
    );
    let native = apply("native");
    assert_eq!(
        native.status.success(),
        native_must_apply,
        "{}",
        String::from_utf8_lossy(&native.stderr)
    );
    let auto = apply("auto");
    assert!(
        auto.stdout == interpreter.stdout,
        "auto differs from the interpreter"
    );
    if native_must_apply {
        assert!(
            native.stdout == interpreter.stdout,
            "native differs from the interpreter"
        );
    }
    if let Some(mlir_opt) = mlir_opt() {
        let reference = reference_apply(&mlir_opt, &lib, &payload);
        assert!(
            reference == interpreter.stdout,
            "tunespec differs from mlir-opt"
        );
    }
    String::from_utf8(interpreter.stdout).unwrap()
}

fn reference_apply(mlir_opt: &Path, lib: &Path, payload: &Path) -> Vec<u8> {
    let output = Command::new(mlir_opt)
        .arg("--allow-unregistered-dialect")
        .arg(format!(
            "--transform-preload-library=transform-library-paths={}",
            lib.display()
        ))
        .arg("--transform-interpreter=entry-point=__kernel_config")
        .arg(payload)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn tags(payload: &str) -> Vec<&str> {
    payload
        .lines()
        .filter_map(|line| line.split("compilation_info = \"").nth(1))
        .map(|rest| rest.split('"').next().unwrap())
        .collect()
}

#[test]
fn native_matches_interpreter_on_every_recognised_form() {
    let matchers = vec![
        // Indexed: exact dims and bit widths (the common form).
        m(
            &["linalg.matmul"],
            &[DIMS_ALL, LHS_BW, ACC_BW],
            &["dims", "lbw", "abw"],
            &(cmp("eq", "dims", &[64, 128, 32])
                + &cmp("eq", "lbw", &[16])
                + &cmp("eq", "abw", &[32])),
            "exact-mm",
        ),
        // Same key but it needs a third input, which a matmul lacks: must not win.
        m(
            &["linalg.matmul"],
            &[DIMS_ALL, THIRD_INPUT_BW],
            &["dims", "tbw"],
            &(cmp("eq", "dims", &[64, 128, 32]) + &cmp("eq", "tbw", &[16])),
            "needs-third-input",
        ),
        // Subset of dims with negative positions, on batch_matmul.
        m(
            &["linalg.batch_matmul"],
            &[OUTER_DIMS, LAST_INPUT_BW],
            &["outer", "xbw"],
            &(cmp("eq", "outer", &[4, 32]) + &cmp("eq", "xbw", &[16])),
            "bmm-outer",
        ),
        // Inequalities (scanned): large i8 matmuls.
        m(
            &["linalg.matmul"],
            &[DIMS_ALL, LHS_BW],
            &["dims", "lbw"],
            &(cmp("ge", "dims", &[64, 64, 32]) + &cmp("lt", "lbw", &[16])),
            "int8-large",
        ),
        // Several names, rank only: any rank-3 op among these.
        m(
            &["linalg.generic", "linalg.matmul"],
            &[RANK],
            &["rank"],
            &cmp("eq", "rank", &[3]),
            "rank3",
        ),
        // No name check; ne on rank: fill and transpose (rank 2).
        m(
            &[],
            &[RANK],
            &["rank"],
            &cmp("ne", "rank", &[3]),
            "not-rank3",
        ),
    ];
    let payload = three_ways(&library(&matchers), true);
    assert_eq!(
        tags(&payload),
        [
            "exact-mm",
            "rank3",
            "bmm-outer",
            "not-rank3",
            "int8-large",
            "rank3",
            "not-rank3"
        ],
        "{payload}"
    );
}

#[test]
fn dynamic_dims_never_equal_a_static_shape() {
    let matchers = vec![
        m(
            &["linalg.matmul"],
            &[DIMS_ALL],
            &["dims"],
            &cmp("eq", "dims", &[-9223372036854775808, 128, 32]),
            "dynamic-as-min",
        ),
        m(
            &["linalg.matmul"],
            &[DIMS_ALL],
            &["dims"],
            &cmp("le", "dims", &[64, 128, 32]),
            "le",
        ),
    ];
    three_ways(&library(&matchers), true);
}

#[test]
fn unrecognised_libraries_fall_back_to_the_interpreter() {
    // An include in the matcher is outside the native form: auto must still agree.
    let text = library(&[m(&["linalg.matmul"], &[RANK], &["rank"], &cmp("eq", "rank", &[3]), "rank3")]).replace(
        "    transform.match.operation_name %root",
        "    transform.match.operation_empty %root : !transform.any_op\n    transform.match.operation_name %root",
    );
    three_ways(&text, false);
}

#[test]
fn default_specs_are_applied_natively_and_identically() {
    for payload in [
        "tests/fixtures/payloads/llama2_f16_decoder.mlir",
        "tests/fixtures/payloads/llama3_bf16_decoder.mlir",
    ] {
        for target in ["gfx942", "gfx1201", "sm_80"] {
            let run = |engine: &str| {
                tunespec()
                    .args(["apply", "--target", target, "--engine", engine, payload])
                    .output()
                    .unwrap()
            };
            let native = run("native");
            assert!(
                native.status.success(),
                "{}",
                String::from_utf8_lossy(&native.stderr)
            );
            assert!(
                native.stdout == run("interpreter").stdout,
                "{target} {payload}"
            );
            // The IREE-form defaults configure the payload's ops (9 or 10 of them).
            assert!(
                String::from_utf8_lossy(&native.stdout)
                    .matches("compilation_info = ")
                    .count()
                    >= 9,
                "{target} {payload}"
            );
        }
    }
}

/// A tuner-form library of two matchers with `indexing_maps` and a payload that each matches
/// once: (directory, library, payload).
fn tuner_case() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let maps = |b: &str| {
        format!("[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> {b}>, affine_map<(d0, d1, d2) -> (d0, d1)>]")
    };
    let matcher = |name: &str, ty: &str, b: &str, tag: &str| {
        format!(
            "  transform.named_sequence @{name}(%root: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{\n    transform.iree.match.has_no_lowering_config %root : !transform.any_op\n    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = {ty}, rhs_type = {ty}, output_type = f32, indexing_maps = {} : !transform.any_op -> !transform.param<i64>\n    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>\n    transform.iree.match.dims_equal %m, [64] : !transform.param<i64>\n    transform.iree.match.dims_equal %n, [128] : !transform.param<i64>\n    transform.iree.match.dims_equal %k, [32] : !transform.param<i64>\n    %config = transform.param.constant \"{tag}\" -> !transform.any_param\n    transform.yield %root, %config : !transform.any_op, !transform.any_param\n  }}\n",
            maps(b)
        )
    };
    let library = format!(
        "module attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{\n  transform.named_sequence @apply_op_config(%op: !transform.any_op {{transform.readonly}}, %config: !transform.any_param {{transform.readonly}}) {{\n    transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n    transform.yield\n  }}\n{}{}  transform.named_sequence @__kernel_config(%arg: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{\n    %r = transform.foreach_match in %arg\n        @match_ab -> @apply_op_config,\n        @match_abt -> @apply_op_config\n      : (!transform.any_op) -> !transform.any_op\n    transform.yield %r : !transform.any_op\n  }}\n}}\n",
        matcher("match_ab", "f16", "(d2, d1)", "ab_f16"),
        matcher("match_abt", "bf16", "(d1, d2)", "abt_bf16"),
    );
    let payload = "module {
  module @dispatches {
    func.func @ab(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x128xf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
      return %r : tensor<64x128xf32>
    }
    func.func @abt(%a: tensor<64x32xbf16>, %b: tensor<128x32xbf16>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
      %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<64x32xbf16>, tensor<128x32xbf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
      return %r : tensor<64x128xf32>
    }
    func.func @abt_f16(%a: tensor<64x32xf16>, %b: tensor<128x32xf16>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
      %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<64x32xf16>, tensor<128x32xf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
      return %r : tensor<64x128xf32>
    }
  }
}
";
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.mlir");
    std::fs::write(&lib, library).unwrap();
    let payload_path = dir.path().join("payload.mlir");
    std::fs::write(&payload_path, payload).unwrap();
    (dir, lib, payload_path)
}

/// IREE's tuner form with `indexing_maps` (the form of the default specs) is applied natively:
/// `apply` compiles the library from a structure-only snapshot, which must keep affine maps
/// printed for the matcher's maps to be compared with the payload's.
#[test]
fn tuner_form_with_indexing_maps_is_applied_natively() {
    let (_dir, lib, payload_path) = tuner_case();
    let apply = |engine: &str| {
        tunespec()
            .args(["apply", "--no-default", "--engine", engine, "--spec"])
            .arg(&lib)
            .arg(&payload_path)
            .output()
            .unwrap()
    };
    let native = apply("native");
    assert!(
        native.status.success(),
        "{}",
        String::from_utf8_lossy(&native.stderr)
    );
    let interpreter = apply("interpreter");
    assert!(interpreter.status.success());
    assert!(
        native.stdout == interpreter.stdout,
        "native differs from the interpreter"
    );
    let text = String::from_utf8(native.stdout).unwrap();
    assert_eq!(tags(&text), ["ab_f16", "abt_bf16"]);
}

/// `apply --spec` applies the module it links as it is when the cache is off (no bytecode is
/// written), and the bytecode it stores or finds when the cache is on: the payloads and
/// explanations are the same byte for byte.
#[test]
fn apply_gives_the_same_payload_with_the_cache_off_missed_and_hit() {
    let (dir, lib, payload_path) = tuner_case();
    let cache = dir.path().join("cache");
    let apply = |mode: &str, explain: bool| {
        let mut command = tunespec();
        command
            .env("TUNESPEC_CACHE", mode)
            .env("TUNESPEC_CACHE_DIR", &cache)
            .args(["apply", "--no-default", "--format", "json", "--spec"])
            .arg(&lib)
            .arg(&payload_path);
        if explain {
            command.arg("--explain");
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    };
    let off = apply("off", true);
    assert!(!cache.exists(), "the cache was touched while off");
    let missed = apply("on", true);
    assert!(cache.join("entries").read_dir().unwrap().count() > 0);
    let hit = apply("on", true);
    let text = String::from_utf8(off.stdout.clone()).unwrap();
    assert_eq!(tags(&text), ["ab_f16", "abt_bf16"]);
    assert!(
        missed.stdout == off.stdout,
        "a cache miss applies differently"
    );
    assert!(hit.stdout == off.stdout, "a cache hit applies differently");
    let explanation = String::from_utf8(off.stderr.clone()).unwrap();
    assert!(explanation.contains("match_ab"), "{explanation}");
    assert_eq!(missed.stderr, off.stderr);
    assert_eq!(hit.stderr, off.stderr);
    let plain = apply("off", false);
    assert!(plain.stdout == off.stdout);
}
