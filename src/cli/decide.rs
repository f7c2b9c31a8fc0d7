//! `tunespec decide PLAN`: the decide phase of a bench (see `tunespec::bench::decide`): the
//! verdicts of a plan's results and, with `--write`, the measured entries, on any machine (no
//! IREE needed).

use std::path::PathBuf;

use tunespec::bench::{decide, execute, plan::Plan};
use tunespec::mlir::Mlir;
use tunespec::tune::phases::TunePlan;

use super::bench_report::{exit_status, render, today, Report};
use super::common::{tool_error, ExitStatus, Format};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::DECIDE)]
pub struct Opts {
    /// The plan directory, with the results of `tunespec time` (several shards' results copied
    /// into its results/)
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,
    /// Write the matchers that won as measured entries into this library (created, or merged
    /// into by matcher key and device: faster wins); the plan must have been made with --target
    #[arg(long, value_name = "LIBRARY")]
    pub write: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let plan = match Plan::load(&self.plan) {
            Ok(plan) => plan,
            Err(message) => return usage(message),
        };
        match TunePlan::load(&self.plan) {
            Ok(Some(tune)) => return self.decide_tune(&plan, &tune),
            Ok(None) => {}
            Err(message) => return usage(message),
        }
        let mlir = Mlir::new_threaded();
        if let Some(output) = &self.write {
            if let Err(message) = tunespec::measured::library::existing_entries(&mlir, output) {
                return usage(message);
            }
        }
        let decided = match decide::decide(&plan, &self.plan) {
            Ok(decided) => decided,
            Err(message) => return usage(message),
        };
        let (Some(device), Some(settings)) = (decided.device.clone(), decided.settings.clone())
        else {
            return usage(format!(
                "nothing in {} is timed yet: time it first (tunespec time {} --device DEVICE)",
                self.plan.display(),
                self.plan.display()
            ));
        };
        if decided.untimed > 0 {
            super::common::warning(
                super::bench::BENCH_ROUNDS,
                format!(
                    "{} case(s) of the plan have no result yet (a shard not timed, or its results not copied into {}/{}): their rows say \"not timed\"",
                    decided.untimed,
                    self.plan.display(),
                    execute::RESULTS_DIR
                ),
            );
        }
        super::bench::spread_warnings(&decided.rows);
        let written = match &self.write {
            Some(output) => match decide::write(&mlir, (&plan, &decided), output, &today()) {
                Ok(notes) => Some(notes),
                Err(message) => return usage(message),
            },
            None => None,
        };
        let options = settings.options(device, plan.flags.clone());
        let runtime = decided.runtime.clone().unwrap_or_default();
        let report = Report {
            options: &options,
            iree: &plan.iree,
            runtime: &runtime,
        };
        render(
            &mlir,
            self.format,
            &decided.rows,
            &report,
            (written.as_deref(), self.write.as_deref()),
        );
        exit_status(&decided.rows)
    }
}

impl Opts {
    /// A tune plan's decide phase: tune's report (also PLAN/report.json and report.svg) and
    /// its library in PLAN/library.
    fn decide_tune(&self, plan: &Plan, tune: &TunePlan) -> ExitStatus {
        if self.write.is_some() {
            return usage(format!(
                "a tune plan's winners are written to {}: --write is for bench plans",
                tunespec::tune::library_dir(&self.plan).display()
            ));
        }
        let report = match tunespec::tune::phases::decide(plan, tune, &self.plan, &today()) {
            Ok(report) => report,
            Err(message) => return usage(message),
        };
        if self.format == Format::Json {
            super::common::emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            ));
        } else {
            super::common::emit(&super::tune::table(&report));
        }
        for note in &report.written {
            super::common::emit_stderr(&format!("note: {note}\n"));
        }
        let compiled: usize = report.dispatches.iter().map(|d| d.compiled).sum();
        if compiled == 0 {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        }
    }
}

fn usage(message: impl std::fmt::Display) -> ExitStatus {
    tool_error(message);
    ExitStatus::Usage
}
