//! The C functions tunespec calls in `libIREECompiler.so`, with their exact C signatures.
//!
//! Why a table of typed function pointers and not `extern` blocks: the library is the user's,
//! found at run time, so nothing may be linked against it. Every signature is spelled out (a
//! missing or wrong one truncates pointers: IREE's own ctypes binding crashed that way), and
//! every symbol is looked up once, when the library is opened, so a library that lacks one is
//! refused with its name instead of failing half-way through a compile.
//!
//! The MLIR C API types are declared here again, not taken from `mlir-sys`: those are MLIR 22's,
//! these are the handles of IREE's own MLIR (24 for IREE 3.13). The two never meet: a handle
//! from this table is only ever passed back to this table.

// The fields are named as the C symbols they are looked up by.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_void};
use std::path::Path;

use libloading::Library;

/// `MlirOperation` of IREE's MLIR.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MlirOperation {
    pub ptr: *mut c_void,
}

/// `MlirContext` of IREE's MLIR.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MlirContext {
    pub ptr: *mut c_void,
}

/// `MlirAttribute` of IREE's MLIR.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MlirAttribute {
    pub ptr: *const c_void,
}

/// `MlirRegion`, `MlirBlock`, `MlirIdentifier`, `MlirOpPrintingFlags`: opaque pointers.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Handle {
    pub ptr: *mut c_void,
}

/// `MlirStringRef`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MlirStringRef {
    pub data: *const c_char,
    pub length: usize,
}

impl MlirStringRef {
    pub fn new(text: &str) -> MlirStringRef {
        MlirStringRef {
            data: text.as_ptr().cast(),
            length: text.len(),
        }
    }
}

/// `MlirStringCallback`.
pub type StringCallback = unsafe extern "C" fn(MlirStringRef, *mut c_void);
/// The callback of `ireeCompilerInvocationEnableCallbackDiagnostics`.
pub type DiagnosticCallback = unsafe extern "C" fn(c_int, *const c_char, usize, *mut c_void);

/// Opaque IREE objects.
pub enum Session {}
pub enum Invocation {}
pub enum Source {}
pub enum Output {}
pub enum Error {}

/// `IREE_COMPILER_PIPELINE_STD`.
pub const PIPELINE_STD: c_int = 0;

macro_rules! api {
    ($($field:ident : fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The opened library and every function tunespec calls in it.
        pub struct Api {
            $(pub $field: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            /// Kept open for as long as the pointers above are used.
            _library: Library,
        }

        impl Api {
            /// Opens the library at `path` and looks up every function.
            pub fn open(path: &Path) -> Result<Api, String> {
                // SAFETY: opening runs the library's initializers. libIREECompiler.so is IREE's
                // compiler, made to be loaded this way (IREE's Python API dlopens it); it is
                // opened RTLD_LOCAL (libloading's default), so its symbols (its own LLVM and MLIR)
                // never interpose on this binary's statically linked MLIR 22, whose symbols the
                // binary does not export (`nm -D` lists no `mlir*`).
                let library = unsafe { Library::new(path) }
                    .map_err(|error| format!("cannot load {}: {error}", path.display()))?;
                $(
                    // SAFETY: the type is the function's C signature, from IREE's
                    // embedding_api.h / mlir_interop.h and MLIR's C API headers.
                    let $field = unsafe {
                        *library
                            .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(
                                concat!(stringify!($field), "\0").as_bytes(),
                            )
                            .map_err(|_| format!(
                                "{} is not IREE's compiler library: it has no {}",
                                path.display(),
                                stringify!($field)
                            ))?
                    };
                )*
                Ok(Api { $($field,)* _library: library })
            }
        }
    };
}

api! {
    ireeCompilerGetAPIVersion: fn() -> c_int;
    ireeCompilerGetRevision: fn() -> *const c_char;
    ireeCompilerGlobalInitialize: fn();
    ireeCompilerSetupGlobalCL: fn(c_int, *const *const c_char, *const c_char, bool);
    ireeCompilerSessionCreate: fn() -> *mut Session;
    ireeCompilerSessionDestroy: fn(*mut Session);
    ireeCompilerSessionSetFlags: fn(*mut Session, c_int, *const *const c_char) -> *mut Error;
    ireeCompilerSessionBorrowContext: fn(*mut Session) -> MlirContext;
    ireeCompilerInvocationCreate: fn(*mut Session) -> *mut Invocation;
    ireeCompilerInvocationDestroy: fn(*mut Invocation);
    ireeCompilerInvocationEnableCallbackDiagnostics:
        fn(*mut Invocation, c_int, DiagnosticCallback, *mut c_void);
    ireeCompilerInvocationParseSource: fn(*mut Invocation, *mut Source) -> bool;
    ireeCompilerInvocationSetCompileToPhase: fn(*mut Invocation, *const c_char);
    ireeCompilerInvocationSetCompileFromPhase: fn(*mut Invocation, *const c_char);
    ireeCompilerInvocationPipeline: fn(*mut Invocation, c_int) -> bool;
    ireeCompilerInvocationOutputIR: fn(*mut Invocation, *mut Output) -> *mut Error;
    ireeCompilerInvocationOutputIRBytecode: fn(*mut Invocation, *mut Output, c_int) -> *mut Error;
    ireeCompilerInvocationExportStealModule: fn(*mut Invocation) -> MlirOperation;
    ireeCompilerInvocationImportStealModule: fn(*mut Invocation, MlirOperation) -> bool;
    ireeCompilerSourceWrapBuffer:
        fn(*mut Session, *const c_char, *const c_char, usize, bool, *mut *mut Source) -> *mut Error;
    ireeCompilerSourceDestroy: fn(*mut Source);
    ireeCompilerOutputOpenMembuffer: fn(*mut *mut Output) -> *mut Error;
    ireeCompilerOutputMapMemory: fn(*mut Output, *mut *mut c_void, *mut u64) -> *mut Error;
    ireeCompilerOutputDestroy: fn(*mut Output);
    ireeCompilerErrorGetMessage: fn(*mut Error) -> *const c_char;
    ireeCompilerErrorDestroy: fn(*mut Error);
    mlirOpPrintingFlagsCreate: fn() -> Handle;
    mlirOpPrintingFlagsDestroy: fn(Handle);
    mlirOpPrintingFlagsPrintGenericOpForm: fn(Handle);
    mlirOpPrintingFlagsEnableDebugInfo: fn(Handle, bool, bool);
    mlirOpPrintingFlagsElideLargeElementsAttrs: fn(Handle, isize);
    mlirOperationPrintWithFlags: fn(MlirOperation, Handle, StringCallback, *mut c_void);
    mlirOperationDestroy: fn(MlirOperation);
    mlirOperationGetRegion: fn(MlirOperation, isize) -> Handle;
    mlirOperationGetNumRegions: fn(MlirOperation) -> isize;
    mlirRegionGetFirstBlock: fn(Handle) -> Handle;
    mlirBlockGetFirstOperation: fn(Handle) -> MlirOperation;
    mlirOperationGetNextInBlock: fn(MlirOperation) -> MlirOperation;
    mlirOperationGetName: fn(MlirOperation) -> Handle;
    mlirIdentifierStr: fn(Handle) -> MlirStringRef;
    mlirAttributeParseGet: fn(MlirContext, MlirStringRef) -> MlirAttribute;
    mlirAttributePrint: fn(MlirAttribute, StringCallback, *mut c_void);
    mlirOperationSetDiscardableAttributeByName: fn(MlirOperation, MlirStringRef, MlirAttribute);
}
