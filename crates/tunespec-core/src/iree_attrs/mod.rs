//! IREE attributes in specs (`#iree_codegen.*`, `#iree_gpu.*`, any `#iree_*`): finding them,
//! checking them with IREE's own parser, and reading the few config fields tunespec lints.
//!
//! Why iree-opt: tunespec's MLIR context knows no IREE dialect, so an IREE attribute parses as
//! an opaque attribute whatever it holds; a misspelt pipeline or MMA intrinsic would pass
//! `verify` and only fail inside IREE's compile. iree-opt (PyPI `iree-base-compiler`) is the one
//! parser that knows. It is optional, so it runs as a child process: ONE per run, on a generated
//! file with one `// -----` chunk per attribute (`--split-input-file`), each chunk wrapping the
//! attribute in `module attributes {tunespec.check = ...} {}`. No `--allow-unregistered-dialect`:
//! an attribute of a misspelt dialect (`#iree_gpus.lowering_config`) is then an error too.
//!
//! Locations: attributes are copied from the spec text line for line, with the first line padded
//! to the attribute's column, so iree-opt's `line:col` (which `--split-input-file` reports
//! relative to the whole generated file) maps back to the spec by a line offset. Aliases an
//! attribute uses (`#lc = ...`, `!t = ...`) are copied into its chunk the same way. Bytecode
//! specs have no text: their attributes are checked in MLIR's printed form and reported at the
//! location of the op that holds them.
//!
//! Part of tunespec-core, which `build.rs` also uses (it checks the default specs when iree-opt is
//! present), so it depends on nothing but std.
//!
//! Here: the sites (where attributes are) and how they are collected; `scan` reads spec text,
//! `iree_opt` runs the check, `lints` reads tile lists and workgroup sizes, `texts` maps ops to
//! their attributes' text.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::ir::{self, Attr, Loc};
use crate::problem::{codes, Problem};

mod iree_opt;
mod lints;
pub mod migrate;
mod scan;
mod texts;

pub use self::iree_opt::*;
pub use self::lints::*;
use self::scan::*;
pub use self::texts::*;

/// How long iree-opt may take for a whole run before it is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The environment variable naming iree-opt itself (after the `--iree-opt` flag; `build.rs`
/// reads only this one).
pub const ENV_IREE_OPT: &str = "TUNESPEC_IREE_OPT";
/// The time limit of one iree-opt run, whole seconds (default [`DEFAULT_TIMEOUT`]).
pub const ENV_TIMEOUT: &str = "TUNESPEC_IREE_TIMEOUT_SECS";

/// One IREE attribute of one spec, ready to be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Where the attribute starts (text) or the op that holds it (bytecode).
    pub loc: Option<Loc>,
    /// Alias definitions the attribute uses, in source order, then the attribute.
    segments: Vec<Segment>,
}

impl Site {
    /// The text iree-opt reads for this site (its alias definitions, then the attribute),
    /// appended to `out` with each segment's length: what IREE's verdict on the site depends
    /// on, for a cache of verdicts.
    pub fn checked_text(&self, out: &mut Vec<u8>) {
        for segment in &self.segments {
            out.extend_from_slice(&(segment.text.len() as u64).to_le_bytes());
            out.extend_from_slice(segment.text.as_bytes());
        }
    }
}

/// Text copied into a chunk: from the spec (lines map back) or MLIR's printed form (they do not).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    /// The spec line of the first line of `text`; `None` for printed text.
    first_line: Option<u32>,
    /// Lines to copy; in spec text the first one is padded to the original column.
    text: String,
}

/// Every IREE attribute of a spec that MLIR parsed: from its text when it is text, else from the
/// snapshot's printed attributes.
pub fn collect(bytes: &[u8], file: &str, snapshot: Option<&ir::Module>) -> Vec<Site> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !bytes.starts_with(b"ML\xEFR") => collect_text(text, file),
        _ => snapshot.map_or_else(Vec::new, collect_printed),
    }
}

/// Attribute sites in MLIR text: each `#iree_*` attribute not nested in another one.
pub fn collect_text(text: &str, file: &str) -> Vec<Site> {
    let scan = scan(text);
    let lines = Lines::new(text);
    scan.sites
        .iter()
        .map(|&(start, end)| {
            let mut used = BTreeSet::new();
            aliases_used(&text[start..end], &scan.aliases, text, &mut used);
            let mut segments: Vec<Segment> = used
                .iter()
                .map(|&index| {
                    let alias = &scan.aliases[index];
                    segment(text, &lines, alias.start, alias.end)
                })
                .collect();
            segments.push(segment(text, &lines, start, end));
            let (line, col) = lines.line_col(start);
            Site {
                loc: Some(Loc {
                    file: file.to_string(),
                    line,
                    col,
                }),
                segments,
            }
        })
        .collect()
}

/// Attribute sites from a snapshot (bytecode input): every printed attribute value that holds an
/// IREE attribute, at its op's location.
pub fn collect_printed(module: &ir::Module) -> Vec<Site> {
    let mut sites = Vec::new();
    module.root.walk(&mut |op| {
        for (_, attr) in &op.attrs {
            printed_iree_attrs(attr, &mut |printed| {
                sites.push(Site {
                    loc: op.loc.clone(),
                    segments: vec![Segment {
                        first_line: None,
                        text: printed.to_string(),
                    }],
                });
            });
        }
    });
    sites
}

/// Calls `found` with each printed attribute value under `attr` that names an IREE attribute.
pub fn printed_iree_attrs<'a>(attr: &'a Attr, found: &mut dyn FnMut(&'a str)) {
    match attr {
        Attr::Array(items) => items
            .iter()
            .for_each(|item| printed_iree_attrs(item, found)),
        Attr::Dict(entries) => entries
            .iter()
            .for_each(|(_, value)| printed_iree_attrs(value, found)),
        Attr::Other(printed) if printed.contains("#iree_") => found(printed),
        _ => {}
    }
}
