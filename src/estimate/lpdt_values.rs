//! The curator's LPDT leaf values (LPDT paper eq. (5); docs/methods/lpdt.md §2.3) from the
//! simulated users' release, drawn user by user ([`lpdt_sums`]) or by the fast shortcut of
//! the same law ([`lpdt_sums_fast`]), as the configuration's `simulation` says. Above both.

use super::lpdt::{lpdt_sums, LpdtConfig, LpdtMechanism, Simulation};
use super::lpdt_fast::lpdt_sums_fast;
use crate::privacy::BudgetError;
use rand::RngCore;

/// Leaf values estimated from the private reports.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafEstimate {
    /// f̂_j for every leaf j = 0..K.
    pub values: Vec<f64>,
    /// How many leaves took the fallback value.
    pub fallbacks: usize,
}

/// Simulates every private user's LPDT release (as `cfg.simulation` says) and returns the
/// curator's leaf values.
///
/// * `leaf_of_user`: length n, the leaf (0..K) of every private training point.
/// * `y`: length n, the private labels (clipped into `cfg.bounds` by the users).
/// * `fallback`: length K, the public label mean of every leaf (docs/methods/lpdt.md §2.3).
///
/// f̂_j = T_j/S_j (eq. 5), or `fallback[j]` when S_j ≤ 0 or the debiased private count
/// S_j/γ ≤ τ·n (the authors' code rule `min_ratio_pri_est`, docs/methods/lpdt.md §2.3 and §9 item 8).
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
    let mech = LpdtMechanism::new(fallback.len(), cfg)?;
    let sums = match cfg.simulation {
        Simulation::Fast => lpdt_sums_fast(&mech, leaf_of_user, y, rng),
        Simulation::PerUser => lpdt_sums(&mech, leaf_of_user, y, rng),
    };
    let n = y.len() as f64;
    let mut fallbacks = 0;
    let values = sums
        .s
        .iter()
        .zip(&sums.t)
        .zip(fallback)
        .map(|((&s, &t), &fb)| {
            if s <= 0.0 || s / mech.keep.gamma <= cfg.tau * n {
                fallbacks += 1;
                fb
            } else {
                t / s
            }
        })
        .collect();
    Ok(LeafEstimate { values, fallbacks })
}
