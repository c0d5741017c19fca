//! The training features column-major, built once per fit and shared by its trees: a node
//! scans one feature over its rows in one contiguous column instead of striding through
//! the row-major matrix.

use crate::data::Matrix;
use crate::partition::presort::{column_major, presort_columns};

/// An n×d matrix stored column-major.
#[derive(Debug, Clone)]
pub struct Columns {
    /// Rows n.
    pub n: usize,
    /// Features d.
    pub d: usize,
    /// `col[f·n + i]` = x_if.
    col: Vec<f64>,
}

impl Columns {
    /// The column-major copy of the n×d matrix `x`.
    pub fn new(x: &Matrix) -> Columns {
        Columns {
            n: x.n,
            d: x.d,
            col: column_major(x),
        }
    }

    /// Feature f's column, x_0f … x_(n−1)f.
    ///
    /// # Panics
    /// If `f ≥ d`.
    #[inline]
    pub fn column(&self, f: usize) -> &[f64] {
        &self.col[f * self.n..(f + 1) * self.n]
    }

    /// All columns, one after the other (n·d values).
    pub fn as_slice(&self) -> &[f64] {
        &self.col
    }
}

/// The training features as the growers of a fit read them, shared by its trees: the n×d
/// matrix column-major and, when asked, every feature's rows presorted once.
#[derive(Debug, Clone)]
pub struct Presorted {
    /// The features column-major.
    pub cols: Columns,
    /// When presorted: `order[f·n .. (f+1)·n]` holds the rows sorted by (x_f under
    /// `f64::total_cmp`, row); empty otherwise.
    order: Vec<u32>,
}

impl Presorted {
    /// The column-major copy of the n×d matrix `x`, with each feature's rows presorted
    /// when `presort`.
    ///
    /// # Panics
    /// If n ≥ 2^32.
    pub fn new(x: &Matrix, presort: bool) -> Presorted {
        let n = x.n;
        assert!(n <= u32::MAX as usize, "forest: at most 2^32 rows");
        let cols = Columns::new(x);
        let order = if presort {
            // The stable presort orders by total_cmp with ties in row order, except that it
            // puts every NaN last in row order: a column with a NaN is sorted here instead.
            let mut order: Vec<u32> = presort_columns(cols.as_slice(), n)
                .into_iter()
                .map(|i| i as u32)
                .collect();
            for f in 0..cols.d {
                let c = cols.column(f);
                if c.iter().any(|v| v.is_nan()) {
                    order[f * n..(f + 1) * n].sort_unstable_by(|&a, &b| {
                        c[a as usize].total_cmp(&c[b as usize]).then(a.cmp(&b))
                    });
                }
            }
            order
        } else {
            Vec::new()
        };
        Presorted { cols, order }
    }

    /// The m rows `i` with `keep(i)` in each feature's presorted order, feature f at
    /// `f·m .. (f+1)·m` (empty when not presorted).
    ///
    /// # Panics
    /// If `keep` does not hold for exactly m rows.
    pub fn lists_of(&self, m: usize, keep: impl Fn(usize) -> bool) -> Vec<u32> {
        if self.order.is_empty() {
            return Vec::new();
        }
        // Branch-free (which rows are kept is a coin flip to the predictor): every row is
        // written at the next slot, which advances only past kept rows. A dropped row after
        // feature f's last kept one lands on feature f + 1's first slot, written again
        // after; the spare slot at the end takes the last feature's.
        let mut lists = vec![0u32; self.cols.d * m + 1];
        let mut at = 0;
        for &i in &self.order {
            lists[at] = i;
            at += usize::from(keep(i as usize));
        }
        assert_eq!(at, self.cols.d * m, "lists_of: keep holds for m rows");
        lists.truncate(self.cols.d * m);
        lists
    }
}
