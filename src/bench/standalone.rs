//! One matcher of a spec as a spec of its own: the matcher, its action and an entry point that
//! pairs only them, with the file's aliases.
//!
//! Why: `bench` times each matcher of a library alone (an earlier matcher of the same library
//! must not decide which config a payload gets), and `bench --write` ships each winner as its
//! own spec file, as `import-tuner` does. The sequences are copied as written (text spans found
//! from their headers), so the written spec is the user's text, not a reprint.

use crate::ir;
use crate::ir::names::DEFAULT_ENTRYPOINT_ATTR;

/// The text span `[start, end)` of `transform.named_sequence @name` (from the start of its line
/// through its body's closing brace).
fn sequence_span(text: &str, name: &str) -> Option<(usize, usize)> {
    let plain = format!("transform.named_sequence @{name}(");
    let quoted = format!("transform.named_sequence @\"{name}\"(");
    let (at, header) = match text.find(&plain) {
        Some(at) => (at, plain.len()),
        None => (text.find(&quoted)?, quoted.len()),
    };
    let start = text[..at].rfind('\n').map_or(0, |line| line + 1);
    let bytes = text.as_bytes();
    // The argument list.
    let mut index = skip_group(bytes, at + header, b'(', b')')?;
    // Results, then `attributes {...}` or the body.
    loop {
        let open = index + text[index..].find('{')?;
        if text[index..open].trim_end().ends_with("attributes") {
            index = skip_group(bytes, open + 1, b'{', b'}')?;
            continue;
        }
        let end = skip_group(bytes, open + 1, b'{', b'}')?;
        return Some((start, end));
    }
}

/// The index after the group closed by `close`, starting inside it (depth 1); strings skipped.
fn skip_group(bytes: &[u8], mut index: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 1usize;
    while depth > 0 {
        let byte = *bytes.get(index)?;
        if byte == b'"' {
            index += 1;
            while *bytes.get(index)? != b'"' {
                index += if bytes[index] == b'\\' { 2 } else { 1 };
            }
        } else if byte == open {
            depth += 1;
        } else if byte == close {
            depth -= 1;
        }
        index += 1;
    }
    Some(index)
}

/// The file's top-level alias definitions (`#name = ...`, `!name = ...`) before its module.
fn aliases(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("module") {
            break;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('!') {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The spec of `matcher` alone, from `text` (whose snapshot is `module`): the file itself when
/// its entry point pairs only this matcher and it is merge-ready already, else a new module with
/// the matcher, its action and an entry point, marked merge-ready
/// (`iree_codegen.tuning_spec_with_default_entrypoint`). Why merge-ready: a measured library
/// holds one entry per device for the same op, and only merged pairs keep first-match-wins (specs
/// linked by include all run, the last annotation winning). `Err` says why it cannot be cut out
/// (no pair in the entry point, a sequence not found in the text).
pub fn standalone(text: &str, module: &ir::Module, matcher: &str) -> Result<String, String> {
    let pairs = crate::link::entry_pairs(module);
    let Some((_, action)) = pairs.iter().find(|(m, _)| m == matcher) else {
        return Err(format!(
            "@{matcher} is not paired with an action in the entry point's foreach_match"
        ));
    };
    if pairs.len() == 1 && module.root.has_attr(DEFAULT_ENTRYPOINT_ATTR) {
        return Ok(text.to_string());
    }
    let mut body = String::new();
    for name in [matcher, action.as_str()] {
        let (start, end) = sequence_span(text, name)
            .ok_or_else(|| format!("the text of @{name} was not found"))?;
        body.push_str(&text[start..end]);
        body.push('\n');
    }
    Ok(format!(
        "{aliases}module attributes {{transform.with_named_sequence, {DEFAULT_ENTRYPOINT_ATTR}}} {{\n{body}  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{\n    %res = transform.foreach_match in %variant_op @{matcher} -> @{action} : (!transform.any_op) -> !transform.any_op\n    transform.yield %res : !transform.any_op\n  }}\n}}\n",
        aliases = aliases(text),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"#map = affine_map<(d0) -> (d0)>
module attributes {transform.with_named_sequence} {
  transform.named_sequence @m1(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) attributes {note = "a {brace}"} {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    %c = transform.param.constant 1 : i64 -> !transform.any_param
    transform.yield %op, %c : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @m2(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    transform.match.operation_name %op ["linalg.fill"] : !transform.any_op
    %c = transform.param.constant 2 : i64 -> !transform.any_param
    transform.yield %op, %c : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}, %c: !transform.any_param {transform.readonly}) attributes {tunespec.rewrites = "a test marker"} {
    transform.annotate %op "x" = %c : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @__kernel_config(%v: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %r = transform.foreach_match in %v @m1 -> @act, @m2 -> @act : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
}
"#;

    #[test]
    fn a_matcher_is_cut_out_with_its_action_and_verifies() {
        let mlir = crate::mlir::Mlir::new();
        let verified = crate::verify::verify_bytes(&mlir, TWO.as_bytes(), "two.mlir");
        let module = verified.snapshot.expect("parses");
        let text = standalone(TWO, &module, "m2").unwrap();
        assert!(text.starts_with("#map = affine_map"), "{text}");
        assert!(text.contains("@m2 -> @act :"), "{text}");
        assert!(!text.contains("@m1"), "{text}");
        assert!(text.contains(DEFAULT_ENTRYPOINT_ATTR), "{text}");
        let again = crate::verify::verify_bytes(&mlir, text.as_bytes(), "m2.mlir");
        assert!(!again.has_errors(), "{:?}", again.problems);
        let first = standalone(TWO, &module, "m1").unwrap();
        assert!(
            first.contains("attributes {note = \"a {brace}\"}"),
            "{first}"
        );
        assert!(standalone(TWO, &module, "nope").is_err());
    }
}
