//! `tunespec bench`: a library's configs timed against IREE's own on the user's device, with
//! the user's IREE (its `iree-compile` and the `iree-base-runtime` tools beside it).
//!
//! Each case is a payload (a model, or the payload `check` builds for one matcher) and the
//! library to attach to it. Per case:
//! 1. compile twice (in parallel over cases, `jobs`): the payload as given (IREE's own configs)
//!    and with the library attached as `iree_codegen.tuning_spec_mlirbc` (the one way a spec
//!    reaches IREE's compile on every backend: IREE 3.13 ignores
//!    `--iree-codegen-tuning-spec-path` on CUDA), each dispatch dumped as a benchmark module;
//! 2. the dumps compared: a case whose dispatches all carry the same configs either way is
//!    `unchanged` (nothing to time);
//! 3. run both once on the same pseudo-random inputs and compare the outputs (a config that is
//!    faster but wrong never wins);
//! 4. time both, one at a time, interleaved (A B, then B A, ...): `rounds` rounds, each run
//!    `repetitions` repetitions after a warm-up, judged by [`stats::compare_rounds`] on the
//!    paired rounds; unsettled, more rounds (doubling, up to `max_rounds`, within `budget`),
//!    each look at `alpha` over the number of looks; with `dispatches`, each dispatch whose
//!    config changed is timed alone the same way.
//!
//! Nothing here prints; progress goes through a callback, results are values.

pub mod data;
pub mod decide;
pub mod execute;
pub mod measured;
pub mod ops;
pub mod plan;
pub mod standalone;
pub mod stats;
mod timing;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::device::Device;
use crate::iree::runtime::Tools;
use crate::iree::Iree;
use data::Tolerance;
use stats::{Comparison, Rule, Verdict};

/// What to bench: one payload and the library its tuned variant gets.
#[derive(Clone, Debug)]
pub struct Case {
    /// A stable identity (a matcher's key with its target, or the payload's name): the order of
    /// reports and the share of `--shard`.
    pub id: String,
    /// What reports call it.
    pub name: String,
    /// The payload as read (MLIR text or bytecode; any dialect IREE reads).
    pub payload: Vec<u8>,
    /// The library (spec text) attached for the tuned variant.
    pub library: String,
    /// The function to time; `None`: the module's one exported function.
    pub function: Option<String>,
    /// The matcher this case was built for, if any.
    pub matcher: Option<MatcherCase>,
    /// The library as linked for this process (bytecode), its locations naming the user's spec
    /// files: what finds the matcher (file:line) of each row's ops ([`ops`]). `None`: a
    /// matcher case's ops are found with `library` and located by [`MatcherCase::location`];
    /// other cases' are not described.
    pub located_library: Option<Vec<u8>>,
}

/// A case built from one matcher of a library.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct MatcherCase {
    /// The spec file it is in.
    pub file: String,
    /// Its name.
    pub name: String,
    /// Its key, for merging measured entries.
    pub key: crate::link::MatcherKey,
    /// The target it is measured for.
    pub target: String,
    /// Where it is written (`file:line:col`), when known.
    pub location: Option<String>,
}

impl Options {
    /// Every device that times: `device`, then `also`.
    pub fn devices(&self) -> Vec<Device> {
        std::iter::once(self.device.clone())
            .chain(self.also.iter().cloned())
            .collect()
    }

    /// The device results are reported and recorded for: `device`, or its driver when `also`
    /// names more devices (`cuda` for `cuda://0` and `cuda://1`: one model's devices; which
    /// slot timed a case says nothing of the config).
    pub fn reported_device(&self) -> Device {
        if self.also.is_empty() {
            self.device.clone()
        } else {
            self.device.driver()
        }
    }
}

/// How to bench.
#[derive(Clone, Debug)]
pub struct Options {
    /// The runtime's device (`local-task`, `cuda`, `hip`, `vulkan`, `cuda://1`).
    pub device: Device,
    /// More devices of the same driver timed at once (`--device` repeated: `cuda://0 --device
    /// cuda://1`), one worker each ([`execute::time_plan_on`]); empty for one device.
    pub also: Vec<Device>,
    /// iree-compile's flags (target device and backend).
    pub flags: Vec<String>,
    /// Compiles at once.
    pub jobs: usize,
    /// Interleaved rounds before the first look.
    pub rounds: u32,
    /// The most rounds a comparison may take to settle.
    pub max_rounds: u32,
    /// The most time one comparison's timing may take before it stops adding rounds.
    pub budget: Option<Duration>,
    /// Repetitions per run.
    pub repetitions: u32,
    /// Seconds of warm-up and the least time of each repetition.
    pub min_time: f64,
    /// When a difference counts.
    pub rule: Rule,
    /// Output tolerance (default: per element type, [`Tolerance::for_element`]).
    pub tolerance: Option<Tolerance>,
    /// Also time each changed dispatch alone.
    pub dispatches: bool,
    /// Time a case whose configs the library leaves unchanged too: IREE's config against
    /// itself, the A/A check of the decision rule (`tools/bench-calibrate`).
    pub time_unchanged: bool,
    /// Where to keep the artifacts (vmfbs, inputs, dumps); `None`: a temporary directory.
    pub keep: Option<PathBuf>,
    /// Time limit of one compile.
    pub compile_timeout: Duration,
    /// Time limit of one run.
    pub run_timeout: Duration,
}

/// A row's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Faster than IREE's own config, beyond the noise.
    Faster,
    /// Slower than IREE's own config, beyond the noise.
    Slower,
    /// No difference beyond the noise: not worth shipping.
    NoDifference,
    /// The library changes no config of this payload.
    Unchanged,
    /// The outputs differ from IREE's own config's beyond the tolerance.
    WrongOutput,
    /// A compile or a run failed.
    Failed,
}

impl Status {
    /// The words of reports.
    pub fn words(self) -> &'static str {
        match self {
            Status::Faster => "faster",
            Status::Slower => "slower",
            Status::NoDifference => "no difference",
            Status::Unchanged => "unchanged",
            Status::WrongOutput => "wrong output",
            Status::Failed => "failed",
        }
    }

    fn of(verdict: Verdict) -> Status {
        match verdict {
            Verdict::Faster => Status::Faster,
            Verdict::Slower => Status::Slower,
            Verdict::NoDifference => Status::NoDifference,
        }
    }
}

/// The output check of a row.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct OutputCheck {
    /// Whether every output is within the tolerance.
    pub ok: bool,
    /// The largest absolute difference over all outputs.
    pub max_abs_diff: f64,
    /// The first element out of tolerance: output, index, IREE's value, the library's value.
    pub first_mismatch: Option<(usize, u64, f64, f64)>,
    /// The tolerances used, per output.
    pub tolerances: Vec<Tolerance>,
}

/// One timed payload function or dispatch.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The case (model or matcher) it belongs to.
    pub case: String,
    /// `function` (the whole payload function) or `dispatch` (one dispatch alone).
    pub kind: &'static str,
    /// The function or dispatch.
    pub name: String,
    /// The matcher the case was built for.
    pub matcher: Option<String>,
    /// The outcome.
    pub status: Status,
    /// Why (failures, unchanged, wrong outputs).
    pub message: Option<String>,
    /// The timing comparison, when timed.
    pub timing: Option<Comparison>,
    /// The output comparison (function rows).
    pub outputs: Option<OutputCheck>,
    /// Every sample, microseconds: IREE's config's, then the library's.
    pub samples_us: Option<(Vec<f64>, Vec<f64>)>,
    /// What the row measured: the ops the library configured in it (a dispatch row: its
    /// dispatch's; a function row: its function's dispatches'), each with its loops, element
    /// types and the matcher (spec file:line) that configured it, as `explain` finds them in
    /// IREE's dispatches. Empty when the library configured nothing or they could not be read.
    pub ops: Vec<ops::RowOp>,
}

impl Row {
    /// A row of case `case` (built for `matcher`), failed until timed.
    fn named(case: &str, matcher: Option<&MatcherCase>, kind: &'static str, name: String) -> Row {
        Row {
            case: case.to_string(),
            kind,
            name,
            matcher: matcher.map(|m| m.name.clone()),
            status: Status::Failed,
            message: None,
            timing: None,
            outputs: None,
            samples_us: None,
            ops: Vec::new(),
        }
    }

    fn failed(mut self, message: impl Into<String>) -> Row {
        self.status = Status::Failed;
        self.message = Some(message.into());
        self
    }
}

/// A progress callback: one line per step.
pub type Progress<'a> = &'a (dyn Fn(&str) + Sync);

/// The name every work directory of process `pid` starts with (in the system's temporary
/// directory): the pid lets an interrupted run's directories be found by the process's own
/// signal handler ([`remove_work_dirs_of`]) and, after a kill nothing could catch, by the next
/// run ([`sweep_orphaned_work_dirs`]).
pub fn work_dir_prefix(pid: u32) -> String {
    format!("tunespec-bench-{pid}-")
}

/// Removes the work directories of process `pid` under `temp` (what an interrupted run leaves).
pub fn remove_work_dirs_of(temp: &Path, pid: u32) {
    let prefix = work_dir_prefix(pid);
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Removes this user's work directories under `temp` whose process no longer runs (killed
/// before it could clean up).
fn sweep_orphaned_work_dirs(temp: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("tunespec-bench-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let mine = std::fs::symlink_metadata(entry.path())
            .is_ok_and(|meta| meta.is_dir() && meta.uid() == crate::files::euid());
        if mine && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Benches every case: compiles in parallel, runs one at a time. One row per case's function,
/// and with `dispatches` one per changed dispatch; a failure is a failed row, never an abort.
///
/// The three phases a split bench runs on different machines, here in one: the plan is made in
/// `options.keep` (else a temporary directory), timed, and decided: one machine's verdicts are
/// those of the same plan timed elsewhere.
pub fn run(
    iree: &Iree,
    tools: &Tools,
    cases: &[Case],
    options: &Options,
    progress: Progress<'_>,
) -> Result<Vec<Row>, String> {
    run_phases((iree, tools), cases, options, None, progress).map(|(_, decided)| decided.rows)
}

/// [`run`], with what `--write` needs recorded in the plan (`write`), returning the plan and
/// its decision.
pub fn run_phases(
    (iree, tools): (&Iree, &Tools),
    cases: &[Case],
    options: &Options,
    write: Option<plan::WriteContext>,
    progress: Progress<'_>,
) -> Result<(plan::Plan, decide::Decided), String> {
    sweep_orphaned_work_dirs(&std::env::temp_dir());
    let temporary = tempfile::Builder::new()
        .prefix(&work_dir_prefix(std::process::id()))
        .tempdir()
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let root = match &options.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
            // A kept directory's earlier results are of earlier modules.
            let _ = std::fs::remove_dir_all(dir.join(execute::RESULTS_DIR));
            dir.clone()
        }
        None => temporary.path().to_path_buf(),
    };
    let mut plan = plan::make(iree, &tools.compile, cases, options, &root, progress);
    plan.write = write;
    plan.save(&root)?;
    let selection = execute::Selection::bench(None);
    execute::time_plan_on(tools, (&plan, &root), options, selection, progress)?;
    let decided = decide::decide(&plan, &root)?;
    drop(temporary);
    Ok((plan, decided))
}

pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).trim().to_string()
}

/// Whether the case `id` falls in shard `index` of `count` (1-based): its identity hashed
/// (BLAKE3, mod `count`), so shards are disjoint, cover everything, and depend neither on the
/// order nor on which other cases exist.
pub fn in_shard(id: &str, index: u32, count: u32) -> bool {
    let hash = blake3::hash(id.as_bytes());
    let value = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
    value % u64::from(count) == u64::from(index - 1)
}

/// Whether the case `id` falls to device `index` of `count` (1-based) when several devices
/// time one share at once: its identity hashed with a salt of its own, so that a device's part
/// does not follow the shards (with the shards' hash, two shards and two devices would leave
/// one device idle), and a resumed run gives each case the device it had.
pub fn in_part(id: &str, index: u32, count: u32) -> bool {
    in_shard(&format!("device part\0{id}"), index, count)
}

/// The share of `cases` shard `index` of `count` (1-based) takes: those whose identity hashes
/// to it (BLAKE3 of the id, mod `count`), so shards are disjoint, cover everything, and do not
/// depend on the order or on which other cases exist.
pub fn shard(cases: Vec<Case>, index: u32, count: u32) -> Vec<Case> {
    cases
        .into_iter()
        .filter(|case| in_shard(&case.id, index, count))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str) -> Case {
        Case {
            id: id.to_string(),
            name: id.to_string(),
            payload: Vec::new(),
            library: String::new(),
            function: None,
            matcher: None,
            located_library: None,
        }
    }

    #[test]
    fn shards_are_disjoint_cover_everything_and_ignore_order() {
        let cases: Vec<Case> = (0..200).map(|i| case(&format!("key{i}"))).collect();
        let mut seen: Vec<String> = Vec::new();
        for index in 1..=3 {
            let share = shard(cases.clone(), index, 3);
            assert!(!share.is_empty());
            let mut reversed = cases.clone();
            reversed.reverse();
            let mut again: Vec<String> = shard(reversed, index, 3)
                .into_iter()
                .map(|c| c.id)
                .collect();
            again.sort();
            let mut ids: Vec<String> = share.into_iter().map(|c| c.id).collect();
            ids.sort();
            assert_eq!(ids, again);
            seen.extend(ids);
        }
        seen.sort();
        let mut all: Vec<String> = cases.into_iter().map(|c| c.id).collect();
        all.sort();
        assert_eq!(seen, all);
    }
}
