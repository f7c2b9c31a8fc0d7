//! `tunespec show TARGET`: print a target's embedded specs as MLIR text, from their bytecode.
use super::common::{emit, tool_error, ExitStatus};
use tunespec::mlir::Mlir;
use tunespec::registry::Registry;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::SHOW)]
pub struct Opts {
    /// Target name or alias (case-insensitive)
    pub target: String,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let registry = Registry::embedded();
        let Some(target) = registry.find(&self.target) else {
            tool_error(registry.unknown(&self.target));
            return ExitStatus::Usage;
        };
        let mlir = Mlir::new();
        for spec in target.default_specs() {
            let parsed = mlir.parse(spec.bytecode(), spec.path);
            let Some(module) = parsed.module else {
                tool_error(format!("embedded bytecode of {} does not parse", spec.path));
                return ExitStatus::Problems;
            };
            emit(&format!(
                "// ----- {} ({} matchers)\n",
                spec.path, spec.matcher_count
            ));
            emit(&format!("{}\n", module.print().trim_end()));
        }
        ExitStatus::Ok
    }
}
