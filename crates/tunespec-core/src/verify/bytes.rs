//! Byte-level checks, made before MLIR sees the input: size, emptiness, NUL bytes, invalid
//! UTF-8, and nesting that would overflow MLIR's recursive parser.

use super::*;

/// Byte-level checks. Returns the problems and whether the bytes are worth handing to MLIR.
pub fn byte_checks(bytes: &[u8], source_name: &str) -> (Vec<Problem>, bool) {
    let at = |line: u32, col: u32| {
        Some(Loc {
            file: source_name.to_string(),
            line,
            col,
        })
    };
    if bytes.len() > MAX_INPUT_BYTES {
        return (
            vec![Problem::error(
                codes::TOO_LARGE,
                format!(
                    "input is {} bytes; the limit is {} bytes",
                    bytes.len(),
                    MAX_INPUT_BYTES
                ),
                at(1, 1),
            )],
            false,
        );
    }
    if bytes.starts_with(BYTECODE_MAGIC) {
        return (Vec::new(), true);
    }
    let mut problems = Vec::new();
    if is_blank(bytes) {
        problems.push(
            Problem::error(
                codes::EMPTY,
                "file holds no operations: it is not a tuning spec",
                at(1, 1),
            )
            .with_help("a tuning spec is a `module attributes {transform.with_named_sequence}` with a `@__kernel_config` named sequence"),
        );
        return (problems, false);
    }
    if let Some(offset) = bytes.iter().position(|&byte| byte == 0) {
        let (line, col) = line_col(bytes, offset);
        problems.push(
            Problem::error(
                codes::NUL_BYTE,
                "file contains a NUL byte: it is binary, not MLIR text",
                at(line, col),
            )
            .with_help("MLIR bytecode starts with the magic `ML\\xEFR`; this file does not"),
        );
        return (problems, false);
    }
    if let Some((offset, depth)) = too_deep(bytes) {
        let (line, col) = line_col(bytes, offset);
        let message = match depth {
            Depth::Brackets => format!("nesting deeper than {MAX_NESTING} levels"),
            Depth::Operators => format!(
                "an expression chains more than {MAX_OPERATORS} operators (`+`, `-`, `*`, `floordiv`, `ceildiv`, `mod`)"
            ),
        };
        problems.push(
            Problem::error(codes::TOO_DEEP, message, at(line, col)).with_help(
                "MLIR's parser recurses once per level and would overflow its stack; no tuning spec or payload nests this deep",
            ),
        );
        return (problems, false);
    }
    if let Err(error) = std::str::from_utf8(bytes) {
        let (line, col) = line_col(bytes, error.valid_up_to());
        problems.push(
            Problem::error(
                codes::INVALID_UTF8,
                "file is not valid UTF-8",
                at(line, col),
            )
            .with_help("MLIR text is UTF-8; re-encode the file"),
        );
        // Still parse: the MLIR parser may find further problems, and their locations are
        // byte-based, so they stay meaningful.
    }
    (problems, true)
}

/// Which limit [`too_deep`] found exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Depth {
    /// Brackets `{ ( [ <` nested deeper than [`MAX_NESTING`].
    Brackets,
    /// An affine expression whose parse would recurse more than [`MAX_OPERATORS`] times: MLIR's
    /// affine parser recurses once per `+`/`-` in a sum, once per `*`/`floordiv`/`ceildiv`/`mod`
    /// in the current term, once per unary minus (`d0 + d0 + ...`, `- - d0`), and its simplifier
    /// walks the tree built so far at each step (quadratic time).
    Operators,
}

/// The offset where a recursion of MLIR's text parser would go deeper than its limit: bracket
/// nesting ([`MAX_NESTING`]), or an operator chain ([`MAX_OPERATORS`]; counted since the last
/// `,` or bracket, which is where an affine expression starts). Strings and `//` comments are
/// skipped.
pub(super) fn too_deep(bytes: &[u8]) -> Option<(usize, Depth)> {
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.';
    let mut depth = 0usize;
    // Additive operators of the current expression, and multiplicative ones of its current term.
    let (mut sums, mut products) = (0usize, 0usize);
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        match byte {
            b'"' => {
                index += 1;
                while index < bytes.len() && bytes[index] != b'"' {
                    index += if bytes[index] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                while index < bytes.len() && bytes[index] != b'\n' {
                    index += 1;
                }
            }
            // `<` nests types and attributes (`tuple<tuple<...>>`); the `>` of `->` closes nothing.
            b'{' | b'(' | b'[' | b'<' => {
                depth += 1;
                (sums, products) = (0, 0);
                if depth > MAX_NESTING {
                    return Some((index, Depth::Brackets));
                }
            }
            b'-' if bytes.get(index + 1) == Some(&b'>') => index += 1,
            b'}' | b')' | b']' | b'>' => {
                depth = depth.saturating_sub(1);
                (sums, products) = (0, 0);
            }
            b',' => (sums, products) = (0, 0),
            b'+' | b'-' | b'*' => {
                if byte == b'*' {
                    products += 1;
                } else {
                    (sums, products) = (sums + 1, 0);
                }
                if sums + products > MAX_OPERATORS {
                    return Some((index, Depth::Operators));
                }
            }
            byte if is_word(byte) => {
                let start = index;
                while index + 1 < bytes.len() && is_word(bytes[index + 1]) {
                    index += 1;
                }
                if matches!(&bytes[start..=index], b"floordiv" | b"ceildiv" | b"mod") {
                    products += 1;
                    if sums + products > MAX_OPERATORS {
                        return Some((start, Depth::Operators));
                    }
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// True when the bytes hold nothing but whitespace and `//` comments.
pub(super) fn is_blank(bytes: &[u8]) -> bool {
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b' ' | b'\t' | b'\r' | b'\n' => index += 1,
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                while index < bytes.len() && bytes[index] != b'\n' {
                    index += 1;
                }
            }
            _ => return false,
        }
    }
    true
}

/// 1-based line and byte column of `offset`.
pub fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&byte| byte == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |position| position + 1);
    (line as u32, (offset - line_start + 1) as u32)
}
