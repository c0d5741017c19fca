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

use super::columns::{Columns, Presorted};
use crate::data::Matrix;
use crate::partition::presort::stable_partition;
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

/// Fits one tree: bootstrap weights (when asked), then depth-first growth.
fn fit_tree(pre: &Presorted, y: &[f64], target: Target, p: &ForestParams, rng: &mut Pcg64) -> Tree {
    let (cols, n) = (&pre.cols, pre.cols.n);
    let mut w = vec![0.0; n];
    if p.bootstrap {
        for _ in 0..n {
            w[rng.gen_range(0..n)] += 1.0;
        }
    } else {
        w.fill(1.0);
    }
    let rows: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
    let m = rows.len();
    // Each feature's in-bag rows in presorted order, feature f at f·m .. (f+1)·m.
    let sorted = pre.lists_of(m, |i| w[i] > 0.0);
    let width = match target {
        Target::Regression => 1,
        Target::Classes(c) => c,
    };
    let mut b = Builder {
        cols,
        y,
        w: &w,
        target,
        p,
        rng,
        tree: Tree {
            nodes: Vec::new(),
            values: Vec::new(),
            width,
        },
        rows,
        sorted,
        goes_left: vec![false; n],
        scratch: Vec::with_capacity(m),
        row_scratch: Vec::with_capacity(m),
        values: Vec::with_capacity(m),
        left_classes: vec![0.0; width],
    };
    b.grow(0, m, 0);
    b.tree
}

/// Weighted statistics of a set of rows.
#[derive(Debug, Clone, Default)]
struct Stats {
    /// Σ w.
    w: f64,
    /// Σ w·y (regression).
    s: f64,
    /// Σ w·y² (regression).
    q: f64,
    /// Σ w per class (classification).
    classes: Vec<f64>,
}

/// Growth state of one tree. A node is a range `a..b` of positions: `rows[a..b]` holds its
/// rows in increasing order and, for best splits, `sorted[f·m + a .. f·m + b]` the same rows
/// in feature f's presorted order (m the in-bag count); a split partitions both stably.
struct Builder<'a> {
    cols: &'a Columns,
    y: &'a [f64],
    w: &'a [f64],
    target: Target,
    p: &'a ForestParams,
    rng: &'a mut Pcg64,
    tree: Tree,
    rows: Vec<usize>,
    sorted: Vec<u32>,
    goes_left: Vec<bool>,
    scratch: Vec<u32>,
    row_scratch: Vec<usize>,
    values: Vec<f64>,
    left_classes: Vec<f64>,
}

/// A candidate split: proxy improvement, feature, threshold.
type Candidate = (f64, usize, f64);

/// Adds row i (weight `w[i]`, label `y[i]`) to the running left statistics.
#[inline]
fn add_left(
    (w, y, target): (&[f64], &[f64], Target),
    left_classes: &mut [f64],
    i: usize,
    wl: &mut f64,
    sl: &mut f64,
) {
    let wi = w[i];
    *wl += wi;
    match target {
        Target::Regression => *sl += wi * y[i],
        Target::Classes(_) => left_classes[y[i] as usize] += wi,
    }
}

impl Builder<'_> {
    fn stats(&self, rows: &[usize]) -> Stats {
        let mut st = Stats {
            classes: vec![0.0; self.tree.width],
            ..Stats::default()
        };
        for &i in rows {
            let (w, y) = (self.w[i], self.y[i]);
            st.w += w;
            match self.target {
                Target::Regression => {
                    st.s += w * y;
                    st.q += w * y * y;
                }
                Target::Classes(_) => st.classes[y as usize] += w,
            }
        }
        st
    }

    fn impurity(&self, st: &Stats) -> f64 {
        match self.target {
            Target::Regression => {
                let mean = st.s / st.w;
                st.q / st.w - mean * mean
            }
            Target::Classes(_) => 1.0 - st.classes.iter().map(|c| (c / st.w).powi(2)).sum::<f64>(),
        }
    }

    /// Grows the subtree of positions `a..b` at `depth`; returns its node index.
    fn grow(&mut self, a: usize, b: usize, depth: usize) -> usize {
        let m = b - a;
        let st = self.stats(&self.rows[a..b]);
        let msl = self.p.min_samples_leaf;
        let leaf =
            depth >= self.p.max_depth || m < 2 || m < 2 * msl || self.impurity(&st) <= f64::EPSILON;
        let split = if leaf {
            None
        } else {
            self.best_split(a, b, &st)
        };
        let Some((_, feature, threshold)) = split else {
            let value = self.tree.values.len();
            match self.target {
                Target::Regression => self.tree.values.push(st.s / st.w),
                Target::Classes(_) => self.tree.values.extend(st.classes.iter().map(|c| c / st.w)),
            }
            self.tree.nodes.push(TreeNode::Leaf { value, rows: m });
            return self.tree.nodes.len() - 1;
        };
        let id = self.tree.nodes.len();
        self.tree.nodes.push(TreeNode::Leaf { value: 0, rows: 0 });
        let n_left = self.partition(a, b, feature, threshold, depth + 1 < self.p.max_depth);
        let left = self.grow(a, a + n_left, depth + 1);
        let right = self.grow(a + n_left, b, depth + 1);
        self.tree.nodes[id] = TreeNode::Split {
            feature,
            threshold,
            left,
            right,
        };
        id
    }

    /// Moves the rows of positions `a..b` with `x_feature ≤ threshold` first, each side in
    /// its order, in `rows` and (when `presorted`, i.e. the children may split) in every
    /// feature's presorted list; returns their number.
    fn partition(
        &mut self,
        a: usize,
        b: usize,
        feature: usize,
        threshold: f64,
        presorted: bool,
    ) -> usize {
        let col = self.cols.column(feature);
        for &i in &self.rows[a..b] {
            self.goes_left[i] = col[i] <= threshold;
        }
        let gl: &[bool] = &self.goes_left;
        let n_left = stable_partition(&mut self.rows[a..b], &mut self.row_scratch, |i| gl[i]);
        if presorted && !self.sorted.is_empty() {
            let m = self.sorted.len() / self.cols.d;
            for f in 0..self.cols.d {
                let list = &mut self.sorted[f * m + a..f * m + b];
                stable_partition(list, &mut self.scratch, |i| gl[i as usize]);
            }
        }
        n_left
    }

    /// The best candidate over sklearn's feature draw (module documentation), or None.
    fn best_split(&mut self, a: usize, b: usize, st: &Stats) -> Option<Candidate> {
        let d = self.cols.d;
        let k = self.p.max_features.min(d);
        let mut feats: Vec<usize> = (0..d).collect();
        let mut remaining = d;
        let (mut visited, mut non_constant) = (0usize, 0usize);
        let mut best: Option<Candidate> = None;
        while remaining > 0 && (visited < k || non_constant == 0) {
            visited += 1;
            let j = self.rng.gen_range(0..remaining);
            let f = feats[j];
            feats.swap(j, remaining - 1);
            remaining -= 1;
            let cand = match self.p.splitter {
                Splitter::Best => self.best_threshold(a, b, st, f),
                Splitter::Random => self.random_threshold(a, b, st, f),
            };
            let Some(cand) = cand else { continue };
            non_constant += 1;
            if let Some((proxy, feature, t)) = cand {
                if best.is_none_or(|b| proxy > b.0) {
                    best = Some((proxy, feature, t));
                }
            }
        }
        best
    }

    /// sklearn's proxy improvement of a split with left statistics (wl, sl, classes in
    /// `self.left_classes`) against the node's `st`.
    fn proxy(&self, st: &Stats, wl: f64, sl: f64) -> f64 {
        let wr = st.w - wl;
        match self.target {
            Target::Regression => {
                let sr = st.s - sl;
                sl * sl / wl + sr * sr / wr
            }
            Target::Classes(_) => {
                let (mut a, mut b) = (0.0, 0.0);
                for (cl, ct) in self.left_classes.iter().zip(&st.classes) {
                    a += cl * cl;
                    b += (ct - cl) * (ct - cl);
                }
                a / wl + b / wr
            }
        }
    }

    /// RF: the best threshold of feature f over positions `a..b`, scanned in the presorted
    /// order. None if f is constant on the node; Some(None) if no position leaves
    /// `min_samples_leaf` rows on both sides.
    fn best_threshold(
        &mut self,
        a: usize,
        b: usize,
        st: &Stats,
        f: usize,
    ) -> Option<Option<Candidate>> {
        let col = self.cols.column(f);
        let mm = self.sorted.len() / self.cols.d;
        let sorted = &self.sorted[f * mm + a..f * mm + b];
        let m = sorted.len();
        if col[sorted[m - 1] as usize] <= col[sorted[0] as usize] + FEATURE_THRESHOLD {
            return None;
        }
        let msl = self.p.min_samples_leaf;
        self.left_classes.fill(0.0);
        let data = (self.w, self.y, self.target);
        let (mut wl, mut sl) = (0.0, 0.0);
        let mut best: Option<Candidate> = None;
        for pos in 0..m - 1 {
            let i = sorted[pos] as usize;
            add_left(data, &mut self.left_classes, i, &mut wl, &mut sl);
            let (va, vb) = (col[i], col[sorted[pos + 1] as usize]);
            let n_left = pos + 1;
            if vb <= va + FEATURE_THRESHOLD || n_left < msl || m - n_left < msl {
                continue;
            }
            let proxy = self.proxy(st, wl, sl);
            if best.is_none_or(|b| proxy > b.0) {
                let mut t = va / 2.0 + vb / 2.0;
                if t == vb || t.is_infinite() {
                    t = va;
                }
                best = Some((proxy, f, t));
            }
        }
        Some(best)
    }

    /// ERT: one uniform threshold of feature f over positions `a..b`. None if f is constant
    /// on the node; Some(None) if the threshold leaves fewer than `min_samples_leaf` rows on
    /// a side.
    fn random_threshold(
        &mut self,
        a: usize,
        b: usize,
        st: &Stats,
        f: usize,
    ) -> Option<Option<Candidate>> {
        let col = self.cols.column(f);
        let rows = &self.rows[a..b];
        self.values.clear();
        self.values.extend(rows.iter().map(|&i| col[i]));
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in &self.values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi <= lo + FEATURE_THRESHOLD {
            return None;
        }
        let mut t = lo + (hi - lo) * self.rng.gen::<f64>();
        if t >= hi {
            t = lo;
        }
        self.left_classes.fill(0.0);
        let data = (self.w, self.y, self.target);
        let (mut wl, mut sl, mut n_left) = (0.0, 0.0, 0usize);
        match self.target {
            // Branch-free (a uniform threshold splits the rows at random to the predictor):
            // a right row adds +0.0, which leaves a sum that starts at +0.0 unchanged, so
            // the left sums are bit for bit those over the left rows alone.
            Target::Regression => {
                for (&i, &v) in rows.iter().zip(&self.values) {
                    let left = v <= t;
                    let wi = if left { self.w[i] } else { 0.0 };
                    n_left += usize::from(left);
                    wl += wi;
                    sl += if left { self.w[i] * self.y[i] } else { 0.0 };
                }
            }
            Target::Classes(_) => {
                for (&i, &v) in rows.iter().zip(&self.values) {
                    if v <= t {
                        n_left += 1;
                        add_left(data, &mut self.left_classes, i, &mut wl, &mut sl);
                    }
                }
            }
        }
        let msl = self.p.min_samples_leaf;
        if n_left < msl || rows.len() - n_left < msl {
            return Some(None);
        }
        Some(Some((self.proxy(st, wl, sl), f, t)))
    }
}

#[cfg(test)]
#[path = "sklearn_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    /// Two features: x0 carries a clean step at 0.5, x1 is noise-free constant 3.
    fn step_data(n: usize) -> (Matrix, Vec<f64>) {
        let mut data = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let v = i as f64 / n as f64;
            data.extend([v, 3.0]);
            y.push(if v < 0.5 { 0.0 } else { 1.0 });
        }
        (Matrix::new(n, 2, data), y)
    }

    /// The presorted grower builds exactly the trees of the old one (every candidate sorted
    /// at every node), RF and ERT, regression and classification, on columns with many
    /// ties, signed zeros and a NaN.
    #[test]
    fn presorted_trees_equal_the_trees_grown_by_sorting_at_every_node() {
        let mut rng = Pcg64::seed_from_u64(11);
        for case in 0..12 {
            let n = [7, 40, 300][case % 3];
            let d = 1 + case % 4;
            let data: Vec<f64> = (0..n * d)
                .map(|j| match (j + case) % 4 {
                    0 => rng.gen_range(0..4) as f64 * 0.5,
                    1 => [0.0, -0.0, 1.0][rng.gen_range(0..3)],
                    _ => rng.gen::<f64>() * 10.0 - 5.0,
                })
                .collect();
            let mut x = Matrix::new(n, d, data);
            if case == 5 {
                let mut data = x.data.to_vec();
                data[d] = f64::NAN;
                x = Matrix::new(n, d, data);
            }
            let classes = case % 2 == 1;
            let y: Vec<f64> = (0..n)
                .map(|i| {
                    let v = x.get(i, 0) + rng.gen::<f64>();
                    if classes {
                        f64::from(v > 0.5) + f64::from(v > 2.0)
                    } else {
                        v
                    }
                })
                .collect();
            let target = if classes {
                Target::Classes(3)
            } else {
                Target::Regression
            };
            let msl = 1 + case % 3;
            for p in [
                ForestParams::random_forest(3, 1 + case % d, 2 + case % 5, msl),
                ForestParams::extra_trees(3, 1 + case % d, 2 + case % 5, msl),
                ForestParams {
                    bootstrap: false,
                    ..ForestParams::random_forest(2, d, 8, msl)
                },
            ] {
                let new = fit_forest(&x, &y, target, &p, &mut Pcg64::seed_from_u64(case as u64));
                let old = reference::fit_trees(
                    &x,
                    &y,
                    target,
                    &p,
                    &mut Pcg64::seed_from_u64(case as u64),
                );
                assert_eq!(new.trees, old, "case {case}, {p:?}");
            }
        }
    }

    #[test]
    fn rf_finds_the_clean_threshold_and_skips_constant_features() {
        let (x, y) = step_data(40);
        let p = ForestParams {
            bootstrap: false,
            ..ForestParams::random_forest(8, 1, 1, 1)
        };
        let f = fit_forest(&x, &y, Target::Regression, &p, &mut Pcg64::seed_from_u64(3));
        // x1 is constant: the draw goes on to x0 even though max_features is 1, in every
        // tree (half of them draw x1 first).
        for t in &f.trees {
            match &t.nodes[0] {
                TreeNode::Split {
                    feature, threshold, ..
                } => {
                    assert_eq!(*feature, 0);
                    // sklearn's midpoint of 19/40 and 20/40.
                    assert_eq!(*threshold, 19.0 / 80.0 + 20.0 / 80.0);
                }
                n => panic!("root not split: {n:?}"),
            }
        }
        assert_eq!(f.predict(&x), y);
    }

    #[test]
    fn bootstrap_changes_trees_and_no_bootstrap_keeps_all_rows() {
        let (x, y) = step_data(40);
        let p = ForestParams::random_forest(2, 2, 3, 1);
        let f = fit_forest(&x, &y, Target::Regression, &p, &mut Pcg64::seed_from_u64(1));
        let rows = |t: &Tree| -> usize {
            t.nodes
                .iter()
                .map(|n| match n {
                    TreeNode::Leaf { rows, .. } => *rows,
                    _ => 0,
                })
                .sum()
        };
        // A bootstrap of 40 draws keeps about 63 % of the rows; P(all 40) is 40!/40^40.
        assert!(rows(&f.trees[0]) < 40 && rows(&f.trees[1]) < 40);
        assert_ne!(f.trees[0], f.trees[1]);
        let mut p2 = p;
        p2.bootstrap = false;
        let g = fit_forest(
            &x,
            &y,
            Target::Regression,
            &p2,
            &mut Pcg64::seed_from_u64(1),
        );
        assert_eq!(rows(&g.trees[0]), 40);
        // Without bootstrap and with all features, best splits are deterministic.
        assert_eq!(g.trees[0], g.trees[1]);
    }

    #[test]
    fn ert_thresholds_lie_within_node_ranges() {
        let n = 200;
        let mut rng = Pcg64::seed_from_u64(5);
        let data: Vec<f64> = (0..n * 3).map(|_| rng.gen::<f64>() * 10.0 - 2.0).collect();
        let x = Matrix::new(n, 3, data);
        let y: Vec<f64> = (0..n).map(|i| x.get(i, 0) + x.get(i, 2)).collect();
        let p = ForestParams::extra_trees(3, 2, 6, 2);
        let f = fit_forest(&x, &y, Target::Regression, &p, &mut Pcg64::seed_from_u64(9));
        // Walk each tree with the rows of every node and check its threshold against them.
        fn check(t: &Tree, node: usize, rows: &[usize], x: &Matrix, msl: usize) -> usize {
            match &t.nodes[node] {
                TreeNode::Leaf { rows: r, .. } => {
                    assert_eq!(*r, rows.len());
                    1
                }
                TreeNode::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    let vals: Vec<f64> = rows.iter().map(|&i| x.get(i, *feature)).collect();
                    let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
                    let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    assert!(*threshold >= lo && *threshold < hi, "{lo} {threshold} {hi}");
                    let (l, r): (Vec<usize>, Vec<usize>) = rows
                        .iter()
                        .partition(|&&i| x.get(i, *feature) <= *threshold);
                    assert!(l.len() >= msl && r.len() >= msl);
                    check(t, *left, &l, x, msl) + check(t, *right, &r, x, msl)
                }
            }
        }
        let all: Vec<usize> = (0..n).collect();
        for t in &f.trees {
            assert!(check(t, 0, &all, &x, 2) > 4);
        }
        // Random thresholds: the trees differ although they see the same rows.
        assert_ne!(f.trees[0], f.trees[1]);
    }

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

    #[test]
    fn min_samples_leaf_and_depth_are_honoured_and_fits_are_deterministic() {
        let n = 100;
        let mut rng = Pcg64::seed_from_u64(8);
        let data: Vec<f64> = (0..n * 2).map(|_| rng.gen::<f64>()).collect();
        let x = Matrix::new(n, 2, data);
        let y: Vec<f64> = (0..n).map(|i| (x.get(i, 0) * 7.0).sin()).collect();
        for p in [
            ForestParams::random_forest(4, 1, 4, 5),
            ForestParams::extra_trees(4, 1, 4, 5),
        ] {
            let a = fit_forest(&x, &y, Target::Regression, &p, &mut Pcg64::seed_from_u64(4));
            let b = fit_forest(&x, &y, Target::Regression, &p, &mut Pcg64::seed_from_u64(4));
            assert_eq!(a, b);
            // ERT may leave a node unsplit when its one random threshold leaves fewer than
            // min_samples_leaf rows on a side (sklearn rejects it too), so only the deepest
            // tree is sure to reach max_depth.
            assert_eq!(a.trees.iter().map(Tree::depth).max(), Some(4));
            for t in &a.trees {
                for node in &t.nodes {
                    if let TreeNode::Leaf { rows, .. } = node {
                        assert!(*rows >= 5, "leaf with {rows} rows");
                    }
                }
            }
        }
    }
}
