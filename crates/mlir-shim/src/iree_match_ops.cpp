// IREE's tuning-spec matcher ops (`transform.iree.match.*`) as a transform dialect extension,
// so that tunespec parses, verifies, serializes and interprets IREE specs as IREE 3.13 does.
//
// The ops are declared in iree_match_ops.td; this file gives them IREE's semantics, written for
// tunespec's contexts, where IREE's own dialects are NOT registered: IREE ops in a payload
// (`iree_linalg_ext.attention`, ...) and IREE attributes (`#iree_codegen.compilation_info<...>`)
// are unregistered ops and opaque attributes, so they are recognized by name and read from their
// generic form. Every silenceable failure carries the message IREE gives in the same case.
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

namespace tunespec::iree {
namespace {

//===----------------------------------------------------------------------===//
// Structural equivalence of regions (IREE's rule for `regions` and the dag matcher).
//===----------------------------------------------------------------------===//
//
// Two regions are equivalent when their blocks, taken in reverse post-order from each block in
// turn, pair up with equal argument types and equal op counts, and the ops pair up with equal
// names, operand / result / region / successor counts, equal attributes (inherent ones
// included; symbol names and `function_ref` may differ but still count), equal result and
// operand types, operands that correspond through the mapping built so far, and equivalent
// regions (a fresh mapping below an op isolated from above, a copy of the outer one otherwise).

bool equivalentRegions(Region &lhs, Region &rhs, IRMapping &mapping);

// The attributes compared for an op: its discardable ones, then its inherent ones.
NamedAttrList comparedAttributes(Operation &op) {
  NamedAttrList attrs(op.getRawDictionaryAttrs().getValue());
  if (op.getPropertiesStorageSize())
    op.getName().populateInherentAttrs(&op, attrs);
  return attrs;
}

bool equivalentOps(Operation &lhs, Operation &rhs, IRMapping &mapping) {
  if (lhs.getName() != rhs.getName() || lhs.getNumOperands() != rhs.getNumOperands() ||
      lhs.getNumResults() != rhs.getNumResults() ||
      lhs.getNumRegions() != rhs.getNumRegions() ||
      lhs.getNumSuccessors() != rhs.getNumSuccessors())
    return false;
  NamedAttrList lhsAttrs = comparedAttributes(lhs);
  NamedAttrList rhsAttrs = comparedAttributes(rhs);
  if (lhsAttrs.getAttrs().size() != rhsAttrs.getAttrs().size())
    return false;
  StringRef symbolName = SymbolTable::getSymbolAttrName();
  for (auto [l, r] : llvm::zip_equal(lhsAttrs, rhsAttrs)) {
    StringRef name = l.getName().getValue();
    if (name == "function_ref" || name == symbolName)
      continue;
    if (l != r)
      return false;
  }
  for (auto [l, r] : llvm::zip_equal(lhs.getSuccessors(), rhs.getSuccessors()))
    if (mapping.lookupOrNull(l) != r)
      return false;
  for (auto [l, r] : llvm::zip_equal(lhs.getResults(), rhs.getResults())) {
    if (l.getType() != r.getType())
      return false;
    mapping.map(l, r);
  }
  for (auto [l, r] : llvm::zip_equal(lhs.getOperands(), rhs.getOperands())) {
    if (l.getType() != r.getType())
      return false;
    if (mapping.lookupOrNull(l) != r)
      return false;
  }
  for (auto [l, r] : llvm::zip_equal(lhs.getRegions(), rhs.getRegions())) {
    if (lhs.hasTrait<OpTrait::IsIsolatedFromAbove>()) {
      IRMapping scoped;
      if (!equivalentRegions(l, r, scoped))
        return false;
    } else {
      IRMapping copy = mapping;
      if (!equivalentRegions(l, r, copy))
        return false;
    }
  }
  return true;
}

llvm::SetVector<Block *> orderedBlocks(Region &region) {
  llvm::SetVector<Block *> blocks;
  for (Block &block : region.getBlocks()) {
    llvm::ReversePostOrderTraversal<Block *> traversal(&block);
    blocks.insert(traversal.begin(), traversal.end());
  }
  return blocks;
}

bool equivalentRegions(Region &lhs, Region &rhs, IRMapping &mapping) {
  llvm::SetVector<Block *> lhsBlocks = orderedBlocks(lhs);
  llvm::SetVector<Block *> rhsBlocks = orderedBlocks(rhs);
  if (lhsBlocks.size() != rhsBlocks.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhsBlocks, rhsBlocks)) {
    if (l->getNumArguments() != r->getNumArguments())
      return false;
    for (auto [la, ra] : llvm::zip_equal(l->getArguments(), r->getArguments())) {
      if (la.getType() != ra.getType())
        return false;
      mapping.map(la, ra);
    }
    mapping.map(l, r);
  }
  for (auto [l, r] : llvm::zip_equal(lhsBlocks, rhsBlocks)) {
    if (l->getOperations().size() != r->getOperations().size())
      return false;
    for (auto [lo, ro] : llvm::zip_equal(l->getOperations(), r->getOperations()))
      if (!equivalentOps(lo, ro, mapping))
        return false;
  }
  return true;
}

// Compares the regions of `target` (from the spec) with those of `payload`.
DiagnosedSilenceableFailure compareRegions(transform::TransformOpInterface transformOp,
                                           IRMapping &mapping, Operation *target,
                                           Operation *payload) {
  if (target->getNumRegions() != payload->getNumRegions())
    return transformOp.emitSilenceableError() << "region count mismatch";
  for (auto [t, p] : llvm::zip_equal(target->getRegions(), payload->getRegions()))
    if (!equivalentRegions(t, p, mapping))
      return transformOp.emitSilenceableError() << "target op does not match specified body";
  return DiagnosedSilenceableFailure::success();
}

// IREE's cast rule: a ranked tensor casts to a ranked tensor of the same rank and element type
// whose static sizes it has (a dynamic target size accepts any size).
bool castsToTensorType(Type from, RankedTensorType to) {
  auto tensor = dyn_cast<RankedTensorType>(from);
  if (!tensor || tensor.getRank() != to.getRank() ||
      tensor.getElementType() != to.getElementType())
    return false;
  for (auto [fromSize, toSize] : llvm::zip_equal(tensor.getShape(), to.getShape()))
    if (!ShapedType::isDynamic(toSize) && toSize != fromSize)
      return false;
  return true;
}

// Name, attributes, result and operand counts equal; operand types equal up to tensor casts.
DiagnosedSilenceableFailure compareUpToCasts(transform::TransformOpInterface transformOp,
                                             Operation *target, Operation *payload) {
  if (target->getName() != payload->getName())
    return transformOp.emitSilenceableError()
           << "target operation name " << target->getName() << " does not match payload "
           << payload->getName();
  if (target->getAttrDictionary() != payload->getAttrDictionary())
    return transformOp.emitSilenceableError()
           << "target attribute dictionary " << target->getAttrDictionary()
           << " does not match payload attribute dictionary " << payload->getAttrDictionary();
  if (target->getNumResults() != payload->getNumResults())
    return transformOp.emitSilenceableError() << "result count mismatch";
  if (target->getNumOperands() != payload->getNumOperands())
    return transformOp.emitSilenceableError() << "operand count mismatch";
  for (auto [t, p] : llvm::zip_equal(target->getOperandTypes(), payload->getOperandTypes())) {
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      if (!castsToTensorType(p, tensor))
        return transformOp.emitSilenceableError() << "operand tensor type mismatch";
    } else if (t != p) {
      return transformOp.emitSilenceableError() << "operand type mismatch";
    }
  }
  return DiagnosedSilenceableFailure::success();
}

SmallVector<Attribute> sizesOf(Builder &builder, ArrayRef<int64_t> domain,
                               ArrayRef<unsigned> dims) {
  return llvm::map_to_vector(
      dims, [&](unsigned dim) -> Attribute { return builder.getI64IntegerAttr(domain[dim]); });
}

SmallVector<Attribute> i64Params(Builder &builder, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(
      values, [&](int64_t value) -> Attribute { return builder.getI64IntegerAttr(value); });
}

// Element types and (when the spec gives them) indexing maps of a linalg contraction or
// convolution, compared exactly; the messages name the first difference.
DiagnosedSilenceableFailure compareLinalgOperands(Location loc, linalg::LinalgOp linalgOp,
                                                  Type lhs, Type rhs, Type output,
                                                  std::optional<ArrayAttr> maps) {
  Type currentLhs = getElementTypeOrSelf(linalgOp.getDpsInputs()[0]);
  if (currentLhs != lhs)
    return emitSilenceableFailure(loc)
           << "LHS type doesn't match: expected " << lhs << ", got " << currentLhs;
  Type currentRhs = getElementTypeOrSelf(linalgOp.getDpsInputs()[1]);
  if (currentRhs != rhs)
    return emitSilenceableFailure(loc)
           << "RHS type doesn't match: expected " << rhs << ", got " << currentRhs;
  Type currentOutput = getElementTypeOrSelf(linalgOp.getDpsInits()[0].getType());
  if (currentOutput != output)
    return emitSilenceableFailure(loc)
           << "output type doesn't match: expected " << output << ", got " << currentOutput;
  if (maps && linalgOp.getIndexingMaps() != *maps)
    return emitSilenceableFailure(loc) << "indexing maps don't match";
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// IREE's attention ops, read from their generic (unregistered) form.
//===----------------------------------------------------------------------===//

// `iree_linalg_ext.attention` has operands (query, key, value, scale, [mask], output) and
// `iree_linalg_ext.online_attention` (query, key, value, scale, [mask], output, max, sum); both
// carry `indexing_maps`, one map per operand, as an inherent attribute (generic form
// `<{indexing_maps = [...]}>`, kept as the properties of the unregistered op) or, written by
// hand, as a discardable one. `op->getAttr` finds either.
struct AttentionView {
  Value query, key, value, scale, mask, output, max, sum;
  ArrayAttr indexingMaps;
  SmallVector<AffineMap> maps;

  static std::optional<AttentionView> get(Operation *op, bool online) {
    if (op->getName().getStringRef() !=
        (online ? "iree_linalg_ext.online_attention" : "iree_linalg_ext.attention"))
      return std::nullopt;
    unsigned outputs = online ? 3 : 1;
    unsigned count = op->getNumOperands();
    if (count != 4 + outputs && count != 5 + outputs)
      return std::nullopt;
    AttentionView view;
    view.indexingMaps = dyn_cast_or_null<ArrayAttr>(op->getAttr("indexing_maps"));
    if (!view.indexingMaps || view.indexingMaps.size() != count)
      return std::nullopt;
    for (Attribute attr : view.indexingMaps) {
      auto map = dyn_cast<AffineMapAttr>(attr);
      if (!map)
        return std::nullopt;
      view.maps.push_back(map.getValue());
    }
    view.query = op->getOperand(0);
    view.key = op->getOperand(1);
    view.value = op->getOperand(2);
    view.scale = op->getOperand(3);
    unsigned inputs = count - outputs;
    if (inputs == 5)
      view.mask = op->getOperand(4);
    view.output = op->getOperand(inputs);
    if (online) {
      view.max = op->getOperand(inputs + 1);
      view.sum = op->getOperand(inputs + 2);
    }
    for (Value operand : {view.query, view.key, view.value, view.output}) {
      auto shaped = dyn_cast<ShapedType>(operand.getType());
      if (!shaped || !shaped.hasRank())
        return std::nullopt;
    }
    return view;
  }

  AffineMap queryMap() const { return maps[0]; }
  AffineMap keyMap() const { return maps[1]; }
  AffineMap valueMap() const { return maps[2]; }
  AffineMap outputMap() const { return maps[mask ? 5 : 4]; }
};

// IREE's dimension roles of an attention op, from the maps of Q (B x M x K1), K (B x K2 x K1),
// V (B x K2 x N) and O (B x M x N); each role's dims sorted. False when a map is not a
// projected permutation (IREE's verifier rejects such ops before any matcher sees them).
struct AttentionDims {
  SmallVector<unsigned> batch, m, n, k1, k2;
};

std::optional<AttentionDims> inferAttentionDims(const AttentionView &view) {
  auto dimsOf = [](AffineMap map) -> std::optional<llvm::SmallDenseSet<unsigned>> {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
    llvm::SmallDenseSet<unsigned> dims;
    for (AffineExpr e : map.getResults())
      dims.insert(cast<AffineDimExpr>(e).getPosition());
    return dims;
  };
  auto q = dimsOf(view.queryMap()), k = dimsOf(view.keyMap()), v = dimsOf(view.valueMap()),
       o = dimsOf(view.outputMap());
  if (!q || !k || !v || !o)
    return std::nullopt;
  unsigned rank = view.queryMap().getNumDims();
  AttentionDims dims;
  for (unsigned d = 0; d < rank; ++d) {
    bool inQ = q->contains(d), inK = k->contains(d), inV = v->contains(d), inO = o->contains(d);
    bool batch = (inQ && inV) || (inK && inO);
    bool k1 = !batch && inQ && inK;
    bool k2 = !batch && !k1 && inK;
    bool m = !batch && !k1 && inQ;
    bool n = !batch && !k2 && inV;
    if (batch)
      dims.batch.push_back(d);
    if (m)
      dims.m.push_back(d);
    if (n)
      dims.n.push_back(d);
    if (k1)
      dims.k1.push_back(d);
    if (k2)
      dims.k2.push_back(d);
  }
  return dims;
}

// Loop sizes of an attention op: each dim takes its size from the query, else from the value
// (0 when neither indexes it), as IREE's `getStaticLoopRanges`.
SmallVector<int64_t> attentionLoopRanges(const AttentionView &view) {
  unsigned rank = view.queryMap().getNumDims();
  SmallVector<int64_t> bounds(rank, 0);
  SmallVector<bool> found(rank, false);
  auto fill = [&](Value operand, AffineMap map) {
    ArrayRef<int64_t> shape = cast<ShapedType>(operand.getType()).getShape();
    for (auto [size, expr] : llvm::zip(shape, map.getResults())) {
      unsigned pos = cast<AffineDimExpr>(expr).getPosition();
      if (pos >= rank || found[pos])
        continue;
      bounds[pos] = size;
      found[pos] = true;
    }
  };
  fill(view.query, view.queryMap());
  fill(view.value, view.valueMap());
  return bounds;
}

DiagnosedSilenceableFailure checkElementType(Location loc, StringRef what, Value operand,
                                             Type expected) {
  Type current = getElementTypeOrSelf(operand.getType());
  if (current != expected)
    return emitSilenceableFailure(loc)
           << what << " type doesn't match: expected " << expected << ", got " << current;
  return DiagnosedSilenceableFailure::success();
}

void setAttentionResults(Builder &builder, transform::TransformResults &results,
                         const AttentionView &view, const AttentionDims &dims, Value batch,
                         Value m, Value n, Value k1, Value k2) {
  SmallVector<int64_t> domain = attentionLoopRanges(view);
  results.setParams(cast<OpResult>(batch), sizesOf(builder, domain, dims.batch));
  results.setParams(cast<OpResult>(m), sizesOf(builder, domain, dims.m));
  results.setParams(cast<OpResult>(n), sizesOf(builder, domain, dims.n));
  results.setParams(cast<OpResult>(k1), sizesOf(builder, domain, dims.k1));
  results.setParams(cast<OpResult>(k2), sizesOf(builder, domain, dims.k2));
}

//===----------------------------------------------------------------------===//
// IREE's configuration attributes, seen as opaque attributes.
//===----------------------------------------------------------------------===//

// The mnemonic of an opaque attribute `#dialect.mnemonic<...>`.
StringRef opaqueMnemonic(OpaqueAttr attr) {
  StringRef data = attr.getAttrData();
  size_t end = data.find_if_not([](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
  return data.take_front(end);
}

// IREE reads `lowering_config` only when it is an attribute implementing its lowering config
// interface (in IREE 3.13: `#iree_codegen.lowering_config`, `#iree_gpu.lowering_config`,
// `#iree_gpu.derived_thread_config`, `#iree_gpu.use_global_load_dma`,
// `#iree_cpu.lowering_config`), and `compilation_info` only when it is
// `#iree_codegen.compilation_info`; an attribute of another kind under those names is ignored.
bool hasIreeConfig(Operation *op) {
  if (auto config = dyn_cast_or_null<OpaqueAttr>(op->getAttr("lowering_config"))) {
    StringRef dialect = config.getDialectNamespace().getValue();
    StringRef mnemonic = opaqueMnemonic(config);
    if (((dialect == "iree_codegen" || dialect == "iree_cpu") && mnemonic == "lowering_config") ||
        (dialect == "iree_gpu" &&
         (mnemonic == "lowering_config" || mnemonic == "derived_thread_config" ||
          mnemonic == "use_global_load_dma")))
      return true;
  }
  if (auto info = dyn_cast_or_null<OpaqueAttr>(op->getAttr("compilation_info")))
    if (info.getDialectNamespace().getValue() == "iree_codegen" &&
        opaqueMnemonic(info) == "compilation_info")
      return true;
  return false;
}

} // namespace

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
