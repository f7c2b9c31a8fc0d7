//! The human report of `tune --compile-only`: per dispatch, each candidate's compile; then what
//! generating the GPU spaces did and the time per phase.

use tunespec::tune::compile::CompileReport;

/// The report as text.
pub fn table(report: &CompileReport) -> String {
    let mut out = String::new();
    if report.dispatches.is_empty() {
        out.push_str(&format!(
            "{}: no contraction dispatch to tune\n",
            report.payload
        ));
    }
    for dispatch in &report.dispatches {
        let count = |status: &str| {
            dispatch
                .candidates
                .iter()
                .filter(|c| c.status == status)
                .count()
        };
        out.push_str(&format!(
            "{} ({}; {} of {} candidates compiled with their config, {} not applied, {} failed)\n",
            dispatch.key,
            dispatch.functions.join(", "),
            count("compiled"),
            dispatch.candidates.len(),
            count("not-applied"),
            count("failed"),
        ));
        let width = super::knobs_width(dispatch.candidates.iter().map(|c| c.knobs.as_str()));
        out.push_str(&format!(
            "  {:>3}  {:<11}  {:<width$}  why\n",
            "#", "compile", "knobs"
        ));
        for candidate in &dispatch.candidates {
            out.push_str(&format!(
                "  {:>3}  {:<11}  {:<width$}  {}\n",
                candidate.index,
                candidate.status,
                candidate.knobs,
                candidate.message.as_deref().unwrap_or("")
            ));
        }
    }
    for generation in &report.generation {
        if generation.pipeline == "none" {
            out.push_str(&format!(
                "{}: no space: {}\n",
                generation.dispatch,
                generation
                    .note
                    .as_deref()
                    .unwrap_or("IREE emitted no constraints")
            ));
            continue;
        }
        out.push_str(&format!(
            "{} {}: {} solutions{} in {:.1}s, {} chosen in the {} order and materialized by IREE{}\n",
            generation.dispatch,
            generation.pipeline,
            generation.solutions,
            if generation.complete { " (all)" } else { "" },
            generation.solve_s,
            generation.materialized,
            report.order,
            if generation.not_materialized.is_empty() {
                String::new()
            } else {
                format!(", {} not", generation.not_materialized.len())
            }
        ));
    }
    for (function, op, why) in &report.skipped {
        out.push_str(&format!("skipped {op} in {function}: {why}\n"));
    }
    out.push_str(&format!(
        "candidates in the {} order; time: generate {:.1}s, compile {:.1}s\n",
        report.order, report.generate_s, report.compile_s
    ));
    out
}
