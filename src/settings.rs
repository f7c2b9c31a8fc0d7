//! One program's settings, resolved once: from the command line's flags, then the environment
//! (one snapshot, [`Environment`]), then the config files, in that order of precedence
//! (`docs/settings.md` has the table of every setting).
//!
//! Why one value: the library keeps no process-wide state of its own. The CLI builds one
//! [`Settings`] at start and hands each command what it needs from it (the IREE session, the
//! cache); a program that uses the library builds its own and gets what the CLI would for the
//! same settings, and two of them in one process never see each other's choices.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use crate::config::Environment;

use crate::cache::OnDemand;
use crate::config::Discovery;
use crate::iree::Session;
use crate::registry::{self, Registry};

/// What the command line says of the settings below (flags parsed, nothing resolved yet).
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--iree`: IREE's compiler library, a venv or a directory holding it.
    pub iree: Option<PathBuf>,
}

/// The settings of one program.
pub struct Settings {
    /// The environment every setting below the command line is read from.
    pub env: Arc<Environment>,
    /// The cache of linked libraries, cut-down libraries and IREE's answers, opened on first
    /// use from `TUNESPEC_CACHE*` and the XDG cache directory ([`crate::cache::Settings`]).
    pub cache: Arc<OnDemand>,
    /// Which IREE: `--iree`, else `TUNESPEC_IREE_LIB`, `TUNESPEC_IREE_VENV`, iree-compile on
    /// `PATH`, python3's package ([`crate::iree::find`]); found on first need, its answers kept
    /// in [`Settings::cache`].
    pub iree: Arc<Session>,
    /// The configs and spec path, found on first need ([`Settings::discovery`]).
    discovery: OnceLock<Discovery>,
}

impl Settings {
    /// The settings of `flags`, with the process's environment and the configs for what they
    /// leave open.
    pub fn new(flags: Flags) -> Settings {
        Settings::with_environment(flags, Environment::process())
    }

    /// The settings of `flags`, with `env` (not the process's) and the configs it finds for
    /// what they leave open: how a program that embeds the library sets what the CLI reads
    /// from variables, without touching its own process environment.
    pub fn with_environment(flags: Flags, env: Environment) -> Settings {
        let env = Arc::new(env);
        let cache = Arc::new(OnDemand::new(env.clone()));
        let iree = Arc::new(Session::new(flags.iree, env.clone(), cache.clone()));
        Settings {
            env,
            cache,
            iree,
            discovery: OnceLock::new(),
        }
    }

    /// The project and user configs, `TUNESPEC_SPEC_PATH` and `TUNESPEC_DERIVED`, found once
    /// from the current directory and [`Settings::env`] ([`Discovery::from_env`]) on first need:
    /// a command that links nothing reads no config (and warns of none).
    pub fn discovery(&self) -> &Discovery {
        self.discovery
            .get_or_init(|| Discovery::from_env(&self.env))
    }

    /// The default registry with the user's spec libraries of [`Settings::discovery`].
    pub fn registry(&self) -> Result<Registry, registry::Error> {
        Registry::embedded().with_discovery(self.discovery())
    }

    /// What the configs' discovery ignored, and why, when it ran (see [`Discovery::notices`]).
    pub fn notices(&self) -> &[String] {
        self.discovery
            .get()
            .map_or(&[], |discovery| discovery.notices.as_slice())
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("iree", &self.iree)
            .finish_non_exhaustive()
    }
}
