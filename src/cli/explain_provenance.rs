//! `explain`'s provenance (issue 25): per config, whether it was measured (device, IREE
//! version, speedup), derived by rule or stated; the summary line ("N config(s) measured on
//! <device> with IREE <version> (median speedup X), M derived by rule"); and, when derived
//! defaults were withheld (measured first), the ops where one would have applied had `--derived`
//! been given. Kept apart from `explain.rs`'s table and JSON so that those stay about matching.

use serde_json::json;
use tunespec::apply::{self, Explanation, PairInfo};
use tunespec::link::LinkOptions;
use tunespec::mlir::Mlir;
use tunespec::provenance::{self, Kind, Measured};

use super::common::LibraryArgs;

/// A pair's provenance kind: measured when its matcher carries a record, else by its sentence.
pub fn kind(pair: &PairInfo) -> Kind {
    if measured(pair).is_some() {
        Kind::Measured
    } else {
        provenance::kind_of_sentence(pair.provenance.as_deref())
    }
}

/// The device (the GPU's name where the record has one: `cuda://0` alone says nothing), IREE
/// version and speedup of a measured pair's record.
pub fn measured(pair: &PairInfo) -> Option<Measured> {
    Measured::from_record(&pair.measurement)
}

/// A pair's provenance in a few words: `measured on hip://0, IREE 3.13.0, speedup 0.800`,
/// `derived by rule R2`, `stated`.
pub fn words(pair: &PairInfo) -> String {
    match (kind(pair), measured(pair)) {
        (Kind::Measured, Some(m)) => format!(
            "measured on {}, IREE {}, speedup {:.3}",
            m.device, m.iree, m.speedup
        ),
        (Kind::Derived, _) => match pair.provenance.as_deref().and_then(provenance::rule) {
            Some(rule) => format!("derived by rule {rule}"),
            None => "derived".to_string(),
        },
        _ => "stated".to_string(),
    }
}

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
        "candidate" => value.trim().parse::<u64>().ok().map(|v| json!(v)),
        _ => None,
    };
    number.unwrap_or_else(|| json!(value))
}

/// The configured ops' provenance counted: the measured ones' records, derived, stated.
fn tally(explanation: &Explanation) -> (Vec<Measured>, usize, usize) {
    let mut measured_configs = Vec::new();
    let (mut derived, mut stated) = (0, 0);
    for row in &explanation.rows {
        let Some(pair) = row.pair.and_then(|index| explanation.pairs.get(index)) else {
            continue;
        };
        match (kind(pair), measured(pair)) {
            (Kind::Measured, Some(m)) => measured_configs.push(m),
            (Kind::Derived, _) => derived += 1,
            _ => stated += 1,
        }
    }
    (measured_configs, derived, stated)
}

/// The summary line's text, `None` when no op is configured.
pub fn summary(explanation: &Explanation) -> Option<String> {
    let (measured_configs, derived, stated) = tally(explanation);
    provenance::summary(&measured_configs, derived, stated)
}

/// The summary as JSON (`provenance` in docs/schema/explain.schema.json).
pub fn summary_json(explanation: &Explanation, would: &[WouldApply]) -> serde_json::Value {
    let (measured_configs, derived, stated) = tally(explanation);
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

/// One op nothing configured where a withheld derived default's matcher would have.
#[derive(Clone, Debug)]
pub struct WouldApply {
    /// The op's row id in the explanation (pre-order id in the payload).
    pub id: u32,
    /// The op's name (`op -> dispatch op` as the table shows it).
    pub op: String,
    /// Where it is in the payload.
    pub location: Option<String>,
    /// The derived matcher that would configure it.
    pub matcher: String,
    /// Where that matcher is written (`specs/...`).
    pub matcher_location: Option<String>,
    /// The matcher's provenance in words (`derived by rule R2`).
    pub provenance: String,
}

impl WouldApply {
    fn to_json(&self) -> serde_json::Value {
        json!({
            "op": self.op,
            "location": self.location,
            "matcher": self.matcher,
            "matcher_location": self.matcher_location,
            "provenance": self.provenance,
        })
    }
}

/// What `explain` and `apply --explain` add to the explanation of a library they linked (none
/// for a library attached to the payload): each pair's layer, from the inputs its matchers'
/// locations name, and the ops a withheld derived default would configure ([`would_apply`]).
pub fn annotate(
    mlir: &Mlir,
    args: &LibraryArgs,
    explanation: &mut Explanation,
    payload: &[u8],
    name: &str,
    attr: &str,
    engine: apply::Engine,
) -> Vec<WouldApply> {
    if !args.given() {
        return Vec::new();
    }
    if let Ok(inputs) = args.inputs() {
        apply::set_layers(explanation, &inputs);
    }
    would_apply(mlir, args, explanation, payload, name, attr, engine)
}

/// The ops nothing configured in `explanation` that a derived default withheld by measured
/// first would have configured: one more explain, over the withheld specs alone, only when a
/// target's resolution withheld some. Errors in that extra run are not the user's: it says
/// nothing then.
pub fn would_apply(
    mlir: &Mlir,
    args: &LibraryArgs,
    explanation: &Explanation,
    payload: &[u8],
    name: &str,
    attr: &str,
    engine: apply::Engine,
) -> Vec<WouldApply> {
    let Some(target) = args.target.as_deref() else {
        return Vec::new();
    };
    if args.no_default || explanation.rows.iter().all(|row| row.pair.is_some()) {
        return Vec::new();
    }
    let Ok(resolution) = args.resolution(target) else {
        return Vec::new();
    };
    if resolution.withheld.is_empty() {
        return Vec::new();
    }
    let _phase =
        tracing::info_span!("explain.derived", specs = resolution.withheld.len()).entered();
    let inputs: Vec<_> = resolution
        .withheld
        .iter()
        .map(|spec| {
            let mut input = spec.link_input();
            input.location.clone_from(&input.name);
            input
        })
        .collect();
    let Ok(linked) = tunespec::link::link(mlir, &inputs, LinkOptions::default()) else {
        return Vec::new();
    };
    let Ok(bytecode) = linked.module.to_bytecode() else {
        return Vec::new();
    };
    let Ok(derived) = apply::explain(
        mlir,
        payload,
        name,
        &bytecode,
        attr,
        engine,
        explanation.view,
    ) else {
        return Vec::new();
    };
    explanation
        .rows
        .iter()
        .filter(|row| row.pair.is_none())
        .filter_map(|row| {
            let other = derived.rows.iter().find(|other| other.id == row.id)?;
            let pair = other.pair.and_then(|index| derived.pairs.get(index))?;
            Some(WouldApply {
                id: row.id,
                op: match &row.dispatch_op {
                    Some(dispatch) => format!("{} -> {dispatch}", row.op),
                    None => row.op.clone(),
                },
                location: row.loc.as_ref().map(ToString::to_string),
                matcher: pair.matcher.clone(),
                matcher_location: pair.matcher_loc.as_ref().map(ToString::to_string),
                provenance: words(pair),
            })
        })
        .collect()
}

/// The unmatched-op notes of `github` and `sarif` (one per unmatched row, in row order, as
/// [`super::explain::unmatched_notes`] makes them), each told which withheld derived default
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
