//! Named sequences as the rules see them: handle kinds, function types, argument effects.

use super::*;

/// The kind of a transform value, from its type: what a matcher yields and an action takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    /// An op handle (`!transform.any_op`, `!transform.op<...>`).
    Op,
    /// A value handle (`!transform.any_value`).
    Value,
    /// A parameter (`!transform.any_param`, `!transform.param<...>`).
    Param,
    /// Any other type.
    Other,
}

/// The kind of a transform type, printed.
pub fn handle_kind(ty: &str) -> HandleKind {
    if ty == "!transform.any_op" || ty.starts_with("!transform.op<") {
        HandleKind::Op
    } else if ty == "!transform.any_value" {
        HandleKind::Value
    } else if ty == "!transform.any_param" || ty.starts_with("!transform.param<") {
        HandleKind::Param
    } else {
        HandleKind::Other
    }
}

/// Splits a printed function type `(A, B) -> (C, D)` / `(A) -> C` into inputs and results.
pub fn split_function_type(ty: &str) -> Option<(Vec<String>, Vec<String>)> {
    let ty = ty.trim();
    let rest = ty.strip_prefix('(')?;
    let close = matching_paren(rest)?;
    let inputs = split_top_level(&rest[..close]);
    let after = rest[close + 1..].trim().strip_prefix("->")?.trim();
    let results = if let Some(inner) = after.strip_prefix('(') {
        let close = matching_paren(inner)?;
        split_top_level(&inner[..close])
    } else {
        split_top_level(after)
    };
    Some((inputs, results))
}

/// Index of the `)` closing a group whose `(` was just consumed.
pub(super) fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_string = false;
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' if depth == 0 => return Some(index),
            ')' | '>' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

pub(super) fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut start = 0;
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..index].trim().to_string());
                start = index + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last.to_string());
    }
    parts
}

/// A named sequence's signature and argument effects, read from the snapshot.
#[derive(Clone, Debug)]
pub struct Sequence<'a> {
    /// The `transform.named_sequence` op.
    pub op: &'a Op,
    /// Its symbol name.
    pub name: &'a str,
    /// Its argument types, printed.
    pub inputs: Vec<String>,
    /// Its result types, printed.
    pub results: Vec<String>,
    /// Per argument: `Some(true)` consumed, `Some(false)` readonly, `None` unmarked.
    pub arg_effects: Vec<Option<bool>>,
}

impl<'a> Sequence<'a> {
    /// The sequence `op` is, or `None` when it is not a named sequence with a name.
    pub fn from_op(op: &'a Op) -> Option<Self> {
        if op.name != names::NAMED_SEQUENCE {
            return None;
        }
        let name = op.sym_name()?;
        let (inputs, results) = match op.attr("function_type") {
            Some(Attr::Type(ty)) => split_function_type(ty).unwrap_or_default(),
            _ => (Vec::new(), Vec::new()),
        };
        let arg_attrs = op.attr("arg_attrs").and_then(Attr::as_array).unwrap_or(&[]);
        let arg_effects = (0..inputs.len())
            .map(|index| {
                let dict = arg_attrs.get(index)?;
                if dict.dict_get(names::CONSUMED).is_some() {
                    Some(true)
                } else if dict.dict_get(names::READONLY).is_some() {
                    Some(false)
                } else {
                    None
                }
            })
            .collect();
        Some(Sequence {
            op,
            name,
            inputs,
            results,
            arg_effects,
        })
    }
}
