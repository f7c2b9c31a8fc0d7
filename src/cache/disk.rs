//! The disk store: trust checks of the directory, crash-safe writes, lookups, counters,
//! maintenance (temp sweep, eviction, folding the counters), `cache stats` and `cache clean`,
//! and the crash a test injects ([`Settings::fault`]).

use super::*;

pub(super) enum Lookup {
    Hit(Artifact),
    Miss,
    Corrupt,
    Unreadable(io::Error),
}

#[derive(Clone, Copy)]
pub(super) enum Event {
    Hit,
    Miss,
    Corrupt,
}

#[derive(Clone, Debug)]
pub(super) struct Disk {
    pub(super) root: PathBuf,
    pub(super) entries: PathBuf,
    pub(super) max_bytes: u64,
    pub(super) writable: bool,
    /// The key of entry checksums ([`SECRET_FILE`]), read or created once.
    pub(super) secret: OnceLock<Option<[u8; 32]>>,
    /// The crash a test injects while an entry is written (see [`Settings::fault`]).
    pub(super) fault: Option<Fault>,
}

impl Disk {
    pub(super) fn new(root: PathBuf, max_bytes: u64, writable: bool, fault: Option<Fault>) -> Self {
        Disk {
            entries: root.join("entries"),
            root,
            max_bytes,
            writable,
            secret: OnceLock::new(),
            fault,
        }
    }

    /// Kills the process (SIGKILL: no destructors, no cleanup) at `step` when a test armed it.
    fn fault(&self, step: Fault) {
        if self.fault == Some(step) {
            let _ = rustix::process::kill_process(
                rustix::process::getpid(),
                rustix::process::Signal::KILL,
            );
            std::process::abort();
        }
    }

    /// Creates the directory, `entries` and `CACHEDIR.TAG` if missing; `entries` must be a real
    /// directory (not a symlink).
    pub(super) fn prepare(&self) -> io::Result<()> {
        match fs::symlink_metadata(&self.entries) {
            Ok(metadata) if metadata.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(io::Error::other(
                    "its entries directory is not a directory (a symlink?)",
                ))
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        fs::create_dir_all(&self.root)?;
        match fs::create_dir(&self.entries) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                if !fs::symlink_metadata(&self.entries)?.is_dir() {
                    return Err(io::Error::other("its entries directory is not a directory"));
                }
            }
            Err(error) => return Err(error),
        }
        write_cachedir_tag(&self.root);
        Ok(())
    }

    /// The key of entry checksums: only entries this user's tunespec wrote pass. Read from
    /// [`SECRET_FILE`] (a regular file of 32 bytes, this user's, mode 0600), created when
    /// missing or unusable and the cache is writable. `None`: no entry can be checked (a miss).
    pub(super) fn secret(&self) -> Option<[u8; 32]> {
        *self.secret.get_or_init(|| {
            let path = self.root.join(SECRET_FILE);
            match read_secret(&path) {
                Ok(secret) => return Some(secret),
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(_) if self.writable => {
                    remove_tolerant(&path);
                }
                Err(_) => return None,
            }
            if !self.writable || self.prepare().is_err() {
                return None;
            }
            let mut secret = [0u8; 32];
            let mut filled = 0;
            while filled < secret.len() {
                match rustix::rand::getrandom(
                    &mut secret[filled..],
                    rustix::rand::GetRandomFlags::empty(),
                ) {
                    Ok(count) => filled += count,
                    Err(rustix::io::Errno::INTR) => {}
                    Err(_) => return None,
                }
            }
            let mut temp = private_temp(&self.root, "secret").ok()?;
            temp.as_file_mut().write_all(&secret).ok()?;
            match temp.persist_noclobber(&path) {
                Ok(_) => Some(secret),
                // Another process created it first: use theirs.
                Err(_) => read_secret(&path).ok(),
            }
        })
    }

    pub(super) fn entry_path(&self, key: &Key) -> PathBuf {
        self.entries.join(key.hex())
    }

    pub(super) fn load(&self, key: &Key) -> Lookup {
        let path = self.entry_path(key);
        // Never through a symlink, never blocking on a FIFO: the type is checked below.
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path);
        let mut file = match opened {
            Ok(file) => file,
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Lookup::Miss
            }
            Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
                if self.writable {
                    self.remove_entry(key, None);
                }
                return Lookup::Corrupt;
            }
            Err(error) => return Lookup::Unreadable(error),
        };
        let Ok(metadata) = file.metadata() else {
            return Lookup::Miss;
        };
        if !metadata.is_file() || metadata.len() > MAX_ENTRY_BYTES {
            self.reject(key, &metadata);
            return Lookup::Corrupt;
        }
        let Some(secret) = self.secret() else {
            return Lookup::Miss;
        };
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        if let Err(error) = file.read_to_end(&mut bytes) {
            return Lookup::Unreadable(error);
        }
        match decode_entry_with(&bytes, key, Some(&secret)) {
            Ok(artifact) => {
                if self.writable {
                    let old = metadata
                        .modified()
                        .ok()
                        .and_then(|time| time.elapsed().ok())
                        .is_none_or(|age| age >= TOUCH_INTERVAL);
                    if old {
                        let _ = file.set_modified(SystemTime::now());
                    }
                }
                Lookup::Hit(artifact)
            }
            Err(_) => {
                self.reject(key, &metadata);
                Lookup::Corrupt
            }
        }
    }

    /// Removes a bad entry if it is still the file that was read (another process may have
    /// renamed a good one into place since).
    pub(super) fn reject(&self, key: &Key, read: &fs::Metadata) {
        if self.writable {
            self.remove_entry(key, Some(read));
        }
    }

    pub(super) fn remove_entry(&self, key: &Key, read: Option<&fs::Metadata>) {
        let path = self.entry_path(key);
        if let Some(read) = read {
            match fs::symlink_metadata(&path) {
                Ok(now) if now.dev() == read.dev() && now.ino() == read.ino() => {}
                _ => return,
            }
        }
        let _ = fs::remove_file(path);
    }

    /// Writes an entry crash-safely. `Ok(false)`: not stored (larger than the cap).
    pub(super) fn store(&self, key: &Key, artifact: &Artifact) -> io::Result<bool> {
        self.prepare()?;
        let secret = self
            .secret()
            .ok_or_else(|| io::Error::other("cannot create its secret"))?;
        let bytes = encode_entry_with(key, artifact, Some(&secret));
        if bytes.len() as u64 > self.max_bytes {
            return Ok(false);
        }
        let (mut file, temp) = self.create_temp(key)?;
        self.fault(Fault::AfterCreate);
        let result = (|| {
            if self.fault == Some(Fault::MidWrite) {
                file.write_all(&bytes[..bytes.len() / 2])?;
                self.fault(Fault::MidWrite);
            }
            file.write_all(&bytes)?;
            self.fault(Fault::AfterWrite);
            file.sync_all()?;
            drop(file);
            self.fault(Fault::BeforeRename);
            fs::rename(&temp, self.entry_path(key))?;
            self.fault(Fault::AfterRename);
            Ok(true)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }

    pub(super) fn create_temp(&self, key: &Key) -> io::Result<(File, PathBuf)> {
        // Process-wide by nature: temporary names must differ across every cache this process
        // opens on the directory (the pid tells processes apart, the nonce threads and caches).
        static NONCE: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        let mut attempt = 0;
        loop {
            let nonce = NONCE.fetch_add(1, Ordering::Relaxed);
            let name = format!("{TEMP_PREFIX}{}-{pid}-{nonce}", key.hex());
            let path = self.entries.join(name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok((file, path)),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => {
                    attempt += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Appends one counter event; never fails a link.
    pub(super) fn record(&self, event: Event) {
        if !self.writable {
            return;
        }
        let byte = match event {
            Event::Hit => b'h',
            Event::Miss => b'm',
            Event::Corrupt => b'c',
        };
        if self.prepare().is_err() {
            return;
        }
        let path = self.root.join("stats.log");
        if let Ok(mut log) =
            files::open_private(&path, OpenOptions::new().append(true).create(true))
        {
            let _ = log.write_all(&[byte]);
        }
    }

    /// Sweeps stale temporary files, evicts down to 80% of the cap if over it, folds the counter
    /// log. Skipped (`Ok(None)`) when another process holds the lock and `wait` is false.
    pub(super) fn maintain(&self, wait: bool) -> io::Result<Option<Maintenance>> {
        let Some(_lock) = self.lock(wait)? else {
            return Ok(None);
        };
        let mut report = Maintenance::default();
        // Temporary files of the counters and the secret, beside the entries directory.
        for item in read_dir_tolerant(&self.root)? {
            let name = item.file_name().to_string_lossy().into_owned();
            if let (Some(rest), Ok(metadata)) = (name.strip_prefix(TEMP_PREFIX), item.metadata()) {
                if temp_is_stale(rest, &metadata) && remove_tolerant(&item.path()) {
                    report.temps_removed += 1;
                }
            }
        }
        let mut entries = Vec::new();
        let mut total = 0u64;
        for item in read_dir_tolerant(&self.entries)? {
            let name = item.file_name().to_string_lossy().into_owned();
            let Ok(metadata) = item.metadata() else {
                continue;
            };
            if let Some(rest) = name.strip_prefix(TEMP_PREFIX) {
                if temp_is_stale(rest, &metadata) && remove_tolerant(&item.path()) {
                    report.temps_removed += 1;
                }
            } else if is_entry_name(&name) && metadata.is_file() {
                total += metadata.len();
                entries.push((
                    metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    name,
                    metadata.len(),
                ));
            }
        }
        if total > self.max_bytes {
            let goal = self.max_bytes / 100 * EVICT_TO_PERCENT;
            entries.sort();
            for (_, name, len) in entries {
                if total <= goal {
                    break;
                }
                remove_tolerant(&self.entries.join(&name));
                total = total.saturating_sub(len);
                report.evicted += 1;
            }
        }
        self.fold_stats(false)?;
        Ok(Some(report))
    }

    pub(super) fn lock(&self, wait: bool) -> io::Result<Option<File>> {
        use rustix::fs::{flock, FlockOperation};
        self.prepare()?;
        let file = files::open_private(
            &self.root.join("lock"),
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        let operation = if wait {
            FlockOperation::LockExclusive
        } else {
            FlockOperation::NonBlockingLockExclusive
        };
        match flock(&file, operation) {
            Ok(()) => Ok(Some(file)),
            Err(rustix::io::Errno::WOULDBLOCK) if !wait => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// Folds `stats.log` into `stats.json` (under the lock). Events appended by a process that
    /// opened the log just before it was renamed may be lost: counters are statistics.
    pub(super) fn fold_stats(&self, always: bool) -> io::Result<()> {
        let log = self.root.join("stats.log");
        let folding = self.root.join("stats.log.fold");
        let big = fs::symlink_metadata(&log).is_ok_and(|meta| meta.len() > STATS_LOG_FOLD_BYTES);
        let pending = fs::symlink_metadata(&folding).is_ok();
        if !(always || big || pending) {
            return Ok(());
        }
        let mut totals = self.totals();
        if !pending {
            match fs::rename(&log, &folding) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(error) => return Err(error),
            }
        }
        let events = files::read_private(&folding, MAX_STATS_BYTES).unwrap_or_default();
        totals.add_log(&events);
        let mut temp = private_temp(&self.root, "stats")?;
        temp.as_file_mut()
            .write_all(&serde_json::to_vec(&totals).unwrap_or_default())?;
        temp.persist(self.root.join("stats.json"))
            .map_err(|error| error.error)?;
        remove_tolerant(&folding);
        Ok(())
    }

    pub(super) fn totals(&self) -> Totals {
        files::read_private(&self.root.join("stats.json"), MAX_STATS_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Totals {
    pub(super) hits: u64,
    pub(super) misses: u64,
    pub(super) corrupt: u64,
}

impl Totals {
    pub(super) fn add_log(&mut self, events: &[u8]) {
        for event in events {
            match event {
                b'h' => self.hits += 1,
                b'm' => self.misses += 1,
                b'c' => self.corrupt += 1,
                _ => {}
            }
        }
    }
}

/// What a maintenance pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Maintenance {
    /// Entries evicted to get under the cap.
    pub evicted: u64,
    /// Stale temporary files removed.
    pub temps_removed: u64,
}

/// Persistent statistics of a cache directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiskStats {
    /// Lookups answered from disk.
    pub hits: u64,
    /// Lookups that had to link.
    pub misses: u64,
    /// Entries found corrupt.
    pub corrupt: u64,
    /// Entries on disk now.
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Temporary files present (writes in flight, or left by crashed processes).
    pub temp_files: u64,
}

/// The disk cache as `tunespec cache` sees it (also when linking does not use it).
pub struct DiskView<'a> {
    pub(super) disk: std::borrow::Cow<'a, Disk>,
}

impl DiskView<'_> {
    /// Beside this cache, `<cache dir>-store`: the layers `--store` pulls for a link and the
    /// copies of what the stores were read (`store::reads`), kept apart from the cache's
    /// entries, whose directory holds only names the cache writes.
    pub fn store_dir(&self) -> Option<PathBuf> {
        let name = self.disk.root.file_name()?.to_string_lossy().into_owned();
        Some(self.disk.root.with_file_name(format!("{name}-store")))
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.disk.root
    }

    /// The byte cap.
    pub fn max_bytes(&self) -> u64 {
        self.disk.max_bytes
    }

    /// Counters (folded and pending) and what is on disk now. A missing directory has none.
    pub fn stats(&self) -> io::Result<DiskStats> {
        let disk = &self.disk;
        let mut totals = disk.totals();
        for log in ["stats.log.fold", "stats.log"] {
            totals.add_log(
                &files::read_private(&disk.root.join(log), MAX_STATS_BYTES).unwrap_or_default(),
            );
        }
        let mut stats = DiskStats {
            hits: totals.hits,
            misses: totals.misses,
            corrupt: totals.corrupt,
            ..DiskStats::default()
        };
        for item in read_dir_tolerant(&disk.entries)? {
            let name = item.file_name().to_string_lossy().into_owned();
            let Ok(metadata) = item.metadata() else {
                continue;
            };
            if name.starts_with(TEMP_PREFIX) {
                stats.temp_files += 1;
            } else if is_entry_name(&name) && metadata.is_file() {
                stats.entries += 1;
                stats.bytes += metadata.len();
            }
        }
        Ok(stats)
    }

    /// Removes every entry and stale temporary file (and with `counters`, the counters), under
    /// the lock. Returns the number of entries removed.
    pub fn clean(&self, counters: bool) -> io::Result<u64> {
        let disk = &self.disk;
        if !disk.root.exists() {
            return Ok(0);
        }
        // Only a directory tunespec may use as its cache is cleaned, and in it only the names
        // tunespec writes.
        check_dir(&disk.root).map_err(|reason| {
            io::Error::other(format!("{} {reason}; not cleaned", disk.root.display()))
        })?;
        let _lock = disk.lock(true)?;
        let mut removed = 0;
        for item in read_dir_tolerant(&disk.entries)? {
            let name = item.file_name().to_string_lossy().into_owned();
            let path = item.path();
            if let Some(rest) = name.strip_prefix(TEMP_PREFIX) {
                if let Ok(metadata) = item.metadata() {
                    if temp_is_stale(rest, &metadata) {
                        remove_tolerant(&path);
                    }
                }
            } else if is_entry_name(&name) && remove_tolerant(&path) {
                removed += 1;
            }
        }
        if counters {
            for name in ["stats.log", "stats.log.fold", "stats.json"] {
                remove_tolerant(&disk.root.join(name));
            }
        }
        // The copies of what shared stores were read (`store::reads`) are cache too; the
        // layers pulled for `--store` stay, as the copy a link falls back to when its store is
        // down. Only the directories tunespec names there (32 hex digits, one per store) go;
        // `reads` itself must be a directory, not a link to one; remove_dir_all removes a link
        // in its place, never what it points to.
        let reads = self.store_dir().map(|dir| dir.join("reads"));
        if let Some(reads) =
            reads.filter(|path| fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()))
        {
            for item in read_dir_tolerant(&reads)? {
                let name = item.file_name().to_string_lossy().into_owned();
                if name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
                    std::fs::remove_dir_all(item.path())?;
                }
            }
            let _ = std::fs::remove_dir(&reads);
        }
        Ok(removed)
    }

    /// Runs a maintenance pass now (waiting for the lock).
    pub fn maintain(&self) -> io::Result<Maintenance> {
        Ok(self.disk.maintain(true)?.unwrap_or_default())
    }
}

pub(super) fn is_entry_name(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

/// `<key>-<pid>-<n>`: stale when its process is gone or it is over an hour old.
pub(super) fn temp_is_stale(rest: &str, metadata: &fs::Metadata) -> bool {
    let old = metadata
        .modified()
        .ok()
        .and_then(|time| time.elapsed().ok())
        .is_some_and(|age| age > STALE_TEMP_AGE);
    if old {
        return true;
    }
    let pid = rest
        .rsplit('-')
        .nth(1)
        .and_then(|pid| pid.parse::<i32>().ok());
    match pid.and_then(rustix::process::Pid::from_raw) {
        Some(pid) if pid.as_raw_nonzero().get() as u32 == std::process::id() => false,
        Some(pid) => matches!(
            rustix::process::test_kill_process(pid),
            Err(rustix::io::Errno::SRCH)
        ),
        None => true,
    }
}

pub(super) fn read_dir_tolerant(dir: &Path) -> io::Result<Vec<fs::DirEntry>> {
    match fs::read_dir(dir) {
        Ok(items) => Ok(items.filter_map(Result::ok).collect()),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(Vec::new())
        }
        Err(error) => Err(error),
    }
}

/// Removes a file; a file that is already gone is fine. True if this call removed it.
pub(super) fn remove_tolerant(path: &Path) -> bool {
    fs::remove_file(path).is_ok()
}

pub(super) const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by tunespec.\n# For information about cache directory tags see https://bford.info/cachedir/\n";

/// Writes `CACHEDIR.TAG` if missing (`O_EXCL`: never through an existing path).
pub(super) fn write_cachedir_tag(root: &Path) {
    if let Ok(mut tag) = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(root.join("CACHEDIR.TAG"))
    {
        let _ = tag.write_all(CACHEDIR_TAG.as_bytes());
    }
}

/// The names tunespec writes in a cache directory (besides temporary files).
pub(super) const OWN_NAMES: [&str; 7] = [
    "entries",
    "stats.log",
    "stats.log.fold",
    "stats.json",
    "lock",
    "CACHEDIR.TAG",
    SECRET_FILE,
];

/// Why `root` cannot be tunespec's cache, if it cannot: it belongs to another user or others may
/// write to it ([`files::untrusted_dir`]); its `entries` is a symlink; or it holds files
/// tunespec did not write and no tunespec `CACHEDIR.TAG` (`TUNESPEC_CACHE_DIR=.` in a project).
/// A directory that does not exist yet is fine: tunespec creates it.
pub(super) fn check_dir(root: &Path) -> Result<(), String> {
    let metadata = match fs::metadata(root) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("cannot be read ({error})")),
    };
    if let Some(reason) = files::untrusted_dir(&metadata) {
        return Err(reason);
    }
    match fs::symlink_metadata(root.join("entries")) {
        Ok(entries) if entries.file_type().is_symlink() => {
            return Err("has a symlink for its entries directory".to_string())
        }
        Ok(entries) => {
            if let Some(reason) = files::untrusted_dir(&entries) {
                return Err(format!("has an entries directory that {reason}"));
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(format!("cannot be read ({error})")),
    }
    let tagged = files::read_private(&root.join("CACHEDIR.TAG"), 4096)
        .is_ok_and(|tag| tag == CACHEDIR_TAG.as_bytes());
    let own = || {
        fs::read_dir(root).is_ok_and(|mut items| {
            items.all(|item| {
                item.is_ok_and(|item| {
                    let name = item.file_name().to_string_lossy().into_owned();
                    OWN_NAMES.contains(&name.as_str()) || name.starts_with(TEMP_PREFIX)
                })
            })
        })
    };
    if !(tagged || own()) {
        return Err(
            "is not a tunespec cache (it holds other files and no CACHEDIR.TAG of tunespec's)"
                .to_string(),
        );
    }
    Ok(())
}

/// A new temporary file in `dir` named `.tmp-<what>-<pid>-<random>` (`O_CREAT|O_EXCL`, mode
/// 0600), removed if dropped before it is persisted.
/// Its errors name the cache directory's state, not the temporary file's name.
pub(super) fn private_temp(dir: &Path, what: &str) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{what}-{}-", std::process::id()))
        .tempfile_in(dir)
        .map_err(|error| io::Error::new(error.kind(), files::without_temp_path(&error)))
}

/// The key of the entry checksums of the cache in `dir` (for tools and tests that write or
/// check entries themselves: [`encode_entry_with`], [`decode_entry_with`]).
pub fn entry_secret(dir: &Path) -> io::Result<[u8; 32]> {
    read_secret(&dir.join(SECRET_FILE))
}

/// Reads the checksum key: a regular file (not a link) of 32 bytes, owned by this user, that no
/// one else may read or write.
pub(super) fn read_secret(path: &Path) -> io::Result<[u8; 32]> {
    let bad = |what: &str| io::Error::other(format!("{} {what}", path.display()));
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() || metadata.len() != 32 {
        return Err(bad("is not a 32-byte file"));
    }
    if metadata.uid() != files::euid() || metadata.mode() & 0o077 != 0 {
        return Err(bad("is not private to this user"));
    }
    let mut secret = [0u8; 32];
    file.read_exact(&mut secret)?;
    Ok(secret)
}
