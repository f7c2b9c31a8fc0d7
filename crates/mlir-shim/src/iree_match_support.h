// The helpers iree_match_ops.cpp shares with iree_match_support.cpp (where each is defined and
// described): comparisons of payload ops with the spec's, and IREE's attention ops read from
// their generic (unregistered) form.
#pragma once

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace tunespec::iree {

using namespace mlir;

// `iree_linalg_ext.attention` has operands (query, key, value, scale, [mask], output) and
// `iree_linalg_ext.online_attention` (query, key, value, scale, [mask], output, max, sum); both
// carry `indexing_maps`, one map per operand, as an inherent attribute (generic form
// `<{indexing_maps = [...]}>`, kept as the properties of the unregistered op) or, written by
// hand, as a discardable one. `op->getAttr` finds either.
struct AttentionView {
  Value query, key, value, scale, mask, output, max, sum;
  ArrayAttr indexingMaps;
  SmallVector<AffineMap> maps;

  static std::optional<AttentionView> get(Operation *op, bool online);

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

DiagnosedSilenceableFailure compareRegions(transform::TransformOpInterface transformOp,
                                           IRMapping &mapping, Operation *target,
                                           Operation *payload);
bool castsToTensorType(Type from, RankedTensorType to);
DiagnosedSilenceableFailure compareUpToCasts(transform::TransformOpInterface transformOp,
                                             Operation *target, Operation *payload);
SmallVector<Attribute> sizesOf(Builder &builder, ArrayRef<int64_t> domain,
                               ArrayRef<unsigned> dims);
SmallVector<Attribute> i64Params(Builder &builder, ArrayRef<int64_t> values);
DiagnosedSilenceableFailure compareLinalgOperands(Location loc, linalg::LinalgOp linalgOp,
                                                  Type lhs, Type rhs, Type output,
                                                  std::optional<ArrayAttr> maps);
std::optional<AttentionDims> inferAttentionDims(const AttentionView &view);
SmallVector<int64_t> attentionLoopRanges(const AttentionView &view);
DiagnosedSilenceableFailure checkElementType(Location loc, StringRef what, Value operand,
                                             Type expected);
void setAttentionResults(Builder &builder, transform::TransformResults &results,
                         const AttentionView &view, const AttentionDims &dims, Value batch,
                         Value m, Value n, Value k1, Value k2);
bool hasIreeConfig(Operation *op);

} // namespace tunespec::iree
