//! `tunespec import-tuner RUN_DIR... --target T -o LIBRARY`: the SHARK tuner's measured winners
//! (see `tunespec::tuner_import`) verified and written as a spec library, merged by matcher key
//! into the library when it exists (a faster measurement replaces a slower one).

use std::path::PathBuf;

use tunespec::measured_library::{existing_entries, library_files, merge, write_directory, Entry};
use tunespec::mlir::Mlir;
use tunespec::registry;
use tunespec::tuner_import;
use tunespec::verify;

use super::common::{emit_stderr, tool_error, ExitStatus};
use crate::diagnostics::{self, Style};

const AFTER_HELP: &str = "\
Each RUN_DIR is a tuner output directory (tuning_<date>/): candidates/specs/<N>_spec.mlir and one
<dispatch>_candidate_analysis.csv per dispatch. For each dispatch the fastest candidate that beat
the baseline is imported (never one slower than the baseline); its matcher gets a
tunespec.provenance sentence and a tunespec.measurement record (device, IREE version, date,
baseline and tuned time, speedup, dispatch), which `explain` prints.

Matchers are keyed by what they match (root op kind, element types, indexing maps, dims_equal
constraints) and the target. Importing into a library this command wrote merges by key: a faster
measurement replaces a slower one (noted); the same op tuned in several runs is one entry.

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
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let target = match registry::Registry::embedded().find(&self.target) {
            Some(target) => target.name.clone(),
            None => {
                tool_error(format!("unknown target '{}'", self.target));
                return ExitStatus::Usage;
            }
        };
        for run in &self.runs {
            if !run.is_dir() {
                tool_error(format!("{}: not a directory", run.display()));
                return ExitStatus::Usage;
            }
        }
        let mlir = Mlir::new_threaded();
        let mut entries = match existing_entries(&mlir, &self.output) {
            Ok(entries) => entries,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let style = Style::detect_stderr();
        let mut failed = false;
        let mut notes = Vec::new();
        let mut imported = 0usize;
        for run in &self.runs {
            let result = match tuner_import::read_run(run) {
                Ok(result) => result,
                Err(error) => {
                    emit_stderr(&format!("tunespec: error: {error}\n"));
                    failed = true;
                    continue;
                }
            };
            notes.extend(result.skipped);
            for chosen in result.chosen {
                let name = chosen.spec_path.display().to_string();
                let verified = verify::verify_bytes(&mlir, chosen.text.as_bytes(), &name);
                for problem in &verified.problems {
                    emit_stderr(&diagnostics::render(
                        problem,
                        Some(chosen.text.as_bytes()),
                        style,
                    ));
                }
                if verified.has_errors() {
                    failed = true;
                    continue;
                }
                let matchers = verified
                    .snapshot
                    .as_ref()
                    .map(tuner_import::keyed_matchers)
                    .unwrap_or_default();
                let [matcher] = matchers.as_slice() else {
                    emit_stderr(&format!(
                        "tunespec: error: {name}: expected one matcher whose checks tunespec can key (transform.iree.match.contraction, convolution, attention, online_attention, or upstream match ops), found {}\n",
                        matchers.len()
                    ));
                    failed = true;
                    continue;
                };
                let Some(text) =
                    tuner_import::annotate(&chosen.text, &matcher.name, &chosen.measurement)
                else {
                    emit_stderr(&format!(
                        "tunespec: error: {name}: cannot find the header of @{}\n",
                        matcher.name
                    ));
                    failed = true;
                    continue;
                };
                let entry = Entry {
                    target: target.clone(),
                    key: matcher.key.clone().for_target(target.clone()),
                    file: None,
                    text,
                    measurement: chosen.measurement,
                    origin: format!("{name} ({})", matcher.name),
                };
                imported += usize::from(merge(&mut entries, entry, &mut notes));
            }
        }
        if failed {
            tool_error("the tuner runs have problems; nothing written");
            return ExitStatus::Problems;
        }
        // The annotated specs must verify as they will be written.
        for entry in entries.iter().filter(|entry| entry.file.is_none()) {
            let verified = verify::verify_bytes(&mlir, entry.text.as_bytes(), &entry.origin);
            if verified.has_errors() {
                for problem in &verified.problems {
                    emit_stderr(&diagnostics::render(
                        problem,
                        Some(entry.text.as_bytes()),
                        style,
                    ));
                }
                tool_error("an annotated spec does not verify (a tunespec bug); nothing written");
                return ExitStatus::Problems;
            }
        }
        let files = library_files(&mut entries);
        if let Err(message) = write_directory(&self.output, &files) {
            tool_error(message);
            return ExitStatus::Usage;
        }
        for note in &notes {
            emit_stderr(&format!("note: {note}\n"));
        }
        emit_stderr(&format!(
            "imported {imported} measured config(s) for {target}; {} in {}\n",
            entries.len(),
            self.output.display()
        ));
        ExitStatus::Ok
    }
}
