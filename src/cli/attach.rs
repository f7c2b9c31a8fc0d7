//! `tunespec attach`: link a library and attach it to a payload.

use std::path::PathBuf;
use tunespec::settings::Settings;

use crate::cli::output;
use tunespec::apply::attach_check;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::iree::{Failure, Iree};
use tunespec::mlir::{BlobForm, Mlir};
use tunespec::problem::Problem;

use super::common::{
    fail, load_payload, tool_error, write, DiagnosticFormat, ExitStatus, LibraryArgs,
};

fn usage(message: String) -> ExitStatus {
    tool_error(message);
    ExitStatus::Usage
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Blob {
    /// `dense<"0x..."> : vector<N x i8>` (IREE's default)
    #[default]
    Dense,
    /// `dense_resource<...>` with the bytes in the file's resource section
    Resource,
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::ATTACH)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// A shared store whose best entries for the target are linked below the user's own specs
    /// (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)
    #[arg(long, value_name = "URL", requires = "target")]
    pub store: Option<String>,
    /// The payload (MLIR text or bytecode), `-` for stdin
    pub payload: PathBuf,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// How the bytes are stored
    #[arg(long, value_enum, default_value_t)]
    pub blob: Blob,
    /// Attach every pair of the library (default: a library of 64 pairs or more is cut down to
    /// the pairs that fire on this payload's dispatches, with a note of what was left out)
    #[arg(long)]
    pub keep_all: bool,
    /// How diagnostics are printed (on stderr; stdout may carry the payload)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagnosticFormat,
}

impl Opts {
    pub fn run(mut self, settings: &Settings) -> ExitStatus {
        self.library.store = self.store.take();
        if let Err(message) = attach_check::check_attr_name(&self.attr) {
            return usage(message);
        }
        if let Err(message) = output::check_not_an_input(&self.output, &self.library.specs, &[]) {
            return usage(message);
        }
        let mlir = Mlir::new_threaded();
        let raw = match super::common::read(&self.payload) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let raw_name = super::common::input_name(&self.payload);
        if let Some(dialect) = tunespec::iree::foreign_dialect(&raw) {
            return self.attach_model(settings, &mlir, &raw, &raw_name, &dialect);
        }
        let (payload_bytes, name, payload) = match load_payload(&mlir, &self.payload, Some(raw)) {
            Ok(loaded) => loaded,
            Err(status) => return status,
        };
        if let Err(problems) = attach_check::check_not_foreign(&payload, &self.attr, &name) {
            return fail(problems, &payload_bytes);
        }
        let library = match self.library.link_portable(settings, &mlir) {
            Ok(library) => library,
            Err(status) => return status,
        };
        let views = super::model::possible_views(settings, &self.library);
        let library = match self.pruned(settings, &mlir, library, &payload_bytes, &name, views) {
            Ok(library) => library,
            Err(status) => return status,
        };
        let form = match self.blob {
            Blob::Dense => BlobForm::Dense,
            Blob::Resource => BlobForm::Resource,
        };
        // With IREE at hand, the library is IREE's own bytecode: the consumer reads it whatever
        // its MLIR version (MLIR 22's bytecode of some ops is not readable by IREE 3.13).
        let library = match settings.iree.optional() {
            Some(Ok(iree)) => match library_for_iree(settings, || &mlir, iree, &library) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            },
            Some(Err(message)) => {
                super::common::tool_error_with(super::model::NEEDED, message.clone(), None);
                return ExitStatus::Usage;
            }
            None => library,
        };
        let phase = tracing::info_span!("attach", bytes = library.len()).entered();
        if let Err(problems) = apply::attach(&payload, &library, &self.attr, form) {
            return fail(problems, &payload_bytes);
        }
        let text = payload.print_file();
        drop(phase);
        let checked = {
            let _phase = tracing::info_span!("attach.check-output").entered();
            attach_check::check_output(&mlir, &text, &self.attr, &library)
        };
        if let Err(problems) = checked {
            return fail(problems, &[]);
        }
        write(&self.output, text.as_bytes())
    }
}

impl Opts {
    /// The library cut down to the pairs that fire on the payload (see `apply::prune`), with a
    /// note of what was left out; the whole library with `--keep-all` or when it is not cut.
    fn pruned(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        library: Vec<u8>,
        payload: &[u8],
        name: &str,
        views: &[apply::View],
    ) -> Result<Vec<u8>, ExitStatus> {
        if self.keep_all {
            return Ok(library);
        }
        let _phase = tracing::info_span!("attach.prune").entered();
        match apply::prune::prune_cached(mlir, &library, payload, name, views, settings.cache.get())
        {
            Ok(Ok(pruned)) => {
                if !super::common::quiet() {
                    super::common::emit_stderr(&prune_note(&pruned, name, views));
                }
                Ok(pruned.bytecode)
            }
            Ok(Err(why)) => {
                tracing::debug!(%why, "the library is attached whole");
                Ok(library)
            }
            Err(problems) => Err(fail(problems, payload)),
        }
    }
}

/// What pruning left out, in words: the pairs and the sequences they alone used (matchers and
/// the rest, so the counts add up), and on which view of the payload the pairs fire on nothing.
fn prune_note(pruned: &apply::prune::Pruned, name: &str, views: &[apply::View]) -> String {
    let whose = match views {
        [apply::View::Written] => "in the llvm-cpu backend's view (named ops kept)",
        [apply::View::Dispatch] => "in the GPU backends' view (named ops generalized)",
        _ => "in any backend's view (no --target: named ops kept, as on llvm-cpu, or generalized, as on GPUs)",
    };
    format!(
        "note: attached {} of {} pair(s) of the library: the other {} fire on no op of {name} {whose}; left out with them: {} matcher(s) and {} other sequence(s) nothing calls any more (--keep-all attaches every pair)\n",
        pruned.kept,
        pruned.kept + pruned.dropped,
        pruned.dropped,
        pruned.matchers,
        pruned.sequences - pruned.matchers,
    )
}

/// The linked library (MLIR 22 bytecode) as `iree`'s bytecode: printed as text by tunespec,
/// parsed, verified and written by IREE. IREE's refusal is a problem in the specs (exit 1):
/// tunespec never writes a library the consumer cannot read.
///
/// Through the cache: IREE's bytecode of a library is a pure function of the library's bytes
/// and IREE's revision, so a warm `attach` or `link --emit mlirbc` starts no IREE at all.
///
/// `mlir` is asked for a context only on a miss: a warm `link --emit mlirbc` creates none.
pub fn library_for_iree<'m>(
    settings: &Settings,
    mlir: impl FnOnce() -> &'m Mlir,
    iree: &tunespec::iree::Iree,
    library: &[u8],
) -> Result<Vec<u8>, ExitStatus> {
    let _phase = tracing::info_span!("iree.library").entered();
    let key = tunespec::cache::answer_key(
        library,
        "<linked library>",
        &iree.revision,
        &[],
        "iree-bytecode",
    );
    let mut status = None;
    let entry = settings.cache.get().get_or_insert_with(&key, || {
        // The entries left out for an older IREE are kept with the answer: a cache hit warns
        // as the first run did.
        let mut left_out = Vec::new();
        let converted = with_library_text(mlir(), library, (iree, &mut left_out), |text| {
            iree.reprint(text, "<linked library>", true)
        })
        .and_then(|answer| answer.map_err(|(failure, text)| super::model::report(failure, &text)));
        match converted {
            Ok(bytecode) => Ok(tunespec::cache::Artifact {
                bytecode,
                problems: left_out,
            }),
            Err(failed) => {
                status = Some(failed);
                Err(Vec::new())
            }
        }
    });
    entry
        .map(|entry| {
            super::common::report(&entry.problems, None);
            entry.bytecode
        })
        .map_err(|_| status.unwrap_or(ExitStatus::Problems))
}

/// The linked library (tunespec's bytecode) as text, the form every MLIR version reads.
pub fn library_text(mlir: &Mlir, library: &[u8]) -> Result<String, ExitStatus> {
    let Some(module) = mlir.parse(library, "<library>").module else {
        tool_error("the linked library does not parse (a tunespec bug: please report it)");
        return Err(ExitStatus::Usage);
    };
    Ok(module.print_file())
}

/// [`library_text`] in the syntax of the session's IREE when one is found ([`for_release`]),
/// the entries it cannot express left out with their warnings reported: what `bench` and
/// `tune` hand IREE.
pub fn library_text_for_iree(
    settings: &Settings,
    mlir: &Mlir,
    library: &[u8],
) -> Result<String, ExitStatus> {
    let text = library_text(mlir, library)?;
    match settings.iree.optional() {
        Some(Ok(iree)) => {
            let mut left_out = Vec::new();
            let text = for_release(iree, &text, &mut left_out);
            super::common::report(&left_out, None);
            Ok(text)
        }
        _ => Ok(text),
    }
}

/// What IREE answers to `ask` with the library's text as MLIR 22 prints it, or, when IREE
/// refuses that, with its generic form: MLIR 22's custom syntax of some ops is not IREE's
/// (`transform.print`'s name, read from a spec in IREE's syntax), the generic form is the same
/// in both. When both are refused, IREE's first refusal and the text it read. `Err`: the
/// library does not parse (a tunespec bug, reported).
///
/// Both texts are written for `iree`'s release first ([`for_release`]); the entries left out
/// for it are added to `left_out` as warnings.
pub fn with_library_text<T>(
    mlir: &Mlir,
    library: &[u8],
    (iree, left_out): (&Iree, &mut Vec<Problem>),
    mut ask: impl FnMut(&[u8]) -> Result<T, Failure>,
) -> Result<Result<T, (Failure, Vec<u8>)>, ExitStatus> {
    let Some(module) = mlir.parse(library, "<library>").module else {
        tool_error("the linked library does not parse (a tunespec bug: please report it)");
        return Err(ExitStatus::Usage);
    };
    let text = for_release(iree, &module.print_file(), left_out).into_bytes();
    Ok(match ask(&text) {
        Ok(answer) => Ok(answer),
        Err(failure @ Failure::Rejected(_)) => {
            let generic = String::from_utf8_lossy(&module.print_generic_file()).into_owned();
            let generic = for_release(iree, &generic, &mut Vec::new()).into_bytes();
            ask(&generic).map_err(|_| (failure, text))
        }
        Err(failure) => Err((failure, text)),
    })
}

/// The library's `text` as `iree`'s release reads it (`tunespec::iree::release`): its
/// spellings, and the entries it cannot express left out, each a warning added to `left_out`.
pub fn for_release(iree: &Iree, text: &str, left_out: &mut Vec<Problem>) -> String {
    let release = iree.release();
    let written = tunespec::iree::release::library_for(text, release);
    if let Some(release) = release {
        left_out.extend(written.left_out.iter().map(|entry| {
            Problem::warning(
                tunespec::iree::codes::LEFT_OUT,
                entry.message(release),
                None,
            )
            .with_help(
                "use IREE 3.12 or later for this config, or give the op a config this IREE has",
            )
        }));
    }
    written.text
}

impl Opts {
    /// A model (ops only IREE reads): IREE parses it, sets the attribute and writes it, as text
    /// or, for a bytecode input, as IREE's bytecode.
    fn attach_model(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        raw: &[u8],
        name: &str,
        dialect: &str,
    ) -> ExitStatus {
        let why = format!("{name} holds {dialect} ops, which only IREE reads");
        let iree = match super::model::iree_in(settings, &why) {
            Ok(iree) => iree,
            Err(status) => return status,
        };
        let library = match self.library.link_portable(settings, mlir) {
            Ok(library) => library,
            Err(status) => return status,
        };
        // The pairs that fire on IREE's own dispatches of the model (read only for a library
        // worth cutting down: it costs IREE's dispatch formation, cached).
        let library = if !self.keep_all && apply::prune::worth_pruning(mlir, &library) {
            let dispatches = match super::model::read(
                settings,
                raw,
                name,
                &self.library,
                super::model::Dispatches::Auto,
            ) {
                Ok(super::model::Read::Dispatches { bytes, .. }) => Some(bytes),
                Ok(super::model::Read::Own) => None,
                Err(status) => return status,
            };
            match dispatches {
                Some(bytes) => {
                    match self.pruned(
                        settings,
                        mlir,
                        library,
                        &bytes,
                        name,
                        &[apply::View::Written],
                    ) {
                        Ok(library) => library,
                        Err(status) => return status,
                    }
                }
                None => library,
            }
        } else {
            library
        };
        let bytecode = raw.starts_with(tunespec::verify::BYTECODE_MAGIC);
        let _phase = tracing::info_span!("iree.attach", bytes = library.len()).entered();
        let mut left_out = Vec::new();
        let attached = with_library_text(mlir, &library, (iree, &mut left_out), |text| {
            iree.attach(raw, name, &self.attr, text, bytecode)
        });
        super::common::report(&left_out, None);
        match attached {
            Ok(Ok(written)) => write(&self.output, &written),
            Ok(Err((failure, _))) => super::model::report(failure, raw),
            Err(status) => status,
        }
    }
}
