// tunespec default tuning spec: rdna (family), 16-bit small-model decode GEMVs
// (AMD RDNA3 and RDNA4: gfx1100, gfx1201; llama32_decode_16bit.mlir).
//
// A general spec: it comes after the architecture specs of every target falling back to
// rdna (family), so its configs assume only what all of them share: 32-wide subgroups (IREE
// compiles RDNA as wave32), at most 256 threads per workgroup.
// No MMA intrinsic is used and LDS use is a few KiB.
// Why no AMD-wide or GPU-wide spec exists below this one: IREE 3.13 needs a fixed subgroup size
// for its distributing pipelines (iree-compile: "Distribution with dynamic subgroup size" is
// unimplemented), CDNA compiles only wave64 and RDNA only wave32 (a 64-wide subgroup reduction
// fails on gfx1100: "cluster size 64 is greater than subgroup size 32"), so no config compiles
// for every AMD GPU, let alone every GPU.
// Covers Llama-3.2-1B (hidden 2048, FFN 8192, GQA with 8 KV heads of 64 so k/v projections have
// N = 512) and Llama-3.2-3B (hidden 3072, FFN 8192, 8 KV heads of 128: N = 1024) decode (1 token)
// projections, linalg.matmul 1 x N x K. Each matcher checks the op name, the loop rank, every loop
// dimension, a 16-bit element type on both inputs and a 32-bit accumulator (init) element type.
//
// Element type: f16 or bf16 operands with f32 accumulation. Upstream transform matchers compare
// bit widths, not float kinds; these configs use no intrinsic, so they suit both kinds. The shapes
// are disjoint from every architecture spec, so no matcher of a chain duplicates another.
//
// The configs are IREE 3.13 compilation_info attributes (VectorDistribute GEMVs:
// partial_reduction = lanes x thread x subgroups along K), each compiled with iree-compile 3.13
// for gfx1100 and gfx1201 in both element types.
// They are plausible starting points, NOT values measured on hardware: an architecture spec with
// a tuned config for a shape wins over them.
module @rdna_llama32_decode_16bit attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Llama-3.2-1B decode (1 token): attention q/o projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x2048x2048(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %k = transform.param.constant 2048 : i64 -> !transform.param<i64>
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

  // Llama-3.2-1B decode (1 token): GQA k/v projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x512x2048(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 512 : i64 -> !transform.param<i64>
    %k = transform.param.constant 2048 : i64 -> !transform.param<i64>
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

  // Llama-3.2-1B decode (1 token): FFN gate/up projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x8192x2048(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %k = transform.param.constant 2048 : i64 -> !transform.param<i64>
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

  // Llama-3.2-1B decode (1 token): FFN down projection, a GEMV.
  // Config: VectorDistribute GEMV: 256 threads (8 subgroups of 32) split K in chunks of 2048, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x2048x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 2048 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 2048], subgroup_basis = [[1, 1, 8], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): attention q/o projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x3072x3072(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 3072 : i64 -> !transform.param<i64>
    %k = transform.param.constant 3072 : i64 -> !transform.param<i64>
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

  // Llama-3.2-3B decode (1 token): GQA k/v projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x1024x3072(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 1024 : i64 -> !transform.param<i64>
    %k = transform.param.constant 3072 : i64 -> !transform.param<i64>
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

  // Llama-3.2-3B decode (1 token): FFN gate/up projection, a GEMV.
  // Config: VectorDistribute GEMV: 128 threads (4 subgroups of 32) split K in chunks of 1024, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x8192x3072(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %k = transform.param.constant 3072 : i64 -> !transform.param<i64>
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

  // Llama-3.2-3B decode (1 token): FFN down projection, a GEMV.
  // Config: VectorDistribute GEMV: 256 threads (8 subgroups of 32) split K in chunks of 2048, 4 outputs per workgroup.
  transform.named_sequence @match_matmul_1x3072x8192(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
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
    %n = transform.param.constant 3072 : i64 -> !transform.param<i64>
    %k = transform.param.constant 8192 : i64 -> !transform.param<i64>
    %shape = transform.merge_handles %m, %n, %k : !transform.param<i64>
    transform.match.param.cmpi eq %dims, %shape : !transform.param<i64>
    %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %lhs_bw, %c16 : !transform.param<i64>
    transform.match.param.cmpi eq %rhs_bw, %c16 : !transform.param<i64>
    %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %acc_bw, %c32 : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 2048], subgroup_basis = [[1, 1, 8], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %arg
        @match_matmul_1x2048x2048 -> @apply_op_config,
        @match_matmul_1x512x2048 -> @apply_op_config,
        @match_matmul_1x8192x2048 -> @apply_op_config,
        @match_matmul_1x2048x8192 -> @apply_op_config,
        @match_matmul_1x3072x3072 -> @apply_op_config,
        @match_matmul_1x1024x3072 -> @apply_op_config,
        @match_matmul_1x8192x3072 -> @apply_op_config,
        @match_matmul_1x3072x8192 -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
