//! Linking: turn an ordered list of specs into ONE transform library, first match wins.
//!
//! Semantics follow IREE's LinkTuningSpecs where they are sound, and fix its defects:
//! - merge path: merge-ready specs (`tuning_spec_with_default_entrypoint`) contribute their named
//!   sequences and their matcher -> action pairs to one `foreach_match`, in priority order;
//! - include path: other specs stay nested modules, called with
//!   `transform.include @mod::@entry failures(suppress)`, in order, one include per entry point
//!   IREE runs (every sequence marked `iree_codegen.tuning_spec_entrypoint`, whatever its name,
//!   or else the legacy unmarked `@__kernel_config`, given a result in its copy when it consumes
//!   its argument: see `plan::Adapt`). Unlike pairs of one `foreach_match`, an included spec
//!   runs on every op even when an earlier spec matched it;
//! - renaming: a clash keeps the first name and renames later ones `name_k` (smallest k not used
//!   by any input symbol or earlier rename, as IREE does), and EVERY use is rewritten through
//!   MLIR's symbol-use rewriting (IREE only rewrites `foreach_match` lists, so a renamed helper
//!   called through `include` binds to another spec's symbol; that cannot happen here);
//! - the entry argument is marked by what the linked body does with it, so readonly and consumed
//!   inputs mix (IREE refuses);
//! - matchers that can never fire (an earlier matcher's key contains theirs, or a structurally
//!   identical matcher precedes them) are reported, and dropped with `dedupe`; a default a user
//!   matcher overrides and a derived matcher a measured one covers are notes, not warnings.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{self, names, Attr, Loc, Op, ValueRef};
use crate::mlir::{Mlir, OwnedOp, SendOp, Worker};
use crate::problem::Problem;
use crate::provenance::Kind;
use crate::verify::{self, SpecFacts};

mod assemble;
mod fingerprint;
pub mod key;
mod plan;

use self::assemble::assemble;
pub use self::fingerprint::fingerprint;
pub use self::key::{matcher_key, MatcherKey};
pub use self::plan::is_measured_on;
use self::plan::{plan_names, plan_segments, Plan};

/// Link diagnostics codes.
pub mod codes {
    /// An input with the same bytes as an earlier one (linked once).
    pub const DUPLICATE_INPUT: &str = "tunespec::link::duplicate-input";
    /// A matcher that can never fire: an identical matcher precedes it.
    pub const SHADOWED: &str = "tunespec::link::shadowed-matcher";
    /// Specs linked by include run even where an earlier spec matched.
    pub const INCLUDE_SEMANTICS: &str = "tunespec::link::include-semantics";
    /// A spec linked by include whose entry point has the wrong signature.
    pub const ENTRY_SIGNATURE: &str = "tunespec::link::entry-signature";
    /// The linked library does not verify (a tunespec bug).
    pub const INTERNAL: &str = "tunespec::link::internal";
    /// A default's matcher (tunespec's or IREE's) that a user matcher before it overrides
    /// (note).
    pub const OVERRIDES_DEFAULT: &str = "tunespec::link::overrides-default";
    /// A measured matcher placed before a derived one that matches the same ops, or a derived
    /// matcher after a measured one that covers it (note).
    pub const MEASURED_FIRST: &str = "tunespec::link::measured-first";
    /// A measured matcher left behind another measurement of the same op on another device
    /// (note): entries of several devices coexist, the link takes one.
    pub const OTHER_DEVICE: &str = "tunespec::link::other-device";
}

/// Where a spec came from: its layer, for reports (which default a user matcher overrides), the
/// untrusted-input checks (only embedded defaults skip them) and the cache key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Given by the user: command line, configs, `TUNESPEC_SPEC_PATH`.
    User,
    /// A spec of a registry spec library (a directory with its own `registry.toml`) that a
    /// config or the command line names.
    Library,
    /// A spec of a library written by `tunespec import-iree` (IREE's own default specs; its
    /// manifest starts with [`crate::iree::import::MANIFEST_MARKER`]).
    IreeDefault,
    /// One of the default registry's specs.
    Default {
        /// The target whose defaults it is.
        target: String,
    },
}

/// The layer of a link input, as reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// A user spec (command line, configs, `TUNESPEC_SPEC_PATH`).
    User,
    /// A registry spec library.
    Library,
    /// tunespec's embedded defaults.
    TunespecDefault,
    /// IREE's defaults, imported by `tunespec import-iree`.
    IreeDefault,
}

impl Layer {
    /// `user spec`, `spec library`, `tunespec default`, `IREE default`.
    pub fn label(self) -> &'static str {
        match self {
            Layer::User => "user spec",
            Layer::Library => "spec library",
            Layer::TunespecDefault => "tunespec default",
            Layer::IreeDefault => "IREE default",
        }
    }

    /// Whether the layer is a default one (a user matcher before it overrides it).
    pub fn is_default(self) -> bool {
        matches!(self, Layer::TunespecDefault | Layer::IreeDefault)
    }
}

impl Role {
    /// The input's layer.
    pub fn layer(&self) -> Layer {
        match self {
            Role::User => Layer::User,
            Role::Library => Layer::Library,
            Role::IreeDefault => Layer::IreeDefault,
            Role::Default { .. } => Layer::TunespecDefault,
        }
    }
}

/// One spec to link, in priority order.
#[derive(Clone, Debug)]
pub struct LinkInput {
    /// Display name: the path as the user gave it (or `specs/...` for embedded specs,
    /// `<stdin>`), what diagnostics and reports name.
    pub name: String,
    /// The file name the spec's locations carry in the linked library. For libraries that are
    /// written out, the path relative to the spec's root (the directory given, the spec library,
    /// the config's directory; a lone file's own name), so that the same specs link to the same
    /// bytes in any checkout (see `ResolvedSpec::location`); for libraries used in-process, the
    /// display name. Diagnostics of a link name `name` either way.
    pub location: String,
    /// The spec's text or bytecode.
    pub bytes: Vec<u8>,
    /// Where it came from.
    pub role: Role,
}

impl LinkInput {
    /// An input whose locations carry its display name.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>, role: Role) -> LinkInput {
        let name = name.into();
        LinkInput {
            location: name.clone(),
            name,
            bytes,
            role,
        }
    }
}

/// How to link.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// Drop pairs whose matcher can never fire (shadowed, overridden defaults, derived matchers
    /// a measured one covers).
    pub dedupe: bool,
    /// Threads that parse and check the inputs (`None`: one per available core, at most 8, for
    /// inputs of a megabyte or more in all). Never changes the result, only how fast it comes.
    pub threads: Option<usize>,
    /// Link pairs whose matcher is derived by rule (`tunespec.provenance = "derived ..."`); when
    /// false they are left out and listed in [`Linked::withheld`].
    pub derived: bool,
    /// Which device's measurement of an op wins where a library holds several (`bench --write`
    /// keeps one entry per device): a measured pair whose record's device identity
    /// ([`crate::provenance::Measurement::identity`]) contains these words (case-insensitive:
    /// `local-task`, `H100`) goes before the others of its key. `None`: the first listed wins.
    pub measured_on: Option<String>,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            dedupe: false,
            threads: None,
            derived: true,
            measured_on: None,
        }
    }
}

/// One matcher -> action pair of the linked `foreach_match`, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedPair {
    /// The matcher's name in the linked library.
    pub matcher: String,
    /// The action's name in the linked library.
    pub action: String,
    /// Index into the inputs.
    pub input: usize,
    /// Where the matcher is defined (in the user's file).
    pub matcher_loc: Option<Loc>,
    /// What the matcher matches, when its body is of a form the key knows.
    pub key: Option<key::MatcherKey>,
    /// Measured, derived or stated.
    pub provenance: Kind,
    /// For a measured matcher, who measured it ([`crate::provenance::Measurement::identity`]).
    pub measured_on: Option<String>,
}

/// The result of a link.
pub struct Linked<'c> {
    /// The linked library.
    pub module: OwnedOp<'c>,
    /// The merged pairs, in priority order.
    pub pairs: Vec<LinkedPair>,
    /// Inputs linked by include, by index.
    pub included: Vec<usize>,
    /// Pairs left out because their matcher is derived and [`LinkOptions::derived`] is false,
    /// in priority order: where a derived config would have applied.
    pub withheld: Vec<LinkedPair>,
    /// Warnings and notes (errors make [`link`] fail instead).
    pub problems: Vec<Problem>,
    /// Whether the library is merge-ready (one `foreach_match`, IREE's default entry point).
    pub merge_ready: bool,
}

/// One verified input and its plan. Its snapshot is summarized and dropped as soon as it is
/// verified, so that a link of many specs holds the IR once (in MLIR), not twice.
struct Prepared<'c> {
    index: usize,
    module: OwnedOp<'c>,
    facts: SpecFacts,
    /// All top-level symbol names in order.
    top_symbols: Vec<String>,
    /// The entry point's pairs.
    entry_pairs: Vec<EntryPair>,
    /// For the include path: every entry point IREE runs, in file order.
    entries: Vec<EntrySummary>,
    root_loc: Option<Loc>,
    /// Top-level symbol names in order (merge path: all but the entry point).
    symbols: Vec<String>,
    renames: Vec<(String, String)>,
    /// `renames` by old name.
    rename_of: HashMap<String, String>,
    /// Name of the nested module (include path).
    nested_name: Option<String>,
}

impl Prepared<'_> {
    /// The linked name of a top-level symbol, or of the root of a nested path `a::b`.
    fn renamed(&self, path: &str) -> String {
        let (root, rest) = path
            .split_once("::")
            .map_or((path, None), |(root, rest)| (root, Some(rest)));
        let root = self.rename_of.get(root).map_or(root, String::as_str);
        match rest {
            Some(rest) => format!("{root}::{rest}"),
            None => root.to_string(),
        }
    }
}

/// Links `inputs` (highest priority first). Fails with every problem found in any input.
pub fn link<'c>(
    mlir: &'c Mlir,
    inputs: &[LinkInput],
    options: LinkOptions,
) -> Result<Linked<'c>, Vec<Problem>> {
    let mut problems = Vec::new();
    let prepared = tracing::info_span!("link.prepare", inputs = inputs.len())
        .in_scope(|| prepare(mlir, inputs, options.threads, &mut problems));
    let Some(mut prepared) = prepared else {
        return Err(name_user_files(problems, inputs));
    };

    plan_names(&mut prepared, inputs);
    for spec in &prepared {
        if !spec.renames.is_empty() {
            spec.module
                .rename_symbols(&spec.renames)
                .map_err(|message| vec![Problem::error(codes::INTERNAL, message, None)])?;
        }
    }

    let Plan {
        segments,
        pairs,
        included,
        withheld,
    } = tracing::info_span!("link.plan")
        .in_scope(|| plan_segments(&prepared, inputs, options, &mut problems))
        .map_err(|problems| name_user_files(problems, inputs))?;
    if !included.is_empty() && prepared.len() > 1 {
        problems.push(
            Problem::warning(
                codes::INCLUDE_SEMANTICS,
                format!(
                    "{} spec(s) are not merge-ready and are linked by include: their actions run even on ops an earlier spec already matched",
                    included.len()
                ),
                None,
            )
            .with_help(format!(
                "make them merge-ready (`iree_codegen.tuning_spec_with_default_entrypoint`, one foreach_match) for first-match-wins: {}",
                included
                    .iter()
                    .map(|&index| inputs[index].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }

    let merge_ready = included.is_empty() && !pairs.is_empty();
    let module = tracing::info_span!("link.assemble", pairs = pairs.len())
        .in_scope(|| assemble(mlir, &prepared, &segments, &pairs, merge_ready))
        .map_err(|problems| name_user_files(problems, inputs))?;
    let mut pairs = pairs;
    let files = FileNames::new(inputs);
    for pair in &mut pairs {
        files.rename(&mut pair.matcher_loc);
    }
    let mut withheld = withheld;
    for pair in &mut withheld {
        files.rename(&mut pair.matcher_loc);
    }
    Ok(Linked {
        module,
        pairs,
        included,
        withheld,
        problems: name_user_files(problems, inputs),
        merge_ready,
    })
}

/// Maps the file names of locations (an input's [`LinkInput::location`]) back to the names the
/// user gave ([`LinkInput::name`]): what diagnostics and reports print.
struct FileNames<'a> {
    by_location: HashMap<&'a str, &'a str>,
}

impl<'a> FileNames<'a> {
    fn new(inputs: &'a [LinkInput]) -> Self {
        let mut by_location = HashMap::new();
        for input in inputs {
            if input.location != input.name {
                by_location
                    .entry(input.location.as_str())
                    .or_insert(input.name.as_str());
            }
        }
        FileNames { by_location }
    }

    fn rename(&self, loc: &mut Option<Loc>) {
        if let Some(loc) = loc {
            self.rename_loc(loc);
        }
    }

    fn rename_loc(&self, loc: &mut Loc) {
        if let Some(name) = self.by_location.get(loc.file.as_str()) {
            loc.file = (*name).to_string();
        }
    }
}

/// `problems` with every location naming the user's file rather than the library's location.
fn name_user_files(mut problems: Vec<Problem>, inputs: &[LinkInput]) -> Vec<Problem> {
    let files = FileNames::new(inputs);
    if files.by_location.is_empty() {
        return problems;
    }
    for problem in &mut problems {
        files.rename(&mut problem.loc);
        for (loc, _) in &mut problem.related {
            files.rename_loc(loc);
        }
    }
    problems
}

/// Inputs smaller than this in all are checked on the calling thread: sharing the context
/// first loads every MLIR dialect (a few milliseconds), more than small inputs gain.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Most threads a link starts by itself: parsing shares MLIR's uniquers (locked tables), so
/// more threads gain less each.
const MAX_AUTO_THREADS: usize = 8;

/// Checks, verifies and summarizes every input (duplicates linked once); `None` when any input
/// has errors (all of them are in `problems`). Large inputs are parsed and checked on several
/// threads sharing `mlir` (parsing is most of a link); problems and modules come back in input
/// order, so the result does not depend on the threads.
fn prepare<'c>(
    mlir: &'c Mlir,
    inputs: &[LinkInput],
    threads: Option<usize>,
    problems: &mut Vec<Problem>,
) -> Option<Vec<Prepared<'c>>> {
    // Duplicates by content: inputs are hashed only when another has the same length (hashing
    // every byte of every input was 1.5% of a large link).
    let mut by_length: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut hashes: Vec<Option<blake3::Hash>> = vec![None; inputs.len()];
    let mut unique = Vec::new();
    for (index, input) in inputs.iter().enumerate() {
        let same_length = by_length.entry(input.bytes.len()).or_default();
        let mut first_copy = None;
        if !same_length.is_empty() {
            let hash = *hashes[index].get_or_insert_with(|| blake3::hash(&input.bytes));
            for &other in same_length.iter() {
                let other_hash =
                    *hashes[other].get_or_insert_with(|| blake3::hash(&inputs[other].bytes));
                if other_hash == hash {
                    first_copy = Some(other);
                    break;
                }
            }
        }
        if let Some(first) = first_copy {
            problems.push(
                Problem::warning(
                    codes::DUPLICATE_INPUT,
                    format!(
                        "{} has the same content as {}; it is linked once",
                        input.name, inputs[first].name
                    ),
                    None,
                )
                .with_help("each of its pairs would be shadowed by the first copy"),
            );
            continue;
        }
        same_length.push(index);
        unique.push(index);
    }
    let bytes: usize = unique.iter().map(|&index| inputs[index].bytes.len()).sum();
    let threads = match threads {
        Some(threads) => threads.max(1),
        None if bytes >= PARALLEL_MIN_BYTES => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_AUTO_THREADS),
        None => 1,
    };
    let checked = mlir.parallel(unique.len(), threads, |worker, slot| {
        let index = unique[slot];
        check_input(worker, &inputs[index], index)
    });
    let mut prepared: Vec<Prepared<'c>> = Vec::new();
    let mut failed = false;
    for (index, outcome) in unique.into_iter().zip(checked) {
        failed |= outcome.failed;
        problems.extend(outcome.problems);
        if let Some((module, facts, summary)) = outcome.spec {
            prepared.push(Prepared {
                index,
                module: module.into_op(),
                facts,
                top_symbols: summary.top_symbols,
                entry_pairs: summary.entry_pairs,
                entries: summary.entries,
                root_loc: summary.root_loc,
                symbols: Vec::new(),
                renames: Vec::new(),
                rename_of: HashMap::new(),
                nested_name: None,
            });
        }
    }
    (!failed).then_some(prepared)
}

/// One input, checked on a worker of [`prepare`].
struct Checked<'c> {
    failed: bool,
    problems: Vec<Problem>,
    /// The module and what the linker needs of it, when it has no error.
    spec: Option<(SendOp<'c>, SpecFacts, Summary)>,
}

/// Contains (untrusted bytecode), verifies and summarizes one input.
fn check_input<'c>(worker: &Worker<'c>, input: &LinkInput, index: usize) -> Checked<'c> {
    // Embedded default specs were verified when tunespec was built; files are untrusted.
    let contained = match input.role {
        Role::User | Role::Library | Role::IreeDefault => {
            crate::contain::check(&input.bytes, &input.name)
        }
        Role::Default { .. } => Ok(()),
    };
    if let Err(problem) = contained {
        return Checked {
            failed: true,
            problems: vec![*problem],
            spec: None,
        };
    }
    // Parsed under its location name: that is what the library's locations carry (the
    // problems are mapped back to `name` when `link` returns).
    let verified = verify::verify_bytes(worker.mlir(), &input.bytes, &input.location);
    let failed = verified.has_errors();
    let spec = match (verified.module, verified.snapshot, verified.facts) {
        (Some(module), Some(snapshot), Some(facts)) if !failed => {
            let summary = summarize(&snapshot, &facts, index);
            Some((worker.send(module), facts, summary))
        }
        _ => None,
    };
    Checked {
        failed,
        problems: verified.problems,
        spec,
    }
}

/// One pair of a merge-ready input's entry point, with what the shadow analysis needs.
struct EntryPair {
    matcher: String,
    action: String,
    loc: Option<Loc>,
    /// The matcher's structural fingerprint (hashed).
    print: Option<blake3::Hash>,
    key: Option<key::MatcherKey>,
    provenance: Kind,
    measured_on: Option<String>,
}

struct Summary {
    top_symbols: Vec<String>,
    entry_pairs: Vec<EntryPair>,
    entries: Vec<EntrySummary>,
    root_loc: Option<Loc>,
}

/// An entry point of a spec linked by include: what the linked entry point needs to call it.
struct EntrySummary {
    name: String,
    inputs: Vec<String>,
    results: Vec<String>,
    consumed: bool,
    /// Whether it carries `iree_codegen.tuning_spec_entrypoint` (false: the legacy form).
    marked: bool,
    /// For an entry point that consumes its argument: the index in its body of the last op of
    /// the chain that consumes the root handle and returns it (`foreach_match`, `include`),
    /// when that op returns one `!transform.any_op` first.
    root_after: Option<usize>,
    loc: Option<Loc>,
}

/// The body op (by index) that last takes the entry's root handle and returns it in its place:
/// following result #0 of each `foreach_match` or `include` whose operand #0 is the current
/// handle. None when no op does.
fn root_after(entry: &Op) -> Option<usize> {
    let block = entry.entry_block()?;
    let mut current = ValueRef::BlockArg {
        block: block.id,
        index: 0,
    };
    let mut last = None;
    for (index, op) in block.ops.iter().enumerate() {
        let chains = matches!(op.name.as_str(), names::FOREACH_MATCH | names::INCLUDE)
            && op.operands.first() == Some(&current)
            && op.result_types.first().map(String::as_str) == Some(names::ANY_OP);
        if chains {
            current = ValueRef::Result {
                op: op.id,
                index: 0,
            };
            last = Some(index);
        }
    }
    last
}

/// What the linker needs from an input's snapshot.
fn summarize(snapshot: &ir::Module, facts: &SpecFacts, input: usize) -> Summary {
    let top: HashMap<&str, &Op> = snapshot
        .root
        .body()
        .iter()
        .filter_map(|op| op.sym_name().map(|name| (name, op)))
        .collect();
    let entry_pairs = entry_pairs(snapshot)
        .into_iter()
        .map(|(matcher, action)| {
            let matcher_op = top.get(matcher.as_str()).copied();
            let print = matcher_op.map(|op| {
                // References this input does not define compare by (input, name): never equal
                // across inputs, whose same names may mean different things once renamed.
                let external = |name: &str| format!("{input}:{name}");
                blake3::hash(fingerprint(op, &|name| top.get(name).copied(), &external).as_bytes())
            });
            EntryPair {
                key: matcher_op.and_then(key::matcher_key),
                provenance: matcher_op.map_or(Kind::Stated, crate::provenance::classify),
                measured_on: matcher_op
                    .and_then(|op| op.attr(crate::provenance::MEASUREMENT_ATTR))
                    .and_then(crate::provenance::Measurement::from_attr)
                    .map(|measurement| measurement.identity()),
                loc: matcher_op.and_then(|op| op.loc.clone()),
                matcher,
                action,
                print,
            }
        })
        .collect();
    let entries = facts
        .entry_points
        .iter()
        .filter_map(|name| top.get(name.as_str()).copied())
        .filter_map(|op| {
            let sequence = verify::Sequence::from_op(op)?;
            let consumed = sequence.arg_effects.first().copied().flatten() == Some(true);
            Some(EntrySummary {
                name: sequence.name.to_string(),
                inputs: sequence.inputs,
                results: sequence.results,
                consumed,
                marked: op.has_attr(names::ENTRYPOINT_ATTR),
                root_after: if consumed { root_after(op) } else { None },
                loc: op.loc.clone(),
            })
        })
        .collect();
    Summary {
        top_symbols: snapshot
            .root
            .body()
            .iter()
            .filter_map(|op| op.sym_name().map(str::to_string))
            .collect(),
        entry_pairs,
        entries,
        root_loc: snapshot.root.loc.clone(),
    }
}

/// The matcher -> action pairs of a merge-ready spec's entry `foreach_match`, by name.
pub fn entry_pairs(snapshot: &ir::Module) -> Vec<(String, String)> {
    let Some(entry) = snapshot
        .root
        .body()
        .iter()
        .find(|op| op.sym_name() == Some(names::KERNEL_CONFIG))
    else {
        return Vec::new();
    };
    let Some(foreach) = entry
        .body()
        .iter()
        .find(|op| op.name == names::FOREACH_MATCH)
    else {
        return Vec::new();
    };
    let list = |name: &str| -> Vec<String> {
        foreach
            .attr(name)
            .and_then(Attr::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(Attr::as_symbol_ref)
            .map(|path| path.join("::"))
            .collect()
    };
    list("matchers").into_iter().zip(list("actions")).collect()
}
