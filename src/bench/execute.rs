//! The time phase of a bench: a plan ([`super::plan`]) timed on the runtime's device, with IREE's
//! runtime alone (never its compiler: a GPU machine carries tunespec and the `iree-base-runtime`
//! wheel, about 15 MB, not the compiler's 350 MB).
//!
//! Before anything is timed, the plan is checked: its modules against their hashes, the runtime
//! against the compiler's release, the device against the HAL device the plan was compiled
//! for. Each case's result is written to `results/` as soon as it is timed, whole or not at all:
//! a run that is stopped loses at most the case it was timing, and the next run takes up the
//! rest (results already there for the same device are kept). Shards (`--shard K/N`) take the
//! cases whose identity hashes to them, so N machines time disjoint shares of one plan, and
//! their `results/` directories copied into one give the plan timed whole.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::data::{self, Agreement, Signature, Tolerance};
use super::measured::DeviceName;
use super::plan::{self, Plan, PlannedCase, ToTime};
use super::stats::Rule;
use super::timing::{timed, Tracker};
use super::{Options, OutputCheck, Progress, Row, Status};
use crate::device::Device;
use crate::iree::runtime::{Call, Runtime};

/// The directory of a plan's results.
pub const RESULTS_DIR: &str = "results";

/// One case timed: what `results/<case>.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseResult {
    /// [`plan::FORMAT`].
    pub format: u32,
    /// The case's identity.
    pub case: String,
    /// The runtime's device it was timed on.
    pub device: Device,
    /// What that device is.
    pub device_name: DeviceName,
    /// The runtime's version (`3.13.0 @ 89ece87b`).
    pub runtime: String,
    /// How it was timed.
    pub settings: Settings,
    /// Its rows.
    pub rows: Vec<TimedRow>,
}

/// The timing settings a result was made with (what a report says beside the verdicts).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// The decision rule.
    pub rule: Rule,
    /// Rounds before the first look.
    pub rounds: u32,
    /// The most rounds.
    pub max_rounds: u32,
    /// Repetitions per run.
    pub repetitions: u32,
    /// Seconds of warm-up and least time per repetition.
    pub min_time: f64,
}

impl Settings {
    /// The settings of `options`.
    pub fn of(options: &Options) -> Settings {
        Settings {
            rule: options.rule,
            rounds: options.rounds,
            max_rounds: options.max_rounds,
            repetitions: options.repetitions,
            min_time: options.min_time,
        }
    }

    /// Options that report these settings for `device` and `flags` (what a decided plan's
    /// report says; nothing is timed with them).
    pub fn options(&self, device: Device, flags: Vec<String>) -> Options {
        Options {
            also: Vec::new(),
            device,
            flags,
            jobs: 1,
            rounds: self.rounds,
            max_rounds: self.max_rounds,
            budget: None,
            repetitions: self.repetitions,
            min_time: self.min_time,
            rule: self.rule,
            tolerance: None,
            dispatches: false,
            time_unchanged: false,
            keep: None,
            compile_timeout: std::time::Duration::ZERO,
            run_timeout: std::time::Duration::ZERO,
        }
    }
}

/// A timed row as stored: a [`Row`] without what the plan already says (its case, matcher and
/// ops).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimedRow {
    /// `function` or `dispatch`.
    pub kind: String,
    /// The function or dispatch.
    pub name: String,
    /// The outcome.
    pub status: Status,
    /// Why.
    pub message: Option<String>,
    /// The timing comparison.
    pub timing: Option<super::stats::Comparison>,
    /// The output comparison.
    pub outputs: Option<OutputCheck>,
    /// Every sample, microseconds: IREE's config's, then the library's.
    pub samples_us: Option<(Vec<f64>, Vec<f64>)>,
}

impl TimedRow {
    fn of(row: Row) -> TimedRow {
        TimedRow {
            kind: row.kind.to_string(),
            name: row.name,
            status: row.status,
            message: row.message,
            timing: row.timing,
            outputs: row.outputs,
            samples_us: row.samples_us,
        }
    }
}

/// What a time phase did.
#[derive(Clone, Debug, Default)]
pub struct Timed {
    /// Cases timed now.
    pub timed: usize,
    /// Cases of this shard already timed (kept).
    pub kept: usize,
    /// Cases of other shards.
    pub other_shards: usize,
}

/// The result file of the case at `index`, in the results directory `results` of the plan.
pub fn result_path(root: &Path, results: &str, index: usize) -> PathBuf {
    root.join(results).join(format!("{index:04}.json"))
}

/// Which cases a time phase takes, and where their results go.
#[derive(Clone, Copy, Debug)]
pub struct Selection<'a> {
    /// The results directory, relative to the plan ([`RESULTS_DIR`] for a bench; a tune's
    /// stages have one each).
    pub results: &'a str,
    /// The cases (indices into the plan) to consider; `None`: all.
    pub only: Option<&'a [usize]>,
    /// The share of the cases, by their identity.
    pub shard: Option<(u32, u32)>,
    /// With several devices, this device's part of the share (index, count; 1-based), by
    /// identity ([`super::in_part`]).
    pub part: Option<(u32, u32)>,
}

impl Selection<'_> {
    /// A bench's: every case, results in [`RESULTS_DIR`], in `shard`.
    pub fn bench(shard: Option<(u32, u32)>) -> Selection<'static> {
        Selection {
            results: RESULTS_DIR,
            only: None,
            shard,
            part: None,
        }
    }
}

/// Reads the result at `path`, if there is one: `Err` when it is there but unreadable.
pub fn read_result(path: &Path) -> Result<Option<CaseResult>, String> {
    match crate::files::read_input_text(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| format!("{}: not a result tunespec wrote: {error}", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!("cannot read {}: {error}", path.display())),
    }
}

/// Checks that `runtime` can time `plan` on `options.device`: the same IREE release as the
/// compiler's (a vmfb loads only in its compiler's runtime) and a device of the kind the plan
/// was compiled for.
pub fn check_runtime(plan: &Plan, runtime_version: &str, device: &Device) -> Result<(), String> {
    if runtime_version != "unknown"
        && crate::iree::release(runtime_version) != crate::iree::release(&plan.iree)
    {
        return Err(format!(
            "the plan was compiled by IREE {} and this runtime is IREE {runtime_version}: install iree-base-runtime=={} to time it",
            plan.iree,
            crate::iree::release(&plan.iree)
        ));
    }
    let fits = if device.is_local() {
        plan.target_device == "local"
    } else {
        plan.target_device == device.kind()
    };
    if !fits {
        return Err(format!(
            "the plan is compiled for the {} HAL device: --device {device} cannot run it",
            plan.target_device
        ));
    }
    Ok(())
}

/// [`time_plan`] on every device of `options` at once (`options.device`, then `options.also`):
/// one worker thread per device, device i taking part i of the selection's cases by identity
/// ([`super::in_part`]), so each case is timed whole (IREE's config and the library's, paired)
/// on one device, and a resumed run with the same devices gives each case the device it had.
/// The devices must share a driver (the plan is compiled for it). Every worker runs to its end;
/// the first error is returned after all have, the others' results kept. One device: exactly
/// [`time_plan`].
pub fn time_plan_on(
    runtime: &Runtime,
    (plan, root): (&Plan, &Path),
    options: &Options,
    selection: Selection<'_>,
    progress: Progress<'_>,
) -> Result<Timed, String> {
    if options.also.is_empty() {
        return time_plan(runtime, (plan, root), options, selection, progress);
    }
    let devices = options.devices();
    crate::device::check_several(&devices)?;
    let count = u32::try_from(devices.len()).map_err(|_| "too many devices".to_string())?;
    let outcomes: Vec<Result<Timed, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = devices
            .iter()
            .zip(1..)
            .map(|(device, index)| {
                let mut one = options.clone();
                one.device = device.clone();
                one.also = Vec::new();
                let selection = Selection {
                    part: Some((index, count)),
                    ..selection
                };
                scope.spawn(move || {
                    let labelled = |line: &str| {
                        if line.is_empty() {
                            progress("");
                        } else {
                            progress(&format!("{device}: {line}"));
                        }
                    };
                    time_plan(runtime, (plan, root), &one, selection, &labelled)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err("a device's worker stopped unexpectedly".to_string()))
            })
            .collect()
    });
    let mut total = Timed::default();
    for outcome in outcomes {
        let timed = outcome?;
        total.timed += timed.timed;
        total.kept += timed.kept;
        total.other_shards = timed.other_shards;
    }
    Ok(total)
}

/// Times the cases of `plan` (in `root`) that `selection` takes and have no result for this
/// device yet, writing each case's result as soon as it is timed.
pub fn time_plan(
    runtime: &Runtime,
    (plan, root): (&Plan, &Path),
    options: &Options,
    selection: Selection<'_>,
    progress: Progress<'_>,
) -> Result<Timed, String> {
    let Selection {
        results,
        only,
        shard,
        part,
    } = selection;
    let runtime_version = runtime.version();
    check_runtime(plan, &runtime_version, &options.device)?;
    let mut summary = Timed::default();
    let mut todo = Vec::new();
    for (index, case) in plan.cases.iter().enumerate() {
        let plan::Outcome::Time(to_time) = &case.outcome else {
            continue;
        };
        if only.is_some_and(|only| !only.contains(&index)) {
            continue;
        }
        if shard.is_some_and(|(k, n)| !super::in_shard(&case.id, k, n)) {
            summary.other_shards += 1;
            continue;
        }
        if part.is_some_and(|(d, count)| !super::in_part(&case.id, d, count)) {
            continue;
        }
        if let Some(done) = read_result(&result_path(root, results, index))? {
            if done.device.as_str() != options.device.as_str() || done.case != case.id {
                return Err(format!(
                    "{} holds a result timed on {}, not {}: time the plan on one device (remove the results to time it again)",
                    result_path(root, results, index).display(),
                    done.device,
                    options.device
                ));
            }
            summary.kept += 1;
            continue;
        }
        // Every module of the share checked before anything is timed.
        to_time.base.verified(root)?;
        to_time.tuned.verified(root)?;
        for pair in &to_time.dispatches {
            pair.base.verified(root)?;
            pair.tuned.verified(root)?;
        }
        todo.push((index, case, to_time.as_ref()));
    }
    std::fs::create_dir_all(root.join(results))
        .map_err(|error| format!("cannot create {}: {error}", root.display()))?;
    let comparisons = todo.iter().map(|(_, _, t)| 1 + t.dispatches.len()).sum();
    let tracker = Tracker::new(progress, comparisons, options.rounds);
    let device_name = DeviceName::of(&options.device);
    for (index, case, to_time) in todo {
        let rows = time_case(runtime, (case, to_time), root, options, &tracker);
        let result = CaseResult {
            format: plan::FORMAT,
            case: case.id.clone(),
            device: options.device.clone(),
            device_name: device_name.clone(),
            runtime: runtime_version.clone(),
            settings: Settings::of(options),
            rows: rows.into_iter().map(TimedRow::of).collect(),
        };
        let text = serde_json::to_string_pretty(&result)
            .map_err(|error| format!("cannot write a result: {error}"))?;
        let path = result_path(root, results, index);
        plan::write_atomically(&path, format!("{text}\n").as_bytes())?;
        summary.timed += 1;
    }
    progress("");
    Ok(summary)
}

/// A case's rows: its function rows (the one asked for, else every exported function) and its
/// dispatch rows.
fn time_case(
    runtime: &Runtime,
    (case, to_time): (&PlannedCase, &ToTime),
    root: &Path,
    options: &Options,
    progress: &Tracker<'_>,
) -> Vec<Row> {
    let base = root.join(&to_time.base.path);
    let tuned = root.join(&to_time.tuned.path);
    let dir = root.join(&case.dir);
    let row = |kind, name: String| Row::named(&case.name, case.matcher.as_ref(), kind, name);
    let label = case.function.clone().unwrap_or_else(|| "main".to_string());
    let functions = match functions(runtime, &base, case.function.as_deref()) {
        Ok(functions) => functions,
        Err(message) => return vec![row("function", label).failed(message)],
    };
    progress.add(functions.len().saturating_sub(1));
    let mut rows = Vec::new();
    for (index, (function, signature)) in functions.into_iter().enumerate() {
        let function_row = row("function", function.clone());
        rows.push(match signature {
            Err(message) => function_row.failed(message),
            Ok(signature) => {
                let called = Called {
                    function,
                    signature,
                    prefix: if index == 0 {
                        String::new()
                    } else {
                        format!("f{index}-")
                    },
                };
                let modules = (dir.as_path(), (base.as_path(), tuned.as_path()));
                time_function(runtime, modules, options, &called, function_row, progress)
            }
        });
    }
    for pair in &to_time.dispatches {
        let call = |module: &str| (root.join(module), None::<String>, Vec::new());
        rows.push(timed(
            runtime,
            options,
            (call(&pair.base.path), call(&pair.tuned.path)),
            row("dispatch", pair.name.clone()),
            progress,
        ));
    }
    rows
}

/// One exported function to time: its name, signature, and the prefix of its input and output
/// files in the case's directory (functions after the first get their own).
struct Called {
    function: String,
    signature: Signature,
    prefix: String,
}

/// The case's directory and its two modules.
type Modules<'a> = (&'a Path, (&'a Path, &'a Path));

/// A function row: outputs compared, then timed.
fn time_function(
    runtime: &Runtime,
    (dir, (base, tuned)): Modules<'_>,
    options: &Options,
    called: &Called,
    row: Row,
    progress: &Tracker<'_>,
) -> Row {
    let Called {
        function,
        signature,
        prefix,
    } = called;
    let mut inputs = Vec::new();
    for (index, ty) in signature.inputs.iter().enumerate() {
        let path = dir.join(format!("{prefix}input{index}.bin"));
        if let Err(message) = data::write_input(ty, index, &path) {
            return row.failed(message);
        }
        inputs.push(format!("{}=@{}", ty.runtime_form(), path.display()));
    }
    let mut row = row;
    match check_outputs(runtime, (dir, (base, tuned)), called, &inputs, options) {
        Err(message) => return row.failed(message),
        Ok(check) => {
            let ok = check.ok;
            row.outputs = Some(check);
            if !ok {
                row.status = Status::WrongOutput;
                row.message = Some("the outputs differ from IREE's own config's beyond the tolerance: not timed, never a winner".into());
                return row;
            }
        }
    }
    let call = |module: &Path| (module.to_path_buf(), Some(function.clone()), inputs.clone());
    timed(runtime, options, (call(base), call(tuned)), row, progress)
}

/// An exported function: its name, and its signature or why it cannot be read.
type Exported = (String, Result<Signature, String>);

/// The functions to time, from the vmfb's ABI declarations: the one `wanted`, else every
/// exported one (in the module's order), each with its signature or why it cannot be read.
fn functions(
    runtime: &Runtime,
    module: &Path,
    wanted: Option<&str>,
) -> Result<Vec<Exported>, String> {
    let declarations = runtime.declarations(module)?;
    let chosen: Vec<&(String, String)> = match wanted {
        Some(name) => vec![declarations
            .iter()
            .find(|(found, _)| found == name)
            .ok_or_else(|| {
                let names: Vec<&str> = declarations.iter().map(|(n, _)| n.as_str()).collect();
                format!(
                    "the module has no function {name} (it has: {})",
                    names.join(", ")
                )
            })?],
        None if declarations.is_empty() => {
            return Err("the module exports no function with an ABI declaration".into())
        }
        None => declarations.iter().collect(),
    };
    Ok(chosen
        .into_iter()
        .map(|(name, declaration)| (name.clone(), data::parse_signature(declaration)))
        .collect())
}

/// Runs both variants once and compares their outputs.
fn check_outputs(
    runtime: &Runtime,
    (dir, (base, tuned)): Modules<'_>,
    called: &Called,
    inputs: &[String],
    options: &Options,
) -> Result<OutputCheck, String> {
    let Called {
        function,
        signature,
        prefix,
    } = called;
    let mut outputs = Vec::new();
    for (label, module) in [("iree", base), ("tuned", tuned)] {
        let paths: Vec<PathBuf> = (0..signature.outputs.len())
            .map(|index| dir.join(format!("{prefix}{label}-output{index}.bin")))
            .collect();
        let call = Call {
            module,
            device: &options.device,
            function: Some(function),
            inputs,
        };
        runtime
            .run_once(&call, &paths, options.run_timeout)
            .map_err(|error| {
                format!(
                    "running with {} failed: {error}",
                    if label == "iree" {
                        "IREE's own configs"
                    } else {
                        "the library"
                    }
                )
            })?;
        outputs.push(paths);
    }
    let mut check = OutputCheck {
        ok: true,
        max_abs_diff: 0.0,
        first_mismatch: None,
        tolerances: Vec::new(),
    };
    for (index, ty) in signature.outputs.iter().enumerate() {
        let read = |path: &PathBuf| {
            std::fs::read(path).map_err(|error| format!("cannot read an output: {error}"))
        };
        let (a, b) = (read(&outputs[0][index])?, read(&outputs[1][index])?);
        let tolerance = options
            .tolerance
            .unwrap_or(Tolerance::for_element(&ty.element));
        let Agreement {
            ok,
            max_abs_diff,
            first_mismatch,
        } = data::compare(&a, &b, &ty.element, tolerance);
        check.tolerances.push(tolerance);
        check.max_abs_diff = check.max_abs_diff.max(max_abs_diff);
        if !ok && check.ok {
            check.ok = false;
            check.first_mismatch = first_mismatch.map(|(at, x, y)| (index, at, x, y));
        }
    }
    Ok(check)
}
