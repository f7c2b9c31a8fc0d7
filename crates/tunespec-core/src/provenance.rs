//! Where a matcher's config comes from, as its spec says (issue 25, "provenance everywhere"):
//! measured (a `tunespec.measurement` record, which `tunespec import-tuner` writes from the
//! tuner's benchmarks), derived by a rule (a `tunespec.provenance` sentence starting with
//! `derived`, as every embedded default says), or stated (neither: the user wrote it and said
//! nothing). In tunespec-core because `build.rs` counts them per default spec, so that
//! resolution can withhold derived-only defaults without parsing anything at run time.

use crate::ir::{self, Attr};

/// The matcher attribute that says where its config comes from, in a sentence.
pub const PROVENANCE_ATTR: &str = "tunespec.provenance";
/// The matcher attribute that holds a measurement record (a dictionary of strings).
pub const MEASUREMENT_ATTR: &str = "tunespec.measurement";

/// The three kinds of provenance a matcher can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// It carries a measurement record.
    Measured,
    /// Its provenance sentence says it was derived (by a rule), not measured.
    Derived,
    /// Neither: the user stated it.
    Stated,
}

impl Kind {
    /// `measured`, `derived` or `stated`, as reports and JSON name it.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Measured => "measured",
            Kind::Derived => "derived",
            Kind::Stated => "stated",
        }
    }
}

/// The kind of a matcher (a named sequence) by its attributes.
pub fn classify(matcher: &ir::Op) -> Kind {
    if matcher.has_attr(MEASUREMENT_ATTR) {
        return Kind::Measured;
    }
    let sentence = matcher.attr(PROVENANCE_ATTR).and_then(Attr::as_str);
    kind_of_sentence(sentence)
}

/// The kind a provenance sentence alone says (`None`: stated). A sentence without a record
/// counts as derived only when it says so: "measured on ..." without the record is stated.
pub fn kind_of_sentence(sentence: Option<&str>) -> Kind {
    match sentence {
        Some(text) if text.trim_start().starts_with("derived") => Kind::Derived,
        _ => Kind::Stated,
    }
}

/// The rule a derived sentence names (`R2` in "derived by rule R2 (not measured on
/// hardware)"), if it names one.
pub fn rule(sentence: &str) -> Option<&str> {
    let rest = sentence.trim_start().strip_prefix("derived by rule")?;
    rest.split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '(')
        .find(|word| !word.is_empty())
}

/// What reports show of one measured matcher's record (`tunespec.measurement`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The matcher's symbol name.
    pub matcher: String,
    /// What it was measured on: the device's name where the record has one (`device_name`, or
    /// `gpu` in older records), else its device id (`cuda://0` alone does not say which GPU).
    pub device: String,
    /// The IREE version of the run (`unknown` when the record lacks it).
    pub iree: String,
    /// Tuned over baseline time, as written (`0.734`; empty when the record lacks it).
    pub speedup: String,
}

impl Record {
    /// The record of `matcher`'s `tunespec.measurement`, if it has one.
    pub fn of(matcher: &ir::Op) -> Option<Record> {
        let attr = matcher.attr(MEASUREMENT_ATTR)?;
        let get = |name: &str| attr.dict_get(name).and_then(Attr::as_str);
        Some(Record {
            matcher: matcher.sym_name().unwrap_or_default().to_string(),
            device: get("device_name")
                .or_else(|| get("gpu"))
                .or_else(|| get("device"))
                .unwrap_or("unknown")
                .to_string(),
            iree: get("iree").unwrap_or("unknown").to_string(),
            speedup: get("speedup").unwrap_or_default().to_string(),
        })
    }

    /// Whether the record says the config beat IREE's own (speedup below 1). Why: a config
    /// measured as slow as or slower than IREE's, or one whose record says no speedup, must
    /// never ship as a measured default (`build.rs` refuses it).
    pub fn beats_baseline(&self) -> bool {
        self.speedup
            .trim()
            .parse::<f64>()
            .is_ok_and(|speedup| speedup.is_finite() && speedup > 0.0 && speedup < 1.0)
    }
}

/// How many of a spec's matchers are of each kind, and the rules its derived ones name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Matchers with a measurement record.
    pub measured: usize,
    /// Matchers derived by a rule.
    pub derived: usize,
    /// Matchers that say neither.
    pub stated: usize,
    /// The distinct rules the derived ones name, sorted.
    pub rules: Vec<String>,
    /// The measured ones' records, in the order of the spec.
    pub records: Vec<Record>,
}

/// Counts the matchers of `module`: every named sequence some `foreach_match` lists as a matcher
/// (by its leaf name; a matcher listed twice counts once).
pub fn count(module: &ir::Module) -> Counts {
    let mut listed: std::collections::BTreeSet<&str> = Default::default();
    module.root.walk(&mut |op| {
        if op.name != ir::names::FOREACH_MATCH {
            return;
        }
        for matcher in op.attr("matchers").and_then(Attr::as_array).unwrap_or(&[]) {
            if let Some(leaf) = matcher.as_symbol_ref().and_then(<[String]>::last) {
                listed.insert(leaf);
            }
        }
    });
    let mut counts = Counts::default();
    let mut seen: std::collections::BTreeSet<&str> = Default::default();
    module.root.walk(&mut |op| {
        if op.name != ir::names::NAMED_SEQUENCE {
            return;
        }
        let Some(name) = op.sym_name() else {
            return;
        };
        if !listed.contains(name) || !seen.insert(name) {
            return;
        }
        match classify(op) {
            Kind::Measured => {
                counts.measured += 1;
                counts.records.extend(Record::of(op));
            }
            Kind::Derived => {
                counts.derived += 1;
                if let Some(rule) = op
                    .attr(PROVENANCE_ATTR)
                    .and_then(Attr::as_str)
                    .and_then(rule)
                {
                    counts.rules.push(rule.to_string());
                }
            }
            Kind::Stated => counts.stated += 1,
        }
    });
    counts.rules.sort();
    counts.rules.dedup();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_speedup_below_one_beats_the_baseline() {
        let record = |speedup: &str| Record {
            matcher: "m".into(),
            device: "d".into(),
            iree: "3.13.0".into(),
            speedup: speedup.into(),
        };
        assert!(record("0.955").beats_baseline());
        for slower in ["1.077", "1", "1.000", "", "fast", "NaN", "-0.5", "0", "inf"] {
            assert!(!record(slower).beats_baseline(), "{slower}");
        }
    }

    #[test]
    fn sentences_classify() {
        assert_eq!(
            kind_of_sentence(Some("derived by rule R2 (not measured on hardware)")),
            Kind::Derived
        );
        assert_eq!(kind_of_sentence(Some("measured on hip://0")), Kind::Stated);
        assert_eq!(kind_of_sentence(None), Kind::Stated);
        assert_eq!(
            rule("derived by rule R2 (not measured on hardware)"),
            Some("R2")
        );
        assert_eq!(rule("derived by rule R10, from R2"), Some("R10"));
        assert_eq!(rule("measured on hip://0"), None);
    }
}
