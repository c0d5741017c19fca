//! The non-private baselines RF and ERT of the DiPriMe paper (card docs/methods/diprime.md §4.1):
//! forests with scikit-learn's `RandomForest{Regressor,Classifier}` and
//! `ExtraTrees{Regressor,Classifier}` semantics, on the raw features (categorical codes read
//! as numbers).
//!
//! What is reproduced from scikit-learn (its `_tree.pyx`, `_splitter.pyx`, `_forest.py`):
//! * **rows**: RF fits each tree on a bootstrap sample — n draws with replacement, kept as
//!   per-row counts (sample weights), so a row drawn twice weighs 2 but counts once towards
//!   `min_samples_leaf`; ERT fits every tree on all rows (`bootstrap = False`).
//! * **node tests**: a node is a leaf if its depth is `max_depth` (root depth 0), it has
//!   fewer than 2 rows or fewer than 2·`min_samples_leaf` rows, or its weighted impurity is
//!   ≤ f64::EPSILON (pure).
//! * **candidate features**: drawn uniformly without replacement, one at a time; a feature
//!   constant on the node (max ≤ min + 1e-7, sklearn's FEATURE_THRESHOLD) counts as drawn
//!   but yields no split; drawing stops after `max_features` draws once at least one
//!   non-constant feature was drawn (or when every feature was drawn).
//! * **RF split of a feature** (`BestSplitter`): every position between consecutive sorted
//!   values that differ by more than 1e-7 and leaves ≥ `min_samples_leaf` rows on each side;
//!   threshold the midpoint v_a/2 + v_b/2 (v_a if that rounds to v_b), rows with x ≤ t go
//!   left.
//! * **ERT split of a feature** (`RandomSplitter`): one threshold t ~ Uniform[min, max) of
//!   the feature on the node (t = min if it equals max); rejected if a side gets fewer than
//!   `min_samples_leaf` rows.
//! * **criterion**: weighted squared error (regression) or weighted Gini impurity
//!   (classification); the best candidate maximises sklearn's proxy improvement
//!   Σ_side S_side²/W_side, resp. Σ_side Σ_c W_{side,c}²/W_side (first one on ties, in
//!   draw order). A node without a valid candidate is a leaf.
//! * **leaves**: the weighted mean label, resp. the weighted class proportions.
//! * **prediction**: regression averages the trees; classification averages the trees'
//!   class proportions and predicts the argmax (the smallest class on ties).
//!
//! Not reproduced: NumPy's random streams (draws come from this crate's seeded Pcg64
//! streams, one per tree, derived up front), so trees match sklearn in law, not bit for
//! bit — the card (§4.1) expects agreement within the reported intervals only.
//!
//! Why not the project's CART ([`crate::partition::cart_with`]): it is a presorted
//! exhaustive grower without random candidate features, sample weights, random thresholds or
//! Gini, whose outputs are pinned bit-exact by the CI golden file; adding those paths would
//! thread an RNG through its hot loop for no gain to its callers. Why not a crate: the Rust
//! forests available (e.g. smartcore) vote classes instead of averaging probabilities and
//! count bootstrap duplicates towards `min_samples_leaf`, which is not sklearn's behaviour.

mod grower;
#[cfg(test)]
mod reference;
mod stats;

use super::columns::Presorted;
use crate::data::Matrix;
use grower::fit_tree;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rayon::prelude::*;

/// sklearn's FEATURE_THRESHOLD: feature values closer than this count as equal.
pub const FEATURE_THRESHOLD: f64 = 1e-7;

/// How a tree proposes a split on a candidate feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Splitter {
    /// Best threshold over all positions (RF).
    Best,
    /// One uniform threshold between the node's min and max (ERT).
    Random,
}

/// What the forest predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Real labels, squared-error criterion, mean prediction.
    Regression,
    /// Class labels 0..C−1 (C given), Gini criterion, argmax of averaged proportions.
    Classes(usize),
}

/// Forest arguments (sklearn's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForestParams {
    /// `n_estimators` (≥ 1).
    pub trees: usize,
    /// `max_features` K (≥ 1; values above d mean d).
    pub max_features: usize,
    /// `max_depth` (root depth 0).
    pub max_depth: usize,
    /// `min_samples_leaf` (≥ 1).
    pub min_samples_leaf: usize,
    /// `bootstrap`: each tree on a bootstrap sample (RF) or on all rows (ERT).
    pub bootstrap: bool,
    /// Best (RF) or random (ERT) thresholds.
    pub splitter: Splitter,
}

impl ForestParams {
    /// `RandomForest*` arguments: bootstrap, best splits.
    pub fn random_forest(
        trees: usize,
        max_features: usize,
        max_depth: usize,
        min_samples_leaf: usize,
    ) -> Self {
        ForestParams {
            trees,
            max_features,
            max_depth,
            min_samples_leaf,
            bootstrap: true,
            splitter: Splitter::Best,
        }
    }

    /// `ExtraTrees*` arguments: no bootstrap, random thresholds.
    pub fn extra_trees(
        trees: usize,
        max_features: usize,
        max_depth: usize,
        min_samples_leaf: usize,
    ) -> Self {
        ForestParams {
            bootstrap: false,
            splitter: Splitter::Random,
            ..ForestParams::random_forest(trees, max_features, max_depth, min_samples_leaf)
        }
    }
}

/// A node of a fitted [`Tree`].
#[derive(Debug, Clone, PartialEq)]
pub enum TreeNode {
    /// Rows with `x[feature] <= threshold` go to `left`, the others to `right`.
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    /// A leaf; its value is `Tree::values[value .. value + width]`.
    Leaf {
        /// Offset of the leaf's value in [`Tree::values`].
        value: usize,
        /// Number of distinct training rows in the leaf (bootstrap duplicates once).
        rows: usize,
    },
}

/// One fitted tree: nodes in pre-order (root first), leaf values flat.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// Nodes; `nodes[0]` is the root.
    pub nodes: Vec<TreeNode>,
    /// Leaf values: 1 per leaf (regression mean) or C per leaf (class proportions).
    pub values: Vec<f64>,
    /// Values per leaf (1 or C).
    pub width: usize,
}

impl Tree {
    /// The leaf value slice (length `width`) of the point `x` (length d).
    pub fn leaf_value(&self, x: &[f64]) -> &[f64] {
        let mut node = 0;
        loop {
            match &self.nodes[node] {
                TreeNode::Leaf { value, .. } => return &self.values[*value..*value + self.width],
                TreeNode::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    node = if x[*feature] <= *threshold {
                        *left
                    } else {
                        *right
                    }
                }
            }
        }
    }

    /// Depth of the tree (0 for a single leaf).
    pub fn depth(&self) -> usize {
        fn rec(nodes: &[TreeNode], i: usize) -> usize {
            match &nodes[i] {
                TreeNode::Leaf { .. } => 0,
                TreeNode::Split { left, right, .. } => {
                    1 + rec(nodes, *left).max(rec(nodes, *right))
                }
            }
        }
        rec(&self.nodes, 0)
    }
}

/// A fitted RF or ERT.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    /// The trees, in fitting order.
    pub trees: Vec<Tree>,
    /// Regression or classification.
    pub target: Target,
}

/// Fits a forest on n×d features `x` and n labels `y` (class codes 0..C−1 for
/// [`Target::Classes`]). Tree t draws from its own Pcg64 stream seeded by the t-th u64 drawn
/// from `rng`, so the forest does not depend on the number of threads.
///
/// # Panics
/// If `y.len() != x.n`, n = 0, `trees`, `max_features` or `min_samples_leaf` is 0, or a
/// class label is not an integer in 0..C.
pub fn fit_forest(
    x: &Matrix,
    y: &[f64],
    target: Target,
    p: &ForestParams,
    rng: &mut Pcg64,
) -> Forest {
    assert_eq!(y.len(), x.n, "forest: one label per row of x");
    assert!(x.n > 0, "forest: no training rows");
    assert!(
        p.trees >= 1 && p.max_features >= 1 && p.min_samples_leaf >= 1,
        "forest: trees, max_features and min_samples_leaf must be >= 1"
    );
    if let Target::Classes(c) = target {
        assert!(
            y.iter()
                .all(|&v| v >= 0.0 && v.fract() == 0.0 && (v as usize) < c),
            "forest: class labels must be integers in 0..{c}"
        );
    }
    let pre = Presorted::new(x, p.splitter == Splitter::Best);
    let seeds: Vec<u64> = (0..p.trees).map(|_| rng.gen()).collect();
    let trees = seeds
        .par_iter()
        .map(|&s| fit_tree(&pre, y, target, p, &mut Pcg64::seed_from_u64(s)))
        .collect();
    Forest { trees, target }
}

impl Forest {
    /// Predictions for every row of `x`: the mean of the trees (regression), or the class
    /// (as f64) with the largest averaged proportion, the smallest on ties.
    pub fn predict(&self, x: &Matrix) -> Vec<f64> {
        (0..x.n)
            .map(|i| {
                let row = x.row(i);
                match self.target {
                    Target::Regression => {
                        self.trees.iter().map(|t| t.leaf_value(row)[0]).sum::<f64>()
                            / self.trees.len() as f64
                    }
                    Target::Classes(c) => {
                        let mut acc = vec![0.0; c];
                        for t in &self.trees {
                            for (a, v) in acc.iter_mut().zip(t.leaf_value(row)) {
                                *a += v;
                            }
                        }
                        argmax_first(&acc) as f64
                    }
                }
            })
            .collect()
    }
}

/// Index of the first largest value.
pub(crate) fn argmax_first(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &a) in v.iter().enumerate() {
        if a > v[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifier_averages_probabilities_then_takes_the_argmax() {
        // Gini picks the clean split of x0 at 0.5 over the useless x1.
        let n = 60;
        let data: Vec<f64> = (0..n).flat_map(|i| [i as f64, (i % 2) as f64]).collect();
        let x = Matrix::new(n, 2, data);
        let y: Vec<f64> = (0..n).map(|i| if i < 30 { 1.0 } else { 0.0 }).collect();
        let p = ForestParams {
            bootstrap: false,
            ..ForestParams::random_forest(1, 2, 1, 1)
        };
        let f = fit_forest(&x, &y, Target::Classes(2), &p, &mut Pcg64::seed_from_u64(2));
        assert!(matches!(
            f.trees[0].nodes[0],
            TreeNode::Split { feature: 0, threshold, .. } if threshold == 29.5
        ));
        assert_eq!(f.predict(&x), y);
        // Averaging: leaves (0.6, 0.4) and (0.45, 0.55) average to (0.525, 0.475) → class 0,
        // whereas a vote of the trees' argmaxes would tie.
        let leaf = |v: [f64; 2]| Tree {
            nodes: vec![TreeNode::Leaf { value: 0, rows: 1 }],
            values: v.to_vec(),
            width: 2,
        };
        let g = Forest {
            trees: vec![leaf([0.6, 0.4]), leaf([0.45, 0.55])],
            target: Target::Classes(2),
        };
        assert_eq!(g.predict(&Matrix::new(1, 1, vec![0.0])), vec![0.0]);
        let h = Forest {
            trees: vec![leaf([0.4, 0.6]), leaf([0.55, 0.45])],
            target: Target::Classes(2),
        };
        assert_eq!(h.predict(&Matrix::new(1, 1, vec![0.0])), vec![1.0]);
    }
}
