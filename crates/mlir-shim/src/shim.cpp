// The MLIR C++ entry points that the C API (mlir-c) does not expose and tunespec needs.
//
// Kept minimal on purpose: each function wraps one C++ call and uses only C types at its
// boundary, so the Rust side (tunespec's src/mlir.rs) stays the one place that reasons about
// handles and lifetimes.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

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
}
