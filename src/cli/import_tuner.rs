//! `tunespec import-tuner RUN_DIR... --target T -o LIBRARY`: the SHARK tuner's measured winners
//! (see `tunespec::tuner_import`) verified and written as a spec library, merged by matcher key
//! into the library when it exists (a faster measurement replaces a slower one).

use std::path::{Path, PathBuf};

use tunespec::mlir::Mlir;
use tunespec::registry;
use tunespec::tuner_import::{self, Measurement, MANIFEST_MARKER};
use tunespec::verify;

use super::common::{emit_stderr, tool_error, ExitStatus};
use super::import_iree::write_directory;
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

/// One entry of the library: a spec with one measured matcher.
struct Entry {
    target: String,
    key: tunespec::link::MatcherKey,
    /// The file, relative to the library (kept for entries read from it).
    file: Option<String>,
    text: String,
    measurement: Measurement,
    /// Where it came from, for notes.
    origin: String,
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

/// Puts `entry` in: a new key is added; for a known key and target the faster measurement
/// stays, and the choice is noted. Returns whether `entry` went in.
fn merge(entries: &mut Vec<Entry>, entry: Entry, notes: &mut Vec<String>) -> bool {
    let Some(index) = entries
        .iter()
        .position(|old| old.target == entry.target && old.key == entry.key)
    else {
        entries.push(entry);
        return true;
    };
    let old = &entries[index];
    if entry.measurement.tuned_us < old.measurement.tuned_us {
        notes.push(format!(
            "{} ({} us) replaces {} ({} us): same op on {}, faster",
            entry.origin,
            entry.measurement.tuned_us,
            old.origin,
            old.measurement.tuned_us,
            entry.target
        ));
        entries[index] = entry;
        true
    } else {
        notes.push(format!(
            "{} ({} us) not imported: {} ({} us) matches the same op on {} and is as fast or faster",
            entry.origin,
            entry.measurement.tuned_us,
            old.origin,
            old.measurement.tuned_us,
            entry.target
        ));
        false
    }
}

/// The library's files: each entry's spec (kept at its place, or `TARGET/<dispatch>.mlir`) and
/// the manifest.
fn library_files(entries: &mut [Entry]) -> Vec<(String, String)> {
    let mut taken: Vec<String> = entries.iter().filter_map(|e| e.file.clone()).collect();
    for entry in entries.iter_mut().filter(|entry| entry.file.is_none()) {
        let stem = tuner_import::file_stem(&entry.measurement.dispatch);
        let mut file = format!("{}/{stem}.mlir", entry.target);
        let mut n = 2;
        while taken.contains(&file) {
            file = format!("{}/{stem}-{n}.mlir", entry.target);
            n += 1;
        }
        taken.push(file.clone());
        entry.file = Some(file);
    }
    let mut targets: Vec<(String, Vec<String>)> = Vec::new();
    let mut files = Vec::new();
    for entry in entries.iter() {
        let file = entry.file.clone().unwrap_or_default();
        match targets
            .iter_mut()
            .find(|(target, _)| *target == entry.target)
        {
            Some((_, specs)) => specs.push(file.clone()),
            None => targets.push((entry.target.clone(), vec![file.clone()])),
        }
        files.push((file, entry.text.clone()));
    }
    for (_, specs) in targets.iter_mut() {
        specs.sort();
    }
    targets.sort();
    files.push((
        "registry.toml".to_string(),
        tuner_import::manifest_text(&targets),
    ));
    files
}

/// The entries of a library this command wrote (none if `output` does not exist or is an
/// empty directory). Anything else at `output` is refused.
fn existing_entries(mlir: &Mlir, output: &Path) -> Result<Vec<Entry>, String> {
    let Ok(metadata) = std::fs::symlink_metadata(output) else {
        return Ok(Vec::new());
    };
    if !metadata.is_dir() {
        return Err(format!(
            "{} exists and is not a directory",
            output.display()
        ));
    }
    let manifest_path = output.join("registry.toml");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap_or_default();
    if !manifest.starts_with(MANIFEST_MARKER) {
        let empty = std::fs::read_dir(output)
            .map_err(|error| format!("cannot read {}: {error}", output.display()))?
            .next()
            .is_none();
        if empty {
            return Ok(Vec::new());
        }
        return Err(format!(
            "{} is not empty and was not written by `tunespec import-tuner`; choose another directory",
            output.display()
        ));
    }
    let table: toml::Table = manifest
        .parse()
        .map_err(|error| format!("{}: {error}", manifest_path.display()))?;
    let mut entries = Vec::new();
    let extend = table.get("extend").and_then(toml::Value::as_table);
    for (target, value) in extend.into_iter().flatten() {
        let specs = value.get("specs").and_then(toml::Value::as_array);
        for file in specs.into_iter().flatten().filter_map(toml::Value::as_str) {
            let path = output.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            let name = path.display().to_string();
            let verified = verify::verify_bytes(mlir, text.as_bytes(), &name);
            let keyed = verified.snapshot.as_ref().and_then(|module| {
                let matchers = tuner_import::keyed_matchers(module);
                let matcher = matchers.into_iter().next()?;
                let measurement = tuner_import::recorded_measurement(module, &matcher.name)?;
                Some((matcher, measurement))
            });
            let Some((matcher, measurement)) = keyed else {
                return Err(format!(
                    "{name}: no measured matcher (tunespec.measurement); was the library edited?"
                ));
            };
            entries.push(Entry {
                target: target.clone(),
                key: matcher.key.for_target(target.clone()),
                file: Some(file.to_string()),
                text,
                measurement,
                origin: format!("{name} ({})", matcher.name),
            });
        }
    }
    Ok(entries)
}
