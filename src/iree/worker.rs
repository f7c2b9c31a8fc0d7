//! The child side: `tunespec __iree-worker LIBRARY` opens IREE's compiler library, does one
//! [`Request`], answers on stdout and exits.
//!
//! Why a child and not the tunespec process itself: the library is the user's (any IREE
//! version, any build) and gets the user's models, which IREE's release builds may crash on
//! (no asserts); a crash, an abort or a hang must become a diagnostic of the parent, never take
//! the parent down. Symbol isolation would allow loading it in process (the binary exports no
//! `mlir*` symbol and the library is opened RTLD_LOCAL), but containment needs the process
//! boundary. The cost is one process start (a few ms against IREE's hundreds).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io::{Read, Write};
use std::path::Path;

use super::ffi::{self, Api, MlirOperation, MlirStringRef};
use super::protocol::{Diagnostic, Op, Request, Response};

/// The hidden subcommand.
pub const WORKER_COMMAND: &str = "__iree-worker";

/// Runs the worker: `args` are the arguments after the subcommand (the library's path).
pub fn run(args: &[std::ffi::OsString]) -> std::process::ExitCode {
    let Some(library) = args.first() else {
        return std::process::ExitCode::from(2);
    };
    // The library is opened and initialized before the request is read: a parent that starts
    // a worker ahead of its need (`Iree::prestart`) overlaps this, IREE's costliest start-up
    // step, with its own work. A parent that never sends a request closes the pipe, and the
    // worker ends at the read.
    let api = Api::open(Path::new(library)).inspect(|api| {
        // SAFETY: the library's global initialization, once, from this thread, before any
        // other call into it.
        unsafe { (api.ireeCompilerGlobalInitialize)() }
    });
    let mut stdin = std::io::stdin().lock();
    let response = match (read_request(&mut stdin), api) {
        (Ok((request, source, extra)), Ok(api)) => serve(&api, &request, &source, &extra),
        (Err(message), _) | (_, Err(message)) => (failed(message), Vec::new()),
    };
    let (mut header, output) = response;
    header.output_len = output.len() as u64;
    let mut stdout = std::io::stdout().lock();
    let line = serde_json::to_string(&header).unwrap_or_else(|_| "{}".to_string());
    let written = stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.write_all(&output))
        .and_then(|()| stdout.flush());
    // The library's teardown is left to the process exit: IREE's global shutdown is for
    // processes that go on without it, and this one ends here.
    std::process::ExitCode::from(if written.is_ok() { 0 } else { 2 })
}

fn failed(message: String) -> Response {
    Response {
        ok: false,
        revision: String::new(),
        api_version: String::new(),
        diagnostics: Vec::new(),
        failure: Some(message),
        output_len: 0,
    }
}

fn read_request(input: &mut impl Read) -> Result<(Request, Vec<u8>, Vec<u8>), String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match input.read(&mut byte) {
            Ok(0) => return Err("the request ended early".to_string()),
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(error) => return Err(format!("reading the request: {error}")),
        }
    }
    let request: Request =
        serde_json::from_slice(&line).map_err(|error| format!("bad request: {error}"))?;
    let mut source = vec![0u8; request.source_len as usize];
    let mut extra = vec![0u8; request.extra_len as usize];
    input
        .read_exact(&mut source)
        .and_then(|()| input.read_exact(&mut extra))
        .map_err(|error| format!("reading the request's bytes: {error}"))?;
    Ok((request, source, extra))
}

/// Collects IREE's diagnostics (the callback's `userData`).
#[derive(Default)]
struct Collected {
    diagnostics: Vec<Diagnostic>,
}

unsafe extern "C" fn on_diagnostic(
    severity: c_int,
    message: *const c_char,
    length: usize,
    user_data: *mut c_void,
) {
    // SAFETY: `user_data` is the `Collected` that `serve` keeps alive and registers for the
    // invocation's lifetime; the message is valid for `length` bytes during the call (IREE's
    // contract), and is copied.
    unsafe {
        let collected = &mut *user_data.cast::<Collected>();
        let bytes = std::slice::from_raw_parts(message.cast::<u8>(), length);
        collected.diagnostics.push(Diagnostic {
            severity: match severity {
                0 => "note",
                1 => "warning",
                2 => "error",
                _ => "remark",
            }
            .to_string(),
            message: String::from_utf8_lossy(bytes).into_owned(),
        });
    }
}

unsafe extern "C" fn append_string(text: MlirStringRef, user_data: *mut c_void) {
    // SAFETY: `user_data` is the `Vec<u8>` the caller passed and keeps alive for the print call;
    // `text` is valid for `length` bytes during the callback.
    unsafe {
        let out = &mut *user_data.cast::<Vec<u8>>();
        if !text.data.is_null() {
            out.extend_from_slice(std::slice::from_raw_parts(
                text.data.cast::<u8>(),
                text.length,
            ));
        }
    }
}

/// Takes an IREE error's message and destroys it; `None` for no error.
///
/// # Safety
/// `error` is null or an error IREE just returned, not yet destroyed.
unsafe fn take_error(api: &Api, error: *mut ffi::Error) -> Option<String> {
    if error.is_null() {
        return None;
    }
    // SAFETY: per the contract above; the message is copied before the error is destroyed.
    unsafe {
        let message = CStr::from_ptr((api.ireeCompilerErrorGetMessage)(error))
            .to_string_lossy()
            .into_owned();
        (api.ireeCompilerErrorDestroy)(error);
        Some(message)
    }
}

fn serve(api: &Api, request: &Request, source: &[u8], extra: &[u8]) -> (Response, Vec<u8>) {
    // SAFETY: every call below passes handles this function obtained from `api` (opened and
    // globally initialized by `run`) and keeps alive until it destroys them; strings are
    // NUL-terminated `CString`s that outlive the calls; the diagnostics sink outlives the
    // invocation. The library is single-threaded from our side (this thread only).
    unsafe {
        // IR dumps before a pass are global options of IREE's MLIR: set once, before the
        // session exists (this process serves one request).
        if let Op::Executables {
            dump_before: Some(pass),
            ..
        } = &request.op
        {
            let args: Vec<CString> = [
                "tunespec-iree-worker".to_string(),
                format!("--mlir-print-ir-before={pass}"),
                "--mlir-print-op-generic".to_string(),
                "--mlir-print-debuginfo".to_string(),
                "--mlir-disable-threading".to_string(),
            ]
            .into_iter()
            .filter_map(|arg| CString::new(arg).ok())
            .collect();
            let pointers: Vec<*const c_char> = args.iter().map(|arg| arg.as_ptr()).collect();
            (api.ireeCompilerSetupGlobalCL)(
                pointers.len() as c_int,
                pointers.as_ptr(),
                c"tunespec".as_ptr(),
                false,
            );
        }
        let revision = CStr::from_ptr((api.ireeCompilerGetRevision)())
            .to_string_lossy()
            .into_owned();
        let version = (api.ireeCompilerGetAPIVersion)();
        let mut response = Response {
            ok: true,
            revision,
            api_version: format!("{}.{}", version >> 16, version & 0xffff),
            diagnostics: Vec::new(),
            failure: None,
            output_len: 0,
        };
        if request.op == Op::Info {
            return (response, Vec::new());
        }
        let session = (api.ireeCompilerSessionCreate)();
        let flags: Vec<CString> = request
            .flags
            .iter()
            .filter_map(|flag| CString::new(flag.as_str()).ok())
            .collect();
        let pointers: Vec<*const c_char> = flags.iter().map(|flag| flag.as_ptr()).collect();
        if let Some(message) = take_error(
            api,
            (api.ireeCompilerSessionSetFlags)(session, pointers.len() as c_int, pointers.as_ptr()),
        ) {
            response.ok = false;
            response.failure = Some(format!("IREE refused the flags: {message}"));
            return (response, Vec::new());
        }
        let mut collected = Collected::default();
        if request.op == Op::Attributes {
            let context = (api.ireeCompilerSessionBorrowContext)(session);
            let bytes = canonical_attributes(api, context, source);
            (api.ireeCompilerSessionDestroy)(session);
            return (response, bytes);
        }
        let name = CString::new(request.name.replace('\0', "")).unwrap_or_default();
        let (parsed, ok) = Parsed::new(api, session, &name, source, &mut collected);
        let output = ok.and_then(|()| {
            run_op(
                api,
                (session, parsed.invocation),
                &request.op,
                extra,
                &mut collected as *mut Collected,
            )
        });
        let bytes = match output {
            Ok(bytes) => bytes,
            Err(message) => {
                response.ok = false;
                if !message.is_empty() {
                    response.failure = Some(message);
                }
                Vec::new()
            }
        };
        parsed.destroy(api);
        (api.ireeCompilerSessionDestroy)(session);
        response.diagnostics = collected.diagnostics;
        (response, bytes)
    }
}

/// The operation after a successful parse.
///
/// # Safety
/// `session` and `invocation` are live and belong to `api`; the invocation holds the parsed
/// source.
unsafe fn run_op(
    api: &Api,
    (session, invocation): (*mut ffi::Session, *mut ffi::Invocation),
    op: &Op,
    extra: &[u8],
    collected: *mut Collected,
) -> Result<Vec<u8>, String> {
    // SAFETY: per the function's contract; every handle made here is destroyed here.
    unsafe {
        match op {
            Op::Info => Ok(Vec::new()),
            Op::Reprint { bytecode } => output_ir(api, invocation, *bytecode),
            // Parsed and verified: nothing to write back.
            Op::Check => Ok(Vec::new()),
            Op::Generic => {
                let module = (api.ireeCompilerInvocationExportStealModule)(invocation);
                if module.ptr.is_null() {
                    return Err("IREE gave no module".to_string());
                }
                let text = print_generic(api, module);
                (api.mlirOperationDestroy)(module);
                Ok(text)
            }
            // Answered before any source is parsed (see `serve`).
            Op::Attributes => Ok(Vec::new()),
            Op::Attach { attr, bytecode } => {
                let library = library_bytecode(api, session, extra, collected)?;
                set_library(api, session, invocation, attr, &library)?;
                output_ir(api, invocation, *bytecode)
            }
            Op::Executables {
                phase,
                from,
                attach,
                dump_before,
            } => {
                if let Some(attr) = attach {
                    let library = library_bytecode(api, session, extra, collected)?;
                    set_library(api, session, invocation, attr, &library)?;
                }
                let from = match from {
                    Some(from) => {
                        Some(CString::new(from.as_str()).map_err(|_| "bad phase".to_string())?)
                    }
                    None => None,
                };
                if let Some(from) = &from {
                    (api.ireeCompilerInvocationSetCompileFromPhase)(invocation, from.as_ptr());
                }
                let phase = CString::new(phase.as_str()).map_err(|_| "bad phase".to_string())?;
                (api.ireeCompilerInvocationSetCompileToPhase)(invocation, phase.as_ptr());
                if dump_before.is_some() {
                    // The dumps go to stderr (LLVM's unbuffered errs()): into a file meanwhile.
                    let captured = capture_stderr(|| {
                        (api.ireeCompilerInvocationPipeline)(invocation, ffi::PIPELINE_STD)
                    })?;
                    let (ok, dumps) = captured;
                    if !ok {
                        return Err(String::new());
                    }
                    return Ok(wrap_dumps(&dumps));
                }
                if !(api.ireeCompilerInvocationPipeline)(invocation, ffi::PIPELINE_STD) {
                    return Err(String::new());
                }
                let module = (api.ireeCompilerInvocationExportStealModule)(invocation);
                if module.ptr.is_null() {
                    return Err("IREE gave no module".to_string());
                }
                let text = print_executables(api, module);
                (api.mlirOperationDestroy)(module);
                Ok(text)
            }
        }
    }
}

/// The library `text` (tunespec's print of the linked library) as this IREE's bytecode: parsed
/// and verified by IREE in a second invocation of the session, whose diagnostics (located in
/// `<linked library>`) go to `collected`. In the same request as its use, so the library is
/// loaded once.
///
/// # Safety
/// `session` is live and belongs to `api`; `collected` outlives the call.
unsafe fn library_bytecode(
    api: &Api,
    session: *mut ffi::Session,
    text: &[u8],
    collected: *mut Collected,
) -> Result<Vec<u8>, String> {
    // SAFETY: per the contract; what `Parsed::new` made is destroyed here.
    unsafe {
        let (parsed, ok) = Parsed::new(api, session, c"<linked library>", text, collected);
        let result = ok.and_then(|()| output_ir(api, parsed.invocation, true));
        parsed.destroy(api);
        result
    }
}

/// An invocation holding a parsed source, and what must outlive it.
struct Parsed {
    invocation: *mut ffi::Invocation,
    source: *mut ffi::Source,
    /// The NUL-terminated copy IREE's source wraps (it must outlive the source).
    _buffer: Vec<u8>,
}

impl Parsed {
    /// A new invocation of `session` with diagnostics to `collected`, and `bytes` (named
    /// `name` in locations) parsed into it; the result says whether the parse succeeded
    /// (`Err("")`: IREE's diagnostics say why).
    ///
    /// # Safety
    /// `session` is live and belongs to `api`; `collected` outlives the invocation.
    unsafe fn new(
        api: &Api,
        session: *mut ffi::Session,
        name: &CStr,
        bytes: &[u8],
        collected: *mut Collected,
    ) -> (Parsed, Result<(), String>) {
        // SAFETY: per the contract; the buffer is kept in the returned value, which owns the
        // invocation and the source until `destroy`.
        unsafe {
            let invocation = (api.ireeCompilerInvocationCreate)(session);
            (api.ireeCompilerInvocationEnableCallbackDiagnostics)(
                invocation,
                0,
                on_diagnostic,
                collected.cast(),
            );
            // Text must be NUL-terminated for IREE's parser; bytecode may be.
            let mut buffer = bytes.to_vec();
            buffer.push(0);
            let mut source: *mut ffi::Source = std::ptr::null_mut();
            let wrapped = take_error(
                api,
                (api.ireeCompilerSourceWrapBuffer)(
                    session,
                    name.as_ptr(),
                    buffer.as_ptr().cast(),
                    buffer.len(),
                    true,
                    &mut source,
                ),
            );
            let ok = match wrapped {
                Some(message) => Err(message),
                None if !(api.ireeCompilerInvocationParseSource)(invocation, source) => {
                    Err(String::new())
                }
                None => Ok(()),
            };
            (
                Parsed {
                    invocation,
                    source,
                    _buffer: buffer,
                },
                ok,
            )
        }
    }

    /// Destroys the invocation, then the source.
    ///
    /// # Safety
    /// `api` is the library the invocation and source came from.
    unsafe fn destroy(self, api: &Api) {
        // SAFETY: both were made by `new` with `api` and are destroyed once, here.
        unsafe {
            (api.ireeCompilerInvocationDestroy)(self.invocation);
            if !self.source.is_null() {
                (api.ireeCompilerSourceDestroy)(self.source);
            }
        }
    }
}

/// Sets `attr` on the invocation's module to `library` as `dense<"0x..."> : vector<Nxi8>`
/// (IREE's form of an attached tuning library).
///
/// # Safety
/// `session` and `invocation` are live and belong to `api`; the invocation holds a module.
unsafe fn set_library(
    api: &Api,
    session: *mut ffi::Session,
    invocation: *mut ffi::Invocation,
    attr: &str,
    library: &[u8],
) -> Result<(), String> {
    // SAFETY: per the contract; the module is handed back to the invocation (or destroyed).
    unsafe {
        let module = (api.ireeCompilerInvocationExportStealModule)(invocation);
        if module.ptr.is_null() {
            return Err("IREE gave no module".to_string());
        }
        let context = (api.ireeCompilerSessionBorrowContext)(session);
        let mut text = String::with_capacity(library.len() * 2 + 40);
        text.push_str("dense<\"0x");
        for byte in library {
            use std::fmt::Write as _;
            let _ = write!(text, "{byte:02X}");
        }
        text.push_str(&format!("\"> : vector<{}xi8>", library.len()));
        let value = (api.mlirAttributeParseGet)(context, MlirStringRef::new(&text));
        if value.ptr.is_null() {
            (api.mlirOperationDestroy)(module);
            return Err("IREE could not build the library attribute".to_string());
        }
        (api.mlirOperationSetDiscardableAttributeByName)(module, MlirStringRef::new(attr), value);
        if !(api.ireeCompilerInvocationImportStealModule)(invocation, module) {
            return Err("IREE did not take the module back".to_string());
        }
        Ok(())
    }
}

/// Runs `work` with stderr (fd 2) redirected into an anonymous file; returns its result and
/// what was written.
fn capture_stderr<T>(work: impl FnOnce() -> T) -> Result<(T, Vec<u8>), String> {
    use std::io::Seek;
    use std::os::fd::AsRawFd;
    let mut file =
        tempfile::tempfile().map_err(|error| format!("capturing IREE's dumps: {error}"))?;
    // SAFETY: plain descriptor calls on descriptors this function owns (the saved copy of 2,
    // the file's) or on 2 itself; nothing else in this single-threaded worker writes to 2
    // meanwhile. 2 is restored before returning.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 {
        return Err("capturing IREE's dumps: dup failed".to_string());
    }
    // SAFETY: as above.
    unsafe { libc::dup2(file.as_raw_fd(), 2) };
    let result = work();
    // SAFETY: as above.
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    let mut out = Vec::new();
    file.seek(std::io::SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut out))
        .map_err(|error| format!("reading IREE's dumps: {error}"))?;
    Ok((result, out))
}

/// Every `// -----// IR Dump Before ...` of `text` (each a generic-form op) in one module.
fn wrap_dumps(text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut out = String::from("\"builtin.module\"() ({\n");
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("// -----// IR Dump") {
            inside = true;
            continue;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("}) : () -> ()\n");
    out.into_bytes()
}

/// The invocation's module as IREE writes it.
///
/// # Safety
/// `invocation` is live and holds a module.
unsafe fn output_ir(
    api: &Api,
    invocation: *mut ffi::Invocation,
    bytecode: bool,
) -> Result<Vec<u8>, String> {
    // SAFETY: per the contract; the output is destroyed after its memory is copied.
    unsafe {
        let mut output: *mut ffi::Output = std::ptr::null_mut();
        if let Some(message) = take_error(api, (api.ireeCompilerOutputOpenMembuffer)(&mut output)) {
            return Err(message);
        }
        let error = if bytecode {
            (api.ireeCompilerInvocationOutputIRBytecode)(invocation, output, -1)
        } else {
            (api.ireeCompilerInvocationOutputIR)(invocation, output)
        };
        let result = if let Some(message) = take_error(api, error) {
            Err(message)
        } else {
            let mut contents: *mut c_void = std::ptr::null_mut();
            let mut size: u64 = 0;
            match take_error(
                api,
                (api.ireeCompilerOutputMapMemory)(output, &mut contents, &mut size),
            ) {
                Some(message) => Err(message),
                None if contents.is_null() => Ok(Vec::new()),
                None => {
                    Ok(std::slice::from_raw_parts(contents.cast::<u8>(), size as usize).to_vec())
                }
            }
        };
        (api.ireeCompilerOutputDestroy)(output);
        result
    }
}

/// `module` whole, generic form with locations (valid MLIR, not the pretty form).
///
/// # Safety
/// `module` is a live module op of `api`'s MLIR.
unsafe fn print_generic(api: &Api, module: MlirOperation) -> Vec<u8> {
    // SAFETY: per the contract; the print only reads, the flags are destroyed here.
    unsafe {
        let mut out = Vec::new();
        let flags = (api.mlirOpPrintingFlagsCreate)();
        (api.mlirOpPrintingFlagsPrintGenericOpForm)(flags);
        (api.mlirOpPrintingFlagsEnableDebugInfo)(flags, true, false);
        (api.mlirOperationPrintWithFlags)(
            module,
            flags,
            append_string,
            (&mut out as *mut Vec<u8>).cast(),
        );
        (api.mlirOpPrintingFlagsDestroy)(flags);
        out.push(b'\n');
        out
    }
}

/// Each NUL-separated attribute text of `source` parsed in `context` and printed back,
/// NUL-separated; an empty text for one that does not parse.
///
/// # Safety
/// `context` is live and belongs to `api`.
unsafe fn canonical_attributes(api: &Api, context: ffi::MlirContext, source: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (index, text) in source.split(|&byte| byte == 0).enumerate() {
        if index > 0 {
            out.push(0);
        }
        let Ok(text) = std::str::from_utf8(text) else {
            continue;
        };
        // SAFETY: per the contract; the string outlives the parse; the attribute is owned by
        // the context, which outlives the print; the callback gets `&mut out`, alive for it.
        unsafe {
            let value = (api.mlirAttributeParseGet)(context, MlirStringRef::new(text));
            if value.ptr.is_null() {
                continue;
            }
            (api.mlirAttributePrint)(value, append_string, (&mut out as *mut Vec<u8>).cast());
        }
    }
    out
}

/// Every top-level `hal.executable` of `module`, generic form with locations, in one module.
///
/// # Safety
/// `module` is a live module op of `api`'s MLIR.
unsafe fn print_executables(api: &Api, module: MlirOperation) -> Vec<u8> {
    // SAFETY: per the contract; the walk only reads, the flags are destroyed here.
    unsafe {
        let mut out: Vec<u8> = b"\"builtin.module\"() ({\n".to_vec();
        let flags = (api.mlirOpPrintingFlagsCreate)();
        (api.mlirOpPrintingFlagsPrintGenericOpForm)(flags);
        (api.mlirOpPrintingFlagsEnableDebugInfo)(flags, true, false);
        // Constants inside dispatches are small; weights live outside them. Elide the rest.
        (api.mlirOpPrintingFlagsElideLargeElementsAttrs)(flags, 4096);
        if (api.mlirOperationGetNumRegions)(module) > 0 {
            let region = (api.mlirOperationGetRegion)(module, 0);
            let block = (api.mlirRegionGetFirstBlock)(region);
            if !block.ptr.is_null() {
                let mut op = (api.mlirBlockGetFirstOperation)(block);
                while !op.ptr.is_null() {
                    let name = (api.mlirIdentifierStr)((api.mlirOperationGetName)(op));
                    let name = std::slice::from_raw_parts(name.data.cast::<u8>(), name.length);
                    if name == b"hal.executable" {
                        (api.mlirOperationPrintWithFlags)(
                            op,
                            flags,
                            append_string,
                            (&mut out as *mut Vec<u8>).cast(),
                        );
                        out.push(b'\n');
                    }
                    op = (api.mlirOperationGetNextInBlock)(op);
                }
            }
        }
        (api.mlirOpPrintingFlagsDestroy)(flags);
        out.extend_from_slice(b"}) : () -> ()\n");
        out
    }
}
