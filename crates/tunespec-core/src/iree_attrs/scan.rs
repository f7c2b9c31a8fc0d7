//! Finding IREE attributes in spec text: a scanner for aliases, strings, comments and attribute
//! extents, and line/column arithmetic.

use super::*;

/// An alias definition (`#name = value` or `!name = value`) at the top level of the text.
pub(super) struct Alias {
    /// The alias with its sigil, e.g. `#lc`.
    pub(super) name: String,
    /// Offset of the `#`/`!` and the end of the value.
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) struct Scan {
    pub(super) aliases: Vec<Alias>,
    /// Byte ranges of top-level `#iree_*` attributes.
    pub(super) sites: Vec<(usize, usize)>,
}

pub(super) fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.' | b'-')
}

/// End of the identifier starting at `start` (`-` is not part of MLIR identifiers, but of
/// none of the names here either; stop at it).
pub(super) fn ident_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < bytes.len() && is_ident(bytes[end]) && bytes[end] != b'-' {
        end += 1;
    }
    end
}

/// Skips a string starting at `index` (on its `"`); returns the offset after the closing quote.
pub(super) fn skip_string(bytes: &[u8], mut index: usize) -> usize {
    index += 1;
    while index < bytes.len() && bytes[index] != b'"' {
        index += if bytes[index] == b'\\' { 2 } else { 1 };
    }
    (index + 1).min(bytes.len())
}

pub(super) fn skip_comment(bytes: &[u8], mut index: usize) -> usize {
    while index < bytes.len() && bytes[index] != b'\n' {
        index += 1;
    }
    index
}

/// One pass over the text: alias definitions and top-level IREE attributes, skipping strings
/// and comments.
pub(super) fn scan(text: &str) -> Scan {
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
pub(super) fn value_end(bytes: &[u8], mut index: usize) -> usize {
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
pub(super) fn attribute_end(bytes: &[u8], start: usize) -> usize {
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
pub(super) fn aliases_used(value: &str, aliases: &[Alias], text: &str, used: &mut BTreeSet<usize>) {
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
pub(super) fn segment(text: &str, lines: &Lines, start: usize, end: usize) -> Segment {
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
pub(super) struct Lines(pub(super) Vec<usize>);

impl Lines {
    pub(super) fn new(text: &str) -> Self {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(at, _)| at + 1))
                .collect(),
        )
    }

    pub(super) fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = self.0.partition_point(|&start| start <= offset);
        (line as u32, (offset - self.0[line - 1] + 1) as u32)
    }

    /// The offset of a 1-based line and column, if it is in `text`.
    pub(super) fn offset(&self, text: &str, line: u32, col: u32) -> Option<usize> {
        let start = *self.0.get(line.checked_sub(1)? as usize)?;
        let offset = start + col.checked_sub(1)? as usize;
        (offset <= text.len()).then_some(offset)
    }
}
