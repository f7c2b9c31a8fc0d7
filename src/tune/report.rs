//! What a tune found, as values: every dispatch with every candidate (knobs, compile status,
//! each stage's outcome and interval, the verdict), the winners, and the time of each phase.
//! The CLI renders it (a table, or JSON: `docs/schema/tune.schema.json`).

use serde::Serialize;

use super::journal::{Record, Stage};
use crate::bench::Status;

/// The outcome of one stage of a candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// bench's status (`faster`, `slower`, `no-difference`, `unchanged`, `wrong-output`,
    /// `failed`).
    pub status: Status,
    /// Why (failures, wrong outputs, unchanged).
    pub message: Option<String>,
    /// tuned / IREE's own (median over rounds of each round's ratio), when timed.
    pub ratio: Option<f64>,
    /// The ratio's interval, when bounded.
    pub interval: Option<[f64; 2]>,
    /// The interval's confidence.
    pub confidence: Option<f64>,
    /// Rounds judged.
    pub rounds: Option<usize>,
    /// The largest absolute difference of the outputs from IREE's own config's.
    pub max_abs_diff: Option<f64>,
    /// Whether it was read from the journal (measured by an earlier run).
    pub journaled: bool,
}

impl Outcome {
    /// The outcome a journal record holds.
    pub fn of(record: &Record, journaled: bool) -> Outcome {
        let timing = record.timing.as_ref();
        Outcome {
            status: record.status,
            message: record.message.clone(),
            ratio: timing.map(|timing| timing.ratio),
            interval: timing.and_then(|timing| Some([timing.ci_low?, timing.ci_high?])),
            confidence: timing.map(|timing| timing.confidence),
            rounds: timing.map(|timing| timing.rounds),
            max_abs_diff: record.max_abs_diff,
            journaled,
        }
    }
}

/// One candidate of a dispatch.
#[derive(Clone, Debug, Serialize)]
pub struct CandidateReport {
    /// Its number (0: IREE's own config).
    pub index: usize,
    /// Its knobs in words (`iree` for IREE's own).
    pub knobs: String,
    /// Its `lowering_config`.
    pub lowering_config: String,
    /// Whether it compiled; `None`: not tried (the budget ran out first).
    pub compiled: Option<bool>,
    /// The screen's outcome (few rounds), when screened.
    pub screen: Option<Outcome>,
    /// The confirmation's outcome (full rounds, the calibrated rule), when confirmed.
    pub confirm: Option<Outcome>,
    /// The candidate's verdict in words: `winner`, `faster`, `slower`, `no difference`,
    /// `screened out`, `wrong output`, `failed to compile`, `failed`, `unchanged`, `not tried`.
    pub verdict: String,
}

/// One dispatch's search.
#[derive(Clone, Debug, Serialize)]
pub struct DispatchReport {
    /// Its key (`matmul 512x512x512 f32*f32->f32`).
    pub key: String,
    /// The dispatch functions IREE formed with it.
    pub functions: Vec<String>,
    /// The matcher of its specs.
    pub matcher: String,
    /// Every candidate.
    pub candidates: Vec<CandidateReport>,
    /// The winner's number: the candidate the calibrated rule called faster than IREE's own,
    /// the lowest ratio of those; `None`: none beat IREE's own.
    pub winner: Option<usize>,
    /// How many candidates compiled.
    pub compiled: usize,
    /// Its share of the model's dispatch time under IREE's own configs (0 to 1), measured
    /// before the search; dispatches are searched heaviest first. `None`: not measured.
    pub share: Option<f64>,
}

/// Seconds spent per phase.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Phases {
    /// Reading IREE's configs and generating the candidates' specs and payloads.
    pub generate_s: f64,
    /// Compiling the candidates (and IREE's own config beside each).
    pub compile_s: f64,
    /// Screening: checking outputs and timing every candidate with few rounds.
    pub screen_s: f64,
    /// Confirming: timing the screen's best with full rounds.
    pub confirm_s: f64,
    /// Benching the model with the winners (compiles and timing).
    pub model_s: f64,
    /// Writing the library.
    pub write_s: f64,
}

/// A tune's report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The report's format version (1).
    pub version: u32,
    /// The payload's name.
    pub payload: String,
    /// The target.
    pub target: String,
    /// The runtime's device.
    pub device: String,
    /// iree-compile's flags.
    pub flags: Vec<String>,
    /// The order candidates were taken in: `model` (the target's cheap model), `nearest`
    /// (llvm-cpu's grid nearest IREE's own config first; also where the model had no vector
    /// size to go by) or `random` ([`super::order::Order`]).
    #[serde(default)]
    pub order: String,
    /// Every dispatch searched.
    pub dispatches: Vec<DispatchReport>,
    /// Configured ops that were not tuned, and why: `(function, op, why)`.
    pub skipped: Vec<(String, String, String)>,
    /// Dispatches not searched because the store (`--store`) already holds their keys for this
    /// device and IREE (each also in `skipped`).
    #[serde(default)]
    pub held_in_store: usize,
    /// Candidates whose outcome came from the journal (an earlier, interrupted run).
    pub resumed: usize,
    /// Whether the budget ran out before every candidate was screened and confirmed.
    pub budget_exhausted: bool,
    /// The model benched with all the winners, a row per exported function (empty: see
    /// `model_note`).
    pub model: Vec<super::model::ModelRow>,
    /// Why the model was not benched (no winner, the budget ran out).
    pub model_note: Option<String>,
    /// Why the dispatches' shares were not measured (then they are searched in IREE's order).
    pub shares_note: Option<String>,
    /// Time per phase (this run's, not the journal's).
    pub phases: Phases,
    /// Notes of the library's writing (why a winner was left out, what was written).
    pub written: Vec<String>,
    /// Where the measured library is, when a winner was written.
    pub library: Option<String>,
}

/// A candidate's verdict in words, from its stages.
pub fn verdict(
    compiled: Option<bool>,
    screen: Option<&Outcome>,
    confirm: Option<&Outcome>,
    winner: bool,
) -> String {
    if winner {
        return "winner".to_string();
    }
    match (compiled, screen, confirm) {
        (None, _, _) => "not tried".to_string(),
        (Some(false), _, _) => "failed to compile".to_string(),
        (_, _, Some(outcome)) => outcome.status.words().to_string(),
        (_, Some(outcome), None) => match outcome.status {
            Status::WrongOutput | Status::Failed | Status::Unchanged => {
                outcome.status.words().to_string()
            }
            _ => "screened out".to_string(),
        },
        (_, None, None) => "not tried".to_string(),
    }
}

/// Whether a record of `stage` is present among `records` for the candidate.
pub fn find<'a>(
    records: &'a [(Record, bool)],
    dispatch: &str,
    knobs: &str,
    stage: Stage,
) -> Option<&'a (Record, bool)> {
    records.iter().rev().find(|(record, _)| {
        record.dispatch == dispatch && record.knobs == knobs && record.stage == stage
    })
}
