//! Linking: turn an ordered list of specs into ONE transform library, first match wins.
//!
//! Semantics follow IREE's LinkTuningSpecs where they are sound, and fix its defects:
//! - merge path: merge-ready specs (`tuning_spec_with_default_entrypoint`) contribute their named
//!   sequences and their matcher -> action pairs to one `foreach_match`, in priority order;
//! - include path: other specs stay nested modules, called with
//!   `transform.include @mod::@entry failures(suppress)`, in order. Unlike pairs of one
//!   `foreach_match`, an included spec runs on every op even when an earlier spec matched it;
//! - renaming: a clash keeps the first name and renames later ones `name_k` (smallest k not used
//!   by any input symbol or earlier rename, as IREE does), and EVERY use is rewritten through
//!   MLIR's symbol-use rewriting (IREE only rewrites `foreach_match` lists, so a renamed helper
//!   called through `include` binds to another spec's symbol; that cannot happen here);
//! - the entry argument is marked by what the linked body does with it, so readonly and consumed
//!   inputs mix (IREE refuses);
//! - matchers that can never fire (a structurally identical matcher precedes them) are reported,
//!   and dropped with `dedupe`.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{self, names, Attr, Loc, Op, ValueRef};
use crate::mlir::{Mlir, OwnedOp, SendOp, Worker};
use crate::problem::Problem;
use crate::verify::{self, SpecFacts};

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
}

/// Where a spec came from; kept for reports (and, later, cache keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Given by the user (command line, configs, spec libraries).
    User,
    /// One of the default registry's specs.
    Default {
        /// The target whose defaults it is.
        target: String,
    },
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
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkOptions {
    /// Drop pairs whose matcher can never fire.
    pub dedupe: bool,
    /// Threads that parse and check the inputs (`None`: one per available core, at most 8, for
    /// inputs of a megabyte or more in all). Never changes the result, only how fast it comes.
    pub threads: Option<usize>,
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
}

/// The result of a link.
pub struct Linked<'c> {
    /// The linked library.
    pub module: OwnedOp<'c>,
    /// The merged pairs, in priority order.
    pub pairs: Vec<LinkedPair>,
    /// Inputs linked by include, by index.
    pub included: Vec<usize>,
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
    /// The entry point's pairs: (matcher, action, matcher location, matcher fingerprint).
    entry_pairs: Vec<(String, String, Option<Loc>, Option<blake3::Hash>)>,
    /// For the include path: whether the entry point takes and returns one `!transform.any_op`.
    include_signature_ok: bool,
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
    Ok(Linked {
        module,
        pairs,
        included,
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
                include_signature_ok: summary.include_signature_ok,
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
        Role::User => crate::contain::check(&input.bytes, &input.name),
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

/// The linked entry point's plan, in priority order: runs of merged pairs (shadowed matchers
/// reported, and dropped with `dedupe`) and includes.
fn plan_segments(
    prepared: &[Prepared<'_>],
    inputs: &[LinkInput],
    options: LinkOptions,
    problems: &mut Vec<Problem>,
) -> Result<Plan, Vec<Problem>> {
    // Segments in priority order: runs of merged pairs, and includes.
    let mut segments: Vec<Segment> = Vec::new();
    let mut pairs: Vec<LinkedPair> = Vec::new();
    // Fingerprint -> the first pair with it (fingerprints share long prefixes: hash, not scan).
    let mut fingerprints: HashMap<blake3::Hash, LinkedPair> = HashMap::new();
    let mut included = Vec::new();
    for spec in prepared {
        if spec.facts.merge_ready {
            let run_start = pairs.len();
            for (matcher, action, matcher_loc, print) in &spec.entry_pairs {
                let pair = LinkedPair {
                    matcher: spec.renamed(matcher),
                    action: spec.renamed(action),
                    input: spec.index,
                    matcher_loc: matcher_loc.clone(),
                };
                if let Some(print) = print {
                    if let Some(earlier) = fingerprints.get(print) {
                        let mut problem = Problem::warning(
                            codes::SHADOWED,
                            format!(
                                "matcher @{} ({}) can never fire: the earlier matcher @{} ({}) is structurally identical",
                                pair.matcher,
                                inputs[pair.input].name,
                                earlier.matcher,
                                inputs[earlier.input].name
                            ),
                            pair.matcher_loc.clone(),
                        )
                        .with_help(if options.dedupe {
                            "dropped (--dedupe)"
                        } else {
                            "remove it, or link with --dedupe to drop it"
                        });
                        if let Some(loc) = &earlier.matcher_loc {
                            problem = problem.with_related(loc.clone(), "this matcher wins");
                        }
                        problems.push(problem);
                        if options.dedupe {
                            continue;
                        }
                    } else {
                        fingerprints.insert(*print, pair.clone());
                    }
                }
                pairs.push(pair);
            }
            match segments.last_mut() {
                Some(Segment::Merged(range)) => range.end = pairs.len(),
                _ => segments.push(Segment::Merged(run_start..pairs.len())),
            }
        } else {
            let entry = spec
                .facts
                .entry_point
                .clone()
                .unwrap_or_else(|| names::KERNEL_CONFIG.to_string());
            if !spec.include_signature_ok {
                return Err(vec![Problem::error(
                    codes::ENTRY_SIGNATURE,
                    format!(
                        "entry point @{entry} of {} must take and return one !transform.any_op to be linked by include",
                        inputs[spec.index].name
                    ),
                    spec.root_loc.clone(),
                )]);
            }
            included.push(spec.index);
            segments.push(Segment::Include {
                module: spec.nested_name.clone().expect("planned"),
                entry,
                consumed: spec.facts.entry_consumed,
            });
        }
    }
    Ok(Plan {
        segments,
        pairs,
        included,
    })
}

/// The linked module: the entry point's skeleton with every input's symbols moved in (merged)
/// or cloned in as nested modules (included), checked before it is returned.
fn assemble<'c>(
    mlir: &'c Mlir,
    prepared: &[Prepared<'c>],
    segments: &[Segment],
    pairs: &[LinkedPair],
    merge_ready: bool,
) -> Result<OwnedOp<'c>, Vec<Problem>> {
    let skeleton = skeleton_text(segments, pairs, merge_ready);
    let parsed = mlir.parse(skeleton.as_bytes(), "<linked>");
    let module = parsed.module.ok_or_else(|| {
        let mut errors = parsed.problems.clone();
        errors.push(Problem::error(
            codes::INTERNAL,
            "the linked entry point does not parse",
            None,
        ));
        errors
    })?;
    for spec in prepared {
        match &spec.nested_name {
            None => {
                let symbols: Vec<String> = spec.symbols.iter().map(|s| spec.renamed(s)).collect();
                module.move_symbols_from(&spec.module, &symbols);
            }
            Some(name) => module.insert_nested_clone(&spec.module, name),
        }
    }

    // The result must itself verify. Every sequence moved in was verified as an input (by MLIR
    // and by the rules) and renamed with MLIR's symbol-use semantics; what is new is the
    // entry point and the symbol table around it. So: the rules on an outline of the module
    // (matchers and actions resolve, signatures agree, entry effects, IREE's rules) and MLIR's
    // verifier on the new entry point. A full re-verification would double the cost of a link.
    let outline = module.snapshot_outline(names::KERNEL_CONFIG);
    let (_, mut rule_problems) = verify::check_module(&outline);
    rule_problems.extend(module.verify_symbol(mlir, names::KERNEL_CONFIG));
    let errors: Vec<Problem> = rule_problems
        .into_iter()
        .filter(Problem::is_error)
        .collect();
    if !errors.is_empty() {
        let mut report = errors;
        report.push(Problem::error(
            codes::INTERNAL,
            "the linked library does not verify (a tunespec bug: please report it with the inputs)",
            None,
        ));
        return Err(report);
    }
    Ok(module)
}

/// What [`plan_segments`] decides: the entry point's segments, the merged pairs they index, and
/// the inputs linked by include.
struct Plan {
    segments: Vec<Segment>,
    pairs: Vec<LinkedPair>,
    included: Vec<usize>,
}

enum Segment {
    Merged(std::ops::Range<usize>),
    Include {
        module: String,
        entry: String,
        consumed: bool,
    },
}

struct Summary {
    top_symbols: Vec<String>,
    entry_pairs: Vec<(String, String, Option<Loc>, Option<blake3::Hash>)>,
    include_signature_ok: bool,
    root_loc: Option<Loc>,
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
            (
                matcher,
                action,
                matcher_op.and_then(|op| op.loc.clone()),
                print,
            )
        })
        .collect();
    let entry = facts.entry_point.as_deref().unwrap_or(names::KERNEL_CONFIG);
    let include_signature_ok = top
        .get(entry)
        .and_then(|op| verify::Sequence::from_op(op))
        .is_some_and(|sequence| {
            sequence.inputs == [names::ANY_OP] && sequence.results == [names::ANY_OP]
        });
    Summary {
        top_symbols: snapshot
            .root
            .body()
            .iter()
            .filter_map(|op| op.sym_name().map(str::to_string))
            .collect(),
        entry_pairs,
        include_signature_ok,
        root_loc: snapshot.root.loc.clone(),
    }
}

/// Decides every input's symbol names in the linked module.
fn plan_names(prepared: &mut [Prepared<'_>], inputs: &[LinkInput]) {
    // Every name any input defines at top level is off limits for `name_k`, as in IREE, plus the
    // linked entry point.
    let mut original: BTreeSet<String> = BTreeSet::new();
    original.insert(names::KERNEL_CONFIG.to_string());
    for spec in prepared.iter_mut() {
        let entry = spec.facts.entry_point.clone();
        if spec.facts.merge_ready {
            spec.symbols = spec
                .top_symbols
                .iter()
                .filter(|name| Some(*name) != entry.as_ref())
                .cloned()
                .collect();
        } else {
            let name = spec
                .facts
                .module_name
                .clone()
                .unwrap_or_else(|| module_name_from_path(&inputs[spec.index].name));
            spec.symbols = vec![name];
        }
        original.extend(spec.symbols.iter().cloned());
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    taken.insert(names::KERNEL_CONFIG.to_string());
    // Per clashing name, the smallest k worth trying: names only ever become taken, so the
    // smallest free `name_k` never decreases (and N specs sharing a name cost N tries, not N^2).
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    for spec in prepared.iter_mut() {
        let mut renames = Vec::new();
        let mut final_names = Vec::new();
        for name in &spec.symbols {
            let new = if taken.contains(name) {
                let start = next_suffix.get(name).copied().unwrap_or(0);
                let (k, candidate) = (start..)
                    .map(|k| (k, format!("{name}_{k}")))
                    .find(|(_, candidate)| {
                        !original.contains(candidate) && !taken.contains(candidate)
                    })
                    .expect("an unused suffix exists");
                next_suffix.insert(name.clone(), k + 1);
                candidate
            } else {
                name.clone()
            };
            taken.insert(new.clone());
            if &new != name {
                renames.push((name.clone(), new.clone()));
            }
            final_names.push(new);
        }
        if spec.facts.merge_ready {
            spec.rename_of = renames.iter().cloned().collect();
            spec.renames = renames;
        } else {
            spec.nested_name = final_names.into_iter().next();
            spec.symbols.clear();
        }
    }
}

/// A symbol name for a spec module that has none: its file stem, made an identifier.
fn module_name_from_path(path: &str) -> String {
    let stem = std::path::Path::new(path)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with(|ch: char| ch.is_ascii_digit()) {
        name.insert_str(0, "spec_");
    }
    name
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

/// A canonical text of an op tree with its own symbol name left out and SSA ids made relative,
/// so that two matchers written alike in different specs print the same. A symbol reference to
/// another top-level op of the same spec prints as that op's own canonical text (so helpers
/// with different names but equal bodies compare equal); other references print by name.
pub fn fingerprint<'a>(
    op: &'a Op,
    resolve: &dyn Fn(&str) -> Option<&'a Op>,
    external: &dyn Fn(&str) -> String,
) -> String {
    /// Bounds helper-of-helper expansion (and breaks reference cycles).
    const MAX_DEPTH: usize = 4;
    struct Printer<'r, 'a> {
        resolve: &'r dyn Fn(&str) -> Option<&'a Op>,
        external: &'r dyn Fn(&str) -> String,
        out: String,
    }
    impl<'a> Printer<'_, 'a> {
        fn attr(&mut self, attr: &Attr, depth: usize) {
            match attr {
                Attr::SymbolRef(path) if path.len() == 1 && depth < MAX_DEPTH => {
                    match (self.resolve)(&path[0]) {
                        Some(target) => {
                            self.out.push('{');
                            self.root(target, depth + 1);
                            self.out.push('}');
                        }
                        None => self
                            .out
                            .push_str(&format!("@{}", (self.external)(&path[0]))),
                    }
                }
                Attr::SymbolRef(path) => self
                    .out
                    .push_str(&format!("@{}", (self.external)(&path.join("::@")))),
                Attr::Array(items) => {
                    self.out.push('[');
                    for item in items {
                        self.attr(item, depth);
                        self.out.push(',');
                    }
                    self.out.push(']');
                }
                Attr::Dict(entries) => {
                    self.out.push('{');
                    for (key, value) in entries {
                        self.out.push_str(key);
                        self.out.push('=');
                        self.attr(value, depth);
                        self.out.push(',');
                    }
                    self.out.push('}');
                }
                other => self.out.push_str(&format!("{other:?}")),
            }
        }
        fn root(&mut self, op: &Op, depth: usize) {
            let base_block = op
                .regions
                .first()
                .and_then(|region| region.blocks.first())
                .map_or(0, |block| block.id);
            self.op(op, op.id, base_block, depth, true);
        }
        fn op(&mut self, op: &Op, base_op: u32, base_block: u32, depth: usize, top: bool) {
            self.out.push_str(&op.name);
            self.out.push('(');
            for operand in &op.operands {
                let text = match operand {
                    ValueRef::BlockArg { block, index } => {
                        format!("b{}.{index},", block.wrapping_sub(base_block))
                    }
                    ValueRef::Result { op, index } => {
                        format!("r{}.{index},", op.wrapping_sub(base_op))
                    }
                    ValueRef::Unknown => "?,".to_string(),
                };
                self.out.push_str(&text);
            }
            self.out.push_str("){");
            for (key, value) in &op.attrs {
                if top && key == "sym_name" {
                    continue;
                }
                self.out.push_str(key);
                self.out.push('=');
                self.attr(value, depth);
                self.out.push(';');
            }
            self.out.push_str("}->");
            self.out.push_str(&op.result_types.join(","));
            for region in &op.regions {
                self.out.push('[');
                for block in &region.blocks {
                    self.out.push_str(&format!(
                        "^{}({})",
                        block.id.wrapping_sub(base_block),
                        block.arg_types.join(",")
                    ));
                    for inner in &block.ops {
                        self.op(inner, base_op, base_block, depth, false);
                        self.out.push(';');
                    }
                }
                self.out.push(']');
            }
        }
    }
    let mut printer = Printer {
        resolve,
        external,
        out: String::new(),
    };
    printer.root(op, 0);
    printer.out
}

/// `@name`, quoted when it is not a bare identifier.
fn symbol_text(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
        && name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn ref_text(path: &str) -> String {
    path.split("::")
        .map(symbol_text)
        .collect::<Vec<_>>()
        .join("::")
}

/// The linked module with only its entry point; input symbols are cloned in before it.
fn skeleton_text(segments: &[Segment], pairs: &[LinkedPair], merge_ready: bool) -> String {
    let mut body = String::new();
    let mut handle = "%arg0".to_string();
    let mut consumed = false;
    for (index, segment) in segments.iter().enumerate() {
        let result = format!("%h{index}");
        match segment {
            Segment::Merged(range) if range.is_empty() => continue,
            Segment::Merged(range) => {
                consumed = true;
                body.push_str(&format!(
                    "    {result} = transform.foreach_match in {handle}\n"
                ));
                let lines: Vec<String> = pairs[range.clone()]
                    .iter()
                    .map(|pair| {
                        format!(
                            "        {} -> {}",
                            ref_text(&pair.matcher),
                            ref_text(&pair.action)
                        )
                    })
                    .collect();
                body.push_str(&lines.join(",\n"));
                body.push_str("\n      : (!transform.any_op) -> !transform.any_op\n");
            }
            Segment::Include {
                module,
                entry,
                consumed: callee_consumes,
            } => {
                consumed |= *callee_consumes;
                body.push_str(&format!(
                    "    {result} = transform.include {}::{} failures(suppress) ({handle}) : (!transform.any_op) -> !transform.any_op\n",
                    symbol_text(module),
                    symbol_text(entry)
                ));
            }
        }
        handle = result;
    }
    body.push_str(&format!(
        "    transform.yield {handle} : !transform.any_op\n"
    ));
    let effect = if consumed {
        names::CONSUMED
    } else {
        names::READONLY
    };
    let module_attrs = if merge_ready {
        format!(
            "{}, {}",
            names::WITH_NAMED_SEQUENCE,
            names::DEFAULT_ENTRYPOINT_ATTR
        )
    } else {
        names::WITH_NAMED_SEQUENCE.to_string()
    };
    format!(
        "module @iree_linked_tuning_spec attributes {{{module_attrs}}} {{\n  transform.named_sequence @{}(%arg0: !transform.any_op {{{effect}}}) -> !transform.any_op attributes {{{}}} {{\n{body}  }}\n}}\n",
        names::KERNEL_CONFIG,
        names::ENTRYPOINT_ATTR
    )
}
