//! The RF/ERT tree grower as it was before the presorted columns (each candidate feature
//! sorted at every node, the row-major matrix read in place), kept for tests only: the
//! presorted grower ([`super::grower`]) must build the very same trees.

use super::stats::{
    best_over_features, both_sides_keep, empty_tree, midpoint, row_weights, uniform_threshold,
    Candidate, Stats,
};
use super::{ForestParams, Splitter, Target, Tree, TreeNode, FEATURE_THRESHOLD};
use crate::data::Matrix;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The trees of [`super::fit_forest`] grown the old way (seeds drawn the same way).
pub(super) fn fit_trees(
    x: &Matrix,
    y: &[f64],
    target: Target,
    p: &ForestParams,
    rng: &mut Pcg64,
) -> Vec<Tree> {
    let seeds: Vec<u64> = (0..p.trees).map(|_| rng.gen()).collect();
    seeds
        .iter()
        .map(|&s| fit_tree(x, y, target, p, &mut Pcg64::seed_from_u64(s)))
        .collect()
}

/// Fits one tree: bootstrap weights (when asked), then depth-first growth.
fn fit_tree(x: &Matrix, y: &[f64], target: Target, p: &ForestParams, rng: &mut Pcg64) -> Tree {
    let n = x.n;
    let w = row_weights(n, p, rng);
    let mut rows: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
    let tree = empty_tree(target);
    let width = tree.width;
    let mut b = Builder {
        x,
        y,
        w: &w,
        target,
        p,
        rng,
        tree,
        sorted: Vec::with_capacity(rows.len()),
        left_classes: vec![0.0; width],
    };
    b.grow(&mut rows, 0);
    b.tree
}

/// Growth state of one tree.
struct Builder<'a> {
    x: &'a Matrix,
    y: &'a [f64],
    w: &'a [f64],
    target: Target,
    p: &'a ForestParams,
    rng: &'a mut Pcg64,
    tree: Tree,
    sorted: Vec<(f64, usize)>,
    left_classes: Vec<f64>,
}

impl Builder<'_> {
    /// Grows the subtree of `rows` at `depth`; returns its node index.
    fn grow(&mut self, rows: &mut [usize], depth: usize) -> usize {
        let m = rows.len();
        let st = Stats::of(rows, (self.w, self.y, self.target), self.tree.width);
        let split = if st.is_leaf(self.target, self.p, m, depth) {
            None
        } else {
            self.best_split(rows, &st)
        };
        let Some((_, feature, threshold)) = split else {
            return st.push_leaf(&mut self.tree, self.target, m);
        };
        let id = self.tree.nodes.len();
        self.tree.nodes.push(TreeNode::Leaf { value: 0, rows: 0 });
        let x = self.x;
        let n_left = partition_in_place(rows, |i| x.get(i, feature) <= threshold);
        let (l, r) = rows.split_at_mut(n_left);
        let left = self.grow(l, depth + 1);
        let right = self.grow(r, depth + 1);
        self.tree.nodes[id] = TreeNode::Split {
            feature,
            threshold,
            left,
            right,
        };
        id
    }

    /// The best candidate over sklearn's feature draw (module documentation), or None.
    fn best_split(&mut self, rows: &[usize], st: &Stats) -> Option<Candidate> {
        let (d, p) = (self.x.d, self.p);
        best_over_features(self, d, p, Builder::rng, |g, f| match p.splitter {
            Splitter::Best => g.best_threshold(rows, st, f),
            Splitter::Random => g.random_threshold(rows, st, f),
        })
    }

    fn rng(&mut self) -> &mut Pcg64 {
        self.rng
    }

    /// Adds row i to the running left statistics.
    fn add_left(&mut self, i: usize, wl: &mut f64, sl: &mut f64) {
        let w = self.w[i];
        *wl += w;
        match self.target {
            Target::Regression => *sl += w * self.y[i],
            Target::Classes(_) => self.left_classes[self.y[i] as usize] += w,
        }
    }

    /// RF: the best threshold of feature f. None if f is constant on the node; Some(None)
    /// if no position leaves `min_samples_leaf` rows on both sides.
    fn best_threshold(
        &mut self,
        rows: &[usize],
        st: &Stats,
        f: usize,
    ) -> Option<Option<Candidate>> {
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.extend(rows.iter().map(|&i| (self.x.get(i, f), i)));
        sorted.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let m = sorted.len();
        if sorted[m - 1].0 <= sorted[0].0 + FEATURE_THRESHOLD {
            self.sorted = sorted;
            return None;
        }
        self.left_classes.fill(0.0);
        let (mut wl, mut sl) = (0.0, 0.0);
        let mut best: Option<Candidate> = None;
        for pos in 0..m - 1 {
            self.add_left(sorted[pos].1, &mut wl, &mut sl);
            let (va, vb) = (sorted[pos].0, sorted[pos + 1].0);
            let n_left = pos + 1;
            if vb <= va + FEATURE_THRESHOLD || !both_sides_keep(self.p, n_left, m) {
                continue;
            }
            let proxy = st.proxy(self.target, wl, sl, &self.left_classes);
            if best.is_none_or(|b| proxy > b.0) {
                best = Some((proxy, f, midpoint(va, vb)));
            }
        }
        self.sorted = sorted;
        Some(best)
    }

    /// ERT: one uniform threshold of feature f. None if f is constant on the node;
    /// Some(None) if the threshold leaves fewer than `min_samples_leaf` rows on a side.
    fn random_threshold(
        &mut self,
        rows: &[usize],
        st: &Stats,
        f: usize,
    ) -> Option<Option<Candidate>> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &i in rows {
            let v = self.x.get(i, f);
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi <= lo + FEATURE_THRESHOLD {
            return None;
        }
        let t = uniform_threshold(lo, hi, self.rng);
        self.left_classes.fill(0.0);
        let (mut wl, mut sl, mut n_left) = (0.0, 0.0, 0usize);
        for &i in rows {
            if self.x.get(i, f) <= t {
                n_left += 1;
                self.add_left(i, &mut wl, &mut sl);
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

/// Reorders `rows` so the rows with `left(i)` come first, each side in its original order;
/// returns their number.
fn partition_in_place(rows: &mut [usize], left: impl Fn(usize) -> bool) -> usize {
    let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| left(i));
    let n_left = l.len();
    rows[..n_left].copy_from_slice(&l);
    rows[n_left..].copy_from_slice(&r);
    n_left
}
