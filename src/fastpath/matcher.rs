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
    let mut body = MatcherBody::default();
    body.values.insert(
        ValueRef::BlockArg {
            block: block.id,
            index: 0,
        },
        Value::Root,
    );
    let (last, rest) = block.ops.split_last()?;
    for inner in rest {
        body.compile_op(inner)?;
    }
    let configs = body.yielded_configs(last)?;
    Some((body.names_filter, body.checks, configs))
}

/// A matcher's body compiled so far: what each SSA value stands for, the op-name filter and the
/// checks in program order. One struct so that each recognised op kind is compiled by a method
/// of its own; any op outside the recognised form makes the whole matcher `None`, so a method
/// that gives up leaves nothing half-done that matters.
#[derive(Default)]
struct MatcherBody {
    values: HashMap<ValueRef, Value>,
    names_filter: Option<Vec<String>>,
    checks: Vec<Check>,
}

impl MatcherBody {
    /// What `inner`'s operand at `index` stands for, if known.
    fn operand(&self, inner: &Op, index: usize) -> Option<Value> {
        inner
            .operands
            .get(index)
            .and_then(|v| self.values.get(v))
            .cloned()
    }

    /// Whether `inner`'s operand at `index` is the matched op itself.
    fn on_root(&self, inner: &Op, index: usize) -> bool {
        matches!(self.operand(inner, index), Some(Value::Root))
    }

    /// Records what `inner`'s result at `index` stands for.
    fn define(&mut self, inner: &Op, index: u32, value: Value) {
        self.values.insert(
            ValueRef::Result {
                op: inner.id,
                index,
            },
            value,
        );
    }

    /// Compiles one op of the body; `None` for an op outside the recognised form.
    fn compile_op(&mut self, inner: &Op) -> Option<()> {
        match inner.name.as_str() {
            "transform.match.operation_name" => self.operation_name(inner),
            "transform.param.constant" => {
                let value = match inner.attr("value")? {
                    Attr::Int(value) => Value::Param(Param::Const(*value)),
                    _ => Value::Config(inner.id),
                };
                self.define(inner, 0, value);
                Some(())
            }
            "transform.merge_handles" => self.merge_handles(inner),
            "transform.match.param.cmpi" => self.cmpi(inner),
            "transform.iree.match.has_no_lowering_config" => {
                if !self.on_root(inner, 0) || !inner.result_types.is_empty() {
                    return None;
                }
                self.checks.push(Check::NoConfig);
                Some(())
            }
            "transform.iree.match.contraction" | "transform.iree.match.convolution" => {
                self.contraction_or_convolution(inner)
            }
            "transform.iree.match.attention" | "transform.iree.match.online_attention" => {
                self.attention(inner)
            }
            "transform.get_operand" => self.get_operand(inner),
            "transform.iree.match.cast_compatible_type"
            | "transform.iree.match.dim_is_multiple_of" => self.operand_check(inner),
            "transform.iree.match.dims_equal" => {
                let Some(Value::Param(param)) = self.operand(inner, 0) else {
                    return None;
                };
                let expected = i64_array(inner.attr("expected_values")?)?;
                self.checks.push(Check::DimsEqual(param, expected));
                Some(())
            }
            "transform.match.structured" => self.structured(inner),
            _ => None,
        }
    }

    /// `match.operation_name` on the op: the allowed names, intersected with earlier ones.
    fn operation_name(&mut self, inner: &Op) -> Option<()> {
        if !self.on_root(inner, 0) {
            return None;
        }
        let listed: Vec<String> = inner
            .attr("op_names")?
            .as_array()?
            .iter()
            .map(|name| name.as_str().map(str::to_string))
            .collect::<Option<_>>()?;
        self.names_filter = Some(match self.names_filter.take() {
            None => listed,
            Some(previous) => previous
                .into_iter()
                .filter(|n| listed.contains(n))
                .collect(),
        });
        Some(())
    }

    /// `merge_handles` of parameters (without deduplication): their concatenation.
    fn merge_handles(&mut self, inner: &Op) -> Option<()> {
        if inner.has_attr("deduplicate") {
            return None;
        }
        let parts = (0..inner.operands.len())
            .map(|index| match self.operand(inner, index) {
                Some(Value::Param(param)) => Some(param),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        self.define(inner, 0, Value::Param(Param::Merge(parts)));
        Some(())
    }

    /// `match.param.cmpi` between two parameters.
    fn cmpi(&mut self, inner: &Op) -> Option<()> {
        let predicate = match inner.attr("predicate")? {
            Attr::Int(value) => Predicate::from_attr(*value)?,
            _ => return None,
        };
        let (Some(Value::Param(lhs)), Some(Value::Param(rhs))) =
            (self.operand(inner, 0), self.operand(inner, 1))
        else {
            return None;
        };
        self.checks.push(Check::Cmp(predicate, lhs, rhs));
        Some(())
    }

    /// IREE's `match.contraction` / `match.convolution`: the element types and maps checked,
    /// its results the dimension groups (4 for a contraction, 8 for a convolution).
    fn contraction_or_convolution(&mut self, inner: &Op) -> Option<()> {
        let convolution = inner.name.ends_with("convolution");
        let groups: u8 = if convolution { 8 } else { 4 };
        if !self.on_root(inner, 0) || inner.result_types.len() != usize::from(groups) {
            return None;
        }
        let (lhs, rhs, output, maps) = linalg_operands(inner)?;
        self.checks.push(if convolution {
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
            self.define(inner, u32::from(group), Value::Param(param));
        }
        Some(())
    }

    /// IREE's `match.attention` / `match.online_attention`: element types and maps checked, its
    /// five results the dimension groups.
    fn attention(&mut self, inner: &Op) -> Option<()> {
        if !self.on_root(inner, 0) || inner.result_types.len() != 5 {
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
        self.checks.push(Check::Attention {
            online,
            types,
            maps,
        });
        for group in 0..5u8 {
            self.define(
                inner,
                u32::from(group),
                Value::Param(Param::Attention(group)),
            );
        }
        Some(())
    }

    /// `get_operand` of the op at one position: a handle to that operand.
    fn get_operand(&mut self, inner: &Op) -> Option<()> {
        if !self.on_root(inner, 0) || inner.has_attr("is_all") || inner.has_attr("is_inverted") {
            return None;
        }
        let [position] = i64_array(inner.attr("raw_position_list")?)?[..] else {
            return None;
        };
        self.define(inner, 0, Value::Operand(usize::try_from(position).ok()?));
        Some(())
    }

    /// IREE's checks on an operand handle: `cast_compatible_type`, `dim_is_multiple_of`.
    fn operand_check(&mut self, inner: &Op) -> Option<()> {
        let Some(Value::Operand(index)) = self.operand(inner, 0) else {
            return None;
        };
        let check = if inner.name.ends_with("cast_compatible_type") {
            let Some(Attr::Type(target)) = inner.attr("target_type") else {
                return None;
            };
            Check::CastCompatible(index, target.clone())
        } else {
            let (Some(Attr::Int(dim)), Some(Attr::Int(size))) =
                (inner.attr("dim"), inner.attr("size"))
            else {
                return None;
            };
            Check::DimMultipleOf(index, *dim, *size)
        };
        self.checks.push(check);
        Some(())
    }

    /// `match.structured` (failures propagated): its body's checks, its results what the body
    /// yields.
    fn structured(&mut self, inner: &Op) -> Option<()> {
        if !self.on_root(inner, 0) || inner.attr("failure_propagation_mode") != Some(&Attr::Int(1))
        {
            return None;
        }
        self.checks.push(Check::Structured);
        let yielded = compile_structured_body(inner, &mut self.checks)?;
        if yielded.len() != inner.result_types.len() {
            return None;
        }
        for (index, value) in yielded.into_iter().enumerate() {
            self.define(inner, index as u32, value);
        }
        Some(())
    }

    /// The terminator, `transform.yield %root, %config...`: the library op ids of the configs.
    fn yielded_configs(&self, last: &Op) -> Option<Vec<u32>> {
        if last.name != names::YIELD || last.operands.len() < 2 {
            return None;
        }
        if !matches!(self.values.get(&last.operands[0]), Some(Value::Root)) {
            return None;
        }
        last.operands[1..]
            .iter()
            .map(|operand| match self.values.get(operand) {
                Some(Value::Config(config)) => Some(*config),
                _ => None,
            })
            .collect()
    }
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
