//! The rules on the parsed snapshot: the walk over the module, payload-rewriting ops, nested
//! modules.

use super::*;

/// Ops a tuning spec may contain without warning: they match, compute parameters, annotate,
/// navigate handles, or call other sequences. Anything else rewrites the payload, which a spec
/// applied during config materialization must not do.
pub(super) fn is_tuning_safe(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "transform.match.",
        "transform.param.",
        "transform.iree.match.",
        "transform.debug.",
    ];
    const EXACT: &[&str] = &[
        "transform.annotate",
        "transform.include",
        "transform.merge_handles",
        "transform.collect_matching",
        "transform.foreach_match",
        "transform.yield",
        "transform.named_sequence",
        "transform.cast",
        "transform.split_handle",
        "transform.select",
        "transform.get_parent_op",
        "transform.get_producer_of_operand",
        "transform.get_consumers_of_result",
        "transform.get_defining_op",
        "transform.get_operand",
        "transform.get_result",
        "transform.get_type",
        "transform.num_associations",
        "transform.print",
        "transform.verify",
        "transform.sequence",
        "transform.alternatives",
        "transform.foreach",
        // Only reads its operand (`onlyReadsHandle`) and the payload: it finds ops, as IREE's
        // own specs do before `foreach_match` in an `@main` entry point.
        "transform.structured.match",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || EXACT.contains(&name)
}

/// A top-level op that makes the file a payload rather than a library: a function with a body
/// or an executable. Other non-transform symbols (a `memref.global` table, a `func.func`
/// declaration) may legitimately sit in a transform library.
pub(super) fn is_payload_op(op: &Op) -> bool {
    let has_body = op.regions.iter().any(|region| !region.blocks.is_empty());
    (op.name.ends_with(".func") && has_body) || op.name == "hal.executable"
}

/// Applies every rule to a parsed module. Pure: no MLIR, no I/O.
pub fn check_module(module: &ir::Module) -> (SpecFacts, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut facts = SpecFacts::default();
    let root = &module.root;
    let root_loc = root.loc.clone();

    if root.name != names::MODULE {
        problems.push(
            Problem::error(
                codes::NOT_A_LIBRARY,
                format!(
                    "top-level operation is '{}', not a 'builtin.module': not a transform dialect library",
                    root.name
                ),
                root_loc,
            )
            .with_help("wrap the named sequences in `module attributes {transform.with_named_sequence} { ... }`"),
        );
        return (facts, problems);
    }
    facts.module_name = root.sym_name().map(str::to_string);
    let body = root.body();
    if body.is_empty() {
        problems.push(Problem::error(
            codes::EMPTY,
            "module is empty: it is not a tuning spec",
            root_loc,
        ));
        return (facts, problems);
    }
    check_payload_ops(root, body, &mut problems);
    if !root.has_attr(names::WITH_NAMED_SEQUENCE) {
        problems.push(
            Problem::error(
                codes::NOT_A_LIBRARY,
                "Module without the 'transform.with_named_sequence' attribute is not a transform dialect library",
                root_loc.clone(),
            )
            .with_help("add `attributes {transform.with_named_sequence}` to the module"),
        );
        // The rest of the spec is checked as if it had the attribute (every problem, not the
        // first): a module of named sequences is a spec with this one thing missing.
        if !body.iter().any(|op| op.name == names::NAMED_SEQUENCE) {
            return (facts, problems);
        }
    }

    let symbols = SymbolTable::new(root);
    let sequences: Vec<Sequence> = body.iter().filter_map(Sequence::from_op).collect();

    check_entrypoint_attrs(&sequences, &mut problems);
    let default_entry = root.has_attr(names::DEFAULT_ENTRYPOINT_ATTR);
    let entries: Vec<Sequence> = if default_entry {
        check_default_entrypoint(root, &sequences, &mut problems)
            .into_iter()
            .collect()
    } else {
        find_entry_points(root, &sequences, &mut problems)
    };
    if let Some(entry) = entries.first() {
        facts.entry_point = Some(entry.name.to_string());
        facts.entry_consumed = entry.arg_effects.first().copied().flatten() == Some(true);
    }
    facts.entry_points = entries.iter().map(|entry| entry.name.to_string()).collect();
    for entry in &entries {
        check_entry_effects(entry, &symbols, &mut problems);
    }
    facts.merge_ready =
        default_entry && !problems.iter().any(|p| p.code == codes::DEFAULT_ENTRYPOINT);

    let entry_ops: HashSet<u32> = entries
        .iter()
        .flat_map(|entry| entry.op.body().iter().map(|op| op.id))
        .collect();
    check_ops(root, &symbols, &entry_ops, &mut facts, &mut problems);
    // What the entry points reach must only set configs; an op the rule judged is not also
    // warned about as `unsafe-op` (one finding per op, the stronger one).
    let semantic = check_semantics(root, &entries);
    problems.retain(|problem| {
        problem.code != codes::UNSAFE_OP || !semantic.iter().any(|found| found.loc == problem.loc)
    });
    problems.extend(semantic);
    (facts, problems)
}

/// Reports payload ops (function bodies, executables) at the top level of the spec: a warning
/// when the file is otherwise a transform library (IREE ignores them), an error when it is
/// not (the user passed a payload where a spec belongs). Split out of `check_module` to keep
/// the module-level checks short; it reports at most one problem.
fn check_payload_ops(root: &Op, body: &[Op], problems: &mut Vec<Problem>) {
    let is_library = root.has_attr(names::WITH_NAMED_SEQUENCE)
        && body.iter().any(|op| op.name == names::NAMED_SEQUENCE);
    if let Some(payload_op) = body
        .iter()
        .find(|op| is_payload_op(op))
        .filter(|_| is_library)
    {
        // A transform library may hold other ops: IREE's interpreter runs only named
        // sequences, and its linker moves only those (merge) or keeps the module whole (include).
        problems.push(
            Problem::warning(
                codes::PAYLOAD_NOT_SPEC,
                format!(
                    "'{}' in a tuning spec: IREE ignores it (only named sequences run)",
                    payload_op.name
                ),
                payload_op.loc.clone(),
            )
            .with_help(
                "remove it: payload code belongs in the payload passed to `apply` or `attach`",
            ),
        );
    } else if let Some(payload_op) = body.iter().find(|op| is_payload_op(op)) {
        problems.push(
            Problem::error(
                codes::PAYLOAD_NOT_SPEC,
                format!(
                    "this file is a payload (it holds '{}'), not a tuning spec",
                    payload_op.name
                ),
                payload_op.loc.clone(),
            )
            .with_help("tuning specs hold transform.named_sequence ops; pass payloads to `apply` or `attach`"),
        );
    }
}

/// Checks every op under `op` whose nearest enclosing module is the one `symbols` describes;
/// a nested module brings its own symbol table (MLIR resolves a symbol reference from the
/// nearest symbol table, so a spec nested by the linker's include path refers to its own
/// sequences).
pub(super) fn check_ops(
    op: &Op,
    symbols: &SymbolTable,
    entry_ops: &HashSet<u32>,
    facts: &mut SpecFacts,
    problems: &mut Vec<Problem>,
) {
    for region in &op.regions {
        for block in &region.blocks {
            for inner in &block.ops {
                if inner.name == names::MODULE {
                    let nested = SymbolTable::new(inner);
                    check_ops(inner, &nested, entry_ops, facts, problems);
                    continue;
                }
                if inner.name == names::FOREACH_MATCH {
                    let pairs = check_foreach_match(inner, symbols, problems);
                    if entry_ops.contains(&inner.id) {
                        facts.matcher_count += pairs;
                    }
                } else if inner.name == names::INCLUDE {
                    check_include(inner, symbols, problems);
                } else if inner.name.starts_with("transform.iree.")
                    && !iree_ops::is_tuning_op(&inner.name)
                {
                    // Parsed in generic form: MLIR reports the first such op only.
                    problems.push(not_a_tuning_op(
                        &inner.name,
                        Problem::error(codes::PARSE, String::new(), inner.loc.clone()),
                    ));
                } else if !is_tuning_safe(&inner.name) && inner.name.starts_with("transform.") {
                    problems.push(
                        Problem::warning(
                            codes::UNSAFE_OP,
                            format!(
                                "'{}' rewrites the payload; a tuning spec should only match and annotate",
                                inner.name
                            ),
                            inner.loc.clone(),
                        )
                        .with_help("tuning specs run during config materialization; move transformations to a transform script (`--deny-warnings` makes this an error)"),
                    );
                }
                check_ops(inner, symbols, entry_ops, facts, problems);
            }
        }
    }
}
