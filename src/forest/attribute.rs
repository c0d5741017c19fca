//! Candidate attributes and the choice among them (card docs/methods/diprime.md §3.6 `split_count`).

use super::ranges::Split;
use crate::privacy::ledger::Subjects;
use crate::privacy::{exponential_release, permute_and_flip_release, Normalisation};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// How a node chooses among its candidate splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AttributeMechanism {
    /// The smallest within-child squared error, first on ties (Median forest; non-private).
    Argmin,
    /// A uniformly random candidate (DiPriMe with K = 1, DP-ERT); reads no data.
    Uniform,
    /// The exponential mechanism on −mse with sensitivity 4B∞²/n (DiPriMeExp).
    Exponential,
    /// Permute-and-flip on −mse with sensitivity 4B∞²/n (DiPriMeFlip).
    PermuteFlip,
}

impl AttributeMechanism {
    /// Whether the choice spends budget (EM, PF), so the split budget is shared with it.
    pub fn spends(self) -> bool {
        matches!(
            self,
            AttributeMechanism::Exponential | AttributeMechanism::PermuteFlip
        )
    }
}

/// Running Σ 1, Σ y, Σ y² of a set of rows, in the order they are added.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: usize,
    s: f64,
    s2: f64,
}

impl Moments {
    /// Population variance times the count (Σ (y − ȳ)²); 0 for no rows.
    fn sse(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        (self.s2 - self.s * self.s / self.n as f64).max(0.0)
    }
}

/// The (upper, lower) children's moments of `split` over `rows`, each summed in row order;
/// `col[i]` is row i's value of the split column.
fn child_moments(col: &[f64], y: &[f64], rows: &[usize], split: &Split) -> (Moments, Moments) {
    let (mut up, mut low) = (Moments::default(), Moments::default());
    for &i in rows {
        // Branch-free (the side of a median split is a coin flip to the predictor): each
        // child adds the label or +0.0, and a sum that starts at +0.0 is unchanged by
        // adding ±0.0, so each child's sums are bit for bit those over its own rows.
        let (v, is_up) = (y[i], split.upper_value(col[i]));
        let (vu, vl) = if is_up { (v, 0.0) } else { (0.0, v) };
        up.n += usize::from(is_up);
        up.s += vu;
        up.s2 += vu * vu;
        low.n += usize::from(!is_up);
        low.s += vl;
        low.s2 += vl * vl;
    }
    (up, low)
}

/// The score of a candidate split (card §3.6 step 3): the size-weighted within-child
/// population variance of the target `(n_up Var(y_up) + n_low Var(y_low)) / n`; the
/// parent's variance when one child is empty; `40 B∞²` when both are (n = 0).
/// With `categorical_bug` a subset split is scored as the reference code does: both
/// "children" are the rows in `C`, giving `2 n_C Var(y_C) / n`, and `40 B∞²` when
/// `n_C = 0`. `col[i]` is row i's value of the split column (`col` indexed like `y`).
pub fn split_mse(
    col: &[f64],
    y: &[f64],
    rows: &[usize],
    split: &Split,
    b_inf: f64,
    categorical_bug: bool,
) -> f64 {
    let n = rows.len();
    let worst = 40.0 * b_inf * b_inf;
    if n == 0 {
        return worst;
    }
    let (up, low) = child_moments(col, y, rows, split);
    if categorical_bug && matches!(split, Split::Subset { .. }) {
        return if up.n == 0 {
            worst
        } else {
            2.0 * up.sse() / n as f64
        };
    }
    if up.n == 0 || low.n == 0 {
        // The non-empty child holds every row, summed in the same order.
        let all = if up.n == 0 { low } else { up };
        return all.sse() / n as f64;
    }
    (up.sse() + low.sse()) / n as f64
}

/// The within-child sum of squared errors of a candidate split, Σ_child Σ (y − ȳ_child)²
/// (n times [`split_mse`] without the categorical bug; 0 for no rows). One row added or
/// removed moves it by at most (2B∞)² = 4B∞² (the DP mode's attribute score; no node count
/// enters it). `col[i]` is row i's value of the split column.
pub fn split_sse(col: &[f64], y: &[f64], rows: &[usize], split: &Split) -> f64 {
    let (up, low) = child_moments(col, y, rows, split);
    up.sse() + low.sse()
}

/// What the errors handed to [`choose`] are, which sets the sensitivity the choice is
/// calibrated to and the one it is charged at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreForm {
    /// [`split_mse`], a mean over the node's n rows: calibrated to 4B∞²/n with the exact n
    /// (card §3.6, §3.11). In n·mse = SSE terms the draw's coefficient is ε/(8B∞²) on a
    /// score of sensitivity 4B∞², so it spends ε — unless `subset_bug`: a categorical
    /// candidate scored by the reference's bug jumps from 40B∞² to 0 when one row enters
    /// an empty C, a move of 40B∞² in mse (card §3.6 step 3).
    MeanError {
        /// The categorical bug is on and a candidate is a subset split.
        subset_bug: bool,
    },
    /// [`split_sse`], calibrated to its sensitivity 4B∞² (the DP mode).
    SumError,
}

/// The ledger part of an attribute choice.
pub const ATTRIBUTE_PART: &str = "attribute choice";

/// The index of the chosen candidate among the errors `mse` (card §3.6 step 4) of a node
/// whose rows are `rows` (indices into the private training sample). `form` says what the
/// errors are ([`ScoreForm`]): means, calibrated to the sensitivity `4B∞²/n` with the
/// node's exact row count n (the reference; card §3.11), or sums, calibrated to 4B∞².
/// `b_inf` is the largest absolute target bound, `epsilon` the node's ε_a. An empty node
/// chooses uniformly. `floors`: the reference's unshifted weights with the uniform fallback
/// on underflow (EM, no floor) and PF's `+1e-12`.
///
/// Ledger: a private choice (EM, PF) among K > 1 candidates of a non-empty node charges
/// `rows`, at the draw ([`exponential_release`], [`permute_and_flip_release`]), 2cΔ for
/// the coefficient c = ε/(2·sensitivity used) of the draw and the errors' sensitivity Δ
/// under add/remove neighbours ([`ScoreForm`]).
#[allow(clippy::too_many_arguments)]
pub fn choose<R: Rng + ?Sized>(
    rng: &mut R,
    mech: AttributeMechanism,
    mse: &[f64],
    rows: &[usize],
    b_inf: f64,
    epsilon: f64,
    floors: bool,
    form: ScoreForm,
) -> usize {
    let k = mse.len();
    if k == 1 {
        return 0;
    }
    let n = rows.len();
    let nf = n as f64;
    let four_b2 = 4.0 * b_inf * b_inf;
    // The sensitivity the draw is calibrated to.
    let used = match form {
        ScoreForm::MeanError { .. } => four_b2 / nf,
        ScoreForm::SumError => four_b2,
    };
    // The errors' sensitivity under add/remove neighbours.
    let real = match form {
        ScoreForm::MeanError { subset_bug: false } => four_b2 / nf,
        ScoreForm::MeanError { subset_bug: true } => 10.0 * four_b2,
        ScoreForm::SumError => four_b2,
    };
    let who = (ATTRIBUTE_PART, Subjects::Rows(rows));
    match mech {
        AttributeMechanism::Argmin => {
            let best = mse.iter().cloned().fold(f64::INFINITY, f64::min);
            mse.iter().position(|&m| m == best).unwrap_or(0)
        }
        AttributeMechanism::Uniform => rng.gen_range(0..k),
        _ if n == 0 || b_inf == 0.0 => rng.gen_range(0..k),
        AttributeMechanism::Exponential => {
            let scores: Vec<f64> = mse.iter().map(|m| -m).collect();
            let norm = if floors {
                Normalisation::Floored(0.0)
            } else {
                Normalisation::LogSumExp
            };
            exponential_release(rng, &scores, used, epsilon, None, norm, real, who)
        }
        AttributeMechanism::PermuteFlip => {
            let scores: Vec<f64> = mse.iter().map(|m| -m).collect();
            let floor = if floors { 1e-12 } else { 0.0 };
            permute_and_flip_release(rng, &scores, (used, epsilon, floor), real, who)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Σ (y − ȳ)² of `y[rows]` as it was computed before the fused pass: one pass per set.
    fn sse_alone(y: &[f64], rows: impl Iterator<Item = usize>) -> (usize, f64) {
        let (mut n, mut s, mut s2) = (0usize, 0.0, 0.0);
        for i in rows {
            n += 1;
            s += y[i];
            s2 += y[i] * y[i];
        }
        if n == 0 {
            return (0, 0.0);
        }
        (n, (s2 - s * s / n as f64).max(0.0))
    }

    /// [`split_mse`] as it was: the upper rows, the lower rows and (one side empty) all rows
    /// summed in separate passes.
    fn split_mse_by_passes(
        col: &[f64],
        y: &[f64],
        rows: &[usize],
        split: &Split,
        b_inf: f64,
        bug: bool,
    ) -> f64 {
        let n = rows.len();
        let worst = 40.0 * b_inf * b_inf;
        if n == 0 {
            return worst;
        }
        let up = rows.iter().cloned().filter(|&i| split.upper_value(col[i]));
        let (n_up, sse_up) = sse_alone(y, up);
        if bug && matches!(split, Split::Subset { .. }) {
            return if n_up == 0 {
                worst
            } else {
                2.0 * sse_up / n as f64
            };
        }
        let low = rows.iter().cloned().filter(|&i| !split.upper_value(col[i]));
        let (n_low, sse_low) = sse_alone(y, low);
        if n_up == 0 || n_low == 0 {
            return sse_alone(y, rows.iter().cloned()).1 / n as f64;
        }
        (sse_up + sse_low) / n as f64
    }

    #[test]
    fn one_pass_scores_equal_the_scores_of_separate_passes() {
        let mut rng = Pcg64::seed_from_u64(4);
        for case in 0..500 {
            let n = 30;
            let col: Vec<f64> = (0..n).map(|_| rng.gen_range(0..4) as f64).collect();
            let y: Vec<f64> = (0..n).map(|_| rng.gen::<f64>()).collect();
            let mut rows: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.7)).collect();
            if case % 7 == 0 {
                rows.reverse();
            }
            let split = if case % 2 == 0 {
                Split::Threshold {
                    attr: 0,
                    r: rng.gen_range(0..5) as f64,
                }
            } else {
                Split::Subset {
                    attr: 0,
                    subset: vec![rng.gen_range(0..4) as f64],
                    rest: vec![],
                }
            };
            for bug in [false, true] {
                assert_eq!(
                    split_mse(&col, &y, &rows, &split, 1.0, bug).to_bits(),
                    split_mse_by_passes(&col, &y, &rows, &split, 1.0, bug).to_bits(),
                    "case {case}"
                );
            }
            let (up, low) = child_moments(&col, &y, &rows, &split);
            let passes = sse_alone(
                y.as_slice(),
                rows.iter().cloned().filter(|&i| split.upper_value(col[i])),
            )
            .1 + sse_alone(
                y.as_slice(),
                rows.iter().cloned().filter(|&i| !split.upper_value(col[i])),
            )
            .1;
            assert_eq!(
                split_sse(&col, &y, &rows, &split).to_bits(),
                passes.to_bits()
            );
            assert_eq!(up.n + low.n, rows.len());
        }
    }
}
