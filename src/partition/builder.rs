//! Shared pieces of the tree growers: the LPDT tree parameters ([`TreeParams`]), a
//! collector that turns a depth-first recursion into a flat [`Partition`], and small
//! helpers on index vectors (variance reduction, distinct-row test, stable partition).

use super::{Node, Partition};
use crate::data::Matrix;

/// Tree parameters of LPDT-M and LPDT-V (method card docs/methods/lpdt.md §3 and §4; names of [code]).
///
/// Units: `depth` is a number of splits from the root (the root has depth 0); `min_leaf`
/// and `min_samples_split` are numbers of growing (public) points; `threshold` is in
/// squared label units per point (it is compared with the reduction
/// r = [SSE(P) − SSE(L) − SSE(R)] / |P|).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeParams {
    /// Maximum depth s: a node at depth δ ≥ s is a leaf (docs/methods/lpdt.md §3 step 1).
    pub depth: usize,
    /// n_l, the paper's `min_samples_leaf`: a split is used only if both children get at
    /// least this many growing points (docs/methods/lpdt.md §3 step 5, §4 step 5).
    pub min_leaf: usize,
    /// mss: a node with |P| ≤ mss points, or with ≤ mss distinct rows (x, y), is a leaf
    /// (docs/methods/lpdt.md §3 step 1). Note "≤", so mss = 2 keeps a 2-point node as a leaf.
    pub min_samples_split: usize,
    /// Minimum reduction: candidates with r < threshold are dropped (docs/methods/lpdt.md §3 step 4,
    /// §4 steps 3–4).
    pub threshold: f64,
}

impl Default for TreeParams {
    /// The harness defaults of docs/methods/lpdt.md §6: depth 4, min_leaf 1, min_samples_split 2,
    /// threshold 0.
    fn default() -> Self {
        TreeParams {
            depth: 4,
            min_leaf: 1,
            min_samples_split: 2,
            threshold: 0.0,
        }
    }
}

/// Collects nodes and leaves of a tree grown depth first (left before right), so leaf
/// ids come out in depth-first order and `nodes` in pre-order.
pub(crate) struct TreeBuilder {
    nodes: Vec<Node>,
    cells: Vec<(Vec<f64>, Vec<f64>)>,
    leaf_means: Vec<f64>,
    leaf_counts: Vec<usize>,
}

impl TreeBuilder {
    pub(crate) fn new() -> Self {
        TreeBuilder {
            nodes: Vec::new(),
            cells: Vec::new(),
            leaf_means: Vec::new(),
            leaf_counts: Vec::new(),
        }
    }

    /// Appends a leaf with cell ∏ [lo_k, hi_k); returns its node index.
    pub(crate) fn leaf(&mut self, lo: &[f64], hi: &[f64], mean: f64, count: usize) -> usize {
        let leaf = self.cells.len();
        self.cells.push((lo.to_vec(), hi.to_vec()));
        self.leaf_means.push(mean);
        self.leaf_counts.push(count);
        self.nodes.push(Node::Leaf { leaf });
        self.nodes.len() - 1
    }

    /// Appends an internal node whose children are set later by [`Self::set_children`];
    /// returns its node index.
    pub(crate) fn split(&mut self, feature: usize, threshold: f64) -> usize {
        self.nodes.push(Node::Split {
            feature,
            threshold,
            left: 0,
            right: 0,
        });
        self.nodes.len() - 1
    }

    pub(crate) fn set_children(&mut self, node: usize, l: usize, r: usize) {
        if let Node::Split { left, right, .. } = &mut self.nodes[node] {
            *left = l;
            *right = r;
        }
    }

    pub(crate) fn finish(self, domain_lo: Vec<f64>, domain_hi: Vec<f64>) -> Partition {
        Partition {
            nodes: self.nodes,
            domain_lo,
            domain_hi,
            cells: self.cells,
            leaf_means: self.leaf_means,
            leaf_counts: self.leaf_counts,
        }
    }
}

/// Mean of `y` over `idx` (0 for an empty set, the 0/0 = 0 convention of docs/methods/lpdt.md §2.3).
/// Grows both children of a split of the cell [lo, hi) on feature `k` at `c`: `grow` gets
/// the left child's input and cell (hi[k] = c), then the right child's (lo[k] = c); the
/// cell is restored after each. Returns (left, right). Every tree of `partition/` that
/// tracks its cells while it recurses splits them here.
pub(crate) fn grow_halves<I, T>(
    lo: &mut [f64],
    hi: &mut [f64],
    k: usize,
    c: f64,
    (left, right): (I, I),
    mut grow: impl FnMut(I, &mut [f64], &mut [f64]) -> T,
) -> (T, T) {
    let old_hi = hi[k];
    hi[k] = c;
    let l = grow(left, lo, hi);
    hi[k] = old_hi;
    let old_lo = lo[k];
    lo[k] = c;
    let r = grow(right, lo, hi);
    lo[k] = old_lo;
    (l, r)
}

/// `tree` cut at `depth`: every node at that depth, and every leaf above it, becomes a leaf
/// with the (mean, count) that `stats(node)` gives; cells start from `cells` (lo, hi) and
/// are bounded by the thresholds above them; leaf ids depth-first. `stats` is called once
/// for every copied node, split or leaf, in depth-first order (CART's and the masked tree's
/// truncations).
pub(crate) fn truncated(
    tree: &Partition,
    depth: usize,
    cells: (Vec<f64>, Vec<f64>),
    mut stats: impl FnMut(usize) -> (f64, usize),
) -> Partition {
    fn copy(
        tree: &Partition,
        (node, left_depth): (usize, usize),
        b: &mut TreeBuilder,
        (lo, hi): (&mut [f64], &mut [f64]),
        stats: &mut dyn FnMut(usize) -> (f64, usize),
    ) -> usize {
        let (mean, count) = stats(node);
        match &tree.nodes[node] {
            Node::Split {
                feature,
                threshold,
                left,
                right,
            } if left_depth > 0 => {
                let (k, c) = (*feature, *threshold);
                let id = b.split(k, c);
                let (l, r) = grow_halves(lo, hi, k, c, (*left, *right), |child, lo, hi| {
                    copy(tree, (child, left_depth - 1), b, (lo, hi), stats)
                });
                b.set_children(id, l, r);
                id
            }
            _ => b.leaf(lo, hi, mean, count),
        }
    }
    let (mut lo, mut hi) = cells;
    let mut b = TreeBuilder::new();
    copy(tree, (0, depth), &mut b, (&mut lo, &mut hi), &mut stats);
    b.finish(tree.domain_lo.clone(), tree.domain_hi.clone())
}

pub(crate) fn mean_of(y: &[f64], idx: &[usize]) -> f64 {
    if idx.is_empty() {
        0.0
    } else {
        idx.iter().map(|&i| y[i]).sum::<f64>() / idx.len() as f64
    }
}

/// The score a max-edge grower ranks its candidate splits by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Criterion {
    /// Variance reduction (LPDT, docs/methods/lpdt.md §3).
    Variance,
    /// Binary-entropy information gain (LPCT, docs/methods/lpct.md §2.2).
    Entropy,
}

/// Binary entropy in bits of a share `q` of ones, 0 at q ∈ {0, 1}.
pub(crate) fn entropy(q: f64) -> f64 {
    if q <= 0.0 || q >= 1.0 {
        0.0
    } else {
        -q * q.log2() - (1.0 - q) * (1.0 - q).log2()
    }
}

/// Information gain of splitting `n` points with `ones` ones into a left part of `n_l`
/// points with `ones_l` ones and the rest (an empty side has entropy 0).
pub(crate) fn entropy_gain(n: usize, ones: f64, n_l: usize, ones_l: f64) -> f64 {
    let n_r = n - n_l;
    let share = |k: f64, m: usize| if m == 0 { 0.0 } else { k / m as f64 };
    entropy(share(ones, n))
        - (n_l as f64 * entropy(share(ones_l, n_l))
            + n_r as f64 * entropy(share(ones - ones_l, n_r)))
            / n as f64
}

/// The score of splitting a node of `n` points, whose labels minus `shift` sum to
/// `total`, into a left part of `n_l` points whose shifted labels sum to `s_l`: the
/// variance reduction [`reduction`], or for 0/1 labels the entropy gain (the shifted sums
/// give the counts of ones back exactly).
pub(crate) fn split_score(
    c: Criterion,
    n: usize,
    total: f64,
    n_l: usize,
    s_l: f64,
    shift: f64,
) -> f64 {
    match c {
        Criterion::Variance => reduction(n_l, s_l, n - n_l, total - s_l),
        Criterion::Entropy => {
            entropy_gain(n, total + n as f64 * shift, n_l, s_l + n_l as f64 * shift)
        }
    }
}

/// How close two scores must be to tie: [`tie_tolerance`] for variance reductions; 0 for
/// entropy gains, which equal counts make bit-identical.
pub(crate) fn score_tolerance(c: Criterion, n: usize, sum_sq: f64) -> f64 {
    match c {
        Criterion::Variance => tie_tolerance(n, sum_sq),
        Criterion::Entropy => 0.0,
    }
}

/// Reduction r = [SSE(P) − SSE(L) − SSE(R)] / |P| of splitting P into L and R, from the
/// counts and the label sums of the children (the sums may be of labels shifted by any
/// common constant; r does not depend on it).
///
/// Uses the exact identity SSE(P) − SSE(L) − SSE(R) = n_L n_R (ȳ_L − ȳ_R)² / n, written as
/// (n_R S_L − n_L S_R)² / (n_L n_R n²): it is never negative, it is exactly 0 when a child
/// is empty or when the labels are constant (shifted sums are then 0), and it is exact for
/// integer labels, so mathematically tied candidates tie in floating point too.
#[inline]
pub(crate) fn reduction(n_l: usize, s_l: f64, n_r: usize, s_r: f64) -> f64 {
    if n_l == 0 || n_r == 0 {
        return 0.0;
    }
    let (nl, nr) = (n_l as f64, n_r as f64);
    let n = nl + nr;
    let num = nr * s_l - nl * s_r;
    num * num / (nl * nr * n * n)
}

/// [`reduction`] if it exceeds `bar` (Some(r), the same bits), else None, usually without
/// the division: with q = num² and den = n_l·n_r·n² as in [`reduction`], when
/// q < fl(fl(bar·den)·(1 − 2⁻⁵⁰)) the exact quotient q/den is below bar·(1 − 2⁻⁵¹) (two
/// roundings of relative size 2⁻⁵³ cannot undo a factor 1 − 2⁻⁵⁰), so the rounded r =
/// fl(q/den) ≤ bar, rounding being monotone and bar a float. A split scan compares most
/// positions with a bar they cannot reach; the division's latency was most of its time.
#[inline]
pub(crate) fn reduction_above(n_l: usize, s_l: f64, n_r: usize, s_r: f64, bar: f64) -> Option<f64> {
    if n_l == 0 || n_r == 0 {
        return (0.0 > bar).then_some(0.0);
    }
    let (nl, nr) = (n_l as f64, n_r as f64);
    let n = nl + nr;
    let num = nr * s_l - nl * s_r;
    let (q, den) = (num * num, nl * nr * n * n);
    if q < bar * den * (1.0 - 1.0 / (1u64 << 50) as f64) {
        return None;
    }
    let r = q / den;
    (r > bar).then_some(r)
}

/// Whether the rows (x_i, y_i), i ∈ `idx`, take at most `limit` distinct values (exact
/// float equality, as `np.unique(axis=0)` in [code]). Stops as soon as `limit + 1`
/// distinct rows are seen, so the cost is O(|idx| · (limit + 1) · d) at worst and usually
/// O((limit + 1)² · d).
pub(crate) fn distinct_rows_at_most(x: &Matrix, y: &[f64], idx: &[usize], limit: usize) -> bool {
    let mut reps: Vec<usize> = Vec::with_capacity(limit + 1);
    for &i in idx {
        let row = x.row(i);
        let seen = reps.iter().any(|&j| y[j] == y[i] && x.row(j) == row);
        if !seen {
            reps.push(i);
            if reps.len() > limit {
                return false;
            }
        }
    }
    true
}

/// How many of `len` ordered candidates [code] tries: max(1, ⌊(len + 5)/10⌋), the
/// "top ≈10%" rule of docs/methods/lpdt.md §3 step 4 and §4 step 4.
#[inline]
pub(crate) fn top_count(len: usize) -> usize {
    ((len + 5) / 10).max(1)
}

/// Relative size of a difference between two reductions below which they count as tied.
///
/// Reductions that are equal in exact arithmetic (two features inducing the same split,
/// mirrored splits, …) come out of floating-point sums taken in different orders and may
/// differ in the last bits; without a tolerance the "lowest index first" rules of the card
/// would depend on rounding. The tolerance is this factor times the node's mean squared
/// (shifted) label, an upper bound of every reduction in the node: far above rounding
/// noise, far below any difference that matters.
pub(crate) const TIE_RELATIVE: f64 = 1e-9;

/// The tie tolerance of a node from its size and its sum of squared shifted labels.
#[inline]
pub(crate) fn tie_tolerance(n: usize, sum_sq: f64) -> f64 {
    if n == 0 {
        0.0
    } else {
        TIE_RELATIVE * sum_sq / n as f64
    }
}

/// Candidates ordered and pruned as in docs/methods/lpdt.md §3 step 4 / §4 step 4: those with
/// `r[j] ≥ threshold`, sorted by `r` descending with ties (within `tol`) kept in index
/// order, then the first max(1, ⌊(|kept| + 5)/10⌋). Returns candidate positions.
pub(crate) fn top_by_reduction(r: &[f64], threshold: f64, tol: f64) -> Vec<usize> {
    let mut rest: Vec<usize> = (0..r.len()).filter(|&j| r[j] >= threshold).collect();
    let keep = top_count(rest.len()).min(rest.len());
    let mut out = Vec::with_capacity(keep);
    for _ in 0..keep {
        let max = rest.iter().map(|&j| r[j]).fold(f64::NEG_INFINITY, f64::max);
        let pos = rest.iter().position(|&j| r[j] >= max - tol).unwrap_or(0);
        out.push(rest.remove(pos));
    }
    out
}

/// The LPDT stop checks of docs/methods/lpdt.md §3 step 1: |P| ≤ mss, δ ≥ s, or at most mss distinct
/// rows (x, y) in P.
pub(crate) fn lpdt_stop(
    x: &Matrix,
    y: &[f64],
    idx: &[usize],
    depth: usize,
    p: &TreeParams,
) -> bool {
    idx.len() <= p.min_samples_split
        || depth >= p.depth
        || distinct_rows_at_most(x, y, idx, p.min_samples_split)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// `reduction_above` answers exactly as `reduction(..) > bar`, with the same bits,
    /// including at bars one ulp either side of the reduction itself (where the division-free
    /// test must defer to the division).
    #[test]
    fn reduction_above_agrees_with_the_division() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for _ in 0..200_000 {
            let (n_l, n_r) = (rng.gen_range(0..5000usize), rng.gen_range(0..5000usize));
            let scale = 10f64.powi(rng.gen_range(-6..7));
            let (s_l, s_r) = (
                rng.gen_range(-1.0..1.0) * scale,
                rng.gen_range(-1.0..1.0) * scale,
            );
            let r = reduction(n_l, s_l, n_r, s_r);
            let bars = [
                r,
                r.next_down(),
                r.next_up(),
                r * rng.gen_range(0.0..2.0),
                0.0,
                f64::NEG_INFINITY,
            ];
            for bar in bars {
                let want = (r > bar).then_some(r);
                let got = reduction_above(n_l, s_l, n_r, s_r, bar);
                assert_eq!(
                    got.map(f64::to_bits),
                    want.map(f64::to_bits),
                    "n_l {n_l} s_l {s_l} n_r {n_r} s_r {s_r} bar {bar}"
                );
            }
        }
    }
}
