//! Summaries of a metric over repetitions: mean, sample standard deviation, median.

use serde::{Deserialize, Serialize};

/// Mean, sample standard deviation and median of n values (e.g. one method's test MSE or
/// accuracy over the repetitions of an experiment). All in the units of the values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Arithmetic mean; NaN when n = 0.
    pub mean: f64,
    /// Sample standard deviation with n − 1 in the denominator (numpy `ddof=1`);
    /// 0 when n = 1, NaN when n = 0.
    pub std: f64,
    /// Median (mean of the two middle values when n is even); NaN when n = 0.
    pub median: f64,
    /// Number of values.
    pub n: usize,
}

impl Summary {
    /// Standard error of the mean, std / √n (0 when n = 1, NaN when n = 0).
    pub fn std_error(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.std / (self.n as f64).sqrt()
        }
    }
}

/// Summarises `values` (one value per repetition).
///
/// The input is assumed free of NaN (a NaN would propagate into `mean` and `std`, and its
/// place in the sort behind `median` is that of [`f64::total_cmp`]). An empty slice gives
/// NaN statistics with `n = 0` rather than an error, so a method that was not run can
/// still be summarised. The standard deviation is computed in two passes (mean first),
/// which avoids the cancellation of the one-pass formula.
pub fn summarize(values: &[f64]) -> Summary {
    let n = values.len();
    if n == 0 {
        return Summary {
            mean: f64::NAN,
            std: f64::NAN,
            median: f64::NAN,
            n: 0,
        };
    }
    let nf = n as f64;
    let mean = values.iter().sum::<f64>() / nf;
    let std = if n == 1 {
        0.0
    } else {
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        (ss / (nf - 1.0)).sqrt()
    };
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    Summary {
        mean,
        std,
        median,
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // numpy: mean 2.5, std(ddof=1) = sqrt(5/3), median 2.5.
        let s = summarize(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.n, 4);
        assert_eq!(s.mean, 2.5);
        assert!((s.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert_eq!(s.median, 2.5);
        assert!((s.std_error() - (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-15);
        assert_eq!(summarize(&[3.0, 1.0, 2.0]).median, 2.0);
    }

    #[test]
    fn single_and_empty() {
        let s = summarize(&[7.0]);
        assert_eq!((s.mean, s.std, s.median, s.n), (7.0, 0.0, 7.0, 1));
        assert_eq!(s.std_error(), 0.0);
        let e = summarize(&[]);
        assert_eq!(e.n, 0);
        assert!(e.mean.is_nan() && e.std.is_nan() && e.median.is_nan());
        assert!(e.std_error().is_nan());
    }
}
