//! Planning a link: every input's names in the linked library, and the linked entry point's
//! segments (runs of merged pairs, includes).

use super::*;

/// The linked entry point's plan, in priority order: runs of merged pairs and includes. Derived
/// pairs are withheld when the options say so; a measured pair is moved before the first derived
/// pair it overlaps by key; then every pair whose match set an earlier pair's contains (by key, or
/// an identical fingerprint) is reported (a default a user pair overrides, a derived pair a
/// measured one covers: notes; anything else: a shadowed-matcher warning) and dropped with
/// `dedupe`.
pub(super) fn plan_segments(
    prepared: &[Prepared<'_>],
    inputs: &[LinkInput],
    options: LinkOptions,
    problems: &mut Vec<Problem>,
) -> Result<Plan, Vec<Problem>> {
    let mut items: Vec<Item> = Vec::new();
    let mut withheld = Vec::new();
    let mut included = Vec::new();
    for spec in prepared {
        if spec.facts.merge_ready {
            for entry in &spec.entry_pairs {
                let pair = LinkedPair {
                    matcher: spec.renamed(&entry.matcher),
                    action: spec.renamed(&entry.action),
                    input: spec.index,
                    matcher_loc: entry.loc.clone(),
                    key: entry.key.clone(),
                    provenance: entry.provenance,
                    measured_on: entry.measured_on.clone(),
                };
                if !options.derived && pair.provenance == Kind::Derived {
                    withheld.push(pair);
                    continue;
                }
                items.push(Item::Pair(pair, entry.print));
            }
        } else {
            include_items(spec, inputs, prepared.len(), &mut items)?;
            included.push(spec.index);
        }
    }
    measured_first(&mut items, inputs, problems);
    if let Some(device) = &options.measured_on {
        chosen_device_first(&mut items, device);
    }
    let (segments, pairs) = segments_of(items, inputs, &options, problems);
    Ok(Plan {
        segments,
        pairs,
        included,
        withheld,
    })
}

/// The includes of a spec linked by include (not merge-ready): one per entry point IREE runs,
/// in file order (IREE's linker includes each marked one; a legacy `@__kernel_config` without
/// result is included too, see `Adapt`). An entry point that cannot be included is an error.
fn include_items(
    spec: &Prepared<'_>,
    inputs: &[LinkInput],
    specs: usize,
    items: &mut Vec<Item>,
) -> Result<(), Vec<Problem>> {
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
        items.push(Item::Include(Segment::Include {
            module: module.clone(),
            entry: entry.name.clone(),
            consumed: entry.consumed,
            adapt,
            // IREE runs a legacy spec only alone, and then directly: a failure of its
            // body fails the compile. Linked with others, IREE drops it; tunespec
            // includes it like any spec, its failures suppressed.
            propagate: !entry.marked && specs == 1,
        }));
    }
    Ok(())
}

/// The items as segments (consecutive pairs merged into one run) and the pairs kept: a pair
/// whose match set an earlier pair's contains (by key, or an identical fingerprint) is reported
/// and, with `dedupe`, dropped.
fn segments_of(
    items: Vec<Item>,
    inputs: &[LinkInput],
    options: &LinkOptions,
    problems: &mut Vec<Problem>,
) -> (Vec<Segment>, Vec<LinkedPair>) {
    let mut segments: Vec<Segment> = Vec::new();
    let mut pairs: Vec<LinkedPair> = Vec::new();
    // Fingerprint -> the first pair with it (fingerprints share long prefixes: hash, not scan).
    let mut fingerprints: HashMap<blake3::Hash, LinkedPair> = HashMap::new();
    let mut keys: key::KeyIndex<LinkedPair> = key::KeyIndex::default();
    for item in items {
        let (pair, print) = match item {
            Item::Include(segment) => {
                segments.push(segment);
                continue;
            }
            Item::Pair(pair, print) => (pair, print),
        };
        let earlier = pair
            .key
            .as_ref()
            .and_then(|key| keys.first_containing(key))
            .map(|earlier| (earlier, false))
            .or_else(|| {
                print
                    .and_then(|print| fingerprints.get(&print).cloned())
                    .map(|earlier| (earlier, true))
            });
        if let Some((earlier, identical)) = earlier {
            problems.push(contained_problem(
                &pair, &earlier, identical, inputs, options,
            ));
            if options.dedupe {
                continue;
            }
        } else {
            if let Some(print) = print {
                fingerprints.insert(print, pair.clone());
            }
            if let Some(key) = &pair.key {
                keys.insert(key, pair.clone());
            }
        }
        pairs.push(pair);
        match segments.last_mut() {
            Some(Segment::Merged(range)) => range.end = pairs.len(),
            _ => segments.push(Segment::Merged(pairs.len() - 1..pairs.len())),
        }
    }
    (segments, pairs)
}

/// A planned pair (with its matcher's fingerprint) or include, in priority order.
enum Item {
    Pair(LinkedPair, Option<blake3::Hash>),
    Include(Segment),
}

/// Whether a measurement's identity is the device `chosen` names (its words, case-insensitive).
pub fn is_measured_on(identity: &str, chosen: &str) -> bool {
    identity
        .to_lowercase()
        .contains(chosen.trim().to_lowercase().as_str())
}

/// With `--measured-on`: moves each measured pair of the chosen device before the first measured
/// pair earlier in the order with the same key measured on another device, so that the chosen
/// device's entry wins (the other is then reported as measured elsewhere).
fn chosen_device_first(items: &mut Vec<Item>, chosen: &str) {
    let mut index = 0;
    while index < items.len() {
        let moved = match &items[index] {
            Item::Pair(pair, _)
                if pair
                    .measured_on
                    .as_deref()
                    .is_some_and(|on| is_measured_on(on, chosen)) =>
            {
                pair.key.as_ref().and_then(|key| {
                    items[..index].iter().position(|item| {
                        matches!(item, Item::Pair(earlier, _)
                            if earlier.measured_on.as_deref().is_some_and(|on| !is_measured_on(on, chosen))
                                && earlier.key.as_ref() == Some(key))
                    })
                })
            }
            _ => None,
        };
        if let Some(to) = moved {
            let item = items.remove(index);
            items.insert(to, item);
        }
        index += 1;
    }
}

/// Moves each measured pair before the first derived pair earlier in the order whose key
/// overlaps its own (either contains the other), so that the measured config wins whatever the
/// input order; each move is reported as a note.
fn measured_first(items: &mut Vec<Item>, inputs: &[LinkInput], problems: &mut Vec<Problem>) {
    let mut index = 0;
    while index < items.len() {
        let moved = match &items[index] {
            Item::Pair(pair, _) if pair.provenance == Kind::Measured => {
                pair.key.as_ref().and_then(|key| {
                    items[..index].iter().position(|item| {
                        matches!(item, Item::Pair(earlier, _)
                            if earlier.provenance == Kind::Derived
                                && earlier.key.as_ref().is_some_and(|other| other.overlaps(key)))
                    })
                })
            }
            _ => None,
        };
        if let Some(to) = moved {
            let item = items.remove(index);
            if let (Item::Pair(measured, _), Item::Pair(derived, _)) = (&item, &items[to]) {
                let mut problem = Problem::note(
                    codes::MEASURED_FIRST,
                    format!(
                        "measured matcher @{} ({}, {}) is placed before derived matcher @{} ({}, {}): they match the same ops, and measured configs win over derived ones",
                        measured.matcher,
                        inputs[measured.input].role.layer().label(),
                        inputs[measured.input].name,
                        derived.matcher,
                        inputs[derived.input].role.layer().label(),
                        inputs[derived.input].name,
                    ),
                    measured.matcher_loc.clone(),
                );
                if let Some(loc) = &derived.matcher_loc {
                    problem = problem.with_related(loc.clone(), "the derived matcher");
                }
                problems.push(problem);
            }
            items.insert(to, item);
        }
        index += 1;
    }
}

/// The report for `pair`, whose match set `earlier`'s contains: an override of a default by a
/// user layer or a derived pair after a measured one (notes), else a shadowed matcher
/// (warning).
fn contained_problem(
    pair: &LinkedPair,
    earlier: &LinkedPair,
    identical: bool,
    inputs: &[LinkInput],
    options: &LinkOptions,
) -> Problem {
    let (layer, earlier_layer) = (
        inputs[pair.input].role.layer(),
        inputs[earlier.input].role.layer(),
    );
    let why = if identical {
        "is structurally identical"
    } else {
        "matches every op it matches"
    };
    // The key goes in the help: long, but it is what tells the user why.
    let key = match (&earlier.key, identical) {
        (Some(key), false) => format!("; key: {key}"),
        _ => String::new(),
    };
    let dropped = if options.dedupe {
        format!("dropped (--dedupe){key}")
    } else {
        format!("kept in the library, where it never fires (--dedupe drops it){key}")
    };
    let other_device = match (&pair.measured_on, &earlier.measured_on) {
        (Some(on), Some(winner)) if on != winner => Some((on, winner)),
        _ => None,
    };
    let mut problem = if let Some((on, winner)) = other_device {
        let how = match &options.measured_on {
            Some(chosen) if is_measured_on(winner, chosen) => {
                format!("--measured-on {chosen:?} chose it")
            }
            Some(chosen) => {
                format!("none of the two is measured on {chosen:?}; the first listed wins")
            }
            None => "the first listed wins; --measured-on chooses a device".to_string(),
        };
        Problem::note(
            codes::OTHER_DEVICE,
            format!(
                "measured matcher @{} ({}, measured on {on}) is left behind @{} ({}, measured on {winner}): the same op measured on another device; {how}",
                pair.matcher, inputs[pair.input].name, earlier.matcher, inputs[earlier.input].name,
            ),
            pair.matcher_loc.clone(),
        )
        .with_help(dropped.clone())
    } else if layer.is_default() && !earlier_layer.is_default() {
        Problem::note(
            codes::OVERRIDES_DEFAULT,
            format!(
                "{} matcher @{} ({}) overrides {} matcher @{} ({}): the user's matcher {why}",
                earlier_layer.label(),
                earlier.matcher,
                inputs[earlier.input].name,
                layer.label(),
                pair.matcher,
                inputs[pair.input].name,
            ),
            pair.matcher_loc.clone(),
        )
        .with_help(dropped)
    } else if earlier.provenance == Kind::Measured && pair.provenance == Kind::Derived {
        Problem::note(
            codes::MEASURED_FIRST,
            format!(
                "derived matcher @{} ({}) is covered by measured matcher @{} ({}), which {why}",
                pair.matcher, inputs[pair.input].name, earlier.matcher, inputs[earlier.input].name,
            ),
            pair.matcher_loc.clone(),
        )
        .with_help(dropped)
    } else {
        Problem::warning(
            codes::SHADOWED,
            format!(
                "matcher @{} ({}) can never fire: the earlier matcher @{} ({}) {why}",
                pair.matcher, inputs[pair.input].name, earlier.matcher, inputs[earlier.input].name
            ),
            pair.matcher_loc.clone(),
        )
        .with_help(if options.dedupe {
            format!("dropped (--dedupe){key}")
        } else {
            format!("remove it, or link with --dedupe to drop it{key}")
        })
    };
    if let Some(loc) = &earlier.matcher_loc {
        problem = problem.with_related(loc.clone(), "this matcher wins");
    }
    problem
}

/// What [`plan_segments`] decides: the entry point's segments, the merged pairs they index, and
/// the inputs linked by include.
pub(super) struct Plan {
    pub(super) segments: Vec<Segment>,
    pub(super) pairs: Vec<LinkedPair>,
    pub(super) included: Vec<usize>,
    pub(super) withheld: Vec<LinkedPair>,
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
