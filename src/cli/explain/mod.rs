//! `tunespec explain`: what configured each candidate op of a payload, and from which spec
//! line; the table and JSON forms `apply --explain` prints too. [`exact`]: `--exact`, the
//! prediction compared with IREE's compile; [`provenance`]: where each pair's config comes from,
//! rendered.

pub mod exact;
pub mod provenance;

use std::path::PathBuf;
use tunespec::settings::Settings;

use serde_json::json;
use tunespec::apply::{self, Explanation, ATTR_NAME};
use tunespec::mlir::Mlir;

use tunespec::problem::{Problem, Severity};

use super::common::{
    emit, fail, input_name, library_for, quiet, read, report, ExitStatus, Format, LibraryArgs,
};
use super::table::{self, Align};
use provenance::WouldApply;

/// The code of the note on a candidate op no matcher configures (`github`, `sarif`).
pub const UNMATCHED: &str = "tunespec::explain::unmatched";

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::EXPLAIN)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// A shared store whose best entries for the target are linked below the user's own specs
    /// (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)
    #[arg(long, value_name = "URL", requires = "target")]
    pub store: Option<String>,
    /// The payload (MLIR text or bytecode), `-` for stdin
    pub payload: PathBuf,
    /// Attribute that carries the library
    #[arg(long, default_value = ATTR_NAME)]
    pub attr: String,
    /// Output format: a table (human; github, with a notice per unmatched op), one line per
    /// candidate op (short), one JSON document (json), or a SARIF log with a note per
    /// unmatched op (sarif)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// How the library runs: natively when it can (auto), or always in MLIR's interpreter
    #[arg(long, value_enum, default_value_t)]
    pub engine: apply::Engine,
    /// Which IR to match: as iree-compile sees it at dispatch level (marking ops where that
    /// differs from matching the op as written), or as written
    #[arg(long, value_enum, default_value_t)]
    pub view: apply::View,
    /// Also run IREE's configuration phase (the user's IREE, found as `tunespec doctor` says)
    /// with the library attached, and check each predicted config against the one IREE set
    /// (exit 3 on a difference)
    #[arg(long)]
    pub exact: bool,
    /// Who forms the dispatches matched: IREE for models and tunespec's prediction for linalg
    /// IR (auto), always IREE (exact on every backend), always the prediction
    #[arg(long, value_enum, default_value_t)]
    pub dispatches: super::model::Dispatches,
}

impl Opts {
    pub fn run(mut self, settings: &Settings) -> ExitStatus {
        self.library.store = self.store.take();
        let mlir = Mlir::new_threaded();
        let payload_bytes = match read(&self.payload) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let name = input_name(&self.payload);
        let raw = payload_bytes.clone();
        // `formed`: IREE formed the dispatches as its tuning specs see them.
        let (payload_bytes, formed) = match super::model::read(
            settings,
            &payload_bytes,
            &name,
            &self.library,
            self.dispatches,
        ) {
            Ok(super::model::Read::Own) => (payload_bytes, false),
            Ok(super::model::Read::Dispatches { bytes, .. }) => {
                if !self.library.given() {
                    super::common::tool_error_with(
                        super::model::NEEDED,
                        format!("{name} is read through IREE's dispatches, which carry no attached library: give --target or --spec"),
                        None,
                    );
                    return ExitStatus::Usage;
                }
                (bytes, true)
            }
            Err(status) => return status,
        };
        let (library_bytes, resolved) = match library_for(
            settings,
            &mlir,
            &self.library,
            &payload_bytes,
            &name,
            &self.attr,
        ) {
            Ok(linked) => linked,
            Err(status) => return status,
        };
        let explained = {
            let _phase =
                tracing::info_span!("explain.match", view = view_name(self.view)).entered();
            apply::explain(
                &mlir,
                &payload_bytes,
                &name,
                &library_bytes,
                &self.attr,
                self.engine,
                // IREE formed the dispatches as its tuning specs see them: nothing to predict;
                // on a backend that keeps named ops, the ops as written are the prediction.
                if formed || super::model::keeps_named_ops(settings, &self.library) {
                    apply::View::Written
                } else {
                    self.view
                },
            )
        };
        match explained {
            Ok(mut explanation) => {
                // Each pair's layer, and the ops a withheld derived default would configure.
                let would = provenance::annotate(
                    &mlir,
                    resolved.as_ref(),
                    &mut explanation,
                    &payload_bytes,
                    &name,
                    &self.attr,
                    self.engine,
                );
                report_unmatched(&explanation, self.format, &would);
                emit(&render_explanation(
                    &explanation,
                    self.format,
                    table::stdout_width(),
                    &would,
                    formed,
                ));
                if self.exact {
                    return exact::run(
                        &exact::Exact {
                            settings,
                            mlir: &mlir,
                            raw: &raw,
                            name: &name,
                            args: &self.library,
                            library: &library_bytes,
                            attr: &self.attr,
                            format: self.format,
                        },
                        &explanation,
                    );
                }
                ExitStatus::Ok
            }
            Err(problems) => fail(problems, &payload_bytes),
        }
    }
}

/// `dispatch` or `written`, as `--view` and the JSON name them.
fn view_name(view: apply::View) -> &'static str {
    match view {
        apply::View::Dispatch => "dispatch",
        apply::View::Written => "written",
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

/// The explanation in `format`: a table fitting `width` (human, github; see
/// [`table::render`]), one line per candidate op (short), one JSON document (json); nothing in
/// sarif, whose log holds the notes of [`report_unmatched`]. `would`: the ops a derived default,
/// withheld by measured first, would configure (see [`provenance::would_apply`]).
pub fn render_explanation(
    explanation: &Explanation,
    format: Format,
    width: Option<usize>,
    would: &[WouldApply],
    formed: bool,
) -> String {
    match format {
        Format::Json => json_explanation(explanation, would),
        Format::Human | Format::Github => human_explanation(explanation, width, would, formed),
        Format::Short => short_explanation(explanation, would, formed),
        Format::Sarif => String::new(),
    }
}

/// In `github` and `sarif`, where diagnostics become annotations on lines: a note on each
/// candidate op that no matcher configures, reported as the run's diagnostics are; each names
/// the withheld derived default in `would` that would configure its op.
pub fn report_unmatched(explanation: &Explanation, format: Format, would: &[WouldApply]) {
    if matches!(format, Format::Github | Format::Sarif) {
        let mut notes = unmatched_notes(explanation);
        provenance::annotate_notes(&mut notes, explanation, would);
        report(&notes, None);
    }
}

/// A note per candidate op no matcher configures (it keeps IREE's default configuration).
pub fn unmatched_notes(explanation: &Explanation) -> Vec<Problem> {
    explanation
        .rows
        .iter()
        .filter(|row| row.pair.is_none())
        .map(|row| {
            let loops = match &row.loops {
                Some(_) => format!(" (loops {})", loops_text(&row.loops)),
                None => String::new(),
            };
            Problem {
                severity: Severity::Note,
                ..Problem::error(
                    UNMATCHED,
                    format!(
                        "no matcher configures this {}{loops}: it keeps IREE's default configuration",
                        row.dispatch_op.as_deref().unwrap_or(&row.op)
                    ),
                    row.loc.clone(),
                )
            }
        })
        .collect()
}

/// One line per candidate op, `location: op: @matcher (spec location): config` (`no match`
/// when none configures it), then a summary line unless `-q`.
fn short_explanation(explanation: &Explanation, would: &[WouldApply], formed: bool) -> String {
    let mut out = String::new();
    for row in &explanation.rows {
        if let Some(loc) = &row.loc {
            out.push_str(&format!("{loc}: "));
        }
        out.push_str(&row.op);
        if let Some(dispatch) = &row.dispatch_op {
            out.push_str(&format!(" -> {dispatch}"));
        }
        out.push_str(&format!(
            " loops={} types={}: ",
            loops_text(&row.loops),
            if row.element_types.is_empty() {
                "-".to_string()
            } else {
                row.element_types.join(",")
            }
        ));
        match pair_of(explanation, row) {
            Some(pair) => out.push_str(&format!(
                "@{} ({}){}",
                pair.matcher,
                loc_text(&pair.matcher_loc),
                earlier_pairs(explanation, row)
            )),
            None => out.push_str("no match"),
        }
        if let Some(pair) = pair_of(explanation, row) {
            out.push_str(&format!(" [{}]", provenance::words(pair)));
        }
        let config = short_configs(&row.config);
        if !config.is_empty() {
            out.push_str(&format!(": {config}"));
        }
        if let Some(written) = &row.written {
            let matcher = written
                .pair
                .and_then(|index| explanation.pairs.get(index))
                .map_or_else(|| "no match".to_string(), |p| format!("@{}", p.matcher));
            out.push_str(&format!(" [as written: {matcher}]"));
        }
        out.push('\n');
    }
    if !quiet() {
        out.push_str(&summary_line(explanation, formed));
        out.push('\n');
        if let Some(summary) = provenance::summary(explanation) {
            out.push_str(&format!("provenance summary: {summary}\n"));
        }
        out.push_str(&provenance::would_lines(would));
    }
    out
}

/// `N of M candidate op(s) configured by K matcher(s)` and the view; `formed`: IREE formed the
/// payload's dispatches (read through IREE: nothing left to generalize).
fn summary_line(explanation: &Explanation, formed: bool) -> String {
    let matched = explanation
        .rows
        .iter()
        .filter(|row| row.pair.is_some())
        .count();
    let mut out = format!(
        "{matched} of {} candidate op(s) configured by {} matcher(s)",
        explanation.rows.len(),
        explanation.pairs.len()
    );
    match explanation.view {
        apply::View::Written if formed => out.push_str(
            " in IREE's dispatches, as IREE formed them for its tuning specs (read through IREE)",
        ),
        apply::View::Dispatch => {
            out.push_str(" in IREE's dispatches (named ops generalized as iree-compile does)")
        }
        apply::View::Written => out.push_str(" (matched as written)"),
    }
    out
}

/// ` after @a, @b` when pairs other than the row's ran on the op before it (entry points or specs
/// chained through `transform.include`, each running on every op), else nothing.
fn earlier_pairs(explanation: &Explanation, row: &apply::ExplainRow) -> String {
    let earlier: Vec<String> = row
        .fired
        .iter()
        .filter(|&&index| Some(index) != row.pair)
        .filter_map(|&index| explanation.pairs.get(index))
        .map(|pair| format!("@{} -> @{}", pair.matcher, pair.action))
        .collect();
    if earlier.is_empty() {
        String::new()
    } else {
        format!(" after {}", earlier.join(", "))
    }
}

fn pair_of<'e>(
    explanation: &'e Explanation,
    row: &apply::ExplainRow,
) -> Option<&'e apply::PairInfo> {
    row.pair.and_then(|index| explanation.pairs.get(index))
}

/// The explanation as one JSON document.
fn json_explanation(explanation: &Explanation, would: &[WouldApply]) -> String {
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
            let (provenance_kind, measurement) = provenance::op_json(pair);
            json!({
                "provenance_kind": provenance_kind,
                "measurement": measurement,
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
                "fired": row
                    .fired
                    .iter()
                    .filter_map(|&index| explanation.pairs.get(index))
                    .map(|p| json!({
                        "matcher": p.matcher,
                        "matcher_location": p.matcher_loc.as_ref().map(ToString::to_string),
                    }))
                    .collect::<Vec<_>>(),
                "as_written": written,
                "layer": pair.and_then(|p| p.layer).map(tunespec::link::Layer::label),
                "overrides": overrides_json(explanation, row),
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
            "view": view_name(explanation.view),
            "ops": ops,
            "differs_as_written": explanation.differing(),
            "matched": matched,
            "unmatched": explanation.rows.len() - matched,
            "pairs": explanation.pairs.len(),
            "provenance": provenance::summary_json(explanation, would),
        })
    )
}

/// The explanation as a table, one row per candidate op, and a summary (unless `-q`).
fn human_explanation(
    explanation: &Explanation,
    width: Option<usize>,
    would: &[WouldApply],
    formed: bool,
) -> String {
    let pair_of = |row| pair_of(explanation, row);
    let mut rows: Vec<Vec<String>> = Vec::new();
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
        rows.push(vec![
            match &row.dispatch_op {
                Some(dispatch) => format!("{} -> {dispatch}", row.op),
                None => row.op.clone(),
            },
            loc_text(&row.loc),
            loops_text(&row.loops),
            row.element_types.join(","),
            pair.map_or_else(
                || "(no match)".to_string(),
                |p| {
                    format!(
                        "@{} ({}){}",
                        p.matcher,
                        loc_text(&p.matcher_loc),
                        earlier_pairs(explanation, row)
                    )
                },
            ),
            if config.is_empty() {
                "-".into()
            } else {
                config
            },
        ]);
    }
    let headers = [
        ("op", Align::Left),
        ("location", Align::Wrap),
        ("loops", Align::Left),
        ("types", Align::Left),
        ("matcher (spec)", Align::Wrap),
        ("config", Align::Wrap),
    ];
    let mut out = table::render(&headers, &rows, width);
    if quiet() {
        return out;
    }
    out.push_str(&summary_line(explanation, formed));
    if explanation.view == apply::View::Dispatch {
        let differing = explanation.differing();
        if differing > 0 {
            out.push_str(&format!(
                "\n* {differing} op(s) would be configured differently if matched as written (`apply` without --as-dispatch); iree-compile does what the table says"
            ));
        }
    }
    out.push('\n');
    // Where the configs that apply come from, as the specs say.
    out.push_str(&provenance::human_lines(explanation, would));
    out.push_str(&overrides_text(explanation));
    out
}

/// The pairs `row`'s winner overrode on its op (see [`apply::overridden`]), as JSON.
fn overrides_json(explanation: &Explanation, row: &apply::ExplainRow) -> Vec<serde_json::Value> {
    let Some(winner) = row.pair else {
        return Vec::new();
    };
    apply::overridden(&explanation.pairs, winner)
        .into_iter()
        .map(|index| {
            let pair = &explanation.pairs[index];
            json!({
                "matcher": pair.matcher,
                "matcher_location": pair.matcher_loc.as_ref().map(ToString::to_string),
                "layer": pair.layer.map(tunespec::link::Layer::label),
            })
        })
        .collect()
}

/// The human report's layer lines: how many configs come from each layer, and one line per op
/// whose winner overrode later pairs (a user matcher over a default): winner, layer, file, and
/// each pair overridden with its own.
fn overrides_text(explanation: &Explanation) -> String {
    let mut out = String::new();
    let mut layers: std::collections::BTreeMap<tunespec::link::Layer, usize> = Default::default();
    for row in &explanation.rows {
        if let Some(layer) = pair_of(explanation, row).and_then(|pair| pair.layer) {
            *layers.entry(layer).or_default() += 1;
        }
    }
    if !layers.is_empty() {
        let parts: Vec<String> = layers
            .iter()
            .map(|(layer, count)| format!("{count} from {}", layer.label()))
            .collect();
        out.push_str(&format!("layers: config(s) {}\n", parts.join(", ")));
    }
    for row in &explanation.rows {
        let Some(winner) = row.pair else {
            continue;
        };
        let overridden = apply::overridden(&explanation.pairs, winner);
        if overridden.is_empty() {
            continue;
        }
        let pair = &explanation.pairs[winner];
        let names: Vec<String> = overridden
            .iter()
            .map(|&index| {
                let other = &explanation.pairs[index];
                format!(
                    "@{} ({}, {})",
                    other.matcher,
                    apply::layer_label(other.layer),
                    loc_text(&other.matcher_loc)
                )
            })
            .collect();
        out.push_str(&format!(
            "override: {} at {}: @{} ({}, {}) overrides {}\n",
            row.op,
            loc_text(&row.loc),
            pair.matcher,
            apply::layer_label(pair.layer),
            loc_text(&pair.matcher_loc),
            names.join(", ")
        ));
    }
    out
}
