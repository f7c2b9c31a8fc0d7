//! Payloads only IREE reads (models in torch, StableHLO, TOSA; IREE's own `util`/`flow`/`hal`
//! IR, dispatch dumps, the tuner's benchmark files): their dispatches, formed by the user's IREE.
//!
//! Why in the library and not in a command: `explain`, `coverage` and `apply --as-dispatch` then
//! run unchanged on what IREE gives back, generic IR of every `hal.executable` with the user's
//! source locations, which tunespec's MLIR reads with unregistered dialects allowed; and the Rust
//! API gets the same dispatches as the CLI. IREE's answers are kept in the caller's [`Store`]
//! (the binary's cache): tuning is a loop of spec edits against the same model.

use tunespec_core::ir::Loc;
use tunespec_core::problem::Problem;

use super::codes::REJECTED;
use super::protocol::Diagnostic;
use super::{Failure, Iree, Store, StoreKey};

/// The phase whose IR holds each dispatch as IREE's codegen receives it.
pub const SOURCES_PHASE: &str = "executable-sources";

/// The store key's phase of the IR IREE's tuning specs match (see
/// [`Iree::before_materialize`]).
const MATCHED_PHASE: &str = "before-materialize-user-configs";

/// IREE's session flags for a target named `canonical` whose registry entry names `backend`
/// (`None`: the name's form decides, [`super::target_flags`]); `None` when it is not a target
/// IREE compiles for (a family).
pub fn session_flags(canonical: &str, backend: Option<&str>) -> Option<Vec<String>> {
    match backend {
        // The built-in `host` target is this machine's CPU, as IREE's `host` names it (configs
        // then follow the CPU's features, as the user's own compile for this machine does).
        Some("llvm-cpu") if canonical == "host" => super::target_flags(canonical),
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
        _ => super::target_flags(canonical),
    }
}

/// The dispatches as IREE's tuning specs see them, from IREE's `executable-sources` of a model
/// ([`sources`]): compiled to right before IREE applies tuning specs, with memory spaces quoted
/// for MLIR 22 ([`super::quote_memory_spaces`]).
pub fn matched(
    iree: &Iree,
    store: &dyn Store,
    sources: &[u8],
    name: &str,
    flags: &[String],
) -> Result<Vec<u8>, Failure> {
    let matched = cached(iree, store, sources, name, flags, MATCHED_PHASE, |iree| {
        iree.before_materialize(sources, name, flags, Some(SOURCES_PHASE))
    })?;
    Ok(super::quote_memory_spaces(&matched))
}

/// IREE's dispatches of a model at `executable-sources`, as IREE printed them, through `store`:
/// a warm `explain` then asks IREE nothing, a warm `--exact` only its configuration phase.
pub fn sources(
    iree: &Iree,
    store: &dyn Store,
    bytes: &[u8],
    name: &str,
    flags: &[String],
) -> Result<Vec<u8>, Failure> {
    cached(iree, store, bytes, name, flags, SOURCES_PHASE, |iree| {
        iree.executables(bytes, name, flags, (None, SOURCES_PHASE), None)
            .map(|(text, _)| text)
    })
}

/// `make`'s answer for (`input`, `name`, the IREE's revision, `flags`, `phase`), through
/// `store`.
pub fn cached(
    iree: &Iree,
    store: &dyn Store,
    input: &[u8],
    name: &str,
    flags: &[String],
    phase: &str,
    make: impl FnOnce(&Iree) -> Result<Vec<u8>, Failure>,
) -> Result<Vec<u8>, Failure> {
    let key = StoreKey {
        input,
        name,
        revision: &iree.revision,
        flags,
        phase,
    };
    let mut make = Some(make);
    store.get_or_make(&key, &mut || match make.take() {
        Some(make) => make(iree),
        None => Err(Failure::Tool("IREE gave no answer".to_string())),
    })
}

/// IREE's diagnostics as problems, located where IREE's message says (`file:line:col: ...`).
pub fn problems(diagnostics: &[Diagnostic]) -> Vec<Problem> {
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
