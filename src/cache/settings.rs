//! Cache settings from the environment: `TUNESPEC_CACHE`, `TUNESPEC_CACHE_DIR`,
//! `TUNESPEC_CACHE_MAX_BYTES`.

use super::*;

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

    /// The name `TUNESPEC_CACHE` takes for this mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::On => "on",
            Mode::Off => "off",
            Mode::ReadOnly => "readonly",
            Mode::Recache => "recache",
        }
    }
}

/// A crash a test injects while the disk store writes an entry (`TUNESPEC_CACHE_FAULT`): the
/// process is killed at that step, to show that no torn entry is ever read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// After the temporary file is created (`after-create`).
    AfterCreate,
    /// Half the entry written (`mid-write`).
    MidWrite,
    /// The entry written, not yet synced (`after-write`).
    AfterWrite,
    /// Synced, not yet renamed into place (`before-rename`).
    BeforeRename,
    /// Renamed into place (`after-rename`).
    AfterRename,
}

impl Fault {
    /// The step a `TUNESPEC_CACHE_FAULT` value names.
    pub fn parse(value: &str) -> Option<Fault> {
        Some(match value {
            "after-create" => Fault::AfterCreate,
            "mid-write" => Fault::MidWrite,
            "after-write" => Fault::AfterWrite,
            "before-rename" => Fault::BeforeRename,
            "after-rename" => Fault::AfterRename,
            _ => return None,
        })
    }
}

/// The cache configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// What the cache does.
    pub mode: Mode,
    /// The disk cache directory; `None` when none can be determined (no disk cache).
    pub dir: Option<PathBuf>,
    /// The disk cache's byte cap.
    pub max_bytes: u64,
    /// How many libraries the in-process LRU keeps.
    pub memory_entries: usize,
    /// How many bytes the in-process LRU keeps.
    pub memory_bytes: u64,
    /// The crash injected while an entry is written (tests only; `None` for every user).
    pub fault: Option<Fault>,
}

impl Settings {
    /// Settings from `env`, and warnings about invalid values.
    pub fn from_env(env: &crate::config::Environment) -> (Settings, Vec<Problem>) {
        Self::from_vars(env.lookup())
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
            None => crate::config::xdg_home(&var, "XDG_CACHE_HOME", ".cache")
                .map(|base| base.join("tunespec")),
        };
        let max_bytes = match text("TUNESPEC_CACHE_MAX_BYTES") {
            None => DEFAULT_MAX_BYTES,
            Some(value) => parse_size(&value).unwrap_or_else(|| {
                warnings.push(Problem::warning(
                    codes::SETTING,
                    format!(
                        "TUNESPEC_CACHE_MAX_BYTES={value} is not a size (bytes, or a number with K, M, G, T, KiB, MiB, GiB, TiB: 500M, 1.5GiB); using 256 MiB"
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
                fault: text("TUNESPEC_CACHE_FAULT").and_then(|value| Fault::parse(&value)),
            },
            warnings,
        )
    }
}

/// A size: bytes (`123`), or a number, possibly with a fraction, and a unit (`64K`, `500M`,
/// `1.5GiB`, `2 TiB`), in any case. `K`, `M`, `G`, `T` (and `KB`, ...) are binary multiples, as
/// `KiB`, `MiB`, `GiB`, `TiB` are (this variable always meant 1K = 1024). `None` when it is not
/// a size or does not fit in 64 bits. Parsed by `bytesize`.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|ch: char| !ch.is_ascii_digit() && ch != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit = unit.trim();
    // bytesize reads `K`/`KB` as 1000: give it the binary unit these names mean here.
    let binary = match unit.to_ascii_lowercase().as_str() {
        "k" | "kb" => "KiB",
        "m" | "mb" => "MiB",
        "g" | "gb" => "GiB",
        "t" | "tb" => "TiB",
        _ => unit,
    };
    let size: bytesize::ByteSize = format!("{number}{binary}").parse().ok()?;
    // bytesize saturates a size that does not fit.
    (size.as_u64() != u64::MAX).then_some(size.as_u64())
}

/// A size for people, in binary units: `300 B`, `1.5 KiB`, `256.0 MiB` (bytesize's IEC form).
pub fn format_size(bytes: u64) -> String {
    bytesize::ByteSize::b(bytes).display().iec().to_string()
}
