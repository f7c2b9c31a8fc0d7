//! The GPU candidate space: IREE's own. For each dispatch, the constraints IREE emitted per
//! pipeline ([`crate::iree::constraints`]) lowered to SMT-LIB (IREE's pass, then MLIR's
//! exporter), their solutions enumerated by z3 ([`super::solve`]), ordered by the cheap model
//! ([`super::order`]), and the best turned into `compilation_info` by IREE's own
//! materialization. Candidate 0 stays IREE's own config, candidate 1 the linked library's.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::dispatches::Dispatch;
use super::order::{self, Order};
use super::solve;
use super::space::Candidate;
use crate::iree::configs;
use crate::iree::constraints::{self, Space};

/// The most solutions of one space enumerated before ordering, by default: every solution of
/// the spaces measured so far (2,452 to 2,612 per pipeline for a 2048x1280x5120 matmul) fits.
pub const POOL: usize = 4000;

/// The longest z3 may enumerate one space.
pub const SOLVE_TIME: Duration = Duration::from_secs(30);

/// What generating one pipeline's candidates of a dispatch did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Generation {
    /// The dispatch's key.
    pub dispatch: String,
    /// The pipeline (`TileAndFuse`, `VectorDistribute`).
    pub pipeline: String,
    /// The knobs IREE declared.
    pub knobs: Vec<String>,
    /// Solutions z3 enumerated.
    pub solutions: usize,
    /// Whether they are all of the space's solutions.
    pub complete: bool,
    /// Seconds z3 took.
    pub solve_s: f64,
    /// Solutions chosen by the model and materialized by IREE as candidates.
    pub materialized: usize,
    /// Chosen solutions IREE could not materialize (each reported, none a candidate).
    pub not_materialized: Vec<String>,
    /// Seconds IREE's materialization took.
    pub materialize_s: f64,
    /// Where the space came from when not from the dispatch itself.
    pub note: Option<String>,
}

impl Generation {
    /// The record of a dispatch whose space could not be read: no solution, and why.
    pub fn none(dispatch: &str, why: &str) -> Generation {
        Generation {
            dispatch: dispatch.to_string(),
            pipeline: "none".to_string(),
            knobs: Vec::new(),
            solutions: 0,
            complete: false,
            solve_s: 0.0,
            materialized: 0,
            not_materialized: Vec::new(),
            materialize_s: 0.0,
            note: Some(format!(
                "IREE emitted no constraints for it: {}",
                why.lines().next().unwrap_or(why)
            )),
        }
    }
}

/// Where a dispatch's space is read.
pub struct Source<'a> {
    /// IREE's configured module with constraints.
    pub text: &'a str,
    /// The function whose constraints are the dispatch's; `None`: every one in `text` (a
    /// module of the dispatch alone).
    pub function: Option<&'a str>,
    /// Set when `text` is the space of the dispatch without its batch dimensions: each
    /// solution is lifted to the batched loops ([`super::contraction::Shape::lift`]), and the
    /// note says so.
    pub surrogate: Option<String>,
}

/// A solution with its model estimate: (estimate, space, values).
type Scored = (f64, usize, Vec<i64>);

/// Each dispatch's candidates from IREE's constraints in `text` (IREE's configured module,
/// compiled with `--iree-codegen-emit-pipeline-constraints`), after `first` (IREE's own and
/// the linked config), at most `most` in all; and what generating them did.
pub fn candidates(
    iree_opt: &Path,
    work: &Path,
    source: &Source<'_>,
    (dispatch, first): (&Dispatch, Vec<Candidate>),
    (target, most, pool): (&str, usize, usize),
    order: Order,
) -> Result<(Vec<Candidate>, Vec<Generation>), String> {
    let spaces: Vec<Space> = constraints::read(source.text)
        .into_iter()
        .filter(|space| {
            source
                .function
                .is_none_or(|function| function == space.function)
        })
        .collect();
    let mut out = first;
    if out.len() >= most {
        return Ok((out, Vec::new()));
    }
    if spaces.is_empty() {
        let noted = source.surrogate.as_ref().map(|note| Generation {
            note: Some(note.clone()),
            ..Generation::none(&dispatch.key, "")
        });
        return Ok((out, noted.into_iter().collect()));
    }
    let (mut generations, mut scored) =
        solve_spaces((iree_opt, work), source, dispatch, &spaces, (target, pool));
    if order == Order::Random {
        for (score, space, values) in &mut scored {
            *score = Order::random_key(&dispatch.key, &words(&spaces[*space], values)) as f64;
        }
    }
    scored.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| a.2.cmp(&b.2))
    });
    // As many as could fill the candidates even if each of those already there is among
    // them (a solution equal to IREE's own or the linked config is not tried twice).
    scored.truncate(most);
    let mut configs = materialize_chosen(
        (iree_opt, work),
        dispatch,
        &spaces,
        &scored,
        &mut generations,
    );
    // In the model's order across pipelines.
    for (_, space, values) in &scored {
        let words = words(&spaces[*space], values);
        let Some((lowering_config, translation_info)) = configs.remove(&words) else {
            continue;
        };
        // A solution equal to IREE's own or the linked config is that candidate already.
        let same = |candidate: &Candidate| {
            configs::squash(&candidate.lowering_config) == configs::squash(&lowering_config)
                && configs::squash(
                    candidate
                        .translation_info
                        .as_deref()
                        .unwrap_or(&dispatch.translation_info),
                ) == configs::squash(&translation_info)
        };
        if out.len() < most && !out.iter().any(same) {
            out.push(Candidate {
                index: out.len(),
                knobs: words,
                lowering_config,
                translation_info: Some(translation_info),
            });
        }
    }
    Ok((out, generations))
}

/// Each space's solutions (lowered to SMT-LIB, enumerated by z3) with the model's estimate,
/// and what solving did.
fn solve_spaces(
    (iree_opt, work): (&Path, &Path),
    source: &Source<'_>,
    dispatch: &Dispatch,
    spaces: &[Space],
    (target, pool): (&str, usize),
) -> (Vec<Generation>, Vec<Scored>) {
    // A space IREE cannot lower or z3 cannot decide is reported as such; the other spaces of
    // the dispatch, and the other dispatches, are still searched.
    let solvers = match constraints::to_smt(iree_opt, work, spaces) {
        Ok(solvers) => solvers.into_iter().map(Ok).collect(),
        Err(error) => vec![Err(error); spaces.len()],
    };
    let mlir = crate::mlir::Mlir::new();
    let problem = order::Problem {
        batch: dispatch.shape.batch.iter().product(),
        sizes: dispatch.shape.sizes,
        element_bytes: element_bytes(&dispatch.shape.types[0]),
    };
    let units = order::compute_units(target);
    let mut generations = Vec::new();
    let mut scored: Vec<Scored> = Vec::new();
    for (index, (space, solver)) in spaces.iter().zip(solvers).enumerate() {
        let started = Instant::now();
        let found = solver.and_then(|solver| {
            let parsed = mlir.parse(solver.as_bytes(), "constraints.smt.mlir");
            let module = parsed
                .module
                .ok_or("MLIR 22 could not read IREE's SMT lowering")?;
            let script = module.export_smtlib(&mlir)?;
            solve::solutions(&script, &space.knobs, pool.max(1), SOLVE_TIME)
        });
        let (found, failure) = match found {
            Ok(found) => (found, None),
            Err(error) => (
                solve::Solutions {
                    values: Vec::new(),
                    complete: false,
                },
                Some(error),
            ),
        };
        let note = match (&source.surrogate, failure) {
            (Some(surrogate), Some(failure)) => Some(format!("{surrogate}; {failure}")),
            (surrogate, failure) => failure.or_else(|| surrogate.clone()),
        };
        generations.push(Generation {
            dispatch: dispatch.key.clone(),
            pipeline: space.pipeline.clone(),
            knobs: space.knobs.clone(),
            solutions: found.values.len(),
            complete: found.complete,
            solve_s: started.elapsed().as_secs_f64(),
            materialized: 0,
            not_materialized: Vec::new(),
            materialize_s: 0.0,
            note,
        });
        for values in found.values {
            scored.push((score(space, &values, &problem, units), index, values));
        }
    }
    (generations, scored)
}

/// The chosen solutions (those left in `scored`) materialized by IREE, per space in one run,
/// lifted to the dispatch's loops: their configs by knob words.
fn materialize_chosen(
    (iree_opt, work): (&Path, &Path),
    dispatch: &Dispatch,
    spaces: &[Space],
    scored: &[Scored],
    generations: &mut [Generation],
) -> HashMap<String, (String, String)> {
    let mut configs: HashMap<String, (String, String)> = HashMap::new();
    for (index, space) in spaces.iter().enumerate() {
        let chosen: Vec<Vec<i64>> = scored
            .iter()
            .filter(|(_, s, _)| *s == index)
            .map(|(_, _, values)| values.clone())
            .collect();
        if chosen.is_empty() {
            continue;
        }
        let started = Instant::now();
        let materialized = constraints::materialize(iree_opt, work, space, &chosen);
        let generation = &mut generations[index];
        generation.materialize_s = started.elapsed().as_secs_f64();
        for (values, result) in chosen.iter().zip(materialized) {
            let words = words(space, values);
            let lifted =
                result
                    .ok()
                    .and_then(|info| split(&info))
                    .and_then(|(lowering, translation)| {
                        Some((dispatch.shape.lift(&lowering)?, translation))
                    });
            match lifted {
                Some(config) => {
                    generation.materialized += 1;
                    configs.insert(words, config);
                }
                None => generation.not_materialized.push(words),
            }
        }
    }
    configs
}

/// The model's estimate of a solution (`f64::MAX` when the model cannot read its knobs: last).
fn score(space: &Space, values: &[i64], problem: &order::Problem, units: i64) -> f64 {
    let knobs: Vec<(String, i64)> = space.knobs.iter().cloned().zip(values.to_vec()).collect();
    let mma = knobs
        .iter()
        .find(|(knob, _)| knob == "mma_idx")
        .and_then(|(_, index)| space.intrinsics.get(usize::try_from(*index).ok()?))
        .and_then(|name| order::mma_shape(name));
    mma.and_then(|mma| order::config_of(&knobs, mma))
        .map_or(f64::MAX, |config| order::estimate(&config, problem, units))
}

/// A solution in words, its identity in reports and the journal:
/// `TileAndFuse mma=NV_MMA_SYNC_F32_16x8x16_F16 wg_0=128 wg_1=128 ...`.
pub fn words(space: &Space, values: &[i64]) -> String {
    let mut parts = vec![space.pipeline.clone()];
    for (knob, value) in space.knobs.iter().zip(values) {
        if knob == "mma_idx" {
            let name = usize::try_from(*value)
                .ok()
                .and_then(|index| space.intrinsics.get(index));
            match name {
                Some(name) => parts.push(format!("mma={name}")),
                None => parts.push(format!("mma_idx={value}")),
            }
        } else {
            parts.push(format!("{knob}={value}"));
        }
    }
    parts.join(" ")
}

/// A `#iree_codegen.compilation_info<lowering_config = ..., translation_info = ...>` split.
fn split(info: &str) -> Option<(String, String)> {
    let translation = configs::attribute_named(info, "translation_info")?;
    // Inside `compilation_info`, IREE elides the attribute's own name (`<pipeline = ...>`).
    let translation = if translation.starts_with('<') {
        format!("#iree_codegen.translation_info{translation}")
    } else {
        translation
    };
    Some((
        configs::attribute_named(info, "lowering_config")?,
        translation,
    ))
}

/// Bytes of an element type (`f16` -> 2); 4 for one not known.
fn element_bytes(element: &str) -> i64 {
    match element {
        "f16" | "bf16" | "i16" => 2,
        "f8E4M3FNUZ" | "f8E5M2FNUZ" | "f8E4M3FN" | "f8E5M2" | "i8" => 1,
        "f64" | "i64" => 8,
        _ => 4,
    }
}
