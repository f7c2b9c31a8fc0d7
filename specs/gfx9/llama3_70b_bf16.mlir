// tunespec default tuning spec: gfx9 family (CDNA data-center GPUs: gfx90a, gfx942, gfx950), bf16
// Llama-3-70B workloads (llama3_70b_bf16.mlir).
//
// Family specs hold shapes whose configs suit every member: the architecture specs (gfx942/,
// gfx950/) come first in a compile and this file after them, so it covers shapes they do not.
// Members: wave64, at least 64 KiB LDS per workgroup, MFMA with the bf16 intrinsics used here
// (MFMA_F32_16x16x16_BF16, MFMA_F32_32x32x8_BF16: gfx90a and later; not gfx908 or the Vega parts).
// Covers Llama-3-70B (hidden 8192, FFN 28672, 64 query heads, GQA with 8 KV heads of 128 so k/v
// projections have N = 1024): decode GEMVs (linalg.matmul 1 x N x K), prefill projection GEMMs at
// 2048 tokens (M x N x K) and the attention batch GEMMs (linalg.batch_matmul B x M x N x K with
// B = 64 heads, 2048-token context). The 2048-token gate/up projection (2048x28672x8192) is in the
// architecture specs. Each matcher checks the op name, the loop rank, every loop dimension, a
// 16-bit element type on both inputs and a 32-bit accumulator (init) element type.
//
// Element type: bfloat16 (bf16) operands with f32 accumulation. Upstream transform matchers
// compare bit widths, not float kinds, so these matchers would also claim an f16 op of the same
// shape (Llama-2-70B has the same projection shapes); that model in f16 would meet bf16
// intrinsics here. The shapes are disjoint from every gfx942/gfx950 matcher and from generic/, so
// no matcher of a gfx9 chain duplicates another.
//
// The configs are IREE 3.13 compilation_info attributes (TileAndFuse for GEMMs, VectorDistribute
// for the decode GEMVs), each compiled with iree-compile 3.13 for gfx90a, gfx942 and gfx950. They
// are plausible starting points, NOT values measured on hardware: tune them before relying on them.
// TileAndFuse units: workgroup = tile in elements; subgroup = per-subgroup tile counted in
// intrinsic tiles; reduction = K step counted in intrinsic K tiles. VectorDistribute GEMVs:
// partial_reduction = lanes x thread x subgroups along K.
module @gfx9_llama3_70b_bf16 attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Llama-3-70B decode (1 token): attention q/o projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (2 subgroups) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x8192x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 1 : i64 -> !transform.param<i64>
    %n = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B decode (1 token): FFN gate/up projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (2 subgroups) split K in chunks of 1024, 8 outputs per workgroup.
  transform.named_sequence @match_matmul_1x28672x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 1 : i64 -> !transform.param<i64>
    %n = transform.param.constant 28672 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 8, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B decode (1 token): FFN down projection, a GEMV.
  // Config: VectorDistribute GEMV: 256 threads (4 subgroups) split K in chunks of 2048, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x8192x28672(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 1 : i64 -> !transform.param<i64>
    %n = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %k = transform.param.constant 28672 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 2048], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B prefill, 2048 tokens: attention q/o projection.
  // Config: MFMA_F32_16x16x16_BF16, workgroup tile 128x128, K step 64, 4 subgroups of 64x64, 256 threads, 32 KiB of promoted operands.
  transform.named_sequence @match_matmul_2048x8192x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %n = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B prefill, 2048 tokens: GQA k/v projection (8 KV heads x 128).
  // Config: MFMA_F32_16x16x16_BF16, workgroup tile 64x128, K step 128, 4 subgroups of 32x64, 256 threads, 48 KiB of promoted operands.
  transform.named_sequence @match_matmul_2048x1024x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %n = transform.param.constant 1024 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 8], subgroup = [2, 4, 0], workgroup = [64, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B prefill, 2048 tokens: FFN down projection.
  // Config: MFMA_F32_32x32x8_BF16, workgroup tile 128x256, K step 64, 4 subgroups of 64x128, 256 threads, 48 KiB of promoted operands.
  transform.named_sequence @match_matmul_2048x8192x28672(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %m = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %n = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %k = transform.param.constant 28672 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_32x32x8_BF16>, promote_operands = [0, 1], reduction = [0, 0, 8], subgroup = [2, 4, 0], workgroup = [128, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B attention scores Q*K^T: 64 heads, seq 2048, head dim 128.
  // Config: MFMA_F32_32x32x8_BF16, workgroup tile 128x128, K step 64, 4 subgroups of 64x64, 256 threads, 32 KiB of promoted operands.
  transform.named_sequence @match_batch_matmul_64x2048x2048x128(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.batch_matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %b = transform.param.constant 64 : i64 -> !transform.param<i64>
    %m = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %n = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %k = transform.param.constant 128 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %b, %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_32x32x8_BF16>, promote_operands = [0, 1], reduction = [0, 0, 0, 8], subgroup = [0, 2, 2, 0], workgroup = [1, 128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B attention probs*V: 64 heads, seq 2048, head dim 128.
  // Config: MFMA_F32_16x16x16_BF16, workgroup tile 128x128, K step 64, 4 subgroups of 64x64, 256 threads, 32 KiB of promoted operands.
  transform.named_sequence @match_batch_matmul_64x2048x128x2048(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %root ["linalg.batch_matmul"] : !transform.any_op
    %rank, %dims, %lhs_bw, %rhs_bw, %acc_bw = transform.match.structured failures(propagate) %root : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[all] : (!transform.any_op) -> !transform.param<i64>
      %lhs = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %lbw = transform.match.structured.elemental_bitwidth %lhs : (!transform.any_value) -> !transform.param<i64>
      %rhs = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %rbw = transform.match.structured.elemental_bitwidth %rhs : (!transform.any_value) -> !transform.param<i64>
      %acc = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %abw = transform.match.structured.elemental_bitwidth %acc : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %d, %lbw, %rbw, %abw : !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    }
    %c_rank = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c_rank : !transform.param<i64>
    %b = transform.param.constant 64 : i64 -> !transform.param<i64>
    %m = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %n = transform.param.constant 128 : i64 -> !transform.param<i64>
    %k = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %b, %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 0, 4], subgroup = [0, 4, 4, 0], workgroup = [1, 128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %arg
        @match_matmul_1x8192x8192 -> @apply_op_config,
        @match_matmul_1x28672x8192 -> @apply_op_config,
        @match_matmul_1x8192x28672 -> @apply_op_config,
        @match_matmul_2048x8192x8192 -> @apply_op_config,
        @match_matmul_2048x1024x8192 -> @apply_op_config,
        @match_matmul_2048x8192x28672 -> @apply_op_config,
        @match_batch_matmul_64x2048x2048x128 -> @apply_op_config,
        @match_batch_matmul_64x2048x128x2048 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
