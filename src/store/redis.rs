//! The `redis://` backend: keys and values as Redis strings, on one synchronous connection.
//!
//! The one module that speaks to Redis (the `redis` crate, without its async runtime; TLS for
//! `rediss://` through rustls with `ring`, the server checked against the system's roots).
//! Why Redis's own atomics: a put-if-absent is `SET NX`, and a compare-and-swap is a short Lua
//! script Redis runs atomically (no other client's command runs between its `GET` and `SET`), so
//! writers on many machines need no lock of their own.

use std::sync::Mutex;
use std::time::Duration;

use super::{Backend, Error};

/// How long connecting, and each command, may take before the store counts as unavailable.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Sets `KEYS[1]` to `ARGV[3]` when its value is `ARGV[2]` (`ARGV[1]` = "1") or when it has
/// none (`ARGV[1]` = "0"); returns 1 when it set it.
const SWAP: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3])
return 1
";

/// A Redis server's database.
pub struct RedisBackend {
    connection: Mutex<redis::Connection>,
}

impl std::fmt::Debug for RedisBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBackend").finish_non_exhaustive()
    }
}

/// A Redis error as the store's: refused credentials are told apart from a server that is
/// down or failing, which a run survives by going on locally.
fn error(what: &str, error: &redis::RedisError) -> Error {
    let text = error.to_string();
    if [
        "NOAUTH",
        "WRONGPASS",
        "NOPERM",
        "invalid password",
        "AuthenticationFailed",
    ]
    .iter()
    .any(|word| text.contains(word))
    {
        Error::Refused(format!(
            "{what}: the server refused the credentials: {text}"
        ))
    } else {
        Error::Unavailable(format!("{what}: {text}"))
    }
}

impl RedisBackend {
    /// Connects to `host:port`, database `db`, authenticating with `password` (from
    /// `REDISCLI_AUTH`, as `redis-cli` does) when given.
    pub fn connect(
        (host, port, db): (&str, u16, u32),
        tls: bool,
        password: Option<&str>,
    ) -> Result<RedisBackend, Error> {
        let host_text = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        let scheme = if tls {
            super::install_tls_provider();
            "rediss"
        } else {
            "redis"
        };
        let what = format!("{scheme}://{host_text}:{port}/{db}");
        let client = redis::Client::open(format!("{scheme}://{host_text}:{port}/"))
            .map_err(|e| Error::Url(format!("{what}: {e}")))?;
        let mut connection = client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(|e| error(&format!("cannot connect to {what}"), &e))?;
        connection
            .set_read_timeout(Some(TIMEOUT))
            .and_then(|()| connection.set_write_timeout(Some(TIMEOUT)))
            .map_err(|e| error(&what, &e))?;
        if let Some(password) = password {
            redis::cmd("AUTH")
                .arg(password)
                .query::<()>(&mut connection)
                .map_err(|e| error(&what, &e))?;
        }
        redis::cmd("SELECT")
            .arg(db)
            .query::<()>(&mut connection)
            .map_err(|e| error(&what, &e))?;
        Ok(RedisBackend {
            connection: Mutex::new(connection),
        })
    }

    /// Runs `command` on the connection (one at a time: a connection is one stream).
    fn query<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, Error> {
        let mut connection = self
            .connection
            .lock()
            .map_err(|_| Error::Unavailable("the store's connection was poisoned".to_string()))?;
        command
            .query(&mut *connection)
            .map_err(|e| error("the Redis store", &e))
    }
}

impl Backend for RedisBackend {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        self.query(redis::cmd("GET").arg(key))
    }

    fn put_if_absent(&self, key: &str, value: &[u8]) -> Result<bool, Error> {
        let set: Option<String> = self.query(redis::cmd("SET").arg(key).arg(value).arg("NX"))?;
        Ok(set.is_some())
    }

    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, Error> {
        let swapped: i64 = self.query(
            redis::cmd("EVAL")
                .arg(SWAP)
                .arg(1)
                .arg(key)
                .arg(if expected.is_some() { "1" } else { "0" })
                .arg(expected.unwrap_or_default())
                .arg(new),
        )?;
        Ok(swapped == 1)
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, Error> {
        // SCAN, not KEYS: a large store is listed without blocking the server.
        let pattern = format!("{}*", glob_escape(prefix));
        let mut keys = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let (next, batch): (u64, Vec<String>) = self.query(
                redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(1000),
            )?;
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), Error> {
        self.query::<i64>(redis::cmd("DEL").arg(key)).map(|_| ())
    }

    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<super::Versioned>>, Error> {
        // MGET: one round trip per thousand keys instead of one per key.
        let mut values = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(1000) {
            let batch: Vec<Option<Vec<u8>>> = self.query(redis::cmd("MGET").arg(chunk))?;
            if batch.len() != chunk.len() {
                return Err(Error::Unavailable(format!(
                    "the Redis store answered MGET of {} keys with {} values",
                    chunk.len(),
                    batch.len()
                )));
            }
            values.extend(batch.into_iter().map(|bytes| {
                bytes.map(|bytes| super::Versioned {
                    bytes,
                    version: None,
                })
            }));
        }
        Ok(values)
    }
}

/// `text` with Redis's glob characters escaped, for a `MATCH` pattern.
fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
