//! `tunespec store`: push a measured library to a shared store, pull one from it, list and
//! purge it. The store and its operations are the library's ([`tunespec::store`]); this module
//! parses the flags and renders the results.

use std::path::PathBuf;

use serde_json::json;

use super::common::{emit, tool_error_with, warning, ExitStatus, Format};
use tunespec::settings::{Environment, Settings};
use tunespec::store::{self, Listed, Options, Purge, Store};

/// `--store URL` and `--read-only`, shared by every store command (and `bench`, `tune`).
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The shared store: redis://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX],
    /// gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX], with ?namespace=NAME (docs/store.md)
    #[arg(long, value_name = "URL")]
    pub store: String,
    /// Never write to the store (CI); also TUNESPEC_STORE_READ_ONLY=1
    #[arg(long)]
    pub read_only: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::STORE)]
pub struct Opts {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Push a measured library's entries (bench --write, import-tuner) to the store
    Push {
        /// The measured library
        library: PathBuf,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Write the store's best entries for a target and device as a measured library
    /// (byte-identical for the same store content)
    Pull {
        #[command(flatten)]
        store: StoreArgs,
        /// Only entries for this target (gfx942, sm_90); default: every target
        #[arg(long, value_name = "T")]
        target: Option<String>,
        /// Only entries whose device identity contains these words (MI300X, local-task), as
        /// link's --measured-on; default: every device
        #[arg(long, value_name = "D")]
        device: Option<String>,
        /// The library to write (replaced whole; a directory that is not a measured library is
        /// refused)
        #[arg(short, long, value_name = "LIB")]
        output: PathBuf,
        /// A spec library that defines the target (repeatable): its definition goes into the
        /// pulled library, which then loads alone
        #[arg(long = "spec", short = 's', value_name = "LIB")]
        specs: Vec<PathBuf>,
    },
    /// List the best entry of every key in the store
    Ls {
        #[command(flatten)]
        store: StoreArgs,
        /// Output format: a table (human, github), one line per key (short), one JSON object
        /// (json), or a SARIF log of the run's diagnostics (sarif)
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Remove the entries measured with an IREE version, on a device, before a date, or a
    /// whole namespace
    Purge {
        #[command(flatten)]
        store: StoreArgs,
        /// Entries measured with this IREE version (3.12.0)
        #[arg(long, value_name = "VERSION")]
        iree_version: Option<String>,
        /// Entries whose device identity contains these words
        #[arg(long, value_name = "D")]
        device: Option<String>,
        /// Entries measured more than DAYS days ago (and undated ones)
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u32>,
        /// Every entry of this namespace (disowns poisoned results whole)
        #[arg(long, value_name = "NAME", conflicts_with_all = ["iree_version", "device", "older_than"])]
        namespace: Option<String>,
    },
}

impl Opts {
    /// The report format (`ls --format`; human for the others).
    pub fn format(&self) -> Format {
        match self.command {
            Command::Ls { format, .. } => format,
            _ => Format::Human,
        }
    }

    pub fn run(self, settings: &Settings) -> ExitStatus {
        match self.command {
            Command::Push { library, store } => push(&library, &store, &settings.env),
            Command::Pull {
                store,
                target,
                device,
                output,
                specs,
            } => pull(
                (settings, &specs),
                &store,
                target.as_deref(),
                device.as_deref(),
                &output,
            ),
            Command::Ls { store, format } => ls(&store, format, &settings.env),
            Command::Purge {
                store,
                iree_version,
                device,
                older_than,
                namespace,
            } => purge(
                (&store, &settings.env),
                Purge {
                    iree_version,
                    device,
                    before_day: older_than.and_then(|days| today().map(|d| d - i64::from(days))),
                    namespace,
                },
            ),
        }
    }
}

/// Reports a store error: every one is exit 2 (docs/store.md).
pub fn fail(error: &store::Error) -> ExitStatus {
    tool_error_with(error.code(), error.to_string(), None);
    ExitStatus::Usage
}

/// Opens the store of `args`, or reports why not.
/// `writes`: whether the command writes (`push`, `purge`); one that only reads opens the store
/// read-only whatever the flags say (a directory store it names is then never created).
/// `env`: the settings' environment (`TUNESPEC_STORE_READ_ONLY`, `REDISCLI_AUTH`).
pub fn open(args: &StoreArgs, writes: bool, env: &Environment) -> Result<Store, ExitStatus> {
    let options = Options::from_env(args.read_only || !writes, env);
    Store::open(&args.store, &options).map_err(|error| fail(&error))
}

/// Today's day number (UTC), for `--older-than`.
fn today() -> Option<i64> {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    i64::try_from(seconds / 86_400).ok()
}

fn push(library: &std::path::Path, args: &StoreArgs, env: &Environment) -> ExitStatus {
    let mlir = tunespec::mlir::Mlir::new_threaded();
    let entries = match tunespec::measured::library::existing_entries(&mlir, library) {
        Ok(entries) => entries,
        Err(message) => {
            super::common::tool_error(message);
            return ExitStatus::Usage;
        }
    };
    let store = match open(args, true, env) {
        Ok(store) => store,
        Err(status) => return status,
    };
    match store.push(&entries) {
        Ok(pushed) => {
            emit(&format!(
                "pushed {} entr{} to {}: {} new, {} now the best of their key, {} kept a faster entry\n",
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" },
                store.url(),
                pushed.stored,
                pushed.best,
                pushed.kept
            ));
            ExitStatus::Ok
        }
        Err(error) => fail(&error),
    }
}

fn pull(
    (settings, specs): (&Settings, &[PathBuf]),
    args: &StoreArgs,
    target: Option<&str>,
    device: Option<&str>,
    output: &std::path::Path,
) -> ExitStatus {
    let store = match open(args, false, &settings.env) {
        Ok(store) => store,
        Err(status) => return status,
    };
    // A target a user's library defines goes into the pulled library too, with its fallbacks,
    // so that the library loads alone.
    let registry = match settings
        .registry()
        .and_then(|registry| registry.with_command_line(specs))
    {
        Ok(registry) => Some(registry),
        // `--spec` named what cannot be read: said. Without it, a registry that cannot load
        // (a broken config) only costs the definitions.
        Err(error) if !specs.is_empty() => {
            super::common::tool_error(error);
            return ExitStatus::Usage;
        }
        Err(_) => None,
    };
    let definitions = |target: &str| {
        registry
            .as_ref()
            .map(|registry| registry.library_definitions(target))
            .unwrap_or_default()
    };
    match store::pull_to(&store, (target, device), &definitions, output) {
        Ok(pulled) => {
            for skipped in &pulled.skipped {
                warning(store::codes::UNAVAILABLE, skipped);
            }
            let count = pulled.library.entries.len();
            if count == 0 {
                warning(
                    store::codes::UNAVAILABLE,
                    format!(
                        "{} holds no entry for {} on {}: the library written lists no spec",
                        store.url(),
                        target.unwrap_or("any target"),
                        device.unwrap_or("any device")
                    ),
                );
            }
            emit(&format!(
                "pulled {count} entr{} from {} into {}\n",
                if count == 1 { "y" } else { "ies" },
                store.url(),
                output.display()
            ));
            ExitStatus::Ok
        }
        Err(store::PullError::Store(error)) => fail(&error),
        Err(store::PullError::Output(message)) => {
            super::common::tool_error(message);
            ExitStatus::Usage
        }
    }
}

fn ls(args: &StoreArgs, format: Format, env: &Environment) -> ExitStatus {
    let store = match open(args, false, env) {
        Ok(store) => store,
        Err(status) => return status,
    };
    let listed = match store.list() {
        Ok(listed) => listed,
        Err(error) => return fail(&error),
    };
    match format {
        Format::Json => emit(&format!(
            "{}\n",
            json!({
                "version": 1,
                "store": store.url().to_string(),
                "entries": listed.iter().map(listed_json).collect::<Vec<_>>(),
            })
        )),
        Format::Short => {
            for item in &listed {
                let p = &item.pointer;
                emit(&format!(
                    "{} target={} tuned_us={} iree={} date={} entry={} {} [{}]\n",
                    item.key, p.target, p.tuned_us, p.iree, p.date, p.entry, p.subject, p.identity
                ));
            }
        }
        Format::Sarif => {}
        Format::Human | Format::Github => {
            use super::table::{render, stdout_width, Align};
            let rows: Vec<Vec<String>> = listed
                .iter()
                .map(|item| {
                    let p = &item.pointer;
                    vec![
                        p.target.clone(),
                        p.subject.clone(),
                        format!("{}", p.tuned_us),
                        p.date.clone(),
                        item.key[..12.min(item.key.len())].to_string(),
                        p.identity.clone(),
                    ]
                })
                .collect();
            let headers = [
                ("TARGET", Align::Left),
                ("SUBJECT", Align::Left),
                ("TUNED_US", Align::Right),
                ("DATE", Align::Left),
                ("KEY", Align::Left),
                ("MEASURED ON", Align::Wrap),
            ];
            emit(&render(&headers, &rows, stdout_width()));
            emit(&format!("{} key(s) in {}\n", listed.len(), store.url()));
        }
    }
    ExitStatus::Ok
}

/// One key of `ls --format json`.
fn listed_json(item: &Listed) -> serde_json::Value {
    let p = &item.pointer;
    json!({
        "key": item.key,
        "entry": p.entry,
        "target": p.target,
        "subject": p.subject,
        "tuned_us": p.tuned_us,
        "iree": p.iree,
        "date": p.date,
        "identity": p.identity,
    })
}

fn purge((args, env): (&StoreArgs, &Environment), purge: Purge) -> ExitStatus {
    if purge.namespace.is_none()
        && purge.iree_version.is_none()
        && purge.device.is_none()
        && purge.before_day.is_none()
    {
        super::common::tool_error(
            "store purge needs a filter: --iree-version, --device, --older-than or --namespace",
        );
        return ExitStatus::Usage;
    }
    if let Some(namespace) = &purge.namespace {
        if !store::url::valid_namespace(namespace) {
            super::common::tool_error(format!(
                "--namespace {namespace:?}: a namespace is letters, digits, '.', '_' and '-'"
            ));
            return ExitStatus::Usage;
        }
    }
    let store = match open(args, true, env) {
        Ok(store) => store,
        Err(status) => return status,
    };
    if let Some(namespace) = &purge.namespace {
        let count = match store.count_namespace(namespace) {
            Ok(count) => count,
            Err(error) => return fail(&error),
        };
        return match store.purge(&purge) {
            Ok(_) => {
                emit(&format!(
                    "removed namespace {namespace} ({count} stored object(s)) from {}\n",
                    store.url()
                ));
                ExitStatus::Ok
            }
            Err(error) => fail(&error),
        };
    }
    match store.purge(&purge) {
        Ok(removed) => {
            emit(&format!(
                "removed {} key(s) from {}\n",
                removed.len(),
                store.url()
            ));
            ExitStatus::Ok
        }
        Err(error) => fail(&error),
    }
}

/// Pushes the measured library `dir` that `bench --write` or `tune` has just written to the
/// store `url`. Why a warning and not an error: what was measured is safe on disk, and a store
/// that is down, refuses the credentials or is read-only must not fail the run (the exit status
/// stays the run's; `store push DIR` pushes it later).
/// `env`: the settings' environment (the store's options).
pub fn push_written(
    (url, env): (&str, &Environment),
    mlir: &tunespec::mlir::Mlir,
    dir: &std::path::Path,
) {
    // No winner, no library: nothing to push (and no warning about a library that is not there).
    if !dir.exists() {
        return;
    }
    let entries = match tunespec::measured::library::existing_entries(mlir, dir) {
        Ok(entries) => entries,
        Err(message) => {
            warning(
                store::codes::UNAVAILABLE,
                format!("not pushed to the store: {message}"),
            );
            return;
        }
    };
    let pushed = Store::open(url, &Options::from_env(false, env)).and_then(|store| {
        store
            .push(&entries)
            .map(|pushed| (store.url().to_string(), pushed))
    });
    match pushed {
        Ok((url, pushed)) => {
            if !super::common::quiet() {
                super::common::emit_stderr(&format!(
                    "tunespec: pushed {} entr{} to {url} ({} now the best of their key, {} kept a faster entry)\n",
                    entries.len(),
                    if entries.len() == 1 { "y" } else { "ies" },
                    pushed.best,
                    pushed.kept
                ));
            }
        }
        Err(error) => warning(
            error.code(),
            format!(
                "{error}; the library at {} is kept locally (push it later with `tunespec store push {}`)",
                dir.display(),
                dir.display()
            ),
        ),
    }
}

/// `--store URL` on the commands that link (`link`, `attach`, `explain`): `registry` with the
/// store's best entries for `target` (those measured on `device`, as `--measured-on`, when
/// given) as a layer below the user's own specs. The entries are pulled, read-only, into a
/// directory beside the cache of linked libraries, named by store, target and device and
/// rewritten only when the store's content changed, so that a warm link keeps its cache keys.
/// A store that fails is a warning: the last pulled copy is linked if there is one, else none.
pub fn layer(
    settings: &Settings,
    registry: tunespec::Registry,
    (url, specs): (&str, &[PathBuf]),
    target: &str,
    device: Option<&str>,
) -> tunespec::Registry {
    let with_specs = registry.with_command_line(specs).ok();
    let lookup = with_specs.as_ref().unwrap_or(&registry);
    let name = target.split(':').next().unwrap_or(target);
    let name = lookup
        .find(name)
        .map_or_else(|| name.to_string(), |found| found.name.clone());
    let Some(dir) = layer_dir(settings, url, &name, device) else {
        warning(
            store::codes::UNAVAILABLE,
            format!("--store {url}: no cache directory to pull the store's entries into (the cache is off); linking without them"),
        );
        return registry;
    };
    let pulled = Store::open(url, &Options::from_env(true, &settings.env))
        .map(|store| with_reads(settings, url, store))
        .map_err(store::PullError::Store)
        .and_then(|store| {
            let definitions = |target: &str| lookup.library_definitions(target);
            store::pull_to(&store, (Some(&name), device), &definitions, &dir)
        });
    match pulled {
        Ok(pulled) if pulled.library.entries.is_empty() => return registry,
        Ok(pulled) => {
            for skipped in &pulled.skipped {
                warning(store::codes::UNAVAILABLE, skipped);
            }
        }
        Err(error) => {
            let message = match error {
                store::PullError::Store(error) => error.to_string(),
                store::PullError::Output(message) => message,
            };
            let fallback = dir.join("registry.toml").is_file();
            warning(
                store::codes::UNAVAILABLE,
                if fallback {
                    format!(
                        "{message}; linking the store's entries pulled before, in {}",
                        dir.display()
                    )
                } else {
                    format!("{message}; linking without the store's entries")
                },
            );
            if !fallback {
                return registry;
            }
        }
    }
    match registry.with_store_library(&dir, url) {
        Ok(layered) => layered,
        Err(error) => {
            warning(
                store::codes::UNAVAILABLE,
                format!(
                    "the store's entries in {} cannot be loaded: {error}; linking without them",
                    dir.display()
                ),
            );
            registry
        }
    }
}

/// `check --store URL`: the store's best entries (every target; those measured on `device`,
/// as `--measured-on`, when given) pulled, read-only, into a measured library for `check` to
/// read as any library (defining the user-defined targets the configs or `libraries` define): beside the cache as `layer` pulls (the files the report names stay
/// there to open), or a temporary directory when there is no cache directory (held by the
/// returned guard). `Ok(None)`: the store holds no such entry (said as a warning). A store that fails
/// is exit 2: a CI job that checks the store must not pass without having read it.
pub fn pull_for_check(
    (settings, libraries): (&Settings, &[PathBuf]),
    url: &str,
    device: Option<&str>,
) -> Result<Option<(PathBuf, Option<tempfile::TempDir>)>, ExitStatus> {
    let store = Store::open(url, &Options::from_env(true, &settings.env))
        .map(|store| with_reads(settings, url, store))
        .map_err(|e| fail(&e))?;
    let (dir, guard) = match layer_dir(settings, url, "", device) {
        Some(dir) => (dir, None),
        None => {
            let temporary = tempfile::Builder::new()
                .prefix("tunespec-check-store-")
                .tempdir()
                .map_err(|error| {
                    super::common::tool_error(format!(
                        "cannot create a directory to pull {url} into: {error}"
                    ));
                    ExitStatus::Usage
                })?;
            (temporary.path().join("library"), Some(temporary))
        }
    };
    // A user-defined target's definition (its backend) from the configs or the libraries
    // checked beside the store: the pulled library then compiles alone.
    let registry = settings
        .registry()
        .ok()
        .map(|registry| registry.with_command_line(libraries).unwrap_or(registry));
    let definitions = |target: &str| {
        registry
            .as_ref()
            .map(|registry| registry.library_definitions(target))
            .unwrap_or_default()
    };
    match store::pull_to(&store, (None, device), &definitions, &dir) {
        Ok(pulled) => {
            for skipped in &pulled.skipped {
                warning(store::codes::UNAVAILABLE, skipped);
            }
            if pulled.library.entries.is_empty() {
                warning(
                    store::codes::UNAVAILABLE,
                    format!(
                        "{url} holds no entry measured on {}: nothing of the store to check",
                        device.unwrap_or("any device")
                    ),
                );
                return Ok(None);
            }
            Ok(Some((dir, guard)))
        }
        Err(store::PullError::Store(error)) => Err(fail(&error)),
        Err(store::PullError::Output(message)) => {
            super::common::tool_error(message);
            Err(ExitStatus::Usage)
        }
    }
}

/// Where `layer` pulls: `<cache dir>-store/<BLAKE3 of store, target, device>` (beside the
/// cache, not in it: the cache's directory holds only its own files).
/// `store` keeping copies of what it reads beside the cache of linked libraries, one directory
/// per URL (`store::reads`: a warm pull then asks the store for its list alone, when the engine
/// lists versions); as it is when the cache is off.
fn with_reads(settings: &Settings, url: &str, store: Store) -> Store {
    let cache = settings.cache.get();
    let Some(disk) = cache.disk_view() else {
        return store;
    };
    let Some(dir) = disk.store_dir() else {
        return store;
    };
    store.with_reads(
        dir.join("reads")
            .join(&blake3::hash(url.as_bytes()).to_hex()[..32]),
    )
}

fn layer_dir(
    settings: &Settings,
    url: &str,
    target: &str,
    device: Option<&str>,
) -> Option<PathBuf> {
    let cache = settings.cache.get();
    let key = format!("{url}\n{target}\n{}\n", device.unwrap_or(""));
    Some(
        cache
            .disk_view()?
            .store_dir()?
            .join(&blake3::hash(key.as_bytes()).to_hex()[..32]),
    )
}
