//! `foreach_match` pairs and `include` calls: symbols resolve, signatures agree, no pair repeats.

use super::*;

/// Every matcher and action exists and is a named sequence, matchers read their argument only,
/// each matcher yields what its action takes, and no pair repeats. Returns the pair count.
pub(super) fn check_foreach_match(
    op: &Op,
    symbols: &SymbolTable,
    problems: &mut Vec<Problem>,
) -> usize {
    let matchers = op.attr("matchers").and_then(Attr::as_array).unwrap_or(&[]);
    let actions = op.attr("actions").and_then(Attr::as_array).unwrap_or(&[]);
    let loc = op.loc.clone();
    let root_count = op.operands.len();
    let mut seen_matchers: HashSet<&[String]> = HashSet::new();
    for (matcher_attr, action_attr) in matchers.iter().zip(actions) {
        let (Some(matcher_path), Some(action_path)) =
            (matcher_attr.as_symbol_ref(), action_attr.as_symbol_ref())
        else {
            continue;
        };
        if !seen_matchers.insert(matcher_path) {
            problems.push(
                Problem::error(
                    codes::DUPLICATE_MATCHER,
                    format!(
                        "matcher {} is listed more than once in this foreach_match",
                        format_ref(matcher_path)
                    ),
                    loc.clone(),
                )
                .with_help("only its first occurrence can ever fire; remove the others (mlir-opt 22 crashes on this input)"),
            );
        }
        let matcher = resolve_sequence(symbols, matcher_path, "matcher", &loc, problems);
        let action = resolve_sequence(symbols, action_path, "action", &loc, problems);
        if let Some(matcher) = &matcher {
            check_matcher_signature(matcher, matcher_path, root_count, problems);
        }
        if let Some(action) = &action {
            for (index, effect) in action.arg_effects.iter().enumerate() {
                if *effect == Some(true) {
                    problems.push(
                        Problem::warning(
                            codes::ACTION_SIGNATURE,
                            format!(
                                "action {} consumes argument #{index}; later matchers then see an invalidated handle",
                                format_ref(action_path)
                            ),
                            action.op.loc.clone(),
                        )
                        .with_help("tuning actions annotate; mark the argument {transform.readonly}"),
                    );
                }
            }
        }
        if let (Some(matcher), Some(action)) = (&matcher, &action) {
            check_pair_kinds(matcher, matcher_path, action, action_path, &loc, problems);
        }
    }
    matchers.len().min(actions.len())
}

/// A matcher takes one argument per `foreach_match` root and only reads each. Split out of
/// `check_foreach_match` so the per-pair loop reads as a list of checks.
fn check_matcher_signature(
    matcher: &Sequence,
    matcher_path: &[String],
    root_count: usize,
    problems: &mut Vec<Problem>,
) {
    if matcher.inputs.len() != root_count {
        problems.push(Problem::error(
            codes::MATCHER_SIGNATURE,
            format!(
                "matcher {} takes {} argument(s) but foreach_match passes {root_count}",
                format_ref(matcher_path),
                matcher.inputs.len()
            ),
            matcher.op.loc.clone(),
        ));
    }
    for (index, effect) in matcher.arg_effects.iter().enumerate() {
        if *effect != Some(false) {
            problems.push(
                Problem::error(
                    codes::MATCHER_SIGNATURE,
                    format!(
                        "matcher {} must take argument #{index} transform.readonly",
                        format_ref(matcher_path)
                    ),
                    matcher.op.loc.clone(),
                )
                .with_help(
                    "a matcher only inspects the payload; mark its argument {transform.readonly}",
                ),
            );
        }
    }
}

/// A matcher yields, in order, one handle of each kind its action takes; the mismatch is
/// reported at the `foreach_match` with both definitions as related locations. Split out of
/// `check_foreach_match` so the per-pair loop reads as a list of checks.
fn check_pair_kinds(
    matcher: &Sequence,
    matcher_path: &[String],
    action: &Sequence,
    action_path: &[String],
    loc: &Option<Loc>,
    problems: &mut Vec<Problem>,
) {
    let yielded: Vec<HandleKind> = matcher.results.iter().map(|t| handle_kind(t)).collect();
    let taken: Vec<HandleKind> = action.inputs.iter().map(|t| handle_kind(t)).collect();
    if yielded != taken {
        let mut problem = Problem::error(
            codes::MATCHER_ACTION_MISMATCH,
            format!(
                "matcher {} yields ({}) but action {} takes ({})",
                format_ref(matcher_path),
                matcher.results.join(", "),
                format_ref(action_path),
                action.inputs.join(", ")
            ),
            loc.clone(),
        )
        .with_help("a matcher must yield, in order, one value of each kind its action takes");
        if let Some(matcher_loc) = &matcher.op.loc {
            problem = problem.with_related(matcher_loc.clone(), "matcher defined here");
        }
        if let Some(action_loc) = &action.op.loc {
            problem = problem.with_related(action_loc.clone(), "action defined here");
        }
        problems.push(problem);
    }
}

pub(super) fn resolve_sequence<'a>(
    symbols: &SymbolTable<'a>,
    path: &[String],
    role: &str,
    loc: &Option<Loc>,
    problems: &mut Vec<Problem>,
) -> Option<Sequence<'a>> {
    match symbols.resolve(path) {
        Some(op) => match Sequence::from_op(op) {
            Some(sequence) => Some(sequence),
            None => {
                problems.push(Problem::error(
                    codes::UNKNOWN_SYMBOL,
                    format!(
                        "{role} {} is a '{}', not a transform.named_sequence",
                        format_ref(path),
                        op.name
                    ),
                    loc.clone(),
                ));
                None
            }
        },
        None => {
            let mut problem = Problem::error(
                codes::UNKNOWN_SYMBOL,
                format!("unresolved {role} symbol {}", format_ref(path)),
                loc.clone(),
            );
            if let Some(nearest) = path.last().and_then(|name| symbols.nearest(name)) {
                problem = problem.with_help(format!("did you mean @{nearest}?"));
            }
            problems.push(problem);
            None
        }
    }
}

pub(super) fn check_include(op: &Op, symbols: &SymbolTable, problems: &mut Vec<Problem>) {
    if let Some(path) = op.attr("target").and_then(Attr::as_symbol_ref) {
        resolve_sequence(symbols, path, "include target", &op.loc, problems);
    }
}
