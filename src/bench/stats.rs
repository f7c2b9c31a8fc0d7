//! The statistics of a timing comparison: medians, spread, and the rule that calls a config
//! faster or slower.
//!
//! The unit of replication is a *round*: one runtime process timing IREE's config and one
//! timing the library's, back to back (order reversed every round). Repetitions inside one
//! process share its clock state, caches and placement, so they are not independent; pooling
//! them as samples made a rank test overconfident (the same config was called "faster,
//! p = 1e-5" and minutes later "no difference"). Each round gives one number, the log of the
//! ratio of its two medians, and the rounds are judged:
//!
//! - the estimate is the median of the per-round log-ratios, reported as a ratio;
//! - its interval is the distribution-free interval of a median from order statistics (the
//!   sign test inverted): exact for any distribution of the rounds' ratios, unmoved by a round
//!   the machine disturbed, and valid from as few rounds as can reach the level
//!   ([`min_rounds`]); the p-value is the two-sided sign test's;
//! - a config is *faster* (or *slower*) only when the interval excludes 1 and the estimate is
//!   more than `min_effect` from 1; the comparison is *settled* when it is faster or slower, or
//!   when the interval lies inside the ±`min_effect` band (no difference worth shipping);
//!   otherwise more rounds may settle it.
//!
//! Looking again after more rounds is a new test: [`looks`] plans the looks (the first round
//! count, doubled up to the most), and each look is made at `alpha` divided by the number of
//! looks (Bonferroni), so the chance of any false call over all looks stays below `alpha`
//! whenever the run stops.

use serde::Serialize;

/// Median, quartiles and extremes of a set of samples (microseconds).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Summary {
    /// How many samples.
    pub samples: usize,
    /// The median.
    pub median_us: f64,
    /// The first quartile.
    pub q1_us: f64,
    /// The third quartile.
    pub q3_us: f64,
    /// The fastest sample.
    pub min_us: f64,
    /// The slowest sample.
    pub max_us: f64,
}

/// The `q` quantile (0..=1) of sorted values, linearly interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    let fraction = position - low as f64;
    sorted[low] + (sorted[high] - sorted[low]) * fraction
}

impl Summary {
    /// The summary of `samples` (any order).
    pub fn of(samples: &[f64]) -> Summary {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Summary {
            samples: sorted.len(),
            median_us: quantile(&sorted, 0.5),
            q1_us: quantile(&sorted, 0.25),
            q3_us: quantile(&sorted, 0.75),
            min_us: sorted.first().copied().unwrap_or(f64::NAN),
            max_us: sorted.last().copied().unwrap_or(f64::NAN),
        }
    }
}

/// What the comparison says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The tuned config is faster beyond the noise.
    Faster,
    /// The tuned config is slower beyond the noise.
    Slower,
    /// No difference beyond the noise.
    NoDifference,
}

impl Verdict {
    /// The words of reports.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoDifference => "no difference",
        }
    }
}

/// The decision rule's thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Rule {
    /// The chance of a false call over all looks (each look gets `alpha` / looks).
    pub alpha: f64,
    /// The smallest relative difference of medians called a difference.
    pub min_effect: f64,
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            alpha: 0.01,
            min_effect: 0.01,
        }
    }
}

/// One round: the repetitions of IREE's config and of the library's, microseconds.
pub type Round = (Vec<f64>, Vec<f64>);

/// A comparison of the library's config against IREE's, over paired rounds.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Comparison {
    /// IREE's own config (every repetition of every round: descriptive only).
    pub baseline: Summary,
    /// The library's config (likewise).
    pub tuned: Summary,
    /// The estimate of tuned / baseline: the median over rounds of each round's ratio of
    /// medians (below 1 is faster).
    pub ratio: f64,
    /// The interval's lower end (`None`: unbounded, too few rounds for the level).
    pub ci_low: Option<f64>,
    /// The interval's upper end (`None`: unbounded).
    pub ci_high: Option<f64>,
    /// The interval's confidence: 1 - alpha / looks.
    pub confidence: f64,
    /// The two-sided p-value of the sign test on the rounds' ratios.
    pub p_value: f64,
    /// How many rounds were judged.
    pub rounds: usize,
    /// Whether the verdict is settled (faster, slower, or an interval inside the band).
    pub settled: bool,
    /// The spread of the rounds' ratios: the ratio of their third to their first quartile.
    pub spread: f64,
    /// The verdict under the rule.
    pub verdict: Verdict,
}

/// A confidence as a percentage, as short as it stays exact to a tenth (`99`, `99.7`).
pub fn percent(confidence: f64) -> String {
    let tenths = (confidence * 1000.0).floor() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
    }
}

/// The round counts at which a run looks: `first`, doubled, up to `most` (which is always
/// looked at). One look when `most <= first`.
pub fn looks(first: u32, most: u32) -> Vec<u32> {
    let mut looks = vec![first.max(1)];
    while let Some(&last) = looks.last() {
        if last >= most {
            break;
        }
        looks.push((last * 2).min(most));
    }
    looks
}

/// The fewest rounds whose interval can be bounded at level `alpha` (two-sided): all rounds
/// on one side have probability 2 / 2^n under no difference.
pub fn min_rounds(alpha: f64) -> usize {
    (1..=64)
        .find(|&n| 2.0 * 0.5f64.powi(n as i32) <= alpha)
        .unwrap_or(64)
}

/// P(X <= k) for X ~ Binomial(n, 1/2).
fn binomial_cdf_half(n: usize, k: usize) -> f64 {
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = term;
    for i in 0..k.min(n) {
        term *= (n - i) as f64 / (i + 1) as f64;
        sum += term;
    }
    sum.min(1.0)
}

/// Judges `rounds` under `rule`, each look at level `alpha_look`.
pub fn compare_rounds(rounds: &[Round], rule: Rule, alpha_look: f64) -> Comparison {
    let pooled = |pick: fn(&Round) -> &Vec<f64>| -> Vec<f64> {
        rounds
            .iter()
            .flat_map(|round| pick(round).iter().copied())
            .collect()
    };
    let (base, tune) = (
        Summary::of(&pooled(|round| &round.0)),
        Summary::of(&pooled(|round| &round.1)),
    );
    let mut logs: Vec<f64> = rounds
        .iter()
        .map(|(b, t)| (Summary::of(t).median_us / Summary::of(b).median_us).ln())
        .filter(|log| log.is_finite())
        .collect();
    logs.sort_by(f64::total_cmp);
    let n = logs.len();
    let ratio = quantile(&logs, 0.5).exp();
    // The interval [x_(k), x_(n+1-k)] covers the median with probability 1 - 2 P(X <= k-1):
    // the largest k whose miss probability is within the level.
    let k = (1..=n / 2)
        .take_while(|&k| 2.0 * binomial_cdf_half(n, k - 1) <= alpha_look)
        .last();
    let (ci_low, ci_high) = match k {
        Some(k) => (Some(logs[k - 1].exp()), Some(logs[n - k].exp())),
        None => (None, None),
    };
    let below = logs.iter().filter(|&&log| log < 0.0).count();
    let above = logs.iter().filter(|&&log| log > 0.0).count();
    let p_value = if below + above == 0 {
        1.0
    } else {
        (2.0 * binomial_cdf_half(below + above, below.min(above))).min(1.0)
    };
    let (low_band, high_band) = (1.0 - rule.min_effect, 1.0 + rule.min_effect);
    let verdict = match (ci_low, ci_high) {
        (_, Some(high)) if high < 1.0 && ratio < low_band => Verdict::Faster,
        (Some(low), _) if low > 1.0 && ratio > high_band => Verdict::Slower,
        _ => Verdict::NoDifference,
    };
    let inside_band = matches!((ci_low, ci_high), (Some(low), Some(high)) if low >= low_band && high <= high_band);
    Comparison {
        baseline: base,
        tuned: tune,
        ratio,
        ci_low,
        ci_high,
        confidence: 1.0 - alpha_look,
        p_value,
        rounds: n,
        settled: verdict != Verdict::NoDifference || inside_band,
        spread: (quantile(&logs, 0.75) - quantile(&logs, 0.25)).exp(),
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_interpolate_quartiles() {
        let summary = Summary::of(&[4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!(summary.median_us, 3.0);
        assert_eq!(summary.q1_us, 2.0);
        assert_eq!(summary.q3_us, 4.0);
        assert_eq!((summary.min_us, summary.max_us), (1.0, 5.0));
        assert_eq!(Summary::of(&[1.0, 2.0]).median_us, 1.5);
    }

    /// `n` rounds whose ratios are `ratio(i)`, each round `reps` repetitions around 100 us
    /// for IREE's config.
    fn rounds(n: usize, reps: usize, ratio: impl Fn(usize) -> f64) -> Vec<Round> {
        (0..n)
            .map(|i| {
                let base: Vec<f64> = (0..reps).map(|j| 100.0 + j as f64 * 0.1).collect();
                let tuned = base.iter().map(|v| v * ratio(i)).collect();
                (base, tuned)
            })
            .collect()
    }

    #[test]
    fn rounds_that_all_agree_are_a_difference_once_there_are_enough() {
        let rule = Rule::default();
        let faster = compare_rounds(&rounds(8, 3, |i| 0.5 + i as f64 * 0.01), rule, 0.01);
        assert_eq!(faster.verdict, Verdict::Faster);
        assert!(faster.settled);
        assert!(
            (faster.p_value - 2.0 / 256.0).abs() < 1e-12,
            "{}",
            faster.p_value
        );
        let (low, high) = (faster.ci_low.unwrap(), faster.ci_high.unwrap());
        assert!(low <= faster.ratio && faster.ratio <= high && high < 1.0);
        let slower = compare_rounds(&rounds(8, 3, |i| 2.0 + i as f64 * 0.01), rule, 0.01);
        assert_eq!(slower.verdict, Verdict::Slower);
        // Seven rounds cannot reach 0.01, however far apart: unbounded, no call, unsettled.
        let few = compare_rounds(&rounds(7, 3, |_| 0.5), rule, 0.01);
        assert_eq!((few.ci_low, few.ci_high), (None, None));
        assert_eq!(few.verdict, Verdict::NoDifference);
        assert!(!few.settled);
        assert_eq!(min_rounds(0.01), 8);
        assert_eq!(min_rounds(0.05), 6);
    }

    #[test]
    fn correlated_repetitions_do_not_make_a_round_count_twice() {
        // Many repetitions per round, all far apart within each round, but the rounds'
        // ratios straddle 1: the pooled samples of old would have been "significant"; the
        // rounds are not.
        let straddle = rounds(12, 50, |i| if i % 2 == 0 { 0.7 } else { 1.4 });
        let comparison = compare_rounds(&straddle, Rule::default(), 0.01);
        assert_eq!(comparison.verdict, Verdict::NoDifference);
        assert!(comparison.p_value > 0.5, "{}", comparison.p_value);
        assert!(!comparison.settled);
        assert!(comparison.spread > 1.9, "{}", comparison.spread);
    }

    #[test]
    fn an_interval_inside_the_band_settles_no_difference() {
        let same = compare_rounds(
            &rounds(20, 3, |i| 1.0 + (i as f64 - 10.0) * 0.0005),
            Rule::default(),
            0.01,
        );
        assert_eq!(same.verdict, Verdict::NoDifference);
        assert!(same.settled, "{same:?}");
        // A real but tiny difference: significant, inside the band, no call.
        let tiny = compare_rounds(
            &rounds(20, 3, |i| 0.995 + i as f64 * 0.0001),
            Rule::default(),
            0.01,
        );
        assert!(tiny.p_value < 0.01);
        assert_eq!(tiny.verdict, Verdict::NoDifference);
    }

    #[test]
    fn looks_double_up_to_the_most() {
        assert_eq!(looks(10, 40), vec![10, 20, 40]);
        assert_eq!(looks(10, 30), vec![10, 20, 30]);
        assert_eq!(looks(8, 8), vec![8]);
        assert_eq!(looks(8, 3), vec![8]);
        // A confidence is never rounded up past what it is.
        assert_eq!(percent(0.99), "99");
        assert_eq!(percent(1.0 - 0.01 / 3.0), "99.6");
    }

    /// The A/A rate on synthetic timings: identical configs, rounds whose level moves with the
    /// machine (every repetition of a round shifted together, as one process's are), judged
    /// with the sequential looks: false calls in at most `alpha` of the runs.
    #[test]
    fn identical_configs_are_rarely_called_different_over_sequential_looks() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let rule = Rule::default();
        let plan = looks(10, 40);
        let alpha_look = rule.alpha / plan.len() as f64;
        let runs = 2000;
        let mut false_calls = 0;
        for _ in 0..runs {
            let mut all: Vec<Round> = Vec::new();
            for &look in &plan {
                while all.len() < look as usize {
                    // A round's load moves both sides by a shared factor, plus each process its own.
                    let shared = 1.0 + uniform() * 0.5;
                    let side = |u: f64| -> Vec<f64> {
                        let own = 1.0 + u * 0.2;
                        (0..5).map(|j| 100.0 * shared * own + j as f64).collect()
                    };
                    let (a, b) = (uniform(), uniform());
                    all.push((side(a), side(b)));
                }
                let comparison = compare_rounds(&all, rule, alpha_look);
                if comparison.settled {
                    false_calls += usize::from(comparison.verdict != Verdict::NoDifference);
                    break;
                }
            }
        }
        assert!(
            (false_calls as f64) <= rule.alpha * runs as f64,
            "{false_calls} of {runs}"
        );
    }
}
