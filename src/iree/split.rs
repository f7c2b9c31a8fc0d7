//! IREE's check of a large library, split across workers.
//!
//! IREE's parser reads on one thread: a linked library of 10,000 matchers (26 MB of text) costs
//! it 1.4 s, as long as tunespec's whole link. The library's top-level ops are independent
//! (every `transform.named_sequence` is isolated from above), so the text is cut between them
//! into parts that workers check at once, one per core. Nothing is left out: every byte of every
//! op is in exactly one part, each part carries the original aliases, and a part that uses a
//! sequence defined in another carries a private declaration of it with the definition's exact
//! signature and argument attributes (what IREE checks a use against). The module header with
//! its attributes (IREE verifies `iree_codegen.tuning_spec_with_default_entrypoint` against the
//! entry point) goes to the part that holds the entry point.
//!
//! A part IREE refuses proves nothing about where: the caller then checks the whole text, so
//! diagnostics name lines of the text written, and a refusal the split alone caused (none is
//! known) costs time, never a false answer. Text not laid out as MLIR's printer lays out a
//! module is never split.

use std::collections::{BTreeSet, HashMap};

use super::{Failure, Iree};

/// Smallest part worth a worker of its own, by default: a worker's start (IREE's library and
/// its global set-up) is about 0.3 s of CPU, what IREE's parser spends on some 4 MB (IREE's
/// check of a 10 MB library on 2 cores: 0.52 s whole, about 0.3 s in two parts).
pub const MIN_PART_BYTES: usize = 4 << 20;

/// Most parts: past this, workers' start-up and the entry point's declarations outweigh what
/// another core saves.
const MAX_PARTS: usize = 8;

/// How many parts IREE's check of `len` bytes is split into: one per core (or per `jobs`),
/// each at least `min_part_bytes` (`TUNESPEC_IREE_CHECK_PART_BYTES`, [`super::Limits`]), at most
/// 8; 1 means the whole text in one request.
pub fn parts_for(len: usize, jobs: Option<usize>, min_part_bytes: usize) -> usize {
    let cores = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    (len / min_part_bytes.max(1)).clamp(1, cores.clamp(1, MAX_PARTS))
}

impl Iree {
    /// Whether IREE parses and verifies `text` (see [`Iree::check`]), split across
    /// [`parts_for`] workers when it is large (`jobs`: at most that many). Any part refused or
    /// failed: the whole text is checked in one request, whose answer is returned.
    pub fn check_split(&self, text: &[u8], name: &str, jobs: Option<usize>) -> Result<(), Failure> {
        let parts = match tracing::info_span!("iree.split").in_scope(|| {
            split(
                text,
                parts_for(text.len(), jobs, self.limits().check_part_bytes),
            )
        }) {
            Some(parts) if parts.len() > 1 => parts,
            _ => return self.check(text, name),
        };
        let _phase = tracing::info_span!("iree.check_split", parts = parts.len()).entered();
        self.prestart_n(parts.len());
        let all_accepted = std::thread::scope(|scope| {
            let checks: Vec<_> = parts
                .iter()
                .map(|part| scope.spawn(move || self.check(part, name).is_ok()))
                .collect();
            checks
                .into_iter()
                .all(|check| check.join().unwrap_or(false))
        });
        if all_accepted {
            Ok(())
        } else {
            self.check(text, name)
        }
    }
}

/// One top-level op of the module: its lines and the symbol it defines.
struct TopOp<'t> {
    text: &'t [u8],
    /// The symbol it defines, and its declaration when it is a named sequence.
    defines: Option<(&'t [u8], Option<Vec<u8>>)>,
}

/// The module as MLIR's printer lays it out.
struct Layout<'t> {
    /// Alias definitions before the module (`#map = ...`), kept in every part.
    aliases: &'t [u8],
    /// `module ... {`, with its newline.
    header: &'t [u8],
    ops: Vec<TopOp<'t>>,
}

/// `text` as `parts` modules IREE checks one by one (see the module docs), or `None` when the
/// text is not laid out as MLIR's printer lays out a module, or uses a symbol of another part
/// that is not a named sequence.
pub fn split(text: &[u8], parts: usize) -> Option<Vec<Vec<u8>>> {
    if parts <= 1 {
        return None;
    }
    let layout = layout(text)?;
    if layout.ops.len() < parts {
        return None;
    }
    let groups = groups(&layout.ops, parts);
    let defined_in: HashMap<&[u8], (usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(group, range)| {
            layout.ops[range.clone()]
                .iter()
                .enumerate()
                .filter_map(move |(offset, op)| {
                    op.defines
                        .as_ref()
                        .map(|(name, _)| (*name, (group, range.start + offset)))
                })
        })
        .collect();
    let entry_group = groups
        .iter()
        .position(|range| {
            layout.ops[range.clone()]
                .iter()
                .any(|op| matches!(op.defines, Some((b"__kernel_config", _))))
        })
        .unwrap_or(groups.len() - 1);
    let plain_header: &[u8] =
        if super::find(layout.header, b"transform.with_named_sequence").is_some() {
            b"module attributes {transform.with_named_sequence} {\n"
        } else {
            b"module {\n"
        };
    let mut out = Vec::with_capacity(groups.len());
    for (group, range) in groups.iter().enumerate() {
        let ops = &layout.ops[range.clone()];
        let mut part = Vec::with_capacity(ops.iter().map(|op| op.text.len()).sum::<usize>() + 256);
        part.extend_from_slice(layout.aliases);
        part.extend_from_slice(if group == entry_group {
            layout.header
        } else {
            plain_header
        });
        let mut declared = BTreeSet::new();
        for op in ops {
            for name in references(op.text) {
                let Some(&(home, index)) = defined_in.get(name) else {
                    continue; // undefined: IREE refuses the part as it refuses the whole
                };
                if home == group || !declared.insert(index) {
                    continue;
                }
                let declaration = layout.ops[index].defines.as_ref()?.1.as_ref()?;
                part.extend_from_slice(declaration);
            }
        }
        for op in ops {
            part.extend_from_slice(op.text);
        }
        part.extend_from_slice(b"}\n");
        out.push(part);
    }
    Some(out)
}

/// Contiguous ranges of `ops`, `parts` of them (`parts <= ops.len()`), none empty, of about
/// equal bytes: part `k` ends at the first op that brings the bytes so far to `k/parts` of all.
fn groups(ops: &[TopOp], parts: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = ops.iter().map(|op| op.text.len()).sum();
    let mut ends = Vec::with_capacity(parts);
    let mut bytes = 0;
    let mut index = 0;
    for part in 1..parts {
        let wanted = total * part / parts;
        while index < ops.len() && bytes < wanted {
            bytes += ops[index].text.len();
            index += 1;
        }
        let previous = ends.last().copied().unwrap_or(0);
        let end = index.clamp(previous + 1, ops.len() - (parts - part));
        ends.push(end);
    }
    ends.push(ops.len());
    let mut start = 0;
    ends.into_iter()
        .map(|end| {
            let range = start..end;
            start = end;
            range
        })
        .collect()
}

/// The lines of `text`, each with its newline.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|&byte| byte == b'\n')
}

fn layout(text: &[u8]) -> Option<Layout<'_>> {
    let mut offset = 0;
    let mut lines = lines(text).peekable();
    // Aliases (`#name = ...`, `!name = ...`) and nothing else before the module.
    while let Some(line) = lines.next_if(|line| !line.starts_with(b"module")) {
        if !(line.starts_with(b"#") || line.starts_with(b"!")) {
            return None;
        }
        offset += line.len();
    }
    let aliases = &text[..offset];
    let header = lines.next()?;
    if !header.trim_ascii_end().ends_with(b"{") {
        return None;
    }
    offset += header.len();
    let mut ops: Vec<(usize, usize)> = Vec::new();
    let mut closed = false;
    for line in lines {
        if closed {
            if !line.trim_ascii().is_empty() {
                return None;
            }
            continue;
        }
        if line.trim_ascii_end() == b"}" {
            closed = true;
        } else if line.starts_with(b"  ") && line.get(2).is_some_and(u8::is_ascii_alphabetic) {
            ops.push((offset, offset + line.len()));
        } else if line.starts_with(b"   ") || line.starts_with(b"  }") {
            ops.last_mut()?.1 = offset + line.len();
        } else {
            // A top-level op in generic form, with results or block labels: not split.
            return None;
        }
        offset += line.len();
    }
    if !closed || ops.is_empty() {
        return None;
    }
    let ops = ops
        .into_iter()
        .map(|(start, end)| {
            let text = &text[start..end];
            TopOp {
                text,
                defines: definition(text),
            }
        })
        .collect();
    Some(Layout {
        aliases,
        header,
        ops,
    })
}

/// The symbol a top-level op defines (`sym_name` printed after the op name and an optional
/// visibility), and for a named sequence defined on its first line, its private declaration.
fn definition(op: &[u8]) -> Option<(&[u8], Option<Vec<u8>>)> {
    let first = lines(op).next()?;
    let line = first.strip_prefix(b"  ")?;
    let space = line.iter().position(|&byte| byte == b' ')?;
    let (op_name, rest) = (&line[..space], &line[space + 1..]);
    let rest = ["private ", "public ", "nested "]
        .iter()
        .find_map(|visibility| rest.strip_prefix(visibility.as_bytes()))
        .unwrap_or(rest);
    let rest = rest.strip_prefix(b"@")?;
    let name = symbol_name(rest)?;
    let declaration = (op_name == b"transform.named_sequence")
        .then(|| {
            let signature = first.trim_ascii_end().strip_suffix(b" {")?;
            let at = signature.iter().position(|&byte| byte == b'@')?;
            Some(
                [
                    b"  transform.named_sequence private ",
                    &signature[at..],
                    b"\n",
                ]
                .concat(),
            )
        })
        .flatten();
    Some((name, declaration))
}

/// The symbol name at the start of `text` (after its `@`): a bare identifier, or a quoted
/// string with its quotes.
fn symbol_name(text: &[u8]) -> Option<&[u8]> {
    if text.first() == Some(&b'"') {
        let mut escaped = false;
        for (index, &byte) in text.iter().enumerate().skip(1) {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => return Some(&text[..=index]),
                b'\n' => return None,
                _ => {}
            }
        }
        return None;
    }
    let first = *text.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let end = text
        .iter()
        .position(|&byte| !(byte.is_ascii_alphanumeric() || b"_$.-".contains(&byte)))
        .unwrap_or(text.len());
    Some(&text[..end])
}

/// Every symbol an op's text names (`@name`, the root of `@a::@b`). A `@` inside a string is
/// read as a reference too: at worst a needless declaration.
fn references(op: &[u8]) -> impl Iterator<Item = &[u8]> {
    op.iter().enumerate().filter_map(move |(index, &byte)| {
        if byte != b'@' || (index > 0 && op[index - 1] == b':') {
            return None;
        }
        symbol_name(&op[index + 1..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIBRARY: &str = "#map = affine_map<(d0) -> (d0)>
module @linked attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @act(%arg0: !transform.any_op {transform.readonly}) {
    transform.yield 
  }
  transform.named_sequence private @\"m 1\"(%arg0: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %arg0 : !transform.any_op
  }
  transform.named_sequence @m2(%arg0: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %arg0 : !transform.any_op
  }
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %updated_root = transform.foreach_match in %arg0 
        @\"m 1\" -> @act, 
        @m2 -> @act : (!transform.any_op) -> !transform.any_op
    transform.yield %updated_root : !transform.any_op
  }
}
";

    #[test]
    fn every_op_is_in_exactly_one_part_with_declarations_of_what_it_uses_elsewhere() {
        let parts: Vec<String> = split(LIBRARY.as_bytes(), 2)
            .expect("splits")
            .into_iter()
            .map(|part| String::from_utf8(part).unwrap())
            .collect();
        assert_eq!(parts.len(), 2);
        // Every op's first line (a definition: it opens a body) is in exactly one part.
        for first in LIBRARY
            .lines()
            .filter(|line| line.starts_with("  transform."))
        {
            let holding = parts
                .iter()
                .filter(|part| part.lines().any(|line| line == first));
            assert_eq!(holding.count(), 1, "{first} in {parts:?}");
        }
        let entry = parts
            .iter()
            .find(|part| part.contains("@__kernel_config("))
            .unwrap();
        assert!(entry.starts_with(
            "#map = affine_map<(d0) -> (d0)>\nmodule @linked attributes {iree_codegen"
        ));
        assert!(entry.ends_with("  }\n}\n"));
        let other = parts
            .iter()
            .find(|part| !part.contains("@__kernel_config("))
            .unwrap();
        assert!(other.starts_with(
            "#map = affine_map<(d0) -> (d0)>\nmodule attributes {transform.with_named_sequence} {\n"
        ));
        // What the entry point's part uses from the other part is declared there, privately.
        for (name, defined) in [
            ("@act(", other.contains("@act(%")),
            ("@m2(", other.contains("@m2(%")),
        ] {
            if defined {
                assert!(
                    entry.contains(&format!("  transform.named_sequence private {name}")),
                    "{name}: {entry}"
                );
            }
        }
        assert!(
            other.contains("transform.named_sequence private @\"m 1\"(")
                || entry.contains("private @\"m 1\"(")
        );
    }

    #[test]
    fn a_declaration_keeps_the_signature_and_is_private() {
        let op = b"  transform.named_sequence @m(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {\n    transform.yield\n  }\n";
        let (name, declaration) = definition(op).unwrap();
        assert_eq!(name, b"m");
        assert_eq!(
            String::from_utf8(declaration.unwrap()).unwrap(),
            "  transform.named_sequence private @m(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param)\n"
        );
    }

    #[test]
    fn text_not_laid_out_by_the_printer_is_not_split() {
        for text in [
            "module {\n  %0 = \"x.y\"() : () -> i32\n  transform.named_sequence @a() {\n  }\n}\n",
            "// a comment\nmodule {\n  transform.named_sequence @a() {\n  }\n  transform.named_sequence @b() {\n  }\n}\n",
            "module {\n  transform.named_sequence @a() {\n  }\n  transform.named_sequence @b() {\n  }\n",
            "module {\n  transform.named_sequence @a() {\n  }\n}\n",
        ] {
            assert!(split(text.as_bytes(), 2).is_none(), "{text}");
        }
    }

    #[test]
    fn a_use_of_a_symbol_that_is_not_a_named_sequence_in_another_part_is_not_split() {
        let text = "module {\n  module @inner {\n  }\n  transform.named_sequence @a() {\n    transform.include @inner::@x failures(suppress) () : () -> ()\n  }\n}\n";
        assert!(split(text.as_bytes(), 2).is_none());
    }

    #[test]
    fn parts_are_about_equal_and_never_empty() {
        let ops: Vec<TopOp> = [10, 10, 10, 10, 100, 10]
            .iter()
            .map(|&len| TopOp {
                text: &LIBRARY.as_bytes()[..len],
                defines: None,
            })
            .collect();
        assert_eq!(groups(&ops, 2), vec![0..5, 5..6]);
        assert_eq!(groups(&ops, 3), vec![0..4, 4..5, 5..6]);
        assert!(groups(&ops, 6).iter().all(|range| range.len() == 1));
    }
}
