//! Evaluating compiled checks on a payload op's features, mirroring the match ops' semantics
//! (see the module doc of `fastpath`).

use super::*;

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
pub(super) fn evaluate(param: &Param, op: &OpFeatures) -> Option<Vec<i64>> {
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
pub(super) fn pair_matches(pair: &Pair, op: &OpFeatures) -> Option<bool> {
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
pub(super) fn check_features(check: &Check, features: &mut Features) {
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
