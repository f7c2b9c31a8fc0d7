//! The MLIR context: every dialect registered (and IREE's matcher ops through the shim),
//! unregistered dialects allowed, and MLIR's diagnostics captured as [`Problem`]s.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use mlir_sys::*;

use super::ffi::{print_with, read_string};
use super::parse::MAX_IR_DEPTH;
use crate::ir::Loc;
use crate::problem::{codes, Problem, Severity};

/// An MLIR context with all dialects registered, unregistered dialects allowed (so IREE's
/// attributes parse as opaque attributes), MLIR's threading off unless asked for
/// ([`Mlir::new_threaded`]), and diagnostics captured.
pub struct Mlir {
    context: melior::Context,
    diagnostics: Arc<Mutex<Sink>>,
    /// Whether MLIR's threading is on (the context may then be shared by worker threads, see
    /// [`Mlir::parallel`]).
    threading: bool,
}

/// Where MLIR's diagnostics go: one list while one thread uses the context; one list per
/// worker thread while [`Mlir::parallel`] runs, so that every input's diagnostics stay its own.
/// MLIR's own pool threads need no routing: its parallel loops (the verifier's) collect their
/// diagnostics and emit them again, in order, on the thread that started the loop
/// (`ParallelDiagnosticHandler`).
#[derive(Default)]
pub(super) struct Sink {
    pub(super) shared: Vec<Problem>,
    /// Present while workers share the context: each worker's diagnostics.
    pub(super) per_thread: Option<HashMap<ThreadId, Vec<Problem>>>,
}

impl Sink {
    /// The list a diagnostic emitted on the current thread belongs to.
    fn list(&mut self) -> &mut Vec<Problem> {
        let Some(per_thread) = self.per_thread.as_mut() else {
            return &mut self.shared;
        };
        match per_thread.get_mut(&std::thread::current().id()) {
            Some(list) => list,
            // Not a worker (none emits while workers run; kept, not lost, if one did).
            None => &mut self.shared,
        }
    }
}

impl Default for Mlir {
    fn default() -> Self {
        Self::new()
    }
}

/// The stack of every thread that runs MLIR work: the CLI's main work, verify's workers and the
/// bytecode probe (which must not have more stack than the threads that parse after it).
/// MLIR recurses once per nesting level, a few hundred bytes to a few KiB per level; IR at
/// [`MAX_IR_DEPTH`] needs a few MiB, and this leaves a wide margin. Only touched pages are
/// committed.
pub const MLIR_STACK_BYTES: usize = 64 << 20;

impl Mlir {
    /// A context with everything tunespec uses registered, MLIR's threading off.
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
        let diagnostics: Arc<Mutex<Sink>> = Arc::default();
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
            threading,
        }
    }

    pub(super) fn raw(&self) -> MlirContext {
        self.context.to_raw()
    }

    pub(crate) fn take_diagnostics(&self) -> Vec<Problem> {
        std::mem::take(self.sink().list())
    }

    /// The diagnostics sink; a poisoned lock (a panic while it was held, which only pushes to
    /// vectors) still holds consistent lists.
    pub(super) fn sink(&self) -> MutexGuard<'_, Sink> {
        self.diagnostics
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether MLIR's threading is on for this context.
    pub fn is_threaded(&self) -> bool {
        self.threading
    }
}

/// Notes longer than this are cut: MLIR attaches whole printed ops and payloads to some messages.
const MAX_NOTE_CHARS: usize = 400;

unsafe extern "C" fn collect_diagnostic(
    diagnostic: MlirDiagnostic,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    // SAFETY: `user_data` is the `Box<Arc<..>>` registered with this handler in `with_threading`;
    // it lives until `drop_sink`, which MLIR calls only when the context is destroyed, after the
    // last diagnostic. The sink is a mutex: MLIR may call the handler from several threads.
    let sink = unsafe { &*(user_data as *const Arc<Mutex<Sink>>) };
    // SAFETY: `diagnostic` is valid for the duration of this callback (MLIR owns it); nothing keeps
    // it afterwards.
    let problem = unsafe { convert_diagnostic(diagnostic) };
    let mut sink = sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let list = sink.list();
    // MLIR emits some warnings twice; keep one.
    if !list.contains(&problem) {
        list.push(problem);
    }
    // Handled: MLIR must not print it to stderr.
    MlirLogicalResult { value: 1 }
}

unsafe extern "C" fn drop_sink(user_data: *mut c_void) {
    // SAFETY: MLIR calls this once, when the context that owns the handler goes; `user_data` is the
    // pointer `Box::into_raw` made in `with_threading`, not used again.
    drop(unsafe { Box::from_raw(user_data as *mut Arc<Mutex<Sink>>) });
}

/// Finds the first file:line:col inside a location, looking through name, call-site and fused
/// locations (MLIR wraps locations in those after inlining or fusion). Iterative, with a budget:
/// a location can nest as deep as the IR allows.
pub(super) unsafe fn location_to_loc(location: MlirLocation) -> Option<Loc> {
    let mut pending = vec![location];
    let mut budget = 4 * MAX_IR_DEPTH;
    // SAFETY: the caller passes a location of a live context (an op's, or a diagnostic's during its
    // callback); locations are immutable and uniqued by the context, and only their accessors are
    // called; the fused-location buffer holds exactly `count` entries.
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
    // SAFETY: `diagnostic` (and its notes) are valid during the handler callback that calls this;
    // every string is copied out before returning.
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
