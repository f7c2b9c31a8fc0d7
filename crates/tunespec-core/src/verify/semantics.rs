//! A tuning spec sets configs and nothing else (`tunespec::verify::changes-semantics`).
//!
//! Why a dataflow rule and not an op list: `transform.annotate` is the op every tuning spec is
//! made of, and the same op that sets `compilation_info` on a matmul can set an
//! `arith.constant`'s `value` (`tests/fixtures/bench/wrong_init.mlir`: every output off by one).
//! What decides is what is written and where. So the rule follows handles from every entry point
//! IREE runs, through each `foreach_match` pair (the matcher's first argument is the op being
//! matched; its `transform.yield` operand #i is the action's argument #i), `include`,
//! `collect_matching` and region ops, and judges each write:
//! - in an action: a config attribute IREE reads ([`iree_ops::CONFIG_ATTRS`]) on the matched op is
//!   the spec's job; any other name, or any write on another op (a handle reached by navigation:
//!   producers, consumers, parents, operands, `structured.match`, a merge with another op) is not;
//! - in a matcher: no write at all (it only reads);
//! - anywhere reachable: a transform op that is not read-only (`rules::is_tuning_safe`) rewrites
//!   the payload.
//!
//! Precise, not paranoid: unreachable sequences are left to the `unsafe-op` warning, payload ops
//! inside match regions are patterns (never run), and a spec that must do more opts in per
//! sequence with [`REWRITES_ATTR`]: what it reaches is then reported as a note that names the
//! reason; the attribute travels with the sequence into linked libraries, so `attach` and
//! `apply` read the same opt-in back.

use std::collections::HashMap;

use super::*;
use crate::ir::{Block, ValueRef};

/// The attribute on a named sequence that opts it (and what it reaches) in to changing what the
/// program computes; its value is the reason, a string, shown with every finding it allows.
pub const REWRITES_ATTR: &str = "tunespec.rewrites";

/// How deep `include`s are followed; deeper chains are not analyzed (real specs nest two or
/// three; the limit keeps recursion bounded on hostile input).
const MAX_INCLUDE_DEPTH: usize = 64;

/// What a transform handle refers to, as far as the rule needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Handle {
    /// The op the pair's matcher is matching; its possible names when a match op said them.
    Matched(Vec<String>),
    /// Some other op (navigated to, the variant, a merge); its possible names when known.
    Other(Vec<String>),
    /// A parameter or a value handle: nothing to annotate.
    NotOp,
}

impl Handle {
    fn names(&self) -> &[String] {
        match self {
            Handle::Matched(names) | Handle::Other(names) => names,
            Handle::NotOp => &[],
        }
    }
    fn with_names(&self, names: Vec<String>) -> Handle {
        match self {
            Handle::Matched(_) => Handle::Matched(names),
            Handle::Other(_) => Handle::Other(names),
            Handle::NotOp => Handle::NotOp,
        }
    }
    /// Two handles merged (results of several yields, `merge_handles`): matched only when both are.
    fn join(&self, other: &Handle) -> Handle {
        let names = if self.names() == other.names() {
            self.names().to_vec()
        } else {
            Vec::new()
        };
        match (self, other) {
            (Handle::Matched(_), Handle::Matched(_)) => Handle::Matched(names),
            (Handle::NotOp, Handle::NotOp) => Handle::NotOp,
            _ => Handle::Other(names),
        }
    }
}

/// Which kind of sequence is running: what it may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Role {
    Entry,
    Matcher,
    Action,
}

impl Role {
    fn word(self) -> &'static str {
        match self {
            Role::Entry => "the entry point",
            Role::Matcher => "this matcher",
            Role::Action => "this action",
        }
    }
}

/// The context one block runs in: its role, the module its symbols resolve in, and the reason
/// of an opt-in that covers it.
#[derive(Clone)]
struct Ctx<'a> {
    role: Role,
    module: &'a Op,
    opted: Option<String>,
}

/// Checks what every entry point reaches. `entries` are the spec's entry points (in `root`);
/// returns the findings, errors unless an opt-in covers them.
pub(super) fn check_semantics(root: &Op, entries: &[Sequence]) -> Vec<Problem> {
    let mut analysis = Analysis {
        module_of: HashMap::new(),
        tables: HashMap::new(),
        memo: HashMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    analysis.index_modules(root);
    for entry in entries {
        let args = vec![Handle::Other(Vec::new()); entry.inputs.len()];
        analysis.sequence(entry.op, args, Role::Entry, None);
    }
    analysis.found
}

/// A sequence analyzed once per (sequence id, arguments, role, opt-in reason).
type MemoKey = (u32, Vec<Handle>, Role, Option<String>);

struct Analysis<'a> {
    /// Each named sequence's enclosing module (where its symbol references resolve).
    module_of: HashMap<u32, &'a Op>,
    /// Symbol tables by module id.
    tables: HashMap<u32, SymbolTable<'a>>,
    /// Results of a sequence already analyzed with these arguments, role and opt-in.
    memo: HashMap<MemoKey, Vec<Handle>>,
    /// The sequences being analyzed (include cycles stop here).
    stack: Vec<u32>,
    found: Vec<Problem>,
}

impl<'a> Analysis<'a> {
    fn index_modules(&mut self, module: &'a Op) {
        self.tables.insert(module.id, SymbolTable::new(module));
        for op in module.body() {
            if op.name == names::NAMED_SEQUENCE {
                self.module_of.insert(op.id, module);
            } else if op.name == names::MODULE {
                self.index_modules(op);
            }
        }
    }

    fn resolve(&self, module: &Op, path: &[String]) -> Option<&'a Op> {
        let op = self.tables.get(&module.id)?.resolve(path)?;
        (op.name == names::NAMED_SEQUENCE).then_some(op)
    }

    /// Runs sequence `seq` with `args`; returns what it yields (handles other than the matched
    /// op when it cannot be followed).
    fn sequence(
        &mut self,
        seq: &'a Op,
        args: Vec<Handle>,
        role: Role,
        opted: Option<String>,
    ) -> Vec<Handle> {
        let opted = opted.or_else(|| seq.attr(REWRITES_ATTR).map(reason));
        let results = Sequence::from_op(seq).map_or(0, |s| s.results.len());
        let key = (seq.id, args, role, opted);
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let unknown = vec![Handle::Other(Vec::new()); results];
        let (Some(module), Some(block)) = (self.module_of.get(&seq.id).copied(), seq.entry_block())
        else {
            return unknown;
        };
        if self.stack.contains(&seq.id) || self.stack.len() >= MAX_INCLUDE_DEPTH {
            return unknown;
        }
        self.stack.push(seq.id);
        let (_, args, role, opted) = &key;
        let mut env: HashMap<ValueRef, Handle> = HashMap::new();
        bind_args(&mut env, block, args);
        let ctx = Ctx {
            role: *role,
            module,
            opted: opted.clone(),
        };
        let mut yielded = self.block(block, &mut env, &ctx);
        yielded.resize(results, Handle::Other(Vec::new()));
        self.stack.pop();
        self.memo.insert(key, yielded.clone());
        yielded
    }

    /// Runs the transform ops of `block` in order; returns the handles its terminator yields.
    fn block(
        &mut self,
        block: &'a Block,
        env: &mut HashMap<ValueRef, Handle>,
        ctx: &Ctx<'a>,
    ) -> Vec<Handle> {
        let mut yielded = Vec::new();
        for op in &block.ops {
            // Payload ops inside a match region (`cast_compatible_dag_from_root`) are a pattern.
            if !op.name.starts_with("transform.") {
                continue;
            }
            let results = self.op(op, env, ctx);
            for (index, handle) in results.into_iter().enumerate() {
                env.insert(result_ref(op, index), handle);
            }
            if op.name.ends_with("yield") {
                yielded = op.operands.iter().map(|v| lookup(env, v)).collect();
            }
        }
        yielded
    }

    /// Judges one op; returns the handles of its results.
    fn op(
        &mut self,
        op: &'a Op,
        env: &mut HashMap<ValueRef, Handle>,
        ctx: &Ctx<'a>,
    ) -> Vec<Handle> {
        let operands: Vec<Handle> = op.operands.iter().map(|v| lookup(env, v)).collect();
        match op.name.as_str() {
            "transform.annotate" => {
                self.annotate(op, &operands, ctx);
                Vec::new()
            }
            "transform.match.operation_name" => {
                let names = strings(op.attr("op_names"));
                if let (Some(value), Some(handle)) = (op.operands.first(), operands.first()) {
                    env.insert(*value, handle.with_names(names));
                }
                Vec::new()
            }
            names::INCLUDE => {
                let Some(target) = op.attr("target").and_then(Attr::as_symbol_ref) else {
                    return by_type(op);
                };
                match self.resolve(ctx.module, target) {
                    Some(seq) => self.sequence(seq, operands, ctx.role, ctx.opted.clone()),
                    None => by_type(op),
                }
            }
            names::FOREACH_MATCH => {
                self.foreach_match(op, &operands, ctx);
                by_type(op)
            }
            "transform.collect_matching" => {
                let matcher = op.attr("matcher").and_then(Attr::as_symbol_ref);
                match matcher.and_then(|path| self.resolve(ctx.module, path)) {
                    Some(seq) => {
                        let args = matcher_args(seq, &[]);
                        self.sequence(seq, args, Role::Matcher, ctx.opted.clone())
                    }
                    None => by_type(op),
                }
            }
            "transform.cast" | "transform.select" => operands.into_iter().take(1).collect(),
            "transform.split_handle" => {
                let first = operands.first().cloned().unwrap_or(Handle::NotOp);
                vec![first; op.result_types.len()]
            }
            "transform.merge_handles" => {
                let merged = operands
                    .split_first()
                    .map(|(first, rest)| rest.iter().fold(first.clone(), |acc, h| acc.join(h)));
                vec![merged.unwrap_or(Handle::Other(Vec::new()))]
            }
            "transform.structured.match" => {
                let names = strings(op.attr("ops"));
                vec![Handle::Other(names); op.result_types.len()]
            }
            name if !is_tuning_safe(name) && !name.starts_with("transform.iree.") => {
                let message = format!(
                    "{} runs `{name}`, which rewrites the payload IR: the program would compute something else",
                    ctx.role.word()
                );
                self.report(op, message, ctx);
                by_type(op)
            }
            _ if op.regions.is_empty() => by_type(op),
            _ => self.region_op(op, &operands, env, ctx),
        }
    }

    /// A read-only op with regions (`sequence`, `alternatives`, `foreach`, `match.structured`):
    /// each region's entry arguments are the op's operands in order, and its results what the
    /// regions yield.
    fn region_op(
        &mut self,
        op: &'a Op,
        operands: &[Handle],
        env: &mut HashMap<ValueRef, Handle>,
        ctx: &Ctx<'a>,
    ) -> Vec<Handle> {
        let mut results: Option<Vec<Handle>> = None;
        for region in &op.regions {
            let Some(entry) = region.blocks.first() else {
                continue;
            };
            let args: Vec<Handle> = (0..entry.arg_types.len())
                .map(|index| match operands.get(index) {
                    Some(handle) => handle.clone(),
                    None => kind_of(&entry.arg_types[index]),
                })
                .collect();
            bind_args(env, entry, &args);
            for block in &region.blocks {
                let yielded = self.block(block, env, ctx);
                if yielded.len() == op.result_types.len() {
                    results = Some(match results {
                        None => yielded,
                        Some(known) => known.iter().zip(&yielded).map(|(a, b)| a.join(b)).collect(),
                    });
                }
            }
        }
        results.unwrap_or_else(|| by_type(op))
    }

    /// Every pair of a `foreach_match`: the matcher gets the matched op first (then the
    /// forwarded operands), the action what the matcher yields.
    fn foreach_match(&mut self, op: &'a Op, operands: &[Handle], ctx: &Ctx<'a>) {
        let matchers = op.attr("matchers").and_then(Attr::as_array).unwrap_or(&[]);
        let actions = op.attr("actions").and_then(Attr::as_array).unwrap_or(&[]);
        let forwarded = operands.get(1..).unwrap_or(&[]);
        for (matcher, action) in matchers.iter().zip(actions) {
            let matcher = matcher
                .as_symbol_ref()
                .and_then(|p| self.resolve(ctx.module, p));
            let action = action
                .as_symbol_ref()
                .and_then(|p| self.resolve(ctx.module, p));
            let Some(matcher) = matcher else { continue };
            let args = matcher_args(matcher, forwarded);
            let yielded = self.sequence(matcher, args, Role::Matcher, ctx.opted.clone());
            if let Some(action) = action {
                self.sequence(action, yielded, Role::Action, ctx.opted.clone());
            }
        }
    }

    /// Judges a `transform.annotate`: only an action may write, only a config attribute, only
    /// on the matched op.
    fn annotate(&mut self, op: &Op, operands: &[Handle], ctx: &Ctx<'a>) {
        let Some(name) = op.attr("name").and_then(Attr::as_str) else {
            return;
        };
        let target = operands
            .first()
            .cloned()
            .unwrap_or(Handle::Other(Vec::new()));
        let config = iree_ops::is_config_attr(name);
        let named = describe(target.names());
        let message = match (&target, ctx.role) {
            // An entry point may configure what it collected with a matcher (the legacy form).
            (Handle::Matched(_), Role::Action | Role::Entry) if config => return,
            (_, Role::Matcher) => format!(
                "this matcher writes `{name}` on {}: a matcher only reads the payload",
                named.unwrap_or_else(|| "the op it matches".to_string())
            ),
            (Handle::Matched(_), _) => format!(
                "{} changes {}'s `{name}`: the program would compute something else",
                ctx.role.word(),
                named.unwrap_or_else(|| "the matched op".to_string())
            ),
            (_, role) if config => format!(
                "{} sets `{name}` on another op than the matched one{}: a tuning spec configures only the op its matcher yields",
                role.word(),
                named.map(|n| format!(" ({n})")).unwrap_or_default()
            ),
            (_, role) => match named {
                Some(named) => format!(
                    "{} changes {named}'s `{name}`: the program would compute something else",
                    role.word()
                ),
                None => format!(
                    "{} changes `{name}` on another op than the matched one: the program would compute something else",
                    role.word()
                ),
            },
        };
        self.report(op, message, ctx);
    }

    fn report(&mut self, op: &Op, message: String, ctx: &Ctx<'a>) {
        let problem = match &ctx.opted {
            Some(why) => Problem::note(
                codes::CHANGES_SEMANTICS,
                format!("{message} (allowed: the spec opts in with `{REWRITES_ATTR}`: {why})"),
                op.loc.clone(),
            ),
            None => Problem::error(codes::CHANGES_SEMANTICS, message, op.loc.clone()).with_help(format!(
                "a tuning spec chooses how an op compiles, never what it computes: an action may set only {} on the op its matcher yields; a spec that must do more opts in with `{REWRITES_ATTR} = \"why\"` among the attributes of the sequence that does it",
                iree_ops::CONFIG_ATTRS.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )),
        };
        if !self
            .found
            .iter()
            .any(|known| known.loc == problem.loc && known.message == problem.message)
        {
            self.found.push(problem);
        }
    }
}

/// A matcher's arguments: the matched op, then the forwarded handles.
fn matcher_args(matcher: &Op, forwarded: &[Handle]) -> Vec<Handle> {
    let count = Sequence::from_op(matcher).map_or(1, |s| s.inputs.len());
    (0..count)
        .map(|index| match index {
            0 => Handle::Matched(Vec::new()),
            _ => forwarded
                .get(index - 1)
                .cloned()
                .unwrap_or(Handle::Other(Vec::new())),
        })
        .collect()
}

fn bind_args(env: &mut HashMap<ValueRef, Handle>, block: &Block, args: &[Handle]) {
    for (index, handle) in args.iter().enumerate() {
        let value = ValueRef::BlockArg {
            block: block.id,
            index: index as u32,
        };
        env.insert(value, handle.clone());
    }
}

fn result_ref(op: &Op, index: usize) -> ValueRef {
    ValueRef::Result {
        op: op.id,
        index: index as u32,
    }
}

fn lookup(env: &HashMap<ValueRef, Handle>, value: &ValueRef) -> Handle {
    env.get(value).cloned().unwrap_or(Handle::Other(Vec::new()))
}

/// A result of a navigating or unknown op: another op when it is an op handle.
fn kind_of(ty: &str) -> Handle {
    match handle_kind(ty) {
        HandleKind::Op | HandleKind::Other => Handle::Other(Vec::new()),
        HandleKind::Value | HandleKind::Param => Handle::NotOp,
    }
}

fn by_type(op: &Op) -> Vec<Handle> {
    op.result_types.iter().map(|ty| kind_of(ty)).collect()
}

fn strings(attr: Option<&Attr>) -> Vec<String> {
    attr.and_then(Attr::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|item| item.as_str().map(str::to_string))
        .collect()
}

/// `` `a` `` or `` `a` or `b` ``, for the ops a handle can be.
fn describe(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| {
        names
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(" or ")
    })
}

/// The reason an opt-in gives (its string, or the attribute printed).
fn reason(attr: &Attr) -> String {
    match attr {
        Attr::Str(text) => text.clone(),
        other => format!("{other:?}"),
    }
}
