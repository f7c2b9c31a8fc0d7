//! `explain`'s provenance (issue 25): per config, whether it was measured (device, IREE
//! version, speedup), derived by rule or stated; the summary line ("N config(s) measured on
//! <device> with IREE <version> (median speedup X), M derived by rule"); and, when derived
//! defaults were withheld (measured first), the ops where one would have applied had `--derived`
//! been given. Kept apart from `explain.rs`'s table and JSON so that those stay about matching.
//! The facts (kinds, counts, the withheld defaults' ops) are the library's
//! (`tunespec::apply::provenance`); this file renders them.

use serde_json::json;
use tunespec::apply::provenance::{kind, would_apply, Tally};
pub use tunespec::apply::provenance::{words, WouldApply};
use tunespec::apply::{self, Explanation, PairInfo};
use tunespec::mlir::Mlir;
use tunespec::provenance::{self, Kind, Measured};

use crate::cli::common::Resolved;

/// The per-op JSON fields: `provenance_kind` and `measurement` (null for an unmatched op).
pub fn op_json(pair: Option<&PairInfo>) -> (serde_json::Value, serde_json::Value) {
    let Some(pair) = pair else {
        return (serde_json::Value::Null, serde_json::Value::Null);
    };
    let record = if pair.measurement.is_empty() {
        serde_json::Value::Null
    } else {
        let mut map = serde_json::Map::new();
        for (field, value) in &pair.measurement {
            map.insert(field.clone(), record_field(field, value));
        }
        serde_json::Value::Object(map)
    };
    (json!(kind(pair).label()), record)
}

/// A record's field as JSON: the record holds strings; times and the speedup are numbers and
/// the candidate an integer, as consumers compare them (a value that is not one stays a string).
fn record_field(field: &str, value: &str) -> serde_json::Value {
    let number = match field {
        "baseline_us" | "tuned_us" | "speedup" => value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|v| json!(v)),
        "candidate" | "threads" => value.trim().parse::<u64>().ok().map(|v| json!(v)),
        _ => None,
    };
    number.unwrap_or_else(|| json!(value))
}

/// The summary line's text, `None` when no op is configured.
pub fn summary(explanation: &Explanation) -> Option<String> {
    Tally::of(explanation).summary()
}

/// The summary as JSON (`provenance` in docs/schema/explain.schema.json).
pub fn summary_json(explanation: &Explanation, would: &[WouldApply]) -> serde_json::Value {
    let Tally {
        measured: measured_configs,
        derived,
        stated,
    } = Tally::of(explanation);
    let speedups: Vec<f64> = measured_configs.iter().map(|m| m.speedup).collect();
    let set = |f: fn(&Measured) -> &str| {
        measured_configs
            .iter()
            .map(f)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    };
    json!({
        "measured": measured_configs.len(),
        "derived": derived,
        "stated": stated,
        "devices": set(|m| m.device.as_str()),
        "iree_versions": set(|m| m.iree.as_str()),
        "median_speedup": provenance::median(&speedups),
        "summary": provenance::summary(&measured_configs, derived, stated),
        "derived_withheld": would.iter().map(WouldApply::to_json).collect::<Vec<_>>(),
    })
}

/// The human report's provenance lines: one per kind of config (with the spec's own sentence
/// when it has one), the summary, and a line per op a withheld derived config would configure.
pub fn human_lines(explanation: &Explanation, would: &[WouldApply]) -> String {
    let mut out = String::new();
    let mut groups: std::collections::BTreeMap<String, usize> = Default::default();
    for row in &explanation.rows {
        if let Some(pair) = row.pair.and_then(|index| explanation.pairs.get(index)) {
            let line = match (kind(pair), &pair.provenance) {
                (Kind::Stated, None) => {
                    "stated (the spec says neither measured nor derived)".into()
                }
                (_, Some(sentence)) => sentence.clone(),
                (_, None) => words(pair),
            };
            *groups.entry(line).or_default() += 1;
        }
    }
    for (line, count) in &groups {
        out.push_str(&format!("provenance: {count} config(s) {line}\n"));
    }
    if let Some(summary) = summary(explanation) {
        out.push_str(&format!("provenance summary: {summary}\n"));
    }
    out.push_str(&would_lines(would));
    out
}

/// `derived (withheld): ...` lines, one per op, and how to get them.
pub fn would_lines(would: &[WouldApply]) -> String {
    let mut out = String::new();
    for entry in would {
        out.push_str(&format!(
            "derived (withheld): {}{} would be configured by @{} ({}), {}, with --derived\n",
            entry.op,
            entry
                .location
                .as_ref()
                .map(|loc| format!(" at {loc}"))
                .unwrap_or_default(),
            entry.matcher,
            entry.matcher_location.as_deref().unwrap_or("-"),
            entry.provenance,
        ));
    }
    if !would.is_empty() {
        out.push_str(&format!(
            "{} op(s) keep IREE's default configuration that a derived default would set; derived defaults are linked only on request (--derived, `derived = true`, TUNESPEC_DERIVED=1)\n",
            would.len()
        ));
    }
    out
}

/// What `explain` and `apply --explain` add to the explanation of a library they linked from
/// `resolved` (none for a library attached to the payload, `None`): each pair's layer, from the
/// inputs its matchers' locations name, and the ops a withheld derived default would configure
/// ([`would_apply`]). The resolution is the link's own: the target is resolved once.
pub fn annotate(
    mlir: &Mlir,
    resolved: Option<&Resolved>,
    explanation: &mut Explanation,
    payload: &[u8],
    name: &str,
    attr: &str,
    engine: apply::Engine,
) -> Vec<WouldApply> {
    let Some(resolved) = resolved else {
        return Vec::new();
    };
    apply::set_layers(explanation, &resolved.inputs);
    withheld_would_apply(mlir, resolved, explanation, payload, name, attr, engine)
}

/// The ops nothing configured in `explanation` that a derived default withheld by measured
/// first would have configured, for the target the command line names
/// ([`tunespec::apply::provenance::would_apply`]); none without a target or with
/// `--no-default`.
fn withheld_would_apply(
    mlir: &Mlir,
    resolved: &Resolved,
    explanation: &Explanation,
    payload: &[u8],
    name: &str,
    attr: &str,
    engine: apply::Engine,
) -> Vec<WouldApply> {
    let Some(resolution) = &resolved.resolution else {
        return Vec::new();
    };
    if resolved.no_default || explanation.rows.iter().all(|row| row.pair.is_some()) {
        return Vec::new();
    }
    would_apply(mlir, resolution, explanation, payload, name, attr, engine)
}

/// The unmatched-op notes of `github` and `sarif` (one per unmatched row, in row order, as
/// [`super::unmatched_notes`] makes them), each told which withheld derived default
/// would configure its op.
pub fn annotate_notes(
    notes: &mut [tunespec::problem::Problem],
    explanation: &Explanation,
    would: &[WouldApply],
) {
    let unmatched = explanation.rows.iter().filter(|row| row.pair.is_none());
    for (row, note) in unmatched.zip(notes.iter_mut()) {
        if let Some(entry) = would.iter().find(|entry| entry.id == row.id) {
            note.message.push_str(&format!(
                "; with --derived, @{} ({}) would configure it",
                entry.matcher, entry.provenance
            ));
        }
    }
}
