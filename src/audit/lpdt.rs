//! Audit cases of LPDT's user release (docs/methods/lpdt.md §2.1; LPDT paper §3.2): the one-hot leaf
//! vector through bitwise randomized response at ε_cell = ρε, the clipped label plus
//! Laplace noise at ε_label = (1 − ρ)ε, and the two together at ε.
//!
//! Worst-case neighbours: a user in leaf 0 against one in leaf 1 (two bits differ, the
//! most any two one-hot vectors differ) and labels at the two label bounds (the largest
//! label sensitivity). Bits beyond the two that differ are iid noise that does not depend on
//! the input, so two leaves suffice. The label part also tries a label far beyond the
//! bounds against the bound it clips to (the same law when the release clips; a release
//! that forgot to clip shows an unbounded loss). The curator-side `simulation: fast` shortcut draws the
//! curator's sums, not one user's release; its law is the per-user release's (tested in
//! `tests/simulation_law.rs`), so the release audited here is the per-user one.

use super::{beyond, laplace_log_ratio, AuditCase, NeighbourPair, BEYOND};
use crate::estimate::LpdtMechanism;
use rand_pcg::Pcg64;

/// The three cases of `mech`'s user release (its label bounds; only the bits of leaves 0
/// and 1 are drawn, the others being input-independent noise), claiming `eps_cell` for the bits, `eps_label` for the label and their sum for the whole
/// release. The whole release's statistic is the log-likelihood ratio of (leaf 0, y = lo)
/// against (leaf 1, y = hi) under the claimed budgets: with c = ε_cell/2 per bit and
/// β = R/ε_label, L = 2c·(B_0 − B_1) + (|Ỹ − hi| − |Ỹ − lo|)/β, at most ε_cell + ε_label.
pub fn lpdt_release_cases(mech: &LpdtMechanism, eps_cell: f64, eps_label: f64) -> Vec<AuditCase> {
    let (lo, hi) = (mech.bounds.lo, mech.bounds.hi);
    let mid = lo + (hi - lo) / 2.0;
    // One release of a user in `leaf` with label `y`: (B_0, B_1, Ỹ).
    let release = move |m: LpdtMechanism, leaf: usize, y: f64, rng: &mut Pcg64| {
        let mut bits = [false; 2];
        let noisy = m.release(0, leaf, y, &mut bits, rng);
        (
            f64::from(u8::from(bits[0])),
            f64::from(u8::from(bits[1])),
            noisy,
        )
    };
    let m = *mech;
    let c = eps_cell / 2.0;
    let beta = (hi - lo) / eps_label;
    let llr = move |(b0, b1, z): (f64, f64, f64)| {
        2.0 * c * (b0 - b1) + laplace_log_ratio(z, lo, hi, beta)
    };
    vec![
        AuditCase {
            part: "bits".into(),
            neighbours: "leaf 0 vs leaf 1; statistic B_0 - B_1".into(),
            claimed: eps_cell,
            delta: 0.0,
            release_a: Box::new(move |r| {
                let (b0, b1, _) = release(m, 0, mid, r);
                b0 - b1
            }),
            release_b: Box::new(move |r| {
                let (b0, b1, _) = release(m, 1, mid, r);
                b0 - b1
            }),
            alternatives: Vec::new(),
        },
        AuditCase {
            part: "label".into(),
            neighbours: "y = lo vs y = hi; statistic the noisy label".into(),
            claimed: eps_label,
            delta: 0.0,
            release_a: Box::new(move |r| release(m, 0, lo, r).2),
            release_b: Box::new(move |r| release(m, 0, hi, r).2),
            alternatives: vec![NeighbourPair {
                neighbours: format!(
                    "y = hi + {BEYOND} widths vs y = hi (the bound it clips to); statistic the noisy label"
                ),
                release_a: Box::new(move |r| release(m, 0, beyond(lo, hi), r).2),
                release_b: Box::new(move |r| release(m, 0, hi, r).2),
            }],
        },
        AuditCase {
            part: "user release".into(),
            neighbours: "(leaf 0, y = lo) vs (leaf 1, y = hi); statistic the log-likelihood ratio"
                .into(),
            claimed: eps_cell + eps_label,
            delta: 0.0,
            release_a: Box::new(move |r| llr(release(m, 0, lo, r))),
            release_b: Box::new(move |r| llr(release(m, 1, hi, r))),
            alternatives: Vec::new(),
        },
    ]
}
