//! Carrying a library on the payload and materializing configs: attach, extract, apply,
//! explain, coverage.
//!
//! The library travels as MLIR bytecode in an attribute of the payload's top-level module
//! (IREE's `iree_codegen.tuning_spec_mlirbc`), so walks and rewrites of the payload never visit
//! it. `apply` runs `@__kernel_config` with MLIR's transform interpreter on each function, as
//! IREE's config materialization does. `explain` runs an instrumented copy of the library in
//! which every action is wrapped to record which matcher -> action pair fired, so it reports the
//! exact matcher (and its spec file:line) that configured each op.

use crate::ir::{self, names, Attr, Loc, Op};
use crate::mlir::{BlobForm, Mlir, OwnedOp};
use crate::problem::{Problem, Severity};
use crate::verify::{self, handle_kind, HandleKind, Sequence};

pub mod attach_check;
mod explain;
mod overrides;
pub mod provenance;
pub mod prune;

pub use self::explain::*;
pub use self::overrides::{layer_label, overridden, overridden_by, set_layers};

/// IREE's attribute name for the attached library.
pub const ATTR_NAME: &str = "iree_codegen.tuning_spec_mlirbc";

/// The prefix of the unit attributes `explain` tags ops with: `tunespec.explain.N` for each
/// pair N whose action ran on the op.
const EXPLAIN_PREFIX: &str = "tunespec.explain.";

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
/// checked to be a transform library. Bytecode IREE wrote (newer MLIR) is read through the
/// `iree` session's IREE (see [`crate::iree::bytecode::readable`]); without one it is reported.
pub fn extract(
    mlir: &Mlir,
    payload: &OwnedOp<'_>,
    attr: &str,
    payload_name: &str,
    iree: Option<&crate::iree::Session>,
) -> Result<Vec<u8>, Vec<Problem>> {
    let bytes = attached_bytes(payload, attr, payload_name)?;
    // A library IREE attached is bytecode of IREE's newer MLIR: read through iree-opt's text
    // when it is at hand (see `iree::bytecode`), and handed back as tunespec's own bytecode.
    let converted = crate::iree::bytecode::is_newer_bytecode(&bytes);
    let bytes = crate::iree::bytecode::readable(&bytes, iree)
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
/// `iree`: the session that reads bytecode IREE wrote (as for [`extract`]).
pub fn load_library<'c>(
    mlir: &'c Mlir,
    bytes: &[u8],
    name: &str,
    trusted: bool,
    iree: Option<&crate::iree::Session>,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let readable = crate::iree::bytecode::readable(bytes, iree)
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
            if let Some(producer) = crate::iree::bytecode::is_newer_bytecode(bytes)
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
/// `fastpath/`); the result is the same payload.
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
