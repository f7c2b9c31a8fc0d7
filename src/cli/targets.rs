//! `tunespec targets`: the embedded registry at a glance.
use serde_json::json;

use super::common::{emit, ExitStatus, Format};
use super::table::{self, Align};
use tunespec::registry::{Registry, Target};

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::TARGETS)]
pub struct Opts {
    /// Output format: a table (human, github), one line per target (short), one JSON object
    /// per line (json), or a SARIF log of the run's diagnostics (sarif)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// What the table and `short` say about a target.
struct Row {
    matchers: usize,
    /// Where its specs' configs come from: each distinct spec provenance, `; `-separated.
    provenance: String,
    bytes: usize,
    /// One short hash over the target's spec hashes, in priority order.
    hash: String,
}

fn row(target: &Target) -> Row {
    let mut hasher = blake3::Hasher::new();
    for spec in target.default_specs() {
        hasher.update(spec.bytecode_hash.as_bytes());
    }
    let mut provenance: Vec<String> = target
        .default_specs()
        .map(|spec| spec.provenance().1)
        .collect();
    provenance.dedup();
    Row {
        provenance: if provenance.is_empty() {
            "-".to_string()
        } else {
            provenance.join("; ")
        },
        matchers: target.default_specs().map(|spec| spec.matcher_count).sum(),
        bytes: target.default_specs().map(|spec| spec.bytecode_bytes).sum(),
        hash: hasher.finalize().to_hex()[..12].to_string(),
    }
}

impl Opts {
    pub fn run(self, settings: &tunespec::settings::Settings) -> ExitStatus {
        match self.format {
            Format::Json => {
                for target in Registry::embedded().targets() {
                    emit(&format!("{}\n", json_target(target)));
                }
            }
            Format::Short => {
                let mut out = String::new();
                for target in Registry::embedded().targets() {
                    let row = row(target);
                    out.push_str(&format!(
                        "{}: fallback={} aliases={} iree-target={} specs={} matchers={} bytes={} hash={} provenance={}: {}\n",
                        target.name,
                        target.fallback.as_deref().unwrap_or("-"),
                        if target.aliases.is_empty() {
                            "-".to_string()
                        } else {
                            target.aliases.join(",")
                        },
                        iree_cell(target),
                        target.default_specs().count(),
                        row.matchers,
                        row.bytes,
                        row.hash,
                        row.provenance.replace(' ', ""),
                        target.description
                    ));
                }
                emit(&out);
            }
            Format::Human | Format::Github => emit(&format!(
                "{}{}{}\n",
                human(),
                substitution_notes(),
                iree_line(settings)
            )),
            // The registry is built in and verified when tunespec is built: no diagnostics;
            // the log (empty results) is written when the run ends.
            Format::Sarif => {}
        }
        ExitStatus::Ok
    }
}

/// Which IREE releases tunespec writes for, and the one found (cheaply, as `link` finds it; a
/// library that does not load is none): the specs listed here are written in its syntax.
fn iree_line(settings: &tunespec::settings::Settings) -> String {
    let found = settings
        .iree
        .optional()
        .and_then(|found| found.as_ref().ok());
    tunespec::iree::release::support_line(found)
}

/// How IREE compiles for the target: its flags, and why when the architecture is substituted
/// (`sm_90` as `sm_89` PTX); `None` for a family, a vendor or a SKU (IREE compiles for an
/// architecture).
fn iree_target(target: &Target) -> Option<tunespec::iree::CompileTarget> {
    tunespec::iree::compile_target(&target.name)
}

fn json_iree(target: &Target) -> serde_json::Value {
    match iree_target(target) {
        Some(compile) => json!({
            "flags": compile.flags,
            "compiled_as": compile.compiled_as,
            "substitution": compile.substitution,
        }),
        None => serde_json::Value::Null,
    }
}

/// The `iree target` cell: the architecture IREE compiles for, `*` when substituted.
fn iree_cell(target: &Target) -> String {
    match iree_target(target) {
        Some(compile) if compile.substitution.is_some() => format!("{}*", compile.compiled_as),
        Some(compile) => compile.compiled_as,
        None => "-".to_string(),
    }
}

/// The lines under the table: each substitution, with the flags it compiles with.
fn substitution_notes() -> String {
    let mut notes = String::new();
    for compile in Registry::embedded()
        .targets()
        .iter()
        .filter_map(iree_target)
    {
        if let Some(why) = &compile.substitution {
            notes.push_str(&format!("* {why} ({})\n", compile.flags.join(" ")));
        }
    }
    notes
}

fn json_target(target: &Target) -> serde_json::Value {
    let specs: Vec<_> = target
        .default_specs()
        .map(|spec| {
            json!({
                "path": spec.path,
                "matchers": spec.matcher_count,
                "bytecode_bytes": spec.bytecode_bytes,
                "source_bytes": spec.source_bytes,
                "source_hash": spec.source_hash,
                "bytecode_hash": spec.bytecode_hash,
                "provenance": {
                    "kind": spec.provenance().0,
                    "measured": spec.measured_matchers,
                    "derived": spec.derived_matchers,
                    "stated": spec.matcher_count.saturating_sub(spec.measured_matchers + spec.derived_matchers),
                    "rules": spec.derived_rules,
                },
            })
        })
        .collect();
    json!({
        "version": 1,
        "target": target.name,
        "description": target.description,
        "aliases": target.aliases,
        "fallback": target.fallback,
        "kind": target.kind,
        "features": target.features,
        "iree": json_iree(target),
        "specs": specs,
    })
}

/// The registry as a table, one row per target.
fn human() -> String {
    let headers = [
        ("target", Align::Left),
        ("fallback", Align::Left),
        ("aliases", Align::Wrap),
        ("iree target", Align::Left),
        ("specs", Align::Right),
        ("matchers", Align::Right),
        ("bytes", Align::Right),
        ("hash", Align::Left),
        ("provenance", Align::Wrap),
        ("description", Align::Wrap),
    ];
    let rows: Vec<Vec<String>> = Registry::embedded()
        .targets()
        .iter()
        .map(|target| {
            let row = row(target);
            vec![
                target.name.to_string(),
                target.fallback.as_deref().unwrap_or("-").to_string(),
                target.aliases.join(","),
                iree_cell(target),
                target.default_specs().count().to_string(),
                row.matchers.to_string(),
                row.bytes.to_string(),
                row.hash,
                row.provenance,
                target.description.to_string(),
            ]
        })
        .collect();
    table::render(&headers, &rows, table::stdout_width())
}
