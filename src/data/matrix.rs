//! A dense row-major feature matrix.

/// An n×d matrix of `f64` features stored row-major: entry (i, k) is `data[i * d + k]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matrix {
    /// Number of rows (samples).
    pub n: usize,
    /// Number of columns (features).
    pub d: usize,
    /// Row-major values, length n·d.
    pub data: Vec<f64>,
}

impl Matrix {
    /// Builds an n×d matrix from row-major values.
    ///
    /// # Panics
    /// If `data.len() != n * d`.
    pub fn new(n: usize, d: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), n * d, "matrix data length must be n*d");
        Matrix { n, d, data }
    }

    /// Builds a matrix from a slice of equally long rows (d = length of the first row; 0×0 when empty).
    pub fn from_rows(rows: &[Vec<f64>]) -> Self {
        let d = rows.first().map_or(0, |r| r.len());
        let mut data = Vec::with_capacity(rows.len() * d);
        for r in rows {
            assert_eq!(r.len(), d, "all rows must have the same length");
            data.extend_from_slice(r);
        }
        Matrix {
            n: rows.len(),
            d,
            data,
        }
    }

    /// Row i as a slice of length d.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Entry (i, k).
    #[inline]
    pub fn get(&self, i: usize, k: usize) -> f64 {
        self.data[i * self.d + k]
    }

    /// The rows at `idx`, in that order, as a new |idx|×d matrix.
    pub fn select_rows(&self, idx: &[usize]) -> Matrix {
        let mut data = Vec::with_capacity(idx.len() * self.d);
        for &i in idx {
            data.extend_from_slice(self.row(i));
        }
        Matrix {
            n: idx.len(),
            d: self.d,
            data,
        }
    }
}
