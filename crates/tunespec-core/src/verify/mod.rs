//! The rules a tuning spec must follow, and the one function that checks a file against them.
//!
//! Shared with `build.rs` (both use the tunespec-core crate), so the build-time check and
//! `tunespec verify` cannot drift apart. Rules come in three layers, all reported together:
//! 1. byte-level checks MLIR does not make (empty file, invalid UTF-8, NUL bytes, size);
//! 2. rules on the parsed (not yet verified) IR snapshot: IREE's rules with IREE's exact
//!    messages, and tunespec's own (symbols resolve, signatures agree, entry effects, safety);
//! 3. MLIR's own verifier, run last, its messages mapped to stable codes where tunespec knows them.
//!
//! Every rule reports every instance it finds; nothing stops at the first problem except a file
//! MLIR cannot parse at all (there is no IR to check then).
//!
//! This module holds the entry point ([`verify_bytes`]) and the order of problems; the rules
//! live by concern in `bytes` (layer 1), `rules`, `signature`, `symbols`, `entry`, `pairs` and
//! `iree` (layer 2: the module walk, named-sequence signatures, symbol lookup, entry points,
//! `foreach_match`/`include`, IREE config lints) and `messages` (layer 3's codes).

use std::collections::{BTreeMap, HashSet};

use crate::ir::{self, names, Attr, Loc, Op};
use crate::iree_attrs;
use crate::iree_ops;
use crate::mlir::{Mlir, OwnedOp, MAX_IR_DEPTH};
use crate::problem::{codes, Problem};

mod bytes;
mod dialects;
mod entry;
mod iree;
mod messages;
mod pairs;
mod rules;
mod semantics;
mod signature;
mod symbols;
mod syntax;

pub use self::bytes::*;
pub use self::dialects::*;
use self::entry::*;
pub use self::iree::*;
use self::messages::*;
use self::pairs::*;
pub use self::rules::*;
pub use self::semantics::REWRITES_ATTR;
use self::semantics::*;
pub use self::signature::*;
pub use self::symbols::*;
use self::syntax::*;

/// Inputs larger than this are refused before parsing (a tuning database of this size would be a
/// mistake; MLIR itself has no limit and would exhaust memory).
pub const MAX_INPUT_BYTES: usize = 1 << 30;

/// Deepest bracket nesting (`{`, `(`, `[`, `<`) accepted in MLIR text. MLIR's parser recurses once
/// per level and overflows an 8 MiB stack about 5,000 levels down (an abort, not an error); real
/// tuning specs nest about ten levels. Four times [`MAX_IR_DEPTH`], so that whatever tunespec
/// accepts and prints (ops nested up to the limit print one or two brackets per level, plus the
/// attributes of the innermost op) reads back.
pub const MAX_NESTING: usize = 4 * MAX_IR_DEPTH;

/// Most operators accepted in one affine expression between brackets and commas (`+` and `-`
/// chained, plus `*`, `floordiv`, `ceildiv`, `mod` in the current term, plus unary minus): MLIR's
/// affine parser recurses once per operator. Twice [`MAX_IR_DEPTH`]: an expression tree of the
/// accepted depth prints with at most that many.
pub const MAX_OPERATORS: usize = 2 * MAX_IR_DEPTH;

/// The MLIR bytecode magic number.
pub const BYTECODE_MAGIC: &[u8] = b"ML\xEFR";

/// What the rules learned about a spec that other stages need.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecFacts {
    /// `sym_name` of the spec module, if it has one.
    pub module_name: Option<String>,
    /// Matcher -> action pairs in the entry point's `foreach_match`.
    pub matcher_count: usize,
    /// IREE's merge-ready form: `tuning_spec_with_default_entrypoint` and its rules hold.
    pub merge_ready: bool,
    /// Name of the entry point (normally `__kernel_config`; the first of [`SpecFacts::entry_points`]).
    pub entry_point: Option<String>,
    /// Whether the (first) entry point marks its argument `transform.consumed`.
    pub entry_consumed: bool,
    /// Every entry point IREE 3.13 runs, in file order: each top-level sequence marked
    /// `iree_codegen.tuning_spec_entrypoint` (whatever its name), or else the legacy unmarked
    /// `@__kernel_config`.
    pub entry_points: Vec<String>,
}

/// The verification result for one input.
pub struct Verified<'c> {
    /// The parsed module when MLIR could parse it (it may still have problems).
    pub module: Option<OwnedOp<'c>>,
    /// The plain-data snapshot the rules ran on, when it could be taken.
    pub snapshot: Option<ir::Module>,
    /// What the rules learned about the spec (entry point, matchers), when it is one.
    pub facts: Option<SpecFacts>,
    /// Every problem found, in [`sort_problems`] order.
    pub problems: Vec<Problem>,
    /// Whether the text was read through the [`ForeignReader`] (the user's IREE): its
    /// spelling is IREE's, so rules about IREE's syntax (`tunespec::iree::syntax`) do not apply.
    pub read_by_iree: bool,
}

impl Verified<'_> {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(Problem::is_error)
    }
}

/// The producer string of an MLIR bytecode header (`MLIR24.0.0git`): after the magic, a
/// varint version and a NUL-terminated string. None when the header is not of that shape.
pub fn bytecode_producer(bytes: &[u8]) -> Option<String> {
    let rest = bytes.strip_prefix(BYTECODE_MAGIC)?;
    // MLIR's varint: the count of trailing zero bits of the first byte is the count of bytes
    // that follow (all zero: eight follow).
    let first = *rest.first()?;
    let extra = if first == 0 {
        8
    } else {
        first.trailing_zeros() as usize
    };
    let rest = rest.get(1 + extra..)?;
    let end = rest.iter().take(256).position(|&byte| byte == 0)?;
    let producer = std::str::from_utf8(&rest[..end]).ok()?;
    producer
        .chars()
        .all(|c| c.is_ascii_graphic())
        .then(|| producer.to_string())
}

/// The major version in a producer string such as `MLIR24.0.0git`.
pub fn mlir_major(producer: &str) -> Option<u32> {
    let digits: String = producer
        .strip_prefix("MLIR")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Reads text MLIR 22 cannot parse through the user's IREE, the judge of its own syntax: the
/// same IR as text MLIR 22 reads (IREE's generic form, located in the input as `source_name`),
/// or `None` when there is no IREE or it refuses the text too. Set once by the program (the
/// tunespec CLI sets `tunespec::iree::text::read` with its IREE session); `build.rs` sets none.
pub type ForeignReader = Box<dyn Fn(&[u8], &str) -> Option<Vec<u8>> + Send + Sync>;

/// Process-wide by nature: the verifier is reached from every command and every worker thread
/// (`verify_bytes` has no context to carry it), and what reads IREE's syntax is the program's
/// one choice, installed once before any input is read.
static FOREIGN_READER: std::sync::OnceLock<ForeignReader> = std::sync::OnceLock::new();

/// Sets this process's [`ForeignReader`] (the first call wins). Every text input MLIR 22 fails
/// to parse, in every command, is then offered to it: one fallback for every op of IREE's
/// syntax, not one per op.
pub fn set_foreign_reader(reader: ForeignReader) {
    let _ = FOREIGN_READER.set(reader);
}

/// MLIR 22's parse of `bytes`, or, where it fails on text and the [`ForeignReader`] reads it,
/// the parse of what the reader gave (the bool says so).
fn parse_input<'c>(
    mlir: &'c Mlir,
    bytes: &[u8],
    source_name: &str,
) -> (crate::mlir::Parsed<'c>, bool) {
    let parsed = mlir.parse(bytes, source_name);
    if parsed.module.is_some() || bytes.starts_with(BYTECODE_MAGIC) {
        return (parsed, false);
    }
    let Some(read) = FOREIGN_READER.get() else {
        return (parsed, false);
    };
    let Some(generic) = read(bytes, source_name) else {
        return (parsed, false);
    };
    let again = mlir.parse(&generic, source_name);
    if again.module.is_some() && !again.problems.iter().any(Problem::is_error) {
        return (again, true);
    }
    (parsed, false)
}

/// Verifies one input (text or bytecode). `source_name` is used in every location. Text that
/// MLIR 22 cannot parse is read through the [`ForeignReader`] when one is set.
pub fn verify_bytes<'c>(mlir: &'c Mlir, bytes: &[u8], source_name: &str) -> Verified<'c> {
    let (mut problems, parseable) = byte_checks(bytes, source_name);
    if !parseable {
        return Verified {
            module: None,
            snapshot: None,
            facts: None,
            problems,
            read_by_iree: false,
        };
    }
    let (parsed, read_by_iree) = parse_input(mlir, bytes, source_name);
    problems.extend(parsed.problems.into_iter().map(classify_mlir_problem));
    if let Ok(text) = std::str::from_utf8(bytes) {
        for problem in problems.iter_mut() {
            explain_parse_error(problem, text);
        }
    }
    let Some(module) = parsed.module else {
        if bytes.starts_with(BYTECODE_MAGIC) {
            explain_bad_bytecode(bytes, &mut problems);
        }
        sort_problems(&mut problems);
        return Verified {
            module: None,
            snapshot: None,
            facts: None,
            problems,
            read_by_iree: false,
        };
    };
    let mut module = module;
    let mut snapshot = module.snapshot_structure();
    // The file as written, when tunespec reads one nested spec of it: MLIR's verifier still
    // checks all of it, as IREE's loader does before it runs the first spec.
    let mut container = None;
    if let Some((nested, notes)) = nested_entry_point(&snapshot) {
        // IREE applies the nested spec alone: so does tunespec (verify, link, apply, explain).
        if let Some(spec) = module.clone_nested(nested) {
            problems.extend(notes);
            container = Some(std::mem::replace(&mut module, spec));
            snapshot = module.snapshot_structure();
        }
    }
    let (facts, mut rule_problems) = check_module(&snapshot);
    // A rule may restate a parse error (an IREE op in generic form): keep one, never trading
    // an error for a weaker restatement.
    rule_problems.retain(|rule| {
        !problems.iter().any(|known| {
            known.code == rule.code && known.loc == rule.loc && at_least_as_severe(known, rule)
        })
    });
    // A module of named sequences that only lacks `transform.with_named_sequence` is a spec:
    // MLIR's verifier says what IREE's (iree-opt) says about each sequence in it.
    let has_sequences = snapshot.root.name == crate::ir::names::MODULE
        && snapshot
            .root
            .body()
            .iter()
            .any(|op| op.name == crate::ir::names::NAMED_SEQUENCE);
    let structural_error = rule_problems.iter().any(|problem| {
        (problem.code == codes::NOT_A_LIBRARY && !has_sequences) || problem.code == codes::EMPTY
    });
    problems.extend(rule_problems);
    // MLIR's verifier last: its messages add what tunespec's rules do not know about (op
    // invariants of every dialect). Skipped for inputs that are not transform libraries at all
    // (no named sequences), where it would only repeat "not a library" in MLIR's words.
    if !structural_error {
        for problem in mlir.verify(container.as_ref().unwrap_or(&module)) {
            let problem = classify_mlir_problem(problem);
            if !problems.iter().any(|known| same_finding(known, &problem)) {
                problems.push(problem);
            }
        }
    }
    sort_problems(&mut problems);
    Verified {
        module: Some(module),
        snapshot: Some(snapshot),
        facts: Some(facts),
        problems,
        read_by_iree,
    }
}

/// Bytecode MLIR 22 could not parse: its parse errors become `bad-bytecode`, with why when a
/// newer MLIR wrote it (the file is probably fine; how to hand tunespec text instead). Apart
/// from `verify_bytes` because the help text is long and says nothing about verifying.
fn explain_bad_bytecode(bytes: &[u8], problems: &mut [Problem]) {
    let newer = bytecode_producer(bytes).filter(|producer| mlir_major(producer) > Some(22));
    for problem in problems.iter_mut() {
        if problem.code == codes::PARSE {
            problem.code = codes::BAD_BYTECODE;
            if let Some(producer) = &newer {
                problem.message = format!(
                    "bytecode written by {producer}, which MLIR 22 cannot read: {}",
                    problem.message
                );
                problem.help = Some(format!(
                    "the file is probably fine: {producer} (IREE 3.13's iree-opt and iree-compile are built on it) encodes some builtin attributes in ways MLIR 22 does not know (affine maps, for one); convert it to text with `iree-opt FILE -o FILE.mlir` and give tunespec the text; where a library is read from a payload (`extract`, `apply`), tunespec does that itself when it finds iree-opt (TUNESPEC_IREE_OPT, TUNESPEC_IREE_VENV or PATH)"
                ));
            } else {
                problem.help.get_or_insert_with(|| {
                    "the bytecode is truncated, corrupt, or from a newer MLIR than 22".into()
                });
            }
        }
    }
}

/// Where IREE 3.13 finds the entry point of a library whose top level has none: its
/// materialization looks `@__kernel_config` up at the top level first, then anywhere inside in
/// pre-order (`transform::detail::findTransformEntryPoint`), and applies it in the scope of its
/// own module; a container module of several specs thus applies the first one only. Returns the
/// snapshot id of that module and the warnings that say so, or None when the top level has an
/// entry point (by name or by IREE's marker), or nothing nested does, or the root is not a
/// transform library at all (IREE's loader rejects it first).
fn nested_entry_point(snapshot: &crate::ir::Module) -> Option<(u32, Vec<Problem>)> {
    use crate::ir::{names, Op};
    fn is_entry(op: &Op) -> bool {
        op.name == names::NAMED_SEQUENCE && op.sym_name() == Some(names::KERNEL_CONFIG)
    }
    fn walk<'a>(op: &'a Op, out: &mut Vec<(&'a Op, &'a Op)>) {
        for region in &op.regions {
            for block in &region.blocks {
                for inner in &block.ops {
                    if is_entry(inner) {
                        out.push((op, inner));
                    }
                    walk(inner, out);
                }
            }
        }
    }
    let root = &snapshot.root;
    if root.name != names::MODULE
        || !root.has_attr(names::WITH_NAMED_SEQUENCE)
        || root.body().iter().any(|op| {
            is_entry(op)
                || (op.name == names::NAMED_SEQUENCE && op.has_attr(names::ENTRYPOINT_ATTR))
        })
    {
        return None;
    }
    let mut found = Vec::new();
    for op in root.body() {
        walk(op, &mut found);
    }
    let (module, entry) = *found.first()?;
    if module.name != names::MODULE {
        return None;
    }
    let describe = |module: &Op| {
        module.sym_name().map_or_else(
            || "an unnamed nested module".to_string(),
            |name| format!("nested module @{name}"),
        )
    };
    let mut notes = vec![Problem::warning(
        codes::NESTED_ENTRYPOINT,
        format!(
            "the entry point is in {}: IREE 3.13 applies the first '@{}' it finds inside a library without one at the top level, so tunespec reads this file as that module alone",
            describe(module),
            names::KERNEL_CONFIG
        ),
        entry.loc.clone(),
    )
    .with_help("move the spec to the top level of its file, or keep one spec per file")];
    for (other, other_entry) in &found[1..] {
        notes.push(
            Problem::warning(
                codes::NESTED_ENTRYPOINT,
                format!(
                    "IREE 3.13 never runs this entry point (of {}): only the first nested one, in {}, applies",
                    describe(other),
                    describe(module)
                ),
                other_entry.loc.clone(),
            )
            .with_help("give each spec its own file and pass them all with --spec: tunespec links them, first match wins"),
        );
    }
    Some((module.id, notes))
}

/// Deterministic order: by location, then code, then message.
pub fn sort_problems(problems: &mut [Problem]) {
    problems.sort_by(|a, b| {
        (a.loc.as_ref(), a.code, &a.message).cmp(&(b.loc.as_ref(), b.code, &b.message))
    });
}

/// MLIR's verifier says what a tunespec rule already said: the same stable code (which MLIR's
/// messages only get when tunespec knows their meaning), at the same place, and tunespec's
/// finding is at least as severe. tunespec's version is kept (it says how to fix it). Any
/// weaker match would drop a real error: a tunespec *warning* of the same code about another
/// sequence once hid MLIR's error about a helper whose readonly argument its body consumes.
fn same_finding(known: &Problem, mlir: &Problem) -> bool {
    known.code == mlir.code
        && mlir.code != codes::PARSE
        && mlir.code != codes::MLIR_WARNING
        && known.loc.is_some()
        && known.loc == mlir.loc
        && at_least_as_severe(known, mlir)
}

/// `known` is an error wherever `other` is, a warning wherever `other` is a warning or a note.
fn at_least_as_severe(known: &Problem, other: &Problem) -> bool {
    // `Severity` orders Error < Warning < Note.
    known.severity <= other.severity
}
