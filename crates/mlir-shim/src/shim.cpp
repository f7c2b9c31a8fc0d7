// The MLIR C++ entry points that the C API (mlir-c) does not expose and tunespec needs.
//
// Kept minimal on purpose: each function wraps one C++ call and uses only C types at its
// boundary, so the Rust side (tunespec's src/mlir.rs) stays the one place that reasons about
// handles and lifetimes.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
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
}
