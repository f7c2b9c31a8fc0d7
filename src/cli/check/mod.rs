//! `tunespec check PATH...`: every matcher of spec files, directories and spec libraries
//! re-checked against the IREE in use (see `tunespec::spec_check`), and `--fix`: known syntax
//! changes migrated in place, atomically, with a report of each edit. `remeasure.rs`: `check
//! --bench`.

mod remeasure;

use std::path::PathBuf;
use tunespec::settings::Settings;

use serde_json::json;
use tunespec::ir::Loc;
use tunespec::iree_attrs::migrate::{self, Edit};
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::spec_check::{self, Job, MatcherReport, Options, SpecFile, Status};

use super::common::{emit, quiet, render, tool_error, ExitStatus, Format};
use crate::diagnostics::Style;

/// A matcher that failed a step.
pub const FAILED: &str = "tunespec::check::failed";
/// A warning about a matcher (another IREE version, `match.attention`).
pub const WARNING: &str = "tunespec::check::warning";
/// Old syntax `--fix` migrates.
pub const FIXABLE: &str = "tunespec::check::fixable";

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::CHECK)]
pub struct Opts {
    /// Spec files, directories of specs, or spec libraries
    #[arg(required_unless_present = "store", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Check the best entries a shared store holds too, every target's (pulled read-only
    /// beside the cache, where the report's paths point; redis://, file://, s3://, gs://,
    /// azblob://; docs/store.md); with --bench, re-measure them. A store that fails is
    /// exit 2
    #[arg(long, value_name = "URL", conflicts_with = "fix")]
    pub store: Option<String>,
    /// With --store: only the entries whose device identity contains these words (H100,
    /// local-task), as link's --measured-on
    #[arg(long, value_name = "DEVICE", requires = "store")]
    pub measured_on: Option<String>,
    /// The architecture to compile for (e.g. gfx942); default: each spec's library target
    #[arg(long, short)]
    pub target: Option<String>,
    /// Migrate known syntax changes in place (atomic), reporting each edit
    #[arg(long)]
    pub fix: bool,
    /// IREE compiles at once (default: the number of CPUs)
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Re-measure each measured entry with the installed IREE on --device (against IREE's own
    /// config, as `bench` does); one that no longer wins is a warning
    #[arg(long)]
    pub bench: bool,
    /// With --bench: an entry that no longer beats IREE's own config fails the check (exit 1)
    #[arg(long, requires = "bench")]
    pub deny_slower: bool,
    #[command(flatten)]
    pub timing: super::bench::TimingArgs,
    /// Fail (exit 2) when IREE's compiler is not found, instead of reading the specs with
    /// tunespec's own parser and saying what was not checked: for a CI job that means to check
    /// against IREE
    #[arg(long)]
    pub require_iree: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// One edit, found or made.
struct Fix {
    file: String,
    edit: Edit,
    applied: bool,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        // The store's entries are a measured library like any other from here on; the guard
        // keeps a temporary copy (the cache off) until the check is done.
        let (pulled, _guard) = match &self.store {
            Some(url) => {
                let device = self.measured_on.as_deref();
                match crate::cli::store::pull_for_check((settings, &self.paths), url, device) {
                    Ok(Some((dir, guard))) => (Some(dir), guard),
                    Ok(None) if self.paths.is_empty() => return ExitStatus::Ok,
                    Ok(None) => (None, None),
                    Err(status) => return status,
                }
            }
            None => (None, None),
        };
        let all: Vec<PathBuf> = self.paths.iter().chain(&pulled).cloned().collect();
        let mut files = match spec_check::collect(&all) {
            Ok(files) => files,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        // The user's libraries define targets first; the store's pulled library (which may
        // define the same target again: two definitions do not load together) after them.
        let flags_for = |target: &str| {
            super::model::target_flags(settings, target, &self.paths)
                .1
                .or_else(|| {
                    let pulled = pulled.as_ref()?;
                    super::model::target_flags(settings, target, std::slice::from_ref(pulled)).1
                })
        };
        if let Some(target) = &self.target {
            if flags_for(target).is_none() {
                tool_error(format!(
                    "--target {target}: not an architecture IREE compiles for (e.g. gfx942, sm_80)"
                ));
                return ExitStatus::Usage;
            }
        }
        // A spec with no target (none given, none from a library) is still parsed by IREE
        // (step a); steps (b) and (c) are skipped with the reason (see `spec_check`).
        // IREE first: without it nothing is checked, and nothing is written.
        // Without IREE, plain `check` reads what tunespec can and says what it did not check;
        // `--fix` and `--bench` (which IREE checks or runs) and `--require-iree` need it.
        if settings.iree.shared().is_err() && !(self.require_iree || self.fix || self.bench) {
            return self.without_iree(&files);
        }
        let iree = match super::model::iree_in(settings, "tunespec check") {
            Ok(iree) => iree,
            Err(status) => return status,
        };
        let fixes = match fix_files(&mut files, self.fix, iree.release()) {
            Ok(fixes) => fixes,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let mlir = Mlir::new();
        let mut unreadable = Vec::new();
        // Files with no matcher of a root op (a baseline placeholder, a helper library).
        let mut without = Vec::new();
        let mut jobs = Vec::new();
        for file in &files {
            match spec_check::matchers_of(&mlir, file) {
                Ok(matchers) if matchers.is_empty() => without.push(file.name.clone()),
                Ok(matchers) => {
                    for (keyed, info, measurement) in matchers {
                        jobs.push(Job {
                            file,
                            keyed,
                            info,
                            measurement,
                        });
                    }
                }
                Err(message) => unreadable.push((file.name.clone(), message)),
            }
        }
        let workers = self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        );
        let mut reports = spec_check::check(
            &jobs,
            &Options {
                iree,
                target: self.target.clone(),
                jobs: workers,
                flags_for: &flags_for,
            },
        );
        if self.bench {
            if let Err(status) = remeasure::run(
                &jobs,
                &mut reports,
                &self.timing,
                iree,
                &flags_for,
                workers,
                settings,
            ) {
                return status;
            }
        }
        self.print(
            &files,
            &fixes,
            (&unreadable, &without),
            &reports,
            &iree.revision,
        );
        let slower = self.deny_slower && remeasure::any_slower(&reports);
        if unreadable.is_empty() && reports.iter().all(|report| report.ok) && !slower {
            ExitStatus::Ok
        } else {
            ExitStatus::Problems
        }
    }

    /// `check` where no IREE is found: every file read with tunespec's own parser (MLIR 22),
    /// its matchers counted, and one line saying what was and was not checked, so that a CI
    /// job without IREE neither fails for it nor passes as if IREE had checked the specs.
    /// Exit 1 when a file cannot be read, else 0.
    fn without_iree(&self, files: &[SpecFile]) -> ExitStatus {
        let mlir = Mlir::new();
        let mut matchers = 0usize;
        let mut unreadable = Vec::new();
        for file in files {
            match spec_check::matchers_of(&mlir, file) {
                Ok(found) => matchers += found.len(),
                Err(message) => unreadable.push((file.name.clone(), message)),
            }
        }
        let style = Style::detect();
        let mut out = String::new();
        if self.format == Format::Human {
            for (file, message) in &unreadable {
                out.push_str(&format!("{file}: cannot be read: {message}\n"));
            }
        } else {
            for problem in problems(&[], &unreadable, &[]) {
                out.push_str(&render(&problem, None, style));
            }
        }
        if self.format == Format::Json {
            let document = json_document(files.len(), &[], (&unreadable, &[]), &[], "");
            out = format!("{document}\n");
        }
        emit(&out);
        super::common::warning(
            tunespec::problem::codes::IREE_NOT_CHECKED,
            format!(
                "IREE not found: checked that {} file(s) parse with tunespec's own MLIR ({matchers} matcher(s) read, {} unreadable); not checked: IREE's parse, effect and compile of each matcher (install IREE's compiler, see `tunespec doctor`; --require-iree makes a missing IREE a failure)",
                files.len(),
                unreadable.len()
            ),
        );
        if unreadable.is_empty() {
            ExitStatus::Ok
        } else {
            ExitStatus::Problems
        }
    }

    fn print(
        &self,
        files: &[SpecFile],
        fixes: &[Fix],
        (unreadable, without): (&[(String, String)], &[String]),
        reports: &[MatcherReport],
        revision: &str,
    ) {
        let failed = reports.iter().filter(|report| !report.ok).count();
        let warnings: usize = reports.iter().map(|report| report.warnings.len()).sum();
        if self.format == Format::Json {
            let document =
                json_document(files.len(), fixes, (unreadable, without), reports, revision);
            emit(&format!("{document}\n"));
            return;
        }
        let style = Style::detect();
        let mut out = String::new();
        if self.format != Format::Human {
            for problem in problems(fixes, unreadable, reports) {
                out.push_str(&render(&problem, None, style));
            }
        }
        if matches!(self.format, Format::Human | Format::Github) {
            human_lines(&mut out, fixes, (unreadable, without), reports);
            substitution_notes(&mut out, reports);
        }
        if !quiet() && self.format != Format::Sarif {
            out.push_str(&format!(
                "checked {} matcher(s) in {} file(s) with IREE {revision}: {} passed, {failed} failed, {warnings} warning(s); {} edit(s) {}\n",
                reports.len(),
                files.len(),
                reports.len() - failed,
                fixes.len(),
                if self.fix { "applied" } else { "fixable with --fix" }
            ));
        }
        emit(&out);
    }
}

/// `check --format json`'s document (`docs/schema/check.schema.json`): fixes, unreadable
/// files, files without matchers, every matcher's report and the summary.
fn json_document(
    files: usize,
    fixes: &[Fix],
    (unreadable, without): (&[(String, String)], &[String]),
    reports: &[MatcherReport],
    revision: &str,
) -> serde_json::Value {
    let failed = reports.iter().filter(|report| !report.ok).count();
    let warnings: usize = reports.iter().map(|report| report.warnings.len()).sum();
    let applied = fixes.iter().filter(|fix| fix.applied).count();
    json!({
        "version": 1,
        "iree": revision,
        "fixes": fixes.iter().map(|fix| json!({
            "file": fix.file,
            "line": fix.edit.line,
            "col": fix.edit.col,
            "before": fix.edit.before,
            "after": fix.edit.after,
            "applied": fix.applied,
        })).collect::<Vec<_>>(),
        "unreadable": unreadable.iter().map(|(file, message)| json!({
            "file": file,
            "message": message,
        })).collect::<Vec<_>>(),
        "without_matchers": without,
        "results": reports,
        "summary": {
            "files": files,
            "matchers": reports.len(),
            "passed": reports.len() - failed,
            "failed": failed,
            "warnings": warnings,
            "fixes": fixes.len(),
            "fixed": applied,
        },
    })
}

/// The human (and GitHub) lines: each fix, unreadable file and file without matchers, then each
/// matcher's report.
fn human_lines(
    out: &mut String,
    fixes: &[Fix],
    (unreadable, without): (&[(String, String)], &[String]),
    reports: &[MatcherReport],
) {
    for fix in fixes {
        out.push_str(&format!(
            "{}:{}:{}: {} {} -> {}\n",
            fix.file,
            fix.edit.line,
            fix.edit.col,
            if fix.applied {
                "fixed:"
            } else {
                "fixable (--fix):"
            },
            fix.edit.before,
            fix.edit.after
        ));
    }
    for (file, message) in unreadable {
        out.push_str(&format!("{file}: cannot be read: {message}\n"));
    }
    for file in without {
        out.push_str(&format!(
            "{file}: no matcher of a root op (transform.iree.match.contraction, convolution, attention): nothing checked\n"
        ));
    }
    for report in reports {
        report_lines(out, report);
    }
}

/// One matcher's report: its heading, each step's status and its warnings.
fn report_lines(out: &mut String, report: &MatcherReport) {
    out.push_str(&format!(
        "{}:{}:{}: @{} ({}{}): {}\n",
        report.file,
        report.line,
        report.col,
        report.matcher,
        report.kind,
        report
            .target
            .as_deref()
            .map(|target| format!(", {target}"))
            .unwrap_or_default(),
        if report.ok { "ok" } else { "FAILED" }
    ));
    for (name, step) in [
        ("parse", &report.parse),
        ("effect", &report.effect),
        ("compile", &report.compile),
    ] {
        let status = match step.status {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        };
        match &step.message {
            Some(message) => out.push_str(&format!("  {name}: {status}: {message}\n")),
            None => out.push_str(&format!("  {name}: {status}\n")),
        }
    }
    for warning in &report.warnings {
        out.push_str(&format!("  warning: {warning}\n"));
    }
}

/// A note once per target compiled as another (sm_90 as sm_89 PTX), in the order checked.
fn substitution_notes(out: &mut String, reports: &[MatcherReport]) {
    let mut noted: Vec<String> = Vec::new();
    for why in reports
        .iter()
        .filter_map(|report| report.target.as_deref())
        .filter_map(super::model::substitution_of)
    {
        if !noted.contains(&why) {
            out.push_str(&format!("note: {why}\n"));
            noted.push(why);
        }
    }
}

/// The findings as problems (short, github, sarif).
fn problems(
    fixes: &[Fix],
    unreadable: &[(String, String)],
    reports: &[MatcherReport],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for fix in fixes.iter().filter(|fix| !fix.applied) {
        problems.push(
            Problem::warning(
                FIXABLE,
                format!(
                    "pre-3.13 syntax `{}`: IREE 3.13 reads `{}`",
                    fix.edit.before, fix.edit.after
                ),
                Some(Loc {
                    file: fix.file.clone(),
                    line: fix.edit.line,
                    col: fix.edit.col,
                }),
            )
            .with_help("`tunespec check --fix` rewrites it"),
        );
    }
    for (file, message) in unreadable {
        problems.push(Problem::error(
            FAILED,
            format!("cannot be read: {message}"),
            Some(Loc {
                file: file.clone(),
                line: 1,
                col: 1,
            }),
        ));
    }
    for report in reports {
        let loc = Some(Loc {
            file: report.file.clone(),
            line: report.line.max(1),
            col: report.col.max(1),
        });
        for (name, step) in [
            ("parse", &report.parse),
            ("effect", &report.effect),
            ("compile", &report.compile),
        ] {
            if step.status == Status::Failed {
                problems.push(Problem::error(
                    FAILED,
                    format!(
                        "@{}: {name}: {}",
                        report.matcher,
                        step.message.as_deref().unwrap_or("failed")
                    ),
                    loc.clone(),
                ));
            }
        }
        for warning in &report.warnings {
            problems.push(Problem::warning(
                WARNING,
                format!("@{}: {warning}", report.matcher),
                loc.clone(),
            ));
        }
    }
    problems
}

/// Finds each file's migrations toward the found IREE's `release` (forward to 3.12's syntax
/// and later, back for 3.10 and 3.11: `migrate::CHANGES`, both ways; tunespec's own, 3.13,
/// for an IREE that names no release); with `apply`, writes the files that have any
/// (atomically, all or nothing) and checks the migrated text. Files without one are never
/// written.
fn fix_files(
    files: &mut [SpecFile],
    apply: bool,
    release: Option<migrate::Release>,
) -> Result<Vec<Fix>, String> {
    let release = release.unwrap_or(migrate::SUPPORTED[migrate::SUPPORTED.len() - 1]);
    let mut fixes = Vec::new();
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    for file in files.iter_mut() {
        let edits = migrate::edits_for(&file.text, release);
        if edits.is_empty() {
            continue;
        }
        if apply {
            let fixed = migrate::apply_edits(&file.text, &edits);
            writes.push((file.path.clone(), fixed.clone()));
            file.text = fixed;
        }
        fixes.extend(edits.into_iter().map(|edit| Fix {
            file: file.name.clone(),
            edit,
            applied: apply,
        }));
    }
    if !writes.is_empty() {
        let outputs: Vec<(&std::path::Path, &[u8])> = writes
            .iter()
            .map(|(path, text)| (path.as_path(), text.as_bytes()))
            .collect();
        super::output::write_outputs(&outputs)?;
    }
    Ok(fixes)
}
