//! Axis-aligned tree partitions of the feature space (docs/architecture.md, `partition/`).
//!
//! One [`Partition`] type serves every tree rule: a flat array of nodes, leaf ids 0..K,
//! the box (cell) of every leaf, and the mean label of the points the tree was grown on
//! in every leaf (the public-mean fallback of LPDT, method card docs/methods/lpdt.md §2.3, or the
//! prediction of a non-private CART).

pub mod adaptive;
mod builder;
pub mod cart;
pub mod grid;
pub mod hist_tree;
pub mod masked_tree;
pub mod max_edge;
pub(crate) mod presort;
pub mod random_max_edge;
pub mod shared;

pub use adaptive::{adaptive_objective, adaptive_shape, default_bins, AdaptiveShape};
pub use builder::TreeParams;
pub use cart::{
    cart, cart_nested, cart_quantile, cart_quantile_entropy, cart_with, CartParams, Missing,
    NestedCart,
};
pub use grid::{grid_allowed, Grid, SparseGrid};
pub use hist_tree::{CandidateTable, Candidates, CandidatesView, Cell, HCandidates, HistTree};
pub use masked_tree::{
    leaf_map, masked_cart, masked_max_edge, truncate, MaskedGrowth, MaskedTree, Routing,
};
pub use max_edge::{complete_max_edge, max_edge, max_edge_entropy};
pub use random_max_edge::random_max_edge;
pub use shared::{PartitionCache, SharedPublic};

/// A node of a [`Partition`] tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Internal node: a point goes to `left` when `x[feature] < threshold`, else to `right`
    /// (docs/methods/lpdt.md §2.4 and §9 item 15).
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    /// A leaf with id in 0..K.
    Leaf { leaf: usize },
}

impl Node {
    /// (feature, threshold, left, right) of a split node, None for a leaf.
    pub fn as_split(&self) -> Option<(usize, f64, usize, usize)> {
        match *self {
            Node::Split {
                feature,
                threshold,
                left,
                right,
            } => Some((feature, threshold, left, right)),
            Node::Leaf { .. } => None,
        }
    }
}

/// Parents, depths and leaf nodes of a [`Partition`] (see [`Partition::shape`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeShape {
    /// Parent of every node, None for the root `nodes[0]`.
    pub parent: Vec<Option<usize>>,
    /// Depth of every node (the root has depth 0).
    pub depth: Vec<usize>,
    /// The node index of every leaf id 0..K.
    pub leaf_node: Vec<usize>,
}

/// An axis-aligned tree partition with K leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// Nodes; `nodes[0]` is the root.
    pub nodes: Vec<Node>,
    /// The domain box: per-feature lower and upper bounds (length d each). [0,1]^d for
    /// max-edge; for CART the bounds of the data it was grown on are not used, so
    /// `[-inf, inf]`.
    pub domain_lo: Vec<f64>,
    /// See `domain_lo`.
    pub domain_hi: Vec<f64>,
    /// Cell of every leaf: `(lo, hi)` with length-d bounds, the cell is ∏_k [lo_k, hi_k).
    pub cells: Vec<(Vec<f64>, Vec<f64>)>,
    /// Mean label of the growing sample in every leaf (0 for a leaf with no points,
    /// following the 0/0 = 0 convention of docs/methods/lpdt.md §2.3).
    pub leaf_means: Vec<f64>,
    /// Number of growing points in every leaf.
    pub leaf_counts: Vec<usize>,
}

/// A partition's leaves as cells ([`Partition::leaves_of`]). Every partition of the
/// project is a [`crate::data::PublicPartition`] by construction where it is used as one:
/// the private rows' cells are taken only in trees grown on the public sample, on released
/// data or on none (a tree grown on private rows belongs to a non-private method, which
/// reads the rows through an escape instead).
impl crate::data::PublicPartition for Partition {
    type Cell = usize;
    fn cells_of(&self, x: &crate::data::Matrix) -> Vec<usize> {
        self.leaves_of(x)
    }
}

impl Partition {
    /// Number of leaves K.
    pub fn n_leaves(&self) -> usize {
        self.cells.len()
    }

    /// Leaf id of `x` (length d), routing by thresholds only (points outside the domain
    /// box are routed too; see [`Partition::in_domain`]).
    #[inline]
    pub fn leaf_of(&self, x: &[f64]) -> usize {
        let mut node = 0;
        loop {
            let (feature, threshold, left, right) = match &self.nodes[node] {
                Node::Leaf { leaf } => return *leaf,
                split => split.as_split().expect("not a leaf"),
            };
            node = if x[feature] < threshold { left } else { right };
        }
    }

    /// Leaf id of every row of `x` (n×d, d the partition's dimension): [`Partition::leaf_of`]
    /// of each row, the same ids. Rows are routed eight at a time, level by level, with no
    /// branch on the data (a leaf routes to itself), so the comparisons of one row do not
    /// wait on another's: routing the thousands of private users of a fit was a chain of
    /// dependent loads per row.
    ///
    /// # Panics
    /// If the tree splits on a feature ≥ x.d.
    pub fn leaves_of(&self, x: &crate::data::Matrix) -> Vec<usize> {
        const LANES: usize = 8;
        let depth = self.depth();
        if depth == 0 || x.n == 0 {
            return (0..x.n).map(|i| self.leaf_of(x.row(i))).collect();
        }
        // Per node: feature, threshold, children; a leaf is (0, 0, itself, itself).
        let flat: Vec<(usize, f64, usize, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match node.as_split() {
                Some((feature, threshold, left, right)) => {
                    assert!(
                        feature < x.d,
                        "leaves_of: split on feature {feature} of {}",
                        x.d
                    );
                    (feature, threshold, left, right)
                }
                None => (0, 0.0, i, i),
            })
            .collect();
        let leaf_id: Vec<usize> = self
            .nodes
            .iter()
            .map(|node| match node {
                Node::Leaf { leaf } => *leaf,
                Node::Split { .. } => usize::MAX,
            })
            .collect();
        let (n, d) = (x.n, x.d);
        let xs: &[f64] = &x.data;
        let mut out = Vec::with_capacity(n);
        for start in (0..n).step_by(LANES) {
            let lanes = LANES.min(n - start);
            let mut node = [0usize; LANES];
            for _ in 0..depth {
                for (l, nd) in node.iter_mut().enumerate().take(lanes) {
                    let (f, t, left, right) = flat[*nd];
                    *nd = if xs[(start + l) * d + f] < t {
                        left
                    } else {
                        right
                    };
                }
            }
            out.extend(node[..lanes].iter().map(|&nd| leaf_id[nd]));
        }
        out
    }

    /// Whether `x` lies in the closed domain box.
    pub fn in_domain(&self, x: &[f64]) -> bool {
        x.iter()
            .zip(self.domain_lo.iter().zip(&self.domain_hi))
            .all(|(v, (lo, hi))| *v >= *lo && *v <= *hi)
    }

    /// The tree's shape for walks from a leaf to the root (LPCT-prune, docs/methods/lpct.md §5): per
    /// node its parent (None for the root) and depth (root 0), and per leaf id its node.
    /// Nodes are in pre-order (a parent before its children), so a reverse pass over the
    /// nodes visits children before parents.
    pub fn shape(&self) -> TreeShape {
        let n = self.nodes.len();
        let mut parent = vec![None; n];
        let mut depth = vec![0usize; n];
        let mut leaf_node = vec![0usize; self.n_leaves()];
        for (i, node) in self.nodes.iter().enumerate() {
            match node {
                Node::Leaf { leaf } => leaf_node[*leaf] = i,
                Node::Split { left, right, .. } => {
                    for &c in [left, right] {
                        debug_assert!(c > i, "nodes are in pre-order");
                        parent[c] = Some(i);
                        depth[c] = depth[i] + 1;
                    }
                }
            }
        }
        TreeShape {
            parent,
            depth,
            leaf_node,
        }
    }

    /// Depth of the tree (0 for a single leaf).
    pub fn depth(&self) -> usize {
        fn rec(nodes: &[Node], i: usize) -> usize {
            match &nodes[i] {
                Node::Leaf { .. } => 0,
                Node::Split { left, right, .. } => 1 + rec(nodes, *left).max(rec(nodes, *right)),
            }
        }
        rec(&self.nodes, 0)
    }
}
