//! Audit cases of a gradient released tensor by tensor through PrivUnitG (PSGD-L and
//! PSGD-N, docs/methods/lpct.md §7.5; [`PrivUnitGParams`]).
//!
//! Worst-case neighbours: a user whose gradient is the unit vector +e₁ in every tensor
//! against one with −e₁ (clipping level C = 1). Projected on e₁, a tensor's release is σ·α
//! for +e₁ and −σ·α for −e₁ (the z-terms cancel), so the event α ≥ γ has probability p
//! against (1 − p)·q/(1 − q), a ratio of exactly e^{ε_t} — the mechanism's tight event. The
//! statistic is the smallest of the tensors' projections divided by σ: its half-line
//! {≥ γ} is every tensor's tight event at once, with loss Σ_t ε_t, the user's whole spend.
//! The search also tries a gradient of norm far above C against the unit vector it clips to.

use super::{AuditCase, NeighbourPair, BEYOND};
use crate::privacy::PrivUnitGParams;
use rand_pcg::Pcg64;

/// The case of one user's release of tensors of sizes `dims` through `mech` (each at
/// ε_t = `mech.epsilon`), claiming `claimed` (the method's ε for the whole release).
///
/// # Panics
/// If `dims` is empty or holds a zero.
pub fn priv_unit_g_cases(mech: PrivUnitGParams, dims: &[usize], claimed: f64) -> Vec<AuditCase> {
    assert!(
        !dims.is_empty() && dims.iter().all(|&k| k > 0),
        "tensor sizes"
    );
    let dims = dims.to_vec();
    // min over tensors of (release projected on e₁)/σ for the gradient `first`·e₁ in every
    // tensor.
    let stat = move |first: f64, rng: &mut Pcg64| {
        dims.iter()
            .map(|&k| {
                let mut g = vec![0.0; k];
                g[0] = first;
                let out = mech.release(&g, 1.0, rng);
                out[0] / mech.sigma
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (stat_b, stat_far, stat_unit) = (stat.clone(), stat.clone(), stat.clone());
    vec![AuditCase {
        part: "user release".into(),
        neighbours: "gradient +e1 vs -e1 in every tensor; statistic the smallest projection on e1 over sigma".into(),
        claimed,
        delta: 0.0,
        release_a: Box::new(move |r| stat(1.0, r)),
        release_b: Box::new(move |r| stat_b(-1.0, r)),
        // A gradient of norm far above C against the unit vector it clips to (one law when
        // the release clips the norm).
        alternatives: vec![NeighbourPair {
            neighbours: format!(
                "gradient {BEYOND} e1 vs e1 (the vector it clips to) in every tensor; statistic the smallest projection on e1 over sigma"
            ),
            release_a: Box::new(move |r| stat_far(BEYOND, r)),
            release_b: Box::new(move |r| stat_unit(1.0, r)),
        }],
    }]
}
