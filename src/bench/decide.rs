//! The decide phase of a bench: a plan and its results ([`super::plan`], [`super::execute`])
//! turned into the rows of a report and, with `--write`, measured entries. It needs neither
//! IREE's compiler nor its runtime, and it is a function of the files alone: the same plan and
//! results give the same rows and the same written library wherever they are decided, and
//! whatever order the shards' results arrived in.

use std::path::Path;

use super::execute::{self, CaseResult, Settings};
use super::measured::{self, DeviceName};
use super::plan::{Outcome, Plan, PlannedCase};
use super::{ops, Row, Status};
use crate::device::Device;
use crate::mlir::Mlir;

/// A plan decided.
#[derive(Clone, Debug)]
pub struct Decided {
    /// The rows, in the plan's order.
    pub rows: Vec<Row>,
    /// The device the results were timed on (`None`: nothing was timed).
    pub device: Option<Device>,
    /// What it is.
    pub device_name: DeviceName,
    /// The runtime that timed them.
    pub runtime: Option<String>,
    /// How they were timed.
    pub settings: Option<Settings>,
    /// Cases to time that have no result yet.
    pub untimed: usize,
}

/// Decides `plan` (in `root`) from the results there. `Err` when results were timed on
/// different devices (one report is about one device) or a result cannot be read.
pub fn decide(plan: &Plan, root: &Path) -> Result<Decided, String> {
    let cases = decide_cases(plan, root, execute::RESULTS_DIR)?;
    let mut rows = Vec::new();
    let mut untimed = 0;
    for (case, decided) in plan.cases.iter().zip(cases.rows) {
        match decided {
            Some(case_rows) => rows.extend(case_rows),
            None => {
                untimed += 1;
                let label = case.function.clone().unwrap_or_else(|| "main".to_string());
                rows.push(
                    Row::named(&case.name, case.matcher.as_ref(), "function", label).failed(
                        "not timed: the plan has no result for it yet (`tunespec time` times the plan)",
                    ),
                );
            }
        }
    }
    Ok(Decided {
        rows,
        untimed,
        ..cases.header
    })
}

/// Each case's rows decided from the results in `results` (`None`: a case to time without a
/// result there), and what the results say of their device.
pub struct CaseRows {
    /// Per case of the plan, in its order.
    pub rows: Vec<Option<Vec<Row>>>,
    /// The device, runtime and settings of the results (rows empty).
    pub header: Decided,
}

/// The rows of every case of `plan` from the results directory `results` of `root`.
pub fn decide_cases(plan: &Plan, root: &Path, results: &str) -> Result<CaseRows, String> {
    let mut header = Decided {
        rows: Vec::new(),
        device: None,
        device_name: DeviceName::default(),
        runtime: None,
        settings: None,
        untimed: 0,
    };
    let mut rows = Vec::new();
    let mut first: Option<(String, CaseResult)> = None;
    let mut several_devices = false;
    for (index, case) in plan.cases.iter().enumerate() {
        let label = case.function.clone().unwrap_or_else(|| "main".to_string());
        let row = |kind, name| Row::named(&case.name, case.matcher.as_ref(), kind, name);
        match &case.outcome {
            Outcome::Failed { message } => {
                rows.push(Some(vec![row("function", label).failed(message.clone())]));
            }
            Outcome::Unchanged { dispatches } => {
                let mut unchanged = row("function", label);
                unchanged.status = Status::Unchanged;
                unchanged.message = Some(format!(
                    "the library gives none of its {dispatches} dispatch(es) another config than IREE's own"
                ));
                rows.push(Some(vec![unchanged]));
            }
            Outcome::Time(to_time) => {
                let path = execute::result_path(root, results, index);
                let Some(result) = execute::read_result(&path)? else {
                    rows.push(None);
                    continue;
                };
                let shown = relative(root, &path);
                several_devices |= same_device(&mut first, &shown, &result)?;
                if result.case != case.id {
                    return Err(format!(
                        "{shown} is the result of another case ({}, not {}): results belong to the plan they were timed from",
                        result.case, case.id
                    ));
                }
                let mut timed = case_rows(case, &result);
                if let Some(found) = &to_time.ops {
                    ops::assign(found, &to_time.exports, &mut timed);
                }
                rows.push(Some(timed));
            }
        }
    }
    if let Some((_, result)) = first {
        header.device = Some(if several_devices {
            result.device.driver()
        } else {
            result.device
        });
        header.device_name = result.device_name;
        header.runtime = Some(result.runtime);
        header.settings = Some(result.settings);
    }
    Ok(CaseRows { rows, header })
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether `a` and `b` were timed on devices of one model: one driver and the same device
/// name (and driver version, CPU threads), whatever slot (`cuda://0`, `cuda://1`) each was in:
/// what `--device` repeated times with.
pub fn one_model(a: (&Device, &DeviceName), b: (&Device, &DeviceName)) -> bool {
    a.0.kind() == b.0.kind() && a.1 == b.1
}

/// `Err` when `result` was timed on another model of device than the first result read;
/// `Ok(true)` when on another device of the same model (several devices timed one plan).
fn same_device(
    first: &mut Option<(String, CaseResult)>,
    shown: &str,
    result: &CaseResult,
) -> Result<bool, String> {
    let Some((first_path, first)) = first else {
        *first = Some((shown.to_string(), result.clone()));
        return Ok(false);
    };
    let (a, b) = (
        (&first.device, &first.device_name),
        (&result.device, &result.device_name),
    );
    if !one_model(a, b) {
        let what = |result: &CaseResult| {
            format!(
                "{} ({})",
                result.device,
                result.device_name.name.as_deref().unwrap_or("unnamed")
            )
        };
        return Err(format!(
            "the results were timed on different devices: {} in {first_path}, {} in {shown}; a report and its measured entries are about one model of device: decide each model's results apart",
            what(first),
            what(result)
        ));
    }
    Ok(first.device.as_str() != result.device.as_str())
}

/// A timed case's rows: its result's, a dispatch row `wrong output` when a function's outputs
/// differ (the dispatch's time is not worth having then).
fn case_rows(case: &PlannedCase, result: &CaseResult) -> Vec<Row> {
    let mut rows: Vec<Row> = result
        .rows
        .iter()
        .map(|timed| {
            let kind = if timed.kind == "dispatch" {
                "dispatch"
            } else {
                "function"
            };
            let mut row = Row::named(&case.name, case.matcher.as_ref(), kind, timed.name.clone());
            row.status = timed.status;
            row.message.clone_from(&timed.message);
            row.timing.clone_from(&timed.timing);
            row.outputs.clone_from(&timed.outputs);
            row.samples_us.clone_from(&timed.samples_us);
            row
        })
        .collect();
    let wrong = rows
        .iter()
        .any(|row| row.kind == "function" && row.status == Status::WrongOutput);
    if wrong {
        for row in rows.iter_mut().filter(|row| row.kind == "dispatch") {
            if row.status != Status::Failed {
                row.status = Status::WrongOutput;
                row.message = Some("the payload's outputs differ with the library".into());
            }
        }
    }
    rows
}

/// Writes the winners of `decided` into the measured library at `output` (created, or merged
/// into) as measured entries dated `date`; the notes say what was written and what was left
/// out and why. Nothing won: nothing written.
pub fn write(
    mlir: &Mlir,
    (plan, decided): (&Plan, &Decided),
    output: &Path,
    date: &str,
) -> Result<Vec<String>, String> {
    let context = plan.write.clone().ok_or(
        "the plan was made without --target: measured entries are for a target (plan again with --target)",
    )?;
    let Some(device) = &decided.device else {
        return Ok(vec![format!(
            "nothing was timed: nothing written to {}",
            output.display()
        )]);
    };
    let runtime = decided
        .runtime
        .as_deref()
        .filter(|version| *version != "unknown")
        .map(|version| format!("iree-base-runtime {version}"));
    let measured_context = measured::Context {
        device,
        name: &decided.device_name,
        iree: &plan.iree,
        runtime: runtime.as_deref(),
        flags: &plan.flags,
        date,
    };
    let mut specs = Vec::new();
    for (name, text) in &context.specs {
        let verified = crate::verify::verify_bytes(mlir, text.as_bytes(), name);
        match verified.snapshot {
            Some(module) if !verified.has_errors() => {
                specs.push((name.clone(), text.clone(), module))
            }
            _ => return Err(format!("the plan's spec {name} does not verify")),
        }
    }
    let (mut matched, mut left_out) = measured::model_winners(&decided.rows, &specs);
    for row in decided.rows.iter().filter(|row| row.kind == "function") {
        let Some(case) = plan.cases.iter().find(|case| case.name == row.case) else {
            continue;
        };
        let (Some(matcher), Some(library)) = (&case.matcher, &case.library) else {
            continue;
        };
        matched.push((row.clone(), library.clone(), matcher.key.clone()));
    }
    let (winners, mut notes) =
        measured::entries(mlir, &matched, &context.target, &measured_context);
    notes.append(&mut left_out);
    let count = winners.len();
    if count == 0 {
        notes.push(format!(
            "no matcher won: nothing written to {}",
            output.display()
        ));
        return Ok(notes);
    }
    notes.extend(measured::write(
        mlir,
        output,
        winners,
        context.definitions.clone(),
    )?);
    notes.push(format!(
        "wrote {count} measured entr{} to {}",
        if count == 1 { "y" } else { "ies" },
        output.display()
    ));
    Ok(notes)
}
