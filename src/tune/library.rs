//! The winners of a tune as a measured library, written with `bench`'s writer: each winner's
//! standalone spec annotated with its measurement, whose record also names the candidate (its
//! number and knobs), how many candidates were tried and compiled, and the budget.

use std::path::Path;

use super::journal::{Record, Stage};
use super::report::DispatchReport;
use super::{Request, Searched};
use crate::bench::measured::{self, Context, DeviceName};
use crate::bench::{Row, Status};
use crate::mlir::Mlir;

/// What the records of a tune's measured entries say beyond the timings: the request, and
/// the device, compiler and runtime it was timed with.
pub(super) struct Written<'a> {
    /// The request (target, flags, device, date, budget, output, definitions).
    pub request: &'a Request,
    /// What the device is.
    pub device_name: &'a DeviceName,
    /// The IREE compiler's revision.
    pub iree: &'a str,
    /// The runtime's version.
    pub runtime: &'a str,
}

/// The runtime as the records name it (`iree-base-runtime 3.13.0`), when its version is known.
fn runtime_words(version: &str) -> Option<String> {
    (version != "unknown").then(|| format!("iree-base-runtime {version}"))
}

/// How a tune's entries are measured, for their records.
/// `device`: the one the entries say measured them ([`crate::bench::Options::reported_device`]:
/// the driver of several devices).
fn context<'a>(
    written: &'a Written<'a>,
    device: &'a crate::device::Device,
    runtime: Option<&'a str>,
) -> Context<'a> {
    let request = written.request;
    Context {
        device,
        name: written.device_name,
        iree: written.iree,
        runtime,
        flags: &request.options.flags,
        date: &request.date,
    }
}

/// Who the entries this tune writes say measured them, without times: what the shared store
/// is asked before a key is searched (`crate::store::Store::best_of`).
pub(super) fn measured_as(written: &Written<'_>) -> crate::provenance::Measurement {
    let runtime = runtime_words(written.runtime);
    let device = written.request.options.reported_device();
    measured::measured_as(&context(written, &device, runtime.as_deref()))
}

/// Leaves out of `searches` the dispatches whose key the store `url` holds for this target,
/// measured as `written` says its entries are (each said in `skipped`); how many it left out.
/// A store that cannot be asked leaves nothing out (the tune measures as without a store) and
/// gives a note saying so.
pub(super) fn skip_measured(
    (url, options): (&str, &crate::store::Options),
    written: &Written<'_>,
    searches: &mut Vec<super::Search>,
    skipped: &mut Vec<super::dispatches::Skipped>,
) -> (Option<String>, usize) {
    let options = crate::store::Options {
        read_only: true,
        ..options.clone()
    };
    let store = match crate::store::Store::open(url, &options) {
        Ok(store) => store,
        Err(error) => {
            return (
                Some(format!(
                    "the store could not be asked which keys it holds ({error}): every dispatch was searched"
                )),
                0,
            )
        }
    };
    let before = searches.len();
    let measured_as = measured_as(written);
    let target = &written.request.target;
    searches.retain(|search| match store.best_of(target, &search.key, &measured_as) {
        Ok(Some(best)) => {
            skipped.push(super::dispatches::Skipped {
                function: search.function.clone(),
                op: format!("@{}", search.matcher),
                why: format!(
                    "already measured in {} on this device and IREE ({} us, {}): not searched again (--remeasure searches it)",
                    store.url(),
                    best.tuned_us,
                    best.date
                ),
            });
            false
        }
        Ok(None) | Err(_) => true,
    });
    (None, before - searches.len())
}

/// Writes the winners of `reports` into the output's library directory (replaced whole: it
/// is the tune's own; removed when nothing won). Returns the notes and the library's path
/// when one was written.
/// `held`: the dispatches not searched because the store holds their keys.
pub(super) fn write(
    written: &Written<'_>,
    (searches, held): (&[Searched], usize),
    reports: &[DispatchReport],
    records: &[(Record, bool)],
) -> Result<(Vec<String>, Option<String>), String> {
    let request = written.request;
    let mlir = Mlir::new();
    let runtime = runtime_words(written.runtime);
    let device = request.options.reported_device();
    let context = context(written, &device, runtime.as_deref());
    let mut winners = Vec::new();
    let mut notes = Vec::new();
    for (search, report) in searches.iter().zip(reports) {
        let Some(index) = report.winner else { continue };
        let Some((record, _)) = super::report::find(
            records,
            &search.key,
            &search.candidates[index].0.knobs,
            Stage::Confirm,
        ) else {
            continue;
        };
        let spec = &search.candidates[index].1;
        let row = Row {
            case: format!("{} (tune)", request.name),
            kind: "function",
            name: search.function.clone(),
            matcher: Some(search.matcher.clone()),
            status: Status::Faster,
            message: None,
            timing: record.timing.clone(),
            outputs: None,
            samples_us: None,
            ops: Vec::new(),
        };
        let rows = [(row, spec.clone(), search.matcher_key.clone())];
        let (mut entries, left_out) = measured::entries(&mlir, &rows, &request.target, &context);
        notes.extend(left_out);
        for mut entry in entries.drain(..) {
            let tried = report.candidates.iter().filter(|c| c.compiled.is_some());
            let measurement = &mut entry.measurement;
            measurement.candidate = Some(index as u64);
            for (name, value) in &mut measurement.extra {
                if name == "method" {
                    *value = "tunespec tune".to_string();
                }
            }
            measurement.extra.extend([
                (
                    "candidate_knobs".to_string(),
                    search.candidates[index].0.knobs.clone(),
                ),
                (
                    "candidates_tried".to_string(),
                    format!("{} ({} compiled)", tried.count(), report.compiled),
                ),
                (
                    "budget".to_string(),
                    request.budget.map_or("none".to_string(), |budget| {
                        format!("{}s", budget.as_secs())
                    }),
                ),
            ]);
            let Some(text) =
                crate::measured::tuner_import::annotate(spec, &search.matcher, &entry.measurement)
            else {
                notes.push(format!(
                    "@{}: its header was not found (left out)",
                    search.matcher
                ));
                continue;
            };
            if crate::verify::verify_bytes(&mlir, text.as_bytes(), &search.matcher).has_errors() {
                notes.push(format!(
                    "@{}: the annotated spec does not verify (left out)",
                    search.matcher
                ));
                continue;
            }
            entry.text = text;
            winners.push(entry);
        }
    }
    let dir = super::library_dir(&request.output);
    remove(&dir)?;
    if winners.is_empty() {
        let tried = records
            .iter()
            .any(|(record, _)| record.stage == Stage::Screen);
        notes.push(if searches.is_empty() && held > 0 {
            format!("every dispatch is already measured in the store ({held}): nothing searched, no library written (--remeasure searches them)")
        } else if searches.is_empty() {
            "no matmul dispatch to tune: no library written".to_string()
        } else if tried {
            "none beat IREE's own config: no library written".to_string()
        } else {
            "no candidate was tried (the budget ran out first): no library written".to_string()
        });
        return Ok((notes, None));
    }
    let definitions = request.definitions.clone();
    let count = winners.len();
    notes.extend(measured::write(&mlir, &dir, winners, definitions)?);
    notes.push(format!(
        "wrote {count} measured entr{} to {}",
        if count == 1 { "y" } else { "ies" },
        dir.display()
    ));
    Ok((notes, Some(dir.display().to_string())))
}

/// Removes the tune's own library directory (a rerun writes it whole again).
fn remove(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(format!("cannot replace {}: {error}", dir.display())),
    }
}
