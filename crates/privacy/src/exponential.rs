//! The exponential mechanism over a finite list of candidates (McSherry & Talwar 2007;
//! DiPriMe card docs/methods/diprime.md §2.2).
//!
//! **Law.** Candidates `j = 0..m` with scores `q_j` (higher is better), sensitivity `Δ > 0`,
//! budget `ε ≥ 0` and optional base weights `μ_j ≥ 0` (all 1 when absent). The mechanism
//! returns `j` with probability
//!
//! ```text
//! P(j) = μ_j · exp(ε q_j / (2Δ)) / Σ_k μ_k · exp(ε q_k / (2Δ)),
//! ```
//!
//! which is ε-DP when every `q_j` changes by at most `Δ` between neighbouring data sets and
//! `μ` does not depend on the data. [`Normalisation::LogSumExp`] computes it exactly in log
//! space (the weights never underflow). [`Normalisation::Floored`] reproduces the authors'
//! code (card §2.2 quirks 1–3): weights `μ_j · exp(ε q_j/(2Δ)) + floor` computed without
//! subtracting the largest score, and a uniform draw when they all underflow to 0.

use crate::ledger::{self, exponential_epsilon, Subjects};
use rand::Rng;

/// How the weights are normalised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Normalisation {
    /// Exact: log-sum-exp over `ln μ_j + ε q_j/(2Δ)`.
    LogSumExp,
    /// The reference code: `μ_j · exp(ε q_j/(2Δ)) + floor` unshifted (the floor is `1e-12`
    /// for the continuous median, `1e-6` for the categorical median, `0` for DiPriMe's
    /// attribute choice), uniform when every weight is 0 or the sum is not finite.
    Floored(f64),
}

/// The unnormalised log weights `ln μ_j + ε q_j/(2Δ)` (−∞ for `μ_j = 0` or `q_j = −∞`).
///
/// # Panics
/// If `Δ ≤ 0`, `ε < 0`, or `base` has a different length than `scores`.
pub fn exponential_log_weights(
    scores: &[f64],
    sensitivity: f64,
    epsilon: f64,
    base: Option<&[f64]>,
) -> Vec<f64> {
    assert!(
        sensitivity > 0.0,
        "exponential mechanism: sensitivity must be > 0"
    );
    assert!(
        epsilon >= 0.0,
        "exponential mechanism: epsilon must be >= 0"
    );
    if let Some(b) = base {
        assert_eq!(b.len(), scores.len(), "one base weight per candidate");
    }
    scores
        .iter()
        .enumerate()
        .map(|(j, &q)| {
            let mu = base.map_or(1.0, |b| b[j]);
            // Slip: the scores' coefficient ε/Δ, calibrated for half the sensitivity.
            let half = if crate::mutants::active("exponential-weights-sensitivity-halved") {
                2.0
            } else {
                1.0
            };
            let e = if epsilon == 0.0 {
                0.0
            } else {
                half * epsilon * q / (2.0 * sensitivity)
            };
            mu.ln() + e
        })
        .collect()
}

/// The probabilities `P(j)` of the law above under `norm` (length m, sum 1).
///
/// When every weight is zero (all log weights −∞ under `LogSumExp`, or all underflowing
/// under `Floored(0)`), the law is uniform: the reference code's fallback, and the only
/// choice left when no candidate has positive weight.
pub fn exponential_probabilities(log_weights: &[f64], norm: Normalisation) -> Vec<f64> {
    let m = log_weights.len();
    assert!(m > 0, "exponential mechanism over an empty list");
    let uniform = || vec![1.0 / m as f64; m];
    match norm {
        Normalisation::LogSumExp => {
            let top = log_weights
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, f64::max);
            if top == f64::NEG_INFINITY || top.is_nan() {
                return uniform();
            }
            let w: Vec<f64> = log_weights.iter().map(|&l| (l - top).exp()).collect();
            let total: f64 = w.iter().sum();
            w.into_iter().map(|x| x / total).collect()
        }
        Normalisation::Floored(floor) => {
            let w: Vec<f64> = log_weights.iter().map(|&l| l.exp() + floor).collect();
            let total: f64 = w.iter().sum();
            if !(total > 0.0 && total.is_finite()) {
                return uniform();
            }
            w.into_iter().map(|x| x / total).collect()
        }
    }
}

/// One draw from the probabilities `probs` (summing to 1): the first `j` whose cumulative
/// probability exceeds a uniform draw (one `f64` from `rng`); the last candidate with
/// positive probability absorbs rounding.
pub fn draw_index<R: Rng + ?Sized>(rng: &mut R, probs: &[f64]) -> usize {
    let u: f64 = rng.gen::<f64>();
    let mut acc = 0.0;
    let mut last = 0;
    for (j, &p) in probs.iter().enumerate() {
        if p > 0.0 {
            last = j;
            acc += p;
            if u < acc {
                return j;
            }
        }
    }
    last
}

/// The exponential mechanism: one index drawn from [`exponential_probabilities`] of
/// [`exponential_log_weights`]`(scores, sensitivity, epsilon, base)`.
///
/// # Panics
/// As [`exponential_log_weights`], or on an empty list.
pub fn exponential_mechanism<R: Rng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    sensitivity: f64,
    epsilon: f64,
    base: Option<&[f64]>,
    norm: Normalisation,
) -> usize {
    let lw = exponential_log_weights(scores, sensitivity, epsilon, base);
    draw_index(rng, &exponential_probabilities(&lw, norm))
}

/// The exponential mechanism's release, charged: the index [`exponential_mechanism`]
/// draws (the same draws), charged to `who` under `part` at 2cΔ′ (nats,
/// [`exponential_epsilon`]): c = ε/(2Δ) the coefficient of the scores in the log-weights
/// the draw used (Δ = `sensitivity`, the sensitivity the weights are calibrated to) and Δ′
/// = `score_sensitivity`, how far one neighbour really moves a score (Δ when the
/// calibration is right; the DiPriMe attribute choice's real sensitivity where it is not,
/// docs/methods/diprime.md §3.11). McSherry & Talwar 2007.
///
/// # Panics
/// As [`exponential_mechanism`].
#[allow(clippy::too_many_arguments)]
pub fn exponential_release<R: Rng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    sensitivity: f64,
    epsilon: f64,
    base: Option<&[f64]>,
    norm: Normalisation,
    score_sensitivity: f64,
    (part, who): (&str, Subjects<'_>),
) -> usize {
    let lw = exponential_log_weights(scores, sensitivity, epsilon, base);
    let j = draw_index(rng, &exponential_probabilities(&lw, norm));
    if ledger::is_recording() {
        let spent = exponential_epsilon(epsilon / (2.0 * sensitivity), score_sensitivity);
        ledger::charge(part, who, spent, 0.0);
    }
    j
}

/// The coefficient the log-weights `log_weights` realise on the scores `scores`: the
/// largest |Δ log-weight|/|Δ score| along the candidates in score order, between
/// successive candidates at least a gap g apart (g = max(10⁻³ × the scores' range, 10⁻⁹ ×
/// their largest magnitude), so that rounding in weights built as c·u cannot make two
/// nearly equal scores look steep), over candidates whose score and weight are finite; 0
/// when fewer than two such candidates differ by g. Weights built at a larger coefficient
/// than stated show here; weights capped or floored below c·u realise less.
pub fn realised_coefficient(scores: &[f64], log_weights: &[f64]) -> f64 {
    let mut pts: Vec<(f64, f64)> = scores
        .iter()
        .zip(log_weights)
        .filter(|(u, w)| u.is_finite() && w.is_finite())
        .map(|(&u, &w)| (u, w))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
        return 0.0;
    };
    let magnitude = first.0.abs().max(last.0.abs());
    let gap = (1e-3 * (last.0 - first.0)).max(1e-9 * magnitude);
    if gap <= 0.0 {
        return 0.0;
    }
    let mut anchor = *first;
    let mut best: f64 = 0.0;
    for &p in &pts[1..] {
        if p.0 - anchor.0 >= gap {
            best = best.max((p.1 - anchor.1).abs() / (p.0 - anchor.0));
            anchor = p;
        }
    }
    best
}

/// The exponential mechanism's release from log-weights the caller built as c·u for the
/// scores u (with its own rounding or a cap, as DP-RF's and DP-DF's split choices do, so
/// that the weights cannot be recomputed here bit for bit): one index drawn from
/// [`exponential_probabilities`]`(log_weights, norm)` by [`draw_index`], charged to `who`
/// under `part` at 2c′Δ (nats), Δ = `score_sensitivity` and c′ the larger of the stated
/// `coefficient` and the coefficient the weights really realise on `scores`
/// ([`realised_coefficient`], read while a recording runs): weights steeper than stated
/// are charged for what they are.
///
/// # Panics
/// If the lists are empty or of different lengths.
pub fn exponential_weights_release<R: Rng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    log_weights: &[f64],
    norm: Normalisation,
    (coefficient, score_sensitivity): (f64, f64),
    (part, who): (&str, Subjects<'_>),
) -> usize {
    assert_eq!(scores.len(), log_weights.len(), "one weight per score");
    let j = draw_index(rng, &exponential_probabilities(log_weights, norm));
    if ledger::is_recording() {
        let realised = realised_coefficient(scores, log_weights);
        // Rounding of c·u moves the realised slope by less than 10⁻⁶ of it (see
        // `realised_coefficient`'s gap).
        let c = if realised > coefficient * (1.0 + 1e-5) {
            realised
        } else {
            coefficient
        };
        ledger::charge(part, who, exponential_epsilon(c, score_sensitivity), 0.0);
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_follow_the_law() {
        let q = [0.0, -1.0, -3.0];
        let mu = [1.0, 2.0, 0.5];
        let lw = exponential_log_weights(&q, 1.0, 2.0, Some(&mu));
        let p = exponential_probabilities(&lw, Normalisation::LogSumExp);
        let w: Vec<f64> = q
            .iter()
            .zip(&mu)
            .map(|(q, m)| m * (q * 2.0 / 2.0f64).exp())
            .collect();
        let s: f64 = w.iter().sum();
        for j in 0..3 {
            assert!((p[j] - w[j] / s).abs() < 1e-15);
        }
    }

    #[test]
    fn log_sum_exp_survives_what_underflows_in_the_reference() {
        // exp(-2000) underflows: the reference falls back to uniform, log-sum-exp does not.
        let lw = [-2000.0, -2001.0];
        let exact = exponential_probabilities(&lw, Normalisation::LogSumExp);
        assert!((exact[0] - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert_eq!(
            exponential_probabilities(&lw, Normalisation::Floored(0.0)),
            vec![0.5, 0.5]
        );
        // With a floor the floor dominates: uniform as well.
        let f = exponential_probabilities(&lw, Normalisation::Floored(1e-12));
        assert!((f[0] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn zero_base_weight_is_never_drawn() {
        let mut rng = rand_pcg::Pcg64::new(1, 2);
        for _ in 0..200 {
            let j = exponential_mechanism(
                &mut rng,
                &[0.0, 0.0, 0.0],
                1.0,
                1.0,
                Some(&[1.0, 0.0, 1.0]),
                Normalisation::LogSumExp,
            );
            assert_ne!(j, 1);
        }
    }

    #[test]
    fn log_weights_divide_the_score_by_twice_the_sensitivity() {
        // ε·q/(2Δ) + ln μ with Δ = 4: 3·2/8 = 0.75 (Δ ≠ 1 tells 2Δ from 2/Δ).
        let lw = exponential_log_weights(&[2.0, -1.0], 4.0, 3.0, Some(&[1.0, 2.0]));
        assert!((lw[0] - 0.75).abs() < 1e-15, "{lw:?}");
        assert!((lw[1] - (2.0f64.ln() - 0.375)).abs() < 1e-15, "{lw:?}");
        // ε = 0: only the base weights.
        let lw = exponential_log_weights(&[5.0, 1.0], 1.0, 0.0, None);
        assert_eq!(lw, vec![0.0, 0.0]);
    }

    #[test]
    fn all_zero_weights_give_the_uniform_law() {
        let lw = [f64::NEG_INFINITY; 4];
        assert_eq!(
            exponential_probabilities(&lw, Normalisation::LogSumExp),
            vec![0.25; 4]
        );
    }

    #[test]
    fn a_floor_is_added_to_every_weight() {
        // weights e^0 + 1 = 2 and e^{ln 3} + 1 = 4: 1/3 and 2/3.
        let p = exponential_probabilities(&[0.0, 3.0f64.ln()], Normalisation::Floored(1.0));
        assert!((p[0] - 1.0 / 3.0).abs() < 1e-12, "{p:?}");
        assert!((p[1] - 2.0 / 3.0).abs() < 1e-12, "{p:?}");
    }

    /// Frequencies of `n` draws against `probs`: each within 5 binomial standard
    /// deviations (a correct sampler fails with probability below 1e-5 per index).
    fn assert_frequencies(draws: &[usize], probs: &[f64]) {
        let n = draws.len() as f64;
        for (j, &p) in probs.iter().enumerate() {
            let f = draws.iter().filter(|&&d| d == j).count() as f64 / n;
            let sd = (p * (1.0 - p) / n).sqrt();
            assert!(
                (f - p).abs() <= 5.0 * sd + 1e-12,
                "index {j}: frequency {f}, probability {p}"
            );
        }
    }

    #[test]
    fn draw_index_follows_the_probabilities() {
        let mut rng = rand_pcg::Pcg64::new(5, 6);
        let probs = [0.2, 0.0, 0.5, 0.3];
        let draws: Vec<usize> = (0..20_000).map(|_| draw_index(&mut rng, &probs)).collect();
        assert_frequencies(&draws, &probs);
        // Probabilities that sum to less than 1: the last positive candidate absorbs the
        // rest, never a zero-probability one after it.
        for _ in 0..200 {
            assert_eq!(draw_index(&mut rng, &[0.5, 0.0, 0.0]), 0);
        }
    }

    /// The charged releases draw what the plain mechanism draws and charge 2cΔ′; weights
    /// steeper than the stated coefficient are charged at their own slope.
    #[test]
    fn charged_releases_draw_the_plain_index_and_charge_their_weights() {
        use crate::ledger::recording;
        let q = [0.0, -2.0, -1.0, -4.0];
        for seed in 0..10u64 {
            let (j, r) = recording(|| {
                exponential_release(
                    &mut rand_pcg::Pcg64::new(seed.into(), 3),
                    &q,
                    2.0,
                    1.5,
                    None,
                    Normalisation::LogSumExp,
                    4.0,
                    ("split", Subjects::One(0)),
                )
            });
            let plain = exponential_mechanism(
                &mut rand_pcg::Pcg64::new(seed.into(), 3),
                &q,
                2.0,
                1.5,
                None,
                Normalisation::LogSumExp,
            );
            assert_eq!(j, plain);
            assert!((r.max_epsilon - 3.0).abs() < 1e-15);
        }
        let lw: Vec<f64> = q.iter().map(|u| 0.25 * u).collect();
        let charged = |lw: &[f64]| {
            recording(|| {
                exponential_weights_release(
                    &mut rand_pcg::Pcg64::new(1, 1),
                    &q,
                    lw,
                    Normalisation::LogSumExp,
                    (0.25, 2.0),
                    ("split", Subjects::One(0)),
                )
            })
            .1
            .max_epsilon
        };
        assert_eq!(charged(&lw), 1.0);
        // Capped weights realise a smaller slope: still the stated coefficient.
        let capped: Vec<f64> = lw.iter().map(|w| w.min(-0.5)).collect();
        assert_eq!(charged(&capped), 1.0);
        // Weights built at twice the stated coefficient: charged twice.
        let steep: Vec<f64> = q.iter().map(|u| 0.5 * u).collect();
        assert_eq!(charged(&steep), 2.0);
        // Equal scores give no slope; −∞ is not a score.
        assert_eq!(realised_coefficient(&[1.0, 1.0], &[0.0, 1.0]), 0.0);
        assert_eq!(
            realised_coefficient(&[1.0, f64::NEG_INFINITY], &[0.0, 1.0]),
            0.0
        );
        // Nearly equal scores whose weights round apart (DP-RF's −e·mse·n/(8B²) on two
        // errors a few ulps apart) do not count; the spread of the others does.
        let u = [-1000.0, -1000.0 + 1e-12, -999.0, -900.0];
        let w: Vec<f64> = [0.0, 0.001, 0.25, 25.0]
            .iter()
            .map(|d| -250.0 + d)
            .collect();
        let r = realised_coefficient(&u, &w);
        assert!((r - 0.25).abs() < 1e-9, "{r}");
    }

    #[test]
    fn the_mechanism_draws_from_its_law() {
        let mut rng = rand_pcg::Pcg64::new(7, 8);
        let (q, delta, eps) = ([0.0, 2.0, 4.0], 2.0, 1.5);
        let p = exponential_probabilities(
            &exponential_log_weights(&q, delta, eps, None),
            Normalisation::LogSumExp,
        );
        let draws: Vec<usize> = (0..20_000)
            .map(|_| {
                exponential_mechanism(&mut rng, &q, delta, eps, None, Normalisation::LogSumExp)
            })
            .collect();
        assert_frequencies(&draws, &p);
    }
}
