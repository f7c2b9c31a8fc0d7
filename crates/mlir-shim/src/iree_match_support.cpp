// The helpers of IREE's matcher ops (iree_match_ops.cpp), apart from the ops so that neither file
// grows past what one reads in a sitting: the structural equivalence of regions IREE's `regions`
// and dag matchers use, the comparisons of operands and types, IREE's attention ops read from
// their generic form, and IREE's configuration attributes. Declared in iree_match_support.h.
#include "iree_match_support.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/RegionGraphTraits.h"

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

} // namespace

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

// The operands and maps of `op`, or none when it is not an `(online_)attention` of that form.
std::optional<AttentionView> AttentionView::get(Operation *op, bool online) {
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

namespace {

//===----------------------------------------------------------------------===//
// IREE's configuration attributes, seen as opaque attributes.
//===----------------------------------------------------------------------===//

// The mnemonic of an opaque attribute `#dialect.mnemonic<...>`.
StringRef opaqueMnemonic(OpaqueAttr attr) {
  StringRef data = attr.getAttrData();
  size_t end = data.find_if_not([](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
  return data.take_front(end);
}
} // namespace

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

} // namespace tunespec::iree
