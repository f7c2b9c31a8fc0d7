//! Plain-data snapshots: an `ir::Op` tree of a module, for the rules and analyses that never
//! touch MLIR handles.

use rustc_hash::FxHashMap as HashMap;
use std::ffi::c_void;

use mlir_sys::*;

use super::context::location_to_loc;
use super::ffi::{print_with, read_string, string_ref};
use super::OwnedOp;
use crate::ir::{self, Attr, Loc, ValueRef};

/// Plain-data snapshots of a module (`ir::Module`), what the rules and analyses work on.
impl OwnedOp<'_> {
    /// Converts the IR into the plain-data snapshot the rules work on.
    pub fn snapshot(&self) -> ir::Module {
        let mut builder = SnapshotBuilder::default();
        // SAFETY: `self.raw` is live and borrowed for the whole snapshot; the builder only reads.
        let root = unsafe { builder.op(self.raw) };
        ir::Module { root }
    }

    /// A structure-only snapshot (see [`OwnedOp::snapshot_structure`]) of this module's
    /// top-level ops without their bodies, except the named sequence `entry` and nested modules:
    /// what the rules need to check a linked library whose other sequences were verified as
    /// inputs.
    pub fn snapshot_outline(&self, entry: &str) -> ir::Module {
        let mut builder = SnapshotBuilder {
            skip_other: true,
            outline_entry: Some(entry.to_string()),
            ..SnapshotBuilder::default()
        };
        // SAFETY: `self.raw` is live and borrowed for the whole snapshot; the builder only reads.
        let root = unsafe { builder.op(self.raw) };
        ir::Module { root }
    }

    /// A snapshot whose unclassified attributes are not printed but named by identity
    /// (`Attr::Other("#<address>")`): MLIR uniques attributes per context, so two such values
    /// are equal exactly when the attributes are. All the structure at a fraction of the cost,
    /// for analyses that compare but never show attributes (rules, shadow fingerprints, the
    /// native matcher; a large library's configs are most of its text).
    pub fn snapshot_structure(&self) -> ir::Module {
        let mut builder = SnapshotBuilder {
            skip_other: true,
            ..SnapshotBuilder::default()
        };
        // SAFETY: `self.raw` is live and borrowed for the whole snapshot; the builder only reads.
        let root = unsafe { builder.op(self.raw) };
        ir::Module { root }
    }

    /// Whether this op itself carries attribute `name` (without a whole snapshot).
    pub fn snapshot_root_has_attr(&self, name: &str) -> bool {
        // SAFETY: `self.raw` is live; only a lookup.
        unsafe {
            !mlirOperationGetAttributeByName(self.raw, string_ref(name.as_bytes()))
                .ptr
                .is_null()
        }
    }
}

/// Builds an `ir::Op` tree, numbering ops and blocks in pre-order and caching printed types and
/// file names (both are uniqued by MLIR, so their pointers are stable keys). The maps hash with
/// FxHash: their keys are addresses, not input an attacker picks, and SipHash was a sixth of a
/// snapshot's time.
#[derive(Default)]
struct SnapshotBuilder {
    next_op: u32,
    next_block: u32,
    op_ids: HashMap<*mut c_void, u32>,
    block_ids: HashMap<*mut c_void, u32>,
    types: HashMap<*const c_void, String>,
    /// Printed attributes by handle: attributes are uniqued in their context, so equal handles
    /// print equally, and a library's matchers repeat the same few (indexing maps, configs).
    printed_attrs: HashMap<*const c_void, String>,
    files: HashMap<*const c_void, String>,
    /// Leave unclassified attributes unprinted.
    skip_other: bool,
    /// Outline mode: top-level ops keep no body, except this named one and nested modules.
    outline_entry: Option<String>,
    /// Nesting depth of the op being built (the root is 0).
    depth: u32,
}

impl SnapshotBuilder {
    unsafe fn op(&mut self, op: MlirOperation) -> ir::Op {
        // SAFETY: `op` is a live op under the root being snapshotted (the caller's contract); the
        // builder reads it, its attribute dictionary, operands and regions, all owned by the live
        // module or its context, and copies every string.
        unsafe {
            let id = self.next_op;
            self.next_op += 1;
            self.op_ids.insert(op.ptr, id);
            let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
            let loc = self.loc(mlirOperationGetLocation(op));
            // One dictionary per op (see the shim: the C API rebuilds it per attribute).
            let dictionary = tunespec_mlir_shim::tunespecOperationGetAttrDictionary(op);
            let attr_count = mlirDictionaryAttrGetNumElements(dictionary);
            let mut attrs = Vec::with_capacity(attr_count as usize);
            for index in 0..attr_count {
                let named = mlirDictionaryAttrGetElement(dictionary, index);
                attrs.push((
                    read_string(mlirIdentifierStr(named.name)),
                    self.attr(named.attribute),
                ));
            }
            let operand_count = mlirOperationGetNumOperands(op);
            let mut operands = Vec::with_capacity(operand_count as usize);
            let mut operand_types = Vec::with_capacity(operand_count as usize);
            for index in 0..operand_count {
                let value = mlirOperationGetOperand(op, index);
                // `Mlir::parse` refuses IR with null operands; kept safe here all the same.
                if value.ptr.is_null() {
                    operands.push(ValueRef::Unknown);
                    operand_types.push(String::new());
                    continue;
                }
                operands.push(self.value_ref(value));
                operand_types.push(self.type_string(mlirValueGetType(value)));
            }
            let result_count = mlirOperationGetNumResults(op);
            let mut result_types = Vec::with_capacity(result_count as usize);
            for index in 0..result_count {
                let value = mlirOperationGetResult(op, index);
                result_types.push(self.type_string(mlirValueGetType(value)));
            }
            // An outline keeps the bodies of the root, nested modules and the named entry only.
            let keep_body = match &self.outline_entry {
                None => true,
                Some(entry) => {
                    id == 0
                        || name == crate::ir::names::MODULE
                        || self.depth > 1
                        || attrs.iter().any(|(key, value)| {
                            key == "sym_name" && value.as_str() == Some(entry.as_str())
                        })
                }
            };
            let region_count = if keep_body {
                mlirOperationGetNumRegions(op)
            } else {
                0
            };
            let mut regions = Vec::with_capacity(region_count as usize);
            self.depth += 1;
            for index in 0..region_count {
                regions.push(self.region(mlirOperationGetRegion(op, index)));
            }
            self.depth -= 1;
            ir::Op {
                id,
                name,
                loc,
                attrs,
                operands,
                operand_types,
                result_types,
                regions,
            }
        }
    }

    unsafe fn region(&mut self, region: MlirRegion) -> ir::Region {
        // SAFETY: `region` belongs to a live op being snapshotted; blocks and ops are only read.
        unsafe {
            let mut blocks = Vec::new();
            let mut block = mlirRegionGetFirstBlock(region);
            while !block.ptr.is_null() {
                let id = self.next_block;
                self.next_block += 1;
                self.block_ids.insert(block.ptr, id);
                let arg_count = mlirBlockGetNumArguments(block);
                let mut arg_types = Vec::with_capacity(arg_count as usize);
                for index in 0..arg_count {
                    arg_types.push(
                        self.type_string(mlirValueGetType(mlirBlockGetArgument(block, index))),
                    );
                }
                let mut ops = Vec::new();
                let mut op = mlirBlockGetFirstOperation(block);
                while !op.ptr.is_null() {
                    ops.push(self.op(op));
                    op = mlirOperationGetNextInBlock(op);
                }
                blocks.push(ir::Block { id, arg_types, ops });
                block = mlirBlockGetNextInRegion(block);
            }
            ir::Region { blocks }
        }
    }

    unsafe fn value_ref(&mut self, value: MlirValue) -> ValueRef {
        // SAFETY: `value` is an operand of a live op being snapshotted; its owner is only compared
        // by address.
        unsafe {
            if mlirValueIsABlockArgument(value) {
                let owner = mlirBlockArgumentGetOwner(value);
                match self.block_ids.get(&owner.ptr) {
                    Some(&block) => ValueRef::BlockArg {
                        block,
                        index: mlirBlockArgumentGetArgNumber(value) as u32,
                    },
                    None => ValueRef::Unknown,
                }
            } else if mlirValueIsAOpResult(value) {
                let owner = mlirOpResultGetOwner(value);
                match self.op_ids.get(&owner.ptr) {
                    Some(&op) => ValueRef::Result {
                        op,
                        index: mlirOpResultGetResultNumber(value) as u32,
                    },
                    None => ValueRef::Unknown,
                }
            } else {
                ValueRef::Unknown
            }
        }
    }

    unsafe fn type_string(&mut self, ty: MlirType) -> String {
        self.types
            .entry(ty.ptr)
            .or_insert_with(|| {
                // SAFETY: `ty` is a type of a live op being snapshotted, uniqued in the context;
                // printing reads it.
                print_with(|callback, data| unsafe { mlirTypePrint(ty, callback, data) })
            })
            .clone()
    }

    unsafe fn loc(&mut self, location: MlirLocation) -> Option<Loc> {
        // SAFETY: `location` is a live op's location, owned by the context; the file name is
        // copied.
        unsafe {
            if !location.ptr.is_null() && mlirLocationIsAFileLineColRange(location) {
                let identifier = mlirLocationFileLineColRangeGetFilename(location);
                let file = self
                    .files
                    .entry(identifier.ptr)
                    .or_insert_with(|| read_string(mlirIdentifierStr(identifier)))
                    .clone();
                return Some(Loc {
                    file,
                    line: mlirLocationFileLineColRangeGetStartLine(location).max(1) as u32,
                    col: mlirLocationFileLineColRangeGetStartColumn(location).max(1) as u32,
                });
            }
            location_to_loc(location)
        }
    }

    unsafe fn attr(&mut self, attr: MlirAttribute) -> Attr {
        // SAFETY: `attr` is an attribute of a live op (uniqued in the context); each accessor is
        // called only after the matching `mlirAttributeIsA*` check.
        unsafe {
            if mlirAttributeIsAUnit(attr) {
                Attr::Unit
            } else if mlirAttributeIsAString(attr) {
                Attr::Str(read_string(mlirStringAttrGetValue(attr)))
            } else if mlirAttributeIsAFlatSymbolRef(attr) {
                Attr::SymbolRef(vec![read_string(mlirFlatSymbolRefAttrGetValue(attr))])
            } else if mlirAttributeIsASymbolRef(attr) {
                let mut path = vec![read_string(mlirSymbolRefAttrGetRootReference(attr))];
                for index in 0..mlirSymbolRefAttrGetNumNestedReferences(attr) {
                    let nested = mlirSymbolRefAttrGetNestedReference(attr, index);
                    path.push(read_string(mlirFlatSymbolRefAttrGetValue(nested)));
                }
                Attr::SymbolRef(path)
            } else if mlirAttributeIsAInteger(attr) && self.is_narrow_integer(attr) {
                Attr::Int(mlirIntegerAttrGetValueInt(attr))
            } else if mlirAttributeIsAArray(attr) {
                let count = mlirArrayAttrGetNumElements(attr);
                Attr::Array(
                    (0..count)
                        .map(|index| self.attr(mlirArrayAttrGetElement(attr, index)))
                        .collect(),
                )
            } else if mlirAttributeIsADictionary(attr) {
                let count = mlirDictionaryAttrGetNumElements(attr);
                Attr::Dict(
                    (0..count)
                        .map(|index| {
                            let named = mlirDictionaryAttrGetElement(attr, index);
                            (
                                read_string(mlirIdentifierStr(named.name)),
                                self.attr(named.attribute),
                            )
                        })
                        .collect(),
                )
            } else if mlirAttributeIsADenseI64Array(attr) {
                Attr::I64Array(
                    (0..mlirDenseArrayGetNumElements(attr))
                        .map(|index| mlirDenseI64ArrayGetElement(attr, index))
                        .collect(),
                )
            } else if mlirAttributeIsAType(attr) {
                Attr::Type(self.type_string(mlirTypeAttrGetValue(attr)))
            } else if self.skip_other && !mlirAttributeIsAAffineMap(attr) {
                // Affine maps stay printed: the native matcher compares a matcher's
                // `indexing_maps` with the payload's, which the shim reports printed.
                Attr::Other(format!("#{:x}", attr.ptr as usize))
            } else {
                Attr::Other(
                    self.printed_attrs
                        .entry(attr.ptr)
                        .or_insert_with(|| {
                            print_with(|callback, data| mlirAttributePrint(attr, callback, data))
                        })
                        .clone(),
                )
            }
        }
    }

    /// `mlirIntegerAttrGetValueInt` is only meaningful for signless integers and index of at most
    /// 64 bits; anything else is kept printed.
    unsafe fn is_narrow_integer(&self, attr: MlirAttribute) -> bool {
        // SAFETY: `attr` is a live integer attribute (checked by the caller); only its type is
        // queried.
        unsafe {
            let ty = mlirAttributeGetType(attr);
            mlirTypeIsAIndex(ty)
                || (mlirTypeIsAInteger(ty)
                    && mlirIntegerTypeIsSignless(ty)
                    && mlirIntegerTypeGetWidth(ty) <= 64)
        }
    }
}
