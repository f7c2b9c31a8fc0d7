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

use std::collections::{BTreeMap, HashSet};

use crate::ir::{self, names, Attr, Loc, Op};
use crate::iree_attrs;
use crate::iree_ops;
use crate::mlir::{Mlir, OwnedOp, MAX_IR_DEPTH};
use crate::problem::{codes, Problem};

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
    /// Name of the entry point (normally `__kernel_config`).
    pub entry_point: Option<String>,
    /// Whether the entry point marks its argument `transform.consumed`.
    pub entry_consumed: bool,
}

/// The verification result for one input.
pub struct Verified<'c> {
    /// The parsed module when MLIR could parse it (it may still have problems).
    pub module: Option<OwnedOp<'c>>,
    pub snapshot: Option<ir::Module>,
    pub facts: Option<SpecFacts>,
    pub problems: Vec<Problem>,
}

impl Verified<'_> {
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

/// Verifies one input (text or bytecode). `source_name` is used in every location.
pub fn verify_bytes<'c>(mlir: &'c Mlir, bytes: &[u8], source_name: &str) -> Verified<'c> {
    let (mut problems, parseable) = byte_checks(bytes, source_name);
    if !parseable {
        return Verified {
            module: None,
            snapshot: None,
            facts: None,
            problems,
        };
    }
    let parsed = mlir.parse(bytes, source_name);
    problems.extend(parsed.problems.into_iter().map(classify_mlir_problem));
    let Some(module) = parsed.module else {
        if bytes.starts_with(BYTECODE_MAGIC) {
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
                            "the bytecode is truncated, corrupt, or from a newer MLIR than 22"
                                .into()
                        });
                    }
                }
            }
        }
        sort_problems(&mut problems);
        return Verified {
            module: None,
            snapshot: None,
            facts: None,
            problems,
        };
    };
    let snapshot = module.snapshot_structure();
    let (facts, mut rule_problems) = check_module(&snapshot);
    // A rule may restate a parse error (an IREE op in generic form): keep one.
    rule_problems.retain(|rule| {
        !problems
            .iter()
            .any(|known| known.code == rule.code && known.loc == rule.loc)
    });
    let structural_error = rule_problems
        .iter()
        .any(|problem| problem.code == codes::NOT_A_LIBRARY || problem.code == codes::EMPTY);
    problems.extend(rule_problems);
    // MLIR's verifier last: its messages add what tunespec's rules do not know about (op
    // invariants of every dialect). Skipped for inputs that are not transform libraries at all,
    // where it would only repeat "not a library" in MLIR's words.
    if !structural_error {
        for problem in mlir.verify(&module) {
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
    }
}

/// Deterministic order: by location, then code, then message.
pub fn sort_problems(problems: &mut [Problem]) {
    problems.sort_by(|a, b| {
        (a.loc.as_ref(), a.code, &a.message).cmp(&(b.loc.as_ref(), b.code, &b.message))
    });
}

/// MLIR's verifier says what a tunespec rule already said: the same stable code, which MLIR's
/// messages only get when tunespec knows their meaning. tunespec's version is kept (it points
/// at the definition at fault and says how to fix it).
fn same_finding(known: &Problem, mlir: &Problem) -> bool {
    known.code == mlir.code && mlir.code != codes::PARSE && mlir.code != codes::MLIR_WARNING
}

/// Byte-level checks. Returns the problems and whether the bytes are worth handing to MLIR.
pub fn byte_checks(bytes: &[u8], source_name: &str) -> (Vec<Problem>, bool) {
    let at = |line: u32, col: u32| {
        Some(Loc {
            file: source_name.to_string(),
            line,
            col,
        })
    };
    if bytes.len() > MAX_INPUT_BYTES {
        return (
            vec![Problem::error(
                codes::TOO_LARGE,
                format!(
                    "input is {} bytes; the limit is {} bytes",
                    bytes.len(),
                    MAX_INPUT_BYTES
                ),
                at(1, 1),
            )],
            false,
        );
    }
    if bytes.starts_with(BYTECODE_MAGIC) {
        return (Vec::new(), true);
    }
    let mut problems = Vec::new();
    if is_blank(bytes) {
        problems.push(
            Problem::error(
                codes::EMPTY,
                "file holds no operations: it is not a tuning spec",
                at(1, 1),
            )
            .with_help("a tuning spec is a `module attributes {transform.with_named_sequence}` with a `@__kernel_config` named sequence"),
        );
        return (problems, false);
    }
    if let Some(offset) = bytes.iter().position(|&byte| byte == 0) {
        let (line, col) = line_col(bytes, offset);
        problems.push(
            Problem::error(
                codes::NUL_BYTE,
                "file contains a NUL byte: it is binary, not MLIR text",
                at(line, col),
            )
            .with_help("MLIR bytecode starts with the magic `ML\\xEFR`; this file does not"),
        );
        return (problems, false);
    }
    if let Some((offset, depth)) = too_deep(bytes) {
        let (line, col) = line_col(bytes, offset);
        let message = match depth {
            Depth::Brackets => format!("nesting deeper than {MAX_NESTING} levels"),
            Depth::Operators => format!(
                "an expression chains more than {MAX_OPERATORS} operators (`+`, `-`, `*`, `floordiv`, `ceildiv`, `mod`)"
            ),
        };
        problems.push(
            Problem::error(codes::TOO_DEEP, message, at(line, col)).with_help(
                "MLIR's parser recurses once per level and would overflow its stack; no tuning spec or payload nests this deep",
            ),
        );
        return (problems, false);
    }
    if let Err(error) = std::str::from_utf8(bytes) {
        let (line, col) = line_col(bytes, error.valid_up_to());
        problems.push(
            Problem::error(
                codes::INVALID_UTF8,
                "file is not valid UTF-8",
                at(line, col),
            )
            .with_help("MLIR text is UTF-8; re-encode the file"),
        );
        // Still parse: the MLIR parser may find further problems, and their locations are
        // byte-based, so they stay meaningful.
    }
    (problems, true)
}

/// Which limit [`too_deep`] found exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Brackets `{ ( [ <` nested deeper than [`MAX_NESTING`].
    Brackets,
    /// An affine expression whose parse would recurse more than [`MAX_OPERATORS`] times: MLIR's
    /// affine parser recurses once per `+`/`-` in a sum, once per `*`/`floordiv`/`ceildiv`/`mod`
    /// in the current term, once per unary minus (`d0 + d0 + ...`, `- - d0`), and its simplifier
    /// walks the tree built so far at each step (quadratic time).
    Operators,
}

/// The offset where a recursion of MLIR's text parser would go deeper than its limit: bracket
/// nesting ([`MAX_NESTING`]), or an operator chain ([`MAX_OPERATORS`]; counted since the last
/// `,` or bracket, which is where an affine expression starts). Strings and `//` comments are
/// skipped.
fn too_deep(bytes: &[u8]) -> Option<(usize, Depth)> {
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.';
    let mut depth = 0usize;
    // Additive operators of the current expression, and multiplicative ones of its current term.
    let (mut sums, mut products) = (0usize, 0usize);
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        match byte {
            b'"' => {
                index += 1;
                while index < bytes.len() && bytes[index] != b'"' {
                    index += if bytes[index] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                while index < bytes.len() && bytes[index] != b'\n' {
                    index += 1;
                }
            }
            // `<` nests types and attributes (`tuple<tuple<...>>`); the `>` of `->` closes nothing.
            b'{' | b'(' | b'[' | b'<' => {
                depth += 1;
                (sums, products) = (0, 0);
                if depth > MAX_NESTING {
                    return Some((index, Depth::Brackets));
                }
            }
            b'-' if bytes.get(index + 1) == Some(&b'>') => index += 1,
            b'}' | b')' | b']' | b'>' => {
                depth = depth.saturating_sub(1);
                (sums, products) = (0, 0);
            }
            b',' => (sums, products) = (0, 0),
            b'+' | b'-' | b'*' => {
                if byte == b'*' {
                    products += 1;
                } else {
                    (sums, products) = (sums + 1, 0);
                }
                if sums + products > MAX_OPERATORS {
                    return Some((index, Depth::Operators));
                }
            }
            byte if is_word(byte) => {
                let start = index;
                while index + 1 < bytes.len() && is_word(bytes[index + 1]) {
                    index += 1;
                }
                if matches!(&bytes[start..=index], b"floordiv" | b"ceildiv" | b"mod") {
                    products += 1;
                    if sums + products > MAX_OPERATORS {
                        return Some((start, Depth::Operators));
                    }
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// True when the bytes hold nothing but whitespace and `//` comments.
fn is_blank(bytes: &[u8]) -> bool {
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b' ' | b'\t' | b'\r' | b'\n' => index += 1,
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                while index < bytes.len() && bytes[index] != b'\n' {
                    index += 1;
                }
            }
            _ => return false,
        }
    }
    true
}

/// 1-based line and byte column of `offset`.
pub fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&byte| byte == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |position| position + 1);
    (line as u32, (offset - line_start + 1) as u32)
}

/// Gives MLIR's diagnostics tunespec's stable code when tunespec knows what they mean.
fn classify_mlir_problem(mut problem: Problem) -> Problem {
    const KNOWN: &[(&str, &str, &str)] = &[
        (
            "unresolved matcher symbol",
            codes::UNKNOWN_SYMBOL,
            "define the matcher as a transform.named_sequence in this module",
        ),
        (
            "unresolved action symbol",
            codes::UNKNOWN_SYMBOL,
            "define the action as a transform.named_sequence in this module",
        ),
        (
            "does not expect matcher symbol to consume",
            codes::MATCHER_SIGNATURE,
            "a matcher only inspects the payload; mark its argument {transform.readonly}",
        ),
        (
            "is used more than once, only the first match will apply",
            codes::DUPLICATE_MATCHER,
            "only its first occurrence can ever fire; remove the others",
        ),
        (
            "mismatching number of matcher results and action arguments",
            codes::MATCHER_ACTION_MISMATCH,
            "a matcher must yield, in order, one value of each kind its action takes",
        ),
        (
            "does not reference a named transform sequence",
            codes::UNKNOWN_SYMBOL,
            "define the callee as a transform.named_sequence in this module",
        ),
        (
            "is consumed in the body but is not marked as such",
            codes::ENTRY_EFFECT,
            "mark the argument {transform.consumed}: transform.foreach_match consumes its root",
        ),
        (
            "is not consumed in the body but is marked as consumed",
            codes::ENTRY_EFFECT,
            "mark the argument {transform.readonly}",
        ),
    ];
    if let Some(name) = unknown_op_name(&problem.message).map(str::to_string) {
        if name.starts_with("transform.iree.") && !iree_ops::is_tuning_op(&name) {
            return not_a_tuning_op(&name, problem);
        }
    }
    for (needle, code, help) in KNOWN {
        if problem.message.contains(needle) {
            problem.code = code;
            if problem.help.is_none() {
                problem.help = Some((*help).to_string());
            }
            break;
        }
    }
    problem
}

/// The op name in MLIR's "this op does not exist" parse errors: `custom op 'X' is unknown`
/// (custom syntax) and `unregistered operation 'X' found in dialect ...` (generic syntax).
fn unknown_op_name(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("custom op '")
        .or_else(|| message.strip_prefix("unregistered operation '"))?;
    let end = rest.find('\'')?;
    let tail = &rest[end..];
    (tail.starts_with("' is unknown") || tail.starts_with("' found in dialect"))
        .then(|| &rest[..end])
}

/// A `transform.iree.*` op that MLIR could not parse and that is not one of IREE's tuning-spec
/// ops: an IREE codegen op (which IREE never runs in a tuning spec), a misspelt match op, or a
/// name IREE does not have. The location and severity stay MLIR's.
fn not_a_tuning_op(name: &str, mut problem: Problem) -> Problem {
    let supported = iree_ops::TUNING_OPS
        .iter()
        .map(|op| op.trim_start_matches("transform.iree.match."))
        .collect::<Vec<_>>()
        .join(", ");
    let nearest = |candidates: &[&'static str]| {
        candidates
            .iter()
            .map(|candidate| (edit_distance(name, candidate), *candidate))
            .filter(|(distance, candidate)| {
                *distance <= (name.len().max(candidate.len()) / 8).max(2)
            })
            .min()
            .map(|(_, candidate)| candidate)
    };
    problem.code = codes::IREE_NOT_TUNING_OP;
    if iree_ops::CODEGEN_OPS.contains(&name) {
        problem.message = format!(
            "`{name}` is an IREE codegen op, not a tuning-spec op: tunespec supports IREE's match ops only"
        );
        problem.help = Some(format!(
            "a tuning spec matches ops and annotates them with a config; IREE applies codegen ops itself. \
             The IREE ops a spec may use are transform.iree.match.{{{supported}}}"
        ));
    } else if let Some(suggestion) = nearest(iree_ops::TUNING_OPS) {
        problem.message = format!("`{name}` is not an IREE tuning-spec op");
        problem.help = Some(format!("did you mean `{suggestion}`?"));
    } else {
        problem.message = format!("`{name}` is not an op of IREE 3.13");
        problem.help = Some(match nearest(iree_ops::CODEGEN_OPS) {
            Some(suggestion) => format!(
                "did you mean `{suggestion}`? It is an IREE codegen op, not a tuning-spec op; \
                 the IREE ops a spec may use are transform.iree.match.{{{supported}}}"
            ),
            None => format!("the IREE ops a spec may use are transform.iree.match.{{{supported}}}"),
        });
    }
    problem
}

/// The kind of a transform value, from its type: what a matcher yields and an action takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    Op,
    Value,
    Param,
    Other,
}

pub fn handle_kind(ty: &str) -> HandleKind {
    if ty == "!transform.any_op" || ty.starts_with("!transform.op<") {
        HandleKind::Op
    } else if ty == "!transform.any_value" {
        HandleKind::Value
    } else if ty == "!transform.any_param" || ty.starts_with("!transform.param<") {
        HandleKind::Param
    } else {
        HandleKind::Other
    }
}

/// Splits a printed function type `(A, B) -> (C, D)` / `(A) -> C` into inputs and results.
pub fn split_function_type(ty: &str) -> Option<(Vec<String>, Vec<String>)> {
    let ty = ty.trim();
    let rest = ty.strip_prefix('(')?;
    let close = matching_paren(rest)?;
    let inputs = split_top_level(&rest[..close]);
    let after = rest[close + 1..].trim().strip_prefix("->")?.trim();
    let results = if let Some(inner) = after.strip_prefix('(') {
        let close = matching_paren(inner)?;
        split_top_level(&inner[..close])
    } else {
        split_top_level(after)
    };
    Some((inputs, results))
}

/// Index of the `)` closing a group whose `(` was just consumed.
fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_string = false;
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' if depth == 0 => return Some(index),
            ')' | '>' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_string = false;
    let mut start = 0;
    for (index, ch) in text.char_indices() {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..index].trim().to_string());
                start = index + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last.to_string());
    }
    parts
}

/// A named sequence's signature and argument effects, read from the snapshot.
#[derive(Clone, Debug)]
pub struct Sequence<'a> {
    pub op: &'a Op,
    pub name: &'a str,
    pub inputs: Vec<String>,
    pub results: Vec<String>,
    /// Per argument: `Some(true)` consumed, `Some(false)` readonly, `None` unmarked.
    pub arg_effects: Vec<Option<bool>>,
}

impl<'a> Sequence<'a> {
    pub fn from_op(op: &'a Op) -> Option<Self> {
        if op.name != names::NAMED_SEQUENCE {
            return None;
        }
        let name = op.sym_name()?;
        let (inputs, results) = match op.attr("function_type") {
            Some(Attr::Type(ty)) => split_function_type(ty).unwrap_or_default(),
            _ => (Vec::new(), Vec::new()),
        };
        let arg_attrs = op.attr("arg_attrs").and_then(Attr::as_array).unwrap_or(&[]);
        let arg_effects = (0..inputs.len())
            .map(|index| {
                let dict = arg_attrs.get(index)?;
                if dict.dict_get(names::CONSUMED).is_some() {
                    Some(true)
                } else if dict.dict_get(names::READONLY).is_some() {
                    Some(false)
                } else {
                    None
                }
            })
            .collect();
        Some(Sequence {
            op,
            name,
            inputs,
            results,
            arg_effects,
        })
    }
}

/// Ops a tuning spec may contain without warning: they match, compute parameters, annotate,
/// navigate handles, or call other sequences. Anything else rewrites the payload, which a spec
/// applied during config materialization must not do.
fn is_tuning_safe(name: &str) -> bool {
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
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || EXACT.contains(&name)
}

/// A top-level op that makes the file a payload rather than a library: a function with a body
/// or an executable. Other non-transform symbols (a `memref.global` table, a `func.func`
/// declaration) may legitimately sit in a transform library.
fn is_payload_op(op: &Op) -> bool {
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
    if let Some(payload_op) = body.iter().find(|op| is_payload_op(op)) {
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
    if !root.has_attr(names::WITH_NAMED_SEQUENCE) {
        problems.push(
            Problem::error(
                codes::NOT_A_LIBRARY,
                "Module without the 'transform.with_named_sequence' attribute is not a transform dialect library",
                root_loc.clone(),
            )
            .with_help("add `attributes {transform.with_named_sequence}` to the module"),
        );
        return (facts, problems);
    }

    let symbols = SymbolTable::new(root);
    let sequences: Vec<Sequence> = body.iter().filter_map(Sequence::from_op).collect();

    check_entrypoint_attrs(&sequences, &mut problems);
    let default_entry = root.has_attr(names::DEFAULT_ENTRYPOINT_ATTR);
    let entry = if default_entry {
        check_default_entrypoint(root, &sequences, &mut problems)
    } else {
        find_entry_point(root, &sequences, &mut problems)
    };
    if let Some(entry) = &entry {
        facts.entry_point = Some(entry.name.to_string());
        facts.entry_consumed = entry.arg_effects.first().copied().flatten() == Some(true);
        check_entry_effects(entry, &symbols, &mut problems);
    }
    facts.merge_ready =
        default_entry && !problems.iter().any(|p| p.code == codes::DEFAULT_ENTRYPOINT);

    let entry_ops: HashSet<u32> = entry
        .as_ref()
        .map(|entry| entry.op.body().iter().map(|op| op.id).collect())
        .unwrap_or_default();
    check_ops(root, &symbols, &entry_ops, &mut facts, &mut problems);
    (facts, problems)
}

/// Checks every op under `op` whose nearest enclosing module is the one `symbols` describes;
/// a nested module brings its own symbol table (MLIR resolves a symbol reference from the
/// nearest symbol table, so a spec nested by the linker's include path refers to its own
/// sequences).
fn check_ops(
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

/// Symbols of a module, including nested modules' symbols for `@mod::@name` references.
pub struct SymbolTable<'a> {
    top: BTreeMap<&'a str, &'a Op>,
    root: &'a Op,
}

impl<'a> SymbolTable<'a> {
    pub fn new(root: &'a Op) -> Self {
        let top = root
            .body()
            .iter()
            .filter_map(|op| op.sym_name().map(|name| (name, op)))
            .collect();
        SymbolTable { top, root }
    }

    /// Resolves `@a::@b::@c` from the module: `@a` among the module's symbols, `@b` inside it...
    pub fn resolve(&self, path: &[String]) -> Option<&'a Op> {
        let (first, rest) = path.split_first()?;
        let mut current = *self.top.get(first.as_str())?;
        for name in rest {
            current = current
                .body()
                .iter()
                .find(|op| op.sym_name() == Some(name.as_str()))?;
        }
        Some(current)
    }

    pub fn names(&self) -> impl Iterator<Item = &&'a str> {
        self.top.keys()
    }

    pub fn root(&self) -> &'a Op {
        self.root
    }

    /// The closest existing name, for "did you mean" help.
    pub fn nearest(&self, wanted: &str) -> Option<&'a str> {
        self.top
            .keys()
            .map(|name| (edit_distance(wanted, name), *name))
            .filter(|(distance, name)| *distance <= (wanted.len().max(name.len()) / 3).max(2))
            .min()
            .map(|(_, name)| name)
    }
}

/// Levenshtein distance (in chars; strsim); inputs are short symbol names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

fn format_ref(path: &[String]) -> String {
    path.iter()
        .map(|name| format!("@{name}"))
        .collect::<Vec<_>>()
        .join("::")
}

/// IREE's checks of `iree_codegen.tuning_spec_entrypoint`, on every sequence carrying it.
fn check_entrypoint_attrs(sequences: &[Sequence], problems: &mut Vec<Problem>) {
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
fn check_default_entrypoint<'a>(
    root: &'a Op,
    sequences: &[Sequence<'a>],
    problems: &mut Vec<Problem>,
) -> Option<Sequence<'a>> {
    const REQUIRED: &str = " (required by 'iree_codegen.tuning_spec_with_default_entrypoint')";
    let module_loc = root.loc.clone();
    let error = |message: String, loc: Option<Loc>| {
        Problem::error(
            codes::DEFAULT_ENTRYPOINT,
            format!("{message}{REQUIRED}"),
            loc,
        )
    };
    let Some(entry) = sequences
        .iter()
        .find(|sequence| sequence.name == names::KERNEL_CONFIG)
    else {
        problems.push(
            error(
                format!("Missing named sequence '{}'", names::KERNEL_CONFIG),
                module_loc,
            )
            .with_help(
                "add `transform.named_sequence @__kernel_config(...)` (a func.func does not count)",
            ),
        );
        return None;
    };
    let entry_loc = entry.op.loc.clone();
    if !entry.op.has_attr(names::ENTRYPOINT_ATTR) {
        problems.push(error(
            format!(
                "Missing attribute '{}' in named sequence '{}'",
                names::ENTRYPOINT_ATTR,
                names::KERNEL_CONFIG
            ),
            entry_loc.clone(),
        ));
    }
    let marked = sequences
        .iter()
        .filter(|sequence| sequence.op.has_attr(names::ENTRYPOINT_ATTR))
        .count();
    if marked > 1 {
        problems.push(error(
            format!(
                "Expected one named sequence with '{}', but found {marked}",
                names::ENTRYPOINT_ATTR
            ),
            module_loc,
        ));
    }
    let region_blocks = entry
        .op
        .regions
        .first()
        .map_or(0, |region| region.blocks.len());
    if region_blocks != 1 {
        problems.push(error(
            format!("'{}' must contain exactly one block", names::KERNEL_CONFIG),
            entry_loc.clone(),
        ));
        return Some(entry.clone());
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
        Some(first) if first.name == names::FOREACH_MATCH => {
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
    Some(entry.clone())
}

/// For specs without the default-entrypoint attribute: the entry point is `@__kernel_config`
/// (what IREE's materialization looks up), which IREE's linker finds by its marker attribute.
fn find_entry_point<'a>(
    root: &'a Op,
    sequences: &[Sequence<'a>],
    problems: &mut Vec<Problem>,
) -> Option<Sequence<'a>> {
    match sequences
        .iter()
        .find(|sequence| sequence.name == names::KERNEL_CONFIG)
    {
        Some(entry) => {
            if !entry.op.has_attr(names::ENTRYPOINT_ATTR) {
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
                    .with_help("IREE's linker only links entry points that carry the marker; add `attributes {iree_codegen.tuning_spec_entrypoint}`"),
                );
            }
            Some(entry.clone())
        }
        None => {
            let marked: Vec<&Sequence> = sequences
                .iter()
                .filter(|sequence| sequence.op.has_attr(names::ENTRYPOINT_ATTR))
                .collect();
            if marked.is_empty() {
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
                None
            } else {
                Some(marked[0].clone())
            }
        }
    }
}

/// The entry point's readonly/consumed marking must agree with what its body does with the
/// argument: `foreach_match` consumes its root (MLIR 22), an include consumes what its callee
/// consumes, and other tuning-safe ops only read.
fn check_entry_effects(entry: &Sequence, symbols: &SymbolTable, problems: &mut Vec<Problem>) {
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
            (None, _) => problems.push(
                Problem::error(
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

fn op_consumes_operand(op: &Op, position: usize, symbols: &SymbolTable) -> bool {
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

/// Every matcher and action exists and is a named sequence, matchers read their argument only,
/// each matcher yields what its action takes, and no pair repeats. Returns the pair count.
fn check_foreach_match(op: &Op, symbols: &SymbolTable, problems: &mut Vec<Problem>) -> usize {
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
                        .with_help("a matcher only inspects the payload; mark its argument {transform.readonly}"),
                    );
                }
            }
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
                .with_help(
                    "a matcher must yield, in order, one value of each kind its action takes",
                );
                if let Some(matcher_loc) = &matcher.op.loc {
                    problem = problem.with_related(matcher_loc.clone(), "matcher defined here");
                }
                if let Some(action_loc) = &action.op.loc {
                    problem = problem.with_related(action_loc.clone(), "action defined here");
                }
                problems.push(problem);
            }
        }
    }
    matchers.len().min(actions.len())
}

fn resolve_sequence<'a>(
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

fn check_include(op: &Op, symbols: &SymbolTable, problems: &mut Vec<Problem>) {
    if let Some(path) = op.attr("target").and_then(Attr::as_symbol_ref) {
        resolve_sequence(symbols, path, "include target", &op.loc, problems);
    }
}

/// Lints for specs that IREE will run, beyond what IREE checks (all warnings): matchers that can
/// never fire in IREE's pipeline because they name ops IREE has generalized, tile lists longer
/// than the loop count the matcher pins, and workgroup sizes that are not whole subgroups.
///
/// Separate from [`check_module`] because they are about IREE's pipeline, not about the spec
/// being a valid library: `tunespec verify` runs them; `link` and `apply`, which also run on
/// specs made for upstream MLIR, do not.
///
/// `texts` supplies the attribute values a structure snapshot leaves unprinted: from the spec
/// text ([`iree_attrs::AttrTexts::from_text`]) or from a fully printed snapshot.
pub fn check_iree_pipeline(
    module: &ir::Module,
    texts: &iree_attrs::AttrTexts,
    file: &str,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    module.root.walk(&mut |op| {
        if op.name == "transform.match.operation_name" {
            check_operation_name(op, &mut problems);
        }
    });
    let sites = texts.sites(file);
    if sites.is_empty() {
        module.root.walk(&mut |op| {
            for (_, attr) in &op.attrs {
                iree_attrs::printed_iree_attrs(attr, &mut |printed| {
                    check_workgroup_size(&op.loc, printed, &mut problems);
                });
            }
        });
    } else {
        for (loc, text) in &sites {
            check_workgroup_size(&Some(loc.clone()), text, &mut problems);
        }
    }
    if module.root.name == names::MODULE {
        check_tile_lists(&module.root, texts, &mut problems);
    }
    let mut seen = HashSet::new();
    problems.retain(|problem| seen.insert((problem.loc.clone(), problem.message.clone())));
    sort_problems(&mut problems);
    problems
}

/// `transform.match.operation_name` whose every name is one IREE has generalized (or that no
/// longer exists): the matcher fails on every op of an IREE dispatch.
fn check_operation_name(op: &Op, problems: &mut Vec<Problem>) {
    let Some(listed) = op.attr("op_names").and_then(Attr::as_array) else {
        return;
    };
    let listed: Vec<&str> = listed.iter().filter_map(Attr::as_str).collect();
    if listed.is_empty()
        || listed
            .iter()
            .any(|name| iree_ops::survives_dispatch_formation(name))
    {
        return;
    }
    let quoted = listed
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let removed: Vec<&str> = listed
        .iter()
        .copied()
        .filter(|name| iree_ops::REMOVED_NAMED_OPS.contains(name))
        .collect();
    let reason = if removed.len() == listed.len() {
        "no such op exists in MLIR 22 or IREE 3.13".to_string()
    } else if removed.is_empty() {
        "IREE turns named ops like these into `linalg.generic` when it forms dispatches, before it applies tuning specs".to_string()
    } else {
        format!(
            "IREE turns named ops into `linalg.generic` when it forms dispatches, before it applies tuning specs, and {} no longer exist(s)",
            removed
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let contraction = listed.iter().any(|name| {
        name.contains("matmul")
            || name.contains("matvec")
            || name.contains("vecmat")
            || *name == "linalg.dot"
    });
    let convolution = listed.iter().any(|name| name.contains("conv_"));
    let help = if contraction {
        "match IREE's form, which sees named and generic contractions alike: \
         `%batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32 : !transform.any_op -> !transform.param<i64>` \
         (your element types), then `transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>` for each of %batch, %m, %n, %k"
    } else if convolution {
        "match IREE's form, which sees named and generic convolutions alike: \
         `transform.iree.match.convolution %op, lhs_type = ..., rhs_type = ..., output_type = ... : !transform.any_op -> !transform.param<i64>` \
         and `transform.iree.match.dims_equal` on the dimension groups it yields"
    } else {
        "match the `linalg.generic` IREE sees: `transform.match.operation_name %op [\"linalg.generic\"]` \
         and its structure (`transform.match.structured`: rank, dims, iterator kinds)"
    };
    problems.push(
        Problem::warning(
            codes::NAMED_OP_MATCHER,
            format!("this matcher never fires in IREE: it accepts only {quoted}, and {reason}"),
            op.loc.clone(),
        )
        .with_help(help),
    );
}

/// `workgroup_size` whose thread count is not a whole number of subgroups.
fn check_workgroup_size(loc: &Option<Loc>, printed: &str, problems: &mut Vec<Problem>) {
    for (sizes, subgroup) in iree_attrs::workgroup_sizes(printed) {
        let threads: i64 = sizes.iter().product();
        if subgroup <= 0 || threads % subgroup == 0 {
            continue;
        }
        let listed = sizes
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        problems.push(
            Problem::warning(
                codes::IREE_CONFIG,
                format!(
                    "workgroup_size = [{listed}] is {threads} threads, not a multiple of subgroup_size = {subgroup}"
                ),
                loc.clone(),
            )
            .with_help(format!(
                "IREE runs a workgroup as whole subgroups of {subgroup} threads; make the product of workgroup_size a multiple of {subgroup}"
            )),
        );
    }
}

/// What a matcher's value stands for, as far as the tile-list lint follows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known<'a> {
    Root,
    Int(i64),
    /// `merge_handles` of this many single integers.
    Ints(usize),
    Rank,
    AllDims,
    /// A result group of `transform.iree.match.contraction` on the root (batch, m, n, k).
    ContractionGroup(usize),
    /// A `transform.param.constant` holding an attribute (a config).
    Config(&'a Op),
}

/// What the tile-list lint learned about one matcher.
struct MatcherFacts<'a> {
    /// The loop count of every op the matcher accepts, and the op that pins it.
    loops: Option<(usize, &'a Op)>,
    /// Per yielded value: what it is.
    yielded: Vec<Option<Known<'a>>>,
}

/// Tile lists longer than the loop count that the matcher pins (for every matcher -> action
/// pair of every `foreach_match`, module by module).
fn check_tile_lists(module: &Op, texts: &iree_attrs::AttrTexts, problems: &mut Vec<Problem>) {
    let symbols = SymbolTable::new(module);
    let mut foreach_ops = Vec::new();
    collect_in_module(module, &mut foreach_ops);
    for foreach in foreach_ops {
        let matchers = foreach
            .attr("matchers")
            .and_then(Attr::as_array)
            .unwrap_or(&[]);
        let actions = foreach
            .attr("actions")
            .and_then(Attr::as_array)
            .unwrap_or(&[]);
        for (matcher, action) in matchers.iter().zip(actions) {
            let resolve = |attr: &Attr| {
                attr.as_symbol_ref()
                    .and_then(|path| symbols.resolve(path))
                    .and_then(Sequence::from_op)
            };
            let (Some(matcher), Some(action)) = (resolve(matcher), resolve(action)) else {
                continue;
            };
            let facts = matcher_facts(matcher.op, texts);
            let Some((loops, pinned_by)) = facts.loops else {
                continue;
            };
            for config in configs_applied(&facts, action.op) {
                check_config_tiles(config, texts, loops, pinned_by, problems);
            }
        }
    }
    for nested in module.body().iter().filter(|op| op.name == names::MODULE) {
        check_tile_lists(nested, texts, problems);
    }
}

/// The `foreach_match` ops of a module, not of its nested modules.
fn collect_in_module<'a>(op: &'a Op, found: &mut Vec<&'a Op>) {
    for region in &op.regions {
        for block in &region.blocks {
            for inner in &block.ops {
                if inner.name == names::FOREACH_MATCH {
                    found.push(inner);
                }
                if inner.name != names::MODULE {
                    collect_in_module(inner, found);
                }
            }
        }
    }
}

/// Follows a matcher's values: which op it pins the loop count of, and what it yields.
fn matcher_facts<'a>(matcher: &'a Op, texts: &iree_attrs::AttrTexts) -> MatcherFacts<'a> {
    let mut facts = MatcherFacts {
        loops: None,
        yielded: Vec::new(),
    };
    let Some(block) = matcher.entry_block() else {
        return facts;
    };
    let mut known: std::collections::HashMap<ir::ValueRef, Known> = Default::default();
    known.insert(
        ir::ValueRef::BlockArg {
            block: block.id,
            index: 0,
        },
        Known::Root,
    );
    let mut pins: Vec<(usize, &Op)> = Vec::new();
    let mut group_dims: [Option<usize>; 4] = [None; 4];
    let mut contraction: Option<&Op> = None;
    for op in &block.ops {
        let operand = |index: usize| op.operands.get(index).and_then(|v| known.get(v)).copied();
        let result = |index: u32| ir::ValueRef::Result { op: op.id, index };
        match op.name.as_str() {
            "transform.param.constant" => match op.attr("value") {
                Some(Attr::Int(value)) => {
                    known.insert(result(0), Known::Int(*value));
                }
                Some(_) => {
                    known.insert(result(0), Known::Config(op));
                }
                None => {}
            },
            "transform.merge_handles" if !op.has_attr("deduplicate") => {
                let all_ints = (0..op.operands.len())
                    .all(|index| matches!(operand(index), Some(Known::Int(_))));
                if all_ints {
                    known.insert(result(0), Known::Ints(op.operands.len()));
                }
            }
            "transform.match.structured" if operand(0) == Some(Known::Root) => {
                for (index, value) in structured_yields(op).into_iter().enumerate() {
                    if let Some(value) = value {
                        known.insert(result(index as u32), value);
                    }
                }
            }
            "transform.match.param.cmpi" if op.attr("predicate") == Some(&Attr::Int(0)) => {
                match (operand(0), operand(1)) {
                    (Some(Known::Rank), Some(Known::Int(n)))
                    | (Some(Known::Int(n)), Some(Known::Rank))
                        if n >= 0 =>
                    {
                        pins.push((n as usize, op));
                    }
                    (Some(Known::AllDims), Some(Known::Ints(count)))
                    | (Some(Known::Ints(count)), Some(Known::AllDims)) => pins.push((count, op)),
                    (Some(Known::AllDims), Some(Known::Int(_)))
                    | (Some(Known::Int(_)), Some(Known::AllDims)) => pins.push((1, op)),
                    _ => {}
                }
            }
            "transform.iree.match.contraction" if operand(0) == Some(Known::Root) => {
                contraction = Some(op);
                if let Some(count) = op
                    .has_attr("indexing_maps")
                    .then(|| texts.get(op, "indexing_maps"))
                    .flatten()
                    .and_then(|maps| affine_map_dims(&maps))
                {
                    pins.push((count, op));
                }
                for group in 0..4 {
                    known.insert(result(group as u32), Known::ContractionGroup(group));
                }
            }
            "transform.iree.match.dims_equal" => {
                if let (Some(Known::ContractionGroup(group)), Some(Attr::I64Array(values))) =
                    (operand(0), op.attr("expected_values"))
                {
                    group_dims[group] = Some(values.len());
                }
            }
            name if name == names::YIELD => {
                facts.yielded = op.operands.iter().map(|v| known.get(v).copied()).collect();
            }
            _ => {}
        }
    }
    if let (Some(op), [Some(batch), Some(m), Some(n), Some(k)]) = (contraction, group_dims) {
        pins.push((batch + m + n + k, op));
    }
    // Pins that disagree make a matcher that accepts nothing: no loop count to compare with.
    if let Some(&(first, op)) = pins.first() {
        if pins.iter().all(|&(count, _)| count == first) {
            facts.loops = Some((first, op));
        }
    }
    facts
}

/// What a `transform.match.structured` body yields, for the values the lint follows.
fn structured_yields(op: &Op) -> Vec<Option<Known<'_>>> {
    let Some(block) = op.entry_block() else {
        return Vec::new();
    };
    let handle = ir::ValueRef::BlockArg {
        block: block.id,
        index: 0,
    };
    let mut known: std::collections::HashMap<ir::ValueRef, Known> = Default::default();
    for inner in &block.ops {
        let on_handle = inner.operands.first() == Some(&handle);
        let result = ir::ValueRef::Result {
            op: inner.id,
            index: 0,
        };
        match inner.name.as_str() {
            "transform.match.structured.rank" if on_handle => {
                known.insert(result, Known::Rank);
            }
            "transform.match.structured.dim"
                if on_handle
                    && inner.has_attr("is_all")
                    && !inner.has_attr("is_inverted")
                    && !inner.has_attr("parallel")
                    && !inner.has_attr("reduction") =>
            {
                known.insert(result, Known::AllDims);
            }
            "transform.match.structured.yield" => {
                return inner
                    .operands
                    .iter()
                    .map(|v| known.get(v).copied())
                    .collect();
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The number of dimensions of the first `affine_map<(d0, d1, d2)[s0] -> (...)>` in `text`.
fn affine_map_dims(text: &str) -> Option<usize> {
    let at = text.find("affine_map<(")?;
    let dims = &text[at + "affine_map<(".len()..];
    let dims = &dims[..dims.find(')')?];
    Some(dims.split(',').filter(|d| !d.trim().is_empty()).count())
}

/// The config constants that end up annotating the matched op: yielded by the matcher next to
/// the op and annotated by the action, or defined in the action and annotated there.
fn configs_applied<'a>(facts: &MatcherFacts<'a>, action: &'a Op) -> Vec<&'a Op> {
    let mut configs = Vec::new();
    let Some(block) = action.entry_block() else {
        return configs;
    };
    let arg = |value: &ir::ValueRef| match value {
        ir::ValueRef::BlockArg { block: id, index } if *id == block.id => {
            facts.yielded.get(*index as usize).copied().flatten()
        }
        _ => None,
    };
    let local: Vec<&Op> = block
        .ops
        .iter()
        .filter(|op| op.name == "transform.param.constant")
        .collect();
    for op in &block.ops {
        if op.name != "transform.annotate" || op.operands.len() != 2 {
            continue;
        }
        if arg(&op.operands[0]) != Some(Known::Root) {
            continue;
        }
        match (arg(&op.operands[1]), &op.operands[1]) {
            (Some(Known::Config(config)), _) => configs.push(config),
            (None, ir::ValueRef::Result { op: id, .. }) => {
                if let Some(config) = local.iter().find(|candidate| candidate.id == *id) {
                    configs.push(config);
                }
            }
            _ => {}
        }
    }
    configs
}

fn check_config_tiles(
    config: &Op,
    texts: &iree_attrs::AttrTexts,
    loops: usize,
    pinned_by: &Op,
    problems: &mut Vec<Problem>,
) {
    let Some(value) = texts.get(config, "value") else {
        return;
    };
    {
        for list in iree_attrs::tile_lists(&value) {
            if list.len <= loops {
                continue;
            }
            let mut problem = Problem::warning(
                codes::IREE_CONFIG,
                format!(
                    "`{}` has {} tile sizes but the op this matcher accepts has {loops} loops",
                    list.key, list.len
                ),
                config.loc.clone(),
            )
            .with_help(format!(
                "entry i of a tile list tiles loop i; iree-compile 3.13 ignores the entries past the op's {loops} loops, so a longer list was likely written for another op: give at most {loops}"
            ));
            if let Some(loc) = &pinned_by.loc {
                problem = problem.with_related(loc.clone(), "the matcher pins the loop count here");
            }
            problems.push(problem);
        }
    }
}
