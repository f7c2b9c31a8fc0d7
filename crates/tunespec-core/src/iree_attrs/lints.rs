//! What tunespec reads in a config itself: tile lists and workgroup sizes.

/// A tile list of a lowering config: its key and length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileList {
    /// The config key (`workgroup`, `reduction`, ...).
    pub key: String,
    /// How many entries it has.
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
pub(super) fn balanced(text: &str, close: char) -> Option<&str> {
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
pub(super) fn split_top(text: &str) -> Vec<&str> {
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
pub(super) fn int_list_len(value: &str) -> Option<usize> {
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
