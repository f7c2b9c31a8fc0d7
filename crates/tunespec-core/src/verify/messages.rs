//! MLIR's messages mapped to tunespec's stable codes, with help where tunespec knows their meaning.

use super::*;

/// Gives MLIR's diagnostics tunespec's stable code when tunespec knows what they mean.
pub(super) fn classify_mlir_problem(mut problem: Problem) -> Problem {
    const KNOWN: &[(&str, &str, &str)] = &[
        (
            "expects the parent symbol table to have the 'transform.with_named_sequence' attribute",
            codes::NOT_A_LIBRARY,
            "add `attributes {transform.with_named_sequence}` to the module",
        ),
        (
            "unresolved matcher symbol",
            codes::UNKNOWN_SYMBOL,
            "define the matcher as a transform.named_sequence in this module",
        ),
        (
            "unresolved action symbol",
            codes::UNKNOWN_SYMBOL,
            "define the action as a transform.named_sequence in this module",
        ),
        (
            "does not expect matcher symbol to consume",
            codes::MATCHER_SIGNATURE,
            "a matcher only inspects the payload; mark its argument {transform.readonly}",
        ),
        (
            "is used more than once, only the first match will apply",
            codes::DUPLICATE_MATCHER,
            "only its first occurrence can ever fire; remove the others",
        ),
        (
            "mismatching number of matcher results and action arguments",
            codes::MATCHER_ACTION_MISMATCH,
            "a matcher must yield, in order, one value of each kind its action takes",
        ),
        (
            "does not reference a named transform sequence",
            codes::UNKNOWN_SYMBOL,
            "define the callee as a transform.named_sequence in this module",
        ),
        (
            "is consumed in the body but is not marked as such",
            codes::ENTRY_EFFECT,
            "mark the argument {transform.consumed}: transform.foreach_match consumes its root",
        ),
        (
            "is not consumed in the body but is marked as consumed",
            codes::ENTRY_EFFECT,
            "mark the argument {transform.readonly}",
        ),
    ];
    if let Some(name) = unknown_op_name(&problem.message).map(str::to_string) {
        if name.starts_with("transform.iree.") && !iree_ops::is_tuning_op(&name) {
            return not_a_tuning_op(&name, problem);
        }
    }
    for (needle, code, help) in KNOWN {
        if problem.message.contains(needle) {
            problem.code = code;
            if problem.help.is_none() {
                problem.help = Some((*help).to_string());
            }
            break;
        }
    }
    problem
}

/// The op name in MLIR's "this op does not exist" parse errors: `custom op 'X' is unknown`
/// (custom syntax) and `unregistered operation 'X' found in dialect ...` (generic syntax).
pub(super) fn unknown_op_name(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("custom op '")
        .or_else(|| message.strip_prefix("unregistered operation '"))?;
    let end = rest.find('\'')?;
    let tail = &rest[end..];
    (tail.starts_with("' is unknown") || tail.starts_with("' found in dialect"))
        .then(|| &rest[..end])
}

/// A `transform.iree.*` op that MLIR could not parse and that is not one of IREE's tuning-spec
/// ops: an IREE codegen op (which IREE never runs in a tuning spec), a misspelt match op, or a
/// name IREE does not have. The location and severity stay MLIR's.
pub(super) fn not_a_tuning_op(name: &str, mut problem: Problem) -> Problem {
    let supported = iree_ops::TUNING_OPS
        .iter()
        .map(|op| op.trim_start_matches("transform.iree.match."))
        .collect::<Vec<_>>()
        .join(", ");
    let nearest = |candidates: &[&'static str]| {
        candidates
            .iter()
            .map(|candidate| (edit_distance(name, candidate), *candidate))
            .filter(|(distance, candidate)| {
                *distance <= (name.len().max(candidate.len()) / 8).max(2)
            })
            .min()
            .map(|(_, candidate)| candidate)
    };
    problem.code = codes::IREE_NOT_TUNING_OP;
    if iree_ops::CODEGEN_OPS.contains(&name) {
        problem.message = format!(
            "`{name}` is an IREE codegen op, not a tuning-spec op: tunespec supports IREE's match ops only"
        );
        problem.help = Some(format!(
            "a tuning spec matches ops and annotates them with a config; IREE applies codegen ops itself. \
             The IREE ops a spec may use are transform.iree.match.{{{supported}}}"
        ));
    } else if let Some(suggestion) = nearest(iree_ops::TUNING_OPS) {
        problem.message = format!("`{name}` is not an IREE tuning-spec op");
        problem.help = Some(format!("did you mean `{suggestion}`?"));
    } else {
        problem.message = format!("`{name}` is not an op of IREE 3.13");
        problem.help = Some(match nearest(iree_ops::CODEGEN_OPS) {
            Some(suggestion) => format!(
                "did you mean `{suggestion}`? It is an IREE codegen op, not a tuning-spec op; \
                 the IREE ops a spec may use are transform.iree.match.{{{supported}}}"
            ),
            None => format!("the IREE ops a spec may use are transform.iree.match.{{{supported}}}"),
        });
    }
    problem
}
