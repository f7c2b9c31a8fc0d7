//! Raw bindings to `shim.cpp`: MLIR C++ entry points missing from MLIR's C API.
//!
//! Why a separate crate: tunespec's `build.rs` verifies specs with the same code as the CLI, so
//! it needs these functions too, and a build script can only link native code that a
//! dependency built before it. Used only by tunespec-core's `mlir/` module.
use mlir_sys::{MlirAttribute, MlirContext, MlirDialectRegistry, MlirOperation, MlirStringRef};

unsafe extern "C" {
    /// Adds IREE's tuning-spec matcher ops (`transform.iree.match.*`, IREE 3.13's syntax,
    /// verifiers, effects and semantics; see `iree_match_ops.cpp`) to the transform dialect of
    /// every context created from `registry` afterwards. The C API cannot add transform dialect
    /// extensions, hence this function; it only registers, nothing runs before a context loads
    /// the transform dialect.
    pub fn tunespecRegisterIreeTransformExtension(registry: MlirDialectRegistry);
    /// Enables or disables "see current operation" notes (and the op printing behind them).
    pub fn tunespecContextSetPrintOpOnDiagnostic(context: MlirContext, enable: bool);
    /// Parses text or bytecode without verifying; a null operation on parse failure.
    pub fn tunespecParseUnverified(
        context: MlirContext,
        source: MlirStringRef,
        source_name: MlirStringRef,
    ) -> MlirOperation;
    /// The bytes of a dense elements, dense_resource or string attribute; false otherwise.
    pub fn tunespecAttributeBytes(
        attribute: MlirAttribute,
        data: *mut *const std::ffi::c_char,
        length: *mut isize,
    ) -> bool;
    /// Static loop ranges of a linalg op (dynamic: i64::MIN); -1 if not a LinalgOp.
    pub fn tunespecLinalgLoopRanges(
        operation: MlirOperation,
        out: *mut i64,
        capacity: isize,
    ) -> isize;
    /// Number of DPS inputs of a linalg op (its inits follow); -1 if not a LinalgOp.
    pub fn tunespecLinalgNumDpsInputs(operation: MlirOperation) -> isize;
    /// All attributes of an op (inherent and discardable) as one dictionary attribute.
    pub fn tunespecOperationGetAttrDictionary(operation: MlirOperation) -> MlirAttribute;
    /// The first op nesting deeper than `limit` (kind 0: ops in regions; kind 1: its
    /// attributes, types or locations), or at which the IR so far expands to more than `budget`
    /// printed nodes (kind 2), or the first op with a null operand (kind 3: MLIR's parser leaves
    /// them for operands defined inside the op's own regions); null when there is none.
    /// Iterative: safe on any depth.
    pub fn tunespecFindTooDeep(
        root: MlirOperation,
        limit: isize,
        budget: u64,
        kind: *mut std::ffi::c_int,
    ) -> MlirOperation;
    /// Generalizes, under `root`, the named linalg ops that IREE's dispatch formation turns
    /// into `linalg.generic` (contractions, convolutions, IREE's list of elementwise ops),
    /// keeping their discardable attributes; the count rewritten, -1 if one failed.
    pub fn tunespecGeneralizeLikeIree(root: MlirOperation) -> isize;
    /// The loop ranges of a contraction's batch, m, n and k dims (group sizes in `counts`),
    /// as IREE's `transform.iree.match.contraction` reports them; -1 if not a contraction.
    pub fn tunespecContractionDims(
        operation: MlirOperation,
        out: *mut i64,
        capacity: isize,
        counts: *mut isize,
    ) -> isize;
    /// The result groups of `transform.iree.match.convolution` (kind 0, eight groups),
    /// `.attention` (1) or `.online_attention` (2, five groups each) on `operation`, from the code
    /// those ops run (`iree_match_ops.cpp`): sizes in `counts`, values in `out` (at most
    /// `capacity`); returns the total, or -1 when the op is not of that kind.
    pub fn tunespecIreeMatchDims(
        operation: MlirOperation,
        kind: std::ffi::c_int,
        out: *mut i64,
        capacity: isize,
        counts: *mut isize,
    ) -> isize;
    /// Renames top-level symbols `old_names[i]` -> `new_names[i]` (i < `count`) of `module` and
    /// rewrites every use nested in it, in one walk (`symbols.cpp`); -1 on success, else the
    /// index of the first pair whose old name is not one top-level symbol or is repeated
    /// (nothing changed then).
    pub fn tunespecRenameSymbols(
        module: MlirOperation,
        old_names: *const MlirStringRef,
        new_names: *const MlirStringRef,
        count: isize,
    ) -> isize;
    /// The indexing maps of a linalg op (implicit ones of named ops too); null otherwise.
    pub fn tunespecLinalgIndexingMaps(operation: MlirOperation) -> MlirAttribute;
}
