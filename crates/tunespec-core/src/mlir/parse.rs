//! Parsing (text and bytecode, with the depth and size limits checked after every parse),
//! MLIR's verifier, printing and the bytecode writer.

use std::ffi::c_void;
use std::marker::PhantomData;

use mlir_sys::*;

use super::context::location_to_loc;
use super::ffi::{append_bytes, read_string, string_ref};
use super::{Mlir, OwnedOp};
use crate::ir::Loc;
use crate::problem::{codes, Problem};

/// The bytecode version tunespec writes. Pinned so that output does not change with the MLIR
/// patch release and stays readable by consumers built on older MLIR (IREE 3.x reads version 6).
pub const BYTECODE_VERSION: i64 = 6;

/// The bytecode version of a module that holds ops of a payload dialect (`arith`, `linalg`,
/// ...: the op dags in the bodies of `transform.iree.match.cast_compatible_dag_from_root` and
/// `transform.iree.match.regions`). From version 5 on, an op's properties are written in its
/// own native encoding, which a reader decodes field by field: IREE 3.13 (MLIR 24) gave
/// `arith.addf`/`subf`/`mulf`/`divf`, `math.fma` and `vector.contract` another optional
/// property, so it reads past the end of what MLIR 22 wrote ("attempting to parse a byte at the
/// end of the bytecode"). Version 4 writes properties as attributes, which every newer reader
/// converts by name, absent optional ones included. Transform and builtin ops, the rest of a
/// library, keep version 6.
pub const PAYLOAD_BYTECODE_VERSION: i64 = 4;

/// How deep parsed IR may nest: operations in regions, and attributes, types, locations and
/// affine expressions inside each other. Checked after every parse (see `Mlir::too_deep`); every
/// thread that runs MLIR work has a stack sized for it
/// ([`MLIR_STACK_BYTES`](super::MLIR_STACK_BYTES)).
pub const MAX_IR_DEPTH: usize = 256;

/// How many nodes the attributes, types and locations of a parsed input may expand to when
/// printed as trees: 16 per input byte, at least 4 Mi. Text without aliases expands to about one
/// node per byte or two; bytecode shares more, and the factor leaves room for it.
pub fn expansion_budget(input_len: usize) -> u64 {
    (input_len as u64).saturating_mul(16).max(4 << 20)
}

impl Mlir {
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
        // SAFETY: the context is live; `buffer` (aligned and NUL-terminated past its end, as MLIR's
        // lexer needs) and `source_name` outlive the call; the parser copies what it keeps, and the
        // result is a new op owned by the caller (or null).
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
    /// [`expansion_budget`] nodes. Also refuses ops with null operands, which MLIR's parser
    /// leaves, without an error, when an operand refers to a value that the op's own regions
    /// define (see the shim): every reader of an operand would dereference null.
    /// Destroys the op, except ops nested too deep: destroying them
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
        // SAFETY: `found` is an op of the live `raw` that the shim returned; its location belongs
        // to the context.
        let loc = unsafe { location_to_loc(mlirOperationGetLocation(found)) }.or(Some(Loc {
            file: source_name.to_string(),
            line: 1,
            col: 1,
        }));
        let message = match kind {
            0 => format!("operations nested in regions deeper than {MAX_IR_DEPTH} levels"),
            3 => "an operand of this operation refers to a value defined inside the operation's own region (MLIR leaves the operand null)".to_string(),
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
        let help = if kind == 3 {
            "a value must be defined before the operation that uses it, outside its regions; check the order of block headers (`^bb0(...)`) and operations"
        } else if kind == 2 {
            "an alias used twice in the next alias (`!t1 = (!t0) -> !t0`) doubles the printed size per line; MLIR would print without end"
        } else {
            "MLIR's printer and walkers recurse once per level and would overflow the stack; aliases (`#a1 = [#a0]`) and long affine expressions nest without brackets"
        };
        let code = if kind == 3 {
            codes::PARSE
        } else {
            codes::TOO_DEEP
        };
        Some(Problem::error(code, message, loc).with_help(help))
    }

    /// Runs MLIR's verifier on `op`; returns its diagnostics (empty when it verifies).
    pub fn verify(&self, op: &OwnedOp<'_>) -> Vec<Problem> {
        self.take_diagnostics();
        // SAFETY: `op.raw` is live (borrowed) and was parsed in this context; the verifier only
        // reads it.
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
    /// The parsed op, or `None` when MLIR could not parse the input (or it is too deep).
    pub module: Option<OwnedOp<'c>>,
    /// MLIR's diagnostics and tunespec's limit findings.
    pub problems: Vec<Problem>,
}

/// Verifying, printing and writing a parsed module.
impl OwnedOp<'_> {
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
        // SAFETY: `op` is a live top-level op of `self` (borrowed); the verifier only reads it.
        let ok = unsafe { mlirOperationVerify(op) };
        let mut problems = mlir.take_diagnostics();
        if !ok && !problems.iter().any(Problem::is_error) {
            problems.push(Problem::error(codes::PARSE, "MLIR verifier failed", None));
        }
        problems
    }

    /// The printed IR followed by a newline: byte-identical to what `mlir-opt` writes.
    pub fn print_file(&self) -> String {
        let mut text = self.print();
        text.push('\n');
        text
    }

    /// [`OwnedOp::print_file`] as bytes, for output files: no UTF-8 check and no copy (a
    /// large library prints tens of megabytes; MLIR escapes every non-printable byte in the
    /// strings it prints, so the text is UTF-8 whenever the input was).
    pub fn print_file_bytes(&self) -> Vec<u8> {
        let mut bytes = self.print_bytes();
        bytes.push(b'\n');
        bytes
    }

    /// Writes MLIR bytecode at the pinned [`BYTECODE_VERSION`], or at
    /// [`PAYLOAD_BYTECODE_VERSION`] when the IR holds ops of payload dialects.
    pub fn to_bytecode(&self) -> Result<Vec<u8>, String> {
        let version = self.bytecode_version();
        let mut out: Vec<u8> = Vec::new();
        // SAFETY: `self.raw` is live; the config is created and destroyed here; the callback gets
        // `&mut out`, alive for the call.
        unsafe {
            let config = mlirBytecodeWriterConfigCreate();
            mlirBytecodeWriterConfigDesiredEmitVersion(config, version);
            let result = mlirOperationWriteBytecodeWithConfig(
                self.raw,
                config,
                Some(append_bytes),
                &mut out as *mut Vec<u8> as *mut c_void,
            );
            mlirBytecodeWriterConfigDestroy(config);
            if result.value == 0 {
                return Err(format!("MLIR could not write bytecode version {version}"));
            }
        }
        Ok(out)
    }

    /// The version [`OwnedOp::to_bytecode`] writes this IR at: [`BYTECODE_VERSION`] unless an
    /// op outside the `builtin` and `transform` dialects is nested in it.
    pub fn bytecode_version(&self) -> i64 {
        extern "C" fn visit(op: MlirOperation, found: *mut c_void) -> MlirWalkResult {
            // SAFETY: `op` is live for the callback and its name lives as long as the context;
            // `found` is the `bool` passed to the walk below, alive for it.
            let name = unsafe { read_string(mlirIdentifierStr(mlirOperationGetName(op))) };
            if name.starts_with("builtin.") || name.starts_with("transform.") {
                return MlirWalkResult_MlirWalkResultAdvance;
            }
            // SAFETY: see above.
            unsafe { *(found as *mut bool) = true };
            MlirWalkResult_MlirWalkResultInterrupt
        }
        let mut found = false;
        // SAFETY: `self.raw` is live (IR depth is bounded at parse, so MLIR's recursive walk
        // stays on the stack); the callback writes only `found`, alive for the call.
        unsafe {
            mlirOperationWalk(
                self.raw,
                Some(visit),
                &mut found as *mut bool as *mut c_void,
                MlirWalkOrder_MlirWalkPreOrder,
            );
        }
        if found {
            PAYLOAD_BYTECODE_VERSION
        } else {
            BYTECODE_VERSION
        }
    }

    /// Prints the IR in MLIR's custom assembly form (what `mlir-opt` prints). Everything
    /// tunespec prints was verified (inputs at parse, linked libraries before output, payloads
    /// after parse), so the printer is told so instead of verifying the whole module again.
    pub fn print(&self) -> String {
        match String::from_utf8(self.print_bytes()) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        }
    }

    /// The IR in MLIR's generic form (followed by a newline): what another MLIR version reads
    /// whatever its custom syntax of an op (IREE's MLIR 24 and `transform.print`, for one).
    pub fn print_generic_file(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        // SAFETY: as in `print_bytes`; the flags are created and destroyed here.
        unsafe {
            let flags = mlirOpPrintingFlagsCreate();
            mlirOpPrintingFlagsAssumeVerified(flags);
            mlirOpPrintingFlagsPrintGenericOpForm(flags);
            mlirOperationPrintWithFlags(
                self.raw,
                flags,
                Some(append_bytes),
                &mut out as *mut Vec<u8> as *mut c_void,
            );
            mlirOpPrintingFlagsDestroy(flags);
        }
        out.push(b'\n');
        out
    }

    /// What [`OwnedOp::print`] prints, as MLIR wrote it.
    fn print_bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        // SAFETY: `self.raw` is live and was verified (see the doc comment); the flags are created
        // and destroyed here; the callback gets `&mut out`, alive for the call.
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
        out
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
        // SAFETY: `chunks` holds `chunk_count` chunks of 64 bytes with no padding (`repr(C)`, `[u8;
        // 64]`), so its storage is `chunk_count * 64` initialized bytes, borrowed mutably only
        // through this slice.
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
        // SAFETY: `len` < `chunks.len() * 64` (one byte at least is left for the NUL), and the
        // chunks are initialized bytes.
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr() as *const u8, self.len) }
    }
}
