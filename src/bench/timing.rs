//! Timing one comparison: paired rounds (IREE's config and the library's, one runtime process
//! each per round, the order reversed every other round) until the comparison settles at one of
//! its looks, the rounds run out or the budget is spent; and the progress line of the whole
//! run, with its estimate of the time left.

use std::path::PathBuf;
use std::time::Duration;

use super::{stats, Options, Progress, Row, Status};
use crate::iree::runtime::{Call, Runtime};

/// The timing's progress: a line per round with an estimate of the time left (the mean time
/// of a round so far, times the rounds left to this comparison's next look and the first look
/// of each comparison still to come: an estimate that assumes every comparison settles at its
/// first look, the common case).
pub(super) struct Tracker<'a> {
    progress: Progress<'a>,
    /// Comparisons to time in all (function rows of a module with several functions add to it).
    comparisons: std::cell::Cell<usize>,
    /// Comparisons finished.
    done: std::cell::Cell<usize>,
    /// Rounds timed so far, and the time they took.
    rounds: std::cell::Cell<(u32, Duration)>,
    first_look: u32,
}

impl<'a> Tracker<'a> {
    pub(super) fn new(progress: Progress<'a>, comparisons: usize, first_look: u32) -> Tracker<'a> {
        Tracker {
            progress,
            comparisons: std::cell::Cell::new(comparisons),
            done: std::cell::Cell::new(0),
            rounds: std::cell::Cell::new((0, Duration::ZERO)),
            first_look,
        }
    }

    /// `more` comparisons than counted at the start.
    pub(super) fn add(&self, more: usize) {
        self.comparisons.set(self.comparisons.get() + more);
    }

    /// One round of `row`'s comparison took `took`; `round` of `until` (its next look) done.
    pub(super) fn round(&self, row: &Row, (round, until): (usize, u32), took: Duration) {
        let (count, total) = self.rounds.get();
        let (count, total) = (count + 1, total + took);
        self.rounds.set((count, total));
        let comparison = self.done.get() + 1;
        let later = self.comparisons.get().saturating_sub(comparison);
        let left = (until as usize).saturating_sub(round) + later * self.first_look as usize;
        let eta = total.as_secs_f64() / f64::from(count) * left as f64;
        // The estimate first: a terminal's line is cut at its width, names last.
        (self.progress)(&format!(
            "timing {}/{}, ETA {}: round {round}/{until} of {} ({})",
            comparison,
            self.comparisons.get().max(comparison),
            eta_text(eta),
            row.case,
            row.name,
        ));
    }

    /// A comparison is finished.
    pub(super) fn finished(&self) {
        self.done.set(self.done.get() + 1);
    }
}

/// Seconds as a short duration: `45s`, `3m05s`, `1h02m`.
fn eta_text(seconds: f64) -> String {
    let seconds = seconds.max(0.0).round() as u64;
    match seconds {
        0..=59 => format!("{seconds}s"),
        60..=3599 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds / 60 % 60),
    }
}

pub(super) type Variant = (PathBuf, Option<String>, Vec<String>);

/// Times two variants interleaved (A B, B A, ...) and judges them on the paired rounds, adding
/// rounds at the planned looks until the comparison settles, the rounds run out or the budget
/// is spent.
pub(super) fn timed(
    runtime: &Runtime,
    options: &Options,
    (base, tuned): (Variant, Variant),
    row: Row,
    progress: &Tracker<'_>,
) -> Row {
    let row = timed_rounds(runtime, options, (base, tuned), row, progress);
    progress.finished();
    row
}

fn timed_rounds(
    runtime: &Runtime,
    options: &Options,
    (base, tuned): (Variant, Variant),
    mut row: Row,
    progress: &Tracker<'_>,
) -> Row {
    let plan = stats::looks(options.rounds, options.max_rounds);
    let alpha_look = options.rule.alpha / plan.len() as f64;
    let started = std::time::Instant::now();
    let mut rounds: Vec<stats::Round> = Vec::new();
    let mut comparison = None;
    for (look, &until) in plan.iter().enumerate() {
        while rounds.len() < until as usize {
            let round_started = std::time::Instant::now();
            match time_round(runtime, options, (&base, &tuned), rounds.len()) {
                Ok(round) => rounds.push(round),
                Err(message) => return row.failed(message),
            }
            progress.round(&row, (rounds.len(), until), round_started.elapsed());
        }
        let judged = stats::compare_rounds(&rounds, options.rule, alpha_look);
        let out_of_time = options
            .budget
            .is_some_and(|budget| started.elapsed() >= budget);
        let done = judged.settled || out_of_time || look + 1 == plan.len();
        comparison = Some(judged);
        if done {
            break;
        }
    }
    let comparison = comparison.expect("at least one look");
    row.status = Status::of(comparison.verdict);
    row.timing = Some(comparison);
    row.samples_us = Some((
        rounds
            .iter()
            .flat_map(|round| round.0.iter().copied())
            .collect(),
        rounds
            .iter()
            .flat_map(|round| round.1.iter().copied())
            .collect(),
    ));
    row
}

/// One round: each variant timed in one runtime process, the order reversed every other
/// round.
fn time_round(
    runtime: &Runtime,
    options: &Options,
    (base, tuned): (&Variant, &Variant),
    index: usize,
) -> Result<stats::Round, String> {
    let order = if index % 2 == 0 {
        [false, true]
    } else {
        [true, false]
    };
    let mut round: stats::Round = (Vec::new(), Vec::new());
    for is_tuned in order {
        let (module, function, inputs) = if is_tuned { tuned } else { base };
        let call = Call {
            module,
            device: &options.device,
            function: function.as_deref(),
            inputs,
        };
        let times = runtime
            .benchmark(
                &call,
                options.repetitions,
                options.min_time,
                options.run_timeout,
            )
            .map_err(|error| {
                let which = if is_tuned {
                    "the library's config"
                } else {
                    "IREE's own config"
                };
                format!("timing {which} failed: {error}")
            })?;
        if is_tuned {
            round.1 = times;
        } else {
            round.0 = times;
        }
    }
    Ok(round)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_estimates_the_time_left_from_the_rounds_so_far() {
        let lines = std::sync::Mutex::new(Vec::new());
        let progress = |line: &str| lines.lock().unwrap().push(line.to_string());
        let tracker = Tracker::new(&progress, 2, 10);
        let row = Row::named("m.mlir", None, "function", "main".into());
        tracker.round(&row, (1, 10), Duration::from_secs(2));
        tracker.round(&row, (2, 10), Duration::from_secs(4));
        tracker.finished();
        tracker.add(1);
        tracker.round(&row, (1, 10), Duration::from_secs(3));
        let lines = lines.into_inner().unwrap();
        // 2 s a round: 9 rounds of this comparison and 10 of the next left.
        assert_eq!(lines[0], "timing 1/2, ETA 38s: round 1/10 of m.mlir (main)");
        // 3 s a round: 8 + 10.
        assert_eq!(lines[1], "timing 1/2, ETA 54s: round 2/10 of m.mlir (main)");
        // The second of three (one added): 3 s a round, 9 + 10.
        assert_eq!(lines[2], "timing 2/3, ETA 57s: round 1/10 of m.mlir (main)");
        assert_eq!(eta_text(3725.0), "1h02m");
        assert_eq!(eta_text(125.0), "2m05s");
    }
}
