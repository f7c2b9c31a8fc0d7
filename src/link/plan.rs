//! Planning a link: every input's names in the linked library, and the linked entry point's
//! segments (runs of merged pairs, includes).

use super::*;

/// The linked entry point's plan, in priority order: runs of merged pairs (shadowed matchers
/// reported, and dropped with `dedupe`) and includes.
pub(super) fn plan_segments(
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
            if spec.entries.is_empty() {
                return Err(vec![Problem::error(
                    codes::ENTRY_SIGNATURE,
                    format!(
                        "{} has no entry point to link by include",
                        inputs[spec.index].name
                    ),
                    spec.root_loc.clone(),
                )]);
            }
            let module = spec.nested_name.clone().expect("planned");
            // Every entry point IREE runs, in file order (IREE's linker includes each marked
            // one; a legacy `@__kernel_config` without result is included too, see `Adapt`).
            for entry in &spec.entries {
                let adapt = entry_adaptation(entry).map_err(|why| {
                    vec![Problem::error(
                        codes::ENTRY_SIGNATURE,
                        format!(
                            "entry point @{} of {} cannot be linked by include: {why}",
                            entry.name, inputs[spec.index].name
                        ),
                        entry.loc.clone().or_else(|| spec.root_loc.clone()),
                    )
                    .with_help("give it IREE's signature: `(%root: !transform.any_op {transform.consumed}) -> !transform.any_op`, yielding the handle its foreach_match returns")]
                })?;
                segments.push(Segment::Include {
                    module: module.clone(),
                    entry: entry.name.clone(),
                    consumed: entry.consumed,
                    adapt,
                    // IREE runs a legacy spec only alone, and then directly: a failure of its
                    // body fails the compile. Linked with others, IREE drops it; tunespec
                    // includes it like any spec, its failures suppressed.
                    propagate: !entry.marked && prepared.len() == 1,
                });
            }
            included.push(spec.index);
        }
    }
    Ok(Plan {
        segments,
        pairs,
        included,
    })
}

/// What [`plan_segments`] decides: the entry point's segments, the merged pairs they index, and
/// the inputs linked by include.
pub(super) struct Plan {
    pub(super) segments: Vec<Segment>,
    pub(super) pairs: Vec<LinkedPair>,
    pub(super) included: Vec<usize>,
}

pub(super) enum Segment {
    /// A run of merged pairs (indexes into [`Plan::pairs`]).
    Merged(std::ops::Range<usize>),
    /// `transform.include @module::@entry failures(suppress)` (`propagate`: `failures(propagate)`).
    Include {
        module: String,
        entry: String,
        consumed: bool,
        adapt: Adapt,
        propagate: bool,
    },
}

/// How the linked entry point calls an included entry point and goes on with the root handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Adapt {
    /// IREE's form, `(!transform.any_op) -> !transform.any_op`: the chain goes on with the
    /// handle it returns.
    Returns,
    /// A legacy entry point without result that only reads its argument: called for its
    /// effects, the chain goes on with the same handle.
    ReadsOnly,
    /// A legacy entry point without result that consumes its argument (IREE's SDXL specs:
    /// `@__kernel_config(%v {transform.consumed})` with one `foreach_match` and an empty
    /// `yield`). Once consumed, no handle to the function is valid any more (IREE's interpreter
    /// checks), so the copy in the linked library is given a result: its `yield` returns the
    /// handle the op at this index of its body returns in place of the argument (the
    /// `foreach_match`'s updated root). The body runs unchanged.
    YieldsRootOf(usize),
}

/// How an included entry point is called, or why it cannot be.
fn entry_adaptation(entry: &EntrySummary) -> Result<Adapt, String> {
    if entry.inputs != [names::ANY_OP] {
        return Err(format!(
            "it takes ({}), not one !transform.any_op",
            entry.inputs.join(", ")
        ));
    }
    match entry.results.as_slice() {
        [result] if result == names::ANY_OP => Ok(Adapt::Returns),
        [] if !entry.consumed => Ok(Adapt::ReadsOnly),
        [] => entry.root_after.map(Adapt::YieldsRootOf).ok_or_else(|| {
            "it consumes its argument and no op of its body returns the handle in its place (a foreach_match or include on it)".to_string()
        }),
        results => Err(format!(
            "it returns ({}), not one !transform.any_op or nothing",
            results.join(", ")
        )),
    }
}

/// Decides every input's symbol names in the linked module.
pub(super) fn plan_names(prepared: &mut [Prepared<'_>], inputs: &[LinkInput]) {
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
