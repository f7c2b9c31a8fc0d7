//! `tunespec explain`: what configured each candidate op of a payload, and from which spec
//! line; the table and JSON forms `apply --explain` prints too.

use std::path::PathBuf;

use serde_json::json;
use tunespec::apply::{self, Explanation, ATTR_NAME};
use tunespec::mlir::Mlir;

use super::common::{emit, fail, input_name, library_for, read, ExitStatus, Format, LibraryArgs};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::EXPLAIN)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// The payload (MLIR text or bytecode), `-` for stdin
    pub payload: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// How the library runs: natively when it can (auto), or always in MLIR's interpreter
    #[arg(long, value_enum, default_value_t)]
    pub engine: apply::Engine,
    /// Which IR to match: as iree-compile sees it at dispatch level (marking ops where that
    /// differs from matching the op as written), or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let mlir = Mlir::new_threaded();
        let payload_bytes = match read(&self.payload) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let name = input_name(&self.payload);
        let library_bytes =
            match library_for(&mlir, &self.library, &payload_bytes, &name, &self.attr) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            };
        match apply::explain(
            &mlir,
            &payload_bytes,
            &name,
            &library_bytes,
            &self.attr,
            self.engine,
            self.view,
        ) {
            Ok(explanation) => {
                emit(&render_explanation(&explanation, self.format));
                ExitStatus::Ok
            }
            Err(problems) => fail(problems, &payload_bytes),
        }
    }
}

fn loops_text(loops: &Option<Vec<i64>>) -> String {
    match loops {
        None => "-".to_string(),
        Some(loops) => loops
            .iter()
            .map(|&extent| {
                if extent < 0 {
                    "?".to_string()
                } else {
                    extent.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("x"),
    }
}

/// The short form of each added attribute, `; `-separated.
fn short_configs(config: &[(String, String)]) -> String {
    config
        .iter()
        .map(|(name, value)| {
            if name == "compilation_info" {
                apply::short_config(value)
            } else {
                format!("{name}={}", apply::short_config(value))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn loc_text(loc: &Option<tunespec::ir::Loc>) -> String {
    loc.as_ref()
        .map_or_else(|| "-".to_string(), ToString::to_string)
}

/// The explanation as a table (one row per candidate op) or as one JSON document.
pub fn render_explanation(explanation: &Explanation, format: Format) -> String {
    match format {
        Format::Json => json_explanation(explanation),
        Format::Human => human_explanation(explanation),
    }
}

fn pair_of<'e>(
    explanation: &'e Explanation,
    row: &apply::ExplainRow,
) -> Option<&'e apply::PairInfo> {
    row.pair.and_then(|index| explanation.pairs.get(index))
}

/// The explanation as one JSON document.
fn json_explanation(explanation: &Explanation) -> String {
    let pair_of = |row| pair_of(explanation, row);
    let ops: Vec<_> = explanation
        .rows
        .iter()
        .map(|row| {
            let pair = pair_of(row);
            let config_json = |config: &[(String, String)]| {
                config
                    .iter()
                    .map(|(name, value)| json!({"name": name, "value": value}))
                    .collect::<Vec<_>>()
            };
            let written = row.written.as_ref().map(|written| {
                let pair = written.pair.and_then(|index| explanation.pairs.get(index));
                json!({
                    "matcher": pair.map(|p| p.matcher.clone()),
                    "matcher_location": pair.and_then(|p| p.matcher_loc.as_ref().map(ToString::to_string)),
                    "config": config_json(&written.config),
                })
            });
            json!({
                "op": row.op,
                "dispatch_op": row.dispatch_op,
                "location": row.loc.as_ref().map(ToString::to_string),
                "loops": row.loops,
                "element_types": row.element_types,
                "matcher": pair.map(|p| p.matcher.clone()),
                "action": pair.map(|p| p.action.clone()),
                "matcher_location": pair.and_then(|p| p.matcher_loc.as_ref().map(ToString::to_string)),
                "provenance": pair.and_then(|p| p.provenance.clone()),
                "config": config_json(&row.config),
                "as_written": written,
            })
        })
        .collect();
    let matched = explanation
        .rows
        .iter()
        .filter(|row| row.pair.is_some())
        .count();
    format!(
        "{}\n",
        json!({
            "version": 2,
            "view": match explanation.view {
                apply::View::Dispatch => "dispatch",
                apply::View::Written => "written",
            },
            "ops": ops,
            "differs_as_written": explanation.differing(),
            "matched": matched,
            "unmatched": explanation.rows.len() - matched,
            "pairs": explanation.pairs.len(),
        })
    )
}

/// The explanation as a table, one row per candidate op, and a summary.
fn human_explanation(explanation: &Explanation) -> String {
    let pair_of = |row| pair_of(explanation, row);
    let mut rows: Vec<[String; 6]> = vec![[
        "op".into(),
        "location".into(),
        "loops".into(),
        "types".into(),
        "matcher (spec)".into(),
        "config".into(),
    ]];
    for row in &explanation.rows {
        let pair = pair_of(row);
        let mut config = short_configs(&row.config);
        if let Some(written) = &row.written {
            let matcher = written
                .pair
                .and_then(|index| explanation.pairs.get(index))
                .map_or_else(|| "no match".to_string(), |p| format!("@{}", p.matcher));
            let as_written = short_configs(&written.config);
            config = format!(
                "{} [* as written: {matcher}{}]",
                if config.is_empty() { "-" } else { &config },
                if as_written.is_empty() {
                    String::new()
                } else {
                    format!(", {as_written}")
                }
            );
        }
        rows.push([
            match &row.dispatch_op {
                Some(dispatch) => format!("{} -> {dispatch}", row.op),
                None => row.op.clone(),
            },
            loc_text(&row.loc),
            loops_text(&row.loops),
            row.element_types.join(","),
            pair.map_or_else(
                || "(no match)".to_string(),
                |p| format!("@{} ({})", p.matcher, loc_text(&p.matcher_loc)),
            ),
            if config.is_empty() {
                "-".into()
            } else {
                config
            },
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, width))| {
                if column == 5 {
                    cell.clone()
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    let matched = explanation
        .rows
        .iter()
        .filter(|row| row.pair.is_some())
        .count();
    out.push_str(&format!(
        "{matched} of {} candidate op(s) configured by {} matcher(s)",
        explanation.rows.len(),
        explanation.pairs.len()
    ));
    match explanation.view {
        apply::View::Dispatch => {
            out.push_str(" in IREE's dispatches (named ops generalized as iree-compile does)");
            let differing = explanation.differing();
            if differing > 0 {
                out.push_str(&format!(
                    "\n* {differing} op(s) would be configured differently if matched as written (`apply` without --as-dispatch); iree-compile does what the table says"
                ));
            }
        }
        apply::View::Written => out.push_str(" (matched as written)"),
    }
    out.push('\n');
    // Where the configs that apply come from, as the specs say.
    let mut provenances: std::collections::BTreeMap<&str, usize> = Default::default();
    for row in &explanation.rows {
        if let Some(pair) = pair_of(row) {
            *provenances
                .entry(
                    pair.provenance
                        .as_deref()
                        .unwrap_or("not stated by the spec"),
                )
                .or_default() += 1;
        }
    }
    for (provenance, count) in &provenances {
        out.push_str(&format!("provenance: {count} config(s) {provenance}\n"));
    }
    out
}
