//! The rules a tuning spec must follow, and the one function that checks a file against them.
//!
//! Shared verbatim with `build.rs` (through `#[path]`), so the build-time check and
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
            for problem in problems.iter_mut() {
                if problem.code == codes::PARSE {
                    problem.code = codes::TRUNCATED_BYTECODE;
                    problem.help.get_or_insert_with(|| {
                        "the bytecode is truncated, corrupt, or from a newer MLIR than 22".into()
                    });
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
    let (facts, rule_problems) = check_module(&snapshot);
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
            codes::DUPLICATE_PAIR,
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

/// Levenshtein distance; inputs are short symbol names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            current[j + 1] = (previous[j] + usize::from(ca != *cb))
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
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
                    codes::DUPLICATE_PAIR,
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
