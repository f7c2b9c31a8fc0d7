//! `tunespec check`: every matcher of spec files and spec libraries re-checked against the IREE
//! in use, one by one: (a) the spec parses in IREE, (b) the matcher takes effect on a payload
//! built from its key (IREE's configuration phase puts the matcher's config on the dispatch),
//! (c) the full compile with the spec succeeds, (d) a measurement recorded with another IREE
//! version is flagged, (e) a `match.attention` matcher is warned about (IREE 3.13's dispatches
//! hold `online_attention`).
//!
//! Why per matcher against the installed IREE: specs are written for one IREE and silently go
//! stale with the next (syntax changes, ops renamed, configs that no longer compile); only that
//! IREE can say, and only a payload of the matcher's own shape shows that it still applies.
//!
//! Nothing here prints or writes files; the CLI (`src/cli/check.rs`) does, `--fix` included.

mod compare;
mod fields;
pub mod payload;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ir;
use crate::iree::{self, Failure, Iree};
use crate::manifest;
use crate::measured::tuner_import::{self, KeyedMatcher};

pub use payload::MatcherInfo;

/// The phase whose dispatches carry their configs (step b).
pub const CONFIG_PHASE: &str = "executable-configurations";
/// The phase of the full compile (step c): IREE's whole pipeline, the VM module a `.vmfb` is
/// written from (the serialization itself is not run: nothing is written).
pub const FULL_PHASE: &str = "end";

/// A spec file to check: its path, the name reports give it, the target it is registered for
/// (its library's manifest), and its text.
#[derive(Clone, Debug)]
pub struct SpecFile {
    /// Where it is.
    pub path: PathBuf,
    /// What reports call it.
    pub name: String,
    /// The target its library registers it for, if any.
    pub target: Option<String>,
    /// Its text.
    pub text: String,
}

/// The matchers of a spec that match a root op, with their keys. The one place `check` keys a
/// matcher: `tuner_import`'s key for now (swap in the richer key module here).
pub fn matcher_keys(module: &ir::Module) -> Vec<KeyedMatcher> {
    tuner_import::keyed_matchers(module)
}

/// The spec files under `paths`: a file as it is; a directory's `*.mlir` files (sorted, walked
/// recursively); in a spec library (a directory with `registry.toml`) each file gets the target
/// whose `[targets.T]` or `[extend.T]` specs list it.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<SpecFile>, String> {
    let mut files = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).map_err(|error| format!("{}: {error}", path.display()))?;
        if meta.is_file() {
            files.push(read_spec(path, None)?);
            continue;
        }
        let listing = library_targets(path)?;
        let mut found: Vec<PathBuf> = walkdir::WalkDir::new(path)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| entry.into_path())
            .filter(|file| file.extension().is_some_and(|ext| ext == "mlir"))
            .collect();
        found.sort();
        if found.is_empty() {
            return Err(format!("{}: no *.mlir spec below it", path.display()));
        }
        for file in found {
            let relative = file.strip_prefix(path).unwrap_or(&file);
            let relative = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let target = target_of(&listing, &relative);
            files.push(read_spec(&file, target)?);
        }
    }
    Ok(files)
}

fn read_spec(path: &Path, target: Option<String>) -> Result<SpecFile, String> {
    let bytes =
        crate::files::read_input(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "{}: not UTF-8 text (bytecode specs are not checked)",
            path.display()
        )
    })?;
    Ok(SpecFile {
        path: path.to_path_buf(),
        name: path.display().to_string(),
        target,
        text,
    })
}

/// `(target, glob of its spec paths)` of a library's `registry.toml`, `[targets.*]` then
/// `[extend.*]`; empty without one. The manifest is read as an input (`files`) and parsed by the
/// manifest module; its globs are matched by [`manifest::glob_match`], the registry's one glob
/// rule, so `check` gives a spec the target `resolve` and `link` give it.
fn library_targets(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let path = dir.join("registry.toml");
    let text = match crate::files::read_input_text(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(format!(
                "{}: {}",
                path.display(),
                crate::problem::io_message(&error)
            ))
        }
    };
    let name = path.display().to_string();
    let parsed = manifest::parse(&text, &name).map_err(|problems| manifest::one_line(&problems))?;
    Ok(parsed
        .listed_specs()
        .map(|(_, target, spec)| (target.to_string(), spec.path.clone()))
        .collect())
}

/// The target of `relative` (a `/`-separated path below the library): the first listing whose
/// glob matches it.
fn target_of(listing: &[(String, String)], relative: &str) -> Option<String> {
    listing
        .iter()
        .find(|(_, pattern)| manifest::glob_match(pattern, relative))
        .map(|(target, _)| target.clone())
}

/// How one step went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It held.
    Ok,
    /// It did not (the matcher fails).
    Failed,
    /// Not run (an earlier step failed, or it cannot be run for this matcher: `message` says).
    Skipped,
}

/// One step's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// How it went.
    pub status: Status,
    /// Why (failures, skips), or what was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Step {
    fn ok() -> Step {
        Step {
            status: Status::Ok,
            message: None,
        }
    }
    fn failed(message: impl Into<String>) -> Step {
        Step {
            status: Status::Failed,
            message: Some(message.into()),
        }
    }
    fn skipped(message: impl Into<String>) -> Step {
        Step {
            status: Status::Skipped,
            message: Some(message.into()),
        }
    }
}

/// The outcome for one matcher.
#[derive(Clone, Debug, Serialize)]
pub struct MatcherReport {
    /// The spec file.
    pub file: String,
    /// The matcher's symbol name.
    pub matcher: String,
    /// Where it is defined.
    pub line: u32,
    /// Its column.
    pub col: u32,
    /// Its root op kind (`contraction`, ...).
    pub kind: String,
    /// Its key (what it matches).
    pub key: String,
    /// The target it was compiled for.
    pub target: Option<String>,
    /// (a) the spec parses in IREE.
    pub parse: Step,
    /// (b) the matcher's config is on the payload's dispatch.
    pub effect: Step,
    /// (c) the full compile succeeds.
    pub compile: Step,
    /// (d) the IREE version of its measurement, if recorded.
    pub recorded_iree: Option<String>,
    /// (d, e) warnings: another IREE version, `match.attention`.
    pub warnings: Vec<String>,
    /// Whether no step failed.
    pub ok: bool,
    /// `check --bench`: the measured entry re-measured on the device (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<Performance>,
}

/// A measured entry re-measured with the installed IREE (`check --bench`): whether it still
/// beats IREE's own config.
#[derive(Clone, Debug, Serialize)]
pub struct Performance {
    /// The runtime's device.
    pub device: String,
    /// `faster`, `slower`, `no-difference`, `unchanged`, `wrong-output` or `failed`.
    pub status: crate::bench::Status,
    /// The library's median over IREE's, now.
    pub ratio: Option<f64>,
    /// The speedup its measurement recorded.
    pub recorded_speedup: Option<f64>,
    /// Why, for a status that is not `faster`.
    pub message: Option<String>,
}

/// What `check` needs besides the files.
pub struct Options<'a> {
    /// The IREE in use.
    pub iree: &'a Iree,
    /// A target for every file (else each file's library target).
    pub target: Option<String>,
    /// IREE compiles at once.
    pub jobs: usize,
    /// IREE's session flags for a target (`None`: not one IREE compiles for). The CLI's answers
    /// come from the registry with the checked libraries (a library may define a CPU target).
    pub flags_for: &'a (dyn Fn(&str) -> Option<Vec<String>> + Sync),
}

/// A matcher found in a file: its key, what it matches, its recorded measurement.
pub type FoundMatcher = (
    KeyedMatcher,
    Option<MatcherInfo>,
    Option<tuner_import::Measurement>,
);

/// A file's matchers, as tunespec reads them; `Err` when tunespec cannot read the file at all.
pub fn matchers_of(mlir: &crate::mlir::Mlir, file: &SpecFile) -> Result<Vec<FoundMatcher>, String> {
    let verified = crate::verify::verify_bytes(mlir, file.text.as_bytes(), &file.name);
    let Some(module) = verified.snapshot.as_ref() else {
        let first = verified
            .problems
            .iter()
            .find(|problem| problem.is_error())
            .map_or_else(
                || "does not parse".to_string(),
                |problem| problem.message.clone(),
            );
        return Err(first);
    };
    Ok(matcher_keys(module)
        .into_iter()
        .map(|keyed| {
            let info = payload::matcher_info(module, &file.text, &keyed.name);
            let measurement = tuner_import::recorded_measurement(module, &keyed.name);
            (keyed, info, measurement)
        })
        .collect())
}

/// One matcher to check.
pub struct Job<'a> {
    /// Its file.
    pub file: &'a SpecFile,
    /// Its key.
    pub keyed: KeyedMatcher,
    /// What it matches (`None`: no root match op tunespec reads).
    pub info: Option<MatcherInfo>,
    /// Its recorded measurement.
    pub measurement: Option<tuner_import::Measurement>,
}

/// Checks every job: the parse of each file once, then each matcher's effect and compile.
pub fn check(jobs: &[Job<'_>], options: &Options<'_>) -> Vec<MatcherReport> {
    // (a) once per file.
    let mut files: Vec<&SpecFile> = Vec::new();
    for job in jobs {
        if !files.iter().any(|file| std::ptr::eq(*file, job.file)) {
            files.push(job.file);
        }
    }
    let parsed: Vec<Step> = crate::jobs::parallel(&files, options.jobs, |file| {
        match options
            .iree
            .reprint(file.text.as_bytes(), &file.name, false)
        {
            Ok(_) => Step::ok(),
            Err(failure) => Step::failed(summary(&failure)),
        }
    });
    crate::jobs::parallel(jobs, options.jobs, |job| {
        let index = files
            .iter()
            .position(|file| std::ptr::eq(*file, job.file))
            .expect("every job's file is listed");
        check_one(job, parsed[index].clone(), options)
    })
}

fn summary(failure: &Failure) -> String {
    let text = failure.summary();
    text.lines().next().unwrap_or(&text).trim().to_string()
}

fn check_one(job: &Job<'_>, parse: Step, options: &Options<'_>) -> MatcherReport {
    let release = iree::release(&options.iree.revision).to_string();
    let mut warnings = Vec::new();
    let loc = job.info.as_ref().and_then(|info| info.loc.clone());
    let kind = job
        .info
        .as_ref()
        .map_or_else(|| job.keyed.key.root.clone(), |info| info.kind.clone());
    if kind == "attention" {
        warnings.push(format!(
            "transform.iree.match.attention: IREE {release} dispatches hold iree_linalg_ext.online_attention, which this matcher never matches; match it with transform.iree.match.online_attention"
        ));
    }
    let recorded_iree = job.measurement.as_ref().map(|m| m.iree.clone());
    if let Some(recorded) = &recorded_iree {
        if recorded == "unknown" {
            warnings.push(
                "its measurement names no IREE version: re-measure to know it still holds"
                    .to_string(),
            );
        } else if iree::release(recorded) != release {
            warnings.push(format!(
                "measured with IREE {recorded}, checked with IREE {release}: the measurement may no longer hold (re-tune)"
            ));
        }
    }
    let target = options.target.clone().or_else(|| job.file.target.clone());
    let mut report = MatcherReport {
        file: job.file.name.clone(),
        matcher: job.keyed.name.clone(),
        line: loc.as_ref().map_or(0, |loc| loc.line),
        col: loc.as_ref().map_or(0, |loc| loc.col),
        kind,
        key: job.keyed.key.to_string(),
        target: target.clone(),
        parse,
        effect: Step::skipped("the spec does not parse in IREE"),
        compile: Step::skipped("the spec does not parse in IREE"),
        recorded_iree,
        warnings,
        ok: false,
        performance: None,
    };
    if report.parse.status == Status::Ok {
        (report.effect, report.compile) = effect_and_compile(job, target.as_deref(), options);
    }
    report.ok = [&report.parse, &report.effect, &report.compile]
        .iter()
        .all(|step| step.status != Status::Failed);
    report
}

/// Why steps (b) and (c) did not run for a spec without a target (step a needs none).
pub const NO_TARGET: &str =
    "needs a target to compile for: give --target (e.g. gfx942), or check a spec library whose registry.toml lists the spec";

/// Steps (b) and (c).
fn effect_and_compile(job: &Job<'_>, target: Option<&str>, options: &Options<'_>) -> (Step, Step) {
    let Some(target) = target else {
        let why = NO_TARGET;
        return (Step::skipped(why), Step::skipped(why));
    };
    let Some(flags) = (options.flags_for)(target) else {
        let why = format!(
            "target {target} is not an architecture IREE compiles for (e.g. gfx942, sm_80)"
        );
        return (Step::failed(why.clone()), Step::failed(why));
    };
    let Some(info) = &job.info else {
        let why = "no root match op tunespec reads: no payload built";
        return (Step::skipped(why), Step::skipped(why));
    };
    let function = payload::function_name(&info.name);
    let source = match payload::payload(info, &function) {
        Ok(source) => source,
        Err(why) => return (Step::skipped(why.clone()), Step::skipped(why)),
    };
    let name = format!("{}.payload.mlir", info.name);
    let library = Some((crate::apply::ATTR_NAME, job.file.text.as_bytes()));
    let effect = match options.iree.executables(
        source.as_bytes(),
        &name,
        &flags,
        (None, CONFIG_PHASE),
        library,
    ) {
        Err(failure) => Step::failed(format!(
            "IREE's configuration failed: {}",
            summary(&failure)
        )),
        Ok((text, _)) => compare::compare(options.iree, info, &String::from_utf8_lossy(&text)),
    };
    // A config that is IREE's own choice shows nothing: said, so an `ok` is not misread.
    let effect = if effect.status == Status::Ok {
        match options
            .iree
            .executables(source.as_bytes(), &name, &flags, (None, CONFIG_PHASE), None)
        {
            Ok((text, _)) if compare::compare(options.iree, info, &String::from_utf8_lossy(&text)).status == Status::Ok => {
                Step {
                    status: Status::Ok,
                    message: Some(
                        "IREE chooses the same config without the spec: the match is not observable"
                            .to_string(),
                    ),
                }
            }
            _ => effect,
        }
    } else {
        effect
    };
    let compile = match options.iree.executables(
        source.as_bytes(),
        &name,
        &flags,
        (None, FULL_PHASE),
        library,
    ) {
        Ok(_) => Step::ok(),
        Err(failure) => Step::failed(format!("IREE's compile failed: {}", summary(&failure))),
    };
    (effect, compile)
}
