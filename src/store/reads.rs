//! A machine's local copy of what it read from a store, so that a warm link asks the store one
//! question (its list of best pointers) instead of one per key and entry.
//!
//! Why this is safe to keep: entries are immutable and named by the BLAKE3 of their bytes, so a
//! kept entry is checked against its name when it is read back (a damaged file is fetched
//! again); a pointer is kept with the version the store gave it (an object store's ETag or
//! generation) and used only when the store's list shows that same version, so a pointer
//! another machine has moved since is always fetched again. Engines that give no version with
//! their list (Redis, a directory) never have their pointers kept, only their entries.
//!
//! Everything here is best effort: a copy that cannot be written or read is a fetch, never an
//! error.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::entry;

/// The local copies of one store's namespace, in a directory of the machine's cache.
#[derive(Clone, Debug)]
pub struct Reads {
    dir: PathBuf,
}

impl Reads {
    /// The copies kept in `dir` (created when first written).
    pub fn new(dir: PathBuf) -> Reads {
        Reads { dir }
    }

    fn entry_path(&self, name: &str) -> Option<PathBuf> {
        is_digest(name).then(|| self.dir.join("entries").join(name))
    }

    fn pointer_path(&self, key: &str) -> PathBuf {
        self.dir
            .join("pointers")
            .join(entry::digest(key.as_bytes()))
    }

    /// The kept entry `name`, if it is here and its bytes still have that digest.
    pub fn entry(&self, name: &str) -> Option<Vec<u8>> {
        let bytes = crate::files::read_input(self.entry_path(name)?).ok()?;
        (entry::digest(&bytes) == name).then_some(bytes)
    }

    /// Keeps the entry `name` (only when `bytes` have that digest: never a corrupt one).
    pub fn keep_entry(&self, name: &str, bytes: &[u8]) {
        if let Some(path) = self.entry_path(name) {
            if entry::digest(bytes) == name && !path.is_file() {
                write_atomically(&path, bytes);
            }
        }
    }

    /// The kept value of the pointer `key` if it was kept at `version`.
    pub fn pointer(&self, key: &str, version: &str) -> Option<Vec<u8>> {
        let bytes = crate::files::read_input(self.pointer_path(key)).ok()?;
        let (header, value) = split_header(&bytes)?;
        (header == format!("{key}\n{version}").as_bytes()).then(|| value.to_vec())
    }

    /// Keeps `value` as the pointer `key` at `version` (replacing an older copy).
    pub fn keep_pointer(&self, key: &str, version: &str, value: &[u8]) {
        if key.contains('\n') || version.contains('\n') {
            return;
        }
        let header = format!("{key}\n{version}");
        let mut bytes = format!("{}\n", header.len()).into_bytes();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(value);
        write_atomically(&self.pointer_path(key), &bytes);
    }
}

/// A kept pointer's file: `<header length>\n<header><value>`; `None` when it is not one.
fn split_header(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let length: usize = std::str::from_utf8(&bytes[..newline]).ok()?.parse().ok()?;
    let rest = &bytes[newline + 1..];
    (rest.len() >= length).then(|| rest.split_at(length))
}

/// Whether `name` is an entry's name (64 lower-case hex digits): never a path elsewhere.
fn is_digest(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Writes `bytes` at `path` whole or not at all (a temporary file renamed into place); a
/// failure leaves nothing and is ignored (the copy is a convenience).
fn write_atomically(path: &Path, bytes: &[u8]) {
    let Some(dir) = path.parent() else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(mut temp) = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir) else {
        return;
    };
    if temp.write_all(bytes).is_ok() {
        let _ = temp.persist(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_kept_only_under_their_digest_and_checked_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let reads = Reads::new(dir.path().to_path_buf());
        let bytes = b"an entry".to_vec();
        let name = entry::digest(&bytes);
        reads.keep_entry(&"0".repeat(64), &bytes);
        assert_eq!(
            reads.entry(&"0".repeat(64)),
            None,
            "kept under another name"
        );
        reads.keep_entry("../escape", &bytes);
        assert!(!dir.path().join("escape").exists());
        reads.keep_entry(&name, &bytes);
        assert_eq!(reads.entry(&name), Some(bytes));
        std::fs::write(dir.path().join("entries").join(&name), b"damaged").unwrap();
        assert_eq!(reads.entry(&name), None, "a damaged copy is not used");
    }

    #[test]
    fn pointers_are_used_only_at_the_version_they_were_kept_at() {
        let dir = tempfile::tempdir().unwrap();
        let reads = Reads::new(dir.path().to_path_buf());
        reads.keep_pointer("best/a", "\"etag-1\"", b"value 1");
        assert_eq!(
            reads.pointer("best/a", "\"etag-1\""),
            Some(b"value 1".to_vec())
        );
        assert_eq!(reads.pointer("best/a", "\"etag-2\""), None);
        assert_eq!(reads.pointer("best/b", "\"etag-1\""), None);
        reads.keep_pointer("best/a", "\"etag-2\"", b"value 2");
        assert_eq!(reads.pointer("best/a", "\"etag-1\""), None);
        assert_eq!(
            reads.pointer("best/a", "\"etag-2\""),
            Some(b"value 2".to_vec())
        );
    }
}
