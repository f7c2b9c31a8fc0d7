//! Structural fingerprints of matchers: how the linker finds a matcher that can never fire.

use crate::ir::{Attr, Op, ValueRef};

/// A canonical text of an op tree with its own symbol name left out and SSA ids made relative,
/// so that two matchers written alike in different specs print the same. A symbol reference to
/// another top-level op of the same spec prints as that op's own canonical text (so helpers
/// with different names but equal bodies compare equal); other references print by name.
pub fn fingerprint<'a>(
    op: &'a Op,
    resolve: &dyn Fn(&str) -> Option<&'a Op>,
    external: &dyn Fn(&str) -> String,
) -> String {
    let mut printer = Printer {
        resolve,
        external,
        out: String::new(),
    };
    printer.root(op, 0);
    printer.out
}

/// Bounds helper-of-helper expansion (and breaks reference cycles).
const MAX_DEPTH: usize = 4;

/// The fingerprint's printer: the caller's symbol lookups and the text so far. At module level
/// (not inside `fingerprint`) so that its recursive printing of attributes and ops reads alone.
struct Printer<'r, 'a> {
    resolve: &'r dyn Fn(&str) -> Option<&'a Op>,
    external: &'r dyn Fn(&str) -> String,
    out: String,
}
impl<'a> Printer<'_, 'a> {
    /// An attribute; a reference to a top-level op of the spec prints as that op's text.
    fn attr(&mut self, attr: &Attr, depth: usize) {
        match attr {
            Attr::SymbolRef(path) if path.len() == 1 && depth < MAX_DEPTH => {
                match (self.resolve)(&path[0]) {
                    Some(target) => {
                        self.out.push('{');
                        self.root(target, depth + 1);
                        self.out.push('}');
                    }
                    None => self
                        .out
                        .push_str(&format!("@{}", (self.external)(&path[0]))),
                }
            }
            Attr::SymbolRef(path) => self
                .out
                .push_str(&format!("@{}", (self.external)(&path.join("::@")))),
            Attr::Array(items) => {
                self.out.push('[');
                for item in items {
                    self.attr(item, depth);
                    self.out.push(',');
                }
                self.out.push(']');
            }
            Attr::Dict(entries) => {
                self.out.push('{');
                for (key, value) in entries {
                    self.out.push_str(key);
                    self.out.push('=');
                    self.attr(value, depth);
                    self.out.push(',');
                }
                self.out.push('}');
            }
            other => self.out.push_str(&format!("{other:?}")),
        }
    }
    /// A top-level op, its ids relative to its own.
    fn root(&mut self, op: &Op, depth: usize) {
        let base_block = op
            .regions
            .first()
            .and_then(|region| region.blocks.first())
            .map_or(0, |block| block.id);
        self.op(op, op.id, base_block, depth, true);
    }
    /// An op and its regions, SSA ids relative to the root's (`top`: its own symbol left out).
    fn op(&mut self, op: &Op, base_op: u32, base_block: u32, depth: usize, top: bool) {
        self.out.push_str(&op.name);
        self.out.push('(');
        for operand in &op.operands {
            let text = match operand {
                ValueRef::BlockArg { block, index } => {
                    format!("b{}.{index},", block.wrapping_sub(base_block))
                }
                ValueRef::Result { op, index } => {
                    format!("r{}.{index},", op.wrapping_sub(base_op))
                }
                ValueRef::Unknown => "?,".to_string(),
            };
            self.out.push_str(&text);
        }
        self.out.push_str("){");
        for (key, value) in &op.attrs {
            if top && key == "sym_name" {
                continue;
            }
            self.out.push_str(key);
            self.out.push('=');
            self.attr(value, depth);
            self.out.push(';');
        }
        self.out.push_str("}->");
        self.out.push_str(&op.result_types.join(","));
        for region in &op.regions {
            self.out.push('[');
            for block in &region.blocks {
                self.out.push_str(&format!(
                    "^{}({})",
                    block.id.wrapping_sub(base_block),
                    block.arg_types.join(",")
                ));
                for inner in &block.ops {
                    self.op(inner, base_op, base_block, depth, false);
                    self.out.push(';');
                }
            }
            self.out.push(']');
        }
    }
}
