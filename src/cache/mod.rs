//! A content-addressed cache of linked libraries: an in-process LRU in front of a crash-safe disk
//! cache shared by every process of the machine.
//!
//! Compilers link the same specs for every dispatch of every compile; with the cache a compile after
//! the first pays for hashing its inputs and reading one file. The design follows
//! `shared/guide/cache-design.md` (the failures of Triton's, Taichi's, Wave's and sccache's caches).
//!
//! # Key
//!
//! A [`Key`] is the BLAKE3 hash of a fixed, length-prefixed encoding (the *preimage*, built by
//! [`KeyParts`]) of everything that changes the linked library: the entry schema
//! ([`SCHEMA`]); tunespec's version; a fingerprint of the sources that decide the output (linker,
//! verifier, MLIR glue, this file: it stands in for a git hash and makes development builds safe);
//! the MLIR major version, the producer string of the MLIR tunespec was built with (read from the
//! embedded bytecode, e.g. `MLIR22.1.8`) and the bytecode version written; the target as resolved;
//! the entry point name; the [`Form`] stored (bytecode, or the printed text `link --emit mlir`
//! writes, cached too because printing a large library costs more than the link from cached
//! bytecode); every [`LinkOptions`] field (destructured, so a new option does not
//! compile until it is part of the key); and every input in link order with its role, display name
//! (it becomes the file of the locations inside the bytecode) and the BLAKE3 hash and length of the
//! exact bytes read. No `Debug` strings, map iteration order, paths of the cache or times. The
//! preimage is stored in each entry and compared on load.
//!
//! # Disk layout
//!
//! `DIR/entries/<key hex>`, one self-contained file per entry:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic [`MAGIC`] |
//! | 8 | 4 | schema, u32 LE ([`SCHEMA`]) |
//! | 12 | 4 | preimage length P, u32 LE |
//! | 16 | 4 | problems length Q, u32 LE |
//! | 20 | 8 | payload length N, u64 LE |
//! | 28 | 32 | BLAKE3, keyed with the cache's secret, of bytes 0..28, preimage, problems and payload |
//! | 60 | P | the key's preimage |
//! | 60+P | Q | the link's warnings, JSON (replayed on a hit, so a hit reports what the miss did) |
//! | 60+P+Q | N | the library: MLIR bytecode, or UTF-8 text for [`Form::Text`] (checked on load) |
//!
//! Writes go to a unique temporary file `entries/.tmp-<key>-<pid>-<n>` (`O_CREAT|O_EXCL`), are
//! synced, then renamed over the final name (atomic; concurrent writers of one key write identical
//! bytes, so the last one wins harmlessly). There is no lock on the hot path. A read checks magic,
//! schema, the exact file length, the preimage and the checksum; anything wrong is a miss that is
//! counted as corrupt, and the entry is removed and relinked. Nothing read from the cache is trusted
//! beyond its checksum: the bytes are parsed by MLIR like any other input, and an entry MLIR cannot
//! parse is dropped the same way ([`Cache::link_module`]).
//!
//! After each store, the process that gets the non-blocking `flock` on `DIR/lock` (released by the
//! kernel if it dies) sweeps stale temporary files (their process is gone, or older than an hour),
//! evicts least recently used entries (by modification time, refreshed on hits at most once a
//! minute) down to 80% of the byte cap when the cap is exceeded, and folds the counters. Files that
//! vanish meanwhile (another process got there first) are fine.
//!
//! # Trust
//!
//! The directory is used only when `check_dir` trusts it: it belongs to this user or root,
//! others cannot write to it (or it is sticky), `entries` is a real directory, and it is
//! tunespec's (empty, holding only tunespec's file names, or tagged with tunespec's
//! `CACHEDIR.TAG`); otherwise the cache is off with one warning. Files are created `O_EXCL`
//! (entries' temporary files, `CACHEDIR.TAG`, counters through `tempfile`) or opened
//! `O_NOFOLLOW|O_NONBLOCK` with their type checked (entries, `stats.log`, `lock`): a planted symlink
//! is never written through and a FIFO never blocks. `DIR/secret` (32 random bytes, mode 0600,
//! this user's) keys the entry checksums: an entry tunespec did not write (forged with a valid
//! plain checksum, or copied from another cache) fails the check and is relinked. `cache clean`
//! removes only tunespec's own names, and only in a directory `check_dir` accepts.
//!
//! Counters (hits, misses, corrupt) are appended as one byte per event to `DIR/stats.log`
//! (`O_APPEND`, no lock) and folded into `DIR/stats.json` under the lock once the log passes
//! 256 KiB. `DIR/CACHEDIR.TAG` keeps backup tools out.
//!
//! # Controls (environment)
//!
//! - `TUNESPEC_CACHE=on|off|readonly|recache` (any case; `1`/`true`/`yes` and `0`/`false`/`no`
//!   too; anything else is an error the CLI exits 2 on): `off` links every time and touches nothing;
//!   `readonly` uses entries but writes nothing (no stores, counters, removals); `recache` relinks
//!   and stores the result.
//! - `TUNESPEC_CACHE_STORE`, `TUNESPEC_CACHE_STORE_SECRET`: a shared store as a second level
//!   below the disk, its entries checked with the team's secret ([`remote`]).
//! - `TUNESPEC_CACHE_DIR`: the directory (default `$XDG_CACHE_HOME/tunespec`, else
//!   `~/.cache/tunespec`).
//! - `TUNESPEC_CACHE_MAX_BYTES`: the byte cap (default 256 MiB; suffixes `K`, `M`, `G`, `KiB`,
//!   `MiB`, `GiB`).
//! - `TUNESPEC_CACHE_FAULT=after-create|mid-write|after-write|before-rename|after-rename`: a test
//!   hook that kills the process (SIGKILL) at that step of a store.
//!
//! A cache directory that cannot be created or written degrades to uncached work with one warning
//! ([`codes::UNAVAILABLE`]), never a failed link.
//!
//! # In-process cache
//!
//! [`Cache`] is `Sync`: threads share one, each with its own [`Mlir`]. An LRU bounded by entries and
//! bytes sits in front of the disk, with single flight: concurrent requests for one key link once,
//! and the others wait for that result (errors included).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::files;
use crate::ir::{names, Loc};
use crate::link::{self, LinkInput, LinkOptions, Role};
use crate::mlir::{Mlir, OwnedOp, BYTECODE_VERSION};
use crate::problem::{Problem, Severity};
use crate::registry;

/// Version of the entry format and of the key's meaning. Bump it when either changes.
pub const SCHEMA: u32 = 4;
/// First bytes of every entry (PNG-style: a high byte, and line endings that text-mode copies
/// would mangle).
pub const MAGIC: [u8; 8] = *b"\x89TSLC\r\n\x1a";
/// The MLIR major version tunespec is built against (mlir-sys 220).
pub const MLIR_VERSION: &str = "22";
/// Default byte cap of the disk cache.
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;
/// Eviction brings the cache down to this share of the cap.
const EVICT_TO_PERCENT: u64 = 80;
/// Default bounds of the in-process LRU.
pub const DEFAULT_MEMORY_ENTRIES: usize = 64;
/// Default byte cap of the in-process LRU.
pub const DEFAULT_MEMORY_BYTES: u64 = 64 << 20;
/// Offset of the preimage in an entry: magic, schema, three lengths, checksum.
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 8 + 32;
/// A temporary file older than this is stale even if a process with its pid exists.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);
/// Hits refresh an entry's modification time (its LRU age) at most this often.
const TOUCH_INTERVAL: Duration = Duration::from_secs(60);
/// The counter log is folded into the totals past this size.
const STATS_LOG_FOLD_BYTES: u64 = 256 << 10;
const TEMP_PREFIX: &str = ".tmp-";
/// Nothing larger is read as an entry (the limit `tunespec verify` puts on inputs).
const MAX_ENTRY_BYTES: u64 = 1 << 30;
/// Nothing larger is read as a counter file.
const MAX_STATS_BYTES: u64 = 64 << 20;
/// The file holding the key of entry checksums.
const SECRET_FILE: &str = "secret";

/// Cache diagnostics codes.
pub mod codes {
    /// The cache directory cannot be used; work goes on uncached.
    pub const UNAVAILABLE: &str = "tunespec::cache::unavailable";
    /// A cache setting in the environment is invalid; the default is used.
    pub const SETTING: &str = "tunespec::cache::setting";
}

mod disk;
mod entry;
mod iree_store;
mod key;
mod memory;
pub mod remote;
mod settings;

pub use disk::*;
pub use entry::*;
pub use iree_store::OnDemand;
pub use key::*;
use memory::*;
pub use settings::*;

/// A linked library, from the cache or just linked.
#[derive(Clone, Debug)]
pub struct CachedLibrary {
    /// MLIR bytecode (version [`BYTECODE_VERSION`]); the printed text for [`Cache::link_text`].
    pub bytecode: Vec<u8>,
    /// Whether this request did not link (memory, disk, or another thread's concurrent link).
    pub hit: bool,
    /// The link's warnings and notes (stored with the entry, so a hit reports them too).
    pub problems: Vec<Problem>,
    /// The key it was linked (or found) under.
    pub key: Key,
}

/// A linked library as [`Cache::link_live`] hands it over, next to its module.
#[derive(Clone, Debug)]
pub struct LiveLibrary {
    /// Its bytecode, when the cache has it (always, unless the cache is off).
    pub bytecode: Option<Vec<u8>>,
    /// Whether this request did not link (memory, disk, or another thread's concurrent link).
    pub hit: bool,
    /// The link's warnings and notes (stored with the entry, so a hit reports them too).
    pub problems: Vec<Problem>,
    /// The key it was linked (or found) under; `None` when the cache is off (no key is computed).
    pub key: Option<Key>,
}

/// What a link produces for the cache.
#[derive(Clone, Debug)]
pub struct Artifact {
    /// The linked library, as bytecode.
    pub bytecode: Vec<u8>,
    /// The link's warnings and notes.
    pub problems: Vec<Problem>,
}

/// In-process counters of one [`Cache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessStats {
    /// Requests answered by the in-process LRU.
    pub memory_hits: u64,
    /// Requests answered by the disk cache.
    pub disk_hits: u64,
    /// Requests answered by another thread's concurrent link.
    pub shared: u64,
    /// Links this process ran (misses).
    pub links: u64,
    /// Entries found corrupt (dropped and relinked).
    pub corrupt: u64,
    /// Entries written to disk.
    pub stores: u64,
    /// Requests answered by the second level ([`remote`]: `TUNESPEC_CACHE_STORE`).
    pub remote_hits: u64,
    /// Links this process offered to the second level and it took.
    pub remote_stores: u64,
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    shared: AtomicU64,
    links: AtomicU64,
    corrupt: AtomicU64,
    stores: AtomicU64,
    remote_hits: AtomicU64,
    remote_stores: AtomicU64,
}

/// The cache: settings, the in-process LRU, single-flight bookkeeping and the disk store.
pub struct Cache {
    settings: Settings,
    disk: Option<Disk>,
    memory: Mutex<Memory>,
    flights: Mutex<HashMap<[u8; 32], Arc<Flight>>>,
    warnings: Mutex<(Vec<Problem>, BTreeSet<String>)>,
    counters: Counters,
    /// IREE's answers asked in this process while the cache is off (see `iree_store`).
    pub(super) answered: Mutex<HashMap<[u8; 32], Arc<Vec<u8>>>>,
    /// The second level below the disk ([`remote`]), when configured.
    remote: Option<remote::Remote>,
}

impl Cache {
    /// A cache configured from `env` (see the module documentation).
    pub fn from_env(env: &crate::config::Environment) -> Cache {
        let (settings, warnings) = Settings::from_env(env);
        let cache = Cache::new(settings).with_remote_from(env);
        for mut warning in warnings {
            if warning.is_error() {
                warning.severity = Severity::Warning;
                warning.message.push_str("; using on");
            }
            cache.warn(warning);
        }
        cache
    }

    /// [`Cache::from_env`] for the CLI: an invalid setting is an error (the command exits 2)
    /// instead of a warning.
    pub fn from_env_strict(env: &crate::config::Environment) -> Result<Cache, Box<Problem>> {
        let (settings, warnings) = Settings::from_env(env);
        if let Some(error) = warnings.iter().find(|warning| warning.is_error()) {
            return Err(Box::new(error.clone()));
        }
        let cache = Cache::new(settings).with_remote_from(env);
        for warning in warnings {
            cache.warn(warning);
        }
        Ok(cache)
    }

    /// This cache with the second level `env` configures (`TUNESPEC_CACHE_STORE`), unless the
    /// cache is off; a second level that cannot be used is a warning.
    fn with_remote_from(mut self, env: &crate::config::Environment) -> Cache {
        if self.settings.mode == Mode::Off {
            return self;
        }
        match remote::Remote::from_env(env) {
            Ok(remote) => self.remote = remote,
            Err(message) => self.warn(Problem::warning(codes::UNAVAILABLE, message, None)),
        }
        self
    }

    /// A cache with these settings (the disk cache only if its directory can be trusted).
    pub fn new(settings: Settings) -> Cache {
        let mut refused = None;
        let disk = match (settings.mode, &settings.dir) {
            (Mode::Off, _) | (_, None) => None,
            (mode, Some(dir)) => match check_dir(dir) {
                Ok(()) => Some(Disk::new(
                    dir.clone(),
                    settings.max_bytes,
                    mode != Mode::ReadOnly,
                    settings.fault,
                )),
                Err(reason) => {
                    refused = Some(format!(
                        "cache directory {} {reason}; linking without the disk cache",
                        dir.display()
                    ));
                    None
                }
            },
        };
        let cache = Cache {
            memory: Mutex::new(Memory::new(settings.memory_entries, settings.memory_bytes)),
            settings,
            disk,
            flights: Mutex::default(),
            warnings: Mutex::default(),
            counters: Counters::default(),
            answered: Mutex::default(),
            remote: None,
        };
        if let Some(message) = refused {
            cache.warn(Problem::warning(codes::UNAVAILABLE, message, None));
        }
        if cache.settings.mode != Mode::Off && cache.settings.dir.is_none() {
            cache.warn(Problem::warning(
                codes::UNAVAILABLE,
                "no cache directory (set TUNESPEC_CACHE_DIR, XDG_CACHE_HOME or HOME); linking without the disk cache",
                None,
            ));
        }
        cache
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Warnings about the cache itself (invalid settings, an unusable directory), each once;
    /// taking them empties the list.
    pub fn take_warnings(&self) -> Vec<Problem> {
        std::mem::take(&mut lock(&self.warnings).0)
    }

    /// This process's counters so far.
    pub fn process_stats(&self) -> ProcessStats {
        let c = &self.counters;
        ProcessStats {
            memory_hits: c.memory_hits.load(Ordering::Relaxed),
            disk_hits: c.disk_hits.load(Ordering::Relaxed),
            shared: c.shared.load(Ordering::Relaxed),
            links: c.links.load(Ordering::Relaxed),
            corrupt: c.corrupt.load(Ordering::Relaxed),
            stores: c.stores.load(Ordering::Relaxed),
            remote_hits: c.remote_hits.load(Ordering::Relaxed),
            remote_stores: c.remote_stores.load(Ordering::Relaxed),
        }
    }

    /// Links `inputs` for `target` through the cache. `target` is the target as resolved (with
    /// features), empty when none applies.
    pub fn link(
        &self,
        mlir: &Mlir,
        target: &str,
        inputs: &[LinkInput],
        options: LinkOptions,
    ) -> Result<CachedLibrary, Vec<Problem>> {
        self.link_with(target, inputs, options, || mlir)
    }

    /// [`Cache::link`] with the MLIR context created only on a miss (a hit needs none).
    pub fn link_with<'m>(
        &self,
        target: &str,
        inputs: &[LinkInput],
        options: LinkOptions,
        mlir: impl FnOnce() -> &'m Mlir,
    ) -> Result<CachedLibrary, Vec<Problem>> {
        let key = KeyParts::new(target, inputs, &options).key();
        self.get_or_insert_with(&key, || link_artifact(mlir(), inputs, options))
    }

    /// The library printed as MLIR text, through the cache (an entry of its own, [`Form::Text`]):
    /// a hit needs no MLIR context and no printing. A miss links and prints the linked module.
    /// The text is what MLIR prints for the bytecode form of the same library (tests/all/link.rs
    /// checks it against mlir-opt printing the bytecode), so text and bytecode agree without a
    /// bytecode round trip (a quarter of a large text link). Only the text entry is stored: one
    /// link, one entry.
    pub fn link_text<'m>(
        &self,
        target: &str,
        inputs: &[LinkInput],
        options: LinkOptions,
        mlir: impl FnOnce() -> &'m Mlir,
    ) -> Result<CachedLibrary, Vec<Problem>> {
        let mut parts = KeyParts::new(target, inputs, &options);
        parts.form = Form::Text;
        let key = parts.key();
        self.get_or_insert_with(&key, || {
            let linked = link::link(mlir(), inputs, options)?;
            let bytecode =
                tracing::info_span!("link.print").in_scope(|| linked.module.print_file_bytes());
            let problems = linked.problems;
            tracing::info_span!("link.drop").in_scope(|| drop(linked.module));
            Ok(Artifact { bytecode, problems })
        })
    }

    /// The library parsed in `mlir`'s context, through the cache. A cached entry that MLIR does
    /// not parse is counted as corrupt, removed and relinked.
    pub fn link_module<'c>(
        &self,
        mlir: &'c Mlir,
        target: &str,
        inputs: &[LinkInput],
        options: LinkOptions,
    ) -> Result<(OwnedOp<'c>, CachedLibrary), Vec<Problem>> {
        let library = self.link(mlir, target, inputs, options.clone())?;
        if let Some(module) = parse_library(mlir, &library.bytecode) {
            return Ok((module, library));
        }
        if library.hit {
            self.invalidate(&library.key);
            let library = self.link(mlir, target, inputs, options.clone())?;
            if let Some(module) = parse_library(mlir, &library.bytecode) {
                return Ok((module, library));
            }
        }
        Err(vec![Problem::error(
            link::codes::INTERNAL,
            "the linked library's bytecode does not parse (a tunespec bug: please report it with the inputs)",
            None,
        )])
    }

    /// [`Cache::link_module`] without the bytecode round trip on a miss: the module this process
    /// just linked is handed back as it is (its bytecode is still what the cache stores, unless
    /// the cache is off: then no bytecode is written at all, and [`LiveLibrary::bytecode`] is
    /// `None`). A hit parses the stored bytecode, as [`Cache::link_module`] does, and an entry
    /// MLIR does not parse is dropped and relinked.
    pub fn link_live<'c>(
        &self,
        mlir: &'c Mlir,
        target: &str,
        inputs: &[LinkInput],
        options: LinkOptions,
    ) -> Result<(OwnedOp<'c>, LiveLibrary), Vec<Problem>> {
        if self.settings.mode == Mode::Off {
            self.counters.links.fetch_add(1, Ordering::Relaxed);
            let linked = link::link(mlir, inputs, options)?;
            return Ok((
                linked.module,
                LiveLibrary {
                    bytecode: None,
                    hit: false,
                    problems: linked.problems,
                    key: None,
                },
            ));
        }
        let key = KeyParts::new(target, inputs, &options).key();
        for attempt in 0..2 {
            let mut linked_here = None;
            let library = self.get_or_insert_with(&key, || {
                let linked = link::link(mlir, inputs, options.clone())?;
                let bytecode = linked.module.to_bytecode().map_err(|message| {
                    vec![Problem::error(link::codes::INTERNAL, message, None)]
                })?;
                linked_here = Some(linked.module);
                Ok(Artifact {
                    bytecode,
                    problems: linked.problems,
                })
            })?;
            let live = |library: CachedLibrary| LiveLibrary {
                bytecode: Some(library.bytecode),
                hit: library.hit,
                problems: library.problems,
                key: Some(library.key),
            };
            if let Some(module) = linked_here {
                return Ok((module, live(library)));
            }
            if let Some(module) = parse_library(mlir, &library.bytecode) {
                return Ok((module, live(library)));
            }
            if attempt == 0 && library.hit {
                self.invalidate(&library.key);
                continue;
            }
            break;
        }
        Err(vec![Problem::error(
            link::codes::INTERNAL,
            "the linked library's bytecode does not parse (a tunespec bug: please report it with the inputs)",
            None,
        )])
    }

    /// Drops `key` from memory and disk, counting it as corrupt: for an entry whose contents a
    /// consumer rejected.
    pub fn invalidate(&self, key: &Key) {
        lock(&self.memory).remove(&key.hash);
        self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
        if let Some(disk) = &self.disk {
            if disk.writable {
                disk.remove_entry(key, None);
                disk.record(Event::Corrupt);
            }
        }
    }

    /// The artifact for `key`: from memory, from disk, or built by `build` (once, however many
    /// threads ask at the same time) and stored. Failures are never cached.
    pub fn get_or_insert_with(
        &self,
        key: &Key,
        build: impl FnOnce() -> Result<Artifact, Vec<Problem>>,
    ) -> Result<CachedLibrary, Vec<Problem>> {
        let mode = self.settings.mode;
        if mode == Mode::Off {
            self.counters.links.fetch_add(1, Ordering::Relaxed);
            let artifact = build()?;
            return Ok(library(artifact, false, key));
        }
        if mode != Mode::Recache {
            if let Some(artifact) = lock(&self.memory).get(key) {
                self.counters.memory_hits.fetch_add(1, Ordering::Relaxed);
                return Ok(library_ref(&artifact, true, key));
            }
        }
        // Single flight: the first request for a key leads; the others wait for its result.
        let flight = loop {
            let existing = {
                let mut flights = lock(&self.flights);
                match flights.get(&key.hash) {
                    Some(flight) => Some(flight.clone()),
                    None => {
                        let flight = Arc::new(Flight::default());
                        flights.insert(key.hash, flight.clone());
                        break flight;
                    }
                }
            };
            if let Some(flight) = existing {
                match flight.wait() {
                    FlightState::Done(Ok(artifact)) => {
                        self.counters.shared.fetch_add(1, Ordering::Relaxed);
                        return Ok(library_ref(&artifact, true, key));
                    }
                    FlightState::Done(Err(problems)) => return Err(problems),
                    // The leader panicked: try again (perhaps as the leader).
                    FlightState::Abandoned | FlightState::Running => continue,
                }
            }
        };
        let mut guard = FlightGuard {
            cache: self,
            hash: key.hash,
            flight,
            done: false,
        };
        let result = self.lead(key, build);
        guard.finish(match &result {
            Ok((artifact, _)) => Ok(artifact.clone()),
            Err(problems) => Err(problems.clone()),
        });
        result.map(|(artifact, hit)| library_ref(&artifact, hit, key))
    }

    /// The leader's work: disk lookup, then link and store.
    fn lead(
        &self,
        key: &Key,
        build: impl FnOnce() -> Result<Artifact, Vec<Problem>>,
    ) -> Result<(Arc<Artifact>, bool), Vec<Problem>> {
        let mode = self.settings.mode;
        if let (Some(disk), true) = (&self.disk, mode != Mode::Recache) {
            match tracing::info_span!("cache.lookup").in_scope(|| disk.load(key)) {
                Lookup::Hit(artifact) => {
                    tracing::debug!("hit on disk");
                    self.counters.disk_hits.fetch_add(1, Ordering::Relaxed);
                    disk.record(Event::Hit);
                    let artifact = Arc::new(artifact);
                    lock(&self.memory).insert(key, artifact.clone());
                    return Ok((artifact, true));
                }
                Lookup::Miss => {}
                Lookup::Corrupt => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    disk.record(Event::Corrupt);
                }
                Lookup::Unreadable(error) => self.unavailable(disk, "cannot be read", &error),
            }
        }
        let remote = (mode != Mode::Recache)
            .then(|| self.remote_load(key))
            .flatten();
        let hit = remote.is_some();
        if !hit {
            self.counters.links.fetch_add(1, Ordering::Relaxed);
            if let Some(disk) = &self.disk {
                disk.record(Event::Miss);
            }
        }
        let artifact = Arc::new(match remote {
            Some(artifact) => artifact,
            None => build()?,
        });
        if !hit {
            self.remote_save(key, &artifact);
        }
        if let Some(disk) = &self.disk {
            if disk.writable {
                match tracing::info_span!("cache.store").in_scope(|| disk.store(key, &artifact)) {
                    Ok(true) => {
                        self.counters.stores.fetch_add(1, Ordering::Relaxed);
                        // Maintenance failures never fail a link.
                        let _ = disk.maintain(false);
                    }
                    Ok(false) => {}
                    Err(error) => self.unavailable(disk, "is not writable", &error),
                }
            }
        }
        lock(&self.memory).insert(key, artifact.clone());
        Ok((artifact, hit))
    }

    fn unavailable(&self, disk: &Disk, what: &str, error: &io::Error) {
        self.warn(Problem::warning(
            codes::UNAVAILABLE,
            format!(
                "cache directory {} {what} ({error}); linking without the disk cache",
                disk.root.display()
            ),
            None,
        ));
    }

    /// Records a warning once: an unusable directory once per cache whatever the error, other
    /// warnings once per message.
    fn warn(&self, problem: Problem) {
        let mut warnings = lock(&self.warnings);
        let tag = if problem.code == codes::UNAVAILABLE {
            problem.code.to_string()
        } else {
            format!("{}: {}", problem.code, problem.message)
        };
        if warnings.1.insert(tag) {
            warnings.0.push(problem);
        }
    }

    /// The disk side, for `tunespec cache` (stats, clean). `None` without a directory.
    pub fn disk_view(&self) -> Option<DiskView<'_>> {
        let dir = self.settings.dir.as_ref()?;
        Some(DiskView {
            disk: match &self.disk {
                Some(disk) => std::borrow::Cow::Borrowed(disk),
                None => std::borrow::Cow::Owned(Disk::new(
                    dir.clone(),
                    self.settings.max_bytes,
                    true,
                    self.settings.fault,
                )),
            },
        })
    }
}

fn link_artifact(
    mlir: &Mlir,
    inputs: &[LinkInput],
    options: LinkOptions,
) -> Result<Artifact, Vec<Problem>> {
    let linked = link::link(mlir, inputs, options)?;
    let bytecode = linked
        .module
        .to_bytecode()
        .map_err(|message| vec![Problem::error(link::codes::INTERNAL, message, None)])?;
    Ok(Artifact {
        bytecode,
        problems: linked.problems,
    })
}

fn parse_library<'c>(mlir: &'c Mlir, bytecode: &[u8]) -> Option<OwnedOp<'c>> {
    let parsed = mlir.parse(bytecode, "<linked>");
    if parsed.problems.iter().any(Problem::is_error) {
        return None;
    }
    parsed.module
}

fn library(artifact: Artifact, hit: bool, key: &Key) -> CachedLibrary {
    CachedLibrary {
        bytecode: artifact.bytecode,
        hit,
        problems: artifact.problems,
        key: key.clone(),
    }
}

fn library_ref(artifact: &Artifact, hit: bool, key: &Key) -> CachedLibrary {
    CachedLibrary {
        bytecode: artifact.bytecode.clone(),
        hit,
        problems: artifact.problems.clone(),
        key: key.clone(),
    }
}

/// A poisoned lock only means another thread panicked; the data is still consistent here.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
