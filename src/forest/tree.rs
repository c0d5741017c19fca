//! One DiPriMe tree: the recursion of card docs/methods/diprime.md §3.3 over the median (§3.4–§3.5),
//! attribute (§3.6), range (§3.7) and leaf (§3.8) modules.

use super::attribute::{choose, split_mse, split_sse, AttributeMechanism, ScoreForm};
use super::budget::Privacy;
use super::columns::Columns;
use super::leaf::leaf_value;
use super::median::{categorical_split, continuous_threshold, MedianMechanism, MedianOptions};
use super::ranges::{AttrRange, Ranges, Split};
use super::ForestError;
use crate::data::{Matrix, Task};
use crate::estimate::LabelBounds;
use crate::partition::presort::stable_partition;
use rand::seq::index::sample;
use rand::Rng;

/// Everything one tree needs besides its rows and root ranges.
#[derive(Debug, Clone, Copy)]
pub struct TreeConfig {
    /// Median mechanism.
    pub median: MedianMechanism,
    /// Attribute mechanism.
    pub attribute: AttributeMechanism,
    /// K, candidate attributes per node (None = all).
    pub k: Option<usize>,
    /// d_max: leaves sit at this depth (root 0).
    pub depth: usize,
    /// ε_s of one median draw (unused by exact and uniform medians).
    pub eps_median: f64,
    /// ε_a of one attribute choice (unused by argmin and uniform).
    pub eps_attribute: f64,
    /// ε_ℓ of the leaves; None = exact leaves (non-private forest).
    pub eps_leaf: Option<f64>,
    /// Target bounds [y_lo, y_hi] (card: [0, 1] in every experiment).
    pub bounds: LabelBounds,
    /// Regression or binary classification.
    pub task: Task,
    /// Median quirks.
    pub median_options: MedianOptions,
    /// The reference's categorical scoring bug (card §3.6).
    pub categorical_bug: bool,
    /// As published or the DP mode ([`Privacy`]): the leaf release, the attribute score,
    /// continuous permute-and-flip medians drawn by the exponential mechanism, node values
    /// clamped into the node's range before a median.
    pub privacy: Privacy,
}

/// A node of a fitted tree.
#[derive(Debug, Clone)]
pub enum Node {
    /// A leaf with its value and the exact number of training rows that reached it.
    Leaf {
        /// Stored value (mean or fraction of label 1).
        value: f64,
        /// Exact row count (bookkeeping, e.g. leaf-occupancy histograms).
        count: usize,
    },
    /// An internal node.
    Internal {
        /// The split.
        split: Split,
        /// Index of the upper (`x_a ≥ r`, `x_a ∈ C`) child.
        upper: usize,
        /// Index of the lower child.
        lower: usize,
    },
}

/// A fitted tree; node 0 is the root.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Nodes in creation order (depth first, upper child first).
    pub nodes: Vec<Node>,
}

impl Tree {
    /// Grows a tree on rows `rows` of (`x`, `y`) from the root dict `ranges`. Every random
    /// draw comes from `rng`, in a fixed order (depth first, upper child first). `rows` are
    /// indices into the private training sample (`x`, `y`): every node passes its own rows'
    /// original indices to the mechanisms, which charge them on the ledger.
    ///
    /// # Errors
    /// A categorical attribute with too many categories ([`ForestError`]).
    pub fn fit<R: Rng + ?Sized>(
        x: &Matrix,
        y: &[f64],
        rows: Vec<usize>,
        ranges: Ranges,
        cfg: &TreeConfig,
        rng: &mut R,
    ) -> Result<Tree, ForestError> {
        Tree::fit_columns(&Columns::new(x), y, rows, ranges, cfg, rng)
    }

    /// [`Tree::fit`] on the features already column-major (`cols`, n×d, built once for
    /// every tree of a forest).
    ///
    /// # Errors
    /// A categorical attribute with too many categories ([`ForestError`]).
    pub fn fit_columns<R: Rng + ?Sized>(
        cols: &Columns,
        y: &[f64],
        rows: Vec<usize>,
        ranges: Ranges,
        cfg: &TreeConfig,
        rng: &mut R,
    ) -> Result<Tree, ForestError> {
        let m = rows.len();
        let mut g = Grower {
            cols,
            y,
            cfg,
            rng,
            rows,
            scratch: Vec::with_capacity(m),
            values: Vec::with_capacity(m),
            tree: Tree { nodes: Vec::new() },
        };
        g.grow(0, m, ranges, 0)?;
        Ok(g.tree)
    }

    /// The leaf `x` falls in (routing by the same rules as training, card §3.7).
    pub fn leaf_of(&self, x: &[f64]) -> usize {
        let mut at = 0;
        loop {
            match &self.nodes[at] {
                Node::Leaf { .. } => return at,
                Node::Internal {
                    split,
                    upper,
                    lower,
                } => {
                    at = if split.upper(x) { *upper } else { *lower };
                }
            }
        }
    }

    /// The value of the leaf `x` falls in.
    pub fn predict(&self, x: &[f64]) -> f64 {
        match &self.nodes[self.leaf_of(x)] {
            Node::Leaf { value, .. } => *value,
            Node::Internal { .. } => unreachable!("leaf_of returns a leaf"),
        }
    }

    /// The exact training-row count of every leaf (card §7, Fig 3), in node order.
    pub fn leaf_counts(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .filter_map(|n| match n {
                Node::Leaf { count, .. } => Some(*count),
                Node::Internal { .. } => None,
            })
            .collect()
    }
}

/// Growth state of one tree. A node is a range `a..b` of positions in `rows`, which holds
/// its rows in their original order; a split partitions the range stably (upper child
/// first), so every node sees its rows in the order the tree was given them.
struct Grower<'a, R: ?Sized> {
    cols: &'a Columns,
    y: &'a [f64],
    cfg: &'a TreeConfig,
    rng: &'a mut R,
    rows: Vec<usize>,
    scratch: Vec<usize>,
    values: Vec<f64>,
    tree: Tree,
}

impl<R: Rng + ?Sized> Grower<'_, R> {
    fn grow(
        &mut self,
        a: usize,
        b: usize,
        ranges: Ranges,
        depth: usize,
    ) -> Result<usize, ForestError> {
        let id = self.tree.nodes.len();
        let cfg = self.cfg;
        if depth >= cfg.depth || ranges.is_empty() {
            let rows = &self.rows[a..b];
            self.values.clear();
            self.values.extend(rows.iter().map(|&i| self.y[i]));
            let value = leaf_value(
                self.rng,
                &self.values,
                rows,
                cfg.task,
                cfg.bounds,
                cfg.eps_leaf,
                cfg.privacy,
            );
            self.tree.nodes.push(Node::Leaf {
                value,
                count: b - a,
            });
            return Ok(id);
        }
        let split = find_split(self.cols, self.y, &self.rows[a..b], &ranges, cfg, self.rng)?;
        let n_up = self.partition(a, b, &split);
        let (up_ranges, low_ranges) = ranges.children(&split);
        self.tree.nodes.push(Node::Internal {
            split,
            upper: 0,
            lower: 0,
        });
        let up = self.grow(a, a + n_up, up_ranges, depth + 1)?;
        let low = self.grow(a + n_up, b, low_ranges, depth + 1)?;
        if let Node::Internal { upper, lower, .. } = &mut self.tree.nodes[id] {
            *upper = up;
            *lower = low;
        }
        Ok(id)
    }

    /// Moves the rows of positions `a..b` that go to `split`'s upper child first, each
    /// side in its order; returns their number.
    fn partition(&mut self, a: usize, b: usize, split: &Split) -> usize {
        let col = self.cols.column(split.attr());
        stable_partition(&mut self.rows[a..b], &mut self.scratch, |i| {
            split.upper_value(col[i])
        })
    }
}

/// The median a node draws on a continuous attribute with values `v` of its rows `rows`
/// (indices into the private training sample) and range `[lo, hi]`: as published,
/// [`continuous_threshold`] as is; in the DP mode the values are first clamped into the
/// range (ranges from public rows need not cover the private values; each row's own value,
/// so the score keeps its sensitivity) and a permute-and-flip median is drawn by the
/// exponential mechanism (PF over a continuum has no DP analysis, card §3.4). What the
/// tree and the audit both draw.
#[allow(clippy::too_many_arguments)]
pub fn node_median<R: Rng + ?Sized>(
    rng: &mut R,
    v: &mut [f64],
    (lo, hi): (f64, f64),
    median: MedianMechanism,
    epsilon: f64,
    opt: &MedianOptions,
    privacy: Privacy,
    rows: &[usize],
) -> f64 {
    let median = if privacy == Privacy::Dp {
        for u in v.iter_mut() {
            *u = u.clamp(lo, hi);
        }
        match median {
            MedianMechanism::PermuteFlip => MedianMechanism::Exponential,
            m => m,
        }
    } else {
        median
    };
    continuous_threshold(rng, v, (lo, hi), median, epsilon, opt, rows)
}

/// `find_split` (card §3.6): K' = min(K, |A|) candidates drawn uniformly without
/// replacement, a median draw on each with ε_s, the within-child mse of each (only when
/// the attribute mechanism reads it), and the choice with ε_a.
fn find_split<R: Rng + ?Sized>(
    cols: &Columns,
    y: &[f64],
    rows: &[usize],
    ranges: &Ranges,
    cfg: &TreeConfig,
    rng: &mut R,
) -> Result<Split, ForestError> {
    let a = ranges.0.len();
    let k = cfg.k.unwrap_or(a).clamp(1, a);
    let picked = sample(rng, a, k).into_vec();
    let mut splits = Vec::with_capacity(k);
    let dp = cfg.privacy == Privacy::Dp;
    for &c in &picked {
        let (attr, range) = &ranges.0[c];
        let split = match range {
            AttrRange::Continuous { lo, hi } => {
                let col = cols.column(*attr);
                let mut v: Vec<f64> = rows.iter().map(|&i| col[i]).collect();
                let r = node_median(
                    rng,
                    &mut v,
                    (*lo, *hi),
                    cfg.median,
                    cfg.eps_median,
                    &cfg.median_options,
                    cfg.privacy,
                    rows,
                );
                Split::Threshold { attr: *attr, r }
            }
            AttrRange::Categorical(cats) => {
                let col = cols.column(*attr);
                let v: Vec<f64> = rows.iter().map(|&i| col[i]).collect();
                categorical_split(
                    rng,
                    *attr,
                    &v,
                    cats,
                    cfg.median,
                    cfg.eps_median,
                    &cfg.median_options,
                    rows,
                )?
            }
        };
        splits.push(split);
    }
    if splits.len() == 1 {
        return Ok(splits.pop().expect("one split"));
    }
    let b_inf = cfg.bounds.lo.abs().max(cfg.bounds.hi.abs());
    let mse: Vec<f64> = match cfg.attribute {
        AttributeMechanism::Uniform => vec![0.0; splits.len()],
        _ if dp => splits
            .iter()
            .map(|s| split_sse(cols.column(s.attr()), y, rows, s))
            .collect(),
        _ => splits
            .iter()
            .map(|s| {
                split_mse(
                    cols.column(s.attr()),
                    y,
                    rows,
                    s,
                    b_inf,
                    cfg.categorical_bug,
                )
            })
            .collect(),
    };
    let form = if dp {
        ScoreForm::SumError
    } else {
        ScoreForm::MeanError {
            subset_bug: cfg.categorical_bug
                && splits.iter().any(|s| matches!(s, Split::Subset { .. })),
        }
    };
    let j = choose(
        rng,
        cfg.attribute,
        &mse,
        rows,
        b_inf,
        cfg.eps_attribute,
        cfg.median_options.floors,
        form,
    );
    Ok(splits.swap_remove(j))
}
