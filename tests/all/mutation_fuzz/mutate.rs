//! The mutations of the differential fuzzer (see `super`): a seeded generator and each kind
//! of text edit, deterministic for a seed.

/// splitmix64: small, seeded, the same sequence everywhere.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Kind {
    DropLine,
    DuplicateLine,
    SwapLines,
    FlipEffect,
    RebindSymbol,
    RebindValue,
    ChangeType,
    ChangeNumber,
    DropAttribute,
}

pub(super) const KINDS: [Kind; 9] = [
    Kind::DropLine,
    Kind::DuplicateLine,
    Kind::SwapLines,
    Kind::FlipEffect,
    Kind::RebindSymbol,
    Kind::RebindValue,
    Kind::ChangeType,
    Kind::ChangeNumber,
    Kind::DropAttribute,
];

/// Lines that hold code (not blank, not only a comment), by index.
pub(super) fn code_lines(lines: &[&str]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            let trimmed = line.trim();
            !trimmed.is_empty() && !trimmed.starts_with("//")
        })
        .map(|(index, _)| index)
        .collect()
}

pub(super) fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte == b'.'
}

/// Byte ranges of `sigil`-prefixed names (`@sym`, `%value`).
pub(super) fn names(text: &str, sigil: u8) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == sigil && (index == 0 || !is_ident(bytes[index - 1])) {
            let end = (index + 1..bytes.len())
                .find(|&at| !is_ident(bytes[at]))
                .unwrap_or(bytes.len());
            if end > index + 1 {
                found.push((index, end));
            }
            index = end;
        } else {
            index += 1;
        }
    }
    found
}

/// Byte ranges of integer literals that are not part of a name (`bb0`, `d0`, `f16`, `%0`).
pub(super) fn numbers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index].is_ascii_digit() {
            let end = (index..bytes.len())
                .find(|&at| !bytes[at].is_ascii_digit())
                .unwrap_or(bytes.len());
            let before = index.checked_sub(1).map(|at| bytes[at]);
            let named = before.is_some_and(|byte| {
                is_ident(byte) || matches!(byte, b'%' | b'@' | b'^' | b'#' | b'!')
            });
            if !named && end - index <= 9 {
                found.push((index, end));
            }
            index = end;
        } else {
            index += 1;
        }
    }
    found
}

/// Type spellings a mutation swaps for one another.
pub(super) const TYPES: &[&str] = &[
    "f16",
    "bf16",
    "f32",
    "f8E4M3FNUZ",
    "i8",
    "i32",
    "i64",
    "index",
    "!transform.any_op",
    "!transform.any_value",
    "!transform.any_param",
    "!transform.param<i64>",
    "!transform.param<i32>",
    "!transform.op<\"linalg.matmul\">",
];

/// Occurrences of the spellings of `TYPES` at token boundaries (element types after the `x` of
/// a shape included).
pub(super) fn types(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for ty in TYPES {
        let mut from = 0;
        while let Some(offset) = text[from..].find(ty) {
            let start = from + offset;
            let end = start + ty.len();
            from = end;
            let after_ok = end == bytes.len() || !is_ident(bytes[end]) || ty.ends_with('>');
            let before_ok = start == 0
                || !is_ident(bytes[start - 1])
                || (bytes[start - 1] == b'x'
                    && start >= 2
                    && (bytes[start - 2].is_ascii_digit() || bytes[start - 2] == b'?'));
            let inside_longer = ty.starts_with('!')
                && text[start..].starts_with("!transform.param<")
                && !ty.starts_with("!transform.param<");
            if after_ok && before_ok && !inside_longer {
                found.push((start, end));
            }
        }
    }
    found.sort();
    found
}

/// Single-line dictionaries `{...}` without nested braces: (open, close) byte offsets.
pub(super) fn dictionaries(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (open, &byte) in bytes.iter().enumerate() {
        if byte != b'{' {
            continue;
        }
        for (close, &inner) in bytes.iter().enumerate().skip(open + 1) {
            match inner {
                b'}' => {
                    if close > open + 1 {
                        found.push((open, close));
                    }
                    break;
                }
                b'{' | b'\n' => break,
                _ => {}
            }
        }
    }
    found
}

/// Top-level comma-separated entries of `text` (brackets and quotes respected), as ranges.
pub(super) fn entries(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut start = 0;
    for (index, byte) in text.bytes().enumerate() {
        match byte {
            b'"' => quoted = !quoted,
            b'<' | b'[' | b'(' if !quoted => depth += 1,
            b'>' | b']' | b')' if !quoted => depth -= 1,
            b',' if !quoted && depth == 0 => {
                out.push((start, index));
                start = index + 1;
            }
            _ => {}
        }
    }
    out.push((start, text.len()));
    out
}

pub(super) fn replace(text: &str, (start, end): (usize, usize), with: &str) -> String {
    format!("{}{}{}", &text[..start], with, &text[end..])
}

/// One mutation of `kind`, or `None` when the text offers nothing to mutate.
pub(super) fn mutate(kind: Kind, text: &str, rng: &mut Rng) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let code = code_lines(&lines);
    let join = |lines: Vec<&str>| lines.join("\n");
    match kind {
        Kind::DropLine => {
            let &at = rng.pick(&code)?;
            let mut lines = lines.clone();
            lines.remove(at);
            Some(join(lines))
        }
        Kind::DuplicateLine => {
            let &at = rng.pick(&code)?;
            let mut lines = lines.clone();
            lines.insert(at, lines[at]);
            Some(join(lines))
        }
        Kind::SwapLines => {
            // Mostly the next code line (a block header and its first op, an op and its
            // terminator), sometimes one a few lines away.
            let position = rng.below(code.len().saturating_sub(1));
            let distance = if rng.below(4) == 0 {
                1 + rng.below(4)
            } else {
                1
            };
            let other = *code.get(position + distance)?;
            let at = code[position];
            let mut lines = lines.clone();
            lines.swap(at, other);
            Some(join(lines))
        }
        Kind::FlipEffect => {
            let mut sites = Vec::new();
            for (word, other) in [
                ("transform.readonly", "transform.consumed"),
                ("transform.consumed", "transform.readonly"),
            ] {
                sites.extend(
                    text.match_indices(word)
                        .map(|(at, _)| ((at, at + word.len()), other)),
                );
            }
            let &(range, other) = rng.pick(&sites)?;
            Some(replace(text, range, other))
        }
        Kind::RebindSymbol | Kind::RebindValue => rebind(kind, text, rng),
        Kind::ChangeType => {
            let sites = types(text);
            let &site = rng.pick(&sites)?;
            let current = &text[site.0..site.1];
            let others: Vec<&&str> = TYPES.iter().filter(|ty| **ty != current).collect();
            let with = rng.pick(&others)?;
            Some(replace(text, site, with))
        }
        Kind::ChangeNumber => {
            let sites = numbers(text);
            let &site = rng.pick(&sites)?;
            let value: i64 = text[site.0..site.1].parse().ok()?;
            let with = match rng.below(7) {
                0 => 0,
                1 => 1,
                2 => -1,
                3 => value + 1,
                4 => value - 1,
                5 => value * 2,
                _ => 1 << 40,
            };
            (with != value).then(|| replace(text, site, &with.to_string()))
        }
        Kind::DropAttribute => drop_attribute(text, rng),
    }
}

/// `Kind::RebindSymbol` or `Kind::RebindValue`: one `@symbol` or `%value` use renamed to
/// another name of the text, or to a fresh one. Part of `mutate`, split out to keep it short;
/// it draws from `rng` exactly as the inline arm did.
fn rebind(kind: Kind, text: &str, rng: &mut Rng) -> Option<String> {
    let sigil = if kind == Kind::RebindSymbol {
        b'@'
    } else {
        b'%'
    };
    let sites = names(text, sigil);
    let &site = rng.pick(&sites)?;
    let current = &text[site.0..site.1];
    let mut others: Vec<&str> = sites
        .iter()
        .map(|&(start, end)| &text[start..end])
        .filter(|name| *name != current)
        .collect();
    others.sort_unstable();
    others.dedup();
    let fresh = format!("{current}_x");
    let with = if rng.below(6) == 0 || others.is_empty() {
        fresh.as_str()
    } else {
        rng.pick(&others)?
    };
    Some(replace(text, site, with))
}

/// `Kind::DropAttribute`: one entry of an attribute dictionary dropped (the whole dictionary
/// when it has one entry). Part of `mutate`, split out to keep it short; it draws from `rng`
/// exactly as the inline arm did.
fn drop_attribute(text: &str, rng: &mut Rng) -> Option<String> {
    let dicts = dictionaries(text);
    let &(open, close) = rng.pick(&dicts)?;
    let body = &text[open + 1..close];
    let parts = entries(body);
    if parts.len() == 1 {
        // The whole dictionary, with an `attributes` keyword before it.
        let before = &text[..open];
        let keyword = before.trim_end().ends_with("attributes");
        let start = if keyword {
            before.trim_end().len() - "attributes".len()
        } else {
            open
        };
        return Some(replace(text, (start, close + 1), ""));
    }
    let index = rng.below(parts.len());
    let (start, end) = parts[index];
    // Drop the entry with one of its commas.
    let (start, end) = if index + 1 < parts.len() {
        (start, parts[index + 1].0)
    } else {
        (parts[index - 1].1, end)
    };
    Some(replace(text, (open + 1 + start, open + 1 + end), ""))
}
