// Symbol renaming in one pass (tunespec's linker renames most symbols of a spec when every name
// clashes). MLIR's C API offers `mlirSymbolTableReplaceAllSymbolUses`, which walks the whole
// symbol table once per renamed symbol: renaming k symbols of a module of size n costs k * n.
// This file renames any number of top-level symbols with one walk and one attribute replacer,
// whose cache rewrites each distinct attribute once.
//
// The semantics are MLIR's `SymbolTable::replaceAllSymbolUses(StringAttr, StringAttr,
// Operation *from)` applied to every pair at once: every op in the regions of `from` is visited
// (the op `from` itself is not), nested symbol tables are visited but not entered (references
// inside them resolve in another table), and a `SymbolRefAttr` whose root reference is a renamed
// symbol gets the new root, its nested references kept (`@a::@b` -> `@a_1::@b`). Symbol
// references are never looked into (an attribute nested in one is not a use). Because every
// pair is applied to the original names at once, chains and swaps (`a -> a_1` while
// `a_1 -> a_2`) cannot capture each other's uses.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

extern "C" {

// Renames the top-level symbols `oldNames[i]` of `moduleOp` (ops directly in the first block of
// its first region, named by `sym_name`) to `newNames[i]`, for i < count, and rewrites every use
// nested in `moduleOp` (see above). Nothing is changed unless every old name is the name of one
// top-level op and no old name is given twice: the result is then the index of the first
// offending pair. Returns -1 on success.
intptr_t tunespecRenameSymbols(MlirOperation moduleOp, const MlirStringRef *oldNames,
                               const MlirStringRef *newNames, intptr_t count) {
  mlir::Operation *module = unwrap(moduleOp);
  mlir::MLIRContext *context = module->getContext();
  if (count <= 0)
    return -1;
  if (module->getNumRegions() == 0 || module->getRegion(0).empty())
    return 0;

  llvm::DenseMap<mlir::StringAttr, intptr_t> indexOf;
  indexOf.reserve(count);
  llvm::SmallVector<mlir::StringAttr> renamed(count);
  for (intptr_t i = 0; i < count; ++i) {
    if (!indexOf.try_emplace(mlir::StringAttr::get(context, unwrap(oldNames[i])), i).second)
      return i;
    renamed[i] = mlir::StringAttr::get(context, unwrap(newNames[i]));
  }

  // The op of every old name, found in one pass over the top-level ops.
  llvm::StringRef symbolAttr = mlir::SymbolTable::getSymbolAttrName();
  llvm::SmallVector<mlir::Operation *> owners(count, nullptr);
  for (mlir::Operation &op : module->getRegion(0).front()) {
    auto name = op.getAttrOfType<mlir::StringAttr>(symbolAttr);
    if (!name)
      continue;
    auto it = indexOf.find(name);
    if (it != indexOf.end() && !owners[it->second])
      owners[it->second] = &op;
  }
  for (intptr_t i = 0; i < count; ++i)
    if (!owners[i])
      return i;

  mlir::AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](mlir::SymbolRefAttr ref) -> std::pair<mlir::Attribute, mlir::WalkResult> {
        auto it = indexOf.find(ref.getRootReference());
        if (it == indexOf.end())
          return {ref, mlir::WalkResult::skip()};
        return {mlir::SymbolRefAttr::get(renamed[it->second], ref.getNestedReferences()),
                mlir::WalkResult::skip()};
      });

  // Every op in the module's regions, without entering nested symbol tables.
  llvm::SmallVector<mlir::Region *> worklist;
  for (mlir::Region &region : module->getRegions())
    worklist.push_back(&region);
  while (!worklist.empty()) {
    for (mlir::Operation &op : worklist.pop_back_val()->getOps()) {
      replacer.replaceElementsIn(&op);
      if (!op.hasTrait<mlir::OpTrait::SymbolTable>())
        for (mlir::Region &region : op.getRegions())
          worklist.push_back(&region);
    }
  }

  for (intptr_t i = 0; i < count; ++i)
    owners[i]->setAttr(symbolAttr, renamed[i]);
  return -1;
}
}
