//! What the store holds: immutable entries named by the BLAKE3 of their bytes, and per complete
//! key a "best" pointer to the fastest entry known for it.
//!
//! Why content-addressed: two machines that measure the same config write the same bytes under
//! the same name, a reader checks what it read against its name, and nothing ever rewrites an
//! entry, so writers race only on the pointers (see [`super::Store::push`]).
//!
//! Why the key is complete: an entry measured on another device, with another IREE or other
//! flags, is another key; it is never taken for this one.

use serde::{Deserialize, Serialize};

use crate::link::MatcherKey;
use crate::measured::library::Entry;
use crate::provenance::Measurement;

/// The version of the entry and key formats: a store written by a later format is another set
/// of keys (`tunespec/v2/...`), never misread.
pub const FORMAT: u32 = 1;

/// One stored entry: a measured library's [`Entry`] without its place in a library.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`FORMAT`].
    pub format: u32,
    /// The target it was measured for.
    pub target: String,
    /// The matcher's key.
    pub key: MatcherKey,
    /// The spec's text, its matcher annotated with the measurement.
    pub text: String,
    /// The full measurement record.
    pub measurement: Measurement,
}

impl Record {
    /// The record of a measured library's entry.
    pub fn of(entry: &Entry) -> Record {
        Record {
            format: FORMAT,
            target: entry.target.clone(),
            key: entry.key.clone(),
            text: entry.text.clone(),
            measurement: entry.measurement.clone(),
        }
    }

    /// The record as a measured library's entry (named in the library when it is written).
    pub fn into_entry(self, origin: String) -> Entry {
        Entry {
            target: self.target,
            key: self.key,
            file: None,
            text: self.text,
            measurement: self.measurement,
            origin,
        }
    }

    /// The canonical bytes (serde_json in the fields' order: one record, one byte string).
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The complete key, in words, one field a line: target, device identity (kind, name,
    /// driver, threads, runtime), IREE version and revision (`bench` records the revision as
    /// `iree_revision` beside the version), compile flags, the format and the matcher key.
    pub fn complete_key(&self) -> String {
        complete_key(&self.target, &self.key, &self.measurement)
    }
}

/// The complete key of an entry for `target` and `key` measured as `m` says (its times aside):
/// what [`Record::complete_key`] gives, and what `tune` asks the store before it measures.
pub fn complete_key(target: &str, key: &MatcherKey, m: &Measurement) -> String {
    let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".to_string());
    let revision = m
        .extra
        .iter()
        .find(|(name, _)| name == "iree_revision")
        .map_or("-", |(_, value)| value.as_str());
    format!(
        "format {FORMAT}\ntarget {target}\nkind {}\nname {}\ndriver {}\nthreads {}\nruntime {}\niree {}\nrevision {revision}\nflags {}\nmatcher {key}\n",
        crate::device::kind_of(&m.device),
        or_none(&m.device_name),
        or_none(&m.driver),
        m.threads.map_or_else(|| "-".to_string(), |t| t.to_string()),
        or_none(&m.runtime),
        m.iree,
        or_none(&m.flags),
    )
}

/// The BLAKE3 of `bytes`, in hex: an entry's name, a complete key's name.
pub fn digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A complete key's "best" pointer: the fastest entry, and what `ls`, `pull` and `purge` select
/// by without reading the entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pointer {
    /// The entry's name ([`digest`] of its bytes).
    pub entry: String,
    /// The entry's time, in microseconds.
    pub tuned_us: f64,
    /// The target.
    pub target: String,
    /// The device identity ([`Measurement::identity`]).
    pub identity: String,
    /// The IREE version and revision.
    pub iree: String,
    /// The run's date (`YYYY-MM-DD`).
    pub date: String,
    /// What was measured ([`crate::provenance::Subject`]'s words).
    pub subject: String,
}

impl Pointer {
    /// The pointer to `record`, stored as `entry`.
    pub fn to(record: &Record, entry: &str) -> Pointer {
        Pointer {
            entry: entry.to_string(),
            tuned_us: record.measurement.tuned_us,
            target: record.target.clone(),
            identity: record.measurement.identity(),
            iree: record.measurement.iree.clone(),
            date: record.measurement.date.clone(),
            subject: record.measurement.subject.to_string(),
        }
    }

    /// The canonical bytes.
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The pointer in `bytes`; `None` when they are not one (a pointer of a later format is
    /// replaced by this one's writer as if absent).
    pub fn read(bytes: &[u8]) -> Option<Pointer> {
        serde_json::from_slice(bytes).ok()
    }
}

/// Whether the IREE version `iree` (`3.13.0 @ abc`) is `wanted` (`3.13.0`, or the whole text).
pub fn iree_matches(iree: &str, wanted: &str) -> bool {
    iree == wanted
        || iree
            .strip_prefix(wanted)
            .is_some_and(|rest| rest.starts_with([' ', '+', '@']))
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (the proleptic Gregorian calendar); `None` for
/// anything else (`unknown`).
pub fn day_number(date: &str) -> Option<i64> {
    let mut parts = date.splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil, counting years from March so that February's leap day comes last.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_count_from_the_epoch() {
        assert_eq!(day_number("1970-01-01"), Some(0));
        assert_eq!(day_number("2000-03-01"), Some(11_017));
        assert_eq!(day_number("2026-11-28"), Some(20_785));
        assert_eq!(day_number("unknown"), None);
        assert_eq!(day_number("2026-13-01"), None);
    }

    #[test]
    fn iree_versions_match_with_or_without_the_revision() {
        assert!(iree_matches("3.13.0 @ abc", "3.13.0"));
        assert!(iree_matches("3.13.0", "3.13.0"));
        assert!(!iree_matches("3.13.01", "3.13.0"));
        assert!(!iree_matches("3.12.0", "3.13.0"));
    }

    #[test]
    fn records_round_trip_and_name_their_key_completely() {
        let record = Record {
            format: FORMAT,
            target: "gfx942".into(),
            key: MatcherKey {
                root: "contraction".into(),
                constraints: ["m = 64".to_string()].into_iter().collect(),
                target: Some("gfx942".into()),
            },
            text: "module {}".into(),
            measurement: Measurement {
                device: "hip://0".into(),
                device_name: Some("AMD Instinct MI300X".into()),
                iree: "3.13.0 @ abc".into(),
                flags: Some("--iree-hip-target=gfx942".into()),
                extra: vec![("iree_revision".into(), "3.13.0 @ abc".into())],
                tuned_us: 10.5,
                ..Measurement::default()
            },
        };
        let bytes = record.bytes();
        let back: Record = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.bytes(), bytes);
        let key = record.complete_key();
        for field in [
            "target gfx942",
            "kind hip\n",
            "name AMD Instinct MI300X",
            "iree 3.13.0 @ abc",
            "revision 3.13.0 @ abc",
            "flags --iree-hip-target=gfx942",
            "format 1",
            "matcher contraction",
        ] {
            assert!(key.contains(field), "{field} missing from {key}");
        }
    }
}
