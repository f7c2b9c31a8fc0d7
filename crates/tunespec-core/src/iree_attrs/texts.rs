//! Attribute texts per op, read from the spec's text (or printed, for bytecode).

use super::*;

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

    /// The source text, when the attributes come from one.
    pub fn text(&self) -> Option<&'a str> {
        self.text
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
pub(super) fn blank_comments(text: &str) -> String {
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
