//! Entry points: the entry-point attributes, IREE's default-entrypoint form, and the effects
//! of the entry point's arguments.

use super::*;

/// IREE's checks of `iree_codegen.tuning_spec_entrypoint`, on every sequence carrying it.
pub(super) fn check_entrypoint_attrs(sequences: &[Sequence], problems: &mut Vec<Problem>) {
    const REQUIRED: &str = " (required by 'iree_codegen.tuning_spec_entrypoint')";
    for sequence in sequences {
        let Some(attr) = sequence.op.attr(names::ENTRYPOINT_ATTR) else {
            continue;
        };
        let loc = sequence.op.loc.clone();
        if *attr != Attr::Unit {
            problems.push(Problem::error(
                codes::ENTRYPOINT_ATTR,
                "'iree_codegen.tuning_spec_entrypoint' attribute must be a UnitAttr",
                loc.clone(),
            ));
        }
        if sequence.results.len() != 1 || sequence.results[0] != names::ANY_OP {
            problems.push(
                Problem::error(
                    codes::ENTRYPOINT_SIGNATURE,
                    format!("Must return one 'any_op'{REQUIRED}"),
                    loc.clone(),
                )
                .with_help(format!(
                    "'@{}' returns ({}); declare `-> !transform.any_op`",
                    sequence.name,
                    sequence.results.join(", ")
                )),
            );
        }
        if sequence.inputs.len() != 1 || sequence.inputs[0] != names::ANY_OP {
            problems.push(
                Problem::error(
                    codes::ENTRYPOINT_SIGNATURE,
                    format!("Must take one 'any_op'{REQUIRED}"),
                    loc,
                )
                .with_help(format!(
                    "'@{}' takes ({}); declare one `!transform.any_op` argument",
                    sequence.name,
                    sequence.inputs.join(", ")
                )),
            );
        }
    }
}

/// IREE's checks of `iree_codegen.tuning_spec_with_default_entrypoint`, in IREE's order, but
/// reporting every one that fails. Returns the entry point when it exists.
pub(super) fn check_default_entrypoint<'a>(
    root: &'a Op,
    sequences: &[Sequence<'a>],
    problems: &mut Vec<Problem>,
) -> Option<Sequence<'a>> {
    let Some(entry) = sequences
        .iter()
        .find(|sequence| sequence.name == names::KERNEL_CONFIG)
    else {
        problems.push(
            default_entrypoint_error(
                format!("Missing named sequence '{}'", names::KERNEL_CONFIG),
                root.loc.clone(),
            )
            .with_help(
                "add `transform.named_sequence @__kernel_config(...)` (a func.func does not count)",
            ),
        );
        return None;
    };
    if !entry.op.has_attr(names::ENTRYPOINT_ATTR) {
        problems.push(default_entrypoint_error(
            format!(
                "Missing attribute '{}' in named sequence '{}'",
                names::ENTRYPOINT_ATTR,
                names::KERNEL_CONFIG
            ),
            entry.op.loc.clone(),
        ));
    }
    check_one_marked_entrypoint(root, problems);
    check_default_entrypoint_body(entry, problems);
    Some(entry.clone())
}

/// A finding of IREE's default-entrypoint rules, worded as IREE words it.
fn default_entrypoint_error(message: String, loc: Option<Loc>) -> Problem {
    const REQUIRED: &str = " (required by 'iree_codegen.tuning_spec_with_default_entrypoint')";
    Problem::error(
        codes::DEFAULT_ENTRYPOINT,
        format!("{message}{REQUIRED}"),
        loc,
    )
}

/// IREE counts every op of the module's body that carries the entry-point marker, not only
/// named sequences: a nested module marked as an entry point counts (iree-opt 3.13: "but found
/// 2").
fn check_one_marked_entrypoint(root: &Op, problems: &mut Vec<Problem>) {
    let marked: Vec<&Op> = root
        .body()
        .iter()
        .filter(|op| op.has_attr(names::ENTRYPOINT_ATTR))
        .collect();
    if marked.len() <= 1 {
        return;
    }
    let mut problem = default_entrypoint_error(
        format!(
            "Expected one named sequence with '{}', but found {}",
            names::ENTRYPOINT_ATTR,
            marked.len()
        ),
        root.loc.clone(),
    );
    for op in marked.iter().filter(|op| op.name != names::NAMED_SEQUENCE) {
        if let Some(loc) = &op.loc {
            problem = problem.with_related(
                loc.clone(),
                format!("a '{}' marked as an entry point", op.name),
            );
        }
    }
    problems.push(problem);
}

/// The default entry point's body as IREE requires it: one block of exactly a
/// `foreach_match` (one `any_op` in and out, no `restrict_root`, no `flatten_results`) and a
/// `yield`.
fn check_default_entrypoint_body(entry: &Sequence<'_>, problems: &mut Vec<Problem>) {
    let error = default_entrypoint_error;
    let entry_loc = entry.op.loc.clone();
    let region_blocks = entry
        .op
        .regions
        .first()
        .map_or(0, |region| region.blocks.len());
    if region_blocks != 1 {
        problems.push(error(
            format!("'{}' must contain exactly one block", names::KERNEL_CONFIG),
            entry_loc,
        ));
        return;
    }
    let body = entry.op.body();
    if body.len() != 2 {
        problems.push(error(
            format!(
                "'{}' must contain exactly two operations",
                names::KERNEL_CONFIG
            ),
            entry_loc.clone(),
        ));
    }
    match body.first() {
        Some(first) if first.name == names::FOREACH_MATCH => check_default_foreach(first, problems),
        _ => problems.push(error(
            format!(
                "'{}' must start with 'ForeachMatchOp'",
                names::KERNEL_CONFIG
            ),
            body.first()
                .and_then(|op| op.loc.clone())
                .or(entry_loc.clone()),
        )),
    }
    if body.last().is_none_or(|op| op.name != names::YIELD) {
        problems.push(error(
            format!(
                "'{}' must end with 'transform::YieldOp'",
                names::KERNEL_CONFIG
            ),
            body.last().and_then(|op| op.loc.clone()).or(entry_loc),
        ));
    }
}

/// The default entry point's `foreach_match`, as IREE requires it.
fn check_default_foreach(first: &Op, problems: &mut Vec<Problem>) {
    let error = default_entrypoint_error;
    let loc = first.loc.clone();
    if first.has_attr("restrict_root") {
        problems.push(error(
            "'ForeachMatchOp' must not have 'restrict_root' attribute".into(),
            loc.clone(),
        ));
    }
    if first.has_attr("flatten_results") {
        problems.push(error(
            "'ForeachMatchOp' must not have 'flatten_results' attribute".into(),
            loc.clone(),
        ));
    }
    if first.operand_types.len() != 1 || first.operand_types[0] != names::ANY_OP {
        problems.push(error(
            "'ForeachMatchOp' must take exactly one 'any_op' argument".into(),
            loc.clone(),
        ));
    }
    if first.result_types.len() != 1 || first.result_types[0] != names::ANY_OP {
        problems.push(error(
            "'ForeachMatchOp' must return exactly one 'any_op' result".into(),
            loc,
        ));
    }
}

/// For specs without the default-entrypoint attribute, the entry points IREE 3.13 runs: every
/// top-level named sequence marked `iree_codegen.tuning_spec_entrypoint`, in file order (its
/// linker includes each of them, whatever its name); without any marked sequence, the legacy
/// `@__kernel_config` (IREE's materialization looks it up by name, so it runs when it is the
/// only spec; IREE's linker includes only marked entry points and drops it when linking it with
/// another spec). Empty (and an error) when there is neither.
pub(super) fn find_entry_points<'a>(
    root: &'a Op,
    sequences: &[Sequence<'a>],
    problems: &mut Vec<Problem>,
) -> Vec<Sequence<'a>> {
    let marked: Vec<Sequence<'a>> = sequences
        .iter()
        .filter(|sequence| sequence.op.has_attr(names::ENTRYPOINT_ATTR))
        .cloned()
        .collect();
    let kernel_config = sequences
        .iter()
        .find(|sequence| sequence.name == names::KERNEL_CONFIG);
    match kernel_config {
        Some(entry) if !entry.op.has_attr(names::ENTRYPOINT_ATTR) => {
            let help = if marked.is_empty() {
                "IREE 3.13 runs an unmarked '@__kernel_config' only when it is the only spec: its linker includes marked entry points only, so linked with another spec (IREE's default specs, `--iree-codegen-enable-default-tuning-specs`) it is dropped without a word; tunespec links it by include wherever it is. Add `attributes {iree_codegen.tuning_spec_entrypoint}` (and a `-> !transform.any_op` result, yielding the foreach_match result) for IREE to link it too".to_string()
            } else {
                format!(
                    "IREE 3.13 does not run it: it runs the marked entry point(s) {} instead; mark it too, or rename it",
                    marked
                        .iter()
                        .map(|sequence| format!("'@{}'", sequence.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            problems.push(
                Problem::warning(
                    codes::MISSING_ENTRYPOINT,
                    format!(
                        "named sequence '{}' is not marked '{}'",
                        names::KERNEL_CONFIG,
                        names::ENTRYPOINT_ATTR
                    ),
                    entry.op.loc.clone(),
                )
                .with_help(help),
            );
            if marked.is_empty() {
                return vec![entry.clone()];
            }
            marked
        }
        _ if !marked.is_empty() => marked,
        _ => {
            problems.push(
                Problem::error(
                    codes::MISSING_ENTRYPOINT,
                    format!(
                        "no entry point: the module has no named sequence '{}'",
                        names::KERNEL_CONFIG
                    ),
                    root.loc.clone(),
                )
                .with_help("add `transform.named_sequence @__kernel_config(%arg: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint}`"),
            );
            Vec::new()
        }
    }
}

/// The entry point's readonly/consumed marking must agree with what its body does with the
/// argument: `foreach_match` consumes its root (MLIR 22), an include consumes what its callee
/// consumes, and other tuning-safe ops only read.
pub(super) fn check_entry_effects(
    entry: &Sequence,
    symbols: &SymbolTable,
    problems: &mut Vec<Problem>,
) {
    let Some(block) = entry.op.entry_block() else {
        return;
    };
    for (index, effect) in entry.arg_effects.iter().enumerate() {
        let argument = ir::ValueRef::BlockArg {
            block: block.id,
            index: index as u32,
        };
        let mut consumer: Option<&Op> = None;
        for op in &block.ops {
            for (position, operand) in op.operands.iter().enumerate() {
                if *operand == argument && op_consumes_operand(op, position, symbols) {
                    consumer.get_or_insert(op);
                }
            }
        }
        let loc = entry.op.loc.clone();
        match (effect, consumer) {
            // A warning, not an error: IREE 3.13 loads and applies such an entry (its
            // interpreter checks only that a consumed argument is marked so), and tunespec
            // never rejects what the user's IREE accepts.
            (None, _) => problems.push(
                Problem::warning(
                    codes::ENTRY_EFFECT,
                    format!(
                        "argument #{index} of '@{}' is marked neither transform.readonly nor transform.consumed",
                        entry.name
                    ),
                    loc,
                )
                .with_help(if consumer.is_some() {
                    "mark it {transform.consumed}: the body consumes it"
                } else {
                    "mark it {transform.readonly}"
                }),
            ),
            (Some(false), Some(op)) => {
                let mut problem = Problem::error(
                    codes::ENTRY_EFFECT,
                    format!(
                        "argument #{index} of '@{}' is marked transform.readonly but '{}' consumes it",
                        entry.name, op.name
                    ),
                    loc,
                )
                .with_help("mark it {transform.consumed}");
                if let Some(op_loc) = &op.loc {
                    problem = problem.with_related(op_loc.clone(), "consumed here");
                }
                problems.push(problem);
            }
            (Some(true), None) => problems.push(
                Problem::warning(
                    codes::ENTRY_EFFECT,
                    format!(
                        "argument #{index} of '@{}' is marked transform.consumed but nothing in its body consumes it",
                        entry.name
                    ),
                    loc,
                )
                .with_help("mark it {transform.readonly}"),
            ),
            _ => {}
        }
    }
}

pub(super) fn op_consumes_operand(op: &Op, position: usize, symbols: &SymbolTable) -> bool {
    match op.name.as_str() {
        // MLIR 22: foreach_match consumes its root operands (the first operands).
        names::FOREACH_MATCH => true,
        names::INCLUDE => op
            .attr("target")
            .and_then(Attr::as_symbol_ref)
            .and_then(|path| symbols.resolve(path))
            .and_then(Sequence::from_op)
            .and_then(|callee| callee.arg_effects.get(position).copied().flatten())
            .unwrap_or(false),
        name => !is_tuning_safe(name),
    }
}
