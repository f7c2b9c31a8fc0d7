//! The llvm-cpu candidate space: `#iree_cpu.lowering_config` tile levels around IREE's own
//! config (IREE 3.13 emits no pipeline constraints for llvm-cpu, so the space is tunespec's),
//! and each candidate as a standalone tuner-form tuning spec.
//!
//! The knobs of a matmul's config: the distribution tiles (M, N: a workgroup's share), the
//! vector tiles (M, N: a register tile) and the vector reduction tile (K), at the positions of
//! M, N and K in the contraction's loops ([`Layout`]: a `linalg.matmul` with transposed
//! operands has them where its maps put them, a `linalg.batch_matmul` has its batch loop first,
//! tiled at 1 as IREE tiles it). Candidate 0 is IREE's
//! own config, as IREE printed it. The rest are the grid's points in order of their distance
//! from IREE's config (the sum of |log2| of each knob's ratio to IREE's, ties by the knobs):
//! a model-free order, nearest first, so a small `--max-candidates` explores IREE's
//! neighbourhood rather than a corner of the grid.

use super::contraction::Shape;
use super::cpu_order;
use super::dispatches::Dispatch;
use super::order::Order;
use crate::spec_check::payload::{self, MatcherInfo};

/// Where a contraction's loops are in its config's per-loop lists: how many, and the positions
/// of M, N and K; every other loop is a batch loop, tiled at 1 in the parallel levels and 0 in
/// the reduction level (what IREE's llvm-cpu configs give a `linalg.batch_matmul`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    loops: usize,
    m: usize,
    n: usize,
    k: usize,
}

impl Layout {
    /// The layout of `shape`'s loops.
    pub fn of(shape: &Shape) -> Layout {
        Layout {
            loops: shape.batch.len() + 3,
            m: shape.loops[0],
            n: shape.loops[1],
            k: shape.loops[2],
        }
    }

    /// One level's list: `m`, `n` and `k` at their positions, `batch` at the others.
    fn list(&self, [m, n, k]: [i64; 3], batch: i64) -> String {
        (0..self.loops)
            .map(|at| match at {
                _ if at == self.m => m,
                _ if at == self.n => n,
                _ if at == self.k => k,
                _ => batch,
            })
            .map(|value| value.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One level's M, N and K when the list has this layout's loops and `batch` at every batch
    /// loop.
    fn read(&self, values: &[i64], batch: i64) -> Option<[i64; 3]> {
        if values.len() != self.loops {
            return None;
        }
        let batch_ok = (0..self.loops)
            .filter(|&at| at != self.m && at != self.n && at != self.k)
            .all(|at| values[at] == batch);
        batch_ok.then(|| [values[self.m], values[self.n], values[self.k]])
    }
}

/// The tile knobs of a matmul's `#iree_cpu.lowering_config`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tiles {
    /// Distribution tiles: M, N.
    pub distribution: [i64; 2],
    /// Vector tiles: M, N.
    pub vector: [i64; 2],
    /// The vector reduction tile: K.
    pub reduction: i64,
}

impl Tiles {
    /// The knobs in words, the candidate's identity in the journal and reports:
    /// `distribution=64x64 vector=8x16 reduction=16`.
    pub fn words(&self) -> String {
        format!(
            "distribution={}x{} vector={}x{} reduction={}",
            self.distribution[0],
            self.distribution[1],
            self.vector[0],
            self.vector[1],
            self.reduction
        )
    }

    /// The `lowering_config` attribute, its lists in `layout`'s loop order.
    pub fn lowering_config(&self, layout: Layout) -> String {
        let [dm, dn] = self.distribution;
        let [vm, vn] = self.vector;
        format!(
            "#iree_cpu.lowering_config<distribution = [{}], vector_common_parallel = [{}], vector_reduction = [{}]>",
            layout.list([dm, dn, 0], 1),
            layout.list([vm, vn, 0], 1),
            layout.list([0, 0, self.reduction], 0),
        )
    }

    /// IREE's printed config read as tiles, when it has the three levels of a matmul in
    /// `layout`'s loop order (batch loops tiled at 1).
    pub fn parse(config: &str, layout: Layout) -> Option<Tiles> {
        let level = |name: &str| -> Option<Vec<i64>> {
            let text = crate::iree::configs::attribute_named(config, name)?;
            text.trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|item| item.trim().parse::<i64>().ok())
                .collect()
        };
        let (distribution, vector, reduction) = (
            level("distribution")?,
            level("vector_common_parallel")?,
            level("vector_reduction")?,
        );
        match (
            layout.read(&distribution, 1)?,
            layout.read(&vector, 1)?,
            layout.read(&reduction, 0)?,
        ) {
            ([dm, dn, 0], [vm, vn, 0], [0, 0, vk]) => Some(Tiles {
                distribution: [dm, dn],
                vector: [vm, vn],
                reduction: vk,
            }),
            _ => None,
        }
    }

    /// The tiles as the cost model takes them.
    pub fn model(&self) -> cpu_order::Tiles {
        cpu_order::Tiles {
            distribution: self.distribution,
            vector: self.vector,
            reduction: self.reduction,
        }
    }

    /// The distance from `from`: the sum of |log2| of each knob's ratio (the `nearest` order).
    pub fn distance(&self, from: &Tiles) -> f64 {
        let log = |a: i64, b: i64| ((a.max(1) as f64) / (b.max(1) as f64)).log2().abs();
        log(self.distribution[0], from.distribution[0])
            + log(self.distribution[1], from.distribution[1])
            + log(self.vector[0], from.vector[0])
            + log(self.vector[1], from.vector[1])
            + log(self.reduction, from.reduction)
    }
}

/// One candidate config of a dispatch.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// 0 for IREE's own config, then in the space's order.
    pub index: usize,
    /// Its knobs in words ([`Tiles::words`]; IREE's own config: `iree`; the linked library's:
    /// `linked: ` and its knobs).
    pub knobs: String,
    /// The `lowering_config` attribute.
    pub lowering_config: String,
    /// Its `translation_info`, when not the dispatch's (IREE's own).
    pub translation_info: Option<String>,
}

/// The grid: each knob's values.
const DISTRIBUTION: [i64; 5] = [16, 32, 64, 128, 256];
const VECTOR_M: [i64; 4] = [1, 4, 8, 16];
const VECTOR_N: [i64; 3] = [8, 16, 32];
const REDUCTION: [i64; 4] = [1, 4, 16, 32];

/// The candidates of `dispatch`, at most `most` (IREE's own first; then `linked`, the config
/// (lowering, translation) the user's linked library gives it, when another than IREE's): the
/// grid's points whose tiles fit (a distribution tile at most the dimension and a multiple of
/// its vector tile, a reduction tile at most K), nearest to IREE's config first.
pub fn candidates(
    dispatch: &Dispatch,
    linked: Option<&(String, String)>,
    most: usize,
    order: Ordering,
) -> Vec<Candidate> {
    let mut out = vec![Candidate {
        index: 0,
        knobs: "iree".to_string(),
        lowering_config: dispatch.lowering_config.clone(),
        translation_info: None,
    }];
    let mut taken = Vec::new();
    let layout = Layout::of(&dispatch.shape);
    if let Some((lowering, translation)) = linked.filter(|_| most > 1) {
        let same = crate::iree::configs::squash(lowering)
            == crate::iree::configs::squash(&dispatch.lowering_config)
            && crate::iree::configs::squash(translation)
                == crate::iree::configs::squash(&dispatch.translation_info);
        if !same {
            let words = Tiles::parse(lowering, layout).map_or_else(
                || crate::iree::configs::squash(lowering),
                |tiles| tiles.words(),
            );
            out.push(Candidate {
                index: 1,
                knobs: format!("linked: {words}"),
                lowering_config: lowering.clone(),
                translation_info: Some(translation.clone()),
            });
            taken.extend(Tiles::parse(lowering, layout));
        }
    }
    let Some(iree) = Tiles::parse(&dispatch.lowering_config, layout) else {
        // IREE's config has other levels than the space's: only IREE's own is tried.
        return out;
    };
    let [m, n, k] = dispatch.shape.sizes;
    let accumulator_bytes = element_bytes(&dispatch.shape.types[2]);
    let mut grid = Vec::new();
    for dm in DISTRIBUTION.into_iter().filter(|&d| d <= m) {
        for dn in DISTRIBUTION.into_iter().filter(|&d| d <= n) {
            for vm in VECTOR_M.into_iter().filter(|&v| dm % v == 0) {
                for vn in VECTOR_N.into_iter().filter(|&v| dn % v == 0) {
                    for vk in REDUCTION.into_iter().filter(|&r| r <= k) {
                        let tiles = Tiles {
                            distribution: [dm, dn],
                            vector: [vm, vn],
                            reduction: vk,
                        };
                        let legal = order.machine.is_none_or(|machine| {
                            machine.vector_legal(&tiles.model(), accumulator_bytes)
                        });
                        if legal && tiles != iree && !taken.contains(&tiles) {
                            grid.push(tiles);
                        }
                    }
                }
            }
        }
    }
    sort(&mut grid, dispatch, &iree, order);
    let room = most.saturating_sub(out.len());
    for tiles in grid.into_iter().take(room) {
        out.push(Candidate {
            index: out.len(),
            knobs: tiles.words(),
            lowering_config: tiles.lowering_config(layout),
            translation_info: None,
        });
    }
    out
}

/// How [`candidates`] takes the grid after IREE's own config and the linked one: in the
/// requested order, on the machine IREE configured for (`None`: IREE named no vector size;
/// the model then falls back to the nearest first, and no vector-size rule prunes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ordering {
    /// The requested order.
    pub order: Order,
    /// The CPU IREE configured for.
    pub machine: Option<cpu_order::Machine>,
}

impl Ordering {
    /// The order taken: the requested one, `nearest` for the model without a machine.
    pub fn name(self) -> &'static str {
        match (self.order, self.machine) {
            (Order::Model, None) => Order::Nearest.name(),
            (order, _) => order.name(),
        }
    }
}

/// Sorts `grid` in `order` (ties by the tiles, so the order is total and the same everywhere).
fn sort(grid: &mut [Tiles], dispatch: &Dispatch, iree: &Tiles, order: Ordering) {
    let shape = &dispatch.shape;
    let problem = cpu_order::Problem {
        batch: shape.batch.iter().product::<i64>().max(1),
        sizes: shape.sizes,
        input_bytes: element_bytes(&shape.types[0]),
        accumulator_bytes: element_bytes(&shape.types[2]),
    };
    let key = |tiles: &Tiles| -> f64 {
        match (order.order, order.machine) {
            (Order::Random, _) => Order::random_key(&dispatch.key, &tiles.words()) as f64,
            (Order::Model, Some(machine)) => {
                cpu_order::estimate(&tiles.model(), &problem, &machine)
            }
            (Order::Model | Order::Nearest, _) => tiles.distance(iree),
        }
    };
    let mut keyed: Vec<(f64, Tiles)> = grid.iter().map(|tiles| (key(tiles), *tiles)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    for (slot, (_, tiles)) in grid.iter_mut().zip(keyed) {
        *slot = tiles;
    }
}

/// Bytes of an element type (`f32` -> 4, `bf16` -> 2, `i8` -> 1; 4 when unknown).
fn element_bytes(element: &str) -> i64 {
    element
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .parse::<i64>()
        .map_or(4, |bits| (bits / 8).max(1))
}

/// The matcher's name for a dispatch: `match_matmul_512x512x512_f32`,
/// `match_batch_matmul_32x4096x4096x128_f16_f16_f32`.
pub fn matcher_name(dispatch: &Dispatch) -> String {
    let shape = &dispatch.shape;
    let types = if shape.types.iter().all(|ty| *ty == shape.types[0]) {
        shape.types[0].clone()
    } else {
        shape.types.join("_")
    };
    format!("match_{}_{}_{types}", shape.kind, shape.dims_words())
}

/// The standalone tuner-form spec of a candidate: one matcher of the dispatch's contraction
/// (`transform.iree.match.contraction` and `dims_equal` per dimension group), the
/// `@apply_op_config` action annotating `compilation_info`, and the `@__kernel_config` entry
/// point.
pub fn spec(dispatch: &Dispatch, candidate: &Candidate) -> String {
    format!(
        "// A tuning candidate written by `tunespec tune`: {}, candidate {} ({}).\n{}",
        dispatch.key,
        candidate.index,
        candidate.knobs,
        module(&[(dispatch, candidate)])
    )
}

/// One spec of several dispatches' candidates (the winners, to bench the model with): a
/// matcher each, one action, one entry point.
pub fn combined(pairs: &[(&Dispatch, &Candidate)]) -> String {
    let described: Vec<String> = pairs
        .iter()
        .map(|(dispatch, candidate)| format!("{} #{}", dispatch.key, candidate.index))
        .collect();
    format!(
        "// The winners of `tunespec tune`: {}.\n{}",
        described.join(", "),
        module(pairs)
    )
}

fn module(pairs: &[(&Dispatch, &Candidate)]) -> String {
    let mut matchers = String::new();
    let mut entries = Vec::new();
    for (dispatch, candidate) in pairs {
        matchers.push_str(&matcher(dispatch, candidate));
        entries.push(format!("@{} -> @apply_op_config", matcher_name(dispatch)));
    }
    format!(
        "module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{\n\
\x20 transform.named_sequence @apply_op_config(%op: !transform.any_op {{transform.readonly}}, %config: !transform.any_param {{transform.readonly}}) {{\n\
\x20   transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n\
\x20   transform.yield\n\
\x20 }}\n\
{matchers}\
\x20 transform.named_sequence @__kernel_config(%root: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{\n\
\x20   %res = transform.foreach_match in %root {entries} : (!transform.any_op) -> !transform.any_op\n\
\x20   transform.yield %res : !transform.any_op\n\
\x20 }}\n\
}}\n",
        entries = entries.join(", "),
    )
}

fn matcher(dispatch: &Dispatch, candidate: &Candidate) -> String {
    let name = matcher_name(dispatch);
    let shape = &dispatch.shape;
    let [m, n, k] = shape.sizes;
    let [lhs, rhs, out] = &shape.types;
    let maps = shape.maps.join(", ");
    let batch = list(&shape.batch);
    let config = format!(
        "#iree_codegen.compilation_info<lowering_config = {}, translation_info = {}>",
        candidate.lowering_config,
        candidate
            .translation_info
            .as_deref()
            .unwrap_or(&dispatch.translation_info)
    );
    format!(
        "\x20 transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{\n\
\x20   %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = {lhs}, rhs_type = {rhs}, output_type = {out}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>\n\
\x20   transform.iree.match.dims_equal %batch, [{batch}] : !transform.param<i64>\n\
\x20   transform.iree.match.dims_equal %m, [{m}] : !transform.param<i64>\n\
\x20   transform.iree.match.dims_equal %n, [{n}] : !transform.param<i64>\n\
\x20   transform.iree.match.dims_equal %k, [{k}] : !transform.param<i64>\n\
\x20   %config = transform.param.constant {config} -> !transform.any_param\n\
\x20   transform.yield %op, %config : !transform.any_op, !transform.any_param\n\
\x20 }}\n"
    )
}

/// `[32, 4]` -> `32, 4`.
fn list(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The payload a dispatch's candidates are timed on: its contraction alone, built as `bench`
/// builds a matcher's payload; and the function to call.
pub fn payload(dispatch: &Dispatch) -> Result<(String, String), String> {
    let name = matcher_name(dispatch);
    let shape = &dispatch.shape;
    let [m, n, k] = shape.sizes;
    let info = MatcherInfo {
        name: name.clone(),
        loc: None,
        kind: "contraction".to_string(),
        types: Some(shape.types.clone()),
        maps: shape.maps.to_vec(),
        dims: vec![
            Some(shape.batch.clone()),
            Some(vec![m]),
            Some(vec![n]),
            Some(vec![k]),
        ],
        config: None,
    };
    let function = payload::function_name(&name);
    let source = payload::payload(&info, &function)?;
    Ok((source, function))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEAREST: Ordering = Ordering {
        order: Order::Nearest,
        machine: None,
    };
    const AVX512: cpu_order::Machine = cpu_order::Machine {
        vector_bytes: 64,
        registers: 32,
        threads: 2,
    };

    fn dispatch(m: i64) -> Dispatch {
        Dispatch {
            key: format!("matmul {m}x{m}x{m} f32*f32->f32"),
            functions: vec!["main_dispatch_0".into()],
            shape: super::super::contraction::read(
                "linalg.matmul",
                &format!("%7 = linalg.matmul ins(%3, %4 : tensor<{m}x{m}xf32>, tensor<{m}x{m}xf32>) outs(%6 : tensor<{m}x{m}xf32>)"),
            )
            .unwrap(),
            lowering_config: "#iree_cpu.lowering_config<distribution = [64, 64, 0], vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 16]>".into(),
            translation_info: "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>".into(),
        }
    }

    #[test]
    fn candidate_zero_is_irees_own_and_the_rest_fit_and_are_distinct_nearest_first() {
        let d = dispatch(512);
        let all = candidates(&d, None, 40, NEAREST);
        assert_eq!(all.len(), 40);
        assert_eq!(all[0].knobs, "iree");
        assert_eq!(all[0].lowering_config, d.lowering_config);
        let iree = Tiles::parse(&d.lowering_config, Layout::of(&d.shape)).unwrap();
        let mut seen = std::collections::HashSet::new();
        let mut last = 0.0;
        for candidate in &all[1..] {
            let tiles = Tiles::parse(&candidate.lowering_config, Layout::of(&d.shape)).unwrap();
            assert!(seen.insert(tiles) && tiles != iree);
            assert_eq!(tiles.distribution[0] % tiles.vector[0], 0);
            let distance = tiles.distance(&iree);
            assert!(distance >= last);
            last = distance;
        }
        // One knob doubled or halved comes first.
        assert_eq!(all[1].knobs, "distribution=32x64 vector=8x16 reduction=16");
        assert_eq!(candidates(&d, None, 9, NEAREST).len(), 9);
        // Small shapes: tiles no larger than the dimensions.
        for candidate in candidates(&dispatch(32), None, 1000, NEAREST)
            .iter()
            .skip(1)
        {
            if let Some(tiles) = Tiles::parse(&candidate.lowering_config, Layout::of(&d.shape)) {
                assert!(tiles.distribution.iter().all(|&t| t <= 32) && tiles.reduction <= 32);
            }
        }
    }

    #[test]
    fn the_model_order_ranks_by_the_estimate_and_random_is_the_same_on_every_call() {
        let d = dispatch(512);
        let model = Ordering {
            order: Order::Model,
            machine: Some(AVX512),
        };
        let all = candidates(&d, None, 5000, model);
        let layout = Layout::of(&d.shape);
        let problem = cpu_order::Problem {
            batch: 1,
            sizes: [512, 512, 512],
            input_bytes: 4,
            accumulator_bytes: 4,
        };
        let estimates: Vec<f64> = all[1..]
            .iter()
            .map(|c| {
                let tiles = Tiles::parse(&c.lowering_config, layout).unwrap();
                // IREE refuses vector tiles of 32 KiB and more on a 64-byte-vector machine.
                let [vm, vn] = tiles.vector;
                assert!(vm * vn * tiles.reduction * 4 < 64 * 512, "{}", c.knobs);
                cpu_order::estimate(&tiles.model(), &problem, &AVX512)
            })
            .collect();
        assert!(estimates.windows(2).all(|pair| pair[0] <= pair[1]));
        let nearest = candidates(&d, None, 5000, NEAREST);
        assert!(
            nearest.len() > all.len(),
            "without a machine nothing is pruned"
        );
        let random = Ordering {
            order: Order::Random,
            machine: Some(AVX512),
        };
        let (first, again) = (
            candidates(&d, None, 20, random),
            candidates(&d, None, 20, random),
        );
        assert_eq!(first, again);
        assert_ne!(first, candidates(&d, None, 20, model));
        assert_eq!(first[0].knobs, "iree");
        // The model without a machine is the nearest order, and says so.
        let blind = Ordering {
            order: Order::Model,
            machine: None,
        };
        assert_eq!(
            candidates(&d, None, 20, blind),
            candidates(&d, None, 20, NEAREST)
        );
        assert_eq!(
            (blind.name(), model.name(), random.name()),
            ("nearest", "model", "random")
        );
    }

    #[test]
    fn the_linked_config_is_candidate_one_when_it_is_not_irees() {
        let d = dispatch(512);
        let tiles = Tiles {
            distribution: [128, 128],
            vector: [8, 32],
            reduction: 16,
        };
        let linked = (
            tiles.lowering_config(Layout::of(&d.shape)),
            d.translation_info.clone(),
        );
        let all = candidates(&d, Some(&linked), 9, NEAREST);
        assert_eq!(all.len(), 9);
        assert_eq!(
            all[1].knobs,
            "linked: distribution=128x128 vector=8x32 reduction=16"
        );
        assert_eq!(
            all[1].lowering_config,
            tiles.lowering_config(Layout::of(&d.shape))
        );
        assert!(all[2..]
            .iter()
            .all(|c| c.lowering_config != tiles.lowering_config(Layout::of(&d.shape))));
        // IREE's own config linked is no candidate of its own.
        let own = (d.lowering_config.clone(), d.translation_info.clone());
        assert_eq!(
            candidates(&d, Some(&own), 9, NEAREST)[1].knobs,
            all[2].knobs
        );
    }

    #[test]
    fn a_spec_holds_the_matcher_the_config_and_the_entry_point() {
        let d = dispatch(512);
        let candidate = &candidates(&d, None, 2, NEAREST)[1];
        let text = spec(&d, candidate);
        assert!(text.contains("@match_matmul_512x512x512_f32"));
        assert!(text.contains("transform.iree.match.dims_equal %k, [512]"));
        assert!(text.contains(&candidate.lowering_config));
        assert!(text.contains("iree_codegen.tuning_spec_entrypoint"));
        assert!(text.contains("iree_codegen.tuning_spec_with_default_entrypoint"));
        let mlir = crate::mlir::Mlir::new();
        let verified = crate::verify::verify_bytes(&mlir, text.as_bytes(), "candidate.mlir");
        assert!(!verified.has_errors());
        let other = dispatch(1024);
        let both = combined(&[
            (&d, candidate),
            (&other, &candidates(&other, None, 1, NEAREST)[0]),
        ]);
        assert!(both.contains("@match_matmul_512x512x512_f32 -> @apply_op_config, @match_matmul_1024x1024x1024_f32 -> @apply_op_config"));
        let verified = crate::verify::verify_bytes(&mlir, both.as_bytes(), "winners.mlir");
        assert!(!verified.has_errors());
        let (source, function) = payload(&d).unwrap();
        assert!(source.contains(&format!("@{function}(")));
        assert!(source.contains("tensor<512x512xf32>"));
    }

    #[test]
    fn a_batch_matmul_and_a_transposed_matmul_keep_their_loops_where_iree_puts_them() {
        use super::super::contraction;
        let batched = contraction::read(
            "linalg.batch_matmul",
            "%7 = linalg.batch_matmul ins(%3, %4 : tensor<4x256x128xf32>, tensor<4x128x512xf32>) outs(%6 : tensor<4x256x512xf32>) -> tensor<4x256x512xf32>",
        )
        .unwrap();
        let layout = Layout::of(&batched);
        // IREE 3.13's own config of this op on llvm-cpu, as it prints it.
        let iree = "#iree_cpu.lowering_config<distribution = [1, 64, 64, 0], vector_common_parallel = [1, 8, 16, 0], vector_reduction = [0, 0, 0, 16]>";
        let tiles = Tiles::parse(iree, layout).unwrap();
        assert_eq!(tiles.distribution, [64, 64]);
        assert_eq!(tiles.lowering_config(layout), iree);
        // A batch loop tiled otherwise is not this space's.
        assert!(Tiles::parse(&iree.replace("[1, 64, 64, 0]", "[2, 64, 64, 0]"), layout).is_none());
        let transposed = contraction::read(
            "linalg.matmul",
            "%7 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%3, %4 : tensor<256x128xf32>, tensor<512x128xf32>) outs(%6 : tensor<256x512xf32>) -> tensor<256x512xf32>",
        )
        .unwrap();
        assert_eq!(transposed.sizes, [256, 512, 128]);
        let layout = Layout::of(&transposed);
        let iree = "#iree_cpu.lowering_config<distribution = [64, 64, 0], vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 16]>";
        assert_eq!(
            Tiles::parse(iree, layout).unwrap().lowering_config(layout),
            iree
        );
    }
}
