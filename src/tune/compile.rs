//! `tune --compile-only`: every candidate generated and compiled for the target, none timed.
//! For a GPU target on a machine without that GPU (a CI runner, a workstation): the space IREE
//! declares, what the model chose of it, and whether IREE accepts each choice, before a GPU is
//! spent on it. A candidate counts as accepted only when iree-compile built it AND the config
//! IREE put on the dispatch (`--iree-hal-dump-executable-configurations-to`) is the
//! candidate's, compared attribute by attribute: a spec that compiles but whose matcher missed
//! is "not applied", never "compiled".
//!
//! The candidates' specs are written to `DIR/candidates/<matcher>/<N>_spec.mlir` (the SHARK
//! tuner's layout) beside the dispatch's own payload (`payload.mlir`), so that they can be
//! timed elsewhere with `bench`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::generate::{self, Generated};
use super::gpu::Generation;
use super::{dispatches, Request, Search};
use crate::bench::Progress;
use crate::iree::configs::squash;
use crate::iree::runtime::Tools;
use crate::iree::Iree;

/// What `tune --compile-only` found.
#[derive(Clone, Debug, Serialize)]
pub struct CompileReport {
    /// The report's format version.
    pub version: u32,
    /// The payload's name.
    pub payload: String,
    /// The target.
    pub target: String,
    /// iree-compile's flags.
    pub flags: Vec<String>,
    /// The order candidates were taken in ([`super::report::Report::order`]).
    pub order: String,
    /// Each dispatch's candidates and how their compiles went.
    pub dispatches: Vec<CompiledDispatch>,
    /// Configured ops not tuned: (function, op, why).
    pub skipped: Vec<(String, String, String)>,
    /// What generating each GPU space did.
    pub generation: Vec<Generation>,
    /// Seconds generating (IREE's configs, the solver, IREE's materialization).
    pub generate_s: f64,
    /// Seconds compiling the candidates (wall clock, `--jobs` at once).
    pub compile_s: f64,
}

/// One dispatch's candidates.
#[derive(Clone, Debug, Serialize)]
pub struct CompiledDispatch {
    /// The dispatch's key.
    pub key: String,
    /// The matcher each candidate's spec holds.
    pub matcher: String,
    /// The dispatch functions IREE formed with it.
    pub functions: Vec<String>,
    /// Its candidates, IREE's own first.
    pub candidates: Vec<CompiledCandidate>,
}

/// One candidate's compile.
#[derive(Clone, Debug, Serialize)]
pub struct CompiledCandidate {
    /// The candidate's number (0: IREE's own).
    pub index: usize,
    /// Its knobs in words.
    pub knobs: String,
    /// Its spec, relative to the output directory.
    pub spec: String,
    /// `compiled` (built, with the candidate's config on the dispatch), `not-applied` (built
    /// with another config) or `failed` (iree-compile refused it).
    pub status: &'static str,
    /// Why, when not compiled.
    pub message: Option<String>,
    /// Seconds the compile took.
    pub seconds: f64,
}

/// Generates every dispatch's candidates and compiles each one; writes the specs and
/// `compile-report.json` into the request's output directory.
pub fn compile_only(
    iree: &Iree,
    tools: &Tools,
    request: &Request,
    progress: Progress<'_>,
) -> Result<CompileReport, String> {
    let started = Instant::now();
    progress("reading IREE's configs and constraints");
    let Generated {
        searches,
        skipped,
        generations,
        order,
    } = generate::generate((iree, tools), request)?;
    let generate_s = started.elapsed().as_secs_f64();
    let mut work: Vec<(usize, usize, PathBuf)> = Vec::new();
    for (s, search) in searches.iter().enumerate() {
        let dir = request.output.join("candidates").join(&search.matcher);
        std::fs::create_dir_all(&dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
        // The dispatch's own payload beside its specs: what `bench` times them on elsewhere.
        let payload = dir.join("payload.mlir");
        write_whole(&payload, search.payload.as_bytes())
            .map_err(|error| format!("cannot write {}: {error}", payload.display()))?;
        for (candidate, spec) in &search.candidates {
            let path = dir.join(format!("{}_spec.mlir", candidate.index));
            write_whole(&path, spec.as_bytes())
                .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
            work.push((s, candidate.index, path));
        }
    }
    let temporary = tempfile::Builder::new()
        .prefix(&crate::bench::work_dir_prefix(std::process::id()))
        .tempdir()
        .map_err(|error| format!("cannot create a work directory: {error}"))?;
    let compiled_at = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let outcomes = crate::jobs::parallel(&work, request.options.jobs, |(s, c, _)| {
        let dir = temporary.path().join(format!("dispatch-{s}-candidate-{c}"));
        let outcome = compile_one((iree, tools), request, &searches[*s], *c, &dir);
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(&format!("compiled {n}/{}", work.len()));
        outcome
    });
    let compile_s = compiled_at.elapsed().as_secs_f64();
    progress("");
    let mut reports: Vec<CompiledDispatch> = searches
        .iter()
        .map(|search| CompiledDispatch {
            key: search.dispatch.key.clone(),
            matcher: search.matcher.clone(),
            functions: search.dispatch.functions.clone(),
            candidates: Vec::new(),
        })
        .collect();
    for ((s, c, path), (status, message, seconds)) in work.iter().zip(outcomes) {
        let relative = path.strip_prefix(&request.output).unwrap_or(path);
        reports[*s].candidates.push(CompiledCandidate {
            index: *c,
            knobs: searches[*s].candidates[*c].0.knobs.clone(),
            spec: relative.display().to_string(),
            status,
            message,
            seconds,
        });
    }
    let report = CompileReport {
        version: 1,
        payload: request.name.clone(),
        target: request.target.clone(),
        flags: request.options.flags.clone(),
        order: order.to_string(),
        dispatches: reports,
        skipped: skipped
            .into_iter()
            .map(|s| (s.function, s.op, s.why))
            .collect(),
        generation: generations,
        generate_s,
        compile_s,
    };
    let text = serde_json::to_string_pretty(&report).map_err(|error| error.to_string())?;
    let path = request.output.join("compile-report.json");
    write_whole(&path, format!("{text}\n").as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(report)
}

/// One candidate attached to its dispatch's payload and compiled; its status, message and
/// seconds.
fn compile_one(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
    search: &Search,
    candidate: usize,
    dir: &Path,
) -> (&'static str, Option<String>, f64) {
    let started = Instant::now();
    let result = compile_checked((iree, tools), request, search, candidate, dir);
    let seconds = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(dir);
    match result {
        Ok(None) => ("compiled", None, seconds),
        Ok(Some(why)) => ("not-applied", Some(why), seconds),
        Err(why) => ("failed", Some(why), seconds),
    }
}

/// `Ok(None)`: compiled with the candidate's config; `Ok(Some(why))`: compiled with another.
fn compile_checked(
    (iree, tools): (&Iree, &Tools),
    request: &Request,
    search: &Search,
    candidate: usize,
    dir: &Path,
) -> Result<Option<String>, String> {
    let (chosen, spec) = &search.candidates[candidate];
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    let attached = iree
        .attach(
            search.payload.as_bytes(),
            &search.matcher,
            crate::apply::ATTR_NAME,
            spec.as_bytes(),
            false,
        )
        .map_err(|failure| format!("attaching the spec failed: {}", failure.summary()))?;
    let source = dir.join("candidate.mlir");
    std::fs::write(&source, &attached)
        .map_err(|error| format!("cannot write {}: {error}", source.display()))?;
    let dumps = dir.join("configurations");
    let mut flags = request.options.flags.clone();
    flags.push(format!(
        "--iree-hal-dump-executable-configurations-to={}",
        dumps.display()
    ));
    tools
        .compile(
            &source,
            &flags,
            &dir.join("candidate.vmfb"),
            None,
            request.options.compile_timeout,
        )
        .map_err(|error| first_line(&error))?;
    let mut text = String::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dumps)
        .map_err(|error| format!("IREE dumped no configurations: {error}"))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    names.sort();
    for name in names {
        text.push_str(&std::fs::read_to_string(&name).unwrap_or_default());
    }
    // Every contraction of the dump, whatever its form: the payload is tunespec's own
    // `linalg.generic` of the dispatch's contraction (on llvm-cpu too, where the model's op is
    // named), so the dispatch IREE formed of it is found by its key, not by the op's name.
    let (found, _) = dispatches::read(&text, true);
    let Some(applied) = found.iter().find(|d| d.key == search.dispatch.key) else {
        return Ok(Some("IREE formed no dispatch of this key".to_string()));
    };
    let translation = chosen
        .translation_info
        .as_deref()
        .unwrap_or(&search.dispatch.translation_info);
    if squash(&applied.lowering_config) != squash(&chosen.lowering_config) {
        return Ok(Some(format!(
            "IREE configured the dispatch with {}",
            applied.lowering_config
        )));
    }
    if squash(&applied.translation_info) != squash(translation) {
        return Ok(Some(format!(
            "IREE translated the dispatch with {}",
            applied.translation_info
        )));
    }
    Ok(None)
}

/// The first line of IREE's error that says what went wrong (`error: ...`), else the first.
fn first_line(error: &str) -> String {
    error
        .lines()
        .find(|line| line.contains("error:"))
        .or_else(|| error.lines().next())
        .unwrap_or("iree-compile failed")
        .trim()
        .to_string()
}

/// Writes `bytes` to `path` whole or not at all (a staged file renamed into place).
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut staged = tempfile::NamedTempFile::new_in(dir)?;
    staged.write_all(bytes)?;
    staged
        .persist(path)
        .map(|_| ())
        .map_err(|error| error.error)
}
