//! How well `tune`'s llvm-cpu orders take the best candidates first, on times measured on this
//! machine: the report of a `tune --order random` run (its candidates a random sample of the
//! grid, each screened against IREE's own config), with the machine the model is told about.
//!
//! For each dispatch: Spearman's rank correlation of the screen's ratios with the model's
//! estimates and with the distance from IREE's config (the `nearest` order), and for the first
//! `k` candidates each order would take from the sample (the random order: the sample's own),
//! the best ratio among them against the sample's best (1.00: the order's first `k` hold the
//! sample's best).
//!
//! `cargo run --release --example tune-order-cpu -- REPORT.json VECTOR_BYTES REGISTERS THREADS`
//! (tools/bench-tune-order-cpu runs the tune and this).

use tunespec::tune::cpu_order::{self, Machine, Problem};
use tunespec::tune::order::rank_correlation;
use tunespec::tune::space::Tiles;

/// The first candidates an order takes, as a budget of `--max-candidates` would.
const FIRST: [usize; 2] = [4, 8];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Vec<i64> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (Some(path), [vector_bytes, registers, threads]) = (args.first(), numbers.as_slice())
    else {
        eprintln!("usage: tune-order-cpu REPORT.json VECTOR_BYTES REGISTERS THREADS");
        std::process::exit(2);
    };
    let machine = Machine {
        vector_bytes: *vector_bytes,
        registers: *registers,
        threads: *threads,
    };
    let report: serde_json::Value = match std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|error| error.to_string()))
    {
        Ok(report) => report,
        Err(error) => {
            eprintln!("tune-order-cpu: {path} is not a tune report: {error}");
            std::process::exit(2);
        }
    };
    println!("| dispatch | screened | rank corr. model | rank corr. nearest | best of first 4: model / nearest / random | best of first 8: model / nearest / random |");
    println!("|---|---|---|---|---|---|");
    for dispatch in report["dispatches"].as_array().into_iter().flatten() {
        let key = dispatch["key"].as_str().unwrap_or_default();
        let Some(problem) = problem(key) else {
            continue;
        };
        let candidates = dispatch["candidates"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let iree = candidates
            .first()
            .and_then(|c| tiles_of_config(c["lowering_config"].as_str()?));
        let Some(iree) = iree else { continue };
        // (model estimate, distance, ratio) of each screened candidate, in the sample's order.
        let rows: Vec<(f64, f64, f64)> = candidates
            .iter()
            .skip(1)
            .filter_map(|c| {
                let ratio = c["screen"]["ratio"].as_f64()?;
                let tiles = tiles_of_words(c["knobs"].as_str()?)?;
                let estimate = cpu_order::estimate(&tiles.model(), &problem, &machine);
                Some((estimate, tiles.distance(&iree), ratio))
            })
            .collect();
        if rows.len() < 2 {
            continue;
        }
        let ratios: Vec<f64> = rows.iter().map(|r| r.2).collect();
        let model: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let nearest: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let best = ratios.iter().copied().fold(f64::MAX, f64::min);
        let firsts: Vec<String> = FIRST
            .iter()
            .map(|&k| {
                let of = |keys: &[f64]| best_of_first(keys, &ratios, k) / best;
                let random: Vec<f64> = (0..rows.len()).map(|i| i as f64).collect();
                format!(
                    "{:.2} / {:.2} / {:.2}",
                    of(&model),
                    of(&nearest),
                    of(&random)
                )
            })
            .collect();
        println!(
            "| {key} | {} | {:.2} | {:.2} | {} | {} |",
            rows.len(),
            rank_correlation(&model, &ratios),
            rank_correlation(&nearest, &ratios),
            firsts[0],
            firsts[1]
        );
    }
}

/// The best ratio among the `k` candidates with the lowest `keys`.
fn best_of_first(keys: &[f64], ratios: &[f64], k: usize) -> f64 {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(k)
        .map(|i| ratios[i])
        .fold(f64::MAX, f64::min)
}

/// `matmul 512x512x512 f32*f32->f32` -> the problem (plain and batch matmuls).
fn problem(key: &str) -> Option<Problem> {
    let mut words = key.split(' ');
    let _kind = words.next()?;
    let mut sizes: Vec<i64> = words
        .next()?
        .split('x')
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let types = words.next()?;
    let bytes = |t: &str| {
        t.trim_start_matches(char::is_alphabetic)
            .parse::<i64>()
            .ok()
            .map(|b| b / 8)
    };
    let (inputs, output) = types.split_once("->")?;
    let input_bytes = bytes(inputs.split('*').next()?)?;
    let accumulator_bytes = bytes(output)?;
    let mnk = sizes.split_off(sizes.len().checked_sub(3)?);
    Some(Problem {
        batch: sizes.iter().product::<i64>().max(1),
        sizes: <[i64; 3]>::try_from(mnk).ok()?,
        input_bytes,
        accumulator_bytes,
    })
}

/// `distribution=64x64 vector=8x16 reduction=16` -> the tiles.
fn tiles_of_words(words: &str) -> Option<Tiles> {
    let value = |name: &str| words.split(' ').find_map(|w| w.strip_prefix(name));
    let pair = |text: &str| -> Option<[i64; 2]> {
        let (a, b) = text.split_once('x')?;
        Some([a.parse().ok()?, b.parse().ok()?])
    };
    Some(Tiles {
        distribution: pair(value("distribution=")?)?,
        vector: pair(value("vector=")?)?,
        reduction: value("reduction=")?.parse().ok()?,
    })
}

/// A plain matmul's `#iree_cpu.lowering_config<distribution = [64, 64, 0], ...>` -> the tiles.
fn tiles_of_config(config: &str) -> Option<Tiles> {
    let list = |name: &str| -> Option<Vec<i64>> {
        let rest = config.split(&format!("{name} = [")).nth(1)?;
        rest.split(']')
            .next()?
            .split(',')
            .map(|v| v.trim().parse().ok())
            .collect()
    };
    let (distribution, vector, reduction) = (
        list("distribution")?,
        list("vector_common_parallel")?,
        list("vector_reduction")?,
    );
    let last3 = |v: &[i64]| -> Option<[i64; 3]> {
        <[i64; 3]>::try_from(&v[v.len().checked_sub(3)?..]).ok()
    };
    let ([dm, dn, _], [vm, vn, _], [_, _, vk]) =
        (last3(&distribution)?, last3(&vector)?, last3(&reduction)?);
    Some(Tiles {
        distribution: [dm, dn],
        vector: [vm, vn],
        reduction: vk,
    })
}
