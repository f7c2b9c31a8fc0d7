//! The store's operations: push, pull, list and purge, over any [`super::Backend`].

use crate::measured::library::{Entry, Library};

use super::entry::{self, Pointer, Record};
use super::{Error, Store};

/// How often a pointer's compare-and-swap is retried before the push gives up on the store (each
/// retry means another writer changed the pointer in between: it made progress).
const MAX_SWAPS: usize = 1000;

/// What a push did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// Entries written (an entry already there, from this or another machine, is not counted).
    pub stored: usize,
    /// Keys whose best pointer now names a pushed entry.
    pub best: usize,
    /// Keys whose best entry was already as fast or faster (kept).
    pub kept: usize,
}

/// What a pull read.
#[derive(Clone, Debug, Default)]
pub struct Pulled {
    /// The library of the best entries selected.
    pub library: Library,
    /// Entries skipped, and why (a corrupt entry, one of a later format).
    pub skipped: Vec<String>,
}

/// One key of `store ls`: its best pointer and the pointer's key.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// The complete key's name (BLAKE3 of its words).
    pub key: String,
    /// The best entry of it.
    pub pointer: Pointer,
}

/// What `store purge` removes: the keys every given filter selects (no filter: none).
#[derive(Clone, Debug, Default)]
pub struct Purge {
    /// Entries measured with this IREE version (`3.13.0`, or with its revision).
    pub iree_version: Option<String>,
    /// Entries whose device identity contains these words (as `--measured-on`).
    pub device: Option<String>,
    /// Entries measured before this day ([`entry::day_number`]); undated entries too.
    pub before_day: Option<i64>,
    /// Every key of this namespace, whatever the other filters say.
    pub namespace: Option<String>,
}

impl Store {
    /// Pushes `entries`: each stored under its content's name, then offered as its key's best
    /// (see [`Store::offer`]). Stops at the first store failure (what was pushed stays).
    pub fn push(&self, entries: &[Entry]) -> Result<Pushed, Error> {
        self.refuse_writes("push")?;
        let mut pushed = Pushed::default();
        for entry in entries {
            let record = Record::of(entry);
            let bytes = record.bytes();
            let name = entry::digest(&bytes);
            if self.backend.put_if_absent(&self.entry_key(&name), &bytes)? {
                pushed.stored += 1;
            }
            if self.offer(&record, &name)? {
                pushed.best += 1;
            } else {
                pushed.kept += 1;
            }
        }
        Ok(pushed)
    }

    /// Makes the stored entry `name` (of `record`) its key's best unless the best is as fast
    /// or faster: a compare-and-swap loop, so that of racing writers the fastest wins whatever
    /// the order. Ties go to the smaller text, as [`crate::measured::library::merge`] breaks
    /// them. Returns whether `name` is now the best.
    fn offer(&self, record: &Record, name: &str) -> Result<bool, Error> {
        let key = format!(
            "{}{}",
            self.best_prefix(),
            entry::digest(record.complete_key().as_bytes())
        );
        let new = Pointer::to(record, name).bytes();
        for _ in 0..MAX_SWAPS {
            let current = self.backend.get(&key)?;
            if let Some(old) = current.as_deref().and_then(Pointer::read) {
                if !self.faster(record, name, &old)? {
                    return Ok(false);
                }
            }
            if self
                .backend
                .compare_and_swap(&key, current.as_deref(), &new)?
            {
                return Ok(true);
            }
        }
        Err(Error::Unavailable(format!(
            "{}: the best entry of a key changed {MAX_SWAPS} times while this run tried to update it",
            self.url
        )))
    }

    /// Whether `record` (stored as `name`) beats the pointer `old`.
    fn faster(&self, record: &Record, name: &str, old: &Pointer) -> Result<bool, Error> {
        let time = record.measurement.tuned_us;
        if old.entry == name {
            return Ok(false);
        }
        if time != old.tuned_us {
            return Ok(time < old.tuned_us);
        }
        // A tie: the smaller text wins; an old entry that cannot be read loses.
        Ok(match self.read_entry(&old.entry)? {
            Ok(old_record) => record.text < old_record.text,
            Err(_) => true,
        })
    }

    /// The entry `name`, checked against its name: `Err` (inner) says why it is not usable.
    fn read_entry(&self, name: &str) -> Result<Result<Record, String>, Error> {
        let mut read = self.read_entries(&[name])?;
        Ok(read
            .pop()
            .unwrap_or_else(|| Err(format!("entry {name} is missing"))))
    }

    /// The entries `names`, in order, each checked against its name: the machine's copies
    /// first, the rest fetched from the store at once (and kept).
    fn read_entries(&self, names: &[&str]) -> Result<Vec<Result<Record, String>>, Error> {
        let mut values: Vec<Option<Vec<u8>>> = names
            .iter()
            .map(|name| self.reads.as_ref().and_then(|reads| reads.entry(name)))
            .collect();
        let missing: Vec<usize> = (0..names.len()).filter(|&i| values[i].is_none()).collect();
        let keys: Vec<String> = missing.iter().map(|&i| self.entry_key(names[i])).collect();
        for (&index, fetched) in missing.iter().zip(self.backend.get_many(&keys)?) {
            if let (Some(reads), Some(fetched)) = (&self.reads, &fetched) {
                reads.keep_entry(names[index], &fetched.bytes);
            }
            values[index] = fetched.map(|fetched| fetched.bytes);
        }
        Ok(names
            .iter()
            .zip(values)
            .map(|(name, bytes)| record_of(name, bytes))
            .collect())
    }

    /// The values of the best pointers `listed` (key, version as listed), in order: the
    /// machine's copy where it was kept at the listed version, the rest fetched at once (and
    /// kept at the version the fetch returned, never the listed one: the value may have moved
    /// in between).
    fn pointer_values(
        &self,
        listed: &[(String, Option<String>)],
    ) -> Result<Vec<Option<Vec<u8>>>, Error> {
        let mut values: Vec<Option<Vec<u8>>> = listed
            .iter()
            .map(|(key, version)| {
                let reads = self.reads.as_ref()?;
                reads.pointer(key, version.as_deref()?)
            })
            .collect();
        let missing: Vec<usize> = (0..listed.len()).filter(|&i| values[i].is_none()).collect();
        let keys: Vec<String> = missing.iter().map(|&i| listed[i].0.clone()).collect();
        for (&index, fetched) in missing.iter().zip(self.backend.get_many(&keys)?) {
            if let Some(fetched) = fetched {
                if let (Some(reads), Some(version)) = (&self.reads, &fetched.version) {
                    reads.keep_pointer(&listed[index].0, version, &fetched.bytes);
                }
                values[index] = Some(fetched.bytes);
            }
        }
        Ok(values)
    }

    /// The best entry of the complete key of `target`, `key` and the identity fields of
    /// `measured_as` ([`entry::complete_key`]; its times are not read), if the store has one:
    /// what `tune` asks before it measures a key.
    pub fn best_of(
        &self,
        target: &str,
        key: &crate::link::MatcherKey,
        measured_as: &crate::provenance::Measurement,
    ) -> Result<Option<Pointer>, Error> {
        // Entries carry their key with the target, as bench writes them.
        let key = key.clone().for_target(target.to_string());
        let words = entry::complete_key(target, &key, measured_as);
        let key = format!("{}{}", self.best_prefix(), entry::digest(words.as_bytes()));
        Ok(self.backend.get(&key)?.as_deref().and_then(Pointer::read))
    }

    /// Every key's best pointer, in key order (a pointer that cannot be read is left out).
    pub fn list(&self) -> Result<Vec<Listed>, Error> {
        let prefix = self.best_prefix();
        let keys = self.backend.list_versioned(&prefix)?;
        let values = self.pointer_values(&keys)?;
        Ok(keys
            .iter()
            .zip(values)
            .filter_map(|((key, _), bytes)| {
                Some(Listed {
                    key: key.get(prefix.len()..)?.to_string(),
                    pointer: Pointer::read(&bytes?)?,
                })
            })
            .collect())
    }

    /// The best entries for `target` (all targets: `None`) measured on `device` (its identity
    /// contains these words, as `--measured-on`; all devices: `None`), as a measured library.
    pub fn pull(&self, target: Option<&str>, device: Option<&str>) -> Result<Pulled, Error> {
        let selected: Vec<Pointer> = self
            .list()?
            .into_iter()
            .map(|listed| listed.pointer)
            .filter(|pointer| {
                target.is_none_or(|target| pointer.target == target)
                    && device
                        .is_none_or(|device| crate::link::is_measured_on(&pointer.identity, device))
            })
            .collect();
        let names: Vec<&str> = selected
            .iter()
            .map(|pointer| pointer.entry.as_str())
            .collect();
        let mut pulled = Pulled::default();
        for (name, read) in names.iter().zip(self.read_entries(&names)?) {
            match read {
                Ok(record) => {
                    let origin = format!("{} entry {name}", self.url);
                    pulled.library.entries.push(record.into_entry(origin));
                }
                Err(why) => pulled.skipped.push(why),
            }
        }
        Ok(pulled)
    }

    /// Removes the keys `purge` selects (their pointers, and the entries they name), returning
    /// them. An entry another key's pointer names is never shared (a record names its key), so
    /// removing it is safe.
    pub fn purge(&self, purge: &Purge) -> Result<Vec<Listed>, Error> {
        self.refuse_writes("purge")?;
        if let Some(namespace) = &purge.namespace {
            let prefix = Store::namespace_prefix(namespace);
            let keys = self.backend.list(&prefix)?;
            for key in &keys {
                self.backend.delete(key)?;
            }
            return Ok(Vec::new());
        }
        if purge.iree_version.is_none() && purge.device.is_none() && purge.before_day.is_none() {
            return Ok(Vec::new());
        }
        let mut removed = Vec::new();
        for listed in self.list()? {
            let pointer = &listed.pointer;
            let selected = purge
                .iree_version
                .as_deref()
                .is_none_or(|version| entry::iree_matches(&pointer.iree, version))
                && purge
                    .device
                    .as_deref()
                    .is_none_or(|device| crate::link::is_measured_on(&pointer.identity, device))
                && purge
                    .before_day
                    .is_none_or(|day| entry::day_number(&pointer.date).is_none_or(|d| d < day));
            if selected {
                self.backend
                    .delete(&format!("{}{}", self.best_prefix(), listed.key))?;
                self.backend.delete(&self.entry_key(&pointer.entry))?;
                removed.push(listed);
            }
        }
        Ok(removed)
    }

    /// How many keys (and stored entries) the namespace holds: for `purge --namespace`'s report.
    pub fn count_namespace(&self, namespace: &str) -> Result<usize, Error> {
        Ok(self
            .backend
            .list(&Store::namespace_prefix(namespace))?
            .len())
    }
}

/// The record in `bytes`, read as the entry `name` (`None`: absent): `Err` says why it is not
/// usable (missing, corrupt, another format).
fn record_of(name: &str, bytes: Option<Vec<u8>>) -> Result<Record, String> {
    let Some(bytes) = bytes else {
        return Err(format!("entry {name} is missing"));
    };
    if entry::digest(&bytes) != name {
        return Err(format!(
            "entry {name} is corrupt (its bytes have another digest)"
        ));
    }
    match serde_json::from_slice::<Record>(&bytes) {
        Ok(record) if record.format == entry::FORMAT => Ok(record),
        Ok(record) => Err(format!("entry {name} has format {}", record.format)),
        Err(error) => Err(format!("entry {name} cannot be read: {error}")),
    }
}
