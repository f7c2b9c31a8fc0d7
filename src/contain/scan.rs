//! Which text needs the probe: text with a forward reference to a value.
//!
//! MLIR 22's parser resolves a use of `%v` that comes before its definition once the definition
//! is parsed, even when the definition is in a region nested below the use (invalid IR, which
//! only the verifier reports). When the parse of that region then fails (a `^bb0` defined
//! twice, any syntax error after the definition), the parser frees the region's blocks while
//! the earlier op still uses the value; the op's later destruction writes into freed memory
//! (valgrind: an invalid write in `Operation::dropAllReferences` from `Block::~Block` in
//! `OperationParser::parseRegion`), and glibc aborts the process ("unaligned tcache chunk").
//! Text without forward references never reaches that path, so only text with one is parsed
//! first in the child.
//!
//! The scan is lexical and errs towards the probe: a value counts as defined only in a result
//! list (`%a, %b:2 = ...`) or, followed by `:`, in the argument list of a block label (`^bb0(`
//! at the start of a line or after `{`) or of a symbol (`@name(`: a sequence's or function's
//! signature); every other occurrence is a use, and a use of a name not defined before it in an
//! enclosing brace level (or the current signature) is a forward reference.

use std::collections::HashSet;

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.' | b'-')
}

fn skip_spaces(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && text[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The end of the name that starts at `at`.
fn name_end(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && is_name_byte(text[at]) {
        at += 1;
    }
    at
}

/// After a `%name` ending at `at`: an optional `:N` result count, then whether the names that
/// follow (`, %b, %c:2`) end in `=` (not `==`): a result list.
fn ends_result_list(text: &[u8], mut at: usize) -> bool {
    loop {
        if text.get(at) == Some(&b':') && text.get(at + 1).is_some_and(u8::is_ascii_digit) {
            at += 1;
            while text.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
        }
        at = skip_spaces(text, at);
        match text.get(at) {
            Some(b'=') => return text.get(at + 1) != Some(&b'='),
            Some(b',') => {
                at = skip_spaces(text, at + 1);
                if text.get(at) != Some(&b'%') {
                    return false;
                }
                at = name_end(text, at + 1);
            }
            _ => return false,
        }
    }
}

/// What the `(` at `open` starts: an argument list of a block label at the start of a line (or
/// after `{`), of a symbol (a signature), or anything else.
fn opens(text: &[u8], open: usize) -> Paren {
    let mut start = open;
    while start > 0 && is_name_byte(text[start - 1]) {
        start -= 1;
    }
    if start == open || start == 0 {
        return Paren::Other;
    }
    match text[start - 1] {
        b'@' => Paren::Signature,
        b'^' => {
            let mut before = start - 1;
            while before > 0 && matches!(text[before - 1], b' ' | b'\t') {
                before -= 1;
            }
            if before == 0 || matches!(text[before - 1], b'\n' | b'\r' | b'{') {
                Paren::BlockLabel
            } else {
                Paren::Other
            }
        }
        _ => Paren::Other,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Paren {
    BlockLabel,
    Signature,
    Other,
}

/// Whether `text` uses a value before it defines it (see the module comment).
pub fn has_forward_reference(text: &[u8]) -> bool {
    let mut scopes: Vec<HashSet<&[u8]>> = vec![HashSet::new()];
    let mut signature: HashSet<&[u8]> = HashSet::new();
    let mut parens: Vec<Paren> = Vec::new();
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => {
                at += 1;
                while at < text.len() && text[at] != b'"' {
                    at += if text[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            b'/' if text.get(at + 1) == Some(&b'/') => {
                while at < text.len() && text[at] != b'\n' {
                    at += 1;
                }
            }
            b'{' => {
                scopes.push(HashSet::new());
                at += 1;
            }
            b'}' => {
                if scopes.len() > 1 {
                    scopes.pop();
                }
                at += 1;
            }
            b'(' => {
                let paren = opens(text, at);
                if paren == Paren::Signature {
                    signature.clear();
                }
                parens.push(paren);
                at += 1;
            }
            b')' => {
                parens.pop();
                at += 1;
            }
            b'%' => {
                let end = name_end(text, at + 1);
                let name = &text[at + 1..end];
                let after = skip_spaces(text, end);
                let paren = parens.last().copied().unwrap_or(Paren::Other);
                if paren != Paren::Other && text.get(after) == Some(&b':') {
                    if paren == Paren::Signature {
                        signature.insert(name);
                    } else if let Some(scope) = scopes.last_mut() {
                        scope.insert(name);
                    }
                } else if ends_result_list(text, end) {
                    if let Some(scope) = scopes.last_mut() {
                        scope.insert(name);
                    }
                } else if !name.is_empty()
                    && !signature.contains(name)
                    && !scopes.iter().any(|scope| scope.contains(name))
                {
                    return true;
                }
                at = end.max(at + 1);
            }
            _ => at += 1,
        }
    }
    false
}

/// Whether `text` writes a transform op in MLIR's generic form (`"transform.x"(...)`). Why: the
/// generic form lets an op leave out what its kind requires (a region, a result), and some
/// transform ops' verifiers in MLIR 22 then read past what is there and crash
/// (`"transform.sequence"() : () -> ()`); such text is parsed and verified in a child first.
/// Payload ops in generic form inside matcher regions (IREE's DAG patterns) are common and do
/// not trigger it. Lexical: a quoted dotted name followed by `(` occurs nowhere else in MLIR's
/// syntax.
pub fn has_generic_transform_op(text: &[u8]) -> bool {
    let mut at = 0;
    while at < text.len() {
        if text[at] != b'"' {
            at += 1;
            continue;
        }
        let start = at + 1;
        let mut end = start;
        while end < text.len() && text[end] != b'"' {
            end += if text[end] == b'\\' { 2 } else { 1 };
        }
        let Some(name) = text.get(start..end) else {
            return false;
        };
        let is_op_name = name.starts_with(b"transform.")
            && name
                .iter()
                .all(|&byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'$'));
        if is_op_name && text.get(end + 1) == Some(&b'(') {
            return true;
        }
        at = end + 1;
    }
    false
}
