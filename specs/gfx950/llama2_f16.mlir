// tunespec default tuning spec for gfx950, llama2_f16.mlir:
// AMD CDNA4 (MI350X, MI355X).
// Covers Llama-2 in f16 (f32 accumulation): 7B (hidden 4096, FFN 11008, 32 heads) decode GEMVs
// (1 x N x K), 4096-token prefill projection GEMMs (M x N x K, M = tokens) and attention batch
// GEMMs (B x M x N x K, B = heads); 13B (hidden 5120, FFN 13824, 40 heads) 2048-token prefill
// projection and attention GEMMs. The 1 x 4096 x 4096 GEMV has a bf16 twin in llama3_bf16.mlir.
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
// Rule R1 (TileAndFuse, M > 1). Intrinsic I = iM x iN x iK of the op's element type (f16 ops an
// f16 intrinsic, bf16 ops a bf16 one), from the target's MMA list:
//   f16: MFMA_F32_16x16x32_F16, bf16: MFMA_F32_16x16x32_BF16.
// Workgroup tile TM x TN over (M, N), K step TK, SM x SN subgroups:
//   256 x 256, TK = 64, 2 x 4 subgroups (512 threads): shared memory (256+256)*64*2 = 64 KiB
//   (of 160 KiB), 128 accumulators per thread; where M or N is below 256 (attention probs*V,
//   N = 128): 256 x 128, 2 x 2 subgroups (256 threads), 48 KiB, 128 accumulators per thread.
// Then: workgroup = [TM, TN, 0]; subgroup = [TM/SM/iM, TN/SN/iN, 0] (per-subgroup tile counted
// in intrinsic tiles); reduction = [0, 0, TK/iK] (batch GEMMs: workgroup [1, TM, TN, 0], and a
// leading 0 in subgroup and reduction); workgroup_size = SM*SN*64; subgroup_size = 64;
// promote_operands = [0, 1]; prefetch_num_stages = 2.
// Checks a reader can make without hardware, for every R1 matcher:
//   TM | M, TN | N, TK | K (no partial tiles);
//   shared memory = (TM + TN) * TK * 2 bytes (both 16-bit operands promoted, one buffer)
//     <= 163840 (160 KiB: IREE's max_workgroup_memory_bytes on gfx950).
//     IREE 3.13's TileAndFuse keeps one copy with prefetch_num_stages = 2 (measured on gfx942: a
//     256x128 tile with K step 128 is reported as using exactly (256+128)*128*2 = 98304 bytes);
//   f32 accumulators per thread = TM*TN / workgroup_size <= 128 (CDNA: 512 VGPR+AGPR per lane).
//
// Rule R2 (VectorDistribute GEMV, M = 1: decode projections). 64 lanes per subgroup, S
// subgroups (S <= 2), V elements per thread per step (V in {8, 4}: 16- or 8-byte loads of
// 16-bit elements); the K chunk C = 64*S*V is the largest that divides K (ties: more subgroups).
// workgroup = [1, 4, 0] (4 outputs per workgroup, 4 | N); lane_basis = [[1, 1, 64], [0, 1, 2]];
// subgroup_basis = [[1, 1, S], [0, 1, 2]]; thread = [0, 0, V]; partial_reduction = [0, 0, C];
// workgroup_size = 64*S; subgroup_size = 64; no intrinsic, so f16 and bf16 get the same
// config. The 2-loop (folded) form drops the leading M entry: lane_basis = [[1, 64], [0, 1]],
// subgroup_basis = [[1, S], [0, 1]], thread = [0, V], partial_reduction = [0, C], workgroup =
// [4, 0]. Shared memory: only the cross-subgroup partial sums, 4*S*4 bytes.
// For A*B GEMVs the K-contiguous reads of R2 stride over B's rows; an N-vectorized config may be
// faster there (not measured).
//
// Rule R3 (gfx950 only: a workaround). The decode examples' attention scores Q*K^T with one query
// and one key (B x 1 x 1 x K batch GEMM): iree-compile 3.13 crashes (segfault in
// ConfigureExecutables) choosing its own config for it on gfx950, with or without a spec, so
// this file gives it one: VectorDistribute, workgroup = [1, 1, 1, 0] (one batch element),
// lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], subgroup_basis = [[1, 1, 1, 1], [0, 1, 2, 3]],
// thread = [0, 0, 0, K/64], partial_reduction = [0, 0, 0, K], workgroup_size = 64; needs 64 | K.
// No shared memory beyond the subgroup reduction.
//
// Every matcher is checked by tools/check-default-configs.py (iree-compile 3.13): it builds the
// payload each matcher is meant for (a linalg.fill-initialized linalg.matmul / linalg.batch_matmul
// of the exact shape, element types and layout), compiles it with this file as
// --iree-codegen-tuning-spec-path for
//   gfx950
// and checks that the dispatch got exactly this file's lowering_config and translation_info
// (and another config without the spec), then that the full compile succeeds.
// Configs are plausible starting points derived by the rules above, NOT values measured on
// hardware: tune them before relying on them for performance.
module @gfx950_llama2_f16 attributes {transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Llama-2-7B decode (1 token): attention q/k/v/o projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x4096x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_4096x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode (1 token): attention q/k/v/o projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x4096x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_4096x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x11008x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_11008x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode (1 token): FFN gate/up projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x11008x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 2], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 128 threads (2 subgroup(s) of 64) x 8 elements = K chunk 1024 (4096 = 4 x 1024); shared memory 4*2*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_11008x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 8], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 64 threads (1 subgroup(s) of 64) x 4 elements = K chunk 256 (11008 = 43 x 256); shared memory 4*1*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x4096x11008_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 256], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, 4], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, vector x B (B stored [K, N]).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 64 threads (1 subgroup(s) of 64) x 4 elements = K chunk 256 (11008 = 43 x 256); shared memory 4*1*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_4096x11008_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode (1 token): FFN down projection, a GEMV; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R2: VectorDistribute GEMV, 4 outputs per workgroup, 64 threads (1 subgroup(s) of 64) x 4 elements = K chunk 256 (11008 = 43 x 256); shared memory 4*1*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matmul_1x4096x11008_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 256], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, 4], workgroup = [1, 4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // The same GEMV after IREE folded its unit M dimension (a linalg.generic 1 x N x K becomes a
  // 2-loop N x K contraction with m = []); f16 x f16 -> f32, B x vector (B stored [N, K], as a linear layer's weight).
  // Config: R2 (2-loop form): VectorDistribute GEMV, 4 outputs per workgroup, 64 threads (1 subgroup(s) of 64) x 4 elements = K chunk 256 (11008 = 43 x 256); shared memory 4*1*4 B.
  // provenance: derived by rule R2 (not measured on hardware)
  transform.named_sequence @match_matvec_4096x11008_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [4, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: attention q/k/v/o projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x4096x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: attention q/k/v/o projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x4096x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: FFN gate/up projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x11008x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: FFN gate/up projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x11008x4096_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [11008] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: FFN down projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x4096x11008_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B prefill, 4096 tokens: FFN down projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_4096x4096x11008_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [11008] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: attention q/k/v/o projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x5120x5120_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [5120] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: attention q/k/v/o projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x5120x5120_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [5120] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: FFN gate/up projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x13824x5120_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [13824] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: FFN gate/up projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x13824x5120_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [13824] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [5120] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: FFN down projection; f16 x f16 -> f32, A*B (B stored [K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x5120x13824_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [5120] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [13824] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B prefill, 2048 tokens: FFN down projection; f16 x f16 -> f32, A*B^T (B stored [N, K], as a linear layer's weight).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_matmul_2048x5120x13824_f16_abt(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [5120] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [13824] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 2], subgroup = [8, 4, 0], workgroup = [256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B attention scores Q*K^T (K^T stored [B, K, N]): 32 heads, seq 4096, head dim 128; f16 x f16 -> f32, batched A*B (B stored [B, K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_batch_matmul_32x4096x4096x128_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [32] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [128] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 2], subgroup = [0, 8, 4, 0], workgroup = [1, 256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B attention probs*V: 32 heads, seq 4096, head dim 128; f16 x f16 -> f32, batched A*B (B stored [B, K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x128, K step 64, 4 subgroups (2x2) of 128x64, 256 threads; shared memory (256+128)*64*2 = 48 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_batch_matmul_32x4096x128x4096_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [32] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [128] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 2], subgroup = [0, 8, 4, 0], workgroup = [1, 256, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B attention scores Q*K^T (K^T stored [B, K, N]): 40 heads, seq 2048, head dim 128; f16 x f16 -> f32, batched A*B (B stored [B, K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x256, K step 64, 8 subgroups (2x4) of 128x64, 512 threads; shared memory (256+256)*64*2 = 64 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_batch_matmul_40x2048x2048x128_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [40] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [128] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 2], subgroup = [0, 8, 4, 0], workgroup = [1, 256, 256, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [512, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-13B attention probs*V: 40 heads, seq 2048, head dim 128; f16 x f16 -> f32, batched A*B (B stored [B, K, N]).
  // Config: R1: MFMA_F32_16x16x32_F16, workgroup tile 256x128, K step 64, 4 subgroups (2x2) of 128x64, 256 threads; shared memory (256+128)*64*2 = 48 KiB; 128 f32 accumulators per thread.
  // provenance: derived by rule R1 (not measured on hardware)
  transform.named_sequence @match_batch_matmul_40x2048x128x2048_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R1 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [40] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [2048] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [128] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [2048] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x32_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 2], subgroup = [0, 8, 4, 0], workgroup = [1, 256, 128, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  // Llama-2-7B decode attention scores Q*K^T as the decode example has it (one query, one key): 32 heads, head dim 128. iree-compile 3.13 crashes choosing its own config for this op on gfx950; f16 x f16 -> f32, batched A*B (B stored [B, K, N]).
  // Config: R3: VectorDistribute, one batch element per workgroup, 64 lanes x 2 elements = K (128); shared memory none.
  // provenance: derived by rule R3 (not measured on hardware)
  transform.named_sequence @match_batch_matmul_32x1x1x128_f16_ab(%root: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {tunespec.provenance = "derived by rule R3 (not measured on hardware)"} {
    transform.iree.match.has_no_lowering_config %root : !transform.any_op
    %batch, %m, %n, %k = transform.iree.match.contraction %root, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [32] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [1] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [128] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], partial_reduction = [0, 0, 0, 128], subgroup_basis = [[1, 1, 1, 1], [0, 1, 2, 3]], thread = [0, 0, 0, 2], workgroup = [1, 1, 1, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %root, %config : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %arg
        @match_matmul_1x4096x4096_f16_ab -> @apply_op_config,
        @match_matvec_4096x4096_f16_ab -> @apply_op_config,
        @match_matmul_1x4096x4096_f16_abt -> @apply_op_config,
        @match_matvec_4096x4096_f16_abt -> @apply_op_config,
        @match_matmul_1x11008x4096_f16_ab -> @apply_op_config,
        @match_matvec_11008x4096_f16_ab -> @apply_op_config,
        @match_matmul_1x11008x4096_f16_abt -> @apply_op_config,
        @match_matvec_11008x4096_f16_abt -> @apply_op_config,
        @match_matmul_1x4096x11008_f16_ab -> @apply_op_config,
        @match_matvec_4096x11008_f16_ab -> @apply_op_config,
        @match_matmul_1x4096x11008_f16_abt -> @apply_op_config,
        @match_matvec_4096x11008_f16_abt -> @apply_op_config,
        @match_matmul_4096x4096x4096_f16_ab -> @apply_op_config,
        @match_matmul_4096x4096x4096_f16_abt -> @apply_op_config,
        @match_matmul_4096x11008x4096_f16_ab -> @apply_op_config,
        @match_matmul_4096x11008x4096_f16_abt -> @apply_op_config,
        @match_matmul_4096x4096x11008_f16_ab -> @apply_op_config,
        @match_matmul_4096x4096x11008_f16_abt -> @apply_op_config,
        @match_matmul_2048x5120x5120_f16_ab -> @apply_op_config,
        @match_matmul_2048x5120x5120_f16_abt -> @apply_op_config,
        @match_matmul_2048x13824x5120_f16_ab -> @apply_op_config,
        @match_matmul_2048x13824x5120_f16_abt -> @apply_op_config,
        @match_matmul_2048x5120x13824_f16_ab -> @apply_op_config,
        @match_matmul_2048x5120x13824_f16_abt -> @apply_op_config,
        @match_batch_matmul_32x4096x4096x128_f16_ab -> @apply_op_config,
        @match_batch_matmul_32x4096x128x4096_f16_ab -> @apply_op_config,
        @match_batch_matmul_40x2048x2048x128_f16_ab -> @apply_op_config,
        @match_batch_matmul_40x2048x128x2048_f16_ab -> @apply_op_config,
        @match_batch_matmul_32x1x1x128_f16_ab -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
