//! `tunespec check --bench`: performance staleness. Each measured entry (a matcher with a
//! `tunespec.measurement`) is re-measured with the installed IREE on the device, on its own
//! payload, against IREE's own config; one that no longer beats it is a warning (`--deny-slower`
//! makes it a failure).
//!
//! Why: parse and effect staleness say a spec still applies; only a measurement says it still
//! pays. A new IREE often improves its own heuristics until a tuned config is no better.

use tunespec::bench::{self, Case, Status};
use tunespec::mlir::Mlir;
use tunespec::spec_check::{payload, Job, MatcherReport, Performance};

use crate::cli::bench::TimingArgs;
use crate::cli::common::ExitStatus;

/// Cases (with their report's index) that compile with the same flags.
type Group = (Vec<String>, Vec<(usize, Case)>);

/// Re-measures the measured jobs and records each result in its report (`performance`, and a
/// warning when it no longer wins). `flags_for` gives a target's IREE flags.
pub fn run(
    jobs: &[Job<'_>],
    reports: &mut [MatcherReport],
    timing: &TimingArgs,
    iree: &tunespec::iree::Iree,
    flags_for: &dyn Fn(&str) -> Option<Vec<String>>,
    jobs_at_once: usize,
    settings: &tunespec::settings::Settings,
) -> Result<(), ExitStatus> {
    timing.validate()?;
    let tools = timing.tools(iree, settings)?;
    let mlir = Mlir::new();
    // Cases grouped by their IREE flags (one bench run per target).
    let mut groups: Vec<Group> = Vec::new();
    for (index, (job, report)) in jobs.iter().zip(reports.iter_mut()).enumerate() {
        let Some(measurement) = &job.measurement else {
            continue;
        };
        let skipped = |report: &mut MatcherReport, why: String| {
            report.performance = Some(Performance {
                device: timing.reported_device().to_string(),
                status: Status::Failed,
                ratio: None,
                recorded_speedup: Some(measurement.speedup),
                message: Some(why),
            });
        };
        let Some(target) = report.target.clone() else {
            skipped(report, "no target to compile for".into());
            continue;
        };
        let flags = match flags_for(&target) {
            Some(flags) => timing.device_flags(flags, Some(&target))?,
            None => {
                skipped(
                    report,
                    format!("target {target} is not one IREE compiles for"),
                );
                continue;
            }
        };
        match case(&mlir, job, &target) {
            Ok(case) => match groups.iter_mut().find(|(group, _)| *group == flags) {
                Some((_, cases)) => cases.push((index, case)),
                None => groups.push((flags, vec![(index, case)])),
            },
            Err(why) => skipped(report, why),
        }
    }
    for (flags, cases) in groups {
        let options = timing.options(flags, jobs_at_once, settings);
        let (indexes, cases): (Vec<usize>, Vec<Case>) = cases.into_iter().unzip();
        crate::cli::bench::clean_up_on_interrupt();
        let rows = bench::run(iree, &tools, &cases, &options, &|_| {}).map_err(|message| {
            crate::cli::common::tool_error(message);
            ExitStatus::Usage
        })?;
        crate::cli::bench::spread_warnings(&rows);
        for row in rows.iter().filter(|row| row.kind == "function") {
            let Some(position) = cases.iter().position(|case| case.name == row.case) else {
                continue;
            };
            let index = indexes[position];
            let recorded = jobs[index].measurement.as_ref().map(|m| m.speedup);
            record(
                &mut reports[index],
                row,
                timing.reported_device().as_str(),
                recorded,
            );
        }
    }
    Ok(())
}

/// The bench case of a measured matcher: its payload and itself alone.
fn case(mlir: &Mlir, job: &Job<'_>, target: &str) -> Result<Case, String> {
    let info = job
        .info
        .as_ref()
        .ok_or("no root match op tunespec reads: no payload built")?;
    let function = payload::function_name(&info.name);
    let source = payload::payload(info, &function)?;
    let verified = tunespec::verify::verify_bytes(mlir, job.file.text.as_bytes(), &job.file.name);
    let module = verified.snapshot.ok_or("the spec does not parse")?;
    let spec = bench::standalone::standalone(&job.file.text, &module, &job.keyed.name)?;
    Ok(Case {
        id: format!("{}|{target}|{}", job.file.name, job.keyed.name),
        name: format!("{}: @{}", job.file.name, job.keyed.name),
        payload: source.into_bytes(),
        library: spec,
        function: Some(function),
        matcher: None,
        located_library: None,
    })
}

/// The row's outcome in the report; a warning unless it still wins.
fn record(report: &mut MatcherReport, row: &bench::Row, device: &str, recorded: Option<f64>) {
    let ratio = row.timing.as_ref().map(|timing| timing.ratio);
    if row.status != Status::Faster {
        report.warnings.push(format!(
            "performance: no longer faster than IREE's own config on {device}: {}{}{}",
            row.status.words(),
            ratio.map_or_else(String::new, |ratio| format!(" (ratio {ratio:.3} now")),
            match (ratio, recorded) {
                (Some(_), Some(recorded)) => format!(", {recorded:.3} measured)"),
                (Some(_), None) => ")".to_string(),
                _ => String::new(),
            }
        ));
    }
    report.performance = Some(Performance {
        device: device.to_string(),
        status: row.status,
        ratio,
        recorded_speedup: recorded,
        message: row.message.clone(),
    });
}

/// Whether any re-measured entry no longer wins (`--deny-slower`).
pub fn any_slower(reports: &[MatcherReport]) -> bool {
    reports.iter().any(|report| {
        report
            .performance
            .as_ref()
            .is_some_and(|performance| performance.status != Status::Faster)
    })
}
