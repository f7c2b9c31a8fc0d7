//! A store's URL (`--store`): which backend, where, and the namespace its keys live under.
//!
//! Why parsed here and not by each backend: the refusals (an engine not supported, a
//! relative path, a bad namespace) are the same words and exit status for every command, and the
//! namespace is the store's, not the backend's.

use std::path::PathBuf;

use super::Error;

/// The namespace of a URL without `?namespace=`.
pub const DEFAULT_NAMESPACE: &str = "default";

/// Schemes of engines refused (WebDAV: no compare-and-swap its servers agree on), with a clear
/// message rather than taken for a path.
const NOT_YET: &[&str] = &["webdav", "webdavs", "http", "https"];

/// An object store's engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Amazon S3 and S3-compatible stores (MinIO, Ceph, R2: `AWS_ENDPOINT_URL`): `s3://`.
    S3,
    /// Google Cloud Storage: `gs://`.
    Gcs,
    /// Azure Blob Storage: `azblob://`.
    Azure,
}

impl Engine {
    /// The URL scheme.
    pub fn scheme(self) -> &'static str {
        match self {
            Engine::S3 => "s3",
            Engine::Gcs => "gs",
            Engine::Azure => "azblob",
        }
    }

    /// The prefix of the engine's own environment variables (its credentials and settings).
    pub fn variables(self) -> &'static str {
        match self {
            Engine::S3 => "AWS_",
            Engine::Gcs => "GOOGLE_",
            Engine::Azure => "AZURE_",
        }
    }
}

/// Where a store is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `redis://host[:port][/db]`: a Redis server (port 6379 and database 0 by default).
    Redis {
        /// The host name or address.
        host: String,
        /// The TCP port.
        port: u16,
        /// The database number.
        db: u32,
        /// `rediss://`: TLS, the server's certificate checked against the system's roots
        /// (`SSL_CERT_FILE`, `SSL_CERT_DIR` as OpenSSL reads them).
        tls: bool,
    },
    /// `file:///abs/path`: a directory on a local or shared file system.
    File(PathBuf),
    /// `s3://bucket[/prefix]`, `gs://bucket[/prefix]`, `azblob://container[/prefix]`.
    Object {
        /// Which engine.
        engine: Engine,
        /// The bucket (the container on Azure).
        bucket: String,
        /// The prefix inside it, without slashes at either end (empty: the bucket's root).
        prefix: String,
    },
}

/// A parsed `--store` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreUrl {
    /// The backend and its address.
    pub location: Location,
    /// The namespace (`?namespace=NAME`): every key lives under it, so that a team can disown a
    /// namespace of poisoned results whole (`store purge --namespace`).
    pub namespace: String,
}

impl std::fmt::Display for StoreUrl {
    /// The URL as reports name the store (no credentials are ever part of it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.location {
            Location::Redis {
                host,
                port,
                db,
                tls,
            } => {
                let scheme = if *tls { "rediss" } else { "redis" };
                write!(f, "{scheme}://{host}:{port}/{db}")?;
            }
            Location::File(path) => write!(f, "file://{}", path.display())?,
            Location::Object {
                engine,
                bucket,
                prefix,
            } => {
                write!(f, "{}://{bucket}", engine.scheme())?;
                if !prefix.is_empty() {
                    write!(f, "/{prefix}")?;
                }
            }
        }
        if self.namespace != DEFAULT_NAMESPACE {
            write!(f, "?namespace={}", self.namespace)?;
        }
        Ok(())
    }
}

/// Whether `name` may name a namespace: letters, digits, `.`, `_`, `-` (it becomes part of
/// every key and of a directory name).
pub fn valid_namespace(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Parses `--store`'s text.
pub fn parse(text: &str) -> Result<StoreUrl, Error> {
    let shown = redacted(text);
    let text = text.trim();
    let bad = |why: &str| Error::Url(format!("--store {shown:?}: {why}"));
    let Some((scheme, rest)) = text.split_once("://") else {
        return Err(bad(
            "not a URL; give redis[s]://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX]",
        ));
    };
    let (address, query) = match rest.split_once('?') {
        Some((address, query)) => (address, Some(query)),
        None => (rest, None),
    };
    let mut namespace = DEFAULT_NAMESPACE.to_string();
    for pair in query.into_iter().flat_map(|query| query.split('&')) {
        match pair.split_once('=') {
            Some(("namespace", name)) if valid_namespace(name) => namespace = name.to_string(),
            Some(("namespace", _)) => {
                return Err(bad(
                    "a namespace is letters, digits, '.', '_' and '-' (64 at most, not starting with '.')",
                ))
            }
            _ => return Err(bad(&format!("unknown parameter {pair:?} (only namespace=NAME)"))),
        }
    }
    let location = match scheme {
        "redis" => redis_location(address, false).map_err(|why| bad(&why))?,
        "rediss" => redis_location(address, true).map_err(|why| bad(&why))?,
        "file" => {
            let path = PathBuf::from(address);
            if !path.is_absolute() {
                return Err(bad("a file store's path is absolute: file:///ABSOLUTE/PATH"));
            }
            Location::File(path)
        }
        "s3" => object_location(Engine::S3, address).map_err(|why| bad(&why))?,
        "gs" => object_location(Engine::Gcs, address).map_err(|why| bad(&why))?,
        "azblob" => object_location(Engine::Azure, address).map_err(|why| bad(&why))?,
        scheme if NOT_YET.contains(&scheme) => {
            return Err(Error::Unsupported(format!(
                "--store {shown:?}: {scheme}:// stores are not supported: WebDAV servers agree on no compare-and-swap, so racing writers could lose results (docs/store.md); use redis://, rediss://, file://, s3://, gs:// or azblob://"
            )))
        }
        _ => return Err(bad("unknown scheme; give redis://, file://, s3://, gs:// or azblob://")),
    };
    Ok(StoreUrl {
        location,
        namespace,
    })
}

/// `text` with the user and password of a URL (`redis://user:pw@host`) hidden: an error
/// message must not print them.
fn redacted(text: &str) -> String {
    match (text.find("://"), text.rfind('@')) {
        (Some(start), Some(at)) if at > start => {
            format!("{}://***{}", &text[..start], &text[at..])
        }
        _ => text.to_string(),
    }
}

/// `bucket[/prefix]`: a bucket name as the engines allow them (letters, digits, `.`, `_`,
/// `-`) and a prefix of path segments (no empty, `.` or `..` segment: a key must mean one
/// object on every engine).
fn object_location(engine: Engine, address: &str) -> Result<Location, String> {
    if address.contains('@') {
        return Err(
            "credentials in a store URL are refused (they end in logs and reports); the engine's own variables give them (docs/store.md)"
                .to_string(),
        );
    }
    let address = address.trim_end_matches('/');
    let (bucket, prefix) = address.split_once('/').unwrap_or((address, ""));
    let name_ok = |name: &str| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    if !name_ok(bucket) {
        return Err(format!(
            "{}:// names a bucket first: letters, digits, '.', '_' and '-', not {bucket:?}",
            engine.scheme()
        ));
    }
    if !prefix.is_empty()
        && !prefix
            .split('/')
            .all(|segment| name_ok(segment) && segment != "." && segment != "..")
    {
        return Err(format!(
            "the prefix {prefix:?} is '/'-separated names of letters, digits, '.', '_' and '-'"
        ));
    }
    Ok(Location::Object {
        engine,
        bucket: bucket.to_string(),
        prefix: prefix.to_string(),
    })
}

/// `host[:port][/db]`. Credentials in the URL are refused: they would end up in shell history,
/// CI logs and reports (Redis's own ACL files and a local tunnel are the way).
fn redis_location(address: &str, tls: bool) -> Result<Location, String> {
    if address.contains('@') {
        return Err(
            "credentials in a store URL are refused (they end in logs and reports); use a server on a trusted network"
                .to_string(),
        );
    }
    let (host_port, db) = match address.split_once('/') {
        Some((host_port, "")) => (host_port, 0),
        Some((host_port, db)) => (
            host_port,
            db.parse()
                .map_err(|_| format!("the database is a number, not {db:?}"))?,
        ),
        None => (address, 0),
    };
    let (host, port) = match host_port.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => (
            host,
            port.parse()
                .map_err(|_| format!("the port is a number below 65536, not {port:?}"))?,
        ),
        _ => (host_port, 6379),
    };
    if host.is_empty() {
        return Err("no host named".to_string());
    }
    Ok(Location::Redis {
        host: host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port,
        db,
        tls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_urls_have_defaults_and_a_namespace() {
        let url = parse("redis://127.0.0.1").unwrap();
        assert_eq!(
            url.location,
            Location::Redis {
                host: "127.0.0.1".into(),
                port: 6379,
                db: 0,
                tls: false
            }
        );
        assert_eq!(url.namespace, "default");
        let url = parse("redis://cache.local:7000/3?namespace=team-a").unwrap();
        assert_eq!(
            url.to_string(),
            "redis://cache.local:7000/3?namespace=team-a"
        );
    }

    #[test]
    fn file_urls_are_absolute() {
        let url = parse("file:///srv/tunespec").unwrap();
        assert_eq!(url.location, Location::File("/srv/tunespec".into()));
        assert!(matches!(parse("file://relative/dir"), Err(Error::Url(_))));
    }

    #[test]
    fn object_store_urls_name_a_bucket_and_a_prefix() {
        let url = parse("s3://tuning-farm/team/a/?namespace=mi300").unwrap();
        assert_eq!(
            url.location,
            Location::Object {
                engine: Engine::S3,
                bucket: "tuning-farm".into(),
                prefix: "team/a".into()
            }
        );
        assert_eq!(url.to_string(), "s3://tuning-farm/team/a?namespace=mi300");
        assert_eq!(parse("gs://b").unwrap().to_string(), "gs://b");
        assert_eq!(parse("azblob://c/p").unwrap().to_string(), "azblob://c/p");
    }

    #[test]
    fn bad_and_unsupported_urls_are_told_apart() {
        assert!(matches!(parse("webdav://h/p"), Err(Error::Unsupported(_))));
        assert_eq!(
            parse("rediss://h:6380/2").unwrap().to_string(),
            "rediss://h:6380/2"
        );
        assert!(matches!(parse("s3://"), Err(Error::Url(_))));
        assert!(matches!(parse("s3://b/a//c"), Err(Error::Url(_))));
        assert!(matches!(parse("gs://b/../c"), Err(Error::Url(_))));
        let error = parse("s3://key:secret@bucket").unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(matches!(parse("/just/a/path"), Err(Error::Url(_))));
        assert!(matches!(parse("redis://h:notaport"), Err(Error::Url(_))));
        let error = parse("redis://user:hunter2@h").unwrap_err();
        assert!(matches!(error, Error::Url(_)));
        assert!(!error.to_string().contains("hunter2"), "{error}");
        assert!(matches!(
            parse("redis://h?namespace=../x"),
            Err(Error::Url(_))
        ));
        assert!(matches!(parse("redis://h?colour=red"), Err(Error::Url(_))));
        assert!(matches!(parse("ftp://h"), Err(Error::Url(_))));
    }
}
