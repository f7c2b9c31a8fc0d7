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

/// A recognised action: `transform.annotate` ops on its first argument (the op), each with a
/// parameter argument or none (a unit attribute), then `transform.yield`.
#[derive(Clone, Debug)]
struct Action {
    /// Number of parameter arguments after the op.
    params: usize,
    /// (attribute name, parameter index), in order.
    annotations: Vec<(String, Option<usize>)>,
}

fn compile_action(op: &Op) -> Option<Action> {
    let block = op.entry_block()?;
    if block.arg_types.len() < 2 || op.regions.first()?.blocks.len() != 1 {
        return None;
    }
    let (yield_op, annotates) = block.ops.split_last()?;
    if yield_op.name != names::YIELD || !yield_op.operands.is_empty() || annotates.is_empty() {
        return None;
    }
    let arg = |index| ValueRef::BlockArg {
        block: block.id,
        index,
    };
    let mut annotations = Vec::new();
    for annotate in annotates {
        if annotate.name != "transform.annotate" || annotate.operands.first() != Some(&arg(0)) {
            return None;
        }
        let param = match annotate.operands[1..] {
            [] => None,
            [ValueRef::BlockArg { block: id, index }] if id == block.id && index >= 1 => {
                Some(index as usize - 1)
            }
            _ => return None,
        };
        annotations.push((annotate.attr("name")?.as_str()?.to_string(), param));
    }
    Some(Action {
        params: block.arg_types.len() - 1,
        annotations,
    })
}

/// What an SSA value of a matcher stands for.
#[derive(Clone, Debug)]
enum Value {
    Root,
    Param(Param),
    /// A `param.constant` with a non-integer value: the config, by library op id.
    Config(u32),
    /// A value handle of DPS input/init at a position.
    Input(i64),
    Init(i64),
    /// A value handle of the op's operand at this index (`transform.get_operand`).
    Operand(usize),
}

/// A compiled matcher: allowed op names (None: any), checks in program order, and the library
/// op ids of the configs it yields after the op.
type CompiledMatcher = (Option<Vec<String>>, Vec<Check>, Vec<u32>);

fn compile_matcher(op: &Op) -> Option<CompiledMatcher> {
    let block = op.entry_block()?;
    if block.arg_types.len() != 1 || op.regions.first()?.blocks.len() != 1 {
        return None;
    }
    let mut values: HashMap<ValueRef, Value> = HashMap::new();
    values.insert(
        ValueRef::BlockArg {
            block: block.id,
            index: 0,
        },
        Value::Root,
    );
    let mut names_filter: Option<Vec<String>> = None;
    let mut checks = Vec::new();
    let (last, rest) = block.ops.split_last()?;
    for inner in rest {
        let operand = |index: usize| {
            inner
                .operands
                .get(index)
                .and_then(|v| values.get(v))
                .cloned()
        };
        let result = |index: u32| ValueRef::Result {
            op: inner.id,
            index,
        };
        match inner.name.as_str() {
            "transform.match.operation_name" => {
                if !matches!(operand(0), Some(Value::Root)) {
                    return None;
                }
                let listed: Vec<String> = inner
                    .attr("op_names")?
                    .as_array()?
                    .iter()
                    .map(|name| name.as_str().map(str::to_string))
                    .collect::<Option<_>>()?;
                names_filter = Some(match names_filter {
                    None => listed,
                    Some(previous) => previous
                        .into_iter()
                        .filter(|n| listed.contains(n))
                        .collect(),
                });
            }
            "transform.param.constant" => {
                let value = match inner.attr("value")? {
                    Attr::Int(value) => Value::Param(Param::Const(*value)),
                    _ => Value::Config(inner.id),
                };
                values.insert(result(0), value);
            }
            "transform.merge_handles" => {
                if inner.has_attr("deduplicate") {
                    return None;
                }
                let parts = (0..inner.operands.len())
                    .map(|index| match operand(index) {
                        Some(Value::Param(param)) => Some(param),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                values.insert(result(0), Value::Param(Param::Merge(parts)));
            }
            "transform.match.param.cmpi" => {
                let predicate = match inner.attr("predicate")? {
                    Attr::Int(value) => Predicate::from_attr(*value)?,
                    _ => return None,
                };
                let (Some(Value::Param(lhs)), Some(Value::Param(rhs))) = (operand(0), operand(1))
                else {
                    return None;
                };
                checks.push(Check::Cmp(predicate, lhs, rhs));
            }
            "transform.iree.match.has_no_lowering_config" => {
                if !matches!(operand(0), Some(Value::Root)) || !inner.result_types.is_empty() {
                    return None;
                }
                checks.push(Check::NoConfig);
            }
            "transform.iree.match.contraction" | "transform.iree.match.convolution" => {
                let convolution = inner.name.ends_with("convolution");
                let groups: u8 = if convolution { 8 } else { 4 };
                if !matches!(operand(0), Some(Value::Root))
                    || inner.result_types.len() != usize::from(groups)
                {
                    return None;
                }
                let (lhs, rhs, output, maps) = linalg_operands(inner)?;
                checks.push(if convolution {
                    Check::Convolution {
                        lhs,
                        rhs,
                        output,
                        maps,
                    }
                } else {
                    Check::Contraction {
                        lhs,
                        rhs,
                        output,
                        maps,
                    }
                });
                for group in 0..groups {
                    let param = if convolution {
                        Param::Convolution(group)
                    } else {
                        Param::Contraction(group)
                    };
                    values.insert(result(u32::from(group)), Value::Param(param));
                }
            }
            "transform.iree.match.attention" | "transform.iree.match.online_attention" => {
                if !matches!(operand(0), Some(Value::Root)) || inner.result_types.len() != 5 {
                    return None;
                }
                let online = inner.name.ends_with("online_attention");
                let names: &[&str] = if online {
                    &[
                        "query_type",
                        "key_type",
                        "value_type",
                        "output_type",
                        "scale_type",
                        "max_type",
                        "sum_type",
                    ]
                } else {
                    &["query_type", "key_type", "value_type", "output_type"]
                };
                let types = names
                    .iter()
                    .map(|name| match inner.attr(name) {
                        Some(Attr::Type(text)) => Some(text.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                let maps = match inner.attr("indexing_maps") {
                    Some(Attr::Array(maps)) => printed_array(maps)?,
                    _ => return None,
                };
                checks.push(Check::Attention {
                    online,
                    types,
                    maps,
                });
                for group in 0..5u8 {
                    values.insert(
                        result(u32::from(group)),
                        Value::Param(Param::Attention(group)),
                    );
                }
            }
            "transform.get_operand" => {
                if !matches!(operand(0), Some(Value::Root))
                    || inner.has_attr("is_all")
                    || inner.has_attr("is_inverted")
                {
                    return None;
                }
                let [position] = i64_array(inner.attr("raw_position_list")?)?[..] else {
                    return None;
                };
                values.insert(result(0), Value::Operand(usize::try_from(position).ok()?));
            }
            "transform.iree.match.cast_compatible_type" => {
                let Some(Value::Operand(index)) = operand(0) else {
                    return None;
                };
                let Some(Attr::Type(target)) = inner.attr("target_type") else {
                    return None;
                };
                checks.push(Check::CastCompatible(index, target.clone()));
            }
            "transform.iree.match.dim_is_multiple_of" => {
                let Some(Value::Operand(index)) = operand(0) else {
                    return None;
                };
                let (Some(Attr::Int(dim)), Some(Attr::Int(size))) =
                    (inner.attr("dim"), inner.attr("size"))
                else {
                    return None;
                };
                checks.push(Check::DimMultipleOf(index, *dim, *size));
            }
            "transform.iree.match.dims_equal" => {
                let Some(Value::Param(param)) = operand(0) else {
                    return None;
                };
                let expected = i64_array(inner.attr("expected_values")?)?;
                checks.push(Check::DimsEqual(param, expected));
            }
            "transform.match.structured" => {
                if !matches!(operand(0), Some(Value::Root))
                    || inner.attr("failure_propagation_mode") != Some(&Attr::Int(1))
                {
                    return None;
                }
                checks.push(Check::Structured);
                let yielded = compile_structured_body(inner, &mut checks)?;
                if yielded.len() != inner.result_types.len() {
                    return None;
                }
                for (index, value) in yielded.into_iter().enumerate() {
                    values.insert(result(index as u32), value);
                }
            }
            _ => return None,
        }
    }
    // transform.yield %root, %config...
    if last.name != names::YIELD || last.operands.len() < 2 {
        return None;
    }
    if !matches!(values.get(&last.operands[0]), Some(Value::Root)) {
        return None;
    }
    let configs = last.operands[1..]
        .iter()
        .map(|operand| match values.get(operand) {
            Some(Value::Config(config)) => Some(*config),
            _ => None,
        })
        .collect::<Option<Vec<u32>>>()?;
    Some((names_filter, checks, configs))
}

/// The element types (lhs, rhs, output) and optional indexing maps (printed) of IREE's
/// contraction or convolution matcher.
fn linalg_operands(op: &Op) -> Option<(String, String, String, Option<String>)> {
    let ty = |name: &str| match op.attr(name) {
        Some(Attr::Type(text)) => Some(text.clone()),
        _ => None,
    };
    let maps = match op.attr("indexing_maps") {
        None => None,
        Some(Attr::Array(maps)) => Some(printed_array(maps)?),
        Some(_) => return None,
    };
    Some((ty("lhs_type")?, ty("rhs_type")?, ty("output_type")?, maps))
}

/// An array of affine maps as MLIR prints the whole array attribute, from its elements as
/// printed (each an `affine_map<...>`): what the payload side prints for its indexing maps.
fn printed_array(elements: &[Attr]) -> Option<String> {
    let parts = elements
        .iter()
        .map(|attr| match attr {
            Attr::Other(text) if text.starts_with("affine_map<") => Some(text.as_str()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(format!("[{}]", parts.join(", ")))
}

/// A DenseI64ArrayAttr's values.
fn i64_array(attr: &Attr) -> Option<Vec<i64>> {
    match attr {
        Attr::I64Array(values) => Some(values.clone()),
        _ => None,
    }
}

/// The body of `match.structured`: returns what it yields, adding its checks.
fn compile_structured_body(op: &Op, checks: &mut Vec<Check>) -> Option<Vec<Value>> {
    let block = op.entry_block()?;
    if block.arg_types.len() != 1 || op.regions.first()?.blocks.len() != 1 {
        return None;
    }
    let handle = ValueRef::BlockArg {
        block: block.id,
        index: 0,
    };
    let mut values: HashMap<ValueRef, Value> = HashMap::new();
    let (last, rest) = block.ops.split_last()?;
    for inner in rest {
        let on_handle = inner.operands.first() == Some(&handle);
        let result = ValueRef::Result {
            op: inner.id,
            index: 0,
        };
        match inner.name.as_str() {
            "transform.match.structured.rank" if on_handle => {
                values.insert(result, Value::Param(Param::Rank));
            }
            "transform.match.structured.dim" if on_handle => {
                if ["is_inverted", "parallel", "reduction"]
                    .iter()
                    .any(|a| inner.has_attr(a))
                {
                    return None;
                }
                let selection = if inner.has_attr("is_all") {
                    None
                } else {
                    Some(i64_array(inner.attr("raw_dim_list")?)?)
                };
                if inner.result_types.is_empty() {
                    checks.push(Check::DimsExist(selection));
                } else {
                    values.insert(result, Value::Param(Param::Dims(selection)));
                }
            }
            "transform.match.structured.input" | "transform.match.structured.init" if on_handle => {
                if [
                    "is_inverted",
                    "is_all",
                    "permutation",
                    "projected_permutation",
                ]
                .iter()
                .any(|a| inner.has_attr(a))
                    || inner.result_types.first().map(String::as_str)
                        != Some("!transform.any_value")
                {
                    return None;
                }
                let [position] = i64_array(inner.attr("raw_position_list")?)?[..] else {
                    return None;
                };
                let value = if inner.name.ends_with(".input") {
                    checks.push(Check::InputExists(position));
                    Value::Input(position)
                } else {
                    checks.push(Check::InitExists(position));
                    Value::Init(position)
                };
                values.insert(result, value);
            }
            "transform.match.structured.elemental_bitwidth" => {
                let param = match inner.operands.first().and_then(|v| values.get(v)) {
                    Some(Value::Input(position)) => Param::InputBitwidth(*position),
                    Some(Value::Init(position)) => Param::InitBitwidth(*position),
                    _ => return None,
                };
                values.insert(result, Value::Param(param));
            }
            _ => return None,
        }
    }
    if last.name != "transform.match.structured.yield" {
        return None;
    }
    last.operands
        .iter()
        .map(|value| match values.get(value) {
            Some(value @ Value::Param(_)) => Some(value.clone()),
            _ => None,
        })
        .collect()
}

/// Position `position` (negative: from the end) in a list of `len`.
fn resolve_position(position: i64, len: usize) -> Option<usize> {
    let resolved = if position < 0 {
        len as i64 + position
    } else {
        position
    };
    (0..len as i64)
        .contains(&resolved)
        .then_some(resolved as usize)
}

fn operand_bitwidth(op: &OpFeatures, init: bool, position: i64) -> Option<i64> {
    let inputs = op.num_inputs?;
    let (start, len) = if init {
        (inputs, op.operand_bitwidths.len().checked_sub(inputs)?)
    } else {
        (0, inputs)
    };
    let index = start + resolve_position(position, len)?;
    op.operand_bitwidths
        .get(index)
        .copied()
        .flatten()
        .map(i64::from)
}

/// Evaluates a parameter on an op; None is a silenceable failure.
fn evaluate(param: &Param, op: &OpFeatures) -> Option<Vec<i64>> {
    match param {
        Param::Const(value) => Some(vec![*value]),
        Param::Rank => Some(vec![op.loops.as_ref()?.len() as i64]),
        Param::Dims(selection) => {
            let loops = op.loops.as_ref()?;
            match selection {
                None => Some(loops.clone()),
                Some(positions) => positions
                    .iter()
                    .map(|&position| {
                        resolve_position(position, loops.len()).map(|index| loops[index])
                    })
                    .collect(),
            }
        }
        Param::InputBitwidth(position) => Some(vec![operand_bitwidth(op, false, *position)?]),
        Param::InitBitwidth(position) => Some(vec![operand_bitwidth(op, true, *position)?]),
        Param::Merge(parts) => {
            let mut out = Vec::new();
            for part in parts {
                out.extend(evaluate(part, op)?);
            }
            Some(out)
        }
        Param::Contraction(group) => Some(op.contraction.as_ref()?[usize::from(*group)].clone()),
        Param::Convolution(group) => op.convolution.as_ref()?.get(usize::from(*group)).cloned(),
        Param::Attention(group) => op.attention.as_ref()?.1.get(usize::from(*group)).cloned(),
    }
}

/// The result of a check this evaluator always decides (every check but the three-valued ones
/// of [`check_result`], its only caller).
fn check_holds(check: &Check, op: &OpFeatures) -> bool {
    match check {
        Check::Structured => op.loops.is_some(),
        Check::DimsExist(selection) => evaluate(&Param::Dims(selection.clone()), op).is_some(),
        Check::InputExists(position) => op
            .num_inputs
            .is_some_and(|inputs| resolve_position(*position, inputs).is_some()),
        Check::InitExists(position) => op.num_inputs.is_some_and(|inputs| {
            op.operand_bitwidths
                .len()
                .checked_sub(inputs)
                .is_some_and(|inits| resolve_position(*position, inits).is_some())
        }),
        Check::Cmp(predicate, lhs, rhs) => match (evaluate(lhs, op), evaluate(rhs, op)) {
            (Some(lhs), Some(rhs)) => {
                lhs.len() == rhs.len() && lhs.iter().zip(&rhs).all(|(a, b)| predicate.holds(*a, *b))
            }
            _ => false,
        },
        Check::Contraction {
            lhs,
            rhs,
            output,
            maps,
        } => {
            // DPS inputs first, then inits; a contraction has two inputs and one init.
            op.contraction.is_some()
                && op.num_inputs == Some(2)
                && op.element_types.first() == Some(lhs)
                && op.element_types.get(1) == Some(rhs)
                && op.element_types.get(2) == Some(output)
                && maps
                    .as_ref()
                    .is_none_or(|maps| op.indexing_maps.as_ref() == Some(maps))
        }
        Check::Convolution {
            lhs,
            rhs,
            output,
            maps,
        } => {
            op.convolution.is_some()
                && op.num_inputs.is_some_and(|inputs| {
                    inputs >= 2
                        && op.element_types.first() == Some(lhs)
                        && op.element_types.get(1) == Some(rhs)
                        && op.element_types.get(inputs) == Some(output)
                })
                && maps
                    .as_ref()
                    .is_none_or(|maps| op.indexing_maps.as_ref() == Some(maps))
        }
        Check::Attention {
            online,
            types,
            maps,
        } => op.attention.as_ref().is_some_and(|(is_online, _)| {
            is_online == online
                && attention_types_match(*online, &op.element_types, types)
                && op.indexing_maps.as_ref() == Some(maps)
        }),
        Check::NoConfig => !op.has_config,
        // Three-valued checks: `check_result` decides them and never calls this for them.
        Check::CastCompatible(..) | Check::DimMultipleOf(..) => {
            unreachable!("three-valued checks are decided by check_result")
        }
        Check::DimsEqual(param, expected) => evaluate(param, op).is_some_and(|actual| {
            actual.len() == expected.len()
                && actual.iter().zip(expected).all(|(a, e)| *e == -1 || a == e)
        }),
    }
}

/// Element types of an attention op's operands (query, key, value, scale, [mask], output, and
/// for online attention max and sum) against a matcher's list (query, key, value, output; online:
/// then scale, max, sum), as IREE's attention matchers compare them.
fn attention_types_match(online: bool, operands: &[String], expected: &[String]) -> bool {
    let outputs = if online { 3 } else { 1 };
    let Some(output) = operands.len().checked_sub(outputs) else {
        return false;
    };
    let mut positions = vec![0, 1, 2, output];
    if online {
        positions.extend([3, output + 1, output + 2]);
    }
    positions.len() == expected.len()
        && positions
            .iter()
            .zip(expected)
            .all(|(&position, expected)| operands.get(position) == Some(expected))
}

/// A check's result, or None when this evaluator cannot decide it for this op (a dynamic size
/// where IREE would consult value bounds, a type it does not parse, an operand that does not
/// exist): `apply` then runs the interpreter instead.
fn check_result(check: &Check, op: &OpFeatures) -> Option<bool> {
    match check {
        Check::CastCompatible(index, target) => {
            let actual = op.operand_types.get(*index)?;
            match (tensor_type(target), tensor_type(actual)) {
                (Some((target_dims, target_element)), Some((dims, element))) => Some(
                    target_element == element
                        && target_dims.len() == dims.len()
                        && target_dims
                            .iter()
                            .zip(&dims)
                            .all(|(want, have)| *want == DYNAMIC || want == have),
                ),
                // A tensor type this parser does not read (an encoding, say): undecided.
                _ if target.starts_with("tensor<") => {
                    (!actual.starts_with("tensor<")).then_some(false)
                }
                _ => Some(target == actual),
            }
        }
        Check::DimMultipleOf(index, dim, size) => {
            let actual = op.operand_types.get(*index)?;
            let Some((dims, _)) = shaped_type(actual) else {
                let shaped = ["tensor<", "memref<", "vector<"]
                    .iter()
                    .any(|prefix| actual.starts_with(prefix));
                return (!shaped).then_some(false);
            };
            let Some(&extent) = usize::try_from(*dim).ok().and_then(|dim| dims.get(dim)) else {
                return Some(false);
            };
            if extent == DYNAMIC || *size <= 0 {
                return None;
            }
            Some(extent % size == 0)
        }
        _ => Some(check_holds(check, op)),
    }
}

/// MLIR's dynamic extent as the payload walk reports it.
const DYNAMIC: i64 = i64::MIN;

/// A printed `tensor<AxBx?xELEM>` type: its extents (dynamic: [`DYNAMIC`]) and element type;
/// None for anything else (other types, encodings, element types with parameters).
fn tensor_type(text: &str) -> Option<(Vec<i64>, &str)> {
    shaped_type(text.starts_with("tensor<").then_some(text)?)
}

/// Like [`tensor_type`] for `tensor<...>`, `memref<...>` and `vector<...>` without layouts.
fn shaped_type(text: &str) -> Option<(Vec<i64>, &str)> {
    let inner = ["tensor<", "memref<", "vector<"]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))?
        .strip_suffix('>')?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop()?;
    if element.is_empty()
        || !element
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    let dims = parts
        .iter()
        .map(|part| match *part {
            "?" => Some(DYNAMIC),
            digits => digits.parse::<i64>().ok(),
        })
        .collect::<Option<Vec<i64>>>()?;
    Some((dims, element))
}

/// Whether `pair` matches `op` (None: undecided, see [`check_result`]). Checks run in the
/// matcher's order, as the interpreter runs its ops: the first that fails decides.
fn pair_matches(pair: &Pair, op: &OpFeatures) -> Option<bool> {
    if !pair
        .names
        .as_ref()
        .is_none_or(|names| names.contains(&op.name))
    {
        return Some(false);
    }
    for check in &pair.checks {
        if !check_result(check, op)? {
            return Some(false);
        }
    }
    Some(true)
}

/// Adds to `features` what evaluating `param` reads.
fn param_features(param: &Param, features: &mut Features) {
    match param {
        Param::Const(_)
        | Param::Rank
        | Param::Dims(_)
        | Param::InputBitwidth(_)
        | Param::InitBitwidth(_) => {}
        Param::Merge(parts) => {
            for part in parts {
                param_features(part, features);
            }
        }
        Param::Contraction(_) => features.contraction = true,
        Param::Convolution(_) => features.convolution = true,
        Param::Attention(_) => features.attention = true,
    }
}

/// Adds to `features` what deciding `check` reads (exhaustive: a new check must say).
fn check_features(check: &Check, features: &mut Features) {
    match check {
        Check::Structured
        | Check::DimsExist(_)
        | Check::InputExists(_)
        | Check::InitExists(_)
        | Check::NoConfig => {}
        Check::Cmp(_, lhs, rhs) => {
            param_features(lhs, features);
            param_features(rhs, features);
        }
        Check::Contraction { .. } => features.contraction = true,
        Check::Convolution { .. } => features.convolution = true,
        Check::Attention { .. } => features.attention = true,
        Check::CastCompatible(..) | Check::DimMultipleOf(..) => features.operand_types = true,
        Check::DimsEqual(param, _) => param_features(param, features),
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
        let any_function = ops.iter().any(|op| op.in_function);
        let mut edits = Vec::new();
        for op in ops.iter().filter(|op| {
            if any_function {
                op.in_function
            } else {
                op.id != 0
            }
        }) {
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
}
