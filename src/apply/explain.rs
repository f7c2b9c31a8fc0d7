//! `explain` and `coverage`: which matcher -> action pair configured each payload op, through
//! an instrumented copy of the library (every action wrapped to tag the op it runs on), in the
//! payload as written or in IREE's dispatch view; pairs are found in the entry point and in
//! every entry point it reaches through `transform.include` (included specs, `@main`, several
//! marked entry points).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::*;
use crate::provenance::PROVENANCE_ATTR;

/// One matcher -> action pair of a library, in priority order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairInfo {
    /// The matcher's symbol name in the library.
    pub matcher: String,
    /// The action's symbol name in the library.
    pub action: String,
    /// Where the matcher is written (the spec file the user gave, via the library's locations).
    pub matcher_loc: Option<Loc>,
    /// Where the matcher's config comes from (its `tunespec.provenance` attribute: the rule it
    /// was derived by, or the device and date it was measured on), when the spec says.
    pub provenance: Option<String>,
    /// The matcher's measurement record (`tunespec.measurement`, written by `import-tuner`),
    /// field by field as strings; empty when it has none.
    pub measurement: Vec<(String, String)>,
    /// The nested module whose `foreach_match` lists the pair (names from the library's root;
    /// empty: the top level). `matcher` and `action` are paths from the root (`spec::match`).
    pub scope: Vec<String>,
    /// The named sequence (in `scope`) that holds that `foreach_match`.
    pub sequence: String,
    /// What the matcher matches ([`crate::link::key`]), when its body is of a form the key
    /// knows: which later pairs it overrides (see [`overridden`]).
    pub key: Option<crate::link::MatcherKey>,
    /// The layer of the spec the matcher comes from (user spec, spec library, tunespec or IREE
    /// default), when the caller knows the inputs ([`set_layers`]); the library itself does
    /// not carry it.
    pub layer: Option<crate::link::Layer>,
}

/// Which IR the library is matched against.
///
/// IREE materializes configs on dispatches, after dispatch formation has generalized named
/// linalg ops (`linalg.matmul` is a `linalg.generic` there), so a matcher that tests an op's
/// name may fire on the payload as written and never in a real compile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    /// The payload as iree-compile's config materialization sees it: named ops generalized as
    /// IREE's dispatch formation does
    #[default]
    Dispatch,
    /// The payload as written (what `apply` materializes, like IREE's materialize passes on
    /// that IR)
    Written,
}

/// What one view of a payload op got: the pair that configured it and the attributes added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Index into [`Explanation::pairs`] of the pair whose action ran last on the op.
    pub pair: Option<usize>,
    /// Attributes the library added or changed on the op: (name, printed value).
    pub config: Vec<(String, String)>,
}

/// One candidate payload op and what configured it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplainRow {
    /// Pre-order id of the op in the payload as given.
    pub id: u32,
    /// The op's name as written.
    pub op: String,
    /// Where the op is in the payload.
    pub loc: Option<Loc>,
    /// Static loop ranges (None: not a linalg op; dynamic extents are `?`).
    pub loops: Option<Vec<i64>>,
    /// Element types of its operands, printed (what IREE's matchers compare).
    pub element_types: Vec<String>,
    /// Index into [`Explanation::pairs`] of the pair whose action ran last on this op, in the
    /// explanation's [`View`].
    pub pair: Option<usize>,
    /// Attributes the library added or changed on the op, in the explanation's [`View`].
    pub config: Vec<(String, String)>,
    /// Every pair whose action ran on this op, in the order they ran (`pair` is the last): more
    /// than one when the library chains several entry points or specs through
    /// `transform.include` (each runs on every op).
    pub fired: Vec<usize>,
    /// The op's name in IREE's dispatch (`linalg.generic` for a generalized `linalg.matmul`),
    /// when the explanation is of the dispatch view and the name differs.
    pub dispatch_op: Option<String>,
    /// When the explanation is of the dispatch view: what matching the op as written gives,
    /// if that differs (a matcher that tests a named op fires only as written).
    pub written: Option<Outcome>,
}

/// What `explain` found: which pair configured which candidate op, in one view of the payload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explanation {
    /// The view the rows are of.
    pub view: View,
    /// The library's matcher -> action pairs, in priority order.
    pub pairs: Vec<PairInfo>,
    /// One row per candidate op (linalg ops and ops a pair configured), in payload order.
    pub rows: Vec<ExplainRow>,
    /// Pairs that could not be instrumented (their action's first argument is not an op).
    pub uninstrumented: Vec<usize>,
}

impl Explanation {
    /// Rows whose dispatch-level outcome differs from the outcome as written.
    pub fn differing(&self) -> usize {
        self.rows.iter().filter(|row| row.written.is_some()).count()
    }
}

/// The pairs of every `foreach_match` the library's entry point runs, in the order they run:
/// its own, and those of every named sequence it reaches through `transform.include` (the
/// specs a link nests, each of their entry points, `@main`), depth first, each sequence once.
pub fn library_pairs(library: &ir::Module) -> Vec<PairInfo> {
    let mut pairs = Vec::new();
    let mut visited = BTreeSet::new();
    visit_sequence(
        &library.root,
        &[],
        names::KERNEL_CONFIG,
        &mut visited,
        &mut pairs,
    );
    pairs
}

/// How deep `transform.include` chains are followed (and a stop for cycles).
const MAX_INCLUDE_DEPTH: usize = 16;

/// The nested module at `scope` (module names from `root`).
fn scope_module<'a>(root: &'a Op, scope: &[String]) -> Option<&'a Op> {
    scope.iter().try_fold(root, |op, name| {
        op.body()
            .iter()
            .find(|inner| inner.name == names::MODULE && inner.sym_name() == Some(name.as_str()))
    })
}

fn visit_sequence(
    root: &Op,
    scope: &[String],
    name: &str,
    visited: &mut BTreeSet<(Vec<String>, String)>,
    pairs: &mut Vec<PairInfo>,
) {
    if visited.len() > 4096
        || scope.len() > MAX_INCLUDE_DEPTH
        || !visited.insert((scope.to_vec(), name.to_string()))
    {
        return;
    }
    let Some(module) = scope_module(root, scope) else {
        return;
    };
    let Some(sequence) = module
        .body()
        .iter()
        .find(|op| op.name == names::NAMED_SEQUENCE && op.sym_name() == Some(name))
    else {
        return;
    };
    let symbols = verify::SymbolTable::new(module);
    let full = |path: &[String]| -> String {
        scope
            .iter()
            .chain(path)
            .cloned()
            .collect::<Vec<_>>()
            .join("::")
    };
    for op in sequence.body() {
        if op.name == names::INCLUDE {
            if let Some((callee, within)) = op
                .attr("target")
                .and_then(Attr::as_symbol_ref)
                .and_then(<[String]>::split_last)
            {
                let mut inner = scope.to_vec();
                inner.extend(within.iter().cloned());
                visit_sequence(root, &inner, callee, visited, pairs);
            }
            continue;
        }
        if op.name != names::FOREACH_MATCH {
            continue;
        }
        let refs = |attr: &str| -> Vec<Vec<String>> {
            op.attr(attr)
                .and_then(Attr::as_array)
                .unwrap_or(&[])
                .iter()
                .filter_map(|attr| attr.as_symbol_ref().map(<[String]>::to_vec))
                .collect()
        };
        for (matcher, action) in refs("matchers").into_iter().zip(refs("actions")) {
            let matcher_op = symbols.resolve(&matcher);
            pairs.push(PairInfo {
                provenance: matcher_op
                    .and_then(|op| op.attr(PROVENANCE_ATTR))
                    .and_then(Attr::as_str)
                    .map(str::to_string),
                measurement: matcher_op.map(measurement_record).unwrap_or_default(),
                matcher_loc: matcher_op.and_then(|op| op.loc.clone()),
                key: matcher_op.and_then(crate::link::matcher_key),
                layer: None,
                matcher: full(&matcher),
                action: full(&action),
                scope: scope.to_vec(),
                sequence: name.to_string(),
            });
        }
    }
}

/// Explains which pair configures each candidate op (linalg ops and ops the library touched).
/// In the [`View::Dispatch`] view (IREE's real compile) each row also says what matching the op
/// as written gives when that differs. `library_bytecode` is tunespec's (a link's, or what
/// [`super::extract`] gives of an attached library): bytecode of IREE's newer MLIR is read
/// through IREE first ([`crate::iree::bytecode::readable`]), which needs the program's IREE.
pub fn explain(
    mlir: &Mlir,
    payload_bytes: &[u8],
    payload_name: &str,
    library_bytecode: &[u8],
    attr: &str,
    engine: Engine,
    view: View,
) -> Result<Explanation, Vec<Problem>> {
    let written = explain_one(
        mlir,
        payload_bytes,
        payload_name,
        library_bytecode,
        attr,
        engine,
        View::Written,
    )?;
    if view == View::Written {
        return Ok(written);
    }
    let dispatch = explain_one(
        mlir,
        payload_bytes,
        payload_name,
        library_bytecode,
        attr,
        engine,
        View::Dispatch,
    )?;
    let mut by_id: BTreeMap<u32, ExplainRow> = BTreeMap::new();
    for row in written.rows {
        let outcome = Outcome {
            pair: row.pair,
            config: row.config.clone(),
        };
        by_id.insert(
            row.id,
            ExplainRow {
                pair: None,
                config: Vec::new(),
                fired: Vec::new(),
                written: Some(outcome),
                ..row
            },
        );
    }
    for row in dispatch.rows {
        let entry = by_id.entry(row.id).or_insert_with(|| ExplainRow {
            written: Some(Outcome::default()),
            ..row.clone()
        });
        entry.pair = row.pair;
        entry.config = row.config;
        entry.fired = row.fired;
        if row.op != entry.op {
            entry.dispatch_op = Some(row.op);
        }
    }
    let rows = by_id
        .into_values()
        .map(|mut row| {
            let same = row
                .written
                .as_ref()
                .is_some_and(|written| written.pair == row.pair && written.config == row.config);
            if same {
                row.written = None;
            }
            row
        })
        .collect();
    let mut uninstrumented = dispatch.uninstrumented;
    uninstrumented.extend(written.uninstrumented);
    uninstrumented.sort_unstable();
    uninstrumented.dedup();
    Ok(Explanation {
        view,
        pairs: dispatch.pairs,
        rows,
        uninstrumented,
    })
}

/// Parses `payload_bytes` for `view`: as given, or tagged and generalized like IREE's
/// dispatch formation (see [`View`]).
pub fn payload_for_view<'c>(
    mlir: &'c Mlir,
    payload_bytes: &[u8],
    payload_name: &str,
    view: View,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let payload = parse_payload(mlir, payload_bytes, payload_name)?;
    if view == View::Dispatch {
        payload.tag_ops();
        payload
            .generalize_like_iree()
            .map_err(|message| vec![Problem::error(codes::PAYLOAD, message, None)])?;
    }
    Ok(payload)
}

/// [`explain`] in one view. Row ids are those of the payload as given (the dispatch view maps
/// its ops back through their tags).
fn explain_one(
    mlir: &Mlir,
    payload_bytes: &[u8],
    payload_name: &str,
    library_bytecode: &[u8],
    attr: &str,
    engine: Engine,
    view: View,
) -> Result<Explanation, Vec<Problem>> {
    let library = mlir
        .parse(library_bytecode, "<library>")
        .module
        .ok_or_else(|| {
            vec![Problem::error(
                codes::CORRUPT_LIBRARY,
                "the library does not parse",
                None,
            )]
        })?;
    let library_snapshot = library.snapshot();
    let pairs = library_pairs(&library_snapshot);
    let payload = payload_for_view(mlir, payload_bytes, payload_name, view)?;
    let before = payload.snapshot();
    // The native matcher knows which pair fired on each op; otherwise an instrumented copy of
    // the library records it (each action wrapped to tag the op with its pair index).
    let mut uninstrumented = Vec::new();
    let mut native_pairs: BTreeMap<u32, usize> = BTreeMap::new();
    let native = match engine {
        Engine::Interpreter => None,
        Engine::Auto | Engine::Native => crate::fastpath::compile(&library_snapshot),
    };
    if let Some(edits) =
        native.and_then(|native| native.edits(&payload.op_features_of(native.features())))
    {
        let plain: Vec<_> = edits.iter().map(|(edit, _)| edit.clone()).collect();
        payload
            .annotate_from(&library, &plain)
            .map_err(|message| vec![Problem::error(codes::INTERPRETER, message, None)])?;
        native_pairs = edits
            .into_iter()
            .map(|(edit, pair)| (edit.0, pair))
            .collect();
    } else {
        uninstrumented =
            run_instrumented(mlir, &payload, &library, &library_snapshot, &pairs, attr)?;
    }
    let after = payload.snapshot();
    let loops = payload.linalg_loop_ranges();
    let tags = match view {
        View::Dispatch => Some(payload.op_tags()),
        View::Written => None,
    };

    let rows = explain_rows(&before, &after, &loops, tags.as_ref(), &native_pairs);
    Ok(Explanation {
        view,
        pairs,
        rows,
        uninstrumented,
    })
}

/// Runs the library on `payload` through MLIR's interpreter with every action wrapped to tag
/// the ops it runs on with its pair's index (the wrappers cloned into `library`, each beside its
/// pair in the pair's own module). Returns the pairs that could not be instrumented.
fn run_instrumented(
    mlir: &Mlir,
    payload: &OwnedOp<'_>,
    library: &OwnedOp<'_>,
    library_snapshot: &ir::Module,
    pairs: &[PairInfo],
    attr: &str,
) -> Result<Vec<usize>, Vec<Problem>> {
    let (wrappers, actions, skipped) = instrumentation(library_snapshot, pairs);
    let internal = |message: String| vec![Problem::error(codes::INTERPRETER, message, None)];
    for (scope, (text, wrapper_names)) in &wrappers {
        let parsed = mlir.parse(text.as_bytes(), "<explain>");
        let wrapper_module = parsed.module.ok_or_else(|| {
            let mut problems = parsed.problems;
            problems.push(Problem::error(
                codes::INTERPRETER,
                "internal: explain wrappers do not parse",
                None,
            ));
            problems
        })?;
        library
            .insert_symbol_clones(scope, &wrapper_module, wrapper_names)
            .map_err(internal)?;
    }
    // Each sequence's foreach_match ops get their wrapped actions, in order.
    let mut by_sequence: BTreeMap<(&[String], &str), Vec<String>> = BTreeMap::new();
    for (pair, action) in pairs.iter().zip(actions) {
        by_sequence
            .entry((&pair.scope, &pair.sequence))
            .or_default()
            .push(action);
    }
    for ((scope, sequence), actions) in by_sequence {
        library
            .set_foreach_actions(scope, sequence, &actions)
            .map_err(internal)?;
    }
    apply(mlir, payload, library, attr, true, Engine::Interpreter)?;
    Ok(skipped)
}

/// The candidate ops of the payload after the run (`after`; `before`, the payload as given),
/// each with the pairs that fired on it (the instrumentation's tags, or `native_pairs`, the
/// native matcher's) and the attributes the run set. `tags` (the dispatch view) maps each op back
/// to its id in the payload as given.
fn explain_rows(
    before: &ir::Module,
    after: &ir::Module,
    loops: &HashMap<u32, Vec<i64>>,
    tags: Option<&HashMap<u32, u32>>,
    native_pairs: &BTreeMap<u32, usize>,
) -> Vec<ExplainRow> {
    let mut before_ops: BTreeMap<u32, &Op> = BTreeMap::new();
    before.root.walk(&mut |op| {
        before_ops.insert(op.id, op);
    });
    let mut rows = Vec::new();
    after.root.walk(&mut |op| {
        // Pairs run in index order (a foreach_match's pairs, then the next included entry
        // point's), so the last to run on the op is the largest index it was tagged with.
        let mut fired: Vec<usize> = op
            .attrs
            .iter()
            .filter_map(|(name, _)| name.strip_prefix(EXPLAIN_PREFIX)?.parse().ok())
            .collect();
        fired.extend(native_pairs.get(&op.id).copied());
        fired.sort_unstable();
        fired.dedup();
        let pair = fired.last().copied();
        let is_candidate = loops.contains_key(&op.id) || pair.is_some() || is_tunable(&op.name);
        if !is_candidate {
            return;
        }
        // The id in the payload as given: the same op id as written (annotating adds
        // attributes, never ops); through the op's tag in the dispatch view. Ops that the
        // generalization created (inside generic bodies) have no counterpart and are skipped.
        let id = match tags {
            None => op.id,
            Some(tags) => match tags.get(&op.id) {
                Some(&id) => id,
                None => return,
            },
        };
        let old = before_ops.get(&op.id).copied();
        let config = op
            .attrs
            .iter()
            .filter(|(name, _)| !name.starts_with(EXPLAIN_PREFIX))
            .filter(|(name, value)| old.and_then(|old| old.attr(name)) != Some(value))
            .map(|(name, value)| (name.clone(), attr_text(value)))
            .collect();
        rows.push(ExplainRow {
            id,
            op: op.name.clone(),
            loc: op.loc.clone(),
            loops: loops.get(&op.id).cloned(),
            element_types: op.operand_types.iter().map(|ty| element_type(ty)).collect(),
            pair,
            config,
            fired,
            dispatch_op: None,
            written: None,
        });
    });
    rows
}

fn wrapper_name(index: usize) -> String {
    format!("__tunespec_explain_{index}")
}

/// Wrappers (per scope, the text of a module and the wrapper names) that tag the op with the
/// pair index and then run the original action; returns them, the new action of each pair,
/// and the pairs left as they were. A wrapper lives in the module whose `foreach_match` lists
/// its pair: symbols resolve from the nearest module, so a nested spec cannot see the top.
type Wrappers = BTreeMap<Vec<String>, (String, Vec<String>)>;

fn instrumentation(
    library: &ir::Module,
    pairs: &[PairInfo],
) -> (Wrappers, Vec<String>, Vec<usize>) {
    let mut wrappers: Wrappers = BTreeMap::new();
    let mut actions = Vec::with_capacity(pairs.len());
    let mut uninstrumented = Vec::new();
    for (index, pair) in pairs.iter().enumerate() {
        let (text, wrapper_names) = wrappers.entry(pair.scope.clone()).or_insert_with(|| {
            (
                String::from("module attributes {transform.with_named_sequence} {\n"),
                Vec::new(),
            )
        });
        wrapper_names.push(wrapper_name(index));
        // The action's path within its scope.
        let path: Vec<String> = pair
            .action
            .split("::")
            .skip(pair.scope.len())
            .map(str::to_string)
            .collect();
        let action = scope_module(&library.root, &pair.scope)
            .and_then(|module| verify::SymbolTable::new(module).resolve(&path))
            .and_then(Sequence::from_op);
        let usable = action.as_ref().is_some_and(|action| {
            action
                .inputs
                .first()
                .is_some_and(|ty| handle_kind(ty) == HandleKind::Op)
        });
        let Some(action) = action.filter(|_| usable) else {
            uninstrumented.push(index);
            actions.push(path.join("::"));
            // A wrapper is still emitted (unused) so that every wrapper name exists.
            text.push_str(&format!(
                "  transform.named_sequence @{}(%a: !transform.any_op {{transform.readonly}}) {{\n    transform.yield\n  }}\n",
                wrapper_name(index)
            ));
            continue;
        };
        let args: Vec<String> = (0..action.inputs.len()).map(|i| format!("%a{i}")).collect();
        let params: Vec<String> = action
            .inputs
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let effect = match action.arg_effects.get(i).copied().flatten() {
                    Some(true) => names::CONSUMED,
                    _ => names::READONLY,
                };
                format!("%a{i}: {ty} {{{effect}}}")
            })
            .collect();
        let results = if action.results.is_empty() {
            "()".to_string()
        } else {
            format!("({})", action.results.join(", "))
        };
        let callee = path
            .iter()
            .map(|name| format!("@{name}"))
            .collect::<Vec<_>>()
            .join("::");
        text.push_str(&format!(
            "  transform.named_sequence @{wrapper}({params}) {{\n    transform.annotate %a0 \"{EXPLAIN_PREFIX}{index}\" : {ty0}\n    {results_bind}transform.include {callee} failures(propagate) ({args}) : ({types}) -> {results}\n    transform.yield\n  }}\n",
            wrapper = wrapper_name(index),
            params = params.join(", "),
            ty0 = action.inputs[0],
            results_bind = if action.results.is_empty() {
                String::new()
            } else {
                format!(
                    "{} = ",
                    (0..action.results.len()).map(|i| format!("%r{i}")).collect::<Vec<_>>().join(", ")
                )
            },
            args = args.join(", "),
            types = action.inputs.join(", "),
        ));
        actions.push(wrapper_name(index));
    }
    for (text, _) in wrappers.values_mut() {
        text.push_str("}\n");
    }
    (wrappers, actions, uninstrumented)
}

/// Ops that IREE's tuning-spec matchers match but that are not linalg ops (so have no loop
/// ranges here): a row even when nothing matched them, because they are the ones a user wants
/// to tune (an attention model's `online_attention`).
fn is_tunable(name: &str) -> bool {
    matches!(
        name,
        "iree_linalg_ext.attention" | "iree_linalg_ext.online_attention"
    )
}

/// Which pairs fired across several explanations of the same library (for `coverage`).
pub fn fired_pairs(explanations: &[Explanation]) -> BTreeSet<usize> {
    explanations
        .iter()
        .flat_map(|explanation| {
            explanation
                .rows
                .iter()
                .flat_map(|row| row.fired.iter().copied().chain(row.pair))
        })
        .collect()
}

/// A matcher's `tunespec.measurement` dictionary as (field, string) pairs.
fn measurement_record(matcher: &ir::Op) -> Vec<(String, String)> {
    match matcher.attr(crate::provenance::MEASUREMENT_ATTR) {
        Some(Attr::Dict(fields)) => fields
            .iter()
            .filter_map(|(name, value)| value.as_str().map(|v| (name.clone(), v.to_string())))
            .collect(),
        _ => Vec::new(),
    }
}
