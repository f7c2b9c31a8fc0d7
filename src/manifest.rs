//! The registry manifest (`specs/registry.toml`): schema, parsing and validation.
//!
//! Shared verbatim with `build.rs` (through `#[path]`): the build refuses a manifest that
//! `tunespec verify` would reject, with the same located messages. Depends only on std, serde,
//! toml and sibling modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use crate::ir::Loc;
use crate::problem::{codes, Problem};

/// The manifest format version this build understands.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub schema: u32,
    #[serde(default)]
    pub targets: BTreeMap<String, TargetEntry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetEntry {
    pub description: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub fallback: Option<String>,
    /// Paths or globs relative to the specs directory, in priority order.
    #[serde(default)]
    pub specs: Vec<String>,
}

/// A validated manifest with every target's spec files resolved, in priority order.
#[derive(Clone, Debug)]
pub struct ResolvedManifest {
    pub manifest: Manifest,
    /// target -> spec paths relative to the specs directory, `/`-separated.
    pub target_specs: BTreeMap<String, Vec<String>>,
}

/// Parses and validates `text` (the content of `manifest_name`) against the files under
/// `specs_dir`. Reports every problem found.
pub fn load(
    text: &str,
    manifest_name: &str,
    specs_dir: &Path,
) -> Result<ResolvedManifest, Vec<Problem>> {
    let loc_of = |needle: &str| locate(text, manifest_name, needle);
    let manifest: Manifest = match toml::from_str(text) {
        Ok(manifest) => manifest,
        Err(error) => {
            let loc = error
                .span()
                .map(|span| offset_loc(text, manifest_name, span.start));
            return Err(vec![Problem::error(
                codes::MANIFEST,
                error.message().to_string(),
                loc.or_else(|| Some(offset_loc(text, manifest_name, 0))),
            )]);
        }
    };
    let mut problems = Vec::new();
    if manifest.schema != SCHEMA_VERSION {
        problems.push(Problem::error(
            codes::MANIFEST,
            format!(
                "manifest schema {} is not supported (this tunespec reads schema {SCHEMA_VERSION})",
                manifest.schema
            ),
            loc_of("schema"),
        ));
    }
    let files = list_spec_files(specs_dir);
    let mut target_specs = BTreeMap::new();
    let mut alias_owner: BTreeMap<String, String> = BTreeMap::new();
    for (name, target) in &manifest.targets {
        let header = format!("[targets.{name}]");
        // Validation errors point into this target's own section of the manifest.
        let in_section = |needle: &str| {
            let start = text.find(&header).unwrap_or(0);
            text[start..]
                .find(needle)
                .map(|offset| offset_loc(text, manifest_name, start + offset))
                .or_else(|| loc_of(&header))
        };
        if name != &name.to_ascii_lowercase() {
            problems.push(Problem::error(
                codes::MANIFEST,
                format!("target name '{name}' must be lowercase"),
                loc_of(&header),
            ));
        }
        if target.description.trim().is_empty() {
            problems.push(Problem::error(
                codes::MANIFEST,
                format!("target '{name}' has an empty description"),
                loc_of(&header),
            ));
        }
        for alias in &target.aliases {
            let key = alias.to_ascii_lowercase();
            if manifest.targets.contains_key(&key) {
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!("alias '{alias}' of target '{name}' is also a target name"),
                    in_section(&format!("\"{alias}\"")),
                ));
            } else if let Some(owner) = alias_owner.insert(key, name.clone()) {
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!("alias '{alias}' is declared by both '{owner}' and '{name}'"),
                    in_section(&format!("\"{alias}\"")),
                ));
            }
        }
        if let Some(fallback) = &target.fallback {
            if !manifest.targets.contains_key(fallback) {
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!("fallback '{fallback}' of target '{name}' is not a target"),
                    in_section(&format!("fallback = \"{fallback}\"")),
                ));
            }
        }
        if target.specs.is_empty() && target.fallback.is_none() {
            problems.push(Problem::error(
                codes::MANIFEST,
                format!("target '{name}' has neither specs nor a fallback"),
                loc_of(&header),
            ));
        }
        let mut resolved: Vec<String> = Vec::new();
        for pattern in &target.specs {
            let pattern_loc = in_section(&format!("\"{pattern}\""));
            if let Err(reason) = check_relative(pattern) {
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!("spec path '{pattern}' of target '{name}' {reason}"),
                    pattern_loc,
                ));
                continue;
            }
            let matched: Vec<&String> = files
                .iter()
                .filter(|file| glob_match(pattern, file))
                .collect();
            if matched.is_empty() {
                problems.push(
                    Problem::error(
                        codes::MANIFEST,
                        format!("spec path '{pattern}' of target '{name}' matches no file under the specs directory"),
                        pattern_loc,
                    )
                    .with_help("spec files end in .mlir or .mlirbc and live under specs/"),
                );
            }
            for file in matched {
                if let Err(reason) = check_inside(specs_dir, file) {
                    problems.push(Problem::error(
                        codes::MANIFEST,
                        format!("spec file '{file}' of target '{name}' {reason}"),
                        in_section(&format!("\"{pattern}\"")),
                    ));
                } else if !resolved.contains(file) {
                    resolved.push(file.clone());
                }
            }
        }
        target_specs.insert(name.clone(), resolved);
    }
    // Fallback chains must end.
    for name in manifest.targets.keys() {
        let mut seen = BTreeSet::new();
        let mut current = name.clone();
        while let Some(next) = manifest
            .targets
            .get(&current)
            .and_then(|t| t.fallback.clone())
        {
            if !seen.insert(current.clone()) {
                problems.push(Problem::error(
                    codes::MANIFEST,
                    format!("fallback chain of target '{name}' has a cycle through '{current}'"),
                    loc_of(&format!("[targets.{name}]")),
                ));
                break;
            }
            current = next;
        }
    }
    if problems.is_empty() {
        Ok(ResolvedManifest {
            manifest,
            target_specs,
        })
    } else {
        Err(problems)
    }
}

/// Spec files under `dir` (`.mlir`, `.mlirbc`), as sorted `/`-separated relative paths.
pub fn list_spec_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(dir)
        .follow_links(false)
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

fn check_relative(pattern: &str) -> Result<(), &'static str> {
    let path = Path::new(pattern);
    if path.is_absolute() || pattern.starts_with('/') {
        return Err("is absolute; spec paths are relative to specs/");
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("escapes specs/ with '..'");
    }
    Ok(())
}

/// A file reached through a symlink must still be inside the specs directory.
fn check_inside(specs_dir: &Path, relative: &str) -> Result<(), &'static str> {
    let root = specs_dir
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(specs_dir));
    match specs_dir.join(relative).canonicalize() {
        Ok(real) if real.starts_with(&root) => Ok(()),
        Ok(_) => Err("is a symlink that leads outside specs/"),
        Err(_) => Err("cannot be read"),
    }
}

/// Glob match on `/`-separated paths: `*` and `?` within one segment, `**` for any depth.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    fn segments(pattern: &[&str], path: &[&str]) -> bool {
        match (pattern.first(), path.first()) {
            (None, None) => true,
            (Some(&"**"), _) => {
                segments(&pattern[1..], path) || (!path.is_empty() && segments(pattern, &path[1..]))
            }
            (Some(p), Some(s)) => {
                segment(p.as_bytes(), s.as_bytes()) && segments(&pattern[1..], &path[1..])
            }
            _ => false,
        }
    }
    fn segment(pattern: &[u8], text: &[u8]) -> bool {
        match (pattern.first(), text.first()) {
            (None, None) => true,
            (Some(b'*'), _) => {
                segment(&pattern[1..], text) || (!text.is_empty() && segment(pattern, &text[1..]))
            }
            (Some(b'?'), Some(_)) => segment(&pattern[1..], &text[1..]),
            (Some(p), Some(t)) if p == t => segment(&pattern[1..], &text[1..]),
            _ => false,
        }
    }
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    segments(&pattern, &path)
}

fn offset_loc(text: &str, file: &str, offset: usize) -> Loc {
    let (line, col) = crate::verify::line_col(text.as_bytes(), offset);
    Loc {
        file: file.to_string(),
        line,
        col,
    }
}

/// The location of the first occurrence of `needle` in the manifest (for validation errors,
/// which serde cannot locate once parsing succeeded).
fn locate(text: &str, file: &str, needle: &str) -> Option<Loc> {
    text.find(needle)
        .or(Some(0))
        .map(|offset| offset_loc(text, file, offset))
}
