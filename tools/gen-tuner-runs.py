#!/usr/bin/env python3
"""Writes synthetic SHARK tuner run directories for benchmarks (tools/bench-check).

Usage: tools/gen-tuner-runs.py OUT_DIR [--dispatches N] [--runs R]

Writes R run directories OUT_DIR/tuning_2026_01_<DD>_10_00/ holding N dispatches in all (spread
evenly), in the tuner's layout and formats (see tests/fixtures/tuner/README.md; written here,
nothing copied from the tuner): candidates/specs/<N>_spec.mlir (0 is the baseline placeholder),
one <dispatch>_candidate_analysis.csv per dispatch with the tuner's columns, summary.log naming
the IREE version, template.mlir. Each dispatch is an f16 A*B^T GEMM of its own shape (M, N, K
multiples of 128: every key differs) with three candidates: 1 and 2 beat the baseline (2 is the
fastest), 3 is slower. OUT_DIR/payloads/<dispatch>.mlir is the linalg GEMM of each dispatch (what
`tunespec check` builds from the key, for the reference iree-compile runs). Times are invented.
"""
import argparse
import csv
import os

COLUMNS = ["gen_id", "candidate_id", "knob_workgroup_tile_sizes", "to_compile", "compile_status",
           "to_benchmark", "benchmark_device_id", "benchmark_queue_position", "benchmark_status",
           "baseline_benchmark_time_us", "benchmark_time_us", "benchmark_speedup",
           "benchmark_rank_order"]

PLACEHOLDER = """module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    transform.yield %arg0 : !transform.any_op
  }
}
"""

MAPS = ("[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>]")


def spec(matcher, m, n, k, reduction):
    return f"""module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {{transform.readonly}}, %arg1: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @{matcher}(%arg0: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = {MAPS} : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>
    %0 = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, {reduction}], subgroup = [4, 4, 0], workgroup = [32, 32, 0]}}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %arg0, %0 : !transform.any_op, !transform.any_param
  }}
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %updated_root = transform.foreach_match in %arg0
        @{matcher} -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }}
}}
"""


def payload(function, m, n, k):
    a, b, c = f"tensor<{m}x{k}xf16>", f"tensor<{n}x{k}xf16>", f"tensor<{m}x{n}xf32>"
    return f"""func.func @{function}(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %r = linalg.generic {{indexing_maps = {MAPS}, iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : {a}, {b}) outs(%f : {c}) {{
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {c}
  return %r : {c}
}}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dispatches", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "payloads"), exist_ok=True)
    per_run = -(-args.dispatches // args.runs)
    for index in range(args.dispatches):
        run = index // per_run
        root = os.path.join(args.out, f"tuning_2026_01_{run + 1:02d}_10_00")
        specs = os.path.join(root, "candidates", "specs")
        if not os.path.isdir(specs):
            os.makedirs(specs)
            with open(os.path.join(root, "template.mlir"), "w") as f:
                f.write("// the dispatch's template (not read by tunespec)\n")
            with open(os.path.join(root, "summary.log"), "w") as f:
                f.write("IREE compiler version: 3.13.0\n")
            with open(os.path.join(specs, "0_spec.mlir"), "w") as f:
                f.write(PLACEHOLDER)
        m = 128 * (1 + index % 10)
        n = 128 * (1 + (index // 10) % 10)
        k = 128 * (4 + index // 100)
        stem = f"module_main_dispatch_{index}_rocm_hsaco_fb_benchmark"
        matcher = f"match_main_dispatch_{index}_matmul_transpose_b_{m}x{n}x{k}_f16xf16xf32"
        # Candidate ids are per run: this dispatch's candidates are 3*i+1 .. 3*i+3.
        local = index - run * per_run
        ids = [3 * local + 1, 3 * local + 2, 3 * local + 3]
        for cid, reduction in zip(ids, (4, 8, 2)):
            with open(os.path.join(specs, f"{cid}_spec.mlir"), "w") as f:
                f.write(spec(matcher, m, n, k, reduction))
        baseline = 10.0 + index % 97
        times = [baseline, baseline * 0.9, baseline * 0.8, baseline * 1.2]
        with open(os.path.join(root, f"{stem}_candidate_analysis.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for rank, (cid, time) in enumerate(zip([0] + ids, times)):
                writer.writerow([cid, cid, "[32, 32, 0]", "True", "success", "True", "hip://0",
                                 rank, "True", f"{baseline:.1f}", f"{time:.2f}",
                                 f"{time / baseline:.3f}", rank])
        with open(os.path.join(args.out, "payloads", f"{stem}.mlir"), "w") as f:
            f.write(payload(f"check_{matcher}", m, n, k))


if __name__ == "__main__":
    main()
