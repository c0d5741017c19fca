//! The LPCT estimator (LPCT paper eq. 8; method card docs/methods/lpct.md §3–§4): every private user
//! releases its leaf indicator vector U_i and V_i = Y_i·U_i, each with Laplace noise of
//! scale 4/ε on every one of the J coordinates (ε/2 each, L1 sensitivity 2); the curator
//! sums them per leaf and classifies by the weighted ratio with the public counts.

use crate::privacy::LaplaceSums;
use rand::Rng;

/// The curator's per-leaf sums of the users' noisy releases (docs/methods/lpct.md §3): for each of the
/// `n_leaves` leaves, Ũ_j = N_P(A_j) + Σ_{i ≤ n_P} b_u ζ_i^j and Ṽ_j = S_P(A_j) +
/// Σ_{i ≤ n_P} b_v ξ_i^j with ζ, ξ standard Laplace, where every leaf receives the noise
/// of **all** n_P users whatever its occupancy. The LPCT paper's release has
/// b_u = b_v = 4/ε (ε/2 for each vector, L1 sensitivity 2; Proposition 2). The sum of n_P
/// Laplace draws is drawn exactly in O(1) by the noise of the n_P users' releases,
/// `u_noise` and `v_noise` ([`crate::privacy::laplace_sums`], which charged the users at
/// the scales b_u and b_v these draw with); per leaf Ũ's noise is drawn before Ṽ's.
///
/// * `private_leaves`: the leaf of each of the n_P private users.
/// * `y`: their 0/1 labels (length n_P).
/// * `u_noise`, `v_noise`: the noise of the indicator and label vectors of the n_P users.
///
/// Returns (Ũ, Ṽ), each of length `n_leaves`.
///
/// # Panics
/// If the lengths differ from each other or from the noise's n_P, or a leaf id is ≥
/// `n_leaves`.
pub fn lpct_noisy_sums<R: Rng + ?Sized>(
    private_leaves: &[usize],
    y: &[f64],
    n_leaves: usize,
    (u_noise, v_noise): (&LaplaceSums, &LaplaceSums),
    rng: &mut R,
) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(private_leaves.len(), y.len(), "one label per private user");
    assert!(
        u_noise.n() == y.len() && v_noise.n() == y.len(),
        "the noise of every private user"
    );
    let mut u = vec![0.0; n_leaves];
    let mut v = vec![0.0; n_leaves];
    for (&leaf, &label) in private_leaves.iter().zip(y) {
        u[leaf] += 1.0;
        v[leaf] += label;
    }
    for j in 0..n_leaves {
        u[j] += u_noise.draw(rng);
        v[j] += v_noise.draw(rng);
    }
    (u, v)
}

/// The public counts of every leaf: U_Q(A_j) = number of public points in leaf j and
/// V_Q(A_j) = number of them with label 1 (docs/methods/lpct.md §1), from the public points' leaves
/// and 0/1 labels.
pub fn public_counts(public_leaves: &[usize], y: &[f64], n_leaves: usize) -> (Vec<f64>, Vec<f64>) {
    let mut u = vec![0.0; n_leaves];
    let mut v = vec![0.0; n_leaves];
    for (&leaf, &label) in public_leaves.iter().zip(y) {
        u[leaf] += 1.0;
        v[leaf] += label;
    }
    (u, v)
}

/// LPCT's predictions for the test points (docs/methods/lpct.md §4.1 and §4.4): a test point in leaf
/// j gets [`lpct_class`]`(Ũ_j, Ṽ_j, U_Q,j, V_Q,j, λ)`, a point outside the domain box
/// (`None`) class 0. `u`, `v`, `u_q`, `v_q` have one entry per leaf.
pub fn lpct_predict(
    test_leaves: &[Option<usize>],
    (u, v): (&[f64], &[f64]),
    (u_q, v_q): (&[f64], &[f64]),
    lambda: f64,
) -> Vec<f64> {
    test_leaves
        .iter()
        .map(|l| l.map_or(0.0, |j| lpct_class(u[j], v[j], u_q[j], v_q[j], lambda)))
        .collect()
}

/// LPCT's class for a test point in a leaf (docs/methods/lpct.md §4.1, LPCT paper eq. 8):
/// η̃ = (Ṽ + λ V_Q) / (Ũ + λ U_Q) and class 1 iff η̃ > 1/2, with the ratio used as it is
/// (no clipping: a negative noisy denominator flips the ratio's sign). A zero denominator
/// follows the reference code's numpy arithmetic: 0/0 (NaN) and negative/0 (−∞) give
/// class 0, positive/0 (+∞) class 1; the paper's 0/0 = 0 agrees.
///
/// * `u`, `v`: the leaf's noisy private sums Ũ, Ṽ.
/// * `u_q`, `v_q`: the leaf's public count U_Q and number of public ones V_Q.
/// * `lambda`: the weight λ ≥ 0 of the public data (λ = 0: LPCT-P and LPDT).
pub fn lpct_class(u: f64, v: f64, u_q: f64, v_q: f64, lambda: f64) -> f64 {
    let num = v + lambda * v_q;
    let den = u + lambda * u_q;
    let class_one = if den == 0.0 {
        num > 0.0
    } else {
        num / den > 0.5
    };
    f64::from(u8::from(class_one))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn zero_and_negative_denominators() {
        // 0/0 → 0, positive/0 → 1, negative/0 → 0 (numpy NaN, +inf, −inf).
        assert_eq!(lpct_class(0.0, 0.0, 0.0, 0.0, 1.0), 0.0);
        assert_eq!(lpct_class(0.0, 2.0, 0.0, 0.0, 1.0), 1.0);
        assert_eq!(lpct_class(0.0, -2.0, 0.0, 0.0, 1.0), 0.0);
        // A negative denominator is used as it is: −3/−2 = 1.5 > ½ → 1; 1/−2 < ½ → 0.
        assert_eq!(lpct_class(-2.0, -3.0, 0.0, 0.0, 0.0), 1.0);
        assert_eq!(lpct_class(-2.0, 1.0, 0.0, 0.0, 0.0), 0.0);
        // Exactly ½ is class 0 (strict >).
        assert_eq!(lpct_class(4.0, 2.0, 0.0, 0.0, 0.0), 0.0);
        // λ weighs the public counts: private says 1 (3/4), public says 0 (1/10).
        assert_eq!(lpct_class(4.0, 3.0, 10.0, 1.0, 0.0), 1.0);
        assert_eq!(lpct_class(4.0, 3.0, 10.0, 1.0, 1.0), 0.0); // 4/14
                                                               // λ = 0 ignores the public data even when the private sums are empty.
        assert_eq!(lpct_class(0.0, 0.0, 10.0, 9.0, 0.0), 0.0);
    }

    /// Ũ_j − N_j and Ṽ_j − S_j are sums of n_P Laplace(4/ε) draws: mean 0, variance
    /// 2·n_P·(4/ε)² = 32 n_P/ε² in every leaf, occupied or not. With n_P = 50, ε = 2 the
    /// variance is 400 (sd 20), scales 4/ε = 2. Over R = 4000 draws of the 3 leaves' sums the sample mean of
    /// each leaf's Ũ noise has standard error 20/√4000 = 0.32: we allow 4 of them (1.3).
    /// The sample variance has relative standard error ≈ √(2/R + κ/R) with the excess
    /// kurtosis κ = 3/n_P = 0.06 of a sum of 50 Laplace draws, i.e. 0.023: we allow 4 of
    /// them (9.3 %).
    #[test]
    fn every_leaf_gets_the_noise_of_all_users() {
        let leaves = [0usize; 50]; // all users in leaf 0; leaves 1 and 2 are empty
        let y: Vec<f64> = (0..50).map(|i| f64::from(u8::from(i % 5 == 0))).collect();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        let sums = |lo: f64| {
            let d = crate::privacy::Domain::OneHot {
                lo,
                hi: 1.0,
                cells: 3,
            };
            crate::privacy::laplace_sums(d, 50, || [1.0; 50], 2.0, "x", 0)
        };
        let (noise_u, noise_v) = (sums(1.0), sums(0.0));
        let r = 4000;
        let mut noise: Vec<Vec<f64>> = (0..6).map(|_| Vec::with_capacity(r)).collect();
        for _ in 0..r {
            let (u, v) = lpct_noisy_sums(&leaves, &y, 3, (&noise_u, &noise_v), &mut rng);
            let truth_u = [50.0, 0.0, 0.0];
            let truth_v = [10.0, 0.0, 0.0];
            for j in 0..3 {
                noise[j].push(u[j] - truth_u[j]);
                noise[3 + j].push(v[j] - truth_v[j]);
            }
        }
        for (k, s) in noise.iter().enumerate() {
            let mean = s.iter().sum::<f64>() / r as f64;
            let var = s.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (r - 1) as f64;
            assert!(
                mean.abs() < 4.0 * 20.0 / (r as f64).sqrt(),
                "stat {k}: mean {mean}"
            );
            assert!(
                (var / 400.0 - 1.0).abs() < 4.0 * 0.023,
                "stat {k}: variance {var}"
            );
        }
    }
}
