//! DP-RF (Patil & Singh 2014) as the DiPriMe authors ran it, for classification (card
//! docs/methods/diprime.md §4.4), and the authors' own regression analogue (§4.5), on the 5-bin
//! discretised features of [`super::discretize`].
//!
//! **Forest.** `trees` trees, each with budget ε_T = ε/`trees` (sequential composition: all
//! trees read the same rows). Rows ([`RowSample`]): as run, ⌊f·n⌋ training rows drawn once
//! without replacement and shared by every tree (f = `rows_fraction`: 1 in the tables, so
//! all trees see identical data; 0.25 in Fig 2); the paper speaks of bootstrap samples, one
//! per tree.
//!
//! **Tree** (every node at depth 0..=d, d = `depth`; budgets per level
//! e_node = (1−ρ)ε_T/(d+1) and e_split = ρε_T/(d+1), see [`budgets`]):
//! * classification: noisy class counts ñ_c = max(0, n_c + Lap(1/e_node)) for every class,
//!   fractions ñ_c/Σñ ([0, …, 0, 1] when Σñ = 0); the node is a leaf at depth d, with no
//!   attribute left, or when a fraction is exactly 1;
//! * regression: the node value Lap(mean y, W/(n·e_node)), not clamped as run (clamped to
//!   the label bounds under [`NodeMeans::Clamped`]), Uniform(y_lo, y_hi) when the node is
//!   empty; a leaf at depth d or with no attribute left;
//! * the split attribute is drawn by the exponential mechanism among the candidates (all
//!   remaining attributes as run, else `k` of them uniformly without replacement), with
//!   exact counts:
//!   - classification score Σ_v (n_v/n) Σ_c p_vc² − 1 (negative weighted Gini), weight
//!     exp(e_split·score/2) — sensitivity taken as 1 as run ([`GiniScore::SensitivityOne`]);
//!     or the count form n·score with Friedman & Schuster's sensitivity 2
//!     ([`GiniScore::FriedmanSchuster`]);
//!   - regression score −mse_a, mse_a = Σ_v n_v Var(y_v)/n, sensitivity 4B∞²/n, weight
//!     exp(−e·mse_a·n/(8B∞²)) with e = ε_T as run ([`SplitBudget::WholeTree`], the authors'
//!     bug: the splits spend the whole tree budget) or e_split ([`SplitBudget::PerLevel`]);
//!     as run each weight gets +1e-12 and no maximum is subtracted
//!     (`weight_floors`), so when every exp(…) underflows below 1e-12 the draw is uniform;
//!   - an empty node draws uniformly.
//! * the chosen attribute splits the node into one child per category of its full-data
//!   list (empty ones included) and leaves the subtree's attribute set.
//!
//! **Prediction.** Classification: each tree's leaf votes the class with the largest noisy
//! fraction (the first on ties), the forest takes the majority vote (the smallest class on
//! ties). Regression: the mean of the trees' leaf values.
//!
//! Draw order (for replay): row sample from the forest stream, then one u64 seed per tree;
//! each tree's stream draws nodes in pre-order, each node its noise, then its candidates,
//! then the mechanism's uniform.

use super::discretize::Coded;
use super::sklearn::argmax_first;
use crate::estimate::LabelBounds;
use crate::privacy::ledger::{self, Subjects};
use crate::privacy::{
    exponential_weights_release, laplace_release, laplace_vector_release, Domain, Normalisation,
};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Which rows the trees are grown on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSample {
    /// ⌊f·n⌋ rows without replacement, drawn once, shared by every tree (as run).
    Shared,
    /// Each tree its own ⌊f·n⌋ rows drawn with replacement (the paper's bootstrap).
    Bootstrap,
}

/// The classification split score and its sensitivity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiniScore {
    /// Σ_v (n_v/n) Σ_c p_vc² − 1 with sensitivity 1 (as run).
    SensitivityOne,
    /// n times that score (−Σ_v n_v·Gini_v) with sensitivity 2 (Friedman & Schuster 2010).
    FriedmanSchuster,
}

/// The budget of the regression split mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitBudget {
    /// ε_T, the whole per-tree budget, at every node (as run, a bug).
    WholeTree,
    /// ρε_T/(d+1) per level, as the accounting says.
    PerLevel,
}

/// Whether regression node values are clamped to the label bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeMeans {
    /// Not clamped (as run).
    Unclamped,
    /// Clamped to [y_lo, y_hi].
    Clamped,
}

/// What DP-RF predicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DpRfTask {
    /// Class labels 0..C−1 (C ≥ 2 given).
    Classes(usize),
    /// Real labels in the given bounds (W = hi − lo, B∞ = max(|lo|, |hi|)).
    Regression(LabelBounds),
}

/// DP-RF arguments (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpRfParams {
    /// Number of trees N_T (≥ 1).
    pub trees: usize,
    /// Maximum depth d (nodes at depths 0..=d).
    pub depth: usize,
    /// Candidate attributes per node; None = every remaining attribute.
    pub k: Option<usize>,
    /// Share ρ of a level's budget on the split, in (0, 1).
    pub rho: f64,
    /// Row fraction f in (0, 1].
    pub rows_fraction: f64,
    /// Shared rows or per-tree bootstrap.
    pub row_sample: RowSample,
    /// Classification score.
    pub gini: GiniScore,
    /// Regression split budget.
    pub split_budget: SplitBudget,
    /// Regression node values.
    pub node_means: NodeMeans,
    /// The authors' raw-exp + 1e-12 regression weights (true) or an exact softmax (false).
    pub weight_floors: bool,
}

/// The per-node budgets (e_node, e_split) = ((1−ρ)ε_T/(d+1), ρε_T/(d+1)) of a tree with
/// budget `eps_tree` and depth `depth` (card §4.4: d+1 levels of nodes).
pub fn budgets(eps_tree: f64, rho: f64, depth: usize) -> (f64, f64) {
    let levels = (depth + 1) as f64;
    ((1.0 - rho) * eps_tree / levels, rho * eps_tree / levels)
}

/// A node's class counts `counts` plus Laplace noise of scale 1/`e_node` on each, in
/// order ([`laplace_vector_release`]), charged to `rows`, the node's rows in the private
/// training sample, at 1/b (L1 sensitivity 1: one row added or removed moves one count by
/// 1) from the scale the draws used. DP-RF's and DP-DF's count releases both draw here.
pub(crate) fn node_counts_release<R: Rng + ?Sized>(
    counts: &mut [f64],
    e_node: f64,
    rows: &[usize],
    rng: &mut R,
) {
    let (scale, who) = (1.0 / e_node, Subjects::Rows(rows));
    laplace_vector_release(
        rng,
        counts,
        Domain::Sensitivity(1.0),
        scale,
        "node counts",
        who,
    );
}

/// One node's noisy class counts (classification, card §4.4): max(0, n_c + Lap(1/e_node))
/// for every class c in order, one Laplace draw each.
///
/// Ledger: charges `rows` (the node's rows in the private training sample) 1/b at the
/// draw ([`node_counts_release`]): one row added or removed moves one count by 1.
pub fn noisy_class_counts<R: Rng + ?Sized>(
    counts: &[f64],
    e_node: f64,
    rows: &[usize],
    rng: &mut R,
) -> Vec<f64> {
    let mut noisy = counts.to_vec();
    node_counts_release(&mut noisy, e_node, rows, rng);
    noisy.into_iter().map(|v| v.max(0.0)).collect()
}

/// One non-empty node's noisy mean (regression, card §4.5): `mean` of its n rows plus
/// Lap(W/(n·e_node)), clamped into `b` under [`NodeMeans::Clamped`].
///
/// Ledger: charges `rows` (the node's n rows in the private training sample), at the draw
/// ([`laplace_release`]), (W/n)/b, the mean's sensitivity over the label range with n rows
/// over the scale drawn with, and records the exact count n in the scale as a private
/// quantity (card §9 item 3).
pub fn noisy_mean<R: Rng + ?Sized>(
    mean: f64,
    n: usize,
    b: LabelBounds,
    e_node: f64,
    node_means: NodeMeans,
    rows: &[usize],
    rng: &mut R,
) -> f64 {
    let scale = b.range() / (n as f64 * e_node);
    ledger::private_quantity("node mean scale n", || {
        "DP-RF node noise scale W/(n e_node) with the exact private count n of the node".into()
    });
    let domain = Domain::Sensitivity(b.range() / n as f64);
    let v = laplace_release(rng, mean, domain, scale, "node mean", Subjects::Rows(rows));
    match node_means {
        NodeMeans::Unclamped => v,
        NodeMeans::Clamped => b.clip(v),
    }
}

/// The budget a regression split is drawn with: the whole tree's ε_T as run
/// ([`SplitBudget::WholeTree`]) or the level's e_split.
pub fn split_epsilon(split: SplitBudget, eps_tree: f64, e_split: f64) -> f64 {
    match split {
        SplitBudget::WholeTree => eps_tree,
        SplitBudget::PerLevel => e_split,
    }
}

/// The regression split draw (card §4.5): the exponential mechanism over candidates with
/// within-child errors `mse` on a node of n rows, score −mse, sensitivity 4B∞²/n, budget
/// `e`: weights exp(−e·mse·n/(8B∞²)), with the reference's `+1e-12` on the unshifted
/// weights (`floors`) or exact.
///
/// Ledger: charges `rows` (the node's n rows), at the draw
/// ([`exponential_weights_release`]), 2cΔ for the coefficient c = e·n/(8B∞²) on −mse
/// (or the steeper one the weights realise) and the errors' sensitivity Δ = 4B∞²/n (in
/// n·mse = SSE terms a coefficient e/(8B∞²) on a score of sensitivity 4B∞²): e as the
/// accounting says, ε_T per node under [`SplitBudget::WholeTree`].
pub fn regression_split<R: Rng + ?Sized>(
    rng: &mut R,
    mse: &[f64],
    rows: &[usize],
    b_inf: f64,
    e: f64,
    floors: bool,
) -> usize {
    let n = rows.len();
    let nf = n as f64;
    // The weights' coefficient on −mse is e/(2Δ) = e·n/(8B∞²), Δ = 4B∞²/n the claimed
    // sensitivity (the slip calibrates for Δ/2).
    let b2 = if crate::privacy::mutants::active("dp-rf-split-sensitivity-halved") {
        b_inf * b_inf / 2.0
    } else {
        b_inf * b_inf
    };
    let log_w: Vec<f64> = mse.iter().map(|m| -e * m * nf / (8.0 * b2)).collect();
    let norm = if floors {
        Normalisation::Floored(1e-12)
    } else {
        Normalisation::LogSumExp
    };
    let scores: Vec<f64> = mse.iter().map(|m| -m).collect();
    let spend = (e * nf / (8.0 * b_inf * b_inf), 4.0 * b_inf * b_inf / nf);
    let who = ("split choice", Subjects::Rows(rows));
    exponential_weights_release(rng, &scores, &log_w, norm, spend, who)
}

/// A node's stored value.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    /// Noisy class fractions (classification).
    Fractions(Vec<f64>),
    /// Noisy mean (regression).
    Mean(f64),
}

/// A node of a DP-RF tree.
#[derive(Debug, Clone, PartialEq)]
pub struct DpRfNode {
    /// Exact number of training rows (bookkeeping, Fig 3; never released).
    pub rows: usize,
    /// The noisy value.
    pub value: NodeValue,
    /// The split attribute and the child of each of its categories, None for a leaf.
    pub split: Option<(usize, Vec<usize>)>,
}

/// One DP-RF tree, nodes in pre-order.
#[derive(Debug, Clone, PartialEq)]
pub struct DpRfTree {
    /// Nodes; `nodes[0]` is the root.
    pub nodes: Vec<DpRfNode>,
}

impl DpRfTree {
    /// The leaf reached by row i of `x`.
    pub fn leaf(&self, x: &Coded, i: usize) -> &DpRfNode {
        let mut node = &self.nodes[0];
        while let Some((a, children)) = &node.split {
            node = &self.nodes[children[x.get(i, *a)]];
        }
        node
    }
}

/// A fitted DP-RF.
#[derive(Debug, Clone, PartialEq)]
pub struct DpRf {
    /// The trees.
    pub trees: Vec<DpRfTree>,
    /// Classification or regression.
    pub task: DpRfTask,
}

/// Fits DP-RF at total budget `epsilon` on the coded training rows `x` and labels `y`
/// (class codes 0..C−1, or real labels). Every draw comes from `rng` (module
/// documentation).
///
/// # Panics
/// If `y.len() != x.n`, n = 0, ε ≤ 0, trees = 0, k = Some(0), ρ ∉ (0,1), f ∉ (0,1], or a
/// class label is not in 0..C.
pub fn fit_dp_rf(
    x: &Coded,
    y: &[f64],
    task: DpRfTask,
    p: &DpRfParams,
    epsilon: f64,
    rng: &mut Pcg64,
) -> DpRf {
    assert_eq!(y.len(), x.n, "DP-RF: one label per row");
    assert!(x.n > 0, "DP-RF: no training rows");
    assert!(epsilon > 0.0 && epsilon.is_finite(), "DP-RF: epsilon > 0");
    assert!(p.trees >= 1 && p.k != Some(0), "DP-RF: trees and k >= 1");
    assert!(p.rho > 0.0 && p.rho < 1.0, "DP-RF: rho in (0, 1)");
    assert!(
        p.rows_fraction > 0.0 && p.rows_fraction <= 1.0,
        "DP-RF: rows_fraction in (0, 1]"
    );
    if let DpRfTask::Classes(c) = task {
        assert!(
            y.iter()
                .all(|&v| v >= 0.0 && v.fract() == 0.0 && (v as usize) < c),
            "DP-RF: class labels must be integers in 0..{c}"
        );
    }
    let m = ((p.rows_fraction * x.n as f64).floor() as usize).max(1);
    let shared: Vec<usize> = match p.row_sample {
        RowSample::Shared => sample(rng, x.n, m).into_vec(),
        RowSample::Bootstrap => Vec::new(),
    };
    let seeds: Vec<u64> = (0..p.trees).map(|_| rng.gen()).collect();
    let eps_tree = epsilon / p.trees as f64;
    let trees = seeds
        .iter()
        .map(|&s| {
            let mut r = Pcg64::seed_from_u64(s);
            let mut rows = match p.row_sample {
                RowSample::Shared => shared.clone(),
                RowSample::Bootstrap => (0..m).map(|_| r.gen_range(0..x.n)).collect(),
            };
            let mut g = Grower {
                x,
                y,
                task,
                p,
                eps_tree,
                rng: &mut r,
                nodes: Vec::new(),
            };
            let attrs: Vec<usize> = (0..x.d).collect();
            g.grow(&mut rows, &attrs, 0);
            DpRfTree { nodes: g.nodes }
        })
        .collect();
    DpRf { trees, task }
}

impl DpRf {
    /// Predictions for every row of `x`: the majority vote of the trees' leaf classes
    /// (the smallest class on ties), or the mean of their leaf values.
    pub fn predict(&self, x: &Coded) -> Vec<f64> {
        (0..x.n)
            .map(|i| match self.task {
                DpRfTask::Classes(c) => {
                    let mut votes = vec![0.0; c];
                    for t in &self.trees {
                        if let NodeValue::Fractions(f) = &t.leaf(x, i).value {
                            votes[argmax_first(f)] += 1.0;
                        }
                    }
                    argmax_first(&votes) as f64
                }
                DpRfTask::Regression(_) => {
                    self.trees
                        .iter()
                        .map(|t| match t.leaf(x, i).value {
                            NodeValue::Mean(v) => v,
                            NodeValue::Fractions(_) => unreachable!("regression tree"),
                        })
                        .sum::<f64>()
                        / self.trees.len() as f64
                }
            })
            .collect()
    }
}

/// Growth state of one DP-RF tree.
struct Grower<'a> {
    x: &'a Coded,
    y: &'a [f64],
    task: DpRfTask,
    p: &'a DpRfParams,
    eps_tree: f64,
    rng: &'a mut Pcg64,
    nodes: Vec<DpRfNode>,
}

impl Grower<'_> {
    /// Grows the node of `rows` with the remaining attributes `attrs` at `depth`; returns
    /// its index.
    fn grow(&mut self, rows: &mut [usize], attrs: &[usize], depth: usize) -> usize {
        let (e_node, e_split) = budgets(self.eps_tree, self.p.rho, self.p.depth);
        let n = rows.len();
        let (value, stop) = match self.task {
            DpRfTask::Classes(c) => {
                let mut counts = vec![0.0; c];
                for &i in rows.iter() {
                    counts[self.y[i] as usize] += 1.0;
                }
                let noisy = noisy_class_counts(&counts, e_node, rows, self.rng);
                let total: f64 = noisy.iter().sum();
                let fractions = if total > 0.0 {
                    noisy.iter().map(|v| v / total).collect()
                } else {
                    let mut f = vec![0.0; c];
                    f[c - 1] = 1.0;
                    f
                };
                let pure = fractions.contains(&1.0);
                (NodeValue::Fractions(fractions), pure)
            }
            DpRfTask::Regression(b) => {
                let v = if n == 0 {
                    self.rng.gen_range(b.lo..=b.hi)
                } else {
                    let mean = rows.iter().map(|&i| self.y[i]).sum::<f64>() / n as f64;
                    noisy_mean(mean, n, b, e_node, self.p.node_means, rows, self.rng)
                };
                (NodeValue::Mean(v), false)
            }
        };
        let id = self.nodes.len();
        self.nodes.push(DpRfNode {
            rows: n,
            value,
            split: None,
        });
        if depth >= self.p.depth || attrs.is_empty() || stop {
            return id;
        }
        let cands: Vec<usize> = match self.p.k {
            Some(k) if k < attrs.len() => sample(self.rng, attrs.len(), k)
                .into_iter()
                .map(|j| attrs[j])
                .collect(),
            _ => attrs.to_vec(),
        };
        let a = cands[self.choose(rows, &cands, e_split)];
        // Children: rows grouped by their category of `a`, in category order.
        let levels = self.x.levels[a];
        let x = self.x;
        rows.sort_by_key(|&i| (x.get(i, a), i));
        let rest: Vec<usize> = attrs.iter().copied().filter(|&b| b != a).collect();
        let mut children = Vec::with_capacity(levels);
        let mut start = 0;
        for v in 0..levels {
            let end = start + rows[start..].partition_point(|&i| x.get(i, a) == v);
            children.push(self.grow(&mut rows[start..end], &rest, depth + 1));
            start = end;
        }
        self.nodes[id].split = Some((a, children));
        id
    }

    /// The exponential mechanism over the candidates (index into `cands`).
    fn choose(&mut self, rows: &[usize], cands: &[usize], e_split: f64) -> usize {
        let n = rows.len();
        if n == 0 {
            return self.rng.gen_range(0..cands.len());
        }
        let nf = n as f64;
        match self.task {
            DpRfTask::Classes(c) => {
                let scores: Vec<f64> = cands
                    .iter()
                    .map(|&a| {
                        // Σ_v Σ_c n_vc² / n_v
                        let mut counts = vec![0.0; self.x.levels[a] * c];
                        for &i in rows {
                            counts[self.x.get(i, a) * c + self.y[i] as usize] += 1.0;
                        }
                        let sum_sq: f64 = counts
                            .chunks(c)
                            .map(|ch| {
                                let nv: f64 = ch.iter().sum();
                                if nv > 0.0 {
                                    ch.iter().map(|k| k * k).sum::<f64>() / nv
                                } else {
                                    0.0
                                }
                            })
                            .sum();
                        match self.p.gini {
                            GiniScore::SensitivityOne => sum_sq / nf - 1.0,
                            GiniScore::FriedmanSchuster => sum_sq - nf,
                        }
                    })
                    .collect();
                // Weights e_split·g/2 on the normalised score g ∈ [−1, 0] (sensitivity ≤ 1),
                // or e_split·G/4 on the count form G of sensitivity 2 (Friedman & Schuster).
                let (divisor, sensitivity) = match self.p.gini {
                    GiniScore::SensitivityOne => (2.0, 1.0),
                    GiniScore::FriedmanSchuster => (4.0, 2.0),
                };
                let log_w: Vec<f64> = scores.iter().map(|g| e_split * g / divisor).collect();
                let spend = (e_split / divisor, sensitivity);
                let who = ("split choice", Subjects::Rows(rows));
                let norm = Normalisation::LogSumExp;
                exponential_weights_release(self.rng, &scores, &log_w, norm, spend, who)
            }
            DpRfTask::Regression(b) => {
                let e = split_epsilon(self.p.split_budget, self.eps_tree, e_split);
                let b_inf = b.lo.abs().max(b.hi.abs());
                let mse: Vec<f64> = cands
                    .iter()
                    .map(|&a| {
                        // Σ_v SSE_v = Σ_v (Σ y² − (Σ y)²/n_v)
                        let levels = self.x.levels[a];
                        let mut st = vec![(0.0f64, 0.0f64, 0.0f64); levels];
                        for &i in rows {
                            let s = &mut st[self.x.get(i, a)];
                            let yi = self.y[i];
                            s.0 += 1.0;
                            s.1 += yi;
                            s.2 += yi * yi;
                        }
                        let sse: f64 = st
                            .iter()
                            .filter(|s| s.0 > 0.0)
                            .map(|s| (s.2 - s.1 * s.1 / s.0).max(0.0))
                            .sum();
                        sse / nf
                    })
                    .collect();
                regression_split(self.rng, &mse, rows, b_inf, e, self.p.weight_floors)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> DpRfParams {
        DpRfParams {
            trees: 1,
            depth: 1,
            k: None,
            rho: 0.5,
            rows_fraction: 1.0,
            row_sample: RowSample::Shared,
            gini: GiniScore::SensitivityOne,
            split_budget: SplitBudget::WholeTree,
            node_means: NodeMeans::Unclamped,
            weight_floors: true,
        }
    }

    /// n rows, attribute 0 (3 levels) decides the label, attribute 1 (2 levels) is noise.
    fn data(n: usize) -> (Coded, Vec<f64>) {
        let mut codes = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            codes.extend([(i % 3) as u32, ((i / 3) % 2) as u32]);
            y.push(if i % 3 == 0 { 1.0 } else { 0.0 });
        }
        (
            Coded {
                n,
                d: 2,
                codes,
                levels: vec![3, 2],
            },
            y,
        )
    }

    #[test]
    fn budgets_split_each_level_evenly() {
        let (a, b) = budgets(2.0, 0.25, 3);
        assert_eq!((a, b), (0.375, 0.125));
    }

    #[test]
    fn node_counts_carry_laplace_noise_of_scale_levels_over_leaf_budget() {
        // Depth 0: a single node whose counts are (n_0, n_1) + Lap((d+1)/((1-rho) eps_T)).
        // With eps = 1, trees = 1, rho = 0.5, d = 0: scale 2. Counts 300/600 never clip.
        let (x, y) = data(900);
        let p = DpRfParams {
            depth: 0,
            ..params()
        };
        let mut rng = Pcg64::seed_from_u64(1);
        let reps = 4000;
        let (mut s1, mut s2) = (0.0, 0.0);
        for _ in 0..reps {
            let f = fit_dp_rf(&x, &y, DpRfTask::Classes(2), &p, 1.0, &mut rng);
            let NodeValue::Fractions(fr) = &f.trees[0].nodes[0].value else {
                panic!()
            };
            // Recover the noisy count of class 1 from the fraction and the total: the
            // test only needs the fraction's law, so compare it to the delta method.
            let z = fr[1] * 900.0 - 300.0;
            s1 += z;
            s2 += z * z;
        }
        let mean = s1 / reps as f64;
        let var = s2 / reps as f64 - mean * mean;
        // fr1 = (300+a)/(900+a+b), a, b ~ Lap(2): to first order
        // 900·fr1 − 300 ≈ a − (a+b)/3 = (2a − b)/3, variance (4+1)/9 · 2·2² = 40/9.
        let want = 40.0 / 9.0;
        // Sample variance of 4000 draws: relative sd ≈ sqrt((κ−1)/reps) with kurtosis
        // κ ≤ 6 (Laplace): ≈ 0.035; allow 5 sd plus the delta method's O(1/n) error.
        assert!((var / want - 1.0).abs() < 0.2, "var {var} want {want}");
        assert!(
            mean.abs() < 5.0 * (want / reps as f64).sqrt() + 0.05,
            "{mean}"
        );
        // Doubling the depth's levels (d = 1 → scale 4) quadruples the variance: the
        // budget is split over d+1 levels.
        let p1 = DpRfParams { depth: 1, ..p };
        let mut s2b = 0.0;
        for _ in 0..reps {
            let f = fit_dp_rf(&x, &y, DpRfTask::Classes(2), &p1, 1.0, &mut rng);
            let NodeValue::Fractions(fr) = &f.trees[0].nodes[0].value else {
                panic!()
            };
            let z = fr[1] * 900.0 - 300.0;
            s2b += z * z;
        }
        let var_b = s2b / reps as f64;
        assert!((var_b / (4.0 * want) - 1.0).abs() < 0.2, "{var_b}");
    }

    #[test]
    fn a_large_budget_splits_on_the_informative_attribute() {
        let (x, y) = data(600);
        let p = params();
        let mut rng = Pcg64::seed_from_u64(2);
        let f = fit_dp_rf(&x, &y, DpRfTask::Classes(2), &p, 200.0, &mut rng);
        let root = &f.trees[0].nodes[0];
        let (a, children) = root.split.as_ref().expect("root split");
        assert_eq!(*a, 0);
        assert_eq!(children.len(), 3);
        assert_eq!(f.predict(&x), y);
        // Every category has a child, with the exact row count.
        for &c in children {
            assert_eq!(f.trees[0].nodes[c].rows, 200);
        }
    }

    /// The share of `trials` regression fits at `eps_tree` (one stream from `seed`) whose first
    /// tree splits its root on `attribute`.
    fn root_share(
        (x, y, b): (&Coded, &[f64], LabelBounds),
        p: &DpRfParams,
        eps_tree: f64,
        (seed, trials): (u64, usize),
        attribute: usize,
    ) -> f64 {
        let mut rng = Pcg64::seed_from_u64(seed);
        (0..trials)
            .filter(|_| {
                let f = fit_dp_rf(x, y, DpRfTask::Regression(b), p, eps_tree, &mut rng);
                f.trees[0].nodes[0].split.as_ref().unwrap().0 == attribute
            })
            .count() as f64
            / trials as f64
    }

    #[test]
    fn regression_split_budget_quirk_changes_the_draw() {
        // mse_0 = 0 (attribute 0 decides y), mse_1 = 2/9, n = 600, B = 1. The EM picks
        // attribute 0 with probability 1/(1 + exp(−e·(2/9)·600/8)): e = eps_T = 0.05 as run
        // (0.70), e = rho·eps_T/(d+1) = 0.0125 per level (0.55).
        let (x, y) = data(600);
        let b = LabelBounds { lo: 0.0, hi: 1.0 };
        let count = |sb: SplitBudget| {
            let p = DpRfParams {
                split_budget: sb,
                ..params()
            };
            root_share((&x, &y, b), &p, 0.05, (3, 2000), 0)
        };
        // P(attribute 0) = 1/(1 + exp(−e·(2/9)·600/8)).
        let law = |e: f64| 1.0 / (1.0 + (-e * (2.0 / 9.0) * 600.0 / 8.0).exp());
        let (whole, level) = (count(SplitBudget::WholeTree), count(SplitBudget::PerLevel));
        let sd = (0.25f64 / 2000.0).sqrt();
        assert!(
            (whole - law(0.05)).abs() < 5.0 * sd,
            "{whole} vs {}",
            law(0.05)
        );
        assert!(
            (level - law(0.0125)).abs() < 5.0 * sd,
            "{level} vs {}",
            law(0.0125)
        );
    }

    #[test]
    fn weight_floors_make_an_underflowing_draw_uniform() {
        // At eps_T = 100 the weight of attribute 1 is exp(−1667) = 0 + 1e-12 and that of
        // attribute 0 is 1 + 1e-12: the floor does not matter. Shift every score down by
        // making all attributes noisy: y independent of both, mse ≈ 0.25 for both, so
        // exp(−100·0.25·600/8) underflows and the floors make the draw uniform, whereas
        // the exact softmax still prefers the slightly better attribute.
        let n = 600;
        let codes: Vec<u32> = (0..n)
            .flat_map(|i| [(i % 2) as u32, ((i / 2) % 2) as u32])
            .collect();
        let x = Coded {
            n,
            d: 2,
            codes,
            levels: vec![2, 2],
        };
        // Attribute 1 slightly informative: with j = i/4 (two rows of each level per j),
        // y = 1 on 160 of the 300 rows of level 1 and on 140 of level 0; attribute 0 (i % 2)
        // is independent of y. mse_0 = 0.25, mse_1 ≈ 0.2489: the exact softmax at ε_T = 100
        // picks attribute 1 with probability 1/(1 + e^{−8.3}) > 0.999.
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let (lvl, j) = ((i / 2) % 2, i / 4);
                let ones = if lvl == 1 { 80 } else { 70 };
                if j < ones {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let b = LabelBounds { lo: 0.0, hi: 1.0 };
        let share = |floors: bool| {
            let p = DpRfParams {
                weight_floors: floors,
                ..params()
            };
            root_share((&x, &y, b), &p, 100.0, (4, 1000), 1)
        };
        let (floored, exact) = (share(true), share(false));
        assert!(
            (floored - 0.5).abs() < 5.0 * (0.25f64 / 1000.0).sqrt(),
            "{floored}"
        );
        assert!(exact > 0.99, "{exact}");
    }

    #[test]
    fn fits_are_deterministic_and_shared_rows_are_shared() {
        let (x, y) = data(90);
        let p = DpRfParams {
            trees: 3,
            rows_fraction: 0.5,
            ..params()
        };
        let a = fit_dp_rf(
            &x,
            &y,
            DpRfTask::Classes(2),
            &p,
            1.0,
            &mut Pcg64::seed_from_u64(5),
        );
        let b = fit_dp_rf(
            &x,
            &y,
            DpRfTask::Classes(2),
            &p,
            1.0,
            &mut Pcg64::seed_from_u64(5),
        );
        assert_eq!(a, b);
        for t in &a.trees {
            assert_eq!(t.nodes[0].rows, 45);
        }
    }
}
