//! The LPCT estimators as compositions (`estimator: lpct` and `lpct_prune`; LPCT paper
//! §3–§5, method card docs/methods/lpct.md §3–§5): a tree grown on public data, the users' releases
//! summed per leaf, the public counts of each leaf, and the class of eq. (8) or of the
//! pruning walk. The computing lives in `estimate::lpct` and `estimate::lpct_prune`; this
//! file wires a fitted tree to them.

use super::release::UserRelease;
use super::{simulate_sums, CellMechanism, Composition, EstimatorBlock, LabelMechanism};
use crate::estimate::{
    code_walk_order, lpct_predict, pooled_sums, prune_paper, prune_reference_v1, public_counts,
    second_round_classes, LabelBounds, PaperPrune, PruneConfig, V1Quirks,
};
use crate::methods::{MethodError, Params, Prepared, RepData};
use crate::partition::{Partition, TreeShape};
use rand_pcg::Pcg64;
use std::sync::Arc;

/// The release every private user of LPCT composition `c` makes over `k` leaves at the
/// round budget ε (docs/methods/lpct.md §3; [`lpct_round_epsilon`] for LPCT-prune): the composition's
/// cell and label mechanisms at (ε_cell, ε_label) = its budget shares of ε (ε/2 each for
/// LPCT: Laplace scale 4/ε on both vectors), labels clipped into `bounds`. The runner's
/// sums and the privacy audit both draw from this release.
///
/// # Errors
/// When ε is not finite and > 0 (or ρ ∉ (0, 1) under `budget: rho`).
pub fn lpct_release(
    c: &Composition,
    k: usize,
    bounds: LabelBounds,
    epsilon: f64,
    m: &Params,
) -> Result<UserRelease, MethodError> {
    let budgets = if crate::privacy::mutants::active("lpct-full-eps-each-vector") {
        // Slip: each of the two vectors released at the whole ε.
        c.budgets(epsilon, m)?;
        (epsilon, epsilon)
    } else {
        c.budgets(epsilon, m)?
    };
    Ok(UserRelease::new(c, k, bounds, budgets))
}

/// The budget of one round of users' releases at grid point `m` and budget ε: ε for
/// LPCT and LPCT-prune `reference_v1` (one round, docs/methods/lpct.md §5.4), ε/2 for LPCT-prune
/// `paper` (Algorithm 2's two rounds, §5.2).
pub fn lpct_round_epsilon(c: &Composition, m: &Params, epsilon: f64) -> f64 {
    if c.estimator == EstimatorBlock::LpctPrune && m.str("prune") == "paper" {
        epsilon / 2.0
    } else {
        epsilon
    }
}

/// A partition with the leaves of the private users, of the test points (None outside
/// [0,1]^d, docs/methods/lpct.md §4.4) and the public counts U_Q, V_Q of every leaf.
struct LeafData {
    partition: Arc<Partition>,
    /// Parents and depths of the partition's nodes, for LPCT-prune's walks.
    shape: TreeShape,
    /// The order in which the V1 code walks the leaves ([`code_walk_order`]).
    walk_order: Vec<usize>,
    private_leaves: Vec<usize>,
    test_leaves: Vec<Option<usize>>,
    u_q: Vec<f64>,
    v_q: Vec<f64>,
}

/// Whether every coordinate of `x` lies in [0, 1] (boundary included): LPCT predicts
/// class 0 outside the unit box whatever the partition rule (docs/methods/lpct.md §4.4, §6).
fn in_unit_box(x: &[f64]) -> bool {
    x.iter().all(|v| (0.0..=1.0).contains(v))
}

impl LeafData {
    fn new(partition: Arc<Partition>, data: &RepData) -> LeafData {
        let leaves = |d: &crate::data::Dataset| -> Vec<usize> { partition.leaves_of(&d.x) };
        let (u_q, v_q) = public_counts(&leaves(&data.public), &data.public.y, partition.n_leaves());
        LeafData {
            private_leaves: data.private.cells(&*partition),
            test_leaves: (0..data.test.n())
                .map(|i| {
                    let x = data.test.x.row(i);
                    in_unit_box(x).then(|| partition.leaf_of(x))
                })
                .collect(),
            u_q,
            v_q,
            shape: partition.shape(),
            walk_order: code_walk_order(&partition.nodes),
            partition,
        }
    }
}

/// An LPCT tree fitted on public data for one repetition and structural grid point.
pub(super) struct LpctFit {
    main: LeafData,
    /// The depth-p_min partition of Algorithm 2's second round (LPCT-prune only).
    second: Option<LeafData>,
    /// Private labels clipped into the label bounds (length n_P).
    y: Vec<f64>,
    n_q: usize,
    bounds: LabelBounds,
    p0: usize,
    p_min: usize,
}

impl LpctFit {
    /// `partition` grown on `data.public` with depth `p0`; `second` the depth-`p_min`
    /// partition for LPCT-prune's second round.
    pub(super) fn new(
        partition: Arc<Partition>,
        second: Option<Arc<Partition>>,
        data: &RepData,
        (p0, p_min): (usize, usize),
    ) -> LpctFit {
        LpctFit {
            main: LeafData::new(partition, data),
            second: second.map(|p| LeafData::new(p, data)),
            // Clipped once here, not at every release (0/1 labels pass unchanged).
            y: data.private.clipped_labels(data.bounds),
            n_q: data.public.n(),
            bounds: data.bounds,
            p0,
            p_min,
        }
    }

    /// LPCT-Q: V_Q/U_Q > 1/2 in the test point's leaf, class 0 outside [0,1]^d or in a
    /// leaf without public points (docs/methods/lpct.md §4.2).
    pub(super) fn public_only(&self) -> Vec<f64> {
        let zeros = vec![0.0; self.main.u_q.len()];
        lpct_predict(
            &self.main.test_leaves,
            (&zeros, &zeros),
            (&self.main.u_q, &self.main.v_q),
            1.0,
        )
    }
}

/// LPCT or LPCT-prune ready to privatize and predict.
pub(super) struct PreparedLpct {
    pub(super) fit: LpctFit,
    pub(super) composition: Composition,
}

impl PreparedLpct {
    /// The curator's unbiased per-leaf sums (Ũ, Ṽ) of the users' releases
    /// ([`lpct_release`]) on `leaves` at budget `epsilon`. The LPCT release (Laplace
    /// indicator vector and Laplace label vector) uses the exact O(1) sum of the n_P users'
    /// Laplace draws per leaf ([`UserRelease::laplace_sums`]); any other mechanism is
    /// simulated user by user and debiased (Ũ = S/a, and Ṽ = T/a for a scalar Laplace
    /// label).
    fn sums(
        &self,
        leaves: &LeafData,
        epsilon: f64,
        m: &Params,
        rng: &mut Pcg64,
    ) -> Result<(Vec<f64>, Vec<f64>), MethodError> {
        let c = &self.composition;
        let k = leaves.partition.n_leaves();
        let rel = lpct_release(c, k, self.fit.bounds, epsilon, m)?;
        if c.cell_mechanism == CellMechanism::Laplace
            && c.label_mechanism == LabelMechanism::LaplaceVector
        {
            return Ok(rel.laplace_sums(&leaves.private_leaves, &self.fit.y, rng));
        }
        let s = simulate_sums(&rel, (&leaves.private_leaves, &self.fit.y), rng);
        let u = s.s.iter().map(|v| v / s.a).collect();
        let v = if s.vector {
            s.t
        } else {
            s.t.iter().map(|v| v / s.a).collect()
        };
        Ok((u, v))
    }
}

impl Prepared for PreparedLpct {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = crate::methods::required_epsilon("LPCT", epsilon)?;
        let main = &self.fit.main;
        if self.composition.estimator == EstimatorBlock::Lpct {
            let (u, v) = self.sums(main, epsilon, m, rng)?;
            return Ok(lpct_predict(
                &main.test_leaves,
                (&u, &v),
                (&main.u_q, &main.v_q),
                m.f64("lambda"),
            ));
        }
        // LPCT-prune: reference_v1 (either semantics of the code's quirks) spends ε on
        // one round; the paper ε/2 per round.
        let (paper, quirks) = match m.str("prune") {
            "paper" => (true, V1Quirks::NONE),
            "reference_v1_as_coded" => (false, V1Quirks::AS_CODED),
            _ => (false, V1Quirks::NONE),
        };
        let eps_round = lpct_round_epsilon(&self.composition, m, epsilon);
        let (u, v) = self.sums(main, eps_round, m, rng)?;
        let shape = &main.shape;
        let pooled = pooled_sums(shape, (&u, &v), (&main.u_q, &main.v_q));
        let cfg = PruneConfig {
            n_p: self.fit.y.len(),
            n_q: self.fit.n_q,
            epsilon: eps_round,
            p0: self.fit.p0,
            p_min: self.fit.p_min,
        };
        let (leaves, classes) = if paper {
            match prune_paper(shape, &pooled, &cfg) {
                PaperPrune::Classes(c) => (main, c),
                PaperPrune::SecondRound => {
                    let second = self
                        .fit
                        .second
                        .as_ref()
                        .expect("lpct_prune grows the depth-p_min partition");
                    let (u2, v2) = self.sums(second, eps_round, m, rng)?;
                    (second, second_round_classes(&u2, &v2))
                }
            }
        } else {
            (
                main,
                prune_reference_v1(shape, &pooled, &cfg, quirks, &main.walk_order),
            )
        };
        Ok(leaves
            .test_leaves
            .iter()
            .map(|l| l.map_or(0.0, |j| classes[j]))
            .collect())
    }
}
