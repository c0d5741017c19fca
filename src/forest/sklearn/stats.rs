//! The node statistics of the RF/ERT tree growers (the presorted [`super::grower`] and the
//! test-only [`super::reference`] it must match): sums over a node's rows, sklearn's
//! impurity and proxy improvement, and a leaf's value.

use super::{ForestParams, Target, Tree, TreeNode};
use rand::Rng;
use rand_pcg::Pcg64;

/// A candidate split: proxy improvement, feature, threshold.
pub(super) type Candidate = (f64, usize, f64);

/// The weights of one tree's n rows: bootstrap counts (n draws with replacement) when
/// `p.bootstrap`, else 1 each.
pub(super) fn row_weights(n: usize, p: &ForestParams, rng: &mut Pcg64) -> Vec<f64> {
    let mut w = vec![0.0; n];
    if p.bootstrap {
        for _ in 0..n {
            w[rng.gen_range(0..n)] += 1.0;
        }
    } else {
        w.fill(1.0);
    }
    w
}

/// sklearn's threshold between two consecutive distinct values va < vb of a feature: their
/// midpoint, or va where the midpoint rounds to vb or overflows.
pub(super) fn midpoint(va: f64, vb: f64) -> f64 {
    let t = va / 2.0 + vb / 2.0;
    if t == vb || t.is_infinite() {
        va
    } else {
        t
    }
}

/// ExtraTrees' threshold: uniform on [lo, hi), lo where rounding reaches hi.
pub(super) fn uniform_threshold(lo: f64, hi: f64, rng: &mut Pcg64) -> f64 {
    let t = lo + (hi - lo) * rng.gen::<f64>();
    if t >= hi {
        lo
    } else {
        t
    }
}

/// Whether a split of `m` rows with `n_left` on the left keeps `p.min_samples_leaf` rows on
/// both sides.
pub(super) fn both_sides_keep(p: &ForestParams, n_left: usize, m: usize) -> bool {
    let msl = p.min_samples_leaf;
    n_left >= msl && m - n_left >= msl
}

/// An empty tree with `width` values per leaf for `target` (1, or one per class).
pub(super) fn empty_tree(target: Target) -> Tree {
    let width = match target {
        Target::Regression => 1,
        Target::Classes(c) => c,
    };
    Tree {
        nodes: Vec::new(),
        values: Vec::new(),
        width,
    }
}

/// sklearn's feature draw over `d` features (module documentation of `forest::sklearn`):
/// features drawn with `rng(grower)` without replacement until `p.max_features` were
/// visited and one of them was not constant; `threshold(grower, f)` gives None for a
/// constant feature, Some(None) for one without an admissible threshold. Returns the best
/// candidate, the first on ties.
pub(super) fn best_over_features<G>(
    grower: &mut G,
    d: usize,
    p: &ForestParams,
    rng: fn(&mut G) -> &mut Pcg64,
    mut threshold: impl FnMut(&mut G, usize) -> Option<Option<Candidate>>,
) -> Option<Candidate> {
    let k = p.max_features.min(d);
    let mut feats: Vec<usize> = (0..d).collect();
    let mut remaining = d;
    let (mut visited, mut non_constant) = (0usize, 0usize);
    let mut best: Option<Candidate> = None;
    while remaining > 0 && (visited < k || non_constant == 0) {
        visited += 1;
        let j = rng(grower).gen_range(0..remaining);
        let f = feats[j];
        feats.swap(j, remaining - 1);
        remaining -= 1;
        let Some(cand) = threshold(grower, f) else {
            continue;
        };
        non_constant += 1;
        if let Some((proxy, feature, t)) = cand {
            if best.is_none_or(|b| proxy > b.0) {
                best = Some((proxy, feature, t));
            }
        }
    }
    best
}

/// Weighted statistics of a set of rows.
#[derive(Debug, Clone, Default)]
pub(super) struct Stats {
    /// Σ w.
    pub w: f64,
    /// Σ w·y (regression).
    pub s: f64,
    /// Σ w·y² (regression).
    pub q: f64,
    /// Σ w per class (classification).
    pub classes: Vec<f64>,
}

impl Stats {
    /// The statistics of `rows` (weights `w`, labels `y`, `width` classes when classifying).
    pub fn of(rows: &[usize], (w, y, target): (&[f64], &[f64], Target), width: usize) -> Stats {
        let mut st = Stats {
            classes: vec![0.0; width],
            ..Stats::default()
        };
        for &i in rows {
            let (w, y) = (w[i], y[i]);
            st.w += w;
            match target {
                Target::Regression => {
                    st.s += w * y;
                    st.q += w * y * y;
                }
                Target::Classes(_) => st.classes[y as usize] += w,
            }
        }
        st
    }

    /// sklearn's node impurity: the weighted label variance, or the Gini index.
    pub fn impurity(&self, target: Target) -> f64 {
        match target {
            Target::Regression => {
                let mean = self.s / self.w;
                self.q / self.w - mean * mean
            }
            Target::Classes(_) => {
                1.0 - self
                    .classes
                    .iter()
                    .map(|c| (c / self.w).powi(2))
                    .sum::<f64>()
            }
        }
    }

    /// Whether a node of `m` rows with these statistics at `depth` is a leaf before any
    /// split is tried (depth limit, too few rows for two leaves, pure).
    pub fn is_leaf(&self, target: Target, p: &ForestParams, m: usize, depth: usize) -> bool {
        let msl = p.min_samples_leaf;
        depth >= p.max_depth || m < 2 || m < 2 * msl || self.impurity(target) <= f64::EPSILON
    }

    /// sklearn's proxy improvement of a split whose left side has weight `wl`, label sum
    /// `sl` (regression) and class weights `left_classes` (classification).
    pub fn proxy(&self, target: Target, wl: f64, sl: f64, left_classes: &[f64]) -> f64 {
        let wr = self.w - wl;
        match target {
            Target::Regression => {
                let sr = self.s - sl;
                sl * sl / wl + sr * sr / wr
            }
            Target::Classes(_) => {
                let (mut a, mut b) = (0.0, 0.0);
                for (cl, ct) in left_classes.iter().zip(&self.classes) {
                    a += cl * cl;
                    b += (ct - cl) * (ct - cl);
                }
                a / wl + b / wr
            }
        }
    }

    /// Appends a leaf of `m` rows with this node's value (the mean, or the class
    /// proportions) to `tree`; returns its node index.
    pub fn push_leaf(&self, tree: &mut Tree, target: Target, m: usize) -> usize {
        let value = tree.values.len();
        match target {
            Target::Regression => tree.values.push(self.s / self.w),
            Target::Classes(_) => tree.values.extend(self.classes.iter().map(|c| c / self.w)),
        }
        tree.nodes.push(TreeNode::Leaf { value, rows: m });
        tree.nodes.len() - 1
    }
}
