//! The statistics of a timing comparison: medians, spread, and the rule that calls a config
//! faster or slower.
//!
//! The rule (stated in `bench --help` and docs/bench.md): a config is *faster* (or *slower*)
//! only when both hold:
//! 1. a two-sided Mann-Whitney U test over all interleaved samples of the two variants gives
//!    p < `alpha` (0.01 by default): the two sets of samples are not plausibly one distribution;
//! 2. the ratio of the medians differs from 1 by more than `min_effect` (1 % by default): a
//!    difference smaller than that is not worth shipping even when it is real.
//!
//! Otherwise "no difference". Why a rank test: timings are skewed (a few slow outliers when the
//! machine is busy), so a test on means would be pulled by outliers; ranks are not.

use serde::Serialize;

/// Median, quartiles and extremes of a set of samples (microseconds).
#[derive(Clone, Debug, PartialEq, Serialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rule {
    /// The significance level of the rank test.
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

/// A comparison of tuned against baseline samples.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// IREE's own config.
    pub baseline: Summary,
    /// The library's config.
    pub tuned: Summary,
    /// tuned median / baseline median (below 1 is faster).
    pub ratio: f64,
    /// The two-sided p-value of the Mann-Whitney U test.
    pub p_value: f64,
    /// The verdict under the rule.
    pub verdict: Verdict,
}

/// Compares two sets of samples under `rule`.
pub fn compare(baseline: &[f64], tuned: &[f64], rule: Rule) -> Comparison {
    let (base, tune) = (Summary::of(baseline), Summary::of(tuned));
    let ratio = tune.median_us / base.median_us;
    let p_value = mann_whitney_p(baseline, tuned);
    let verdict = if p_value < rule.alpha && ratio < 1.0 - rule.min_effect {
        Verdict::Faster
    } else if p_value < rule.alpha && ratio > 1.0 + rule.min_effect {
        Verdict::Slower
    } else {
        Verdict::NoDifference
    };
    Comparison {
        baseline: base,
        tuned: tune,
        ratio,
        p_value,
        verdict,
    }
}

/// The two-sided p-value of the Mann-Whitney U test (normal approximation with tie and
/// continuity corrections). 1 when either side has no samples or all samples tie.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Average ranks over ties; the tie term of the variance.
    let mut rank_sum_a = 0.0;
    let mut ties = 0.0;
    let mut index = 0;
    while index < all.len() {
        let mut end = index;
        while end + 1 < all.len() && all[end + 1].0 == all[index].0 {
            end += 1;
        }
        let count = (end - index + 1) as f64;
        let rank = (index + end) as f64 / 2.0 + 1.0;
        rank_sum_a += rank * all[index..=end].iter().filter(|(_, in_a)| *in_a).count() as f64;
        ties += count * count * count - count;
        index = end + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let n = n1 + n2;
    let mean = n1 * n2 / 2.0;
    let variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    (2.0 * normal_upper_tail(z)).min(1.0)
}

/// P(Z > z) for a standard normal Z (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn normal_upper_tail(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-x * x).exp()
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

    #[test]
    fn separated_samples_are_a_difference_and_interleaved_ones_are_not() {
        let base: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i)).collect();
        let fast: Vec<f64> = (0..10).map(|i| 50.0 + f64::from(i)).collect();
        let faster = compare(&base, &fast, Rule::default());
        assert_eq!(faster.verdict, Verdict::Faster);
        assert!(faster.p_value < 0.001, "{}", faster.p_value);
        assert_eq!(
            compare(&fast, &base, Rule::default()).verdict,
            Verdict::Slower
        );
        let same: Vec<f64> = (0..10).map(|i| 100.5 + f64::from(i)).collect();
        let none = compare(&base, &same, Rule::default());
        assert_eq!(none.verdict, Verdict::NoDifference);
        assert!(none.p_value > 0.5, "{}", none.p_value);
    }

    #[test]
    fn a_significant_but_tiny_difference_is_no_difference() {
        let base: Vec<f64> = (0..20).map(|i| 1000.0 + f64::from(i) * 0.01).collect();
        let tuned: Vec<f64> = base.iter().map(|v| v * 0.995).collect();
        let comparison = compare(&base, &tuned, Rule::default());
        assert!(comparison.p_value < 0.01);
        assert_eq!(comparison.verdict, Verdict::NoDifference);
    }

    #[test]
    fn the_p_value_matches_a_reference() {
        // U = 0, n1 = n2 = 5: z = (12.5 - 0.5) / sqrt(25 / 12 * 11) = 2.5067, p = erfc(z / sqrt 2) = 0.012186
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 0.012_186).abs() < 1e-5, "{p}");
        assert_eq!(mann_whitney_p(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
        assert_eq!(mann_whitney_p(&[], &[1.0]), 1.0);
    }
}
