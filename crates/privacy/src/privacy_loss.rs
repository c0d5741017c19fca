//! Statistics of an empirical privacy audit (issue 13): Clopper–Pearson intervals for the
//! probability of an output event, and the lower bound on ε they certify.
//!
//! A mechanism M is ε-DP (central) or ε-LDP (local) only if for every pair of neighbouring
//! inputs D, D′ and every event E, P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E]. Drawing n releases of each
//! input and counting k and k′ releases in E, exact binomial (Clopper–Pearson) intervals give,
//! with probability at least 1 − α over the draws, p ≥ lower(k) and p′ ≤ upper(k′), hence
//! ε ≥ ln(lower(k) / upper(k′)) (the audit of Jagielski, Ullman and Oprea, NeurIPS 2020, §3,
//! and of Ding et al., StatDP, CCS 2018, with exact instead of approximate intervals).
//! A bound above the claimed ε is a violation at confidence 1 − α, whatever the mechanism.

use statrs::function::beta::inv_beta_reg;

/// A two-sided interval [lo, hi] ⊆ [0, 1] for a binomial probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbabilityInterval {
    /// The lower end.
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
}

/// The exact (Clopper–Pearson, Biometrika 1934) one-sided bounds for p from k successes in n
/// Bernoulli(p) trials, each at level `alpha`: P\[p < lo\] ≤ α and P\[p > hi\] ≤ α over the
/// draws. lo is the α quantile of Beta(k, n − k + 1) (0 for k = 0) and hi the 1 − α
/// quantile of Beta(k + 1, n − k) (1 for k = n), from statrs' inverse regularized beta.
///
/// # Panics
/// If k > n, n = 0, or α is not in (0, 1).
pub fn clopper_pearson(k: u64, n: u64, alpha: f64) -> ProbabilityInterval {
    assert!(
        n > 0 && k <= n,
        "clopper_pearson needs 0 ≤ k ≤ n, n > 0 (k {k}, n {n})"
    );
    assert!(
        alpha > 0.0 && alpha < 1.0,
        "alpha must be in (0, 1), got {alpha}"
    );
    let (kf, nf) = (k as f64, n as f64);
    let lo = if k == 0 {
        0.0
    } else {
        inv_beta_reg(kf, nf - kf + 1.0, alpha)
    };
    let hi = if k == n {
        1.0
    } else {
        inv_beta_reg(kf + 1.0, nf - kf, 1.0 - alpha)
    };
    ProbabilityInterval { lo, hi }
}

/// The lower bound on the privacy loss that one event certifies: with k_a of n_a releases
/// on input a and k_b of n_b on its neighbour b in the event, ln(lo_a / hi_b) from
/// [`clopper_pearson`] at level α/2 each (a union bound: the bound holds with probability
/// at least 1 − α), floored at 0 (no evidence of any loss). Natural log, the unit of ε.
///
/// # Panics
/// As [`clopper_pearson`].
pub fn epsilon_lower_bound(k_a: u64, n_a: u64, k_b: u64, n_b: u64, alpha: f64) -> f64 {
    epsilon_delta_lower_bound(k_a, n_a, k_b, n_b, alpha, 0.0)
}

/// The certified lower bound on ε of an (ε, δ) mechanism from one event E:
/// (ε, δ)-DP gives P_a\[E\] ≤ e^ε·P_b\[E\] + δ, so ε ≥ ln((P_a\[E\] − δ)/P_b\[E\]) (Jagielski,
/// Ullman & Oprea, NeurIPS 2020, §3), taken at the Clopper–Pearson ends as in
/// [`epsilon_lower_bound`] (which is δ = 0); 0 when the lower end does not exceed δ.
///
/// # Panics
/// As [`clopper_pearson`]; if δ is negative or not below 1.
pub fn epsilon_delta_lower_bound(
    k_a: u64,
    n_a: u64,
    k_b: u64,
    n_b: u64,
    alpha: f64,
    delta: f64,
) -> f64 {
    assert!((0.0..1.0).contains(&delta), "delta must be in [0, 1)");
    let lo_a = clopper_pearson(k_a, n_a, alpha / 2.0).lo - delta;
    let hi_b = clopper_pearson(k_b, n_b, alpha / 2.0).hi;
    if lo_a <= 0.0 {
        return 0.0;
    }
    (lo_a / hi_b).ln().max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed forms at the ends: k = 0 gives hi = 1 − α^{1/n}, k = n gives
    /// lo = α^{1/n} (the Beta(1, n) and Beta(n, 1) quantiles).
    #[test]
    fn closed_forms_at_the_ends() {
        for &(n, alpha) in &[(10u64, 0.05), (1000, 0.025), (123_456, 0.001)] {
            let nf = n as f64;
            let zero = clopper_pearson(0, n, alpha);
            assert_eq!(zero.lo, 0.0);
            let want = 1.0 - alpha.powf(1.0 / nf);
            assert!(
                (zero.hi - want).abs() <= 1e-9 * want,
                "n {n}: {} vs {want}",
                zero.hi
            );
            let all = clopper_pearson(n, n, alpha);
            assert_eq!(all.hi, 1.0);
            let want = alpha.powf(1.0 / nf);
            assert!((all.lo - want).abs() <= 1e-9, "n {n}: {} vs {want}", all.lo);
        }
    }

    /// An interior value checked against scipy:
    /// `scipy.stats.beta.ppf(0.025, 30, 71)` = 0.21240642 and
    /// `scipy.stats.beta.ppf(0.975, 31, 70)` = 0.39981468 (k = 30, n = 100).
    #[test]
    fn interior_matches_scipy() {
        let ci = clopper_pearson(30, 100, 0.025);
        assert!((ci.lo - 0.212_406_42).abs() < 1e-6, "{}", ci.lo);
        assert!((ci.hi - 0.399_814_68).abs() < 1e-6, "{}", ci.hi);
    }

    /// The bound is 0 without evidence and grows with the observed ratio; it never exceeds
    /// the plug-in ln(k_a/n_a ÷ k_b/n_b).
    #[test]
    fn bound_is_below_the_plug_in_ratio() {
        assert_eq!(epsilon_lower_bound(0, 1000, 10, 1000, 0.05), 0.0);
        assert_eq!(epsilon_lower_bound(500, 1000, 500, 1000, 0.05), 0.0);
        let n = 1_000_000;
        let (k_a, k_b) = (270_000u64, 100_000u64);
        let plug_in = (k_a as f64 / k_b as f64).ln();
        let b = epsilon_lower_bound(k_a, n, k_b, n, 0.05);
        assert!(b > 0.0 && b < plug_in, "{b} vs {plug_in}");
        // Each one-sided bound (level α/2 = 0.025) is about 1.96 standard errors from the
        // estimate, a relative 1.96·√((1 − p)/(p n)): 0.0032 and 0.0059 here, so the bound
        // sits about 0.009 below the plug-in; 0.012 leaves room for the exact intervals.
        assert!(plug_in - b < 0.012, "{b} vs {plug_in}");
    }

    /// The (ε, δ) bound by hand from the intervals it is made of: each interval at level
    /// α/2, δ taken off the lower end of P_a\[E\] (with δ = 0.05 the bound is visibly lower
    /// than at δ = 0).
    #[test]
    fn delta_bound_is_built_from_the_intervals() {
        let (k_a, n_a, k_b, n_b, alpha) = (600u64, 1000u64, 200u64, 1000u64, 0.1);
        let lo_a = clopper_pearson(k_a, n_a, alpha / 2.0).lo;
        let hi_b = clopper_pearson(k_b, n_b, alpha / 2.0).hi;
        for delta in [0.0, 0.05] {
            let want = ((lo_a - delta) / hi_b).ln();
            let got = epsilon_delta_lower_bound(k_a, n_a, k_b, n_b, alpha, delta);
            assert!((got - want).abs() < 1e-12, "delta {delta}: {got} vs {want}");
        }
        assert!(
            epsilon_delta_lower_bound(k_a, n_a, k_b, n_b, alpha, 0.05)
                < epsilon_lower_bound(k_a, n_a, k_b, n_b, alpha) - 0.05
        );
        // δ above the lower end: no evidence.
        assert_eq!(epsilon_delta_lower_bound(10, 1000, 1, 1000, 0.1, 0.5), 0.0);
    }
}
