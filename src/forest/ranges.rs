//! The attribute dict `A` of a DiPriMe node and its propagation to the children
//! (card docs/methods/diprime.md §3.1, §3.7 SPLITRANGE).

use crate::data::Matrix;

/// The range of one attribute at a node.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrRange {
    /// A continuous attribute's interval `[lo, hi]`.
    Continuous {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// A categorical attribute's category codes at this node, in stored order (sorted at
    /// the root).
    Categorical(Vec<f64>),
}

/// The attributes still splittable at a node, in the root's order (column order):
/// `(column index, range)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ranges(pub Vec<(usize, AttrRange)>);

/// A split of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// `x[attr] ≥ r` goes to the upper child, `x[attr] < r` to the lower one.
    Threshold {
        /// Column.
        attr: usize,
        /// Threshold r.
        r: f64,
    },
    /// `x[attr] ∈ subset` (the set `C` of card §3.5) goes to the upper child, every other
    /// value (including codes unseen when the ranges were taken) to the lower one.
    Subset {
        /// Column.
        attr: usize,
        /// The codes of `C`.
        subset: Vec<f64>,
        /// The codes of `S ∖ C` (the lower child's list).
        rest: Vec<f64>,
    },
}

impl Split {
    /// The split column.
    pub fn attr(&self) -> usize {
        match self {
            Split::Threshold { attr, .. } | Split::Subset { attr, .. } => *attr,
        }
    }

    /// Whether a row with features `x` goes to the upper (`x_a ≥ r`, resp. `x_a ∈ C`)
    /// child; used both for training rows and for routing test rows (card §3.7).
    #[inline]
    pub fn upper(&self, x: &[f64]) -> bool {
        match self {
            Split::Threshold { attr, r } => x[*attr] >= *r,
            Split::Subset { attr, subset, .. } => subset.contains(&x[*attr]),
        }
    }
}

impl Ranges {
    /// The root dict of `rows` (the rows of every matrix in `parts`, d columns):
    /// `[min, max]` of each continuous column and the sorted distinct codes of each column
    /// in `categorical` (card §3.1: the reference takes them over train and test rows,
    /// not privatised; see [`crate::forest`] on what is read in the clear). A categorical
    /// column with a single code is left out (it cannot be split), as is every column of
    /// an empty sample.
    pub fn root(parts: &[&Matrix], categorical: &[usize]) -> Ranges {
        let d = parts.first().map_or(0, |m| m.d);
        let mut out = Vec::with_capacity(d);
        for a in 0..d {
            let values = || {
                parts
                    .iter()
                    .flat_map(|m| (0..m.n).map(move |i| m.get(i, a)))
            };
            if values().next().is_none() {
                continue;
            }
            if categorical.contains(&a) {
                let mut codes: Vec<f64> = values().collect();
                codes.sort_by(f64::total_cmp);
                codes.dedup();
                if codes.len() > 1 {
                    out.push((a, AttrRange::Categorical(codes)));
                }
            } else {
                let lo = values().fold(f64::INFINITY, f64::min);
                let hi = values().fold(f64::NEG_INFINITY, f64::max);
                out.push((a, AttrRange::Continuous { lo, hi }));
            }
        }
        Ranges(out)
    }

    /// Whether no attribute is left (the node becomes a leaf, card §3.3).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The range of column `attr`, if it is still splittable.
    pub fn get(&self, attr: usize) -> Option<&AttrRange> {
        self.0.iter().find(|(a, _)| *a == attr).map(|(_, r)| r)
    }

    /// SPLITRANGE (card §3.7): the (upper, lower) children's dicts after `split`.
    /// Continuous `r`: upper `[r, hi]`, lower `[lo, r]`; a child whose range is empty
    /// (`hi ≤ r` for the upper, `lo ≥ r` for the lower) drops the attribute. Categorical
    /// `(C, S∖C)`: upper `C`, lower `S∖C`; a child left with one category drops it. Other
    /// attributes keep their ranges.
    pub fn children(&self, split: &Split) -> (Ranges, Ranges) {
        let mut up = Vec::with_capacity(self.0.len());
        let mut low = Vec::with_capacity(self.0.len());
        for (a, range) in &self.0 {
            if *a != split.attr() {
                up.push((*a, range.clone()));
                low.push((*a, range.clone()));
                continue;
            }
            match (range, split) {
                (AttrRange::Continuous { lo, hi }, Split::Threshold { r, .. }) => {
                    if hi > r {
                        up.push((*a, AttrRange::Continuous { lo: *r, hi: *hi }));
                    }
                    if lo < r {
                        low.push((*a, AttrRange::Continuous { lo: *lo, hi: *r }));
                    }
                }
                (AttrRange::Categorical(_), Split::Subset { subset, rest, .. }) => {
                    if subset.len() > 1 {
                        up.push((*a, AttrRange::Categorical(subset.clone())));
                    }
                    if rest.len() > 1 {
                        low.push((*a, AttrRange::Categorical(rest.clone())));
                    }
                }
                _ => unreachable!("a split matches its attribute's kind"),
            }
        }
        (Ranges(up), Ranges(low))
    }
}
