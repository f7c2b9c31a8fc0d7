//! `tunespec coverage`: matchers that never fire across a corpus of payloads.

use std::path::PathBuf;

use serde_json::json;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::mlir::Mlir;

use super::common::{emit, fail, input_name, read, ExitStatus, Format, LibraryArgs};
use super::explain::loc_text;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::COVERAGE)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Payloads (a corpus); `-` for one read from stdin
    #[arg(required = true)]
    pub payloads: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Which IR to match: as iree-compile sees it at dispatch level, or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let library_bytes = match self.library.link(&mlir) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let mut explanations = Vec::new();
        for path in &self.payloads {
            let bytes = match read(path) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            };
            match apply::explain(
                &mlir,
                &bytes,
                &input_name(path),
                &library_bytes,
                ATTR_NAME,
                apply::Engine::Auto,
                self.view,
            ) {
                Ok(explanation) => explanations.push(explanation),
                Err(problems) => return fail(problems, &bytes),
            }
        }
        let fired = apply::fired_pairs(&explanations);
        let pairs = explanations
            .first()
            .map(|e| e.pairs.clone())
            .unwrap_or_default();
        let dead: Vec<(usize, &apply::PairInfo)> = pairs
            .iter()
            .enumerate()
            .filter(|(index, _)| !fired.contains(index))
            .collect();
        match self.format {
            Format::Json => emit(&format!(
                "{}\n",
                json!({
                    "version": 1,
                    "payloads": self.payloads.len(),
                    "matchers": pairs.len(),
                    "fired": fired.len(),
                    "never_fired": dead.iter().map(|(_, pair)| json!({
                        "matcher": pair.matcher,
                        "action": pair.action,
                        "location": pair.matcher_loc.as_ref().map(ToString::to_string),
                    })).collect::<Vec<_>>(),
                })
            )),
            Format::Human => {
                let mut out = String::new();
                for (_, pair) in &dead {
                    out.push_str(&format!(
                        "never fired: @{} ({})\n",
                        pair.matcher,
                        loc_text(&pair.matcher_loc)
                    ));
                }
                out.push_str(&format!(
                    "{} of {} matcher(s) fired across {} payload(s); {} never fired\n",
                    fired.len(),
                    pairs.len(),
                    self.payloads.len(),
                    dead.len()
                ));
                emit(&out);
            }
        }
        ExitStatus::Ok
    }
}
