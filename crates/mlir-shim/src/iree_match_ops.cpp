// IREE's tuning-spec matcher ops (`transform.iree.match.*`) as a transform dialect extension,
// so that tunespec parses, verifies, serializes and interprets IREE specs as IREE 3.13 does.
//
// The ops are declared in iree_match_ops.td; this file gives them IREE's semantics, written for
// tunespec's contexts, where IREE's own dialects are NOT registered: IREE ops in a payload
// (`iree_linalg_ext.attention`, ...) and IREE attributes (`#iree_codegen.compilation_info<...>`)
// are unregistered ops and opaque attributes, so they are recognized by name and read from their
// generic form. Every silenceable failure carries the message IREE gives in the same case.
//
// The helpers the ops share (region equivalence, operand comparisons, attention views, IREE's
// config attributes) are in iree_match_support.cpp.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/RegionGraphTraits.h"

#define GET_OP_CLASSES
#include "iree_match_ops.h.inc"

using namespace mlir;

#include "iree_match_support.h"

namespace tunespec::iree {

//===----------------------------------------------------------------------===//
// Op semantics
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
IreeMatchCastCompatibleDagFromRootOp::matchOperation(Operation *current,
                                                     transform::TransformResults &results,
                                                     transform::TransformState &state) {
  Block &body = getRegion().front();
  Operation *targetRoot = body.back().getPrevNode();
  SmallVector<Value> inputs(body.getNumArguments(), nullptr);
  // Target op -> payload op, in the order the walk from the root first completed them.
  llvm::MapVector<Operation *, Operation *> matched;

  // Walk from the roots up the operand producers, pairing target and payload ops.
  SmallVector<Operation *> targets = {targetRoot};
  SmallVector<Operation *> payloads = {current};
  while (!targets.empty()) {
    Operation *targetOp = targets.pop_back_val();
    Operation *payloadOp = payloads.pop_back_val();
    if (targetOp->hasAttr("match.operation_name_only")) {
      if (targetOp->getName() != payloadOp->getName())
        return emitSilenceableError() << "only operation name op mismatch";
      continue;
    }
    if (matched.contains(targetOp)) {
      if (matched.lookup(targetOp) != payloadOp)
        return emitSilenceableError() << "dag mismatch";
      continue;
    }
    DiagnosedSilenceableFailure diag = compareUpToCasts(*this, targetOp, payloadOp);
    if (!diag.succeeded()) {
      diag.attachNote(payloadOp->getLoc()) << "While processing operation";
      return diag;
    }
    for (auto [payloadOperand, targetOperand] :
         llvm::zip_equal(payloadOp->getOperands(), targetOp->getOperands())) {
      if (auto argument = dyn_cast<BlockArgument>(targetOperand)) {
        if (argument.getOwner() != &body)
          return emitDefiniteFailure() << "Invalid block argument in target";
        unsigned index = argument.getArgNumber();
        if (inputs[index] && inputs[index] != payloadOperand)
          return emitSilenceableError() << "input operand with conflicting uses";
        inputs[index] = payloadOperand;
        continue;
      }
      Operation *payloadProducer = payloadOperand.getDefiningOp();
      if (!payloadProducer)
        return emitSilenceableError() << "early termination of the operation dag";
      Operation *targetProducer = targetOperand.getDefiningOp();
      if (matched.contains(targetProducer)) {
        if (matched.lookup(targetProducer) != payloadProducer)
          return emitSilenceableError() << "dag mismatch";
        continue;
      }
      targets.push_back(targetProducer);
      payloads.push_back(payloadProducer);
    }
    matched[targetOp] = payloadOp;
  }

  // Then the regions, producers first, with one mapping that grows by each pair's results.
  IRMapping mapping;
  for (auto [targetOp, payloadOp] : llvm::reverse(matched)) {
    DiagnosedSilenceableFailure diag = compareRegions(*this, mapping, targetOp, payloadOp);
    if (!diag.succeeded()) {
      diag.attachNote(payloadOp->getLoc()) << "While processing region";
      return diag;
    }
    for (auto [t, p] : llvm::zip_equal(targetOp->getResults(), payloadOp->getResults()))
      mapping.map(t, p);
  }

  if (llvm::any_of(inputs, [](Value input) { return !input; }))
    return emitSilenceableError() << "failed to match all input nodes";
  results.setValues(cast<OpResult>(getInputs()), inputs);
  results.setValues(cast<OpResult>(getOutputs()), current->getResults());
  return DiagnosedSilenceableFailure::success();
}

LogicalResult IreeMatchCastCompatibleDagFromRootOp::verify() {
  if (getRegion().front().getOperations().size() < 2)
    return emitOpError() << "match region must contain at least one operation";
  return success();
}

DiagnosedSilenceableFailure
IreeMatchCastCompatibleTypeOp::matchValue(Value current, transform::TransformResults &results,
                                          transform::TransformState &state) {
  Type target = getTargetType();
  if (auto tensor = dyn_cast<RankedTensorType>(target)) {
    if (!castsToTensorType(current.getType(), tensor))
      return emitSilenceableError()
             << "type " << current.getType() << " is not castable to " << tensor;
    return DiagnosedSilenceableFailure::success();
  }
  if (current.getType() != target)
    return emitSilenceableError() << "type " << current.getType() << " does not match " << target;
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure IreeMatchDimBoundsOp::matchValue(Value current,
                                                             transform::TransformResults &results,
                                                             transform::TransformState &state) {
  auto shaped = dyn_cast<ShapedType>(current.getType());
  if (!shaped)
    return emitSilenceableError() << "type " << current.getType() << " is not a shaped type";
  int64_t dim = getDim();
  if (dim >= shaped.getRank())
    return emitSilenceableError() << "dim " << dim << " out of range for shaped type " << shaped;
  if (std::optional<int64_t> lower = getLowerBound()) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::LB, {current, dim}, /*stopCondition=*/nullptr,
        /*closedUB=*/true);
    if (failed(bound))
      return emitSilenceableError() << "failed to compute constant lower bound for dim " << dim;
    if (*lower > *bound)
      return emitSilenceableError() << "dim " << dim << " is not >= " << *lower;
  }
  if (std::optional<int64_t> upper = getUpperBound()) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, {current, dim}, /*stopCondition=*/nullptr,
        /*closedUB=*/true);
    if (failed(bound))
      return emitSilenceableError() << "failed to compute constant upper bound for dim " << dim;
    if (*upper < *bound)
      return emitSilenceableError() << "dim " << dim << " is not <= " << *upper;
  }
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
IreeMatchDimIsMultipleOfOp::matchValue(Value current, transform::TransformResults &results,
                                       transform::TransformState &state) {
  MLIRContext *context = current.getContext();
  auto shaped = dyn_cast<ShapedType>(current.getType());
  if (!shaped)
    return emitSilenceableError() << "type " << current.getType() << " is not a shaped type";
  int64_t dim = getDim();
  if (dim >= shaped.getRank())
    return emitSilenceableError() << "dim " << dim << " out of range for shaped type " << shaped;
  int64_t size = getSize();
  // dim mod size == 0, as a value-bounds equality.
  AffineMap modulo = AffineMap::get(
      /*dimCount=*/0, /*symbolCount=*/1,
      getAffineSymbolExpr(0, context) % getAffineConstantExpr(size, context));
  ValueBoundsConstraintSet::Variable remainder(
      modulo, ArrayRef<ValueBoundsConstraintSet::Variable>{{current, dim}});
  Builder builder(context);
  FailureOr<bool> equal =
      ValueBoundsConstraintSet::areEqual(remainder, OpFoldResult{builder.getIndexAttr(0)});
  if (failed(equal) || !*equal)
    return emitSilenceableError() << "dim " << dim << " of shaped type " << shaped
                                  << " is not a multiple of " << size;
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure IreeMatchRegionsOp::matchOperation(Operation *current,
                                                               transform::TransformResults &,
                                                               transform::TransformState &) {
  IRMapping mapping;
  return compareRegions(*this, mapping, &getRegion().front().front(), current);
}

LogicalResult IreeMatchRegionsOp::verify() {
  Block &body = getRegion().front();
  if (body.getOperations().size() != 2)
    return emitOpError() << "match region must contain exactly one operation";
  if (body.front().getNumRegions() == 0)
    return emitOpError()
           << "contained operation for comparison must have at least one region";
  return success();
}

DiagnosedSilenceableFailure
IreeMatchContractionOp::matchOperation(Operation *current, transform::TransformResults &results,
                                       transform::TransformState &state) {
  Location loc = current->getLoc();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(current);
  if (!linalgOp)
    return emitSilenceableFailure(loc) << "Operation is not a LinalgOp.";
  if (!linalg::isaContractionOpInterface(linalgOp))
    return emitSilenceableFailure(loc) << "Operation is not a contraction operation.";
  DiagnosedSilenceableFailure diag = compareLinalgOperands(
      loc, linalgOp, getLhsType(), getRhsType(), getOutputType(), getIndexingMaps());
  if (!diag.succeeded())
    return diag;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(linalgOp);
  if (failed(dims))
    return emitSilenceableFailure(loc) << "Operation is not a contraction operation.";
  SmallVector<int64_t> domain = linalgOp.getStaticLoopRanges();
  Builder builder(getContext());
  results.setParams(cast<OpResult>(getBatchDims()), sizesOf(builder, domain, dims->batch));
  results.setParams(cast<OpResult>(getMDims()), sizesOf(builder, domain, dims->m));
  results.setParams(cast<OpResult>(getNDims()), sizesOf(builder, domain, dims->n));
  results.setParams(cast<OpResult>(getKDims()), sizesOf(builder, domain, dims->k));
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
IreeMatchConvolutionOp::matchOperation(Operation *current, transform::TransformResults &results,
                                       transform::TransformState &state) {
  Location loc = current->getLoc();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(current);
  if (!linalgOp)
    return emitSilenceableFailure(loc) << "Operation is not a LinalgOp.";
  if (!linalg::isaConvolutionOpInterface(linalgOp))
    return emitSilenceableFailure(loc) << "Operation is not a convolution operation.";
  DiagnosedSilenceableFailure diag = compareLinalgOperands(
      loc, linalgOp, getLhsType(), getRhsType(), getOutputType(), getIndexingMaps());
  if (!diag.succeeded())
    return diag;
  FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(linalgOp);
  if (failed(dims))
    return emitSilenceableFailure(loc) << "Failed to infer convolution dimensions.";
  SmallVector<int64_t> domain = linalgOp.getStaticLoopRanges();
  Builder builder(getContext());
  results.setParams(cast<OpResult>(getBatchDims()), sizesOf(builder, domain, dims->batch));
  results.setParams(cast<OpResult>(getOutputImageDims()),
                    sizesOf(builder, domain, dims->outputImage));
  results.setParams(cast<OpResult>(getOutputChannelDims()),
                    sizesOf(builder, domain, dims->outputChannel));
  results.setParams(cast<OpResult>(getFilterDims()), sizesOf(builder, domain, dims->filterLoop));
  results.setParams(cast<OpResult>(getInputChannelDims()),
                    sizesOf(builder, domain, dims->inputChannel));
  results.setParams(cast<OpResult>(getDepthDims()), sizesOf(builder, domain, dims->depth));
  results.setParams(cast<OpResult>(getStrides()), i64Params(builder, dims->strides));
  results.setParams(cast<OpResult>(getDilations()), i64Params(builder, dims->dilations));
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
IreeMatchAttentionOp::matchOperation(Operation *current, transform::TransformResults &results,
                                     transform::TransformState &state) {
  Location loc = current->getLoc();
  std::optional<AttentionView> view = AttentionView::get(current, /*online=*/false);
  if (!view)
    return emitSilenceableFailure(loc) << "Operation is not an attention operation.";
  for (auto [what, operand, expected] :
       {std::make_tuple("Query", view->query, getQueryType()),
        std::make_tuple("Key", view->key, getKeyType()),
        std::make_tuple("Value", view->value, getValueType()),
        std::make_tuple("Output", view->output, getOutputType())}) {
    DiagnosedSilenceableFailure diag = checkElementType(loc, what, operand, expected);
    if (!diag.succeeded())
      return diag;
  }
  if (view->indexingMaps != getIndexingMaps())
    return emitSilenceableFailure(loc) << "indexing maps don't match";
  std::optional<AttentionDims> dims = inferAttentionDims(*view);
  if (!dims)
    return emitSilenceableFailure(loc) << "Failed to infer attention dimensions";
  Builder builder(getContext());
  setAttentionResults(builder, results, *view, *dims, getBatchDims(), getMDims(), getNDims(),
                      getK1Dims(), getK2Dims());
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
IreeMatchOnlineAttentionOp::matchOperation(Operation *current,
                                           transform::TransformResults &results,
                                           transform::TransformState &state) {
  Location loc = current->getLoc();
  std::optional<AttentionView> view = AttentionView::get(current, /*online=*/true);
  if (!view)
    return emitSilenceableFailure(loc) << "Operation is not an online_attention operation.";
  if (view->mask)
    return emitSilenceableFailure(loc) << "Masked online_attention operations are not supported.";
  for (auto [what, operand, expected] :
       {std::make_tuple("Query", view->query, getQueryType()),
        std::make_tuple("Key", view->key, getKeyType()),
        std::make_tuple("Value", view->value, getValueType()),
        std::make_tuple("Scale", view->scale, getScaleType()),
        std::make_tuple("Output", view->output, getOutputType()),
        std::make_tuple("Max", view->max, getMaxType()),
        std::make_tuple("Sum", view->sum, getSumType())}) {
    DiagnosedSilenceableFailure diag = checkElementType(loc, what, operand, expected);
    if (!diag.succeeded())
      return diag;
  }
  if (view->indexingMaps != getIndexingMaps())
    return emitSilenceableFailure(loc) << "indexing maps don't match";
  std::optional<AttentionDims> dims = inferAttentionDims(*view);
  if (!dims)
    return emitSilenceableFailure(loc) << "Failed to infer online_attention dimensions";
  Builder builder(getContext());
  setAttentionResults(builder, results, *view, *dims, getBatchDims(), getMDims(), getNDims(),
                      getK1Dims(), getK2Dims());
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure IreeMatchDimsEqualOp::apply(transform::TransformRewriter &,
                                                        transform::TransformResults &,
                                                        transform::TransformState &state) {
  ArrayRef<transform::Param> actual = state.getParams(getDimensionSizes());
  ArrayRef<int64_t> expected = getExpectedValues();
  bool equal = actual.size() == expected.size();
  for (size_t i = 0; equal && i < actual.size(); ++i) {
    if (expected[i] == -1)
      continue;
    auto size = dyn_cast<IntegerAttr>(actual[i]);
    equal = size && size.getInt() == expected[i];
  }
  if (!equal)
    return emitSilenceableError() << "Dimension sizes do not match";
  return DiagnosedSilenceableFailure::success();
}

void IreeMatchDimsEqualOp::getEffects(SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getDimensionSizesMutable(), effects);
}

DiagnosedSilenceableFailure
IreeMatchHasNoLoweringConfigOp::matchOperation(Operation *current, transform::TransformResults &,
                                               transform::TransformState &) {
  if (hasIreeConfig(current))
    return emitSilenceableError() << "payload has a lowering config or compilation info.";
  return DiagnosedSilenceableFailure::success();
}

namespace {
class IreeMatchExtension : public transform::TransformDialectExtension<IreeMatchExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(IreeMatchExtension)
  using Base::Base;

  void init() {
    registerTransformOps<
#define GET_OP_LIST
#include "iree_match_ops.cpp.inc"
        >();
  }
};
} // namespace
} // namespace tunespec::iree

#define GET_OP_CLASSES
#include "iree_match_ops.cpp.inc"

extern "C" {
// Adds the extension to `registry`: contexts created from it afterwards know the ops (the
// extension applies when the context loads the transform dialect).
void tunespecRegisterIreeTransformExtension(MlirDialectRegistry registry) {
  unwrap(registry)->addExtensions<tunespec::iree::IreeMatchExtension>();
}

// The result groups `transform.iree.match.convolution` (kind 0: batch, output image, output
// channel, filter loop, input channel, depth, strides, dilations), `.attention` (kind 1) or
// `.online_attention` (kind 2: batch, m, n, k1, k2) produce on `operation`, computed by the very
// code the ops run, for the native matcher. `counts[i]` gets each group's size and `out` the
// values, group after group (at most `capacity`; dynamic sizes are i64::MIN). Returns the total,
// or -1 when the op is not of that kind (or its dims cannot be inferred, or it is a masked
// online attention): where the op itself fails silenceably whatever its other operands say.
intptr_t tunespecIreeMatchDims(MlirOperation operation, int kind, int64_t *out,
                               intptr_t capacity, intptr_t *counts) {
  using namespace mlir;
  using namespace tunespec::iree;
  Operation *op = unwrap(operation);
  SmallVector<SmallVector<int64_t>> groups;
  auto sizes = [](ArrayRef<int64_t> domain, ArrayRef<unsigned> dims) {
    return llvm::map_to_vector(dims, [&](unsigned dim) { return domain[dim]; });
  };
  if (kind == 0) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalg::isaConvolutionOpInterface(linalgOp))
      return -1;
    FailureOr<linalg::ConvolutionDimensions> dims = linalg::inferConvolutionDims(linalgOp);
    if (failed(dims))
      return -1;
    SmallVector<int64_t> domain = linalgOp.getStaticLoopRanges();
    groups.push_back(sizes(domain, dims->batch));
    groups.push_back(sizes(domain, dims->outputImage));
    groups.push_back(sizes(domain, dims->outputChannel));
    groups.push_back(sizes(domain, dims->filterLoop));
    groups.push_back(sizes(domain, dims->inputChannel));
    groups.push_back(sizes(domain, dims->depth));
    groups.push_back(SmallVector<int64_t>(dims->strides.begin(), dims->strides.end()));
    groups.push_back(SmallVector<int64_t>(dims->dilations.begin(), dims->dilations.end()));
  } else if (kind == 1 || kind == 2) {
    std::optional<AttentionView> view = AttentionView::get(op, /*online=*/kind == 2);
    if (!view || (kind == 2 && view->mask))
      return -1;
    std::optional<AttentionDims> dims = inferAttentionDims(*view);
    if (!dims)
      return -1;
    SmallVector<int64_t> domain = attentionLoopRanges(*view);
    for (const SmallVector<unsigned> *group : {&dims->batch, &dims->m, &dims->n, &dims->k1, &dims->k2})
      groups.push_back(sizes(domain, *group));
  } else {
    return -1;
  }
  intptr_t total = 0;
  for (auto [index, group] : llvm::enumerate(groups)) {
    counts[index] = static_cast<intptr_t>(group.size());
    for (int64_t value : group) {
      if (total < capacity)
        out[total] = value;
      ++total;
    }
  }
  return total;
}
}
