// IREE's tuning-spec matcher ops, declared so that tunespec's MLIR contexts parse, print,
// verify, serialize and interpret them exactly as IREE 3.13 does.
//
// What must agree with IREE, and therefore is fixed here rather than chosen:
// - op names (`transform.iree.match.*`), operand / result / attribute names, their ODS
//   constraints and their declaration order: the declaration order is the order in which
//   properties are written to and read from bytecode, so a spec serialized by iree-opt reads
//   back here only if it matches;
// - assembly formats: a spec printed here must read as iree-opt prints it;
// - traits: the matcher traits give the same handle checks, side effects and verifier messages.
// Descriptions are tunespec's own; IREE's documentation is the reference for the semantics.

#ifndef TUNESPEC_IREE_MATCH_OPS
#define TUNESPEC_IREE_MATCH_OPS

include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.td"
include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

class IreeMatchOp<string name, list<Trait> traits = []>
    : Op<Transform_Dialect, "iree.match." # name, traits> {
  let cppNamespace = "::tunespec::iree";
}

def IreeMatchCastCompatibleDagFromRootOp : IreeMatchOp<"cast_compatible_dag_from_root",
    [IsolatedFromAbove, MatchOpInterface, SingleOpMatcher,
     SingleBlockImplicitTerminator<"::mlir::transform::YieldOp">,
     MemoryEffectsOpInterface]> {
  let summary = "Matches the op dag of the body, rooted at the payload op, up to casts";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle);
  let results = (outs TransformValueHandleTypeInterface:$inputs,
                      TransformValueHandleTypeInterface:$outputs);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat =
    "$operand_handle attr-dict-with-keyword regions `:` functional-type(operands, results)";
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
  let hasVerifier = 1;
}

def IreeMatchCastCompatibleTypeOp : IreeMatchOp<"cast_compatible_type",
    [IsolatedFromAbove, MatchOpInterface, SingleValueMatcher, MemoryEffectsOpInterface]> {
  let summary = "Matches a payload value whose type casts to the target type";
  let arguments = (ins TransformValueHandleTypeInterface:$operand_handle,
                       TypeAttr:$target_type);
  let assemblyFormat =
    "$operand_handle `=` $target_type attr-dict `:` type($operand_handle)";
  let extraClassDeclaration = SingleValueMatcher.extraDeclaration;
}

def IreeMatchDimBoundsOp : IreeMatchOp<"dim_bounds",
    [IsolatedFromAbove, MatchOpInterface, SingleValueMatcher, MemoryEffectsOpInterface]> {
  let summary = "Matches a payload value whose dim is provably within bounds";
  let arguments = (ins TransformValueHandleTypeInterface:$operand_handle,
                       I64Attr:$dim,
                       OptionalAttr<I64Attr>:$lower_bound,
                       OptionalAttr<I64Attr>:$upper_bound);
  let assemblyFormat = [{
    $operand_handle `[` $dim `]` `,` (`umin` `=` $lower_bound^):(`none`)?
    `,` (`umax` `=` $upper_bound^):(`none`)? attr-dict `:` type($operand_handle)
  }];
  let extraClassDeclaration = SingleValueMatcher.extraDeclaration;
}

def IreeMatchDimIsMultipleOfOp : IreeMatchOp<"dim_is_multiple_of",
    [IsolatedFromAbove, MatchOpInterface, SingleValueMatcher, MemoryEffectsOpInterface]> {
  let summary = "Matches a payload value whose dim is provably a multiple of a size";
  let arguments = (ins TransformValueHandleTypeInterface:$operand_handle,
                       I64Attr:$dim,
                       I64Attr:$size);
  let assemblyFormat =
    "$operand_handle `[` $dim `]` `,` $size attr-dict `:` type($operand_handle)";
  let extraClassDeclaration = SingleValueMatcher.extraDeclaration;
}

def IreeMatchRegionsOp : IreeMatchOp<"regions",
    [IsolatedFromAbove, MatchOpInterface, SingleOpMatcher,
     SingleBlockImplicitTerminator<"::mlir::transform::YieldOp">,
     MemoryEffectsOpInterface]> {
  let summary = "Matches a payload op whose regions equal those of the op in the body";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = "$operand_handle attr-dict `:` type($operand_handle) regions";
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
  let hasVerifier = 1;
}

def IreeMatchContractionOp : IreeMatchOp<"contraction",
    [MatchOpInterface, SingleOpMatcher, MemoryEffectsOpInterface,
     AllTypesMatch<["batch_dims", "m_dims", "n_dims", "k_dims"]>]> {
  let summary = "Matches a linalg contraction; yields its batch/m/n/k loop sizes";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle,
                       TypeAttr:$lhs_type,
                       TypeAttr:$rhs_type,
                       TypeAttr:$output_type,
                       OptionalAttr<AffineMapArrayAttr>:$indexing_maps);
  let results = (outs TransformParamTypeInterface:$batch_dims,
                      TransformParamTypeInterface:$m_dims,
                      TransformParamTypeInterface:$n_dims,
                      TransformParamTypeInterface:$k_dims);
  let assemblyFormat = [{
    $operand_handle
    `,` `lhs_type` `=` $lhs_type
    `,` `rhs_type` `=` $rhs_type
    `,` `output_type` `=` $output_type
    (`,` `indexing_maps` `=` $indexing_maps^)?
    attr-dict `:` type($operand_handle) `->` type($batch_dims)
  }];
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

def IreeMatchConvolutionOp : IreeMatchOp<"convolution",
    [MatchOpInterface, SingleOpMatcher, MemoryEffectsOpInterface,
     AllTypesMatch<["batch_dims", "output_image_dims", "output_channel_dims",
                    "filter_dims", "input_channel_dims", "depth_dims",
                    "strides", "dilations"]>]> {
  let summary = "Matches a linalg convolution; yields its convolution dims";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle,
                       TypeAttr:$lhs_type,
                       TypeAttr:$rhs_type,
                       TypeAttr:$output_type,
                       OptionalAttr<AffineMapArrayAttr>:$indexing_maps);
  let results = (outs TransformParamTypeInterface:$batch_dims,
                      TransformParamTypeInterface:$output_image_dims,
                      TransformParamTypeInterface:$output_channel_dims,
                      TransformParamTypeInterface:$filter_dims,
                      TransformParamTypeInterface:$input_channel_dims,
                      TransformParamTypeInterface:$depth_dims,
                      TransformParamTypeInterface:$strides,
                      TransformParamTypeInterface:$dilations);
  let assemblyFormat = [{
    $operand_handle
    `,` `lhs_type` `=` $lhs_type
    `,` `rhs_type` `=` $rhs_type
    `,` `output_type` `=` $output_type
    (`,` `indexing_maps` `=` $indexing_maps^)?
    attr-dict `:` type($operand_handle) `->` type($batch_dims)
  }];
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

def IreeMatchAttentionOp : IreeMatchOp<"attention",
    [MatchOpInterface, SingleOpMatcher, MemoryEffectsOpInterface,
     AllTypesMatch<["batch_dims", "m_dims", "n_dims", "k1_dims", "k2_dims"]>]> {
  let summary = "Matches an iree_linalg_ext.attention op; yields its loop sizes";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle,
                       TypeAttr:$query_type,
                       TypeAttr:$key_type,
                       TypeAttr:$value_type,
                       TypeAttr:$output_type,
                       AffineMapArrayAttr:$indexing_maps);
  let results = (outs TransformParamTypeInterface:$batch_dims,
                      TransformParamTypeInterface:$m_dims,
                      TransformParamTypeInterface:$n_dims,
                      TransformParamTypeInterface:$k1_dims,
                      TransformParamTypeInterface:$k2_dims);
  let assemblyFormat = [{
    $operand_handle
    `,` `query_type` `=` $query_type
    `,` `key_type` `=` $key_type
    `,` `value_type` `=` $value_type
    `,` `output_type` `=` $output_type
    `,` `indexing_maps` `=` $indexing_maps
    attr-dict `:` type($operand_handle) `->` type($batch_dims)
  }];
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

def IreeMatchOnlineAttentionOp : IreeMatchOp<"online_attention",
    [MatchOpInterface, SingleOpMatcher, MemoryEffectsOpInterface,
     AllTypesMatch<["batch_dims", "m_dims", "n_dims", "k1_dims", "k2_dims"]>]> {
  let summary = "Matches an unmasked iree_linalg_ext.online_attention op; yields its loop sizes";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle,
                       TypeAttr:$query_type,
                       TypeAttr:$key_type,
                       TypeAttr:$value_type,
                       TypeAttr:$scale_type,
                       TypeAttr:$output_type,
                       TypeAttr:$max_type,
                       TypeAttr:$sum_type,
                       AffineMapArrayAttr:$indexing_maps);
  let results = (outs TransformParamTypeInterface:$batch_dims,
                      TransformParamTypeInterface:$m_dims,
                      TransformParamTypeInterface:$n_dims,
                      TransformParamTypeInterface:$k1_dims,
                      TransformParamTypeInterface:$k2_dims);
  let assemblyFormat = [{
    $operand_handle `,`
    `query_type` `=` $query_type
    `,` `key_type` `=` $key_type
    `,` `value_type` `=` $value_type
    `,` `scale_type` `=` $scale_type
    `,` `output_type` `=` $output_type
    `,` `max_type` `=` $max_type
    `,` `sum_type` `=` $sum_type
    `,` `indexing_maps` `=` $indexing_maps
    attr-dict `:` type($operand_handle) `->` type($batch_dims)
  }];
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

def IreeMatchDimsEqualOp : IreeMatchOp<"dims_equal",
    [DeclareOpInterfaceMethods<TransformOpInterface>, MatchOpInterface,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Matches i64 params against expected sizes (-1 matches any)";
  let arguments = (ins TransformParamTypeInterface:$dimension_sizes,
                       DenseI64ArrayAttr:$expected_values);
  let assemblyFormat =
    "$dimension_sizes `,` $expected_values attr-dict `:` type($dimension_sizes)";
}

def IreeMatchHasNoLoweringConfigOp : IreeMatchOp<"has_no_lowering_config",
    [MatchOpInterface, SingleOpMatcher, MemoryEffectsOpInterface]> {
  let summary = "Matches a payload op without IREE's lowering_config / compilation_info";
  let arguments = (ins TransformHandleTypeInterface:$operand_handle);
  let results = (outs);
  let assemblyFormat = "$operand_handle attr-dict `:` type($operand_handle)";
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

#endif // TUNESPEC_IREE_MATCH_OPS
