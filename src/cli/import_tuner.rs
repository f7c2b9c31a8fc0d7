//! `tunespec import-tuner RUN_DIR... --target T -o LIBRARY`: the SHARK tuner's measured winners
//! (see `tunespec::measured::tuner_import`) verified and written as a spec library, merged by matcher key
//! into the library when it exists (a faster measurement replaces a slower one).

use std::path::{Path, PathBuf};

use serde_json::json;
use tunespec::ir::Loc;
use tunespec::measured::library::{
    existing, library_files, merge, write_directory, Entry, Library,
};
use tunespec::measured::tuner_import::{self, Measurement};
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::registry;
use tunespec::verify;

use super::common::{diagnostic_format, DiagnosticFormat, USAGE};
use super::common::{emit, emit_stderr, render, tool_error, tool_error_with, ExitStatus, Format};
use crate::diagnostics::Style;

/// The code of a problem in a tuner run (a CSV without the tuner's columns, a bad row, a
/// candidate spec that is missing or has no keyable matcher).
const TUNER_INPUT: &str = "tunespec::tuner::input";

const AFTER_HELP: &str = "\
Each RUN_DIR is a tuner output directory (tuning_<date>/): candidates/specs/<N>_spec.mlir and one
<dispatch>_candidate_analysis.csv per dispatch. For each dispatch the fastest candidate that beat
the baseline is imported (never one slower than the baseline); its matcher gets a
tunespec.provenance sentence and a tunespec.measurement record (device, IREE version, date,
baseline and tuned time, speedup, dispatch), which `explain` prints.

Matchers are keyed by what they match (root op kind, element types, indexing maps, dims_equal
constraints) and the target. Importing into a library this command wrote merges by key: a faster
measurement replaces a slower one (noted); the same op tuned in several runs is one entry.

`--format json` prints one document (docs/schema/import-tuner.schema.json): per dispatch of
every run, its outcome (imported, replaced, superseded, kept, not-beaten), the candidate, its
spec, matcher and times, and the notes; diagnostics are JSON lines on stderr.

Use the library with `--spec LIBRARY` (link, explain, ...) or `spec_dirs = [\"LIBRARY\"]` in
tunespec.toml.

Examples:
  tunespec import-tuner tuning_2026_11_20_10_00 --target gfx942 -o team-specs
  tunespec import-tuner tuning_*/ --target mi300x -o team-specs

Environment:
  NO_COLOR, CLICOLOR, CLICOLOR_FORCE  colours of diagnostics
  TUNESPEC_LOG                        what -v logs, as a filter (info, debug)

Exit status:
  0  imported (or nothing beat its baseline)
  1  problems in the inputs: a CSV without the tuner's columns or with a bad row, a run with no
     benchmark results, a candidate spec that is missing or does not verify (nothing written)
  2  usage or I/O error: unknown target, unreadable run directory, an output that is not a
     library this command wrote";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Opts {
    /// Tuner run directories (tuning_<date>/)
    #[arg(required = true, value_name = "RUN_DIR")]
    pub runs: Vec<PathBuf>,
    /// The target the runs were measured on (architecture or SKU, e.g. gfx942, mi300x)
    #[arg(long, short)]
    pub target: String,
    /// The spec library directory to write (created, or merged into if this command wrote it)
    #[arg(long, short)]
    pub output: PathBuf,
    /// Output format: json prints a document on stdout (docs/schema/import-tuner.schema.json);
    /// the others print notes and a summary on stderr
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// One dispatch of a run, as the JSON document reports it.
struct Row {
    run: String,
    dispatch: String,
    outcome: &'static str,
    baseline_us: f64,
    chosen: Option<(String, String, Measurement)>,
    origin: Option<String>,
    replaced: Option<String>,
}

impl Row {
    fn to_json(&self) -> serde_json::Value {
        let (spec, matcher, m) = match &self.chosen {
            Some((spec, matcher, m)) => (Some(spec), Some(matcher), Some(m)),
            None => (None, None, None),
        };
        json!({
            "run": self.run,
            "dispatch": self.dispatch,
            "outcome": self.outcome,
            "candidate": m.map(|m| m.candidate),
            "spec": spec,
            "matcher": matcher,
            "baseline_us": self.baseline_us,
            "tuned_us": m.map(|m| m.tuned_us),
            "speedup": m.map(|m| m.speedup),
            "device": m.map(|m| m.device.as_str()),
            "iree": m.map(|m| m.iree.as_str()),
            "date": m.map(|m| m.date.as_str()),
            "replaced": self.replaced,
        })
    }
}

/// A problem in a tuner run at `place` (`path` or `path:line`), in the run's format.
fn input_problem(place: &str, message: &str) {
    if diagnostic_format() == DiagnosticFormat::Human {
        emit_stderr(&format!("tunespec: error: {place}: {message}\n"));
        return;
    }
    let (file, line) = match place.rsplit_once(':') {
        Some((file, line)) if line.parse::<u32>().is_ok() => (file, line.parse().unwrap_or(0)),
        _ => (place, 0),
    };
    let loc = Loc {
        file: file.to_string(),
        line,
        col: if line > 0 { 1 } else { 0 },
    };
    let problem = Problem::error(TUNER_INPUT, message.to_string(), Some(loc));
    emit_stderr(&render(&problem, None, Style::detect_stderr()));
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let target = match target_name(&self.target) {
            Ok(target) => target,
            Err(status) => return status,
        };
        for run in &self.runs {
            if !run.is_dir() {
                tool_error(format!("{}: not a directory", run.display()));
                return ExitStatus::Usage;
            }
        }
        let mlir = Mlir::new_threaded();
        let Library {
            entries,
            targets: definitions,
        } = match existing(&mlir, &self.output) {
            Ok(library) => library,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let mut import = Import {
            mlir: &mlir,
            target,
            style: Style::detect_stderr(),
            entries,
            failed: false,
            notes: Vec::new(),
            rows: Vec::new(),
            imported: 0,
        };
        for run in &self.runs {
            import.read(run);
        }
        if import.failed {
            tool_error("the tuner runs have problems; nothing written");
            return ExitStatus::Problems;
        }
        if !import.annotated_specs_verify() {
            tool_error("an annotated spec does not verify (a tunespec bug); nothing written");
            return ExitStatus::Problems;
        }
        let mut library = Library {
            entries: std::mem::take(&mut import.entries),
            targets: definitions,
        };
        let files = library_files(&mut library, tunespec::measured::tuner_import::TOOL);
        import.entries = library.entries;
        if let Err(message) = write_directory(&self.output, &files) {
            tool_error(message);
            return ExitStatus::Usage;
        }
        self.report(&import)
    }

    /// What was imported: the JSON document, or the notes and a summary on stderr.
    fn report(&self, import: &Import<'_>) -> ExitStatus {
        if self.format == Format::Json {
            let document = json!({
                "version": 1,
                "target": import.target,
                "output": self.output.display().to_string(),
                "imported": import.imported,
                "entries": import.entries.len(),
                "dispatches": import.rows.iter().map(Row::to_json).collect::<Vec<_>>(),
                "notes": import.notes,
            });
            emit(&format!("{document}\n"));
            return ExitStatus::Ok;
        }
        for note in &import.notes {
            emit_stderr(&format!("note: {note}\n"));
        }
        emit_stderr(&format!(
            "imported {} measured config(s) for {}; {} in {}\n",
            import.imported,
            import.target,
            import.entries.len(),
            self.output.display()
        ));
        ExitStatus::Ok
    }
}

/// The registry's name of the target the runs were measured on (an alias resolved); an unknown
/// one is a usage error, with the nearest names.
fn target_name(requested: &str) -> Result<String, ExitStatus> {
    let registry = registry::Registry::embedded();
    if let Some(target) = registry.find(requested) {
        return Ok(target.name.clone());
    }
    let nearest = registry.nearest(requested);
    let help = (!nearest.is_empty()).then(|| format!("did you mean {}?", nearest.join(", ")));
    tool_error_with(
        USAGE,
        format!("unknown target '{requested}'"),
        help.as_deref(),
    );
    Err(ExitStatus::Usage)
}

/// The import in progress: the library's entries with this run's winners merged in, and what
/// the report says about each dispatch.
struct Import<'a> {
    mlir: &'a Mlir,
    target: String,
    style: Style,
    entries: Vec<Entry>,
    /// Whether any run had a problem (then nothing is written).
    failed: bool,
    notes: Vec<String>,
    rows: Vec<Row>,
    imported: usize,
}

impl Import<'_> {
    /// Reads one tuner run and merges its winners.
    fn read(&mut self, run: &Path) {
        let run_name = run.display().to_string();
        let result = match tuner_import::read_run(run) {
            Ok(result) => result,
            Err(error) => {
                input_problem(&error.place, &error.message);
                self.failed = true;
                return;
            }
        };
        self.notes.extend(result.skipped);
        for (dispatch, baseline_us) in result.not_beaten {
            self.rows.push(Row {
                run: run_name.clone(),
                dispatch,
                outcome: "not-beaten",
                baseline_us,
                chosen: None,
                origin: None,
                replaced: None,
            });
        }
        for chosen in result.chosen {
            if !self.merge_chosen(&run_name, chosen) {
                self.failed = true;
            }
        }
    }

    /// One dispatch's winner verified, annotated with its measurement and merged by key;
    /// false when it has a problem (reported).
    fn merge_chosen(&mut self, run_name: &str, chosen: tuner_import::Chosen) -> bool {
        let name = chosen.spec_path.display().to_string();
        let verified = verify::verify_bytes(self.mlir, chosen.text.as_bytes(), &name);
        for problem in &verified.problems {
            emit_stderr(&render(problem, Some(chosen.text.as_bytes()), self.style));
        }
        if verified.has_errors() {
            return false;
        }
        let matchers = verified
            .snapshot
            .as_ref()
            .map(tuner_import::keyed_matchers)
            .unwrap_or_default();
        let [matcher] = matchers.as_slice() else {
            input_problem(&name, &format!(
                "expected one matcher whose checks tunespec can key (transform.iree.match.contraction, convolution, attention, online_attention, or upstream match ops), found {}",
                matchers.len()
            ));
            return false;
        };
        let Some(text) = tuner_import::annotate(&chosen.text, &matcher.name, &chosen.measurement)
        else {
            input_problem(
                &name,
                &format!("cannot find the header of @{}", matcher.name),
            );
            return false;
        };
        let key = matcher.key.clone().for_target(self.target.clone());
        let previous = self
            .entries
            .iter()
            .find(|old| old.target == self.target && old.key == key)
            .map(|old| old.origin.clone());
        let origin = format!("{name} ({})", matcher.name);
        let entry = Entry {
            target: self.target.clone(),
            key,
            file: None,
            text,
            measurement: chosen.measurement.clone(),
            origin: origin.clone(),
        };
        let merged = merge(&mut self.entries, entry, &mut self.notes);
        self.imported += usize::from(merged);
        let outcome = match (merged, &previous) {
            (true, None) => "imported",
            (true, Some(_)) => "replaced",
            (false, _) => "kept",
        };
        if merged {
            // A row of this import that the new entry replaced is superseded.
            for row in &mut self.rows {
                if row.origin.is_some() && row.origin == previous {
                    row.outcome = "superseded";
                }
            }
        }
        self.rows.push(Row {
            run: run_name.to_string(),
            dispatch: chosen.measurement.subject.name().to_string(),
            outcome,
            baseline_us: chosen.measurement.baseline_us,
            chosen: Some((name, matcher.name.clone(), chosen.measurement)),
            origin: Some(origin),
            replaced: if merged { previous } else { None },
        });
        true
    }

    /// The annotated specs must verify as they will be written; their problems are reported.
    fn annotated_specs_verify(&self) -> bool {
        for entry in self.entries.iter().filter(|entry| entry.file.is_none()) {
            let verified = verify::verify_bytes(self.mlir, entry.text.as_bytes(), &entry.origin);
            if verified.has_errors() {
                for problem in &verified.problems {
                    emit_stderr(&render(problem, Some(entry.text.as_bytes()), self.style));
                }
                return false;
            }
        }
        true
    }
}
