//! Editing modules: the linker's symbol renaming and moving, `explain`'s instrumented actions,
//! and library blobs carried as attributes.

use std::ffi::c_void;

use mlir_sys::*;

use super::ffi::{children, read_string, string_ref};
use super::OwnedOp;

/// Editing operations the linker needs. They work on top-level symbols of a module, by name, so
/// that callers never see an operation handle.
impl<'c> OwnedOp<'c> {
    /// Top-level ops of the (first block of the) body, in order.
    pub(super) fn body_ops(&self) -> Vec<MlirOperation> {
        let mut ops = Vec::new();
        // SAFETY: `self.raw` is the live root op owned by `self`; its regions, blocks and ops are
        // reached through it and only read here.
        unsafe {
            if mlirOperationGetNumRegions(self.raw) == 0 {
                return ops;
            }
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.raw, 0));
            if block.ptr.is_null() {
                return ops;
            }
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                ops.push(op);
                op = mlirOperationGetNextInBlock(op);
            }
        }
        ops
    }

    pub(super) fn symbol_name_of(op: MlirOperation) -> Option<String> {
        // SAFETY: `op` is a live op of a module the caller borrows; the attribute is checked to be
        // a string before its value is read, and the string is copied.
        unsafe {
            let attr = mlirOperationGetAttributeByName(op, string_ref(b"sym_name"));
            if attr.ptr.is_null() || !mlirAttributeIsAString(attr) {
                return None;
            }
            Some(read_string(mlirStringAttrGetValue(attr)))
        }
    }

    fn set_symbol_name_of(op: MlirOperation, name: &str) {
        // SAFETY: `op` is a live op of a module the caller borrows; the new string attribute is
        // made in the op's own context.
        unsafe {
            let context = mlirOperationGetContext(op);
            let attr = mlirStringAttrGet(context, string_ref(name.as_bytes()));
            mlirOperationSetAttributeByName(op, string_ref(b"sym_name"), attr);
        }
    }

    /// Renames top-level symbols and rewrites every use inside this module: symbol references
    /// in any attribute of any nested op (foreach_match lists, include callees, IREE ops'
    /// symbol operands, nested references `@a::@b`, user attributes), as MLIR's
    /// `SymbolTable::replaceAllSymbolUses` does for one symbol, but for all of them in ONE walk
    /// (the shim's `tunespecRenameSymbols`): linear in the module, however many names change.
    /// Every pair applies to the original names at once, so chains and swaps (`a -> a_0` while
    /// `a_0 -> a_1`) cannot capture each other's uses.
    pub fn rename_symbols(&self, renames: &[(String, String)]) -> Result<(), String> {
        if renames.is_empty() {
            return Ok(());
        }
        let old: Vec<MlirStringRef> = renames
            .iter()
            .map(|(old, _)| string_ref(old.as_bytes()))
            .collect();
        let new: Vec<MlirStringRef> = renames
            .iter()
            .map(|(_, new)| string_ref(new.as_bytes()))
            .collect();
        // SAFETY: `self.raw` is the live module owned by `self`; both arrays hold
        // `renames.len()` string refs into `renames`, which outlives the call; the shim copies
        // the names into the context (StringAttr) and keeps no pointer to them.
        let failed = unsafe {
            tunespec_mlir_shim::tunespecRenameSymbols(
                self.raw,
                old.as_ptr(),
                new.as_ptr(),
                renames.len() as isize,
            )
        };
        match usize::try_from(failed) {
            Err(_) => Ok(()),
            Ok(index) => Err(format!(
                "no top-level symbol @{} to rename (or renamed twice)",
                renames.get(index).map_or("?", |(old, _)| old.as_str())
            )),
        }
    }

    /// The nested module at `scope` (names of nested modules from this one; empty: this module).
    fn scope_op(&self, scope: &[String]) -> Result<MlirOperation, String> {
        let mut op = self.raw;
        for name in scope {
            op = children(op)
                .into_iter()
                .find(|&child| Self::symbol_name_of(child).as_deref() == Some(name.as_str()))
                .ok_or_else(|| format!("no nested module '@{}'", scope.join("::@")))?;
        }
        Ok(op)
    }

    /// Clones the top-level ops of `source` named in `names` (in `source`'s order) into the
    /// module at `scope` (see [`OwnedOp::scope_op`]), before its last op (the entry point at the
    /// top level).
    pub fn insert_symbol_clones(
        &self,
        scope: &[String],
        source: &OwnedOp<'_>,
        names: &[String],
    ) -> Result<(), String> {
        let parent = self.scope_op(scope)?;
        let anchor = children(parent).last().copied();
        let wanted: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        for op in source.body_ops() {
            if Self::symbol_name_of(op).is_some_and(|name| wanted.contains(name.as_str())) {
                // SAFETY: `op` is a live top-level op of `source`, borrowed for the call; the clone
                // is a new, unowned op that `insert_before_in` hands to the scope's block.
                Self::insert_before_in(parent, anchor, unsafe { mlirOperationClone(op) });
            }
        }
        Ok(())
    }

    /// Like [`OwnedOp::insert_symbol_clones`] but moves the ops out of `source` (which the
    /// caller is about to drop): no copy, so linking needs no second copy of every input.
    pub fn move_symbols_from(&self, source: &OwnedOp<'_>, names: &[String]) {
        let anchor = self.body_ops().last().copied();
        let wanted: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        for op in source.body_ops() {
            if Self::symbol_name_of(op).is_some_and(|name| wanted.contains(name.as_str())) {
                // SAFETY: `op` is a live top-level op of `source`; once removed from its parent it
                // is owned by nobody until `insert_before` gives it to this module's block (no drop
                // in between). `source` no longer sees it, so it is destroyed once, with this
                // module.
                unsafe { mlirOperationRemoveFromParent(op) };
                self.insert_before(anchor, op);
            }
        }
    }

    /// A detached clone of the op with pre-order id `id` (ids as in [`OwnedOp::snapshot`]):
    /// used to take a spec out of the container module it was written in. None when no op has
    /// that id.
    pub fn clone_nested(&self, id: u32) -> Option<OwnedOp<'c>> {
        fn find(op: MlirOperation, id: u32, next: &mut u32) -> Option<MlirOperation> {
            if *next == id {
                return Some(op);
            }
            *next += 1;
            for child in children(op) {
                if let Some(found) = find(child, id, next) {
                    return Some(found);
                }
            }
            None
        }
        let op = find(self.raw, id, &mut 0)?;
        // SAFETY: `op` is live (under the borrowed root); the clone is a new op with no parent,
        // which the returned `OwnedOp` owns and destroys.
        let raw = unsafe { mlirOperationClone(op) };
        Some(OwnedOp {
            raw,
            _context: std::marker::PhantomData,
        })
    }

    /// Clones all of `source` (a module) into this module as a nested op named `name`, before
    /// this module's last top-level op.
    pub fn insert_nested_clone(&self, source: &OwnedOp<'_>, name: &str) {
        let anchor = self.body_ops().last().copied();
        // SAFETY: `source.raw` is live (borrowed); the clone is a new, unowned op, given to this
        // module below.
        let clone = unsafe { mlirOperationClone(source.raw) };
        Self::set_symbol_name_of(clone, name);
        self.insert_before(anchor, clone);
    }

    fn insert_before(&self, anchor: Option<MlirOperation>, op: MlirOperation) {
        Self::insert_before_in(self.raw, anchor, op);
    }

    fn insert_before_in(parent: MlirOperation, anchor: Option<MlirOperation>, op: MlirOperation) {
        // SAFETY: `parent` is a live module (this one or one nested in it) with one region whose
        // first block exists (every module has its body block); `anchor` is an op of that block
        // (taken from its children), and `op` is unowned (a fresh clone or removed from its
        // parent), so the block takes ownership.
        unsafe {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0));
            match anchor {
                Some(anchor) => mlirBlockInsertOwnedOperationBefore(block, anchor, op),
                None => mlirBlockAppendOwnedOperation(block, op),
            }
        }
    }

    /// Gives the named sequence `entry` of the nested module `module` (a top-level op of this
    /// module) one `!transform.any_op` result, returned by its terminator: result #0 of the op
    /// at `op_index` of its body. The linker's adapter for IREE's legacy entry point, which
    /// consumes its argument and returns nothing: the body runs as written, and the linked entry
    /// point goes on with the handle it now returns. The sequence must take one argument.
    pub fn return_root_handle(
        &self,
        module: &str,
        entry: &str,
        op_index: usize,
    ) -> Result<(), String> {
        let nested = self
            .body_ops()
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(module))
            .ok_or_else(|| format!("no nested module '@{module}'"))?;
        let sequence = children(nested)
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(entry))
            .ok_or_else(|| format!("no named sequence '@{module}::@{entry}'"))?;
        // SAFETY: `sequence` is a live op of this module (found under the borrowed root); its
        // body block, the op at `op_index` and the terminator are reached through it and checked
        // for null; the new type and attribute are made in the op's own context; the value set
        // as the terminator's operand is a result of an op of the same block that precedes it.
        unsafe {
            let region = mlirOperationGetRegion(sequence, 0);
            let block = mlirRegionGetFirstBlock(region);
            if block.ptr.is_null() {
                return Err(format!("'@{module}::@{entry}' has no body"));
            }
            let mut op = mlirBlockGetFirstOperation(block);
            for _ in 0..op_index {
                if op.ptr.is_null() {
                    break;
                }
                op = mlirOperationGetNextInBlock(op);
            }
            if op.ptr.is_null() || mlirOperationGetNumResults(op) < 1 {
                return Err(format!(
                    "op #{op_index} of '@{module}::@{entry}' returns no handle"
                ));
            }
            let terminator = mlirBlockGetTerminator(block);
            if terminator.ptr.is_null() || terminator.ptr == op.ptr {
                return Err(format!("'@{module}::@{entry}' has no terminator"));
            }
            let value = mlirOperationGetResult(op, 0);
            mlirOperationSetOperands(terminator, 1, &value);
            let context = mlirOperationGetContext(sequence);
            let ty = mlirTypeParseGet(
                context,
                string_ref(b"(!transform.any_op) -> !transform.any_op"),
            );
            if ty.ptr.is_null() {
                return Err("the entry point's new type does not parse".to_string());
            }
            mlirOperationSetAttributeByName(
                sequence,
                string_ref(b"function_type"),
                mlirTypeAttrGet(ty),
            );
        }
        Ok(())
    }

    /// Replaces the `actions` list of the `foreach_match` ops in named sequence `entry` of the
    /// module at `scope` (see [`OwnedOp::scope_op`]), in order. Used to instrument a library
    /// for `explain` (each action wrapped to record its pair).
    pub fn set_foreach_actions(
        &self,
        scope: &[String],
        entry: &str,
        actions: &[String],
    ) -> Result<(), String> {
        let entry_op = children(self.scope_op(scope)?)
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(entry))
            .ok_or_else(|| format!("no named sequence '@{entry}'"))?;
        // SAFETY: `entry_op` is a top-level op of this live module and the ops walked are in its
        // first block; the `actions` array is built in the module's own context from attributes
        // just made; `count` comes from the existing array attribute.
        unsafe {
            let context = mlirOperationGetContext(self.raw);
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(entry_op, 0));
            let mut op = mlirBlockGetFirstOperation(block);
            let mut offset = 0;
            while !op.ptr.is_null() {
                let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
                if name == crate::ir::names::FOREACH_MATCH {
                    let current = mlirOperationGetAttributeByName(op, string_ref(b"actions"));
                    let count = mlirArrayAttrGetNumElements(current) as usize;
                    let slice = actions
                        .get(offset..offset + count)
                        .ok_or("fewer actions given than the foreach_match ops list")?;
                    let refs: Vec<MlirAttribute> = slice
                        .iter()
                        .map(|action| {
                            mlirFlatSymbolRefAttrGet(context, string_ref(action.as_bytes()))
                        })
                        .collect();
                    let array = mlirArrayAttrGet(context, refs.len() as isize, refs.as_ptr());
                    mlirOperationSetAttributeByName(op, string_ref(b"actions"), array);
                    offset += count;
                }
                op = mlirOperationGetNextInBlock(op);
            }
        }
        Ok(())
    }
}

/// Pruning a library to the pairs that fire on a payload (`attach`).
impl OwnedOp<'_> {
    /// Keeps, in the `foreach_match` ops of the top-level named sequence `entry`, the pairs
    /// `keep` selects (one flag per pair, in order across the ops). An op none of whose pairs
    /// is kept keeps its first (a `foreach_match` needs one). Returns how many pairs were
    /// dropped.
    pub fn retain_foreach_pairs(&self, entry: &str, keep: &[bool]) -> Result<usize, String> {
        let entry_op = self
            .body_ops()
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(entry))
            .ok_or_else(|| format!("no named sequence '@{entry}'"))?;
        let mut offset = 0;
        let mut dropped = 0;
        for op in children(entry_op) {
            // SAFETY: `op` is a live op in the entry point's body, reached from this module's
            // root; its attributes are read (and replaced by arrays made in its own context)
            // while the module is borrowed; indices stay below the arrays' element counts.
            unsafe {
                let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
                if name != crate::ir::names::FOREACH_MATCH {
                    continue;
                }
                let context = mlirOperationGetContext(op);
                let matchers = mlirOperationGetAttributeByName(op, string_ref(b"matchers"));
                let actions = mlirOperationGetAttributeByName(op, string_ref(b"actions"));
                if matchers.ptr.is_null() || actions.ptr.is_null() {
                    return Err("a foreach_match without matchers or actions".to_string());
                }
                let count = mlirArrayAttrGetNumElements(matchers) as usize;
                if mlirArrayAttrGetNumElements(actions) as usize != count {
                    return Err("a foreach_match with more matchers than actions".to_string());
                }
                let flags = keep
                    .get(offset..offset + count)
                    .ok_or("fewer flags given than the foreach_match ops hold pairs")?;
                let mut kept: Vec<usize> = (0..count).filter(|&index| flags[index]).collect();
                if kept.is_empty() && count > 0 {
                    kept.push(0);
                }
                dropped += count - kept.len();
                let select = |array: MlirAttribute| -> MlirAttribute {
                    let items: Vec<MlirAttribute> = kept
                        .iter()
                        .map(|&index| mlirArrayAttrGetElement(array, index as isize))
                        .collect();
                    mlirArrayAttrGet(context, items.len() as isize, items.as_ptr())
                };
                let (new_matchers, new_actions) = (select(matchers), select(actions));
                mlirOperationSetAttributeByName(op, string_ref(b"matchers"), new_matchers);
                mlirOperationSetAttributeByName(op, string_ref(b"actions"), new_actions);
                offset += count;
            }
        }
        if offset != keep.len() {
            return Err("more flags given than the foreach_match ops hold pairs".to_string());
        }
        Ok(dropped)
    }

    /// Erases the top-level `transform.named_sequence` ops named in `names`; returns how many.
    pub fn erase_sequences(&self, names: &std::collections::HashSet<String>) -> usize {
        let mut erased = 0;
        for op in self.body_ops() {
            // SAFETY: `op` is a live top-level op of this module; its name is read before it is
            // erased (`mlirOperationDestroy` unlinks it from its block and frees it), and no
            // handle to it or anything nested in it is used afterwards (`body_ops` returned a
            // list taken before any erasure; each op in it is visited once).
            unsafe {
                let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
                if name == crate::ir::names::NAMED_SEQUENCE
                    && Self::symbol_name_of(op).is_some_and(|symbol| names.contains(&symbol))
                {
                    mlirOperationDestroy(op);
                    erased += 1;
                }
            }
        }
        erased
    }
}

/// How a byte blob is stored as an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlobForm {
    /// `dense<"0x..."> : vector<N x i8>` (IREE's default form).
    Dense,
    /// `dense_resource<name>` with the bytes in the file's `dialect_resources` section.
    Resource,
}

unsafe extern "C" fn free_blob(
    _user_data: *mut c_void,
    data: *const c_void,
    size: usize,
    _align: usize,
) {
    // SAFETY: `data` is the leaked `Box<[u8]>` of length `size` made in `set_blob_attr`.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(data as *mut u8, size)) });
}

/// Carrying a library as an attribute of a payload (attach, extract).
impl OwnedOp<'_> {
    /// Sets attribute `name` on this op to `bytes` as an i8 vector blob.
    pub fn set_blob_attr(&self, name: &str, bytes: &[u8], form: BlobForm) -> Result<(), String> {
        if bytes.is_empty() {
            return Err("cannot attach an empty blob".into());
        }
        // SAFETY: `self.raw` is live; the dense attribute copies `bytes`; for a resource blob,
        // ownership of the leaked box passes to MLIR, which frees it once with `free_blob` (user
        // data unused).
        unsafe {
            let context = mlirOperationGetContext(self.raw);
            let i8_type = mlirIntegerTypeGet(context, 8);
            let shape = [bytes.len() as i64];
            let vector = mlirVectorTypeGet(1, shape.as_ptr(), i8_type);
            let attr = match form {
                BlobForm::Dense => mlirDenseElementsAttrRawBufferGet(
                    vector,
                    bytes.len(),
                    bytes.as_ptr() as *const c_void,
                ),
                BlobForm::Resource => {
                    let owned: Box<[u8]> = bytes.into();
                    let length = owned.len();
                    let data = Box::into_raw(owned) as *mut u8 as *mut c_void;
                    mlirUnmanagedDenseResourceElementsAttrGet(
                        vector,
                        string_ref(b"tunespec_tuning_spec"),
                        data,
                        length,
                        1,
                        false,
                        Some(free_blob),
                        std::ptr::null_mut(),
                    )
                }
            };
            if attr.ptr.is_null() {
                return Err("MLIR could not build the blob attribute".into());
            }
            mlirOperationSetAttributeByName(self.raw, string_ref(name.as_bytes()), attr);
        }
        Ok(())
    }

    /// Finds attribute `name` on this op or, failing that, on the first nested op that carries
    /// it (pre-order). Returns the op's name and the bytes, or an error when the attribute is
    /// there but holds no bytes.
    pub fn find_blob_attr(&self, name: &str) -> Option<Result<(String, Vec<u8>), String>> {
        fn search(op: MlirOperation, name: &str) -> Option<(MlirOperation, MlirAttribute)> {
            // SAFETY: `op` is a live op under `self.raw` (reached from the root); only reads.
            unsafe {
                let attr = mlirOperationGetAttributeByName(op, string_ref(name.as_bytes()));
                if !attr.ptr.is_null() {
                    return Some((op, attr));
                }
                for child in children(op) {
                    if let Some(found) = search(child, name) {
                        return Some(found);
                    }
                }
                None
            }
        }
        let (op, attr) = search(self.raw, name)?;
        // SAFETY: `op` was found under the live `self.raw`; its name is an identifier of the
        // context, copied out.
        let op_name = unsafe { read_string(mlirIdentifierStr(mlirOperationGetName(op))) };
        let mut data: *const std::ffi::c_char = std::ptr::null();
        let mut length: isize = 0;
        let ok =
            // SAFETY: `attr` is a live attribute of an op of this module; the shim writes only the
            // two out-pointers, which point to locals.
            unsafe { tunespec_mlir_shim::tunespecAttributeBytes(attr, &mut data, &mut length) };
        if !ok || data.is_null() || length <= 0 {
            return Some(Err(format!(
                "attribute '{name}' on '{op_name}' holds no bytes (expected dense<\"0x...\"> : vector<N x i8>, a dense_resource blob or a string)"
            )));
        }
        let bytes =
            // SAFETY: the shim returned a pointer to `length` bytes owned by the attribute (or its
            // blob), which lives as long as the context and this module, borrowed here; they are
            // copied before returning.
            unsafe { std::slice::from_raw_parts(data as *const u8, length as usize) }.to_vec();
        Some(Ok((op_name, bytes)))
    }

    /// Removes attribute `name` from this op and every nested op.
    pub fn remove_attr_everywhere(&self, name: &str) {
        fn strip(op: MlirOperation, name: &str) {
            // SAFETY: `op` is a live op under `self.raw`; removing a discardable attribute does not
            // invalidate the op or its children.
            unsafe {
                mlirOperationRemoveAttributeByName(op, string_ref(name.as_bytes()));
                for child in children(op) {
                    strip(child, name);
                }
            }
        }
        strip(self.raw, name);
    }
}
