//! The last stage: the model itself benched with all the winners (one spec of their matchers)
//! against IREE's own configs, with full rounds and the calibrated rule.
//!
//! Why: the search times each dispatch on a payload of its own; the model is what the user
//! runs. Its row says whether the winners' matchers take effect in the model's own dispatches
//! (`unchanged`: they match none) and what they gain there. Journaled like the other stages
//! (keyed by the set of winners), so a resumed run does not time it again.

use serde::Serialize;

use super::journal::{Journal, Record, Stage};
use super::report::{DispatchReport, Outcome};
use super::{space, Clock, Request, Search};
use crate::bench::{self, Case, Progress};
use crate::iree::runtime::Tools;
use crate::iree::Iree;

/// The journal's dispatch of the model's records.
const MODEL: &str = "model";

/// One exported function of the model, benched with the winners.
#[derive(Clone, Debug, Serialize)]
pub struct ModelRow {
    /// The function.
    pub function: String,
    /// Its outcome against IREE's own configs.
    pub outcome: Outcome,
}

/// What the model stage gives: its rows, and why there are none when there are none.
pub(super) type Benched = (Vec<ModelRow>, Option<String>);

/// Benches the model with the winners of `reports` (none: nothing to bench), unless the
/// journal has it or the budget is spent. Returns the rows and the seconds spent.
pub(super) fn bench_model(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
    (searches, reports): (&[Search], &[DispatchReport]),
    (journal, records): (&mut Journal, &mut Vec<(Record, bool)>),
    clock: &mut Clock,
    progress: Progress<'_>,
) -> Result<(Benched, f64), String> {
    let pairs: Vec<(&super::Dispatch, &space::Candidate)> = searches
        .iter()
        .zip(reports)
        .filter_map(|(search, report)| {
            let index = report.winner?;
            Some((&search.dispatch, &search.candidates[index].0))
        })
        .collect();
    if pairs.is_empty() {
        return Ok((
            (Vec::new(), Some("no winner to bench the model with".into())),
            0.0,
        ));
    }
    let id: Vec<String> = pairs
        .iter()
        .map(|(dispatch, candidate)| format!("{} {}", dispatch.key, candidate.knobs))
        .collect();
    let id = id.join("; ");
    let known = |records: &[(Record, bool)]| -> Vec<ModelRow> {
        let mut rows: Vec<ModelRow> = records
            .iter()
            .filter(|(record, _)| {
                record.stage == Stage::Model && record.dispatch == MODEL && record.knobs == id
            })
            .map(|(record, journaled)| ModelRow {
                function: record.function.clone().unwrap_or_default(),
                outcome: Outcome::of(record, *journaled),
            })
            .collect();
        rows.dedup_by(|a, b| a.function == b.function);
        rows
    };
    let rows = known(records);
    if !rows.is_empty() {
        return Ok(((rows, None), 0.0));
    }
    if !clock.allows(1.0) {
        return Ok((
            (
                Vec::new(),
                Some("the budget ran out before the model was benched".into()),
            ),
            0.0,
        ));
    }
    let started = std::time::Instant::now();
    let case = Case {
        id: request.name.clone(),
        name: request.name.clone(),
        payload: request.payload.clone(),
        library: space::combined(&pairs),
        function: None,
        matcher: None,
        located_library: None,
    };
    let mut options = request.options.clone();
    options.budget = clock.left();
    let line = |inner: &str| {
        if !inner.is_empty() {
            progress(&format!("model: {inner}"));
        }
    };
    let timed = bench::run(iree, tools, &[case], &options, &line)?;
    for (index, row) in timed
        .iter()
        .filter(|row| row.kind == "function")
        .enumerate()
    {
        let record = Record {
            dispatch: MODEL.to_string(),
            candidate: index,
            knobs: id.clone(),
            stage: Stage::Model,
            compiled: true,
            status: row.status,
            message: row.message.clone(),
            max_abs_diff: row.outputs.as_ref().map(|outputs| outputs.max_abs_diff),
            timing: row.timing.clone(),
            function: Some(row.name.clone()),
        };
        if !super::transient(&record) {
            journal.append(&record)?;
        }
        records.push((record, false));
    }
    Ok(((known(records), None), started.elapsed().as_secs_f64()))
}
