//! The attribute dict `A` of a DiPriMe node and its propagation to the children
//! (card docs/methods/diprime.md §3.1, §3.7 SPLITRANGE).

use crate::data::Matrix;
use crate::partition::presort::sort_total_order;

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
        self.upper_value(x[self.attr()])
    }

    /// Whether a row whose split-column value is `v` goes to the upper child ([`Split::upper`]
    /// given `x[attr]`).
    #[inline]
    pub fn upper_value(&self, v: f64) -> bool {
        match self {
            Split::Threshold { r, .. } => v >= *r,
            Split::Subset { subset, .. } => subset.contains(&v),
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
        if parts.iter().all(|m| m.n == 0) {
            return Ranges::default();
        }
        // One pass over the rows (row-major), each column folded in row order, part by part.
        let is_cat: Vec<bool> = (0..d).map(|a| categorical.contains(&a)).collect();
        let mut lo = vec![f64::INFINITY; d];
        let mut hi = vec![f64::NEG_INFINITY; d];
        let mut codes: Vec<Vec<f64>> = vec![Vec::new(); d];
        for m in parts {
            for i in 0..m.n {
                for (a, &v) in m.row(i).iter().enumerate() {
                    if is_cat[a] {
                        codes[a].push(v);
                    } else {
                        lo[a] = lo[a].min(v);
                        hi[a] = hi[a].max(v);
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(d);
        for (a, mut codes) in codes.into_iter().enumerate() {
            if is_cat[a] {
                sort_total_order(&mut codes);
                codes.dedup();
                if codes.len() > 1 {
                    out.push((a, AttrRange::Categorical(codes)));
                }
            } else {
                out.push((
                    a,
                    AttrRange::Continuous {
                        lo: lo[a],
                        hi: hi[a],
                    },
                ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// [`Ranges::root`] as it was: each column folded on its own, column by column.
    fn root_by_columns(parts: &[&Matrix], categorical: &[usize]) -> Ranges {
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
                sort_total_order(&mut codes);
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

    #[test]
    fn one_pass_root_equals_the_column_by_column_root() {
        let mut rng = Pcg64::seed_from_u64(6);
        for case in 0..200 {
            let d = 1 + case % 5;
            let mut part = |n: usize| {
                let data: Vec<f64> = (0..n * d)
                    .map(|_| match rng.gen_range(0..4) {
                        0 => [0.0, -0.0][rng.gen_range(0..2)],
                        1 => rng.gen_range(0..3) as f64,
                        _ => rng.gen::<f64>() * 4.0 - 2.0,
                    })
                    .collect();
                Matrix::new(n, d, data)
            };
            let (a, b) = (part(case % 9), part(case % 4));
            let categorical: Vec<usize> = (0..d).filter(|k| (k + case) % 3 == 0).collect();
            for parts in [vec![&a, &b], vec![&a], vec![&b]] {
                let new = Ranges::root(&parts, &categorical);
                let old = root_by_columns(&parts, &categorical);
                // Bit for bit (PartialEq would let -0.0 equal 0.0).
                assert_eq!(format!("{new:?}"), format!("{old:?}"), "case {case}");
            }
        }
    }
}
