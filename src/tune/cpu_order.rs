//! The cheap model that orders llvm-cpu candidates before any is compiled: the space's grid
//! has hundreds of points per matmul and a budget compiles and times a few dozen.
//!
//! The model estimates a config's time relative to others of the same problem on the same
//! CPU, from what IREE's llvm-cpu code generation does with its three tile levels (the
//! distribution tile is a task of the runtime's worker pool; each vector tile is a block of
//! accumulators held in vector registers while the reduction runs; the reduction tile is the
//! unrolled step of that loop). Its terms, weights 1 unless said:
//! - **The register kernel**: a `vm x vn` vector tile keeps `vm * ceil(vn / lanes)` vector
//!   accumulators; each reduction step issues that many FMAs, loads `ceil(vn / lanes)` vectors
//!   of the right operand and broadcasts `vm` elements of the left (each load weighted 1/2:
//!   x86 and AArch64 issue about two loads per FMA). Lanes a tile leaves empty (`vn` not a
//!   multiple of the vector width) are paid for. Tiles whose accumulators and one operand
//!   vector outnumber the registers spill: the square of the excess ratio.
//! - **The reduction step**: a loop iteration's overhead (about two instructions) shared by
//!   the `vk` unrolled steps' FMAs.
//! - **Cache**: a task reuses its `dm x K` and `K x dn` operand panels for every vector tile;
//!   panels larger than the core's cache are re-read from farther away (`1 + log2` of the
//!   excess, over 1 MiB per core).
//! - **Tasks**: the last wave of workgroups over the worker threads, the padding of tiles that
//!   do not divide the problem, and a workgroup's fixed cost (256 vector FMAs: IREE's workers
//!   run many workgroups per task, so a workgroup costs a call and its tile's setup, not a
//!   scheduling) against its work.
//!
//! The machine's vector width is IREE's own (`native_vector_size` of the executable target it
//! configured for); the register count is the architecture's (32 with AVX-512 or on AArch64,
//! else 16). Its quality is measured on this project's CPU against the screen's times of a
//! random sample of the grid (BENCHMARKS.md, `tools/bench-tune-order-cpu`).

/// The CPU a model estimates for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// Bytes of a vector register (IREE's `native_vector_size`).
    pub vector_bytes: i64,
    /// Vector registers of the architecture.
    pub registers: i64,
    /// Worker threads of the runtime's device.
    pub threads: i64,
}

/// Bytes of cache a task's operand panels may take before they are re-read from farther away.
const CACHE_BYTES: f64 = 1024.0 * 1024.0;

/// A workgroup's fixed cost, in vector FMAs (4,000 first, which put small tiles last against
/// the times measured: BENCHMARKS.md "The llvm-cpu order").
const TASK_COST: f64 = 256.0;

impl Machine {
    /// The machine of IREE's configured `text` (its first llvm-cpu executable target), with
    /// `threads` workers; `None` when the text names no vector size.
    pub fn of(text: &str, threads: i64) -> Option<Machine> {
        let after = text.split("native_vector_size = ").nth(1)?;
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let vector_bytes = digits.parse::<i64>().ok().filter(|&bytes| bytes > 0)?;
        let wide =
            text.contains("+avx512f") || text.contains("\"aarch64") || text.contains("arm64");
        Some(Machine {
            vector_bytes,
            registers: if wide { 32 } else { 16 },
            threads: threads.max(1),
        })
    }
}

/// IREE's limit of a vector op's size: `native_vector_size` times this (its llvm-cpu
/// vector-size legality check: a `vector.contract` whose iteration space, in accumulator
/// elements, reaches `native_vector_size * 512` bytes fails the compile; measured with IREE
/// 3.13 on AVX-512: an 8x32x32 f32 contract, 32 KiB, fails and 8x32x16 compiles).
const VECTOR_SIZE_RATIO: i64 = 512;

impl Machine {
    /// Whether IREE's llvm-cpu accepts the vector ops of `tiles`: the contraction's vector
    /// tile `vm x vn x vk` in accumulator elements under [`VECTOR_SIZE_RATIO`] vectors. A grid
    /// point that IREE would refuse is never a candidate (it would only spend the budget).
    pub fn vector_legal(&self, tiles: &Tiles, accumulator_bytes: i64) -> bool {
        let [vm, vn] = tiles.vector;
        let size = vm.max(1) * vn.max(1) * tiles.reduction.max(1) * accumulator_bytes.max(1);
        size < self.vector_bytes * VECTOR_SIZE_RATIO
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
    pub input_bytes: i64,
    /// Bytes of an accumulator element.
    pub accumulator_bytes: i64,
}

/// A config's tiles: distribution (M, N), vector (M, N), vector reduction (K).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    /// The distribution tile: M, N.
    pub distribution: [i64; 2],
    /// The vector tile: M, N.
    pub vector: [i64; 2],
    /// The vector reduction tile: K.
    pub reduction: i64,
}

/// The estimated time of `tiles` on `problem` (relative: lower is faster, comparable only
/// between configs of one problem on one machine).
pub fn estimate(tiles: &Tiles, problem: &Problem, machine: &Machine) -> f64 {
    let lanes = (machine.vector_bytes / problem.accumulator_bytes.max(1)).max(1);
    let [m, n, k] = problem.sizes.map(|size| size.max(1));
    let [dm, dn] = [
        tiles.distribution[0].clamp(1, m),
        tiles.distribution[1].clamp(1, n),
    ];
    let [vm, vn] = [tiles.vector[0].clamp(1, dm), tiles.vector[1].clamp(1, dn)];
    let vk = tiles.reduction.clamp(1, k) as f64;
    // The register kernel, per useful vector FMA.
    let columns = div_ceil(vn, lanes);
    let accumulators = (vm * columns) as f64;
    let useful = (vm * vn) as f64 / lanes as f64;
    let mut kernel = (accumulators + 0.5 * (vm + columns) as f64) / useful;
    // The accumulators and one operand in registers: the other is the FMA's memory operand
    // (a broadcast from memory on AVX-512 and AArch64's indexed FMA alike).
    let live = accumulators + 1.0;
    if live > machine.registers as f64 {
        kernel *= (live / machine.registers as f64).powi(2);
    }
    // The reduction loop's overhead, shared by its unrolled steps.
    kernel *= 1.0 + 2.0 / (accumulators * vk);
    // The task's operand panels against the cache.
    let panels = ((dm + dn) * k * problem.input_bytes.max(1)) as f64;
    if panels > CACHE_BYTES {
        kernel *= 1.0 + (panels / CACHE_BYTES).log2();
    }
    // Tasks: the last wave, the padding, a task's fixed cost.
    let (rows, columns) = (div_ceil(m, dm), div_ceil(n, dn));
    let tasks = problem.batch.max(1) * rows * columns;
    let waves = div_ceil(tasks, machine.threads.max(1));
    let occupancy = tasks as f64 / (waves * machine.threads.max(1)) as f64;
    let padding = (m * n) as f64 / ((rows * dm) * (columns * dn)) as f64;
    let work = (dm * dn * k) as f64 / lanes as f64;
    kernel * (1.0 + TASK_COST / work) / (occupancy * padding)
}

fn div_ceil(a: i64, b: i64) -> i64 {
    (a + b - 1) / b.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AVX512: Machine = Machine {
        vector_bytes: 64,
        registers: 32,
        threads: 2,
    };
    const F32: Problem = Problem {
        batch: 1,
        sizes: [512, 512, 512],
        input_bytes: 4,
        accumulator_bytes: 4,
    };

    fn tiles(distribution: [i64; 2], vector: [i64; 2], reduction: i64) -> Tiles {
        Tiles {
            distribution,
            vector,
            reduction,
        }
    }

    #[test]
    fn the_machine_is_read_from_irees_executable_target() {
        let text = r#"#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu_features = "+avx2,+avx512f,+fma", native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>"#;
        assert_eq!(
            Machine::of(text, 4),
            Some(Machine {
                vector_bytes: 64,
                registers: 32,
                threads: 4
            })
        );
        let avx2 = text.replace("+avx512f,", "").replace("= 64", "= 32");
        assert_eq!(
            Machine::of(&avx2, 0).map(|m| (m.vector_bytes, m.registers, m.threads)),
            Some((32, 16, 1))
        );
        assert_eq!(Machine::of("no target here", 2), None);
    }

    #[test]
    fn a_register_tile_that_fills_the_registers_beats_a_small_one_and_a_spilling_one() {
        let small = estimate(&tiles([64, 64], [4, 16], 16), &F32, &AVX512);
        let full = estimate(&tiles([64, 64], [8, 32], 16), &F32, &AVX512);
        let spilling = estimate(&tiles([64, 64], [16, 32], 16), &F32, &AVX512);
        assert!(full < small, "{full} < {small}");
        assert!(full < spilling, "{full} < {spilling}");
        // Half-empty vectors: 8 lanes of 16.
        let half = estimate(&tiles([64, 64], [8, 8], 16), &F32, &AVX512);
        assert!(full < half);
    }

    #[test]
    fn tiny_tasks_and_idle_workers_cost_time() {
        let tiny = estimate(&tiles([16, 16], [8, 16], 16), &F32, &AVX512);
        let medium = estimate(&tiles([64, 64], [8, 16], 16), &F32, &AVX512);
        assert!(medium < tiny);
        // One 512x512 task leaves one of two workers idle.
        let one = estimate(&tiles([512, 512], [8, 16], 16), &F32, &AVX512);
        let two = estimate(&tiles([256, 512], [8, 16], 16), &F32, &AVX512);
        assert!(two < one);
    }

    #[test]
    fn panels_larger_than_the_cache_cost_time_and_a_longer_reduction_step_helps() {
        let big = Problem {
            sizes: [4096, 4096, 4096],
            ..F32
        };
        // (256 + 256) x 4096 f32: 8 MiB of panels; (64 + 64) x 4096: 2 MiB.
        let wide = estimate(&tiles([256, 256], [8, 16], 16), &big, &AVX512);
        let narrow = estimate(&tiles([64, 64], [8, 16], 16), &big, &AVX512);
        assert!(narrow < wide);
        let step1 = estimate(&tiles([64, 64], [8, 16], 1), &F32, &AVX512);
        let step16 = estimate(&tiles([64, 64], [8, 16], 16), &F32, &AVX512);
        assert!(step16 < step1);
    }
}
