//! The training features column-major, built once per fit and shared by its trees: a node
//! scans one feature over its rows in one contiguous column instead of striding through
//! the row-major matrix.

use crate::data::Matrix;
use crate::partition::presort::column_major;

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
