//! CART partitions: LPDT-V, the quantile-candidate CART of [code] grown on public data
//! (method card docs/methods/lpdt.md §4, `msereduction` in [code]), and DT / DT-pub, an exhaustive
//! CART that mimics sklearn's `DecisionTreeRegressor(max_depth)` (docs/methods/lpdt.md §7.1–7.2).
//!
//! Both growers sort every feature once and then keep, for every node, a contiguous
//! segment of each feature's sorted index list (stable partitioning at each split), so a
//! level of the tree costs O(n·d) and no per-node copy of the data is made.

use super::builder::{
    lpdt_stop, reduction, reduction_above, score_tolerance, split_score, tie_tolerance,
    top_by_reduction, truncated, Criterion, TreeBuilder,
};
use super::presort::{column_major, presort_columns, stable_partition};
use super::{Node, Partition, TreeParams};
use crate::data::Matrix;

/// LPDT-V: grows the quantile-candidate CART of docs/methods/lpdt.md §4 from the public sample.
///
/// * `x`: n×d public features; `y`: n public labels (any units).
/// * `p`: depth s, n_l (`min_leaf`), mss and the minimum reduction (see [`TreeParams`]).
/// * `search_number`: S, the number of quantile levels per feature (card default 10).
///
/// At a node (same stop checks as LPDT-M, docs/methods/lpdt.md §3 step 1), for every feature k the
/// candidate thresholds are the NumPy "linear" quantiles of the *distinct* values of x_k
/// in the node at levels (2i+1)/(2S), i = 0..S−1, duplicates removed; scanning them in
/// increasing order, the feature keeps the first with the largest strictly positive
/// reduction r = [SSE(P) − SSE(L) − SSE(R)]/|P| that is ≥ threshold, with left = {x_k < t}
/// (r_k = 0 and no threshold if none). Features are sorted by r_k descending (stable),
/// those with r_k < threshold dropped, the first max(1, ⌊(|kept| + 5)/10⌋) tried in order
/// (|kept| = d at threshold 0): a feature without threshold or with a child < n_l points
/// is skipped, the first other one is split; otherwise the node is a leaf.
///
/// "Larger", "strictly positive" and ties are judged up to a rounding tolerance of 1e-9
/// times the node's mean squared label (see `builder::TIE_RELATIVE`), so reductions that
/// are equal in exact arithmetic tie and the lower threshold / feature index wins.
///
/// Returns a [`Partition`] with domain (−∞, ∞)^d, leaf cells bounded by the thresholds,
/// leaf ids in depth-first order (left before right), and per leaf the mean and count of
/// the public labels in it.
///
/// # Panics
/// If `y.len() != x.n`.
pub fn cart_quantile(x: &Matrix, y: &[f64], p: &TreeParams, search_number: usize) -> Partition {
    grow_quantile(x, y, p, search_number, Criterion::Variance)
}

/// LPCT (CART): the quantile-candidate CART of the LPCT paper's code (`igreduction`,
/// method card docs/methods/lpct.md §2.4), grown on public 0/1 labels: [`cart_quantile`] with the
/// binary-entropy information gain of docs/methods/lpct.md §2.2 in place of the variance reduction
/// (ties exact, the lower threshold and feature first). With `search_number` = 10 the
/// levels are (2i+1)/20, i = 0..9, as in §2.4.
///
/// # Panics
/// If `y.len() != x.n`, or a label is not 0 or 1.
pub fn cart_quantile_entropy(
    x: &Matrix,
    y: &[f64],
    p: &TreeParams,
    search_number: usize,
) -> Partition {
    assert!(
        y.iter().all(|&v| v == 0.0 || v == 1.0),
        "cart_quantile_entropy: labels must be 0 or 1"
    );
    grow_quantile(x, y, p, search_number, Criterion::Entropy)
}

/// The S quantile levels (2i+1)/(2S), i = 0..S, of LPDT-V's candidate thresholds (LPDT
/// card §3); `search_number` = S.
pub(crate) fn quantile_levels(search_number: usize) -> Vec<f64> {
    (0..search_number)
        .map(|i| (2 * i + 1) as f64 / (2 * search_number) as f64)
        .collect()
}

fn grow_quantile(
    x: &Matrix,
    y: &[f64],
    p: &TreeParams,
    search_number: usize,
    criterion: Criterion,
) -> Partition {
    assert_eq!(y.len(), x.n, "cart_quantile: one label per row of x");
    let levels = quantile_levels(search_number);
    let mut g = Grower::new(x, y);
    let mut rule = Rule::Quantile(QuantileState {
        p,
        criterion,
        levels,
        vals: Vec::new(),
        thr: Vec::new(),
    });
    let d = x.d;
    let mut lo = vec![f64::NEG_INFINITY; d];
    let mut hi = vec![f64::INFINITY; d];
    g.grow(0, x.n, &mut lo, &mut hi, 0, &mut rule);
    g.b.finish(vec![f64::NEG_INFINITY; d], vec![f64::INFINITY; d])
}

/// DT / DT-pub: exhaustive CART like sklearn's `DecisionTreeRegressor(max_depth)` with
/// every other argument at its default (docs/methods/lpdt.md §7.1): squared error, best split over all
/// features, min_samples_split 2, min_samples_leaf 1.
///
/// * `x`: n×d training features; `y`: n labels (any units); `max_depth`: maximum depth
///   (the root has depth 0).
///
/// A node is a leaf if its depth is `max_depth`, it has < 2 points, it is pure (the
/// population variance of its labels is ≤ f64::EPSILON, sklearn's purity test, which
/// includes "all labels equal"), or every feature is constant on it. Otherwise it is split
/// on the (feature, threshold) with the largest reduction of the sum of squared errors,
/// over all features and all positions between consecutive distinct sorted values; ties
/// go to the lowest feature index, then the lowest threshold (sklearn breaks feature ties
/// at random), where reductions within 1e-9 times the node's mean squared label count as
/// tied (rounding noise). As in sklearn, an impure node is split even if the best
/// reduction is 0.
///
/// Threshold: sklearn's midpoint t = v_a/2 + v_b/2 of the consecutive distinct values
/// v_a < v_b (t = v_a if that rounds up to v_b), and sklearn sends x ≤ t left. Since
/// [`Partition`] sends x < threshold left, the stored threshold is `t.next_up()`, the next
/// float above t, so that every point — including one exactly at the midpoint — is routed
/// as by sklearn.
///
/// Returns a [`Partition`] with domain (−∞, ∞)^d, leaf ids in depth-first order (left
/// before right, as sklearn's depth-first builder), and per leaf the mean (the prediction)
/// and count of the training labels in it.
///
/// # Panics
/// If `y.len() != x.n`.
pub fn cart(x: &Matrix, y: &[f64], max_depth: usize) -> Partition {
    cart_with(
        x,
        y,
        &CartParams {
            max_depth,
            min_samples_leaf: 1,
            missing: Missing::Refuse,
        },
    )
}

/// How [`cart_with`] treats missing feature values (NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// No missing values: every feature value must be a number (a NaN is a caller's bug).
    #[default]
    Refuse,
    /// NaN marks a missing value (HistOfTree card §8 [G], ParDT `impute: nan_aware`), as
    /// scikit-learn ≥ 1.3's `DecisionTreeRegressor` treats it: at every split the rows
    /// missing the split feature go to the side with the larger variance reduction (each
    /// threshold is scored with them on the left and on the right, and "observed left,
    /// missing right" is a candidate of its own, threshold +∞). Test points must be
    /// complete: the partition routes by threshold only.
    BestSide,
}

/// Parameters of the exhaustive CART [`cart_with`] (sklearn's `DecisionTreeRegressor`
/// arguments of the same names; every other argument at sklearn's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CartParams {
    /// Maximum depth (the root has depth 0).
    pub max_depth: usize,
    /// sklearn's `min_samples_leaf` (≥ 1): a split is allowed only if both children get at
    /// least this many training points; a node with fewer than 2·min_samples_leaf points
    /// is a leaf.
    pub min_samples_leaf: usize,
    /// Treatment of missing values.
    pub missing: Missing,
}

/// Exhaustive CART with sklearn's `min_samples_leaf` ([`CartParams`]): [`cart`]'s rules
/// (same stop tests, same split search, ties and thresholds), except that a node with
/// fewer than 2·min_samples_leaf points is a leaf and split positions that leave fewer
/// than min_samples_leaf points on a side are not candidates (a node without a candidate
/// is a leaf). With min_samples_leaf = 1 it is [`cart`] exactly.
///
/// A node's split does not depend on `max_depth` (only whether it is split at all), so
/// the depth-p tree is the depth-p prefix of any deeper tree ([`NestedCart::truncate`]).
///
/// # Panics
/// If `y.len() != x.n`, min_samples_leaf is 0, or (with [`Missing::Refuse`]) a feature
/// value is NaN.
pub fn cart_with(x: &Matrix, y: &[f64], p: &CartParams) -> Partition {
    grow_exhaustive(x, y, p, false).0
}

/// A CART tree grown to `max_depth` with the label mean and count of every node, so that
/// the tree of any smaller depth can be read off it ([`NestedCart::truncate`],
/// [`NestedCart::predict_at_depth`]) without regrowing.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedCart {
    /// The deepest tree, as [`cart_with`] returns it.
    pub tree: Partition,
    /// Mean training label of every node (indexed like `tree.nodes`), computed exactly as
    /// a leaf mean of [`cart_with`] (row order, one sum, one division).
    pub node_means: Vec<f64>,
    /// Number of training points of every node.
    pub node_counts: Vec<usize>,
}

/// [`cart_with`] with the per-node means of [`NestedCart`].
///
/// # Panics
/// As [`cart_with`].
pub fn cart_nested(x: &Matrix, y: &[f64], p: &CartParams) -> NestedCart {
    let (tree, stats) = grow_exhaustive(x, y, p, true);
    let (node_means, node_counts) = stats.into_iter().unzip();
    NestedCart {
        tree,
        node_means,
        node_counts,
    }
}

impl NestedCart {
    /// The prediction of the depth-`depth` tree at `x`: the mean of the node where `x`'s
    /// path ends, at depth `depth` or at a leaf above it.
    pub fn predict_at_depth(&self, x: &[f64], depth: usize) -> f64 {
        let mut node = 0;
        for _ in 0..depth {
            match &self.tree.nodes[node] {
                Node::Leaf { .. } => break,
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    node = if x[*feature] < *threshold {
                        *left
                    } else {
                        *right
                    };
                }
            }
        }
        self.node_means[node]
    }

    /// The tree cut at depth `depth`: every node at that depth becomes a leaf with its
    /// mean and count, leaf ids depth first, cells bounded by the thresholds above them.
    /// Equal to [`cart_with`] grown with max_depth = `depth` (≤ the grown depth) on the
    /// same data.
    pub fn truncate(&self, depth: usize) -> Partition {
        let d = self.tree.domain_lo.len();
        let cells = (vec![f64::NEG_INFINITY; d], vec![f64::INFINITY; d]);
        truncated(&self.tree, depth, cells, |node| {
            (self.node_means[node], self.node_counts[node])
        })
    }
}

/// Grows the exhaustive CART; with `stats`, also the (mean, count) of every node.
fn grow_exhaustive(
    x: &Matrix,
    y: &[f64],
    p: &CartParams,
    stats: bool,
) -> (Partition, Vec<(f64, usize)>) {
    assert_eq!(y.len(), x.n, "cart: one label per row of x");
    assert!(
        p.min_samples_leaf >= 1,
        "cart: min_samples_leaf must be >= 1"
    );
    match p.missing {
        Missing::Refuse => assert!(
            !x.data.iter().any(|v| v.is_nan()),
            "cart: a feature value is NaN (missing) and missing values are refused"
        ),
        Missing::BestSide => {}
    }
    let mut g = Grower::new(x, y);
    if stats {
        g.node_stats = Some(Vec::new());
    }
    let d = x.d;
    let mut lo = vec![f64::NEG_INFINITY; d];
    let mut hi = vec![f64::INFINITY; d];
    g.grow(
        0,
        x.n,
        &mut lo,
        &mut hi,
        0,
        &mut Rule::Exhaustive {
            max_depth: p.max_depth,
            min_samples_leaf: p.min_samples_leaf,
        },
    );
    let stats = g.node_stats.take().unwrap_or_default();
    (
        g.b.finish(vec![f64::NEG_INFINITY; d], vec![f64::INFINITY; d]),
        stats,
    )
}

/// The split rule of a CART fit.
enum Rule<'p> {
    /// LPDT-V, [`cart_quantile`].
    Quantile(QuantileState<'p>),
    /// DT, [`cart_with`].
    Exhaustive {
        max_depth: usize,
        min_samples_leaf: usize,
    },
}

impl Rule<'_> {
    /// The depth at which every node is a leaf (the split rules stop at depth ≥ it).
    fn depth_limit(&self) -> usize {
        match self {
            Rule::Quantile(st) => st.p.depth,
            Rule::Exhaustive { max_depth, .. } => *max_depth,
        }
    }
}

/// Per-fit parameters and scratch of [`cart_quantile`].
struct QuantileState<'a> {
    p: &'a TreeParams,
    criterion: Criterion,
    levels: Vec<f64>,
    vals: Vec<f64>,
    thr: Vec<f64>,
}

/// Presorted growing state shared by both CARTs.
///
/// `rows[a..b]` holds a node's row indices in increasing order; for every feature k,
/// `order[k*n + a .. k*n + b]` holds the same rows sorted by x_k (ties by row index);
/// `col[k*n + i]` is x_{ik} (column-major copy for cache-friendly scans).
struct Grower<'a> {
    x: &'a Matrix,
    y: &'a [f64],
    n: usize,
    col: Vec<f64>,
    order: Vec<usize>,
    rows: Vec<usize>,
    goes_left: Vec<bool>,
    scratch: Vec<usize>,
    b: TreeBuilder,
    /// (mean, count) of every node in node order, when requested ([`cart_nested`]).
    node_stats: Option<Vec<(f64, usize)>>,
}

impl<'a> Grower<'a> {
    fn new(x: &'a Matrix, y: &'a [f64]) -> Self {
        let n = x.n;
        let col = column_major(x);
        // Each feature's rows sorted stably by value (ties by row, NaN last).
        let order = presort_columns(&col, n);
        Grower {
            x,
            y,
            n,
            col,
            order,
            rows: (0..n).collect(),
            goes_left: vec![false; n],
            scratch: Vec::with_capacity(n),
            b: TreeBuilder::new(),
            node_stats: None,
        }
    }

    /// Grows the subtree of the node `rows[a..b]` in the cell [lo, hi) at `depth` with the
    /// split rule `rule`. Returns the node index; `lo`/`hi` are restored before returning.
    fn grow(
        &mut self,
        a: usize,
        b: usize,
        lo: &mut [f64],
        hi: &mut [f64],
        depth: usize,
        rule: &mut Rule,
    ) -> usize {
        let chosen = match rule {
            Rule::Quantile(st) => self
                .choose_quantile(a, b, depth, st)
                .map(|(k, t)| (k, t, false)),
            Rule::Exhaustive {
                max_depth,
                min_samples_leaf,
            } => self.choose_exhaustive(a, b, depth, *max_depth, *min_samples_leaf),
        };
        let Some((k, t, nan_left)) = chosen else {
            let mean = self.node_mean(a, b);
            let node = self.b.leaf(lo, hi, mean, b - a);
            if let Some(st) = &mut self.node_stats {
                st.push((mean, b - a));
            }
            return node;
        };
        let node = self.b.split(k, t);
        if self.node_stats.is_some() {
            let mean = self.node_mean(a, b);
            if let Some(st) = &mut self.node_stats {
                st.push((mean, b - a));
            }
        }
        // Children at the depth limit are leaves: they need their rows, not the features'
        // sorted orders.
        let children_may_split = depth + 1 < rule.depth_limit();
        let mid = a + self.partition(a, b, k, t, nan_left, children_may_split);

        let old_hi = hi[k];
        hi[k] = t;
        let left = self.grow(a, mid, lo, hi, depth + 1, rule);
        hi[k] = old_hi;

        let old_lo = lo[k];
        lo[k] = t;
        let right = self.grow(mid, b, lo, hi, depth + 1, rule);
        lo[k] = old_lo;

        self.b.set_children(node, left, right);
        node
    }

    /// Mean label of the node `rows[a..b]` (rows in increasing order), 0 when empty.
    fn node_mean(&self, a: usize, b: usize) -> f64 {
        let rows = &self.rows[a..b];
        if rows.is_empty() {
            0.0
        } else {
            rows.iter().map(|&i| self.y[i]).sum::<f64>() / rows.len() as f64
        }
    }

    /// Splits the node `rows[a..b]` by x_k < t in `rows` and, with `orders`, in every
    /// feature's order (stably), rows missing x_k (NaN) to the left iff `nan_left`; returns
    /// the number of left rows.
    fn partition(
        &mut self,
        a: usize,
        b: usize,
        k: usize,
        t: f64,
        nan_left: bool,
        orders: bool,
    ) -> usize {
        let n = self.n;
        for &i in &self.rows[a..b] {
            let v = self.col[k * n + i];
            self.goes_left[i] = if v.is_nan() { nan_left } else { v < t };
        }
        let gl: &[bool] = &self.goes_left;
        let n_left = stable_partition(&mut self.rows[a..b], &mut self.scratch, |i| gl[i]);
        if !orders {
            return n_left;
        }
        for f in 0..self.x.d {
            stable_partition(
                &mut self.order[f * n + a..f * n + b],
                &mut self.scratch,
                |i| gl[i],
            );
        }
        n_left
    }

    /// Label shift of the node (its first label, so constant labels sum to 0), and the
    /// sum and the sum of squares of the shifted labels.
    fn shifted_sums(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let rows = &self.rows[a..b];
        let shift = rows.first().map_or(0.0, |&i| self.y[i]);
        let (mut s, mut sq) = (0.0, 0.0);
        for &i in rows {
            let dy = self.y[i] - shift;
            s += dy;
            sq += dy * dy;
        }
        (shift, s, sq)
    }

    /// docs/methods/lpdt.md §4 steps 1–5 for the node `rows[a..b]`.
    fn choose_quantile(
        &mut self,
        a: usize,
        b: usize,
        depth: usize,
        st: &mut QuantileState,
    ) -> Option<(usize, f64)> {
        let p = st.p;
        if lpdt_stop(self.x, self.y, &self.rows[a..b], depth, p) {
            return None;
        }
        let (n, m, d) = (self.n, b - a, self.x.d);
        let (shift, total, sum_sq) = self.shifted_sums(a, b);
        let tol = score_tolerance(st.criterion, m, sum_sq);
        // Per feature: (r_k, threshold, number of left points).
        let mut best: Vec<(f64, Option<f64>, usize)> = Vec::with_capacity(d);
        for k in 0..d {
            let seg = &self.order[k * n + a..k * n + b];
            let col = &self.col[k * n..(k + 1) * n];
            st.vals.clear();
            for &i in seg {
                let v = col[i];
                if st.vals.last() != Some(&v) {
                    st.vals.push(v);
                }
            }
            st.thr.clear();
            st.thr.extend(
                st.levels
                    .iter()
                    .map(|&q| numpy_quantile_linear(&st.vals, q)),
            );
            st.thr.sort_by(f64::total_cmp);
            st.thr.dedup();

            let (mut pos, mut n_l, mut s_l) = (0usize, 0usize, 0.0f64);
            let mut feat_best = (0.0f64, None, 0usize);
            for &t in &st.thr {
                while pos < m && col[seg[pos]] < t {
                    n_l += 1;
                    s_l += self.y[seg[pos]] - shift;
                    pos += 1;
                }
                let r = split_score(st.criterion, m, total, n_l, s_l, shift);
                if r > feat_best.0 + tol && r >= p.threshold {
                    feat_best = (r, Some(t), n_l);
                }
            }
            best.push(feat_best);
        }
        let r: Vec<f64> = best.iter().map(|b| b.0).collect();
        top_by_reduction(&r, p.threshold, tol)
            .iter()
            .find_map(|&k| {
                let (_, t, n_l) = best[k];
                let t = t?;
                (n_l >= p.min_leaf && m - n_l >= p.min_leaf).then_some((k, t))
            })
    }

    /// sklearn-like best split for the node `rows[a..b]` (see [`cart_with`]): (feature,
    /// threshold, whether rows missing the feature go left). Missing values (NaN, only
    /// under [`Missing::BestSide`]) sort after every number in each feature's order.
    fn choose_exhaustive(
        &mut self,
        a: usize,
        b: usize,
        depth: usize,
        max_depth: usize,
        msl: usize,
    ) -> Option<(usize, f64, bool)> {
        let m = b - a;
        if depth >= max_depth || m < 2 || m < 2 * msl {
            return None;
        }
        let (shift, total, sum_sq) = self.shifted_sums(a, b);
        // sklearn's purity test: impurity (population variance) ≤ EPSILON.
        let mean = total / m as f64;
        if sum_sq / m as f64 - mean * mean <= f64::EPSILON {
            return None;
        }
        let tol = tie_tolerance(m, sum_sq);
        let n = self.n;
        let fits = |n_l: usize| n_l >= msl && m - n_l >= msl;
        // (r, feature, sorted position of the last observed left point or None for
        // "observed | missing", missing rows left)
        let mut best: Option<(f64, usize, Option<usize>, bool)> = None;
        // A candidate replaces the best when its reduction exceeds the best's by more than
        // the tolerance (the first candidate always).
        let mut consider = |n_l: usize, s_l: f64, s_r: f64, cand: (usize, Option<usize>, bool)| {
            let r = match best {
                None => Some(reduction(n_l, s_l, m - n_l, s_r)),
                Some((rb, _, _, _)) => reduction_above(n_l, s_l, m - n_l, s_r, rb + tol),
            };
            if let Some(r) = r {
                best = Some((r, cand.0, cand.1, cand.2));
            }
        };
        for k in 0..self.x.d {
            let seg = &self.order[k * n + a..k * n + b];
            let col = &self.col[k * n..(k + 1) * n];
            let m_nan = seg.iter().rev().take_while(|&&i| col[i].is_nan()).count();
            let m_obs = m - m_nan;
            let s_nan: f64 = seg[m_obs..].iter().map(|&i| self.y[i] - shift).sum();
            let mut s_l = 0.0;
            for j in 0..m_obs.saturating_sub(1) {
                s_l += self.y[seg[j]] - shift;
                if col[seg[j + 1]] > col[seg[j]] {
                    let n_l = j + 1;
                    if fits(n_l) {
                        consider(n_l, s_l, total - s_l, (k, Some(j), false));
                    }
                    if m_nan > 0 && fits(n_l + m_nan) {
                        let s = s_l + s_nan;
                        consider(n_l + m_nan, s, total - s, (k, Some(j), true));
                    }
                }
            }
            if m_nan > 0 && m_obs > 0 && fits(m_obs) {
                consider(m_obs, total - s_nan, s_nan, (k, None, false));
            }
        }
        let (_, k, j, nan_left) = best?;
        let Some(j) = j else {
            return Some((k, f64::INFINITY, false));
        };
        let seg = &self.order[k * n + a..k * n + b];
        let (va, vb) = (self.col[k * n + seg[j]], self.col[k * n + seg[j + 1]]);
        let mut t = va / 2.0 + vb / 2.0;
        if t == vb || t.is_infinite() {
            t = va;
        }
        Some((k, t.next_up(), nan_left))
    }
}

/// NumPy's default ("linear", Hyndman–Fan type 7) quantile of the sorted values `v` at
/// level `q` ∈ [0,1], with NumPy's exact floating-point steps: h = (m−1)·q, j = ⌊h⌋,
/// g = h − j, and v_j + (v_{j+1} − v_j)·g if g < 0.5, else v_{j+1} − (v_{j+1} − v_j)(1 − g);
/// h ≥ m−1 gives v_{m−1}.
///
/// # Panics
/// If `v` is empty.
pub fn numpy_quantile_linear(v: &[f64], q: f64) -> f64 {
    let m = v.len();
    assert!(m > 0, "quantile of an empty set");
    let h = (m - 1) as f64 * q;
    if h >= (m - 1) as f64 {
        return v[m - 1];
    }
    if h < 0.0 {
        return v[0];
    }
    let j = h.floor();
    let g = h - j;
    let (lo, hi) = (v[j as usize], v[j as usize + 1]);
    let diff = hi - lo;
    if g >= 0.5 {
        hi - diff * (1.0 - g)
    } else {
        lo + diff * g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every feature's presorted order is the rows sorted by value (`total_cmp`), ties in
    /// row order, whether the column has one, two (the shortcut) or many distinct values,
    /// NaN included.
    #[test]
    fn presort_is_a_stable_sort_by_value() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        for trial in 0..60 {
            let (n, d) = (rng.gen_range(1..200), 4);
            let palette = [0.0, 1.0, -2.5, f64::NAN, 0.25];
            let x = Matrix::new(
                n,
                d,
                (0..n * d)
                    .map(|j| match j % d {
                        0 => palette[rng.gen_range(0..1 + trial % 2)], // one or two values
                        1 => palette[rng.gen_range(3..5)],             // NaN and 0.25
                        2 => palette[rng.gen_range(0..3)],             // three values
                        _ => rng.gen::<f64>(),
                    })
                    .collect(),
            );
            let y = vec![0.0; n];
            let g = Grower::new(&x, &y);
            for k in 0..d {
                let mut want: Vec<usize> = (0..n).collect();
                want.sort_by(|&a, &b| x.get(a, k).total_cmp(&x.get(b, k)).then(a.cmp(&b)));
                if k == 1 {
                    // NaN sorts last whatever its sign; the palette's NaN is positive.
                    assert!(want.iter().all(|&i| !x.get(i, k).is_sign_negative()));
                }
                assert_eq!(
                    &g.order[k * n..(k + 1) * n],
                    &want[..],
                    "trial {trial}, feature {k}"
                );
            }
        }
    }
}
