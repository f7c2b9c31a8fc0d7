//! A machine's copies of what it read from a store (`Store::with_reads`): a warm pull asks for
//! the list alone, and never misses a change another machine made. On every real engine.

use tunespec::store::entry;

use crate::store::{open_with, timed};
use crate::store_engines::backend;
use crate::store_servers::engines;

/// The best times a pull gives, and how many entries it skipped.
fn pulled(store: &tunespec::store::Store) -> (Vec<f64>, Vec<String>) {
    let pulled = store.pull(None, None).unwrap();
    let times = pulled
        .library
        .entries
        .iter()
        .map(|entry| entry.measurement.tuned_us)
        .collect();
    (times, pulled.skipped)
}

/// A pointer another writer moved is read again (the copies never hide a faster result);
/// entries once read come from the copies (here they are gone from the store, and only a
/// machine without copies misses them); a damaged copy is not used.
#[test]
fn kept_reads_follow_moved_pointers_and_keep_entries_on_every_engine() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in &engines {
        let name = engine.name;
        let url = engine.in_namespace("reads");
        let writer = open_with(&url, &engine.vars);
        writer.push(&[timed(100.0, "gpu-a")]).unwrap();
        let reads = work.path().join(format!("reads-{name}"));
        let reader = || open_with(&url, &engine.vars).with_reads(reads.clone());
        assert_eq!(pulled(&reader()).0, vec![100.0], "{name}");
        // Another machine's faster result moves the pointer: every later pull sees it.
        writer.push(&[timed(50.0, "gpu-a")]).unwrap();
        assert_eq!(pulled(&reader()).0, vec![50.0], "{name}");
        assert_eq!(pulled(&reader()).0, vec![50.0], "{name}");
        // The entries deleted from the store behind the pointers' backs.
        let backend = backend(engine, "reads");
        let entries = backend
            .list(&format!("tunespec/v{}/reads/entries/", entry::FORMAT))
            .unwrap();
        assert_eq!(entries.len(), 2, "{name}: {entries:?}");
        for key in &entries {
            backend.delete(key).unwrap();
        }
        let (times, skipped) = pulled(&reader());
        assert_eq!((times, skipped), (vec![50.0], Vec::new()), "{name}");
        let (times, skipped) = pulled(&open_with(&url, &engine.vars));
        assert!(times.is_empty(), "{name}");
        assert!(skipped[0].contains("is missing"), "{name}: {skipped:?}");
        // A damaged copy is never used: the entry is missing again.
        for copy in std::fs::read_dir(reads.join("entries")).unwrap() {
            std::fs::write(copy.unwrap().path(), b"damaged").unwrap();
        }
        let (times, skipped) = pulled(&reader());
        assert!(times.is_empty(), "{name}");
        assert!(skipped[0].contains("is missing"), "{name}: {skipped:?}");
    }
}

/// What the copies of pointers rest on: an object store's list gives each value's version as its
/// reads give it (else a copy would never be used), and the version changes with the value;
/// `get_many` keeps the keys' order and says absent keys.
#[test]
fn listed_versions_are_the_versions_reads_return() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in &engines {
        let name = engine.name;
        let store = backend(engine, "versions");
        assert!(store.put_if_absent("v/a", b"1").unwrap(), "{name}");
        assert!(store.put_if_absent("v/b", b"2").unwrap(), "{name}");
        let listed = store.list_versioned("v/").unwrap();
        let keys: Vec<String> = listed.iter().map(|(key, _)| key.clone()).collect();
        assert_eq!(keys, ["v/a", "v/b"], "{name}");
        let asked = [keys.clone(), vec!["v/none".to_string()]].concat();
        let read = store.get_many(&asked).unwrap();
        assert_eq!(read.len(), 3, "{name}");
        assert_eq!(read[2], None, "{name}");
        let bytes: Vec<&[u8]> = read[..2]
            .iter()
            .map(|value| value.as_ref().unwrap().bytes.as_slice())
            .collect();
        assert_eq!(bytes, [b"1", b"2"], "{name}");
        for ((_, listed), value) in listed.iter().zip(&read) {
            assert_eq!(listed, &value.as_ref().unwrap().version, "{name}");
        }
        let versioned = matches!(name, "s3" | "azblob");
        assert_eq!(listed[0].1.is_some(), versioned, "{name}: {listed:?}");
        assert!(store.compare_and_swap("v/a", Some(b"1"), b"3").unwrap());
        let after = store.list_versioned("v/").unwrap();
        if versioned {
            assert_ne!(
                after[0].1, listed[0].1,
                "{name}: the version did not change"
            );
            assert_eq!(after[1].1, listed[1].1, "{name}");
        }
    }
}
