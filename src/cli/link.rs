//! `tunespec link`: merge a target's default specs and user specs into one library.

use std::path::PathBuf;
use tunespec::settings::Settings;

use crate::cli::output::{self, write_output, Emit};
use tunespec::link::LinkOptions;
use tunespec::mlir::Mlir;

use tunespec::problem::Severity;

use super::common::{
    report_linked as report, tool_error, DiagnosticFormat, ExitStatus, LibraryArgs,
};
use crate::diagnostics::Style;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::LINK)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// A shared store whose best entries for the target are linked below the user's own specs
    /// (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)
    #[arg(long, value_name = "URL", requires = "target")]
    pub store: Option<String>,
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Output form
    #[arg(long, value_enum, default_value_t)]
    pub emit: Emit,
    /// Drop matchers that can never fire: an earlier matcher matches every op they match (by
    /// matcher key, or structurally identical), overridden defaults included
    #[arg(long)]
    pub dedupe: bool,
    /// Threads that parse and check the inputs, and most IREE workers that check the result
    /// (default: one per core for inputs of 1 MiB or more; the output is the same for any
    /// number)
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// How diagnostics are printed (on stderr; stdout may carry the library)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagnosticFormat,
    /// Treat warnings (e.g. shadowed matchers) as errors: report them and write nothing
    #[arg(long)]
    pub deny_warnings: bool,
    /// Do not check the library with IREE's compiler when one is found (the check: IREE parses
    /// and verifies the text written; `--emit mlirbc` is IREE's own bytecode)
    #[arg(long)]
    pub no_iree_check: bool,
}

impl Opts {
    pub fn run(mut self, settings: &Settings) -> ExitStatus {
        self.library.store = self.store.take();
        let (inputs, target) = match self.library.resolve(settings) {
            Ok(resolved) => (resolved.inputs, resolved.cache_target),
            Err(error) => return super::resolve::report_error(&error),
        };
        if let Err(message) = output::check_not_an_input(&self.output, &self.library.specs, &inputs)
        {
            tool_error(message);
            return ExitStatus::Usage;
        }
        // Through the cache of linked libraries (src/cache/). The MLIR context is created only
        // when needed: a hit needs none. Text is cached too, printed from the library's bytecode,
        // so a hit prints exactly what a cold link prints.
        let style = Style::detect_stderr();
        let Some(cache) = super::cache::open(settings) else {
            return ExitStatus::Usage;
        };
        let mlir = std::cell::OnceCell::new();
        // On a miss (the closures below run only then), IREE's workers start at once and load
        // its library while tunespec links: its check of the result then costs only its parse,
        // split across workers for a large library (the text is about as long as the inputs).
        let start_iree = || {
            if !self.no_iree_check {
                if let Some(Ok(iree)) = settings.iree.optional() {
                    let bytes = inputs.iter().map(|input| input.bytes.len()).sum();
                    iree.prestart_n(tunespec::iree::split::parts_for(
                        bytes,
                        self.jobs.map(usize::from),
                        iree.limits().check_part_bytes,
                    ));
                }
            }
            Mlir::new_threaded()
        };
        let options = LinkOptions {
            dedupe: self.dedupe,
            threads: self.jobs.map(usize::from),
            ..self.library.link_options()
        };
        let phase = tracing::info_span!("link", inputs = inputs.len(), emit = ?self.emit).entered();
        let result = match self.emit {
            Emit::Mlirbc => cache
                .link_with(&target, &inputs, options, || mlir.get_or_init(start_iree))
                .map(|library| (library.bytecode, library.problems)),
            Emit::Mlir => cache
                .link_text(&target, &inputs, options, || mlir.get_or_init(start_iree))
                .map(|library| (library.bytecode, library.problems)),
        };
        drop(phase);
        report(&cache.take_warnings(), &inputs, style);
        let bytes = match result {
            Ok((bytes, mut problems)) => {
                let denied = self.deny_warnings
                    && problems
                        .iter()
                        .any(|problem| problem.severity == Severity::Warning);
                if denied {
                    for problem in &mut problems {
                        if problem.severity == Severity::Warning {
                            problem.severity = Severity::Error;
                        }
                    }
                }
                report(&problems, &inputs, style);
                if denied {
                    return ExitStatus::Problems;
                }
                bytes
            }
            Err(problems) => {
                report(&problems, &inputs, style);
                return ExitStatus::Problems;
            }
        };
        let bytes = match self.through_iree(settings, bytes) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        match write_output(&self.output, &bytes) {
            Ok(()) => ExitStatus::Ok,
            Err(message) => {
                tool_error(message);
                ExitStatus::Usage
            }
        }
    }
}

impl Opts {
    /// With IREE found (cheaply: not through python3), what IREE reads: the text is parsed and
    /// verified by IREE (its refusal: exit 1, nothing written), the bytecode is IREE's own.
    fn through_iree(&self, settings: &Settings, bytes: Vec<u8>) -> Result<Vec<u8>, ExitStatus> {
        if self.no_iree_check {
            return Ok(bytes);
        }
        let iree = match settings.iree.optional() {
            None => return Ok(bytes),
            Some(Ok(iree)) => iree,
            Some(Err(message)) => {
                super::common::tool_error_with(super::model::NEEDED, message.clone(), None);
                return Err(ExitStatus::Usage);
            }
        };
        let _phase = tracing::info_span!("iree.check").entered();
        if self.emit == Emit::Mlirbc {
            // IREE's own bytecode, through the cache (see `library_for_iree`).
            let mlir = std::cell::OnceCell::new();
            if self.deny_warnings {
                // An entry left out for an older IREE is a warning: denied, nothing written.
                let text =
                    super::attach::library_text(mlir.get_or_init(Mlir::new_threaded), &bytes)?;
                let mut left_out = Vec::new();
                super::attach::for_release(iree, &text, &mut left_out);
                if !left_out.is_empty() {
                    return Err(deny(left_out));
                }
            }
            return super::attach::library_for_iree(
                settings,
                || mlir.get_or_init(Mlir::new_threaded),
                iree,
                &bytes,
            );
        }
        // In the found IREE's syntax (3.10 to 3.13): a pure edit of the text, the entries the
        // release cannot express left out, each with a warning.
        let mut left_out = Vec::new();
        let text =
            super::attach::for_release(iree, &String::from_utf8_lossy(&bytes), &mut left_out);
        let bytes = text.into_bytes();
        if self.deny_warnings && !left_out.is_empty() {
            return Err(deny(left_out));
        }
        super::common::report(&left_out, None);
        // Through the cache: the same library and the same IREE were checked before.
        let what = "iree-text-check";
        let key = tunespec::cache::dispatches_key(&bytes, what, &iree.revision, &[], what);
        let mut status = None;
        let checked = settings.cache.get().get_or_insert_with(&key, || {
            // Cached as the hex of the input's hash when IREE read the text as it is (the
            // entry only records that this IREE read these bytes), else as IREE's own text of
            // it (see `text_for_iree`).
            match text_for_iree(iree, &bytes, self.jobs.map(usize::from)) {
                Ok(payload) => Ok(tunespec::cache::Artifact {
                    bytecode: payload,
                    problems: Vec::new(),
                }),
                Err(failed) => {
                    status = Some(failed);
                    Err(Vec::new())
                }
            }
        });
        match checked {
            Ok(entry) => Ok(match entry.bytecode.strip_prefix(IREE_TEXT) {
                Some(text) => text.to_vec(),
                None => bytes,
            }),
            Err(_) => Err(status.unwrap_or(ExitStatus::Problems)),
        }
    }
}

/// `--deny-warnings` of the entries left out for an older IREE: reported as errors, exit 1.
fn deny(mut left_out: Vec<tunespec::problem::Problem>) -> ExitStatus {
    for problem in &mut left_out {
        problem.severity = Severity::Error;
    }
    super::common::report(&left_out, None);
    ExitStatus::Problems
}

/// The prefix of a cached IREE check whose answer is IREE's text of the library.
const IREE_TEXT: &[u8] = b"iree-text:";

/// The linked library's text checked by IREE: the hash of the text when IREE reads it as it
/// is; else, where IREE reads its generic form (MLIR 22 printed an op in a syntax IREE's MLIR
/// does not read, e.g. `transform.print`'s name), [`IREE_TEXT`] and IREE's own print of it,
/// which is what `link` then writes: the library is for IREE.
fn text_for_iree(
    iree: &tunespec::iree::Iree,
    bytes: &[u8],
    jobs: Option<usize>,
) -> Result<Vec<u8>, ExitStatus> {
    match iree.check_split(bytes, "<linked library>", jobs) {
        Ok(()) => Ok(blake3::hash(bytes).to_hex().to_string().into_bytes()),
        Err(failure @ tunespec::iree::Failure::Rejected(_)) => {
            let generic = Mlir::new()
                .parse(bytes, "<library>")
                .module
                .map(|module| module.print_generic_file());
            match generic.and_then(|generic| iree.reprint(&generic, "<linked library>", false).ok())
            {
                Some(mut text) => {
                    if !text.ends_with(b"\n") {
                        text.push(b'\n');
                    }
                    Ok([IREE_TEXT, &text].concat())
                }
                None => Err(super::model::report(failure, bytes)),
            }
        }
        Err(failure) => Err(super::model::report(failure, bytes)),
    }
}
