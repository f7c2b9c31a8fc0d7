// tunespec default tuning spec: gfx1100, bf16 Llama workloads (llama3_bf16.mlir).
//
// Target: AMD RDNA3 (Radeon RX 7900 XTX): wave32, 64 KiB LDS per workgroup, WMMA (RDNA3 layout).
// Covers Llama-3 (8B: hidden 4096, FFN 14336, GQA with 8 KV heads so k/v projections have N = 1024, 32 heads; 70B: hidden 8192, FFN 28672):
// prefill and decode projection GEMMs (linalg.matmul, dims M x N x K with M = token count) and the
// attention batch GEMMs (linalg.batch_matmul, dims B x M x N x K with B = heads, at Llama-3's 8192-token context).
// Element type: bfloat16 (bf16) operands with f32 accumulation. Each matcher checks the op name,
// the loop rank (3 for linalg.matmul, 4 for linalg.batch_matmul), every loop dimension, a 16-bit
// element type on both inputs and a 32-bit accumulator (init) element type.
//
// Why the f16 and bf16 specs are split by shape: upstream transform matchers can compare an
// element's bit width but not its float kind, so an f16 matcher and a bf16 matcher of the same
// shape would be structural duplicates, and whichever was linked first would claim both f16 and
// bf16 ops (handing one of them an intrinsic of the wrong type). This file therefore matches only
// Llama-3 shapes and its sibling llama2_f16.mlir only Llama-2 shapes: the two shape sets are
// disjoint, so no matcher of this target duplicates another. The split assumes each family runs
// in its released dtype (Llama-2 in f16, Llama-3 in bf16); a Llama-2 model run in bf16 would
// meet the Llama-2 configs of llama2_f16.mlir, whose intrinsics expect the other 16-bit type.
// Intrinsics here are bf16 ones (WMMAR3_F32_16x16x16_BF16).
//
// The configs are IREE 3.13 compilation_info attributes (TileAndFuse for GEMMs, VectorDistribute for
// the decode GEMV). They are plausible starting points checked with iree-opt / iree-compile, NOT
// values measured on hardware: tune them before relying on them for performance.
// TileAndFuse units: workgroup = tile in elements; subgroup = per-subgroup tile counted in
// intrinsic tiles; reduction = K step counted in intrinsic K tiles.
module @gfx1100_llama3_bf16 attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Llama-3-8B decode (1 token): FFN gate/up projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x14336x4096(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 14336 : i64 -> !transform.param<i64>
    %k = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B prefill, 8192 tokens: GQA k/v projection (8 KV heads x 128).
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x128, K step 64, 4 subgroups of 64x64, 128 threads, 32 KiB of promoted operands.
  transform.named_sequence @match_matmul_8192x1024x4096(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 1024 : i64 -> !transform.param<i64>
    %k = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 4], subgroup = [4, 4, 0], workgroup = [128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B prefill, 8192 tokens: attention q/o projection.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x128, K step 32, 8 subgroups of 32x64, 256 threads, 16 KiB of promoted operands.
  transform.named_sequence @match_matmul_8192x4096x4096(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %k = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [2, 4, 0], workgroup = [128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B prefill, 8192 tokens: FFN gate/up projection.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x256, K step 32, 8 subgroups of 64x64, 256 threads, 24 KiB of promoted operands.
  transform.named_sequence @match_matmul_8192x14336x4096(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 14336 : i64 -> !transform.param<i64>
    %k = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [4, 4, 0], workgroup = [128, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B prefill, 8192 tokens: FFN down projection.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x256, K step 32, 8 subgroups of 64x64, 256 threads, 24 KiB of promoted operands.
  transform.named_sequence @match_matmul_8192x4096x14336(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 4096 : i64 -> !transform.param<i64>
    %k = transform.param.constant 14336 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [4, 4, 0], workgroup = [128, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-70B prefill, 2048 tokens: FFN gate/up projection.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x256, K step 32, 8 subgroups of 64x64, 256 threads, 24 KiB of promoted operands.
  transform.named_sequence @match_matmul_2048x28672x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 28672 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [4, 4, 0], workgroup = [128, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B attention scores Q*K^T: 32 heads, seq 8192, head dim 128.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 128x128, K step 64, 4 subgroups of 64x64, 128 threads, 32 KiB of promoted operands.
  transform.named_sequence @match_batch_matmul_32x8192x8192x128(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %b = transform.param.constant 32 : i64 -> !transform.param<i64>
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %k = transform.param.constant 128 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %b, %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 0, 4], subgroup = [0, 4, 4, 0], workgroup = [1, 128, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3-8B attention probs*V: 32 heads, seq 8192, head dim 128.
  // Config: WMMAR3_F32_16x16x16_BF16, workgroup tile 64x128, K step 64, 4 subgroups of 32x64, 128 threads, 24 KiB of promoted operands.
  transform.named_sequence @match_batch_matmul_32x8192x128x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %b = transform.param.constant 32 : i64 -> !transform.param<i64>
    %m = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %n = transform.param.constant 128 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %b, %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<WMMAR3_F32_16x16x16_BF16>, promote_operands = [0, 1], reduction = [0, 0, 0, 4], subgroup = [0, 2, 4, 0], workgroup = [1, 64, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %arg
        @match_matmul_1x14336x4096 -> @apply_op_config,
        @match_matmul_8192x1024x4096 -> @apply_op_config,
        @match_matmul_8192x4096x4096 -> @apply_op_config,
        @match_matmul_8192x14336x4096 -> @apply_op_config,
        @match_matmul_8192x4096x14336 -> @apply_op_config,
        @match_matmul_2048x28672x8192 -> @apply_op_config,
        @match_batch_matmul_32x8192x8192x128 -> @apply_op_config,
        @match_batch_matmul_32x8192x128x8192 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
