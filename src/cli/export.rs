//! `tunespec export --format c -o DIR`: the embedded specs as sources for a compiler build.

use std::path::PathBuf;

use super::common::{emit, tool_error, ExitStatus};
use crate::cli::output::write_outputs;
use tunespec::export;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A C header and source (C99 with alignment attributes; usable from C++)
    #[default]
    C,
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::EXPORT)]
pub struct Opts {
    /// What to write
    #[arg(long, value_enum, default_value_t)]
    pub format: ExportFormat,
    /// Output directory (created if missing); files are written atomically
    #[arg(long, short)]
    pub output: PathBuf,
    /// Export only these targets and their fallback chains (repeatable; default: all)
    #[arg(long = "target", short)]
    pub targets: Vec<String>,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let targets = match export::select_targets(&self.targets) {
            Ok(targets) => targets,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        if let Err(error) = std::fs::create_dir_all(&self.output) {
            tool_error(format!("cannot create {}: {error}", self.output.display()));
            return ExitStatus::Usage;
        }
        match self.format {
            ExportFormat::C => {
                let sources = export::c_sources(&targets);
                // Both files or neither (a full disk must not leave a header without its source).
                let header = self.output.join(export::C_HEADER);
                let source = self.output.join(export::C_SOURCE);
                if let Err(message) = write_outputs(&[
                    (&header, sources.header.as_bytes()),
                    (&source, sources.source.as_bytes()),
                ]) {
                    tool_error(message);
                    return ExitStatus::Usage;
                }
                let mut specs: Vec<&str> = sources.rows.iter().map(|(_, spec)| spec.path).collect();
                specs.sort_unstable();
                specs.dedup();
                emit(&format!(
                    "wrote {} and {} to {}: {} target(s), {} spec(s), {} table row(s)\n",
                    export::C_HEADER,
                    export::C_SOURCE,
                    self.output.display(),
                    targets.len(),
                    specs.len(),
                    sources.rows.len()
                ));
            }
        }
        ExitStatus::Ok
    }
}
