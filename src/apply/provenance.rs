//! Provenance in an explanation (issue 25): per configured op, whether its config was measured
//! (device, IREE version, speedup), derived by rule or stated; the counts behind `explain`'s
//! summary line; and, when a resolution withheld derived defaults (measured first), the ops one
//! would have configured had they been linked ([`would_apply`]).
//!
//! Why in the library: these are facts about an [`Explanation`], which the Rust API can use as
//! well as the CLI; `src/cli/explain/provenance.rs` only renders them (tables, JSON, notes).

use serde_json::json;

use super::{explain, Engine, Explanation, PairInfo};
use crate::link::{self, LinkOptions};
use crate::mlir::Mlir;
use crate::provenance::{self, Kind, Measured};
use crate::registry::Resolution;

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

/// The configured ops of an explanation counted by provenance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// The measured configs' records, in row order.
    pub measured: Vec<Measured>,
    /// How many configs are derived by rule.
    pub derived: usize,
    /// How many say neither.
    pub stated: usize,
}

impl Tally {
    /// Counts the configured rows of `explanation` (an unmatched op counts nowhere).
    pub fn of(explanation: &Explanation) -> Tally {
        let mut tally = Tally::default();
        for row in &explanation.rows {
            let Some(pair) = row.pair.and_then(|index| explanation.pairs.get(index)) else {
                continue;
            };
            match (kind(pair), measured(pair)) {
                (Kind::Measured, Some(m)) => tally.measured.push(m),
                (Kind::Derived, _) => tally.derived += 1,
                _ => tally.stated += 1,
            }
        }
        tally
    }

    /// The summary line's text ("N config(s) measured on DEVICE with IREE VERSION (median
    /// speedup X), M derived by rule"), `None` when no op is configured.
    pub fn summary(&self) -> Option<String> {
        provenance::summary(&self.measured, self.derived, self.stated)
    }
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
    /// The JSON form (`derived_withheld` in docs/schema/explain.schema.json).
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "op": self.op,
            "location": self.location,
            "matcher": self.matcher,
            "matcher_location": self.matcher_location,
            "provenance": self.provenance,
        })
    }
}

/// The ops nothing configured in `explanation` that a derived default `resolution` withheld by
/// measured first would have configured: one more explain of the same payload (`payload`,
/// `name`, `attr`, `engine`, the explanation's view), over the withheld specs alone, only when
/// some op is unmatched and the resolution withheld some. Errors in that extra run are not the
/// user's: it says nothing then.
pub fn would_apply(
    mlir: &Mlir,
    resolution: &Resolution,
    explanation: &Explanation,
    payload: &[u8],
    name: &str,
    attr: &str,
    engine: Engine,
) -> Vec<WouldApply> {
    if resolution.withheld.is_empty() || explanation.rows.iter().all(|row| row.pair.is_some()) {
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
    let Ok(linked) = link::link(mlir, &inputs, LinkOptions::default()) else {
        return Vec::new();
    };
    let Ok(bytecode) = linked.module.to_bytecode() else {
        return Vec::new();
    };
    let Ok(derived) = explain(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::ExplainRow;

    fn pair(provenance: Option<&str>, measurement: &[(&str, &str)]) -> PairInfo {
        PairInfo {
            matcher: "m".into(),
            action: "a".into(),
            matcher_loc: None,
            provenance: provenance.map(str::to_string),
            measurement: measurement
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            scope: Vec::new(),
            sequence: "__kernel_config".into(),
            key: None,
            layer: None,
        }
    }

    fn row(id: u32, pair: Option<usize>) -> ExplainRow {
        ExplainRow {
            id,
            op: "linalg.matmul".into(),
            loc: None,
            loops: None,
            element_types: Vec::new(),
            pair,
            config: Vec::new(),
            fired: pair.into_iter().collect(),
            dispatch_op: None,
            written: None,
        }
    }

    #[test]
    fn pairs_are_worded_by_kind() {
        let measured = pair(
            Some("measured on hip://0"),
            &[
                ("device", "hip://0"),
                ("iree", "3.13.0"),
                ("speedup", "0.8"),
            ],
        );
        assert_eq!(kind(&measured), Kind::Measured);
        assert_eq!(
            words(&measured),
            "measured on hip://0, IREE 3.13.0, speedup 0.800"
        );
        let derived = pair(Some("derived by rule R2 (not measured on hardware)"), &[]);
        assert_eq!(kind(&derived), Kind::Derived);
        assert_eq!(words(&derived), "derived by rule R2");
        assert_eq!(words(&pair(None, &[])), "stated");
    }

    #[test]
    fn the_tally_counts_configured_rows_only() {
        let explanation = Explanation {
            pairs: vec![
                pair(Some("derived by rule R1"), &[]),
                pair(None, &[]),
                pair(
                    None,
                    &[("gpu", "H100"), ("iree", "3.13.0"), ("speedup", "0.5")],
                ),
            ],
            rows: vec![
                row(0, Some(0)),
                row(1, Some(0)),
                row(2, None),
                row(3, Some(1)),
                row(4, Some(2)),
            ],
            ..Explanation::default()
        };
        let tally = Tally::of(&explanation);
        assert_eq!((tally.derived, tally.stated), (2, 1));
        assert_eq!(tally.measured.len(), 1);
        assert_eq!(tally.measured[0].device, "H100");
        assert!(tally.summary().is_some());
        assert_eq!(Tally::of(&Explanation::default()).summary(), None);
    }
}
