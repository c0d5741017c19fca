//! Synthetic data of the papers.

use super::{Dataset, Matrix, Task};
use rand::Rng;
use rand_distr::{Distribution, Normal};

/// How the 0.025 of the LPDT synthetic design X ~ N(0.5, 0.025) is read (lpdt.md §8.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XScale {
    /// 0.025 is the variance (sd ≈ 0.158): the card's reading and the default.
    Variance,
    /// 0.025 is the standard deviation.
    Sd,
}

/// n draws of the LPDT synthetic model (LPDT paper §4.1; lpdt.md §8.2): d = 1,
/// X ~ N(0.5, 0.025) redrawn until it falls in [0, 1] (the card's [choice]),
/// Y = sin(16X) + e with e ~ N(0, 1). Returns an n×1 data set in the order drawn.
pub fn lpdt_sine<R: Rng + ?Sized>(name: &str, n: usize, x_scale: XScale, rng: &mut R) -> Dataset {
    let sd = match x_scale {
        XScale::Variance => 0.025f64.sqrt(),
        XScale::Sd => 0.025,
    };
    let xdist = Normal::new(0.5, sd).expect("valid normal");
    let noise = Normal::new(0.0, 1.0).expect("valid normal");
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for _ in 0..n {
        let x = loop {
            let v: f64 = xdist.sample(rng);
            if (0.0..=1.0).contains(&v) {
                break v;
            }
        };
        xs.push(x);
        ys.push((16.0 * x).sin() + noise.sample(rng));
    }
    Dataset {
        name: name.to_string(),
        x: Matrix::new(n, 1, xs),
        y: ys,
        task: Task::Regression,
        fixed_public: 0,
    }
}

/// The true regression function of [`lpdt_sine`], for plots and checks.
pub fn lpdt_sine_mean(x: f64) -> f64 {
    (16.0 * x).sin()
}
