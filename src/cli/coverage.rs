//! `tunespec coverage`: matchers that never fire across a corpus of payloads.

use std::collections::BTreeSet;
use std::path::PathBuf;
use tunespec::settings::Settings;

use serde_json::json;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::mlir::Mlir;

use tunespec::problem::Problem;

use super::common::{emit, fail, input_name, quiet, read, render, ExitStatus, Format, LibraryArgs};
use super::explain::loc_text;
use crate::diagnostics::Style;

/// The code of a matcher that fired on none of the payloads (`short`, `github`, `sarif`).
pub const NEVER_FIRED: &str = "tunespec::coverage::never-fired";

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::COVERAGE)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Payloads (a corpus); `-` for one read from stdin
    #[arg(required = true)]
    pub payloads: Vec<PathBuf>,
    /// Output format: text (human), one JSON object (json); in short, github and sarif each
    /// matcher that never fired is a warning at its spec line (exit status unchanged)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Which IR to match: as iree-compile sees it at dispatch level, or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
    /// Who forms the dispatches matched: IREE for models and tunespec's prediction for linalg
    /// IR (auto), always IREE (exact on every backend), always the prediction
    #[arg(long, value_enum, default_value_t)]
    pub dispatches: super::model::Dispatches,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        // The layers below come from the resolution the library was linked from.
        let (library_bytes, resolved) = match self.library.link_resolved(settings, &mlir) {
            Ok(linked) => linked,
            Err(status) => return status,
        };
        let phase = tracing::info_span!("coverage.match", payloads = self.payloads.len()).entered();
        let mut explanations = match self.explain_all(settings, &mlir, &library_bytes) {
            Ok(explanations) => explanations,
            Err(status) => return status,
        };
        let fired = apply::fired_pairs(&explanations);
        let mut pairs = explanations
            .first()
            .map(|e| e.pairs.clone())
            .unwrap_or_default();
        if let Some(first) = explanations.first_mut() {
            apply::set_layers(first, &resolved.inputs);
            pairs = first.pairs.clone();
        }
        let report = Report {
            payloads: self.payloads.len(),
            pairs: &pairs,
            fired: &fired,
        };
        drop(phase);
        match self.format {
            Format::Json => emit(&format!("{}\n", report.json())),
            // The dead matchers are findings: in short, github and sarif, a warning at each
            // (on stdout; in the SARIF log, written when the run ends).
            Format::Human | Format::Short | Format::Github | Format::Sarif => {
                emit(&report.text(self.format));
            }
        }
        ExitStatus::Ok
    }

    /// Each payload explained with the library (a model: on IREE's dispatches of it, as IREE's
    /// tuning specs see them), in order; the first payload that fails stops the run.
    fn explain_all(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        library_bytes: &[u8],
    ) -> Result<Vec<apply::Explanation>, ExitStatus> {
        let mut explanations = Vec::new();
        for path in &self.payloads {
            let bytes = read(path)?;
            let (bytes, view) = match super::model::read(
                settings,
                &bytes,
                &input_name(path),
                &self.library,
                self.dispatches,
            )? {
                super::model::Read::Own => (bytes, self.view),
                super::model::Read::Dispatches { bytes, .. } => (bytes, apply::View::Written),
            };
            match apply::explain(
                mlir,
                &bytes,
                &input_name(path),
                library_bytes,
                ATTR_NAME,
                apply::Engine::Auto,
                view,
            ) {
                Ok(explanation) => explanations.push(explanation),
                Err(problems) => return Err(fail(problems, &bytes)),
            }
        }
        Ok(explanations)
    }
}

/// What the corpus showed: every pair (with its layer) and those that fired. Its own type so
/// that the JSON and the text reports share the list of dead pairs and who overrode each.
struct Report<'a> {
    payloads: usize,
    pairs: &'a [apply::PairInfo],
    fired: &'a BTreeSet<usize>,
}

impl Report<'_> {
    /// The pairs that never fired, by index.
    fn dead(&self) -> Vec<(usize, &apply::PairInfo)> {
        self.pairs
            .iter()
            .enumerate()
            .filter(|(index, _)| !self.fired.contains(index))
            .collect()
    }

    /// A pair that never fired because an earlier, fired pair takes its ops (a user matcher
    /// over a default): that pair, by index.
    fn overrider(&self, dead: usize) -> Option<usize> {
        apply::overridden_by(self.pairs, self.fired, dead)
    }

    /// `coverage --format json`'s document.
    fn json(&self) -> serde_json::Value {
        let pairs = self.pairs;
        json!({
            "version": 1,
            "payloads": self.payloads,
            "matchers": pairs.len(),
            "fired": self.fired.len(),
            "never_fired": self.dead().iter().map(|(index, pair)| json!({
                "matcher": pair.matcher,
                "action": pair.action,
                "location": pair.matcher_loc.as_ref().map(ToString::to_string),
                "layer": pair.layer.map(tunespec::link::Layer::label),
                "overridden_by": self.overrider(*index).map(|winner| {
                    let winner = &pairs[winner];
                    json!({
                        "matcher": winner.matcher,
                        "location": winner.matcher_loc.as_ref().map(ToString::to_string),
                        "layer": winner.layer.map(tunespec::link::Layer::label),
                    })
                }),
            })).collect::<Vec<_>>(),
        })
    }

    /// The report in `format` (human, short, github, sarif): a warning per dead matcher (not in
    /// human), the human lines (human, github), then the summary unless quiet or sarif.
    fn text(&self, format: Format) -> String {
        let dead = self.dead();
        let style = Style::detect();
        let mut out = String::new();
        if format != Format::Human {
            for (index, pair) in &dead {
                let problem = Problem::warning(
                    NEVER_FIRED,
                    format!(
                        "matcher @{} (action @{}) never fired across {} payload(s){}",
                        pair.matcher,
                        pair.action,
                        self.payloads,
                        overridden_text(self.pairs, self.overrider(*index)),
                    ),
                    pair.matcher_loc.clone(),
                );
                out.push_str(&render(&problem, None, style));
            }
        }
        // github: the workflow commands, then the human report.
        if matches!(format, Format::Human | Format::Github) {
            for (index, pair) in &dead {
                out.push_str(&format!(
                    "never fired: @{} ({}){}\n",
                    pair.matcher,
                    loc_text(&pair.matcher_loc),
                    overridden_text(self.pairs, self.overrider(*index)),
                ));
            }
        }
        if !quiet() && format != Format::Sarif {
            out.push_str(&format!(
                "{} of {} matcher(s) fired across {} payload(s); {} never fired\n",
                self.fired.len(),
                self.pairs.len(),
                self.payloads,
                dead.len()
            ));
        }
        out
    }
}

/// `: overridden by @W (layer, file)` for a pair that never fired because `winner` takes its
/// ops; empty otherwise.
fn overridden_text(pairs: &[apply::PairInfo], winner: Option<usize>) -> String {
    winner.map_or_else(String::new, |winner| {
        let winner = &pairs[winner];
        format!(
            ": overridden by @{} ({}, {})",
            winner.matcher,
            apply::layer_label(winner.layer),
            loc_text(&winner.matcher_loc)
        )
    })
}
