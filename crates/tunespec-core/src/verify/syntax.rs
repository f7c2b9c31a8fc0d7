//! Op syntax that MLIR 22 and IREE 3.13 (built on MLIR 24) spell differently. MLIR 24 made
//! `transform.print`'s `name` a property with its own keyword: IREE 3.13 reads and prints
//! `transform.print %op name = "x" : !transform.any_op` and refuses `{name = "x"}` ("inherent
//! attribute 'name' cannot be parsed from attr-dict when strict properties in assembly format
//! is enabled"); MLIR 22 reads only `{name = "x"}`. The one form both read has no name.

use super::*;

const BOTH_READ: &str = "the form both MLIR 22 (tunespec, mlir-opt) and IREE 3.13 read has no name: `transform.print %op : !transform.any_op`";

/// Whether `line` spells `transform.print` with IREE 3.13's `name = "..."` keyword form.
fn is_iree_print_name(line: &str) -> bool {
    let Some(at) = line.find("transform.print") else {
        return false;
    };
    let rest = &line[at + "transform.print".len()..];
    let rest = rest.split('{').next().unwrap_or(rest);
    rest.contains("name =") || rest.contains("name=")
}

/// A parse error MLIR 22 gives on IREE 3.13's `transform.print ... name = "x"`, explained: the
/// message says which spelling it is and the help gives both fixes. `text` is the input.
pub(super) fn explain_parse_error(problem: &mut Problem, text: &str) {
    if problem.code != codes::PARSE {
        return;
    }
    let Some(loc) = &problem.loc else {
        return;
    };
    let Some(line) = text.lines().nth((loc.line as usize).saturating_sub(1)) else {
        return;
    };
    if !is_iree_print_name(line) {
        return;
    }
    problem.code = codes::IREE_SYNTAX;
    problem.message = format!(
        "`transform.print ... name = \"...\"` is IREE 3.13's syntax (MLIR 24), which MLIR 22 cannot parse: {}",
        problem.message
    );
    problem.help = Some(format!(
        "{BOTH_READ}; MLIR 22 alone reads `transform.print %op {{name = \"...\"}} : !transform.any_op`, which IREE 3.13 refuses"
    ));
}

/// `transform.print` with a name, which MLIR 22 reads only as `{name = "..."}`: IREE 3.13
/// refuses that spelling, so iree-compile cannot load the spec.
pub(super) fn check_print_name(op: &Op, problems: &mut Vec<Problem>) {
    if op.name != "transform.print" || op.attr("name").is_none() {
        return;
    }
    problems.push(
        Problem::error(
            codes::IREE_SYNTAX,
            "IREE 3.13 refuses `transform.print` with `{name = \"...\"}` (MLIR 24 spells it `transform.print %op name = \"...\"`, which MLIR 22 cannot parse): iree-compile cannot load this spec",
            op.loc.clone(),
        )
        .with_help(BOTH_READ),
    );
}
