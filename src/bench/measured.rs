//! Measured entries from a bench: each matcher whose config beat IREE's own (faster beyond the
//! noise, outputs equal) becomes a spec of its own annotated with its measurement, merged by key
//! into a measured library (`bench --write`), as `import-tuner` does for tuner runs.

use crate::measured_library::{self, Entry};
use crate::mlir::Mlir;
use crate::tuner_import::{self, Measurement};

use super::{Row, Status};

/// What the device is, in words a reader knows: the GPU's or CPU's name and the driver's
/// version, beside the runtime's device name (a `cuda` alone does not say what was measured).
/// `nvidia-smi` for CUDA, `/proc/cpuinfo` for the CPU; `None` where nothing says more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceName {
    /// `NVIDIA H100 80GB HBM3`, `CPU Intel(R) Xeon(R) Processor`.
    pub name: Option<String>,
    /// The GPU driver's version.
    pub driver: Option<String>,
}

impl DeviceName {
    /// The name of the runtime's `device`.
    pub fn of(device: &str) -> DeviceName {
        match device.split("://").next().unwrap_or(device) {
            "cuda" => nvidia_smi().unwrap_or_default(),
            "local-task" | "local-sync" => DeviceName {
                name: cpu_name(),
                driver: None,
            },
            _ => DeviceName::default(),
        }
    }
}

fn nvidia_smi() -> Option<DeviceName> {
    let out = crate::iree::runtime::run_tool(
        std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=name,driver_version", "--format=csv,noheader"]),
        std::time::Duration::from_secs(20),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (name, driver) = text.lines().next()?.trim().split_once(", ")?;
    Some(DeviceName {
        name: Some(name.to_string()),
        driver: Some(driver.to_string()),
    })
}

fn cpu_name() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, name)| format!("CPU {}", name.trim()))
}

/// How a bench was run, for the records.
pub struct Context<'a> {
    /// The runtime's device (`cuda`, `local-task`).
    pub device: &'a str,
    /// What it is.
    pub name: &'a DeviceName,
    /// The IREE compiler's revision.
    pub iree: &'a str,
    /// The compile flags.
    pub flags: &'a [String],
    /// Today, `YYYY-MM-DD`.
    pub date: &'a str,
}

/// The measurement of a faster row.
fn measurement(row: &Row, context: &Context<'_>) -> Option<Measurement> {
    let timing = row.timing.as_ref()?;
    Some(Measurement {
        dispatch: row.matcher.clone().unwrap_or_else(|| row.name.clone()),
        candidate: 0,
        device: context.device.to_string(),
        gpu: context.name.name.clone(),
        driver: context.name.driver.clone(),
        flags: Some(context.flags.join(" ")),
        iree: context
            .iree
            .split_whitespace()
            .next()
            .unwrap_or(context.iree)
            .to_string(),
        date: context.date.to_string(),
        baseline_us: round3(timing.baseline.median_us),
        tuned_us: round3(timing.tuned.median_us),
        speedup: timing.ratio,
    })
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The library entries of `rows` (faster function rows of matcher cases) for `target`; `specs`
/// holds each matcher's standalone spec by matcher name. Rows that are not winners are
/// returned as why-not lines.
pub fn entries(
    mlir: &Mlir,
    rows: &[(Row, String, crate::link::MatcherKey)],
    target: &str,
    context: &Context<'_>,
) -> (Vec<Entry>, Vec<String>) {
    let mut winners = Vec::new();
    let mut losers = Vec::new();
    for (row, spec, key) in rows {
        let name = row.matcher.clone().unwrap_or_else(|| row.name.clone());
        if row.status != Status::Faster || row.kind != "function" {
            losers.push(format!("@{name}: {} (left out)", row.status.words()));
            continue;
        }
        let Some(measured) = measurement(row, context) else {
            losers.push(format!("@{name}: not timed (left out)"));
            continue;
        };
        let Some(mut text) = tuner_import::annotate(spec, &name, &measured) else {
            losers.push(format!("@{name}: its header was not found (left out)"));
            continue;
        };
        text = extend_record(&text, row, context);
        let verified = crate::verify::verify_bytes(mlir, text.as_bytes(), &name);
        if verified.has_errors() {
            losers.push(format!(
                "@{name}: the annotated spec does not verify (left out)"
            ));
            continue;
        }
        winners.push(Entry {
            target: target.to_string(),
            key: key.clone().for_target(target.to_string()),
            file: None,
            text,
            measurement: measured,
            origin: format!("{} (@{name})", row.case),
        });
    }
    (winners, losers)
}

/// A comparison's interval in words: `0.712-0.748 (99%)`, or `unbounded` with too few rounds.
pub fn interval_words(timing: &super::stats::Comparison) -> String {
    match (timing.ci_low, timing.ci_high) {
        (Some(low), Some(high)) => format!(
            "{low:.3}-{high:.3} ({}%)",
            super::stats::percent(timing.confidence)
        ),
        _ => "unbounded".to_string(),
    }
}

/// The measurement dictionary with what a bench knows beyond a tuner's CSV: how it was
/// measured (tool, flags, IREE revision, samples, spread, p-value).
fn extend_record(text: &str, row: &Row, context: &Context<'_>) -> String {
    let Some(timing) = &row.timing else {
        return text.to_string();
    };
    let extra = format!(
        ", method = \"tunespec bench\", iree_revision = {rev:?}, samples = \"{n_base}/{n_tuned}\", baseline_iqr_us = \"{bq1:.3}-{bq3:.3}\", tuned_iqr_us = \"{tq1:.3}-{tq3:.3}\", rounds = \"{rounds}\", ratio_interval = \"{interval}\", p_value = \"{p:.2e}\"",
        rev = context.iree,
        n_base = timing.baseline.samples,
        n_tuned = timing.tuned.samples,
        bq1 = timing.baseline.q1_us,
        bq3 = timing.baseline.q3_us,
        tq1 = timing.tuned.q1_us,
        tq3 = timing.tuned.q3_us,
        p = timing.p_value,
        rounds = timing.rounds,
        interval = interval_words(timing),
    );
    // The record is the dictionary that ends with `candidate = "0"}`.
    let marker = "candidate = \"0\"}";
    match text.find(marker) {
        Some(at) => {
            let end = at + marker.len() - 1;
            format!("{}{extra}{}", &text[..end], &text[end..])
        }
        None => text.to_string(),
    }
}

/// Merges `winners` into the measured library at `output` (created, or merged into when a
/// measured library is there) and writes it whole or not at all. Returns the merge notes.
pub fn write(
    mlir: &Mlir,
    output: &std::path::Path,
    winners: Vec<Entry>,
) -> Result<Vec<String>, String> {
    let mut entries = measured_library::existing_entries(mlir, output)?;
    let mut notes = Vec::new();
    for entry in winners {
        measured_library::merge(&mut entries, entry, &mut notes);
    }
    let files = measured_library::library_files(&mut entries);
    measured_library::write_directory(output, &files)?;
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::stats::{self, Rule};

    const SPEC: &str = include_str!("../../tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir");

    /// A faster row for `matcher` (tuned samples scaled by `factor`).
    fn faster(matcher: &str, factor: f64) -> Row {
        let rounds: Vec<stats::Round> = (0..8)
            .map(|i| {
                let base = vec![100.0 + f64::from(i)];
                let tuned = base.iter().map(|v| v * factor).collect();
                (base, tuned)
            })
            .collect();
        let timing = stats::compare_rounds(&rounds, Rule::default(), 0.01);
        assert_eq!(timing.verdict, stats::Verdict::Faster);
        Row {
            case: format!("two_matmuls.mlir: @{matcher}"),
            kind: "function",
            name: "f".into(),
            matcher: Some(matcher.into()),
            status: Status::Faster,
            message: None,
            timing: Some(timing),
            outputs: None,
            samples_us: Some((
                rounds.iter().flat_map(|round| round.0.clone()).collect(),
                rounds.iter().flat_map(|round| round.1.clone()).collect(),
            )),
        }
    }

    fn winners(mlir: &Mlir, rows: &[(&str, f64)]) -> Vec<Entry> {
        let verified = crate::verify::verify_bytes(mlir, SPEC.as_bytes(), "two_matmuls.mlir");
        let module = verified.snapshot.unwrap();
        let keys = tuner_import::keyed_matchers(&module);
        let rows: Vec<(Row, String, crate::link::MatcherKey)> = rows
            .iter()
            .map(|(matcher, factor)| {
                let key = keys
                    .iter()
                    .find(|k| k.name == *matcher)
                    .unwrap()
                    .key
                    .clone();
                let spec = crate::bench::standalone::standalone(SPEC, &module, matcher).unwrap();
                (faster(matcher, *factor), spec, key)
            })
            .collect();
        let name = DeviceName {
            name: Some("CPU test".to_string()),
            driver: None,
            threads: Some(4),
        };
        let context = Context {
            device: "local-task",
            name: &name,
            iree: "3.13.0 @ abc",
            runtime: Some("iree-base-runtime 3.13.0"),
            flags: &["--iree-hal-target-device=local".to_string()],
            date: "2026-11-26",
        };
        let (winners, losers) = entries(mlir, &rows, "bench_cpu", &context);
        assert!(losers.is_empty(), "{losers:?}");
        winners
    }

    fn library(dir: &std::path::Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| {
                let relative = entry
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .display()
                    .to_string();
                (relative, std::fs::read_to_string(entry.path()).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn winners_carry_their_measurement_and_shards_merge_to_one_library_in_any_order() {
        let mlir = Mlir::new();
        let first = winners(&mlir, &[("match_mm_128_tiny_tiles", 0.5)]);
        let second = winners(&mlir, &[("match_mm_96_note", 0.7)]);
        // The same key measured twice: the faster stays.
        let slower_again = winners(&mlir, &[("match_mm_128_tiny_tiles", 0.9)]);
        let text = &first[0].text;
        assert!(
            text.contains(
                "tunespec.measurement = {source = \"measured\", device = \"local-task\", gpu = \"CPU test\""
            ),
            "{text}"
        );
        assert!(
            text.contains("measured on CPU test (local-task) with --iree-hal-target-device=local"),
            "{text}"
        );
        assert!(text.contains("method = \"tunespec bench\""), "{text}");
        assert!(text.contains("samples = \"8/8\""), "{text}");
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for shard in [&first, &second, &slower_again] {
            write(&mlir, &a, shard.clone()).unwrap();
        }
        for shard in [&slower_again, &second, &first] {
            write(&mlir, &b, shard.clone()).unwrap();
        }
        let (a, b) = (library(&a), library(&b));
        assert_eq!(a, b);
        assert_eq!(a.len(), 3, "two specs and the manifest: {a:?}");
        let spec_128 = a
            .iter()
            .find(|(_, text)| text.contains("match_mm_128"))
            .unwrap();
        assert!(spec_128.1.contains("speedup = \"0.500\""), "{}", spec_128.1);
    }
}
