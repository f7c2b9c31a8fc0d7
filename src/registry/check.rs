//! `tunespec verify` on TOML: a registry manifest checked as a spec library over the default
//! registry, or a config checked as the registry would load it.

use std::path::Path;

use super::model::Registry;
use super::Error;
use crate::config::{Config, Discovery};
use crate::manifest::{self, ExternalTarget};
use crate::problem::{codes, io_message, Problem};

/// Checks a `registry.toml` (as a spec library over the default registry, which is how the
/// default registry's own manifest checks too) or a config file (`tunespec.toml`,
/// `config.toml`): every problem, located, with `~/` under `home`. For `tunespec verify`.
pub fn check_toml(path: &Path, home: Option<&Path>) -> Vec<Problem> {
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
    if path.file_name().is_some_and(|file| file == "registry.toml") {
        check_manifest(path, &name, &text)
    } else {
        check_config(path, &text, home)
    }
}

fn check_manifest(path: &Path, name: &str, text: &str) -> Vec<Problem> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Targets the manifest defines itself are not external (the default registry's own
    // manifest defines the embedded ones).
    // A manifest that does not parse has no own targets: `load_with` reports why.
    let own: Vec<String> = manifest::parse(text, name)
        .map(|parsed| {
            parsed
                .targets
                .keys()
                .map(|key| key.get_ref().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default();
    let external: Vec<ExternalTarget> = Registry::embedded()
        .external_targets()
        .into_iter()
        .filter(|target| {
            !own.contains(&target.name) && !target.aliases.iter().any(|alias| own.contains(alias))
        })
        .collect();
    match manifest::load_with(text, name, dir, &external) {
        Ok(resolved) => resolved.warnings,
        Err(problems) => problems,
    }
}

fn check_config(path: &Path, text: &str, home: Option<&Path>) -> Vec<Problem> {
    if let Err(problems) = Config::parse(text, path, home) {
        return problems;
    }
    let discovery = Discovery {
        project: Some(path.to_path_buf()),
        home: home.map(Path::to_path_buf),
        ..Discovery::default()
    };
    match Registry::embedded().with_discovery(&discovery) {
        Ok(_) => Vec::new(),
        Err(Error::Problems(problems)) => problems,
        Err(other) => vec![Problem::error(codes::CONFIG, other.to_string(), None)],
    }
}
