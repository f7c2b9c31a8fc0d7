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

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::ir::{self, Attr, Loc};
use crate::problem::{codes, Problem};

/// How long iree-opt may take for a whole run before it is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The environment variables that locate iree-opt, in the order they are tried (after the
/// `--iree-opt` flag), and the one that changes the timeout (whole seconds).
pub const ENV_IREE_OPT: &str = "TUNESPEC_IREE_OPT";
pub const ENV_IREE_VENV: &str = "TUNESPEC_IREE_VENV";
pub const ENV_TIMEOUT: &str = "TUNESPEC_IREE_TIMEOUT_SECS";

/// One IREE attribute of one spec, ready to be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Where the attribute starts (text) or the op that holds it (bytecode).
    pub loc: Option<Loc>,
    /// Alias definitions the attribute uses, in source order, then the attribute.
    segments: Vec<Segment>,
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

/// An alias definition (`#name = value` or `!name = value`) at the top level of the text.
struct Alias {
    /// The alias with its sigil, e.g. `#lc`.
    name: String,
    /// Offset of the `#`/`!` and the end of the value.
    start: usize,
    end: usize,
}

struct Scan {
    aliases: Vec<Alias>,
    /// Byte ranges of top-level `#iree_*` attributes.
    sites: Vec<(usize, usize)>,
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.' | b'-')
}

/// End of the identifier starting at `start` (`-` is not part of MLIR identifiers, but of
/// none of the names here either; stop at it).
fn ident_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < bytes.len() && is_ident(bytes[end]) && bytes[end] != b'-' {
        end += 1;
    }
    end
}

/// Skips a string starting at `index` (on its `"`); returns the offset after the closing quote.
fn skip_string(bytes: &[u8], mut index: usize) -> usize {
    index += 1;
    while index < bytes.len() && bytes[index] != b'"' {
        index += if bytes[index] == b'\\' { 2 } else { 1 };
    }
    (index + 1).min(bytes.len())
}

fn skip_comment(bytes: &[u8], mut index: usize) -> usize {
    while index < bytes.len() && bytes[index] != b'\n' {
        index += 1;
    }
    index
}

/// One pass over the text: alias definitions and top-level IREE attributes, skipping strings
/// and comments.
fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let mut scan = Scan {
        aliases: Vec::new(),
        sites: Vec::new(),
    };
    let mut depth = 0usize;
    let mut line_start = true;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        match byte {
            b'"' => {
                index = skip_string(bytes, index);
                line_start = false;
                continue;
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                index = skip_comment(bytes, index);
                continue;
            }
            b'\n' => line_start = true,
            b' ' | b'\t' | b'\r' => {}
            b'#' | b'!' if depth == 0 && line_start => {
                let name_end = ident_end(bytes, index + 1);
                let mut after = name_end;
                while after < bytes.len() && matches!(bytes[after], b' ' | b'\t') {
                    after += 1;
                }
                if name_end > index + 1
                    && bytes.get(after) == Some(&b'=')
                    && bytes.get(after + 1) != Some(&b'=')
                {
                    let end = value_end(bytes, after + 1);
                    scan.aliases.push(Alias {
                        name: text[index..name_end].to_string(),
                        start: index,
                        end,
                    });
                    // Go on scanning inside the value: it may hold IREE attributes.
                    index = after + 1;
                    line_start = false;
                    continue;
                }
                line_start = false;
            }
            b'#' if text[index..].starts_with("#iree_")
                && (index == 0 || !is_ident(bytes[index - 1])) =>
            {
                let end = attribute_end(bytes, index);
                scan.sites.push((index, end));
                index = end;
                line_start = false;
                continue;
            }
            b'{' | b'(' | b'[' | b'<' => {
                depth += 1;
                line_start = false;
            }
            b'-' if bytes.get(index + 1) == Some(&b'>') => {
                index += 2;
                line_start = false;
                continue;
            }
            b'}' | b')' | b']' | b'>' => {
                depth = depth.saturating_sub(1);
                line_start = false;
            }
            _ => line_start = false,
        }
        index += 1;
    }
    scan
}

/// End of an alias value starting after its `=`: the first newline outside brackets.
fn value_end(bytes: &[u8], mut index: usize) -> usize {
    let mut depth = 0usize;
    let mut seen_value = false;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index = skip_string(bytes, index);
                seen_value = true;
                continue;
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                index = skip_comment(bytes, index);
                continue;
            }
            b'\n' if depth == 0 && seen_value => return index,
            b'-' if bytes.get(index + 1) == Some(&b'>') => index += 1,
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' | b'>' => depth = depth.saturating_sub(1),
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => seen_value = true,
        }
        index += 1;
    }
    bytes.len()
}

/// End of the attribute `#dialect.mnemonic<...>` starting at `start` (its `#`).
fn attribute_end(bytes: &[u8], start: usize) -> usize {
    let name_end = ident_end(bytes, start + 1);
    if bytes.get(name_end) != Some(&b'<') {
        return name_end;
    }
    let mut depth = 0usize;
    let mut index = name_end;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index = skip_string(bytes, index);
                continue;
            }
            b'-' if bytes.get(index + 1) == Some(&b'>') => index += 1,
            b'>' if bytes.get(index + 1) == Some(&b'=') => index += 1,
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' | b'>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return index + 1;
                }
            }
            _ => {}
        }
        index += 1;
    }
    bytes.len()
}

/// Adds to `used` the aliases `value` refers to, and theirs.
fn aliases_used(value: &str, aliases: &[Alias], text: &str, used: &mut BTreeSet<usize>) {
    let bytes = value.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index = skip_string(bytes, index);
                continue;
            }
            b'#' | b'!' => {
                let end = ident_end(bytes, index + 1);
                let name = &value[index..end];
                if let Some(position) = aliases.iter().position(|alias| alias.name == name) {
                    if used.insert(position) {
                        let alias = &aliases[position];
                        let definition = &text[alias.start..alias.end];
                        let value_start = definition.find('=').map_or(0, |at| at + 1);
                        aliases_used(&definition[value_start..], aliases, text, used);
                    }
                }
                index = end.max(index + 1);
                continue;
            }
            _ => {}
        }
        index += 1;
    }
}

/// The text from `start` to `end`, comments blanked (a `// -----` would split the chunk), the
/// first line padded with spaces to `start`'s column.
fn segment(text: &str, lines: &Lines, start: usize, end: usize) -> Segment {
    let (line, col) = lines.line_col(start);
    let mut copied = " ".repeat(col as usize - 1);
    let bytes = text.as_bytes();
    let mut index = start;
    while index < end {
        match bytes[index] {
            b'"' => {
                let after = skip_string(bytes, index).min(end);
                copied.push_str(&text[index..after]);
                index = after;
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                let after = skip_comment(bytes, index).min(end);
                copied.push_str(&" ".repeat(after - index));
                index = after;
            }
            _ => {
                let next = text[index..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8)
                    .max(1);
                copied.push_str(&text[index..index + next]);
                index += next;
            }
        }
    }
    Segment {
        first_line: Some(line),
        text: copied,
    }
}

/// Line starts of a text, for 1-based line and byte column of an offset in O(log lines).
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Self {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(at, _)| at + 1))
                .collect(),
        )
    }

    fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = self.0.partition_point(|&start| start <= offset);
        (line as u32, (offset - self.0[line - 1] + 1) as u32)
    }

    /// The offset of a 1-based line and column, if it is in `text`.
    fn offset(&self, text: &str, line: u32, col: u32) -> Option<usize> {
        let start = *self.0.get(line.checked_sub(1)? as usize)?;
        let offset = start + col.checked_sub(1)? as usize;
        (offset <= text.len()).then_some(offset)
    }
}

/// Where iree-opt was found, or why it was not.
pub fn find_iree_opt(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("--iree-opt {}: no such file", path.display()))
        };
    }
    if let Some(value) = std::env::var_os(ENV_IREE_OPT).filter(|value| !value.is_empty()) {
        let path = PathBuf::from(&value);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("{ENV_IREE_OPT}={} is not a file", path.display()))
        };
    }
    if let Some(value) = std::env::var_os(ENV_IREE_VENV).filter(|value| !value.is_empty()) {
        let path = PathBuf::from(&value).join("bin").join("iree-opt");
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("{ENV_IREE_VENV}: {} is not a file", path.display()))
        };
    }
    if let Some(path) = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("iree-opt"))
            .find(|candidate| candidate.is_file())
    }) {
        return Ok(path);
    }
    Err(format!(
        "iree-opt not found (--iree-opt, {ENV_IREE_OPT}, {ENV_IREE_VENV}, PATH)"
    ))
}

/// The timeout from [`ENV_TIMEOUT`], else [`DEFAULT_TIMEOUT`].
pub fn timeout_from_env() -> Duration {
    std::env::var(ENV_TIMEOUT)
        .ok()
        .and_then(|value| value.trim().parse::<u64>().ok())
        .filter(|&seconds| seconds > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}

/// The generated input: every site's chunk, and for each generated line where it came from.
struct Generated {
    text: String,
    /// Per generated line (index = line - 1): the site, the spec line it maps to, and whether
    /// it is a line of the attribute itself (not of an alias definition or the wrapper).
    lines: Vec<(usize, Option<u32>, bool)>,
}

fn generate(sites: &[Site]) -> Generated {
    let mut generated = Generated {
        text: String::new(),
        lines: Vec::new(),
    };
    let push_line =
        |generated: &mut Generated, site: usize, line: &str, from: Option<u32>, attribute: bool| {
            generated.text.push_str(line);
            generated.text.push('\n');
            generated.lines.push((site, from, attribute));
        };
    for (index, site) in sites.iter().enumerate() {
        if index > 0 {
            push_line(&mut generated, index, "// -----", None, false);
        }
        let (attribute, aliases) = site
            .segments
            .split_last()
            .expect("a site has its attribute");
        for segment in aliases {
            for (offset, line) in segment.text.lines().enumerate() {
                let from = segment.first_line.map(|first| first + offset as u32);
                push_line(&mut generated, index, line, from, false);
            }
        }
        push_line(
            &mut generated,
            index,
            "module attributes {tunespec.check =",
            None,
            false,
        );
        for (offset, line) in attribute.text.lines().enumerate() {
            let from = attribute.first_line.map(|first| first + offset as u32);
            push_line(&mut generated, index, line, from, true);
        }
        push_line(&mut generated, index, "} {}", None, false);
    }
    generated
}

/// Checks every site with one iree-opt process. Returns, per site that iree-opt rejects, the
/// site's index and the problem (IREE's first error for it, located in the spec); `Err` says why
/// nothing could be checked (iree-opt would not start, timed out, crashed, or said nothing
/// tunespec could place).
pub fn check(
    iree_opt: &Path,
    sites: &[Site],
    timeout: Duration,
) -> Result<Vec<(usize, Problem)>, String> {
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    // Identical attributes (a config repeated for many shapes: 486 attributes but 33 distinct
    // ones in the default specs) are checked once; what iree-opt says of one holds for each.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: std::collections::HashMap<Vec<(Option<u32>, &str)>, usize> = Default::default();
    for (index, site) in sites.iter().enumerate() {
        let key: Vec<(Option<u32>, &str)> = site
            .segments
            .iter()
            .enumerate()
            .map(|(position, segment)| {
                if position + 1 == site.segments.len() {
                    (
                        segment.first_line.map(|_| 0),
                        segment.text.trim_start_matches(' '),
                    )
                } else {
                    (segment.first_line, segment.text.as_str())
                }
            })
            .collect();
        let group = *by_key.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(index);
    }
    let representatives: Vec<Site> = groups.iter().map(|group| sites[group[0]].clone()).collect();
    let generated = generate(&representatives);
    let (status, stderr) = run(iree_opt, generated.text.clone().into_bytes(), timeout)?;
    let mut problems: Vec<(usize, Problem)> = Vec::new();
    let mut reported: BTreeSet<usize> = BTreeSet::new();
    let generated_lines: Vec<&str> = generated.text.lines().collect();
    for line in stderr.lines() {
        let Some((line_number, col, message)) = parse_error(line) else {
            continue;
        };
        let Some(&(group, from, in_attribute)) =
            generated.lines.get(line_number.wrapping_sub(1) as usize)
        else {
            continue;
        };
        // The first error of a chunk is the cause; the next ones unwind the same parse.
        if !reported.insert(group) {
            continue;
        }
        let generated_line = generated_lines
            .get(line_number as usize - 1)
            .copied()
            .unwrap_or_default();
        let explained = explain(message, generated_line, col);
        let representative = &representatives[group];
        for &site_index in &groups[group] {
            let site = &sites[site_index];
            let loc = match (from, &site.loc, &representative.loc) {
                _ if explained.at_start => site.loc.clone(),
                (Some(line), Some(site_loc), Some(first)) if in_attribute => {
                    // Same text, another place: the same offset from the attribute's start.
                    let offset = line - first.line;
                    Some(Loc {
                        file: site_loc.file.clone(),
                        line: site_loc.line + offset,
                        col: if offset == 0 {
                            col + site_loc.col - first.col
                        } else {
                            col
                        },
                    })
                }
                (Some(line), Some(site_loc), _) => Some(Loc {
                    file: site_loc.file.clone(),
                    line,
                    col,
                }),
                (_, loc, _) => loc.clone(),
            };
            let mut problem = Problem::error(codes::IREE_ATTRIBUTE, explained.message.clone(), loc);
            problem.help = Some(match &explained.help {
                Some(help) => {
                    format!("{help} (IREE would fail to load this spec; checked with iree-opt)")
                }
                None => "IREE would fail to load this spec (checked with iree-opt)".to_string(),
            });
            if from.is_none() && site.segments.last().is_some_and(|s| s.first_line.is_none()) {
                problem.message = format!(
                    "{} (at column {col} of the attribute as MLIR prints it)",
                    problem.message
                );
            }
            problems.push((site_index, problem));
        }
    }
    // Sites whose alias definitions were at fault report the same finding: keep one.
    let mut seen = BTreeSet::new();
    problems.retain(|(_, problem)| seen.insert((problem.loc.clone(), problem.message.clone())));
    if problems.is_empty() && !status.success() {
        let tail: String = stderr.lines().take(5).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "{} exited with {status} without a diagnostic tunespec could place{}",
            iree_opt.display(),
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            }
        ));
    }
    Ok(problems)
}

/// `<stdin>:LINE:COL: error: MESSAGE` -> (line, col, message).
fn parse_error(line: &str) -> Option<(u32, u32, &str)> {
    let rest = line.strip_prefix("<stdin>:")?;
    let (line_number, rest) = rest.split_once(':')?;
    let (col, rest) = rest.split_once(':')?;
    let message = rest.strip_prefix(" error: ")?;
    Some((line_number.parse().ok()?, col.parse().ok()?, message))
}

/// IREE's message, made readable where it is not, with help where tunespec knows more.
struct Explained {
    message: String,
    help: Option<String>,
    /// Report at the attribute's start rather than at IREE's column.
    at_start: bool,
}

/// Known pipelines, for the old `pipeline = LLVMGPUTileAndFuse` spelling (IREE 3.13's list, from
/// its "to be one of" message).
const GPU_PIPELINES: &[&str] = &[
    "Default",
    "BaseLowering",
    "Distribute",
    "Vectorize",
    "VectorDistribute",
    "WinogradVectorize",
    "TileAndFuse",
];

fn explain(message: &str, line: &str, col: u32) -> Explained {
    let word_at = |col: u32| -> String {
        line.get(col.saturating_sub(1) as usize..)
            .unwrap_or_default()
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect()
    };
    let mut explained = Explained {
        message: message.to_string(),
        help: None,
        at_start: false,
    };
    // "expected <enum> to be one of: A, B, ...": an enum case IREE does not know.
    if let Some((expected, cases)) = message.split_once(" to be one of: ") {
        let cases: Vec<&str> = cases.split(", ").collect();
        let word = word_at(col);
        if !word.is_empty() {
            let nearest = cases
                .iter()
                .map(|case| (crate::verify::edit_distance(&word, case), *case))
                .filter(|(distance, case)| *distance <= (word.len().max(case.len()) / 4).max(1))
                .min()
                .map(|(_, case)| case);
            if let Some(nearest) = nearest {
                explained.help = Some(format!("did you mean `{nearest}`?"));
            }
            // Long lists (MMA intrinsics: about a hundred) bury the point.
            if cases.len() > 12 {
                explained.message = format!(
                    "`{word}` is not a valid value: {expected} to be one of {} values",
                    cases.len()
                );
            }
        }
        return explained;
    }
    // The pre-3.13 spelling `pipeline = LLVMGPUTileAndFuse`.
    let before = line
        .get(..col.saturating_sub(1) as usize)
        .unwrap_or_default();
    if message == "expected attribute value" && before.trim_end().ends_with("pipeline =") {
        let word = word_at(col);
        let bare = word.strip_prefix("LLVMGPU").unwrap_or(&word);
        let case = GPU_PIPELINES
            .iter()
            .find(|case| case.eq_ignore_ascii_case(bare))
            .unwrap_or(&"TileAndFuse");
        explained.help = Some(format!(
            "IREE 3.13 spells a GPU pipeline as an attribute: `pipeline = #iree_gpu.pipeline<{case}>`"
        ));
        return explained;
    }
    // In a printed attribute: an alias of the text that MLIR kept as text.
    if message.starts_with("undefined symbol alias id '") {
        explained.help = Some(
            "the spec used an alias inside an IREE attribute; MLIR without IREE's dialects kept the reference and dropped the definition: write the alias's value in its place".to_string(),
        );
        return explained;
    }
    // An attribute of a dialect iree-opt does not have: MLIR's message is about a context flag.
    if let Some(rest) = message.strip_prefix("#\"") {
        if message.contains("attribute created with unregistered dialect") {
            let dialect = &rest[..rest.find('"').unwrap_or(0)];
            explained.message = format!("IREE has no attribute dialect `{dialect}`");
            explained.help = crate::iree_ops::ATTRIBUTE_DIALECTS
                .iter()
                .map(|known| (crate::verify::edit_distance(dialect, known), *known))
                .filter(|(distance, _)| *distance <= 2)
                .min()
                .map(|(_, known)| format!("did you mean `#{known}`?"));
            explained.at_start = true;
        }
    }
    explained
}

/// Runs iree-opt on `input` (stdin), returns its exit status and stderr. Never waits longer than
/// `timeout`: the child is killed and the run reported as not checked.
fn run(
    iree_opt: &Path,
    input: Vec<u8>,
    timeout: Duration,
) -> Result<(std::process::ExitStatus, String), String> {
    let mut child = Command::new(iree_opt)
        .args([
            "--split-input-file",
            "--mlir-disable-threading",
            "-o",
            "-",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", iree_opt.display()))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // Threads for both pipes: a child that fills one while tunespec writes the other must not
    // deadlock. After a timeout they are left behind (a grandchild may hold a pipe open).
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        let _ = sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} did not finish within {} s and was stopped ({ENV_TIMEOUT} sets the limit)",
                    iree_opt.display(),
                    timeout.as_secs()
                ));
            }
            Err(error) => return Err(format!("waiting for {}: {error}", iree_opt.display())),
        }
    };
    let remaining = timeout.saturating_sub(started.elapsed()) + Duration::from_secs(1);
    let stderr = receiver.recv_timeout(remaining).map_err(|_| {
        format!(
            "{} exited but its diagnostics did not arrive within {} s",
            iree_opt.display(),
            timeout.as_secs()
        )
    })?;
    Ok((status, stderr))
}

/// A tile list of a lowering config: its key and length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileList {
    pub key: String,
    pub len: usize,
}

/// The tile lists of the lowering configs in a printed attribute: `#iree_gpu.lowering_config`'s
/// `workgroup`, `reduction`, `partial_reduction`, `subgroup`, `thread`, `lane` and `serial`
/// lists, and each level of `#iree_codegen.lowering_config<tile_sizes = [[...], ...]>`.
pub fn tile_lists(printed: &str) -> Vec<TileList> {
    const GPU_LEVELS: &[&str] = &[
        "workgroup",
        "reduction",
        "partial_reduction",
        "subgroup",
        "thread",
        "lane",
        "serial",
    ];
    let mut lists = Vec::new();
    for (start, _) in printed.match_indices("#iree_gpu.lowering_config<{") {
        let body_start = start + "#iree_gpu.lowering_config<{".len();
        let Some(body) = balanced(&printed[body_start..], '}') else {
            continue;
        };
        for entry in split_top(body) {
            let Some((key, value)) = entry.split_once('=') else {
                continue;
            };
            let key = key.trim();
            if GPU_LEVELS.contains(&key) {
                if let Some(len) = int_list_len(value.trim()) {
                    lists.push(TileList {
                        key: key.to_string(),
                        len,
                    });
                }
            }
        }
    }
    for (start, _) in printed.match_indices("#iree_codegen.lowering_config<tile_sizes = [") {
        let body_start = start + "#iree_codegen.lowering_config<tile_sizes = [".len();
        let Some(body) = balanced(&printed[body_start..], ']') else {
            continue;
        };
        for (level, entry) in split_top(body).iter().enumerate() {
            if let Some(len) = int_list_len(entry.trim()) {
                lists.push(TileList {
                    key: format!("tile_sizes[{level}]"),
                    len,
                });
            }
        }
    }
    lists
}

/// `workgroup_size` and `subgroup_size` of each `#iree_codegen.translation_info` in a printed
/// attribute.
pub fn workgroup_sizes(printed: &str) -> Vec<(Vec<i64>, i64)> {
    let mut found = Vec::new();
    for (start, _) in printed.match_indices("#iree_codegen.translation_info<") {
        let body_start = start + "#iree_codegen.translation_info<".len();
        let Some(body) = balanced(&printed[body_start..], '>') else {
            continue;
        };
        let sizes = body.find("workgroup_size = [").and_then(|at| {
            let list = &body[at + "workgroup_size = [".len()..];
            let list = &list[..list.find(']')?];
            list.split(',')
                .map(|item| item.trim().parse::<i64>().ok())
                .collect::<Option<Vec<i64>>>()
        });
        let subgroup = body.find("subgroup_size = ").and_then(|at| {
            let rest = &body[at + "subgroup_size = ".len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<i64>().ok()
        });
        if let (Some(sizes), Some(subgroup)) = (sizes, subgroup) {
            found.push((sizes, subgroup));
        }
    }
    found
}

/// The text up to the bracket that closes an already opened `close` group.
fn balanced(text: &str, close: char) -> Option<&str> {
    let mut depth = 0i32;
    let mut in_string = false;
    let mut previous = ' ';
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '>' if previous == '-' => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if depth == 0 => {
                return (ch == close).then(|| &text[..index]);
            }
            ')' | '>' | ']' | '}' => depth -= 1,
            _ => {}
        }
        previous = ch;
    }
    None
}

/// Splits on commas outside brackets and strings.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut start = 0;
    let mut previous = ' ';
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '>' if previous == '-' => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
        previous = ch;
    }
    if !text[start..].trim().is_empty() {
        parts.push(&text[start..]);
    }
    parts
}

/// The length of `[1, 2, 3]` (integers only); `None` for anything else.
fn int_list_len(value: &str) -> Option<usize> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(0);
    }
    inner
        .split(',')
        .map(|item| item.trim().parse::<i64>().ok())
        .collect::<Option<Vec<i64>>>()
        .map(|items| items.len())
}

/// The text of op attributes that a structure snapshot leaves unprinted (configs, indexing
/// maps), for the IREE lints: from the spec text (each op's text runs from its location to the
/// next op's, comments blanked, aliases expanded), or from a fully printed snapshot.
pub struct AttrTexts<'a> {
    text: Option<&'a str>,
    lines: Lines,
    /// Byte ranges of the text's top-level IREE attributes.
    sites: Vec<(usize, usize)>,
    aliases: Vec<(String, String)>,
    /// Op id -> byte range of its text (text sources only).
    ranges: std::collections::HashMap<u32, (usize, usize)>,
}

impl<'a> AttrTexts<'a> {
    /// Attribute values as the snapshot printed them (a snapshot made with every attribute
    /// printed, e.g. of bytecode).
    pub fn printed() -> Self {
        AttrTexts {
            text: None,
            lines: Lines(vec![0]),
            sites: Vec::new(),
            aliases: Vec::new(),
            ranges: Default::default(),
        }
    }

    /// Attribute values read from the spec text the snapshot was parsed from.
    pub fn from_text(text: &'a str, module: &ir::Module) -> Self {
        let lines = Lines::new(text);
        let offset = |loc: &Option<Loc>| {
            let loc = loc.as_ref()?;
            lines.offset(text, loc.line, loc.col)
        };
        let mut ranges = std::collections::HashMap::new();
        module.root.walk(&mut |op| {
            for region in &op.regions {
                for block in &region.blocks {
                    for pair in block.ops.windows(2) {
                        if let (Some(start), Some(end)) =
                            (offset(&pair[0].loc), offset(&pair[1].loc))
                        {
                            if start < end {
                                ranges.insert(pair[0].id, (start, end));
                            }
                        }
                    }
                }
            }
        });
        let scan = scan(text);
        let aliases = scan
            .aliases
            .iter()
            .map(|alias| {
                let definition = &text[alias.start..alias.end];
                let value = definition
                    .split_once('=')
                    .map_or("", |(_, value)| value)
                    .trim();
                (alias.name.clone(), blank_comments(value))
            })
            .collect();
        AttrTexts {
            text: Some(text),
            lines,
            sites: scan.sites,
            aliases,
            ranges,
        }
    }

    /// The text of attribute `name` of `op` (and what follows it in the op's text, for text
    /// sources): `value` of `transform.param.constant`, `indexing_maps` of a match op. Aliases
    /// are expanded.
    pub fn get(&self, op: &ir::Op, name: &str) -> Option<String> {
        let Some(text) = self.text else {
            return match op.attr(name)? {
                Attr::Other(printed) => Some(printed.clone()),
                Attr::Array(items) => Some(format!(
                    "[{}]",
                    items
                        .iter()
                        .map(|item| match item {
                            Attr::Other(printed) => printed.as_str(),
                            _ => "?",
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => None,
            };
        };
        let &(start, end) = self.ranges.get(&op.id)?;
        let op_text = blank_comments(&text[start..end]);
        let value = if name == "value" && op.name == "transform.param.constant" {
            let at = op_text.find("transform.param.constant")?;
            op_text[at + "transform.param.constant".len()..].to_string()
        } else {
            let at = op_text.find(&format!("{name} ="))?;
            op_text[at + name.len() + 2..].to_string()
        };
        Some(self.expand(value.trim_start(), 0))
    }

    /// All the IREE attributes of the spec text, each alias-expanded, with where it starts.
    pub fn sites(&self, file: &str) -> Vec<(Loc, String)> {
        let Some(text) = self.text else {
            return Vec::new();
        };
        self.sites
            .iter()
            .map(|&(start, end)| {
                let (line, col) = self.lines.line_col(start);
                let loc = Loc {
                    file: file.to_string(),
                    line,
                    col,
                };
                (loc, self.expand(&blank_comments(&text[start..end]), 0))
            })
            .collect()
    }

    /// Replaces alias references with their values (a few levels deep; MLIR refuses cycles).
    fn expand(&self, value: &str, depth: usize) -> String {
        if depth > 8 || self.aliases.is_empty() {
            return value.to_string();
        }
        let bytes = value.as_bytes();
        let mut out = String::with_capacity(value.len());
        let mut index = 0;
        while index < bytes.len() {
            match bytes[index] {
                b'"' => {
                    let after = skip_string(bytes, index);
                    out.push_str(&value[index..after]);
                    index = after;
                }
                b'#' | b'!' => {
                    let end = ident_end(bytes, index + 1);
                    let token = &value[index..end];
                    match self.aliases.iter().find(|(name, _)| name == token) {
                        Some((_, replacement)) => {
                            out.push_str(&self.expand(replacement, depth + 1))
                        }
                        None => out.push_str(token),
                    }
                    index = end.max(index + 1);
                }
                _ => {
                    let next = value[index..].chars().next().map_or(1, char::len_utf8);
                    out.push_str(&value[index..index + next]);
                    index += next;
                }
            }
        }
        out
    }
}

/// The text with `//` comments replaced by spaces (strings kept).
fn blank_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                let after = skip_string(bytes, index);
                out.push_str(&text[index..after]);
                index = after;
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                let after = skip_comment(bytes, index);
                out.push_str(&" ".repeat(after - index));
                index = after;
            }
            _ => {
                let next = text[index..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[index..index + next]);
                index += next;
            }
        }
    }
    out
}
