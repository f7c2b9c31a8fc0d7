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
