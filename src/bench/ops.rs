//! What a bench row measured: the ops the library configured in it, with their loops, element
//! types and the matcher (spec file:line) that configured each, found as `explain` finds them.
//!
//! Why through `explain` and not the benchmark modules IREE dumps: a dump holds the configured
//! op with its `lowering_config`, but nothing says which matcher set it; `explain` runs the
//! library's matchers on IREE's own dispatches (formed with bench's flags, up to where IREE
//! applies tuning specs) and knows the pair that fired on each op. Each dispatch there is a
//! function named as its dump's `hal.executable.export` (`main_dispatch_0_matmul_128x128x128_f32`),
//! which ties its ops to the dispatch row of that dump.

use std::collections::HashMap;

use serde::Serialize;

use super::{Case, Row};
use crate::apply::{self, Engine, View};
use crate::iree::{dispatches, Iree};
use crate::mlir::Mlir;

/// One op a row measured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RowOp {
    /// The op as IREE's dispatch holds it (`linalg.matmul`, `linalg.generic`).
    pub op: String,
    /// Its static loop ranges (`-1`: dynamic); `None` for an op that is not a linalg op.
    pub loops: Option<Vec<i64>>,
    /// The element types of its operands.
    pub element_types: Vec<String>,
    /// Where it is in the payload (`file:line:col`), when IREE kept the location.
    pub location: Option<String>,
    /// The matcher that configured it (its path in the linked library); `None`: no matcher
    /// of the library matched it.
    pub matcher: Option<String>,
    /// Where that matcher is written (`file:line:col`).
    pub matcher_location: Option<String>,
}

/// Each dispatch function of a case (in IREE's order) with its ops.
pub type Found = Vec<(String, Vec<RowOp>)>;

/// The ops of `case`'s dispatches, compiled with `flags` (in a context of its own: cases are
/// described in parallel, beside their compiles). `None` for a case that is not described (see
/// [`Case::located_library`]) or cannot be (IREE does not form its dispatches, the library does
/// not run): its rows keep empty `ops`, the timing stands without them.
pub fn find(iree: &Iree, case: &Case, flags: &[String]) -> Option<Found> {
    if case.located_library.is_none() && case.matcher.is_none() {
        return None;
    }
    let mlir = Mlir::new();
    match find_in(&mlir, iree, case, flags) {
        Ok(found) => Some(found),
        Err(message) => {
            tracing::info!(case = %case.name, "bench: the ops measured are not known: {message}");
            None
        }
    }
}

/// Fills the `ops` of `rows`, all of one case: each dispatch row's from its dispatch
/// (`exports`: each dumped dispatch's name with the names of its exported functions), each
/// function row's from its function's dispatches (the configured ops only): IREE names a
/// dispatch after the function it comes from (`first_dispatch_0_...`); where none is named
/// so (a function IREE inlined elsewhere), from every dispatch.
pub fn assign(found: &Found, exports: &[(String, Vec<String>)], rows: &mut [Row]) {
    for row in rows {
        let prefix = format!("{}_dispatch_", row.name);
        let own: Found = found
            .iter()
            .filter(|(function, _)| function.starts_with(&prefix))
            .cloned()
            .collect();
        let found = if own.is_empty() { found } else { &own };
        row.ops = if row.kind == "dispatch" {
            let names = exports
                .iter()
                .find(|(name, _)| *name == row.name)
                .map_or(&[][..], |(_, names)| names.as_slice());
            found
                .iter()
                .filter(|(function, _)| names.contains(function))
                .flat_map(|(_, ops)| ops.iter().cloned())
                .collect()
        } else {
            found
                .iter()
                .flat_map(|(_, ops)| ops.iter().filter(|op| op.matcher.is_some()).cloned())
                .collect()
        };
    }
}

/// The exported functions of a dumped benchmark module (`hal.executable.export public @NAME`):
/// the names of its dispatch's functions in IREE's dispatches.
pub fn exports(dump: &str) -> Vec<String> {
    dump.lines()
        .filter_map(|line| {
            let rest = &line[line.find("hal.executable.export ")?..];
            let name = &rest[rest.find('@')? + 1..];
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')))
                .unwrap_or(name.len());
            Some(name[..end].to_string())
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// Each dispatch function (in IREE's order) with its ops: those a matcher
/// configured, or, where none did, its linalg ops.
fn find_in(mlir: &Mlir, iree: &Iree, case: &Case, flags: &[String]) -> Result<Found, String> {
    let store = iree.store();
    let sources = dispatches::sources(iree, store, &case.payload, &case.name, flags)
        .map_err(|failure| failure.summary())?;
    let matched = dispatches::matched(iree, store, &sources, &case.name, flags)
        .map_err(|failure| failure.summary())?;
    let library = case
        .located_library
        .as_deref()
        .unwrap_or(case.library.as_bytes());
    let first = |problems: Vec<crate::problem::Problem>| {
        problems
            .into_iter()
            .next()
            .map_or_else(|| "explain failed".to_string(), |problem| problem.message)
    };
    let explanation = apply::explain(
        mlir,
        &matched,
        &case.name,
        library,
        apply::ATTR_NAME,
        Engine::Auto,
        View::Written,
    )
    .map_err(first)?;
    let payload = apply::parse_payload(mlir, &matched, &case.name).map_err(first)?;
    let dispatch_of = functions_of(&payload.snapshot().root);
    let mut found: Vec<(String, Vec<RowOp>)> = Vec::new();
    for row in &explanation.rows {
        let Some(dispatch) = dispatch_of.get(&row.id) else {
            continue;
        };
        if row.loops.is_none() && row.pair.is_none() {
            continue;
        }
        let pair = row.pair.and_then(|index| explanation.pairs.get(index));
        let mut op = RowOp {
            op: row.op.clone(),
            loops: row.loops.clone(),
            element_types: row.element_types.clone(),
            location: row.loc.as_ref().map(ToString::to_string),
            matcher: pair.map(|pair| pair.matcher.clone()),
            matcher_location: pair
                .and_then(|pair| pair.matcher_loc.as_ref().map(ToString::to_string)),
        };
        locate_in_spec(case, &mut op);
        match found.iter_mut().find(|(name, _)| name == dispatch) {
            Some((_, ops)) => ops.push(op),
            None => found.push((dispatch.clone(), vec![op])),
        }
    }
    for (_, ops) in &mut found {
        if ops.iter().any(|op| op.matcher.is_some()) {
            ops.retain(|op| op.matcher.is_some());
        }
    }
    Ok(found)
}

/// A matcher case's library is its matcher cut out of its spec: the location explain reads
/// is in that cut, so the matcher's own place in the spec is put instead; and its payload is
/// built by bench, so the op has no place in a file of the user's.
fn locate_in_spec(case: &Case, op: &mut RowOp) {
    let (None, Some(matcher)) = (&case.located_library, &case.matcher) else {
        return;
    };
    op.location = None;
    let Some(name) = &op.matcher else { return };
    let last = name.rsplit("::").next().unwrap_or(name);
    if last == matcher.name {
        op.matcher_location.clone_from(&matcher.location);
    }
}

/// The function (a dispatch, in IREE's dispatches) every op nested in one belongs to, by op
/// id.
fn functions_of(root: &crate::ir::Op) -> HashMap<u32, String> {
    let mut functions = Vec::new();
    root.walk(&mut |op| {
        if op.name == "func.func" {
            functions.push(op);
        }
    });
    let mut found = HashMap::new();
    for function in functions {
        let Some(name) = function.sym_name() else {
            continue;
        };
        function.walk(&mut |op| {
            found.insert(op.id, name.to_string());
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dumps_exported_functions_are_read() {
        let dump = "  hal.executable private @main_dispatch_0 {
      hal.executable.export public @main_dispatch_0_matmul_128x128x128_f32 ordinal(0) layout(#hal.pipeline.layout<>) count(%arg0: !hal.device) -> (index, index, index) {
      hal.executable.export public @other$1 ordinal(1)
      func.func @not_an_export() {
";
        assert_eq!(
            exports(dump),
            ["main_dispatch_0_matmul_128x128x128_f32", "other$1"]
        );
        assert!(exports("hal.executable.export public").is_empty());
    }
}
