//! The `file://` backend: a directory on a local or shared file system, one file per key.
//!
//! Why std::fs alone: a put-if-absent is a hard link of a fully written temporary file (`link`
//! fails when the name exists, atomically), and a compare-and-swap holds a lock file created
//! with `O_EXCL` (`create_new`) while it reads, compares and renames the new value into place;
//! both work on any POSIX file system, NFS included, with no service to run.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{Backend, Error};

/// A lock older than this was left by a process that died while holding it (a swap takes
/// milliseconds): it is broken.
const STALE_LOCK: Duration = Duration::from_secs(30);

/// How long a swap waits for another writer's lock before it gives up.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// A store in a directory.
#[derive(Debug)]
pub struct FileBackend {
    root: PathBuf,
}

impl FileBackend {
    /// The store at `root`, created if missing unless `read_only` (a store only read is never
    /// created: a mistyped path reads as an empty store, not a new directory).
    pub fn open(root: &Path, read_only: bool) -> Result<FileBackend, Error> {
        if !read_only {
            std::fs::create_dir_all(root).map_err(|error| {
                Error::Unavailable(format!("cannot create {}: {error}", root.display()))
            })?;
        }
        Ok(FileBackend {
            root: root.to_path_buf(),
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    fn io(&self, what: &str, path: &Path, error: std::io::Error) -> Error {
        Error::Unavailable(format!("cannot {what} {}: {error}", path.display()))
    }

    /// Writes `value` to a fresh temporary file beside `path` (synced), for a link or rename.
    fn staged(&self, path: &Path, value: &[u8]) -> Result<tempfile::NamedTempFile, Error> {
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir).map_err(|error| self.io("create", dir, error))?;
        let mut temp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(dir)
            .map_err(|error| self.io("write in", dir, error))?;
        temp.write_all(value)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|error| self.io("write", temp.path(), error))?;
        Ok(temp)
    }

    /// Takes the lock of `path`, breaking one left by a dead process.
    fn lock(&self, path: &Path) -> Result<Lock, Error> {
        let lock = path.with_extension("lock");
        if let Some(dir) = lock.parent() {
            std::fs::create_dir_all(dir).map_err(|error| self.io("create", dir, error))?;
        }
        let start = std::time::Instant::now();
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => return Ok(Lock(lock)),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(&lock)
                        .and_then(|meta| meta.modified())
                        .ok()
                        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
                        .is_some_and(|age| age > STALE_LOCK);
                    if stale {
                        let _ = std::fs::remove_file(&lock);
                        continue;
                    }
                    if start.elapsed() > LOCK_WAIT {
                        return Err(Error::Unavailable(format!(
                            "{} is held by another writer for over {} s",
                            lock.display(),
                            LOCK_WAIT.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(error) => return Err(self.io("create", &lock, error)),
            }
        }
    }
}

/// A held lock file, removed when dropped.
struct Lock(PathBuf);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Backend for FileBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        let path = self.path(key);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(self.io("read", &path, error)),
        }
    }

    fn put_if_absent(&self, key: &str, value: &[u8]) -> Result<bool, Error> {
        let path = self.path(key);
        let temp = self.staged(&path, value)?;
        match std::fs::hard_link(temp.path(), &path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(error) => Err(self.io("write", &path, error)),
        }
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, Error> {
        let path = self.path(key);
        let _lock = self.lock(&path)?;
        if self.get(key)?.as_deref() != expected {
            return Ok(false);
        }
        let temp = self.staged(&path, new)?;
        temp.persist(&path)
            .map_err(|error| self.io("write", &path, error.error))?;
        Ok(true)
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, Error> {
        // Keys are paths: walk the prefix's directory and keep the keys that start with the
        // prefix itself (`best` lists `best/` and `best-old/` alike, as on every engine).
        let mut keys = Vec::new();
        let dir = self.path(prefix.rfind('/').map_or("", |end| &prefix[..end]));
        if !dir.exists() {
            return Ok(keys);
        }
        for entry in walkdir::WalkDir::new(&dir).follow_links(false) {
            let entry =
                entry.map_err(|error| Error::Unavailable(format!("cannot list: {error}")))?;
            let name = entry.file_name().to_string_lossy();
            // Temporary files and locks of writers at work are not keys.
            if !entry.file_type().is_file() || name.starts_with(".tmp-") || name.ends_with(".lock")
            {
                continue;
            }
            if let Ok(relative) = entry.path().strip_prefix(&self.root) {
                let key = relative.to_string_lossy().replace('\\', "/");
                if key.starts_with(prefix) {
                    keys.push(key);
                }
            }
        }
        keys.sort();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), Error> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(self.io("remove", &path, error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_if_absent_keeps_the_first_value() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileBackend::open(dir.path(), false).unwrap();
        assert!(store.put_if_absent("ns/entries/a", b"one").unwrap());
        assert!(!store.put_if_absent("ns/entries/a", b"two").unwrap());
        assert_eq!(store.get("ns/entries/a").unwrap().unwrap(), b"one");
        assert_eq!(store.list("ns/").unwrap(), vec!["ns/entries/a".to_string()]);
    }

    #[test]
    fn compare_and_swap_needs_the_expected_value() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileBackend::open(dir.path(), false).unwrap();
        assert!(store.compare_and_swap("k/best", None, b"1").unwrap());
        assert!(!store.compare_and_swap("k/best", None, b"2").unwrap());
        assert!(!store.compare_and_swap("k/best", Some(b"0"), b"2").unwrap());
        assert!(store.compare_and_swap("k/best", Some(b"1"), b"2").unwrap());
        assert_eq!(store.get("k/best").unwrap().unwrap(), b"2");
        store.delete("k/best").unwrap();
        assert_eq!(store.get("k/best").unwrap(), None);
    }
}
