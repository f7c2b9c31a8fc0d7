//! Attributes of dialects IREE does not have (`#iree_codegn.compilation_info<...>`): IREE 3.13
//! refuses the whole spec ("attribute created with unregistered dialect"), while MLIR 22, which
//! allows unregistered dialects to keep IREE's attributes opaque, parses it. Found in the text
//! (inside IREE's attributes too, whose bodies MLIR keeps unparsed), or in the printed attributes
//! of a bytecode input; no iree-opt needed.

use super::*;

/// The dialect references `#name.` / `#name<` (or `#"name"`, as MLIR prints an unregistered
/// dialect's attribute) in `text`, outside strings and comments, with their byte offsets.
fn dialect_references(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let ident = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            }
            b'#' if at == 0 || !ident(bytes[at - 1]) => {
                let quoted = bytes.get(at + 1) == Some(&b'"');
                let start = at + 1 + usize::from(quoted);
                let mut end = start;
                while end < bytes.len() && ident(bytes[end]) {
                    end += 1;
                }
                let named = end > start && !bytes[start].is_ascii_digit();
                let follows = bytes.get(end).copied();
                let dialect = if quoted {
                    follows == Some(b'"')
                } else {
                    matches!(follows, Some(b'.') | Some(b'<'))
                };
                if named && dialect {
                    found.push((at, &text[start..end]));
                }
                at = end.max(at + 1) + usize::from(quoted && dialect);
            }
            _ => at += 1,
        }
    }
    found
}

/// The finding for a reference to `dialect` at `loc`, if IREE 3.13 lacks the dialect: an error
/// when MLIR 22 lacks it too (nothing can read the attribute; most likely a typo), a warning when
/// it is an upstream dialect IREE does not register.
fn finding(dialect: &str, loc: Option<Loc>) -> Option<Problem> {
    if iree_ops::IREE_DIALECTS.contains(&dialect) {
        return None;
    }
    let nearest = iree_ops::IREE_DIALECTS
        .iter()
        .map(|known| (edit_distance(dialect, known), *known))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, known)| known);
    let message = format!("IREE has no attribute dialect `{dialect}`");
    let problem = if iree_ops::MLIR_DIALECTS.contains(&dialect) {
        Problem::warning(
            codes::IREE_ATTRIBUTE,
            format!("{message}: it is MLIR's, and IREE 3.13 does not register it"),
            loc,
        )
        .with_help("iree-compile refuses a tuning spec with this attribute (\"attribute created with unregistered dialect\")")
    } else {
        let problem = Problem::error(codes::IREE_ATTRIBUTE, message, loc);
        match nearest {
            Some(known) => problem.with_help(format!(
                "did you mean `#{known}`? (IREE would fail to load this spec)"
            )),
            None => problem.with_help(
                "neither IREE 3.13 nor MLIR 22 has this dialect: iree-compile refuses the spec (\"attribute created with unregistered dialect\")",
            ),
        }
    };
    Some(problem)
}

/// Every reference to an attribute dialect IREE 3.13 does not have, in the spec's text (`texts`
/// from text) or in its printed attributes (bytecode).
pub fn check_attribute_dialects(
    module: &ir::Module,
    texts: &iree_attrs::AttrTexts,
    file: &str,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some(text) = texts.text() {
        let lines: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        for (offset, dialect) in dialect_references(text) {
            let line = lines.partition_point(|start| *start <= offset);
            let loc = Loc {
                file: file.to_string(),
                line: line as u32,
                col: (offset - lines[line - 1] + 1) as u32,
            };
            problems.extend(finding(dialect, Some(loc)));
        }
    } else {
        module.root.walk(&mut |op| {
            for (_, attr) in &op.attrs {
                printed_attrs(attr, &mut |printed| {
                    for (_, dialect) in dialect_references(printed) {
                        problems.extend(finding(dialect, op.loc.clone()));
                    }
                });
            }
        });
    }
    problems
}

fn printed_attrs<'a>(attr: &'a Attr, found: &mut dyn FnMut(&'a str)) {
    match attr {
        Attr::Array(items) => items.iter().for_each(|item| printed_attrs(item, found)),
        Attr::Dict(entries) => entries
            .iter()
            .for_each(|(_, value)| printed_attrs(value, found)),
        Attr::Other(printed) | Attr::Type(printed) => found(printed),
        _ => {}
    }
}
