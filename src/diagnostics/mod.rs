//! Rendering problems for people (miette, with a source snippet) and for machines: JSON Lines,
//! one line per problem (`short`), GitHub workflow commands, SARIF 2.1.0.
//!
//! Why here and not in `problem.rs`: `Problem` is shared with `build.rs`, which has no terminal;
//! presentation choices (colour, width, the JSON schema) belong to the binary only.
//!
//! JSON schema (version 1, stable; one object per line; docs/schema/diagnostic.schema.json):
//! `{"version":1,"severity":"error|warning|note","code":"tunespec::...","message":"...",
//!   "file":"path"|null,"line":N|null,"column":N|null,"help":"..."|null,
//!   "related":[{"file":"...","line":N,"column":N,"message":"..."}]}`
//!
//! `verify` writes at most one record about the run itself, on STDERR (stdout holds findings
//! about the inputs only, the same on every machine), when IREE attributes went unchecked (no
//! iree-opt, or it timed out or failed): the same object with `"severity":"note"`,
//! `"code":"tunespec::iree::not-checked"`, `"file":null`, `"line":null`, `"column":null`, the
//! reason in `"message"` and how to check them in `"help"`.

use std::fmt::Write as _;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};
use serde_json::json;

use tunespec::problem::{Problem, Severity};

/// How human-readable reports look.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

/// Report width when the output is not a terminal (files, pipes, CI logs): fixed, so captured
/// output is stable.
const DEFAULT_WIDTH: usize = 100;

/// `TUNESPEC_TERM_WIDTH`, read from the program's environment at start ([`set_width`]):
/// rendering state of the CLI, like the colour choice.
static WIDTH: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();

/// Takes the reports' width from `env` (`TUNESPEC_TERM_WIDTH`), once, before any report.
pub fn set_width(env: &tunespec::settings::Environment) {
    let width = env
        .text("TUNESPEC_TERM_WIDTH")
        .and_then(|value| value.parse().ok());
    let _ = WIDTH.set(width);
}

impl Style {
    /// For reports written to stdout. Colour as `--color` says; with `auto` (the default) only
    /// on a terminal, and `NO_COLOR`, `CLICOLOR=0` and `CLICOLOR_FORCE=1` are honoured (anstream).
    /// Width from `TUNESPEC_TERM_WIDTH`, else the terminal's, else 100.
    pub fn detect() -> Self {
        use std::io::IsTerminal;
        let stdout = std::io::stdout();
        Self::from_parts(
            anstream::AutoStream::choice(&stdout),
            stdout
                .is_terminal()
                .then(|| terminal_size::terminal_size_of(&stdout))
                .flatten(),
        )
    }

    /// The same for reports written to stderr (when stdout carries an output).
    pub fn detect_stderr() -> Self {
        use std::io::IsTerminal;
        let stderr = std::io::stderr();
        Self::from_parts(
            anstream::AutoStream::choice(&stderr),
            stderr
                .is_terminal()
                .then(|| terminal_size::terminal_size_of(&stderr))
                .flatten(),
        )
    }

    fn from_parts(
        choice: anstream::ColorChoice,
        terminal: Option<(terminal_size::Width, terminal_size::Height)>,
    ) -> Self {
        let width = WIDTH
            .get()
            .copied()
            .flatten()
            .or(terminal.map(|(terminal_size::Width(width), _)| usize::from(width)))
            .filter(|&width| width > 0)
            .unwrap_or(DEFAULT_WIDTH);
        Style {
            color: choice != anstream::ColorChoice::Never,
            width,
        }
    }
}

mod snippet;

pub use snippet::Source;

/// Renders one problem with a snippet of `source` when the problem points into it. For many
/// problems of one text, [`render_source`] with one [`Source`] reads the text once.
pub fn render(problem: &Problem, source: Option<&[u8]>, style: Style) -> String {
    render_source(problem, source.map(Source::new).as_ref(), style)
}

/// [`render`] with the source prepared once (see [`Source`]).
pub fn render_source(problem: &Problem, source: Option<&Source>, style: Style) -> String {
    let mut diagnostic = MietteDiagnostic::new(problem.message.clone())
        .with_code(problem.code)
        .with_severity(match problem.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        });
    if let Some(help) = &problem.help {
        diagnostic = diagnostic.with_help(help.clone());
    }
    let text = source.and_then(Source::text);
    let mut out = String::new();
    let mut labels = Vec::new();
    if let (Some(loc), Some(source), Some(text)) = (&problem.loc, source, text) {
        if let Some(offset) = source.offset_of(loc.line, loc.col) {
            labels.push(LabeledSpan::at(
                offset..offset + token_len(text, offset),
                "here",
            ));
        }
        for (related_loc, label) in &problem.related {
            if related_loc.file == loc.file {
                if let Some(offset) = source.offset_of(related_loc.line, related_loc.col) {
                    labels.push(LabeledSpan::at(
                        offset..offset + token_len(text, offset),
                        label.clone(),
                    ));
                }
            }
        }
    }
    let has_snippet = !labels.is_empty();
    diagnostic = diagnostic.with_labels(labels);
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    if let Some(loc) = &problem.loc {
        let _ = writeln!(out, "{loc}:");
    }
    let name = problem
        .loc
        .as_ref()
        .map(|l| l.file.clone())
        .unwrap_or_default();
    let report: miette::Report = match source.and_then(|source| source.snippet(name)) {
        Some(snippet) if has_snippet => miette::Report::new(diagnostic).with_source_code(snippet),
        _ => miette::Report::new(diagnostic),
    };
    let _ = handler.render_report(&mut out, report.as_ref());
    // Related locations in other files (or without a snippet) as plain lines.
    for (related_loc, label) in &problem.related {
        if !has_snippet
            || problem
                .loc
                .as_ref()
                .is_none_or(|loc| loc.file != related_loc.file)
        {
            let _ = writeln!(out, "  note: {related_loc}: {label}");
        }
    }
    out
}

/// The JSON Lines form of one problem (schema in the module docs).
pub fn to_json(problem: &Problem) -> serde_json::Value {
    json!({
        "version": 1,
        "severity": problem.severity.as_str(),
        "code": problem.code,
        "message": problem.message,
        "file": problem.loc.as_ref().map(|loc| loc.file.clone()),
        "line": problem.loc.as_ref().map(|loc| loc.line),
        "column": problem.loc.as_ref().map(|loc| loc.col),
        "help": problem.help,
        "related": problem.related.iter().map(|(loc, message)| json!({
            "file": loc.file, "line": loc.line, "column": loc.col, "message": message,
        })).collect::<Vec<_>>(),
    })
}

/// Length of the identifier-like token at `offset` (at least 1 when not at the end).
fn token_len(text: &str, offset: usize) -> usize {
    let rest = &text[offset..];
    let len = rest
        .char_indices()
        .find(|(_, ch)| !(ch.is_alphanumeric() || matches!(ch, '_' | '.' | '@' | '%' | '$' | '-')))
        .map_or(rest.len(), |(index, _)| index);
    if len == 0 {
        rest.chars().next().map_or(0, char::len_utf8)
    } else {
        len
    }
}

/// One line per problem, what editors and CI problem matchers parse:
/// `file:line:col: severity[code]: message` (`severity[code]: message` without a location).
pub fn to_short(problem: &Problem) -> String {
    let location = problem
        .loc
        .as_ref()
        .map(|loc| format!("{}:{}:{}: ", loc.file, loc.line, loc.col))
        .unwrap_or_default();
    format!(
        "{location}{}[{}]: {}\n",
        problem.severity.as_str(),
        problem.code,
        one_line(&problem.message)
    )
}

/// A GitHub Actions workflow command (`::error file=F,line=L,col=C,title=CODE::MESSAGE`), which
/// the runner shows as an annotation on the line. Notes are `::notice`.
pub fn to_github(problem: &Problem) -> String {
    let command = match problem.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut properties = Vec::new();
    if let Some(loc) = &problem.loc {
        properties.push(format!("file={}", github_property(&loc.file)));
        properties.push(format!("line={}", loc.line));
        properties.push(format!("col={}", loc.col));
    }
    properties.push(format!("title={}", github_property(problem.code)));
    let mut message = problem.message.clone();
    if let Some(help) = &problem.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!(
        "::{command} {}::{}\n",
        properties.join(","),
        github_data(&message)
    )
}

/// Escapes a workflow command's message.
fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

/// One SARIF 2.1.0 log (GitHub code scanning, IDE viewers) holding `problems`: one run, the
/// rules are the tunespec codes that occur (sorted), each result names its rule by id and index.
/// No timestamps or absolute paths of tunespec's own: the log is deterministic.
pub fn sarif_log(problems: &[Problem]) -> serde_json::Value {
    let rules: Vec<&str> = problems
        .iter()
        .map(|problem| problem.code)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let location = |loc: &tunespec::ir::Loc, message: Option<&str>| {
        let mut value = json!({
            "physicalLocation": {
                "artifactLocation": { "uri": sarif_uri(&loc.file) },
                "region": { "startLine": loc.line.max(1), "startColumn": loc.col.max(1) },
            }
        });
        if let Some(message) = message {
            value["message"] = json!({ "text": message });
        }
        value
    };
    let results: Vec<serde_json::Value> = problems
        .iter()
        .map(|problem| {
            let mut text = problem.message.clone();
            if let Some(help) = &problem.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            json!({
                "ruleId": problem.code,
                "ruleIndex": rules.iter().position(|rule| *rule == problem.code),
                "level": match problem.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                },
                "message": { "text": text },
                "locations": problem.loc.iter().map(|loc| location(loc, None)).collect::<Vec<_>>(),
                "relatedLocations": problem.related.iter().enumerate().map(|(index, (loc, label))| {
                    let mut value = location(loc, Some(label));
                    value["id"] = json!(index);
                    value
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "tunespec",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules.iter().map(|rule| json!({
                        "id": rule,
                        "name": rule.rsplit("::").next().unwrap_or(rule),
                        "shortDescription": { "text": rule },
                    })).collect::<Vec<_>>(),
                }
            },
            "results": results,
        }]
    })
}

/// A file name as a SARIF artifact URI: a relative reference with `/` separators and the
/// characters URIs reserve percent-encoded.
fn sarif_uri(file: &str) -> String {
    let mut out = String::new();
    for byte in file.replace('\\', "/").bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
