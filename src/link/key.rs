//! Matcher keys: what a matcher matches, as a set of canonical constraint strings, so that the
//! linker can tell when a later matcher can never fire (its match set is contained in an earlier
//! one's), `explain` which defaults a winner overrode, and `import-tuner` which entries are the
//! same op.
//!
//! A matcher's body is a conjunction of checks on its root operand: each check that can fail
//! (`transform.iree.match.contraction`, `dims_equal`, `has_no_lowering_config`,
//! `transform.match.operation_name`, `transform.match.structured`, `param.cmpi`, ...) becomes one
//! constraint string, its operands printed as the expressions that produce them (the root, a
//! named result of the root match op such as `m` or `k`, a constant, an operand handle). When an
//! earlier matcher's constraints are a subset of a later one's, every op the later one matches
//! the earlier one matches too: first match wins, so the later one never fires there. Subset is
//! sufficient, not necessary (a contraction without `indexing_maps` is not seen to contain one
//! with them): the key errs towards not reporting. A body with an op the key cannot reason about
//! (anything with effects, calls, nested matchers) gets no key at all.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::ir::{Attr, Op, ValueRef};

/// What a matcher matches: its root op kind and the constraints it tests.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct MatcherKey {
    /// The root op kind: `contraction`, `convolution`, `attention`, `online_attention` (IREE's
    /// match ops), `operation_name[linalg.matmul]` (upstream), or `structured` (an upstream
    /// `transform.match.structured` with no op name test).
    pub root: String,
    /// Every check, canonical and printable, sorted.
    pub constraints: BTreeSet<String>,
    /// The target a registry entry is registered for, when known. Containment ignores it when
    /// either side has none (the entries of one link are all for the target linked).
    pub target: Option<String>,
}

impl MatcherKey {
    /// Whether every op `later` matches is matched by `self` (same root kind and target, and
    /// `self`'s constraints a subset of `later`'s).
    pub fn contains(&self, later: &MatcherKey) -> bool {
        let targets_agree = match (&self.target, &later.target) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        targets_agree && self.root == later.root && self.constraints.is_subset(&later.constraints)
    }

    /// Whether either key contains the other.
    pub fn overlaps(&self, other: &MatcherKey) -> bool {
        self.contains(other) || other.contains(self)
    }

    /// The key with `target` set.
    pub fn for_target(mut self, target: impl Into<String>) -> MatcherKey {
        self.target = Some(target.into());
        self
    }
}

impl std::fmt::Display for MatcherKey {
    /// `contraction: c1; c2; ... [target gfx942]`: deterministic (constraints sorted).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:", self.root)?;
        let mut first = true;
        for constraint in &self.constraints {
            write!(f, "{} {constraint}", if first { "" } else { ";" })?;
            first = false;
        }
        if let Some(target) = &self.target {
            write!(f, " [target {target}]")?;
        }
        Ok(())
    }
}

/// The ops a matcher key can reason about: checks that fail or succeed on their operands (no
/// effects), and the producers of their operands.
const CHECKS: &[&str] = &[
    "transform.iree.match.has_no_lowering_config",
    "transform.iree.match.contraction",
    "transform.iree.match.convolution",
    "transform.iree.match.attention",
    "transform.iree.match.online_attention",
    "transform.iree.match.dims_equal",
    "transform.iree.match.dim_is_multiple_of",
    "transform.iree.match.dim_bounds",
    "transform.iree.match.cast_compatible_type",
    "transform.iree.match.cast_compatible_dag_from_root",
    "transform.iree.match.regions",
    "transform.match.operation_name",
    "transform.match.structured",
    "transform.match.param.cmpi",
    "transform.match.operation_empty",
];

/// Ops that only produce values for checks (they never fail on a matched op).
const PRODUCERS: &[&str] = &[
    "transform.param.constant",
    "transform.merge_handles",
    "transform.get_operand",
    "transform.get_result",
];

/// The names of the results of IREE's root match ops (ODS names without `_dims`).
fn result_names(op: &str) -> &'static [&'static str] {
    match op {
        "transform.iree.match.contraction" => &["batch", "m", "n", "k"],
        "transform.iree.match.convolution" => &[
            "batch",
            "output_image",
            "output_channel",
            "filter",
            "input_channel",
            "depth",
            "strides",
            "dilations",
        ],
        "transform.iree.match.attention" | "transform.iree.match.online_attention" => {
            &["batch", "m", "n", "k1", "k2"]
        }
        _ => &[],
    }
}

/// The op name without `transform.`, `iree.match.` and `match.`.
fn short(name: &str) -> &str {
    let name = name.strip_prefix("transform.").unwrap_or(name);
    let name = name.strip_prefix("iree.match.").unwrap_or(name);
    name.strip_prefix("match.").unwrap_or(name)
}

/// An attribute printed canonically; `None` for one the snapshot kept only by address.
fn attr_text(attr: &Attr, out: &mut String) -> Option<()> {
    match attr {
        Attr::Unit => out.push_str("unit"),
        Attr::Str(text) => {
            let _ = write!(out, "{text:?}");
        }
        Attr::SymbolRef(path) => {
            let _ = write!(out, "@{}", path.join("::@"));
        }
        Attr::Int(value) => {
            let _ = write!(out, "{value}");
        }
        Attr::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                attr_text(item, out)?;
            }
            out.push(']');
        }
        Attr::Dict(entries) => {
            out.push('{');
            for (index, (name, value)) in entries.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{name} = ");
                attr_text(value, out)?;
            }
            out.push('}');
        }
        Attr::Type(text) => out.push_str(text),
        Attr::I64Array(values) => {
            let items: Vec<String> = values.iter().map(i64::to_string).collect();
            let _ = write!(out, "[{}]", items.join(", "));
        }
        Attr::Other(text) => {
            // The snapshot's stand-in for an attribute it did not print: an address, not a
            // value (see `Attr::Other`).
            let by_address = text
                .strip_prefix('#')
                .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()));
            if by_address {
                return None;
            }
            out.push_str(text);
        }
    }
    Some(())
}

/// The key of a matcher (a `transform.named_sequence`), or `None` when its body has an op the
/// key cannot reason about, or no root op test.
pub fn matcher_key(matcher: &Op) -> Option<MatcherKey> {
    let region = matcher.regions.first()?;
    let [block] = region.blocks.as_slice() else {
        return None;
    };
    if block.arg_types.is_empty() {
        return None;
    }
    let root_arg = ValueRef::BlockArg {
        block: block.id,
        index: 0,
    };
    let (last, rest) = block.ops.split_last()?;
    if last.name != "transform.yield" {
        return None;
    }
    let mut key = KeyBuilder::default();
    key.values.insert(root_arg, Some("$root".to_string()));
    for op in rest {
        key.add(op)?;
    }
    key.finish()
}

/// A matcher key built op by op: the printed value of each SSA value, the root op kind and the
/// constraints so far. A struct so that printing an op, noting what it says about the root and
/// naming its results are separate steps; any op the key cannot reason about makes the whole
/// key `None`.
#[derive(Default)]
struct KeyBuilder {
    /// `None`: a value the key cannot print (a config constant kept by address); a check on it
    /// makes the matcher unkeyed, a config that is only yielded does not.
    values: HashMap<ValueRef, Option<String>>,
    root: Option<String>,
    op_names: Option<BTreeSet<String>>,
    structured: bool,
    constraints: BTreeSet<String>,
}

impl KeyBuilder {
    /// Adds one op of the matcher's body; `None` when the key cannot reason about it.
    fn add(&mut self, op: &Op) -> Option<()> {
        let check = CHECKS.contains(&op.name.as_str());
        if !check && !PRODUCERS.contains(&op.name.as_str()) {
            return None;
        }
        let mut operands = Vec::with_capacity(op.operands.len());
        for operand in &op.operands {
            operands.push(self.values.get(operand)?.clone()?);
        }
        let names = result_names(&op.name);
        let is_root_op = !names.is_empty();
        if is_root_op {
            if self.root.is_some() || operands.first().map(String::as_str) != Some("$root") {
                // Two root tests, or one on another handle: not a shape the key knows.
                return None;
            }
            self.root = Some(short(&op.name).to_string());
        }
        let (text, printable) = constraint_text(op, &operands, is_root_op);
        if check && !printable {
            return None;
        }
        if operands.first().map(String::as_str) == Some("$root") {
            self.note_root_test(op)?;
        }
        for index in 0..op.result_types.len() {
            let value = if is_root_op {
                Some(
                    names
                        .get(index)
                        .map_or_else(|| format!("#{index}"), |n| (*n).to_string()),
                )
            } else if op.name == "transform.param.constant" {
                let mut value = String::new();
                attr_text(op.attr("value")?, &mut value).map(|()| value)
            } else {
                printable.then(|| format!("{text}#{index}"))
            };
            self.values.insert(
                ValueRef::Result {
                    op: op.id,
                    index: index as u32,
                },
                value,
            );
        }
        if check {
            self.constraints.insert(text);
        }
        Some(())
    }

    /// What a test on the root itself says when no root match op does: the op names it allows
    /// (intersected over every `match.operation_name`), or that it is structured.
    fn note_root_test(&mut self, op: &Op) -> Option<()> {
        match op.name.as_str() {
            "transform.match.operation_name" => {
                let listed: BTreeSet<String> = op
                    .attr("op_names")?
                    .as_array()?
                    .iter()
                    .map(|name| name.as_str().map(str::to_string))
                    .collect::<Option<_>>()?;
                self.op_names = Some(match self.op_names.take() {
                    None => listed,
                    Some(previous) => previous.intersection(&listed).cloned().collect(),
                });
            }
            "transform.match.structured" => self.structured = true,
            _ => {}
        }
        Some(())
    }

    /// The key: the root match op's kind, else the allowed op names, else `structured`; `None`
    /// without any root test.
    fn finish(self) -> Option<MatcherKey> {
        let root = match (self.root, self.op_names) {
            (Some(root), _) => root,
            (None, Some(names)) => {
                let names: Vec<String> = names.into_iter().collect();
                format!("operation_name[{}]", names.join(","))
            }
            (None, None) if self.structured => "structured".to_string(),
            (None, None) => return None,
        };
        Some(MatcherKey {
            root,
            constraints: self.constraints,
            target: None,
        })
    }
}

/// An op as a constraint string: its short name, its operands (the root match op's `$root`
/// left out: every constraint is about it), its attributes and a hash of its regions; and
/// whether every attribute could be printed (a check with one that cannot is unkeyable).
fn constraint_text(op: &Op, operands: &[String], is_root_op: bool) -> (String, bool) {
    let mut text = String::new();
    text.push_str(short(&op.name));
    let shown = if is_root_op {
        operands.get(1..).unwrap_or_default()
    } else {
        operands
    };
    if !shown.is_empty() {
        let joined: Vec<&str> = shown.iter().map(|s| s.as_str()).collect();
        let _ = write!(text, "({})", joined.join(", "));
    }
    let attrs: Vec<&(String, Attr)> = op
        .attrs
        .iter()
        .filter(|(name, _)| name != "failure_propagation_mode")
        .collect();
    let mut printable = true;
    if !attrs.is_empty() {
        text.push_str(" {");
        for (index, (name, value)) in attrs.iter().enumerate() {
            if index > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{name} = ");
            printable &= attr_text(value, &mut text).is_some();
        }
        text.push('}');
    }
    if !op.regions.is_empty() {
        // A region (match.structured's body, match.regions, a DAG): compared structurally.
        let print = super::fingerprint(op, &|_| None, &|name| name.to_string());
        let hash = blake3::hash(print.as_bytes()).to_hex();
        let _ = write!(text, " region#{}", &hash.as_str()[..16]);
    }
    (text, printable)
}

/// The keyed matchers of a spec (every `transform.named_sequence` that has a key), in order:
/// name and key.
pub fn keyed_matchers(module: &crate::ir::Module) -> Vec<(String, MatcherKey)> {
    let mut found = Vec::new();
    module.root.walk(&mut |op| {
        if op.name != crate::ir::names::NAMED_SEQUENCE {
            return;
        }
        if let (Some(name), Some(key)) = (op.sym_name(), matcher_key(op)) {
            found.push((name.to_string(), key));
        }
    });
    found
}

/// An order-independent hash of a root kind and a set of constraints: the wrapping sum of each
/// part's own hash, so that the hash of every subset of a key's constraints comes from the
/// parts' hashes by additions alone.
fn part_hash(part: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    part.hash(&mut hasher);
    hasher.finish()
}

fn set_hash(key: &MatcherKey) -> u64 {
    key.constraints.iter().fold(part_hash(&key.root), |sum, c| {
        sum.wrapping_add(part_hash(c))
    })
}

/// An index of keys seen so far, to find an earlier key that contains a later one without
/// comparing every pair: keys are filed by the hash of their root kind and constraint set
/// ([`set_hash`]), and a later key looks up the hash of each subset of its constraints (up to
/// [`MAX_SUBSET_BITS`] constraints; past that, it scans the keys of its root kind). Every hit is
/// checked with [`MatcherKey::contains`], so a hash collision costs a comparison, never a wrong
/// answer.
pub struct KeyIndex<T> {
    by_set: HashMap<u64, Vec<(usize, MatcherKey, T)>>,
    by_root: HashMap<String, Vec<(usize, MatcherKey, T)>>,
    next: usize,
}

impl<T> Default for KeyIndex<T> {
    fn default() -> Self {
        KeyIndex {
            by_set: HashMap::new(),
            by_root: HashMap::new(),
            next: 0,
        }
    }
}

/// Constraint counts up to this are looked up by subsets (2^n look-ups).
const MAX_SUBSET_BITS: usize = 10;

impl<T: Clone> KeyIndex<T> {
    /// Files `key` with its value.
    pub fn insert(&mut self, key: &MatcherKey, value: T) {
        let order = self.next;
        self.next += 1;
        self.by_set
            .entry(set_hash(key))
            .or_default()
            .push((order, key.clone(), value.clone()));
        self.by_root
            .entry(key.root.clone())
            .or_default()
            .push((order, key.clone(), value));
    }

    /// The first filed value (in insertion order) whose key contains `later`.
    pub fn first_containing(&self, later: &MatcherKey) -> Option<T> {
        let count = later.constraints.len();
        if count > MAX_SUBSET_BITS {
            return self
                .by_root
                .get(&later.root)?
                .iter()
                .find(|(_, key, _)| key.contains(later))
                .map(|(_, _, value)| value.clone());
        }
        let parts: Vec<u64> = later.constraints.iter().map(|c| part_hash(c)).collect();
        // sums[mask]: the hash of the root and the constraints in `mask`.
        let mut sums = vec![part_hash(&later.root); 1 << count];
        let mut best: Option<(usize, &T)> = None;
        for mask in 0..sums.len() {
            if mask > 0 {
                let low = mask.trailing_zeros() as usize;
                sums[mask] = sums[mask & (mask - 1)].wrapping_add(parts[low]);
            }
            let Some(found) = self.by_set.get(&sums[mask]) else {
                continue;
            };
            for (order, key, value) in found {
                if best.is_some_and(|(b, _)| *order >= b) {
                    break;
                }
                if key.contains(later) {
                    best = Some((*order, value));
                    break;
                }
            }
        }
        best.map(|(_, value)| value.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(root: &str, constraints: &[&str]) -> MatcherKey {
        MatcherKey {
            root: root.to_string(),
            constraints: constraints.iter().map(|c| c.to_string()).collect(),
            target: None,
        }
    }

    #[test]
    fn containment_is_a_subset_of_constraints_of_one_root() {
        let wide = key("contraction", &["c", "m"]);
        let narrow = key("contraction", &["c", "m", "has_no_lowering_config($root)"]);
        assert!(wide.contains(&narrow) && !narrow.contains(&wide));
        assert!(wide.overlaps(&narrow) && narrow.overlaps(&wide));
        assert!(!key("convolution", &["c", "m"]).overlaps(&narrow));
        assert!(!key("contraction", &["c", "n"]).overlaps(&wide));
        assert_eq!(
            narrow.to_string(),
            "contraction: c; has_no_lowering_config($root); m"
        );
    }

    #[test]
    fn the_index_finds_the_first_containing_key() {
        let mut index = KeyIndex::default();
        index.insert(&key("contraction", &["c", "m", "n"]), 0);
        index.insert(&key("contraction", &["c"]), 1);
        index.insert(&key("contraction", &["c", "m"]), 2);
        // Both 1 and 2 contain it; 1 was filed first. 0 does not ({c, m, n} is not a subset).
        assert_eq!(
            index.first_containing(&key("contraction", &["c", "m", "k"])),
            Some(1)
        );
        assert_eq!(
            index.first_containing(&key("contraction", &["c", "m", "n"])),
            Some(0)
        );
        assert_eq!(
            index.first_containing(&key("convolution", &["c", "m"])),
            None
        );
        // Past the subset limit, a scan of the root's keys gives the same answer.
        let many: Vec<String> = (0..MAX_SUBSET_BITS + 2).map(|i| format!("x{i}")).collect();
        let mut wide: Vec<&str> = many.iter().map(String::as_str).collect();
        wide.push("c");
        assert_eq!(index.first_containing(&key("contraction", &wide)), Some(1));
    }
}
