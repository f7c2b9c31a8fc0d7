//! The `tunespec` binary: parse arguments, run the command, map its status to an exit code.
use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = tunespec::cli::Cli::parse();
    std::process::ExitCode::from(tunespec::cli::run(cli) as u8)
}
