//! Checks around `tunespec attach`: the attribute name is one MLIR reads back, an attribute the
//! payload already uses for something else is never overwritten, and the payload written parses
//! and carries the library byte for byte.
//!
//! Why: `attach --attr 'a b'` (or `''`, or `llvm.data_layout`) used to write a payload that no
//! longer parsed, or silently replaced one of the payload's own attributes, and exited 0.

use crate::apply::codes;
use crate::mlir::{Mlir, OwnedOp};
use crate::problem::Problem;

/// An attribute name `attach` accepts: an MLIR bare identifier, optionally dialect-prefixed
/// (`iree_codegen.tuning_spec_mlirbc`): a letter or `_`, then letters, digits, `_`, `$`, `.`.
pub fn check_attr_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_');
    let rest_ok = chars.all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '$' | '.'));
    if first_ok && rest_ok && !name.ends_with('.') {
        Ok(())
    } else {
        Err(format!(
            "--attr {name:?} is not an attribute name: use a letter or '_', then letters, digits, '_', '$' or '.' (e.g. iree_codegen.tuning_spec_mlirbc)"
        ))
    }
}

/// Refuses to replace an attribute of the payload that does not hold MLIR bytecode, which is what
/// tunespec attaches (`llvm.data_layout = "e-m:e"`, any other string or attribute).
pub fn check_not_foreign(
    payload: &OwnedOp<'_>,
    attr: &str,
    payload_name: &str,
) -> Result<(), Vec<Problem>> {
    let foreign = match payload.find_blob_attr(attr) {
        None => false,
        Some(Ok((_, bytes))) => !bytes.starts_with(crate::verify::BYTECODE_MAGIC),
        Some(Err(_)) => true,
    };
    match foreign {
        true => Err(vec![Problem::error(
            codes::PAYLOAD,
            format!("{payload_name} already has a '{attr}' attribute that does not hold a library; it is not replaced"),
            None,
        )
        .with_help("choose another --attr, or remove the attribute first")]),
        false => Ok(()),
    }
}

/// Checks the payload text about to be written: it parses, and its `attr` holds `library`.
pub fn check_output(
    mlir: &Mlir,
    text: &str,
    attr: &str,
    library: &[u8],
) -> Result<(), Vec<Problem>> {
    let internal = |what: &str| {
        vec![Problem::error(
            crate::link::codes::INTERNAL,
            format!("the payload with the library attached {what}; nothing was written (a tunespec bug: please report it)"),
            None,
        )]
    };
    let parsed = mlir.parse(text.as_bytes(), "<attached payload>");
    let Some(module) = parsed
        .module
        .filter(|_| !parsed.problems.iter().any(Problem::is_error))
    else {
        return Err(internal("does not parse"));
    };
    match module.find_blob_attr(attr) {
        Some(Ok((_, bytes))) if bytes == library => Ok(()),
        _ => Err(internal("does not carry the library intact")),
    }
}
