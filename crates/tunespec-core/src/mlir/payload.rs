//! The payload side: applying a library with MLIR's transform interpreter, the features of
//! payload ops that the native matcher reads, and IREE's dispatch view.

use std::collections::HashMap;

use mlir_sys::*;

use super::ffi::{children, print_with, read_string, string_ref};
use super::{Mlir, OwnedOp};
use crate::problem::{codes, Problem};

/// The payload side: applying a library, and the native matcher's view of a payload and its
/// edits.
impl OwnedOp<'_> {
    /// Applies `library`'s named sequence `entry` to every function-like op of this payload
    /// (ops named `*.func` with a body, as IREE applies a tuning spec per function), or to the
    /// payload root when it holds none. Returns the interpreter's diagnostics; `Err` when it
    /// failed.
    pub fn apply_library(
        &self,
        mlir: &Mlir,
        library: &OwnedOp<'_>,
        entry: &str,
    ) -> Result<Vec<Problem>, Vec<Problem>> {
        let Some(entry_op) = library
            .body_ops()
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(entry))
        else {
            return Err(vec![Problem::error(
                codes::MISSING_ENTRYPOINT,
                format!("the library has no named sequence '@{entry}'"),
                None,
            )]);
        };
        let mut roots = Vec::new();
        collect_functions(self.raw, &mut roots);
        if roots.is_empty() {
            roots.push(self.raw);
        }
        mlir.take_diagnostics();
        let mut failed = false;
        // SAFETY: `entry_op` is a top-level op of the live `library`, every root is a live op of
        // this payload (or the payload itself), and both modules are borrowed for the call; the
        // options are created and destroyed here.
        unsafe {
            let options = mlirTransformOptionsCreate();
            for root in roots {
                let result = mlirTransformApplyNamedSequence(root, entry_op, library.raw, options);
                failed |= result.value == 0;
            }
            mlirTransformOptionsDestroy(options);
        }
        let problems = mlir.take_diagnostics();
        if failed {
            let mut problems = problems;
            if !problems.iter().any(Problem::is_error) {
                problems.push(Problem::error(
                    codes::PARSE,
                    "the transform interpreter failed",
                    None,
                ));
            }
            Err(problems)
        } else {
            Ok(problems)
        }
    }

    /// Static loop ranges of every linalg op, by snapshot op id (pre-order index).
    pub fn linalg_loop_ranges(&self) -> HashMap<u32, Vec<i64>> {
        self.op_features_of(Features::NONE)
            .into_iter()
            .filter_map(|features| Some((features.id, features.loops?)))
            .collect()
    }

    /// Features of every op, in pre-order (ids as in [`OwnedOp::snapshot`]).
    pub fn op_features(&self) -> Vec<crate::ir::OpFeatures> {
        self.op_features_of(Features::ALL)
    }

    /// Features of every op, in pre-order, computing only the costly ones `wanted` asks for
    /// (the others are left empty / None, as for an op that does not have them).
    pub fn op_features_of(&self, wanted: Features) -> Vec<crate::ir::OpFeatures> {
        let mut walk = FeatureWalk {
            wanted,
            next: 0,
            out: Vec::new(),
            printed_types: HashMap::new(),
            printed_attrs: HashMap::new(),
        };
        walk.op(self.raw, false);
        walk.out
    }

    /// Sets, on payload op `payload_id`, attribute `name` to the attribute `source_attr` of
    /// `library`'s op `library_id` (pre-order ids). The very same attribute object is used, so
    /// the result is what `transform.annotate` with that parameter produces.
    pub fn annotate_from(
        &self,
        library: &OwnedOp<'_>,
        edits: &[(u32, String, u32, String)],
    ) -> Result<(), String> {
        fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
            out.push(op);
            for child in children(op) {
                collect(child, out);
            }
        }
        let mut payload_ops = Vec::new();
        collect(self.raw, &mut payload_ops);
        let mut library_ops = Vec::new();
        collect(library.raw, &mut library_ops);
        for (payload_id, name, library_id, source_attr) in edits {
            let target = *payload_ops
                .get(*payload_id as usize)
                .ok_or("payload op id out of range")?;
            let source = *library_ops
                .get(*library_id as usize)
                .ok_or("library op id out of range")?;
            // SAFETY: `source` and `target` are live ops of `library` and of this payload (both
            // borrowed), in the same context; the very attribute object is shared, as uniqued
            // attributes are.
            unsafe {
                let attr = if source_attr.is_empty() {
                    // A unit annotation (`transform.annotate %op "name"` without a parameter).
                    mlirUnitAttrGet(mlirOperationGetContext(target))
                } else {
                    mlirOperationGetAttributeByName(source, string_ref(source_attr.as_bytes()))
                };
                if attr.ptr.is_null() {
                    return Err(format!("library op has no attribute '{source_attr}'"));
                }
                mlirOperationSetAttributeByName(target, string_ref(name.as_bytes()), attr);
            }
        }
        Ok(())
    }
}

/// Which of the costly op features a payload walk computes ([`OwnedOp::op_features_of`]). The
/// cheap ones (name, loop ranges, DPS input count, operand bit widths, whether a config is set)
/// are always computed; element types and printed indexing maps come with any of `contraction`,
/// `convolution` and `attention` (the checks that compare them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Each operand's printed type (`cast_compatible_type`, `dim_is_multiple_of`).
    pub operand_types: bool,
    /// The contraction dims of linalg ops (`transform.iree.match.contraction`).
    pub contraction: bool,
    /// The convolution dims of linalg ops (`transform.iree.match.convolution`).
    pub convolution: bool,
    /// The attention dims of IREE's attention ops (`transform.iree.match.attention`).
    pub attention: bool,
}

impl Features {
    /// Every feature.
    pub const ALL: Features = Features {
        operand_types: true,
        contraction: true,
        convolution: true,
        attention: true,
    };
    /// Only the cheap features.
    pub const NONE: Features = Features {
        operand_types: false,
        contraction: false,
        convolution: false,
        attention: false,
    };
}

/// A pre-order walk collecting [`crate::ir::OpFeatures`]. Printing a type or an attribute builds
/// an `AsmState` each time (it sorts the context's dialects), the costly part of a walk; types
/// and attributes are uniqued in the context, so each distinct one is printed once.
struct FeatureWalk {
    wanted: Features,
    next: u32,
    out: Vec<crate::ir::OpFeatures>,
    printed_types: HashMap<*const std::ffi::c_void, String>,
    printed_attrs: HashMap<*const std::ffi::c_void, String>,
}

impl FeatureWalk {
    fn print_type(&mut self, ty: MlirType) -> String {
        self.printed_types
            .entry(ty.ptr)
            .or_insert_with(|| {
                // SAFETY: `ty` is a live type of the walked payload's context (uniqued there, so
                // the same pointer always denotes the same type); only printed.
                print_with(|callback, data| unsafe { mlirTypePrint(ty, callback, data) })
            })
            .clone()
    }

    fn print_attr(&mut self, attr: MlirAttribute) -> String {
        self.printed_attrs
            .entry(attr.ptr)
            .or_insert_with(|| {
                // SAFETY: `attr` is a live attribute of the walked payload's context (uniqued
                // there); only printed.
                print_with(|callback, data| unsafe { mlirAttributePrint(attr, callback, data) })
            })
            .clone()
    }

    fn op(&mut self, op: MlirOperation, in_function: bool) {
        let wanted = self.wanted;
        let id = self.next;
        self.next += 1;
        let basics = OpBasics::read(op);
        let loops = basics.loops;
        let attention = if !wanted.attention {
            None
        } else if basics.name == "iree_linalg_ext.attention" {
            match_groups(op, 1, 5).map(|groups| (false, groups))
        } else if basics.name == "iree_linalg_ext.online_attention" {
            match_groups(op, 2, 5).map(|groups| (true, groups))
        } else {
            None
        };
        // Printed types are the costly part of a payload walk, and only ops with loops (linalg)
        // or attention ops are ever compared by element type: others get none.
        let typed = (loops.is_some() || attention.is_some())
            && (wanted.contraction || wanted.convolution || wanted.attention);
        let element_types = if typed {
            self.element_types(&basics.operand_types)
        } else {
            Vec::new()
        };
        let operand_types = if (loops.is_some() || attention.is_some()) && wanted.operand_types {
            basics
                .operand_types
                .iter()
                .map(|&ty| self.print_type(ty))
                .collect()
        } else {
            Vec::new()
        };
        let indexing_maps = if typed {
            // SAFETY: `op` is live; the shim returns its indexing maps attribute or null.
            let maps = unsafe { tunespec_mlir_shim::tunespecLinalgIndexingMaps(op) };
            (!maps.ptr.is_null()).then(|| self.print_attr(maps))
        } else {
            None
        };
        let contraction = if loops.is_some() && wanted.contraction {
            contraction_dims(op)
        } else {
            None
        };
        let convolution = if loops.is_some() && wanted.convolution {
            match_groups(op, 0, 8)
        } else {
            None
        };
        self.out.push(crate::ir::OpFeatures {
            id,
            name: basics.name,
            loops,
            num_inputs: (basics.inputs >= 0).then_some(basics.inputs as usize),
            operand_bitwidths: basics
                .operand_types
                .iter()
                .map(|&ty| element_bitwidth(ty))
                .collect(),
            in_function,
            element_types,
            operand_types,
            contraction,
            convolution,
            attention,
            indexing_maps,
            has_config: has_config(op),
        });
        for child in children(op) {
            self.op(child, in_function || basics.is_function);
        }
    }

    /// The printed element type of each operand (a non-shaped operand: its own type).
    fn element_types(&mut self, types: &[MlirType]) -> Vec<String> {
        types
            .iter()
            .map(|&ty| {
                // SAFETY: `ty` is a live type of the payload's context; only queried.
                let element = unsafe {
                    if mlirTypeIsAShaped(ty) {
                        mlirShapedTypeGetElementType(ty)
                    } else {
                        ty
                    }
                };
                self.print_type(element)
            })
            .collect()
    }
}

/// What the walk reads of every op, whatever features are wanted: read in one unsafe block,
/// apart from the features that depend on it.
struct OpBasics {
    name: String,
    /// A `*.func` with a body: the ops under it are in a function.
    is_function: bool,
    loops: Option<Vec<i64>>,
    /// DPS inputs (negative: not a DPS op).
    inputs: isize,
    operand_types: Vec<MlirType>,
}

impl OpBasics {
    fn read(op: MlirOperation) -> OpBasics {
        // SAFETY: `op` is a live op under the walked root (reached from it); it is only read,
        // and the shim writes at most the capacity it is given.
        unsafe {
            let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
            let has_body = mlirOperationGetNumRegions(op) > 0
                && !mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))
                    .ptr
                    .is_null();
            let is_function = name.ends_with(".func") && has_body;
            let loops = loop_ranges(op);
            let inputs = tunespec_mlir_shim::tunespecLinalgNumDpsInputs(op);
            let operand_types: Vec<MlirType> = (0..mlirOperationGetNumOperands(op))
                .map(|index| mlirValueGetType(mlirOperationGetOperand(op, index)))
                .collect();
            OpBasics {
                name,
                is_function,
                loops,
                inputs,
                operand_types,
            }
        }
    }
}

/// The element bit width of a shaped integer or float type; `None` for anything else.
fn element_bitwidth(ty: MlirType) -> Option<u32> {
    // SAFETY: `ty` is a type of a live op's operand (uniqued in the context); only queried.
    unsafe {
        if !mlirTypeIsAShaped(ty) {
            return None;
        }
        let element = mlirShapedTypeGetElementType(ty);
        if mlirTypeIsAInteger(element) {
            Some(mlirIntegerTypeGetWidth(element))
        } else if mlirTypeIsAFloat(element) {
            Some(mlirFloatTypeGetWidth(element))
        } else {
            None
        }
    }
}

/// Whether the op already carries a config (`lowering_config` or `compilation_info`).
fn has_config(op: MlirOperation) -> bool {
    ["lowering_config", "compilation_info"].iter().any(|name| {
        // SAFETY: `op` is live; the attribute is only looked up.
        !unsafe { mlirOperationGetAttributeByName(op, string_ref(name.as_bytes())) }
            .ptr
            .is_null()
    })
}

/// The static loop ranges of a linalg op (any number of loops), or None.
fn loop_ranges(op: MlirOperation) -> Option<Vec<i64>> {
    let mut ranges = vec![0i64; 8];
    loop {
        // SAFETY: `op` is a live op; the shim writes at most `ranges.len()` values into the buffer.
        let count = unsafe {
            tunespec_mlir_shim::tunespecLinalgLoopRanges(
                op,
                ranges.as_mut_ptr(),
                ranges.len() as isize,
            )
        };
        let count = usize::try_from(count).ok()?;
        if count <= ranges.len() {
            ranges.truncate(count);
            return Some(ranges);
        }
        ranges = vec![0; count];
    }
}

/// The batch, m, n and k loop ranges of a linalg contraction, or None.
fn contraction_dims(op: MlirOperation) -> Option<[Vec<i64>; 4]> {
    let mut ranges = vec![0i64; 8];
    loop {
        let mut counts = [0isize; 4];
        // SAFETY: `op` is a live operation; the shim writes at most `capacity` ranges into the
        // buffer and exactly four counts.
        let total = unsafe {
            tunespec_mlir_shim::tunespecContractionDims(
                op,
                ranges.as_mut_ptr(),
                ranges.len() as isize,
                counts.as_mut_ptr(),
            )
        };
        let total = usize::try_from(total).ok()?;
        if total > ranges.len() {
            ranges = vec![0; total];
            continue;
        }
        let mut groups: [Vec<i64>; 4] = Default::default();
        let mut start = 0;
        for (group, count) in groups.iter_mut().zip(counts) {
            let end = start + count as usize;
            *group = ranges[start..end].to_vec();
            start = end;
        }
        return Some(groups);
    }
}

/// The `groups` result groups IREE's convolution (kind 0) or attention (1, 2: online) matcher
/// computes on `op`, or None when the op is not of that kind.
fn match_groups(op: MlirOperation, kind: std::ffi::c_int, groups: usize) -> Option<Vec<Vec<i64>>> {
    let mut values = vec![0i64; 16];
    loop {
        let mut counts = vec![0isize; groups];
        // SAFETY: `op` is a live operation; the shim writes at most `capacity` values into the
        // buffer and one count per group of the kind (`groups` is that number: 8 or 5).
        let total = unsafe {
            tunespec_mlir_shim::tunespecIreeMatchDims(
                op,
                kind,
                values.as_mut_ptr(),
                values.len() as isize,
                counts.as_mut_ptr(),
            )
        };
        let total = usize::try_from(total).ok()?;
        if total > values.len() {
            values = vec![0; total];
            continue;
        }
        let mut out = Vec::with_capacity(groups);
        let mut start = 0;
        for count in counts {
            let end = start + count as usize;
            out.push(values[start..end].to_vec());
            start = end;
        }
        return Some(out);
    }
}

/// Function-like ops (`*.func` with a body), not looking inside them.
fn collect_functions(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    // SAFETY: `child` is a live op under the borrowed root; only read.
    unsafe {
        for child in children(op) {
            let name = read_string(mlirIdentifierStr(mlirOperationGetName(child)));
            let has_body = mlirOperationGetNumRegions(child) > 0
                && !mlirRegionGetFirstBlock(mlirOperationGetRegion(child, 0))
                    .ptr
                    .is_null();
            if name.ends_with(".func") && has_body {
                out.push(child);
            } else {
                collect_functions(child, out);
            }
        }
    }
}

/// Prefix of the name locations that [`OwnedOp::tag_ops`] puts on every op, so that ops can be
/// found again after [`OwnedOp::generalize_like_iree`] replaced some of them. Locations,
/// not attributes: matchers never look at locations (IREE's `cast_compatible_dag_from_root`
/// compares attributes), and MLIR's rewriters carry them to the replacement op.
const DISPATCH_TAG: &str = "tunespec.op.";

/// IREE's dispatch-level view of a payload: what `explain` predicts and `apply --as-dispatch`
/// writes.
impl OwnedOp<'_> {
    /// Wraps the location of every op in a name location carrying its pre-order id.
    pub fn tag_ops(&self) {
        fn walk(op: MlirOperation, next: &mut u32) {
            let id = *next;
            *next += 1;
            let name = format!("{DISPATCH_TAG}{id}");
            // SAFETY: `op` is a live operation of this module (reached from its root); the name
            // location is uniqued in the op's own context and wraps the op's location.
            unsafe {
                let location = mlirOperationGetLocation(op);
                let context = mlirLocationGetContext(location);
                let tagged = mlirLocationNameGet(context, string_ref(name.as_bytes()), location);
                mlirOperationSetLocation(op, tagged);
            }
            for child in children(op) {
                walk(child, next);
            }
        }
        let mut next = 0;
        walk(self.raw, &mut next);
    }

    /// Generalizes the named linalg ops that IREE's dispatch formation generalizes (see the
    /// shim's `tunespecGeneralizeLikeIree`); the number of ops rewritten.
    pub fn generalize_like_iree(&self) -> Result<usize, String> {
        // SAFETY: `self.raw` is a live operation owned by `self`; the shim rewrites ops nested
        // in it and keeps it alive.
        let count = unsafe { tunespec_mlir_shim::tunespecGeneralizeLikeIree(self.raw) };
        usize::try_from(count).map_err(|_| "a named linalg op could not be generalized".to_string())
    }

    /// For every op tagged by [`OwnedOp::tag_ops`]: its pre-order id now -> its id when it was
    /// tagged.
    pub fn op_tags(&self) -> HashMap<u32, u32> {
        fn walk(op: MlirOperation, next: &mut u32, out: &mut HashMap<u32, u32>) {
            let id = *next;
            *next += 1;
            if let Some(original) = tag_of(op) {
                out.insert(id, original);
            }
            for child in children(op) {
                walk(child, next, out);
            }
        }
        let mut out = HashMap::new();
        let mut next = 0;
        walk(self.raw, &mut next, &mut out);
        out
    }

    /// Removes the tags of [`OwnedOp::tag_ops`] (each op gets its own location back).
    pub fn untag_ops(&self) {
        fn walk(op: MlirOperation) {
            if tag_of(op).is_some() {
                // SAFETY: `op` is live; a tagged location is a name location (checked by
                // `tag_of`), whose child is the op's original location.
                unsafe {
                    let child = mlirLocationNameGetChildLoc(mlirOperationGetLocation(op));
                    mlirOperationSetLocation(op, child);
                }
            }
            for child in children(op) {
                walk(child);
            }
        }
        walk(self.raw);
    }
}

/// The pre-order id in a dispatch tag on `op`'s location, if it carries one.
fn tag_of(op: MlirOperation) -> Option<u32> {
    // SAFETY: `op` is a live operation; its location and the identifier of a name location are
    // owned by the context and outlive this call; the string is copied out.
    unsafe {
        let location = mlirOperationGetLocation(op);
        if !mlirLocationIsAName(location) {
            return None;
        }
        let name = read_string(mlirIdentifierStr(mlirLocationNameGetName(location)));
        name.strip_prefix(DISPATCH_TAG)?.parse().ok()
    }
}
