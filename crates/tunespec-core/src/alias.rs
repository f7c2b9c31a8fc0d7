//! Attribute aliases inside IREE's attributes, expanded before parsing.
//!
//! Everything IREE prints uses aliases: `#translation = #iree_codegen.translation_info<...>`,
//! then `#iree_codegen.compilation_info<lowering_config = ..., translation_info = #translation>`.
//! IREE's dialects are not registered in tunespec's contexts, so MLIR keeps the body of an IREE
//! attribute as raw text: an alias used inside it stays the word `#translation`, and its
//! definition is dropped when the file is printed again. A spec dumped by IREE or printed by
//! iree-opt (IREE's own default specs, every tuner spec) would then be linked and applied with
//! dangling references. So before parsing text, each alias used inside an IREE attribute (a
//! `#iree_*.name<...>`, alias definitions included) is replaced by its definition, expanded in
//! turn. Lines are kept (diagnostics keep their line numbers); columns after an expansion on the
//! same line move.

use std::borrow::Cow;
use std::collections::HashMap;

/// More expansion than this many bytes is refused (the input is parsed as it is, and MLIR or
/// tunespec's checks report what they find): aliases that use each other can grow
/// exponentially.
const MAX_EXPANDED_BYTES: usize = 64 << 20;

/// `text` with the aliases used inside IREE attributes expanded, or `text` itself when there
/// is nothing to expand.
pub fn expand_in_iree_attributes(text: &[u8]) -> Cow<'_, [u8]> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Cow::Borrowed(text);
    };
    if !text.contains("#iree_") {
        return Cow::Borrowed(text.as_bytes());
    }
    // Top-level alias definitions, one per line as MLIR prints them: `#name = value`. A
    // definition may use an alias defined after it, so their values are expanded until nothing
    // changes (at most one round per alias: deeper would be a cycle, which MLIR rejects anyway).
    let mut aliases: HashMap<&str, String> = text
        .lines()
        .filter_map(definition)
        .map(|(name, value)| (name, value.to_string()))
        .collect();
    if aliases.is_empty() {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut budget = MAX_EXPANDED_BYTES;
    let mut names: Vec<&str> = aliases.keys().copied().collect();
    names.sort_unstable();
    for _ in 0..names.len() {
        let mut changed = false;
        for name in &names {
            let Some(value) = expand_line(&aliases[name], &aliases, &mut budget) else {
                return Cow::Borrowed(text.as_bytes());
            };
            if let Cow::Owned(value) = value {
                aliases.insert(name, value);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for piece in text.split_inclusive('\n') {
        let Some(expanded) = expand_line(piece, &aliases, &mut budget) else {
            return Cow::Borrowed(text.as_bytes());
        };
        changed |= matches!(expanded, Cow::Owned(_));
        out.push_str(&expanded);
    }
    if changed {
        Cow::Owned(out.into_bytes())
    } else {
        Cow::Borrowed(text.as_bytes())
    }
}

/// `#name = value` at the start of a line.
fn definition(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('#')?;
    let end = rest
        .find(|c: char| !is_identifier_char(c))
        .unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    let value = rest[end..].strip_prefix(" = ")?;
    Some((&line[..end + 1], value))
}

fn is_identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')
}

/// `line` with every alias used inside an IREE attribute replaced; None when the budget ran
/// out.
fn expand_line<'a>(
    line: &'a str,
    aliases: &HashMap<&str, String>,
    budget: &mut usize,
) -> Option<Cow<'a, str>> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut search = 0;
    while let Some(found) = line[search..].find("#iree_") {
        let start = search + found;
        let Some(end) = attribute_end(line, start) else {
            break;
        };
        let span = &line[start..end];
        let expanded = expand_span(span, aliases, budget)?;
        if let Cow::Owned(expanded) = expanded {
            let out = out.get_or_insert_with(String::new);
            out.push_str(&line[copied..start]);
            out.push_str(&expanded);
            copied = end;
        }
        search = end;
    }
    Some(match out {
        None => Cow::Borrowed(line),
        Some(mut out) => {
            out.push_str(&line[copied..]);
            Cow::Owned(out)
        }
    })
}

/// The end (exclusive) of the dialect attribute `#dialect.name<...>` starting at `start`, on
/// this line; None when its brackets do not close on the line.
fn attribute_end(line: &str, start: usize) -> Option<usize> {
    let open = start + line[start..].find(|c: char| !is_identifier_char(c) && c != '#')?;
    if line.as_bytes().get(open) != Some(&b'<') {
        return None;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (offset, c) in line[open..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '<' | '[' | '{' | '(' => depth += 1,
            '>' | ']' | '}' | ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + offset + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The alias uses in `span` (outside strings) replaced by their definitions.
fn expand_span<'a>(
    span: &'a str,
    aliases: &HashMap<&str, String>,
    budget: &mut usize,
) -> Option<Cow<'a, str>> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut escaped = false;
    let bytes = span.as_bytes();
    let mut index = 1; // the span's own leading '#' is its dialect name, never an alias
    while index < bytes.len() {
        let c = bytes[index];
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            index += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            index += 1;
            continue;
        }
        if c == b'#' {
            let end = span[index + 1..]
                .find(|c: char| !is_identifier_char(c))
                .map_or(span.len(), |end| index + 1 + end);
            if let Some(value) = aliases.get(&span[index..end]) {
                *budget = budget.checked_sub(value.len())?;
                let out = out.get_or_insert_with(String::new);
                out.push_str(&span[copied..index]);
                out.push_str(value);
                copied = end;
            }
            index = end.max(index + 1);
            continue;
        }
        index += 1;
    }
    Some(match out {
        None => Cow::Borrowed(span),
        Some(mut out) => {
            out.push_str(&span[copied..]);
            Cow::Owned(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::expand_in_iree_attributes;

    fn expand(text: &str) -> String {
        String::from_utf8(expand_in_iree_attributes(text.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn aliases_inside_iree_attributes_are_expanded_in_definitions_and_uses() {
        let text = "#c = #iree_codegen.compilation_info<lowering_config = #l, translation_info = #t>\n#t = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64]>\n%0 = transform.param.constant #iree_codegen.compilation_info<translation_info = #t, s = \"#t\"> -> !transform.any_param\n%1 = transform.param.constant #c -> !transform.any_param\n";
        let expanded = expand(text);
        let lines: Vec<&str> = expanded.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0],
            "#c = #iree_codegen.compilation_info<lowering_config = #l, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64]>>"
        );
        assert_eq!(
            lines[2],
            "%0 = transform.param.constant #iree_codegen.compilation_info<translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64]>, s = \"#t\"> -> !transform.any_param"
        );
        // A use outside IREE attributes is MLIR's to resolve.
        assert_eq!(
            lines[3],
            "%1 = transform.param.constant #c -> !transform.any_param"
        );
    }

    #[test]
    fn text_without_iree_aliases_is_returned_as_is() {
        let text = "#map = affine_map<(d0) -> (d0)>\nmodule {}\n";
        assert!(matches!(
            expand_in_iree_attributes(text.as_bytes()),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
