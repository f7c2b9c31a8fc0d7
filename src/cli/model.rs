//! Payloads only IREE reads (models in torch, StableHLO, TOSA; IREE's own `util`/`flow`/`hal`
//! IR, dispatch dumps, the tuner's benchmark files): their dispatches, formed by the user's IREE.
//!
//! Why here and not in `apply`: the commands (`explain`, `coverage`, `apply --as-dispatch`)
//! then run unchanged on what IREE gives back, generic IR of every `hal.executable` with the
//! user's source locations, which tunespec's MLIR reads with unregistered dialects allowed.

use tunespec::ir::Loc;
use tunespec::iree::{self, Failure};
use tunespec::problem::Problem;

use super::common::{fail, tool_error_with, ExitStatus, LibraryArgs};

/// The code of IREE's refusal of an input.
pub const REJECTED: &str = "tunespec::iree::rejected";
/// The code of a command that needs IREE and found none (or a broken one).
pub const NEEDED: &str = "tunespec::iree::needed";
/// The phase whose IR holds each dispatch as IREE's codegen receives it.
pub const SOURCES_PHASE: &str = "executable-sources";

/// What a payload is read as.
pub enum Read {
    /// tunespec reads it itself.
    Own,
    /// IREE's dispatches of it (the dialect that made IREE necessary).
    Dispatches {
        /// Generic IR of every `hal.executable`.
        bytes: Vec<u8>,
        /// Why IREE read it: the first dialect tunespec does not read.
        dialect: String,
    },
}

/// IREE's session flags for `--target`, with a usage error when there is none or it is not an
/// architecture IREE compiles for.
pub fn flags_for(library: &LibraryArgs, why: &str) -> Result<Vec<String>, ExitStatus> {
    let target = library.target.as_deref();
    let Some(target) = target else {
        tool_error_with(
            NEEDED,
            format!("{why}: IREE forms dispatches for a target; give --target (e.g. gfx942)"),
            None,
        );
        return Err(ExitStatus::Usage);
    };
    // The registry as the link sees it: configs and the command line's spec libraries too
    // (a library may define a target, a CPU one say, with its backend).
    let registry = tunespec::Registry::discover()
        .and_then(|registry| registry.with_command_line(&library.specs))
        .ok();
    let canonical = registry
        .as_ref()
        .and_then(|registry| registry.find(target).map(|found| found.name.clone()))
        .unwrap_or_else(|| target.to_string());
    // The backend the registry (or a spec library's manifest) names, else the name's form.
    let backend = registry
        .as_ref()
        .and_then(|registry| registry.backend(target).ok().flatten());
    let flags = match backend.as_deref() {
        // A registry name is not an LLVM CPU name: IREE's default CPU (the dispatches, which
        // is what matching sees, do not depend on it).
        Some("llvm-cpu") => Some(vec![
            "--iree-hal-target-device=local".to_string(),
            "--iree-hal-local-target-device-backends=llvm-cpu".to_string(),
        ]),
        Some("vulkan-spirv") => Some(vec![
            "--iree-hal-target-device=vulkan".to_string(),
            format!("--iree-vulkan-target={canonical}"),
        ]),
        _ => iree::target_flags(&canonical),
    };
    flags.ok_or_else(|| {
        tool_error_with(
            NEEDED,
            format!(
                "{why}: target '{target}' ({canonical}) is a family, not an architecture IREE compiles for; give one such as gfx942 or sm_80"
            ),
            None,
        );
        ExitStatus::Usage
    })
}

/// Why the target's architecture is compiled as another (`sm_90` as sm_89 PTX: IREE 3.13 has
/// no sm_90 target), for a note beside what IREE compiled; `None` when it is compiled as itself.
pub fn substitution(library: &LibraryArgs) -> Option<String> {
    substitution_of(library.target.as_deref()?)
}

/// [`substitution`] for a target name or alias of the embedded registry.
pub fn substitution_of(target: &str) -> Option<String> {
    let canonical = tunespec::Registry::embedded()
        .find(target)
        .map_or_else(|| target.to_string(), |found| found.name.clone());
    iree::compile_target(&canonical)?.substitution
}

/// Whether the target's backend keeps named linalg ops in the dispatches its tuning specs see
/// (IREE's CPU backend does; its GPU backends generalize them): tunespec's prediction then
/// matches the ops as written.
pub fn keeps_named_ops(library: &LibraryArgs) -> bool {
    let Some(target) = library.target.as_deref() else {
        return false;
    };
    tunespec::Registry::discover()
        .and_then(|registry| registry.with_command_line(&library.specs))
        .ok()
        .and_then(|registry| registry.backend(target).ok().flatten())
        .is_some_and(|backend| backend == "llvm-cpu")
}

/// The loaded IREE, or a usage error saying why a command needs it.
pub fn iree_for(why: &str) -> Result<&'static iree::Iree, ExitStatus> {
    iree::shared().as_ref().map_err(|message| {
        tool_error_with(
            NEEDED,
            format!("{why}, which needs IREE's compiler: {message}"),
            None,
        );
        ExitStatus::Usage
    })
}

/// `--dispatches`: who forms the dispatches a payload is matched on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Dispatches {
    /// IREE for payloads only IREE reads (models); tunespec's prediction for linalg IR
    #[default]
    Auto,
    /// Always IREE's own front end and dispatch formation (exact for every backend; needs
    /// IREE and --target)
    Iree,
    /// Always tunespec's prediction (MLIR 22, named ops generalized as IREE's GPU backends do)
    Predict,
}

/// Reads `bytes` as tunespec can, or through IREE when they hold ops only IREE reads (or
/// `mode` asks for IREE).
pub fn read(
    bytes: &[u8],
    name: &str,
    library: &LibraryArgs,
    mode: Dispatches,
) -> Result<Read, ExitStatus> {
    let foreign = iree::foreign_dialect(bytes);
    let dialect = match (foreign, mode) {
        (None, Dispatches::Auto | Dispatches::Predict) => return Ok(Read::Own),
        (Some(dialect), Dispatches::Predict) => {
            tool_error_with(
                NEEDED,
                format!("{name} holds {dialect} ops: only IREE forms its dispatches (--dispatches iree or auto)"),
                None,
            );
            return Err(ExitStatus::Usage);
        }
        (Some(dialect), _) => dialect,
        (None, Dispatches::Iree) => "linalg".to_string(),
    };
    let why = if mode == Dispatches::Iree {
        format!("--dispatches iree for {name}")
    } else {
        format!("{name} holds {dialect} ops, which only IREE reads")
    };
    let iree = iree_for(&why)?;
    let flags = flags_for(library, &why)?;
    let _phase = tracing::info_span!("iree.dispatches", dialect = %dialect).entered();
    let sources = sources(iree, bytes, name, &flags)?;
    let matched = cached(iree, &sources, name, &flags, MATCHED_PHASE, |iree| {
        iree.before_materialize(&sources, name, &flags, Some(SOURCES_PHASE))
    })?;
    IREE_FORMED.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(Read::Dispatches {
        bytes: iree::quote_memory_spaces(&matched),
        dialect,
    })
}

/// The cache key's phase of the IR IREE's tuning specs match (see
/// [`iree::Iree::before_materialize`]).
const MATCHED_PHASE: &str = "before-materialize-user-configs";

static IREE_FORMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this run's payload was formed by IREE (its dispatches as its tuning specs see them:
/// nothing left to generalize).
pub fn iree_formed() -> bool {
    IREE_FORMED.load(std::sync::atomic::Ordering::Relaxed)
}

/// `make`'s answer for (`input`, `name`, the IREE's revision, `flags`, `phase`), through the
/// cache of linked libraries. IREE's diagnostics are reported against `input`.
fn cached(
    iree: &iree::Iree,
    input: &[u8],
    name: &str,
    flags: &[String],
    phase: &str,
    make: impl FnOnce(&iree::Iree) -> Result<Vec<u8>, Failure>,
) -> Result<Vec<u8>, ExitStatus> {
    cached_as(iree, (input, input), name, flags, phase, make)
}

/// [`cached`] keyed by `keyed.0` (every byte the answer depends on), with IREE's diagnostics
/// reported against `keyed.1` (what the user gave).
pub fn cached_as(
    iree: &iree::Iree,
    keyed: (&[u8], &[u8]),
    name: &str,
    flags: &[String],
    phase: &str,
    make: impl FnOnce(&iree::Iree) -> Result<Vec<u8>, Failure>,
) -> Result<Vec<u8>, ExitStatus> {
    let (input, source) = keyed;
    let key = tunespec::cache::dispatches_key(input, name, &iree.revision, flags, phase);
    let mut failure = None;
    let found = tunespec::cache::Cache::global().get_or_insert_with(&key, || match make(iree) {
        Ok(text) => Ok(tunespec::cache::Artifact {
            bytecode: text,
            problems: Vec::new(),
        }),
        Err(error) => {
            failure = Some(error);
            Err(Vec::new())
        }
    });
    match found {
        Ok(found) => Ok(found.bytecode),
        Err(_) => Err(report(
            failure.unwrap_or_else(|| Failure::Tool("IREE gave no answer".into())),
            source,
        )),
    }
}

/// IREE's dispatches of a model at `executable-sources`, as IREE printed them, through the
/// cache of linked libraries (key: [`tunespec::cache::dispatches_key`]): tuning is a loop of
/// spec edits against the same model, and a warm `explain` then asks IREE nothing, a warm
/// `--exact` only its configuration phase.
pub fn sources(
    iree: &iree::Iree,
    bytes: &[u8],
    name: &str,
    flags: &[String],
) -> Result<Vec<u8>, ExitStatus> {
    cached(iree, bytes, name, flags, SOURCES_PHASE, |iree| {
        iree.executables(bytes, name, flags, (None, SOURCES_PHASE), None)
            .map(|(text, _)| text)
    })
}

/// Reports a failed IREE request: its diagnostics as problems (exit 1), or a tool error (2).
pub fn report(failure: Failure, source: &[u8]) -> ExitStatus {
    match failure {
        Failure::Rejected(diagnostics) => fail(problems(&diagnostics), source),
        Failure::Tool(message) => {
            tool_error_with(NEEDED, message, None);
            ExitStatus::Usage
        }
    }
}

/// IREE's diagnostics as problems, located where IREE's message says (`file:line:col: ...`).
pub fn problems(diagnostics: &[iree::protocol::Diagnostic]) -> Vec<Problem> {
    let mut problems: Vec<Problem> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity == "error")
        .map(|diagnostic| {
            let (loc, message) = split_location(&diagnostic.message);
            // IREE's notes ("called from", "see current operation:" with the whole op's IR)
            // follow the first line; the first line is the finding.
            let first = message.lines().next().unwrap_or(&message).trim_end();
            Problem::error(REJECTED, format!("IREE: {first}"), loc)
        })
        .collect();
    if problems.is_empty() {
        problems.push(Problem::error(REJECTED, "IREE refused the input", None));
    }
    problems
}

/// `file:line:col: message` (as IREE prints a located diagnostic) into its parts.
fn split_location(message: &str) -> (Option<Loc>, String) {
    let mut fields = message.splitn(4, ':');
    if let (Some(file), Some(line), Some(col), Some(rest)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    {
        if let (Ok(line), Ok(col)) = (line.trim().parse::<u32>(), col.trim().parse::<u32>()) {
            let rest = rest.trim_start();
            let rest = rest.strip_prefix("error: ").unwrap_or(rest);
            return (
                Some(Loc {
                    file: file.to_string(),
                    line,
                    col,
                }),
                rest.to_string(),
            );
        }
    }
    (None, message.to_string())
}
