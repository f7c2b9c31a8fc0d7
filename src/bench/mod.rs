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
pub mod measured;
pub mod ops;
pub mod standalone;
pub mod stats;
mod timing;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::device::Device;
use crate::iree::runtime::{Call, Tools};
use crate::iree::Iree;
use data::{Agreement, Signature, Tolerance};
use stats::{Comparison, Rule, Verdict};
use timing::{timed, Tracker};

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
#[derive(Clone, Debug)]
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

/// How to bench.
#[derive(Clone, Debug)]
pub struct Options {
    /// The runtime's device (`local-task`, `cuda`, `hip`, `vulkan`, `cuda://1`).
    pub device: Device,
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
#[derive(Clone, Debug, Serialize)]
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
    fn new(case: &Case, kind: &'static str, name: String) -> Row {
        Row {
            case: case.name.clone(),
            kind,
            name,
            matcher: case.matcher.as_ref().map(|m| m.name.clone()),
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

/// A dispatch whose config the library changed: its name, IREE's benchmark module, the
/// library's (sources, then vmfbs once compiled).
type Changed = (String, PathBuf, PathBuf);

/// What a case's compiles gave.
struct Built {
    dir: PathBuf,
    base: PathBuf,
    tuned: PathBuf,
    /// Dispatches whose benchmark modules differ.
    changed: Vec<Changed>,
    /// How many dispatches the payload has.
    dispatch_count: usize,
    /// Each changed dispatch's exported functions, as its dump names them ([`ops::exports`]).
    exports: Vec<(String, Vec<String>)>,
    /// The ops of each dispatch, when the case is timed and described ([`ops::find`]).
    ops: Option<ops::Found>,
}

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
pub fn run(
    iree: &Iree,
    tools: &Tools,
    cases: &[Case],
    options: &Options,
    progress: Progress<'_>,
) -> Result<Vec<Row>, String> {
    sweep_orphaned_work_dirs(&std::env::temp_dir());
    let temporary = tempfile::Builder::new()
        .prefix(&work_dir_prefix(std::process::id()))
        .tempdir()
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let root = match &options.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
            dir.clone()
        }
        None => temporary.path().to_path_buf(),
    };
    let indexed: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let built = crate::jobs::parallel(&indexed, options.jobs, |(index, case)| {
        let result = build(
            iree,
            tools,
            case,
            &root.join(format!("case-{index:04}")),
            options,
        );
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(&format!("compiled {n}/{} ({})", cases.len(), case.name));
        result
    });
    let comparisons = built
        .iter()
        .map(|built| match built {
            Ok(built) if !built.changed.is_empty() || options.time_unchanged => {
                1 + if options.dispatches && built.dispatch_count > 1 {
                    built.changed.len()
                } else {
                    0
                }
            }
            _ => 0,
        })
        .sum();
    let tracker = Tracker::new(progress, comparisons, options.rounds);
    let mut rows = Vec::new();
    for (case, built) in cases.iter().zip(built) {
        match built {
            Err(message) => {
                rows.push(Row::new(case, "function", function_label(case)).failed(message))
            }
            Ok(built) => {
                let mut timed = time_case(tools, case, &built, options, &tracker);
                if let Some(found) = &built.ops {
                    ops::assign(found, &built.exports, &mut timed);
                }
                rows.extend(timed);
            }
        }
    }
    // The progress line is done with (a terminal's line is cleared).
    progress("");
    drop(temporary);
    Ok(rows)
}

fn function_label(case: &Case) -> String {
    case.function.clone().unwrap_or_else(|| "main".to_string())
}

/// Stage 1: the two compiles of a case, and which dispatches changed.
fn build(
    iree: &Iree,
    tools: &Tools,
    case: &Case,
    dir: &Path,
    options: &Options,
) -> Result<Built, String> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let bytecode = case.payload.starts_with(crate::verify::BYTECODE_MAGIC);
    let source = dir.join(if bytecode {
        "payload.mlirbc"
    } else {
        "payload.mlir"
    });
    write(&source, &case.payload)?;
    let attached = iree
        .attach(
            &case.payload,
            &case.name,
            crate::apply::ATTR_NAME,
            case.library.as_bytes(),
            false,
        )
        .map_err(|failure| {
            format!(
                "attaching the library failed: {}",
                first_line(&failure.summary())
            )
        })?;
    let tuned_source = dir.join("tuned.mlir");
    write(&tuned_source, &attached)?;
    let (base, tuned) = (dir.join("iree.vmfb"), dir.join("tuned.vmfb"));
    let (base_dumps, tuned_dumps) = (dir.join("iree-dispatches"), dir.join("tuned-dispatches"));
    tools
        .compile(
            &source,
            &options.flags,
            &base,
            Some(&base_dumps),
            options.compile_timeout,
        )
        .map_err(|error| format!("compiling with IREE's own configs failed: {error}"))?;
    tools
        .compile(
            &tuned_source,
            &options.flags,
            &tuned,
            Some(&tuned_dumps),
            options.compile_timeout,
        )
        .map_err(|error| format!("compiling with the library failed: {error}"))?;
    let (changed, dispatch_count) = changed_dispatches(&base_dumps, &tuned_dumps)?;
    let exports = changed
        .iter()
        .map(|(name, _, tuned)| {
            let dump = std::fs::read_to_string(tuned).unwrap_or_default();
            (name.clone(), ops::exports(&dump))
        })
        .collect();
    let mut built = Built {
        dir: dir.to_path_buf(),
        base,
        tuned,
        changed,
        dispatch_count,
        exports,
        ops: None,
    };
    // Described beside the compiles (in parallel over cases), only when the case is timed.
    if !built.changed.is_empty() || options.time_unchanged {
        built.ops = ops::find(iree, case, &options.flags);
    }
    if options.dispatches && dispatch_count > 1 {
        compile_dispatches(tools, &mut built, options)?;
    }
    Ok(built)
}

/// The dispatches whose benchmark modules differ between the two dumps (sorted by name), and
/// how many there are.
fn changed_dispatches(base: &Path, tuned: &Path) -> Result<(Vec<Changed>, usize), String> {
    let list = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".mlir"))
            .collect();
        names.sort();
        names
    };
    let names = list(base);
    if names != list(tuned) {
        return Err("the two compiles formed different dispatches".to_string());
    }
    let mut changed = Vec::new();
    for name in &names {
        let (a, b) = (base.join(name), tuned.join(name));
        let same = std::fs::read(&a).ok() == std::fs::read(&b).ok();
        if !same {
            let stem = name
                .trim_end_matches(".mlir")
                .trim_end_matches("_benchmark");
            changed.push((stem.to_string(), a, b));
        }
    }
    Ok((changed, names.len()))
}

/// Compiles each changed dispatch's two benchmark modules (in place of their sources).
fn compile_dispatches(tools: &Tools, built: &mut Built, options: &Options) -> Result<(), String> {
    for (name, base, tuned) in &mut built.changed {
        for path in [base, tuned] {
            let vmfb = path.with_extension("vmfb");
            tools
                .compile(path, &options.flags, &vmfb, None, options.compile_timeout)
                .map_err(|error| format!("compiling dispatch {name} failed: {error}"))?;
            *path = vmfb;
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).trim().to_string()
}

/// Stages 3 and 4 for one case: its function rows (the one asked for, else every exported
/// function: a module of several is timed whole, function by function) and its dispatch rows.
fn time_case(
    tools: &Tools,
    case: &Case,
    built: &Built,
    options: &Options,
    progress: &Tracker<'_>,
) -> Vec<Row> {
    let mut row = Row::new(case, "function", function_label(case));
    if built.changed.is_empty() && !options.time_unchanged {
        row.status = Status::Unchanged;
        row.message = Some(format!(
            "the library gives none of its {} dispatch(es) another config than IREE's own",
            built.dispatch_count
        ));
        return vec![row];
    }
    let functions = match functions(tools, &built.base, case.function.as_deref()) {
        Ok(functions) => functions,
        Err(message) => return vec![row.failed(message)],
    };
    progress.add(functions.len().saturating_sub(1));
    let mut rows = Vec::new();
    for (index, (function, signature)) in functions.into_iter().enumerate() {
        let row = Row::new(case, "function", function.clone());
        rows.push(match signature {
            Err(message) => row.failed(message),
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
                time_function(tools, built, options, &called, row, progress)
            }
        });
    }
    if options.dispatches && built.dispatch_count > 1 {
        let wrong = rows.iter().any(|row| row.status == Status::WrongOutput);
        for (name, base, tuned) in &built.changed {
            let mut dispatch = Row::new(case, "dispatch", name.clone());
            let call = |module: &Path| (module.to_path_buf(), None::<String>, Vec::new());
            dispatch = timed(
                tools,
                options,
                (call(base), call(tuned)),
                dispatch,
                progress,
            );
            if wrong && dispatch.status != Status::Failed {
                dispatch.status = Status::WrongOutput;
                dispatch.message = Some("the payload's outputs differ with the library".into());
            }
            rows.push(dispatch);
        }
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

/// A function row: outputs compared, then timed.
fn time_function(
    tools: &Tools,
    built: &Built,
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
        let path = built.dir.join(format!("{prefix}input{index}.bin"));
        if let Err(message) = data::write_input(ty, index, &path) {
            return row.failed(message);
        }
        inputs.push(format!("{}=@{}", ty.runtime_form(), path.display()));
    }
    let mut row = row;
    match check_outputs(tools, built, called, &inputs, options) {
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
    timed(
        tools,
        options,
        (call(&built.base), call(&built.tuned)),
        row,
        progress,
    )
}

/// An exported function: its name, and its signature or why it cannot be read.
type Exported = (String, Result<Signature, String>);

/// The functions to time, from the vmfb's ABI declarations: the one `wanted`, else every
/// exported one (in the module's order), each with its signature or why it cannot be read.
fn functions(tools: &Tools, module: &Path, wanted: Option<&str>) -> Result<Vec<Exported>, String> {
    let declarations = tools.declarations(module)?;
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
    tools: &Tools,
    built: &Built,
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
    for (label, module) in [("iree", &built.base), ("tuned", &built.tuned)] {
        let paths: Vec<PathBuf> = (0..signature.outputs.len())
            .map(|index| built.dir.join(format!("{prefix}{label}-output{index}.bin")))
            .collect();
        let call = Call {
            module,
            device: &options.device,
            function: Some(function),
            inputs,
        };
        tools
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

/// The share of `cases` shard `index` of `count` (1-based) takes: those whose identity hashes
/// to it (BLAKE3 of the id, mod `count`), so shards are disjoint, cover everything, and do not
/// depend on the order or on which other cases exist.
pub fn shard(cases: Vec<Case>, index: u32, count: u32) -> Vec<Case> {
    cases
        .into_iter()
        .filter(|case| {
            let hash = blake3::hash(case.id.as_bytes());
            let value = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
            value % u64::from(count) == u64::from(index - 1)
        })
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
