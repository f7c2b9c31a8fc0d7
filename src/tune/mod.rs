//! `tunespec tune`: a search of configs faster than IREE's own on the user's device, measured
//! with `bench`'s machinery and judged by its calibrated rule.
//!
//! 1. generate: IREE's own configs of the payload (`iree-compile
//!    --compile-to=executable-configurations`), its matmul dispatches deduplicated by key
//!    ([`dispatches`]), each dispatch's candidates (IREE's own first, then the llvm-cpu space
//!    around it, [`space`]), each a standalone tuning spec timed on the dispatch's own payload;
//! 2. screen: every candidate compiled (a compile failure is reported, never timed), its outputs
//!    checked against IREE's own config's, and timed with few rounds (`screen_rounds`);
//! 3. confirm (successive halving): the screen's best of each dispatch (those whose screen ratio
//!    is below 1, at most a quarter of those tried, at most [`MOST_SURVIVORS`]) timed with full
//!    rounds; a winner is only a candidate the rule calls faster than IREE's own;
//! 4. the winners written as a measured library (`bench`'s writer, [`library`]).
//!
//! Every stage's outcome is journaled as it is known ([`journal`]): the same request again
//! continues without measuring a finished candidate again. Nothing here prints; progress goes
//! through a callback, the report is a value ([`report`]).

pub mod compile;
pub mod contraction;
pub mod cpu_order;
pub mod dispatches;
mod generate;
pub mod gpu;
pub mod journal;
pub mod keys;
mod library;
pub mod model;
pub mod order;
pub mod phases;
pub mod picture;
pub mod report;
mod shares;
pub mod solve;
pub mod space;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bench::{self, Case, Options, Progress, Row, Status};
use crate::iree::runtime::Tools;
use crate::iree::Iree;
use dispatches::Dispatch;
use journal::{Header, Journal, Record, Stage};
use report::{CandidateReport, DispatchReport, Outcome, Phases, Report};
use space::Candidate;

/// The most candidates of one dispatch confirmed with full rounds.
pub const MOST_SURVIVORS: usize = 3;

/// The share of the budget the screen may take before confirming starts.
const SCREEN_SHARE: f64 = 0.6;

/// What to tune, and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The payload (a model; MLIR text or bytecode).
    pub payload: Vec<u8>,
    /// Its name, for reports.
    pub name: String,
    /// The target the library is written for (`host`, or a user-defined CPU target).
    pub target: String,
    /// Spec libraries given on the command line (a user-defined target's definitions come
    /// from them into the written library).
    pub specs: Vec<PathBuf>,
    /// The targets a written library defines to work alone (a user-defined target and its
    /// user-defined fallbacks, from the registry the request was resolved with).
    pub definitions: Vec<crate::manifest::Definition>,
    /// How to confirm (full rounds) and compile; the screen uses these with `screen_rounds`.
    pub options: Options,
    /// Rounds of the screen.
    pub screen_rounds: u32,
    /// The most candidates per dispatch (IREE's own included).
    pub max_candidates: usize,
    /// Only the dispatches these patterns select (`--dispatch`: contained in the key or a
    /// dispatch function's name); every one when empty.
    pub only: Vec<String>,
    /// The order candidates are taken in (the cheap model by default; `nearest` is llvm-cpu's
    /// only).
    pub order: order::Order,
    /// GPU targets: the most solutions of each pipeline's constraints enumerated before the
    /// model orders them ([`gpu::POOL`] by default).
    pub solutions: usize,
    /// The time this run may take; `None`: until every candidate is screened and confirmed.
    pub budget: Option<Duration>,
    /// The output directory: the journal, the report, the library.
    pub output: PathBuf,
    /// Today (`YYYY-MM-DD`), for the measurements' records.
    pub date: String,
    /// Only the share K of N (1-based) of the dispatches: those whose key hashes to it
    /// ([`in_shard`]), so shards on several machines search disjoint dispatches whose libraries
    /// merge (bench's writer merges by matcher key).
    pub shard: Option<(u32, u32)>,
    /// The library tunespec would link for the target (the user's specs and the target's
    /// measured entries), as text: the config it gives a dispatch, when another than IREE's,
    /// is candidate 1.
    pub linked: Option<String>,
    /// The shared store (`--store` without `--remeasure`): a dispatch whose key it already
    /// holds, measured on this device with this IREE, compile flags and target, is not searched
    /// again (said in the report's skipped dispatches).
    /// The store's URL and how it is opened (read-only).
    pub skip_measured: Option<(String, crate::store::Options)>,
}

/// What a search's report and library need of it (no shape, no payload): what a tune plan
/// keeps for its decide phase ([`phases`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Searched {
    /// The dispatch's key.
    pub key: String,
    /// The dispatch functions IREE formed with it.
    pub functions: Vec<String>,
    /// The matcher's name.
    pub matcher: String,
    /// The matcher's key.
    pub matcher_key: crate::link::MatcherKey,
    /// The payload's function the candidates are timed in.
    pub function: String,
    /// The candidates, each with its standalone spec.
    pub candidates: Vec<(Candidate, String)>,
}

impl Search {
    fn searched(&self) -> Searched {
        Searched {
            key: self.dispatch.key.clone(),
            functions: self.dispatch.functions.clone(),
            matcher: self.matcher.clone(),
            matcher_key: self.key.clone(),
            function: self.function.clone(),
            candidates: self.candidates.clone(),
        }
    }
}

/// A dispatch with what is searched for it.
struct Search {
    dispatch: Dispatch,
    matcher: String,
    key: crate::link::MatcherKey,
    payload: String,
    function: String,
    candidates: Vec<(Candidate, String)>,
}

/// Tunes every matmul dispatch of the request's payload. Errors are what stops the whole
/// search (IREE cannot configure the payload, the journal is another tune's); a candidate that
/// fails is a reported outcome.
pub fn tune(
    iree: &Iree,
    tools: &Tools,
    request: &Request,
    progress: Progress<'_>,
) -> Result<Report, String> {
    let started = Instant::now();
    let mut phases = Phases::default();
    progress("reading IREE's configs");
    let generate::Generated {
        mut searches,
        mut skipped,
        order,
        ..
    } = generate::generate((iree, tools), request)?;
    if let Some((index, count)) = request.shard {
        searches.retain(|search| in_shard(&search.dispatch.key, index, count));
    }
    let (mut store_note, mut held) = (None, 0);
    if let Some((url, options)) = &request.skip_measured {
        let name = bench::measured::DeviceName::of(&request.options.device);
        let written = library::Written {
            request,
            device_name: &name,
            iree: &iree.revision,
            runtime: &tools.version(),
        };
        (store_note, held) =
            library::skip_measured((url, options), &written, &mut searches, &mut skipped);
    }
    // The heaviest dispatches first: the budget goes where the model's time is.
    progress("timing the model's dispatches with IREE's own configs");
    let (shares, shares_note) = match shares::measure(tools, request, &searches) {
        Ok(shares) => {
            let mut order: Vec<(f64, Search)> = shares.into_iter().zip(searches).collect();
            order.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (shares, sorted): (Vec<f64>, Vec<Search>) = order.into_iter().unzip();
            searches = sorted;
            (shares.into_iter().map(Some).collect(), None)
        }
        Err(why) => (
            vec![None; searches.len()],
            Some(format!(
                "the dispatches are searched in IREE's order: their times could not be measured ({why})"
            )),
        ),
    };
    let header = header(iree, request);
    let (mut journal, earlier) = Journal::open(&request.output, &header)?;
    let mut records: Vec<(Record, bool)> = earlier.into_iter().map(|r| (r, true)).collect();
    phases.generate_s = started.elapsed().as_secs_f64();
    let mut clock = Clock {
        started,
        budget: request.budget,
        exhausted: false,
    };
    let screen = pending(&searches, &records, Stage::Screen, |_, _| true);
    let mut screen_options = request.options.clone();
    screen_options.rounds = request.screen_rounds;
    screen_options.max_rounds = request.screen_rounds;
    screen_options.budget = None;
    let stage = StageRun {
        stage: Stage::Screen,
        options: &screen_options,
        until: SCREEN_SHARE,
    };
    let (compile, time) = run_stage(
        (iree, tools),
        (&searches, &screen),
        &stage,
        (&mut journal, &mut records),
        &mut clock,
        progress,
    )?;
    phases.compile_s += compile;
    phases.screen_s += time;
    let survivors: Vec<Vec<usize>> = searches
        .iter()
        .map(|search| survivors(&search.dispatch.key, &search.candidates, &records))
        .collect();
    let confirm = pending(&searches, &records, Stage::Confirm, |s, c| {
        survivors[s].contains(&c)
    });
    let stage = StageRun {
        stage: Stage::Confirm,
        options: &request.options,
        until: 1.0,
    };
    let (compile, time) = run_stage(
        (iree, tools),
        (&searches, &confirm),
        &stage,
        (&mut journal, &mut records),
        &mut clock,
        progress,
    )?;
    phases.compile_s += compile;
    phases.confirm_s += time;
    progress("");
    let reports: Vec<DispatchReport> = searches
        .iter()
        .zip(&shares)
        .map(|(search, share)| DispatchReport {
            share: *share,
            ..dispatch_report(&search.searched(), &records)
        })
        .collect();
    let ((model, model_note), model_s) = model::bench_model(
        (iree, tools),
        request,
        (&searches, &reports),
        (&mut journal, &mut records),
        &mut clock,
        progress,
    )?;
    phases.model_s = model_s;
    progress("");
    let written_at = Instant::now();
    let name = bench::measured::DeviceName::of(&request.options.device);
    let context = library::Written {
        request,
        device_name: &name,
        iree: &iree.revision,
        runtime: &tools.version(),
    };
    let searched: Vec<Searched> = searches.iter().map(Search::searched).collect();
    let (mut written, library) = library::write(&context, (&searched, held), &reports, &records)?;
    written.extend(store_note);
    phases.write_s = written_at.elapsed().as_secs_f64();
    let report = Report {
        version: 1,
        payload: request.name.clone(),
        target: request.target.clone(),
        device: request.options.reported_device().to_string(),
        flags: request.options.flags.clone(),
        order: order.to_string(),
        dispatches: reports,
        skipped: skipped
            .into_iter()
            .map(|s| (s.function, s.op, s.why))
            .collect(),
        held_in_store: held,
        resumed: records.iter().filter(|(_, journaled)| *journaled).count(),
        budget_exhausted: clock.exhausted,
        model,
        model_note,
        shares_note,
        phases,
        written,
        library,
    };
    write_report(&request.output, &report)?;
    Ok(report)
}

/// The report's JSON in the output directory (`report.json`) and, when a candidate was timed,
/// its picture (`report.svg`), each written whole or not at all.
fn write_report(output: &Path, report: &Report) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report).map_err(|error| error.to_string())?;
    write_whole(output, "report.json", &format!("{text}\n"))?;
    match picture::svg(report).map_err(|error| format!("cannot draw report.svg: {error}"))? {
        Some(svg) => write_whole(output, "report.svg", &svg),
        None => {
            // A picture of an earlier run of this directory would describe other outcomes.
            let _ = std::fs::remove_file(output.join("report.svg"));
            Ok(())
        }
    }
}

/// `text` as `output/name`, staged beside it and renamed (never half-written).
pub fn write_whole(output: &Path, name: &str, text: &str) -> Result<(), String> {
    let path = output.join(name);
    let staged = output.join(format!(".{name}.partial"));
    std::fs::write(&staged, text)
        .and_then(|()| std::fs::rename(&staged, &path))
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// A work directory (removed when dropped) holding the request's payload, and the payload's
/// path in it (`payload.mlir`, or `payload.mlirbc` for bytecode: iree-compile reads either).
fn staged_payload(request: &Request) -> Result<(tempfile::TempDir, PathBuf), String> {
    let work = tempfile::Builder::new()
        .prefix(&bench::work_dir_prefix(std::process::id()))
        .tempdir()
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let bytecode = request.payload.starts_with(crate::verify::BYTECODE_MAGIC);
    let source = work.path().join(if bytecode {
        "payload.mlirbc"
    } else {
        "payload.mlir"
    });
    std::fs::write(&source, &request.payload)
        .map_err(|error| format!("cannot write {}: {error}", source.display()))?;
    Ok((work, source))
}

/// The budget: whether a stage may start more work.
struct Clock {
    started: Instant,
    budget: Option<Duration>,
    exhausted: bool,
}

impl Clock {
    /// Whether `share` of the budget is left to spend (always, without a budget).
    fn allows(&mut self, share: f64) -> bool {
        let allowed = self.budget.is_none_or(|budget| {
            self.started.elapsed().as_secs_f64() < budget.as_secs_f64() * share
        });
        self.exhausted |= !allowed;
        allowed
    }

    /// What is left of the budget.
    fn left(&self) -> Option<Duration> {
        self.budget
            .map(|budget| budget.saturating_sub(self.started.elapsed()))
    }
}

/// The journal's header of a request.
fn header(iree: &Iree, request: &Request) -> Header {
    let options = &request.options;
    Header {
        journal: "tunespec tune".to_string(),
        version: 1,
        payload: blake3::hash(&request.payload).to_hex().to_string(),
        target: request.target.clone(),
        flags: options.flags.clone(),
        device: options.reported_device().to_string(),
        iree: iree.revision.clone(),
        timing: format!(
            "screen {} round(s); confirm {}-{} rounds; {} repetition(s) of at least {}s; alpha {}, min effect {}; at most {} candidates",
            request.screen_rounds,
            options.rounds,
            options.max_rounds,
            options.repetitions,
            options.min_time,
            options.rule.alpha,
            options.rule.min_effect,
            request.max_candidates,
        ) + &match request.order {
            // The default's words are those of journals written before the order was a choice.
            order::Order::Model => String::new(),
            other => format!("; {} order", other.name()),
        },
    }
}

/// A candidate to run at a stage: its search and candidate numbers.
type Work = (usize, usize);

/// The candidates of `searches` without a record of `stage` that `wanted` picks.
fn pending(
    searches: &[Search],
    records: &[(Record, bool)],
    stage: Stage,
    wanted: impl Fn(usize, usize) -> bool,
) -> Vec<Work> {
    let mut work = Vec::new();
    for (s, search) in searches.iter().enumerate() {
        for (candidate, _) in &search.candidates {
            let known = report::find(records, &search.dispatch.key, &candidate.knobs, stage);
            if known.is_none() && wanted(s, candidate.index) {
                work.push((s, candidate.index));
            }
        }
    }
    // Round-robin over dispatches: a budget that runs out leaves each some candidates.
    work.sort_by_key(|&(s, c)| (c, s));
    work
}

/// A stage's options and the share of the budget it may start work within.
struct StageRun<'a> {
    stage: Stage,
    options: &'a Options,
    until: f64,
}

/// Runs `work` at a stage, in batches (compiled in parallel, then timed one at a time), each
/// batch's outcomes journaled as soon as bench returns them; stops starting batches when the
/// budget's share is spent. Returns the seconds spent compiling and timing.
fn run_stage(
    (iree, tools): (&Iree, &Tools),
    (searches, work): (&[Search], &[Work]),
    stage: &StageRun<'_>,
    (journal, records): (&mut Journal, &mut Vec<(Record, bool)>),
    clock: &mut Clock,
    progress: Progress<'_>,
) -> Result<(f64, f64), String> {
    let (mut compile, mut time) = (0.0, 0.0);
    let batch = (stage.options.jobs * 2).max(2);
    let total = work.len();
    let stage_started = Instant::now();
    let word = match stage.stage {
        Stage::Screen => "screen",
        Stage::Confirm | Stage::Model => "confirm",
    };
    for (index, chunk) in work.chunks(batch).enumerate() {
        if !clock.allows(stage.until) {
            break;
        }
        let done = index * batch;
        let eta = (done > 0).then(|| {
            let per = stage_started.elapsed().as_secs_f64() / done as f64;
            let left = per * (total - done) as f64;
            clock
                .left()
                .map_or(left, |budget| left.min(budget.as_secs_f64()))
        });
        let mut options = stage.options.clone();
        if stage.stage == Stage::Confirm {
            // Each comparison gets its share of what is left.
            options.budget = clock
                .left()
                .map(|left| left / u32::try_from(total - done).unwrap_or(u32::MAX).max(1));
        }
        let cases: Vec<Case> = chunk.iter().map(|&work| case_of(searches, work)).collect();
        let batch_started = Instant::now();
        let compiled_at = std::sync::Mutex::new(None::<Instant>);
        let line = |inner: &str| {
            if inner.starts_with("compiled ") {
                if let Ok(mut at) = compiled_at.lock() {
                    *at = Some(Instant::now());
                }
            }
            if inner.is_empty() {
                return;
            }
            let eta = eta.map_or(String::new(), |eta| format!(", ETA {}", eta_words(eta)));
            progress(&format!(
                "{word} {}-{}/{total}{eta}: {inner}",
                done + 1,
                done + chunk.len()
            ));
        };
        let rows = bench::run(iree, tools, &cases, &options, &line)?;
        let finished = Instant::now();
        let compiled = compiled_at.into_inner().ok().flatten().unwrap_or(finished);
        compile += (compiled - batch_started).as_secs_f64();
        time += (finished - compiled).as_secs_f64();
        for (&(s, c), case) in chunk.iter().zip(&cases) {
            let Some(row) = rows.iter().find(|row| row.case == case.name) else {
                continue;
            };
            let search = &searches[s];
            let knobs = &search.candidates[c].0.knobs;
            let record = record_of((&search.dispatch.key, knobs), c, stage.stage, row);
            // A failure other than the candidate's compile (a run that crashed or timed out,
            // a tool that did not start) is reported but not journaled: the next run tries
            // the candidate again.
            if !transient(&record) {
                journal.append(&record)?;
            }
            records.push((record, false));
        }
    }
    Ok((compile, time))
}

/// The bench case of a candidate: the dispatch's payload with the candidate's spec.
fn case_of(searches: &[Search], (s, c): Work) -> Case {
    let search = &searches[s];
    let (candidate, spec) = &search.candidates[c];
    let name = format!("{} #{}", search.dispatch.key, candidate.index);
    Case {
        id: name.clone(),
        name,
        payload: search.payload.clone().into_bytes(),
        library: spec.clone(),
        function: Some(search.function.clone()),
        matcher: None,
        located_library: None,
    }
}

/// Whether a record is a failure that another run may not repeat: not journaled.
fn transient(record: &Record) -> bool {
    record.status == Status::Failed && record.compiled
}

/// The journal's record of a candidate's row (the candidate of its dispatch's key, with its
/// knobs).
fn record_of((key, knobs): (&str, &str), candidate: usize, stage: Stage, row: &Row) -> Record {
    let message = row.message.clone();
    // bench's words for a candidate iree-compile would not compile (attaching the spec, which
    // tunespec verified, fails only when IREE's worker does: another run may succeed).
    let compiled = !(row.status == Status::Failed
        && message
            .as_deref()
            .is_some_and(|message| message.starts_with("compiling with the library")));
    Record {
        dispatch: key.to_string(),
        candidate,
        knobs: knobs.to_string(),
        stage,
        compiled,
        status: row.status,
        message,
        max_abs_diff: row.outputs.as_ref().map(|outputs| outputs.max_abs_diff),
        timing: row.timing.clone(),
        function: None,
    }
}

/// The candidates of a search confirmed with full rounds: those the screen timed with outputs
/// equal and a ratio below 1 (IREE's own config, candidate 0, is the baseline, not a
/// candidate to confirm), lowest ratio first, at most a quarter of those screened (at least
/// one) and [`MOST_SURVIVORS`].
fn survivors(
    key: &str,
    candidates: &[(Candidate, String)],
    records: &[(Record, bool)],
) -> Vec<usize> {
    let mut timed: Vec<(f64, usize)> = Vec::new();
    let mut screened = 0usize;
    for (candidate, _) in candidates {
        let Some((record, _)) = report::find(records, key, &candidate.knobs, Stage::Screen) else {
            continue;
        };
        screened += 1;
        let ratio = record.timing.as_ref().map(|timing| timing.ratio);
        let usable = matches!(
            record.status,
            Status::Faster | Status::NoDifference | Status::Slower
        );
        if let (Some(ratio), true, false) = (ratio, usable, candidate.index == 0) {
            if ratio < 1.0 {
                timed.push((ratio, candidate.index));
            }
        }
    }
    timed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let most = screened.div_ceil(4).clamp(1, MOST_SURVIVORS);
    timed
        .into_iter()
        .take(most)
        .map(|(_, index)| index)
        .collect()
}

/// A search's report: every candidate with its stages, and the winner.
fn dispatch_report(search: &Searched, records: &[(Record, bool)]) -> DispatchReport {
    let key = &search.key;
    let outcome = |knobs: &str, stage| {
        report::find(records, key, knobs, stage)
            .map(|(record, journaled)| (record.compiled, Outcome::of(record, *journaled)))
    };
    let winner = winner(key, &search.candidates, records);
    let candidates: Vec<CandidateReport> = search
        .candidates
        .iter()
        .map(|(candidate, _)| {
            let screen = outcome(&candidate.knobs, Stage::Screen);
            let confirm = outcome(&candidate.knobs, Stage::Confirm).map(|(_, outcome)| outcome);
            let compiled = screen.as_ref().map(|(compiled, _)| *compiled);
            let screen = screen.map(|(_, outcome)| outcome);
            CandidateReport {
                index: candidate.index,
                knobs: candidate.knobs.clone(),
                lowering_config: candidate.lowering_config.clone(),
                compiled,
                verdict: report::verdict(
                    compiled,
                    screen.as_ref(),
                    confirm.as_ref(),
                    winner == Some(candidate.index),
                ),
                screen,
                confirm,
            }
        })
        .collect();
    DispatchReport {
        key: key.clone(),
        functions: search.functions.clone(),
        matcher: search.matcher.clone(),
        compiled: candidates
            .iter()
            .filter(|candidate| candidate.compiled == Some(true))
            .count(),
        candidates,
        winner,
        share: None,
    }
}

/// The winner of a search: of the candidates whose confirmation the rule called faster than
/// IREE's own, the lowest ratio (ties: the lower number); `None` when none was.
fn winner(
    key: &str,
    candidates: &[(Candidate, String)],
    records: &[(Record, bool)],
) -> Option<usize> {
    candidates
        .iter()
        .filter_map(|(candidate, _)| {
            let (record, _) = report::find(records, key, &candidate.knobs, Stage::Confirm)?;
            let ratio = record.timing.as_ref()?.ratio;
            (record.status == Status::Faster).then_some((ratio, candidate.index))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, index)| index)
}

/// Whether the dispatch `key` is in shard `index` of `count` (1-based): BLAKE3 of the key, mod
/// `count`, as `bench --shard` splits cases (disjoint shards that cover everything, whatever
/// the order or the other dispatches).
pub fn in_shard(key: &str, index: u32, count: u32) -> bool {
    let hash = blake3::hash(key.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    count > 0 && u64::from_le_bytes(first) % u64::from(count) == u64::from(index.saturating_sub(1))
}

/// Seconds as a short duration: `45s`, `3m05s`, `1h02m`.
pub fn eta_words(seconds: f64) -> String {
    let seconds = seconds.max(0.0).round() as u64;
    match seconds {
        0..=59 => format!("{seconds}s"),
        60..=3599 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds / 60 % 60),
    }
}

/// Where the library is written in the output directory.
pub fn library_dir(output: &Path) -> PathBuf {
    output.join("library")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::stats::{self, Rule};

    const KEY: &str = "matmul 8x8x8 f32*f32->f32";

    fn candidates(count: usize) -> Vec<(Candidate, String)> {
        (0..count)
            .map(|index| {
                let candidate = Candidate {
                    index,
                    knobs: format!("k{index}"),
                    lowering_config: String::new(),
                    translation_info: None,
                };
                (candidate, String::new())
            })
            .collect()
    }

    /// A record of candidate `index` at `stage` whose rounds are `factor` times IREE's.
    fn record(index: usize, stage: Stage, factor: f64, status: Status) -> (Record, bool) {
        let rounds: Vec<stats::Round> = (0..8)
            .map(|i| {
                (
                    vec![100.0 + f64::from(i)],
                    vec![(100.0 + f64::from(i)) * factor],
                )
            })
            .collect();
        let timing = stats::compare_rounds(&rounds, Rule::default(), 0.01);
        let record = Record {
            dispatch: KEY.to_string(),
            candidate: index,
            knobs: format!("k{index}"),
            stage,
            compiled: true,
            status,
            message: None,
            max_abs_diff: Some(0.0),
            timing: Some(timing),
            function: None,
        };
        (record, false)
    }

    #[test]
    fn the_screens_best_below_one_survive_at_most_a_quarter_and_never_irees_own() {
        let all = candidates(9);
        let records = vec![
            record(0, Stage::Screen, 0.5, Status::Faster),
            record(1, Stage::Screen, 0.9, Status::Faster),
            record(2, Stage::Screen, 1.2, Status::Slower),
            record(3, Stage::Screen, 0.7, Status::NoDifference),
            record(4, Stage::Screen, 0.6, Status::WrongOutput),
            record(5, Stage::Screen, 0.8, Status::Faster),
            record(6, Stage::Screen, 1.0, Status::NoDifference),
            record(7, Stage::Screen, 0.95, Status::Faster),
            record(8, Stage::Screen, 0.99, Status::Faster),
        ];
        // 9 screened: a quarter is 3; IREE's own (0) and a wrong output (4) never survive.
        assert_eq!(survivors(KEY, &all, &records), vec![3, 5, 1]);
        // Nothing screened yet: nothing survives.
        assert!(survivors(KEY, &all, &[]).is_empty());
    }

    #[test]
    fn shards_split_the_dispatches_disjointly_and_cover_them_all() {
        let keys: Vec<String> = (1..=40)
            .map(|size| format!("matmul {size}x{size}x{size} f32*f32->f32"))
            .collect();
        for key in &keys {
            let owners: Vec<u32> = (1..=3).filter(|&k| in_shard(key, k, 3)).collect();
            assert_eq!(owners.len(), 1, "{key}: {owners:?}");
            assert!(in_shard(key, 1, 1));
        }
        assert!((1..=3).all(|k| keys.iter().any(|key| in_shard(key, k, 3))));
    }

    #[test]
    fn only_a_failure_other_than_the_compile_is_retried_by_the_next_run() {
        let (mut record, _) = record(1, Stage::Screen, 0.5, Status::Faster);
        assert!(!transient(&record));
        record.status = Status::Failed;
        assert!(transient(&record), "a run that failed is tried again");
        record.compiled = false;
        assert!(!transient(&record), "a compile that failed stays failed");
    }

    #[test]
    fn the_winner_is_the_lowest_ratio_the_rule_called_faster() {
        let all = candidates(4);
        let mut records = vec![
            record(1, Stage::Confirm, 0.8, Status::Faster),
            record(2, Stage::Confirm, 0.7, Status::NoDifference),
            record(3, Stage::Confirm, 0.75, Status::Faster),
        ];
        assert_eq!(winner(KEY, &all, &records), Some(3));
        records.retain(|(record, _)| record.candidate == 2);
        assert_eq!(winner(KEY, &all, &records), None);
    }
}
