//! Each dispatch's share of the model's time under IREE's own configs, measured before the
//! search, so that the search (and a budget that runs out) goes to the dispatches that cost the
//! most first: the model compiled once with its dispatches' benchmark modules dumped
//! (`--iree-hal-dump-executable-benchmarks-to`), each module compiled and timed on the device
//! (`iree-benchmark-module`, `bench`'s repetitions and least time), a search's share the sum of
//! its dispatch functions' medians over the sum of every dispatch's.
//!
//! A dispatch's time in a benchmark module is its time alone, run back to back: the shares are
//! of the dispatches' work, not of the model's wall time (launch gaps, copies and host work are
//! not in them). A failure here orders nothing and is said; it never stops the search.

use std::path::{Path, PathBuf};

use super::{Request, Search};
use crate::bench::stats::Summary;
use crate::iree::runtime::{Call, Tools};

/// Each search's share (0 to 1, in `searches`' order), or why none was measured.
pub(super) fn measure(
    tools: &Tools,
    request: &Request,
    searches: &[Search],
) -> Result<Vec<f64>, String> {
    let (work, source) = super::staged_payload(request)?;
    let dumps = work.path().join("dispatches");
    let options = &request.options;
    tools.compile(
        &source,
        &options.flags,
        &work.path().join("model.vmfb"),
        Some(&dumps),
        options.compile_timeout,
    )?;
    let mut modules: Vec<PathBuf> = std::fs::read_dir(&dumps)
        .map_err(|error| error.to_string())?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mlir"))
        .collect();
    modules.sort();
    // Each module's time, with the dispatch functions it exports.
    let mut times: Vec<(Vec<String>, f64)> = Vec::new();
    for module in &modules {
        let text = std::fs::read_to_string(module).map_err(|error| error.to_string())?;
        times.push((exports(&text), time(tools, request, module)?));
    }
    let total: f64 = times.iter().map(|(_, time)| time).sum();
    if total <= 0.0 {
        return Err("the model's dispatches took no measurable time".to_string());
    }
    Ok(searches
        .iter()
        .map(|search| {
            let own: f64 = times
                .iter()
                .filter(|(exported, _)| {
                    search
                        .dispatch
                        .functions
                        .iter()
                        .any(|function| exported.contains(function))
                })
                .map(|(_, time)| time)
                .sum();
            own / total
        })
        .collect())
}

/// The functions a dispatch benchmark module exports (`hal.executable.export public @NAME`).
fn exports(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("hal.executable.export ")?;
            let name = rest.split_once('@')?.1;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(name.len());
            Some(name[..end].to_string())
        })
        .collect()
}

/// The median time of a dispatch benchmark module's function, in microseconds.
fn time(tools: &Tools, request: &Request, module: &Path) -> Result<f64, String> {
    let options = &request.options;
    let vmfb = module.with_extension("vmfb");
    tools.compile(module, &options.flags, &vmfb, None, options.compile_timeout)?;
    let call = Call {
        module: &vmfb,
        device: &options.device,
        function: None,
        inputs: &[],
    };
    let samples = tools.benchmark(
        &call,
        options.repetitions,
        options.min_time,
        options.run_timeout,
    )?;
    if samples.is_empty() {
        return Err(format!("{} gave no time", module.display()));
    }
    Ok(Summary::of(&samples).median_us)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_benchmark_modules_exports_are_read() {
        let text = "      hal.executable.export public @main_dispatch_0_matmul_512x512x512_f32 ordinal(0) layout(#x)\n      hal.executable.export @other ordinal(1)\n";
        assert_eq!(
            super::exports(text),
            ["main_dispatch_0_matmul_512x512x512_f32", "other"]
        );
    }
}
