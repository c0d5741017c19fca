//! One private user's release under a composition's cell and label mechanisms (docs/architecture.md,
//! "Releases are first-class"): used by the user-by-user simulation of the curator's sums
//! ([`super::simulate_sums`]), by LPCT's exact sums ([`UserRelease::laplace_sums`], the
//! same law, tested), and by the privacy audit (`audit::local`), which draws
//! [`UserRelease::release`].
//!
//! **Ledger.** Every part of a release is drawn by a charged release of the privacy crate,
//! which charges the user, in the sampler, what the part spent from the probabilities and
//! scales the draws used and the sensitivity of the domain it saw: a one-hot vector over K
//! cells (two coordinates differ, none when K = 1) and a label clipped into the bounds
//! (range R; the label vector y·U moves by at most 2·M_Y, M_Y = max(|lo|, |hi|), or R
//! when K = 1). The exact shortcut [`UserRelease::laplace_sums`] charges every user it
//! stands for through [`laplace_sums`].

use super::{CellMechanism, Composition, LabelMechanism};
use crate::estimate::{lpct_noisy_sums, LabelBounds};
use crate::privacy::ledger::Subjects;
use crate::privacy::{
    laplace_release, laplace_sums, laplace_vector_release, rr_keep_probability, Domain, Grr,
    KeepProbability, OneHotRr,
};
use rand_pcg::Pcg64;

/// The ledger's part name of a cell release, by mechanism.
fn cell_part(c: CellMechanism) -> &'static str {
    match c {
        CellMechanism::RandomizedResponse => crate::estimate::LPDT_CELL_PART,
        CellMechanism::Laplace => "cell: laplace vector",
        CellMechanism::GeneralizedRr => "cell: generalized randomized response",
        CellMechanism::None => "cell: none",
    }
}

/// The ledger's part name of a label release, by mechanism.
fn label_part(l: LabelMechanism) -> &'static str {
    match l {
        LabelMechanism::Laplace => crate::estimate::LPDT_LABEL_PART,
        LabelMechanism::LaplaceVector => "label: laplace vector",
        LabelMechanism::None => "label: none",
    }
}

/// The mechanisms and scales of one user's release over K cells at budgets
/// (ε_cell, ε_label) (a composition's `cell_mechanism` and `label_mechanism`; LPCT paper
/// §3 for the Laplace vectors, docs/methods/lpdt.md §2.1 for randomized response and the scalar label).
#[derive(Debug, Clone, Copy)]
pub struct UserRelease {
    cell: CellMechanism,
    label: LabelMechanism,
    k: usize,
    bounds: LabelBounds,
    /// Randomized response: κ and γ at ε_cell.
    rr: KeepProbability,
    /// Generalized RR over the K cells at ε_cell (the `generalized_rr` cell).
    grr: Option<Grr>,
    /// The factor a of the centred cell scores: E[c_ij] = a·U_ij.
    pub a: f64,
    /// The Laplace scale of the one-hot cell vector: 2/ε_cell (L1 sensitivity 2).
    pub cell_scale: f64,
    /// The scalar Laplace label's scale R/ε_label.
    pub label_scale: f64,
    /// The label vector's Laplace scale 2·M_Y/ε_label, M_Y = max(|lo|, |hi|).
    pub vector_scale: f64,
}

impl UserRelease {
    /// The release of composition `c` over `k` cells, labels clipped into `bounds`.
    ///
    /// # Panics
    /// If `c` has no cell or no label mechanism (a non-private composition).
    pub fn new(
        c: &Composition,
        k: usize,
        bounds: LabelBounds,
        (eps_cell, eps_label): (f64, f64),
    ) -> UserRelease {
        let rr = rr_keep_probability(eps_cell);
        let grr = (c.cell_mechanism == CellMechanism::GeneralizedRr).then(|| Grr::new(eps_cell, k));
        let a = match (c.cell_mechanism, grr) {
            (CellMechanism::RandomizedResponse, _) => rr.gamma,
            (CellMechanism::Laplace, _) => 1.0,
            (CellMechanism::GeneralizedRr, Some(g)) => g.p_true() - g.p_other(),
            _ => unreachable!("validated: private"),
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
            grr,
            a,
            cell_scale: 2.0 / eps_cell,
            label_scale: bounds.range() / eps_label,
            vector_scale: 2.0 * m_y / eps_label,
        }
    }

    /// Whether the label is released as a vector (`laplace_vector`).
    pub fn vector(&self) -> bool {
        self.label == LabelMechanism::LaplaceVector
    }

    /// The cell mechanism.
    pub fn cell(&self) -> CellMechanism {
        self.cell
    }

    /// The number of cells K.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The label bounds labels are clipped into.
    pub fn bounds(&self) -> LabelBounds {
        self.bounds
    }

    /// The domain of the cell vector: one-hot over the K cells.
    fn cell_domain(&self) -> Domain {
        Domain::OneHot {
            lo: 1.0,
            hi: 1.0,
            cells: self.k,
        }
    }

    /// The domain of the label vector y·U: the label in the bounds at one of the K cells.
    fn vector_domain(&self) -> Domain {
        Domain::OneHot {
            lo: self.bounds.lo,
            hi: self.bounds.hi,
            cells: self.k,
        }
    }

    /// The curator's per-cell sums (Ũ, Ṽ) of the releases of n users (cells `leaves`,
    /// labels `y`, both of length n) under the Laplace cell vector and the Laplace label
    /// vector, drawn exactly in law in O(K) ([`lpct_noisy_sums`] at this release's scales
    /// 2/ε_cell and 2·M_Y/ε_label; labels clipped into the bounds as [`UserRelease::release`]
    /// clips them): Ũ_j = Σ_i score_ij and Ṽ_j = Σ_i label_vector_ij of n calls of
    /// [`UserRelease::release`] (tested). Charges each of the n users both parts, through
    /// [`laplace_sums`], at the scales the sums are drawn with.
    ///
    /// # Panics
    /// Unless the cell mechanism is `laplace` and the label mechanism `laplace_vector`, or
    /// as [`lpct_noisy_sums`].
    pub fn laplace_sums(
        &self,
        leaves: &[usize],
        y: &[f64],
        rng: &mut Pcg64,
    ) -> (Vec<f64>, Vec<f64>) {
        assert!(
            self.cell == CellMechanism::Laplace && self.vector(),
            "the exact sums are those of the Laplace cell and label vectors"
        );
        let clipped: Vec<f64> = y.iter().map(|&v| self.bounds.clip(v)).collect();
        let n = leaves.len();
        // One exact sum per cell stands for the n users' Laplace draws on that cell.
        let u = laplace_sums(
            self.cell_domain(),
            n,
            || std::iter::repeat_n(1.0, n),
            self.cell_scale,
            cell_part(self.cell),
            0,
        );
        let v = laplace_sums(
            self.vector_domain(),
            n,
            || clipped.iter().copied(),
            self.vector_scale,
            label_part(self.label),
            0,
        );
        lpct_noisy_sums(leaves, &clipped, self.k, (&u, &v), rng)
    }

    /// One user's release, cell first then label, from `rng`: writes the centred cell
    /// scores c_j (E[c_j] = a·1{j = leaf}) into `score` (length K) and, for the label
    /// vector, y·1{j = leaf} + Lap(2M_Y/ε_l) into `label_vector` (length K), returning 0;
    /// for the scalar label it returns clip(y) + Lap(R/ε_l). Each part is drawn by a
    /// charged release of the privacy crate ([`OneHotRr::release`],
    /// [`laplace_vector_release`], [`Grr::release_charged`], [`laplace_release`]), which
    /// charges user `user` (its index in the private sample) what the part spent.
    pub fn release(
        &self,
        user: usize,
        leaf: usize,
        y: f64,
        score: &mut [f64],
        label_vector: &mut [f64],
        rng: &mut Pcg64,
    ) -> f64 {
        let y = self.bounds.clip(y);
        let (who, part) = (Subjects::One(user), cell_part(self.cell));
        match (self.cell, self.grr) {
            (CellMechanism::RandomizedResponse, _) => {
                let q = 1.0 - self.rr.keep;
                OneHotRr::new(self.rr.keep).release(
                    rng,
                    score.len(),
                    |j| j == leaf,
                    part,
                    who,
                    |j, bit| score[j] = f64::from(u8::from(bit)) - q,
                );
            }
            (CellMechanism::Laplace, _) => {
                for (j, sc) in score.iter_mut().enumerate() {
                    *sc = f64::from(u8::from(j == leaf));
                }
                laplace_vector_release(rng, score, self.cell_domain(), self.cell_scale, part, who);
            }
            (CellMechanism::GeneralizedRr, Some(g)) => {
                let report = g.release_charged(leaf, rng, part, who);
                let q_other = g.p_other();
                for (j, sc) in score.iter_mut().enumerate() {
                    *sc = f64::from(u8::from(j == report)) - q_other;
                }
            }
            _ => unreachable!(),
        }
        let part = label_part(self.label);
        match self.label {
            LabelMechanism::Laplace => {
                let domain = Domain::Interval {
                    lo: self.bounds.lo,
                    hi: self.bounds.hi,
                };
                laplace_release(rng, y, domain, self.label_scale, part, who)
            }
            LabelMechanism::LaplaceVector => {
                for (j, v) in label_vector.iter_mut().enumerate() {
                    *v = if j == leaf { y } else { 0.0 };
                }
                laplace_vector_release(
                    rng,
                    label_vector,
                    self.vector_domain(),
                    self.vector_scale,
                    part,
                    who,
                );
                0.0
            }
            LabelMechanism::None => unreachable!(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::Composed;
    use crate::privacy::ledger;
    use rand::SeedableRng;

    /// LPCT-M's composition (Laplace indicator and label vectors, ε/2 each).
    fn lpct() -> Composition {
        crate::methods::compose::presets()
            .into_iter()
            .find(|m: &Composed| m.name == "LPCT-M")
            .expect("LPCT-M preset")
            .composition
    }

    /// The exact sums ([`UserRelease::laplace_sums`]) and the sums of n per-user releases
    /// ([`UserRelease::release`]) of one release object have the same law: per cell, mean
    /// N_j (resp. S_j) and variance 2n·b² (b = 2/ε_cell, resp. 2M_Y/ε_label), independent
    /// across cells and statistics. Over R = 3000 replicates of each, n = 12 users in 3
    /// cells (one empty) at ε = 2 (b = 2 for both vectors, variance 96, sd 9.8): each
    /// sample mean has standard error 9.8/√3000 = 0.18, the difference of the two 0.25, and
    /// we allow 5 of them (1.3); each sample variance has relative standard error
    /// √((2 + κ)/R) with excess kurtosis κ = 3/n = 0.25 of a sum of 12 Laplace draws, 0.027,
    /// the ratio of the two 0.039, and we allow 5 of them (0.19). The covariance of Ũ_j and
    /// Ṽ_j (0 for both: independent draws) is within 5 standard errors (5·96/√3000 ≈ 8.8).
    #[test]
    fn exact_sums_have_the_law_of_the_per_user_releases() {
        let c = lpct();
        let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
        let (k, eps) = (3, 2.0);
        let rel = UserRelease::new(&c, k, bounds, (eps / 2.0, eps / 2.0));
        assert_eq!((rel.cell_scale, rel.vector_scale), (2.0, 2.0));
        let leaves: Vec<usize> = (0..12).map(|i| if i < 8 { 0 } else { 1 }).collect();
        let y: Vec<f64> = (0..12).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let truth_u = [8.0, 4.0, 0.0];
        let truth_v = [3.0, 1.0, 0.0];
        let r = 3000;
        let mut rng = Pcg64::seed_from_u64(5);
        // stats[way][cell*2 + statistic] = the noise of each replicate.
        let mut stats: Vec<Vec<Vec<f64>>> = (0..2)
            .map(|_| (0..2 * k).map(|_| Vec::with_capacity(r)).collect())
            .collect();
        let (mut score, mut vector) = (vec![0.0; k], vec![0.0; k]);
        for _ in 0..r {
            let (u, v) = rel.laplace_sums(&leaves, &y, &mut rng);
            let (mut u2, mut v2) = (vec![0.0; k], vec![0.0; k]);
            for (i, (&leaf, &yi)) in leaves.iter().zip(&y).enumerate() {
                rel.release(i, leaf, yi, &mut score, &mut vector, &mut rng);
                for j in 0..k {
                    u2[j] += score[j];
                    v2[j] += vector[j];
                }
            }
            for j in 0..k {
                stats[0][2 * j].push(u[j] - truth_u[j]);
                stats[0][2 * j + 1].push(v[j] - truth_v[j]);
                stats[1][2 * j].push(u2[j] - truth_u[j]);
                stats[1][2 * j + 1].push(v2[j] - truth_v[j]);
            }
        }
        let moments = |s: &[f64]| {
            let m = s.iter().sum::<f64>() / s.len() as f64;
            let v = s.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (s.len() - 1) as f64;
            (m, v)
        };
        for (s, (exact, per_user)) in stats[0].iter().zip(&stats[1]).enumerate() {
            let (m0, v0) = moments(exact);
            let (m1, v1) = moments(per_user);
            assert!((m0 - m1).abs() < 1.3, "statistic {s}: means {m0} vs {m1}");
            assert!(
                (v0 / v1 - 1.0).abs() < 0.19,
                "statistic {s}: variances {v0} vs {v1}"
            );
            assert!(
                (v0 / 96.0 - 1.0).abs() < 0.14,
                "statistic {s}: variance {v0} vs 96"
            );
        }
        for way in &stats {
            for j in 0..k {
                let (a, b) = (&way[2 * j], &way[2 * j + 1]);
                let cov = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / r as f64;
                assert!(cov.abs() < 8.8, "cell {j}: covariance {cov}");
            }
        }
    }

    /// Both ways charge every user ε/2 per vector, once per release.
    #[test]
    fn exact_sums_and_per_user_releases_charge_the_same() {
        let c = lpct();
        let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
        let rel = UserRelease::new(&c, 4, bounds, (0.5, 0.5));
        let leaves = [0, 1, 3, 3, 2];
        let y = [1.0, 0.0, 1.0, 1.0, 0.0];
        let (_, exact) = ledger::recording(|| {
            rel.laplace_sums(&leaves, &y, &mut Pcg64::seed_from_u64(1));
        });
        let (_, per_user) = ledger::recording(|| {
            let (mut s, mut v) = (vec![0.0; 4], vec![0.0; 4]);
            let mut rng = Pcg64::seed_from_u64(1);
            for (i, (&l, &yi)) in leaves.iter().zip(&y).enumerate() {
                rel.release(i, l, yi, &mut s, &mut v, &mut rng);
            }
        });
        for r in [&exact, &per_user] {
            assert_eq!(r.subjects, 5);
            assert!((r.max_epsilon - 1.0).abs() < 1e-12 && (r.min_epsilon - 1.0).abs() < 1e-12);
        }
        assert_eq!(exact.path_text(), per_user.path_text());
    }
}
