//! `tunespec show TARGET`: print a target's embedded specs as MLIR text, from their bytecode.
use super::common::{emit, tool_error, ExitStatus};
use tunespec::mlir::Mlir;
use tunespec::registry;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::SHOW)]
pub struct Opts {
    /// Target name or alias (case-insensitive)
    pub target: String,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let Some(target) = registry::find_target(&self.target) else {
            let nearest = registry::nearest_targets(&self.target);
            if nearest.is_empty() {
                tool_error(format!("unknown target '{}'", self.target));
            } else {
                tool_error(format!(
                    "unknown target '{}' (did you mean {}?)",
                    self.target,
                    nearest.join(", ")
                ));
            }
            return ExitStatus::Usage;
        };
        let mlir = Mlir::new();
        for spec in target.specs() {
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
