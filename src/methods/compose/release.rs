//! One private user's release under a composition's cell and label mechanisms (DESIGN.md,
//! "Releases are first-class"): used by the user-by-user simulation of the curator's sums
//! ([`super::simulate_sums`]), by LPCT's exact sums for their scales, and by the privacy
//! audit ([`UserRelease::audit_cases`]).

use super::{CellMechanism, Composition, LabelMechanism};
use crate::audit::{laplace_log_ratio, two_part_cases, AuditCase};
use crate::estimate::LabelBounds;
use crate::privacy::{laplace, rr_keep_probability, KeepProbability};
use rand::Rng;
use rand_pcg::Pcg64;

/// The mechanisms and scales of one user's release over K cells at budgets
/// (ε_cell, ε_label).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UserRelease {
    cell: CellMechanism,
    label: LabelMechanism,
    k: usize,
    bounds: LabelBounds,
    /// Randomized response: κ and γ at ε_cell.
    rr: KeepProbability,
    /// Generalized RR: the probability of the true cell and of each other one.
    p_true: f64,
    q_other: f64,
    /// The factor a of the centred cell scores: E[c_ij] = a·U_ij.
    pub a: f64,
    /// The Laplace scale of the one-hot cell vector: 2/ε_cell (L1 sensitivity 2).
    pub cell_scale: f64,
    /// The scalar Laplace label's scale R/ε_label.
    pub label_scale: f64,
    /// The label vector's Laplace scale 2·M_Y/ε_label, M_Y = max(|lo|, |hi|).
    pub vector_scale: f64,
    eps_cell: f64,
    eps_label: f64,
}

impl UserRelease {
    /// The release of composition `c` over `k` cells, labels clipped into `bounds`.
    ///
    /// # Panics
    /// If `c` has no cell or no label mechanism (a non-private composition).
    pub(crate) fn new(
        c: &Composition,
        k: usize,
        bounds: LabelBounds,
        (eps_cell, eps_label): (f64, f64),
    ) -> UserRelease {
        let rr = rr_keep_probability(eps_cell);
        let e = eps_cell.exp();
        let (p_true, q_other) = if k > 1 {
            (e / (e + k as f64 - 1.0), 1.0 / (e + k as f64 - 1.0))
        } else {
            (1.0, 0.0)
        };
        let a = match c.cell_mechanism {
            CellMechanism::RandomizedResponse => rr.gamma,
            CellMechanism::Laplace => 1.0,
            CellMechanism::GeneralizedRr => p_true - q_other,
            CellMechanism::None => unreachable!("validated: private"),
        };
        assert!(
            c.label_mechanism != LabelMechanism::None,
            "validated: private"
        );
        let m_y = bounds.lo.abs().max(bounds.hi.abs());
        UserRelease {
            cell: c.cell_mechanism,
            label: c.label_mechanism,
            k,
            bounds,
            rr,
            p_true,
            q_other,
            a,
            cell_scale: 2.0 / eps_cell,
            label_scale: bounds.range() / eps_label,
            vector_scale: 2.0 * m_y / eps_label,
            eps_cell,
            eps_label,
        }
    }

    /// Whether the label is released as a vector (`laplace_vector`).
    pub(crate) fn vector(&self) -> bool {
        self.label == LabelMechanism::LaplaceVector
    }

    /// One user's release, cell first then label, from `rng`: writes the centred cell
    /// scores c_j (E[c_j] = a·1{j = leaf}) into `score` (length K) and, for the label
    /// vector, y·1{j = leaf} + Lap(2M_Y/ε_l) into `label_vector` (length K), returning 0;
    /// for the scalar label it returns clip(y) + Lap(R/ε_l).
    pub(crate) fn release(
        &self,
        leaf: usize,
        y: f64,
        score: &mut [f64],
        label_vector: &mut [f64],
        rng: &mut Pcg64,
    ) -> f64 {
        let (k, y) = (self.k, self.bounds.clip(y));
        match self.cell {
            CellMechanism::RandomizedResponse => {
                for (j, sc) in score.iter_mut().enumerate() {
                    let kept = rng.gen::<f64>() < self.rr.keep;
                    let bit = (j == leaf) == kept;
                    *sc = f64::from(u8::from(bit)) - (1.0 - self.rr.keep);
                }
            }
            CellMechanism::Laplace => {
                for (j, sc) in score.iter_mut().enumerate() {
                    *sc = f64::from(u8::from(j == leaf)) + laplace(rng, self.cell_scale);
                }
            }
            CellMechanism::GeneralizedRr => {
                let report = if k == 1 || rng.gen::<f64>() < self.p_true {
                    leaf
                } else {
                    let r = rng.gen_range(0..k - 1);
                    if r >= leaf {
                        r + 1
                    } else {
                        r
                    }
                };
                for (j, sc) in score.iter_mut().enumerate() {
                    *sc = f64::from(u8::from(j == report)) - self.q_other;
                }
            }
            CellMechanism::None => unreachable!(),
        }
        match self.label {
            LabelMechanism::Laplace => y + laplace(rng, self.label_scale),
            LabelMechanism::LaplaceVector => {
                for (j, v) in label_vector.iter_mut().enumerate() {
                    *v = if j == leaf { y } else { 0.0 } + laplace(rng, self.vector_scale);
                }
                0.0
            }
            LabelMechanism::None => unreachable!(),
        }
    }

    /// The audit cases of this release (issue 13; [`crate::audit`]) on two cells: a user in
    /// cell 0 against one in cell 1, with labels lo vs hi for the scalar label (sensitivity
    /// R) and the label of largest |y| for both under the label vector (L1 distance 2·M_Y).
    /// Parts: the cell release (claims ε_cell), the label release (ε_label), the whole
    /// release (their sum), each through its log-likelihood ratio under the claimed budgets:
    /// randomized response ε_cell/2 per differing bit, generalized RR ±ε_cell on reports 0
    /// and 1, Laplace vectors per differing coordinate.
    ///
    /// # Panics
    /// If the release has fewer than two cells.
    pub(crate) fn audit_cases(&self) -> Vec<AuditCase> {
        assert!(self.k >= 2, "an audit needs two cells");
        let rel = *self;
        let (lo, hi) = (rel.bounds.lo, rel.bounds.hi);
        let (y_a, y_b) = if rel.vector() {
            let y = if hi.abs() >= lo.abs() { hi } else { lo };
            (y, y)
        } else {
            (lo, hi)
        };
        let (claim_c, claim_l) = (rel.eps_cell, rel.eps_label);
        // Claimed scales, from the budgets alone.
        let (cell_b, label_b, vector_b) = (
            2.0 / claim_c,
            (hi - lo) / claim_l,
            2.0 * lo.abs().max(hi.abs()) / claim_l,
        );
        // (cell statistic, label statistic) of one release of a user in `leaf` with `y`.
        let stats = move |leaf: usize, y: f64, r: &mut Pcg64| {
            let (mut score, mut vector) = (vec![0.0; rel.k], vec![0.0; rel.k]);
            let noisy = rel.release(leaf, y, &mut score, &mut vector, r);
            let cell = match rel.cell {
                CellMechanism::RandomizedResponse => claim_c * (score[0] - score[1]),
                CellMechanism::Laplace => {
                    laplace_log_ratio(score[0], 1.0, 0.0, cell_b)
                        + laplace_log_ratio(score[1], 0.0, 1.0, cell_b)
                }
                CellMechanism::GeneralizedRr => {
                    claim_c
                        * (f64::from(u8::from(score[0] > 0.0))
                            - f64::from(u8::from(score[1] > 0.0)))
                }
                CellMechanism::None => unreachable!(),
            };
            let label = if rel.vector() {
                laplace_log_ratio(vector[0], y_a, 0.0, vector_b)
                    + laplace_log_ratio(vector[1], 0.0, y_b, vector_b)
            } else {
                laplace_log_ratio(noisy, y_a, y_b, label_b)
            };
            (cell, label)
        };
        let neighbours =
            format!("cell 0, y = {y_a} vs cell 1, y = {y_b}; statistic the log-likelihood ratio");
        two_part_cases(
            [("cell release", claim_c), ("label release", claim_l)],
            &neighbours,
            move |b, r| {
                if b {
                    stats(1, y_b, r)
                } else {
                    stats(0, y_a, r)
                }
            },
        )
    }
}
