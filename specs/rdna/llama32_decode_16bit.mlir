// tunespec default tuning spec for rdna, llama32_decode_16bit.mlir:
// AMD RDNA3 and RDNA4 family (gfx1100, gfx1201).
// Family spec: it comes after the architecture specs of gfx1100 and gfx1201, so its configs
// assume only what both share: wave32, at most 128 threads per workgroup, no MMA intrinsic
// (RDNA3's and RDNA4's WMMA intrinsics differ), a few bytes of shared memory.
// Covers Llama-3.2-1B (hidden 2048, FFN 8192, GQA 8 KV heads of 64: k/v N = 512) and Llama-3.2-3B
// (hidden 3072, FFN 8192, 8 KV heads of 128: N = 1024) decode GEMVs (1 x N x K), each in f16 and in
// bf16 (Llama-3.2 ships bf16; f16 deployments are common) and in both layouts. The shapes are
// disjoint from every architecture spec, so no matcher of a chain hides another.
//
// Form (IREE's tuner form, checked with iree-opt 3.13): each matcher tests, in order,
// transform.iree.match.has_no_lowering_config (an op that already has a config is left alone),
// transform.iree.match.contraction with the exact element types (lhs, rhs, f32 output) and the
// exact indexing maps of the operand layout, then transform.iree.match.dims_equal on the batch,
// m, n and k dimensions. transform.iree.match.contraction infers the contraction from the
// indexing maps, so it fires on what IREE configures: the linalg.generic a dispatch holds after
// dispatch formation (a linalg.matmul, a linalg.matmul with indexing_maps, a linalg.batch_matmul
// or an equivalent linalg.generic before it). f16 and bf16 are told apart exactly, so a shape can
// have an f16 and a bf16 matcher. Layouts: A*B (B stored [K, N]) and A*B^T (B stored [N, K], the
// weights of a linear layer) are separate matchers for each projection; batch GEMMs are batched
// A*B. Each decode GEMV (M = 1) has two matchers: one for the 3-loop form a named linalg.matmul
// keeps (m = [1]), one for the 2-loop form IREE makes of a linalg.generic GEMV, whose unit M
// dimension it folds away before dispatch formation (maps (d0, d1) -> (d1) for the vector,
// m = [], n = [N], k = [K]); both get the same R2 config. A matched op gets a compilation_info
// (lowering_config + translation_info) from @apply_op_config.
//
// Rule R2 (VectorDistribute GEMV, M = 1: decode projections). 32 lanes per subgroup, S
// subgroups (S <= 4), V elements per thread per step (V in {8, 4}: 16- or 8-byte loads of
// 16-bit elements); the K chunk C = 32*S*V is the largest that divides K (ties: more subgroups).
// workgroup = [1, 4, 0] (4 outputs per workgroup, 4 | N); lane_basis = [[1, 1, 32], [0, 1, 2]];
// subgroup_basis = [[1, 1, S], [0, 1, 2]]; thread = [0, 0, V]; partial_reduction = [0, 0, C];
// workgroup_size = 32*S; subgroup_size = 32; no intrinsic, so f16 and bf16 get the same
// config. The 2-loop (folded) form drops the leading M entry: lane_basis = [[1, 32], [0, 1]],
// subgroup_basis = [[1, S], [0, 1]], thread = [0, V], partial_reduction = [0, C], workgroup =
// [4, 0]. Shared memory: only the cross-subgroup partial sums, 4*S*4 bytes.
// For A*B GEMVs the K-contiguous reads of R2 stride over B's rows; an N-vectorized config may be
// faster there (not measured).
//
// Every matcher is checked by tools/check-default-configs.py (iree-compile 3.13): it builds the
// payload each matcher is meant for (a linalg.fill-initialized linalg.matmul / linalg.batch_matmul
// of the exact shape, element types and layout), compiles it with this file as
// --iree-codegen-tuning-spec-path for
//   gfx1100 and gfx1201
// and checks that the dispatch got exactly this file's lowering_config and translation_info
// (and another config without the spec), then that the full compile succeeds.
// Configs are plausible starting points derived by the rules above, NOT values measured on
// hardware: tune them before relying on them for performance.
module @rdna_llama32_decode_16bit attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Llama-3.2-1B decode (1 token): attention q/o projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): attention q/o projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): attention q/o projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): attention q/o projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): GQA k/v projection (8 KV heads x 64), a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x512x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_512x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): GQA k/v projection (8 KV heads x 64), a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x512x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_512x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): GQA k/v projection (8 KV heads x 64), a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x512x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_512x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): GQA k/v projection (8 KV heads x 64), a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x512x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_512x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x2048_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN gate/up projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x2048_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN gate/up projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (2048 = 2 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x2048_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x8192_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x8192_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x8192_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x8192_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN down projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x8192_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x8192_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-1B decode (1 token): FFN down projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x2048x8192_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_2048x8192_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): attention q/o projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): attention q/o projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): attention q/o projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): attention q/o projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): GQA k/v projection (8 KV heads x 128), a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x1024x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_1024x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): GQA k/v projection (8 KV heads x 128), a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x1024x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_1024x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): GQA k/v projection (8 KV heads x 128), a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x1024x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_1024x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): GQA k/v projection (8 KV heads x 128), a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x1024x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_1024x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x3072_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x3072_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN gate/up projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x3072_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN gate/up projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x8192x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (3072 = 3 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_8192x3072_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [8192] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [3072] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x8192_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x8192_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x8192_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x8192_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN down projection, a GEMV; bf16 x bf16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x8192_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x8192_bf16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-3.2-3B decode (1 token): FFN down projection, a GEMV; bf16 x bf16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x3072x8192_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 4], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); bf16 x bf16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (4 subgroup(s) of 32) x 8 elements = K chunk 1024 (8192 = 8 x 1024); shared memory 4*4*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_3072x8192_bf16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = bf16, rhs_type = bf16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [3072] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [8192] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %arg
        @match_matmul_1x2048x2048_f16_ab -> @apply_op_config,
        @match_matvec_2048x2048_f16_ab -> @apply_op_config,
        @match_matmul_1x2048x2048_f16_abt -> @apply_op_config,
        @match_matvec_2048x2048_f16_abt -> @apply_op_config,
        @match_matmul_1x2048x2048_bf16_ab -> @apply_op_config,
        @match_matvec_2048x2048_bf16_ab -> @apply_op_config,
        @match_matmul_1x2048x2048_bf16_abt -> @apply_op_config,
        @match_matvec_2048x2048_bf16_abt -> @apply_op_config,
        @match_matmul_1x512x2048_f16_ab -> @apply_op_config,
        @match_matvec_512x2048_f16_ab -> @apply_op_config,
        @match_matmul_1x512x2048_f16_abt -> @apply_op_config,
        @match_matvec_512x2048_f16_abt -> @apply_op_config,
        @match_matmul_1x512x2048_bf16_ab -> @apply_op_config,
        @match_matvec_512x2048_bf16_ab -> @apply_op_config,
        @match_matmul_1x512x2048_bf16_abt -> @apply_op_config,
        @match_matvec_512x2048_bf16_abt -> @apply_op_config,
        @match_matmul_1x8192x2048_f16_ab -> @apply_op_config,
        @match_matvec_8192x2048_f16_ab -> @apply_op_config,
        @match_matmul_1x8192x2048_f16_abt -> @apply_op_config,
        @match_matvec_8192x2048_f16_abt -> @apply_op_config,
        @match_matmul_1x8192x2048_bf16_ab -> @apply_op_config,
        @match_matvec_8192x2048_bf16_ab -> @apply_op_config,
        @match_matmul_1x8192x2048_bf16_abt -> @apply_op_config,
        @match_matvec_8192x2048_bf16_abt -> @apply_op_config,
        @match_matmul_1x2048x8192_f16_ab -> @apply_op_config,
        @match_matvec_2048x8192_f16_ab -> @apply_op_config,
        @match_matmul_1x2048x8192_f16_abt -> @apply_op_config,
        @match_matvec_2048x8192_f16_abt -> @apply_op_config,
        @match_matmul_1x2048x8192_bf16_ab -> @apply_op_config,
        @match_matvec_2048x8192_bf16_ab -> @apply_op_config,
        @match_matmul_1x2048x8192_bf16_abt -> @apply_op_config,
        @match_matvec_2048x8192_bf16_abt -> @apply_op_config,
        @match_matmul_1x3072x3072_f16_ab -> @apply_op_config,
        @match_matvec_3072x3072_f16_ab -> @apply_op_config,
        @match_matmul_1x3072x3072_f16_abt -> @apply_op_config,
        @match_matvec_3072x3072_f16_abt -> @apply_op_config,
        @match_matmul_1x3072x3072_bf16_ab -> @apply_op_config,
        @match_matvec_3072x3072_bf16_ab -> @apply_op_config,
        @match_matmul_1x3072x3072_bf16_abt -> @apply_op_config,
        @match_matvec_3072x3072_bf16_abt -> @apply_op_config,
        @match_matmul_1x1024x3072_f16_ab -> @apply_op_config,
        @match_matvec_1024x3072_f16_ab -> @apply_op_config,
        @match_matmul_1x1024x3072_f16_abt -> @apply_op_config,
        @match_matvec_1024x3072_f16_abt -> @apply_op_config,
        @match_matmul_1x1024x3072_bf16_ab -> @apply_op_config,
        @match_matvec_1024x3072_bf16_ab -> @apply_op_config,
        @match_matmul_1x1024x3072_bf16_abt -> @apply_op_config,
        @match_matvec_1024x3072_bf16_abt -> @apply_op_config,
        @match_matmul_1x8192x3072_f16_ab -> @apply_op_config,
        @match_matvec_8192x3072_f16_ab -> @apply_op_config,
        @match_matmul_1x8192x3072_f16_abt -> @apply_op_config,
        @match_matvec_8192x3072_f16_abt -> @apply_op_config,
        @match_matmul_1x8192x3072_bf16_ab -> @apply_op_config,
        @match_matvec_8192x3072_bf16_ab -> @apply_op_config,
        @match_matmul_1x8192x3072_bf16_abt -> @apply_op_config,
        @match_matvec_8192x3072_bf16_abt -> @apply_op_config,
        @match_matmul_1x3072x8192_f16_ab -> @apply_op_config,
        @match_matvec_3072x8192_f16_ab -> @apply_op_config,
        @match_matmul_1x3072x8192_f16_abt -> @apply_op_config,
        @match_matvec_3072x8192_f16_abt -> @apply_op_config,
        @match_matmul_1x3072x8192_bf16_ab -> @apply_op_config,
        @match_matvec_3072x8192_bf16_ab -> @apply_op_config,
        @match_matmul_1x3072x8192_bf16_abt -> @apply_op_config,
        @match_matvec_3072x8192_bf16_abt -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
