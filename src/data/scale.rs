//! Min-max scaling of features to [0, 1] (LPDT paper App. D.3; docs/methods/lpdt.md §8.3).

use rayon::prelude::*;

use super::Matrix;

/// Per-feature minimum and maximum of a fitted min-max scaler.
#[derive(Debug, Clone, PartialEq)]
pub struct MinMax {
    /// Length-d minima.
    pub lo: Vec<f64>,
    /// Length-d maxima.
    pub hi: Vec<f64>,
}

impl MinMax {
    /// Fits on the rows of `x` (n×d, n ≥ 1).
    pub fn fit(x: &Matrix) -> MinMax {
        MinMax::fit_values(&x.data, x.d)
    }

    /// Fits on row-major values of width `d` (the rows in order, as [`MinMax::fit`]).
    pub fn fit_values(values: &[f64], d: usize) -> MinMax {
        let mut lo = vec![f64::INFINITY; d];
        let mut hi = vec![f64::NEG_INFINITY; d];
        for row in values.chunks_exact(d.max(1)) {
            for (k, &v) in row.iter().enumerate() {
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
            }
        }
        MinMax { lo, hi }
    }

    /// Maps feature k to (x_k − lo_k)/(hi_k − lo_k) in place. A constant feature
    /// (hi = lo) maps to 0, as sklearn's MinMaxScaler does. Rows outside the fitted range
    /// (possible when fitted on the public part) fall outside [0,1].
    pub fn transform(&self, x: &mut Matrix) {
        let d = x.d;
        self.transform_values(&mut x.data, d);
    }

    /// [`MinMax::transform`] on row-major values of width `d`, rows in parallel (each value
    /// is mapped on its own, so the result does not depend on the threads).
    pub fn transform_values(&self, values: &mut [f64], d: usize) {
        if d == 0 {
            return;
        }
        const ROWS_PER_TASK: usize = 4096;
        values.par_chunks_mut(d * ROWS_PER_TASK).for_each(|rows| {
            for row in rows.chunks_exact_mut(d) {
                for (k, v) in row.iter_mut().enumerate() {
                    let w = self.hi[k] - self.lo[k];
                    *v = if w > 0.0 { (*v - self.lo[k]) / w } else { 0.0 };
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_to_unit_interval() {
        let mut x = Matrix::from_rows(&[vec![1.0, 5.0], vec![3.0, 5.0], vec![2.0, 5.0]]);
        let s = MinMax::fit(&x);
        s.transform(&mut x);
        assert_eq!(x.data, vec![0.0, 0.0, 1.0, 0.0, 0.5, 0.0]);
    }
}
