//! A library cut down to the pairs that fire on one payload (`attach`): every other pair, and
//! every named sequence nothing references any more, left out.
//!
//! Why: iree-compile runs every matcher of the attached library on every op of every dispatch
//! until one succeeds, and parses every sequence of it; with 10,000 measured matchers that is
//! more than a second per compile (BENCHMARKS.md). tunespec knows which pair wins on each op of
//! the payload (the native matcher, on IREE's dispatch view); a pair that wins on no op can go
//! without changing what any op gets: each op's first successful pair stays, and the pairs
//! before it that failed on it were never going to change anything. Only libraries of the form
//! the native matcher decides are pruned (otherwise nothing is left out, and the report says
//! why).
//!
//! Which view: IREE's GPU backends generalize named linalg ops before a tuning spec runs, its
//! llvm-cpu backend keeps them named, so a pair can win an op on one backend and fail on it on
//! another. Pruning is asked for a set of views: the one of the target's backend when it is
//! known, every view otherwise; a pair is kept when it wins an op in any of them. Each op's
//! winner in the view of the backend that compiles it is then kept, and every kept pair before
//! it fails on that op there, so the pruned library gives each op exactly what the whole one
//! gives on every backend.

use std::collections::HashSet;

use super::*;

/// Libraries with fewer pairs are attached whole: their cost in a compile is a few
/// milliseconds, and a whole library keeps `extract` equal to `link`.
pub const MIN_PAIRS: usize = 64;

/// Whether `library_bytecode` has enough pairs for pruning to pay (and parses): what a caller
/// checks before it reads a model's dispatches for [`prune`].
pub fn worth_pruning(mlir: &Mlir, library_bytecode: &[u8]) -> bool {
    mlir.parse(library_bytecode, "<library>")
        .module
        .is_some_and(|library| crate::link::entry_pairs(&library.snapshot()).len() >= MIN_PAIRS)
}

/// What pruning did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pruned {
    /// The pruned library (bytecode).
    pub bytecode: Vec<u8>,
    /// Pairs kept.
    pub kept: usize,
    /// Pairs left out.
    pub dropped: usize,
    /// Named sequences left out (matchers and actions nothing uses any more).
    pub sequences: usize,
    /// Of [`Pruned::sequences`], those that were a pair's matcher (the rest were actions or
    /// helpers only the left-out pairs used).
    pub matchers: usize,
}

/// The library cut down to the pairs that win on `payload` in any of `views`, or why it is
/// kept whole (`Ok(Err(why))`). `Err` for a library or payload that does not parse.
pub fn prune(
    mlir: &Mlir,
    library_bytecode: &[u8],
    payload_bytes: &[u8],
    payload_name: &str,
    views: &[View],
) -> Result<Result<Pruned, String>, Vec<Problem>> {
    // Trusted: the bytes of the link this process just made.
    // Linked by this process: tunespec's own bytecode, never IREE's (no session needed).
    let library = load_library(mlir, library_bytecode, "<library>", true, None)?;
    let structure = library.snapshot_structure();
    let Some(native) = crate::fastpath::compile(&structure) else {
        return Ok(Err(
            "the library is not of the form the native matcher decides".to_string(),
        ));
    };
    let pairs = crate::link::entry_pairs(&library.snapshot());
    if pairs.len() != native.len() {
        return Ok(Err("its entry point is not one list of pairs".to_string()));
    }
    if pairs.len() < MIN_PAIRS {
        return Ok(Err(format!(
            "{} pair(s): fewer than {MIN_PAIRS}, attached whole",
            pairs.len()
        )));
    }
    if views.is_empty() {
        return Ok(Err("no view of the payload to prune on".to_string()));
    }
    let mut winners = HashSet::new();
    for &view in views {
        let payload = payload_for_view(mlir, payload_bytes, payload_name, view)?;
        let Some(found) = native.winners(&payload.op_features_of(native.features())) else {
            return Ok(Err(
                "an op of the payload the native matcher cannot decide (a dynamic size)"
                    .to_string(),
            ));
        };
        winners.extend(found);
    }
    let keep: Vec<bool> = (0..pairs.len())
        .map(|index| winners.contains(&index))
        .collect();
    let matcher_names: HashSet<&str> = pairs.iter().map(|(matcher, _)| matcher.as_str()).collect();
    let internal = |message: String| vec![Problem::error(codes::INTERPRETER, message, None)];
    let dropped = library
        .retain_foreach_pairs(names::KERNEL_CONFIG, &keep)
        .map_err(internal)?;
    let erased = erase_unreferenced(&library);
    let matchers = erased
        .iter()
        .filter(|name| matcher_names.contains(name.as_str()))
        .count();
    let bytecode = library.to_bytecode().map_err(internal)?;
    Ok(Ok(Pruned {
        bytecode,
        kept: pairs.len() - dropped,
        dropped,
        sequences: erased.len(),
        matchers,
    }))
}

/// Erases the top-level named sequences no symbol reference names (by their last component,
/// so a reference from a nested module keeps its target too), until none is left to erase; the
/// entry points stay. Returns the names of those that went.
fn erase_unreferenced(library: &OwnedOp<'_>) -> Vec<String> {
    let mut erased = Vec::new();
    loop {
        let snapshot = library.snapshot();
        let mut referenced = HashSet::new();
        snapshot.root.walk(&mut |op| {
            for (_, attr) in &op.attrs {
                collect_refs(attr, &mut referenced);
            }
        });
        let unused: HashSet<String> = snapshot
            .root
            .body()
            .iter()
            .filter(|op| op.name == names::NAMED_SEQUENCE)
            .filter(|op| op.attr(ENTRYPOINT_ATTR).is_none())
            .filter_map(|op| op.sym_name())
            .filter(|name| *name != names::KERNEL_CONFIG && !referenced.contains(*name))
            .map(str::to_string)
            .collect();
        if unused.is_empty() || library.erase_sequences(&unused) == 0 {
            erased.sort();
            return erased;
        }
        erased.extend(unused);
    }
}

/// The attribute IREE marks a tuning spec's entry point with.
const ENTRYPOINT_ATTR: &str = "iree_codegen.tuning_spec_entrypoint";

fn collect_refs(attr: &Attr, out: &mut HashSet<String>) {
    match attr {
        Attr::SymbolRef(path) => {
            if let Some(last) = path.last() {
                out.insert(last.clone());
            }
        }
        Attr::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        Attr::Dict(entries) => entries
            .iter()
            .for_each(|(_, value)| collect_refs(value, out)),
        _ => {}
    }
}

/// [`prune`] through the cache of linked libraries (`crate::cache`): what it answers is a pure
/// function of the library's bytes, the payload's bytes and the view, so a second `attach` of
/// the same library onto the same payload reads the cut-down library instead of parsing the
/// whole one and running every matcher over the payload again (the bulk of a warm `attach` of
/// a 10,000-pair library: BENCHMARKS.md). A library kept whole is not kept (its reason is
/// cheap to find again); failures never are.
pub fn prune_cached(
    mlir: &Mlir,
    library_bytecode: &[u8],
    payload_bytes: &[u8],
    payload_name: &str,
    views: &[View],
    cache: &crate::cache::Cache,
) -> Result<Result<Pruned, String>, Vec<Problem>> {
    let key = prune_key(library_bytecode, payload_bytes, views);
    let mut whole = None;
    let entry = cache.get_or_insert_with(&key, || {
        match prune(mlir, library_bytecode, payload_bytes, payload_name, views)? {
            Ok(pruned) => Ok(crate::cache::Artifact {
                bytecode: encode_pruned(&pruned),
                problems: Vec::new(),
            }),
            Err(why) => {
                whole = Some(why);
                Err(Vec::new())
            }
        }
    });
    match (entry, whole) {
        (_, Some(why)) => Ok(Err(why)),
        (Ok(entry), None) => match decode_pruned(&entry.bytecode) {
            Some(pruned) => Ok(Ok(pruned)),
            // A damaged entry: do the work again, without the cache.
            None => {
                cache.invalidate(&key);
                prune(mlir, library_bytecode, payload_bytes, payload_name, views)
            }
        },
        (Err(problems), None) => Err(problems),
    }
}

/// The cache key of [`prune_cached`]: the payload's bytes and the views, and the library's
/// hash, under a phase of its own.
fn prune_key(library_bytecode: &[u8], payload_bytes: &[u8], views: &[View]) -> crate::cache::Key {
    let mut parts = vec![blake3::hash(library_bytecode).to_hex().to_string()];
    parts.extend(views.iter().map(|view| {
        match view {
            View::Dispatch => "dispatch",
            View::Written => "written",
        }
        .to_string()
    }));
    crate::cache::answer_key(payload_bytes, "<payload>", "", &parts, "attach-prune-views")
}

/// A [`Pruned`] as one cache entry: a first line with the four counts, then the bytecode.
fn encode_pruned(pruned: &Pruned) -> Vec<u8> {
    let mut out = format!(
        "{} {} {} {}\n",
        pruned.kept, pruned.dropped, pruned.sequences, pruned.matchers
    )
    .into_bytes();
    out.extend_from_slice(&pruned.bytecode);
    out
}

fn decode_pruned(bytes: &[u8]) -> Option<Pruned> {
    let newline = bytes.iter().position(|&byte| byte == b'\n')?;
    let header = std::str::from_utf8(&bytes[..newline]).ok()?;
    let mut counts = header.split(' ').map(|count| count.parse::<usize>().ok());
    let (kept, dropped, sequences, matchers) = (
        counts.next()??,
        counts.next()??,
        counts.next()??,
        counts.next()??,
    );
    let bytecode = bytes[newline + 1..].to_vec();
    bytecode
        .starts_with(crate::verify::BYTECODE_MAGIC)
        .then_some(Pruned {
            bytecode,
            kept,
            dropped,
            sequences,
            matchers,
        })
}
