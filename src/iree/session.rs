//! One program's IREE: which compiler library it uses (found once, on first need), the IREE
//! loaded from it, and where IREE's answers are kept.
//!
//! Why a value and not process-wide state: a program that uses the library builds its own
//! session (its `--iree`, its store) and gets the answer the CLI would give for the same
//! settings; two sessions in one process (tests, a server) never see each other's choice. The
//! CLI builds one from its [`crate::settings::Settings`] and hands it to what needs IREE.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::find::{self, Found, Lookup, Tool};
use super::{Iree, Limits, NoStore, Store};
use crate::config::Environment;

/// Which IREE a program uses, found and loaded once, on first use.
pub struct Session {
    /// `--iree`: the library, a venv or a directory holding it; `None`: searched for.
    explicit: Option<PathBuf>,
    /// The settings' environment: which IREE (`TUNESPEC_IREE_LIB`, `PATH`...) and its limits.
    env: Arc<Environment>,
    /// Where IREE's answers (a model's dispatches, a library's revision) are kept.
    store: Arc<dyn Store + Send>,
    /// The one answer to "which IREE?" ([`Session::found`]).
    found: OnceLock<Result<Found, String>>,
    /// The IREE loaded from it ([`Session::shared`]).
    shared: OnceLock<Result<Iree, String>>,
    /// How the search's python3 step answered, when it ran (`doctor` says it).
    lookup: Mutex<Option<Lookup>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("explicit", &self.explicit)
            .field("found", &self.found.get())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A session for `explicit` (`--iree`; `None`: `env` and the search decide) that keeps
    /// IREE's answers in `store`.
    pub fn new(
        explicit: Option<PathBuf>,
        env: Arc<Environment>,
        store: Arc<dyn Store + Send>,
    ) -> Session {
        Session {
            explicit,
            env,
            store,
            found: OnceLock::new(),
            shared: OnceLock::new(),
            lookup: Mutex::new(None),
        }
    }

    /// A session that keeps nothing: IREE is asked every time.
    pub fn without_store(explicit: Option<PathBuf>, env: Arc<Environment>) -> Session {
        Session::new(explicit, env, Arc::new(NoStore))
    }

    /// The environment this session reads its settings from.
    pub fn env(&self) -> &Environment {
        &self.env
    }

    /// IREE's time limits and how a large check is split, as this session's environment sets
    /// them; the IREE it loads works under them.
    pub fn limits(&self) -> Limits {
        Limits::from_env(&self.env)
    }

    /// Where this session keeps IREE's answers.
    pub fn store(&self) -> &dyn Store {
        &*self.store
    }

    /// The store as a handle of its own, for what outlives a borrow of the session.
    pub fn store_handle(&self) -> Arc<dyn Store + Send> {
        Arc::clone(&self.store)
    }

    /// The library, found once (python3 asked where nothing cheaper answers): the one answer to
    /// "which IREE?" that [`Session::shared`], [`Session::iree_opt`] and `doctor` all give.
    pub fn found(&self) -> &Result<Found, String> {
        self.found.get_or_init(|| {
            let (found, lookup) =
                find::find_with(self.explicit.as_deref(), true, &self.env, self.store());
            self.remember(lookup);
            if let Ok(found) = &found {
                log_found(found);
            }
            found
        })
    }

    /// How the search's python3 step answered, `None` when none ran (a setting named IREE, or
    /// an earlier step found it).
    pub fn python_lookup(&self) -> Option<Lookup> {
        self.lookup.lock().ok().and_then(|lookup| lookup.clone())
    }

    fn remember(&self, lookup: Option<Lookup>) {
        if let (Some(lookup), Ok(mut slot)) = (lookup, self.lookup.lock()) {
            *slot = Some(lookup);
        }
    }

    /// The IREE of [`Session::found`], asked its revision once, on first use.
    pub fn shared(&self) -> &Result<Iree, String> {
        self.shared.get_or_init(|| {
            let found = self.found().clone()?;
            Iree::load_found(found, self.store()).map(|iree| {
                iree.with_store(self.store_handle())
                    .with_env(self.env.clone())
            })
        })
    }

    /// This session's IREE where finding it is cheap (not through python3), for commands to
    /// which IREE adds a check (`link`, `attach` of linalg IR): `None` when none is found that
    /// way. A library that is found but does not load is still an error.
    pub fn optional(&self) -> Option<&Result<Iree, String>> {
        if let Some(shared) = self.shared.get() {
            return Some(shared);
        }
        let found = match self.found.get() {
            Some(found) => found.clone().ok()?,
            None => {
                let (found, lookup) =
                    find::find_with(self.explicit.as_deref(), false, &self.env, self.store());
                self.remember(lookup);
                let found = found.ok()?;
                log_found(&found);
                found
            }
        };
        Some(self.shared.get_or_init(|| {
            Iree::load_found(found, self.store()).map(|iree| {
                iree.with_store(self.store_handle())
                    .with_env(self.env.clone())
            })
        }))
    }

    /// This session's `tool` (see [`find::tool`]): `explicit` (`--iree-opt`), else beside the
    /// library [`Session::found`] gives, so that the tool and the library are one IREE.
    pub fn tool(&self, tool: Tool, explicit: Option<&Path>) -> Result<PathBuf, String> {
        let path = find::tool(tool, explicit, self.explicit.as_deref(), &self.env, || {
            self.found().clone()
        });
        if let Ok(path) = &path {
            tracing::debug!(program = tool.program(), path = %path.display(), "iree.tool");
        }
        path
    }

    /// This session's iree-opt: [`Session::tool`] for [`Tool::Opt`].
    pub fn iree_opt(&self, explicit: Option<&Path>) -> Result<PathBuf, String> {
        self.tool(Tool::Opt, explicit)
    }

    /// Whether IREE was configured explicitly (`--iree`, `TUNESPEC_IREE_LIB`): a failure to
    /// load it is then an error even where IREE is optional.
    pub fn explicitly_configured(&self) -> bool {
        self.explicit.is_some() || self.env.is_set(find::ENV_LIB)
    }
}

/// The one answer, at `-vv` (`TUNESPEC_LOG=tunespec::iree=debug`): which library a command
/// uses, so that it can be compared with what `doctor` reports.
fn log_found(found: &Found) {
    tracing::debug!(library = %found.library.display(), origin = %found.origin, "iree.found");
}
