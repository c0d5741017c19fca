//! The combined partition of HistOfTree (method card docs/methods/histoftree.md §3.5, §5.2, §5.5): a
//! regular histogram with `bins` bins per axis on the H-axes (the first s features of the
//! protection order) times a tree on the T-axes (the other features), and the candidate
//! cells ("potential grids") of a user computed from its public coordinates only.
//!
//! Cells are keys ([`Cell`]: mixed-radix histogram bin × tree leaf), never indices into a
//! per-cell array: b^s · 2^p cells can be far more than the users (card §5 hint), so
//! estimators touch only the cells users report and the cells test points fall in.

use super::{Grid, Node, Partition};

/// One cell of a [`HistTree`]: the histogram bin `h` (mixed radix `bins` over the H-axes,
/// the first H-axis most significant, as [`Grid::cell_of`]) and the T-tree leaf id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Histogram bin, in 0..bins^s.
    pub h: u64,
    /// Leaf id of the T-tree, in 0..K_T.
    pub leaf: usize,
}

/// Which histogram bins a user's candidate set holds on its H-axes (card §5.5, open
/// question 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HCandidates {
    /// On a public H-coordinate only the bin of that coordinate (the card's reading:
    /// public H-coordinates shrink the potential grids).
    Compatible,
    /// All b bins on every H-axis, public or not (Lemma B.10's count b^s).
    All,
}

/// A user's candidate cells I_i = (H-bins compatible with its public H-coordinates) ×
/// (T-leaves compatible with its public T-coordinates), in product form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Per H-axis (in the order of [`HistTree::h_axes`]): `Some(bin)` when the coordinate
    /// is public (and [`HCandidates::Compatible`]), `None` = any of the b bins.
    pub h: Vec<Option<usize>>,
    /// T-leaves compatible with the public T-coordinates, ascending (never empty).
    pub leaves: Vec<usize>,
}

impl Candidates {
    /// The compact form: per H-axis digit in radix bins + 1, `bins` = any (see
    /// [`CandidateTable`]).
    ///
    /// # Panics
    /// If the signature overflows u128 (callers cap b^s at 2^60).
    pub fn signature(&self, bins: usize) -> u128 {
        signature(self.h.iter().copied(), bins)
    }

    /// The borrowed view every query goes through.
    fn view(&self, bins: usize) -> CandidatesView<'_> {
        CandidatesView {
            sig: self.signature(bins),
            free: self.h.iter().filter(|b| b.is_none()).count() as u32,
            s: self.h.len(),
            bins,
            leaves: &self.leaves,
        }
    }

    /// K_i = |I_i| = bins^(free H-axes) · |leaves|.
    ///
    /// # Panics
    /// If the count overflows u64 (callers cap b^s at 2^60).
    pub fn len(&self, bins: usize) -> u64 {
        self.view(bins).len()
    }

    /// Whether the set is empty (never, for sets built by [`HistTree::candidates`]).
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// Whether cell `c` is one of the candidates.
    pub fn contains(&self, c: &Cell, bins: usize) -> bool {
        self.view(bins).contains(c)
    }

    /// The k-th candidate (k in 0..len): leaf `leaves[k mod |leaves|]`, the free H-axes
    /// taking the mixed-radix digits of k div |leaves| (first free axis most significant).
    ///
    /// # Panics
    /// If k ≥ [`Candidates::len`].
    pub fn nth(&self, k: u64, bins: usize) -> Cell {
        self.view(bins).nth(k)
    }

    /// The position of cell `c` in the order of [`Candidates::nth`], None if it is not a
    /// candidate.
    pub fn index_of(&self, c: &Cell, bins: usize) -> Option<u64> {
        self.view(bins).index_of(c)
    }
}

/// Packs per-axis `Some(bin)` / `None` (= any, digit `bins`) in radix bins + 1, first axis
/// most significant.
fn signature(h: impl Iterator<Item = Option<usize>>, bins: usize) -> u128 {
    let r = bins as u128 + 1;
    h.fold(0u128, |acc, b| {
        acc.checked_mul(r)
            .and_then(|a| a.checked_add(b.unwrap_or(bins) as u128))
            .expect("candidate signature overflows u128")
    })
}

/// One user's candidate set in compact form (borrowed from a [`CandidateTable`] or a
/// [`Candidates`]): the H-signature and the compatible leaves.
#[derive(Debug, Clone, Copy)]
pub struct CandidatesView<'a> {
    /// Per H-axis digit in radix bins + 1 (`bins` = any), first axis most significant.
    pub sig: u128,
    /// Number of free (any) H-axes.
    pub free: u32,
    /// Number of H-axes s.
    pub s: usize,
    /// Bins per H-axis.
    pub bins: usize,
    /// Compatible leaves, ascending.
    pub leaves: &'a [usize],
}

impl CandidatesView<'_> {
    /// K_i = bins^free · |leaves|.
    ///
    /// # Panics
    /// If the count overflows u64.
    pub fn len(&self) -> u64 {
        (self.bins as u64)
            .checked_pow(self.free)
            .and_then(|k| k.checked_mul(self.leaves.len() as u64))
            .expect("candidate count overflows u64")
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// Whether the histogram bin `h` is compatible with the signature.
    pub fn matches_h(&self, mut h: u64) -> bool {
        let (b, r) = (self.bins as u64, self.bins as u128 + 1);
        let mut sig = self.sig;
        for _ in 0..self.s {
            let sd = (sig % r) as u64;
            let hd = h % b;
            if sd != b && sd != hd {
                return false;
            }
            sig /= r;
            h /= b;
        }
        true
    }

    /// Whether cell `c` is a candidate.
    pub fn contains(&self, c: &Cell) -> bool {
        self.leaves.binary_search(&c.leaf).is_ok() && self.matches_h(c.h)
    }

    /// The k-th candidate, see [`Candidates::nth`].
    ///
    /// # Panics
    /// If k ≥ [`CandidatesView::len`].
    pub fn nth(&self, k: u64) -> Cell {
        assert!(k < self.len(), "candidate {k} out of range");
        let nl = self.leaves.len() as u64;
        let leaf = self.leaves[(k % nl) as usize];
        let (b, r) = (self.bins as u64, self.bins as u128 + 1);
        let (mut free, mut sig, mut h, mut mult) = (k / nl, self.sig, 0u64, 1u64);
        for _ in 0..self.s {
            let sd = (sig % r) as u64;
            let d = if sd == b {
                let d = free % b;
                free /= b;
                d
            } else {
                sd
            };
            h += d * mult;
            mult = mult.wrapping_mul(b);
            sig /= r;
        }
        Cell { h, leaf }
    }

    /// The position of `c` in the order of [`CandidatesView::nth`], None if it is not a
    /// candidate.
    pub fn index_of(&self, c: &Cell) -> Option<u64> {
        let li = self.leaves.binary_search(&c.leaf).ok()? as u64;
        let (b, r) = (self.bins as u64, self.bins as u128 + 1);
        let (mut sig, mut h, mut free, mut mult) = (self.sig, c.h, 0u64, 1u64);
        for _ in 0..self.s {
            let sd = (sig % r) as u64;
            let hd = h % b;
            if sd == b {
                free += hd * mult;
                mult = mult.wrapping_mul(b);
            } else if sd != hd {
                return None;
            }
            sig /= r;
            h /= b;
        }
        Some(free * self.leaves.len() as u64 + li)
    }
}

/// The true cells and candidate sets of n users in flat arrays (no per-user allocation):
/// user i's leaves are `leaves[leaf_start[i]..leaf_start[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CandidateTable {
    /// Bins per H-axis.
    pub bins: usize,
    /// Number of H-axes s.
    pub s: usize,
    /// True cell of every user.
    pub cells: Vec<Cell>,
    /// H-signature of every user ([`Candidates::signature`]).
    pub sig: Vec<u128>,
    /// Number of free H-axes of every user.
    pub free: Vec<u32>,
    /// Offsets into `leaves` (length n + 1).
    pub leaf_start: Vec<usize>,
    /// Compatible leaves of all users, each user's ascending.
    pub leaves: Vec<usize>,
}

impl CandidateTable {
    /// An empty table for `s` H-axes with `bins` bins.
    pub fn new(bins: usize, s: usize) -> Self {
        CandidateTable {
            bins,
            s,
            leaf_start: vec![0],
            ..Default::default()
        }
    }

    /// Appends a user from its true cell, per-H-axis bins (None = any) and leaves.
    pub fn push(
        &mut self,
        cell: Cell,
        h: impl Iterator<Item = Option<usize>> + Clone,
        leaves: impl Iterator<Item = usize>,
    ) {
        self.cells.push(cell);
        self.free
            .push(h.clone().filter(Option::is_none).count() as u32);
        self.sig.push(signature(h, self.bins));
        self.leaves.extend(leaves);
        self.leaf_start.push(self.leaves.len());
    }

    /// Number of users.
    pub fn n(&self) -> usize {
        self.cells.len()
    }

    /// User i's candidate set.
    pub fn view(&self, i: usize) -> CandidatesView<'_> {
        CandidatesView {
            sig: self.sig[i],
            free: self.free[i],
            s: self.s,
            bins: self.bins,
            leaves: &self.leaves[self.leaf_start[i]..self.leaf_start[i + 1]],
        }
    }
}

/// Histogram on the H-axes × tree on the T-axes (card §5.2).
#[derive(Debug, Clone, PartialEq)]
pub struct HistTree {
    /// The H-axes (feature indices), histogram digit order.
    pub h_axes: Vec<usize>,
    /// Bins per H-axis b ≥ 1 (equal bins of [0,1], x = 1 in the last bin: [`Grid::bin`]).
    pub bins: usize,
    /// The T-tree, over all d features but splitting only on T-axes.
    pub tree: Partition,
}

impl HistTree {
    fn grid(&self) -> Grid {
        Grid { m: self.bins, d: 1 }
    }

    /// Number of histogram bins b^s, None if it overflows u64.
    pub fn n_bins(&self) -> Option<u64> {
        (self.bins as u64).checked_pow(u32::try_from(self.h_axes.len()).ok()?)
    }

    /// The cell of a point `x` (length d).
    pub fn cell_of(&self, x: &[f64]) -> Cell {
        Cell {
            h: self.h_of(x),
            leaf: self.tree.leaf_of(x),
        }
    }

    /// The histogram bin of `x` (the `h` of [`HistTree::cell_of`]).
    pub fn h_of(&self, x: &[f64]) -> u64 {
        let g = self.grid();
        self.h_axes
            .iter()
            .fold(0u64, |acc, &a| acc * self.bins as u64 + g.bin(x[a]) as u64)
    }

    /// The bin of coordinate value `v` on an H-axis.
    pub fn bin(&self, v: f64) -> usize {
        self.grid().bin(v)
    }

    /// The candidate cells of a user with features `x` and per-feature privacy flags
    /// `private` (its mask row, true = private). Reads `x[j]` only where `private[j]` is
    /// false: the set is a function of public information (card §5.8, Prop. A.1). At a
    /// tree split on a private axis both children are compatible.
    pub fn candidates(&self, x: &[f64], private: &[bool], hc: HCandidates) -> Candidates {
        let mut c = Candidates::default();
        self.candidates_into(x, private, hc, &mut c, &mut Vec::new());
        c
    }

    /// [`HistTree::candidates`] written into `out` (its lists cleared first), with `stack`
    /// as the walk's scratch: a caller that visits many users reuses both and allocates
    /// nothing per user.
    pub fn candidates_into(
        &self,
        x: &[f64],
        private: &[bool],
        hc: HCandidates,
        out: &mut Candidates,
        stack: &mut Vec<usize>,
    ) {
        let g = self.grid();
        out.h.clear();
        out.h.extend(
            self.h_axes
                .iter()
                .map(|&a| (hc == HCandidates::Compatible && !private[a]).then(|| g.bin(x[a]))),
        );
        out.leaves.clear();
        stack.clear();
        stack.push(0);
        // Right child pushed first so leaves come out left to right (ascending ids).
        while let Some(node) = stack.pop() {
            match &self.tree.nodes[node] {
                Node::Leaf { leaf } => out.leaves.push(*leaf),
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    if private[*feature] {
                        stack.push(*right);
                        stack.push(*left);
                    } else if x[*feature] < *threshold {
                        stack.push(*left);
                    } else {
                        stack.push(*right);
                    }
                }
            }
        }
    }

    /// The candidate table of the users `x` (n×d) with mask rows `private(i)`: the true
    /// cell and [`HistTree::candidates`] of each.
    pub fn candidate_table<'m>(
        &self,
        x: &crate::data::Matrix,
        private: impl Fn(usize) -> &'m [bool],
        hc: HCandidates,
    ) -> CandidateTable {
        let mut t = CandidateTable::new(self.bins, self.h_axes.len());
        let (mut c, mut stack) = (Candidates::default(), Vec::new());
        for i in 0..x.n {
            self.candidates_into(x.row(i), private(i), hc, &mut c, &mut stack);
            t.push(
                self.cell_of(x.row(i)),
                c.h.iter().copied(),
                c.leaves.iter().copied(),
            );
        }
        t
    }
}
