//! Leaf estimates of a DiPriMe tree (card docs/methods/diprime.md §3.8), as published and in the DP
//! mode ([`Privacy`]).

use super::budget::Privacy;
use crate::data::Task;
use crate::estimate::LabelBounds;
use crate::privacy::ledger::{self, Subjects};
use crate::privacy::{laplace_release, laplace_vector_release, Domain};
use rand::Rng;

/// The ledger part of a leaf release as published (a noisy mean or noisy class counts).
pub const LEAF_PART: &str = "leaf";
/// The ledger part of the DP mode's noisy leaf sum.
pub const LEAF_SUM_PART: &str = "leaf sum";
/// The ledger part of the DP mode's noisy leaf count.
pub const LEAF_COUNT_PART: &str = "leaf count";

/// The value stored in a leaf with targets `y` (its rows' labels; `rows` are the same rows'
/// indices in the private training sample, charged by the ledger).
///
/// As published ([`Privacy::AsPublished`]):
/// * Empty leaf: `Uniform(y_lo, y_hi)` (regression) or `Uniform(0, 1)` (classification),
///   private or not, with no noise (card §3.8, §9 item 9). A one-row leaf's value has
///   point masses at the bounds where the empty leaf's has none, so the release is not
///   ε-DP for any ε under add/remove neighbours (the audit's `leaf empty vs one row`).
/// * Non-private (`epsilon = None`): the mean (regression) or the fraction of label 1.
/// * Private regression: `clamp(mean + Lap(W / (n ε_ℓ)), y_lo, y_hi)` with `W = y_hi − y_lo`
///   and the exact count `n` (card §3.11 caveat 2; a private quantity of the ledger).
/// * Private classification: `c_k = max(0, #{y = k} + Lap(1/ε_ℓ))` for k ∈ {0, 1}, value
///   `c_1 / (c_0 + c_1)`, or 0.5 when both clip to 0.
///
/// In the DP mode ([`Privacy::Dp`], private only), for both tasks with `[lo, hi]` the label
/// range (`[0, 1]` for classification): a noisy sum `S̃ = Σ (clamp(y) − lo) + Lap(W/(ε_ℓ/2))`
/// and a noisy count `Ñ = n + Lap(1/(ε_ℓ/2))`, value `clamp(lo + S̃ / max(Ñ, 1), lo, hi)`:
/// the same law whether the leaf is empty or not, no count in a scale; ε_ℓ/2 + ε_ℓ/2 under
/// add/remove neighbours, ε_ℓ/2 under replace-one (the count does not move).
///
/// Ledger: each private release charges `rows` in the sampler ([`laplace_release`],
/// [`laplace_vector_release`]), Δ over the scale it drew with: as published Δ = W/n for
/// the mean (the mean's sensitivity over `[lo, hi]` with n rows) or 1 for the class
/// counts (one row moves one count by 1); in the DP mode W for the sum and 1 for the
/// count.
pub fn leaf_value<R: Rng + ?Sized>(
    rng: &mut R,
    y: &[f64],
    rows: &[usize],
    task: Task,
    bounds: LabelBounds,
    epsilon: Option<f64>,
    privacy: Privacy,
) -> f64 {
    let n = y.len();
    let (lo, hi) = match task {
        Task::Regression => (bounds.lo, bounds.hi),
        Task::Classification => (0.0, 1.0),
    };
    if let (Some(eps), Privacy::Dp) = (epsilon, privacy) {
        if n > 0 && crate::privacy::mutants::active("mean-sensitivity-private-n") {
            // Slip: the mean's sensitivity W/n with the private count n.
            let mean = y.iter().map(|v| v.clamp(lo, hi)).sum::<f64>() / n as f64;
            let scale = (hi - lo) / n as f64 / eps;
            ledger::private_quantity("leaf scale n", || {
                "mean sensitivity W/n with the exact private count n of the leaf".into()
            });
            let domain = Domain::Sensitivity((hi - lo) / n as f64);
            let noisy = laplace_release(rng, mean, domain, scale, LEAF_PART, Subjects::Rows(rows));
            return noisy.clamp(lo, hi);
        }
        return dp_leaf(rng, y, rows, (lo, hi), eps);
    }
    if n == 0 {
        return lo + rng.gen::<f64>() * (hi - lo);
    }
    let ones = y.iter().filter(|&&v| v == 1.0).count() as f64;
    let mean = match task {
        Task::Regression => y.iter().sum::<f64>() / n as f64,
        Task::Classification => ones / n as f64,
    };
    let Some(eps) = epsilon else { return mean };
    ledger::private_quantity("leaf empty branch", || {
        "an empty leaf releases Uniform(lo, hi) without noise, a non-empty one a noisy value: the branch reads whether the exact count n is 0".into()
    });
    match task {
        Task::Regression => {
            let range = if crate::privacy::mutants::active("diprime-leaf-scale-from-leaf-range") {
                // Slip: the noise scale from the leaf's own label range.
                ledger::private_quantity("leaf label range", || {
                    "leaf noise scale from max - min of the leaf's private labels".into()
                });
                let (a, b) = y
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                        (a.min(v), b.max(v))
                    });
                b - a
            } else {
                bounds.range()
            };
            let scale = range / (n as f64 * eps);
            ledger::private_quantity("leaf scale n", || {
                "leaf noise scale W/(n eps_l) with the exact private count n of the leaf".into()
            });
            let domain = Domain::Sensitivity(bounds.range() / n as f64);
            laplace_release(rng, mean, domain, scale, LEAF_PART, Subjects::Rows(rows)).clamp(lo, hi)
        }
        Task::Classification => {
            let scale = 1.0 / eps;
            let mut counts = [n as f64 - ones, ones];
            let (domain, who) = (Domain::Sensitivity(1.0), Subjects::Rows(rows));
            laplace_vector_release(rng, &mut counts, domain, scale, LEAF_PART, who);
            let c0 = counts[0].max(0.0);
            let c1 = counts[1].max(0.0);
            if c0 + c1 == 0.0 {
                0.5
            } else {
                c1 / (c0 + c1)
            }
        }
    }
}

/// The DP mode's leaf release (see [`leaf_value`]): labels clamped into `[lo, hi]`, a noisy
/// sum of `y − lo` and a noisy count at ε/2 each, value `clamp(lo + S̃/max(Ñ, 1), lo, hi)`.
fn dp_leaf<R: Rng + ?Sized>(
    rng: &mut R,
    y: &[f64],
    rows: &[usize],
    (lo, hi): (f64, f64),
    eps: f64,
) -> f64 {
    let half = eps / 2.0;
    let w = hi - lo;
    let sum_scale = w / half;
    let count_scale = 1.0 / half;
    let who = Subjects::Rows(rows);
    let sum: f64 = y.iter().map(|v| v.clamp(lo, hi) - lo).sum();
    let noisy_sum = laplace_release(
        rng,
        sum,
        Domain::Sensitivity(w),
        sum_scale,
        LEAF_SUM_PART,
        who,
    );
    let count = y.len() as f64;
    let noisy_count = laplace_release(
        rng,
        count,
        Domain::Sensitivity(1.0),
        count_scale,
        LEAF_COUNT_PART,
        who,
    );
    (lo + noisy_sum / noisy_count.max(1.0)).clamp(lo, hi)
}
