//! The prepared states of the local-DP compositions (the ratio estimator on a tree, LPDT
//! eq. 5; the histogram estimators on a grid, LPDT paper App. D.1; fixed predictions of the
//! non-private methods) and the simulated users' sums the ratio estimator reads.

use super::blocks::{Composition, EstimatorBlock};
use super::release::UserRelease;
use crate::data::Dataset;
use crate::estimate::{
    histogram_predict, lpdt_leaf_values, HistogramConfig, LabelBounds, LpdtConfig, Simulation,
};
use crate::methods::{predict_leaves, MethodError, Params, Prepared};
use crate::partition::{Grid, Partition};
use rand_pcg::Pcg64;
use std::sync::Arc;

/// The most frequent class of `grown`'s rows in each leaf of `partition`, ties to the
/// smallest class; an empty leaf (none in a tree grown on `grown`) predicts the overall
/// majority.
///
/// # Errors
/// A label other than 0 or 1: the variance-reduction CART is the Gini CART only for two
/// classes.
pub(super) fn leaf_majority(
    partition: &Partition,
    grown: &Dataset,
) -> Result<Vec<f64>, MethodError> {
    if let Some(bad) = grown.y.iter().find(|&&y| y != 0.0 && y != 1.0) {
        return Err(MethodError::Other(format!(
            "leaf_majority grows its tree with the variance-reduction CART, which is the Gini CART only for 0/1 labels; found class {bad}"
        )));
    }
    let mut ones = vec![0usize; partition.n_leaves()];
    let mut counts = vec![0usize; partition.n_leaves()];
    for i in 0..grown.n() {
        let l = partition.leaf_of(grown.x.row(i));
        counts[l] += 1;
        ones[l] += usize::from(grown.y[i] == 1.0);
    }
    let total_ones: usize = ones.iter().sum();
    let overall = f64::from(u8::from(2 * total_ones > grown.n()));
    Ok(counts
        .iter()
        .zip(&ones)
        .map(|(&n, &k)| match n {
            0 => overall,
            _ => f64::from(u8::from(2 * k > n)),
        })
        .collect())
}

/// Predictions that do not depend on ε (non-private methods).
pub(super) struct PreparedFixed {
    pub(super) predictions: Vec<f64>,
}

impl Prepared for PreparedFixed {
    fn predict(&self, _: &Params, _: Option<f64>, _: &mut Pcg64) -> Result<Vec<f64>, MethodError> {
        Ok(self.predictions.clone())
    }
}

/// A tree partition with the ratio estimator.
pub(super) struct PreparedTree {
    pub(super) partition: Arc<Partition>,
    pub(super) private_leaves: Vec<usize>,
    pub(super) test_leaves: Vec<usize>,
    pub(super) test_in_domain: Vec<bool>,
    pub(super) y: Vec<f64>,
    pub(super) bounds: LabelBounds,
    pub(super) composition: Composition,
}

impl Prepared for PreparedTree {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = crate::methods::required_epsilon("a composed method", epsilon)?;
        let c = &self.composition;
        let tau = m.f64("tau");
        let values = if c.lpdt_release() {
            // LPDT exactly as the paper states it (docs/methods/lpdt.md §2).
            let cfg = LpdtConfig {
                epsilon,
                rho: m.f64("rho"),
                bounds: self.bounds,
                tau,
                simulation: Simulation::from_name(m.str("simulation"))
                    .expect("validated against Simulation::NAMES"),
            };
            lpdt_leaf_values(
                &self.private_leaves,
                &self.y,
                &self.partition.leaf_means,
                &cfg,
                rng,
            )?
            .values
        } else {
            let (eps_cell, eps_label) = c.budgets(epsilon, m)?;
            ratio_by_simulation(self, (eps_cell, eps_label), tau, c.centres_labels(m), rng)
        };
        let route_all = m.str("ood") == "route";
        let leaves: Vec<Option<usize>> = self
            .test_leaves
            .iter()
            .zip(&self.test_in_domain)
            .map(|(&l, &inside)| (inside || route_all).then_some(l))
            .collect();
        Ok(predict_leaves(&leaves, &values))
    }
}

/// The ratio estimator for any cell and label mechanism (see [`simulate_sums`]): the
/// curator predicts T_j/S_j (times a for the label vector, whose sum carries no factor
/// a), or the leaf's fallback when S_j ≤ 0 or S_j/a ≤ τ·n. With `y_center` (label vector
/// only) the users release labels shifted by the bounds' midpoint c ([`LabelBounds::centred`])
/// and the curator predicts c + a·T_j/S_j; the fallback is the leaf's public mean either
/// way.
fn ratio_by_simulation(
    t: &PreparedTree,
    (eps_cell, eps_label): (f64, f64),
    tau: f64,
    y_center: bool,
    rng: &mut Pcg64,
) -> Vec<f64> {
    let k = t.partition.n_leaves();
    let n = t.y.len();
    let (bounds, shift) = t.bounds.centred(y_center);
    let rel = UserRelease::new(&t.composition, k, bounds, (eps_cell, eps_label));
    let shifted: Vec<f64>;
    let y = if y_center {
        shifted = t.y.iter().map(|v| v - shift).collect();
        &shifted
    } else {
        &t.y
    };
    let sums = simulate_sums(&rel, (&t.private_leaves, y), rng);
    let (s, tsum, a) = (&sums.s, &sums.t, sums.a);
    (0..k)
        .map(|j| {
            if s[j] <= 0.0 || s[j] / a <= tau * n as f64 {
                t.partition.leaf_means[j]
            } else if sums.vector {
                shift + a * tsum[j] / s[j]
            } else {
                tsum[j] / s[j]
            }
        })
        .collect()
}

/// The curator's per-cell sums of simulated releases, for any cell and label mechanism.
pub(crate) struct SimulatedSums {
    /// S_j = Σ_i c_ij, the centred cell scores with E[c_ij] = a·U_ij.
    pub s: Vec<f64>,
    /// T_j: Σ_i ỹ_i c_ij for the scalar Laplace label (E = a·Σ y_i U_ij), or Σ_i of the
    /// noisy label vector's coordinate j for `laplace_vector` (E = Σ y_i U_ij).
    pub t: Vec<f64>,
    /// The factor a of the cell scores.
    pub a: f64,
    /// Whether the label mechanism is `laplace_vector`.
    pub vector: bool,
}

/// Simulates every private user's release `rel` (O(n·K) draws; users in order, for each
/// its cell release then its label release, [`UserRelease::release`], which charges user
/// i) and returns the curator's sums. `leaves`, `y`: the cell and label of each of the n
/// private users; labels are clipped into the release's bounds, whose range sets the
/// scalar Laplace scale R/ε_l and whose largest absolute value M_Y the vector's 2M_Y/ε_l.
pub(crate) fn simulate_sums(
    rel: &UserRelease,
    (leaves, y): (&[usize], &[f64]),
    rng: &mut Pcg64,
) -> SimulatedSums {
    let k = rel.k();
    let mut s = vec![0.0; k];
    let mut tsum = vec![0.0; k];
    let mut score = vec![0.0; k];
    let mut label_vector = vec![0.0; if rel.vector() { k } else { 0 }];
    for (i, (&leaf, &yi)) in leaves.iter().zip(y).enumerate() {
        let noisy = rel.release(i, leaf, yi, &mut score, &mut label_vector, rng);
        if rel.vector() {
            for j in 0..k {
                s[j] += score[j];
                tsum[j] += label_vector[j];
            }
        } else {
            for j in 0..k {
                s[j] += score[j];
                tsum[j] += noisy * score[j];
            }
        }
    }
    SimulatedSums {
        s,
        t: tsum,
        a: rel.a,
        vector: rel.vector(),
    }
}

/// A regular grid with the histogram estimators; cells are identified by `K`: the mixed-
/// radix index `u64` (`cells: capped`) or the per-axis bins `Vec<u32>` (`cells: sparse`).
/// The estimator draws the same noise in the same order for either key (tested).
pub(super) struct PreparedGrid<K> {
    pub(super) grid: Grid,
    pub(super) private_cells: Vec<K>,
    pub(super) test_cells: Vec<K>,
    /// For a classification data set: whether each test point lies in [0,1]^d. The
    /// prediction is then the class 1{m̂ > 1/2} inside the box and 0 outside (PHIST as
    /// the LPCT paper runs it, Berrett & Butucea's estimator; docs/methods/lpct.md §7.2).
    pub(super) test_classes: Option<Vec<bool>>,
    pub(super) y: Vec<f64>,
    pub(super) bounds: LabelBounds,
    pub(super) composition: Composition,
}

impl<K: std::hash::Hash + Eq + Clone + Send + Sync> Prepared for PreparedGrid<K> {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = crate::methods::required_epsilon("a composed method", epsilon)?;
        let (eps_cell, eps_label) = self.composition.budgets(epsilon, m)?;
        let weights = match self.composition.estimator {
            EstimatorBlock::AdjustedHistogram if m.str("weights") == "reported_fit" => (1.0, 0.5),
            EstimatorBlock::AdjustedHistogram => (0.5, 0.5),
            _ => (1.0, 0.0),
        };
        let cfg = HistogramConfig {
            eps_cell,
            eps_label,
            t: m.f64("t"),
            bounds: self.bounds,
            weights,
            y_center: m.bool("y_center"),
        };
        let values = histogram_predict(
            &self.grid,
            &self.private_cells,
            &self.y,
            &self.test_cells,
            &cfg,
            rng,
        )?;
        Ok(match &self.test_classes {
            None => values,
            Some(inside) => values
                .iter()
                .zip(inside)
                .map(|(&v, &inside)| f64::from(u8::from(inside && v > 0.5)))
                .collect(),
        })
    }
}
