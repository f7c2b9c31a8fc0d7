//! The tune's picture (`DIR/report.svg`): for each dispatch, every timed candidate's ratio to
//! IREE's own config (the screen's median as a point; a confirmed candidate's interval as a
//! bar), IREE's own at 1 as a line. Where a table lists 32 ratios per dispatch, the picture shows
//! at a glance how far the space spreads, how many beat IREE's own, and which intervals clear 1.
//!
//! Drawn with the `plotters` crate's SVG backend: text is written as SVG `<text>` (no font is
//! loaded), and the same report gives the same bytes.

use plotters::prelude::*;

use super::report::{DispatchReport, Report};

/// Pixels per dispatch panel.
const PANEL: (u32, u32) = (760, 280);

/// The picture of `report`, or `None` when no candidate was timed.
pub fn svg(report: &Report) -> Result<Option<String>, String> {
    let panels: Vec<&DispatchReport> = report
        .dispatches
        .iter()
        .filter(|dispatch| dispatch.candidates.iter().any(|c| ratio(c).is_some()))
        .collect();
    if panels.is_empty() {
        return Ok(None);
    }
    let mut out = String::new();
    {
        let height = PANEL.1 * u32::try_from(panels.len()).unwrap_or(u32::MAX);
        let root = SVGBackend::with_string(&mut out, (PANEL.0, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|error| error.to_string())?;
        for (area, dispatch) in root.split_evenly((panels.len(), 1)).iter().zip(panels) {
            panel(area, dispatch).map_err(|error| error.to_string())?;
        }
        root.present().map_err(|error| error.to_string())?;
    }
    Ok(Some(out))
}

/// A candidate's ratio: the confirmation's when confirmed, else the screen's.
fn ratio(candidate: &super::report::CandidateReport) -> Option<f64> {
    candidate
        .confirm
        .as_ref()
        .and_then(|outcome| outcome.ratio)
        .or_else(|| candidate.screen.as_ref().and_then(|outcome| outcome.ratio))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn panel(area: &Area<'_>, dispatch: &DispatchReport) -> Result<(), Box<dyn std::error::Error>> {
    let points: Vec<(f64, f64)> = dispatch
        .candidates
        .iter()
        .filter_map(|c| Some((c.index as f64, ratio(c)?)))
        .collect();
    let bars: Vec<(f64, [f64; 2])> = dispatch
        .candidates
        .iter()
        .filter_map(|c| Some((c.index as f64, c.confirm.as_ref()?.interval?)))
        .collect();
    let values = points
        .iter()
        .map(|(_, y)| *y)
        .chain(bars.iter().flat_map(|(_, [low, high])| [*low, *high]))
        .chain([1.0]);
    let (low, high) = values.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let pad = ((high - low) * 0.1).max(0.02);
    let last = dispatch.candidates.len().max(1) as f64;
    let title = match dispatch.winner {
        Some(index) => format!("{}: winner #{index}", dispatch.key),
        None => format!("{}: none beat IREE's own", dispatch.key),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(-0.5..last - 0.5, (low - pad)..(high + pad))?;
    chart
        .configure_mesh()
        .x_desc("candidate (0: IREE's own)")
        .y_desc("time / IREE's own")
        .disable_x_mesh()
        .draw()?;
    chart.draw_series(LineSeries::new([(-0.5, 1.0), (last - 0.5, 1.0)], &BLACK))?;
    for (x, [low, high]) in &bars {
        chart.draw_series(LineSeries::new([(*x, *low), (*x, *high)], &BLUE))?;
    }
    let winner = dispatch.winner.map(|index| index as f64);
    chart.draw_series(points.iter().map(|&(x, y)| {
        let style = if Some(x) == winner {
            RED.filled()
        } else {
            BLUE.filled()
        };
        Circle::new((x, y), 4, style)
    }))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Status;
    use crate::tune::report::{CandidateReport, Outcome, Phases};

    fn outcome(ratio: f64, interval: Option<[f64; 2]>) -> Outcome {
        Outcome {
            status: Status::Faster,
            message: None,
            ratio: Some(ratio),
            interval,
            confidence: Some(0.99),
            rounds: Some(8),
            max_abs_diff: Some(0.0),
            journaled: false,
        }
    }

    fn candidate(index: usize, screen: Option<f64>, confirm: Option<[f64; 3]>) -> CandidateReport {
        CandidateReport {
            index,
            knobs: format!("k{index}"),
            lowering_config: String::new(),
            compiled: Some(true),
            screen: screen.map(|ratio| outcome(ratio, None)),
            confirm: confirm.map(|[ratio, low, high]| outcome(ratio, Some([low, high]))),
            verdict: String::new(),
        }
    }

    fn report(candidates: Vec<CandidateReport>) -> Report {
        Report {
            version: 1,
            payload: "model.mlir".into(),
            target: "host".into(),
            device: "local-task".into(),
            flags: Vec::new(),
            order: "model".into(),
            dispatches: vec![DispatchReport {
                key: "matmul 512x512x512 f32*f32->f32".into(),
                functions: vec!["main".into()],
                matcher: "match".into(),
                compiled: candidates.len(),
                candidates,
                winner: Some(2),
                share: Some(1.0),
            }],
            skipped: Vec::new(),
            held_in_store: 0,
            resumed: 0,
            budget_exhausted: false,
            model: Vec::new(),
            model_note: None,
            shares_note: None,
            phases: Phases::default(),
            written: Vec::new(),
            library: None,
        }
    }

    #[test]
    fn each_timed_candidate_is_a_point_and_the_same_report_draws_the_same_bytes() {
        let timed = report(vec![
            candidate(0, Some(1.0), None),
            candidate(1, Some(1.2), None),
            candidate(2, Some(0.8), Some([0.75, 0.7, 0.8])),
            candidate(3, None, None),
        ]);
        let drawn = svg(&timed).unwrap().unwrap();
        assert!(drawn.starts_with("<svg"), "{}", &drawn[..40]);
        assert!(drawn.contains("matmul 512x512x512 f32*f32-&gt;f32: winner #2"));
        assert_eq!(drawn.matches("<circle").count(), 3);
        assert_eq!(svg(&timed).unwrap().unwrap(), drawn);
        // Nothing timed: no picture.
        let untimed = report(vec![candidate(0, None, None)]);
        assert_eq!(svg(&untimed).unwrap(), None);
    }
}
