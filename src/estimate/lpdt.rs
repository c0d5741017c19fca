//! The LPDT estimator: every private user releases a randomized one-hot cell vector and one
//! Laplace-noised label; the curator forms a ratio of two noisy sums per leaf (LPDT paper
//! eq. (3)–(5) and App. D.1; lpdt.md §2).

use super::LabelBounds;
use crate::privacy::{flip_threshold, laplace, rr_keep_probability, Budget, BudgetError};
use rand::RngCore;

/// Parameters of one LPDT privatization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LpdtConfig {
    /// Per-user budget ε > 0.
    pub epsilon: f64,
    /// Share ρ ∈ (0,1) of ε spent on the randomized response of the cell vector; the
    /// label gets (1 − ρ)ε.
    pub rho: f64,
    /// Label bounds [y_lo, y_hi]; private labels are clipped into them and the Laplace
    /// scale is R/((1−ρ)ε) with R = y_hi − y_lo.
    pub bounds: LabelBounds,
    /// Fallback threshold τ ≥ 0: leaf j takes its public mean when the debiased private
    /// count S_j/γ ≤ τ·n (lpdt.md §2.3; τ = 0 fires when S_j ≤ 0).
    pub tau: f64,
}

/// Leaf values estimated from the private reports.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafEstimate {
    /// f̂_j for every leaf j = 0..K.
    pub values: Vec<f64>,
    /// How many leaves took the fallback value.
    pub fallbacks: usize,
}

/// Simulates every private user's LPDT release and returns the curator's leaf values.
///
/// * `leaf_of_user`: length n, the leaf (0..K) of every private training point.
/// * `y`: length n, the private labels (clipped here into `cfg.bounds`).
/// * `fallback`: length K, the public label mean of every leaf (lpdt.md §2.3).
///
/// Faithful protocol (lpdt.md §2.1): user i draws Ỹ_i = clip(y_i) + Lap(R/((1−ρ)ε)) once,
/// shared by all leaves, and releases bits B_ij = U_ij XOR F_ij with F_ij ~ Bernoulli(1−κ),
/// κ = e^{ρε/2}/(1+e^{ρε/2}). The curator computes S_j = Σ_i (B_ij − (1−κ)),
/// T_j = Σ_i Ỹ_i (B_ij − (1−κ)) and f̂_j = T_j/S_j (eq. 5), or the fallback when
/// S_j/γ ≤ τ·n. Cost O(n·K) bit draws.
///
/// # Errors
/// When ε ≤ 0 or ρ ∉ (0,1).
pub fn lpdt_leaf_values<R: RngCore + ?Sized>(
    leaf_of_user: &[usize],
    y: &[f64],
    fallback: &[f64],
    cfg: &LpdtConfig,
    rng: &mut R,
) -> Result<LeafEstimate, BudgetError> {
    assert_eq!(leaf_of_user.len(), y.len(), "one label per user");
    let k = fallback.len();
    let (eps_cell, eps_label) = Budget::new(cfg.epsilon)?.split("rho", cfg.rho)?;
    let kp = rr_keep_probability(eps_cell);
    let thr = flip_threshold(kp.keep);
    let beta = cfg.bounds.range() / eps_label;
    let n = y.len();

    // ones[j] = #{i : B_ij = 1}, sum_y[j] = Σ_{i: B_ij = 1} Ỹ_i.
    let mut ones = vec![0u64; k];
    let mut sum_y = vec![0.0f64; k];
    let mut total_y = 0.0;
    for (i, &leaf) in leaf_of_user.iter().enumerate() {
        let noisy_y = cfg.bounds.clip(y[i]) + laplace(rng, beta);
        total_y += noisy_y;
        for j in 0..k {
            let flipped = rng.next_u32() < thr;
            let bit = (j == leaf) != flipped;
            if bit {
                ones[j] += 1;
                sum_y[j] += noisy_y;
            }
        }
    }
    let q = 1.0 - kp.keep;
    let mut values = Vec::with_capacity(k);
    let mut fallbacks = 0;
    for j in 0..k {
        let s = ones[j] as f64 - n as f64 * q;
        let t = sum_y[j] - q * total_y;
        if s <= 0.0 || s / kp.gamma <= cfg.tau * n as f64 {
            values.push(fallback[j]);
            fallbacks += 1;
        } else {
            values.push(t / s);
        }
    }
    Ok(LeafEstimate { values, fallbacks })
}
