//! Wilcoxon signed-rank test for paired samples, matching `scipy.stats.wilcoxon` (scipy
//! 1.17) with its defaults: `zero_method="wilcox"`, `correction=False`, `method="auto"`.
//!
//! How scipy 1.17's `method="auto"` chooses the null distribution (read from
//! `scipy/stats/_wilcoxon.py`), with N the number of pairs *before* zeros are dropped:
//! 1. N > 50 → normal approximation;
//! 2. otherwise, no ties among |d| and no zero d → exact distribution of R+;
//! 3. otherwise, N ≤ 13 → a permutation test over all 2^N sign flips of d (scipy's
//!    `PermutationMethod()` with 9999 resamples enumerates them exactly when 2^N ≤ 9999);
//! 4. otherwise → normal approximation with the tie correction of the variance.
//!
//! Case 3 is exact and deterministic; the zeros stay in the data but contribute nothing
//! to R+ under any sign flip, so the p-value equals that of the sign flips of the non-zero
//! differences alone. Both exact branches are computed here from integer counts of
//! subsets of (doubled, so tied mid-ranks stay integral) ranks, which gives p-values
//! bit-identical to scipy's (scipy's float sums are exact too: counts < 2^53).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The alternative hypothesis about the differences d = x − y (scipy's `alternative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    /// d is not symmetric about zero (`"two-sided"`).
    TwoSided,
    /// d is stochastically smaller than zero, i.e. x tends to be smaller than y (`"less"`).
    Less,
    /// d is stochastically larger than zero, i.e. x tends to be larger than y (`"greater"`).
    Greater,
}

/// Which null distribution produced the p-value (scipy's `method="auto"` choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WilcoxonMethod {
    /// Exact distribution of the signed-rank statistic: at most 50 pairs, no zero
    /// differences, no ties among |d|.
    Exact,
    /// Exact permutation test over all sign flips of d (scipy's `PermutationMethod`):
    /// at most 13 pairs (zeros included) with ties or zeros. Tied |d| get mid-ranks.
    Permutation,
    /// Normal approximation without continuity correction, with the tie correction of
    /// the variance: more than 50 pairs, or 14..=50 pairs with ties or zeros.
    Normal,
}

/// The outcome of [`wilcoxon_signed_rank`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WilcoxonResult {
    /// scipy's statistic: min(R+, R−) for [`Alternative::TwoSided`], R+ otherwise, where
    /// R+ (R−) is the sum of the (mid-)ranks of |d| over positive (negative) differences.
    pub statistic: f64,
    /// The p-value, in [0, 1].
    pub p_value: f64,
    /// Number of non-zero differences (zero differences are dropped, `zero_method="wilcox"`).
    pub n: usize,
    /// The null distribution used.
    pub method: WilcoxonMethod,
}

/// Why [`wilcoxon_signed_rank`] could not compute a test.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WilcoxonError {
    /// `x` and `y` have different lengths.
    #[error(
        "Wilcoxon signed-rank test: x has {x_len} values but y has {y_len}; \
         paired samples must have the same length"
    )]
    LengthMismatch {
        /// Length of `x`.
        x_len: usize,
        /// Length of `y`.
        y_len: usize,
    },
    /// No pairs at all.
    #[error("Wilcoxon signed-rank test: empty input; at least one pair (x[i], y[i]) is needed")]
    Empty,
    /// Every difference `x[i] − y[i]` is zero, so nothing is left once zeros are dropped.
    #[error(
        "Wilcoxon signed-rank test: all {n} differences x[i] - y[i] are zero; the test is \
         undefined once zero differences are dropped (zero_method \"wilcox\")"
    )]
    AllZero {
        /// Number of pairs.
        n: usize,
    },
    /// A value (or a difference that overflowed) is NaN or infinite.
    #[error(
        "Wilcoxon signed-rank test: {input}[{index}] = {value} is not finite; \
         all values and differences must be finite"
    )]
    NonFinite {
        /// `"x"`, `"y"` or `"x - y"` (the difference overflowed).
        input: &'static str,
        /// Position of the offending pair.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// Wilcoxon signed-rank test of the paired differences d = x − y.
///
/// `x` and `y` are two samples of equal length N, paired by position (e.g. the metric of
/// two methods over N repetitions). Reproduces `scipy.stats.wilcoxon(x, y,
/// alternative=...)` of scipy 1.17 with its defaults: zero differences are dropped
/// (`zero_method="wilcox"`), tied |d| get mid-ranks, no continuity correction, and the
/// null distribution is chosen as in `method="auto"` (see the module docs and
/// [`WilcoxonMethod`]; the thresholds 50 and 13 count pairs *before* zeros are dropped).
///
/// Two-sided p-values are min(1, 2·min(P(T ≤ t), P(T ≥ t))) for the exact and
/// permutation distributions and 2·Φ(−|z|) for the normal one, where
/// z = (R+ − n(n+1)/4) / sqrt((n(n+1)(2n+1) − Σ(t³ − t)/2) / 24), t running over the sizes
/// of the groups of tied |d|, and n the number of non-zero differences.
///
/// # Errors
/// [`WilcoxonError::LengthMismatch`] if the lengths differ, [`WilcoxonError::Empty`] for
/// no pairs, [`WilcoxonError::NonFinite`] for a NaN or infinite value or difference, and
/// [`WilcoxonError::AllZero`] if every difference is zero. (scipy returns NaN instead of
/// the last three.)
pub fn wilcoxon_signed_rank(
    x: &[f64],
    y: &[f64],
    alternative: Alternative,
) -> Result<WilcoxonResult, WilcoxonError> {
    if x.len() != y.len() {
        return Err(WilcoxonError::LengthMismatch {
            x_len: x.len(),
            y_len: y.len(),
        });
    }
    if x.is_empty() {
        return Err(WilcoxonError::Empty);
    }
    let mut d = Vec::with_capacity(x.len());
    for (index, (&xi, &yi)) in x.iter().zip(y).enumerate() {
        for (input, value) in [("x", xi), ("y", yi), ("x - y", xi - yi)] {
            if !value.is_finite() {
                return Err(WilcoxonError::NonFinite {
                    input,
                    index,
                    value,
                });
            }
        }
        d.push(xi - yi);
    }
    let n_total = d.len();
    let nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
    let n_zero = n_total - nonzero.len();
    if nonzero.is_empty() {
        return Err(WilcoxonError::AllZero { n: n_total });
    }
    let n = nonzero.len();

    // Mid-ranks of |d| among the non-zero differences, doubled so that they are integers:
    // a tie group at sorted positions i..j (0-based, j exclusive) has mid-rank (i+1+j)/2.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| nonzero[a].abs().total_cmp(&nonzero[b].abs()));
    let mut rank2 = vec![0u64; n];
    let mut has_ties = false;
    let mut tie_correction = 0.0f64;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && nonzero[order[j]].abs() == nonzero[order[i]].abs() {
            j += 1;
        }
        let t = (j - i) as f64;
        if j - i > 1 {
            has_ties = true;
        }
        tie_correction += t * t * t - t;
        for &k in &order[i..j] {
            rank2[k] = (i + 1 + j) as u64;
        }
        i = j;
    }
    let r_plus2: u64 = (0..n).filter(|&k| nonzero[k] > 0.0).map(|k| rank2[k]).sum();
    let r_minus2: u64 = (0..n).filter(|&k| nonzero[k] < 0.0).map(|k| rank2[k]).sum();
    let r_plus = r_plus2 as f64 / 2.0;
    let r_minus = r_minus2 as f64 / 2.0;

    let method = if n_total > 50 {
        WilcoxonMethod::Normal
    } else if !has_ties && n_zero == 0 {
        WilcoxonMethod::Exact
    } else if n_total <= 13 {
        WilcoxonMethod::Permutation
    } else {
        WilcoxonMethod::Normal
    };

    let p_value = match method {
        WilcoxonMethod::Exact | WilcoxonMethod::Permutation => {
            exact_p_value(&rank2, r_plus2, alternative)
        }
        WilcoxonMethod::Normal => {
            // Same order of operations as scipy's `_wilcoxon_statistic`.
            let nf = n as f64;
            let mean = nf * (nf + 1.0) * 0.25;
            let var24 = nf * (nf + 1.0) * (2.0 * nf + 1.0);
            let se = ((var24 - tie_correction / 2.0) / 24.0).sqrt();
            let z = (r_plus - mean) / se;
            match alternative {
                Alternative::Less => normal_cdf(z),
                Alternative::Greater => normal_cdf(-z),
                Alternative::TwoSided => 2.0 * normal_cdf(-z.abs()),
            }
        }
    };

    let statistic = match alternative {
        Alternative::TwoSided => r_plus.min(r_minus),
        Alternative::Less | Alternative::Greater => r_plus,
    };
    Ok(WilcoxonResult {
        statistic,
        p_value,
        n,
        method,
    })
}

/// p-value of the observed doubled R+ under the null that each difference is positive or
/// negative with probability 1/2 independently, given the doubled ranks.
///
/// Counts the sign patterns with each value of the doubled R+ by dynamic programming
/// (subset sums of `rank2`). With at most 50 ranks the counts are below 2^50, so u64 is
/// exact and count / 2^n is an exact f64 division by a power of two.
fn exact_p_value(rank2: &[u64], r_plus2: u64, alternative: Alternative) -> f64 {
    let total: u64 = rank2.iter().sum();
    let mut counts = vec![0u64; total as usize + 1];
    counts[0] = 1;
    let mut reach = 0usize;
    for &r in rank2 {
        let r = r as usize;
        for s in (0..=reach).rev() {
            if counts[s] != 0 {
                counts[s + r] += counts[s];
            }
        }
        reach += r;
    }
    let t = r_plus2 as usize;
    let le: u64 = counts[..=t].iter().sum();
    let ge: u64 = counts[t..].iter().sum();
    let denom = 2f64.powi(rank2.len() as i32);
    let p_le = le as f64 / denom;
    let p_ge = ge as f64 / denom;
    match alternative {
        Alternative::Less => p_le,
        Alternative::Greater => p_ge,
        Alternative::TwoSided => (2.0 * p_le.min(p_ge)).min(1.0),
    }
}

/// Standard normal distribution function Φ(z), accurate to a few 1e-14 relative in both
/// tails (checked against mpmath for z in [−37.6, 10]; scipy's `special.ndtr` agrees to
/// 2.3e-13 down to z = −37, below which scipy loses accuracy in the subnormal range).
///
/// statrs' `erfc` is not used: its relative error reaches ~1e-10 (e.g. at z = −1).
/// Instead: for |z| < 2, Φ(z) = 1/2 + φ(z)·Σ_{k≥0} z^{2k+1}/(1·3·…·(2k+1)) (terms of one
/// sign, so no cancellation inside the sum); for |z| ≥ 2, the upper tail
/// Q(|z|) = φ(|z|)/(|z| + 1/(|z| + 2/(|z| + 3/(|z| + …)))) (Laplace's continued fraction
/// for the Mills ratio, evaluated by the modified Lentz method), with Φ(z) = Q(−z) for
/// z < 0 and 1 − Q(z) otherwise.
fn normal_cdf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    let a = z.abs();
    if a < 2.0 {
        let z2 = z * z;
        let mut term = z;
        let mut sum = z;
        for k in 1..200 {
            term *= z2 / (2 * k + 1) as f64;
            sum += term;
            if term.abs() <= sum.abs() * 1e-17 {
                break;
            }
        }
        return 0.5 + normal_pdf(z) * sum;
    }
    if a > 40.0 {
        // Q(40) ≈ 3.7e-350 underflows to 0.
        return if z < 0.0 { 0.0 } else { 1.0 };
    }
    // Modified Lentz for f = a + 1/(a + 2/(a + 3/(a + …))).
    const TINY: f64 = 1e-300;
    let mut f = a;
    let mut c = a;
    let mut d = 0.0f64;
    for k in 1..1000 {
        let ak = k as f64;
        d = a + ak * d;
        if d.abs() < TINY {
            d = TINY;
        }
        d = 1.0 / d;
        c = a + ak / c;
        if c.abs() < TINY {
            c = TINY;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    let q = normal_pdf(a) / f;
    if z < 0.0 {
        q
    } else {
        1.0 - q
    }
}

/// Standard normal density φ(z) = exp(−z²/2)/√(2π); z² is split into its rounded value
/// and the exact rounding error (fused multiply-add) so that the tail keeps full relative
/// accuracy for large |z|.
fn normal_pdf(z: f64) -> f64 {
    let p = z * z;
    let e = z.mul_add(z, -p);
    (-0.5 * p).exp() * (-0.5 * e).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_distribution_sums_to_one_and_is_symmetric() {
        // n = 5, ranks 1..5: 32 sign patterns, R+ ranges over 0..=15.
        let rank2: Vec<u64> = (1..=5).map(|r| 2 * r).collect();
        // P(R+ <= 0) = 1/32; P(R+ >= 0) = 1.
        assert_eq!(exact_p_value(&rank2, 0, Alternative::Less), 1.0 / 32.0);
        assert_eq!(exact_p_value(&rank2, 0, Alternative::Greater), 1.0);
        assert_eq!(exact_p_value(&rank2, 0, Alternative::TwoSided), 2.0 / 32.0);
        // Symmetry: P(R+ <= t) = P(R+ >= 15 - t).
        for t in 0..=15u64 {
            assert_eq!(
                exact_p_value(&rank2, 2 * t, Alternative::Less),
                exact_p_value(&rank2, 2 * (15 - t), Alternative::Greater)
            );
        }
    }

    #[test]
    fn normal_cdf_against_mpmath() {
        // mpmath 1.3 (mp.dps = 40): float(mpmath.ncdf(z)) for each z below.
        let cases = [
            (0.0, 0.5),
            (-1.0, 0.15865525393145705),
            (1.959963984540054, 0.975),
            (-1.999, 0.022804176932658883),
            (-2.0, 0.02275013194817921),
            (-5.0, 2.866515718791939e-07),
            (-10.0, 7.619853024160525e-24),
            (-12.5, 3.732564298877713e-36),
            (-30.0, 4.906713927148187e-198),
            (3.0, 0.9986501019683699),
        ];
        for (z, want) in cases {
            let got = normal_cdf(z);
            assert!(
                (got / want - 1.0).abs() < 1e-13,
                "z = {z}: {got:e} vs {want:e}"
            );
        }
        assert_eq!(normal_cdf(-50.0), 0.0);
        assert_eq!(normal_cdf(50.0), 1.0);
    }
}
