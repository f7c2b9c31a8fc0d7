//! The linked-library cache's second level: a shared store (`TUNESPEC_CACHE_STORE`, the URLs of
//! `--store`: `redis://`, `file://`, object stores) below this machine's disk cache, as sccache puts a remote
//! cache below its local one. A machine that misses on disk asks the store before it links, and
//! a link it does make is offered to the store, so a fleet links each library once.
//!
//! Keys are the disk cache's ([`Key`]: every input's bytes, the options, tunespec's sources),
//! so an entry is only ever used for the exact inputs it was linked from. Why a team secret
//! (`TUNESPEC_CACHE_STORE_SECRET`, 64 hex digits) is required: a linked library is a transform
//! script IREE runs on the user's program, and a store is written by many machines. Entries
//! carry the disk format's checksum keyed with the team's secret, so an entry written without
//! it (a stray writer, a poisoned or corrupt value) fails the check and is linked locally
//! instead, never used. Without the secret the second level is off, and said.
//!
//! A store that fails (down, refused) is a warning once: the link goes on locally. Read-only
//! (`TUNESPEC_STORE_READ_ONLY=1`, CI): entries are used, none written.

use super::entry::{decode_entry_with, encode_entry_with};
use super::{Artifact, Key};
use crate::config::Environment;
use crate::store::{Options, Store};

/// The variable naming the store.
pub const STORE_VAR: &str = "TUNESPEC_CACHE_STORE";
/// The variable holding the team's secret.
pub const SECRET_VAR: &str = "TUNESPEC_CACHE_STORE_SECRET";

/// The second level: the store and the team's secret.
pub struct Remote {
    store: Store,
    secret: [u8; 32],
}

impl std::fmt::Debug for Remote {
    /// Never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("store", &self.store.url().to_string())
            .finish_non_exhaustive()
    }
}

/// What a lookup found.
pub enum Found {
    /// An entry for the key, checked.
    Hit(Artifact),
    /// None for the key.
    Miss,
    /// One that fails the check (written without the secret, or corrupt): not used.
    Rejected,
}

impl Remote {
    /// The second level `env` configures: `Ok(None)` when `TUNESPEC_CACHE_STORE` is unset;
    /// `Err` (a warning to give; the cache then runs without it) when the secret is missing or
    /// malformed or the store cannot be opened.
    pub fn from_env(env: &Environment) -> Result<Option<Remote>, String> {
        let Some(url) = env.text(STORE_VAR).filter(|url| !url.is_empty()) else {
            return Ok(None);
        };
        let secret = env
            .text(SECRET_VAR)
            .and_then(|text| parse_secret(&text))
            .ok_or_else(|| {
                format!("{STORE_VAR} is set but {SECRET_VAR} is not 64 hex digits (the team's secret that checks the store's linked libraries): linking without the store")
            })?;
        let store = Store::open(&url, &Options::from_env(false, env))
            .map_err(|error| format!("{STORE_VAR}: {error}; linking without the store"))?;
        Ok(Some(Remote { store, secret }))
    }

    /// The entry for `key`, checked against the key and the secret.
    pub fn load(&self, key: &Key) -> Result<Found, String> {
        let bytes = self
            .store
            .get_blob(&key.hex())
            .map_err(|error| format!("{}: {error}", self.store.url()))?;
        Ok(match bytes {
            None => Found::Miss,
            Some(bytes) => match decode_entry_with(&bytes, key, Some(&self.secret)) {
                Ok(artifact) => Found::Hit(artifact),
                Err(_) => Found::Rejected,
            },
        })
    }

    /// Offers the link of `key` to the store (nothing when read-only or already there).
    pub fn save(&self, key: &Key, artifact: &Artifact) -> Result<bool, String> {
        if self.store.read_only() {
            return Ok(false);
        }
        let bytes = encode_entry_with(key, artifact, Some(&self.secret));
        self.store
            .put_blob(&key.hex(), &bytes)
            .map_err(|error| format!("{}: {error}", self.store.url()))
    }

    /// The store's URL, for messages.
    pub fn url(&self) -> String {
        self.store.url().to_string()
    }
}

impl super::Cache {
    /// The second level's entry for `key` (checked), after a miss on disk; a store that fails
    /// or an entry that fails the check is a warning, and `None`.
    pub(super) fn remote_load(&self, key: &Key) -> Option<Artifact> {
        let remote = self.remote.as_ref()?;
        match remote.load(key) {
            Ok(Found::Hit(artifact)) => {
                self.counters
                    .remote_hits
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Some(artifact)
            }
            Ok(Found::Miss) => None,
            Ok(Found::Rejected) => {
                self.warn(crate::problem::Problem::warning(
                    super::codes::UNAVAILABLE,
                    format!(
                        "{}: a linked library that fails the team secret's check (written without it, or corrupt): not used, linked here",
                        remote.url()
                    ),
                    None,
                ));
                None
            }
            Err(error) => {
                self.remote_failed(&error);
                None
            }
        }
    }

    /// Offers a link made here to the second level (not with `TUNESPEC_CACHE=readonly`, which
    /// writes nothing anywhere).
    pub(super) fn remote_save(&self, key: &Key, artifact: &Artifact) {
        let Some(remote) = &self.remote else { return };
        if self.settings.mode == super::Mode::ReadOnly {
            return;
        }
        match remote.save(key, artifact) {
            Ok(true) => {
                self.counters
                    .remote_stores
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(false) => {}
            Err(error) => self.remote_failed(&error),
        }
    }

    fn remote_failed(&self, error: &str) {
        self.warn(crate::problem::Problem::warning(
            super::codes::UNAVAILABLE,
            format!("the cache's store failed ({error}); linking without it"),
            None,
        ));
    }
}

/// 64 hex digits -> 32 bytes.
fn parse_secret(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 {
        return None;
    }
    let mut secret = [0u8; 32];
    for (byte, pair) in secret.iter_mut().zip(text.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_64_hex_digits() {
        let hex = "00ff".repeat(16);
        let secret = parse_secret(&hex).unwrap();
        assert_eq!((secret[0], secret[1]), (0x00, 0xff));
        assert!(parse_secret("00ff").is_none());
        assert!(parse_secret(&"zz".repeat(32)).is_none());
    }

    #[test]
    fn unset_is_off_and_a_missing_secret_is_said() {
        let none = Environment::from_vars(Vec::<(&str, &str)>::new());
        assert!(matches!(Remote::from_env(&none), Ok(None)));
        let without = Environment::from_vars([(STORE_VAR, "file:///nonexistent/store")]);
        let error = Remote::from_env(&without).unwrap_err();
        assert!(error.contains(SECRET_VAR), "{error}");
    }
}
