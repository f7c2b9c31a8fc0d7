//! What the commands share: exit statuses, output formats, the flags that choose a library,
//! reading inputs, writing outputs and reporting problems.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use tunespec::link::{LinkInput, LinkOptions};
use tunespec::mlir::{Mlir, OwnedOp};
use tunespec::output::write_output;
use tunespec::problem::Problem;
use tunespec::{apply, registry};

use crate::diagnostics::{self, Style};

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

/// Output format shared by the commands that report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Human,
    Json,
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

/// Which specs make the library: a target's resolution (user specs first, then its defaults),
/// or only the user's specs. Shared by `link` and by `attach`/`apply`/`explain`/`coverage`,
/// which link the same way.
#[derive(Debug, Clone, clap::Args)]
pub struct LibraryArgs {
    /// Target (architecture, SKU or alias) whose default specs are linked after the user's
    #[arg(long, short)]
    pub target: Option<String>,
    /// User spec file or directory (repeatable; highest priority first)
    #[arg(long = "spec", short = 's')]
    pub specs: Vec<PathBuf>,
    /// Link only the user specs
    #[arg(long)]
    pub no_default: bool,
}

impl LibraryArgs {
    /// Whether any of the flags was given (`attach` and `apply` otherwise use an attached
    /// library).
    pub fn given(&self) -> bool {
        self.target.is_some() || !self.specs.is_empty() || self.no_default
    }

    /// The specs to link, highest priority first: user specs (command line, project config,
    /// user config, `TUNESPEC_SPEC_PATH`), then the target's default specs, then those of its
    /// fallback chain (see [`registry::Registry::resolve`]). `--no-default` drops the defaults;
    /// without a target only the command-line specs are linked.
    pub fn inputs(&self) -> Result<Vec<LinkInput>, registry::Error> {
        let Some(target) = &self.target else {
            if !self.no_default {
                return Err(registry::Error::BadTarget(
                    "--target is required unless --no-default is given".into(),
                ));
            }
            let specs = registry::Registry::command_line_specs(&self.specs)?;
            return Ok(specs
                .iter()
                .map(registry::ResolvedSpec::link_input)
                .collect());
        };
        let resolution = registry::Registry::discover()
            .and_then(|registry| registry.resolve(target, &self.specs))?;
        Ok(resolution
            .specs
            .iter()
            .filter(|spec| !(self.no_default && spec.origin == registry::Origin::Default))
            .map(registry::ResolvedSpec::link_input)
            .collect())
    }

    /// Links the library and returns it as bytecode; prints link warnings to stderr.
    pub fn link(&self, mlir: &Mlir) -> Result<Vec<u8>, ExitStatus> {
        // A config with located errors is a problem in the inputs (exit 1), as in `resolve`.
        let inputs = self
            .inputs()
            .map_err(|error| super::resolve::report_error(&error))?;
        // Through the cache of linked libraries, like `link`: a compile after the first only
        // pays for copying the bytes.
        let cache = super::cache::open().ok_or(ExitStatus::Usage)?;
        let target = self.cache_target();
        let result = cache.link(mlir, &target, &inputs, LinkOptions::default());
        report(&cache.take_warnings(), None);
        match result {
            Ok(library) => {
                report(&library.problems, None);
                Ok(library.bytecode)
            }
            Err(problems) => {
                report(&problems, None);
                Err(ExitStatus::Problems)
            }
        }
    }
}

impl LibraryArgs {
    /// The target as resolved, for the cache key: the fallback chain (`gfx942>gfx9`) in the
    /// registry these flags link from (defaults, configs, spec libraries given with `--spec`),
    /// plus any feature suffix as written (`:sramecc+:xnack-`); the name as given when it does
    /// not resolve; empty without a target. Shared by `link` and `attach`/`apply`, which link
    /// through the same cache.
    pub fn cache_target(&self) -> String {
        let Some(name) = self.target.as_deref() else {
            return String::new();
        };
        let (base, features) = name.split_once(':').unwrap_or((name, ""));
        let chain = registry::Registry::discover()
            .and_then(|registry| registry.with_command_line(&self.specs))
            .and_then(|registry| {
                let names: Vec<String> = registry
                    .chain(base)?
                    .iter()
                    .map(|target| target.name.clone())
                    .collect();
                Ok(names.join(">"))
            });
        match chain {
            Ok(chain) if features.is_empty() => chain,
            Ok(chain) => format!("{chain}:{features}"),
            Err(_) => name.to_string(),
        }
    }
}

/// Reports problems to stderr (stdout may carry an output), with a snippet of `source` (the
/// payload) where they point into it.
pub fn report(problems: &[Problem], source: Option<&[u8]>) {
    let style = Style::detect_stderr();
    for problem in problems {
        // A problem in the library attached to a payload is located in `PAYLOAD[ATTR]`, bytes
        // that are not the payload's text: no snippet of the payload for it.
        let in_attached = problem
            .loc
            .as_ref()
            .is_some_and(|loc| loc.file.ends_with(']'));
        let source = source.filter(|_| !in_attached);
        emit_stderr(&diagnostics::render(problem, source, style));
    }
}

/// Reports problems of a link to stderr, with a snippet of the input each points into.
pub fn report_linked(problems: &[Problem], inputs: &[LinkInput], style: Style) {
    for problem in problems {
        let source = problem.loc.as_ref().and_then(|loc| {
            inputs
                .iter()
                .find(|input| input.name == loc.file)
                .map(|input| input.bytes.as_slice())
        });
        emit_stderr(&diagnostics::render(problem, source, style));
    }
}

/// Reads an input file, as a usage error when it cannot be read.
pub fn read(path: &Path) -> Result<Vec<u8>, ExitStatus> {
    tunespec::files::read_input(path).map_err(|error| {
        tool_error(format!("cannot read {}: {error}", path.display()));
        ExitStatus::Usage
    })
}

/// Writes an output; an I/O failure is a usage error (exit 2).
pub fn write(path: &Path, bytes: &[u8]) -> ExitStatus {
    match write_output(path, bytes) {
        Ok(()) => ExitStatus::Ok,
        Err(message) => {
            tool_error(message);
            ExitStatus::Usage
        }
    }
}

/// Reads and parses a payload file: its bytes (for snippets), display name and module.
pub fn load_payload<'c>(
    mlir: &'c Mlir,
    path: &Path,
) -> Result<(Vec<u8>, String, OwnedOp<'c>), ExitStatus> {
    let bytes = read(path)?;
    let name = path.display().to_string();
    match apply::parse_payload(mlir, &bytes, &name) {
        Ok(payload) => Ok((bytes, name, payload)),
        Err(problems) => Err(fail(problems, &bytes)),
    }
}

/// Problems in inputs: exit 1.
pub fn fail(problems: Vec<Problem>, source: &[u8]) -> ExitStatus {
    report(&problems, Some(source));
    ExitStatus::Problems
}

/// The library to apply: the one attached to the payload, or one linked from `args` when given
/// (or when none is attached).
pub fn library_for(
    mlir: &Mlir,
    args: &LibraryArgs,
    payload_bytes: &[u8],
    name: &str,
    attr: &str,
) -> Result<Vec<u8>, ExitStatus> {
    if args.given() {
        return args.link(mlir);
    }
    let payload = apply::parse_payload(mlir, payload_bytes, name)
        .map_err(|problems| fail(problems, payload_bytes))?;
    apply::extract(mlir, &payload, attr, name).map_err(|problems| fail(problems, payload_bytes))
}
