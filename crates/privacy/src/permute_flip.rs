//! Permute-and-flip (McKenna & Sheldon 2020; DiPriMe card docs/methods/diprime.md §2.3, the authors'
//! `pf_mech`).
//!
//! **Law.** Candidates `j = 0..m` with scores `q_j` (higher is better), sensitivity `Δ > 0`
//! and budget `ε ≥ 0`. Let `q* = max_j q_j` and `p_j = exp(ε (q_j − q*)/(2Δ)) + floor`
//! (`floor = 1e-12` in the reference code, `0` in the mechanism as published). Repeat:
//! draw a uniformly random permutation `π`; walk it and accept candidate `π(k)` with an
//! independent `Bernoulli(min(1, p_π(k)))`; return the first accepted candidate. Because the
//! best candidate has `p = 1`, the first pass always returns, and
//!
//! ```text
//! P(j) = Σ over orders of the candidates before j in π of  p_j · Π_{k before j} (1 − p_k),
//! ```
//!
//! e.g. with two candidates, `q_1 = q*` and `p = p_2`: `P(2) = p/2`, `P(1) = 1 − p/2`.
//! Permute-and-flip is ε-DP for scores of sensitivity `Δ` and never worse in expected
//! score than the exponential mechanism. Candidates with `q_j = −∞` have `p_j = floor`.

use crate::ledger::{self, exponential_epsilon, Subjects};
use rand::seq::SliceRandom;
use rand::Rng;

/// One permute-and-flip draw (see the module law). When every score is −∞ (or NaN) the
/// draw is uniform: every candidate then has the same acceptance probability.
///
/// Draws from `rng`: one shuffle of `0..m` per pass and one `f64` per candidate visited.
///
/// # Panics
/// On an empty list, `Δ ≤ 0` or `ε < 0`.
pub fn permute_and_flip<R: Rng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    sensitivity: f64,
    epsilon: f64,
    floor: f64,
) -> usize {
    assert!(!scores.is_empty(), "permute-and-flip over an empty list");
    assert!(
        sensitivity > 0.0,
        "permute-and-flip: sensitivity must be > 0"
    );
    assert!(epsilon >= 0.0, "permute-and-flip: epsilon must be >= 0");
    let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY || top.is_nan() {
        return rng.gen_range(0..scores.len());
    }
    let p = acceptance(scores, top, sensitivity, epsilon, floor);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    loop {
        order.shuffle(rng);
        for &j in &order {
            if rng.gen::<f64>() < p[j] {
                return j;
            }
        }
    }
}

/// Permute-and-flip's release, charged: the index [`permute_and_flip`] draws (the same
/// draws), charged to `who` under `part` at 2cΔ′ (nats, [`exponential_epsilon`]): c =
/// ε/(2Δ), the coefficient of the scores in the acceptance exponent the draw used, and Δ′
/// = `score_sensitivity`, how far one neighbour really moves a score (McKenna & Sheldon
/// 2020: ε-DP when Δ′ = Δ). The DiPriMe medians and attribute choices draw here.
///
/// # Panics
/// As [`permute_and_flip`].
pub fn permute_and_flip_release<R: Rng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    (sensitivity, epsilon, floor): (f64, f64, f64),
    score_sensitivity: f64,
    (part, who): (&str, Subjects<'_>),
) -> usize {
    let j = permute_and_flip(rng, scores, sensitivity, epsilon, floor);
    if ledger::is_recording() {
        let spent = exponential_epsilon(epsilon / (2.0 * sensitivity), score_sensitivity);
        ledger::charge(part, who, spent, 0.0);
    }
    j
}

/// The acceptance probabilities `min(1, exp(ε (q_j − q*)/(2Δ)) + floor)`; a candidate
/// scored −∞ gets `floor` (also at ε = 0).
fn acceptance(scores: &[f64], top: f64, sensitivity: f64, epsilon: f64, floor: f64) -> Vec<f64> {
    // Slip: the acceptance probabilities calibrated for half the sensitivity.
    let sensitivity = if crate::mutants::active("permute-and-flip-sensitivity-halved") {
        sensitivity / 2.0
    } else {
        sensitivity
    };
    scores
        .iter()
        .map(|&q| {
            if q == f64::NEG_INFINITY {
                floor.min(1.0)
            } else {
                ((epsilon * (q - top) / (2.0 * sensitivity)).exp() + floor).min(1.0)
            }
        })
        .collect()
}

/// The exact law of [`permute_and_flip`] for a short list (m ≤ 12): `P(j)` summed over all
/// orders of the other candidates, as in the module docstring. Used by tests and by
/// anyone who wants the closed form.
///
/// # Panics
/// If `m > 12` (m! orders).
pub fn permute_and_flip_probabilities(
    scores: &[f64],
    sensitivity: f64,
    epsilon: f64,
    floor: f64,
) -> Vec<f64> {
    let m = scores.len();
    assert!(
        m > 0 && m <= 12,
        "exact permute-and-flip law only for 1..=12 candidates"
    );
    let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY || top.is_nan() {
        return vec![1.0 / m as f64; m];
    }
    let p = acceptance(scores, top, sensitivity, epsilon, floor);
    // A pass returns j with probability Σ_{S ⊆ others} |S|!(m−1−|S|)!/m! · p_j Π_{k∈S}(1−p_k)
    // (S: the candidates before j). The best candidate has p = 1, so a pass always returns
    // and these sum to 1 without normalising.
    let fact = |n: usize| (1..=n).map(|i| i as f64).product::<f64>();
    let mut out = vec![0.0; m];
    for (j, o) in out.iter_mut().enumerate() {
        let others: Vec<usize> = (0..m).filter(|&k| k != j).collect();
        for mask in 0u32..(1 << others.len()) {
            let s = mask.count_ones() as usize;
            let miss: f64 = others
                .iter()
                .enumerate()
                .filter(|(b, _)| mask >> b & 1 == 1)
                .map(|(_, &k)| 1.0 - p[k])
                .product();
            *o += fact(s) * fact(m - 1 - s) / fact(m) * p[j] * miss;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_candidate_closed_form() {
        let p = permute_and_flip_probabilities(&[0.0, -2.0], 1.0, 1.0, 0.0);
        let flip = (-1.0f64).exp();
        assert!((p[1] - flip / 2.0).abs() < 1e-15);
        assert!((p[0] - (1.0 - flip / 2.0)).abs() < 1e-15);
    }

    #[test]
    fn minus_infinity_is_never_drawn_without_a_floor() {
        let mut rng = rand_pcg::Pcg64::new(3, 4);
        for _ in 0..500 {
            assert_ne!(
                permute_and_flip(&mut rng, &[-1.0, f64::NEG_INFINITY, -2.0], 1.0, 1.0, 0.0),
                1
            );
        }
    }

    /// Frequencies of 30,000 draws against the exact law, each within 5 binomial standard
    /// deviations (a correct sampler fails with probability below 1e-5 per candidate).
    fn assert_law(scores: &[f64], sensitivity: f64, epsilon: f64, floor: f64, seed: u64) {
        let mut rng = rand_pcg::Pcg64::new(seed.into(), 1);
        let law = permute_and_flip_probabilities(scores, sensitivity, epsilon, floor);
        let n = 30_000;
        let mut counts = vec![0usize; scores.len()];
        for _ in 0..n {
            counts[permute_and_flip(&mut rng, scores, sensitivity, epsilon, floor)] += 1;
        }
        for (j, (&c, &p)) in counts.iter().zip(&law).enumerate() {
            let f = c as f64 / n as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (f - p).abs() <= 5.0 * sd + 1e-12,
                "candidate {j}: frequency {f}, law {p}"
            );
        }
    }

    #[test]
    fn draws_follow_the_exact_law() {
        // The best candidate is the last one: a sampler that prefers index 0 fails.
        assert_law(&[-3.0, -1.0, 0.0], 2.0, 1.5, 0.0, 5);
        assert_law(&[-3.0, -1.0, 0.0], 2.0, 1.5, 0.2, 6);
    }

    /// The charged release is the plain draw, charged 2cΔ′.
    #[test]
    fn a_charged_release_is_the_plain_draw() {
        for seed in 0..10u64 {
            let (j, r) = crate::ledger::recording(|| {
                permute_and_flip_release(
                    &mut rand_pcg::Pcg64::new(seed.into(), 9),
                    &[-1.0, 0.0, -3.0],
                    (1.0, 1.0, 0.0),
                    0.8,
                    ("median", Subjects::One(4)),
                )
            });
            let plain = permute_and_flip(
                &mut rand_pcg::Pcg64::new(seed.into(), 9),
                &[-1.0, 0.0, -3.0],
                1.0,
                1.0,
                0.0,
            );
            assert_eq!(j, plain);
            assert!((r.max_epsilon - 0.8).abs() < 1e-15 && r.worst == Some(4));
        }
    }

    #[test]
    fn all_minus_infinity_is_uniform() {
        assert_law(&[f64::NEG_INFINITY; 3], 1.0, 1.0, 0.0, 7);
        assert_eq!(
            permute_and_flip_probabilities(&[f64::NEG_INFINITY; 4], 1.0, 1.0, 0.0),
            vec![0.25; 4]
        );
    }

    /// The exact law against an independent enumeration of the 3! orders of three
    /// candidates (each pass returns the first accepted one; the best has p = 1, so one
    /// pass always returns), with a best score ≠ 0, Δ ≠ 1 and a floor.
    #[test]
    fn exact_law_matches_the_six_orders() {
        let (q, delta, eps, floor) = ([1.0, 5.0, 3.0], 2.0, 1.5, 0.1);
        let p: Vec<f64> = q
            .iter()
            .map(|&x: &f64| ((eps * (x - 5.0) / (2.0 * delta)).exp() + floor).min(1.0))
            .collect();
        let orders = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut want = [0.0; 3];
        for o in orders {
            let mut miss = 1.0;
            for &j in &o {
                want[j] += miss * p[j] / 6.0;
                miss *= 1.0 - p[j];
            }
        }
        let got = permute_and_flip_probabilities(&q, delta, eps, floor);
        for j in 0..3 {
            assert!((got[j] - want[j]).abs() < 1e-12, "{got:?} vs {want:?}");
        }
    }
}
