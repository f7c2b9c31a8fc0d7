//! Measured entries from a bench: each matcher whose config beat IREE's own (faster beyond the
//! noise, outputs equal) becomes a spec of its own annotated with its measurement, merged by key
//! into a measured library (`bench --write`), as `import-tuner` does for tuner runs.

use crate::measured_library::{self, Entry};
use crate::mlir::Mlir;
use crate::tuner_import::{self, Measurement};

use super::{Row, Status};

/// What the device is, in words a reader knows: the GPU's or CPU's name and driver, with the
/// runtime's device name (`NVIDIA H100 80GB HBM3 (driver 580.159.04; cuda)`). `nvidia-smi` for
/// CUDA, `/proc/cpuinfo` for the CPU, the device name alone where nothing says more.
pub fn describe_device(device: &str) -> String {
    let scheme = device.split("://").next().unwrap_or(device);
    let named = match scheme {
        "cuda" => nvidia_smi(),
        "local-task" | "local-sync" => cpu_name(),
        _ => None,
    };
    match named {
        Some(name) => format!("{name} ({device})"),
        None => device.to_string(),
    }
}

fn nvidia_smi() -> Option<String> {
    let out = crate::iree::runtime::run_tool(
        std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=name,driver_version", "--format=csv,noheader"]),
        std::time::Duration::from_secs(20),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next()?.trim().to_string();
    let (name, driver) = line.split_once(", ")?;
    Some(format!("{name}, driver {driver}"))
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
    /// [`describe_device`].
    pub device: &'a str,
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

/// The measurement dictionary with what a bench knows beyond a tuner's CSV: how it was
/// measured (tool, flags, IREE revision, samples, spread, p-value).
fn extend_record(text: &str, row: &Row, context: &Context<'_>) -> String {
    let Some(timing) = &row.timing else {
        return text.to_string();
    };
    let extra = format!(
        ", method = \"tunespec bench\", iree_revision = {rev:?}, flags = {flags:?}, samples = \"{n_base}/{n_tuned}\", baseline_iqr_us = \"{bq1:.3}-{bq3:.3}\", tuned_iqr_us = \"{tq1:.3}-{tq3:.3}\", p_value = \"{p:.2e}\"",
        rev = context.iree,
        flags = context.flags.join(" "),
        n_base = timing.baseline.samples,
        n_tuned = timing.tuned.samples,
        bq1 = timing.baseline.q1_us,
        bq3 = timing.baseline.q3_us,
        tq1 = timing.tuned.q1_us,
        tq3 = timing.tuned.q3_us,
        p = timing.p_value,
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
