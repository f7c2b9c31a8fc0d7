//! The environment as tunespec reads it: one snapshot, taken once.
//!
//! Why a value rather than `std::env::var` where a setting is needed: a program that embeds
//! the library cannot safely change its own process environment (`std::env::set_var` is
//! `unsafe` wherever another thread may read it), yet it must be able to say which IREE, which
//! cache and which limits to use. It builds an [`Environment`] of its own
//! ([`Environment::from_vars`]) and hands it to [`crate::settings::Settings::with_environment`]; the CLI
//! takes the process's ([`Environment::process`]) at start. Every setting below the command
//! line is read from the [`Environment`] a [`crate::settings::Settings`] holds, so two settings in one
//! process never see each other's variables, and a setting read twice in one run reads the
//! same value. This is the only module that reads the process environment
//! (`tests/all/one_home.rs`).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Environment variables, read once.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<OsString, OsString>,
    /// This user's home from the system (the password database), for an unset or empty
    /// `HOME`: as a cron job, a service or `env -i` gives none.
    home_fallback: Option<OsString>,
}

impl Environment {
    /// The process's environment, as it is now.
    pub fn process() -> Environment {
        let vars: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        let home_set = vars
            .get(OsStr::new("HOME"))
            .is_some_and(|home| !home.is_empty());
        let home_fallback = if home_set {
            None
        } else {
            etcetera::home_dir()
                .ok()
                .filter(|home| home.is_absolute())
                .map(PathBuf::into_os_string)
        };
        Environment {
            vars,
            home_fallback,
        }
    }

    /// An environment of exactly `vars` (a program's own settings, a test's), without the
    /// process's: `HOME` is what `vars` says, with no fallback.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Environment
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        Environment {
            vars: vars
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
            home_fallback: None,
        }
    }

    /// This environment with `name` set to `value`.
    pub fn with(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Environment {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// This environment without `name`.
    pub fn without(mut self, name: &str) -> Environment {
        self.vars.remove(OsStr::new(name));
        self
    }

    /// The value of `name`; an unset or empty `HOME` is the system's home for this user when
    /// the environment is the process's.
    pub fn get(&self, name: &str) -> Option<OsString> {
        let value = self.vars.get(OsStr::new(name));
        if name == "HOME" && value.is_none_or(|home| home.is_empty()) {
            if let Some(home) = &self.home_fallback {
                return Some(home.clone());
            }
        }
        value.cloned()
    }

    /// [`Environment::get`], as text; a value that is not UTF-8 is absent.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name).and_then(|value| value.into_string().ok())
    }

    /// Whether `name` is set to something other than the empty string.
    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some_and(|value| !value.is_empty())
    }

    /// Whether `name` is exactly `1` (the form of tunespec's switches).
    pub fn is_on(&self, name: &str) -> bool {
        self.get(name).is_some_and(|value| value == "1")
    }

    /// The variables whose names start with `prefix` (an engine's own: `AWS_`), as text,
    /// sorted by name; a name or value that is not UTF-8 is left out.
    pub fn prefixed(&self, prefix: &str) -> Vec<(String, String)> {
        self.vars
            .iter()
            .filter_map(|(name, value)| Some((name.to_str()?, value.to_str()?)))
            .filter(|(name, _)| name.starts_with(prefix))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    /// A lookup function over this environment, for the readers that take one
    /// (`Fn(&str) -> Option<OsString>`: the configs' discovery, the cache's settings).
    pub fn lookup(&self) -> impl Fn(&str) -> Option<OsString> + '_ {
        move |name| self.get(name)
    }
}

/// Names only: values may be credentials.
impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("names", &self.vars.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_environment_holds_exactly_its_variables() {
        let env = Environment::from_vars([("TUNESPEC_CACHE", "off"), ("EMPTY", "")]);
        assert_eq!(env.text("TUNESPEC_CACHE").as_deref(), Some("off"));
        assert!(env.get("PATH").is_none());
        assert!(
            env.get("HOME").is_none(),
            "no fallback outside the process's"
        );
        assert!(!env.is_set("EMPTY") && env.get("EMPTY").is_some());
        let env = env.with("TUNESPEC_NO_IREE", "1").without("TUNESPEC_CACHE");
        assert!(env.is_on("TUNESPEC_NO_IREE"));
        assert!(env.get("TUNESPEC_CACHE").is_none());
    }

    #[test]
    fn the_debug_form_shows_no_value() {
        let env = Environment::from_vars([("AWS_SECRET_ACCESS_KEY", "hunter2")]);
        assert!(!format!("{env:?}").contains("hunter2"));
    }
}
