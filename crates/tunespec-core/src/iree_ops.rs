//! Facts about IREE 3.13's operation names that the verifier needs, kept in one place.
//!
//! Why a module of lists: tunespec cannot ask IREE at run time (iree-opt is optional), yet a spec
//! written for IREE names IREE's ops, and two of IREE's facts decide whether such a spec can work:
//! which `transform.iree.*` ops are tuning-spec ops (the rest rewrite code and IREE never runs them
//! in a tuning spec), and which named linalg ops no longer exist when IREE matches (dispatch
//! formation turns them into `linalg.generic`). Part of tunespec-core (shared with `build.rs`), so it
//! depends on nothing but std.
//!
//! Where the lists come from (IREE 3.13.0, PyPI `iree-base-compiler==3.13.0`, the venv that
//! `tools/iree-venv.sh` makes):
//! - [`TUNING_OPS`]: the ten `OPERATION_NAME`s starting with `transform.iree.` in
//!   `iree/compiler/dialects/_preprocessing_transform_ops_gen.py` (the only `*_ops_gen.py` file
//!   of the package that has any), plus `transform.iree.match.has_no_lowering_config` (a codegen
//!   extension op that IREE's default specs use; the package has no bindings for it).
//! - [`CODEGEN_OPS`]: the other operation names starting with `transform.iree.` in the string table
//!   of the package's `_mlir_libs/libIREECompiler.so` (the Python package has no bindings for the
//!   codegen transform extensions); each was confirmed to be a registered op by parsing
//!   `"NAME"() : () -> ()` with iree-opt 3.13 (a registered op fails verification, an unknown
//!   name fails with "unregistered operation").
//! - [`GENERALIZED_NAMED_OPS`] and [`REMOVED_NAMED_OPS`]: measured with iree-compile 3.13
//!   (`--iree-hal-target-device=hip --iree-rocm-target=gfx942 --compile-to=executable-configurations`)
//!   on one small payload per op: the dispatch that IREE configured held `linalg.generic` (or, for
//!   `linalg.softmax` and the quantized ops, `linalg.fill` and `linalg.generic`) and no op of that
//!   name. Named ops that the same measurement found intact in the configured dispatch, and which
//!   are therefore NOT listed: `linalg.fill`, `linalg.contract`, `linalg.mmt4d`,
//!   `linalg.batch_mmt4d`, `linalg.batch_matvec`, `linalg.batch_vecmat`,
//!   `linalg.batch_reduce_matmul`. Ops that were not measured are not listed either.

/// IREE's tuning-spec ops: the match ops a spec may use (IREE 3.13).
pub const TUNING_OPS: &[&str] = &[
    "transform.iree.match.attention",
    "transform.iree.match.cast_compatible_dag_from_root",
    "transform.iree.match.cast_compatible_type",
    "transform.iree.match.contraction",
    "transform.iree.match.convolution",
    "transform.iree.match.dim_bounds",
    "transform.iree.match.dim_is_multiple_of",
    "transform.iree.match.dims_equal",
    "transform.iree.match.has_no_lowering_config",
    "transform.iree.match.online_attention",
    "transform.iree.match.regions",
];

/// IREE's other `transform.iree.*` ops (IREE 3.13): codegen transformations that rewrite the
/// payload. IREE runs them from its own codegen strategies, never from a tuning spec.
pub const CODEGEN_OPS: &[&str] = &[
    "transform.iree.amdgpu_distribute_vectors",
    "transform.iree.apply_licm",
    "transform.iree.bufferize",
    "transform.iree.convert_to_multi_mma",
    "transform.iree.convert_to_online_attention",
    "transform.iree.copy_tensor_operand",
    "transform.iree.create_async_groups",
    "transform.iree.create_matmul_mfma_tile_sizes",
    "transform.iree.decompose_aggregate_op",
    "transform.iree.distribute_inner_tiled",
    "transform.iree.eliminate_empty_tensors",
    "transform.iree.eliminate_gpu_barriers",
    "transform.iree.flatten_forall_mapping",
    "transform.iree.forall_to_lanes",
    "transform.iree.forall_to_workgroup",
    "transform.iree.fuse_collapse_shape_into_forall",
    "transform.iree.fuse_consumer",
    "transform.iree.fuse_extract_slice_into_forall",
    "transform.iree.fuse_forall",
    "transform.iree.gpu_distribute_shared_memory_copy",
    "transform.iree.hoist_static_alloc",
    "transform.iree.map_nested_forall_to_gpu_threads",
    "transform.iree.pack_shared_memory_alloc",
    "transform.iree.pipeline_shared_memory_copies",
    "transform.iree.populate_workgroup_count_region_using_num_threads_slice",
    "transform.iree.prefetch_shared_memory_copies",
    "transform.iree.promote_operands",
    "transform.iree.reduce_shared_memory_bank_conflicts",
    "transform.iree.reorder_transpose",
    "transform.iree.share_forall_operands",
    "transform.iree.synchronize_loop",
    "transform.iree.test_gpu_vector_distribution",
    "transform.iree.vector.to_warp_execute_on_lane_0",
    "transform.iree.vector.vector_to_mma_conversion",
    "transform.iree.vector.warp_distribute",
];

/// Named linalg ops that IREE 3.13 has turned into `linalg.generic` by the time it applies a
/// tuning spec to a dispatch (measured; see the module docs).
pub const GENERALIZED_NAMED_OPS: &[&str] = &[
    "linalg.batch_matmul",
    "linalg.broadcast",
    "linalg.conv_1d_nwc_wcf",
    "linalg.conv_2d",
    "linalg.conv_2d_nchw_fchw",
    "linalg.conv_2d_nhwc_fhwc",
    "linalg.conv_2d_nhwc_hwcf",
    "linalg.conv_2d_nhwc_hwcf_q",
    "linalg.conv_3d_ndhwc_dhwcf",
    "linalg.depthwise_conv_2d_nchw_chw",
    "linalg.depthwise_conv_2d_nhwc_hwc",
    "linalg.dot",
    "linalg.map",
    "linalg.matmul",
    "linalg.matvec",
    "linalg.pooling_nchw_max",
    "linalg.pooling_nhwc_max",
    "linalg.pooling_nhwc_sum",
    "linalg.quantized_batch_matmul",
    "linalg.quantized_matmul",
    "linalg.reduce",
    "linalg.softmax",
    "linalg.transpose",
    "linalg.vecmat",
];

/// Named linalg ops that neither MLIR 22 nor IREE 3.13 has any more (both parsers reject them:
/// "custom op ... is unknown"); a transposed matmul is `linalg.matmul` with `indexing_maps`.
pub const REMOVED_NAMED_OPS: &[&str] = &[
    "linalg.add",
    "linalg.batch_matmul_transpose_a",
    "linalg.batch_matmul_transpose_b",
    "linalg.exp",
    "linalg.matmul_transpose_a",
    "linalg.matmul_transpose_b",
];

/// The attribute dialects iree-opt 3.13 registers whose names start with `iree_` (each
/// confirmed by parsing `#NAME.x<1>`: "unknown attribute `x` in dialect" instead of
/// "unregistered dialect").
pub const ATTRIBUTE_DIALECTS: &[&str] = &[
    "iree_codegen",
    "iree_cpu",
    "iree_encoding",
    "iree_gpu",
    "iree_linalg_ext",
    "iree_tensor_ext",
    "iree_vector_ext",
];

/// Every dialect iree-opt 3.13 registers (`iree-opt --show-dialects`): an attribute of any other
/// dialect makes IREE refuse the spec ("attribute created with unregistered dialect").
pub const IREE_DIALECTS: &[&str] = &[
    "affine",
    "amdgpu",
    "arith",
    "arm_neon",
    "arm_sme",
    "arm_sve",
    "bufferization",
    "builtin",
    "cf",
    "check",
    "chlo",
    "complex",
    "emitc",
    "flow",
    "func",
    "gpu",
    "hal",
    "hal_inline",
    "hal_loader",
    "io_parameters",
    "iree_codegen",
    "iree_cpu",
    "iree_encoding",
    "iree_gpu",
    "iree_linalg_ext",
    "iree_map",
    "iree_tensor_ext",
    "iree_vector_ext",
    "linalg",
    "llvm",
    "math",
    "memref",
    "ml_program",
    "nvgpu",
    "nvvm",
    "pcf",
    "pdl",
    "pdl_interp",
    "quant",
    "rocdl",
    "rocm",
    "scf",
    "shape",
    "smt",
    "spirv",
    "stablehlo",
    "stream",
    "tensor",
    "tm_tensor",
    "torch",
    "torch_c",
    "tosa",
    "transform",
    "ub",
    "util",
    "vector",
    "vhlo",
    "vm",
    "vmvx",
];

/// Every dialect mlir-opt 22 registers (`mlir-opt --show-dialects`).
pub const MLIR_DIALECTS: &[&str] = &[
    "acc",
    "affine",
    "amdgpu",
    "amx",
    "arith",
    "arm_neon",
    "arm_sme",
    "arm_sve",
    "async",
    "bufferization",
    "builtin",
    "cf",
    "complex",
    "dlti",
    "emitc",
    "func",
    "gpu",
    "index",
    "irdl",
    "linalg",
    "llvm",
    "math",
    "memref",
    "ml_program",
    "mpi",
    "nvgpu",
    "nvvm",
    "omp",
    "pdl",
    "pdl_interp",
    "ptr",
    "quant",
    "rocdl",
    "scf",
    "shape",
    "shard",
    "smt",
    "sparse_tensor",
    "spirv",
    "tensor",
    "test",
    "test_dyn",
    "test_irdl_to_cpp",
    "tosa",
    "transform",
    "ub",
    "vector",
    "wasmssa",
    "x86vector",
    "xegpu",
    "xevm",
];

/// Whether `name` is one of IREE's tuning-spec ops.
pub fn is_tuning_op(name: &str) -> bool {
    TUNING_OPS.contains(&name)
}

/// Whether a `transform.match.operation_name` that lists `name` can see such an op in a dispatch
/// that IREE configures: false for ops IREE has generalized and for ops that no longer exist.
pub fn survives_dispatch_formation(name: &str) -> bool {
    !GENERALIZED_NAMED_OPS.contains(&name) && !REMOVED_NAMED_OPS.contains(&name)
}

/// The discardable attributes a tuning spec may set on the op its matcher matched: the ones
/// IREE 3.13 reads as that op's config, which choose how it is compiled and never what it
/// computes (`tunespec::verify::changes-semantics` refuses a write of any other name).
///
/// Where the list comes from (IREE 3.13.0, the venv `tools/iree-venv.sh` makes; each name is a
/// string of `_mlir_libs/libIREECompiler.so`, which `tests/all/semantics_mutation.rs` checks):
/// - `compilation_info`, `lowering_config`, `translation_info`: the names IREE's codegen reads
///   an op's config under (`IREECodegenAttrs`: the compilation info is split into the other two
///   by `materialize-user-configs`, which runs the tuning specs);
/// - `decomposition_config`: the attention decomposition config `iree_linalg_ext.attention`
///   reads, which IREE's own gfx942 default spec sets (`@apply_attn_op_config`);
/// - `__tuning_spec_applied__`: the unit marker IREE's default spec sets beside the config so a
///   compile shows the spec applied (read by nothing that changes code);
/// - `iree_codegen.ukernel`: the microkernel descriptor IREE's ukernel selection reads on an op
///   (a different implementation of the same op, chosen like a config).
///
/// Not listed, although IREE's ROCm ukernel spec writes it: `iree_codegen_external_symbols`, set
/// on the matched op's function (another op) with code to splice in; such a spec opts in.
pub const CONFIG_ATTRS: &[&str] = &[
    "compilation_info",
    "lowering_config",
    "translation_info",
    "decomposition_config",
    "__tuning_spec_applied__",
    "iree_codegen.ukernel",
];

/// Whether a tuning spec may set the attribute `name` on the op its matcher matched.
pub fn is_config_attr(name: &str) -> bool {
    CONFIG_ATTRS.contains(&name)
}
