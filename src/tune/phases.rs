//! `tune` in phases, as `bench` runs them ([`crate::bench::plan`]): the candidates generated and
//! compiled here (`tune --plan DIR`: IREE's compiler, its constraints and z3), timed where the
//! device is with IREE's runtime alone (`tunespec time DIR`: the screen, then the confirmation
//! of each dispatch's survivors, chosen from the screen's results as one tune chooses them),
//! and decided anywhere (`tunespec decide DIR`: the report, its picture and the measured
//! library, as one tune writes them).
//!
//! The plan is a bench plan (every candidate a case: the dispatch's payload with the
//! candidate's spec) beside `tune.json`, which says which cases are which dispatch's
//! candidates. The screen's results go to `results-screen/`, the confirmations' to `results/`;
//! both are resumable, and `--shard K/N` takes whole dispatches (a dispatch's survivors are
//! chosen among its own candidates), so shards' result directories copied into one plan
//! directory are the tune timed whole.
//!
//! What a one-machine tune does beyond this: it measures the dispatches' shares of the model's
//! time (to search the heaviest first within a budget) and benches the model whole with the
//! winners; a tune in phases searches every dispatch, and its report says the model is to be
//! benched with the library it wrote.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::journal::{Record, Stage};
use super::report::{DispatchReport, Phases, Report};
use super::{generate, Request, Search, Searched};
use crate::bench::decide::{self, Decided};
use crate::bench::execute::{self, Selection, Timed};
use crate::bench::measured::DeviceName;
use crate::bench::plan::{self, Plan};
use crate::bench::{Case, Options, Progress};
use crate::iree::runtime::{Runtime, Tools};
use crate::iree::Iree;
use crate::manifest::Definition;

/// The tune's part of a plan, beside `plan.json`.
pub const TUNE_FILE: &str = "tune.json";
/// Where the screen's results go (the confirmations': [`execute::RESULTS_DIR`]).
pub const SCREEN_DIR: &str = "results-screen";

/// What a tune plan adds to its bench plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TunePlan {
    /// [`plan::FORMAT`].
    pub format: u32,
    /// The payload's name.
    pub payload: String,
    /// The target the library is written for.
    pub target: String,
    /// Rounds of the screen.
    pub screen_rounds: u32,
    /// The targets the written library defines.
    pub definitions: Vec<Definition>,
    /// The configured ops that are not tuned, and why: (function, op, why).
    pub skipped: Vec<(String, String, String)>,
    /// The order candidates were taken in ([`super::report::Report::order`]).
    #[serde(default)]
    pub order: String,
    /// Each dispatch's search.
    pub searches: Vec<Searched>,
    /// Per search, per candidate: its case in the bench plan.
    pub cases: Vec<Vec<usize>>,
}

impl TunePlan {
    /// The tune plan in `dir`; `None` for a bench plan.
    pub fn load(dir: &Path) -> Result<Option<TunePlan>, String> {
        let path = dir.join(TUNE_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let text = crate::files::read_input_text(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        let tune: TunePlan = serde_json::from_str(&text)
            .map_err(|error| format!("{}: not a tune plan: {error}", path.display()))?;
        if tune.format != plan::FORMAT {
            return Err(format!(
                "{}: a tune plan of format {} (this tunespec reads format {}): make the plan again",
                path.display(),
                tune.format,
                plan::FORMAT
            ));
        }
        Ok(Some(tune))
    }
}

/// The compile phase of a tune: the candidates of every dispatch generated and compiled into
/// `dir`, the plan and the tune plan saved there.
pub fn make(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
    dir: &Path,
    progress: Progress<'_>,
) -> Result<(Plan, TunePlan), String> {
    progress("reading IREE's configs");
    let generated = generate::generate((iree, tools), request)?;
    let searches: Vec<Search> = generated.searches;
    let mut cases: Vec<Case> = Vec::new();
    let mut indices = Vec::new();
    for (s, search) in searches.iter().enumerate() {
        let mut own = Vec::new();
        for c in 0..search.candidates.len() {
            own.push(cases.len());
            cases.push(super::case_of(&searches, (s, c)));
        }
        indices.push(own);
    }
    let plan = plan::make(
        iree,
        &tools.compile,
        &cases,
        &request.options,
        dir,
        progress,
    );
    progress("");
    plan.save(dir)?;
    let tune = TunePlan {
        format: plan::FORMAT,
        payload: request.name.clone(),
        target: request.target.clone(),
        screen_rounds: request.screen_rounds,
        definitions: request.definitions.clone(),
        skipped: generated
            .skipped
            .into_iter()
            .map(|s| (s.function, s.op, s.why))
            .collect(),
        order: generated.order.to_string(),
        searches: searches.iter().map(Search::searched).collect(),
        cases: indices,
    };
    let text = serde_json::to_string_pretty(&tune)
        .map_err(|error| format!("cannot write the tune plan: {error}"))?;
    plan::write_atomically(&dir.join(TUNE_FILE), format!("{text}\n").as_bytes())?;
    Ok((plan, tune))
}

/// The time phase of a tune plan: the screen of every candidate of the dispatches in `shard`
/// (`options` with the plan's screen rounds), then the confirmation of each dispatch's
/// survivors with `options`. Returns what each stage timed.
pub fn time(
    runtime: &Runtime,
    (plan, tune, root): (&Plan, &TunePlan, &Path),
    options: &Options,
    shard: Option<(u32, u32)>,
    progress: Progress<'_>,
) -> Result<(Timed, Timed), String> {
    let in_shard =
        |search: &Searched| shard.is_none_or(|(k, n)| super::in_shard(&search.key, k, n));
    let only: Vec<usize> = tune
        .searches
        .iter()
        .zip(&tune.cases)
        .filter(|(search, _)| in_shard(search))
        .flat_map(|(_, cases)| cases.iter().copied())
        .collect();
    let mut screen_options = options.clone();
    screen_options.rounds = tune.screen_rounds;
    screen_options.max_rounds = tune.screen_rounds;
    screen_options.budget = None;
    let selection = |results, only| Selection {
        results,
        only: Some(only),
        shard: None,
        part: None,
    };
    let screened = execute::time_plan_on(
        runtime,
        (plan, root),
        &screen_options,
        selection(SCREEN_DIR, &only),
        progress,
    )?;
    let (records, _) = records(plan, tune, root)?;
    let mut confirm = Vec::new();
    for (search, cases) in tune.searches.iter().zip(&tune.cases) {
        if in_shard(search) {
            for candidate in super::survivors(&search.key, &search.candidates, &records) {
                confirm.push(cases[candidate]);
            }
        }
    }
    let confirmed = execute::time_plan_on(
        runtime,
        (plan, root),
        options,
        selection(execute::RESULTS_DIR, &confirm),
        progress,
    )?;
    Ok((screened, confirmed))
}

/// The records of every candidate timed so far (the screen's and the confirmations'), as a
/// one-machine tune journals them, and what the results say of their device.
fn records(
    plan: &Plan,
    tune: &TunePlan,
    root: &Path,
) -> Result<(Vec<(Record, bool)>, Decided), String> {
    let screen = decide::decide_cases(plan, root, SCREEN_DIR)?;
    let confirm = decide::decide_cases(plan, root, execute::RESULTS_DIR)?;
    let (a, b) = (&screen.header, &confirm.header);
    if let (Some(one), Some(other)) = (&a.device, &b.device) {
        if !decide::one_model((one, &a.device_name), (other, &b.device_name)) {
            return Err(format!(
                "the screen was timed on {one} and the confirmations on {other}: a tune is timed on one device"
            ));
        }
    }
    let mut records = Vec::new();
    for (search, cases) in tune.searches.iter().zip(&tune.cases) {
        for (candidate, &case) in cases.iter().enumerate() {
            let knobs = &search.candidates[candidate].0.knobs;
            for (stage, stage_rows) in [
                (Stage::Screen, &screen.rows),
                (Stage::Confirm, &confirm.rows),
            ] {
                let row = stage_rows
                    .get(case)
                    .and_then(Option::as_ref)
                    .and_then(|rows| rows.first());
                if let Some(row) = row {
                    let record = super::record_of((&search.key, knobs), candidate, stage, row);
                    records.push((record, false));
                }
            }
        }
    }
    // Stages timed on different devices of one model (`--device` repeated) are reported as
    // the driver's, as each stage's own devices are.
    let several = matches!(
        (&screen.header.device, &confirm.header.device),
        (Some(one), Some(other)) if one.as_str() != other.as_str()
    );
    let mut header = if screen.header.device.is_some() {
        screen.header
    } else {
        confirm.header
    };
    if several {
        header.device = header.device.map(|device| device.driver());
    }
    Ok((records, header))
}

/// The decide phase of a tune plan: its report (also `report.json` and `report.svg` in `root`)
/// and the winners as a measured library in `root/library`, dated `date`. `Err` when nothing
/// is timed yet.
pub fn decide(plan: &Plan, tune: &TunePlan, root: &Path, date: &str) -> Result<Report, String> {
    let (records, header) = records(plan, tune, root)?;
    let (Some(device), Some(settings)) = (header.device, header.settings) else {
        return Err(format!(
            "nothing in {} is timed yet: time it first (tunespec time {} --device DEVICE)",
            root.display(),
            root.display()
        ));
    };
    let reports: Vec<DispatchReport> = tune
        .searches
        .iter()
        .map(|search| super::dispatch_report(search, &records))
        .collect();
    let request = Request {
        payload: Vec::new(),
        name: tune.payload.clone(),
        target: tune.target.clone(),
        specs: Vec::new(),
        definitions: tune.definitions.clone(),
        options: settings.options(device, plan.flags.clone()),
        screen_rounds: tune.screen_rounds,
        max_candidates: 0,
        only: Vec::new(),
        order: Default::default(),
        solutions: 0,
        budget: None,
        output: root.to_path_buf(),
        date: date.to_string(),
        shard: None,
        linked: None,
        skip_measured: None,
    };
    let runtime = header.runtime.unwrap_or_else(|| "unknown".to_string());
    let device_name: DeviceName = header.device_name;
    let written = super::library::Written {
        request: &request,
        device_name: &device_name,
        iree: &plan.iree,
        runtime: &runtime,
    };
    let (notes, library) =
        super::library::write(&written, (&tune.searches, 0), &reports, &records)?;
    let report = Report {
        version: 1,
        payload: tune.payload.clone(),
        target: tune.target.clone(),
        device: request.options.device.to_string(),
        flags: plan.flags.clone(),
        order: tune.order.clone(),
        dispatches: reports,
        skipped: tune.skipped.clone(),
        held_in_store: 0,
        resumed: 0,
        budget_exhausted: false,
        model: Vec::new(),
        model_note: Some(format!(
            "a tune in phases does not time the model whole: bench it with the library written (tunespec bench -t {} --spec {} MODEL)",
            tune.target,
            super::library_dir(root).display()
        )),
        shares_note: Some(
            "a tune in phases searches every dispatch, in IREE's order: their shares of the model's time are not measured"
                .to_string(),
        ),
        phases: Phases::default(),
        written: notes,
        library,
    };
    super::write_report(root, &report)?;
    Ok(report)
}
