//! Registry manifests (`registry.toml`): schema, parsing and validation with located errors.
//!
//! The default registry's manifest is `specs/registry.toml`; a user spec library may carry its
//! own, which adds targets (falling back into the default registry) and adds specs to existing
//! targets (`[extend.NAME]`). Both are read by [`load_with`]; the schema is documented in
//! ARCHITECTURE.md ("Registry manifest").
//!
//! Shared with `build.rs` (through tunespec-core): the build refuses a manifest that
//! `tunespec verify` would reject, with the same located messages. Depends only on std, serde,
//! toml, walkdir and sibling modules.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::ir::Loc;
use crate::problem::{codes, Problem};

/// The manifest format version this build understands.
pub const SCHEMA_VERSION: u32 = 1;

/// Target kinds, most specific first. A target may only fall back to one at least as general.
pub const KINDS: &[&str] = &["sku", "arch", "family", "vendor", "generic"];

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub schema: Spanned<u32>,
    #[serde(default)]
    pub targets: BTreeMap<Spanned<String>, TargetEntry>,
    /// Specs added to targets defined elsewhere (a spec library extending the default registry).
    #[serde(default)]
    pub extend: BTreeMap<Spanned<String>, ExtendEntry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetEntry {
    pub description: Spanned<String>,
    /// One of [`KINDS`].
    #[serde(default)]
    pub kind: Option<Spanned<String>>,
    /// SKU / marketing names resolving to this target, case-insensitively.
    #[serde(default)]
    pub aliases: Vec<Spanned<String>>,
    /// The next more general target.
    #[serde(default)]
    pub fallback: Option<Spanned<String>>,
    /// Feature names (LLVM target-ID features, e.g. `xnack`) the target understands; requests
    /// and spec restrictions may use them on this target and on the targets falling back to it.
    #[serde(default)]
    pub features: Vec<Spanned<String>>,
    /// Paths or globs relative to the manifest's directory, in priority order.
    #[serde(default)]
    pub specs: Vec<Spanned<SpecEntry>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtendEntry {
    pub specs: Vec<Spanned<SpecEntry>>,
}

/// One `specs` entry: `"gfx942/*.mlir"` or `{ path = "gfx942/xnack/*.mlir", features = ["xnack+"] }`.
#[derive(Clone, Debug)]
pub struct SpecEntry {
    pub path: String,
    /// Features (`name+` / `name-`) a request must have for these specs to apply.
    pub features: Vec<Spanned<String>>,
}

impl<'de> Deserialize<'de> for SpecEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            path: String,
            #[serde(default)]
            features: Vec<Spanned<String>>,
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = SpecEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a path or glob, or a table { path = \"...\", features = [\"xnack+\"] }",
                )
            }
            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<SpecEntry, E> {
                Ok(SpecEntry {
                    path: value.to_string(),
                    features: Vec::new(),
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<SpecEntry, A::Error> {
                let table = Table::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(SpecEntry {
                    path: table.path,
                    features: table.features,
                })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A target defined outside the manifest being loaded (for a spec library: the default
/// registry's targets), which the manifest may fall back to or extend.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalTarget {
    pub name: String,
    pub aliases: Vec<String>,
    pub kind: Option<String>,
    /// Feature names declared by the target and every target on its fallback chain.
    pub features: Vec<String>,
}

/// A validated manifest with every spec path resolved to files, in priority order.
#[derive(Clone, Debug, Default)]
pub struct ResolvedManifest {
    /// The targets this manifest defines, sorted by name.
    pub targets: Vec<ResolvedTarget>,
    /// Specs added to targets (or aliases) defined elsewhere, sorted by name.
    pub extensions: Vec<ResolvedExtension>,
    /// Findings that do not stop the manifest from being used (unlisted spec files).
    pub warnings: Vec<Problem>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedTarget {
    pub name: String,
    pub description: String,
    pub kind: Option<String>,
    /// Lowercase.
    pub aliases: Vec<String>,
    pub fallback: Option<String>,
    /// Feature names declared by this target itself.
    pub features: Vec<String>,
    pub specs: Vec<SpecFile>,
    /// Where the target's table starts in the manifest.
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedExtension {
    /// The extended target or alias, lowercase.
    pub target: String,
    pub specs: Vec<SpecFile>,
}

/// One spec file of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecFile {
    /// Relative to the manifest's directory, `/`-separated.
    pub path: String,
    /// Required request features (`xnack+`), sorted; empty: always applies.
    pub features: Vec<String>,
}

impl ResolvedManifest {
    pub fn target(&self, name: &str) -> Option<&ResolvedTarget> {
        self.targets.iter().find(|target| target.name == name)
    }
}

/// Who owns a (lowercase) name while validating.
#[derive(Clone, Debug)]
enum Owner {
    Target,
    Alias(String),
    External,
    ExternalAlias(String),
}

/// Parses and validates the default registry's manifest: `text` is the content of
/// `manifest_name`, spec paths are relative to `specs_dir`. Reports every problem found.
pub fn load(
    text: &str,
    manifest_name: &str,
    specs_dir: &Path,
) -> Result<ResolvedManifest, Vec<Problem>> {
    load_with(text, manifest_name, specs_dir, &[])
}

/// [`load`] for a manifest that may fall back to and extend the `external` targets.
pub fn load_with(
    text: &str,
    manifest_name: &str,
    specs_dir: &Path,
    external: &[ExternalTarget],
) -> Result<ResolvedManifest, Vec<Problem>> {
    let at = |span: Range<usize>| Some(offset_loc(text, manifest_name, span.start));
    let error =
        |message: String, span: Range<usize>| Problem::error(codes::MANIFEST, message, at(span));
    let manifest: Manifest = match toml::from_str(text) {
        Ok(manifest) => manifest,
        Err(parse_error) => {
            let offset = parse_error.span().map_or(0, |span| span.start);
            return Err(vec![Problem::error(
                codes::MANIFEST,
                {
                    // The toml crate gives some errors (a control character in a comment) no text.
                    let message = parse_error.message().trim_end();
                    if message.is_empty() {
                        "invalid TOML".to_string()
                    } else {
                        message.to_string()
                    }
                },
                Some(offset_loc(text, manifest_name, offset)),
            )]);
        }
    };
    let mut problems = Vec::new();
    if *manifest.schema.get_ref() != SCHEMA_VERSION {
        problems.push(error(
            format!(
                "manifest schema {} is not supported (this tunespec reads schema {SCHEMA_VERSION})",
                manifest.schema.get_ref()
            ),
            manifest.schema.span(),
        ));
    }

    // Names: every target name and alias, lowercase, with its owner.
    let mut names: BTreeMap<String, Owner> = BTreeMap::new();
    for target in external {
        names.insert(target.name.clone(), Owner::External);
        for alias in &target.aliases {
            names.insert(alias.clone(), Owner::ExternalAlias(target.name.clone()));
        }
    }
    for key in manifest.targets.keys() {
        let name = key.get_ref();
        if let Err(reason) = check_name(name) {
            problems.push(error(format!("target name '{name}' {reason}"), key.span()));
        }
        match names.get(&name.to_ascii_lowercase()) {
            Some(Owner::External) => problems.push(
                error(
                    format!("target '{name}' is already defined by the default registry"),
                    key.span(),
                )
                .with_help(format!("add specs to it with [extend.{name}]")),
            ),
            Some(Owner::ExternalAlias(owner)) => problems.push(error(
                format!("target '{name}' is already an alias of '{owner}' in the default registry"),
                key.span(),
            )),
            _ => {
                names.insert(name.to_ascii_lowercase(), Owner::Target);
            }
        }
    }
    for (key, target) in &manifest.targets {
        let name = key.get_ref();
        for alias in &target.aliases {
            let written = alias.get_ref();
            if let Err(reason) = check_name(written) {
                problems.push(error(
                    format!("alias '{written}' of target '{name}' {reason}"),
                    alias.span(),
                ));
                continue;
            }
            let message = match names.get(written.as_str()) {
                _ if written == name => {
                    Some(format!("alias '{written}' of target '{name}' repeats its name"))
                }
                Some(Owner::Target) => Some(format!(
                    "alias '{written}' of target '{name}' is also a target name"
                )),
                Some(Owner::Alias(owner)) if owner == name => Some(format!(
                    "alias '{written}' is listed twice for target '{name}'"
                )),
                Some(Owner::Alias(owner)) => Some(format!(
                    "alias '{written}' is declared by both '{owner}' and '{name}'"
                )),
                Some(Owner::External) => Some(format!(
                    "alias '{written}' of target '{name}' is a target of the default registry"
                )),
                Some(Owner::ExternalAlias(owner)) => Some(format!(
                    "alias '{written}' of target '{name}' is already an alias of '{owner}' in the default registry"
                )),
                None => None,
            };
            match message {
                Some(message) => problems.push(error(message, alias.span())),
                None => {
                    names.insert(written.clone(), Owner::Alias(name.clone()));
                }
            }
        }
    }
    let suggest = |wanted: &str, pick: &dyn Fn(&Owner) -> bool| -> Option<String> {
        let mut scored: Vec<(usize, &String)> = names
            .iter()
            .filter(|(_, owner)| pick(owner))
            .map(|(known, _)| (crate::verify::edit_distance(wanted, known), known))
            .filter(|(distance, _)| *distance <= 3)
            .collect();
        scored.sort();
        scored
            .first()
            .map(|(_, known)| format!("did you mean '{known}'?"))
    };
    let is_target = |owner: &Owner| matches!(owner, Owner::Target | Owner::External);

    // The fallback graph and kinds (own and external targets), for checks along chains.
    let own = |name: &str| {
        manifest
            .targets
            .iter()
            .find(|(key, _)| key.get_ref() == name)
            .map(|(_, target)| target)
    };
    let fallback_of = |name: &str| -> Option<String> {
        own(name)?.fallback.as_ref().map(|f| f.get_ref().clone())
    };
    // Features declared along a chain, starting at `name` (own or external target).
    let chain_features = |name: &str| -> BTreeSet<String> {
        let mut features = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut current = Some(name.to_string());
        while let Some(name) = current.take() {
            if !seen.insert(name.clone()) {
                break;
            }
            if let Some(external) = external.iter().find(|target| target.name == name) {
                features.extend(external.features.iter().cloned());
                break;
            }
            if let Some(target) = own(&name) {
                features.extend(target.features.iter().map(|f| f.get_ref().clone()));
            }
            current = fallback_of(&name);
        }
        features
    };
    let kind_of = |name: &str| -> Option<String> {
        external
            .iter()
            .find(|target| target.name == name)
            .and_then(|target| target.kind.clone())
            .or_else(|| own(name)?.kind.as_ref().map(|kind| kind.get_ref().clone()))
    };

    let files = list_spec_files(specs_dir);
    let mut listed: BTreeSet<String> = BTreeSet::new();
    let mut resolve_specs = |owner: &str,
                             entries: &[Spanned<SpecEntry>],
                             declared: &BTreeSet<String>,
                             problems: &mut Vec<Problem>|
     -> Vec<SpecFile> {
        let mut resolved: Vec<SpecFile> = Vec::new();
        for entry in entries {
            let pattern = &entry.get_ref().path;
            let features = check_restriction(
                &entry.get_ref().features,
                owner,
                declared,
                text,
                manifest_name,
                problems,
            );
            if let Err(reason) = check_relative(pattern) {
                problems.push(error(
                    format!("spec path '{pattern}' of target '{owner}' {reason}"),
                    entry.span(),
                ));
                continue;
            }
            let matched: Vec<&String> = files
                .iter()
                .filter(|file| glob_match(pattern, file))
                .collect();
            if matched.is_empty() {
                problems.push(match symlink_out(specs_dir, pattern) {
                    Some(link) => error(
                        format!("spec path '{pattern}' of target '{owner}' passes through '{link}', a symlink that leads outside the specs directory"),
                        entry.span(),
                    ),
                    None => error(
                        format!("spec path '{pattern}' of target '{owner}' matches no file under the specs directory"),
                        entry.span(),
                    )
                    .with_help("spec files end in .mlir or .mlirbc and live under the manifest's directory"),
                });
            }
            for file in matched {
                listed.insert(file.clone());
                if let Err(reason) = check_inside(specs_dir, file) {
                    problems.push(error(
                        format!("spec file '{file}' of target '{owner}' {reason}"),
                        entry.span(),
                    ));
                } else if !resolved.iter().any(|known| &known.path == file) {
                    resolved.push(SpecFile {
                        path: file.clone(),
                        features: features.clone(),
                    });
                }
            }
        }
        resolved
    };

    let mut targets = Vec::new();
    for (key, target) in &manifest.targets {
        let name = key.get_ref();
        if target.description.get_ref().trim().is_empty() {
            problems.push(error(
                format!("target '{name}' has an empty description"),
                target.description.span(),
            ));
        } else if target.description.get_ref().contains('\n') {
            problems.push(error(
                format!("the description of target '{name}' must be one line"),
                target.description.span(),
            ));
        }
        if let Some(kind) = &target.kind {
            if !KINDS.contains(&kind.get_ref().as_str()) {
                problems.push(error(
                    format!(
                        "kind '{}' of target '{name}' is not one of {}",
                        kind.get_ref(),
                        KINDS.join(", ")
                    ),
                    kind.span(),
                ));
            }
        }
        let mut declared_here = BTreeSet::new();
        for feature in &target.features {
            let feature_name = feature.get_ref();
            if feature_name.ends_with('+') || feature_name.ends_with('-') {
                problems.push(error(
                    format!("feature '{feature_name}' of target '{name}' is declared without its +/- sign"),
                    feature.span(),
                ));
            } else if let Err(reason) = check_name(feature_name) {
                problems.push(error(
                    format!("feature name '{feature_name}' of target '{name}' {reason}"),
                    feature.span(),
                ));
            } else if !declared_here.insert(feature_name.clone()) {
                problems.push(error(
                    format!("feature '{feature_name}' is declared twice for target '{name}'"),
                    feature.span(),
                ));
            }
        }
        if let Some(fallback) = &target.fallback {
            let wanted = fallback.get_ref();
            match names.get(wanted.as_str()) {
                _ if wanted == name => problems.push(error(
                    format!("target '{name}' falls back to itself"),
                    fallback.span(),
                )),
                Some(Owner::Target | Owner::External) => {
                    let rank = |kind: &str| KINDS.iter().position(|known| *known == kind);
                    let own_kind = target.kind.as_ref().map(|kind| kind.get_ref().clone());
                    if let (Some(own_kind), Some(general)) = (own_kind, kind_of(wanted)) {
                        if let (Some(own_rank), Some(general_rank)) =
                            (rank(&own_kind), rank(&general))
                        {
                            if general_rank < own_rank {
                                problems.push(error(
                                    format!("target '{name}' ({own_kind}) falls back to '{wanted}' ({general}), which is more specific"),
                                    fallback.span(),
                                ));
                            }
                        }
                    }
                }
                Some(Owner::Alias(owner) | Owner::ExternalAlias(owner)) => problems.push(
                    error(
                        format!("fallback '{wanted}' of target '{name}' is an alias of '{owner}'"),
                        fallback.span(),
                    )
                    .with_help(format!("name the target: fallback = \"{owner}\"")),
                ),
                None => {
                    let mut problem = error(
                        format!("fallback '{wanted}' of target '{name}' is not a target"),
                        fallback.span(),
                    );
                    if let Some(help) = suggest(wanted, &is_target) {
                        problem = problem.with_help(help);
                    }
                    problems.push(problem);
                }
            }
        }
        if target.specs.is_empty() && target.fallback.is_none() {
            problems.push(error(
                format!("target '{name}' has neither specs nor a fallback"),
                key.span(),
            ));
        }
        let declared = chain_features(name);
        let specs = resolve_specs(name, &target.specs, &declared, &mut problems);
        targets.push(ResolvedTarget {
            name: name.clone(),
            description: target.description.get_ref().trim().to_string(),
            kind: target.kind.as_ref().map(|kind| kind.get_ref().clone()),
            aliases: target
                .aliases
                .iter()
                .map(|alias| alias.get_ref().to_ascii_lowercase())
                .collect(),
            fallback: target.fallback.as_ref().map(|fb| fb.get_ref().clone()),
            features: target
                .features
                .iter()
                .map(|feature| feature.get_ref().clone())
                .collect(),
            specs,
            loc: offset_loc(text, manifest_name, key.span().start),
        });
    }

    let mut extensions = Vec::new();
    for (key, extension) in &manifest.extend {
        let wanted = key.get_ref().to_ascii_lowercase();
        let declared = match names.get(&wanted) {
            Some(Owner::External) => chain_features(&wanted),
            Some(Owner::ExternalAlias(owner)) => chain_features(owner),
            Some(Owner::Target | Owner::Alias(_)) => {
                problems.push(
                    error(
                        format!("[extend.{wanted}] names a target of this manifest"),
                        key.span(),
                    )
                    .with_help("list its specs in its own [targets.NAME] table"),
                );
                continue;
            }
            None => {
                let mut problem = error(
                    format!("[extend.{wanted}] names no known target"),
                    key.span(),
                );
                if let Some(help) = suggest(&wanted, &|owner| {
                    matches!(owner, Owner::External | Owner::ExternalAlias(_))
                }) {
                    problem = problem.with_help(help);
                }
                problems.push(problem);
                continue;
            }
        };
        if extension.specs.is_empty() {
            problems.push(error(
                format!("[extend.{wanted}] adds no specs"),
                key.span(),
            ));
        }
        let specs = resolve_specs(&wanted, &extension.specs, &declared, &mut problems);
        extensions.push(ResolvedExtension {
            target: wanted,
            specs,
        });
    }
    extensions.sort_by(|a, b| a.target.cmp(&b.target));

    // Fallback chains must end: report each cycle once, at its smallest member.
    let mut reported: BTreeSet<String> = BTreeSet::new();
    for key in manifest.targets.keys() {
        let mut path: Vec<String> = vec![key.get_ref().clone()];
        while let Some(next) = fallback_of(path.last().expect("not empty")) {
            if next == *path.last().expect("not empty") {
                break; // reported above as "falls back to itself"
            }
            if let Some(start) = path.iter().position(|seen| *seen == next) {
                let mut cycle: Vec<String> = path[start..].to_vec();
                let smallest = cycle
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, name)| name.as_str())
                    .map_or(0, |(index, _)| index);
                cycle.rotate_left(smallest);
                if reported.insert(cycle[0].clone()) {
                    let span = own(&cycle[0])
                        .and_then(|target| target.fallback.as_ref())
                        .map_or(0..0, |fallback| fallback.span());
                    let mut shown = cycle.clone();
                    shown.push(cycle[0].clone());
                    problems.push(error(
                        format!(
                            "fallback chain of target '{}' has a cycle: {}",
                            cycle[0],
                            shown.join(" -> ")
                        ),
                        span,
                    ));
                }
                break;
            }
            path.push(next);
        }
    }

    let mut warnings = Vec::new();
    let base = Path::new(manifest_name)
        .parent()
        .map(|parent| parent.to_string_lossy().into_owned())
        .unwrap_or_default();
    for file in files.iter().filter(|file| !listed.contains(*file)) {
        let shown = if base.is_empty() {
            file.clone()
        } else {
            format!("{base}/{file}")
        };
        warnings.push(
            Problem::warning(
                codes::MANIFEST,
                format!("spec file '{shown}' is not listed by any target of {manifest_name}"),
                None,
            )
            .with_help("list it in a target's specs, or remove it"),
        );
    }
    if problems.is_empty() {
        Ok(ResolvedManifest {
            targets,
            extensions,
            warnings,
        })
    } else {
        problems.sort_by(|a, b| {
            let key = |p: &Problem| p.loc.as_ref().map(|loc| (loc.line, loc.col));
            key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
        });
        Err(problems)
    }
}

/// Checks the `features` restriction of one spec entry; returns it canonical (`name+`), sorted.
fn check_restriction(
    features: &[Spanned<String>],
    owner: &str,
    declared: &BTreeSet<String>,
    text: &str,
    manifest_name: &str,
    problems: &mut Vec<Problem>,
) -> Vec<String> {
    let mut seen: BTreeMap<String, bool> = BTreeMap::new();
    for feature in features {
        let loc = Some(offset_loc(text, manifest_name, feature.span().start));
        match parse_feature(feature.get_ref()) {
            Err(reason) => problems.push(Problem::error(codes::MANIFEST, reason, loc)),
            Ok((name, _)) if !declared.contains(&name) => {
                let known = if declared.is_empty() {
                    "it declares no features".to_string()
                } else {
                    format!(
                        "declared: {}",
                        declared.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                problems.push(
                    Problem::error(
                        codes::MANIFEST,
                        format!("feature '{name}' is not declared by target '{owner}' or its fallbacks ({known})"),
                        loc,
                    )
                    .with_help("declare it with features = [\"...\"] on the target"),
                );
            }
            Ok((name, enabled)) => {
                if seen.insert(name.clone(), enabled).is_some() {
                    problems.push(Problem::error(
                        codes::MANIFEST,
                        format!(
                            "feature '{name}' is given twice in one spec entry of target '{owner}'"
                        ),
                        loc,
                    ));
                }
            }
        }
    }
    seen.into_iter()
        .map(|(name, enabled)| format_feature(&name, enabled))
        .collect()
}

/// Parses one LLVM target-ID feature, `xnack+` or `sramecc-` (case-insensitive).
pub fn parse_feature(text: &str) -> Result<(String, bool), String> {
    let lower = text.trim().to_ascii_lowercase();
    let (name, enabled) = if let Some(name) = lower.strip_suffix('+') {
        (name, true)
    } else if let Some(name) = lower.strip_suffix('-') {
        (name, false)
    } else {
        return Err(format!(
            "feature '{text}' needs a + or - suffix, as LLVM writes target features ({lower}+ or {lower}-)"
        ));
    };
    match check_name(name) {
        Ok(()) => Ok((name.to_string(), enabled)),
        Err(reason) => Err(format!("feature '{text}': the name {reason}")),
    }
}

/// `xnack+` / `xnack-`.
pub fn format_feature(name: &str, enabled: bool) -> String {
    format!("{name}{}", if enabled { '+' } else { '-' })
}

/// Target names, aliases and feature names: lowercase ASCII letters, digits, `_`, `.` and `-`,
/// starting with a letter or digit (`:` separates features in a target ID).
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name != name.to_ascii_lowercase() {
        return Err("must be lowercase (lookups are case-insensitive)");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err("must start with a letter or digit");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        return Err("may only hold letters, digits, '_', '.' and '-'");
    }
    Ok(())
}

/// Spec files under `dir` (`.mlir`, `.mlirbc`), as sorted `/`-separated relative paths.
/// Symlinks are followed (loops are skipped); [`check_inside`] tells whether a file stays inside.
pub fn list_spec_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_type().is_dir())
        .filter(|entry| is_spec_file(entry.path()))
        .filter_map(|entry| {
            let relative = entry.path().strip_prefix(dir).ok()?;
            Some(
                relative
                    .components()
                    .map(|component| component.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/"),
            )
        })
        .collect();
    files.sort();
    files
}

pub fn is_spec_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|extension| extension.to_str()),
        Some("mlir") | Some("mlirbc")
    )
}

/// Spec paths are relative and stay below the manifest's directory.
pub fn check_relative(pattern: &str) -> Result<(), &'static str> {
    let path = Path::new(pattern);
    if pattern.trim().is_empty() {
        return Err("is empty");
    }
    if path.is_absolute() || pattern.starts_with('/') || pattern.starts_with('\\') {
        return Err("is absolute; spec paths are relative to the specs directory");
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("escapes the specs directory with '..'");
    }
    Ok(())
}

/// A file reached through a symlink must still be inside the specs directory.
pub fn check_inside(specs_dir: &Path, relative: &str) -> Result<(), &'static str> {
    let root = specs_dir
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(specs_dir));
    match specs_dir.join(relative).canonicalize() {
        Ok(real) if real.starts_with(&root) => Ok(()),
        Ok(_) => Err("is reached through a symlink that leads outside the specs directory"),
        Err(_) => Err("cannot be read"),
    }
}

/// The first literal directory of `pattern` that is a symlink leading outside `specs_dir`.
fn symlink_out(specs_dir: &Path, pattern: &str) -> Option<String> {
    let root = specs_dir.canonicalize().ok()?;
    let mut current = PathBuf::from(specs_dir);
    let mut shown = Vec::new();
    for segment in pattern.split('/') {
        if is_glob(segment) {
            break;
        }
        current.push(segment);
        shown.push(segment);
        let is_link = std::fs::symlink_metadata(&current)
            .map(|metadata| metadata.file_type().is_symlink())
            .unwrap_or(false);
        if is_link
            && current
                .canonicalize()
                .map_or(true, |real| !real.starts_with(&root))
        {
            return Some(shown.join("/"));
        }
    }
    None
}

/// Glob match on `/`-separated paths: `*` and `?` within one segment, `**` for any depth; every
/// other character is literal. Compiled by globset (a pattern with many stars stays linear in the
/// path's length); empty and `.` segments of the pattern are ignored.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let mut normalized = String::with_capacity(pattern.len());
    for (index, segment) in pattern
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .enumerate()
    {
        if index > 0 {
            normalized.push('/');
        }
        for ch in segment.chars() {
            // Only `*` and `?` are special here; globset's classes and alternations are not.
            if matches!(ch, '[' | ']' | '{' | '}' | '\\') {
                normalized.push('\\');
            }
            normalized.push(ch);
        }
    }
    globset::GlobBuilder::new(&normalized)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .is_ok_and(|glob| glob.compile_matcher().is_match(path))
}

/// Whether a pattern holds glob characters.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// The 1-based line and column of a byte offset, as a location in `file`.
pub fn offset_loc(text: &str, file: &str, offset: usize) -> Loc {
    let (line, col) = crate::verify::line_col(text.as_bytes(), offset);
    Loc {
        file: file.to_string(),
        line,
        col,
    }
}
