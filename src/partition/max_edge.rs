//! Max-edge partitions: LPDT-M, the max-edge tree grown on public data with a
//! variance-reduction choice among the longest edges (method card docs/methods/lpdt.md §3, Alg. 2 of
//! the LPDT paper, `msemaxedge` in [code]), and the complete max-edge partition used by
//! LPDT without public data (docs/methods/lpdt.md §5).

use super::builder::{
    grow_halves, lpdt_stop, mean_of, score_tolerance, split_score, top_by_reduction, Criterion,
    TreeBuilder,
};
use super::presort::stable_partition;
use super::{Partition, TreeParams};
use crate::data::Matrix;

/// LPDT-M: grows a max-edge partition of the root box [0,1]^d from the public sample
/// (docs/methods/lpdt.md §3).
///
/// * `x`: n×d public features (scaled to [0,1]^d; points outside are routed by the
///   thresholds all the same).
/// * `y`: n public labels (any units).
/// * `p`: depth s, n_l (`min_leaf`), mss and the minimum reduction (see [`TreeParams`]).
///
/// At a node with points P, box ∏ [lo_k, hi_k) and depth δ: leaf if |P| ≤ mss, δ ≥ s or
/// at most mss distinct rows (x, y); otherwise the candidates are the features whose edge
/// hi_k − lo_k equals the longest edge (exact float equality), each split at its midpoint
/// c_k = (lo_k + hi_k)/2 with left = {x_k < c_k}; they are sorted by reduction
/// r_k = [SSE(P) − SSE(L) − SSE(R)]/|P| descending (stable: lower index first on ties,
/// where reductions within a rounding tolerance count as tied, see `TIE_RELATIVE`),
/// those with r_k < threshold are dropped, the first max(1, ⌊(|L'| + 5)/10⌋) are kept and
/// tried in order; the first whose children both have ≥ n_l points is used, else the node
/// is a leaf.
///
/// Returns a [`Partition`] with domain [0,1]^d, leaf cells inside it, leaf ids in
/// depth-first order (left before right), and per leaf the mean and count of the public
/// labels in it (mean 0 for an empty leaf, possible only with `min_leaf` = 0).
///
/// # Panics
/// If `y.len() != x.n`.
pub fn max_edge(x: &Matrix, y: &[f64], p: &TreeParams) -> Partition {
    grow_max_edge(x, y, p, Criterion::Variance)
}

/// LPCT (Maxedge): the max-edge partition of [0,1]^d grown on public 0/1 labels with the
/// information-gain score of the LPCT paper's code (method card docs/methods/lpct.md §2.2–§2.3):
/// gain = H(ȳ_P) − [|L| H(ȳ_L) + |R| H(ȳ_R)]/|P| with the binary entropy H in bits
/// (H(0) = H(1) = 0; the paper says Gini, the code uses this). Everything else is
/// [`max_edge`]: the same longest-edge midpoint candidates, stopping rules (`depth`,
/// `min_samples_split` m_s, `min_leaf` m_l), stable ordering with the lower feature first
/// on exact ties, `threshold` τ and the first max(1, ⌊(m + 5)/10⌋) candidates. Leaf ids
/// are in depth-first order (the code's breadth-first ids matter only to pruning).
///
/// # Panics
/// If `y.len() != x.n`, or a label is not 0 or 1.
pub fn max_edge_entropy(x: &Matrix, y: &[f64], p: &TreeParams) -> Partition {
    assert!(
        y.iter().all(|&v| v == 0.0 || v == 1.0),
        "max_edge_entropy: labels must be 0 or 1"
    );
    grow_max_edge(x, y, p, Criterion::Entropy)
}

fn grow_max_edge(x: &Matrix, y: &[f64], p: &TreeParams, criterion: Criterion) -> Partition {
    assert_eq!(y.len(), x.n, "max_edge: one label per row of x");
    let d = x.d;
    let mut g = MaxEdgeGrower {
        x,
        y,
        p,
        criterion,
        b: TreeBuilder::new(),
        scratch: Vec::with_capacity(x.n),
    };
    let mut idx: Vec<usize> = (0..x.n).collect();
    let mut lo = vec![0.0; d];
    let mut hi = vec![1.0; d];
    g.grow(&mut idx, &mut lo, &mut hi, 0);
    g.b.finish(vec![0.0; d], vec![1.0; d])
}

struct MaxEdgeGrower<'a> {
    x: &'a Matrix,
    y: &'a [f64],
    p: &'a TreeParams,
    criterion: Criterion,
    b: TreeBuilder,
    scratch: Vec<usize>,
}

impl MaxEdgeGrower<'_> {
    /// Grows the subtree of the points `idx` in the box [lo, hi) at `depth`; returns its
    /// node index. `lo`/`hi` are restored before returning.
    fn grow(&mut self, idx: &mut [usize], lo: &mut [f64], hi: &mut [f64], depth: usize) -> usize {
        let chosen = if lpdt_stop(self.x, self.y, idx, depth, self.p) {
            None
        } else {
            self.choose(idx, lo, hi)
        };
        let Some((k, c)) = chosen else {
            return self.b.leaf(lo, hi, mean_of(self.y, idx), idx.len());
        };
        let node = self.b.split(k, c);
        // The values as one slice, so that no row access goes through the matrix's storage.
        let (xs, d): (&[f64], usize) = (&self.x.data, self.x.d);
        let n_left = stable_partition(idx, &mut self.scratch, |i| xs[i * d + k] < c);
        let halves = idx.split_at_mut(n_left);
        let (left, right) = grow_halves(lo, hi, k, c, halves, |idx, lo, hi| {
            self.grow(idx, lo, hi, depth + 1)
        });
        self.b.set_children(node, left, right);
        node
    }

    /// Steps 2–5 of docs/methods/lpdt.md §3: the (feature, midpoint) to split on, if any.
    fn choose(&self, idx: &[usize], lo: &[f64], hi: &[f64]) -> Option<(usize, f64)> {
        let longest = lo
            .iter()
            .zip(hi)
            .map(|(l, h)| h - l)
            .fold(f64::NEG_INFINITY, f64::max);
        let cand: Vec<usize> = (0..lo.len())
            .filter(|&k| hi[k] - lo[k] == longest)
            .collect();
        if cand.is_empty() {
            return None;
        }
        let mid: Vec<f64> = cand.iter().map(|&k| (lo[k] + hi[k]) / 2.0).collect();

        // One pass over the rows: left counts and left sums of labels shifted by the
        // first label (the shift keeps sums small and makes constant labels give 0).
        let shift = self.y[idx[0]];
        let mut n_l = vec![0usize; cand.len()];
        let mut s_l = vec![0.0f64; cand.len()];
        let (mut s_tot, mut s_sq) = (0.0, 0.0);
        let (xs, d): (&[f64], usize) = (&self.x.data, self.x.d);
        for &i in idx {
            let row = &xs[i * d..(i + 1) * d];
            let dy = self.y[i] - shift;
            s_tot += dy;
            s_sq += dy * dy;
            // Branch-free: the comparisons are unpredictable. Iterators over the buffers
            // keep their addresses in registers (indexing reloaded them at every step).
            for ((&k, &c), (n, s)) in cand
                .iter()
                .zip(&mid)
                .zip(n_l.iter_mut().zip(s_l.iter_mut()))
            {
                let left = row[k] < c;
                *n += usize::from(left);
                *s += if left { dy } else { 0.0 };
            }
        }
        let n = idx.len();
        let c = self.criterion;
        let r: Vec<f64> = (0..cand.len())
            .map(|j| split_score(c, n, s_tot, n_l[j], s_l[j], shift))
            .collect();

        top_by_reduction(&r, self.p.threshold, score_tolerance(c, n, s_sq))
            .iter()
            .find(|&&j| n_l[j] >= self.p.min_leaf && n - n_l[j] >= self.p.min_leaf)
            .map(|&j| (cand[j], mid[j]))
    }
}

/// The complete max-edge partition of [0,1]^d of depth s, grown without data (LPDT without
/// public data, docs/methods/lpdt.md §5): every cell is split at the midpoint of its longest edge
/// (lowest feature index on ties) down to depth `depth`, with no pruning.
///
/// Returns 2^depth leaves in depth-first order (left = {x_k < midpoint} first), every leaf
/// with mean 0 and count 0 (the 0/0 = 0 fallback of docs/methods/lpdt.md §2.3). All cells at one depth
/// have the same shape, so the split features cycle 0, 1, …, d−1, 0, … by level. With d = 0
/// the partition is a single leaf.
///
/// The tree has 2^(depth+1) − 1 nodes; keep `depth` small (≤ ~20).
pub fn complete_max_edge(d: usize, depth: usize) -> Partition {
    fn grow(b: &mut TreeBuilder, lo: &mut [f64], hi: &mut [f64], left_depth: usize) -> usize {
        if left_depth == 0 || lo.is_empty() {
            return b.leaf(lo, hi, 0.0, 0);
        }
        let mut k = 0;
        for j in 1..lo.len() {
            if hi[j] - lo[j] > hi[k] - lo[k] {
                k = j;
            }
        }
        let c = (lo[k] + hi[k]) / 2.0;
        let node = b.split(k, c);
        let old_hi = hi[k];
        hi[k] = c;
        let left = grow(b, lo, hi, left_depth - 1);
        hi[k] = old_hi;
        let old_lo = lo[k];
        lo[k] = c;
        let right = grow(b, lo, hi, left_depth - 1);
        lo[k] = old_lo;
        b.set_children(node, left, right);
        node
    }
    let mut b = TreeBuilder::new();
    let mut lo = vec![0.0; d];
    let mut hi = vec![1.0; d];
    grow(&mut b, &mut lo, &mut hi, depth);
    b.finish(vec![0.0; d], vec![1.0; d])
}
