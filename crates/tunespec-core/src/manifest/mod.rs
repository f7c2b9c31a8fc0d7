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

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::ir::Loc;
use crate::problem::{codes, Problem};

mod names;
mod paths;
mod validate;
mod write;

pub use names::{check_name, format_feature, parse_feature};
pub use paths::{
    check_inside, check_relative, glob_match, is_glob, is_spec_file, list_spec_entries,
    list_spec_files, offset_loc, walk_spec_files, PathPattern,
};
use validate::Validator;
pub use write::{written_by, Definition, Writer};

/// The manifest format version this build understands.
pub const SCHEMA_VERSION: u32 = 1;

/// Target kinds, most specific first. A target may only fall back to one at least as general.
pub const KINDS: &[&str] = &["sku", "arch", "family", "vendor", "generic"];

/// The IREE backends a target may name (`backend = "rocm"`), as iree-compile's flags spell them
/// (`--iree-hal-target-device`, `--iree-hal-local-target-device-backends`).
pub const BACKENDS: &[&str] = &["rocm", "hip", "cuda", "vulkan-spirv", "llvm-cpu"];

/// A `registry.toml` as written (with spans for located errors), before validation.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The schema version (1).
    pub schema: Spanned<u32>,
    /// `[targets.NAME]`: the targets this manifest defines.
    #[serde(default)]
    pub targets: BTreeMap<Spanned<String>, TargetEntry>,
    /// Specs added to targets defined elsewhere (a spec library extending the default registry).
    #[serde(default)]
    pub extend: BTreeMap<Spanned<String>, ExtendEntry>,
}

/// One `[targets.NAME]` table as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetEntry {
    /// One line for `tunespec targets`.
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
    /// The IREE backend that compiles for it (one of [`BACKENDS`]); inherited along fallbacks.
    #[serde(default)]
    pub backend: Option<Spanned<String>>,
    /// Paths or globs relative to the manifest's directory, in priority order.
    #[serde(default)]
    pub specs: Vec<Spanned<SpecEntry>>,
}

/// One `[extend.NAME]` table as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtendEntry {
    /// Paths or globs relative to the manifest's directory, in priority order.
    pub specs: Vec<Spanned<SpecEntry>>,
}

/// One `specs` entry: `"gfx942/*.mlir"` or `{ path = "gfx942/xnack/*.mlir", features = ["xnack+"] }`.
#[derive(Clone, Debug)]
pub struct SpecEntry {
    /// The path or glob, relative to the manifest's (or config's) directory.
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
    /// The target's name.
    pub name: String,
    /// Its aliases, lowercase.
    pub aliases: Vec<String>,
    /// Its kind (one of [`KINDS`]), if it has one.
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
    /// The tool that wrote the manifest, from its first line (`# Written by \`NAME\``; see
    /// [`written_by`]): a library `tunespec import-iree` wrote holds IREE's own defaults.
    pub written_by: Option<String>,
}

/// A validated target of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedTarget {
    /// Its name.
    pub name: String,
    /// One line for `tunespec targets`.
    pub description: String,
    /// One of [`KINDS`], if given.
    pub kind: Option<String>,
    /// Lowercase.
    pub aliases: Vec<String>,
    /// The next more general target.
    pub fallback: Option<String>,
    /// Feature names declared by this target itself.
    pub features: Vec<String>,
    /// The IREE backend it names itself (one of [`BACKENDS`]), if any.
    pub backend: Option<String>,
    /// Its spec files, in priority order.
    pub specs: Vec<SpecFile>,
    /// Where the target's table starts in the manifest.
    pub loc: Loc,
}

/// A validated `[extend.NAME]`: specs a spec library adds to a target defined elsewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedExtension {
    /// The extended target or alias, lowercase.
    pub target: String,
    /// Its spec files, in priority order.
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
    /// The target defined here with that name.
    pub fn target(&self, name: &str) -> Option<&ResolvedTarget> {
        self.targets.iter().find(|target| target.name == name)
    }
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
    let manifest = parse(text, manifest_name)?;
    let mut validator = Validator::new(text, manifest_name, specs_dir, external, &manifest);
    validator.check_schema();
    validator.collect_names();
    let targets: Vec<ResolvedTarget> = manifest
        .targets
        .iter()
        .map(|(key, target)| validator.check_target(key, target))
        .collect();
    let mut extensions: Vec<ResolvedExtension> = manifest
        .extend
        .iter()
        .filter_map(|(key, extension)| validator.check_extension(key, extension))
        .collect();
    extensions.sort_by(|a, b| a.target.cmp(&b.target));
    validator.check_cycles();
    let warnings = validator.unlisted_files();
    let mut problems = validator.problems;
    if problems.is_empty() {
        Ok(ResolvedManifest {
            targets,
            extensions,
            warnings,
            written_by: written_by(text).map(str::to_string),
        })
    } else {
        crate::verify::sort_problems(&mut problems);
        Err(problems)
    }
}

/// Which table of a manifest lists a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `[targets.NAME]`: a target the manifest defines.
    Targets,
    /// `[extend.NAME]`: a target defined elsewhere.
    Extend,
}

impl Manifest {
    /// Every `specs` entry as written, with its table and target: `[targets.*]` first, then
    /// `[extend.*]`, each sorted by target name, entries in their order. Why: readers that need
    /// only the listing (which target a spec file is for) walk the typed model, not raw TOML.
    pub fn listed_specs(&self) -> impl Iterator<Item = (Table, &str, &SpecEntry)> + '_ {
        let own = self.targets.iter().flat_map(|(name, target)| {
            target
                .specs
                .iter()
                .map(move |spec| (Table::Targets, name.get_ref().as_str(), spec.get_ref()))
        });
        let extended = self.extend.iter().flat_map(|(name, extension)| {
            extension
                .specs
                .iter()
                .map(move |spec| (Table::Extend, name.get_ref().as_str(), spec.get_ref()))
        });
        own.chain(extended)
    }
}

/// The first of a manifest's problems as one line, `FILE:LINE:COL: message`: for readers that
/// report a manifest they cannot use as a plain error (`check`, the importers).
pub fn one_line(problems: &[Problem]) -> String {
    match problems.first() {
        Some(problem) => match &problem.loc {
            Some(loc) => format!("{}:{}:{}: {}", loc.file, loc.line, loc.col, problem.message),
            None => problem.message.clone(),
        },
        None => "invalid manifest".to_string(),
    }
}

/// Phase 1: the TOML, deserialized into the typed model; a syntax or schema-shape error is the
/// only problem then. Public for readers that need the manifest as written, not validated
/// against a registry (`check`'s spec-to-target map, the libraries the importers wrote): the
/// one place a manifest's TOML is parsed.
pub fn parse(text: &str, manifest_name: &str) -> Result<Manifest, Vec<Problem>> {
    toml::from_str(text).map_err(|parse_error| {
        let offset = parse_error.span().map_or(0, |span| span.start);
        // The toml crate gives some errors (a control character in a comment) no text.
        let message = parse_error.message().trim_end();
        let message = if message.is_empty() {
            "invalid TOML".to_string()
        } else {
            message.to_string()
        };
        vec![Problem::error(
            codes::MANIFEST,
            message,
            Some(offset_loc(text, manifest_name, offset)),
        )]
    })
}
