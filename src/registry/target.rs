//! The registry's one record of a target, whoever defines it (the default registry or a spec
//! library), and the target strings that name one (`MI300X:sramecc+:xnack-`).

use std::path::{Path, PathBuf};

use super::embedded::{EmbeddedSpec, EmbeddedTarget};
use super::Error;
use crate::manifest::{self, ResolvedTarget};

/// A target of the registry: from the default registry or added by a spec library. Lookups
/// ([`super::Registry::find`], [`super::Registry::chain`]) and resolutions return this record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The target's name.
    pub name: String,
    /// One line for `tunespec targets`.
    pub description: String,
    /// `sku`, `arch`, `family`, `vendor` or `generic` ([`manifest::KINDS`]).
    pub kind: Option<String>,
    /// Lowercase.
    pub aliases: Vec<String>,
    /// The next more general target.
    pub fallback: Option<String>,
    /// Feature names the target itself declares (its fallbacks may declare more).
    pub features: Vec<String>,
    /// The IREE backend the target itself names (`rocm`, `cuda`, `llvm-cpu`, ...); see
    /// [`super::Registry::backend`] for the one a chain names.
    pub backend: Option<String>,
    /// The spec library that defines it; `None` for the default registry.
    pub library: Option<PathBuf>,
    embedded: Option<&'static EmbeddedTarget>,
}

impl Target {
    pub(super) fn from_embedded(target: &'static EmbeddedTarget) -> Target {
        let strings = |items: &[&str]| items.iter().map(|item| item.to_string()).collect();
        Target {
            name: target.name.to_string(),
            description: target.description.to_string(),
            kind: target.kind.map(str::to_string),
            aliases: strings(target.aliases),
            fallback: target.fallback.map(str::to_string),
            features: strings(target.features),
            backend: target.backend.map(str::to_string),
            library: None,
            embedded: Some(target),
        }
    }

    pub(super) fn from_library(target: &ResolvedTarget, library: &Path) -> Target {
        Target {
            name: target.name.clone(),
            description: target.description.clone(),
            kind: target.kind.clone(),
            aliases: target.aliases.clone(),
            fallback: target.fallback.clone(),
            features: target.features.clone(),
            backend: target.backend.clone(),
            library: Some(library.to_path_buf()),
            embedded: None,
        }
    }

    /// The target as a manifest's `[targets.NAME]` table would define it (without specs).
    pub fn definition(&self) -> crate::manifest::Definition {
        crate::manifest::Definition {
            name: self.name.clone(),
            description: self.description.clone(),
            kind: self.kind.clone(),
            aliases: self.aliases.clone(),
            fallback: self.fallback.clone(),
            features: self.features.clone(),
            backend: self.backend.clone(),
            specs: Vec::new(),
        }
    }

    /// The build's entry, for targets of the default registry.
    pub fn embedded(&self) -> Option<&'static EmbeddedTarget> {
        self.embedded
    }

    /// The target's own default specs (not its fallbacks'), in priority order; none for targets
    /// of spec libraries.
    pub fn default_specs(&self) -> impl Iterator<Item = &'static EmbeddedSpec> {
        self.embedded.into_iter().flat_map(|target| {
            target
                .specs
                .iter()
                .map(|&index| &super::embedded::specs()[index])
        })
    }

    /// `default`, or the spec library that defines the target.
    pub fn defined_by(&self) -> String {
        match &self.library {
            Some(dir) => dir.display().to_string(),
            None => "default".to_string(),
        }
    }

    /// Whether `name` (lowercase) is this target's name or one of its aliases.
    pub(super) fn is_named(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|alias| alias == name)
    }
}

/// A target string, parsed: `gfx942:sramecc+:xnack-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetId {
    /// Lowercase name or alias.
    pub name: String,
    /// `(feature, enabled)`, sorted by feature name.
    pub features: Vec<(String, bool)>,
}

impl TargetId {
    /// Parses a target string; names are case-insensitive, features are `name+` / `name-`.
    pub fn parse(text: &str) -> Result<TargetId, Error> {
        let mut parts = text.trim().split(':');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        if name.is_empty() {
            return Err(Error::BadTarget(format!(
                "empty target name in '{}'",
                text.trim()
            )));
        }
        let mut features: Vec<(String, bool)> = Vec::new();
        for part in parts {
            let (feature, enabled) = manifest::parse_feature(part).map_err(|reason| {
                Error::BadTarget(format!("target '{}': {reason}", text.trim()))
            })?;
            match features.iter().find(|(known, _)| *known == feature) {
                Some((_, known)) if *known != enabled => {
                    return Err(Error::BadTarget(format!(
                        "target '{}' sets feature '{feature}' both on and off",
                        text.trim()
                    )))
                }
                Some(_) => {}
                None => features.push((feature, enabled)),
            }
        }
        features.sort();
        Ok(TargetId { name, features })
    }
}

/// The lowercase name part of a target string (`MI300X:xnack+` -> `mi300x`).
pub(super) fn base_name(text: &str) -> String {
    text.split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The known names at the smallest edit distance (at most 3) from `wanted`, up to three, sorted.
pub(super) fn nearest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let scored: Vec<(usize, &str)> = known
        .map(|name| (crate::verify::edit_distance(wanted, name), name))
        .filter(|(distance, _)| *distance <= 3)
        .collect();
    let Some(best) = scored.iter().map(|(distance, _)| *distance).min() else {
        return Vec::new();
    };
    let mut names: Vec<&str> = scored
        .into_iter()
        .filter(|(distance, _)| *distance == best)
        .map(|(_, name)| name)
        .collect();
    names.sort_unstable();
    names.dedup();
    names.truncate(3);
    names
}
