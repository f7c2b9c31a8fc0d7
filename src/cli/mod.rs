//! The command-line interface: the clap command tree and one module per subcommand.
//!
//! Why thin: flag parsing only validates; each command builds its configuration and calls the
//! library. Commands return an [`ExitStatus`]; only `main` exits. What several commands share
//! (exit statuses, output formats, the library flags, reading inputs, writing outputs and
//! reporting problems) lives in [`common`]; the examples and environment variables in each
//! command's `--help` in [`help`].
//!
//! The CLI is part of the binary, not of the library: `tunespec` (the library) exposes only its
//! API.

use clap::{Parser, Subcommand, ValueEnum};

// One file per command (`explain` a folder: its `--exact` comparison and provenance rendering
// beside it); `bench_report`, `check_bench` and `tune_compile` render `bench`, `check --bench`
// and `tune --compile-only`.
pub mod apply;
pub mod attach;
pub mod bench;
pub mod cache;
pub mod check;
pub mod coverage;
pub mod decide;
pub mod docs;
pub mod doctor;
pub mod explain;
pub mod export;
pub mod extract;
pub mod import_iree;
pub mod import_tuner;
pub mod link;
pub mod resolve;
pub mod show;
pub mod store;
pub mod targets;
pub mod time_plan;
pub mod tune;
pub mod verify;

// What the commands share, under `shared/`, reached as `cli::common` and so on.
mod shared;
pub use shared::{bench_report, common, help, log, model, output, table};

pub use common::{DiagnosticFormat, ExitStatus};

/// `tunespec --version`: the release, the MLIR it is built with and the bytecode version it
/// writes.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (MLIR ",
    env!("TUNESPEC_MLIR_VERSION"),
    ", bytecode v6)"
);

#[derive(Debug, Parser)]
#[command(
    name = "tunespec",
    version = VERSION,
    about = "Registry and linker for MLIR transform-dialect tuning specs",
    after_help = help::TOP
)]
pub struct Cli {
    /// When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1
    /// forces it), always, never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    pub color: ColorWhen,
    /// Print what tunespec does and how long each phase takes, to stderr (-vv: more detail;
    /// TUNESPEC_LOG sets the filter instead)
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Print only problems and outputs: no progress bars, no summaries
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// IREE's compiler library (libIREECompiler.so, a venv or a directory holding it)
    ///
    /// What models are read and libraries written with. Default: $TUNESPEC_IREE_LIB, then
    /// $TUNESPEC_IREE_VENV, the install of iree-compile on PATH, python3's iree package;
    /// `tunespec doctor` says which is used.
    #[arg(long, global = true, value_name = "PATH")]
    pub iree: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
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
    /// What tunespec found on this machine (IREE's compiler, iree-opt, mlir-opt) and what works
    /// without it
    Doctor(doctor::Opts),
    /// Write IREE's built-in default tuning specs (from an installed compiler) as a spec library
    ImportIree(import_iree::Opts),
    /// Import the SHARK tuner's measured winners (tuner run directories) as a spec library
    ImportTuner(import_tuner::Opts),
    /// Re-check every matcher of specs and spec libraries against the installed IREE (--fix
    /// migrates old syntax)
    Check(check::Opts),
    /// Time the library's configs against IREE's own on a device (IREE's runtime), and write
    /// the winners as measured entries
    Bench(bench::Opts),
    /// Time a bench plan (`bench --plan`) on a device with IREE's runtime alone (no compiler):
    /// the plan's results, resumable, in shards
    Time(time_plan::Opts),
    /// Decide a timed bench plan: its verdicts and, with --write, its measured entries
    Decide(decide::Opts),
    /// Search configs faster than IREE's own for a model's dispatches on a device, and write
    /// the winners as a measured library
    Tune(tune::Opts),
    /// The shared store of measured entries (Redis, a directory): push, pull, ls, purge
    Store(store::Opts),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(docs::CompletionsOpts),
    /// Print the manual page (roff), of tunespec or of one command
    Man(docs::ManOpts),
}

impl Command {
    /// How the command prints diagnostics, and whether a SARIF log goes to stdout (the
    /// command's findings are its output) rather than stderr.
    fn diagnostic_format(&self) -> (DiagnosticFormat, bool) {
        match self {
            Command::Verify(opts) => (opts.format, true),
            Command::Link(opts) => (opts.format, false),
            Command::Attach(opts) => (opts.format, false),
            // stdout may carry the payload: the log goes to stderr, as for `link` and `attach`.
            Command::Apply(opts) => (opts.format.into(), false),
            // The report commands: in `sarif` the log is their output.
            Command::Explain(opts) => (opts.format.into(), true),
            Command::Coverage(opts) => (opts.format.into(), true),
            Command::Check(opts) => (opts.format.into(), true),
            Command::Bench(opts) => (opts.format.into(), true),
            Command::Tune(opts) => (opts.format.into(), true),
            Command::Decide(opts) => (opts.format.into(), true),
            Command::Resolve(opts) => (opts.format.into(), true),
            Command::Targets(opts) => (opts.format.into(), true),
            Command::Cache(opts) => (opts.format().into(), opts.is_stats()),
            Command::Store(opts) => (opts.format().into(), false),
            Command::Extract(_)
            | Command::Export(_)
            | Command::Show(_)
            | Command::Completions(_)
            | Command::Man(_)
            | Command::ImportIree(_)
            | Command::Time(_) => (DiagnosticFormat::Human, false),
            Command::ImportTuner(opts) => (opts.format.into(), false),
            Command::Doctor(opts) => (opts.format.into(), false),
        }
    }
}

/// Runs the command line `cli` with the settings it and `env` (the process's environment,
/// read once at start) make.
pub fn run(cli: Cli, env: tunespec::settings::Environment) -> ExitStatus {
    anstream::ColorChoice::write_global(match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    });
    let (format, sarif_to_stdout) = cli.command.diagnostic_format();
    common::start(format, sarif_to_stdout);
    common::set_quiet(cli.quiet);
    if let Err(message) = log::init(cli.verbose, format == DiagnosticFormat::Json, &env) {
        common::tool_error(message);
        common::finish();
        return ExitStatus::Usage;
    }
    let settings = common::configure(
        tunespec::settings::Flags {
            iree: cli.iree.clone(),
        },
        env,
    );
    tunespec::iree::text::install(settings.iree.clone());
    // Each command takes the settings it needs as a parameter (`bench` and `tune` read the same
    // value through `common::settings` for now).
    let status = match cli.command {
        Command::Verify(opts) => opts.run(settings),
        Command::Link(opts) => opts.run(settings),
        Command::Attach(opts) => opts.run(settings),
        Command::Extract(opts) => opts.run(settings),
        Command::Apply(opts) => opts.run(settings),
        Command::Explain(opts) => opts.run(settings),
        Command::Coverage(opts) => opts.run(settings),
        Command::Resolve(opts) => opts.run(settings),
        Command::Export(opts) => opts.run(),
        Command::Targets(opts) => opts.run(settings),
        Command::Show(opts) => opts.run(),
        Command::Cache(opts) => opts.run(settings),
        Command::Completions(opts) => opts.run(),
        Command::Man(opts) => opts.run(),
        Command::ImportIree(opts) => opts.run(settings),
        Command::ImportTuner(opts) => opts.run(),
        Command::Check(opts) => opts.run(settings),
        Command::Bench(opts) => opts.run(settings),
        Command::Tune(opts) => opts.run(settings),
        Command::Store(opts) => opts.run(settings),
        Command::Time(opts) => opts.run(settings),
        Command::Decide(opts) => opts.run(),
        Command::Doctor(opts) => opts.run(settings),
    };
    // Configs that were ignored, and why: warnings in the run's format.
    for notice in settings.notices() {
        common::warning(tunespec::problem::codes::CONFIG, notice);
    }
    common::finish();
    status
}

/// A command line clap rejected. With `--format` other than human (as far as it can be read
/// from the raw arguments), the error is a diagnostic in that format (code `tunespec::usage`);
/// help, version and human-format errors are clap's own. Returns the exit status.
pub fn usage_error(error: &clap::Error) -> ExitStatus {
    use clap::error::ErrorKind;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let format = raw_format(&args);
    if format == DiagnosticFormat::Human
        || matches!(
            error.kind(),
            ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        )
    {
        let _ = error.print();
        // `--version -v`: also the IREE tunespec would use.
        if error.kind() == ErrorKind::DisplayVersion
            && args
                .iter()
                .any(|arg| arg == "-v" || arg == "--verbose" || arg == "-vv")
        {
            println!("{}", doctor::iree_line(common::settings()));
        }
        return if error.use_stderr() {
            ExitStatus::Usage
        } else {
            ExitStatus::Ok
        };
    }
    let text = error.render().to_string();
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let message = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    let help = lines.collect::<Vec<_>>().join("\n");
    // Where the SARIF log goes, as in `Command::diagnostic_format`: stdout for the commands
    // whose findings or report are their output.
    let to_stdout = args
        .iter()
        .find(|arg| !arg.starts_with('-'))
        .is_some_and(|command| {
            [
                "verify", "explain", "coverage", "resolve", "targets", "cache", "check",
            ]
            .contains(&command.as_str())
        });
    common::start(format, to_stdout);
    common::tool_error_with(
        common::USAGE,
        message,
        (!help.is_empty()).then_some(help.as_str()),
    );
    common::finish();
    ExitStatus::Usage
}

/// The `--format` of a command line clap could not parse, when it names a diagnostic format.
fn raw_format(args: &[String]) -> DiagnosticFormat {
    let mut value = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            break;
        }
        if arg == "--format" {
            value = iter.next().cloned();
        } else if let Some(rest) = arg.strip_prefix("--format=") {
            value = Some(rest.to_string());
        }
    }
    value
        .and_then(|value| DiagnosticFormat::from_str(&value, true).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn the_format_of_an_unparsable_command_line_is_read_from_the_raw_arguments() {
        let args = |line: &str| line.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            raw_format(&args("verify --format json --bogus")),
            DiagnosticFormat::Json
        );
        assert_eq!(
            raw_format(&args("link --format=sarif --bogus")),
            DiagnosticFormat::Sarif
        );
        assert_eq!(
            raw_format(&args("verify --format xml")),
            DiagnosticFormat::Human
        );
        assert_eq!(
            raw_format(&args("verify -- --format json")),
            DiagnosticFormat::Human
        );
    }
}
