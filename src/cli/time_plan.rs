//! `tunespec time PLAN`: the time phase of a bench made with `bench --plan` (see
//! `tunespec::bench::execute`), with IREE's runtime alone: the machine that runs it needs
//! neither IREE's compiler nor Python.

use std::path::PathBuf;

use tunespec::bench::{self, execute};
use tunespec::farm::time_phase;
use tunespec::iree::runtime::{self, Runtime};

use super::bench::{check_device, TimingArgs, RUNTIME};
use super::bench_report::progress_line;
use super::common::{emit, tool_error, tool_error_with, ExitStatus};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::TIME)]
pub struct Opts {
    /// The plan directory (`bench --plan DIR`); results are written into its results/
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Time the deterministic share K of N of the plan's cases (1-based), e.g. 2/8, or auto
    /// (auto/N): K and N from the scheduler (a Slurm array, a Kubernetes Indexed Job,
    /// RANK/WORLD_SIZE); the shards' results copied into one plan directory make it timed whole
    #[arg(long, value_name = "K/N", value_parser = tunespec::farm::shard::Spec::parse)]
    pub shard: Option<tunespec::farm::shard::Spec>,
    /// Absolute output tolerance (default: by element type; f32 1e-2)
    #[arg(long, requires = "rtol")]
    pub atol: Option<f64>,
    /// Relative output tolerance (default: by element type; f32 1e-3)
    #[arg(long, requires = "atol")]
    pub rtol: Option<f64>,
}

impl Opts {
    pub fn run(self, settings: &tunespec::settings::Settings) -> ExitStatus {
        if let Err(status) = self.timing.validate() {
            return status;
        }
        let (plan, tune) = match time_phase::load(&self.plan) {
            Ok(loaded) => loaded,
            Err(message) => return usage(message),
        };
        let shard = match super::bench::resolve_shard(self.shard, settings) {
            Ok(shard) => shard,
            Err(status) => return status,
        };
        let runtime = match Runtime::find_alone(&settings.env) {
            Ok(runtime) => runtime,
            Err(message) => {
                tool_error_with(RUNTIME, message, Some(&runtime::install_hint(&plan.iree)));
                return ExitStatus::Usage;
            }
        };
        // Refused before the device is asked for: a plan another release compiled never loads.
        for device in &self.timing.devices {
            if let Err(message) = execute::check_runtime(&plan, &runtime.version(), device) {
                return usage(message);
            }
            if let Err(status) = check_device(&runtime, device) {
                return status;
            }
        }
        let mut options = self.timing.options(plan.flags.clone(), 1, settings);
        options.tolerance = self
            .atol
            .zip(self.rtol)
            .map(|(atol, rtol)| bench::data::Tolerance { atol, rtol });
        super::bench::clean_up_on_interrupt();
        let progress = progress_line("time");
        let outcome = time_phase::run(
            &runtime,
            (&plan, tune.as_ref(), &self.plan),
            &options,
            shard,
            &progress,
        );
        match outcome {
            Ok(outcome) => {
                emit(&time_phase::summary(
                    &outcome,
                    &self.plan,
                    &self.timing.reported_device(),
                    shard,
                ));
                ExitStatus::Ok
            }
            Err(message) => usage(message),
        }
    }
}

fn usage(message: impl std::fmt::Display) -> ExitStatus {
    tool_error(message);
    ExitStatus::Usage
}
