//! Provenance in reports: per spec (`resolve`, `targets`) and per config (`explain`), whether a
//! config was measured (device, IREE version, speedup: the `tunespec.measurement` record that
//! `tunespec import-tuner` writes), derived by a rule (tunespec's defaults), or stated (the user
//! wrote it and said neither); and `explain`'s summary line, "N configs measured on DEVICE with
//! IREE VERSION (median speedup X), M derived by rule".
//!
//! The one home of provenance on the `tunespec` side: the attributes' names, the kinds and how a
//! matcher is classified are [`tunespec_core::provenance`] (shared with `build.rs`, which counts
//! them per default spec), re-exported here; this module reads the records ([`Measured`], from
//! an attribute, a pair or a spec's text) and words them. Linking (`link::key`), `apply`'s
//! explain, `import-tuner` and the registry all take them from here, and this module depends on
//! none of them (`tools/check-module-cycles`). The full record `import-tuner` writes is
//! `tuner_import::Measurement`.

use std::collections::BTreeSet;

use serde_json::json;

use tunespec_core::ir::Attr;

pub use tunespec_core::provenance::{classify, count, kind_of_sentence, rule, Counts, Kind};
pub use tunespec_core::provenance::{MEASUREMENT_ATTR, PROVENANCE_ATTR};

/// One measured entry as reports show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The device it ran on (`hip://0`).
    pub device: String,
    /// The IREE version the run used.
    pub iree: String,
    /// Tuned time over baseline time (below 1 is faster: the tuner's `benchmark_speedup`).
    pub speedup: f64,
}

impl Measured {
    /// The device, IREE version and speedup of a `tunespec.measurement` record given as its
    /// (field, string) pairs; `None` when one is missing or the speedup is not a number.
    pub fn from_record(fields: &[(String, String)]) -> Option<Measured> {
        let get = |name: &str| {
            fields
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        Some(Measured {
            device: get("device_name")
                .or_else(|| get("gpu"))
                .or_else(|| get("device"))?,
            iree: get("iree")?,
            speedup: get("speedup")?.parse().ok()?,
        })
    }
}

/// The full record of one measured config: what `tunespec import-tuner` (the tuner's winner of a
/// dispatch) and `bench --write` write as a matcher's `tunespec.measurement` dictionary and
/// `tunespec.provenance` sentence, and what `check` reads back. [`Measured`] is the part of it
/// reports show (device, IREE version, speedup), read leniently from any record.
// Serialized as it is by the shared store's entries (`crate::store`), which keep the record
// whole rather than a copy of some of its fields.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurement {
    /// What was measured: the tuner's dispatch (the CSV's stem), written as `dispatch`; or the
    /// matcher `bench` built a payload for, written as `matcher` (a matcher is not a dispatch).
    pub subject: Subject,
    /// The tuner's candidate number (`candidates/specs/<N>_spec.mlir`); `None` for `bench`.
    pub candidate: Option<u64>,
    /// The runtime's device it ran on (`hip://0`, `local-task`).
    pub device: String,
    /// What the device is (`NVIDIA H100 80GB HBM3`, `CPU Intel(R) Xeon(R) ...`): a device id
    /// such as `cuda://0` alone does not say what was measured. Written as `device_name` (read
    /// from the older `gpu` too: a CPU is not a GPU).
    pub device_name: Option<String>,
    /// The GPU driver's version (`580.159.04`).
    pub driver: Option<String>,
    /// The runtime's version (`iree-base-runtime 3.13.0`), when known.
    pub runtime: Option<String>,
    /// The CPU threads the runtime had (CPU devices): a CPU config measured with 2 threads is
    /// not one measured with 64.
    pub threads: Option<u32>,
    /// The compile flags (`--iree-hal-target-device=cuda --iree-cuda-target=sm_89`): what the
    /// config was measured with (sm_89 PTX on an H100).
    pub flags: Option<String>,
    /// The IREE compiler version the run used, or `unknown`.
    pub iree: String,
    /// The run's date (`YYYY-MM-DD`), or `unknown`.
    pub date: String,
    /// The baseline's time, in microseconds.
    pub baseline_us: f64,
    /// The candidate's time, in microseconds.
    pub tuned_us: f64,
    /// tuned / baseline (below 1 is faster).
    pub speedup: f64,
    /// More of how it was measured (`bench`: method, samples, interval, p-value), written after
    /// the fields above, in this order.
    pub extra: Vec<(String, String)>,
}

/// What a measurement measured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Subject {
    /// A dispatch of a model (the tuner's).
    Dispatch(String),
    /// One matcher's op, benched on a payload of its own (`bench`).
    Matcher(String),
}

impl Default for Subject {
    fn default() -> Self {
        Subject::Dispatch(String::new())
    }
}

impl Subject {
    /// The name alone (a file name's stem).
    pub fn name(&self) -> &str {
        match self {
            Subject::Dispatch(name) | Subject::Matcher(name) => name,
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::Dispatch(name) => write!(f, "dispatch {name}"),
            Subject::Matcher(name) => write!(f, "matcher @{name}"),
        }
    }
}

impl Measurement {
    /// The sentence `explain` prints (`provenance: N config(s) <this>`): the device by name
    /// where the run says it, and the architecture the PTX was compiled for where the flags say
    /// it (an H100 measured with sm_89 PTX is not one measured with sm_90 code).
    pub fn provenance(&self) -> String {
        let threads = self
            .threads
            .map(|threads| format!(", {threads} threads"))
            .unwrap_or_default();
        let on = match (&self.device_name, &self.driver) {
            (Some(name), Some(driver)) => {
                format!("{name} ({}{threads}, driver {driver})", self.device)
            }
            (Some(name), None) => format!("{name} ({}{threads})", self.device),
            (None, _) => format!("{}{threads}", self.device),
        };
        let with = match (&self.flags, self.flags.as_deref().and_then(cuda_target)) {
            (Some(flags), Some(arch)) => format!(" with {arch} PTX ({flags})"),
            (Some(flags), None) => format!(" with {flags}"),
            (None, _) => String::new(),
        };
        format!(
            "measured on {on}{with} (speedup {:.3}: {} us -> {} us; IREE {}; {}; {})",
            self.speedup, self.baseline_us, self.tuned_us, self.iree, self.date, self.subject
        )
    }

    /// Who measured it, as one string: the device kind (`cuda`, not `cuda://1`: the index
    /// names a slot, not a device), what it is, its driver, threads, runtime and IREE version.
    /// Entries of two identities never replace each other (a time on `local-task` says nothing
    /// of `local-sync`); linking picks one by it ([`DeviceChoice`]).
    pub fn identity(&self) -> String {
        let kind = crate::device::kind_of(&self.device);
        let mut parts = vec![kind.to_string()];
        parts.extend(self.device_name.clone());
        parts.extend(
            self.driver
                .as_ref()
                .map(|driver| format!("driver {driver}")),
        );
        parts.extend(self.threads.map(|threads| format!("{threads} threads")));
        parts.extend(self.runtime.clone());
        parts.push(format!("IREE {}", self.iree));
        parts.join(", ")
    }

    /// Whether `other` was measured on the same device as this: the same device kind, and no
    /// field both records know (name, driver, threads, runtime, IREE version) differs. A field
    /// one record lacks (a tuner run whose logs do not say its IREE version) does not make
    /// another device: such runs of one team still merge by speed.
    pub fn same_device(&self, other: &Measurement) -> bool {
        let kind = |m: &Measurement| crate::device::kind_of(&m.device).to_string();
        let agree = |a: Option<&str>, b: Option<&str>| match (a, b) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let known = |value: &str| (value != "unknown").then_some(value.to_string());
        kind(self) == kind(other)
            && agree(self.device_name.as_deref(), other.device_name.as_deref())
            && agree(self.driver.as_deref(), other.driver.as_deref())
            && agree(
                self.threads.map(|t| t.to_string()).as_deref(),
                other.threads.map(|t| t.to_string()).as_deref(),
            )
            && agree(self.runtime.as_deref(), other.runtime.as_deref())
            && agree(known(&self.iree).as_deref(), known(&other.iree).as_deref())
    }

    /// The record as an MLIR dictionary of strings (optional fields only when known, so that
    /// records of runs without them are as before).
    pub fn dictionary(&self) -> String {
        let known = |name: &'static str, value: &Option<String>| {
            value
                .as_ref()
                .map(|value| (name.to_string(), value.clone()))
        };
        let named = |name: &str, value: String| Some((name.to_string(), value));
        let mut fields = vec![
            named("source", "measured".to_string()),
            named("device", self.device.clone()),
            known("device_name", &self.device_name),
            known("driver", &self.driver),
            self.threads
                .and_then(|threads| named("threads", threads.to_string())),
            known("runtime", &self.runtime),
            known("flags", &self.flags),
            named("iree", self.iree.clone()),
            named("date", self.date.clone()),
            named("baseline_us", self.baseline_us.to_string()),
            named("tuned_us", self.tuned_us.to_string()),
            named("speedup", format!("{:.3}", self.speedup)),
        ];
        match &self.subject {
            Subject::Dispatch(name) => fields.push(named("dispatch", name.clone())),
            Subject::Matcher(name) => fields.push(named("matcher", name.clone())),
        }
        fields.push(
            self.candidate
                .and_then(|candidate| named("candidate", candidate.to_string())),
        );
        fields.extend(self.extra.iter().cloned().map(Some));
        let inner: Vec<String> = fields
            .iter()
            .flatten()
            .map(|(name, value)| format!("{name} = {}", mlir_string(value)))
            .collect();
        format!("{{{}}}", inner.join(", "))
    }

    /// The record as JSON (`bench`'s written `entries`): the fields as the dictionary writes
    /// them, with times and the speedup as numbers and the threads and candidate as integers,
    /// as `explain --format json` gives a record.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        let mut put = |name: &str, value: serde_json::Value| {
            map.insert(name.to_string(), value);
        };
        put("source", json!("measured"));
        put("device", json!(self.device));
        for (name, value) in [
            ("device_name", &self.device_name),
            ("driver", &self.driver),
            ("runtime", &self.runtime),
            ("flags", &self.flags),
        ] {
            if let Some(value) = value {
                put(name, json!(value));
            }
        }
        if let Some(threads) = self.threads {
            put("threads", json!(threads));
        }
        put("iree", json!(self.iree));
        put("date", json!(self.date));
        put("baseline_us", json!(self.baseline_us));
        put("tuned_us", json!(self.tuned_us));
        put("speedup", json!((self.speedup * 1000.0).round() / 1000.0));
        match &self.subject {
            Subject::Dispatch(name) => put("dispatch", json!(name)),
            Subject::Matcher(name) => put("matcher", json!(name)),
        }
        if let Some(candidate) = self.candidate {
            put("candidate", json!(candidate));
        }
        for (name, value) in &self.extra {
            put(name, json!(value));
        }
        serde_json::Value::Object(map)
    }

    /// Reads a record back from a matcher's `tunespec.measurement` dictionary (records written
    /// before `device_name` and `matcher` existed too: `gpu`, `dispatch`).
    pub fn from_attr(attr: &Attr) -> Option<Measurement> {
        let get = |name: &str| {
            attr.dict_get(name)
                .and_then(Attr::as_str)
                .map(str::to_string)
        };
        let subject = match (get("matcher"), get("dispatch")) {
            (Some(matcher), _) => Subject::Matcher(matcher),
            (None, Some(dispatch)) => Subject::Dispatch(dispatch),
            (None, None) => return None,
        };
        let known = [
            "source",
            "device",
            "device_name",
            "gpu",
            "driver",
            "threads",
            "runtime",
            "flags",
            "iree",
            "date",
            "baseline_us",
            "tuned_us",
            "speedup",
            "matcher",
            "dispatch",
            "candidate",
        ];
        let extra = attr
            .as_dict()
            .unwrap_or_default()
            .iter()
            .filter(|(name, _)| !known.contains(&name.as_str()))
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_string())))
            .collect();
        Some(Measurement {
            subject,
            candidate: match get("candidate") {
                Some(text) => Some(text.parse().ok()?),
                None => None,
            },
            device: get("device")?,
            device_name: get("device_name").or_else(|| get("gpu")),
            driver: get("driver"),
            runtime: get("runtime"),
            threads: get("threads").and_then(|text| text.parse().ok()),
            flags: get("flags"),
            iree: get("iree")?,
            date: get("date")?,
            baseline_us: get("baseline_us")?.parse().ok()?,
            tuned_us: get("tuned_us")?.parse().ok()?,
            speedup: get("speedup")?.parse().ok()?,
            extra,
        })
    }
}

/// An MLIR string literal (the record's values, the provenance sentence).
pub(crate) fn mlir_string(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The CUDA architecture a compile's flags name (`sm_89` in `--iree-cuda-target=sm_89`).
fn cuda_target(flags: &str) -> Option<&str> {
    flags
        .split_whitespace()
        .find_map(|flag| flag.strip_prefix("--iree-cuda-target="))
        .filter(|arch| !arch.is_empty())
}

/// Where the configs of one spec come from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecProvenance {
    /// Its measured matchers' records, in the order written.
    pub measured: Vec<Measured>,
    /// How many matchers are derived by a rule.
    pub derived: usize,
    /// The rules they name.
    pub rules: Vec<String>,
    /// How many say neither, when known (the defaults' matcher counts are; a user's file is
    /// not parsed for `resolve`).
    pub stated: Option<usize>,
}

impl SpecProvenance {
    /// A default spec's provenance from the build's counts (`build.rs`, [`count`]): `matchers`
    /// in all, `derived` and `measured` of them, the rules the derived ones name.
    pub fn of_default(
        (matchers, derived, measured): (usize, usize, usize),
        records: &[(&str, &str, &str)],
        rules: &[&str],
    ) -> SpecProvenance {
        SpecProvenance {
            // The build's records of the measured matchers: device (GPU), IREE, speedup.
            measured: records
                .iter()
                .map(|&(device, iree, speedup)| Measured {
                    device: device.to_string(),
                    iree: iree.to_string(),
                    speedup: speedup.parse().unwrap_or(f64::NAN),
                })
                .collect(),
            derived,
            rules: rules.iter().map(|r| r.to_string()).collect(),
            stated: Some(matchers.saturating_sub(derived + measured)),
        }
    }

    /// `measured`, `derived`, `stated` or `mixed`.
    pub fn kind(&self) -> &'static str {
        let stated = self.stated.unwrap_or(0);
        match (self.measured.len(), self.derived, stated) {
            (0, 0, _) => "stated",
            (0, _, 0) => "derived",
            (_, 0, 0) => "measured",
            _ => "mixed",
        }
    }

    /// The words `resolve` prints: `measured: 2 on hip://0 with IREE 3.13.0 (median speedup
    /// 0.800)`, `derived by rule R2: 12`, `stated: 3`, joined by `; `.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.measured.is_empty() {
            parts.push(format!(
                "measured: {} {}",
                self.measured.len(),
                measured_words(&self.measured)
            ));
        }
        if self.derived > 0 {
            parts.push(format!(
                "derived by rule{}: {}",
                rules_words(&self.rules),
                self.derived
            ));
        }
        match self.stated {
            Some(0) => {}
            Some(stated) => parts.push(format!("stated: {stated}")),
            None if parts.is_empty() => parts.push("stated".to_string()),
            None => {}
        }
        parts.join("; ")
    }

    /// The JSON form (`resolve`'s `provenance`, docs/schema/resolve.schema.json).
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "kind": self.kind(),
            "measured": self.measured.iter().map(measured_json).collect::<Vec<_>>(),
            "derived": self.derived,
            "rules": self.rules,
            "stated": self.stated,
        })
    }
}

/// A measured entry as JSON: device, IREE version, speedup.
pub fn measured_json(measured: &Measured) -> serde_json::Value {
    json!({
        "device": measured.device,
        "iree": measured.iree,
        "speedup": measured.speedup,
    })
}

/// ` R1,R2` (or nothing).
fn rules_words(rules: &[String]) -> String {
    if rules.is_empty() {
        String::new()
    } else {
        format!(" {}", rules.join(","))
    }
}

/// `on hip://0 with IREE 3.13.0 (median speedup 0.800)`; several devices or versions are
/// listed, `, `-separated, in sorted order.
pub fn measured_words(measured: &[Measured]) -> String {
    let devices: BTreeSet<&str> = measured.iter().map(|m| m.device.as_str()).collect();
    let versions: BTreeSet<&str> = measured.iter().map(|m| m.iree.as_str()).collect();
    let speedups: Vec<f64> = measured.iter().map(|m| m.speedup).collect();
    format!(
        "on {} with IREE {} (median speedup {:.3})",
        devices.into_iter().collect::<Vec<_>>().join(", "),
        versions.into_iter().collect::<Vec<_>>().join(", "),
        median(&speedups).unwrap_or(f64::NAN)
    )
}

/// The median (the mean of the middle two for an even count); `None` for none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    Some(if sorted.len() % 2 == 0 {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    })
}

/// `explain`'s summary: "N config(s) measured on DEVICE with IREE VERSION (median speedup
/// X), M derived by rule, K stated" over the configs that apply (one per configured op); parts
/// with no config are left out; `None` when nothing is configured.
pub fn summary(measured: &[Measured], derived: usize, stated: usize) -> Option<String> {
    let mut parts = Vec::new();
    if !measured.is_empty() {
        parts.push(format!(
            "{} config(s) measured {}",
            measured.len(),
            measured_words(measured)
        ));
    }
    if derived > 0 {
        parts.push(format!("{derived} derived by rule"));
    }
    if stated > 0 {
        parts.push(format!("{stated} stated"));
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join(", "))
    }
}

/// Provenance read from a spec's text without parsing MLIR: each `tunespec.measurement = {...}`
/// record and each `tunespec.provenance = "derived ..."` sentence without one. Bytecode has no
/// text to read: it yields nothing (stated unknown).
pub fn scan(bytes: &[u8]) -> SpecProvenance {
    let mut found = SpecProvenance::default();
    let Ok(text) = std::str::from_utf8(bytes) else {
        return found;
    };
    let measurement_key = format!("{MEASUREMENT_ATTR} = {{");
    let mut rest = text;
    while let Some(at) = rest.find(&measurement_key) {
        rest = &rest[at + measurement_key.len()..];
        if let Some(measured) = Measured::from_record(&dictionary_strings(rest)) {
            found.measured.push(measured);
        }
    }
    let sentence_key = format!("{PROVENANCE_ATTR} = \"");
    let mut rules = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find(&sentence_key) {
        rest = &rest[at + sentence_key.len()..];
        let sentence = rest.split('"').next().unwrap_or_default();
        if kind_of_sentence(Some(sentence)) == Kind::Derived {
            found.derived += 1;
            if let Some(rule) = rule(sentence) {
                rules.insert(rule.to_string());
            }
        }
    }
    found.rules = rules.into_iter().collect();
    found
}

/// The `name = "value"` fields of a dictionary of strings whose `{` was just read, up to its
/// `}` (escapes `\"` and `\\` undone).
fn dictionary_strings(text: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut key = String::new();
    while let Some((_, c)) = chars.next() {
        match c {
            '}' => break,
            '"' => {
                let mut value = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(match escaped {
                                    'n' => '\n',
                                    other => other,
                                });
                            }
                        }
                        '"' => break,
                        other => value.push(other),
                    }
                }
                fields.push((key.trim().trim_end_matches('=').trim().to_string(), value));
                key.clear();
            }
            ',' => key.clear(),
            other => key.push(other),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[0.9, 0.7, 0.8]), Some(0.8));
        assert_eq!(median(&[0.9, 0.7]), Some(0.8));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn scan_reads_records_and_rules() {
        let text = r#"transform.named_sequence @m(%a: !transform.any_op) -> (!transform.any_op) attributes {tunespec.provenance = "measured on hip://0", tunespec.measurement = {source = "measured", device = "hip://0", iree = "3.13.0", speedup = "0.800", dispatch = "d \"x\""}} {}
        transform.named_sequence @n() attributes {tunespec.provenance = "derived by rule R2 (not measured on hardware)"} {}"#;
        let found = scan(text.as_bytes());
        assert_eq!(
            found.measured,
            [Measured {
                device: "hip://0".into(),
                iree: "3.13.0".into(),
                speedup: 0.8
            }]
        );
        assert_eq!(found.derived, 1);
        assert_eq!(found.rules, ["R2"]);
        assert_eq!(found.kind(), "mixed");
    }

    #[test]
    fn summary_lists_devices_and_versions() {
        let m = |device: &str, iree: &str, speedup| Measured {
            device: device.into(),
            iree: iree.into(),
            speedup,
        };
        assert_eq!(
            summary(&[m("hip://0", "3.13.0", 0.8)], 2, 0).unwrap(),
            "1 config(s) measured on hip://0 with IREE 3.13.0 (median speedup 0.800), 2 derived by rule"
        );
        assert_eq!(
            summary(
                &[m("hip://1", "3.12.0", 0.5), m("hip://0", "3.13.0", 0.7), m("hip://0", "3.13.0", 0.9)],
                0,
                1
            )
            .unwrap(),
            "3 config(s) measured on hip://0, hip://1 with IREE 3.12.0, 3.13.0 (median speedup 0.700), 1 stated"
        );
        assert_eq!(summary(&[], 0, 0), None);
    }
}
