//! `tunespec-time PLAN --device D`: the time phase of a plan (`tunespec time`), as a binary of
//! its own for the machines that only time: it links none of MLIR, z3 or the embedded specs
//! (about 16 MB against the full binary's 123 MB, and only the C and C++ runtimes as shared
//! libraries; BENCHMARKS.md, "What a time-phase machine carries"), so a GPU node carries it and
//! IREE's runtime wheel and nothing else. Same arguments, output and exit statuses as
//! `tunespec time`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tunespec::bench::execute::Settings;
use tunespec::bench::stats::Rule;
use tunespec::device::Device;
use tunespec::farm::time_phase;
use tunespec::iree::runtime::{self, Runtime};

/// Time a bench or tune plan (`tunespec bench --plan`, `tunespec tune --plan`) on a device with
/// IREE's runtime alone; decide it with `tunespec decide PLAN`
#[derive(Debug, Parser)]
#[command(name = "tunespec-time", version)]
struct Opts {
    /// The plan directory; results are written into it
    #[arg(value_name = "PLAN")]
    plan: PathBuf,
    /// The runtime's device: local-task, local-sync, cuda, hip, vulkan (or a URI, cuda://1);
    /// repeated (cuda://0 --device cuda://1): devices of one driver timing at once
    #[arg(long = "device", short = 'd', default_value = "local-task", value_parser = Device::parse)]
    devices: Vec<Device>,
    /// The share K of N of the plan (1-based), or auto (auto/N): from the scheduler
    #[arg(long, value_name = "K/N", value_parser = tunespec::farm::shard::Spec::parse)]
    shard: Option<tunespec::farm::shard::Spec>,
    /// Rounds before the first look
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..1000))]
    rounds: u32,
    /// The most rounds of an unsettled comparison
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..10000))]
    max_rounds: u32,
    /// The most seconds one comparison spends adding rounds
    #[arg(long, value_name = "SECONDS")]
    budget: Option<f64>,
    /// Repetitions per run
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..1000))]
    repetitions: u32,
    /// Seconds of warm-up before, and the least time of each repetition
    #[arg(long, default_value_t = 0.2, value_name = "SECONDS")]
    min_time: f64,
    /// The chance of calling a config faster or slower when it is not, over all looks
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// The smallest relative difference of medians called faster or slower
    #[arg(long, default_value_t = 0.01)]
    min_effect: f64,
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    match run(&opts) {
        Ok(summary) => {
            print!("{summary}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("tunespec-time: error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(opts: &Opts) -> Result<String, String> {
    let valid = opts.min_time > 0.0
        && opts.min_time < 3600.0
        && opts.alpha > 0.0
        && opts.alpha < 1.0
        && (0.0..1.0).contains(&opts.min_effect)
        && opts
            .budget
            .is_none_or(|budget| budget > 0.0 && budget < 1e7);
    if !valid {
        return Err("--min-time and --budget must be positive seconds, --alpha in (0, 1), --min-effect in [0, 1)".into());
    }
    // The one read of the process's environment: every setting below comes from it.
    let env = tunespec::settings::Environment::process();
    let shard = opts.shard.map(|spec| spec.resolve(&env)).transpose()?;
    let (plan, tune) = time_phase::load(&opts.plan)?;
    let runtime = Runtime::find_alone(&env)
        .map_err(|message| format!("{message}; {}", runtime::install_hint(&plan.iree)))?;
    tunespec::device::check_several(&opts.devices)?;
    for device in &opts.devices {
        time_phase::check(&plan, &runtime, device)?;
    }
    let first = opts.devices.first().ok_or("no --device")?;
    let settings = Settings {
        rule: Rule {
            alpha: opts.alpha,
            min_effect: opts.min_effect,
        },
        rounds: opts.rounds,
        max_rounds: opts.max_rounds.max(opts.rounds),
        repetitions: opts.repetitions,
        min_time: opts.min_time,
    };
    let budget = opts.budget.map(std::time::Duration::from_secs_f64);
    let limits = tunespec::iree::Limits::from_env(&env);
    let mut options = time_phase::options(first.clone(), &settings, budget, limits);
    options.also = opts.devices[1..].to_vec();
    let progress = |line: &str| {
        if !line.is_empty() {
            eprintln!("tunespec-time: {line}");
        }
    };
    let outcome = time_phase::run(
        &runtime,
        (&plan, tune.as_ref(), &opts.plan),
        &options,
        shard,
        &progress,
    )?;
    Ok(time_phase::summary(
        &outcome,
        &opts.plan,
        &options.reported_device(),
        shard,
    ))
}
