//! Payloads only IREE reads, for the commands (`explain`, `coverage`, `apply --as-dispatch`,
//! `explain --exact`, `attach`, `link`, `check`): which IREE and flags a command uses, and IREE's
//! failures reported in the run's format. Reading the dispatches is the library's
//! (`tunespec::iree::dispatches`); this module parses what the user gave and renders failures.

use tunespec::iree::{self, dispatches, Failure};

use tunespec::settings::Settings;

use super::common::{fail, tool_error_with, ExitStatus, LibraryArgs};

/// The code of a command that needs IREE and found none (or a broken one).
pub use tunespec::iree::codes::NEEDED;
/// The phase whose IR holds each dispatch as IREE's codegen receives it.
pub use tunespec::iree::dispatches::SOURCES_PHASE;

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
pub fn flags_in(
    settings: &Settings,
    library: &LibraryArgs,
    why: &str,
) -> Result<Vec<String>, ExitStatus> {
    let target = library.target.as_deref();
    let Some(target) = target else {
        tool_error_with(
            NEEDED,
            format!("{why}: IREE forms dispatches for a target; give --target (e.g. gfx942)"),
            None,
        );
        return Err(ExitStatus::Usage);
    };
    let (canonical, flags) = target_flags(settings, target, &library.specs);
    flags.ok_or_else(|| {
        // A name no registry knows is not a family: say so, and where the known ones are.
        let known = settings
            .registry()
            .and_then(|registry| registry.with_command_line(&library.specs))
            .is_ok_and(|registry| registry.find(target).is_some());
        let message = if known {
            format!(
                "{why}: target '{target}' ({canonical}) is a family, not an architecture IREE compiles for; give one such as gfx942 or sm_80"
            )
        } else {
            format!(
                "{why}: target '{target}' is unknown: `tunespec targets` lists the known ones (a spec library may define its own, [targets.NAME] in its registry.toml)"
            )
        };
        tool_error_with(NEEDED, message, None);
        ExitStatus::Usage
    })
}

/// The canonical name of `target` and IREE's session flags for it, in the registry as the link
/// sees it (configs and the spec libraries in `specs` too: a library may define a target, a CPU
/// one say, with its backend); `None` flags for a family or a name IREE compiles nothing for.
pub fn target_flags(
    settings: &Settings,
    target: &str,
    specs: &[std::path::PathBuf],
) -> (String, Option<Vec<String>>) {
    // The registry as the link sees it: configs and the command line's spec libraries too
    // (a library may define a target, a CPU one say, with its backend).
    let registry = settings
        .registry()
        .and_then(|registry| registry.with_command_line(specs))
        .ok();
    let canonical = registry
        .as_ref()
        .and_then(|registry| registry.find(target).map(|found| found.name.clone()))
        .unwrap_or_else(|| target.to_string());
    // The backend the registry (or a spec library's manifest) names, else the name's form.
    let backend = registry
        .as_ref()
        .and_then(|registry| registry.backend(target).ok().flatten());
    let flags = dispatches::session_flags(&canonical, backend.as_deref());
    (canonical, flags)
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
pub fn keeps_named_ops(settings: &Settings, library: &LibraryArgs) -> bool {
    target_backend(settings, library).is_some_and(|backend| backend == "llvm-cpu")
}

/// The IREE backend of `--target` (its own or inherited through its fallbacks), when a target
/// is given and the registry names one.
fn target_backend(settings: &Settings, library: &LibraryArgs) -> Option<String> {
    let target = library.target.as_deref()?;
    settings
        .registry()
        .and_then(|registry| registry.with_command_line(&library.specs))
        .ok()
        .and_then(|registry| registry.backend(target).ok().flatten())
}

/// The views of a payload in which its ops can meet the library in IREE's compile: the view
/// of the target's backend when it is known (llvm-cpu keeps named ops, the GPU backends
/// generalize them), both when it is not (no `--target`, or a target without a backend), since
/// the same file may then be compiled for either. `attach`'s pruning keeps every pair that wins
/// an op in any of them.
pub fn possible_views(
    settings: &Settings,
    library: &LibraryArgs,
) -> &'static [tunespec::apply::View] {
    use tunespec::apply::View;
    match target_backend(settings, library).as_deref() {
        Some("llvm-cpu") => &[View::Written],
        Some(_) => &[View::Dispatch],
        None => &[View::Written, View::Dispatch],
    }
}

/// The loaded IREE of `settings`, or a usage error saying why a command needs it.
pub fn iree_in<'s>(settings: &'s Settings, why: &str) -> Result<&'s iree::Iree, ExitStatus> {
    settings.iree.shared().as_ref().map_err(|message| {
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
    settings: &Settings,
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
    let iree = iree_in(settings, &why)?;
    let flags = flags_in(settings, library, &why)?;
    let _phase = tracing::info_span!("iree.dispatches", dialect = %dialect).entered();
    let sources = sources(iree, bytes, name, &flags)?;
    let matched = dispatches::matched(iree, iree.store(), &sources, name, &flags)
        .map_err(|failure| report(failure, &sources))?;
    Ok(Read::Dispatches {
        bytes: matched,
        dialect,
    })
}

/// [`dispatches::cached`] keyed by `keyed.0` (every byte the answer depends on), with IREE's
/// diagnostics reported against `keyed.1` (what the user gave).
pub fn cached_as(
    iree: &iree::Iree,
    keyed: (&[u8], &[u8]),
    name: &str,
    flags: &[String],
    phase: &str,
    make: impl FnOnce(&iree::Iree) -> Result<Vec<u8>, Failure>,
) -> Result<Vec<u8>, ExitStatus> {
    let (input, source) = keyed;
    dispatches::cached(iree, iree.store(), input, name, flags, phase, make)
        .map_err(|failure| report(failure, source))
}

/// [`dispatches::sources`] through this process's store, failures reported against `bytes`.
pub fn sources(
    iree: &iree::Iree,
    bytes: &[u8],
    name: &str,
    flags: &[String],
) -> Result<Vec<u8>, ExitStatus> {
    dispatches::sources(iree, iree.store(), bytes, name, flags)
        .map_err(|failure| report(failure, bytes))
}

/// Reports a failed IREE request: its diagnostics as problems (exit 1), or a tool error (2).
pub fn report(failure: Failure, source: &[u8]) -> ExitStatus {
    match failure {
        Failure::Rejected(diagnostics) => fail(dispatches::problems(&diagnostics), source),
        Failure::Tool(message) => {
            tool_error_with(NEEDED, message, None);
            ExitStatus::Usage
        }
    }
}
