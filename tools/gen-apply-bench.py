#!/usr/bin/env python3
"""Generate a merged tuning library with N matchers and a payload with M matmuls, for measuring
`tunespec apply` against MLIR's transform interpreter and IREE's config materialization.

    tools/gen-apply-bench.py --matchers N --ops M --out DIR [--seed S] [--form upstream|tuner]
                             [--matched FRACTION]

--form upstream (the default) writes DIR/lib.mlir (one merge-ready spec: N matchers in upstream
transform match ops, each a distinct linalg.matmul shape with 16-bit inputs and a 32-bit
accumulator, all annotating a compilation_info) and DIR/payload.mlir (M matmuls in functions of
50 ops; by default about half of them have the shape of a randomly chosen matcher, the rest match
nothing, which is the interpreter's worst case: every matcher is tried).

--form tuner writes the same files in IREE's tuner form, as the default specs are written: each
matcher is transform.iree.match.has_no_lowering_config, transform.iree.match.contraction with
exact element types (f16 x f16 -> f32 or bf16 x bf16 -> f32) and indexing maps (A*B or A*B^T),
then transform.iree.match.dims_equal on batch ([]), m, n and k; (shape, type, layout) is distinct
per matcher. The payload is what IREE's passes want: `module { module @dispatches { ... } }` with
M functions of one root op each (a linalg.matmul, with indexing_maps when A*B^T; f16 or bf16);
by default 80% of them are of a randomly chosen matcher's shape, type and layout, the rest match
nothing (odd dims). --matched 0 gives the worst case for apply: every matcher is tried on every
op.

Deterministic for given arguments. Standard library only.
"""
import argparse
import os
import random

ACTION = """  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
"""

MATCHER = """  transform.named_sequence @match_{i}(%root: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %dims, %lbw, %abw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {{
    ^bb0(%s: !transform.any_op):
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %l = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %a = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %d, %l, %a : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }}
    %m = transform.param.constant {m} : i64 -> !transform.param<i64>
    %n = transform.param.constant {n} : i64 -> !transform.param<i64>
    %k = transform.param.constant {k} : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lbw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %abw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{workgroup = [{wm}, {wn}, 0], reduction = [0, 0, {wk}]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }}
"""


TUNER_MATCHER = """  transform.named_sequence @match_{i}(%root: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = {t}, rhs_type = {t}, output_type = f32, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{promote_operands = [0, 1], reduction = [0, 0, {wk}], workgroup = [{wm}, {wn}, 0]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }}
"""

MAPS = {
    "ab": "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>",
    "abt": "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>",
}


def entry_point(count):
    pairs = ",\n        ".join(f"@match_{i} -> @apply_op_config" for i in range(count))
    return ("  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {\n"
            f"    %r = transform.foreach_match in %arg\n        {pairs}\n      : (!transform.any_op) -> !transform.any_op\n"
            "    transform.yield %r : !transform.any_op\n  }\n}\n")


def tuner(args, rng):
    keys = []
    seen = set()
    while len(keys) < args.matchers:
        key = (rng.choice([16, 32, 64, 128]) * rng.randint(1, 64),
               rng.choice([16, 32, 64, 128]) * rng.randint(1, 64),
               rng.choice([16, 32, 64, 128]) * rng.randint(1, 64),
               rng.choice(["f16", "f16", "bf16"]), rng.choice(["ab", "abt"]))
        if key not in seen:
            seen.add(key)
            keys.append(key)
    os.makedirs(args.out, exist_ok=True)
    parts = ["module @bench attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {\n", ACTION]
    for i, (m, n, k, t, layout) in enumerate(keys):
        parts.append(TUNER_MATCHER.format(i=i, m=m, n=n, k=k, t=t, maps=MAPS[layout],
                                          wm=min(m, 128), wn=min(n, 128), wk=min(k, 64)))
    parts.append(entry_point(len(keys)))
    with open(os.path.join(args.out, "lib.mlir"), "w") as f:
        f.write("".join(parts))

    matched = 0.8 if args.matched is None else args.matched
    body = ["module {\n  module @dispatches {\n"]
    for index in range(args.ops):
        if rng.random() < matched:
            m, n, k, t, layout = rng.choice(keys)
        else:
            # No matcher has odd dims.
            m, n, k, t, layout = 7 + 2 * index, 9, 11, rng.choice(["f16", "bf16"]), rng.choice(["ab", "abt"])
        b = f"{k}x{n}" if layout == "ab" else f"{n}x{k}"
        maps = "" if layout == "ab" else (
            " indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")
        body.append(
            f"    func.func @f{index}(%a: tensor<{m}x{k}x{t}>, %b: tensor<{b}x{t}>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
            f"      %r = linalg.matmul{maps} ins(%a, %b : tensor<{m}x{k}x{t}>, tensor<{b}x{t}>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
            f"      return %r : tensor<{m}x{n}xf32>\n    }}\n")
    body.append("  }\n}\n")
    with open(os.path.join(args.out, "payload.mlir"), "w") as f:
        f.write("".join(body))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--matchers", type=int, required=True)
    parser.add_argument("--ops", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--form", choices=["upstream", "tuner"], default="upstream")
    parser.add_argument("--matched", type=float, default=None,
                        help="fraction of payload ops of a matcher's shape (upstream 0.5, tuner 0.8)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.form == "tuner":
        tuner(args, rng)
        return
    matched = 0.5 if args.matched is None else args.matched
    shapes = []
    seen = set()
    while len(shapes) < args.matchers:
        shape = (rng.choice([16, 32, 64, 128]) * rng.randint(1, 64),
                 rng.choice([16, 32, 64, 128]) * rng.randint(1, 64),
                 rng.choice([16, 32, 64, 128]) * rng.randint(1, 64))
        if shape not in seen:
            seen.add(shape)
            shapes.append(shape)
    os.makedirs(args.out, exist_ok=True)
    parts = ["module @bench attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {\n", ACTION]
    for i, (m, n, k) in enumerate(shapes):
        parts.append(MATCHER.format(i=i, m=m, n=n, k=k, wm=min(m, 128), wn=min(n, 128), wk=min(k, 64)))
    pairs = ",\n        ".join(f"@match_{i} -> @apply_op_config" for i in range(len(shapes)))
    parts.append(
        "  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {\n"
        f"    %r = transform.foreach_match in %arg\n        {pairs}\n      : (!transform.any_op) -> !transform.any_op\n"
        "    transform.yield %r : !transform.any_op\n  }\n}\n")
    with open(os.path.join(args.out, "lib.mlir"), "w") as f:
        f.write("".join(parts))

    body = []
    per_function = 50
    for index in range(args.ops):
        if index % per_function == 0:
            if index:
                body.append("  return\n}\n")
            body.append(f"func.func @f{index // per_function}() {{\n")
        if rng.random() < matched:
            m, n, k = rng.choice(shapes)
        else:
            m, n, k = 7 + index, 9, 11  # no matcher has odd dims
        body.append(
            f"  %a{index} = tensor.empty() : tensor<{m}x{k}xf16>\n"
            f"  %b{index} = tensor.empty() : tensor<{k}x{n}xf16>\n"
            f"  %c{index} = tensor.empty() : tensor<{m}x{n}xf32>\n"
            f"  %r{index} = linalg.matmul ins(%a{index}, %b{index} : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) outs(%c{index} : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>\n")
    body.append("  return\n}\n")
    with open(os.path.join(args.out, "payload.mlir"), "w") as f:
        f.write("".join(body))


if __name__ == "__main__":
    main()
