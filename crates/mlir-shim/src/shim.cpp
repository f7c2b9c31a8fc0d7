// The MLIR C++ entry points that the C API (mlir-c) does not expose and tunespec needs.
//
// Kept minimal on purpose: each function wraps one C++ call and uses only C types at its
// boundary, so the Rust side (tunespec-core's src/mlir/) stays the one place that reasons about
// handles and lifetimes.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

namespace {

// Measures attributes, types, locations and affine expressions without recursion: how deep they
// nest, and how many nodes they expand to when printed as a tree. This runs before anything that
// recurses over them or prints them (the printer, the verifier, walks, the bytecode writer), on
// IR that may be arbitrarily deep (aliases such as `#a1 = [#a0]` nest without brackets;
// `d0 + d0 + ...` is a left-deep affine tree) or exponentially large once expanded (aliases
// sharing sub-elements: `!t1 = (!t0) -> !t0` doubles per level, "billion laughs"; mlir-opt
// prints gigabytes for 30 such lines).
class DepthMeter {
public:
  struct Measure {
    int32_t depth; // -1 while the node is open (on the current path)
    uint64_t size; // nodes of the expanded tree, saturating
  };

  explicit DepthMeter(int32_t limit) : limit(limit) {}

  // An attribute (a location is one) or a type; stops early once deeper than the limit.
  Measure attribute(mlir::Attribute attr) { return measure(Node::of(attr)); }
  Measure type(mlir::Type type) { return measure(Node::of(type)); }

  // What `attribute(op->getAttrDictionary())` gives, without building that dictionary: for an
  // op with properties, `getAttrDictionary` uniques a new DictionaryAttr per op (a quarter of
  // this walk's time). A dictionary's sub-elements are its names and values, so its measure is
  // one more level than the deepest of them and one node more than their sum.
  Measure attributes(mlir::Operation *op) {
    mlir::NamedAttrList list(op->getDiscardableAttrDictionary());
    op->getName().populateInherentAttrs(op, list);
    Measure result{0, 1};
    for (const mlir::NamedAttribute &named : list) {
      for (Measure child : {attribute(named.getName()), attribute(named.getValue())}) {
        result.depth = std::max(result.depth, child.depth);
        result.size = add(result.size, child.size);
      }
    }
    result.depth += 1;
    return result;
  }

private:
  // Attribute and type storages, and affine expression storages, are distinct uniqued objects,
  // so one map keyed by their addresses serves all three.
  struct Node {
    enum Kind : uint8_t { Attr, Type, Expr } kind;
    const void *ptr;
    static Node of(mlir::Attribute a) { return {Attr, a.getAsOpaquePointer()}; }
    static Node of(mlir::Type t) { return {Type, t.getAsOpaquePointer()}; }
    static Node of(mlir::AffineExpr e) { return {Expr, e.getAsOpaquePointer()}; }
  };

  template <typename Fn> static void forEachChild(Node node, Fn &&fn) {
    switch (node.kind) {
    case Node::Attr: {
      auto attr = mlir::Attribute::getFromOpaquePointer(node.ptr);
      attr.walkImmediateSubElements([&](mlir::Attribute a) { fn(Node::of(a)); },
                                    [&](mlir::Type t) { fn(Node::of(t)); });
      if (auto map = llvm::dyn_cast<mlir::AffineMapAttr>(attr)) {
        for (mlir::AffineExpr e : map.getValue().getResults())
          fn(Node::of(e));
      } else if (auto set = llvm::dyn_cast<mlir::IntegerSetAttr>(attr)) {
        for (mlir::AffineExpr e : set.getValue().getConstraints())
          fn(Node::of(e));
      }
      break;
    }
    case Node::Type:
      mlir::Type::getFromOpaquePointer(node.ptr).walkImmediateSubElements(
          [&](mlir::Attribute a) { fn(Node::of(a)); }, [&](mlir::Type t) { fn(Node::of(t)); });
      break;
    case Node::Expr: {
      auto expr = mlir::AffineExpr::getFromOpaquePointer(node.ptr);
      if (auto binary = llvm::dyn_cast<mlir::AffineBinaryOpExpr>(expr)) {
        fn(Node::of(binary.getLHS()));
        fn(Node::of(binary.getRHS()));
      }
      break;
    }
    }
  }

  static uint64_t add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

  // Longest path and expanded size from `root` in the DAG, by an explicit-stack post-order walk
  // with memoized results (shared sub-elements are walked once). A node still open when met
  // again closes a cycle (mutable types can refer to themselves) and counts as empty there.
  Measure measure(Node root) {
    if (auto it = memo.find(root.ptr); it != memo.end())
      return it->second.depth < 0 ? Measure{0, 0} : it->second;
    stack.clear();
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      stack.pop_back();
      if (!expanded) {
        if (memo.count(node.ptr))
          continue;
        memo[node.ptr] = {-1, 0};
        stack.push_back({node, true});
        forEachChild(node, [&](Node child) {
          if (!memo.count(child.ptr))
            stack.push_back({child, false});
        });
        continue;
      }
      Measure result{0, 1};
      forEachChild(node, [&](Node child) {
        auto it = memo.find(child.ptr);
        if (it == memo.end() || it->second.depth < 0)
          return;
        result.depth = std::max(result.depth, it->second.depth);
        result.size = add(result.size, it->second.size);
      });
      result.depth += 1;
      memo[node.ptr] = result;
      if (result.depth > limit)
        return result;
    }
    return memo[root.ptr];
  }

  int32_t limit;
  llvm::DenseMap<const void *, Measure> memo;
  std::vector<std::pair<Node, bool>> stack;
};

} // namespace

extern "C" {

// MLIR attaches "see current operation: <op>" to diagnostics by printing the op, and printing
// verifies it. A verifier that warns (foreach_match listing one matcher twice) then recurses
// until the stack overflows (MLIR 22). tunespec reports its own locations, so it turns this off.
void tunespecContextSetPrintOpOnDiagnostic(MlirContext context, bool enable) {
  unwrap(context)->printOpOnDiagnostic(enable);
}

// Parses text or bytecode WITHOUT running the verifier, so that tunespec's own rules can see IR
// that MLIR's verifier would reject and report every problem, not only the verifier's first.
// Top-level ops other than one module are wrapped in an implicit module, exactly as mlir-opt
// does, so that tunespec accepts and rejects the same inputs as the reference tool.
MlirOperation tunespecParseUnverified(MlirContext context, MlirStringRef source,
                                      MlirStringRef sourceName) {
  mlir::ParserConfig config(unwrap(context), /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
      unwrap(source), config, unwrap(sourceName));
  if (!module)
    return MlirOperation{nullptr};
  return wrap(module.release().getOperation());
}

// The bytes an attribute carries: the raw data of a dense elements attribute (i8 vector or
// tensor), the blob of a dense_resource attribute, or a string attribute's value. These are the
// three forms IREE's reader accepts for `iree_codegen.tuning_spec_mlirbc`. Returns false for
// any other attribute, or a dense_resource whose blob is missing (e.g. elided).
bool tunespecAttributeBytes(MlirAttribute attribute, const char **data, intptr_t *length) {
  mlir::Attribute attr = unwrap(attribute);
  if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(attr)) {
    if (dense.isSplat() && dense.getNumElements() != 1)
      return false;  // a splat stores one element; the caller wants every byte
    llvm::ArrayRef<char> raw = dense.getRawData();
    *data = raw.data();
    *length = static_cast<intptr_t>(raw.size());
    return true;
  }
  if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(attr)) {
    mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return false;
    llvm::ArrayRef<char> raw = blob->getData();
    *data = raw.data();
    *length = static_cast<intptr_t>(raw.size());
    return true;
  }
  if (auto string = llvm::dyn_cast<mlir::StringAttr>(attr)) {
    *data = string.getValue().data();
    *length = static_cast<intptr_t>(string.getValue().size());
    return true;
  }
  return false;
}

// The static loop ranges of a linalg structured op (dynamic ones as INT64_MIN, like
// ShapedType::kDynamic). Returns the number of loops, or -1 when the op is not a LinalgOp.
// Writes at most `capacity` values.
intptr_t tunespecLinalgLoopRanges(MlirOperation operation, int64_t *out, intptr_t capacity) {
  auto linalgOp = llvm::dyn_cast<mlir::linalg::LinalgOp>(unwrap(operation));
  if (!linalgOp)
    return -1;
  llvm::SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  for (intptr_t i = 0; i < static_cast<intptr_t>(ranges.size()) && i < capacity; ++i)
    out[i] = ranges[i];
  return static_cast<intptr_t>(ranges.size());
}

// The number of DPS inputs of a linalg structured op (its inits follow), or -1.
intptr_t tunespecLinalgNumDpsInputs(MlirOperation operation) {
  auto linalgOp = llvm::dyn_cast<mlir::linalg::LinalgOp>(unwrap(operation));
  if (!linalgOp)
    return -1;
  return static_cast<intptr_t>(linalgOp.getNumDpsInputs());
}

// All attributes of an operation (inherent and discardable) as one dictionary. The C API's
// per-index accessor rebuilds this dictionary on every call for ops with properties (most ops
// now), which made reading k attributes cost k+1 dictionary constructions.
MlirAttribute tunespecOperationGetAttrDictionary(MlirOperation operation) {
  return wrap(mlir::Attribute(unwrap(operation)->getAttrDictionary()));
}

// Finds the first operation (in pre-order) that nests deeper than `limit`: operations inside
// regions (`*kind` = 0), or its attributes, location, result types or block arguments' types and
// locations (`*kind` = 1); or the op at which the attributes, types and locations of the ops so
// far expand, printed as trees, to more than `budget` nodes (`*kind` = 2); or an op with a null
// operand (`*kind` = 3, see below). Returns a null operation when there is none. Never recurses,
// so it is safe on IR that MLIR's own recursive walkers could not handle (see DepthMeter).
//
// Null operands: MLIR 22's parser returns IR with null operands, without an error, when an
// operand is a forward reference that a block argument or op inside the op's own regions
// defines (`linalg.generic ins(%a ...) { ^bb0(%a: ...): ...}` after a mutation, or the body of
// `cast_compatible_dag_from_root` pasted into its generic): custom parsers resolve operands into
// an OperationState before they parse the regions, the definition replaces the uses of the
// forward reference (the state's copy is not a use), and the reference is dropped at the end of
// the parse, leaving its former users with null values. Only MLIR's verifier checks for them;
// every C API accessor (type, owner, block-argument test) dereferences them. So parsed IR is
// checked here, before anything reads an operand.
MlirOperation tunespecFindTooDeep(MlirOperation root, intptr_t limit, uint64_t budget, int *kind) {
  DepthMeter meter(static_cast<int32_t>(limit));
  uint64_t total = 0;
  bool deep = false;
  auto count = [&](DepthMeter::Measure measure) {
    deep = deep || measure.depth > limit;
    total = measure.size > UINT64_MAX - total ? UINT64_MAX : total + measure.size;
  };
  std::vector<std::pair<mlir::Operation *, intptr_t>> ops{{unwrap(root), 1}};
  while (!ops.empty()) {
    auto [op, level] = ops.back();
    ops.pop_back();
    if (level > limit) {
      *kind = 0;
      return wrap(op);
    }
    for (mlir::Value operand : op->getOperands())
      if (!operand) {
        *kind = 3;
        return wrap(op);
      }
    count(meter.attributes(op));
    count(meter.attribute(op->getLoc()));
    for (mlir::Type type : op->getResultTypes())
      count(meter.type(type));
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments()) {
          count(meter.type(arg.getType()));
          count(meter.attribute(arg.getLoc()));
        }
    if (deep || total > budget) {
      *kind = deep ? 1 : 2;
      return wrap(op);
    }
    // Children pushed in reverse so that they are visited in order.
    for (mlir::Region &region : llvm::reverse(op->getRegions()))
      for (mlir::Block &block : llvm::reverse(region))
        for (mlir::Operation &child : llvm::reverse(block))
          ops.push_back({&child, level + 1});
  }
  return MlirOperation{nullptr};
}

// Rewrites, under `root`, the named linalg ops that IREE's dispatch formation turns into
// `linalg.generic` before configs are materialized (IREE 3.13's global optimization generalizes
// contractions, convolutions and a fixed list of elementwise / data-movement ops; `linalg.fill`
// and ops already generic stay). Discardable attributes are carried over, so a caller can tag
// ops before and find them after. Returns the number of ops rewritten, or -1 when one failed
// (the IR is then partly rewritten; callers work on a copy).
intptr_t tunespecGeneralizeLikeIree(MlirOperation root) {
  llvm::SmallVector<mlir::linalg::LinalgOp> candidates;
  unwrap(root)->walk([&](mlir::linalg::LinalgOp op) {
    mlir::Operation *raw = op.getOperation();
    // Measured with iree-compile 3.13: these contractions stay named in a dispatch.
    if (llvm::isa<mlir::linalg::GenericOp, mlir::linalg::ContractOp, mlir::linalg::Mmt4DOp,
                  mlir::linalg::BatchMmt4DOp, mlir::linalg::BatchMatvecOp,
                  mlir::linalg::BatchVecmatOp, mlir::linalg::BatchReduceMatmulOp>(raw))
      return;
    if (mlir::linalg::isaContractionOpInterface(op) ||
        mlir::linalg::isaConvolutionOpInterface(op) ||
        llvm::isa<mlir::linalg::AbsOp, mlir::linalg::AddOp, mlir::linalg::BroadcastOp,
                  mlir::linalg::CeilOp, mlir::linalg::CopyOp, mlir::linalg::DivOp,
                  mlir::linalg::DivUnsignedOp, mlir::linalg::ExpOp, mlir::linalg::FloorOp,
                  mlir::linalg::LogOp, mlir::linalg::MapOp, mlir::linalg::MaxOp,
                  mlir::linalg::MulOp, mlir::linalg::NegFOp, mlir::linalg::ReduceOp,
                  mlir::linalg::SubOp, mlir::linalg::TransposeOp>(raw))
      candidates.push_back(op);
  });
  mlir::IRRewriter rewriter(unwrap(root)->getContext());
  intptr_t rewritten = 0;
  for (mlir::linalg::LinalgOp op : candidates) {
    llvm::SmallVector<mlir::NamedAttribute> discardable(op->getDiscardableAttrs());
    rewriter.setInsertionPoint(op);
    mlir::FailureOr<mlir::linalg::GenericOp> generic =
        mlir::linalg::generalizeNamedOp(rewriter, op);
    if (mlir::failed(generic))
      return -1;
    for (const mlir::NamedAttribute &attr : discardable)
      (*generic)->setDiscardableAttr(attr.getName(), attr.getValue());
    ++rewritten;
  }
  return rewritten;
}

// The loop ranges of a contraction's batch, m, n and k dimensions, as IREE's
// `transform.iree.match.contraction` reports them: `counts[0..4]` get each group's size and
// `out` the ranges, group after group (dynamic: i64::MIN). Returns the total, or -1 when the op
// is not a linalg contraction (`isaContractionOpInterface`).
intptr_t tunespecContractionDims(MlirOperation operation, int64_t *out, intptr_t capacity,
                                 intptr_t *counts) {
  auto linalgOp = llvm::dyn_cast<mlir::linalg::LinalgOp>(unwrap(operation));
  if (!linalgOp || !mlir::linalg::isaContractionOpInterface(linalgOp))
    return -1;
  mlir::FailureOr<mlir::linalg::ContractionDimensions> dims =
      mlir::linalg::inferContractionDims(linalgOp);
  if (mlir::failed(dims))
    return -1;
  llvm::SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  const llvm::SmallVector<unsigned, 2> *groups[4] = {&dims->batch, &dims->m, &dims->n, &dims->k};
  intptr_t total = 0;
  for (int group = 0; group < 4; ++group) {
    counts[group] = static_cast<intptr_t>(groups[group]->size());
    for (unsigned dim : *groups[group]) {
      if (total < capacity)
        out[total] = ranges[dim];
      ++total;
    }
  }
  return total;
}

// The indexing maps of a linalg op (named ops included: their implicit maps) or of IREE's
// attention ops (their `indexing_maps` attribute, what `transform.iree.match.attention`
// compares), or null.
MlirAttribute tunespecLinalgIndexingMaps(MlirOperation operation) {
  mlir::Operation *op = unwrap(operation);
  auto linalgOp = llvm::dyn_cast<mlir::linalg::LinalgOp>(op);
  if (!linalgOp) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name != "iree_linalg_ext.attention" && name != "iree_linalg_ext.online_attention")
      return MlirAttribute{nullptr};
    return wrap(mlir::Attribute(llvm::dyn_cast_or_null<mlir::ArrayAttr>(op->getAttr("indexing_maps"))));
  }
  return wrap(mlir::Attribute(linalgOp.getIndexingMaps()));
}
}
