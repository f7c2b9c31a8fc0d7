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
//! The directory is used only when [`check_dir`] trusts it: it belongs to this user or root,
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
pub const SCHEMA: u32 = 3;
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

// ---------------------------------------------------------------------------------------------
// Key

/// One input of a key: role, display name, and hash and length of the exact bytes read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInput {
    pub role: Role,
    pub name: String,
    pub len: u64,
    pub hash: [u8; 32],
}

/// Everything a key is made of. [`KeyParts::new`] fills in this build's constants; tests change
/// one field at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyParts {
    pub schema: u32,
    pub tunespec_version: String,
    /// Fingerprint of the sources that decide the output ([`build_fingerprint`]).
    pub build: String,
    pub mlir_version: String,
    /// Producer string of the MLIR build ([`mlir_producer`]).
    pub mlir_producer: String,
    pub bytecode_version: i64,
    /// The target as resolved (may be empty when no target is involved).
    pub target: String,
    pub entry_point: String,
    pub dedupe: bool,
    /// What the entry holds: the library as bytecode, or as printed text.
    pub form: Form,
    pub inputs: Vec<KeyInput>,
}

/// The form of a cached library. Text is cached separately because printing a large library
/// costs more than linking it from cached bytecode (26 MB of text: about a second), and a hit
/// should cost only a copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// MLIR bytecode (version [`BYTECODE_VERSION`]).
    #[default]
    Bytecode,
    /// The library printed as MLIR text (what `link --emit mlir` writes).
    Text,
}

impl KeyParts {
    /// The key parts of linking `inputs` (highest priority first) for `target` with `options`.
    pub fn new(target: &str, inputs: &[LinkInput], options: LinkOptions) -> Self {
        // Destructured on purpose: a new option must be added to the key before this compiles.
        let LinkOptions { dedupe } = options;
        KeyParts {
            schema: SCHEMA,
            tunespec_version: env!("CARGO_PKG_VERSION").to_string(),
            build: build_fingerprint().to_string(),
            mlir_version: MLIR_VERSION.to_string(),
            mlir_producer: mlir_producer().to_string(),
            bytecode_version: BYTECODE_VERSION,
            target: target.to_string(),
            entry_point: names::KERNEL_CONFIG.to_string(),
            dedupe,
            form: Form::Bytecode,
            inputs: inputs
                .iter()
                .map(|input| KeyInput {
                    role: input.role.clone(),
                    name: input.name.clone(),
                    len: input.bytes.len() as u64,
                    hash: *blake3::hash(&input.bytes).as_bytes(),
                })
                .collect(),
        }
    }

    /// The fixed encoding: a domain tag, then `name = value` fields in a fixed order, each as
    /// u32 LE name length, name, u64 LE value length, value.
    pub fn preimage(&self) -> Vec<u8> {
        fn field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(value.len() as u64).to_le_bytes());
            out.extend_from_slice(value);
        }
        let mut out = Vec::with_capacity(256 + self.inputs.len() * 96);
        field(&mut out, "tunespec-cache-key", b"");
        field(&mut out, "schema", &self.schema.to_le_bytes());
        field(&mut out, "tunespec", self.tunespec_version.as_bytes());
        field(&mut out, "build", self.build.as_bytes());
        field(&mut out, "mlir", self.mlir_version.as_bytes());
        field(&mut out, "mlir-producer", self.mlir_producer.as_bytes());
        field(&mut out, "bytecode", &self.bytecode_version.to_le_bytes());
        field(&mut out, "target", self.target.as_bytes());
        field(&mut out, "entry-point", self.entry_point.as_bytes());
        field(&mut out, "dedupe", &[u8::from(self.dedupe)]);
        let form: &[u8] = match self.form {
            Form::Bytecode => b"mlirbc",
            Form::Text => b"mlir",
        };
        field(&mut out, "form", form);
        field(
            &mut out,
            "inputs",
            &(self.inputs.len() as u64).to_le_bytes(),
        );
        for input in &self.inputs {
            match &input.role {
                Role::User => field(&mut out, "role", b"user"),
                Role::Default { target } => {
                    field(&mut out, "role", b"default");
                    field(&mut out, "role-target", target.as_bytes());
                }
            }
            field(&mut out, "name", input.name.as_bytes());
            field(&mut out, "len", &input.len.to_le_bytes());
            field(&mut out, "blake3", &input.hash);
        }
        out
    }

    pub fn key(&self) -> Key {
        let preimage = self.preimage();
        Key {
            hash: *blake3::hash(&preimage).as_bytes(),
            preimage,
            form: self.form,
        }
    }
}

/// A cache key: the BLAKE3 hash of a preimage, and the preimage (compared on load).
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    hash: [u8; 32],
    preimage: Vec<u8>,
    /// Also in the preimage; kept apart so that an entry's payload can be checked by its form.
    form: Form,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Key({}, {} preimage bytes)",
            self.hex(),
            self.preimage.len()
        )
    }
}

impl Key {
    pub fn hash(&self) -> &[u8; 32] {
        &self.hash
    }
    pub fn preimage(&self) -> &[u8] {
        &self.preimage
    }
    /// 64 lowercase hex digits: the entry's file name.
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.hash).to_hex().to_string()
    }
}

/// A fingerprint of the sources that decide the linked output: the stand-in for a git hash that
/// makes a cache shared by development builds safe. build.rs hashes whole source trees (see its
/// `FINGERPRINTED_TREES`), so no list of files here can fall out of date.
pub fn build_fingerprint() -> &'static str {
    env!("TUNESPEC_SOURCE_FINGERPRINT")
}

/// The producer string MLIR wrote into the embedded specs' bytecode (`MLIR22.1.8`): the exact
/// MLIR release tunespec was built with, with no build-script support.
pub fn mlir_producer() -> &'static str {
    static PRODUCER: OnceLock<String> = OnceLock::new();
    PRODUCER.get_or_init(|| {
        registry::specs()
            .iter()
            .find_map(|spec| bytecode_producer(spec.bytecode()))
            .unwrap_or_else(|| format!("MLIR{MLIR_VERSION}"))
    })
}

/// Reads the producer of MLIR bytecode: magic `ML\xEFR`, a prefix varint version, then a
/// NUL-terminated string.
fn bytecode_producer(bytes: &[u8]) -> Option<String> {
    let rest = bytes.strip_prefix(b"ML\xEFR")?;
    let first = *rest.first()?;
    let varint_len = if first == 0 {
        9
    } else {
        first.trailing_zeros() as usize + 1
    };
    let rest = rest.get(varint_len..)?;
    let end = rest.iter().take(256).position(|&byte| byte == 0)?;
    String::from_utf8(rest[..end].to_vec()).ok()
}

// ---------------------------------------------------------------------------------------------
// Settings

/// What the cache does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Look up, link on a miss, store.
    On,
    /// No cache at all: link every time, touch nothing.
    Off,
    /// Use entries (memory and disk) but write nothing to disk.
    ReadOnly,
    /// Relink every time and store the result (replacing entries).
    Recache,
}

impl Mode {
    /// A `TUNESPEC_CACHE` value, in any case: `on`, `1`, `true`, `yes`; `off`, `0`, `false`,
    /// `no`; `readonly` (`read-only`); `recache`.
    pub fn parse(text: &str) -> Option<Mode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "on" | "1" | "true" | "yes" => Some(Mode::On),
            "off" | "0" | "false" | "no" => Some(Mode::Off),
            "readonly" | "read-only" => Some(Mode::ReadOnly),
            "recache" => Some(Mode::Recache),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::On => "on",
            Mode::Off => "off",
            Mode::ReadOnly => "readonly",
            Mode::Recache => "recache",
        }
    }
}

/// The cache configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    /// The disk cache directory; `None` when none can be determined (no disk cache).
    pub dir: Option<PathBuf>,
    pub max_bytes: u64,
    pub memory_entries: usize,
    pub memory_bytes: u64,
}

impl Settings {
    /// Settings from the process environment, and warnings about invalid values.
    pub fn from_env() -> (Settings, Vec<Problem>) {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// Settings from a variable lookup (for tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> (Settings, Vec<Problem>) {
        let mut warnings = Vec::new();
        let text = |name: &str| {
            var(name)
                .map(|value| value.to_string_lossy().trim().to_string())
                .filter(|value| !value.is_empty())
        };
        let mode = match text("TUNESPEC_CACHE") {
            None => Mode::On,
            Some(value) => Mode::parse(&value).unwrap_or_else(|| {
                // An error: the CLI refuses to run (exit 2); `Cache::from_env` warns and uses on.
                warnings.push(Problem::error(
                    codes::SETTING,
                    format!(
                        "TUNESPEC_CACHE={value} is not one of on, off, readonly, recache (or 1, 0, true, false, yes, no)"
                    ),
                    None,
                ));
                Mode::On
            }),
        };
        let dir = match var("TUNESPEC_CACHE_DIR").filter(|value| !value.is_empty()) {
            Some(dir) => Some(PathBuf::from(dir)),
            None => match var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .filter(|path| path.is_absolute())
            {
                Some(xdg) => Some(xdg.join("tunespec")),
                None => var("HOME")
                    .filter(|home| !home.is_empty())
                    .map(|home| PathBuf::from(home).join(".cache").join("tunespec")),
            },
        };
        let max_bytes = match text("TUNESPEC_CACHE_MAX_BYTES") {
            None => DEFAULT_MAX_BYTES,
            Some(value) => parse_size(&value).unwrap_or_else(|| {
                warnings.push(Problem::warning(
                    codes::SETTING,
                    format!(
                        "TUNESPEC_CACHE_MAX_BYTES={value} is not a size (bytes, or with K, M, G, KiB, MiB, GiB); using 256 MiB"
                    ),
                    None,
                ));
                DEFAULT_MAX_BYTES
            }),
        };
        (
            Settings {
                mode,
                dir,
                max_bytes,
                memory_entries: DEFAULT_MEMORY_ENTRIES,
                memory_bytes: DEFAULT_MEMORY_BYTES,
            },
            warnings,
        )
    }
}

/// `123`, `64K`, `256MiB`, `1G`: binary multiples.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|ch: char| !ch.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    number.checked_mul(1 << shift)
}

// ---------------------------------------------------------------------------------------------
// The cache

/// A linked library, from the cache or just linked.
#[derive(Clone, Debug)]
pub struct CachedLibrary {
    /// MLIR bytecode (version [`BYTECODE_VERSION`]); the printed text for [`Cache::link_text`].
    pub bytecode: Vec<u8>,
    /// Whether this request did not link (memory, disk, or another thread's concurrent link).
    pub hit: bool,
    /// The link's warnings and notes (stored with the entry, so a hit reports them too).
    pub problems: Vec<Problem>,
    pub key: Key,
}

/// What a link produces for the cache.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub bytecode: Vec<u8>,
    pub problems: Vec<Problem>,
}

/// In-process counters of one [`Cache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessStats {
    pub memory_hits: u64,
    pub disk_hits: u64,
    /// Requests answered by another thread's concurrent link.
    pub shared: u64,
    pub links: u64,
    pub corrupt: u64,
    pub stores: u64,
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    shared: AtomicU64,
    links: AtomicU64,
    corrupt: AtomicU64,
    stores: AtomicU64,
}

/// The cache: settings, the in-process LRU, single-flight bookkeeping and the disk store.
pub struct Cache {
    settings: Settings,
    disk: Option<Disk>,
    memory: Mutex<Memory>,
    flights: Mutex<HashMap<[u8; 32], Arc<Flight>>>,
    warnings: Mutex<(Vec<Problem>, BTreeSet<String>)>,
    counters: Counters,
}

impl Cache {
    /// A cache configured from the environment (see the module documentation).
    pub fn from_env() -> Cache {
        let (settings, warnings) = Settings::from_env();
        let cache = Cache::new(settings);
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
    pub fn from_env_strict() -> Result<Cache, Box<Problem>> {
        let (settings, warnings) = Settings::from_env();
        if let Some(error) = warnings.iter().find(|warning| warning.is_error()) {
            return Err(Box::new(error.clone()));
        }
        let cache = Cache::new(settings);
        for warning in warnings {
            cache.warn(warning);
        }
        Ok(cache)
    }

    /// One process-wide cache configured from the environment, for library users.
    pub fn global() -> &'static Cache {
        static GLOBAL: OnceLock<Cache> = OnceLock::new();
        GLOBAL.get_or_init(Cache::from_env)
    }

    pub fn new(settings: Settings) -> Cache {
        let mut refused = None;
        let disk = match (settings.mode, &settings.dir) {
            (Mode::Off, _) | (_, None) => None,
            (mode, Some(dir)) => match check_dir(dir) {
                Ok(()) => Some(Disk::new(
                    dir.clone(),
                    settings.max_bytes,
                    mode != Mode::ReadOnly,
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

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Warnings about the cache itself (invalid settings, an unusable directory), each once;
    /// taking them empties the list.
    pub fn take_warnings(&self) -> Vec<Problem> {
        std::mem::take(&mut lock(&self.warnings).0)
    }

    pub fn process_stats(&self) -> ProcessStats {
        let c = &self.counters;
        ProcessStats {
            memory_hits: c.memory_hits.load(Ordering::Relaxed),
            disk_hits: c.disk_hits.load(Ordering::Relaxed),
            shared: c.shared.load(Ordering::Relaxed),
            links: c.links.load(Ordering::Relaxed),
            corrupt: c.corrupt.load(Ordering::Relaxed),
            stores: c.stores.load(Ordering::Relaxed),
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
        let key = KeyParts::new(target, inputs, options).key();
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
        let mut parts = KeyParts::new(target, inputs, options);
        parts.form = Form::Text;
        let key = parts.key();
        self.get_or_insert_with(&key, || {
            let linked = link::link(mlir(), inputs, options)?;
            Ok(Artifact {
                bytecode: linked.module.print_file().into_bytes(),
                problems: linked.problems,
            })
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
        let library = self.link(mlir, target, inputs, options)?;
        if let Some(module) = parse_library(mlir, &library.bytecode) {
            return Ok((module, library));
        }
        if library.hit {
            self.invalidate(&library.key);
            let library = self.link(mlir, target, inputs, options)?;
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
            match disk.load(key) {
                Lookup::Hit(artifact) => {
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
        self.counters.links.fetch_add(1, Ordering::Relaxed);
        if let Some(disk) = &self.disk {
            disk.record(Event::Miss);
        }
        let artifact = Arc::new(build()?);
        if let Some(disk) = &self.disk {
            if disk.writable {
                match disk.store(key, &artifact) {
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
        Ok((artifact, false))
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
                None => {
                    std::borrow::Cow::Owned(Disk::new(dir.clone(), self.settings.max_bytes, true))
                }
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

// ---------------------------------------------------------------------------------------------
// Single flight

#[derive(Clone)]
enum FlightState {
    Running,
    Done(Result<Arc<Artifact>, Vec<Problem>>),
    Abandoned,
}

struct Flight {
    state: Mutex<FlightState>,
    done: Condvar,
}

impl Default for Flight {
    fn default() -> Self {
        Flight {
            state: Mutex::new(FlightState::Running),
            done: Condvar::new(),
        }
    }
}

impl Flight {
    fn wait(&self) -> FlightState {
        let mut state = lock(&self.state);
        while matches!(*state, FlightState::Running) {
            state = self
                .done
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state.clone()
    }
}

/// Ends a flight: with the leader's result, or abandoned if the leader unwinds.
struct FlightGuard<'a> {
    cache: &'a Cache,
    hash: [u8; 32],
    flight: Arc<Flight>,
    done: bool,
}

impl FlightGuard<'_> {
    fn finish(&mut self, result: Result<Arc<Artifact>, Vec<Problem>>) {
        self.end(FlightState::Done(result));
        self.done = true;
    }
    fn end(&self, state: FlightState) {
        lock(&self.cache.flights).remove(&self.hash);
        *lock(&self.flight.state) = state;
        self.flight.done.notify_all();
    }
}

impl Drop for FlightGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.end(FlightState::Abandoned);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// In-process LRU

struct Memory {
    max_entries: usize,
    max_bytes: u64,
    bytes: u64,
    tick: u64,
    entries: HashMap<[u8; 32], (Key, Arc<Artifact>, u64)>,
    order: BTreeMap<u64, [u8; 32]>,
}

impl Memory {
    fn new(max_entries: usize, max_bytes: u64) -> Self {
        Memory {
            max_entries,
            max_bytes,
            bytes: 0,
            tick: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    fn size(artifact: &Artifact) -> u64 {
        (artifact.bytecode.len() + artifact.problems.len() * 256) as u64
    }

    fn get(&mut self, key: &Key) -> Option<Arc<Artifact>> {
        self.tick += 1;
        let tick = self.tick;
        let (stored_key, artifact, last) = self.entries.get_mut(&key.hash)?;
        if stored_key.preimage != key.preimage {
            return None;
        }
        self.order.remove(last);
        *last = tick;
        self.order.insert(tick, key.hash);
        Some(artifact.clone())
    }

    fn insert(&mut self, key: &Key, artifact: Arc<Artifact>) {
        self.remove(&key.hash);
        let size = Self::size(&artifact);
        if self.max_entries == 0 || size > self.max_bytes {
            return;
        }
        while self.entries.len() >= self.max_entries || self.bytes + size > self.max_bytes {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((_, evicted, _)) = self.entries.remove(&oldest) {
                self.bytes -= Self::size(&evicted);
            }
        }
        self.tick += 1;
        self.bytes += size;
        self.order.insert(self.tick, key.hash);
        self.entries
            .insert(key.hash, (key.clone(), artifact, self.tick));
    }

    fn remove(&mut self, hash: &[u8; 32]) {
        if let Some((_, artifact, tick)) = self.entries.remove(hash) {
            self.order.remove(&tick);
            self.bytes -= Self::size(&artifact);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Entries

/// A warning as stored in an entry.
#[derive(Serialize, Deserialize)]
struct StoredProblem {
    code: String,
    severity: String,
    message: String,
    loc: Option<StoredLoc>,
    help: Option<String>,
    related: Vec<(StoredLoc, String)>,
}

#[derive(Serialize, Deserialize)]
struct StoredLoc {
    file: String,
    line: u32,
    col: u32,
}

impl StoredLoc {
    fn from_loc(loc: &Loc) -> Self {
        StoredLoc {
            file: loc.file.clone(),
            line: loc.line,
            col: loc.col,
        }
    }
    fn into_loc(self) -> Loc {
        Loc {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }
}

fn encode_problems(problems: &[Problem]) -> Vec<u8> {
    let stored: Vec<StoredProblem> = problems
        .iter()
        .map(|problem| StoredProblem {
            code: problem.code.to_string(),
            severity: problem.severity.as_str().to_string(),
            message: problem.message.clone(),
            loc: problem.loc.as_ref().map(StoredLoc::from_loc),
            help: problem.help.clone(),
            related: problem
                .related
                .iter()
                .map(|(loc, label)| (StoredLoc::from_loc(loc), label.clone()))
                .collect(),
        })
        .collect();
    serde_json::to_vec(&stored).unwrap_or_else(|_| b"[]".to_vec())
}

fn decode_problems(bytes: &[u8]) -> Option<Vec<Problem>> {
    let stored: Vec<StoredProblem> = serde_json::from_slice(bytes).ok()?;
    stored
        .into_iter()
        .map(|problem| {
            Some(Problem {
                code: intern_code(&problem.code),
                severity: match problem.severity.as_str() {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    "note" => Severity::Note,
                    _ => return None,
                },
                message: problem.message,
                loc: problem.loc.map(StoredLoc::into_loc),
                help: problem.help,
                related: problem
                    .related
                    .into_iter()
                    .map(|(loc, label)| (loc.into_loc(), label))
                    .collect(),
            })
        })
        .collect()
}

/// `Problem::code` is `&'static str`: codes read back from entries are interned, each distinct
/// code once per process (there are a few dozen).
fn intern_code(code: &str) -> &'static str {
    static CODES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut codes = lock(CODES.get_or_init(Mutex::default));
    if let Some(&known) = codes.get(code) {
        return known;
    }
    let leaked: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.insert(leaked);
    leaked
}

/// The bytes of an entry (layout in the module documentation), with an unkeyed checksum: what a
/// forger without the cache's secret can write. Disk entries use [`encode_entry_with`].
pub fn encode_entry(key: &Key, artifact: &Artifact) -> Vec<u8> {
    encode_entry_with(key, artifact, None)
}

/// The checksum of an entry: BLAKE3, keyed with the cache's secret when given.
fn checksum_hasher(secret: Option<&[u8; 32]>) -> blake3::Hasher {
    match secret {
        Some(secret) => blake3::Hasher::new_keyed(secret),
        None => blake3::Hasher::new(),
    }
}

/// The bytes of an entry whose checksum is keyed with `secret`.
pub fn encode_entry_with(key: &Key, artifact: &Artifact, secret: Option<&[u8; 32]>) -> Vec<u8> {
    let problems = encode_problems(&artifact.problems);
    let mut head = Vec::with_capacity(28);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&SCHEMA.to_le_bytes());
    head.extend_from_slice(&(key.preimage.len() as u32).to_le_bytes());
    head.extend_from_slice(&(problems.len() as u32).to_le_bytes());
    head.extend_from_slice(&(artifact.bytecode.len() as u64).to_le_bytes());
    let mut hasher = checksum_hasher(secret);
    hasher.update(&head);
    hasher.update(&key.preimage);
    hasher.update(&problems);
    hasher.update(&artifact.bytecode);
    let mut out = Vec::with_capacity(
        HEADER_LEN + key.preimage.len() + problems.len() + artifact.bytecode.len(),
    );
    out.extend_from_slice(&head);
    out.extend_from_slice(hasher.finalize().as_bytes());
    out.extend_from_slice(&key.preimage);
    out.extend_from_slice(&problems);
    out.extend_from_slice(&artifact.bytecode);
    out
}

/// Why an entry was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryError {
    Magic,
    Schema,
    Length,
    Preimage,
    Checksum,
    Problems,
    Payload,
}

/// Checks an entry with an unkeyed checksum against `key` (see [`decode_entry_with`]).
pub fn decode_entry(bytes: &[u8], key: &Key) -> Result<Artifact, EntryError> {
    decode_entry_with(bytes, key, None)
}

/// Checks an entry read from disk against `key`, its checksum keyed with `secret`; every field
/// is checked before anything is used.
pub fn decode_entry_with(
    bytes: &[u8],
    key: &Key,
    secret: Option<&[u8; 32]>,
) -> Result<Artifact, EntryError> {
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
        return Err(EntryError::Magic);
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    if u32_at(8) != SCHEMA {
        return Err(EntryError::Schema);
    }
    let preimage_len = u32_at(12) as u64;
    let problems_len = u32_at(16) as u64;
    let payload_len = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    let expected = (HEADER_LEN as u64)
        .checked_add(preimage_len)
        .and_then(|total| total.checked_add(problems_len))
        .and_then(|total| total.checked_add(payload_len));
    if expected != Some(bytes.len() as u64) {
        return Err(EntryError::Length);
    }
    let preimage_end = HEADER_LEN + preimage_len as usize;
    let problems_end = preimage_end + problems_len as usize;
    if bytes[HEADER_LEN..preimage_end] != key.preimage[..] {
        return Err(EntryError::Preimage);
    }
    let mut hasher = checksum_hasher(secret);
    hasher.update(&bytes[..28]);
    hasher.update(&bytes[HEADER_LEN..]);
    if hasher.finalize() != blake3::Hash::from_bytes(bytes[28..60].try_into().expect("32 bytes")) {
        return Err(EntryError::Checksum);
    }
    let problems =
        decode_problems(&bytes[preimage_end..problems_end]).ok_or(EntryError::Problems)?;
    let payload = &bytes[problems_end..];
    let well_formed = match key.form {
        Form::Bytecode => payload.starts_with(b"ML\xEFR"),
        Form::Text => !payload.starts_with(b"ML\xEFR") && std::str::from_utf8(payload).is_ok(),
    };
    if !well_formed {
        return Err(EntryError::Payload);
    }
    Ok(Artifact {
        bytecode: payload.to_vec(),
        problems,
    })
}

// ---------------------------------------------------------------------------------------------
// Disk

enum Lookup {
    Hit(Artifact),
    Miss,
    Corrupt,
    Unreadable(io::Error),
}

#[derive(Clone, Copy)]
enum Event {
    Hit,
    Miss,
    Corrupt,
}

#[derive(Clone, Debug)]
struct Disk {
    root: PathBuf,
    entries: PathBuf,
    max_bytes: u64,
    writable: bool,
    /// The key of entry checksums ([`SECRET_FILE`]), read or created once.
    secret: OnceLock<Option<[u8; 32]>>,
}

impl Disk {
    fn new(root: PathBuf, max_bytes: u64, writable: bool) -> Self {
        Disk {
            entries: root.join("entries"),
            root,
            max_bytes,
            writable,
            secret: OnceLock::new(),
        }
    }

    /// Creates the directory, `entries` and `CACHEDIR.TAG` if missing; `entries` must be a real
    /// directory (not a symlink).
    fn prepare(&self) -> io::Result<()> {
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
    fn secret(&self) -> Option<[u8; 32]> {
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
            temp.write_all(&secret).ok()?;
            match temp.persist_noclobber(&path) {
                Ok(_) => Some(secret),
                // Another process created it first: use theirs.
                Err(_) => read_secret(&path).ok(),
            }
        })
    }

    fn entry_path(&self, key: &Key) -> PathBuf {
        self.entries.join(key.hex())
    }

    fn load(&self, key: &Key) -> Lookup {
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
    fn reject(&self, key: &Key, read: &fs::Metadata) {
        if self.writable {
            self.remove_entry(key, Some(read));
        }
    }

    fn remove_entry(&self, key: &Key, read: Option<&fs::Metadata>) {
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
    fn store(&self, key: &Key, artifact: &Artifact) -> io::Result<bool> {
        self.prepare()?;
        let secret = self
            .secret()
            .ok_or_else(|| io::Error::other("cannot create its secret"))?;
        let bytes = encode_entry_with(key, artifact, Some(&secret));
        if bytes.len() as u64 > self.max_bytes {
            return Ok(false);
        }
        let (mut file, temp) = self.create_temp(key)?;
        fault(Fault::AfterCreate);
        let result = (|| {
            if fault_armed(Fault::MidWrite) {
                file.write_all(&bytes[..bytes.len() / 2])?;
                fault(Fault::MidWrite);
            }
            file.write_all(&bytes)?;
            fault(Fault::AfterWrite);
            file.sync_all()?;
            drop(file);
            fault(Fault::BeforeRename);
            fs::rename(&temp, self.entry_path(key))?;
            fault(Fault::AfterRename);
            Ok(true)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }

    fn create_temp(&self, key: &Key) -> io::Result<(File, PathBuf)> {
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
    fn record(&self, event: Event) {
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
    fn maintain(&self, wait: bool) -> io::Result<Option<Maintenance>> {
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

    fn lock(&self, wait: bool) -> io::Result<Option<File>> {
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
    fn fold_stats(&self, always: bool) -> io::Result<()> {
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
        temp.write_all(&serde_json::to_vec(&totals).unwrap_or_default())?;
        temp.persist(self.root.join("stats.json"))
            .map_err(|error| error.error)?;
        remove_tolerant(&folding);
        Ok(())
    }

    fn totals(&self) -> Totals {
        files::read_private(&self.root.join("stats.json"), MAX_STATS_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Totals {
    hits: u64,
    misses: u64,
    corrupt: u64,
}

impl Totals {
    fn add_log(&mut self, events: &[u8]) {
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
    pub evicted: u64,
    pub temps_removed: u64,
}

/// Persistent statistics of a cache directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiskStats {
    pub hits: u64,
    pub misses: u64,
    pub corrupt: u64,
    pub entries: u64,
    pub bytes: u64,
    pub temp_files: u64,
}

/// The disk cache as `tunespec cache` sees it (also when linking does not use it).
pub struct DiskView<'a> {
    disk: std::borrow::Cow<'a, Disk>,
}

impl DiskView<'_> {
    pub fn dir(&self) -> &Path {
        &self.disk.root
    }

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
        Ok(removed)
    }

    /// Runs a maintenance pass now (waiting for the lock).
    pub fn maintain(&self) -> io::Result<Maintenance> {
        Ok(self.disk.maintain(true)?.unwrap_or_default())
    }
}

fn is_entry_name(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

/// `<key>-<pid>-<n>`: stale when its process is gone or it is over an hour old.
fn temp_is_stale(rest: &str, metadata: &fs::Metadata) -> bool {
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

fn read_dir_tolerant(dir: &Path) -> io::Result<Vec<fs::DirEntry>> {
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
fn remove_tolerant(path: &Path) -> bool {
    fs::remove_file(path).is_ok()
}

const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by tunespec.\n# For information about cache directory tags see https://bford.info/cachedir/\n";

/// Writes `CACHEDIR.TAG` if missing (`O_EXCL`: never through an existing path).
fn write_cachedir_tag(root: &Path) {
    if let Ok(mut tag) = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(root.join("CACHEDIR.TAG"))
    {
        let _ = tag.write_all(CACHEDIR_TAG.as_bytes());
    }
}

/// The names tunespec writes in a cache directory (besides temporary files).
const OWN_NAMES: [&str; 7] = [
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
fn check_dir(root: &Path) -> Result<(), String> {
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
fn private_temp(dir: &Path, what: &str) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{what}-{}-", std::process::id()))
        .tempfile_in(dir)
}

/// The key of the entry checksums of the cache in `dir` (for tools and tests that write or
/// check entries themselves: [`encode_entry_with`], [`decode_entry_with`]).
pub fn entry_secret(dir: &Path) -> io::Result<[u8; 32]> {
    read_secret(&dir.join(SECRET_FILE))
}

/// Reads the checksum key: a regular file (not a link) of 32 bytes, owned by this user, that no
/// one else may read or write.
fn read_secret(path: &Path) -> io::Result<[u8; 32]> {
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

// ---------------------------------------------------------------------------------------------
// Fault injection (tests)

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    AfterCreate,
    MidWrite,
    AfterWrite,
    BeforeRename,
    AfterRename,
}

fn armed_fault() -> Option<Fault> {
    static ARMED: OnceLock<Option<Fault>> = OnceLock::new();
    *ARMED.get_or_init(
        || match std::env::var("TUNESPEC_CACHE_FAULT").ok()?.as_str() {
            "after-create" => Some(Fault::AfterCreate),
            "mid-write" => Some(Fault::MidWrite),
            "after-write" => Some(Fault::AfterWrite),
            "before-rename" => Some(Fault::BeforeRename),
            "after-rename" => Some(Fault::AfterRename),
            _ => None,
        },
    )
}

fn fault_armed(step: Fault) -> bool {
    armed_fault() == Some(step)
}

/// Kills the process (SIGKILL: no destructors, no cleanup) at `step` when the test hook is armed.
fn fault(step: Fault) {
    if fault_armed(step) {
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        std::process::abort();
    }
}
