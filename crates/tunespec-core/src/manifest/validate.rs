//! The phases of validating a parsed manifest (see [`super::load_with`]): names and aliases,
//! each target, extensions, fallback cycles, unlisted spec files. Every problem is located by
//! its toml span.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::names::{check_name, format_feature, parse_feature};
use super::paths::{
    check_inside, check_relative, offset_loc, symlink_out, walk_spec_files, PathPattern,
};
use super::{
    ExtendEntry, ExternalTarget, Manifest, ResolvedExtension, ResolvedTarget, SpecEntry, SpecFile,
    TargetEntry, BACKENDS, KINDS, SCHEMA_VERSION,
};
use crate::problem::{codes, Problem};

/// Who owns a (lowercase) name while validating.
#[derive(Clone, Debug)]
enum Owner {
    Target,
    Alias(String),
    External,
    ExternalAlias(String),
}

/// The later phases of validating a parsed manifest, each adding located problems: schema,
/// names and aliases, each target (description, kind, features, fallback, specs), extensions,
/// fallback cycles, and spec files no target lists (warnings).
pub(super) struct Validator<'a> {
    text: &'a str,
    manifest_name: &'a str,
    specs_dir: &'a Path,
    external: &'a [ExternalTarget],
    manifest: &'a Manifest,
    /// Every target name and alias, lowercase, with its owner.
    names: BTreeMap<String, Owner>,
    /// The spec files under the specs directory, and those some entry matched.
    files: Vec<String>,
    listed: BTreeSet<String>,
    pub(super) problems: Vec<Problem>,
}

impl<'a> Validator<'a> {
    pub(super) fn new(
        text: &'a str,
        manifest_name: &'a str,
        specs_dir: &'a Path,
        external: &'a [ExternalTarget],
        manifest: &'a Manifest,
    ) -> Validator<'a> {
        Validator {
            text,
            manifest_name,
            specs_dir,
            external,
            manifest,
            names: BTreeMap::new(),
            // Walk errors (a dangling link) are reported, located, by the checks of the
            // patterns that reach them.
            files: walk_spec_files(specs_dir).0,
            listed: BTreeSet::new(),
            problems: Vec::new(),
        }
    }

    fn error(&self, message: String, span: Range<usize>) -> Problem {
        Problem::error(
            codes::MANIFEST,
            message,
            Some(offset_loc(self.text, self.manifest_name, span.start)),
        )
    }

    fn report(&mut self, message: String, span: Range<usize>) {
        let problem = self.error(message, span);
        self.problems.push(problem);
    }

    pub(super) fn check_schema(&mut self) {
        let schema = &self.manifest.schema;
        if *schema.get_ref() != SCHEMA_VERSION {
            self.report(
                format!(
                    "manifest schema {} is not supported (this tunespec reads schema {SCHEMA_VERSION})",
                    schema.get_ref()
                ),
                schema.span(),
            );
        }
    }

    /// Phase 2: every name and alias (external ones first), each owned once.
    pub(super) fn collect_names(&mut self) {
        for target in self.external {
            self.names.insert(target.name.clone(), Owner::External);
            for alias in &target.aliases {
                self.names
                    .insert(alias.clone(), Owner::ExternalAlias(target.name.clone()));
            }
        }
        for key in self.manifest.targets.keys() {
            self.collect_target_name(key);
        }
        for (key, target) in &self.manifest.targets {
            for alias in &target.aliases {
                self.collect_alias(key.get_ref(), alias);
            }
        }
    }

    fn collect_target_name(&mut self, key: &Spanned<String>) {
        let name = key.get_ref();
        if let Err(reason) = check_name(name) {
            self.report(format!("target name '{name}' {reason}"), key.span());
        }
        match self.names.get(&name.to_ascii_lowercase()) {
            Some(Owner::External) => {
                let problem = self
                    .error(
                        format!("target '{name}' is already defined by the default registry"),
                        key.span(),
                    )
                    .with_help(format!("add specs to it with [extend.{name}]"));
                self.problems.push(problem);
            }
            Some(Owner::ExternalAlias(owner)) => {
                let message = format!(
                    "target '{name}' is already an alias of '{owner}' in the default registry"
                );
                self.report(message, key.span());
            }
            _ => {
                self.names.insert(name.to_ascii_lowercase(), Owner::Target);
            }
        }
    }

    fn collect_alias(&mut self, name: &String, alias: &Spanned<String>) {
        let written = alias.get_ref();
        if let Err(reason) = check_name(written) {
            self.report(
                format!("alias '{written}' of target '{name}' {reason}"),
                alias.span(),
            );
            return;
        }
        let message = match self.names.get(written.as_str()) {
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
            Some(message) => self.report(message, alias.span()),
            None => {
                self.names
                    .insert(written.clone(), Owner::Alias(name.clone()));
            }
        }
    }

    /// "did you mean": the nearest known name `pick` accepts.
    fn suggest(&self, wanted: &str, pick: impl Fn(&Owner) -> bool) -> Option<String> {
        let mut scored: Vec<(usize, &String)> = self
            .names
            .iter()
            .filter(|(_, owner)| pick(owner))
            .map(|(known, _)| (crate::verify::edit_distance(wanted, known), known))
            .filter(|(distance, _)| *distance <= 3)
            .collect();
        scored.sort();
        scored
            .first()
            .map(|(_, known)| format!("did you mean '{known}'?"))
    }

    /// A target this manifest defines.
    fn own(&self, name: &str) -> Option<&'a TargetEntry> {
        self.manifest
            .targets
            .iter()
            .find(|(key, _)| key.get_ref() == name)
            .map(|(_, target)| target)
    }

    fn fallback_of(&self, name: &str) -> Option<String> {
        self.own(name)?
            .fallback
            .as_ref()
            .map(|f| f.get_ref().clone())
    }

    /// Features declared along a chain, starting at `name` (own or external target).
    fn chain_features(&self, name: &str) -> BTreeSet<String> {
        let mut features = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut current = Some(name.to_string());
        while let Some(name) = current.take() {
            if !seen.insert(name.clone()) {
                break;
            }
            if let Some(external) = self.external.iter().find(|target| target.name == name) {
                features.extend(external.features.iter().cloned());
                break;
            }
            if let Some(target) = self.own(&name) {
                features.extend(target.features.iter().map(|f| f.get_ref().clone()));
            }
            current = self.fallback_of(&name);
        }
        features
    }

    fn kind_of(&self, name: &str) -> Option<String> {
        self.external
            .iter()
            .find(|target| target.name == name)
            .and_then(|target| target.kind.clone())
            .or_else(|| {
                self.own(name)?
                    .kind
                    .as_ref()
                    .map(|kind| kind.get_ref().clone())
            })
    }

    /// Phase 3: one target of this manifest.
    pub(super) fn check_target(
        &mut self,
        key: &Spanned<String>,
        target: &TargetEntry,
    ) -> ResolvedTarget {
        let name = key.get_ref();
        self.check_description(name, target);
        if let Some(kind) = &target.kind {
            if !KINDS.contains(&kind.get_ref().as_str()) {
                self.report(
                    format!(
                        "kind '{}' of target '{name}' is not one of {}",
                        kind.get_ref(),
                        KINDS.join(", ")
                    ),
                    kind.span(),
                );
            }
        }
        if let Some(backend) = &target.backend {
            if !BACKENDS.contains(&backend.get_ref().as_str()) {
                self.report(
                    format!(
                        "backend '{}' of target '{name}' is not one of {}",
                        backend.get_ref(),
                        BACKENDS.join(", ")
                    ),
                    backend.span(),
                );
            }
        }
        self.check_declared_features(name, target);
        if let Some(fallback) = &target.fallback {
            self.check_fallback(name, target, fallback);
        }
        // A target that names its backend is one to compile for even without specs (the
        // built-in `host`; a fallback a measured library copies): users' specs configure it.
        if target.specs.is_empty() && target.fallback.is_none() && target.backend.is_none() {
            self.report(
                format!("target '{name}' has neither specs, a fallback nor a backend"),
                key.span(),
            );
        }
        let declared = self.chain_features(name);
        let specs = self.resolve_specs(name, &target.specs, &declared);
        ResolvedTarget {
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
            backend: target
                .backend
                .as_ref()
                .map(|backend| backend.get_ref().clone()),
            specs,
            loc: offset_loc(self.text, self.manifest_name, key.span().start),
        }
    }

    fn check_description(&mut self, name: &str, target: &TargetEntry) {
        let description = &target.description;
        if description.get_ref().trim().is_empty() {
            self.report(
                format!("target '{name}' has an empty description"),
                description.span(),
            );
        } else if description.get_ref().contains('\n') {
            self.report(
                format!("the description of target '{name}' must be one line"),
                description.span(),
            );
        }
    }

    fn check_declared_features(&mut self, name: &str, target: &TargetEntry) {
        let mut declared_here = BTreeSet::new();
        for feature in &target.features {
            let feature_name = feature.get_ref();
            if feature_name.ends_with('+') || feature_name.ends_with('-') {
                self.report(
                    format!("feature '{feature_name}' of target '{name}' is declared without its +/- sign"),
                    feature.span(),
                );
            } else if let Err(reason) = check_name(feature_name) {
                self.report(
                    format!("feature name '{feature_name}' of target '{name}' {reason}"),
                    feature.span(),
                );
            } else if !declared_here.insert(feature_name.clone()) {
                self.report(
                    format!("feature '{feature_name}' is declared twice for target '{name}'"),
                    feature.span(),
                );
            }
        }
    }

    /// A fallback names a target (not an alias, not itself) at least as general.
    fn check_fallback(&mut self, name: &String, target: &TargetEntry, fallback: &Spanned<String>) {
        let wanted = fallback.get_ref();
        if wanted == name {
            self.report(
                format!("target '{name}' falls back to itself"),
                fallback.span(),
            );
            return;
        }
        match self.names.get(wanted.as_str()) {
            Some(Owner::Target | Owner::External) => {
                let rank = |kind: &str| KINDS.iter().position(|known| *known == kind);
                let own_kind = target.kind.as_ref().map(|kind| kind.get_ref().clone());
                let (Some(own_kind), Some(general)) = (own_kind, self.kind_of(wanted)) else {
                    return;
                };
                if let (Some(own_rank), Some(general_rank)) = (rank(&own_kind), rank(&general)) {
                    if general_rank < own_rank {
                        self.report(
                            format!("target '{name}' ({own_kind}) falls back to '{wanted}' ({general}), which is more specific"),
                            fallback.span(),
                        );
                    }
                }
            }
            Some(Owner::Alias(owner) | Owner::ExternalAlias(owner)) => {
                let problem = self
                    .error(
                        format!("fallback '{wanted}' of target '{name}' is an alias of '{owner}'"),
                        fallback.span(),
                    )
                    .with_help(format!("name the target: fallback = \"{owner}\""));
                self.problems.push(problem);
            }
            None => {
                let mut problem = self.error(
                    format!("fallback '{wanted}' of target '{name}' is not a target"),
                    fallback.span(),
                );
                let is_target = |owner: &Owner| matches!(owner, Owner::Target | Owner::External);
                if let Some(help) = self.suggest(wanted, is_target) {
                    problem = problem.with_help(help);
                }
                self.problems.push(problem);
            }
        }
    }

    /// The spec entries of `owner` resolved to files, in priority order (each file once).
    fn resolve_specs(
        &mut self,
        owner: &str,
        entries: &[Spanned<SpecEntry>],
        declared: &BTreeSet<String>,
    ) -> Vec<SpecFile> {
        let mut resolved: Vec<SpecFile> = Vec::new();
        for entry in entries {
            let pattern = &entry.get_ref().path;
            let features = check_restriction(
                &entry.get_ref().features,
                owner,
                declared,
                self.text,
                self.manifest_name,
                &mut self.problems,
            );
            if let Err(reason) = check_relative(pattern) {
                self.report(
                    format!("spec path '{pattern}' of target '{owner}' {reason}"),
                    entry.span(),
                );
                continue;
            }
            let compiled = PathPattern::new(pattern);
            let matched: Vec<String> = self
                .files
                .iter()
                .filter(|file| compiled.is_match(file))
                .cloned()
                .collect();
            if matched.is_empty() {
                self.report_unmatched(owner, pattern, entry.span());
            }
            for file in matched {
                self.listed.insert(file.clone());
                if let Err(reason) = check_inside(self.specs_dir, &file) {
                    self.report(
                        format!("spec file '{file}' of target '{owner}' {reason}"),
                        entry.span(),
                    );
                } else if !resolved.iter().any(|known| known.path == file) {
                    resolved.push(SpecFile {
                        path: file,
                        features: features.clone(),
                    });
                }
            }
        }
        resolved
    }

    fn report_unmatched(&mut self, owner: &str, pattern: &str, span: Range<usize>) {
        let problem = match symlink_out(self.specs_dir, pattern) {
            Some(link) => self.error(
                format!("spec path '{pattern}' of target '{owner}' passes through '{link}', a symlink that leads outside the specs directory"),
                span,
            ),
            None => self.error(
                format!("spec path '{pattern}' of target '{owner}' matches no file under the specs directory"),
                span,
            )
            .with_help("spec files end in .mlir or .mlirbc and live under the manifest's directory"),
        };
        self.problems.push(problem);
    }

    /// Phase 4: one `[extend.NAME]` table; it must name an external target or alias.
    pub(super) fn check_extension(
        &mut self,
        key: &Spanned<String>,
        extension: &ExtendEntry,
    ) -> Option<ResolvedExtension> {
        let wanted = key.get_ref().to_ascii_lowercase();
        let declared = match self.names.get(&wanted) {
            Some(Owner::External) => self.chain_features(&wanted),
            Some(Owner::ExternalAlias(owner)) => self.chain_features(owner),
            Some(Owner::Target | Owner::Alias(_)) => {
                let problem = self
                    .error(
                        format!("[extend.{wanted}] names a target of this manifest"),
                        key.span(),
                    )
                    .with_help("list its specs in its own [targets.NAME] table");
                self.problems.push(problem);
                return None;
            }
            None => {
                let mut problem = self.error(
                    format!("[extend.{wanted}] names no known target"),
                    key.span(),
                );
                let external =
                    |owner: &Owner| matches!(owner, Owner::External | Owner::ExternalAlias(_));
                if let Some(help) = self.suggest(&wanted, external) {
                    problem = problem.with_help(help);
                }
                self.problems.push(problem);
                return None;
            }
        };
        if extension.specs.is_empty() {
            self.report(format!("[extend.{wanted}] adds no specs"), key.span());
        }
        let specs = self.resolve_specs(&wanted, &extension.specs, &declared);
        Some(ResolvedExtension {
            target: wanted,
            specs,
        })
    }

    /// Phase 5: fallback chains must end; each cycle is reported once, at its smallest member.
    pub(super) fn check_cycles(&mut self) {
        let mut reported: BTreeSet<String> = BTreeSet::new();
        for key in self.manifest.targets.keys() {
            let mut path: Vec<String> = vec![key.get_ref().clone()];
            while let Some(next) = self.fallback_of(path.last().expect("not empty")) {
                if next == *path.last().expect("not empty") {
                    break; // reported by check_fallback as "falls back to itself"
                }
                if let Some(start) = path.iter().position(|seen| *seen == next) {
                    self.report_cycle(&path[start..], &mut reported);
                    break;
                }
                path.push(next);
            }
        }
    }

    fn report_cycle(&mut self, members: &[String], reported: &mut BTreeSet<String>) {
        let mut cycle: Vec<String> = members.to_vec();
        let smallest = cycle
            .iter()
            .enumerate()
            .min_by_key(|(_, name)| name.as_str())
            .map_or(0, |(index, _)| index);
        cycle.rotate_left(smallest);
        if !reported.insert(cycle[0].clone()) {
            return;
        }
        let span = self
            .own(&cycle[0])
            .and_then(|target| target.fallback.as_ref())
            .map_or(0..0, |fallback| fallback.span());
        let mut shown = cycle.clone();
        shown.push(cycle[0].clone());
        self.report(
            format!(
                "fallback chain of target '{}' has a cycle: {}",
                cycle[0],
                shown.join(" -> ")
            ),
            span,
        );
    }

    /// Phase 6: spec files no target lists (warnings, which do not stop the manifest's use).
    pub(super) fn unlisted_files(&self) -> Vec<Problem> {
        let base = Path::new(self.manifest_name)
            .parent()
            .map(|parent| parent.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.files
            .iter()
            .filter(|file| !self.listed.contains(*file))
            .map(|file| {
                let shown = if base.is_empty() {
                    file.clone()
                } else {
                    format!("{base}/{file}")
                };
                Problem::warning(
                    codes::MANIFEST,
                    format!(
                        "spec file '{shown}' is not listed by any target of {}",
                        self.manifest_name
                    ),
                    None,
                )
                .with_help("list it in a target's specs, or remove it")
            })
            .collect()
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
