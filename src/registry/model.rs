//! The registry model: every target (the defaults and those of spec libraries) and the layers of
//! user specs over them, with the one lookup API (by name or alias, fallback chains, "did you
//! mean") that the CLI, the export, the cache key and resolution all use.

use std::collections::BTreeSet;

use super::embedded;
use super::sources::Layer;
use super::target::{base_name, nearest, Target};
use super::Error;
use crate::config::Discovery;
use crate::manifest::ExternalTarget;

/// The registry: targets by name and alias, and the user spec libraries layered over the
/// default specs. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Registry {
    /// Sorted by name.
    pub(super) targets: Vec<Target>,
    /// Highest precedence first.
    pub(super) layers: Vec<Layer>,
    /// Whether default specs whose matchers are all derived by rule are linked (off: measured
    /// first; see [`Registry::with_derived`]).
    pub(super) derived: bool,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::embedded()
    }
}

impl Registry {
    /// The default registry, embedded at build time; no user configuration.
    pub fn embedded() -> Registry {
        Registry {
            targets: embedded::targets()
                .iter()
                .map(Target::from_embedded)
                .collect(),
            layers: Vec::new(),
            derived: false,
        }
    }

    /// The same registry, linking derived defaults or not. Measured first: tunespec's default
    /// specs are derived by rule, never measured, and a derived config slower than IREE's own
    /// heuristic would make a model slower without a word, so resolution withholds a default
    /// spec whose matchers are all derived unless this is on (`--derived`, `derived = true` in a
    /// config, `TUNESPEC_DERIVED=1`). User specs and measured entries are always linked.
    pub fn with_derived(mut self, derived: bool) -> Registry {
        self.derived = derived;
        self
    }

    /// Whether derived defaults are linked (see [`Registry::with_derived`]).
    pub fn derived(&self) -> bool {
        self.derived
    }

    /// The default registry with the user's spec libraries: the project config, the user config
    /// and `TUNESPEC_SPEC_PATH`, found from the current directory and `env`
    /// ([`crate::config::Environment::process`] for the process's).
    pub fn discover(env: &crate::config::Environment) -> Result<Registry, Error> {
        Registry::embedded().with_discovery(&Discovery::from_env(env))
    }

    /// All targets (defaults and those of spec libraries), sorted by name.
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// A target by name or alias, case-insensitively (features are ignored).
    pub fn find(&self, name: &str) -> Option<&Target> {
        self.lookup(name).map(|(target, _)| target)
    }

    /// The target and, when `name` is an alias, the alias (lowercase).
    pub(super) fn lookup(&self, name: &str) -> Option<(&Target, Option<String>)> {
        let wanted = base_name(name);
        let target = self
            .targets
            .iter()
            .find(|target| target.is_named(&wanted))?;
        let alias = (target.name != wanted).then_some(wanted);
        Some((target, alias))
    }

    /// The known names (targets and aliases) nearest to `name`, for "did you mean".
    pub fn nearest(&self, name: &str) -> Vec<String> {
        let known = self
            .targets
            .iter()
            .flat_map(|target| std::iter::once(&target.name).chain(&target.aliases))
            .map(String::as_str);
        nearest(&base_name(name), known)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The error for a name no target or alias has: it names the nearest known ones.
    pub fn unknown(&self, name: &str) -> Error {
        Error::UnknownTarget {
            name: name.trim().to_string(),
            suggestions: self.nearest(name),
        }
    }

    /// The IREE backend of `name`: the first one its target or a fallback names (`None` when
    /// none does).
    pub fn backend(&self, name: &str) -> Result<Option<String>, Error> {
        Ok(self
            .chain(name)?
            .iter()
            .find_map(|target| target.backend.clone()))
    }

    /// `name`'s target and its fallbacks, most specific first (features are ignored).
    pub fn chain(&self, name: &str) -> Result<Vec<&Target>, Error> {
        let Some((mut target, _)) = self.lookup(name) else {
            return Err(self.unknown(name));
        };
        let mut chain = vec![target];
        while let Some((next, _)) = target.fallback.as_deref().and_then(|fb| self.lookup(fb)) {
            if chain.iter().any(|seen| seen.name == next.name) {
                break;
            }
            chain.push(next);
            target = next;
        }
        Ok(chain)
    }

    /// The definitions a written library needs to use `name` alone: those of the targets along
    /// its chain that a spec library defines (the default registry's are known everywhere),
    /// most specific first; none for an unknown name.
    pub fn library_definitions(&self, name: &str) -> Vec<crate::manifest::Definition> {
        self.chain(name)
            .unwrap_or_default()
            .into_iter()
            .filter(|target| target.library.is_some())
            .map(Target::definition)
            .collect()
    }

    /// The feature names declared along `name`'s chain.
    pub fn chain_features(&self, name: &str) -> BTreeSet<String> {
        self.chain(name)
            .map(|chain| {
                chain
                    .iter()
                    .flat_map(|target| target.features.iter().cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The targets as a spec library's manifest sees them: ones it may fall back to or extend,
    /// with the features of their chains.
    pub fn external_targets(&self) -> Vec<ExternalTarget> {
        self.targets
            .iter()
            .map(|target| ExternalTarget {
                name: target.name.clone(),
                aliases: target.aliases.clone(),
                kind: target.kind.clone(),
                features: self.chain_features(&target.name).into_iter().collect(),
            })
            .collect()
    }
}
