//! Shared by the fuzz targets (included with `#[path]`; not a target itself).

#![allow(dead_code)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int};

use tunespec::diagnostics::{self, Style};
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::verify::BYTECODE_MAGIC;

extern "C" {
    /// libFuzzer's driver (FuzzerDriver.cpp, built by libfuzzer-sys).
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: unsafe extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    /// The target's entry (libfuzzer-sys exports it; `fuzz_target!` supplies the body).
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

/// The process entry point. libFuzzer's `main` lives in an archive, and so does mlir-opt's
/// (`libMLIRMlirOptMain.a`, linked in with the rest of MLIR): the linker would take whichever
/// archive comes first, and a fuzz target that starts mlir-opt rejects libFuzzer's flags. A
/// `main` in the target's own object file always wins.
#[no_mangle]
pub extern "C" fn main(mut argc: c_int, mut argv: *mut *mut c_char) -> c_int {
    // SAFETY: argc/argv are the process's own; the callback is libfuzzer-sys's wrapper.
    unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, LLVMFuzzerTestOneInput) }
}

/// An MLIR context never frees the types, attributes and identifiers it has uniqued, so a
/// context that lived through millions of random inputs would grow until libFuzzer's RSS limit
/// fired. Each thread's context is replaced after this many inputs.
const INPUTS_PER_CONTEXT: u32 = 5_000;

thread_local! {
    // `Mlir` is neither `Send` nor `Sync`: one per thread, made on first use.
    static MLIR: RefCell<Option<(Mlir, u32)>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's MLIR context.
pub fn with_mlir<R>(f: impl FnOnce(&Mlir) -> R) -> R {
    MLIR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot
            .as_ref()
            .is_none_or(|(_, used)| *used >= INPUTS_PER_CONTEXT)
        {
            // Drop the old context before making the new one (peak memory).
            *slot = None;
            *slot = Some((Mlir::new(), 0));
        }
        let (mlir, used) = slot.as_mut().expect("just made");
        *used += 1;
        f(mlir)
    })
}

/// Most copies [`expand`] makes, and the largest input it writes.
const MAX_REPEAT: usize = 20_000;
const MAX_EXPANDED: usize = 4 << 20;

/// Lets the fuzzer write deep and repetitive inputs, which byte mutations alone almost never
/// reach: an input starting with `//repeat N` (a line) has the first `{{...}}` in the rest
/// written N times, with `{i}` in it replaced by the copy's number (1..=N) and `{p}` by the
/// previous one; `{n}` after it becomes N. So `#a0 = [1]\n{{#a{i} = [#a{p}]\n}}... #a{n}`
/// is an alias chain N deep, and `(d0{{ + d0}})` a sum of N+1 terms. Other inputs are used
/// as they are.
pub fn expand(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    let Some(rest) = data.strip_prefix(b"//repeat ") else {
        return Cow::Borrowed(data);
    };
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let Some(count) = std::str::from_utf8(&rest[..digits])
        .ok()
        .and_then(|text| text.parse::<usize>().ok())
    else {
        return Cow::Borrowed(data);
    };
    let count = count.min(MAX_REPEAT);
    let body = &rest[digits..];
    let body = body.strip_prefix(b"\n").unwrap_or(body);
    let find = |haystack: &[u8], needle: &[u8]| {
        haystack
            .windows(needle.len())
            .position(|window| window == needle)
    };
    let Some(open) = find(body, b"{{") else {
        return Cow::Borrowed(data);
    };
    let Some(close) = find(&body[open + 2..], b"}}").map(|at| open + 2 + at) else {
        return Cow::Borrowed(data);
    };
    let replace = |text: &[u8], key: &[u8], value: &str| -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len());
        let mut index = 0;
        while index < text.len() {
            if text[index..].starts_with(key) {
                out.extend_from_slice(value.as_bytes());
                index += key.len();
            } else {
                out.push(text[index]);
                index += 1;
            }
        }
        out
    };
    let template = &body[open + 2..close];
    let mut out = body[..open].to_vec();
    for index in 1..=count {
        let copy = replace(template, b"{i}", &index.to_string());
        out.extend(replace(&copy, b"{p}", &(index - 1).to_string()));
        if out.len() > MAX_EXPANDED {
            break;
        }
    }
    out.extend(replace(&body[close + 2..], b"{n}", &count.to_string()));
    Cow::Owned(out)
}

/// Inputs the in-process targets leave to tools/fuzz.sh's bytecode driver: MLIR's bytecode
/// reader can abort the process on corrupt input (the CLI contains it in a child process, see
/// src/contain.rs; library users do not get that containment).
pub fn is_bytecode(data: &[u8]) -> bool {
    data.starts_with(BYTECODE_MAGIC)
}

/// What every reader promises about its problems: stable `tunespec::` codes, a message, and
/// rendering (miette with a snippet of `source`, and JSON) that never panics.
pub fn check_problems(problems: &[Problem], source: Option<&[u8]>) {
    for problem in problems {
        assert!(
            problem.code.starts_with("tunespec::"),
            "unstable code {:?}",
            problem.code
        );
        assert!(
            !problem.message.is_empty(),
            "empty message ({})",
            problem.code
        );
    }
    render_problems(problems, source);
}

/// Renders problems both ways (miette with a snippet of `source`, JSON); neither may panic.
pub fn render_problems(problems: &[Problem], source: Option<&[u8]>) {
    let style = Style {
        color: false,
        width: 100,
    };
    for problem in problems {
        let _ = diagnostics::render(problem, source, style);
        let json = diagnostics::to_json(problem);
        assert_eq!(json["code"], problem.code);
    }
}
