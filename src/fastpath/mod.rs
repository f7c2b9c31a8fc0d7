//! A native evaluator for the common form of tuning matchers, so that `apply` does not pay one
//! interpreter call per (op, matcher).
//!
//! Why: a merged library of 10,000 matchers applied to 1,000 ops costs minutes in MLIR's
//! transform interpreter (every op tries every matcher until one succeeds, ~30 µs a try). Most
//! tuning matchers only compare an op's name, loop ranges, rank and operand element bit widths
//! against constants, and most actions only annotate the op with a constant. For a library made
//! only of such pairs, this module computes, for every payload op, the first pair whose matcher
//! succeeds (through hash indexes over equality constraints, in priority order) and sets the
//! very same attribute the interpreter would set. Anything it does not recognise, anywhere in
//! the entry point, makes [`compile`] return `None`, and `apply` uses the interpreter: the
//! result is identical either way (differential tests compare both paths).
//!
//! Semantics mirrored from MLIR 22 (`transform.foreach_match` and the match ops):
//! - `foreach_match` visits every op nested in each root (not the root itself); per op the
//!   first matcher that succeeds runs its action;
//! - `match.structured` fails on ops that are not LinalgOps; `.rank` is the loop count; `.dim`
//!   selects static loop ranges (negative positions count from the end; out of range fails);
//!   `.input`/`.init` select DPS operands; `.elemental_bitwidth` fails unless the value is a
//!   shaped type of integers or floats;
//! - `match.param.cmpi` compares two parameter lists element-wise and fails when their lengths
//!   differ; `merge_handles` of parameters concatenates them.
//!
//! And from IREE 3.13's tuning-spec matchers (the shim's extension runs the same code, and the
//! payload walk takes each op's result groups from it, `tunespecIreeMatchDims`):
//! `transform.iree.match.contraction` / `.convolution` / `.attention` / `.online_attention`
//! succeed on ops of their kind whose element types equal the given ones (and indexing maps,
//! when given) and produce the loop ranges of each dimension role; `dims_equal` compares a list
//! with `-1` as a wildcard; `has_no_lowering_config` rejects ops carrying a config.

use std::collections::HashMap;

use crate::ir::{self, names, Attr, Op, OpFeatures, ValueRef};
use crate::mlir::Features;

mod eval;
mod matcher;

use self::eval::{check_features, evaluate, pair_matches};
use self::matcher::{compile_action, compile_matcher, Action};

/// A parameter computed from the payload op or a constant. (Ordered only so that an index key's
/// parameters have one canonical order.)
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Param {
    Const(i64),
    Rank,
    /// Loop ranges at these positions (None: all), in order.
    Dims(Option<Vec<i64>>),
    /// Element bit width of DPS input / init `position` (negative counts from the end).
    InputBitwidth(i64),
    InitBitwidth(i64),
    Merge(Vec<Param>),
    /// Loop ranges of a contraction's batch (0), m (1), n (2) or k (3) dims.
    Contraction(u8),
    /// Result group of `transform.iree.match.convolution` (0..8, in its result order).
    Convolution(u8),
    /// Result group of `transform.iree.match.attention` / `.online_attention` (0..5).
    Attention(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Predicate {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Predicate {
    fn from_attr(value: i64) -> Option<Self> {
        Some(match value {
            0 => Predicate::Eq,
            1 => Predicate::Ne,
            2 => Predicate::Lt,
            3 => Predicate::Le,
            4 => Predicate::Gt,
            5 => Predicate::Ge,
            _ => return None,
        })
    }
    fn holds(self, lhs: i64, rhs: i64) -> bool {
        match self {
            Predicate::Eq => lhs == rhs,
            Predicate::Ne => lhs != rhs,
            Predicate::Lt => lhs < rhs,
            Predicate::Le => lhs <= rhs,
            Predicate::Gt => lhs > rhs,
            Predicate::Ge => lhs >= rhs,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Check {
    /// The op is a LinalgOp (from `match.structured`).
    Structured,
    /// Every dim position selected exists (a `match.structured.dim` without a result).
    DimsExist(Option<Vec<i64>>),
    /// A value handle from `.input`/`.init` must exist (the op has that operand).
    InputExists(i64),
    InitExists(i64),
    Cmp(Predicate, Param, Param),
    /// `transform.iree.match.contraction`: a linalg contraction with these element types (and
    /// indexing maps, printed, when given).
    Contraction {
        lhs: String,
        rhs: String,
        output: String,
        maps: Option<String>,
    },
    /// `transform.iree.match.convolution`: a linalg convolution with these element types (and
    /// indexing maps, printed, when given).
    Convolution {
        lhs: String,
        rhs: String,
        output: String,
        maps: Option<String>,
    },
    /// `transform.iree.match.attention` (online: `.online_attention`): IREE's attention op with
    /// these element types (query, key, value, output; online: also scale, max and sum, in that
    /// order) and indexing maps (printed; always given).
    Attention {
        online: bool,
        types: Vec<String>,
        maps: String,
    },
    /// `transform.iree.match.has_no_lowering_config`.
    NoConfig,
    /// `transform.iree.match.cast_compatible_type` on operand `.0` (from `transform.get_operand`):
    /// the printed target type.
    CastCompatible(usize, String),
    /// `transform.iree.match.dim_is_multiple_of` on operand `.0`: dim `.1` is a multiple of `.2`.
    DimMultipleOf(usize, i64, i64),
    /// `transform.iree.match.dims_equal`: same length, each value equal or expected -1.
    DimsEqual(Param, Vec<i64>),
}

/// One recognised matcher -> action pair.
#[derive(Clone, Debug)]
struct Pair {
    /// Allowed op names (`match.operation_name`), None: any.
    names: Option<Vec<String>>,
    checks: Vec<Check>,
    /// Annotations, in the action's order: attribute name and the library op id of the
    /// `param.constant` whose `value` is set (None: a unit attribute).
    annotate: Vec<(String, Option<u32>)>,
}

/// An index over pairs whose checks are `param == const`: (op name, parameter values) -> the
/// pairs with that key, in priority order.
type KeyIndex = HashMap<(String, Vec<Vec<i64>>), Vec<usize>>;

/// A compiled library: pairs in priority order and indexes over their equality constraints.
pub struct NativeLibrary {
    pairs: Vec<Pair>,
    /// Pairs whose checks are all `param == const` (and a single op name), grouped by the list
    /// of parameters they constrain: (op name, parameter values) -> first pair index.
    indexed: Vec<(Vec<Param>, KeyIndex)>,
    /// Pairs not indexed, in priority order.
    scanned: Vec<usize>,
}

/// The name key of indexed pairs that do not test the op's name.
const ANY_OP: &str = "*";

/// The edit for one payload op: (payload op id, attribute name, library op id, "value"), or
/// (.., library op id 0, "") for a unit attribute.
pub type Edit = (u32, String, u32, String);

/// Compiles a library, or None when any part of its entry point is outside the recognised form.
pub fn compile(library: &ir::Module) -> Option<NativeLibrary> {
    let root = &library.root;
    let symbols: HashMap<&str, &Op> = root
        .body()
        .iter()
        .filter_map(|op| op.sym_name().map(|name| (name, op)))
        .collect();
    let entry = symbols.get(names::KERNEL_CONFIG)?;
    let body = entry.body();
    let [foreach, yield_op] = body else {
        return None;
    };
    if foreach.name != names::FOREACH_MATCH
        || yield_op.name != names::YIELD
        || foreach.has_attr("restrict_root")
        || foreach.has_attr("flatten_results")
        || foreach.operands.len() != 1
        || foreach.result_types.len() != 1
    {
        return None;
    }
    let list = |name: &str| -> Option<Vec<String>> {
        foreach
            .attr(name)?
            .as_array()?
            .iter()
            .map(|attr| match attr.as_symbol_ref() {
                Some([single]) => Some(single.clone()),
                _ => None,
            })
            .collect()
    };
    let matchers = list("matchers")?;
    let actions = list("actions")?;
    if matchers.len() != actions.len() {
        return None;
    }
    let mut pairs = Vec::with_capacity(matchers.len());
    let mut action_cache: HashMap<&str, Option<Action>> = HashMap::new();
    for (matcher, action) in matchers.iter().zip(&actions) {
        let action = action_cache
            .entry(action.as_str())
            .or_insert_with(|| {
                symbols
                    .get(action.as_str())
                    .and_then(|op| compile_action(op))
            })
            .clone()?;
        let (names, checks, configs) = compile_matcher(symbols.get(matcher.as_str())?)?;
        // The matcher yields the op and one parameter per action argument after the op.
        if configs.len() != action.params {
            return None;
        }
        let annotate = action
            .annotations
            .iter()
            .map(|(name, param)| (name.clone(), param.map(|index| configs[index])))
            .collect();
        pairs.push(Pair {
            names,
            checks,
            annotate,
        });
    }
    Some(index(pairs))
}

fn index(pairs: Vec<Pair>) -> NativeLibrary {
    let mut groups: HashMap<Vec<Param>, KeyIndex> = HashMap::new();
    let mut group_order: Vec<Vec<Param>> = Vec::new();
    let mut scanned = Vec::new();
    for (position, pair) in pairs.iter().enumerate() {
        // A pair that names no op is indexed under ANY_OP (IREE's matchers infer the op kind
        // from its structure instead of its name).
        let single_name = match &pair.names {
            Some(names) if names.len() == 1 => Some(names[0].clone()),
            None => Some(ANY_OP.to_string()),
            _ => None,
        };
        let mut keys: Vec<(Param, Vec<i64>)> = Vec::new();
        let mut indexable = single_name.is_some();
        for check in &pair.checks {
            match check {
                // Confirmed after the lookup (see `first_match`).
                Check::Structured
                | Check::DimsExist(_)
                | Check::InputExists(_)
                | Check::InitExists(_)
                | Check::Contraction { .. }
                | Check::Convolution { .. }
                | Check::Attention { .. }
                | Check::NoConfig
                | Check::CastCompatible(..)
                | Check::DimMultipleOf(..) => {}
                Check::DimsEqual(param, values) if !values.contains(&-1) => {
                    keys.push((param.clone(), values.clone()))
                }
                Check::Cmp(Predicate::Eq, lhs, rhs) => match (constant(lhs), constant(rhs)) {
                    (None, Some(values)) => keys.push((lhs.clone(), values)),
                    (Some(values), None) => keys.push((rhs.clone(), values)),
                    _ => indexable = false,
                },
                _ => indexable = false,
            }
        }
        // Indexed pairs are only looked up for ops with loops or attention ops (see
        // `first_match`): a pair may be indexed only when one of its checks fails on every
        // other op.
        let kind_only = pair.checks.iter().any(|check| {
            matches!(
                check,
                Check::Structured
                    | Check::Contraction { .. }
                    | Check::Convolution { .. }
                    | Check::Attention { .. }
            )
        });
        if !indexable || keys.is_empty() || !kind_only {
            scanned.push(position);
            continue;
        }
        // One canonical order of the constrained parameters: pairs constraining the same ones
        // share a group whichever order their matchers state them in.
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        let signature: Vec<Param> = keys.iter().map(|(param, _)| param.clone()).collect();
        let values: Vec<Vec<i64>> = keys.into_iter().map(|(_, values)| values).collect();
        let group = groups.entry(signature.clone()).or_insert_with(|| {
            group_order.push(signature);
            HashMap::new()
        });
        group
            .entry((single_name.expect("indexable"), values))
            .or_default()
            .push(position);
    }
    let indexed = group_order
        .into_iter()
        .map(|signature| {
            let map = groups.remove(&signature).unwrap_or_default();
            (signature, map)
        })
        .collect();
    NativeLibrary {
        pairs,
        indexed,
        scanned,
    }
}

/// The values of a parameter made only of constants.
fn constant(param: &Param) -> Option<Vec<i64>> {
    match param {
        Param::Const(value) => Some(vec![*value]),
        Param::Merge(parts) => {
            let mut out = Vec::new();
            for part in parts {
                out.extend(constant(part)?);
            }
            Some(out)
        }
        _ => None,
    }
}

impl NativeLibrary {
    /// The costly payload features its matchers read: a payload walk that computes only these
    /// ([`crate::mlir::OwnedOp::op_features_of`]) gives the same matches as a full one.
    pub fn features(&self) -> Features {
        let mut features = Features::NONE;
        for pair in &self.pairs {
            for check in &pair.checks {
                check_features(check, &mut features);
            }
        }
        features
    }

    /// The first pair (index) whose matcher succeeds on `op`; the outer None when a pair before
    /// it cannot be decided natively.
    pub fn first_match(&self, op: &OpFeatures) -> Option<Option<usize>> {
        let mut best: Option<usize> = None;
        if op.loops.is_some() || op.attention.is_some() {
            for (signature, map) in &self.indexed {
                let Some(values) = signature
                    .iter()
                    .map(|param| evaluate(param, op))
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                // The key covers the equality checks; the other checks (operands exist) are
                // confirmed per candidate, in priority order.
                let mut key = (op.name.clone(), values);
                for name in [op.name.as_str(), ANY_OP] {
                    name.clone_into(&mut key.0);
                    let Some(candidates) = map.get(&key) else {
                        continue;
                    };
                    for &index in candidates {
                        if best.is_some_and(|current| index >= current) {
                            break;
                        }
                        if pair_matches(&self.pairs[index], op)? {
                            best = Some(index);
                            break;
                        }
                    }
                }
            }
        }
        for &index in &self.scanned {
            if best.is_some_and(|current| index >= current) {
                break;
            }
            if pair_matches(&self.pairs[index], op)? {
                best = Some(index);
                break;
            }
        }
        Some(best)
    }

    /// The edits that applying the library makes to a payload with these op features: per
    /// visited op, the annotations of its first matching pair; None when some op's match cannot
    /// be decided natively (the caller runs the interpreter).
    pub fn edits(&self, ops: &[OpFeatures]) -> Option<Vec<(Edit, usize)>> {
        let mut edits = Vec::new();
        for op in visited(ops) {
            let Some(index) = self.first_match(op)? else {
                continue;
            };
            for (name, config) in &self.pairs[index].annotate {
                let edit = match config {
                    Some(config) => (op.id, name.clone(), *config, "value".to_string()),
                    None => (op.id, name.clone(), 0, String::new()),
                };
                edits.push((edit, index));
            }
        }
        Some(edits)
    }

    /// The pairs that win on some visited op (each op's first matching pair), whatever their
    /// actions do; None when some op's match cannot be decided natively. Every other pair can
    /// go without changing what any op gets.
    pub fn winners(&self, ops: &[OpFeatures]) -> Option<std::collections::BTreeSet<usize>> {
        let mut winners = std::collections::BTreeSet::new();
        for op in visited(ops) {
            if let Some(index) = self.first_match(op)? {
                winners.insert(index);
            }
        }
        Some(winners)
    }

    /// How many pairs the library has, in priority order.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the library has no pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// The ops `foreach_match` visits: those in functions when there are any, else every op but
/// the root.
fn visited(ops: &[OpFeatures]) -> impl Iterator<Item = &OpFeatures> {
    let any_function = ops.iter().any(|op| op.in_function);
    ops.iter().filter(move |op| {
        if any_function {
            op.in_function
        } else {
            op.id != 0
        }
    })
}
