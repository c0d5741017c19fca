//! One tree of RF or ERT grown as scikit-learn's `_tree.pyx` and `_splitter.pyx` grow it
//! (card docs/methods/diprime.md §4.1; the rules are listed in [`super`]): bootstrap weights,
//! depth-first growth over presorted columns, the best (RF) or random (ERT) threshold of
//! each candidate feature, weighted squared error or Gini.

use super::stats::{
    best_over_features, both_sides_keep, empty_tree, midpoint, row_weights, uniform_threshold,
    Candidate, Stats,
};
use super::{ForestParams, Splitter, Target, Tree, TreeNode, FEATURE_THRESHOLD};
use crate::forest::columns::{Columns, Presorted};
use crate::partition::presort::stable_partition;
use rand_pcg::Pcg64;

/// Fits one tree: bootstrap weights (when asked), then depth-first growth.
pub(super) fn fit_tree(
    pre: &Presorted,
    y: &[f64],
    target: Target,
    p: &ForestParams,
    rng: &mut Pcg64,
) -> Tree {
    let (cols, n) = (&pre.cols, pre.cols.n);
    let w = row_weights(n, p, rng);
    let rows: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
    let m = rows.len();
    // Each feature's in-bag rows in presorted order, feature f at f·m .. (f+1)·m.
    let sorted = pre.lists_of(m, |i| w[i] > 0.0);
    let tree = empty_tree(target);
    let width = tree.width;
    let mut b = Builder {
        cols,
        y,
        w: &w,
        target,
        p,
        rng,
        tree,
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
    /// Grows the subtree of positions `a..b` at `depth`; returns its node index.
    fn grow(&mut self, a: usize, b: usize, depth: usize) -> usize {
        let m = b - a;
        let st = Stats::of(
            &self.rows[a..b],
            (self.w, self.y, self.target),
            self.tree.width,
        );
        let split = if st.is_leaf(self.target, self.p, m, depth) {
            None
        } else {
            self.best_split(a, b, &st)
        };
        let Some((_, feature, threshold)) = split else {
            return st.push_leaf(&mut self.tree, self.target, m);
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
        let (d, p) = (self.cols.d, self.p);
        best_over_features(self, d, p, Builder::rng, |g, f| match p.splitter {
            Splitter::Best => g.best_threshold(a, b, st, f),
            Splitter::Random => g.random_threshold(a, b, st, f),
        })
    }

    fn rng(&mut self) -> &mut Pcg64 {
        self.rng
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
        self.left_classes.fill(0.0);
        let data = (self.w, self.y, self.target);
        let (mut wl, mut sl) = (0.0, 0.0);
        let mut best: Option<Candidate> = None;
        for pos in 0..m - 1 {
            let i = sorted[pos] as usize;
            add_left(data, &mut self.left_classes, i, &mut wl, &mut sl);
            let (va, vb) = (col[i], col[sorted[pos + 1] as usize]);
            let n_left = pos + 1;
            if vb <= va + FEATURE_THRESHOLD || !both_sides_keep(self.p, n_left, m) {
                continue;
            }
            let proxy = st.proxy(self.target, wl, sl, &self.left_classes);
            if best.is_none_or(|b| proxy > b.0) {
                best = Some((proxy, f, midpoint(va, vb)));
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
        let t = uniform_threshold(lo, hi, self.rng);
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
        if !both_sides_keep(self.p, n_left, rows.len()) {
            return Some(None);
        }
        Some(Some((
            st.proxy(self.target, wl, sl, &self.left_classes),
            f,
            t,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fit_forest, reference};
    use super::*;
    use crate::data::Matrix;
    use rand::Rng;
    use rand::SeedableRng;

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
