//! Leaf estimates of a DiPriMe tree (card diprime.md §3.8).

use crate::data::Task;
use crate::estimate::LabelBounds;
use crate::privacy::laplace;
use rand::Rng;

/// The value stored in a leaf with targets `y` (its rows' labels).
///
/// * Empty leaf: `Uniform(y_lo, y_hi)` (regression) or `Uniform(0, 1)` (classification),
///   private or not, with no noise (card §3.8, §9 item 9).
/// * Non-private (`epsilon = None`): the mean (regression) or the fraction of label 1.
/// * Private regression: `clamp(mean + Lap(W / (n ε_ℓ)), y_lo, y_hi)` with `W = y_hi − y_lo`
///   and the exact count `n` (card §3.11 caveat 2).
/// * Private classification: `c_k = max(0, #{y = k} + Lap(1/ε_ℓ))` for k ∈ {0, 1}, value
///   `c_1 / (c_0 + c_1)`, or 0.5 when both clip to 0.
pub fn leaf_value<R: Rng + ?Sized>(
    rng: &mut R,
    y: &[f64],
    task: Task,
    bounds: LabelBounds,
    epsilon: Option<f64>,
) -> f64 {
    let n = y.len();
    let (lo, hi) = match task {
        Task::Regression => (bounds.lo, bounds.hi),
        Task::Classification => (0.0, 1.0),
    };
    if n == 0 {
        return lo + rng.gen::<f64>() * (hi - lo);
    }
    let ones = y.iter().filter(|&&v| v == 1.0).count() as f64;
    let mean = match task {
        Task::Regression => y.iter().sum::<f64>() / n as f64,
        Task::Classification => ones / n as f64,
    };
    let Some(eps) = epsilon else { return mean };
    match task {
        Task::Regression => (mean + laplace(rng, bounds.range() / (n as f64 * eps))).clamp(lo, hi),
        Task::Classification => {
            let c0 = (n as f64 - ones + laplace(rng, 1.0 / eps)).max(0.0);
            let c1 = (ones + laplace(rng, 1.0 / eps)).max(0.0);
            if c0 + c1 == 0.0 {
                0.5
            } else {
                c1 / (c0 + c1)
            }
        }
    }
}
