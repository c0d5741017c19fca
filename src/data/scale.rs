//! Min-max scaling of features to [0, 1] (LPDT paper App. D.3; lpdt.md §8.3).

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
        let mut lo = vec![f64::INFINITY; x.d];
        let mut hi = vec![f64::NEG_INFINITY; x.d];
        for i in 0..x.n {
            for (k, &v) in x.row(i).iter().enumerate() {
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
        for (j, v) in x.data.iter_mut().enumerate() {
            let k = j % d;
            let w = self.hi[k] - self.lo[k];
            *v = if w > 0.0 { (*v - self.lo[k]) / w } else { 0.0 };
        }
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
