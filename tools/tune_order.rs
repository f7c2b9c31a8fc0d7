//! How well `tune`'s cheap model orders measured configs: for each SHARK-tuner-layout run
//! directory under the given root (`<dispatch>_candidate_analysis.csv` with the configs' knobs
//! and measured times, `candidates/specs/<N>_spec.mlir` naming the intrinsic), the model's
//! estimates of the timed candidates against their times: Spearman's rank correlation (about
//! 0 for a random order) and whether the fastest is among the model's first three (a random
//! order: 3 in N). IREE's own config (candidate 0, no knobs in the CSV) is left out.
//!
//! `cargo run --release --example tune-order -- ../shared/measurements/h100-2026-11-26/runs sm_90`
//! (tools/bench-tune-order runs it).

use std::path::Path;

use tunespec::tune::order::{self, Config, Problem};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(root), target) = (args.next(), args.next().unwrap_or_else(|| "sm_90".into())) else {
        eprintln!("usage: tune-order RUNS_DIR [TARGET]");
        std::process::exit(2);
    };
    let units = order::compute_units(&target);
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|error| panic!("{root}: {error}"))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    println!("| run | timed | rank correlation | fastest in model's top 3 | random: top 3 |");
    println!("|---|---|---|---|---|");
    let mut correlations = Vec::new();
    for dir in dirs {
        let Some((name, rows)) = run(&dir) else {
            continue;
        };
        let (estimates, times): (Vec<f64>, Vec<f64>) = rows
            .iter()
            .map(|(config, problem, time)| (order::estimate(config, problem, units), *time))
            .unzip();
        let rho = order::rank_correlation(&estimates, &times);
        let fastest = (0..times.len()).min_by(|&a, &b| times[a].total_cmp(&times[b]));
        let mut ranked: Vec<usize> = (0..estimates.len()).collect();
        ranked.sort_by(|&a, &b| estimates[a].total_cmp(&estimates[b]));
        let top = fastest.is_some_and(|best| ranked.iter().take(3).any(|&i| i == best));
        println!(
            "| {name} | {} | {rho:.2} | {} | {:.0}% |",
            times.len(),
            if top { "yes" } else { "no" },
            300.0 / times.len() as f64
        );
        correlations.push(rho);
    }
    if !correlations.is_empty() {
        let mean = correlations.iter().sum::<f64>() / correlations.len() as f64;
        println!(
            "\nmean rank correlation over {} runs: {mean:.2}",
            correlations.len()
        );
    }
}

/// A timed candidate: its config, the problem, microseconds.
type Timed = (Config, Problem, f64);

/// A run's name and its timed candidates.
fn run(dir: &Path) -> Option<(String, Vec<Timed>)> {
    let csv_path = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().ends_with("_candidate_analysis.csv"))?;
    let file = csv_path.file_name()?.to_string_lossy().into_owned();
    // `mm_4096x4096x4096_main_...` or `bmm_32x4096x128x4096_main_...`: batch, M, N, K.
    let shape = file.split('_').nth(1)?;
    let mut sizes: Vec<i64> = shape
        .split('x')
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let batch = if sizes.len() == 4 { sizes.remove(0) } else { 1 };
    let problem = Problem {
        batch,
        sizes: <[i64; 3]>::try_from(sizes).ok()?,
        element_bytes: 2,
    };
    let spec = std::fs::read_to_string(dir.join("candidates/specs/1_spec.mlir")).ok()?;
    let name = spec.split("mma_layout<").nth(1)?.split('>').next()?;
    let mma = order::mma_shape(name)?;
    let mut reader = csv::Reader::from_path(&csv_path).ok()?;
    let headers = reader.headers().ok()?.clone();
    let column = |row: &csv::StringRecord, key: &str| -> Option<String> {
        Some(row.get(headers.iter().position(|h| h == key)?)?.to_string())
    };
    let list = |text: String| -> Option<Vec<i64>> {
        let values: Vec<i64> = text
            .trim_matches(['[', ']'])
            .split(',')
            .map(|v| v.trim().parse().ok())
            .collect::<Option<_>>()?;
        Some(values.into_iter().filter(|&v| v != 0).collect())
    };
    let mut rows = Vec::new();
    for row in reader.records().filter_map(Result::ok) {
        let (Some(time), Some(workgroup)) = (
            column(&row, "benchmark_time_us").and_then(|t| t.parse::<f64>().ok()),
            column(&row, "knob_workgroup").and_then(list),
        ) else {
            continue;
        };
        let subgroup = column(&row, "knob_subgroup").and_then(list)?;
        let reduction = column(&row, "knob_reduction").and_then(list)?;
        let (&[.., tm, tn], &[.., sm, sn], &[.., red]) = (
            workgroup.as_slice(),
            subgroup.as_slice(),
            reduction.as_slice(),
        ) else {
            continue;
        };
        let config = Config {
            workgroup: [tm, tn],
            subgroup: [sm, sn],
            reduction: red * mma[2],
            mma,
            subgroup_size: 32,
        };
        rows.push((config, problem, time));
    }
    Some((file.split("_main").next()?.to_string(), rows))
}
