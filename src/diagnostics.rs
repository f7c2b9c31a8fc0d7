//! Rendering problems for people (miette, with a source snippet) and for machines (JSON Lines).
//!
//! Why here and not in `problem.rs`: `Problem` is shared with `build.rs`, which has no terminal;
//! presentation choices (colour, width, the JSON schema) belong to the CLI side only.
//!
//! JSON schema (version 1, stable; one object per line):
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

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};
use serde_json::json;

use tunespec::problem::{Problem, Severity};

/// How human-readable reports look.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

impl Style {
    /// Colour only on a terminal without `NO_COLOR`; width from `TUNESPEC_TERM_WIDTH` or 100,
    /// so that output captured by tests and CI logs is stable.
    pub fn detect() -> Self {
        use std::io::IsTerminal;
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let width = std::env::var("TUNESPEC_TERM_WIDTH")
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(100);
        Style { color, width }
    }

    /// The same for reports written to stderr (when stdout carries an output).
    pub fn detect_stderr() -> Self {
        use std::io::IsTerminal;
        Style {
            color: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            ..Self::detect()
        }
    }
}

/// Renders one problem with a snippet of `source` when the problem points into it.
pub fn render(problem: &Problem, source: Option<&[u8]>, style: Style) -> String {
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
    let text = source
        .filter(|bytes| !bytes.is_empty())
        .and_then(|bytes| std::str::from_utf8(bytes).ok());
    let mut out = String::new();
    let mut labels = Vec::new();
    if let (Some(loc), Some(text)) = (&problem.loc, text) {
        if let Some(offset) = offset_of(text, loc.line, loc.col) {
            labels.push(LabeledSpan::at(
                offset..offset + token_len(text, offset),
                "here",
            ));
        }
        for (related_loc, label) in &problem.related {
            if related_loc.file == loc.file {
                if let Some(offset) = offset_of(text, related_loc.line, related_loc.col) {
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
    let report: miette::Report = if has_snippet {
        let name = problem
            .loc
            .as_ref()
            .map(|l| l.file.clone())
            .unwrap_or_default();
        miette::Report::new(diagnostic)
            .with_source_code(NamedSource::new(name, text.unwrap_or_default().to_string()))
    } else {
        miette::Report::new(diagnostic)
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

/// Byte offset of a 1-based line and byte column, if it lies inside `text`.
fn offset_of(text: &str, line: u32, col: u32) -> Option<usize> {
    if line == 0 || col == 0 {
        return None;
    }
    let mut start = 0usize;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let offset = start + col as usize - 1;
    let line_end = text[start..]
        .find('\n')
        .map_or(text.len(), |end| start + end);
    (offset <= line_end && text.is_char_boundary(offset)).then_some(offset)
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
