//! Carrying a library on the payload and materializing configs: attach, extract, apply,
//! explain, coverage.
//!
//! The library travels as MLIR bytecode in an attribute of the payload's top-level module
//! (IREE's `iree_codegen.tuning_spec_mlirbc`), so walks and rewrites of the payload never visit
//! it. `apply` runs `@__kernel_config` with MLIR's transform interpreter on each function, as
//! IREE's config materialization does. `explain` runs an instrumented copy of the library in
//! which every action is wrapped to record which matcher -> action pair fired, so it reports the
//! exact matcher (and its spec file:line) that configured each op.

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{self, names, Attr, Loc, Op};
use crate::mlir::{BlobForm, Mlir, OwnedOp};
use crate::problem::{Problem, Severity};
use crate::verify::{self, handle_kind, HandleKind, Sequence};

/// IREE's attribute name for the attached library.
pub const ATTR_NAME: &str = "iree_codegen.tuning_spec_mlirbc";

/// The attribute `explain` uses to tag ops with the index of the pair that fired.
const EXPLAIN_ATTR: &str = "tunespec.explain";

/// Diagnostic codes of this stage.
pub mod codes {
    /// The payload cannot be used as given (it does not read, or it cannot be edited as asked).
    pub const PAYLOAD: &str = "tunespec::apply::payload";
    /// The input is a spec or library, not a payload of functions.
    pub const NOT_A_PAYLOAD: &str = "tunespec::apply::not-a-payload";
    /// The payload carries no library under the attribute (and no `--spec` gave one).
    pub const NO_LIBRARY: &str = "tunespec::apply::no-library";
    /// The library the payload carries does not read or verify (not what tunespec wrote).
    pub const CORRUPT_LIBRARY: &str = "tunespec::apply::corrupt-library";
    /// The transform interpreter (or the native matcher) failed on the payload.
    pub const INTERPRETER: &str = "tunespec::apply::interpreter";
}

/// Parses a payload. Unregistered dialects are accepted (generic form); MLIR's verifier errors
/// and a payload that is really a transform library are refused.
pub fn parse_payload<'c>(
    mlir: &'c Mlir,
    bytes: &[u8],
    name: &str,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let (mut problems, parseable) = verify::byte_checks(bytes, name);
    problems.retain(|problem| problem.code != crate::problem::codes::INVALID_UTF8);
    if !parseable {
        return Err(problems);
    }
    crate::contain::check(bytes, name).map_err(|problem| vec![*problem])?;
    let parsed = mlir.parse(bytes, name);
    let Some(module) = parsed.module else {
        return Err(relabel(parsed.problems, codes::PAYLOAD));
    };
    let errors: Vec<Problem> = mlir
        .verify(&module)
        .into_iter()
        .filter(Problem::is_error)
        .collect();
    if !errors.is_empty() {
        return Err(relabel(errors, codes::PAYLOAD));
    }
    // One attribute lookup, not a snapshot: a payload can be large, and the snapshot (for the
    // location) is only needed when the check fails.
    if module.snapshot_root_has_attr(names::WITH_NAMED_SEQUENCE) {
        return Err(vec![Problem::error(
            codes::NOT_A_PAYLOAD,
            "this file is a transform library (it has 'transform.with_named_sequence'), not a payload",
            module.snapshot_structure().root.loc.clone(),
        )
        .with_help("pass libraries with --spec; the payload is the IR to configure")]);
    }
    Ok(module)
}

fn relabel(problems: Vec<Problem>, code: &'static str) -> Vec<Problem> {
    problems
        .into_iter()
        .map(|mut problem| {
            if problem.severity == Severity::Error {
                problem.code = code;
            }
            problem
        })
        .collect()
}

/// Sets the library (bytecode) on the payload's top-level module.
pub fn attach(
    payload: &OwnedOp<'_>,
    library_bytecode: &[u8],
    attr: &str,
    form: BlobForm,
) -> Result<(), Vec<Problem>> {
    payload
        .set_blob_attr(attr, library_bytecode, form)
        .map_err(|message| vec![Problem::error(codes::PAYLOAD, message, None)])
}

/// The attached library's bytes, found on the module or the first nested op that carries it,
/// checked to be a transform library.
pub fn extract(
    mlir: &Mlir,
    payload: &OwnedOp<'_>,
    attr: &str,
    payload_name: &str,
) -> Result<Vec<u8>, Vec<Problem>> {
    let bytes = attached_bytes(payload, attr, payload_name)?;
    // A library IREE attached is bytecode of IREE's newer MLIR: read through iree-opt's text
    // when it is at hand (see `iree_bytecode`), and handed back as tunespec's own bytecode.
    let converted = crate::iree_bytecode::is_newer_bytecode(&bytes);
    let bytes = crate::iree_bytecode::readable(&bytes)
        .map_err(|message| vec![Problem::error(codes::CORRUPT_LIBRARY, message, None)])?
        .into_owned();
    crate::contain::check(&bytes, &format!("{payload_name}[{attr}]"))
        .map_err(|problem| vec![*problem])?;
    let verified = verify::verify_bytes(mlir, &bytes, &format!("{payload_name}[{attr}]"));
    if verified.module.is_none()
        || verified
            .problems
            .iter()
            .any(|p| p.code == crate::problem::codes::NOT_A_LIBRARY)
    {
        let mut problems = vec![Problem::error(
            codes::CORRUPT_LIBRARY,
            format!("the '{attr}' attribute of {payload_name} does not hold a transform library"),
            None,
        )
        .with_help("re-attach it with `tunespec attach`")];
        problems.extend(verified.problems);
        return Err(problems);
    }
    if converted && !bytes.starts_with(verify::BYTECODE_MAGIC) {
        if let Some(module) = &verified.module {
            return module
                .to_bytecode()
                .map_err(|message| vec![Problem::error(codes::CORRUPT_LIBRARY, message, None)]);
        }
    }
    Ok(bytes)
}

/// The bytes of the attached library, unchecked (see [`load_library`]).
pub fn attached_bytes(
    payload: &OwnedOp<'_>,
    attr: &str,
    payload_name: &str,
) -> Result<Vec<u8>, Vec<Problem>> {
    match payload.find_blob_attr(attr) {
        None => Err(vec![Problem::error(
            codes::NO_LIBRARY,
            format!("{payload_name} carries no '{attr}' attribute"),
            None,
        )
        .with_help(
            "attach one with `tunespec attach`, or give --target/--spec to link one",
        )]),
        Some(Err(message)) => Err(vec![Problem::error(codes::CORRUPT_LIBRARY, message, None)]),
        Some(Ok((_, bytes))) => Ok(bytes),
    }
}

/// Parses library bytes for applying. Not verified yet: the native matcher only reads it, and
/// [`apply`] runs MLIR's verifier before handing it to the interpreter. `trusted`: the bytes were
/// just produced by this process (a link), so the bytecode probe of `contain.rs` is skipped.
pub fn load_library<'c>(
    mlir: &'c Mlir,
    bytes: &[u8],
    name: &str,
    trusted: bool,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let readable = crate::iree_bytecode::readable(bytes)
        .map_err(|message| vec![Problem::error(codes::CORRUPT_LIBRARY, message, None)])?;
    let bytes: &[u8] = &readable;
    let (problems, parseable) = verify::byte_checks(bytes, name);
    if !trusted {
        crate::contain::check(bytes, name).map_err(|problem| vec![*problem])?;
    }
    let parsed = parseable.then(|| mlir.parse(bytes, name));
    match parsed {
        Some(crate::mlir::Parsed {
            module: Some(module),
            ..
        }) => {
            if module.snapshot_root_has_attr(names::WITH_NAMED_SEQUENCE) {
                Ok(module)
            } else {
                Err(vec![Problem::error(
                    codes::CORRUPT_LIBRARY,
                    format!("{name} is not a transform library"),
                    None,
                )])
            }
        }
        Some(crate::mlir::Parsed {
            problems: parse_problems,
            ..
        }) => {
            let mut first = Problem::error(
                codes::CORRUPT_LIBRARY,
                format!("{name} does not parse as a transform library"),
                None,
            );
            if let Some(producer) = crate::iree_bytecode::is_newer_bytecode(bytes)
                .then(|| verify::bytecode_producer(bytes))
                .flatten()
            {
                first = first.with_help(format!(
                    "it is bytecode written by {producer} (IREE 3.13 is built on it), which MLIR 22 cannot read; tunespec reads such bytecode through iree-opt's text when iree-opt is found (TUNESPEC_IREE_OPT, TUNESPEC_IREE_VENV or PATH)"
                ));
            }
            let mut all = vec![first];
            all.extend(parse_problems);
            Err(all)
        }
        None => {
            let mut all = vec![Problem::error(
                codes::CORRUPT_LIBRARY,
                format!("{name} is not a transform library"),
                None,
            )];
            all.extend(problems);
            Err(all)
        }
    }
}

/// How `apply` runs a library.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The native matcher when the whole library is of its form, else the interpreter
    #[default]
    Auto,
    /// Always MLIR's transform interpreter
    Interpreter,
    /// The native matcher; an error when the library is not of its form
    Native,
}

/// Applies `library` to `payload` (in place) and removes the attached attribute unless
/// `keep_attr`. Interpreter failures come back as located problems. With [`Engine::Auto`], a
/// library made only of recognised matchers and annotate actions is evaluated natively (see
/// `fastpath.rs`); the result is the same payload.
pub fn apply(
    mlir: &Mlir,
    payload: &OwnedOp<'_>,
    library: &OwnedOp<'_>,
    attr: &str,
    keep_attr: bool,
    engine: Engine,
) -> Result<Vec<Problem>, Vec<Problem>> {
    let native = match engine {
        Engine::Interpreter => None,
        Engine::Auto | Engine::Native => crate::fastpath::compile(&library.snapshot_structure()),
    };
    // The native matcher may leave some op undecided (a dynamic size IREE would bound through
    // value bounds): then the interpreter decides everything.
    let native = native.map(|native| native.edits(&payload.op_features_of(native.features())));
    if engine == Engine::Native && matches!(native, Some(None)) {
        return Err(vec![Problem::error(
            codes::INTERPRETER,
            "the native matcher cannot decide every op of this payload (a dynamic size, or a type it does not read); use --engine auto",
            None,
        )]);
    }
    let result = match native.flatten() {
        Some(edits) => {
            let edits: Vec<_> = edits.into_iter().map(|(edit, _)| edit).collect();
            payload
                .annotate_from(library, &edits)
                .map_err(|message| vec![Problem::error(codes::INTERPRETER, message, None)])?;
            Vec::new()
        }
        None if engine == Engine::Native => {
            return Err(vec![Problem::error(
                codes::INTERPRETER,
                "the library is not of the form the native matcher evaluates (use --engine auto)",
                None,
            )])
        }
        None => {
            let errors: Vec<Problem> = mlir
                .verify(library)
                .into_iter()
                .filter(Problem::is_error)
                .collect();
            if !errors.is_empty() {
                let mut problems = vec![Problem::error(
                    codes::CORRUPT_LIBRARY,
                    "the library does not verify",
                    None,
                )];
                problems.extend(errors);
                return Err(problems);
            }
            payload
                .apply_library(mlir, library, names::KERNEL_CONFIG)
                .map_err(|problems| relabel(problems, codes::INTERPRETER))?
        }
    };
    if !keep_attr {
        payload.remove_attr_everywhere(attr);
    }
    Ok(result)
}

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
}

/// The attribute a spec puts on a matcher to say where its config comes from.
pub const PROVENANCE_ATTR: &str = "tunespec.provenance";

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

/// The pairs of every `foreach_match` in the library's entry point, in order.
pub fn library_pairs(library: &ir::Module) -> Vec<PairInfo> {
    let root = &library.root;
    let Some(entry) = root
        .body()
        .iter()
        .find(|op| op.sym_name() == Some(names::KERNEL_CONFIG))
    else {
        return Vec::new();
    };
    let symbols = verify::SymbolTable::new(root);
    let mut pairs = Vec::new();
    for op in entry
        .body()
        .iter()
        .filter(|op| op.name == names::FOREACH_MATCH)
    {
        let refs = |name: &str| -> Vec<Vec<String>> {
            op.attr(name)
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
                matcher_loc: matcher_op.and_then(|op| op.loc.clone()),
                matcher: matcher.join("::"),
                action: action.join("::"),
            });
        }
    }
    pairs
}

/// Explains which pair configures each candidate op (linalg ops and ops the library touched).
/// In the [`View::Dispatch`] view (IREE's real compile) each row also says what matching the op
/// as written gives when that differs.
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
        let (wrappers, actions, skipped) = instrumentation(&library_snapshot, &pairs);
        uninstrumented = skipped;
        if !pairs.is_empty() {
            let parsed = mlir.parse(wrappers.as_bytes(), "<explain>");
            let wrapper_module = parsed.module.ok_or_else(|| {
                let mut problems = parsed.problems;
                problems.push(Problem::error(
                    codes::INTERPRETER,
                    "internal: explain wrappers do not parse",
                    None,
                ));
                problems
            })?;
            let wrapper_names: Vec<String> = (0..pairs.len()).map(wrapper_name).collect();
            library.insert_symbol_clones(&wrapper_module, &wrapper_names);
            library
                .set_foreach_actions(names::KERNEL_CONFIG, &actions)
                .map_err(|message| vec![Problem::error(codes::INTERPRETER, message, None)])?;
        }
        apply(mlir, &payload, &library, attr, true, Engine::Interpreter)?;
    }
    let after = payload.snapshot();
    let loops = payload.linalg_loop_ranges();
    let tags = match view {
        View::Dispatch => Some(payload.op_tags()),
        View::Written => None,
    };

    let mut before_ops: BTreeMap<u32, &Op> = BTreeMap::new();
    before.root.walk(&mut |op| {
        before_ops.insert(op.id, op);
    });
    let mut rows = Vec::new();
    after.root.walk(&mut |op| {
        let pair = match op.attr(EXPLAIN_ATTR) {
            Some(Attr::Int(index)) => usize::try_from(*index).ok(),
            _ => native_pairs.get(&op.id).copied(),
        };
        let is_candidate = loops.contains_key(&op.id) || pair.is_some();
        if !is_candidate {
            return;
        }
        // The id in the payload as given: the same op id as written (annotating adds
        // attributes, never ops); through the op's tag in the dispatch view. Ops that the
        // generalization created (inside generic bodies) have no counterpart and are skipped.
        let id = match &tags {
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
            .filter(|(name, _)| name != EXPLAIN_ATTR)
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
            dispatch_op: None,
            written: None,
        });
    });
    Ok(Explanation {
        view,
        pairs,
        rows,
        uninstrumented,
    })
}

fn wrapper_name(index: usize) -> String {
    format!("__tunespec_explain_{index}")
}

/// Wrapper actions (text of a module) that tag the op with the pair index and then run the
/// original action; returns the text, the new actions list, and the pairs left as they were.
fn instrumentation(library: &ir::Module, pairs: &[PairInfo]) -> (String, Vec<String>, Vec<usize>) {
    let symbols = verify::SymbolTable::new(&library.root);
    let mut text = String::from("module attributes {transform.with_named_sequence} {\n");
    let mut actions = Vec::with_capacity(pairs.len());
    let mut uninstrumented = Vec::new();
    for (index, pair) in pairs.iter().enumerate() {
        let path: Vec<String> = pair.action.split("::").map(str::to_string).collect();
        let action = symbols.resolve(&path).and_then(Sequence::from_op);
        let usable = action.as_ref().is_some_and(|action| {
            action
                .inputs
                .first()
                .is_some_and(|ty| handle_kind(ty) == HandleKind::Op)
        });
        let Some(action) = action.filter(|_| usable) else {
            uninstrumented.push(index);
            actions.push(pair.action.clone());
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
            "  transform.named_sequence @{wrapper}({params}) {{\n    %tag = transform.param.constant {index} : i64 -> !transform.any_param\n    transform.annotate %a0 \"{EXPLAIN_ATTR}\" = %tag : {ty0}, !transform.any_param\n    {results_bind}transform.include {callee} failures(propagate) ({args}) : ({types}) -> {results}\n    transform.yield\n  }}\n",
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
    text.push_str("}\n");
    (text, actions, uninstrumented)
}

/// The element type of a shaped type (`tensor<4x8xf16>` -> `f16`), or the type itself.
pub fn element_type(ty: &str) -> String {
    for prefix in ["tensor<", "memref<", "vector<"] {
        if let Some(inner) = ty
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix('>'))
        {
            let inner = inner.split(", ").next().unwrap_or(inner);
            return inner.rsplit('x').next().unwrap_or(inner).to_string();
        }
    }
    ty.to_string()
}

fn attr_text(attr: &Attr) -> String {
    match attr {
        Attr::Other(text) | Attr::Type(text) => text.clone(),
        Attr::Str(text) => format!("{text:?}"),
        Attr::Int(value) => value.to_string(),
        Attr::Unit => "unit".to_string(),
        other => format!("{other:?}"),
    }
}

/// A short form of a config: IREE's pipeline, workgroup tiles and MMA kind when present.
pub fn short_config(text: &str) -> String {
    let grab = |key: &str, stop: char| -> Option<String> {
        let start = text.find(key)? + key.len();
        let rest = &text[start..];
        let end = rest.find(stop)?;
        Some(rest[..end + usize::from(stop == ']')].to_string())
    };
    let mut parts = Vec::new();
    if let Some(pipeline) = grab("pipeline<", '>') {
        parts.push(pipeline);
    } else if let Some(pipeline) = grab("pipeline = ", ' ') {
        parts.push(pipeline);
    }
    if let Some(workgroup) = grab("workgroup = ", ']') {
        parts.push(format!("wg={}", workgroup.replace(' ', "")));
    }
    if let Some(mma) = grab("mma_layout<", '>') {
        parts.push(mma);
    }
    if parts.is_empty() {
        let compact: String = text.chars().take(60).collect();
        if text.chars().count() > 60 {
            format!("{compact}...")
        } else {
            compact
        }
    } else {
        parts.join(" ")
    }
}

/// Which pairs fired across several explanations of the same library (for `coverage`).
pub fn fired_pairs(explanations: &[Explanation]) -> BTreeSet<usize> {
    explanations
        .iter()
        .flat_map(|explanation| explanation.rows.iter().filter_map(|row| row.pair))
        .collect()
}
