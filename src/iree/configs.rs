//! Reading the configs IREE set: the ops with a `lowering_config` in the generic IR of IREE's
//! `executable-configurations` phase (as [`super::Iree::executables`] prints it), with their
//! dispatch function, location and the function's `translation_info`.
//!
//! Why text and not tunespec's MLIR: the configs are attributes of IREE's dialects, opaque to
//! MLIR 22 and kept as text there anyway; comparing them as text without whitespace is what a
//! spec's author and IREE's printer agree on (IREE prints the spec's attribute back unchanged
//! but for spacing).

/// One op IREE configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Configured {
    /// The dispatch function (`sym_name` of the `func.func` in the executable).
    pub function: String,
    /// The op's name.
    pub op: String,
    /// The first `"file":line:col` of the op's location.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// Its column.
    pub col: u32,
    /// The `lowering_config` attribute, without whitespace.
    pub lowering_config: String,
    /// The function's `translation_info`, without whitespace.
    pub translation_info: Option<String>,
    /// The `lowering_config` attribute as IREE printed it (for IREE to read back).
    pub lowering_config_text: String,
    /// The function's `translation_info` as IREE printed it.
    pub translation_info_text: Option<String>,
}

/// The text of the attribute that starts at `text[start..]`, up to its matching bracket,
/// brackets inside strings ignored; `None` when unbalanced.
pub fn attribute_at(text: &str, start: usize) -> Option<String> {
    let mut depth = 0i32;
    let mut in_string = false;
    let mut previous = ' ';
    for (offset, c) in text[start..].char_indices() {
        if in_string {
            if c == '"' && previous != '\\' {
                in_string = false;
            }
        } else {
            match c {
                '"' => in_string = true,
                '>' if previous == '-' => {}
                '<' | '[' | '{' | '(' => depth += 1,
                '>' | ']' | '}' | ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(text[start..start + offset + 1].to_string());
                    }
                }
                _ => {}
            }
        }
        previous = c;
    }
    None
}

/// The value of `name = ...` in `text`.
pub fn attribute_named(text: &str, name: &str) -> Option<String> {
    let key = format!("{name} = ");
    let mut from = 0;
    while let Some(found) = text[from..].find(&key) {
        let at = from + found;
        // A whole key, not the tail of a longer one.
        let boundary = at == 0
            || !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if boundary {
            return attribute_at(text, at + key.len());
        }
        from = at + key.len();
    }
    None
}

/// `text` without whitespace (outside strings), with the entries of every dictionary
/// (`{key = value, ...}`) sorted by key: MLIR prints a dictionary attribute's entries sorted, a
/// spec's author writes them in any order, and both mean the same attribute.
pub fn squash(text: &str) -> String {
    let mut squashed = String::with_capacity(text.len());
    let mut in_string = false;
    let mut previous = ' ';
    for c in text.chars() {
        if c == '"' && previous != '\\' {
            in_string = !in_string;
        }
        if in_string || !c.is_whitespace() {
            squashed.push(c);
        }
        previous = c;
    }
    sort_dictionaries(&squashed)
}

/// Sorts the entries of every `{k=v,...}` in squashed text, innermost first.
fn sort_dictionaries(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c != '{' {
            out.push(c);
            index += 1;
            continue;
        }
        // The matching '}' (strings and '->' skipped).
        let mut depth = 0i32;
        let mut in_string = false;
        let mut end = None;
        for (offset, &d) in chars[index..].iter().enumerate() {
            let at = index + offset;
            if d == '"' && (at == 0 || chars[at - 1] != '\\') {
                in_string = !in_string;
            }
            if in_string {
                continue;
            }
            match d {
                '>' if at > 0 && chars[at - 1] == '-' => {}
                '{' | '<' | '[' | '(' => depth += 1,
                '}' | '>' | ']' | ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            out.extend(&chars[index..]);
            break;
        };
        let inner: String = chars[index + 1..end].iter().collect();
        let mut entries: Vec<String> = split_top_level(&inner)
            .into_iter()
            .map(|entry| sort_dictionaries(&entry))
            .collect();
        let is_dictionary = !entries.is_empty()
            && entries.iter().all(|entry| {
                entry
                    .find('=')
                    .is_some_and(|at| at > 0 && !entry[..at].contains(['<', '{', '[', '(', '"']))
            });
        if is_dictionary {
            entries.sort_by(|a, b| key_of(a).cmp(key_of(b)));
        }
        out.push('{');
        out.push_str(&entries.join(","));
        out.push('}');
        index = end + 1;
    }
    out
}

fn key_of(entry: &str) -> &str {
    entry.split('=').next().unwrap_or(entry)
}

/// `text` split at its top-level commas.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut previous = ' ';
    let mut current = String::new();
    for c in text.chars() {
        if c == '"' && previous != '\\' {
            in_string = !in_string;
        }
        if !in_string {
            match c {
                '>' if previous == '-' => {}
                '{' | '<' | '[' | '(' => depth += 1,
                '}' | '>' | ']' | ')' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut current));
                    previous = c;
                    continue;
                }
                _ => {}
            }
        }
        current.push(c);
        previous = c;
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// The first `"file":line:col` of a line's trailing `loc(...)`.
fn location(line: &str) -> Option<(String, u32, u32)> {
    let loc = &line[line.rfind(" loc(")? + 5..];
    let open = loc.find('"')?;
    let close = open + 1 + loc[open + 1..].find("\":")?;
    let file = loc[open + 1..close].to_string();
    let mut numbers = loc[close + 2..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .filter_map(|part| part.parse::<u32>().ok());
    Some((file, numbers.next()?, numbers.next()?))
}

/// The op name a generic-form line starts with (`%0 = "linalg.generic"(...`).
fn op_name(line: &str) -> Option<String> {
    let rest = if line.starts_with('%') {
        &line[line.find(" = ")? + 3..]
    } else {
        line
    };
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// Every configured op of generic `executable-configurations` IR.
pub fn read_configured(text: &str) -> Vec<Configured> {
    let mut configured = Vec::new();
    let mut function: Option<(String, usize)> = None;
    // Ops whose regions are open: a region op's attributes come on its closing line.
    let mut open: Vec<String> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let name_here = op_name(trimmed);
        let closing = trimmed.starts_with("})");
        let closed_name = if closing { open.pop() } else { None };
        if trimmed.ends_with("({") {
            open.push(name_here.clone().unwrap_or_default());
        }
        if trimmed.starts_with("\"func.func\"()") {
            let name = trimmed
                .split_once("sym_name = \"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| name.to_string())
                .unwrap_or_default();
            function = Some((name, configured.len()));
            continue;
        }
        let Some((name, first)) = function.as_ref() else {
            continue;
        };
        if let Some(config) = attribute_named(trimmed, "lowering_config") {
            if let Some((file, line_number, col)) = location(trimmed) {
                let op = if closing {
                    closed_name.clone().unwrap_or_default()
                } else {
                    name_here.clone().unwrap_or_default()
                };
                configured.push(Configured {
                    function: name.clone(),
                    op,
                    file,
                    line: line_number,
                    col,
                    lowering_config: squash(&config),
                    translation_info: None,
                    lowering_config_text: config,
                    translation_info_text: None,
                });
            }
        }
        if trimmed.starts_with("})") && trimmed.contains(": () -> ()") {
            // The end of the function: its attributes hold the translation_info.
            let text = attribute_named(trimmed, "translation_info");
            let translation = text.as_deref().map(squash);
            for op in &mut configured[*first..] {
                op.translation_info.clone_from(&translation);
                op.translation_info_text.clone_from(&text);
            }
            function = None;
        }
    }
    configured
}
