//! The object-store backends: `s3://`, `gs://` and `azblob://`, through the `object_store` crate
//! (Apache Arrow's, as used by DataFusion and Delta Lake), one object per key.
//!
//! Why object stores' own conditional writes: a put-if-absent is a `PUT` with `If-None-Match: *`
//! (S3 and Azure; `x-goog-if-generation-match: 0` on GCS), and a compare-and-swap reads the
//! value with its version (ETag or generation), compares the bytes, and writes with `If-Match`
//! on that version: a writer that lost the race gets "precondition failed", never a silent
//! overwrite, with no lock service beside the store. Credentials come from the engines' usual
//! variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`, read from the settings' environment, never from a
//! file tunespec writes) and their machine identities (instance metadata, workload identity).
//!
//! `object_store` is asynchronous; this module owns a current-thread Tokio runtime and blocks on
//! each operation, so that the store's callers stay synchronous like the other backends.

use std::time::Duration;

use futures_util::TryStreamExt as _;
use object_store::path::Path as ObjectPath;
use object_store::{
    ClientOptions, ObjectStore, ObjectStoreExt as _, PutMode, PutOptions, PutPayload, RetryConfig,
    UpdateVersion,
};

use super::url::Engine;
use super::{Backend, Error};

/// How long connecting, and each request, may take before the store counts as unavailable.
const TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request is retried (object stores answer 503 under load) before it fails.
const RETRY_FOR: Duration = Duration::from_secs(20);

/// How many reads [`Backend::get_many`] keeps in flight: a pull's round trips overlap instead of
/// adding up, without opening a connection per key.
const CONCURRENT_GETS: usize = 16;

/// An object store's bucket (S3, GCS) or container (Azure), under a prefix.
pub struct ObjectBackend {
    store: Box<dyn ObjectStore>,
    /// Where the store is, as error messages name it (`s3://bucket/prefix`).
    shown: String,
    /// The prefix every key lives under (`prefix/` or empty).
    prefix: String,
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for ObjectBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectBackend")
            .field("store", &self.shown)
            .finish_non_exhaustive()
    }
}

/// An `object_store` error as the store's: refused credentials are told apart from a store that
/// is down or failing, which a run survives by going on locally.
fn error(what: &str, error: &object_store::Error) -> Error {
    let text = error.to_string();
    match error {
        object_store::Error::Unauthenticated { .. }
        | object_store::Error::PermissionDenied { .. } => {
            Error::Refused(format!("{what}: the store refused the credentials: {text}"))
        }
        _ if [
            "403 Forbidden",
            "401 Unauthorized",
            "AccessDenied",
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "AuthenticationFailed",
            "AuthorizationFailure",
        ]
        .iter()
        .any(|word| text.contains(word)) =>
        {
            Error::Refused(format!("{what}: the store refused the credentials: {text}"))
        }
        _ if ["NoSuchBucket", "ContainerNotFound"]
            .iter()
            .any(|word| text.contains(word)) =>
        {
            Error::Unavailable(format!(
                "{what}: the bucket does not exist (tunespec creates none: docs/store.md): {text}"
            ))
        }
        _ => Error::Unavailable(format!("{what}: {text}")),
    }
}

/// An engine's builder configured and built: the client options and retries first (the
/// engine's variables may set some of them, `*_ALLOW_HTTP`, which a later
/// `with_client_options` would undo), then every variable the builder knows as a configuration
/// key (others are ignored, as `object_store`'s own `from_env` does), then the bucket. A macro
/// because the three builders share these methods but no trait.
macro_rules! configured {
    ($builder:expr, ($options:expr, $retry:expr, $variables:expr), $bucket:ident($name:expr)) => {{
        let mut builder = $builder.with_client_options($options).with_retry($retry);
        for (name, value) in $variables {
            if let Ok(key) = name.parse() {
                builder = builder.with_config(key, value);
            }
        }
        builder
            .$bucket($name)
            .build()
            .map(|store| Box::new(store) as Box<dyn ObjectStore>)
    }};
}

impl ObjectBackend {
    /// The store of `engine` at `bucket` under `prefix`, configured by `config`: the engine's
    /// variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`) as the environment gives them. Opening
    /// contacts nothing: a bucket that does not exist or refuses the credentials fails on the
    /// first operation, as [`Error::Unavailable`] or [`Error::Refused`].
    pub fn open(
        engine: Engine,
        bucket: &str,
        prefix: &str,
        config: &[(String, String)],
    ) -> Result<ObjectBackend, Error> {
        let shown = format!("{}://{bucket}{}", engine.scheme(), slash_prefixed(prefix));
        // reqwest's TLS is rustls with the `ring` provider.
        super::install_tls_provider();
        let options = ClientOptions::new()
            .with_timeout(TIMEOUT)
            .with_connect_timeout(TIMEOUT);
        let retry = RetryConfig {
            max_retries: 3,
            retry_timeout: RETRY_FOR,
            ..RetryConfig::default()
        };
        let variables: Vec<(String, String)> = config
            .iter()
            .filter(|(name, _)| name.starts_with(engine.variables()))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
            .collect();
        let built = match engine {
            Engine::S3 => configured!(
                object_store::aws::AmazonS3Builder::new(),
                (options, retry, &variables),
                with_bucket_name(bucket)
            ),
            Engine::Gcs => configured!(
                object_store::gcp::GoogleCloudStorageBuilder::new(),
                (options, retry, &variables),
                with_bucket_name(bucket)
            ),
            Engine::Azure => configured!(
                object_store::azure::MicrosoftAzureBuilder::new(),
                (options, retry, &variables),
                with_container_name(bucket)
            ),
        };
        let store = built.map_err(|e| {
            Error::Url(format!(
                "--store {shown}: {e} (the engine's settings come from its usual variables: docs/store.md)"
            ))
        })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Unavailable(format!("{shown}: cannot start its client: {e}")))?;
        Ok(ObjectBackend {
            store,
            shown,
            prefix: if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}/")
            },
            runtime,
        })
    }

    fn path(&self, key: &str) -> ObjectPath {
        ObjectPath::from(format!("{}{key}", self.prefix))
    }

    /// The value at `key` with its version, `None` when absent.
    fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, UpdateVersion)>, Error> {
        self.runtime
            .block_on(self.fetch(key))
            .map(|found| found.map(|(bytes, version, _)| (bytes, version)))
    }

    /// Reads `key`: its bytes, the version a conditional write names, and the version as
    /// [`version_text`] gives it; `None` when absent.
    async fn fetch(
        &self,
        key: &str,
    ) -> Result<Option<(Vec<u8>, UpdateVersion, Option<String>)>, Error> {
        let result = match self.store.get(&self.path(key)).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(error(&self.shown, &e)),
        };
        let text = version_text(&result.meta);
        let version = UpdateVersion {
            e_tag: result.meta.e_tag.clone(),
            version: result.meta.version.clone(),
        };
        let bytes = result.bytes().await.map_err(|e| error(&self.shown, &e))?;
        Ok(Some((bytes.to_vec(), version, text)))
    }

    /// Writes `value` at `key` in `mode`; whether it wrote (a failed precondition: no).
    fn put(&self, key: &str, value: &[u8], mode: PutMode) -> Result<bool, Error> {
        let path = self.path(key);
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        let payload = PutPayload::from(value.to_vec());
        match self
            .runtime
            .block_on(self.store.put_opts(&path, payload, options))
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(false),
            Err(e @ object_store::Error::NotImplemented { .. }) => Err(Error::Unavailable(format!(
                "{}: the store does not take conditional writes, which concurrent writers need: {e}",
                self.shown
            ))),
            Err(e) => Err(error(&self.shown, &e)),
        }
    }
}

impl Backend for ObjectBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.get_versioned(key)?.map(|(bytes, _)| bytes))
    }

    fn put_if_absent(&self, key: &str, value: &[u8]) -> Result<bool, Error> {
        self.put(key, value, PutMode::Create)
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, Error> {
        let Some(expected) = expected else {
            return self.put_if_absent(key, new);
        };
        match self.get_versioned(key)? {
            Some((current, version)) if current == expected => {
                self.put(key, new, PutMode::Update(version))
            }
            _ => Ok(false),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, Error> {
        Ok(self
            .list_versioned(prefix)?
            .into_iter()
            .map(|(key, _)| key)
            .collect())
    }

    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<super::Versioned>>, Error> {
        use futures_util::StreamExt as _;
        let reads = futures_util::stream::iter(keys.iter().map(|key| self.fetch(key)))
            .buffered(CONCURRENT_GETS)
            .try_collect::<Vec<_>>();
        Ok(self
            .runtime
            .block_on(reads)?
            .into_iter()
            .map(|found| found.map(|(bytes, _, version)| super::Versioned { bytes, version }))
            .collect())
    }

    fn list_versioned(&self, prefix: &str) -> Result<Vec<(String, Option<String>)>, Error> {
        // Object stores list by whole path segments: list the prefix's directory and keep the
        // keys that start with the prefix itself.
        let directory = match prefix.rfind('/') {
            Some(end) => &prefix[..end],
            None => "",
        };
        let listed = format!("{}{directory}", self.prefix);
        let listed = (!listed.is_empty()).then(|| ObjectPath::from(listed.trim_end_matches('/')));
        let metas: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(self.store.list(listed.as_ref()).try_collect())
            .map_err(|e| error(&self.shown, &e))?;
        let mut keys: Vec<(String, Option<String>)> = metas
            .iter()
            .filter_map(|meta| {
                let key = meta.location.as_ref().strip_prefix(&self.prefix)?;
                key.starts_with(prefix)
                    .then(|| (key.to_string(), version_text(meta)))
            })
            .collect();
        keys.sort();
        keys.dedup_by(|a, b| a.0 == b.0);
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), Error> {
        let path = self.path(key);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(error(&self.shown, &e)),
        }
    }
}

/// An object's version as one text, the same whether a list or a read gave it: its ETag without
/// the quotes some answers put around it (Azure's list has none, its reads have them), else its
/// generation or version id.
fn version_text(meta: &object_store::ObjectMeta) -> Option<String> {
    meta.e_tag
        .as_deref()
        .map(|tag| tag.trim_start_matches("W/").trim_matches('"').to_string())
        .filter(|tag| !tag.is_empty())
        .or_else(|| meta.version.clone())
}

/// `/prefix`, or nothing for the bucket's root.
fn slash_prefixed(prefix: &str) -> String {
    if prefix.is_empty() {
        String::new()
    } else {
        format!("/{prefix}")
    }
}
