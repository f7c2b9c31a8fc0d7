//! The one module that holds raw MLIR handles.
//!
//! Everything else in tunespec works on owned Rust values (`ir::Module`, bytes, strings). Keeping
//! the `unsafe` C-API calls here means one place to audit for lifetimes, null handles and
//! diagnostics, and lets `build.rs` share the exact parsing code the CLI uses (this file is
//! part of tunespec-core, which `build.rs` also uses; it uses only `melior`, `mlir-sys` and sibling modules).
//!
//! Contexts are not `Send`: create one [`Mlir`] per thread.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::rc::Rc;

use mlir_sys::*;

use crate::ir::{self, Attr, Loc, ValueRef};
use crate::problem::{codes, Problem, Severity};

/// The bytecode version tunespec writes. Pinned so that output does not change with the MLIR
/// patch release and stays readable by consumers built on older MLIR (IREE 3.x reads version 6).
pub const BYTECODE_VERSION: i64 = 6;

/// Notes longer than this are cut: MLIR attaches whole printed ops and payloads to some messages.
const MAX_NOTE_CHARS: usize = 400;

/// An MLIR context with all dialects registered, unregistered dialects allowed (so IREE's
/// attributes parse as opaque attributes), threading off, and diagnostics captured.
pub struct Mlir {
    context: melior::Context,
    diagnostics: Rc<RefCell<Vec<Problem>>>,
}

impl Default for Mlir {
    fn default() -> Self {
        Self::new()
    }
}

/// How deep parsed IR may nest: operations in regions, and attributes, types, locations and
/// affine expressions inside each other. Checked after every parse (see `Mlir::too_deep`); every
/// thread that runs MLIR work has a stack sized for it ([`MLIR_STACK_BYTES`]).
pub const MAX_IR_DEPTH: usize = 256;

/// How many nodes the attributes, types and locations of a parsed input may expand to when
/// printed as trees: 16 per input byte, at least 4 Mi. Text without aliases expands to about one
/// node per byte or two; bytecode shares more, and the factor leaves room for it.
pub fn expansion_budget(input_len: usize) -> u64 {
    (input_len as u64).saturating_mul(16).max(4 << 20)
}

/// The stack of every thread that runs MLIR work: the CLI's main work, verify's workers and the
/// bytecode probe (which must not have more stack than the threads that parse after it).
/// MLIR recurses once per nesting level, a few hundred bytes to a few KiB per level; IR at
/// [`MAX_IR_DEPTH`] needs a few MiB, and this leaves a wide margin. Only touched pages are
/// committed.
pub const MLIR_STACK_BYTES: usize = 64 << 20;

impl Mlir {
    pub fn new() -> Self {
        Self::with_threading(false)
    }

    /// A context whose own thread pool parallelizes MLIR's work inside one module (the
    /// verifier checks isolated ops such as named sequences concurrently). For one large job
    /// (link, apply); many small jobs run one single-threaded context per worker instead.
    pub fn new_threaded() -> Self {
        Self::with_threading(true)
    }

    fn with_threading(threading: bool) -> Self {
        let registry = melior::dialect::DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        // SAFETY: `registry` is a live registry owned by this function, and no context has been
        // created from it yet; the call only adds an extension to it (no other pointer kept).
        unsafe { tunespec_mlir_shim::tunespecRegisterIreeTransformExtension(registry.to_raw()) };
        let context = melior::Context::new_with_registry(&registry, threading);
        context.set_allow_unregistered_dialects(true);
        // SAFETY: the context is alive; see shim.cpp for why op printing in notes is off.
        unsafe {
            tunespec_mlir_shim::tunespecContextSetPrintOpOnDiagnostic(context.to_raw(), false)
        };
        let diagnostics: Rc<RefCell<Vec<Problem>>> = Rc::default();
        let sink = Box::into_raw(Box::new(diagnostics.clone()));
        // SAFETY: `sink` is owned by the handler and freed by `drop_sink` when the context goes.
        unsafe {
            mlirContextAttachDiagnosticHandler(
                context.to_raw(),
                Some(collect_diagnostic),
                sink as *mut c_void,
                Some(drop_sink),
            )
        };
        Mlir {
            context,
            diagnostics,
        }
    }

    fn raw(&self) -> MlirContext {
        self.context.to_raw()
    }

    pub(crate) fn take_diagnostics(&self) -> Vec<Problem> {
        std::mem::take(&mut *self.diagnostics.borrow_mut())
    }

    /// Parses text or bytecode (detected by its magic) into a top-level operation WITHOUT
    /// running MLIR's verifier: call [`Mlir::verify`] after tunespec's own rules, so that a file
    /// gets every problem reported, not only the verifier's first.
    ///
    /// `source_name` becomes the file name of every location.
    pub fn parse(&self, bytes: &[u8], source_name: &str) -> Parsed<'_> {
        self.take_diagnostics();
        // Text printed by IREE uses aliases inside IREE's (opaque here) attributes: expanded
        // first, or they would dangle (see `alias.rs`). Bytecode has no aliases.
        let expanded = if bytes.starts_with(b"ML\xEFR") {
            std::borrow::Cow::Borrowed(bytes)
        } else {
            crate::alias::expand_in_iree_attributes(bytes)
        };
        let bytes: &[u8] = &expanded;
        let buffer = AlignedBuffer::new(bytes);
        let raw = unsafe {
            tunespec_mlir_shim::tunespecParseUnverified(
                self.raw(),
                string_ref(buffer.as_slice()),
                string_ref(source_name.as_bytes()),
            )
        };
        let mut problems = self.take_diagnostics();
        let module = if raw.ptr.is_null() {
            if !problems.iter().any(Problem::is_error) {
                problems.push(Problem::error(
                    codes::PARSE,
                    "MLIR could not parse the input",
                    Some(Loc {
                        file: source_name.to_string(),
                        line: 1,
                        col: 1,
                    }),
                ));
            }
            None
        } else if let Some(problem) = self.too_deep(raw, source_name, bytes.len()) {
            problems.push(problem);
            None
        } else {
            Some(OwnedOp {
                raw,
                _context: PhantomData,
            })
        };
        Parsed { module, problems }
    }

    /// Refuses IR nested deeper than [`MAX_IR_DEPTH`], or too large once expanded, before
    /// anything recursive (MLIR's printer, verifier and walkers, the bytecode writer, tunespec's
    /// snapshot) sees it: those recurse once per level and would overflow the stack. Text
    /// brackets are limited before parsing (`verify::byte_checks`), but aliases (`#a1 = [#a0]`),
    /// long affine sums and bytecode nest without them. Aliases can also share sub-elements
    /// (`!t1 = (!t0) -> !t0`), so that a few lines print as gigabytes: the attributes, types and
    /// locations of all ops, expanded as the printer writes them, may count at most
    /// [`expansion_budget`] nodes. Destroys the op, except ops nested too deep: destroying them
    /// recurses too, so they are leaked (one rejected input's memory, in a process that reports
    /// an error).
    fn too_deep(&self, raw: MlirOperation, source_name: &str, input_len: usize) -> Option<Problem> {
        let mut kind = 0;
        let budget = expansion_budget(input_len);
        // SAFETY: `raw` is the live op the parser just returned; the walk is iterative.
        let found = unsafe {
            tunespec_mlir_shim::tunespecFindTooDeep(raw, MAX_IR_DEPTH as isize, budget, &mut kind)
        };
        if found.ptr.is_null() {
            return None;
        }
        let loc = unsafe { location_to_loc(mlirOperationGetLocation(found)) }.or(Some(Loc {
            file: source_name.to_string(),
            line: 1,
            col: 1,
        }));
        let message = match kind {
            0 => format!("operations nested in regions deeper than {MAX_IR_DEPTH} levels"),
            1 => format!(
                "an attribute, type or location of this operation nests deeper than {MAX_IR_DEPTH} levels"
            ),
            _ => format!(
                "attributes and types expand to more than {budget} nodes when printed (shared aliases multiply); first exceeded here"
            ),
        };
        if kind != 0 {
            // SAFETY: nothing else owns the op; op destruction does not recurse into attributes.
            unsafe { mlirOperationDestroy(raw) };
        }
        self.take_diagnostics();
        let help = if kind == 2 {
            "an alias used twice in the next alias (`!t1 = (!t0) -> !t0`) doubles the printed size per line; MLIR would print without end"
        } else {
            "MLIR's printer and walkers recurse once per level and would overflow the stack; aliases (`#a1 = [#a0]`) and long affine expressions nest without brackets"
        };
        Some(Problem::error(codes::TOO_DEEP, message, loc).with_help(help))
    }

    /// Runs MLIR's verifier on `op`; returns its diagnostics (empty when it verifies).
    pub fn verify(&self, op: &OwnedOp<'_>) -> Vec<Problem> {
        self.take_diagnostics();
        let ok = unsafe { mlirOperationVerify(op.raw) };
        let mut problems = self.take_diagnostics();
        if !ok && !problems.iter().any(Problem::is_error) {
            problems.push(Problem::error(codes::PARSE, "MLIR verifier failed", None));
        }
        problems
    }
}

/// The result of [`Mlir::parse`]: the operation when MLIR accepted the input, and every
/// diagnostic MLIR emitted (warnings included) either way.
pub struct Parsed<'c> {
    pub module: Option<OwnedOp<'c>>,
    pub problems: Vec<Problem>,
}

/// An owned top-level operation, destroyed on drop.
pub struct OwnedOp<'c> {
    raw: MlirOperation,
    _context: PhantomData<&'c Mlir>,
}

impl Drop for OwnedOp<'_> {
    fn drop(&mut self) {
        unsafe { mlirOperationDestroy(self.raw) }
    }
}

impl OwnedOp<'_> {
    /// Converts the IR into the plain-data snapshot the rules work on.
    pub fn snapshot(&self) -> ir::Module {
        let mut builder = SnapshotBuilder::default();
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
        let root = unsafe { builder.op(self.raw) };
        ir::Module { root }
    }

    /// MLIR's verifier on the top-level op named `name` only (and what it contains).
    pub fn verify_symbol(&self, mlir: &Mlir, name: &str) -> Vec<Problem> {
        let Some(op) = self
            .body_ops()
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(name))
        else {
            return vec![Problem::error(
                codes::PARSE,
                format!("no top-level symbol @{name}"),
                None,
            )];
        };
        mlir.take_diagnostics();
        let ok = unsafe { mlirOperationVerify(op) };
        let mut problems = mlir.take_diagnostics();
        if !ok && !problems.iter().any(Problem::is_error) {
            problems.push(Problem::error(codes::PARSE, "MLIR verifier failed", None));
        }
        problems
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
        let root = unsafe { builder.op(self.raw) };
        ir::Module { root }
    }

    /// Whether this op itself carries attribute `name` (without a whole snapshot).
    pub fn snapshot_root_has_attr(&self, name: &str) -> bool {
        unsafe {
            !mlirOperationGetAttributeByName(self.raw, string_ref(name.as_bytes()))
                .ptr
                .is_null()
        }
    }

    /// The printed IR followed by a newline: byte-identical to what `mlir-opt` writes.
    pub fn print_file(&self) -> String {
        let mut text = self.print();
        text.push('\n');
        text
    }

    /// Writes MLIR bytecode at the pinned [`BYTECODE_VERSION`].
    pub fn to_bytecode(&self) -> Result<Vec<u8>, String> {
        let mut out: Vec<u8> = Vec::new();
        unsafe {
            let config = mlirBytecodeWriterConfigCreate();
            mlirBytecodeWriterConfigDesiredEmitVersion(config, BYTECODE_VERSION);
            let result = mlirOperationWriteBytecodeWithConfig(
                self.raw,
                config,
                Some(append_bytes),
                &mut out as *mut Vec<u8> as *mut c_void,
            );
            mlirBytecodeWriterConfigDestroy(config);
            if result.value == 0 {
                return Err(format!(
                    "MLIR could not write bytecode version {BYTECODE_VERSION}"
                ));
            }
        }
        Ok(out)
    }

    /// Prints the IR in MLIR's custom assembly form (what `mlir-opt` prints). Everything
    /// tunespec prints was verified (inputs at parse, linked libraries before output, payloads
    /// after parse), so the printer is told so instead of verifying the whole module again.
    pub fn print(&self) -> String {
        let mut out: Vec<u8> = Vec::new();
        unsafe {
            let flags = mlirOpPrintingFlagsCreate();
            mlirOpPrintingFlagsAssumeVerified(flags);
            mlirOperationPrintWithFlags(
                self.raw,
                flags,
                Some(append_bytes),
                &mut out as *mut Vec<u8> as *mut c_void,
            );
            mlirOpPrintingFlagsDestroy(flags);
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// A copy of the input that is 64-byte aligned (MLIR requires it for bytecode resource blobs)
/// and NUL-terminated past its end (MLIR's lexer reads one byte past the buffer).
struct AlignedBuffer {
    chunks: Vec<Chunk>,
    len: usize,
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Chunk([u8; 64]);

impl AlignedBuffer {
    fn new(bytes: &[u8]) -> Self {
        let chunk_count = (bytes.len() + 1).div_ceil(64);
        let mut chunks = vec![Chunk([0; 64]); chunk_count];
        let storage = unsafe {
            std::slice::from_raw_parts_mut(chunks.as_mut_ptr() as *mut u8, chunk_count * 64)
        };
        storage[..bytes.len()].copy_from_slice(bytes);
        AlignedBuffer {
            chunks,
            len: bytes.len(),
        }
    }
    fn as_slice(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr() as *const u8, self.len) }
    }
}

fn string_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: bytes.as_ptr() as *const _,
        length: bytes.len(),
    }
}

/// Reads an `MlirStringRef` without melior's `StringRef::as_str`, which panics on empty strings.
unsafe fn read_string(value: MlirStringRef) -> String {
    if value.data.is_null() || value.length == 0 {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(value.data as *const u8, value.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

unsafe extern "C" fn append_bytes(chunk: MlirStringRef, user_data: *mut c_void) {
    let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
    if !chunk.data.is_null() && chunk.length > 0 {
        out.extend_from_slice(unsafe {
            std::slice::from_raw_parts(chunk.data as *const u8, chunk.length)
        });
    }
}

fn print_with(print: impl FnOnce(MlirStringCallback, *mut c_void)) -> String {
    let mut out: Vec<u8> = Vec::new();
    print(Some(append_bytes), &mut out as *mut Vec<u8> as *mut c_void);
    String::from_utf8_lossy(&out).into_owned()
}

unsafe extern "C" fn collect_diagnostic(
    diagnostic: MlirDiagnostic,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    let sink = unsafe { &*(user_data as *const Rc<RefCell<Vec<Problem>>>) };
    let problem = unsafe { convert_diagnostic(diagnostic) };
    let mut sink = sink.borrow_mut();
    // MLIR emits some warnings twice; keep one.
    if !sink.contains(&problem) {
        sink.push(problem);
    }
    // Handled: MLIR must not print it to stderr.
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn drop_sink(user_data: *mut c_void) {
    drop(unsafe { Box::from_raw(user_data as *mut Rc<RefCell<Vec<Problem>>>) });
}

/// Finds the first file:line:col inside a location, looking through name, call-site and fused
/// locations (MLIR wraps locations in those after inlining or fusion). Iterative, with a budget:
/// a location can nest as deep as the IR allows.
unsafe fn location_to_loc(location: MlirLocation) -> Option<Loc> {
    let mut pending = vec![location];
    let mut budget = 4 * MAX_IR_DEPTH;
    unsafe {
        while let Some(location) = pending.pop() {
            budget = budget.checked_sub(1)?;
            if location.ptr.is_null() {
                continue;
            }
            if mlirLocationIsAFileLineColRange(location) {
                let file = read_string(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                    location,
                )));
                let line = mlirLocationFileLineColRangeGetStartLine(location);
                let col = mlirLocationFileLineColRangeGetStartColumn(location);
                // The implicit module around top-level ops sits at line 0, column 0.
                return Some(Loc {
                    file,
                    line: line.max(1) as u32,
                    col: col.max(1) as u32,
                });
            }
            if mlirLocationIsAName(location) {
                pending.push(mlirLocationNameGetChildLoc(location));
            } else if mlirLocationIsACallSite(location) {
                pending.push(mlirLocationCallSiteGetCallee(location));
            } else if mlirLocationIsAFused(location) {
                let count = mlirLocationFusedGetNumLocations(location);
                let mut locations = vec![
                    MlirLocation {
                        ptr: std::ptr::null_mut()
                    };
                    count as usize
                ];
                mlirLocationFusedGetLocations(location, locations.as_mut_ptr());
                // Reversed onto the stack: the first location is looked at first.
                pending.extend(locations.into_iter().rev());
            }
        }
    }
    None
}

unsafe fn convert_diagnostic(diagnostic: MlirDiagnostic) -> Problem {
    unsafe {
        let raw_severity = mlirDiagnosticGetSeverity(diagnostic);
        let severity = if raw_severity == MlirDiagnosticSeverity_MlirDiagnosticError {
            Severity::Error
        } else if raw_severity == MlirDiagnosticSeverity_MlirDiagnosticWarning {
            Severity::Warning
        } else {
            Severity::Note
        };
        let message = print_with(|callback, data| mlirDiagnosticPrint(diagnostic, callback, data));
        let loc = location_to_loc(mlirDiagnosticGetLocation(diagnostic));
        let mut problem = Problem {
            code: if severity == Severity::Error {
                codes::PARSE
            } else {
                codes::MLIR_WARNING
            },
            severity,
            message: first_line(&message),
            loc,
            help: None,
            related: Vec::new(),
        };
        for index in 0..mlirDiagnosticGetNumNotes(diagnostic) {
            let note = mlirDiagnosticGetNote(diagnostic, index);
            let text = print_with(|callback, data| mlirDiagnosticPrint(note, callback, data));
            // "see current operation: <the whole op>" repeats the input; drop it.
            if text.starts_with("see current operation") {
                continue;
            }
            if let Some(note_loc) = location_to_loc(mlirDiagnosticGetLocation(note)) {
                problem.related.push((note_loc, first_line(&text)));
            } else if problem.help.is_none() {
                problem.help = Some(first_line(&text));
            }
        }
        problem
    }
}

/// Keeps a message to its first line and a bounded length, so that a diagnostic never carries a
/// whole printed payload.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim_end();
    if line.chars().count() > MAX_NOTE_CHARS {
        let cut: String = line.chars().take(MAX_NOTE_CHARS).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

/// Builds an `ir::Op` tree, numbering ops and blocks in pre-order and caching printed types and
/// file names (both are uniqued by MLIR, so their pointers are stable keys).
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
                print_with(|callback, data| unsafe { mlirTypePrint(ty, callback, data) })
            })
            .clone()
    }

    unsafe fn loc(&mut self, location: MlirLocation) -> Option<Loc> {
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
        unsafe {
            let ty = mlirAttributeGetType(attr);
            mlirTypeIsAIndex(ty)
                || (mlirTypeIsAInteger(ty)
                    && mlirIntegerTypeIsSignless(ty)
                    && mlirIntegerTypeGetWidth(ty) <= 64)
        }
    }
}

/// Editing operations the linker needs. They work on top-level symbols of a module, by name, so
/// that callers never see an operation handle.
impl OwnedOp<'_> {
    /// Top-level ops of the (first block of the) body, in order.
    fn body_ops(&self) -> Vec<MlirOperation> {
        let mut ops = Vec::new();
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

    fn symbol_name_of(op: MlirOperation) -> Option<String> {
        unsafe {
            let attr = mlirOperationGetAttributeByName(op, string_ref(b"sym_name"));
            if attr.ptr.is_null() || !mlirAttributeIsAString(attr) {
                return None;
            }
            Some(read_string(mlirStringAttrGetValue(attr)))
        }
    }

    fn set_symbol_name_of(op: MlirOperation, name: &str) {
        unsafe {
            let context = mlirOperationGetContext(op);
            let attr = mlirStringAttrGet(context, string_ref(name.as_bytes()));
            mlirOperationSetAttributeByName(op, string_ref(b"sym_name"), attr);
        }
    }

    /// Sets `sym_name` on this operation itself (a module nested into a linked library).
    pub fn set_symbol_name(&self, name: &str) {
        Self::set_symbol_name_of(self.raw, name);
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

    /// Clones the top-level ops of `source` named in `names` (in `source`'s order) into this
    /// module, before its last top-level op (the entry point).
    pub fn insert_symbol_clones(&self, source: &OwnedOp<'_>, names: &[String]) {
        let anchor = self.body_ops().last().copied();
        let wanted: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        for op in source.body_ops() {
            if Self::symbol_name_of(op).is_some_and(|name| wanted.contains(name.as_str())) {
                self.insert_before(anchor, unsafe { mlirOperationClone(op) });
            }
        }
    }

    /// Like [`OwnedOp::insert_symbol_clones`] but moves the ops out of `source` (which the
    /// caller is about to drop): no copy, so linking needs no second copy of every input.
    pub fn move_symbols_from(&self, source: &OwnedOp<'_>, names: &[String]) {
        let anchor = self.body_ops().last().copied();
        let wanted: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        for op in source.body_ops() {
            if Self::symbol_name_of(op).is_some_and(|name| wanted.contains(name.as_str())) {
                unsafe { mlirOperationRemoveFromParent(op) };
                self.insert_before(anchor, op);
            }
        }
    }

    /// Clones all of `source` (a module) into this module as a nested op named `name`, before
    /// this module's last top-level op.
    pub fn insert_nested_clone(&self, source: &OwnedOp<'_>, name: &str) {
        let anchor = self.body_ops().last().copied();
        let clone = unsafe { mlirOperationClone(source.raw) };
        Self::set_symbol_name_of(clone, name);
        self.insert_before(anchor, clone);
    }

    fn insert_before(&self, anchor: Option<MlirOperation>, op: MlirOperation) {
        unsafe {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.raw, 0));
            match anchor {
                Some(anchor) => mlirBlockInsertOwnedOperationBefore(block, anchor, op),
                None => mlirBlockAppendOwnedOperation(block, op),
            }
        }
    }
}

/// How a byte blob is stored as an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlobForm {
    /// `dense<"0x...">` : vector<N x i8> (IREE's default form).
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

/// Payload-side operations: carrying a library as an attribute, and applying a library.
impl OwnedOp<'_> {
    /// Sets attribute `name` on this op to `bytes` as an i8 vector blob.
    pub fn set_blob_attr(&self, name: &str, bytes: &[u8], form: BlobForm) -> Result<(), String> {
        if bytes.is_empty() {
            return Err("cannot attach an empty blob".into());
        }
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
        let op_name = unsafe { read_string(mlirIdentifierStr(mlirOperationGetName(op))) };
        let mut data: *const std::ffi::c_char = std::ptr::null();
        let mut length: isize = 0;
        let ok =
            unsafe { tunespec_mlir_shim::tunespecAttributeBytes(attr, &mut data, &mut length) };
        if !ok || data.is_null() || length <= 0 {
            return Some(Err(format!(
                "attribute '{name}' on '{op_name}' holds no bytes (expected dense<\"0x...\"> : vector<N x i8>, a dense_resource blob or a string)"
            )));
        }
        let bytes =
            unsafe { std::slice::from_raw_parts(data as *const u8, length as usize) }.to_vec();
        Some(Ok((op_name, bytes)))
    }

    /// Removes attribute `name` from this op and every nested op.
    pub fn remove_attr_everywhere(&self, name: &str) {
        fn strip(op: MlirOperation, name: &str) {
            unsafe {
                mlirOperationRemoveAttributeByName(op, string_ref(name.as_bytes()));
                for child in children(op) {
                    strip(child, name);
                }
            }
        }
        strip(self.raw, name);
    }

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

    /// Replaces the `actions` list of the `foreach_match` ops in named sequence `entry`.
    /// Used to instrument a library for `explain` (each action wrapped to record its pair).
    pub fn set_foreach_actions(&self, entry: &str, actions: &[String]) -> Result<(), String> {
        let entry_op = self
            .body_ops()
            .into_iter()
            .find(|&op| Self::symbol_name_of(op).as_deref() == Some(entry))
            .ok_or_else(|| format!("no named sequence '@{entry}'"))?;
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

    /// Static loop ranges of every linalg op, by snapshot op id (pre-order index).
    pub fn linalg_loop_ranges(&self) -> HashMap<u32, Vec<i64>> {
        self.op_features()
            .into_iter()
            .filter_map(|features| Some((features.id, features.loops?)))
            .collect()
    }
}

/// The static loop ranges of a linalg op (any number of loops), or None.
fn loop_ranges(op: MlirOperation) -> Option<Vec<i64>> {
    let mut ranges = vec![0i64; 8];
    loop {
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

/// The ops directly nested in `op` (every block of every region), in order.
fn children(op: MlirOperation) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    unsafe {
        for index in 0..mlirOperationGetNumRegions(op) {
            let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
            while !block.ptr.is_null() {
                let mut child = mlirBlockGetFirstOperation(block);
                while !child.ptr.is_null() {
                    out.push(child);
                    child = mlirOperationGetNextInBlock(child);
                }
                block = mlirBlockGetNextInRegion(block);
            }
        }
    }
    out
}

/// Function-like ops (`*.func` with a body), not looking inside them.
fn collect_functions(op: MlirOperation, out: &mut Vec<MlirOperation>) {
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

/// The native matcher's view of a payload, and its edits.
impl OwnedOp<'_> {
    /// Features of every op, in pre-order (ids as in [`OwnedOp::snapshot`]).
    pub fn op_features(&self) -> Vec<crate::ir::OpFeatures> {
        fn bitwidth(ty: MlirType) -> Option<u32> {
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
        fn walk(
            op: MlirOperation,
            in_function: bool,
            next: &mut u32,
            out: &mut Vec<crate::ir::OpFeatures>,
        ) {
            unsafe {
                let id = *next;
                *next += 1;
                let name = read_string(mlirIdentifierStr(mlirOperationGetName(op)));
                let has_body = mlirOperationGetNumRegions(op) > 0
                    && !mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))
                        .ptr
                        .is_null();
                let is_function = name.ends_with(".func") && has_body;
                let loops = loop_ranges(op);
                let inputs = tunespec_mlir_shim::tunespecLinalgNumDpsInputs(op);
                let operand_bitwidths = (0..mlirOperationGetNumOperands(op))
                    .map(|index| bitwidth(mlirValueGetType(mlirOperationGetOperand(op, index))))
                    .collect();
                // Printed types are the costly part of a payload walk, and only ops with loops
                // (linalg) are ever compared by element type: others get none.
                let typed_operands = if loops.is_some() {
                    mlirOperationGetNumOperands(op)
                } else {
                    0
                };
                let element_types = (0..typed_operands)
                    .map(|index| {
                        let ty = mlirValueGetType(mlirOperationGetOperand(op, index));
                        let element = if mlirTypeIsAShaped(ty) {
                            mlirShapedTypeGetElementType(ty)
                        } else {
                            ty
                        };
                        print_with(|callback, data| mlirTypePrint(element, callback, data))
                    })
                    .collect();
                let (contraction, indexing_maps) = if loops.is_some() {
                    let maps = tunespec_mlir_shim::tunespecLinalgIndexingMaps(op);
                    let maps = (!maps.ptr.is_null()).then(|| {
                        print_with(|callback, data| mlirAttributePrint(maps, callback, data))
                    });
                    (contraction_dims(op), maps)
                } else {
                    (None, None)
                };
                let has_config = ["lowering_config", "compilation_info"].iter().any(|name| {
                    !mlirOperationGetAttributeByName(op, string_ref(name.as_bytes()))
                        .ptr
                        .is_null()
                });
                out.push(crate::ir::OpFeatures {
                    id,
                    name,
                    loops,
                    num_inputs: (inputs >= 0).then_some(inputs as usize),
                    operand_bitwidths,
                    in_function,
                    element_types,
                    contraction,
                    indexing_maps,
                    has_config,
                });
                for child in children(op) {
                    walk(child, in_function || is_function, next, out);
                }
            }
        }
        let mut out = Vec::new();
        let mut next = 0;
        walk(self.raw, false, &mut next, &mut out);
        out
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
            unsafe {
                let attr =
                    mlirOperationGetAttributeByName(source, string_ref(source_attr.as_bytes()));
                if attr.ptr.is_null() {
                    return Err(format!("library op has no attribute '{source_attr}'"));
                }
                mlirOperationSetAttributeByName(target, string_ref(name.as_bytes()), attr);
            }
        }
        Ok(())
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
