//! `tunespec coverage`: matchers that never fire across a corpus of payloads.

use std::path::PathBuf;

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
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let library_bytes = match self.library.link(&mlir) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let mut explanations = Vec::new();
        let phase = tracing::info_span!("coverage.match", payloads = self.payloads.len()).entered();
        for path in &self.payloads {
            let bytes = match read(path) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            };
            // A model: IREE's dispatches of it, as IREE's tuning specs see them.
            let (bytes, view) =
                match super::model::read(&bytes, &input_name(path), &self.library, self.dispatches)
                {
                    Ok(super::model::Read::Own) => (bytes, self.view),
                    Ok(super::model::Read::Dispatches { bytes, .. }) => {
                        (bytes, apply::View::Written)
                    }
                    Err(status) => return status,
                };
            match apply::explain(
                &mlir,
                &bytes,
                &input_name(path),
                &library_bytes,
                ATTR_NAME,
                apply::Engine::Auto,
                view,
            ) {
                Ok(explanation) => explanations.push(explanation),
                Err(problems) => return fail(problems, &bytes),
            }
        }
        let fired = apply::fired_pairs(&explanations);
        let mut pairs = explanations
            .first()
            .map(|e| e.pairs.clone())
            .unwrap_or_default();
        if let Some(first) = explanations.first_mut() {
            if let Ok(inputs) = self.library.inputs() {
                apply::set_layers(first, &inputs);
                pairs = first.pairs.clone();
            }
        }
        // A pair that never fired because an earlier, fired pair takes its ops (a user matcher
        // over a default): that pair, by index.
        let overrider = |dead: usize| apply::overridden_by(&pairs, &fired, dead);
        let dead: Vec<(usize, &apply::PairInfo)> = pairs
            .iter()
            .enumerate()
            .filter(|(index, _)| !fired.contains(index))
            .collect();
        drop(phase);
        let summary = format!(
            "{} of {} matcher(s) fired across {} payload(s); {} never fired\n",
            fired.len(),
            pairs.len(),
            self.payloads.len(),
            dead.len()
        );
        match self.format {
            Format::Json => emit(&format!(
                "{}\n",
                json!({
                    "version": 1,
                    "payloads": self.payloads.len(),
                    "matchers": pairs.len(),
                    "fired": fired.len(),
                    "never_fired": dead.iter().map(|(index, pair)| json!({
                        "matcher": pair.matcher,
                        "action": pair.action,
                        "location": pair.matcher_loc.as_ref().map(ToString::to_string),
                        "layer": pair.layer.map(tunespec::link::Layer::label),
                        "overridden_by": overrider(*index).map(|winner| {
                            let winner = &pairs[winner];
                            json!({
                                "matcher": winner.matcher,
                                "location": winner.matcher_loc.as_ref().map(ToString::to_string),
                                "layer": winner.layer.map(tunespec::link::Layer::label),
                            })
                        }),
                    })).collect::<Vec<_>>(),
                })
            )),
            // The dead matchers are findings: in short, github and sarif, a warning at each
            // (on stdout; in the SARIF log, written when the run ends).
            Format::Human | Format::Short | Format::Github | Format::Sarif => {
                let style = Style::detect();
                let mut out = String::new();
                if self.format != Format::Human {
                    for (index, pair) in &dead {
                        let problem = Problem::warning(
                            NEVER_FIRED,
                            format!(
                                "matcher @{} (action @{}) never fired across {} payload(s){}",
                                pair.matcher,
                                pair.action,
                                self.payloads.len(),
                                overridden_text(&pairs, overrider(*index)),
                            ),
                            pair.matcher_loc.clone(),
                        );
                        out.push_str(&render(&problem, None, style));
                    }
                }
                // github: the workflow commands, then the human report.
                if matches!(self.format, Format::Human | Format::Github) {
                    for (index, pair) in &dead {
                        out.push_str(&format!(
                            "never fired: @{} ({}){}\n",
                            pair.matcher,
                            loc_text(&pair.matcher_loc),
                            overridden_text(&pairs, overrider(*index)),
                        ));
                    }
                }
                if !quiet() && self.format != Format::Sarif {
                    out.push_str(&summary);
                }
                emit(&out);
            }
        }
        ExitStatus::Ok
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
