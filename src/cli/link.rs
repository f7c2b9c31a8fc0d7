//! `tunespec link`: merge a target's default specs and user specs into one library.

use std::path::PathBuf;

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
    /// Output file, or `-` for stdout (written atomically)
    #[arg(long, short, default_value = "-")]
    pub output: PathBuf,
    /// Output form
    #[arg(long, value_enum, default_value_t)]
    pub emit: Emit,
    /// Drop matchers that can never fire (a structurally identical matcher precedes them)
    #[arg(long)]
    pub dedupe: bool,
    /// Threads that parse and check the inputs (default: one per core for inputs of 1 MiB or
    /// more; the output is the same for any number)
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// How diagnostics are printed (on stderr; stdout may carry the library)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagnosticFormat,
    /// Treat warnings (e.g. shadowed matchers) as errors: report them and write nothing
    #[arg(long)]
    pub deny_warnings: bool,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let inputs = match self.library.inputs() {
            Ok(inputs) => inputs,
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
        let Some(cache) = super::cache::open() else {
            return ExitStatus::Usage;
        };
        let mlir = std::cell::OnceCell::new();
        let target = self.library.cache_target();
        let options = LinkOptions {
            dedupe: self.dedupe,
            threads: self.jobs.map(usize::from),
        };
        let phase = tracing::info_span!("link", inputs = inputs.len(), emit = ?self.emit).entered();
        let result = match self.emit {
            Emit::Mlirbc => cache
                .link_with(&target, &inputs, options, || {
                    mlir.get_or_init(Mlir::new_threaded)
                })
                .map(|library| (library.bytecode, library.problems)),
            Emit::Mlir => cache
                .link_text(&target, &inputs, options, || {
                    mlir.get_or_init(Mlir::new_threaded)
                })
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
        match write_output(&self.output, &bytes) {
            Ok(()) => ExitStatus::Ok,
            Err(message) => {
                tool_error(message);
                ExitStatus::Usage
            }
        }
    }
}
