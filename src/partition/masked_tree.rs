//! Trees on the T-axes of HistOfTree grown on the users' round-1 releases (public
//! coordinates and noisy labels Ỹ), with Algorithm 1's public-only variance reduction
//! (method card docs/methods/histoftree.md §3.6, §5.4): a candidate split on axis l of a cell A is
//! scored only on the users in A for whom feature l is public.
//!
//! The growers follow LPDT-M and LPDT-V exactly ([`super::max_edge`],
//! [`super::cart_quantile`]: the same stop checks, top-10 % rule, tie tolerance and
//! min-leaf test, through the shared helpers of `builder`), so with every T-coordinate
//! public they grow the same tree as those on the T-columns (tested). What the grower
//! reads of a user is its public T-coordinates and Ỹ: private entries are replaced by a
//! sentinel in the public view before anything else looks at them.

use super::builder::{
    grow_halves, lpdt_stop, mean_of, score_tolerance, split_score, top_by_reduction, truncated,
    Criterion, TreeBuilder,
};
use super::cart::{numpy_quantile_linear, quantile_levels};
use super::{Node, Partition, TreeParams};
use crate::data::{Matrix, PrivacyMask};

/// How a user is routed at a split on one of its private axes (card §5.4, open question 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    /// Into both children: a user is in a cell when its public T-coordinates lie in it
    /// (private coordinates are unknown and count as compatible).
    Compatible,
    /// Into neither: dropped from the subtree.
    Drop,
}

/// The growing data: `x` n×d (only public entries are read), `y` the n released noisy
/// labels, `mask` n×d (true = private), `axes` the T-axes (feature indices, ascending).
#[derive(Debug, Clone, Copy)]
pub struct MaskedGrowth<'a> {
    /// n×d features.
    pub x: &'a Matrix,
    /// n noisy labels Ỹ.
    pub y: &'a [f64],
    /// The privacy mask.
    pub mask: &'a PrivacyMask,
    /// The T-axes.
    pub axes: &'a [usize],
}

/// A grown T-tree with the mean and count of Ỹ over the users in every node (pre-order,
/// aligned with `partition.nodes`), so that [`truncate`] can turn an internal node into a
/// leaf: with compatible routing a user may sit in both children of a node, so node
/// statistics do not follow from the leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskedTree {
    /// The partition (over all d features, splits on T-axes only).
    pub partition: Partition,
    /// Mean Ỹ of the users routed into every node (0 when none).
    pub node_means: Vec<f64>,
    /// Number of users routed into every node.
    pub node_counts: Vec<usize>,
}

/// Private entries in the public view (outside [0,1]; never compared with a threshold:
/// routing reads the mask first). Equal sentinels make the distinct-row stop check treat
/// two users with the same public values and the same private pattern as equal.
const HIDDEN: f64 = -1.0;

/// The n×|axes| public view of the T-columns.
fn public_view(g: &MaskedGrowth) -> Matrix {
    let (n, t) = (g.x.n, g.axes.len());
    let mut data = Vec::with_capacity(n * t);
    for i in 0..n {
        let row = g.x.row(i);
        data.extend(g.axes.iter().map(|&a| {
            if g.mask.is_private(i, a) {
                HIDDEN
            } else {
                row[a]
            }
        }));
    }
    Matrix::new(n, t, data)
}

enum Search {
    MaxEdge,
    /// Quantile CART on per-axis orders sorted once per fit ([`NodeUsers::by_axis`]).
    Quantile {
        levels: Vec<f64>,
    },
    /// The same search re-sorting the eligible users of every node and axis (the grower
    /// before presorting): the reference the presorted one is tested against.
    #[cfg(test)]
    QuantileResorted {
        levels: Vec<f64>,
    },
}

/// The users of a node: `idx` in increasing order and, when the quantile search reads
/// them, `by_axis[t]` the users of `idx` public on T-axis position t sorted stably by that
/// value (`f64::total_cmp`, ties in user order), i.e. the order a stable sort of the
/// node's eligible users gives. Children keep the parent's orders (stable filtering), so
/// every axis is sorted once per fit.
struct NodeUsers {
    idx: Vec<usize>,
    by_axis: Vec<Vec<u32>>,
}

/// Reusable buffers of the quantile search.
#[derive(Default)]
struct QuantileScratch {
    /// One axis's eligible users in sorted order: their public values and shifted labels.
    sorted_v: Vec<f64>,
    sorted_dy: Vec<f64>,
    /// Distinct sorted values, candidate thresholds.
    vals: Vec<f64>,
    thr: Vec<f64>,
}

struct Grower<'a> {
    g: MaskedGrowth<'a>,
    view: Matrix,
    /// The public view column-major: `cols[t*n + i]` is view(i, t).
    cols: Vec<f64>,
    p: TreeParams,
    routing: Routing,
    search: Search,
    b: TreeBuilder,
    node_means: Vec<f64>,
    node_counts: Vec<usize>,
    /// Per user, the children the split being made sends it to (bit 0 left, bit 1 right).
    route: Vec<u8>,
    scratch: QuantileScratch,
}

/// Max-edge with public-only variance reduction (card §5.4, Algorithm 1): LPDT-M's rule
/// ([`super::max_edge`]) on the T-axes of [0,1]^d, each candidate (longest T-edge, split at
/// its midpoint) scored on the users in the cell with that feature public; the min-leaf
/// test counts those users. If no candidate has an eligible user the lowest-index longest
/// edge is split ([G]). Leaf ids depth-first.
///
/// # Panics
/// If the shapes of `x`, `y` and `mask` disagree.
pub fn masked_max_edge(g: &MaskedGrowth, p: &TreeParams, routing: Routing) -> MaskedTree {
    grow(g, p, routing, Search::MaxEdge)
}

/// The quantile-candidate CART of LPDT-V ([`super::cart_quantile`]) on the T-axes with
/// public-only scoring: per T-axis the candidate thresholds are the NumPy linear quantiles
/// at levels (2i+1)/(2S) of the distinct public values of the eligible users in the node.
/// Domain (−∞, ∞)^d.
///
/// # Panics
/// If the shapes of `x`, `y` and `mask` disagree.
pub fn masked_cart(
    g: &MaskedGrowth,
    p: &TreeParams,
    search_number: usize,
    routing: Routing,
) -> MaskedTree {
    let levels = quantile_levels(search_number);
    grow(g, p, routing, Search::Quantile { levels })
}

fn grow(g: &MaskedGrowth, p: &TreeParams, routing: Routing, search: Search) -> MaskedTree {
    assert_eq!(g.y.len(), g.x.n, "one noisy label per user");
    assert_eq!(
        (g.mask.n(), g.mask.d()),
        (g.x.n, g.x.d),
        "mask shape = data shape"
    );
    let (n, d) = (g.x.n, g.x.d);
    let (lo0, hi0) = match search {
        Search::MaxEdge => (0.0, 1.0),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let view = public_view(g);
    let presorted = matches!(search, Search::Quantile { .. });
    let cols = if presorted {
        (0..g.axes.len())
            .flat_map(|t| (0..n).map(move |i| (i, t)))
            .map(|(i, t)| view.get(i, t))
            .collect()
    } else {
        Vec::new()
    };
    let mut gr = Grower {
        view,
        cols,
        g: *g,
        p: *p,
        routing,
        search,
        b: TreeBuilder::new(),
        node_means: Vec::new(),
        node_counts: Vec::new(),
        route: vec![0; n],
        scratch: QuantileScratch::default(),
    };
    let by_axis = if presorted {
        gr.sorted_axes()
    } else {
        Vec::new()
    };
    let root = NodeUsers {
        idx: (0..n).collect(),
        by_axis,
    };
    let mut lo = vec![lo0; d];
    let mut hi = vec![hi0; d];
    gr.grow(root, &mut lo, &mut hi, 0);
    MaskedTree {
        partition: gr.b.finish(vec![lo0; d], vec![hi0; d]),
        node_means: gr.node_means,
        node_counts: gr.node_counts,
    }
}

impl Grower<'_> {
    /// Value of T-axis position `t` for user `i` in the public view (None if private).
    #[inline]
    fn public(&self, i: usize, t: usize) -> Option<f64> {
        let a = self.g.axes[t];
        (!self.g.mask.is_private(i, a)).then(|| self.view.get(i, t))
    }

    /// For every T-axis position, the users public on it sorted stably by their value
    /// (`f64::total_cmp`, ties in user order): the root's [`NodeUsers::by_axis`].
    fn sorted_axes(&self) -> Vec<Vec<u32>> {
        let n = self.g.x.n;
        assert!(n <= u32::MAX as usize, "masked_cart: at most 2^32 users");
        (0..self.g.axes.len())
            .map(|t| {
                let a = self.g.axes[t];
                let col = &self.cols[t * n..(t + 1) * n];
                let mut users: Vec<u32> = (0..n as u32)
                    .filter(|&i| !self.g.mask.is_private(i as usize, a))
                    .collect();
                users.sort_by(|&i, &j| col[i as usize].total_cmp(&col[j as usize]));
                users
            })
            .collect()
    }

    fn grow(&mut self, node: NodeUsers, lo: &mut [f64], hi: &mut [f64], depth: usize) -> usize {
        let idx = &node.idx;
        let chosen = if lpdt_stop(&self.view, self.g.y, idx, depth, &self.p) {
            None
        } else {
            match self.search {
                Search::MaxEdge => self.choose_max_edge(idx, lo, hi),
                _ => self.choose_quantile(&node),
            }
        };
        let (mean, count) = (mean_of(self.g.y, idx), idx.len());
        let Some((t, c)) = chosen else {
            self.node_means.push(mean);
            self.node_counts.push(count);
            return self.b.leaf(lo, hi, mean, count);
        };
        let k = self.g.axes[t];
        let split = self.b.split(k, c);
        self.node_means.push(mean);
        self.node_counts.push(count);
        for &i in idx {
            self.route[i] = match self.public(i, t) {
                Some(v) if v < c => 1,
                Some(_) => 2,
                None if self.routing == Routing::Compatible => 3,
                None => 0,
            };
        }
        // Children at the depth limit are leaves: they need their users, not the orders.
        let orders = depth + 1 < self.p.depth;
        let children = self.route_users(node, orders);
        let (l, r) = grow_halves(lo, hi, k, c, children, |users, lo, hi| {
            self.grow(users, lo, hi, depth + 1)
        });
        self.b.set_children(split, l, r);
        split
    }

    /// The children's users by `route` (set for every user of `node`), each list keeping
    /// its order; the per-axis orders only if `orders`.
    fn route_users(&self, node: NodeUsers, orders: bool) -> (NodeUsers, NodeUsers) {
        let route = &self.route;
        // Each side holds at most the node's users: room for them all, so the lists never
        // grow (a user whose value is masked goes to both sides under compatible routing).
        let room = node.idx.len();
        let (mut left, mut right) = (Vec::with_capacity(room), Vec::with_capacity(room));
        for &i in &node.idx {
            if route[i] & 1 != 0 {
                left.push(i);
            }
            if route[i] & 2 != 0 {
                right.push(i);
            }
        }
        let (mut left_by, mut right_by) = (Vec::new(), Vec::new());
        if orders {
            left_by.reserve_exact(node.by_axis.len());
            right_by.reserve_exact(node.by_axis.len());
            for list in &node.by_axis {
                let (mut l, mut r) = (
                    Vec::with_capacity(list.len()),
                    Vec::with_capacity(list.len()),
                );
                for &i in list {
                    let side = route[i as usize];
                    if side & 1 != 0 {
                        l.push(i);
                    }
                    if side & 2 != 0 {
                        r.push(i);
                    }
                }
                left_by.push(l);
                right_by.push(r);
            }
        }
        (
            NodeUsers {
                idx: left,
                by_axis: left_by,
            },
            NodeUsers {
                idx: right,
                by_axis: right_by,
            },
        )
    }

    /// Shift (first label) and the sum of squares of the shifted labels of the node, for
    /// the tie tolerance (as LPDT-M and LPDT-V compute it on the whole node).
    fn node_sums(&self, idx: &[usize]) -> (f64, f64) {
        let shift = self.g.y[idx[0]];
        let sq = idx
            .iter()
            .map(|&i| {
                let dy = self.g.y[i] - shift;
                dy * dy
            })
            .sum();
        (shift, sq)
    }

    /// Max-edge choice: returns (T-axis position, midpoint).
    fn choose_max_edge(&self, idx: &[usize], lo: &[f64], hi: &[f64]) -> Option<(usize, f64)> {
        let axes = self.g.axes;
        let longest = axes
            .iter()
            .map(|&a| hi[a] - lo[a])
            .fold(f64::NEG_INFINITY, f64::max);
        let cand: Vec<usize> = (0..axes.len())
            .filter(|&t| hi[axes[t]] - lo[axes[t]] == longest)
            .collect();
        if cand.is_empty() {
            return None;
        }
        let mid: Vec<f64> = cand
            .iter()
            .map(|&t| (lo[axes[t]] + hi[axes[t]]) / 2.0)
            .collect();
        let (shift, s_sq) = self.node_sums(idx);
        let m = cand.len();
        let (mut n_e, mut s_e, mut n_l, mut s_l) =
            (vec![0usize; m], vec![0.0; m], vec![0usize; m], vec![0.0; m]);
        for &i in idx {
            let dy = self.g.y[i] - shift;
            for (j, &t) in cand.iter().enumerate() {
                if let Some(v) = self.public(i, t) {
                    n_e[j] += 1;
                    s_e[j] += dy;
                    let left = v < mid[j];
                    n_l[j] += usize::from(left);
                    s_l[j] += if left { dy } else { 0.0 };
                }
            }
        }
        if n_e.iter().all(|&e| e == 0) {
            // No eligible user for any candidate: the lowest-index longest edge ([G]).
            return Some((cand[0], mid[0]));
        }
        let c = Criterion::Variance;
        let r: Vec<f64> = (0..m)
            .map(|j| split_score(c, n_e[j], s_e[j], n_l[j], s_l[j], shift))
            .collect();
        let min_leaf = self.p.min_leaf;
        top_by_reduction(&r, self.p.threshold, score_tolerance(c, idx.len(), s_sq))
            .iter()
            .find(|&&j| n_l[j] >= min_leaf && n_e[j] - n_l[j] >= min_leaf)
            .map(|&j| (cand[j], mid[j]))
    }

    /// Quantile-CART choice: returns (T-axis position, threshold).
    fn choose_quantile(&mut self, node: &NodeUsers) -> Option<(usize, f64)> {
        let idx = &node.idx;
        let (shift, s_sq) = self.node_sums(idx);
        let tol = score_tolerance(Criterion::Variance, idx.len(), s_sq);
        let p = self.p;
        let mut sc = std::mem::take(&mut self.scratch);
        // Per T-axis: (r, threshold, left count, eligible count).
        let best: Vec<(f64, Option<f64>, usize, usize)> = (0..self.g.axes.len())
            .map(|t| {
                self.eligible_sorted(node, t, shift, &mut sc);
                self.best_on_axis(shift, tol, &mut sc)
            })
            .collect();
        self.scratch = sc;
        let r: Vec<f64> = best.iter().map(|b| b.0).collect();
        top_by_reduction(&r, p.threshold, tol)
            .iter()
            .find_map(|&t| {
                let (_, th, n_l, m) = best[t];
                let th = th?;
                (n_l >= p.min_leaf && m - n_l >= p.min_leaf).then_some((t, th))
            })
    }

    /// Fills `sc.sorted_v` / `sc.sorted_dy` with the public values on T-axis position `t`
    /// and the shifted labels of the node's users public on it, sorted stably by value.
    fn eligible_sorted(&self, node: &NodeUsers, t: usize, shift: f64, sc: &mut QuantileScratch) {
        sc.sorted_v.clear();
        sc.sorted_dy.clear();
        let y = self.g.y;
        match &self.search {
            Search::Quantile { .. } => {
                let n = self.g.x.n;
                let col = &self.cols[t * n..(t + 1) * n];
                for &i in &node.by_axis[t] {
                    sc.sorted_v.push(col[i as usize]);
                    sc.sorted_dy.push(y[i as usize] - shift);
                }
            }
            #[cfg(test)]
            Search::QuantileResorted { .. } => {
                let mut elig: Vec<(f64, f64)> = node
                    .idx
                    .iter()
                    .filter_map(|&i| self.public(i, t).map(|v| (v, y[i] - shift)))
                    .collect();
                elig.sort_by(|a, b| a.0.total_cmp(&b.0));
                sc.sorted_v.extend(elig.iter().map(|e| e.0));
                sc.sorted_dy.extend(elig.iter().map(|e| e.1));
            }
            Search::MaxEdge => unreachable!("max-edge has no quantile search"),
        }
    }

    /// The best threshold on one T-axis from its eligible users in `sc` (sorted):
    /// (r, threshold, left count, eligible count), r = 0 and no threshold if none.
    fn best_on_axis(
        &self,
        shift: f64,
        tol: f64,
        sc: &mut QuantileScratch,
    ) -> (f64, Option<f64>, usize, usize) {
        let levels: &[f64] = match &self.search {
            Search::Quantile { levels } => levels,
            #[cfg(test)]
            Search::QuantileResorted { levels } => levels,
            Search::MaxEdge => unreachable!("max-edge has no quantile search"),
        };
        let (v, dy) = (&sc.sorted_v, &sc.sorted_dy);
        let m = v.len();
        let total: f64 = dy.iter().sum();
        let mut feat_best = (0.0f64, None, 0usize, m);
        if m == 0 {
            return feat_best;
        }
        sc.vals.clear();
        for &e in v {
            if sc.vals.last() != Some(&e) {
                sc.vals.push(e);
            }
        }
        sc.thr.clear();
        sc.thr
            .extend(levels.iter().map(|&q| numpy_quantile_linear(&sc.vals, q)));
        sc.thr.sort_by(f64::total_cmp);
        sc.thr.dedup();
        let (mut pos, mut n_l, mut s_l) = (0usize, 0usize, 0.0f64);
        for &th in &sc.thr {
            while pos < m && v[pos] < th {
                n_l += 1;
                s_l += dy[pos];
                pos += 1;
            }
            let r = split_score(Criterion::Variance, m, total, n_l, s_l, shift);
            if r > feat_best.0 + tol && r >= self.p.threshold {
                feat_best = (r, Some(th), n_l, m);
            }
        }
        feat_best
    }
}

/// The tree cut at `depth`: every node at depth `depth` becomes a leaf with its node's
/// mean and count and its box. Growth choices at a node do not depend on the depth limit,
/// so `truncate(&grow(D), p) == grow(p)` for p ≤ D (tested): the deepest tree is grown
/// once and each depth of a grid is its prefix. Leaf ids depth-first.
pub fn truncate(tree: &MaskedTree, depth: usize) -> MaskedTree {
    let part = &tree.partition;
    let (mut means, mut counts) = (Vec::new(), Vec::new());
    let cells = (part.domain_lo.clone(), part.domain_hi.clone());
    let partition = truncated(part, depth, cells, |node| {
        let (mean, count) = (tree.node_means[node], tree.node_counts[node]);
        means.push(mean);
        counts.push(count);
        (mean, count)
    });
    MaskedTree {
        partition,
        node_means: means,
        node_counts: counts,
    }
}

/// For every leaf of `tree`, the leaf of [`truncate`]`(tree, depth)` that contains it
/// (the ancestor at depth `depth`, or the leaf itself when shallower). Leaf ids of both
/// trees are depth-first, so the map is non-decreasing.
pub fn leaf_map(tree: &MaskedTree, depth: usize) -> Vec<usize> {
    let nodes = &tree.partition.nodes;
    let mut map = vec![0usize; tree.partition.n_leaves()];
    let mut next = 0usize;
    // (node, remaining depth, Some(new leaf) once below the cut)
    let mut stack = vec![(0usize, depth, None::<usize>)];
    while let Some((node, left_depth, under)) = stack.pop() {
        match &nodes[node] {
            Node::Leaf { leaf } => {
                map[*leaf] = under.unwrap_or_else(|| {
                    next += 1;
                    next - 1
                });
            }
            Node::Split { left, right, .. } => {
                let under = under.or_else(|| {
                    (left_depth == 0).then(|| {
                        next += 1;
                        next - 1
                    })
                });
                let rest = left_depth.saturating_sub(1);
                stack.push((*right, rest, under));
                stack.push((*left, rest, under));
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The presorted grower gives the re-sorting grower's tree bit for bit (thresholds,
    /// node means and counts compared through their exact `Debug` text, so -0.0 ≠ 0.0) on
    /// random data with ties, signed zeros, repeated rows and integer labels, random masks
    /// from all-public to all-private, both routings and a range of tree parameters.
    #[test]
    fn presorted_cart_equals_the_resorting_one() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(30);
        let mut splits = 0usize;
        for trial in 0..400 {
            let n = rng.gen_range(1..400);
            let d = rng.gen_range(1..6);
            let levels = rng.gen_range(2..40);
            let data: Vec<f64> = (0..n * d)
                .map(|_| match trial % 3 {
                    0 => rng.gen::<f64>(),
                    1 => rng.gen_range(0..levels) as f64 / levels as f64,
                    _ => [0.0, -0.0, 0.5, 1.0][rng.gen_range(0..4)],
                })
                .collect();
            let x = Matrix::new(n, d, data);
            let y: Vec<f64> = (0..n)
                .map(|i| match trial % 4 {
                    0 => rng.gen_range(0..5) as f64,
                    1 => x.get(i, 0) * 3.0 + rng.gen_range(-1.0..1.0),
                    _ => rng.gen_range(-2.0..2.0),
                })
                .collect();
            let share = [0.0, 0.2, 0.5, 0.9, 1.0][trial % 5];
            let mask = PrivacyMask::from_rows(
                (0..n)
                    .map(|_| (0..d).map(|_| rng.gen::<f64>() < share).collect())
                    .collect(),
            );
            let axes: Vec<usize> = (0..d).filter(|_| rng.gen::<f64>() < 0.8).collect();
            let g = MaskedGrowth {
                x: &x,
                y: &y,
                mask: &mask,
                axes: &axes,
            };
            let p = TreeParams {
                depth: rng.gen_range(0..9),
                min_leaf: [1, 1, 3, 10][rng.gen_range(0..4)],
                min_samples_split: [2, 2, 5][rng.gen_range(0..3)],
                threshold: [0.0, 0.0, 1e-3][rng.gen_range(0..3)],
            };
            let search = [10, 10, 1, 3][rng.gen_range(0..4)];
            for routing in [Routing::Compatible, Routing::Drop] {
                let new = masked_cart(&g, &p, search, routing);
                // As it was before presorting: every node re-sorts its eligible users.
                let levels = quantile_levels(search);
                let old = grow(&g, &p, routing, Search::QuantileResorted { levels });
                assert_eq!(
                    format!("{new:?}"),
                    format!("{old:?}"),
                    "trial {trial}, {routing:?}, {p:?}, search {search}"
                );
                splits += new.partition.nodes.len() / 2;
            }
        }
        // The comparison covers real trees, not just roots.
        assert!(splits > 4000, "{splits} splits");
    }
}
