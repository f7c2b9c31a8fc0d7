//! `tunespec cache`: where the cache of linked libraries lives, its statistics, and cleaning it.

use serde_json::json;

use super::common::{emit, report, tool_error, ExitStatus, Format};
use tunespec::cache::{Cache, DiskView};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::CACHE)]
pub struct Opts {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Hits, misses, corrupt entries (since the counters were last cleared), entries and bytes
    Stats {
        /// Output format: text (human, github), one line of `name=value` (short), one JSON
        /// object (json), or a SARIF log of the run's diagnostics (sarif)
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Remove every entry (and temporary files left by crashed processes)
    Clean {
        /// Also clear the counters
        #[arg(long)]
        counters: bool,
    },
    /// Print the cache directory
    Path,
}

/// The cache configured from the environment, for a command; an invalid setting
/// (`TUNESPEC_CACHE=sometimes`) is reported and `None` (the command exits 2).
pub fn open(settings: &tunespec::settings::Settings) -> Option<Cache> {
    match Cache::from_env_strict(&settings.env) {
        Ok(cache) => Some(cache),
        Err(problem) => {
            tool_error(problem.message);
            None
        }
    }
}

impl Opts {
    /// The report format (`stats --format`; human for the others).
    pub fn format(&self) -> Format {
        match self.command {
            Command::Stats { format } => format,
            Command::Clean { .. } | Command::Path => Format::Human,
        }
    }

    /// Whether this is `stats` (whose SARIF log is its output, on stdout).
    pub fn is_stats(&self) -> bool {
        matches!(self.command, Command::Stats { .. })
    }

    pub fn run(self, settings: &tunespec::settings::Settings) -> ExitStatus {
        let Some(cache) = open(settings) else {
            return ExitStatus::Usage;
        };
        let warnings = cache.take_warnings();
        if self.format() == Format::Human {
            for warning in warnings {
                eprintln!("tunespec: warning: {}", warning.message);
            }
        } else {
            report(&warnings, None);
        }
        let Some(disk) = cache.disk_view() else {
            tool_error("no cache directory: set TUNESPEC_CACHE_DIR, XDG_CACHE_HOME or HOME");
            return ExitStatus::Usage;
        };
        match self.command {
            Command::Path => {
                emit(&format!("{}\n", disk.dir().display()));
                ExitStatus::Ok
            }
            Command::Stats { format } => stats(&cache, &disk, format),
            Command::Clean { counters } => match disk.clean(counters) {
                Ok(removed) => {
                    emit(&format!(
                        "removed {removed} entr{} from {}\n",
                        if removed == 1 { "y" } else { "ies" },
                        disk.dir().display()
                    ));
                    ExitStatus::Ok
                }
                Err(error) => {
                    tool_error(format!("cannot clean {}: {error}", disk.dir().display()));
                    ExitStatus::Usage
                }
            },
        }
    }
}

fn stats(cache: &Cache, disk: &DiskView<'_>, format: Format) -> ExitStatus {
    let stats = match disk.stats() {
        Ok(stats) => stats,
        Err(error) => {
            tool_error(format!("cannot read {}: {error}", disk.dir().display()));
            return ExitStatus::Usage;
        }
    };
    let mode = cache.settings().mode.as_str();
    match format {
        Format::Json => emit(&format!(
            "{}\n",
            json!({
                "version": 1,
                "dir": disk.dir().display().to_string(),
                "mode": mode,
                "max_bytes": disk.max_bytes(),
                "hits": stats.hits,
                "misses": stats.misses,
                "corrupt": stats.corrupt,
                "entries": stats.entries,
                "bytes": stats.bytes,
                "temp_files": stats.temp_files,
            })
        )),
        Format::Short => emit(&format!(
            "dir={} mode={mode} max_bytes={} hits={} misses={} corrupt={} entries={} bytes={} temp_files={}\n",
            disk.dir().display(),
            disk.max_bytes(),
            stats.hits,
            stats.misses,
            stats.corrupt,
            stats.entries,
            stats.bytes,
            stats.temp_files,
        )),
        // The statistics are not findings: the log (with any warnings about the cache) is
        // written when the run ends.
        Format::Sarif => {}
        Format::Human | Format::Github => {
            let lookups = stats.hits + stats.misses;
            let rate = if lookups == 0 {
                String::new()
            } else {
                format!(
                    " ({:.1}% of {lookups} lookups)",
                    stats.hits as f64 * 100.0 / lookups as f64
                )
            };
            emit(&format!(
                "directory  {}\nmode       {mode}\nhits       {}{rate}\nmisses     {}\ncorrupt    {}\nentries    {}\nbytes      {} of {} ({})\n",
                disk.dir().display(),
                stats.hits,
                stats.misses,
                stats.corrupt,
                stats.entries,
                human_bytes(stats.bytes),
                human_bytes(disk.max_bytes()),
                stats.bytes,
            ));
        }
    }
    ExitStatus::Ok
}

fn human_bytes(bytes: u64) -> String {
    tunespec::cache::format_size(bytes)
}
