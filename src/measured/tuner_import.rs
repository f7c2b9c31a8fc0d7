//! `tunespec import-tuner`: the SHARK tuner's run directories (`tuning_*/`: candidate specs in
//! `candidates/specs/<N>_spec.mlir`, one `<dispatch>_candidate_analysis.csv` of benchmark
//! records per dispatch) read into measured entries: the fastest candidate of each dispatch that
//! beat the baseline, its matcher keyed by what it matches and annotated with where and how it
//! was measured (`tunespec.provenance`, a sentence `explain` prints, and `tunespec.measurement`,
//! the record as a dictionary).
//!
//! Nothing here writes files; `src/cli/import_tuner.rs` verifies and writes the library.

use std::path::{Path, PathBuf};

use crate::ir;
use crate::provenance::{mlir_string, PROVENANCE_ATTR};
/// The measurement record, whose home is the provenance module; named here too because the
/// import is what writes it.
pub use crate::provenance::{Measurement, Subject};

/// The matcher attribute that holds the measurement record (one definition, in
/// [`crate::provenance`]).
pub use crate::provenance::MEASUREMENT_ATTR;
/// The tool name a library `import-tuner` wrote carries in its manifest's first line.
pub const TOOL: &str = "tunespec import-tuner";
/// The file name suffix of the tuner's per-dispatch benchmark records.
pub const CSV_SUFFIX: &str = "_candidate_analysis.csv";
/// The columns an analysis CSV must have.
pub const REQUIRED_COLUMNS: [&str; 6] = [
    "candidate_id",
    "baseline_benchmark_time_us",
    "benchmark_time_us",
    "benchmark_speedup",
    "benchmark_device_id",
    "benchmark_status",
];

/// A problem in an input, with its place (`file` or `file:line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// `path` or `path:line`.
    pub place: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

fn input_error(place: impl Into<String>, message: impl Into<String>) -> InputError {
    InputError {
        place: place.into(),
        message: message.into(),
    }
}

/// One row of an analysis CSV (the columns tunespec reads; the tuner writes more).
#[derive(Debug, serde::Deserialize)]
struct Row {
    candidate_id: u64,
    #[serde(deserialize_with = "csv::invalid_option")]
    baseline_benchmark_time_us: Option<f64>,
    #[serde(deserialize_with = "csv::invalid_option")]
    benchmark_time_us: Option<f64>,
    #[serde(deserialize_with = "csv::invalid_option")]
    benchmark_speedup: Option<f64>,
    benchmark_device_id: String,
    benchmark_status: String,
}

/// The winner of one dispatch of a run: its candidate spec (as read) and measurement.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// The candidate spec's path.
    pub spec_path: PathBuf,
    /// Its text.
    pub text: String,
    /// How it was measured.
    pub measurement: Measurement,
}

/// What reading one run gave: the winners, and a note per dispatch skipped.
#[derive(Debug, Default)]
pub struct RunResult {
    /// One per dispatch with a candidate faster than its baseline.
    pub chosen: Vec<Chosen>,
    /// Dispatches without one, and why.
    pub skipped: Vec<String>,
    /// Those dispatches (`skipped`, in order) and their baseline times, in microseconds.
    pub not_beaten: Vec<(String, f64)>,
}

/// The analysis CSVs of a run directory, in name order; an error when it has none.
fn analysis_csvs(run: &Path) -> Result<Vec<PathBuf>, InputError> {
    let display = run.display().to_string();
    let entries =
        std::fs::read_dir(run).map_err(|error| input_error(&display, error.to_string()))?;
    let mut csvs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(CSV_SUFFIX))
        })
        .collect();
    csvs.sort();
    if csvs.is_empty() {
        return Err(input_error(
            display,
            format!("no benchmark results (no *{CSV_SUFFIX}): is this a tuner run that benchmarked its candidates?"),
        ));
    }
    Ok(csvs)
}

/// The fastest candidate of one dispatch that beat the baseline: its CSV line, row, time and
/// the baseline it beat, each in microseconds.
type Fastest<'a> = (u64, &'a Row, f64, f64);

/// The baseline time of one dispatch's rows and the fastest candidate that beat it, if any;
/// an error (at `place`, the CSV) when no row was measured or no baseline time is known.
fn fastest_candidate<'a>(
    place: &str,
    rows: &'a [(u64, Row)],
) -> Result<(f64, Option<Fastest<'a>>), InputError> {
    let measured: Vec<&(u64, Row)> = rows
        .iter()
        .filter(|(_, row)| {
            row.benchmark_time_us
                .is_some_and(|t| t.is_finite() && t > 0.0)
        })
        .filter(|(_, row)| status_ok(&row.benchmark_status))
        .collect();
    if measured.is_empty() {
        return Err(input_error(
            place,
            "no benchmark results: no row has a benchmark_time_us",
        ));
    }
    let baseline = measured
        .iter()
        .find(|(_, row)| row.candidate_id == 0)
        .and_then(|(_, row)| row.benchmark_time_us)
        .or_else(|| {
            measured
                .iter()
                .find_map(|(_, row)| row.baseline_benchmark_time_us)
        })
        .filter(|t| t.is_finite() && *t > 0.0);
    let Some(baseline) = baseline else {
        return Err(input_error(
            place,
            "no baseline time: neither candidate 0's benchmark_time_us nor a baseline_benchmark_time_us",
        ));
    };
    let best = measured
        .iter()
        .filter(|(_, row)| row.candidate_id != 0)
        .filter_map(|(line, row)| {
            let baseline = row.baseline_benchmark_time_us.unwrap_or(baseline);
            let time = row.benchmark_time_us?;
            (time < baseline).then_some((*line, row, time, baseline))
        })
        .min_by(|a, b| {
            a.2.total_cmp(&b.2)
                .then(a.1.candidate_id.cmp(&b.1.candidate_id))
        });
    Ok((baseline, best))
}

/// Reads one tuner run directory.
pub fn read_run(run: &Path) -> Result<RunResult, InputError> {
    let csvs = analysis_csvs(run)?;
    let iree = iree_version(run);
    let summary = read_summary(run);
    let date = run_date(run);
    let mut result = RunResult::default();
    for csv_path in csvs {
        let name = csv_path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dispatch = name.trim_end_matches(CSV_SUFFIX).to_string();
        let rows = read_csv(&csv_path)?;
        let place = csv_path.display().to_string();
        let (baseline, best) = fastest_candidate(&place, &rows)?;
        let Some((line, row, tuned, baseline)) = best else {
            result.not_beaten.push((dispatch.clone(), baseline));
            result.skipped.push(format!(
                "{place}: no candidate beat the baseline ({baseline} us); {dispatch} not imported"
            ));
            continue;
        };
        let spec_path = run
            .join("candidates/specs")
            .join(format!("{}_spec.mlir", row.candidate_id));
        let text = crate::files::read_input_text(&spec_path).map_err(|error| {
            input_error(
                format!("{place}:{line}"),
                format!(
                    "candidate {} has no readable spec {}: {error}",
                    row.candidate_id,
                    spec_path.display()
                ),
            )
        })?;
        let speedup = row.benchmark_speedup.unwrap_or(tuned / baseline);
        result.chosen.push(Chosen {
            spec_path,
            text,
            measurement: Measurement {
                subject: Subject::Dispatch(dispatch),
                candidate: Some(row.candidate_id),
                device: non_empty(&row.benchmark_device_id),
                device_name: summary.gpu.clone(),
                driver: summary.driver.clone(),
                flags: summary.flags.clone(),
                iree: iree.clone(),
                date: date.clone(),
                baseline_us: baseline,
                tuned_us: tuned,
                speedup,
                ..Measurement::default()
            },
        });
    }
    Ok(result)
}

fn non_empty(value: &str) -> String {
    if value.trim().is_empty() {
        "unknown".to_string()
    } else {
        value.trim().to_string()
    }
}

/// Whether a `benchmark_status` says the benchmark ran.
fn status_ok(status: &str) -> bool {
    !matches!(
        status.trim().to_ascii_lowercase().as_str(),
        "false" | "failed" | "failure" | "error" | "timeout"
    )
}

/// The rows of an analysis CSV with their 1-based line numbers.
fn read_csv(path: &Path) -> Result<Vec<(u64, Row)>, InputError> {
    let place = path.display().to_string();
    let mut reader =
        csv::Reader::from_path(path).map_err(|error| input_error(&place, error.to_string()))?;
    let headers = reader
        .headers()
        .map_err(|error| input_error(format!("{place}:1"), error.to_string()))?
        .clone();
    let missing: Vec<&str> = REQUIRED_COLUMNS
        .iter()
        .copied()
        .filter(|column| !headers.iter().any(|header| header.trim() == *column))
        .collect();
    if !missing.is_empty() {
        return Err(input_error(
            format!("{place}:1"),
            format!(
                "not a tuner candidate analysis: missing column(s) {}",
                missing.join(", ")
            ),
        ));
    }
    let mut rows = Vec::new();
    for record in reader.deserialize::<Row>() {
        match record {
            Ok(row) => {
                // The reader's position is after the record; its line is the record's own.
                rows.push((0, row));
            }
            Err(error) => {
                let line = error.position().map_or(0, |position| position.line());
                return Err(input_error(format!("{place}:{line}"), error.to_string()));
            }
        }
    }
    // Lines of records: the header is line 1 and the tuner writes one record per line.
    for (index, row) in rows.iter_mut().enumerate() {
        row.0 = index as u64 + 2;
    }
    Ok(rows)
}

/// The IREE version the run's logs name (`summary.log`, `autotune_*.log`), else `unknown`.
fn iree_version(run: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(run) else {
        return "unknown".to_string();
    };
    let mut logs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "log"))
        .collect();
    logs.sort();
    for log in logs {
        let Ok(text) = crate::files::read_input_text(&log) else {
            continue;
        };
        for line in text.lines() {
            let lower = line.to_ascii_lowercase();
            if !(lower.contains("iree") && lower.contains("version")) {
                continue;
            }
            let version = line
                .split(|c: char| c.is_whitespace() || c == '=' || c == ',' || c == ':')
                .map(|token| token.trim_matches(|c: char| c == '"' || c == '\''))
                .find(|token| {
                    token.starts_with(|c: char| c.is_ascii_digit()) && token.contains('.')
                });
            if let Some(version) = version {
                return version.to_string();
            }
        }
    }
    "unknown".to_string()
}

/// What a run's `summary.log` says about the machine and the compile, where it says it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The GPU's name (`NVIDIA H100 80GB HBM3`).
    pub gpu: Option<String>,
    /// The driver's version (`580.159.04`).
    pub driver: Option<String>,
    /// The compile flags (`--iree-hal-target-device=cuda --iree-cuda-target=sm_89`).
    pub flags: Option<String>,
}

/// Reads `summary.log` of a run (nothing when it has none or it says neither).
fn read_summary(run: &Path) -> Summary {
    crate::files::read_input_text(run.join("summary.log"))
        .map(|text| parse_summary(&text))
        .unwrap_or_default()
}

/// The GPU and flags of a `summary.log`. Lines read: `Device: cuda://0 (cuda); GPU: <name>,
/// <driver>, ...` (the GPU part as `nvidia-smi --query-gpu=name,driver_version,... --format=csv`
/// gives it; a `GPU:` line alone works too) and `Compile flags: --flag --flag (words)`, of which
/// the `--` words are kept. The first line of each kind counts; text that does not fit is
/// ignored, never an error: a log is a courtesy of the run.
pub fn parse_summary(text: &str) -> Summary {
    let mut summary = Summary::default();
    for line in text.lines() {
        if summary.gpu.is_none() {
            if let Some(at) = line.find("GPU:") {
                let mut fields = line[at + "GPU:".len()..].split(',').map(str::trim);
                let name = fields.next().unwrap_or_default();
                if name.is_empty() || name.chars().any(char::is_control) {
                    continue;
                }
                summary.gpu = Some(name.to_string());
                summary.driver = fields
                    .next()
                    .filter(|version| {
                        !version.is_empty()
                            && version.chars().all(|c| c.is_ascii_digit() || c == '.')
                    })
                    .map(str::to_string);
            }
        }
        if summary.flags.is_none() {
            if let Some(rest) = line.trim_start().strip_prefix("Compile flags:") {
                let flags: Vec<&str> = rest
                    .split_whitespace()
                    .map(|word| word.trim_end_matches([';', ',']))
                    .filter(|word| {
                        word.starts_with("--")
                            && word.len() > 2
                            && !word.chars().any(char::is_control)
                    })
                    .collect();
                if !flags.is_empty() {
                    summary.flags = Some(flags.join(" "));
                }
            }
        }
    }
    summary
}

/// `YYYY-MM-DD` from a run directory named `tuning_YYYY_MM_DD_HH_MM`, else `unknown`.
fn run_date(run: &Path) -> String {
    let name = run
        .canonicalize()
        .ok()
        .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let parts: Vec<&str> = name
        .strip_prefix("tuning_")
        .map(|rest| rest.split('_').collect())
        .unwrap_or_default();
    match parts.as_slice() {
        [year, month, day, ..]
            if year.len() == 4
                && [year, month, day]
                    .iter()
                    .all(|p| p.bytes().all(|b| b.is_ascii_digit())) =>
        {
            format!("{year}-{month}-{day}")
        }
        _ => "unknown".to_string(),
    }
}

/// A tuned matcher in a spec: its name and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyedMatcher {
    /// The matcher's symbol name.
    pub name: String,
    /// What it matches ([`crate::link::key`]: root op kind, element types and maps, dimension
    /// constraints; the target is the entry's own).
    pub key: crate::link::MatcherKey,
}

/// The matchers of a spec whose body the matcher key knows (the tuner's candidates have one:
/// `@apply_op_config` and `@__kernel_config` have none), with their keys.
pub fn keyed_matchers(module: &ir::Module) -> Vec<KeyedMatcher> {
    crate::link::key::keyed_matchers(module)
        .into_iter()
        .map(|(name, key)| KeyedMatcher { name, key })
        .collect()
}

/// The measurement recorded on a matcher of `module`, if any.
pub fn recorded_measurement(module: &ir::Module, matcher: &str) -> Option<Measurement> {
    let mut found = None;
    module.root.walk(&mut |op| {
        if found.is_none() && op.name == ir::names::NAMED_SEQUENCE && op.sym_name() == Some(matcher)
        {
            found = op.attr(MEASUREMENT_ATTR).and_then(Measurement::from_attr);
        }
    });
    found
}

/// `text` with `tunespec.provenance` and `tunespec.measurement` on the named sequence
/// `@matcher` (added to its `attributes {...}`, or as one). None if the header is not found.
pub fn annotate(text: &str, matcher: &str, measurement: &Measurement) -> Option<String> {
    let plain = format!("transform.named_sequence @{matcher}(");
    let quoted = format!("transform.named_sequence @\"{matcher}\"(");
    let start = match text.find(&plain) {
        Some(at) => at + plain.len(),
        None => text.find(&quoted)? + quoted.len(),
    };
    // Skip the argument list.
    let mut depth = 1usize;
    let mut index = start;
    let bytes = text.as_bytes();
    while depth > 0 {
        match *bytes.get(index)? {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'"' => {
                index += 1;
                while *bytes.get(index)? != b'"' {
                    index += if bytes[index] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        index += 1;
    }
    let attrs = format!(
        "{PROVENANCE_ATTR} = {}, {MEASUREMENT_ATTR} = {}",
        mlir_string(&measurement.provenance()),
        measurement.dictionary()
    );
    let body = index + text[index..].find('{')?;
    let between = &text[index..body];
    if between.trim_end().ends_with("attributes") {
        let mut out = String::with_capacity(text.len() + attrs.len() + 4);
        out.push_str(&text[..=body]);
        out.push_str(&attrs);
        out.push_str(", ");
        out.push_str(&text[body + 1..]);
        return Some(out);
    }
    let mut out = String::with_capacity(text.len() + attrs.len() + 16);
    out.push_str(text[..body].trim_end());
    out.push_str(&format!(" attributes {{{attrs}}} "));
    out.push_str(&text[body..]);
    Some(out)
}

/// A file name for a dispatch's spec: its name with characters other than letters, digits,
/// `_` and `-` replaced by `_`.
pub fn file_stem(dispatch: &str) -> String {
    let stem: String = dispatch
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "dispatch".to_string()
    } else {
        stem
    }
}

/// The manifest of a measured library written by `tool` (`import-tuner`, or `bench`): each
/// target's specs, before that target's defaults; under `[targets.NAME]` for a target the
/// library defines (`definitions`), else `[extend.NAME]`.
pub fn manifest_text(
    tool: &str,
    targets: &[(String, Vec<String>)],
    definitions: &[tunespec_core::manifest::Definition],
) -> String {
    let what = if tool == TOOL {
        ": measured configs from SHARK tuner runs."
    } else {
        ": measured configs, each timed against IREE's own on the device its record names."
    };
    let mut writer = tunespec_core::manifest::Writer::written_by(tool, what);
    writer.comment("Each spec's matcher carries its measurement (tunespec.measurement).");
    for definition in definitions {
        let mut definition = definition.clone();
        definition.specs = targets
            .iter()
            .find(|(target, _)| *target == definition.name)
            .map(|(_, specs)| specs.clone())
            .unwrap_or_default();
        writer.define(definition);
    }
    for (target, specs) in targets {
        if !definitions
            .iter()
            .any(|definition| &definition.name == target)
        {
            writer.extend(target, specs);
        }
    }
    writer.text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_is_written_as_before() {
        let text = manifest_text(
            TOOL,
            &[(
                "gfx942".to_string(),
                vec!["a.mlir".to_string(), "b c.mlir".to_string()],
            )],
            &[],
        );
        assert_eq!(
            text,
            "# Written by `tunespec import-tuner`: measured configs from SHARK tuner runs.\n\
             # Each spec's matcher carries its measurement (tunespec.measurement).\n\
             schema = 1\n\n[extend.gfx942]\nspecs = [\"a.mlir\", \"b c.mlir\"]\n"
        );
        assert_eq!(tunespec_core::manifest::written_by(&text), Some(TOOL));
    }

    #[test]
    fn annotates_a_header_without_attributes() {
        let text = "transform.named_sequence @m(%a: !transform.any_op {transform.readonly}) -> (!transform.any_op) {\n}";
        let measurement = Measurement {
            subject: Subject::Dispatch("d".into()),
            candidate: Some(3),
            device: "hip://0".into(),
            iree: "unknown".into(),
            date: "2026-01-02".into(),
            baseline_us: 100.0,
            tuned_us: 80.0,
            speedup: 0.8,
            ..Measurement::default()
        };
        let out = annotate(text, "m", &measurement).unwrap();
        assert!(out.contains(") -> (!transform.any_op) attributes {tunespec.provenance = \"measured on hip://0 (speedup 0.800"));
        assert!(out.ends_with("candidate = \"3\"}} {\n}"));
    }

    #[test]
    fn summary_gives_the_gpu_and_the_flags() {
        let text = "IREE compiler version: 3.13.0\n\
            Device: cuda://0 (cuda); GPU: Some GPU 80GB, 123.45.6, 9.0, 81559 MiB\n\
            Compile flags: --iree-hal-target-device=cuda --iree-cuda-target=sm_89 (PTX);\n  more\n";
        let summary = parse_summary(text);
        assert_eq!(summary.gpu.as_deref(), Some("Some GPU 80GB"));
        assert_eq!(summary.driver.as_deref(), Some("123.45.6"));
        assert_eq!(
            summary.flags.as_deref(),
            Some("--iree-hal-target-device=cuda --iree-cuda-target=sm_89")
        );
        let measurement = Measurement {
            subject: Subject::Dispatch("d".into()),
            candidate: Some(6),
            device: "cuda://0".into(),
            device_name: summary.gpu,
            driver: summary.driver,
            flags: summary.flags,
            iree: "3.13.0".into(),
            date: "2026-11-26".into(),
            baseline_us: 100.0,
            tuned_us: 70.0,
            speedup: 0.7,
            ..Measurement::default()
        };
        assert!(measurement.provenance().starts_with(
            "measured on Some GPU 80GB (cuda://0, driver 123.45.6) with sm_89 PTX (--iree-hal-target-device=cuda --iree-cuda-target=sm_89) (speedup 0.700"
        ));
        assert!(measurement.dictionary().contains(
            "device = \"cuda://0\", device_name = \"Some GPU 80GB\", driver = \"123.45.6\", flags = \"--iree-hal-target-device=cuda --iree-cuda-target=sm_89\""
        ));
        // Logs without the lines, or with odd ones, give nothing and fail nothing.
        for odd in [
            "",
            "GPU:",
            "GPU: , x",
            "Compile flags: none",
            "GPU:\u{0}, 1.2",
        ] {
            let summary = parse_summary(odd);
            assert_eq!(summary, Summary::default(), "{odd:?}");
        }
    }

    #[test]
    fn file_stems_are_plain() {
        assert_eq!(file_stem("main$async_dispatch_0"), "main_async_dispatch_0");
    }
}
