//! The cheap model that orders a GPU space's solutions before any is compiled: z3's solutions
//! come in an arbitrary order, and only a few hundred of a few thousand can be compiled and
//! timed within a budget.
//!
//! The model estimates a config's time relative to others of the same problem from three
//! terms (no calibration constant of any GPU; the terms' weights are 1):
//! - **MMA fit and register reuse**: each MMA of a subgroup's tile loads its operands from
//!   shared memory; a subgroup tile of `a x b` intrinsics loads `1/a + 1/b` operand tiles per
//!   MMA. A reduction tile of `k` elements pays a barrier and a prefetch step every `k`:
//!   `1 + 16/k`.
//! - **Arithmetic intensity**: a workgroup tile `tm x tn` reads `1/tm + 1/tn` elements from
//!   global memory per multiply-add; weighted 64 (a cache-assisted flop-per-byte balance).
//! - **Occupancy**: the grid's last wave (workgroups over the GPU's compute units) and the
//!   padding of tiles that do not divide the problem divide the useful work.
//!
//! Hard limits (the shared memory of the target, the subgroup counts) are IREE's constraints;
//! the model only penalises what they let through but is known to be slow: more than 128 f32
//! accumulators per thread (register spills) and more than 48 KiB of shared memory per
//! workgroup (CUDA's default per-block limit).
//!
//! Its quality is measured on the H100 sweep of `../shared/measurements/` (BENCHMARKS.md,
//! `tools/bench-tune-order`): rank correlation with the measured times, and whether the
//! fastest config is among the model's first three.

/// How a dispatch's candidates after IREE's own (and the linked config) are ordered, so that
/// `--max-candidates` and the budget take the first: the target's cheap model (the GPU's in
/// this file, llvm-cpu's in [`super::cpu_order`]), llvm-cpu's grid nearest IREE's own config
/// first, or a random order (a deterministic one: the same dispatch and space give the same
/// order on every machine). A random order is the honest baseline of a model: users of other
/// tuners found theirs did worse than random on a new GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The target's cheap model, fastest estimate first.
    #[default]
    Model,
    /// llvm-cpu: the grid's points nearest IREE's own config first (no model).
    Nearest,
    /// A random order, the same on every machine for the same dispatch.
    Random,
}

impl Order {
    /// The order's name, as `--order` takes it and reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Order::Model => "model",
            Order::Nearest => "nearest",
            Order::Random => "random",
        }
    }

    /// The order's key of a candidate of `dispatch` with `knobs` under [`Order::Random`]:
    /// from BLAKE3 of both, so the same on every machine and run (a resumed run keeps it).
    pub fn random_key(dispatch: &str, knobs: &str) -> u64 {
        let hash = blake3::hash(format!("{dispatch}\n{knobs}").as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash.as_bytes()[..8]);
        u64::from_le_bytes(first)
    }
}

/// The problem a config is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The product of the batch dimensions (1 without).
    pub batch: i64,
    /// M, N, K.
    pub sizes: [i64; 3],
    /// Bytes of an input element.
    pub element_bytes: i64,
}

/// What the model takes of a config: the tiles in elements and the subgroup's tile in MMAs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// The workgroup's tile: M, N elements.
    pub workgroup: [i64; 2],
    /// The subgroup's tile: M, N intrinsics.
    pub subgroup: [i64; 2],
    /// The reduction tile: K elements.
    pub reduction: i64,
    /// The intrinsic's M, N, K.
    pub mma: [i64; 3],
    /// Threads of a subgroup.
    pub subgroup_size: i64,
}

/// The compute units of a target (CUs, SMs): the width of a wave of workgroups. Public
/// figures of the largest SKU of each architecture; 100 for one not listed.
pub fn compute_units(target: &str) -> i64 {
    match target {
        "gfx942" | "mi300x" => 304,
        "mi300a" => 228,
        "gfx950" | "mi355x" => 256,
        "sm_90" | "h100" => 132,
        "sm_89" => 128,
        "sm_80" | "a100" => 108,
        _ => 100,
    }
}

/// The estimated time of `config` on `problem`, relative (lower is faster; only comparable
/// between configs of one problem and target).
pub fn estimate(config: &Config, problem: &Problem, units: i64) -> f64 {
    let [m, n, _] = problem.sizes;
    let [tm, tn] = config.workgroup.map(|tile| tile.max(1));
    let [sm, sn] = config.subgroup.map(|tiles| tiles.max(1) as f64);
    let k_tile = config.reduction.max(1) as f64;
    let (row_tiles, column_tiles) = (div_ceil(m, tm), div_ceil(n, tn));
    let tiles = problem.batch.max(1) * row_tiles * column_tiles;
    let units = units.max(1);
    let waves = div_ceil(tiles, units);
    let occupancy = tiles as f64 / (waves * units) as f64;
    let padding = (m * n) as f64 / ((row_tiles * tm) * (column_tiles * tn)) as f64;
    let compute = (1.0 + 1.0 / sm + 1.0 / sn) * (1.0 + 16.0 / k_tile);
    let memory = 64.0 * (1.0 / tm as f64 + 1.0 / tn as f64);
    let mut time = (compute + memory) / (occupancy * padding);
    let accumulators =
        sm * sn * (config.mma[0] * config.mma[1]) as f64 / config.subgroup_size.max(1) as f64;
    if accumulators > 128.0 {
        time *= (accumulators / 128.0).powi(2);
    }
    let shared = ((tm + tn) * config.reduction.max(1) * problem.element_bytes.max(1)) as f64;
    if shared > 48.0 * 1024.0 {
        time *= 1.5;
    }
    time
}

fn div_ceil(a: i64, b: i64) -> i64 {
    (a + b - 1) / b.max(1)
}

/// The model's config of a solution of IREE's constraints (`knobs` named as IREE names them),
/// given the intrinsic the solution's `mma_idx` picks. `None` when a knob the model needs is
/// missing.
pub fn config_of(knobs: &[(String, i64)], mma: [i64; 3]) -> Option<Config> {
    let get = |name: &str| knobs.iter().find(|(knob, _)| knob == name).map(|(_, v)| *v);
    let workgroup = [get("wg_0")?, get("wg_1")?];
    let subgroup_size = get("sg_size")?;
    let (subgroup, reduction) = match (get("sg_0"), get("sg_1")) {
        // TileAndFuse: the subgroup's tile and the reduction tile count intrinsics.
        (Some(a), Some(b)) => ([a, b], get("red_2")? * mma[2]),
        // VectorDistribute: subgroup counts per dimension; the reduction tile is in elements.
        _ => {
            let (count_m, count_n) = (get("sg_m_cnt")?.max(1), get("sg_n_cnt")?.max(1));
            (
                [
                    workgroup[0] / (count_m * mma[0]).max(1),
                    workgroup[1] / (count_n * mma[1]).max(1),
                ],
                get("red_2")?,
            )
        }
    };
    Some(Config {
        workgroup,
        subgroup,
        reduction,
        mma,
        subgroup_size,
    })
}

/// An intrinsic's M, N, K from its name (`NV_MMA_SYNC_F32_16x8x16_F16` -> [16, 8, 16],
/// `MFMA_F32_16x16x16_F16` -> [16, 16, 16]).
pub fn mma_shape(name: &str) -> Option<[i64; 3]> {
    name.split('_').find_map(|part| {
        let sizes: Vec<i64> = part
            .split('x')
            .map(|size| size.parse().ok())
            .collect::<Option<_>>()?;
        <[i64; 3]>::try_from(sizes).ok()
    })
}

/// Spearman's rank correlation of two equally long lists (ties ranked by position): how well
/// the model's order follows the measured one (1: the same order; about 0: no better than a
/// random order).
pub fn rank_correlation(a: &[f64], b: &[f64]) -> f64 {
    let rank = |values: &[f64]| -> Vec<f64> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&x, &y| values[x].total_cmp(&values[y]).then(x.cmp(&y)));
        let mut ranks = vec![0.0; values.len()];
        for (position, index) in order.into_iter().enumerate() {
            ranks[index] = position as f64;
        }
        ranks
    };
    let n = a.len().min(b.len()) as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (ra, rb) = (rank(a), rank(b));
    let squares: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * squares / (n * (n * n - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROBLEM: Problem = Problem {
        batch: 1,
        sizes: [4096, 4096, 4096],
        element_bytes: 2,
    };

    fn config(workgroup: [i64; 2], subgroup: [i64; 2], reduction: i64) -> Config {
        Config {
            workgroup,
            subgroup,
            reduction,
            mma: [16, 8, 16],
            subgroup_size: 32,
        }
    }

    #[test]
    fn larger_tiles_reuse_more_and_a_spilling_or_oversized_tile_is_penalised() {
        let units = compute_units("sm_90");
        let small = estimate(&config([64, 64], [2, 2], 32), &PROBLEM, units);
        let large = estimate(&config([128, 128], [4, 4], 64), &PROBLEM, units);
        assert!(large < small);
        // 16x16 intrinsics of 16x8 per subgroup of 32 threads: 1024 accumulators a thread.
        let spilling = estimate(&config([256, 256], [16, 16], 64), &PROBLEM, units);
        assert!(spilling > large * 10.0);
        // 256+256 rows of 128 f16: 128 KiB of shared memory.
        let oversized = estimate(&config([256, 256], [4, 8], 128), &PROBLEM, units);
        let fits = estimate(&config([256, 256], [4, 8], 32), &PROBLEM, units);
        assert!(oversized > fits);
    }

    #[test]
    fn a_last_wave_that_leaves_units_idle_costs_time() {
        // 512x512 on 4 units: one 512x512 workgroup leaves 3 idle; four 256x256 fill them.
        let problem = Problem {
            sizes: [512, 512, 4096],
            ..PROBLEM
        };
        let one_tile = estimate(&config([512, 512], [4, 4], 64), &problem, 4);
        let four_tiles = estimate(&config([256, 256], [4, 4], 64), &problem, 4);
        assert!(four_tiles < one_tile);
    }

    #[test]
    fn knobs_of_both_pipelines_and_intrinsic_names_are_read() {
        let knobs = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let tile_and_fuse = knobs(&[
            ("wg_0", 128),
            ("wg_1", 64),
            ("sg_0", 4),
            ("sg_1", 2),
            ("red_2", 4),
            ("sg_size", 32),
        ]);
        let got = config_of(&tile_and_fuse, [16, 8, 16]).unwrap();
        assert_eq!((got.subgroup, got.reduction), ([4, 2], 64));
        let vector_distribute = knobs(&[
            ("wg_0", 128),
            ("wg_1", 64),
            ("sg_m_cnt", 2),
            ("sg_n_cnt", 2),
            ("red_2", 32),
            ("sg_size", 64),
        ]);
        let got = config_of(&vector_distribute, [16, 16, 16]).unwrap();
        assert_eq!((got.subgroup, got.reduction), ([4, 2], 32));
        assert!(config_of(&knobs(&[("wg_0", 1)]), [16, 16, 16]).is_none());
        assert_eq!(mma_shape("NV_MMA_SYNC_F32_16x8x16_F16"), Some([16, 8, 16]));
        assert_eq!(mma_shape("MFMA_F32_32x32x8_F16"), Some([32, 32, 8]));
        assert_eq!(mma_shape("WMMA"), None);
    }

    #[test]
    fn rank_correlation_is_one_for_the_same_order_and_minus_one_reversed() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((rank_correlation(&a, &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-9);
        assert!((rank_correlation(&a, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-9);
        assert_eq!(rank_correlation(&[1.0], &[1.0]), 0.0);
    }
}
