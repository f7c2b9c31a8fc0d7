//! `tunespec link`: merge a target's default specs and user specs into one library.

use std::path::PathBuf;

use tunespec::link::LinkOptions;
use tunespec::mlir::Mlir;
use tunespec::output::{self, write_output, Emit};

use super::common::{
    report_linked as report, tool_error, ExitStatus, LibraryArgs, EXIT_STATUS_HELP,
};
use crate::diagnostics::Style;

#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_STATUS_HELP)]
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
        };
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
        report(&cache.take_warnings(), &inputs, style);
        let bytes = match result {
            Ok((bytes, problems)) => {
                report(&problems, &inputs, style);
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
