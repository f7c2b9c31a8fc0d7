//! `tunespec resolve TARGET`: the fallback chain and the ordered specs a compile for TARGET
//! uses, each with where it comes from and why it is included.

use std::path::PathBuf;
use tunespec::settings::Settings;

use super::common::{emit, emit_stderr, render, tool_error, ExitStatus, Format};
use crate::diagnostics::Style;
use tunespec::registry::{self, Resolution};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::RESOLVE)]
pub struct Opts {
    /// Target: architecture, SKU or alias, case-insensitive, with optional LLVM features
    /// (`gfx942:sramecc+:xnack-`)
    pub target: String,
    /// User spec file, directory or spec library (repeatable; highest priority first)
    #[arg(long = "spec", short = 's')]
    pub specs: Vec<PathBuf>,
    /// Output format: text (human, github), one line per fact and spec (short), one JSON
    /// object (json), or a SARIF log of the run's diagnostics (sarif)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub derived: super::common::DerivedArgs,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        let phase = tracing::info_span!("resolve", target = %self.target).entered();
        let resolution = match self
            .derived
            .registry(settings)
            .and_then(|registry| registry.resolve(&self.target, &self.specs))
        {
            Ok(resolution) => resolution,
            Err(error) => return report_error(&error),
        };
        drop(phase);
        match self.format {
            Format::Json => emit(&format!("{}\n", resolution.to_json())),
            Format::Human | Format::Github => emit(&human(&resolution)),
            Format::Short => emit(&short(&resolution)),
            // A resolution has no findings of its own (problems in configs are reported, with
            // exit 1, before this): the log is written when the run ends.
            Format::Sarif => {}
        }
        ExitStatus::Ok
    }
}

/// Reports a registry error: located problems (configs, spec-library manifests) with snippets,
/// exit 1; usage and I/O errors (unknown target, unreadable file) exit 2.
pub fn report_error(error: &registry::Error) -> ExitStatus {
    match error {
        registry::Error::Problems(problems) => {
            let style = Style::detect_stderr();
            for problem in problems {
                let source = problem
                    .loc
                    .as_ref()
                    .and_then(|loc| tunespec::files::read_input(&loc.file).ok());
                emit_stderr(&render(problem, source.as_deref(), style));
            }
            ExitStatus::Problems
        }
        other => {
            tool_error(other);
            ExitStatus::Usage
        }
    }
}

/// One line per fact (`target`, `chain`, `fingerprint`) and per spec (`spec N`, `skipped`),
/// the first word naming what the line is: `grep '^spec '` lists the specs in priority order.
fn short(resolution: &Resolution) -> String {
    let mut out = format!(
        "target {} -> {}{}\n",
        resolution.requested,
        resolution.target_id(),
        resolution
            .alias
            .as_ref()
            .map(|alias| format!(" (alias {alias})"))
            .unwrap_or_default()
    );
    out.push_str(&format!(
        "chain {}\n",
        resolution.chain_names().join(" -> ")
    ));
    for (index, spec) in resolution.specs.iter().enumerate() {
        let matchers = spec
            .matchers()
            .map(|count| format!(" matchers={count}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "spec {} {} origin={}{matchers} provenance={}: {}\n",
            index + 1,
            spec.name,
            spec.origin.label(),
            spec.provenance().kind(),
            spec.reason
        ));
    }
    for spec in &resolution.skipped {
        out.push_str(&format!(
            "skipped {} origin={}: {}\n",
            spec.name,
            spec.origin.label(),
            spec.reason
        ));
    }
    out.push_str(&format!(
        "fingerprint {}\n",
        &resolution.fingerprint()[..16]
    ));
    out
}

fn human(resolution: &Resolution) -> String {
    let mut out = String::new();
    let alias = resolution
        .alias
        .as_ref()
        .map(|alias| format!(" (alias {alias} of {})", resolution.target))
        .unwrap_or_default();
    out.push_str(&format!(
        "target  {} -> {}{alias}\n",
        resolution.requested,
        resolution.target_id()
    ));
    let chain: Vec<String> = resolution
        .chain
        .iter()
        .map(|link| match &link.kind {
            Some(kind) => format!("{} ({kind})", link.name),
            None => link.name.clone(),
        })
        .collect();
    out.push_str(&format!("chain   {}\n", chain.join(" -> ")));
    out.push_str(&format!(
        "specs   {}, highest priority first (for each op, the first matcher that matches wins):\n",
        resolution.specs.len()
    ));
    for (index, spec) in resolution.specs.iter().enumerate() {
        let matchers = spec
            .matchers()
            .map(|count| format!(" ({count} matchers)"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:>2}. {}{matchers}\n      {}: {}\n      provenance: {}\n",
            index + 1,
            spec.name,
            spec.origin.label(),
            spec.reason,
            spec.provenance().describe()
        ));
    }
    if !resolution.skipped.is_empty() {
        out.push_str(&format!("skipped {}:\n", resolution.skipped.len()));
        for spec in &resolution.skipped {
            out.push_str(&format!(
                "   - {}\n      {}: {}\n",
                spec.name,
                spec.origin.label(),
                spec.reason
            ));
        }
    }
    out.push_str(&format!(
        "fingerprint {}\n",
        &resolution.fingerprint()[..16]
    ));
    out
}
