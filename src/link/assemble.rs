//! Assembling the linked library: the entry point's skeleton, the inputs moved or cloned in,
//! the result checked.

use super::plan::{Adapt, Segment};
use super::*;

/// The linked module: the entry point's skeleton with every input's symbols moved in (merged)
/// or cloned in as nested modules (included), checked before it is returned.
pub(super) fn assemble<'c>(
    mlir: &'c Mlir,
    prepared: &[Prepared<'c>],
    segments: &[Segment],
    pairs: &[LinkedPair],
    merge_ready: bool,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let skeleton = skeleton_text(segments, pairs, merge_ready);
    let parsed = mlir.parse(skeleton.as_bytes(), "<linked>");
    let module = parsed.module.ok_or_else(|| {
        let mut errors = parsed.problems.clone();
        errors.push(Problem::error(
            codes::INTERNAL,
            "the linked entry point does not parse",
            None,
        ));
        errors
    })?;
    for spec in prepared {
        match &spec.nested_name {
            None => {
                let symbols: Vec<String> = spec.symbols.iter().map(|s| spec.renamed(s)).collect();
                module.move_symbols_from(&spec.module, &symbols);
            }
            Some(name) => module.insert_nested_clone(&spec.module, name),
        }
    }
    // Legacy entry points that consume their argument without returning a handle: their
    // copies yield the handle their body's chain returns (see `Adapt::YieldsRootOf`).
    let mut adapted = false;
    for segment in segments {
        if let Segment::Include {
            module: nested,
            entry,
            adapt: Adapt::YieldsRootOf(index),
            ..
        } = segment
        {
            module
                .return_root_handle(nested, entry, *index)
                .map_err(|message| vec![Problem::error(codes::INTERNAL, message, None)])?;
            adapted = true;
        }
    }

    // The result must itself verify. Every sequence moved in was verified as an input (by MLIR
    // and by the rules) and renamed with MLIR's symbol-use semantics; what is new is the
    // entry point and the symbol table around it. So: the rules on an outline of the module
    // (matchers and actions resolve, signatures agree, entry effects, IREE's rules) and MLIR's
    // verifier on the new entry point. A full re-verification would double the cost of a link.
    let outline = module.snapshot_outline(names::KERNEL_CONFIG);
    let (_, mut rule_problems) = verify::check_module(&outline);
    rule_problems.extend(module.verify_symbol(mlir, names::KERNEL_CONFIG));
    if adapted {
        // The adapted copies changed inside nested modules: MLIR's verifier on all of it.
        rule_problems.extend(mlir.verify(&module));
    }
    let errors: Vec<Problem> = rule_problems
        .into_iter()
        .filter(Problem::is_error)
        .collect();
    if !errors.is_empty() {
        let mut report = errors;
        report.push(Problem::error(
            codes::INTERNAL,
            "the linked library does not verify (a tunespec bug: please report it with the inputs)",
            None,
        ));
        return Err(report);
    }
    Ok(module)
}

/// `@name`, quoted when it is not a bare identifier.
fn symbol_text(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
        && name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn ref_text(path: &str) -> String {
    path.split("::")
        .map(symbol_text)
        .collect::<Vec<_>>()
        .join("::")
}

/// The linked module with only its entry point; input symbols are cloned in before it.
fn skeleton_text(segments: &[Segment], pairs: &[LinkedPair], merge_ready: bool) -> String {
    let mut body = String::new();
    let mut handle = "%arg0".to_string();
    let mut consumed = false;
    for (index, segment) in segments.iter().enumerate() {
        let result = format!("%h{index}");
        match segment {
            Segment::Merged(range) if range.is_empty() => continue,
            Segment::Merged(range) => {
                consumed = true;
                body.push_str(&format!(
                    "    {result} = transform.foreach_match in {handle}\n"
                ));
                let lines: Vec<String> = pairs[range.clone()]
                    .iter()
                    .map(|pair| {
                        format!(
                            "        {} -> {}",
                            ref_text(&pair.matcher),
                            ref_text(&pair.action)
                        )
                    })
                    .collect();
                body.push_str(&lines.join(",\n"));
                body.push_str("\n      : (!transform.any_op) -> !transform.any_op\n");
            }
            Segment::Include {
                module,
                entry,
                consumed: callee_consumes,
                adapt,
                propagate,
            } => {
                consumed |= *callee_consumes;
                let callee = format!(
                    "{}::{} failures({})",
                    symbol_text(module),
                    symbol_text(entry),
                    if *propagate { "propagate" } else { "suppress" }
                );
                if *adapt == Adapt::ReadsOnly {
                    // No result: the chain goes on with the handle it only read.
                    body.push_str(&format!(
                        "    transform.include {callee} ({handle}) : (!transform.any_op) -> ()\n"
                    ));
                    continue;
                }
                body.push_str(&format!(
                    "    {result} = transform.include {callee} ({handle}) : (!transform.any_op) -> !transform.any_op\n"
                ));
            }
        }
        handle = result;
    }
    body.push_str(&format!(
        "    transform.yield {handle} : !transform.any_op\n"
    ));
    let effect = if consumed {
        names::CONSUMED
    } else {
        names::READONLY
    };
    let module_attrs = if merge_ready {
        format!(
            "{}, {}",
            names::WITH_NAMED_SEQUENCE,
            names::DEFAULT_ENTRYPOINT_ATTR
        )
    } else {
        names::WITH_NAMED_SEQUENCE.to_string()
    };
    format!(
        "module @iree_linked_tuning_spec attributes {{{module_attrs}}} {{\n  transform.named_sequence @{}(%arg0: !transform.any_op {{{effect}}}) -> !transform.any_op attributes {{{}}} {{\n{body}  }}\n}}\n",
        names::KERNEL_CONFIG,
        names::ENTRYPOINT_ATTR
    )
}
