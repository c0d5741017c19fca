//! Audit cases of PGLM's user release (docs/methods/lpct.md §7.4; [`crate::methods::pglm`]): x̃x̃ᵀ and
//! x̃y through the Gaussian mechanism, each claiming (ε/2, δ/2) with δ = 1/n_P², the whole
//! release (ε, δ).
//!
//! Worst-case neighbours inside the mechanism's domain ‖x̃‖ ≤ r, x̃ = (1, x), r = D: on
//! d = 2 features (D = 3, r = 3), x = (2, 2) against x' with ‖x̃'‖ = r and x̃ ⊥ x̃'
//! (x·x' = −1), both with y = 1: the outer products are then as far apart as two of norm r²
//! can be (Frobenius √2·r², within the claimed sensitivity 2r²) and the vectors √2·r apart.
//! The loss does not depend on d: the noise scale grows with r² as the differences do.
//!
//! Statistics: each part's log-likelihood ratio under the *claimed* per-user variance σ²
//! (the `noise: paper` release), linear in the release; the users under `noise: reference`
//! release at σ²/√n_P ([`GaussianAggregate::per_user`]), the per-user noise whose n_P-fold
//! sum is the reference code's aggregate, and the same events then show the excess.

use super::{two_part_cases, AuditCase};
use crate::methods::pglm::{augmented, per_user_variance, radius, user_release};
use crate::privacy::{BudgetError, GaussianAggregate};

/// PGLM's cases at budget ε for n_P = `n_private` users with noise `aggregate`.
///
/// # Errors
/// [`BudgetError`] when ε is not finite and > 0 or n_P < 2 (δ = 1/n_P² < 1).
pub fn pglm_release_cases(
    epsilon: f64,
    n_private: usize,
    aggregate: GaussianAggregate,
) -> Result<Vec<AuditCase>, BudgetError> {
    let dim = 3;
    let claimed_sigma2 = per_user_variance(dim, n_private, epsilon)?;
    let released_sigma2 = aggregate.per_user(claimed_sigma2, n_private);
    let delta = 1.0 / (n_private as f64 * n_private as f64);
    // x = (2, 2) and x' = (u, v) with u + v = −1/2 and u² + v² = r² − 1 = 8, so
    // uv = (1/4 − 8)/2 and u, v = (−1/2 ± √(1/4 − 4uv))/2 = (−1/2 ± √(2(r² − 1) − 1/4))/2.
    let s = (2.0 * (radius(dim).powi(2) - 1.0) - 0.25).sqrt();
    let x_a = [2.0, 2.0];
    let x_b = [(-0.5 + s) / 2.0, (-0.5 - s) / 2.0];
    let outer = |x: &[f64]| -> Vec<f64> {
        let xt = augmented(x, radius(dim));
        xt.iter()
            .flat_map(|a| xt.iter().map(move |b| a * b))
            .collect()
    };
    let vector = |x: &[f64]| augmented(x, radius(dim));
    // Δ and the midpoint of each part.
    let diff_mid = |a: Vec<f64>, b: Vec<f64>| -> (Vec<f64>, Vec<f64>) {
        a.iter()
            .zip(&b)
            .map(|(p, q)| (p - q, 0.5 * (p + q)))
            .unzip()
    };
    let (dm, mm) = diff_mid(outer(&x_a), outer(&x_b));
    let (dv, mv) = diff_mid(vector(&x_a), vector(&x_b));
    let llr = |z: &[f64], d: &[f64], m: &[f64], var: f64| -> f64 {
        z.iter()
            .zip(d.iter().zip(m))
            .map(|(z, (d, m))| d * (z - m))
            .sum::<f64>()
            / var
    };
    let stats = move |input_b: bool, rng: &mut rand_pcg::Pcg64| {
        let x = if input_b { &x_b } else { &x_a };
        let (zm, zv) = user_release(x, 1.0, released_sigma2, rng);
        // Off-diagonal entries appear twice with one noise draw (variance σ²), diagonal
        // ones once with variance 2σ²: the matrix LLR is Σ_ij Δ_ij (z_ij − mid_ij)/(2σ²).
        (
            llr(&zm, &dm, &mm, 2.0 * claimed_sigma2),
            llr(&zv, &dv, &mv, claimed_sigma2),
        )
    };
    let neighbours = format!(
        "x = (2, 2) vs x' = ({:.4}, {:.4}) (x~ orthogonal, |x~| = r = 3), y = 1; n_P = {n_private}, delta = 1/n_P^2; statistic the log-likelihood ratio under the claimed Gaussian",
        x_b[0], x_b[1]
    );
    let mut cases = two_part_cases(
        [
            ("matrix x~x~'", epsilon / 2.0),
            ("vector x~y", epsilon / 2.0),
        ],
        &neighbours,
        stats,
    );
    for (case, d) in cases.iter_mut().zip([delta / 2.0, delta / 2.0, delta]) {
        case.delta = d;
    }
    Ok(cases)
}
