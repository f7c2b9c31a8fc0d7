//! One program's settings, resolved once: from the command line's flags, then the environment
//! (read through [`crate::config::process_env`]), then the config files, in that order of
//! precedence (`docs/settings.md` has the table of every setting).
//!
//! Why one value: the library keeps no process-wide state of its own. The CLI builds one
//! [`Settings`] at start and hands each command what it needs from it (the IREE session, the
//! cache); a program that uses the library builds its own and gets what the CLI would for the
//! same settings, and two of them in one process never see each other's choices.

use std::path::PathBuf;
use std::sync::Arc;

use crate::cache::OnDemand;
use crate::iree::Session;

/// What the command line says of the settings below (flags parsed, nothing resolved yet).
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--iree`: IREE's compiler library, a venv or a directory holding it.
    pub iree: Option<PathBuf>,
}

/// The settings of one program.
pub struct Settings {
    /// The cache of linked libraries, cut-down libraries and IREE's answers, opened on first
    /// use from `TUNESPEC_CACHE*` and the XDG cache directory ([`crate::cache::Settings`]).
    pub cache: Arc<OnDemand>,
    /// Which IREE: `--iree`, else `TUNESPEC_IREE_LIB`, `TUNESPEC_IREE_VENV`, iree-compile on
    /// `PATH`, python3's package ([`crate::iree::find`]); found on first need, its answers kept
    /// in [`Settings::cache`].
    pub iree: Arc<Session>,
}

impl Settings {
    /// The settings of `flags`, with the environment and configs for what they leave open.
    pub fn new(flags: Flags) -> Settings {
        let cache = Arc::new(OnDemand::new());
        let iree = Arc::new(Session::new(flags.iree, cache.clone()));
        Settings { cache, iree }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("iree", &self.iree)
            .finish_non_exhaustive()
    }
}
