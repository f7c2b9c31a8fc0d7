//! The command-line interface: the clap command tree and one module per subcommand.
//!
//! Why thin: flag parsing only validates; each command builds its configuration and calls the
//! library. Commands return an [`ExitStatus`]; only `main` exits.

use clap::{Parser, Subcommand, ValueEnum};

pub mod apply;
pub mod cache;
pub mod export;
pub mod link;
pub mod resolve;
pub mod show;
pub mod targets;
pub mod verify;

/// Exit statuses, the same for every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Success (warnings allowed unless `--deny-warnings`).
    Ok = 0,
    /// Problems found in the inputs (specs, manifest, payload).
    Problems = 1,
    /// Usage or I/O error: bad flags, missing or unreadable files, unknown target.
    Usage = 2,
}

pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success (warnings allowed unless --deny-warnings)
  1  problems found in the inputs
  2  usage or I/O error (bad flags, missing or unreadable files, unknown target)";

#[derive(Debug, Parser)]
#[command(
    name = "tunespec",
    version,
    about = "Registry and linker for MLIR transform-dialect tuning specs",
    after_help = EXIT_STATUS_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify tuning specs (files, directories, or the embedded registry)
    Verify(verify::Opts),
    /// Link default and user specs into one library (first match wins)
    Link(link::Opts),
    /// Attach a linked library to a payload (iree_codegen.tuning_spec_mlirbc)
    Attach(apply::AttachOpts),
    /// Print the library attached to a payload
    Extract(apply::ExtractOpts),
    /// Materialize configs: run @__kernel_config on each function of a payload
    Apply(apply::ApplyOpts),
    /// Show what configured each candidate op of a payload, and from which spec line
    Explain(apply::ExplainOpts),
    /// List matchers that never fire across a corpus of payloads
    Coverage(apply::CoverageOpts),
    /// Resolve a target: its fallback chain and the ordered specs, with where each comes from
    Resolve(resolve::Opts),
    /// Export the embedded specs for a compiler build (C header and source)
    Export(export::Opts),
    /// List the embedded registry's targets and specs
    Targets(targets::Opts),
    /// Print a target's embedded specs as MLIR text
    Show(show::Opts),
    /// The cache of linked libraries: stats, clean, path
    Cache(cache::Opts),
}

/// Output format shared by the commands that report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Human,
    Json,
}

pub fn run(cli: Cli) -> ExitStatus {
    match cli.command {
        Command::Verify(opts) => opts.run(),
        Command::Link(opts) => opts.run(),
        Command::Attach(opts) => opts.run(),
        Command::Extract(opts) => opts.run(),
        Command::Apply(opts) => opts.run(),
        Command::Explain(opts) => opts.run(),
        Command::Coverage(opts) => opts.run(),
        Command::Resolve(opts) => opts.run(),
        Command::Export(opts) => opts.run(),
        Command::Targets(opts) => opts.run(),
        Command::Show(opts) => opts.run(),
        Command::Cache(opts) => opts.run(),
    }
}

/// Writes command output to stdout. A closed pipe (`tunespec ... | head`) is not an error: the
/// reader has what it wanted, so the rest is dropped silently instead of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("tunespec: error: cannot write output: {error}");
        std::process::exit(ExitStatus::Usage as i32);
    }
}

/// Writes a report to stderr. A closed stderr (its reader went away) is not worth a panic:
/// the rest of the report is dropped and the command's exit status still tells the outcome.
pub fn emit_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints a tool-level error (not a finding in an input) to stderr.
pub fn tool_error(message: impl std::fmt::Display) {
    emit_stderr(&format!("tunespec: error: {message}\n"));
}
