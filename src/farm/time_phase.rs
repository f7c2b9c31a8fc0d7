//! The time phase of any plan, a bench's or a tune's: what `tunespec time` and the small
//! `tunespec-time` binary (the one a GPU machine needs to carry: no MLIR, no z3) both run.
//!
//! Why a module of its own: the time phase of a tune plan is tune's (the screen, then the
//! survivors' confirmation), which depends on bench; both entry points take a plan directory
//! and must not care which kind it holds.

use std::path::Path;

use crate::bench::execute::{self, Selection, Settings, Timed};
use crate::bench::plan::Plan;
use crate::bench::{Options, Progress};
use crate::device::Device;
use crate::iree::runtime::Runtime;
use crate::tune::phases::TunePlan;

/// What a time phase timed.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A bench plan's cases.
    Bench(Timed),
    /// A tune plan's screen and confirmations.
    Tune {
        /// The screen.
        screened: Timed,
        /// The survivors' confirmations.
        confirmed: Timed,
    },
}

/// A plan directory's plan and, for a tune plan, its tune part.
pub fn load(dir: &Path) -> Result<(Plan, Option<TunePlan>), String> {
    let plan = Plan::load(dir)?;
    let tune = TunePlan::load(dir)?;
    Ok((plan, tune))
}

/// Whether `runtime` can time `plan` on `device`: the compiler's release, a device of the plan's
/// kind (said before the runtime is asked), and one the runtime lists.
pub fn check(plan: &Plan, runtime: &Runtime, device: &Device) -> Result<(), String> {
    execute::check_runtime(plan, &runtime.version(), device)?;
    let devices = runtime.devices()?;
    if devices.iter().any(|listed| device.is_listed_as(listed)) {
        return Ok(());
    }
    Err(format!(
        "device '{device}' is not one the runtime has; it lists: {}",
        if devices.is_empty() {
            "nothing".to_string()
        } else {
            devices.join(", ")
        }
    ))
}

/// The options a time phase times with: `settings` on `device`, with `budget` per comparison,
/// IREE's time limit per run (`limits`, from the environment).
pub fn options(
    device: Device,
    settings: &Settings,
    budget: Option<std::time::Duration>,
    limits: crate::iree::Limits,
) -> Options {
    let mut options = settings.options(device, Vec::new());
    options.budget = budget;
    options.run_timeout = limits.request;
    options.compile_timeout = limits.request;
    options
}

/// Times the plan in `dir` (its share `shard`).
pub fn run(
    runtime: &Runtime,
    (plan, tune, dir): (&Plan, Option<&TunePlan>, &Path),
    options: &Options,
    shard: Option<(u32, u32)>,
    progress: Progress<'_>,
) -> Result<Outcome, String> {
    match tune {
        Some(tune) => {
            let (screened, confirmed) =
                crate::tune::phases::time(runtime, (plan, tune, dir), options, shard, progress)?;
            Ok(Outcome::Tune {
                screened,
                confirmed,
            })
        }
        None => execute::time_plan_on(
            runtime,
            (plan, dir),
            options,
            Selection::bench(shard),
            progress,
        )
        .map(Outcome::Bench),
    }
}

/// What a time phase says when it is done: what it timed, and what comes next.
pub fn summary(
    outcome: &Outcome,
    dir: &Path,
    device: &Device,
    shard: Option<(u32, u32)>,
) -> String {
    let share = shard.map_or_else(String::new, |(k, n)| format!(" (shard {k}/{n})"));
    let dir = dir.display();
    let done = match outcome {
        Outcome::Bench(timed) => format!(
            "timed {} case(s) of {dir} on {device}{share}; {} already timed, {} in other shards",
            timed.timed, timed.kept, timed.other_shards
        ),
        Outcome::Tune {
            screened,
            confirmed,
        } => format!(
            "screened {} candidate(s) and confirmed {} of {dir} on {device}{share}; {} already timed",
            screened.timed,
            confirmed.timed,
            screened.kept + confirmed.kept
        ),
    };
    format!("{done}\nnext: tunespec decide {dir}\n")
}
