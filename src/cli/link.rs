//! `tunespec link`: merge a target's default specs and user specs into one library.

use std::path::PathBuf;

use super::{tool_error, ExitStatus};
use crate::diagnostics::{self, Style};
use crate::link::{LinkInput, LinkOptions};
use crate::mlir::Mlir;
use crate::output::{self, write_output, Emit};
use crate::problem::Problem;
use crate::registry;

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

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
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
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        if let Err(message) = output::check_not_an_input(&self.output, &self.library.specs, &inputs)
        {
            tool_error(message);
            return ExitStatus::Usage;
        }
        // Through the cache of linked libraries (src/cache.rs). The MLIR context is created only
        // when needed: a hit needs none. Text is cached too, printed from the library's bytecode,
        // so a hit prints exactly what a cold link prints.
        let style = Style::detect_stderr();
        let Some(cache) = super::cache::open() else {
            return ExitStatus::Usage;
        };
        let mlir = std::cell::OnceCell::new();
        let target = cache_target(self.library.target.as_deref());
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

impl LibraryArgs {
    /// Whether any of the flags was given (`attach` and `apply` otherwise use an attached
    /// library).
    pub(crate) fn given(&self) -> bool {
        self.target.is_some() || !self.specs.is_empty() || self.no_default
    }

    /// The specs to link, highest priority first: user specs (command line, project config,
    /// user config, `TUNESPEC_SPEC_PATH`), then the target's default specs, then those of its
    /// fallback chain (see [`registry::Registry::resolve`]). `--no-default` drops the defaults;
    /// without a target only the command-line specs are linked.
    pub fn inputs(&self) -> Result<Vec<LinkInput>, String> {
        let Some(target) = &self.target else {
            if !self.no_default {
                return Err("--target is required unless --no-default is given".into());
            }
            let specs = registry::Registry::command_line_specs(&self.specs)
                .map_err(|error| error.to_string())?;
            return Ok(specs
                .iter()
                .map(registry::ResolvedSpec::link_input)
                .collect());
        };
        let resolution = registry::Registry::discover()
            .and_then(|registry| registry.resolve(target, &self.specs))
            .map_err(|error| error.to_string())?;
        Ok(resolution
            .specs
            .iter()
            .filter(|spec| !(self.no_default && spec.origin == registry::Origin::Default))
            .map(registry::ResolvedSpec::link_input)
            .collect())
    }
}

/// The target as resolved, for the cache key: the fallback chain (`gfx942>gfx9`) plus any
/// feature suffix as written (`:sramecc+:xnack-`); the name as given when it does not resolve;
/// empty without a target. Shared with `attach`/`apply`, which link through the same cache.
pub(crate) fn cache_target(target: Option<&str>) -> String {
    let Some(name) = target else {
        return String::new();
    };
    let (base, features) = name.split_once(':').unwrap_or((name, ""));
    match registry::resolve_chain(base) {
        Ok(chain) => {
            let chain: Vec<&str> = chain.iter().map(|target| target.name).collect();
            let mut resolved = chain.join(">");
            if !features.is_empty() {
                resolved.push(':');
                resolved.push_str(features);
            }
            resolved
        }
        Err(_) => name.to_string(),
    }
}

/// Problems go to stderr: stdout may carry the library.
fn report(problems: &[Problem], inputs: &[LinkInput], style: Style) {
    for problem in problems {
        let source = problem.loc.as_ref().and_then(|loc| {
            inputs
                .iter()
                .find(|input| input.name == loc.file)
                .map(|input| input.bytes.as_slice())
        });
        super::emit_stderr(&diagnostics::render(problem, source, style));
    }
}
