//! The command-line interface: the clap command tree and one module per subcommand.
//!
//! Why thin: flag parsing only validates; each command builds its configuration and calls the
//! library. Commands return an [`ExitStatus`]; only `main` exits. What several commands share
//! (exit statuses, output formats, the library flags, reading inputs, writing outputs and
//! reporting problems) lives in [`common`].
//!
//! The CLI is part of the binary, not of the library: `tunespec` (the library) exposes only its
//! API.

use clap::{Parser, Subcommand};

pub mod apply;
pub mod attach;
pub mod cache;
pub mod common;
pub mod coverage;
pub mod explain;
pub mod export;
pub mod extract;
pub mod import_iree;
pub mod link;
pub mod resolve;
pub mod show;
pub mod targets;
pub mod verify;

pub use common::{ExitStatus, EXIT_STATUS_HELP};

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
    Attach(attach::Opts),
    /// Print the library attached to a payload
    Extract(extract::Opts),
    /// Materialize configs: run @__kernel_config on each function of a payload
    Apply(apply::Opts),
    /// Show what configured each candidate op of a payload, and from which spec line
    Explain(explain::Opts),
    /// List matchers that never fire across a corpus of payloads
    Coverage(coverage::Opts),
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
    /// Write IREE's built-in default tuning specs (from an installed compiler) as a spec library
    ImportIree(import_iree::Opts),
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
        Command::ImportIree(opts) => opts.run(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
