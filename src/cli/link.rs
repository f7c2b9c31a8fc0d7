//! `tunespec link`: merge a target's default specs and user specs into one library.

use std::path::PathBuf;

use super::verify::{collect_inputs, Input};
use super::{tool_error, ExitStatus};
use crate::diagnostics::{self, Style};
use crate::link::{self, LinkInput, LinkOptions, Role};
use crate::mlir::Mlir;
use crate::output::{write_output, Emit};
use crate::problem::Problem;
use crate::registry;

#[derive(Debug, clap::Args)]
#[command(after_help = super::EXIT_STATUS_HELP)]
pub struct Opts {
    /// Target (architecture, SKU or alias) whose default specs are linked after the user's
    #[arg(long, short)]
    pub target: Option<String>,
    /// User spec file or directory (repeatable; highest priority first)
    #[arg(long = "spec", short = 's')]
    pub specs: Vec<PathBuf>,
    /// Link only the user specs
    #[arg(long)]
    pub no_default: bool,
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
        let inputs = match self.inputs() {
            Ok(inputs) => inputs,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let mlir = Mlir::new();
        let style = Style::detect_stderr();
        let linked = match link::link(
            &mlir,
            &inputs,
            LinkOptions {
                dedupe: self.dedupe,
            },
        ) {
            Ok(linked) => linked,
            Err(problems) => {
                report(&problems, &inputs, style);
                return ExitStatus::Problems;
            }
        };
        report(&linked.problems, &inputs, style);
        let bytes = match self.emit {
            Emit::Mlir => linked.module.print_file().into_bytes(),
            Emit::Mlirbc => match linked.module.to_bytecode() {
                Ok(bytes) => bytes,
                Err(message) => {
                    tool_error(message);
                    return ExitStatus::Usage;
                }
            },
        };
        match write_output(&self.output, &bytes) {
            Ok(()) => ExitStatus::Ok,
            Err(message) => {
                tool_error(message);
                ExitStatus::Usage
            }
        }
    }

    /// The specs to link, highest priority first: user specs in command-line order, then the
    /// target's own default specs, then those of its fallback chain.
    pub fn inputs(&self) -> Result<Vec<LinkInput>, String> {
        let mut inputs = Vec::new();
        for input in collect_inputs(&self.specs)? {
            let Input::File(path) = input else { continue };
            let bytes = std::fs::read(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            inputs.push(LinkInput {
                name: path.display().to_string(),
                bytes,
                role: Role::User,
            });
        }
        if !self.no_default {
            let Some(name) = &self.target else {
                return Err("--target is required unless --no-default is given".into());
            };
            for target in registry::resolve_chain(name)? {
                for spec in target.specs() {
                    inputs.push(LinkInput {
                        name: spec.path.to_string(),
                        bytes: spec.bytecode().to_vec(),
                        role: Role::Default {
                            target: target.name.to_string(),
                        },
                    });
                }
            }
        }
        Ok(inputs)
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
        eprint!("{}", diagnostics::render(problem, source, style));
    }
}
