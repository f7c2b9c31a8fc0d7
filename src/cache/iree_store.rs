//! The cache as IREE's [`Store`]: IREE's answers (a model's dispatches, a library file's
//! revision) kept as entries of their own domain ([`dispatches_key`]).
//!
//! Why here and not in `iree/`: the cache depends on linking and the registry; IREE's module
//! depends on nothing of the crate, so the cache implements IREE's small trait, and the binary
//! hands the cache to its IREE session (`iree::Session::new`).

use std::sync::Arc;

use crate::iree::{Failure, Store, StoreKey};

use super::{dispatches_key, Artifact, Cache};

impl Store for Cache {
    fn get_or_make(
        &self,
        key: &StoreKey<'_>,
        make: &mut dyn FnMut() -> Result<Vec<u8>, Failure>,
    ) -> Result<Vec<u8>, Failure> {
        let cache_key = dispatches_key(key.input, key.name, key.revision, key.flags, key.phase);
        if self.settings().mode == super::Mode::Off {
            // Nothing is kept between processes, but one command does not ask IREE the same
            // question twice (`explain --exact` of a model reads its dispatch sources for the
            // explanation and again for IREE's configuration phase): the answer is a pure
            // function of the key.
            if let Some(answer) = super::lock(&self.answered).get(&cache_key.hash) {
                return Ok(answer.to_vec());
            }
            let answer = make()?;
            super::lock(&self.answered).insert(cache_key.hash, Arc::new(answer.clone()));
            return Ok(answer);
        }
        let mut failure = None;
        let found = self.get_or_insert_with(&cache_key, || match make() {
            Ok(bytes) => Ok(Artifact {
                bytecode: bytes,
                problems: Vec::new(),
            }),
            Err(error) => {
                failure = Some(error);
                Err(Vec::new())
            }
        });
        found.map(|entry| entry.bytecode).map_err(|_| {
            failure.unwrap_or_else(|| Failure::Tool("IREE gave no answer".to_string()))
        })
    }
}

/// A cache configured from the environment ([`Cache::from_env`]) and opened on first use
/// only: a command that never asks IREE or prunes never opens (or warns about) the cache
/// directory. One program's cache for IREE's answers and cut-down libraries: the CLI keeps one
/// in its settings and hands it to its IREE session as the [`Store`].
pub struct OnDemand {
    env: std::sync::Arc<crate::config::Environment>,
    cache: std::sync::OnceLock<Cache>,
}

impl OnDemand {
    /// A cache not opened yet, to be configured from `env`.
    pub fn new(env: std::sync::Arc<crate::config::Environment>) -> OnDemand {
        OnDemand {
            env,
            cache: std::sync::OnceLock::new(),
        }
    }

    /// The cache, opened now if it was not.
    pub fn get(&self) -> &Cache {
        self.cache.get_or_init(|| Cache::from_env(&self.env))
    }
}

impl Store for OnDemand {
    fn get_or_make(
        &self,
        key: &StoreKey<'_>,
        make: &mut dyn FnMut() -> Result<Vec<u8>, Failure>,
    ) -> Result<Vec<u8>, Failure> {
        self.get().get_or_make(key, make)
    }
}
