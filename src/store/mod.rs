//! The shared store of measured entries (`--store URL`): many machines, shards and GPUs write
//! what they measured to one place, and every machine pulls a measured library from it.
//!
//! Why a store and not a shared directory of libraries: writers on many machines race, a run
//! may die half-way, and a slower result must never replace a faster one whatever the order.
//! The store keeps immutable, content-addressed entries ([`entry::Record`]) and per complete
//! key ([`entry::Record::complete_key`]) a "best" pointer, updated only by compare-and-swap and
//! only by a faster entry. A store that fails during a run never costs a result: the commands
//! write their local library first and only then push (`docs/store.md`).
//!
//! The backends are behind [`Backend`] (get, put-if-absent, compare-and-swap, list, delete),
//! `file://` ([`file`]), `redis://` ([`redis`]) and the object stores `s3://`, `gs://` and
//! `azblob://` ([`object`]).

use std::path::Path;

use crate::manifest::Definition;

pub mod entry;
pub mod file;
pub mod object;
pub mod reads;
pub mod redis;
pub mod url;

mod ops;

pub use ops::{Listed, Pulled, Purge, Pushed};
pub use url::{Location, StoreUrl};

/// The diagnostic codes of the store.
pub mod codes {
    /// `--store`'s URL is malformed or names an engine not supported (exit 2).
    pub const URL: &str = "tunespec::store::url";
    /// The store cannot be reached or failed; a command that measured keeps its local result.
    pub const UNAVAILABLE: &str = "tunespec::store::unavailable";
    /// The store refused the credentials (exit 2).
    pub const REFUSED: &str = "tunespec::store::refused";
    /// A write to a store opened read-only (exit 2).
    pub const READ_ONLY: &str = "tunespec::store::read-only";
}

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The URL is malformed.
    Url(String),
    /// The URL names an engine not supported (`webdav://`: docs/store.md says why).
    Unsupported(String),
    /// The store cannot be reached, or failed during the operation.
    Unavailable(String),
    /// The store refused the credentials.
    Refused(String),
    /// A write to a read-only store.
    ReadOnly(String),
}

impl Error {
    /// The diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Url(_) | Error::Unsupported(_) => codes::URL,
            Error::Unavailable(_) => codes::UNAVAILABLE,
            Error::Refused(_) => codes::REFUSED,
            Error::ReadOnly(_) => codes::READ_ONLY,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Url(message)
            | Error::Unsupported(message)
            | Error::Unavailable(message)
            | Error::Refused(message)
            | Error::ReadOnly(message) => f.write_str(message),
        }
    }
}

/// A value as an engine read it, with the version the engine gave it (an object store's ETag or
/// generation; `None` where the engine keeps none), for [`reads::Reads`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versioned {
    /// The value.
    pub bytes: Vec<u8>,
    /// Its version, as [`Backend::list_versioned`] gives it for the same value.
    pub version: Option<String>,
}

/// What a store's engine does: five operations every engine worth using has atomically
/// (Redis: `SET NX` and a script; a file system: `link` and a lock file; object stores:
/// conditional writes). Keys are `/`-separated ASCII; values are bytes.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// The value of `key`, `None` when absent.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error>;
    /// Writes `value` at `key` unless something is there; whether it wrote.
    fn put_if_absent(&self, key: &str, value: &[u8]) -> Result<bool, Error>;
    /// Writes `new` at `key` if its value is `expected` (`None`: absent); whether it wrote.
    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, Error>;
    /// The keys that start with `prefix`, sorted.
    fn list(&self, prefix: &str) -> Result<Vec<String>, Error>;
    /// Removes `key` (absent is fine).
    fn delete(&self, key: &str) -> Result<(), Error>;

    /// The values of `keys`, in their order (`None`: absent), with their versions. One by one
    /// here; engines that fetch many at once override it (Redis's `MGET`, an object store's
    /// concurrent requests), since a pull reads a value per key and a round trip each adds up.
    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Versioned>>, Error> {
        keys.iter()
            .map(|key| {
                Ok(self.get(key)?.map(|bytes| Versioned {
                    bytes,
                    version: None,
                }))
            })
            .collect()
    }

    /// [`Backend::list`], each key with the version of its value where the engine's listing
    /// gives it at no cost (an object store's ETag): what lets a machine skip fetching a value
    /// it already holds at that version.
    fn list_versioned(&self, prefix: &str) -> Result<Vec<(String, Option<String>)>, Error> {
        Ok(self
            .list(prefix)?
            .into_iter()
            .map(|key| (key, None))
            .collect())
    }
}

/// How a store is opened, from the command line and the environment.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--read-only` or `TUNESPEC_STORE_READ_ONLY=1`: reads only (CI); writes are refused.
    pub read_only: bool,
    /// The Redis password, from `REDISCLI_AUTH` as `redis-cli` reads it (never from a file
    /// tunespec writes, never from the URL).
    pub redis_password: Option<String>,
    /// The object stores' own variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`: credentials, region,
    /// endpoint), as the engines' own tools read them.
    pub engine_variables: Vec<(String, String)>,
}

impl Options {
    /// The options of `--read-only` (`read_only_flag`) and `env` (the settings' environment).
    pub fn from_env(read_only_flag: bool, environment: &crate::config::Environment) -> Options {
        let env = |name: &str| environment.text(name).filter(|value| !value.is_empty());
        let read_only_env = env("TUNESPEC_STORE_READ_ONLY")
            .is_some_and(|value| !matches!(value.as_str(), "0" | "false" | "no"));
        Options {
            read_only: read_only_flag || read_only_env,
            redis_password: env("REDISCLI_AUTH"),
            engine_variables: ["AWS_", "GOOGLE_", "AZURE_"]
                .iter()
                .flat_map(|prefix| environment.prefixed(prefix))
                .collect(),
        }
    }
}

/// An open store: its URL, its engine and whether writes are allowed.
#[derive(Debug)]
pub struct Store {
    url: StoreUrl,
    backend: Box<dyn Backend>,
    read_only: bool,
    /// The machine's copies of what it read ([`Store::with_reads`]); `None`: none kept.
    reads: Option<reads::Reads>,
}

impl Store {
    /// Opens the store `text` names (connecting to a server: an unreachable one is
    /// [`Error::Unavailable`]).
    pub fn open(text: &str, options: &Options) -> Result<Store, Error> {
        let url = url::parse(text)?;
        let backend = open_backend(&url, options)?;
        Ok(Store {
            url,
            backend,
            read_only: options.read_only,
            reads: None,
        })
    }

    /// A store over any engine (a test's, a later object store's).
    pub fn with_backend(url: StoreUrl, backend: Box<dyn Backend>, read_only: bool) -> Store {
        Store {
            url,
            backend,
            read_only,
            reads: None,
        }
    }

    /// The store, keeping copies of the entries and pointers it reads in `dir` (one directory
    /// per store URL: the machine's cache), so that a later pull fetches only what changed
    /// ([`reads`] says why that is safe).
    pub fn with_reads(mut self, dir: std::path::PathBuf) -> Store {
        self.reads = Some(reads::Reads::new(dir));
        self
    }

    /// The URL, as reports name the store.
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Whether writes are refused.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// The prefix of every key of `namespace`.
    fn namespace_prefix(namespace: &str) -> String {
        format!("tunespec/v{}/{namespace}/", entry::FORMAT)
    }

    fn prefix(&self) -> String {
        Store::namespace_prefix(&self.url.namespace)
    }

    fn entry_key(&self, name: &str) -> String {
        format!("{}entries/{name}", self.prefix())
    }

    fn best_prefix(&self) -> String {
        format!("{}best/", self.prefix())
    }

    /// An opaque blob of the store's `linked/` space (the linked-library cache's second level,
    /// `crate::cache::remote`), `None` when absent. Blobs are named by their cache key and
    /// never replaced: one name, one content.
    pub fn get_blob(&self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        self.backend.get(&format!("{}linked/{name}", self.prefix()))
    }

    /// Writes a blob unless one of that name is there; whether it wrote. Refused read-only.
    pub fn put_blob(&self, name: &str, bytes: &[u8]) -> Result<bool, Error> {
        self.refuse_writes("a cache write")?;
        self.backend
            .put_if_absent(&format!("{}linked/{name}", self.prefix()), bytes)
    }

    fn refuse_writes(&self, what: &str) -> Result<(), Error> {
        if self.read_only {
            return Err(Error::ReadOnly(format!(
                "{} is read-only (--read-only or TUNESPEC_STORE_READ_ONLY): {what} refused",
                self.url
            )));
        }
        Ok(())
    }
}

/// The engine `url` names, opened (connecting to a server: an unreachable one is
/// [`Error::Unavailable`]); the store's operations are built on its five.
pub fn open_backend(url: &StoreUrl, options: &Options) -> Result<Box<dyn Backend>, Error> {
    Ok(match &url.location {
        Location::Redis {
            host,
            port,
            db,
            tls,
        } => Box::new(redis::RedisBackend::connect(
            (host, *port, *db),
            *tls,
            options.redis_password.as_deref(),
        )?),
        Location::File(path) => Box::new(file::FileBackend::open(path, options.read_only)?),
        Location::Object {
            engine,
            bucket,
            prefix,
        } => Box::new(object::ObjectBackend::open(
            *engine,
            bucket,
            prefix,
            &options.engine_variables,
        )?),
    })
}

/// Makes rustls with `ring` the process's TLS provider, for the engines that speak TLS
/// (`rediss://`, the object stores' HTTPS): one provider, no C build of another crypto library.
/// Idempotent; a provider an embedding program installed first is kept.
fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Pulls the entries of `store` for `target` and `device` into the measured library `output`
/// (see [`Store::pull`]), with the target definitions `definitions` gives for each target of
/// its entries (a target a user's library defines: the pulled library then loads alone), and
/// writes it whole: the same store content gives the same bytes. An `output` that already holds
/// exactly these files is left as it is (a link that pulls before each run keeps its cache
/// keys). A directory at `output` that is not a measured library is refused, never replaced.
pub fn pull_to(
    store: &Store,
    (target, device): (Option<&str>, Option<&str>),
    definitions: &dyn Fn(&str) -> Vec<Definition>,
    output: &Path,
) -> Result<Pulled, PullError> {
    crate::measured::library::written_manifest(output).map_err(PullError::Output)?;
    let mut pulled = store.pull(target, device).map_err(PullError::Store)?;
    let mut targets: Vec<String> = pulled
        .library
        .entries
        .iter()
        .map(|entry| entry.target.clone())
        .collect();
    targets.sort();
    targets.dedup();
    for target in &targets {
        pulled.library.define(definitions(target));
    }
    let files = crate::measured::library::library_files(
        &mut pulled.library,
        crate::measured::library::STORE_TOOL,
    );
    if !holds_exactly(output, &files) {
        crate::measured::library::write_directory(output, &files).map_err(PullError::Output)?;
    }
    Ok(pulled)
}

/// Whether `dir` holds exactly `files` (relative path, text) and nothing else.
fn holds_exactly(dir: &Path, files: &[(String, String)]) -> bool {
    let count = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .count();
    count == files.len()
        && files.iter().all(|(relative, text)| {
            crate::files::read_input_text(dir.join(relative)).is_ok_and(|found| found == *text)
        })
}

/// Why `pull_to` failed: the store, or the library on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PullError {
    /// The store failed.
    Store(Error),
    /// The output cannot be written (or is not a measured library).
    Output(String),
}
