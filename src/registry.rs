//! The target registry: the default specs (verified by `build.rs`, embedded as bytecode), user
//! spec libraries, and resolution of a target to the ordered list of specs for a compile.
//!
//! Why embedded: a compiler that links tunespec gets exactly the specs that were verified when it
//! was built, with no files to find at run time and no way for them to be edited afterwards.
//!
//! A target string is a name or alias, case-insensitive, with optional LLVM target-ID features
//! (`MI300X:sramecc+:xnack-`). It resolves to a chain, most specific first (a SKU, its
//! architecture, its family or vendor), and to specs in this order (first match wins):
//!
//! 1. user specs: `--spec` (command line), the project's `tunespec.toml`, the user config,
//!    `TUNESPEC_SPEC_PATH` (see [`crate::config`]);
//! 2. the default specs of the target, then of each target on its fallback chain.
//!
//! ```
//! use tunespec::Registry;
//!
//! // The default specs only; `Registry::discover()` adds the user's configs and TUNESPEC_SPEC_PATH.
//! let registry = Registry::embedded();
//! let resolution = registry.resolve("MI300X:sramecc+:xnack-", &[]).unwrap();
//! assert_eq!(resolution.target, "gfx942");
//! assert_eq!(resolution.alias.as_deref(), Some("mi300x"));
//! assert_eq!(resolution.target_id(), "gfx942:sramecc+:xnack-");
//! assert_eq!(resolution.chain_names(), ["gfx942", "gfx9"]);
//! // Most specific first: the architecture's own specs lead, the family's (CDNA) come last.
//! assert!(resolution.specs[0].name.starts_with("specs/gfx942/"));
//! assert!(resolution.specs.last().unwrap().name.starts_with("specs/gfx9/"));
//!
//! // Link them into one library, as `tunespec link --target mi300x` does.
//! let mlir = tunespec::mlir::Mlir::new();
//! let linked = tunespec::link::link(&mlir, &resolution.link_inputs(), Default::default()).unwrap();
//! let matchers: usize = resolution.specs.iter().filter_map(|spec| spec.matchers()).sum();
//! assert_eq!(linked.pairs.len(), matchers);
//!
//! // An unknown name is an error naming the nearest known ones, never an empty result.
//! let error = registry.resolve("gfx943", &[]).unwrap_err();
//! assert_eq!(error.to_string(), "unknown target 'gfx943' (did you mean gfx942?)");
//! ```

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};
use serde_json::json;

use crate::config::{self, Config, Discovery};
use crate::link::{LinkInput, Role};
use crate::manifest::{self, ExternalTarget, ResolvedManifest, SpecFile};
use crate::problem::{codes, Problem};

/// One default spec, verified at build time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSpec {
    /// Source path, relative to the crate root (`specs/gfx942/llama_f16.mlir`).
    pub path: &'static str,
    /// The bytecode file inside the embedded directory.
    pub bytecode_file: &'static str,
    pub module_name: &'static str,
    /// BLAKE3 of the source text, hex.
    pub source_hash: &'static str,
    /// BLAKE3 of the embedded bytecode, hex.
    pub bytecode_hash: &'static str,
    pub matcher_count: usize,
    pub source_bytes: usize,
    pub bytecode_bytes: usize,
    pub merge_ready: bool,
}

/// One registry target and the indices of its specs in [`SPECS`], in priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedTarget {
    pub name: &'static str,
    pub description: &'static str,
    /// `sku`, `arch`, `family`, `vendor` or `generic` ([`manifest::KINDS`]).
    pub kind: Option<&'static str>,
    pub aliases: &'static [&'static str],
    pub fallback: Option<&'static str>,
    /// Feature names this target declares (`xnack`); its fallbacks may declare more.
    pub features: &'static [&'static str],
    pub specs: &'static [usize],
    /// For each of `specs`: the request features it needs (`xnack+`), empty when none.
    pub spec_features: &'static [&'static [&'static str]],
}

static EMBEDDED: Dir<'static> = include_dir!("$OUT_DIR/embedded");

include!(concat!(env!("OUT_DIR"), "/index.rs"));

impl EmbeddedSpec {
    /// The verified bytecode of this spec.
    pub fn bytecode(&self) -> &'static [u8] {
        EMBEDDED
            .get_file(self.bytecode_file)
            .map(|file| file.contents())
            .unwrap_or_default()
    }
}

impl EmbeddedTarget {
    /// The target's own specs (not its fallbacks'), in priority order.
    pub fn specs(&self) -> impl Iterator<Item = &'static EmbeddedSpec> + '_ {
        self.specs.iter().map(|&index| &SPECS[index])
    }
}

/// All embedded specs, sorted by path.
pub fn specs() -> &'static [EmbeddedSpec] {
    SPECS
}

/// All registry targets, sorted by name.
pub fn targets() -> &'static [EmbeddedTarget] {
    TARGETS
}

/// The manifest text the registry was built from.
pub fn manifest_text() -> &'static str {
    MANIFEST
}

/// Looks an embedded target up by name or alias, case-insensitively (features are ignored).
pub fn find_target(name: &str) -> Option<&'static EmbeddedTarget> {
    let wanted = base_name(name);
    TARGETS
        .iter()
        .find(|target| target.name == wanted || target.aliases.iter().any(|alias| *alias == wanted))
}

/// The embedded names (targets and aliases) closest to `name`, for "did you mean".
pub fn nearest_targets(name: &str) -> Vec<&'static str> {
    let known = TARGETS
        .iter()
        .flat_map(|target| std::iter::once(target.name).chain(target.aliases.iter().copied()));
    nearest(&base_name(name), known)
}

/// An embedded target and its fallback chain, most specific first. Unknown names are an error
/// that names the nearest known ones.
pub fn resolve_chain(name: &str) -> Result<Vec<&'static EmbeddedTarget>, String> {
    let Some(mut target) = find_target(name) else {
        return Err(Error::unknown(name, nearest_targets(name)).to_string());
    };
    let mut chain = vec![target];
    while let Some(next) = target.fallback.and_then(find_target) {
        if chain.iter().any(|seen| seen.name == next.name) {
            break;
        }
        chain.push(next);
        target = next;
    }
    Ok(chain)
}

/// The embedded targets as seen by a spec library's manifest (with the features of their chains).
pub fn external_targets() -> Vec<ExternalTarget> {
    TARGETS
        .iter()
        .map(|target| {
            let mut features = BTreeSet::new();
            if let Ok(chain) = resolve_chain(target.name) {
                for link in chain {
                    features.extend(link.features.iter().map(|name| name.to_string()));
                }
            }
            ExternalTarget {
                name: target.name.to_string(),
                aliases: target
                    .aliases
                    .iter()
                    .map(|alias| alias.to_string())
                    .collect(),
                kind: target.kind.map(str::to_string),
                features: features.into_iter().collect(),
            }
        })
        .collect()
}

/// The lowercase name part of a target string (`MI300X:xnack+` -> `mi300x`).
fn base_name(text: &str) -> String {
    text.split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The known names at the smallest edit distance (at most 3) from `wanted`, up to three, sorted.
fn nearest<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
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

/// Why a registry could not be built or a target not resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No target or alias has this name (a usage error).
    UnknownTarget {
        name: String,
        suggestions: Vec<String>,
    },
    /// A malformed target string or an undeclared feature (a usage error).
    BadTarget(String),
    /// A file or directory named on the command line or in the environment cannot be read.
    Io(String),
    /// Located problems in configs or spec-library manifests.
    Problems(Vec<Problem>),
}

impl Error {
    fn unknown<S: ToString>(name: &str, suggestions: Vec<S>) -> Error {
        Error::UnknownTarget {
            name: name.trim().to_string(),
            suggestions: suggestions.iter().map(ToString::to_string).collect(),
        }
    }

    /// Usage and I/O errors (exit 2); otherwise problems in inputs (exit 1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, Error::Problems(_))
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnknownTarget { name, suggestions } if suggestions.is_empty() => {
                write!(f, "unknown target '{name}'")
            }
            Error::UnknownTarget { name, suggestions } => write!(
                f,
                "unknown target '{name}' (did you mean {}?)",
                suggestions.join(", ")
            ),
            Error::BadTarget(message) | Error::Io(message) => f.write_str(message),
            Error::Problems(problems) => {
                let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\n"))
            }
        }
    }
}

impl std::error::Error for Error {}

/// Where a spec (or a library's target) comes from, in precedence order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// `--spec` on the command line (or the `user_specs` of [`Registry::resolve`]).
    CommandLine,
    /// The project config (`tunespec.toml`) at this path.
    Project(PathBuf),
    /// The user config at this path.
    User(PathBuf),
    /// `TUNESPEC_SPEC_PATH`.
    SpecPath,
    /// The embedded default registry.
    Default,
}

impl Origin {
    /// A short stable label: `command-line`, `project`, `user`, `spec-path`, `default`.
    pub fn label(&self) -> &'static str {
        match self {
            Origin::CommandLine => "command-line",
            Origin::Project(_) => "project",
            Origin::User(_) => "user",
            Origin::SpecPath => "spec-path",
            Origin::Default => "default",
        }
    }

    /// The config file, for the config levels.
    pub fn config(&self) -> Option<&Path> {
        match self {
            Origin::Project(path) | Origin::User(path) => Some(path),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::CommandLine => "given with --spec".to_string(),
            Origin::Project(path) | Origin::User(path) => {
                format!("spec_dirs of {}", path.display())
            }
            Origin::SpecPath => "from TUNESPEC_SPEC_PATH".to_string(),
            Origin::Default => "the default registry".to_string(),
        }
    }
}

/// A target of the registry: from the default registry or added by a spec library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    pub description: String,
    pub kind: Option<String>,
    /// Lowercase.
    pub aliases: Vec<String>,
    pub fallback: Option<String>,
    /// Feature names the target itself declares.
    pub features: Vec<String>,
    /// The spec library that defines it; `None` for the default registry.
    pub library: Option<PathBuf>,
    embedded: Option<&'static EmbeddedTarget>,
}

impl Target {
    fn from_embedded(target: &'static EmbeddedTarget) -> Target {
        Target {
            name: target.name.to_string(),
            description: target.description.to_string(),
            kind: target.kind.map(str::to_string),
            aliases: target
                .aliases
                .iter()
                .map(|alias| alias.to_string())
                .collect(),
            fallback: target.fallback.map(str::to_string),
            features: target
                .features
                .iter()
                .map(|name| name.to_string())
                .collect(),
            library: None,
            embedded: Some(target),
        }
    }

    /// The default-registry entry, for targets of the default registry.
    pub fn embedded(&self) -> Option<&'static EmbeddedTarget> {
        self.embedded
    }

    fn defined_by(&self) -> String {
        match &self.library {
            Some(dir) => dir.display().to_string(),
            None => "default".to_string(),
        }
    }
}

/// A source of user specs at one level.
#[derive(Clone, Debug)]
enum Source {
    /// Spec files for every target.
    Files { files: Vec<PathBuf>, why: String },
    /// `[targets.KEY] specs` of a config: for requests whose chain (or alias) holds `key`.
    ForTarget {
        key: String,
        files: Vec<(PathBuf, Vec<String>)>,
        config: PathBuf,
    },
    /// A directory with its own `registry.toml`.
    Library {
        dir: PathBuf,
        manifest: ResolvedManifest,
        why: String,
    },
}

#[derive(Clone, Debug)]
struct Layer {
    origin: Origin,
    sources: Vec<Source>,
}

/// The registry: targets by name and alias, and the user spec libraries layered over the
/// default specs. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Registry {
    targets: Vec<Target>,
    layers: Vec<Layer>,
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

/// One link of a resolved chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainLink {
    pub name: String,
    pub kind: Option<String>,
    pub description: String,
    /// `default`, or the spec library that defines the target.
    pub defined_by: String,
}

/// One spec of a resolution, in priority order.
#[derive(Clone, Debug)]
pub struct ResolvedSpec {
    /// The file name used in reports and diagnostics (the path, or `specs/...` for defaults).
    pub name: String,
    /// Source text or bytecode (defaults are the embedded bytecode).
    pub bytes: Cow<'static, [u8]>,
    pub origin: Origin,
    /// The chain target or alias it was included for; `None`: it applies to every target.
    pub target: Option<String>,
    /// Request features it needed (`xnack+`).
    pub features: Vec<String>,
    /// Why it is included, in words.
    pub reason: String,
    /// The embedded spec, for defaults.
    pub embedded: Option<&'static EmbeddedSpec>,
}

impl ResolvedSpec {
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

    /// The input for [`crate::link::link`].
    pub fn link_input(&self) -> LinkInput {
        LinkInput {
            name: self.name.clone(),
            bytes: self.bytes.to_vec(),
            role: match (&self.origin, &self.target) {
                (Origin::Default, Some(target)) => Role::Default {
                    target: target.clone(),
                },
                _ => Role::User,
            },
        }
    }
}

/// A spec that was considered and left out, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedSpec {
    pub name: String,
    pub origin: Origin,
    pub target: Option<String>,
    pub reason: String,
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
    pub chain: Vec<ChainLink>,
    /// Highest priority first.
    pub specs: Vec<ResolvedSpec>,
    pub skipped: Vec<SkippedSpec>,
}

impl Resolution {
    /// `gfx942:sramecc+:xnack-`: the canonical target with its features.
    pub fn target_id(&self) -> String {
        std::iter::once(self.target.clone())
            .chain(self.features.iter().cloned())
            .collect::<Vec<_>>()
            .join(":")
    }

    pub fn chain_names(&self) -> Vec<&str> {
        self.chain.iter().map(|link| link.name.as_str()).collect()
    }

    /// A key for caches: BLAKE3 over the target ID, the alias and every spec's name and hash,
    /// in order. Equal keys mean equal link inputs.
    pub fn fingerprint(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"tunespec-resolution-1\n");
        hasher.update(self.target_id().as_bytes());
        hasher.update(b"\n");
        hasher.update(self.alias.as_deref().unwrap_or_default().as_bytes());
        for spec in &self.specs {
            hasher.update(b"\n");
            hasher.update(spec.name.as_bytes());
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
            "chain": self.chain.iter().map(|link| json!({
                "name": link.name,
                "kind": link.kind,
                "description": link.description,
                "defined_by": link.defined_by,
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

impl Default for Registry {
    fn default() -> Self {
        Registry::embedded()
    }
}

impl Registry {
    /// The default registry, embedded at build time; no user configuration.
    pub fn embedded() -> Registry {
        Registry {
            targets: TARGETS.iter().map(Target::from_embedded).collect(),
            layers: Vec::new(),
        }
    }

    /// The default registry with the user's spec libraries: the project config, the user config
    /// and `TUNESPEC_SPEC_PATH`, found from the current directory and environment.
    pub fn discover() -> Result<Registry, Error> {
        Registry::embedded().with_discovery(&Discovery::from_env())
    }

    /// Adds the configs and `TUNESPEC_SPEC_PATH` entries of `discovery`, in precedence order.
    pub fn with_discovery(mut self, discovery: &Discovery) -> Result<Registry, Error> {
        let mut problems = Vec::new();
        let mut configs: Vec<(Origin, Config)> = Vec::new();
        if let Some(path) = &discovery.project {
            match Config::load(path) {
                Ok(config) => configs.push((Origin::Project(path.clone()), config)),
                Err(found) => problems.extend(found),
            }
        }
        if let Some(path) = &discovery.user {
            match Config::load(path) {
                Ok(config) => configs.push((Origin::User(path.clone()), config)),
                Err(found) => problems.extend(found),
            }
        }
        // Spec directories first: libraries may define the targets that configs name.
        let first_layer = self.layers.len();
        for (origin, config) in &configs {
            let mut layer = Layer {
                origin: origin.clone(),
                sources: Vec::new(),
            };
            for dir in &config.spec_dirs {
                if !dir.path.is_dir() {
                    let what = if dir.path.exists() {
                        "is not a directory"
                    } else {
                        "does not exist"
                    };
                    problems.push(Problem::error(
                        codes::CONFIG,
                        format!("spec directory '{}' {what}", dir.written),
                        Some(dir.loc.clone()),
                    ));
                    continue;
                }
                match self.directory_source(&dir.path, origin) {
                    Ok(Some(source)) => layer.sources.push(source),
                    Ok(None) => {}
                    Err(found) => problems.extend(found.into_iter().map(|mut problem| {
                        if problem.loc.is_none() {
                            problem.loc = Some(dir.loc.clone());
                        }
                        problem
                    })),
                }
            }
            self.layers.push(layer);
        }
        let mut env_layer = Layer {
            origin: Origin::SpecPath,
            sources: Vec::new(),
        };
        for entry in &discovery.spec_path {
            if entry.is_dir() {
                match self.directory_source(entry, &Origin::SpecPath) {
                    Ok(Some(source)) => env_layer.sources.push(source),
                    Ok(None) => {}
                    Err(found) => problems.extend(found),
                }
            } else if entry.is_file() {
                env_layer.sources.push(Source::Files {
                    files: vec![entry.clone()],
                    why: "named in TUNESPEC_SPEC_PATH".to_string(),
                });
            } else {
                return Err(Error::Io(format!(
                    "TUNESPEC_SPEC_PATH names {}, which does not exist",
                    entry.display()
                )));
            }
        }
        // Per-target specs, now that every target is known.
        for (index, (_, config)) in configs.iter().enumerate() {
            for target in &config.targets {
                let Some((found, _)) = self.lookup(&target.key) else {
                    let suggestions = self.nearest(&target.key);
                    let mut problem = Problem::error(
                        codes::CONFIG,
                        format!("[targets.{}] names no known target", target.key),
                        Some(target.loc.clone()),
                    );
                    if !suggestions.is_empty() {
                        problem =
                            problem.with_help(format!("did you mean {}?", suggestions.join(", ")));
                    }
                    problems.push(problem);
                    continue;
                };
                let declared = self.chain_features(&found.name);
                let mut files = Vec::new();
                for spec in &target.specs {
                    for feature in &spec.features {
                        let name = feature.trim_end_matches(['+', '-']);
                        if !declared.contains(name) {
                            problems.push(Problem::error(
                                codes::CONFIG,
                                format!(
                                    "feature '{name}' is not declared by target '{}' or its fallbacks",
                                    found.name
                                ),
                                Some(spec.loc.clone()),
                            ));
                        }
                    }
                    match config::expand(&spec.path) {
                        Ok(paths) => files
                            .extend(paths.into_iter().map(|path| (path, spec.features.clone()))),
                        Err(reason) => problems.push(Problem::error(
                            codes::CONFIG,
                            format!(
                                "spec path '{}' of [targets.{}] {reason}",
                                spec.written, target.key
                            ),
                            Some(spec.loc.clone()),
                        )),
                    }
                }
                self.layers[first_layer + index]
                    .sources
                    .push(Source::ForTarget {
                        key: target.key.clone(),
                        files,
                        config: config.path.clone(),
                    });
            }
        }
        if !env_layer.sources.is_empty() {
            self.layers.push(env_layer);
        }
        problems.sort_by(|a, b| {
            let key = |p: &Problem| {
                p.loc
                    .as_ref()
                    .map(|loc| (loc.file.clone(), loc.line, loc.col))
            };
            key(a).cmp(&key(b))
        });
        if problems.is_empty() {
            Ok(self)
        } else {
            Err(Error::Problems(problems))
        }
    }

    /// A directory as a source: a spec library when it has a `registry.toml`, otherwise its spec
    /// files for every target. `Ok(None)`: a library already loaded at a higher level.
    fn directory_source(
        &mut self,
        dir: &Path,
        origin: &Origin,
    ) -> Result<Option<Source>, Vec<Problem>> {
        let manifest_path = dir.join("registry.toml");
        if !manifest_path.is_file() {
            let files = manifest::list_spec_files(dir)
                .map_err(|message| vec![Problem::error(codes::IO, message, None)])?;
            if files.is_empty() {
                return Err(vec![Problem::error(
                    codes::CONFIG,
                    format!("{} holds no spec files (.mlir, .mlirbc)", dir.display()),
                    None,
                )]);
            }
            let why = match origin {
                Origin::CommandLine => format!("in {}, given with --spec", dir.display()),
                Origin::SpecPath => format!("in {}, from TUNESPEC_SPEC_PATH", dir.display()),
                other => format!("in {} ({})", dir.display(), other.describe()),
            };
            return Ok(Some(Source::Files {
                files: files.iter().map(|file| dir.join(file)).collect(),
                why,
            }));
        }
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let loaded = self
            .layers
            .iter()
            .flat_map(|layer| &layer.sources)
            .any(|source| {
                matches!(source, Source::Library { dir, .. }
                    if dir.canonicalize().unwrap_or_else(|_| dir.clone()) == canonical)
            });
        if loaded {
            return Ok(None);
        }
        let text = crate::files::read_input_text(&manifest_path).map_err(|error| {
            vec![Problem::error(
                codes::IO,
                format!("cannot read {}: {error}", manifest_path.display()),
                None,
            )]
        })?;
        let name = manifest_path.display().to_string();
        let resolved = manifest::load_with(&text, &name, dir, &external_targets())?;
        // Targets of two libraries must not clash either.
        let mut problems = Vec::new();
        for target in &resolved.targets {
            let clash = std::iter::once(&target.name)
                .chain(&target.aliases)
                .find_map(|name| self.lookup(name).map(|(owner, _)| (name, owner)));
            if let Some((name, owner)) = clash {
                let definer = match &owner.library {
                    Some(dir) => format!("the spec library {}", dir.display()),
                    None => "the default registry".to_string(),
                };
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!(
                        "'{name}' is already defined by {definer} (target '{}')",
                        owner.name
                    ),
                    Some(target.loc.clone()),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        for target in &resolved.targets {
            self.targets.push(Target {
                name: target.name.clone(),
                description: target.description.clone(),
                kind: target.kind.clone(),
                aliases: target.aliases.clone(),
                fallback: target.fallback.clone(),
                features: target.features.clone(),
                library: Some(dir.to_path_buf()),
                embedded: None,
            });
        }
        self.targets.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(Source::Library {
            dir: dir.to_path_buf(),
            manifest: resolved,
            why: origin.describe(),
        }))
    }

    /// The registry with `specs` (files, directories, spec libraries) as command-line specs.
    pub fn with_command_line(&self, specs: &[PathBuf]) -> Result<Registry, Error> {
        let mut registry = self.clone();
        let mut layer = Layer {
            origin: Origin::CommandLine,
            sources: Vec::new(),
        };
        for path in specs {
            let metadata = std::fs::metadata(path).map_err(|error| {
                Error::Io(format!(
                    "cannot read {}: {}",
                    path.display(),
                    io_message(&error)
                ))
            })?;
            if metadata.is_dir() {
                match registry.directory_source(path, &Origin::CommandLine) {
                    Ok(Some(source)) => layer.sources.push(source),
                    Ok(None) => {}
                    Err(problems) if problems.iter().all(|p| p.loc.is_none()) => {
                        let messages: Vec<String> =
                            problems.iter().map(|p| p.message.clone()).collect();
                        return Err(Error::Io(messages.join("\n")));
                    }
                    Err(problems) => return Err(Error::Problems(problems)),
                }
            } else {
                layer.sources.push(Source::Files {
                    files: vec![path.clone()],
                    why: "given with --spec".to_string(),
                });
            }
        }
        registry.layers.insert(0, layer);
        Ok(registry)
    }

    /// All targets (defaults and those of spec libraries), sorted by name.
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// A target by name or alias, case-insensitively (features are ignored).
    pub fn find(&self, name: &str) -> Option<&Target> {
        self.lookup(name).map(|(target, _)| target)
    }

    /// The target and, when `name` is an alias, the alias.
    fn lookup(&self, name: &str) -> Option<(&Target, Option<String>)> {
        let wanted = base_name(name);
        self.targets.iter().find_map(|target| {
            if target.name == wanted {
                Some((target, None))
            } else if target.aliases.contains(&wanted) {
                Some((target, Some(wanted.clone())))
            } else {
                None
            }
        })
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

    /// `name`'s target and its fallbacks, most specific first.
    pub fn chain(&self, name: &str) -> Result<Vec<&Target>, Error> {
        let Some((mut target, _)) = self.lookup(name) else {
            return Err(Error::unknown(name, self.nearest(name)));
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

    fn chain_features(&self, name: &str) -> BTreeSet<String> {
        self.chain(name)
            .map(|chain| {
                chain
                    .iter()
                    .flat_map(|target| target.features.iter().cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

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
            return Err(Error::unknown(requested, self.nearest(&id.name)));
        };
        let chain = self.chain(&head.name)?;
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
        // Specs may be attached to the alias (a SKU name), the target and each fallback.
        let keys: Vec<String> = alias
            .iter()
            .cloned()
            .chain(chain.iter().map(|target| target.name.clone()))
            .collect();
        let relation = |key: &str| -> String {
            if alias.as_deref() == Some(key) {
                format!("the alias {key}")
            } else if key == head.name {
                format!("the target {key}")
            } else {
                format!("{key}, a fallback of {}", head.name)
            }
        };
        let mut builder = Builder {
            request: &id.features,
            specs: Vec::new(),
            skipped: Vec::new(),
            seen: Vec::new(),
        };
        for layer in &self.layers {
            // The command line keeps its order (a spec library there expands in place). A config
            // level goes most specific first: for each key of the chain, its per-target files,
            // then its spec libraries' specs; then the directories that apply to every target.
            let mut steps: Vec<(&Source, Option<&String>)> = Vec::new();
            if layer.origin == Origin::CommandLine {
                for source in &layer.sources {
                    match source {
                        Source::Library { .. } => {
                            steps.extend(keys.iter().map(|key| (source, Some(key))))
                        }
                        _ => steps.push((source, None)),
                    }
                }
            } else {
                for key in &keys {
                    for wanted in [0, 1] {
                        steps.extend(
                            layer
                                .sources
                                .iter()
                                .filter(|source| match source {
                                    Source::ForTarget { .. } => wanted == 0,
                                    Source::Library { .. } => wanted == 1,
                                    Source::Files { .. } => false,
                                })
                                .map(|source| (source, Some(key))),
                        );
                    }
                }
                steps.extend(
                    layer
                        .sources
                        .iter()
                        .filter(|source| matches!(source, Source::Files { .. }))
                        .map(|source| (source, None)),
                );
            }
            for (source, key) in steps {
                match (source, key) {
                    (Source::Files { files, why }, _) => {
                        for file in files {
                            builder.file(file, &layer.origin, None, &[], why.clone())?;
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
                                relation(key)
                            );
                            builder.file(file, &layer.origin, Some(key), features, why)?;
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
                        for (table, specs) in own.chain(extended) {
                            for SpecFile { path, features } in specs {
                                let reason = format!(
                                    "{table} of the spec library {} ({why}), for {}",
                                    dir.display(),
                                    relation(key)
                                );
                                builder.file(
                                    &dir.join(path),
                                    &layer.origin,
                                    Some(key),
                                    features,
                                    reason,
                                )?;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for target in &chain {
            let Some(embedded) = target.embedded else {
                continue;
            };
            for (position, spec) in embedded.specs().enumerate() {
                let features: Vec<String> = embedded
                    .spec_features
                    .get(position)
                    .map(|features| features.iter().map(|f| f.to_string()).collect())
                    .unwrap_or_default();
                let reason = format!("default spec of {}", relation(&target.name));
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
            chain: chain
                .iter()
                .map(|target| ChainLink {
                    name: target.name.clone(),
                    kind: target.kind.clone(),
                    description: target.description.clone(),
                    defined_by: target.defined_by(),
                })
                .collect(),
            specs: builder.specs,
            skipped: builder.skipped,
        })
    }

    /// The command-line specs alone, for linking without a target (`link --no-default`).
    pub fn command_line_specs(specs: &[PathBuf]) -> Result<Vec<ResolvedSpec>, Error> {
        let registry = Registry {
            targets: Vec::new(),
            layers: Vec::new(),
        }
        .with_command_line(specs)?;
        let mut builder = Builder {
            request: &[],
            specs: Vec::new(),
            skipped: Vec::new(),
            seen: Vec::new(),
        };
        for source in registry.layers.iter().flat_map(|layer| &layer.sources) {
            match source {
                Source::Files { files, why } => {
                    for file in files {
                        builder.file(file, &Origin::CommandLine, None, &[], why.clone())?;
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
        Ok(builder.specs)
    }
}

/// Collects resolved specs in order, dropping repeats and specs whose features do not hold.
struct Builder<'a> {
    request: &'a [(String, bool)],
    specs: Vec<ResolvedSpec>,
    skipped: Vec<SkippedSpec>,
    /// Identity (canonical path or embedded path) of each included spec, by position.
    seen: Vec<String>,
}

impl Builder<'_> {
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
        match why {
            Some(why) => {
                self.skipped.push(SkippedSpec {
                    name: name.to_string(),
                    origin: origin.clone(),
                    target: target.cloned(),
                    reason: format!("{reason}; skipped: {why}"),
                });
                true
            }
            None => false,
        }
    }

    fn file(
        &mut self,
        path: &Path,
        origin: &Origin,
        target: Option<&String>,
        features: &[String],
        reason: String,
    ) -> Result<(), Error> {
        let name = path.display().to_string();
        let identity = path
            .canonicalize()
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string();
        if self.skip(&identity, &name, origin, target, features, &reason) {
            return Ok(());
        }
        let bytes = crate::files::read_input(path)
            .map_err(|error| Error::Io(format!("cannot read {name}: {}", io_message(&error))))?;
        self.seen.push(identity);
        self.specs.push(ResolvedSpec {
            name,
            bytes: Cow::Owned(bytes),
            origin: origin.clone(),
            target: target.cloned(),
            features: features.to_vec(),
            reason: with_features(reason, features),
            embedded: None,
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
        self.seen.push(identity);
        self.specs.push(ResolvedSpec {
            name: spec.path.to_string(),
            bytes: Cow::Borrowed(spec.bytecode()),
            origin: Origin::Default,
            target: Some(target),
            features: features.to_vec(),
            reason: with_features(reason, features),
            embedded: Some(spec),
        });
    }
}

fn with_features(reason: String, features: &[String]) -> String {
    if features.is_empty() {
        reason
    } else {
        format!("{reason}; the request has {}", features.join(", "))
    }
}

fn io_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => error.to_string(),
    }
}

/// Checks a `registry.toml` (as a spec library over the default registry, which is how the
/// default registry's own manifest checks too) or a config file (`tunespec.toml`,
/// `config.toml`): every problem, located. For `tunespec verify`.
pub fn check_toml(path: &Path) -> Vec<Problem> {
    let name = path.display().to_string();
    let text = match crate::files::read_input_text(path) {
        Ok(text) => text,
        Err(error) => {
            return vec![Problem::error(
                codes::IO,
                format!("cannot read {name}: {}", io_message(&error)),
                None,
            )]
        }
    };
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if path.file_name().is_some_and(|file| file == "registry.toml") {
        // Targets the manifest defines itself are not external (the default registry's own
        // manifest defines the embedded ones).
        let own: Vec<String> = toml::from_str::<toml::Table>(&text)
            .ok()
            .and_then(|table| table.get("targets").and_then(|t| t.as_table()).cloned())
            .map(|targets| targets.keys().map(|key| key.to_ascii_lowercase()).collect())
            .unwrap_or_default();
        let external: Vec<ExternalTarget> = external_targets()
            .into_iter()
            .filter(|target| {
                !own.contains(&target.name)
                    && !target.aliases.iter().any(|alias| own.contains(alias))
            })
            .collect();
        return match manifest::load_with(&text, &name, dir, &external) {
            Ok(resolved) => resolved.warnings,
            Err(problems) => problems,
        };
    }
    match Config::parse(&text, path) {
        Err(problems) => problems,
        Ok(_) => {
            let discovery = Discovery {
                project: Some(path.to_path_buf()),
                ..Discovery::default()
            };
            match Registry::embedded().with_discovery(&discovery) {
                Ok(_) => Vec::new(),
                Err(Error::Problems(problems)) => problems,
                Err(other) => vec![Problem::error(codes::CONFIG, other.to_string(), None)],
            }
        }
    }
}
