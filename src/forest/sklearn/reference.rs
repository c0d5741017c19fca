//! The RF/ERT tree grower as it was before the presorted columns (each candidate feature
//! sorted at every node, the row-major matrix read in place), kept for tests only: the
//! presorted grower ([`super::grower`]) must build the very same trees.

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
    let mut w = vec![0.0; n];
    if p.bootstrap {
        for _ in 0..n {
            w[rng.gen_range(0..n)] += 1.0;
        }
    } else {
        w.fill(1.0);
    }
    let mut rows: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
    let width = match target {
        Target::Regression => 1,
        Target::Classes(c) => c,
    };
    let mut b = Builder {
        x,
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
        sorted: Vec::with_capacity(rows.len()),
        left_classes: vec![0.0; width],
    };
    b.grow(&mut rows, 0);
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

/// A candidate split: proxy improvement, feature, threshold.
type Candidate = (f64, usize, f64);

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

    /// Grows the subtree of `rows` at `depth`; returns its node index.
    fn grow(&mut self, rows: &mut [usize], depth: usize) -> usize {
        let m = rows.len();
        let st = self.stats(rows);
        let msl = self.p.min_samples_leaf;
        let leaf =
            depth >= self.p.max_depth || m < 2 || m < 2 * msl || self.impurity(&st) <= f64::EPSILON;
        let split = if leaf {
            None
        } else {
            self.best_split(rows, &st)
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
        let d = self.x.d;
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
                Splitter::Best => self.best_threshold(rows, st, f),
                Splitter::Random => self.random_threshold(rows, st, f),
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
        let msl = self.p.min_samples_leaf;
        self.left_classes.fill(0.0);
        let (mut wl, mut sl) = (0.0, 0.0);
        let mut best: Option<Candidate> = None;
        for pos in 0..m - 1 {
            self.add_left(sorted[pos].1, &mut wl, &mut sl);
            let (va, vb) = (sorted[pos].0, sorted[pos + 1].0);
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
        let mut t = lo + (hi - lo) * self.rng.gen::<f64>();
        if t >= hi {
            t = lo;
        }
        self.left_classes.fill(0.0);
        let (mut wl, mut sl, mut n_left) = (0.0, 0.0, 0usize);
        for &i in rows {
            if self.x.get(i, f) <= t {
                n_left += 1;
                self.add_left(i, &mut wl, &mut sl);
            }
        }
        let msl = self.p.min_samples_leaf;
        if n_left < msl || rows.len() - n_left < msl {
            return Some(None);
        }
        Some(Some((self.proxy(st, wl, sl), f, t)))
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
