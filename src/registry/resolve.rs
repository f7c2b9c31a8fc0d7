//! Resolution: a target string and the registry's layers to the chain and the ordered specs of
//! one compile, each spec with its origin and the reason it is included (or skipped).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};

use serde_json::json;

use super::embedded::EmbeddedSpec;
use super::model::Registry;
use super::sources::{Layer, Origin, Source};
use super::target::{Target, TargetId};
use super::Error;
use crate::link::{Layer as LinkLayer, LinkInput, Role};
use crate::manifest::{self, SpecFile};
use crate::problem::io_message;

/// One spec of a resolution, in priority order.
#[derive(Clone, Debug)]
pub struct ResolvedSpec {
    /// The file name used in reports and diagnostics (the path, or `specs/...` for defaults).
    pub name: String,
    /// The file name its locations carry in a library that is written out: the path relative to
    /// the spec's root (the directory it was found in when a directory was given, the spec
    /// library, the config's directory for a config's `[targets.KEY]` files), a file given
    /// alone by its own name, `specs/...` for defaults; made unique among the resolution's specs
    /// by more leading directories. Never absolute, so that the same specs link to the same
    /// bytes in any checkout (issue 16, F14).
    pub location: String,
    /// Source text or bytecode (defaults are the embedded bytecode).
    pub bytes: Cow<'static, [u8]>,
    /// Where it came from.
    pub origin: Origin,
    /// The chain target or alias it was included for; `None`: it applies to every target.
    pub target: Option<String>,
    /// Request features it needed (`xnack+`).
    pub features: Vec<String>,
    /// Why it is included, in words.
    pub reason: String,
    /// The embedded spec, for defaults.
    pub embedded: Option<&'static EmbeddedSpec>,
    /// Its layer: user spec, spec library, IREE default (a library `import-iree` wrote),
    /// tunespec default.
    pub layer: LinkLayer,
}

impl ResolvedSpec {
    /// Where its configs come from: the build's counts for a default, a lexical scan of the
    /// text for a user's file (`resolve` parses nothing; bytecode files say nothing here).
    pub fn provenance(&self) -> crate::provenance::SpecProvenance {
        match self.embedded {
            Some(embedded) => crate::provenance::SpecProvenance::of_default(
                (
                    embedded.matcher_count,
                    embedded.derived_matchers,
                    embedded.measured_matchers,
                ),
                embedded.measured_records,
                embedded.derived_rules,
            ),
            None => crate::provenance::scan(&self.bytes),
        }
    }

    /// BLAKE3 of the bytes, hex.
    pub fn hash(&self) -> String {
        match self.embedded {
            Some(spec) => spec.bytecode_hash.to_string(),
            None => blake3::hash(&self.bytes).to_hex().to_string(),
        }
    }

    /// Matcher count, known without parsing for the defaults only.
    pub fn matchers(&self) -> Option<usize> {
        self.embedded.map(|spec| spec.matcher_count)
    }

    /// The input for [`crate::link::link`], its locations named by [`ResolvedSpec::location`].
    pub fn link_input(&self) -> LinkInput {
        LinkInput {
            name: self.name.clone(),
            location: self.location.clone(),
            bytes: self.bytes.to_vec(),
            role: match (&self.origin, &self.target, self.layer) {
                (Origin::Default, Some(target), _) => Role::Default {
                    target: target.clone(),
                },
                (_, _, LinkLayer::Library) => Role::Library,
                (_, _, LinkLayer::IreeDefault) => Role::IreeDefault,
                _ => Role::User,
            },
        }
    }
}

/// A spec that was considered and left out, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedSpec {
    /// The file name (as in [`ResolvedSpec::name`]).
    pub name: String,
    /// Where it came from.
    pub origin: Origin,
    /// The chain target or alias it was considered for.
    pub target: Option<String>,
    /// Why it was considered and why it was left out.
    pub reason: String,
    /// The spec library (its directory, as displayed) when the spec was left out because that
    /// library is for other targets only: commands that link name it in a warning, since such
    /// a library configures nothing for this target. Carried here so that no one has to read
    /// it back out of `reason`.
    pub other_target_library: Option<String>,
}

/// What a target string resolves to: the chain and the ordered specs for a compile.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The target string as given.
    pub requested: String,
    /// The canonical name of the most specific target.
    pub target: String,
    /// The alias (SKU name) it was requested by, lowercase.
    pub alias: Option<String>,
    /// Requested features, canonical (`xnack+`), sorted by name.
    pub features: Vec<String>,
    /// The target and its fallbacks, most specific first.
    pub chain: Vec<Target>,
    /// Highest priority first.
    pub specs: Vec<ResolvedSpec>,
    /// Specs considered and left out, with why.
    pub skipped: Vec<SkippedSpec>,
    /// Whether derived defaults were asked for ([`Registry::with_derived`]).
    pub derived: bool,
    /// The default specs withheld because their matchers are all derived by rule (also in
    /// `skipped`), in the order they would have been linked: `explain` matches them too, to say
    /// where a derived config would have applied had it been asked for.
    pub withheld: Vec<ResolvedSpec>,
}

impl Resolution {
    /// `gfx942:sramecc+:xnack-`: the canonical target with its features.
    pub fn target_id(&self) -> String {
        std::iter::once(self.target.clone())
            .chain(self.features.iter().cloned())
            .collect::<Vec<_>>()
            .join(":")
    }

    /// The chain's target names, most specific first.
    pub fn chain_names(&self) -> Vec<&str> {
        self.chain.iter().map(|link| link.name.as_str()).collect()
    }

    /// A key for caches: BLAKE3 over the target ID, the alias and every spec's name, location
    /// and hash, in order. Equal keys mean equal link inputs.
    pub fn fingerprint(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"tunespec-resolution-1\n");
        hasher.update(self.target_id().as_bytes());
        hasher.update(b"\n");
        hasher.update(self.alias.as_deref().unwrap_or_default().as_bytes());
        for spec in &self.specs {
            hasher.update(b"\n");
            hasher.update(spec.name.as_bytes());
            // The library's locations name the spec by `location`; only hashed when it differs
            // from the name, so that fingerprints of plain resolutions stay what they were.
            if spec.location != spec.name {
                hasher.update(b"\x01");
                hasher.update(spec.location.as_bytes());
            }
            hasher.update(b"\0");
            hasher.update(spec.hash().as_bytes());
        }
        hasher.finalize().to_hex().to_string()
    }

    /// The specs as link inputs, highest priority first.
    pub fn link_inputs(&self) -> Vec<LinkInput> {
        self.specs.iter().map(ResolvedSpec::link_input).collect()
    }

    /// The JSON form printed by `tunespec resolve --format json` (schema version 1).
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "version": 1,
            "requested": self.requested,
            "target": self.target,
            "alias": self.alias,
            "features": self.features,
            "target_id": self.target_id(),
            "derived": self.derived,
            "chain": self.chain.iter().map(|link| json!({
                "name": link.name,
                "kind": link.kind,
                "description": link.description,
                "defined_by": link.defined_by(),
            })).collect::<Vec<_>>(),
            "specs": self.specs.iter().enumerate().map(|(index, spec)| json!({
                "position": index + 1,
                "name": spec.name,
                "origin": spec.origin.label(),
                "config": spec.origin.config().map(|path| path.display().to_string()),
                "for": spec.target,
                "features": spec.features,
                "reason": spec.reason,
                "bytes": spec.bytes.len(),
                "hash": spec.hash(),
                "matchers": spec.matchers(),
                "provenance": spec.provenance().to_json(),
            })).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|spec| json!({
                "name": spec.name,
                "origin": spec.origin.label(),
                "config": spec.origin.config().map(|path| path.display().to_string()),
                "for": spec.target,
                "reason": spec.reason,
            })).collect::<Vec<_>>(),
            "fingerprint": self.fingerprint(),
        })
    }
}

/// The chain keys a request collects specs for: the alias requested (a SKU name), the target and
/// each fallback, with how each relates to the request (for the reasons).
struct Keys<'a> {
    head: &'a str,
    alias: Option<&'a str>,
    keys: Vec<String>,
}

impl Keys<'_> {
    fn relation(&self, key: &str) -> String {
        if self.alias == Some(key) {
            format!("the alias {key}")
        } else if key == self.head {
            format!("the target {key}")
        } else {
            format!("{key}, a fallback of {}", self.head)
        }
    }
}

impl Registry {
    /// Resolves `target` (name or alias, case-insensitive, optional `:feature+` suffixes) with
    /// `user_specs` (files, directories or spec libraries) as command-line specs.
    pub fn resolve(&self, target: &str, user_specs: &[PathBuf]) -> Result<Resolution, Error> {
        if user_specs.is_empty() {
            self.resolve_target(target)
        } else {
            self.with_command_line(user_specs)?.resolve_target(target)
        }
    }

    fn resolve_target(&self, requested: &str) -> Result<Resolution, Error> {
        let id = TargetId::parse(requested)?;
        let Some((head, alias)) = self.lookup(&id.name) else {
            return Err(self.unknown(requested));
        };
        let chain = self.chain(&head.name)?;
        check_features(head, &chain, &id)?;
        let keys = Keys {
            head: &head.name,
            alias: alias.as_deref(),
            keys: alias
                .iter()
                .cloned()
                .chain(chain.iter().map(|target| target.name.clone()))
                .collect(),
        };
        let mut builder = Builder::new(&id.features);
        builder.derived = self.derived;
        for layer in &self.layers {
            for (source, key) in layer_steps(layer, &keys.keys) {
                builder.source(source, key, &layer.origin, &keys)?;
            }
            for source in &layer.sources {
                builder.other_targets(source, &layer.origin, &keys);
            }
        }
        for target in &chain {
            let Some(embedded) = target.embedded() else {
                continue;
            };
            for (position, spec) in embedded.specs().enumerate() {
                let reason = format!("default spec of {}", keys.relation(&target.name));
                let features = embedded.spec_features(position);
                builder.embedded(spec, &target.name, &features, reason);
            }
        }
        Ok(Resolution {
            requested: requested.trim().to_string(),
            target: head.name.clone(),
            alias,
            features: id
                .features
                .iter()
                .map(|(name, enabled)| manifest::format_feature(name, *enabled))
                .collect(),
            chain: chain.into_iter().cloned().collect(),
            skipped: std::mem::take(&mut builder.skipped),
            derived: self.derived,
            withheld: std::mem::take(&mut builder.withheld),
            specs: builder.finish(),
        })
    }

    /// The command-line specs alone, for linking without a target (`link --no-default`).
    pub fn command_line_specs(specs: &[PathBuf]) -> Result<Vec<ResolvedSpec>, Error> {
        let registry = Registry {
            targets: Vec::new(),
            layers: Vec::new(),
            derived: false,
        }
        .with_command_line(specs)?;
        let mut builder = Builder::new(&[]);
        for source in registry.layers.iter().flat_map(|layer| &layer.sources) {
            match source {
                Source::Files { files, root, why } => {
                    for file in files {
                        let location = location_under(file, root.as_deref());
                        builder.file(
                            file,
                            location,
                            &Origin::CommandLine,
                            None,
                            &[],
                            why.clone(),
                        )?;
                    }
                }
                Source::Library { dir, .. } => {
                    return Err(Error::Io(format!(
                        "{} is a spec library (it has a registry.toml); give --target to use it",
                        dir.display()
                    )))
                }
                Source::ForTarget { .. } => {}
            }
        }
        Ok(builder.finish())
    }
}

/// Every requested feature must be declared along the chain.
fn check_features(head: &Target, chain: &[&Target], id: &TargetId) -> Result<(), Error> {
    let declared: BTreeSet<String> = chain
        .iter()
        .flat_map(|target| target.features.iter().cloned())
        .collect();
    for (feature, _) in &id.features {
        if !declared.contains(feature) {
            return Err(Error::BadTarget(if declared.is_empty() {
                format!("target '{}' takes no features (got '{feature}')", head.name)
            } else {
                format!(
                    "target '{}' has no feature '{feature}' (it knows {})",
                    head.name,
                    declared.iter().cloned().collect::<Vec<_>>().join(", ")
                )
            }));
        }
    }
    Ok(())
}

/// The order in which a layer's sources are visited, each with the chain key it is visited for.
/// The command line keeps its order (a spec library there expands in place). A config level goes
/// most specific first: for each key of the chain, its per-target files, then its spec
/// libraries' specs; then the directories that apply to every target.
fn layer_steps<'a>(layer: &'a Layer, keys: &'a [String]) -> Vec<(&'a Source, Option<&'a String>)> {
    let mut steps: Vec<(&Source, Option<&String>)> = Vec::new();
    if layer.origin == Origin::CommandLine {
        for source in &layer.sources {
            match source {
                Source::Library { .. } => steps.extend(keys.iter().map(|key| (source, Some(key)))),
                _ => steps.push((source, None)),
            }
        }
        return steps;
    }
    for key in keys {
        let per_target = layer
            .sources
            .iter()
            .filter(|source| matches!(source, Source::ForTarget { .. }));
        let libraries = layer
            .sources
            .iter()
            .filter(|source| matches!(source, Source::Library { .. }));
        steps.extend(
            per_target
                .chain(libraries)
                .map(|source| (source, Some(key))),
        );
    }
    steps.extend(
        layer
            .sources
            .iter()
            .filter(|source| matches!(source, Source::Files { .. }))
            .map(|source| (source, None)),
    );
    steps
}

/// Collects resolved specs in order, dropping repeats and specs whose features do not hold.
struct Builder<'a> {
    request: &'a [(String, bool)],
    specs: Vec<ResolvedSpec>,
    skipped: Vec<SkippedSpec>,
    /// Identity (canonical path or embedded path) of each included spec, by position.
    seen: Vec<String>,
    /// Whether derived-only defaults are included.
    derived: bool,
    /// Derived-only defaults left out.
    withheld: Vec<ResolvedSpec>,
}

impl<'a> Builder<'a> {
    fn new(request: &'a [(String, bool)]) -> Builder<'a> {
        Builder {
            request,
            specs: Vec::new(),
            skipped: Vec::new(),
            seen: Vec::new(),
            derived: false,
            withheld: Vec::new(),
        }
    }

    /// The specs of one source visited for `key` (see [`layer_steps`]).
    fn source(
        &mut self,
        source: &Source,
        key: Option<&String>,
        origin: &Origin,
        keys: &Keys,
    ) -> Result<(), Error> {
        match (source, key) {
            (Source::Files { files, root, why }, _) => {
                for file in files {
                    let location = location_under(file, root.as_deref());
                    self.file(file, location, origin, None, &[], why.clone())?;
                }
            }
            (
                Source::ForTarget {
                    key: own,
                    files,
                    config,
                },
                Some(key),
            ) if own == key => {
                for (file, features) in files {
                    let why = format!(
                        "listed under [targets.{key}] in {}, for {}",
                        config.display(),
                        keys.relation(key)
                    );
                    let location = location_under(file, config.parent());
                    self.file(file, location, origin, Some(key), features, why)?;
                }
            }
            (Source::Library { dir, manifest, why }, Some(key)) => {
                let own = manifest
                    .targets
                    .iter()
                    .filter(|target| &target.name == key)
                    .map(|target| (format!("[targets.{key}]"), &target.specs));
                let extended = manifest
                    .extensions
                    .iter()
                    .filter(|extension| &extension.target == key)
                    .map(|extension| (format!("[extend.{key}]"), &extension.specs));
                // A library `tunespec import-iree` wrote holds IREE's own defaults.
                let layer = if manifest.written_by.as_deref() == Some(crate::iree::import::TOOL) {
                    LinkLayer::IreeDefault
                } else {
                    LinkLayer::Library
                };
                for (table, specs) in own.chain(extended) {
                    for SpecFile { path, features } in specs {
                        let reason = format!(
                            "{table} of the spec library {} ({why}), for {}",
                            dir.display(),
                            keys.relation(key)
                        );
                        // Relative to the library's directory already, `/`-separated.
                        let location = path.clone();
                        let before = self.specs.len();
                        self.file(
                            &dir.join(path),
                            location,
                            origin,
                            Some(key),
                            features,
                            reason,
                        )?;
                        if self.specs.len() > before {
                            if let Some(spec) = self.specs.last_mut() {
                                spec.layer = layer;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A spec library given on the command line that has specs only for targets outside the
    /// request's chain: each of its specs is listed as skipped, with the targets it is for.
    /// Why: a library measured for sm_90 given to a gfx942 link configures nothing, and that
    /// must not pass in silence. (Libraries of configs serve whichever targets they list; a
    /// request for another target is their normal case.)
    fn other_targets(&mut self, source: &Source, origin: &Origin, keys: &Keys) {
        let Source::Library { dir, manifest, .. } = source else {
            return;
        };
        if *origin != Origin::CommandLine {
            return;
        }
        let tables = manifest
            .targets
            .iter()
            .map(|target| {
                (
                    format!("[targets.{}]", target.name),
                    &target.name,
                    &target.specs,
                )
            })
            .chain(manifest.extensions.iter().map(|extension| {
                (
                    format!("[extend.{}]", extension.target),
                    &extension.target,
                    &extension.specs,
                )
            }));
        let tables: Vec<_> = tables.collect();
        if tables
            .iter()
            .any(|(_, target, _)| keys.keys.contains(*target))
        {
            return;
        }
        for (table, target, specs) in tables {
            for SpecFile { path, .. } in specs {
                self.skipped.push(SkippedSpec {
                    name: dir.join(path).display().to_string(),
                    origin: origin.clone(),
                    target: Some(target.clone()),
                    reason: format!(
                        "{table} of the spec library {}; skipped: the library has no spec for {} ({})",
                        dir.display(),
                        keys.head,
                        keys.keys.join(" > ")
                    ),
                    other_target_library: Some(dir.display().to_string()),
                });
            }
        }
    }

    /// `None` when the request has every feature in `required`; else why not.
    fn unmet(&self, required: &[String]) -> Option<String> {
        for feature in required {
            let Ok((name, enabled)) = manifest::parse_feature(feature) else {
                continue;
            };
            match self.request.iter().find(|(known, _)| *known == name) {
                Some((_, set)) if *set == enabled => {}
                Some((_, set)) => {
                    return Some(format!(
                        "needs {feature}; the request has {}",
                        manifest::format_feature(&name, *set)
                    ))
                }
                None => return Some(format!("needs {feature}; the request does not set {name}")),
            }
        }
        None
    }

    /// Records a skip and returns `true` when the spec does not belong in the resolution.
    fn skip(
        &mut self,
        identity: &str,
        name: &str,
        origin: &Origin,
        target: Option<&String>,
        features: &[String],
        reason: &str,
    ) -> bool {
        let why = self.unmet(features).or_else(|| {
            self.seen
                .iter()
                .position(|known| known == identity)
                .map(|index| format!("already included at position {}", index + 1))
        });
        let Some(why) = why else {
            return false;
        };
        self.skipped.push(SkippedSpec {
            name: name.to_string(),
            origin: origin.clone(),
            target: target.cloned(),
            reason: format!("{reason}; skipped: {why}"),
            other_target_library: None,
        });
        true
    }

    fn file(
        &mut self,
        path: &Path,
        location: String,
        origin: &Origin,
        target: Option<&String>,
        features: &[String],
        reason: String,
    ) -> Result<(), Error> {
        let stdin = *origin == Origin::CommandLine && path.as_os_str() == "-";
        let (name, identity) = if stdin {
            let name = crate::files::STDIN_NAME.to_string();
            (name.clone(), name)
        } else {
            let identity = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            (path.display().to_string(), identity.display().to_string())
        };
        if self.skip(&identity, &name, origin, target, features, &reason) {
            return Ok(());
        }
        let read = if stdin {
            crate::files::read_stdin("`--spec -`").map(|bytes| bytes.to_vec())
        } else {
            crate::files::read_input(path)
        };
        let bytes =
            read.map_err(|error| Error::Io(format!("cannot read {name}: {}", io_message(&error))))?;
        let location = if stdin { name.clone() } else { location };
        self.seen.push(identity);
        self.specs.push(ResolvedSpec {
            name,
            location,
            bytes: Cow::Owned(bytes),
            origin: origin.clone(),
            target: target.cloned(),
            features: features.to_vec(),
            reason: with_features(reason, features),
            embedded: None,
            layer: LinkLayer::User,
        });
        Ok(())
    }

    fn embedded(
        &mut self,
        spec: &'static EmbeddedSpec,
        target: &str,
        features: &[String],
        reason: String,
    ) {
        let target = target.to_string();
        let identity = format!("embedded:{}", spec.path);
        if self.skip(
            &identity,
            spec.path,
            &Origin::Default,
            Some(&target),
            features,
            &reason,
        ) {
            return;
        }
        let resolved = ResolvedSpec {
            name: spec.path.to_string(),
            location: spec.path.to_string(),
            bytes: Cow::Borrowed(spec.bytecode()),
            origin: Origin::Default,
            target: Some(target.clone()),
            features: features.to_vec(),
            reason: with_features(reason.clone(), features),
            embedded: Some(spec),
            layer: LinkLayer::TunespecDefault,
        };
        if !self.derived && spec.derived_only() {
            // Measured first: withheld, but kept for `explain`'s note and said in `skipped`.
            if !self
                .withheld
                .iter()
                .any(|known| known.name == resolved.name)
            {
                self.skipped.push(SkippedSpec {
                    name: spec.path.to_string(),
                    origin: Origin::Default,
                    target: Some(target),
                    reason: format!(
                        "{reason}; skipped: {}",
                        withheld_reason(spec.derived_matchers)
                    ),
                    other_target_library: None,
                });
                self.withheld.push(resolved);
            }
            return;
        }
        self.seen.push(identity);
        self.specs.push(resolved);
    }
}

impl Builder<'_> {
    /// The specs, their locations made unique: a location an earlier spec already carries gets
    /// leading directories of its file's absolute path until it is free (`a/x.mlir`,
    /// `b/x.mlir` for two `x.mlir` given alone), so each names one file whatever the checkout.
    fn finish(mut self) -> Vec<ResolvedSpec> {
        let mut taken: HashSet<String> = HashSet::new();
        for spec in &mut self.specs {
            if taken.contains(&spec.location) {
                spec.location = free_location(spec, &taken);
            }
            taken.insert(spec.location.clone());
        }
        self.specs
    }
}

/// A location for `spec` that `taken` does not hold (see [`Builder::finish`]).
fn free_location(spec: &ResolvedSpec, taken: &HashSet<String>) -> String {
    let absolute = std::path::absolute(&spec.name).unwrap_or_else(|_| PathBuf::from(&spec.name));
    let parts: Vec<String> = absolute
        .components()
        .filter_map(|component| match component {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let shortest = spec.location.split('/').count().min(parts.len());
    (shortest + 1..=parts.len())
        .map(|count| parts[parts.len() - count..].join("/"))
        .chain((2..).map(|k| format!("{}#{k}", spec.location)))
        .find(|candidate| !taken.contains(candidate))
        .expect("an unused location exists")
}

/// `path` relative to `root` (`/`-separated) when it lies under it, else its file name.
pub(super) fn location_under(path: &Path, root: Option<&Path>) -> String {
    let relative = root
        .and_then(|root| path.strip_prefix(root).ok())
        .filter(|relative| !relative.as_os_str().is_empty());
    match relative {
        Some(relative) => relative
            .components()
            .filter(|component| !matches!(component, Component::CurDir))
            .map(|component| component.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        None => path.file_name().map_or_else(
            || path.to_string_lossy().into_owned(),
            |name| name.to_string_lossy().into_owned(),
        ),
    }
}

fn with_features(reason: String, features: &[String]) -> String {
    if features.is_empty() {
        reason
    } else {
        format!("{reason}; the request has {}", features.join(", "))
    }
}

/// Why a derived-only default is withheld, in the words `resolve` prints.
fn withheld_reason(matchers: usize) -> String {
    format!(
        "its {matchers} matcher(s) are derived by rule, not measured; derived defaults are linked only on request (--derived, `derived = true`, TUNESPEC_DERIVED=1)"
    )
}
