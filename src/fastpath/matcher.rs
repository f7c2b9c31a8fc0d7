//! Compiling one matcher and one action of a library into the native form (`Check`s over
//! `Param`s), or `None` for a form the native matcher does not decide.

use super::*;

/// A recognised action: `transform.annotate` ops on its first argument (the op), each with a
/// parameter argument or none (a unit attribute), then `transform.yield`.
#[derive(Clone, Debug)]
pub(super) struct Action {
    /// Number of parameter arguments after the op.
    pub(super) params: usize,
    /// (attribute name, parameter index), in order.
    pub(super) annotations: Vec<(String, Option<usize>)>,
}

pub(super) fn compile_action(op: &Op) -> Option<Action> {
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

pub(super) fn compile_matcher(op: &Op) -> Option<CompiledMatcher> {
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
