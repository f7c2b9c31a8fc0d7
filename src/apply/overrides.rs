//! What `explain` says of overrides: the layer each pair comes from, and the later pairs a
//! winner overrode on an op.
//!
//! Static, by key: a later pair "also matches" the winner's op when every check of its matcher
//! other than `has_no_lowering_config` is a check the winner's matcher made too (the winner
//! passed them on this op; `has_no_lowering_config` held before the winner configured it). So a
//! tuner matcher (no `has_no_lowering_config`) overrides a default that tests the same op,
//! types, maps and dims with it; a later pair whose matcher the key does not know is never
//! named.

use super::{Explanation, PairInfo};
use crate::link::{Layer, LinkInput};

/// The constraint a user matcher usually lacks and a default has; it does not decide whether a
/// later pair matches an op the winner matched (see the module documentation).
const NO_CONFIG: &str = "has_no_lowering_config($root)";

/// Indexes of the pairs after `winner` in the same `foreach_match` (same scope and sequence)
/// that match every op `winner` matches, by key: the pairs the winner overrode there.
pub fn overridden(pairs: &[PairInfo], winner: usize) -> Vec<usize> {
    let Some(first) = pairs.get(winner) else {
        return Vec::new();
    };
    let Some(key) = &first.key else {
        return Vec::new();
    };
    pairs
        .iter()
        .enumerate()
        .skip(winner + 1)
        .filter(|(_, later)| later.scope == first.scope && later.sequence == first.sequence)
        .filter(|(_, later)| {
            later.key.as_ref().is_some_and(|other| {
                other.root == key.root
                    && other
                        .constraints
                        .iter()
                        .all(|c| c == NO_CONFIG || key.constraints.contains(c))
            })
        })
        .map(|(index, _)| index)
        .collect()
}

/// Sets each pair's layer from the input its matcher's location names (an input's display
/// name, or the location name its spec carries in a written library).
pub fn set_layers(explanation: &mut Explanation, inputs: &[LinkInput]) {
    for pair in &mut explanation.pairs {
        let Some(loc) = &pair.matcher_loc else {
            continue;
        };
        pair.layer = inputs
            .iter()
            .find(|input| input.name == loc.file || input.location == loc.file)
            .map(|input| input.role.layer());
    }
}

/// `layer` as reports print it, `-` when unknown.
pub fn layer_label(layer: Option<Layer>) -> &'static str {
    layer.map_or("-", Layer::label)
}

/// For a pair that never fired: the earliest pair before it that fired (`fired`) and whose
/// matcher overrides it by key (see [`overridden`]): why a default never fired when a user
/// matcher takes its ops.
pub fn overridden_by(
    pairs: &[PairInfo],
    fired: &std::collections::BTreeSet<usize>,
    dead: usize,
) -> Option<usize> {
    (0..dead)
        .filter(|winner| fired.contains(winner))
        .find(|&winner| overridden(pairs, winner).contains(&dead))
}
