//! `tunespec apply`: materialize configs on a payload with a linked or attached library.

use std::path::PathBuf;
use tunespec::settings::Settings;

use tunespec::apply::{self, ATTR_NAME};
use tunespec::ir::names;
use tunespec::mlir::{Mlir, OwnedOp};
use tunespec::problem::Problem;

use super::common::{
    emit_stderr, fail, load_payload, report, write, ExitStatus, Format, LibraryArgs, Resolved,
};
use super::explain::{render_explanation, report_unmatched};
use super::table;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::APPLY)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload (MLIR text or bytecode), `-` for stdin
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Keep the library attribute on the payload
    #[arg(long)]
    pub keep_attr: bool,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// Also print (to stderr) what configured each candidate op
    #[arg(long)]
    pub explain: bool,
    /// How diagnostics and the explanation are printed (on stderr; stdout may carry the
    /// payload): human, json, short (a line per op), github (workflow commands), sarif (one log)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// How the library runs: natively when it can (auto), or always in MLIR's interpreter
    #[arg(long, value_enum, default_value_t)]
    pub engine: apply::Engine,
    /// Materialize on the payload as iree-compile's config materialization sees it (named
    /// linalg ops generalized, as IREE's dispatch formation does for GPU targets; kept named
    /// for a target whose backend is llvm-cpu) and write that: tunespec's prediction of the
    /// configs a real compile puts on each dispatch
    #[arg(long)]
    pub as_dispatch: bool,
    /// Who forms the dispatches matched: IREE for models and tunespec's prediction for linalg
    /// IR (auto), always IREE (exact on every backend), always the prediction
    #[arg(long, value_enum, default_value_t)]
    pub dispatches: super::model::Dispatches,
}

impl Opts {
    /// The payload, or for a model (ops only IREE reads) IREE's dispatches of it, which only
    /// `--as-dispatch` applies to.
    /// `Loaded::3`: IREE formed the payload's dispatches (as its tuning specs see them).
    fn load<'c>(&self, settings: &Settings, mlir: &'c Mlir) -> Result<Loaded<'c>, ExitStatus> {
        let bytes = super::common::read(&self.payload)?;
        let name = super::common::input_name(&self.payload);
        match super::model::read(settings, &bytes, &name, &self.library, self.dispatches)? {
            super::model::Read::Own => load_payload(mlir, &self.payload, Some(bytes))
                .map(|(bytes, name, payload)| (bytes, name, payload, false)),
            super::model::Read::Dispatches { bytes, dialect } => {
                if !self.as_dispatch || !self.library.given() {
                    super::common::tool_error_with(
                        super::model::NEEDED,
                        format!("{name} holds {dialect} ops: tunespec configures a model on IREE's dispatches of it; use --as-dispatch with --target or --spec (or `tunespec attach` to hand the library to iree-compile)"),
                        None,
                    );
                    return Err(ExitStatus::Usage);
                }
                load_payload(mlir, &self.payload, Some(bytes))
                    .map(|(bytes, name, payload)| (bytes, name, payload, true))
            }
        }
    }

    pub fn run(self, settings: &Settings) -> ExitStatus {
        let refused =
            crate::cli::output::check_not_an_input(&self.output, &self.library.specs, &[]);
        if let Err(message) = refused {
            super::common::tool_error(message);
            return ExitStatus::Usage;
        }
        let mlir = Mlir::new_threaded();
        let (payload_bytes, name, payload, formed) = match self.load(settings, &mlir) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        // The payload and the library are each parsed once (a library linked here is applied
        // as linked, never written to bytecode and read back); the library is verified only if
        // it has to go through the interpreter (see `apply::apply`).
        let (library, library_bytes, resolved) =
            match self.library_for(settings, &mlir, &payload, &name) {
                Ok(library) => library,
                Err(Failure::Status(status)) => return status,
                Err(Failure::Problems(problems)) => return fail(problems, &payload_bytes),
            };
        // `--explain` reads the library from bytecode (it instruments a copy of it).
        let library_bytes = match library_bytes {
            Some(bytes) => bytes,
            None if self.explain => match library.to_bytecode() {
                Ok(bytes) => bytes,
                Err(message) => {
                    return fail(
                        vec![Problem::error(apply::codes::INTERPRETER, message, None)],
                        &payload_bytes,
                    )
                }
            },
            None => Vec::new(),
        };
        if let Err(problems) =
            self.materialize(settings, &mlir, &payload, &library, &payload_bytes, formed)
        {
            return fail(problems, &payload_bytes);
        }
        let written = write(&self.output, &payload.print_file_bytes());
        if written != ExitStatus::Ok {
            return written;
        }
        if self.explain {
            let explained = self.explain(
                settings,
                &mlir,
                (&payload_bytes, &name),
                &library_bytes,
                resolved.as_ref(),
                formed,
            );
            if let Err(problems) = explained {
                return fail(problems, &payload_bytes);
            }
        }
        // The process exits next: the system takes the memory back at once, where MLIR's
        // destructors would walk and free every op of both modules and then the context (a few
        // percent of a cold `apply`; compilers skip that teardown the same way, e.g. clang's
        // `-disable-free`). Nothing is left to flush: the output is written and closed.
        std::mem::forget(library);
        std::mem::forget(payload);
        std::mem::forget(mlir);
        ExitStatus::Ok
    }

    /// The library: linked from the library flags, else the one attached to the payload under
    /// `--attr`; with its bytecode when it is at hand and MLIR 22's (`--explain` reads it), and
    /// the resolution it was linked from (`None`: attached).
    fn library_for<'c>(
        &self,
        settings: &Settings,
        mlir: &'c Mlir,
        payload: &OwnedOp<'c>,
        name: &str,
    ) -> Result<Linked<'c>, Failure> {
        if self.library.given() {
            return link_library(settings, mlir, &self.library)
                .map(|(module, bytecode, resolved)| (module, bytecode, Some(resolved)))
                .map_err(Failure::Status);
        }
        let bytes = apply::attached_bytes(payload, &self.attr, name).map_err(Failure::Problems)?;
        let library_name = format!("{name}[{}]", self.attr);
        let loaded = {
            let _phase = tracing::info_span!("apply.load-library", bytes = bytes.len()).entered();
            apply::load_library(mlir, &bytes, &library_name, false, Some(&settings.iree))
        };
        match loaded {
            // IREE's bytecode (what `attach` writes when IREE is found) was read through
            // IREE: `--explain` gets the library as tunespec read it.
            Ok(library) if tunespec::iree::bytecode::is_newer_bytecode(&bytes) => {
                Ok((library, None, None))
            }
            Ok(library) => Ok((library, Some(bytes), None)),
            Err(problems) => Err(Failure::Problems(problems)),
        }
    }

    /// Applies the library to the payload in place (generalized as IREE's dispatch formation
    /// does for `--as-dispatch`, and back), reporting the run's problems.
    fn materialize(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        payload: &OwnedOp<'_>,
        library: &OwnedOp<'_>,
        payload_bytes: &[u8],
        formed: bool,
    ) -> Result<(), Vec<Problem>> {
        // IREE formed a model's dispatches as its tuning specs see them, or the target's
        // backend (llvm-cpu) keeps named ops in them: nothing to generalize.
        let generalize =
            self.as_dispatch && !formed && !super::model::keeps_named_ops(settings, &self.library);
        if generalize {
            payload.tag_ops();
            payload
                .generalize_like_iree()
                .map_err(|message| vec![Problem::error(apply::codes::PAYLOAD, message, None)])?;
        }
        let applied = {
            let _phase = tracing::info_span!("apply.match", engine = ?self.engine).entered();
            apply::apply(
                mlir,
                payload,
                library,
                &self.attr,
                self.keep_attr,
                self.engine,
            )
        };
        report(&applied?, Some(payload_bytes));
        if generalize {
            payload.untag_ops();
        }
        Ok(())
    }

    /// `--explain`: what configured each candidate op, printed to stderr (the payload may be on
    /// stdout), with each pair's layer and the ops a withheld derived default would configure.
    /// `payload`: its bytes and name.
    fn explain(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        (payload_bytes, name): (&[u8], &str),
        library_bytes: &[u8],
        resolved: Option<&Resolved>,
        formed: bool,
    ) -> Result<(), Vec<Problem>> {
        let _phase = tracing::info_span!("apply.explain").entered();
        let mut explanation = apply::explain(
            mlir,
            payload_bytes,
            name,
            library_bytes,
            &self.attr,
            self.engine,
            if formed || super::model::keeps_named_ops(settings, &self.library) {
                apply::View::Written
            } else {
                apply::View::Dispatch
            },
        )?;
        let would = super::explain::provenance::annotate(
            mlir,
            resolved,
            &mut explanation,
            payload_bytes,
            name,
            &self.attr,
            self.engine,
        );
        report_unmatched(&explanation, self.format, &would);
        emit_stderr(&render_explanation(
            &explanation,
            self.format,
            table::stderr_width(),
            &would,
            formed,
        ));
        Ok(())
    }
}

/// The payload's bytes, name and module, and whether IREE formed its dispatches.
type Loaded<'c> = (Vec<u8>, String, OwnedOp<'c>, bool);

/// The library to apply, its bytecode when at hand, and the resolution it was linked from.
type Linked<'c> = (OwnedOp<'c>, Option<Vec<u8>>, Option<Resolved>);

/// Why `apply` stops before writing: a status already reported (usage, I/O, a failed link), or
/// problems to report against the payload's text.
enum Failure {
    Status(ExitStatus),
    Problems(Vec<Problem>),
}

/// Links the library of `args` for this process (as `LibraryArgs::link` does: through the cache,
/// its locations naming the user's files as given, warnings printed) and hands over the linked
/// module itself, with its bytecode when the cache holds it.
fn link_library<'c>(
    settings: &Settings,
    mlir: &'c Mlir,
    args: &LibraryArgs,
) -> Result<(OwnedOp<'c>, Option<Vec<u8>>, Resolved), ExitStatus> {
    let (resolved, cache) = args.inputs_and_cache(settings, false)?;
    let _phase = tracing::info_span!("link", inputs = resolved.inputs.len()).entered();
    let result = cache.link_live(
        mlir,
        &resolved.cache_target,
        &resolved.inputs,
        args.link_options(),
    );
    report(&cache.take_warnings(), None);
    match result {
        Ok((module, library)) => {
            report(&library.problems, None);
            // What `apply::load_library` checks of any library (a link always makes one).
            if !module.snapshot_root_has_attr(names::WITH_NAMED_SEQUENCE) {
                report(
                    &[Problem::error(
                        apply::codes::CORRUPT_LIBRARY,
                        "<linked library> is not a transform library",
                        None,
                    )],
                    None,
                );
                return Err(ExitStatus::Problems);
            }
            Ok((module, library.bytecode, resolved))
        }
        Err(problems) => {
            report(&problems, None);
            Err(ExitStatus::Problems)
        }
    }
}
