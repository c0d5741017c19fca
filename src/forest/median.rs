//! Split points of one attribute at a node: the continuous private median (card
//! docs/methods/diprime.md §3.4) and the categorical binary-subset median (§3.5), under the four median
//! mechanisms of the engine.

use super::ranges::Split;
use super::ForestError;
use crate::partition::presort::sort_total_order;
use crate::privacy::ledger::{self, exponential_epsilon, Subjects};
use crate::privacy::{
    exponential_log_weights, exponential_probabilities, exponential_release,
    permute_and_flip_release, Normalisation,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// How a node draws its split point on a candidate attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MedianMechanism {
    /// The exact median (Median forest; non-private).
    Exact,
    /// The exponential mechanism with score −|n_L − n_R| and Lebesgue base measure
    /// (DiPriMe, DiPriMeExp).
    Exponential,
    /// Permute-and-flip over the same bins (DiPriMeFlip; see [`PfWidth`]).
    PermuteFlip,
    /// A threshold drawn uniformly on the node's range, a uniformly random partition for a
    /// categorical attribute (DP-ERT, §4.3); reads no data.
    Uniform,
}

/// How permute-and-flip weighs a bin's width (card §3.4, §9 item 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfWidth {
    /// The reference code: score `2 ln w_i − |2i − M|`, so the width enters as `w_i^ε`.
    Power,
    /// The width enters linearly, as in the exponential mechanism's base measure:
    /// acceptance `(w_i / w_*) · e^{−ε(|2i−M| − |2i*−M|)/2}`.
    Linear,
}

/// The options of a median draw that are reference quirks (card §9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianOptions {
    /// The weight floors `+1e-12` (continuous EM, PF) and `+1e-6` (categorical EM) of the
    /// reference code (true), or exact log-sum-exp weights and PF without floor (false).
    pub floors: bool,
    /// PF width weighting.
    pub pf_width: PfWidth,
    /// The classification code's `ln(w + 1e-12)` for zero-width bins under PF (true; the
    /// regression code uses `ln 0 = −∞`). Only read when `floors`.
    pub pf_log_width_floor: bool,
    /// The sensitivity the score −|n_L − n_R| is calibrated to: 1 as published, 2 in the
    /// DP mode ([`super::budget::median_score_sensitivity`]).
    pub score_sensitivity: f64,
}

/// The ledger part of a median draw.
pub const MEDIAN_PART: &str = "median";

/// Charges the node's rows `rows` (indices into the private training sample) a median
/// draw that no mechanism call makes: the continuous median's shortcut for M ≤ 1 values,
/// Uniform(lo, hi), which is the exponential mechanism's law there (both bins weigh the
/// same per unit width), drawn without calling it. The weights it stands for are
/// `coefficient · score` for the score −|n_L − n_R|, which one added or removed row moves
/// by at most 1, so it spends [`exponential_epsilon`]`(coefficient, 1)`. Every median that
/// a mechanism draws is charged in the sampler ([`exponential_release`],
/// [`permute_and_flip_release`]).
fn charge_median(rows: &[usize], coefficient: f64) {
    ledger::charge(
        MEDIAN_PART,
        Subjects::Rows(rows),
        exponential_epsilon(coefficient, 1.0),
        0.0,
    );
}

/// The exact median of `v` (mean of the two middle values for even length, the lower
/// first); `v` non-empty. Found by selection in the order of `f64::total_cmp`, linear in
/// `v.len()`; `v` is left permuted. The same value as sorting `v` and reading the middle.
pub fn exact_median(v: &mut [f64]) -> f64 {
    let m = v.len();
    let (below, &mut upper, _) = v.select_nth_unstable_by(m / 2, f64::total_cmp);
    if m % 2 == 1 {
        upper
    } else {
        // The (m/2 − 1)-th order statistic: the largest of the values below position m/2.
        let lower = below
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .expect("an even, non-empty v has a value below its middle");
        0.5 * (lower + upper)
    }
}

/// The probabilities of the `M + 1` bins of the EM median (card §3.4) for the sorted
/// values `sorted` in `[lo, hi]`: bin `i` (`I_0 = [lo, x_(1)]`, `I_i = [x_(i), x_(i+1)]`,
/// `I_M = [x_(M), hi]`) has weight `w_i · exp(−ε |2i − M| / 2)` (`+1e-12` with floors),
/// normalised. Returns (bin edges `e_0..e_{M+1}`, probabilities).
pub fn em_bin_probabilities(
    sorted: &[f64],
    lo: f64,
    hi: f64,
    epsilon: f64,
    floors: bool,
) -> (Vec<f64>, Vec<f64>) {
    let (edges, widths, scores) = em_bins(sorted, lo, hi);
    let lw = exponential_log_weights(&scores, 1.0, epsilon, Some(&widths));
    let norm = if floors {
        Normalisation::Floored(1e-12)
    } else {
        Normalisation::LogSumExp
    };
    (edges, exponential_probabilities(&lw, norm))
}

/// The M + 1 bins of the EM median over the sorted values `sorted` in `[lo, hi]`: their
/// edges `e_0..e_{M+1}`, widths (the base weights) and scores −|2i − M|.
fn em_bins(sorted: &[f64], lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let m = sorted.len();
    let mut edges = Vec::with_capacity(m + 2);
    edges.push(lo);
    edges.extend_from_slice(sorted);
    edges.push(hi);
    let widths: Vec<f64> = edges.windows(2).map(|w| (w[1] - w[0]).max(0.0)).collect();
    let scores: Vec<f64> = (0..=m)
        .map(|i| -((2 * i) as f64 - m as f64).abs())
        .collect();
    (edges, widths, scores)
}

/// The private (or exact, or uniform) threshold on a continuous attribute with node values
/// `v` (M of them) and range `[lo, hi]` (card §3.4). `M ≤ 1` gives `Uniform(lo, hi)` for
/// every mechanism (the reference's data-dependent special case; with M ≤ 1 the
/// exponential mechanism's law is uniform too).
///
/// Ledger: a private draw (exponential, permute-and-flip) charges the ε its log-weights
/// spent on the count score to `rows`, the node's rows in the private training sample,
/// in the sampler (card §3.4: coefficient ε/(2·`score_sensitivity`) on a count score of
/// sensitivity 1 for EM; for PF as the reference scores it, coefficient 1/2 on scores
/// that carry ε times the count, sensitivity ε); the M ≤ 1 shortcut as its mechanism
/// ([`charge_median`]); exact and uniform draws charge nothing.
pub fn continuous_threshold<R: Rng + ?Sized>(
    rng: &mut R,
    v: &mut [f64],
    (lo, hi): (f64, f64),
    mech: MedianMechanism,
    epsilon: f64,
    opt: &MedianOptions,
    rows: &[usize],
) -> f64 {
    let uniform = |rng: &mut R| lo + rng.gen::<f64>() * (hi - lo);
    let who = (MEDIAN_PART, Subjects::Rows(rows));
    if v.len() <= 1 || mech == MedianMechanism::Uniform {
        match mech {
            MedianMechanism::Exponential => {
                charge_median(rows, epsilon / (2.0 * opt.score_sensitivity))
            }
            // The PF scores carry ε·|2i − M| accepted as exp((s − s*)/2).
            MedianMechanism::PermuteFlip => charge_median(rows, epsilon / 2.0),
            MedianMechanism::Exact | MedianMechanism::Uniform => {}
        }
        return uniform(rng);
    }
    if mech == MedianMechanism::Exact {
        return exact_median(v);
    }
    // Values equal under total_cmp are the same bits, so any sort gives the same list.
    sort_total_order(v);
    let m = v.len();
    let bin = match mech {
        MedianMechanism::Exponential => {
            let (edges, widths, scores) = em_bins(v, lo, hi);
            let norm = if opt.floors {
                Normalisation::Floored(1e-12)
            } else {
                Normalisation::LogSumExp
            };
            let eps = epsilon / opt.score_sensitivity;
            let i = exponential_release(rng, &scores, 1.0, eps, Some(&widths), norm, 1.0, who);
            return edges[i] + rng.gen::<f64>() * (edges[i + 1] - edges[i]).max(0.0);
        }
        MedianMechanism::PermuteFlip => {
            let edges: Vec<f64> = std::iter::once(lo)
                .chain(v.iter().cloned())
                .chain(std::iter::once(hi))
                .collect();
            let factor = match opt.pf_width {
                PfWidth::Power => epsilon,
                PfWidth::Linear => 1.0,
            };
            let scores: Vec<f64> = edges
                .windows(2)
                .enumerate()
                .map(|(i, w)| {
                    let width = (w[1] - w[0]).max(0.0);
                    let lw = if opt.floors && opt.pf_log_width_floor {
                        (width + 1e-12).ln()
                    } else {
                        width.ln()
                    };
                    // Acceptance exp((s_i − s*)/2) with s_i = 2·factor·ln w_i − ε|2i − M|.
                    let s = 2.0 * factor * lw - epsilon * ((2 * i) as f64 - m as f64).abs();
                    if s.is_nan() {
                        f64::NEG_INFINITY
                    } else {
                        s
                    }
                })
                .collect();
            let floor = if opt.floors { 1e-12 } else { 0.0 };
            // Acceptance exp((s − s*)/2): coefficient 1/2 on scores that one row moves by ε.
            let i = permute_and_flip_release(rng, &scores, (1.0, 1.0, floor), epsilon, who);
            (edges[i], edges[i + 1])
        }
        MedianMechanism::Exact | MedianMechanism::Uniform => unreachable!(),
    };
    bin.0 + rng.gen::<f64>() * (bin.1 - bin.0).max(0.0)
}

/// The largest category list whose `2^(m−1) − 1` partitions are enumerated (card §3.5:
/// the data sets reach m = 12).
pub const MAX_CATEGORIES: usize = 16;

/// Partition `j` (1 ≤ j ≤ 2^(m−1) − 1) of the category list `cats` (m codes) in the
/// reference encoding (card §3.5): write `j` in m binary digits, most significant first;
/// digit k set ⇔ `cats[k] ∈ C`. The leading digit is 0, so `cats[0]` is never in C.
/// Returns `(C, S ∖ C)`.
pub fn partition_of(j: usize, cats: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let m = cats.len();
    let mut c = Vec::new();
    let mut rest = Vec::new();
    for (k, &code) in cats.iter().enumerate() {
        if j >> (m - 1 - k) & 1 == 1 {
            c.push(code);
        } else {
            rest.push(code);
        }
    }
    (c, rest)
}

/// The row count `n_C` of every partition `j` (0 ≤ j ≤ 2^(m−1) − 1, in the encoding of
/// [`partition_of`]) from the per-category counts `c` (m ≥ 1 of them): by subset sums, j's
/// count is that of j without its lowest set digit plus the count of the category that digit
/// stands for, O(1) per partition. Exact integers, so the same counts as summing each
/// partition's categories afresh.
fn partition_counts(c: &[usize]) -> Vec<usize> {
    let m = c.len();
    let count = (1usize << (m - 1)) - 1;
    let mut n_c = vec![0usize; count + 1];
    for j in 1..=count {
        let low = j.trailing_zeros() as usize;
        n_c[j] = n_c[j & (j - 1)] + c[m - 1 - low];
    }
    n_c
}

/// The categorical median (card §3.5): node values `v`, category list `cats` (m ≥ 2).
/// Scores `−|2 n_C − M|` over the `2^(m−1) − 1` partitions; exact = the first minimiser,
/// EM with weights `e^{−ε|2n_C−M|/2}` (`+1e-6` with floors), PF (`+1e-12` with floors),
/// uniform = a uniformly random partition (DP-ERT). Private draws are calibrated to
/// `opt.score_sensitivity` and charge `rows` as [`continuous_threshold`] does.
///
/// # Errors
/// More than [`MAX_CATEGORIES`] categories (attribute `attr`).
#[allow(clippy::too_many_arguments)]
pub fn categorical_split<R: Rng + ?Sized>(
    rng: &mut R,
    attr: usize,
    v: &[f64],
    cats: &[f64],
    mech: MedianMechanism,
    epsilon: f64,
    opt: &MedianOptions,
    rows: &[usize],
) -> Result<Split, ForestError> {
    let m = cats.len();
    if m > MAX_CATEGORIES {
        return Err(ForestError::TooManyCategories { attr, m });
    }
    let who = (MEDIAN_PART, Subjects::Rows(rows));
    let count = (1usize << (m - 1)) - 1;
    let j = if mech == MedianMechanism::Uniform {
        1 + rng.gen_range(0..count)
    } else {
        let mut c = vec![0usize; m];
        for x in v {
            if let Some(k) = cats.iter().position(|code| code == x) {
                c[k] += 1;
            }
        }
        let big_m = v.len() as f64;
        let n_c = partition_counts(&c);
        let scores: Vec<f64> = n_c[1..]
            .iter()
            .map(|&n| -(2.0 * n as f64 - big_m).abs())
            .collect();
        1 + match mech {
            MedianMechanism::Exact => {
                let best = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                scores.iter().position(|&s| s == best).expect("non-empty")
            }
            MedianMechanism::Exponential => {
                let norm = if opt.floors {
                    Normalisation::Floored(1e-6)
                } else {
                    Normalisation::LogSumExp
                };
                let sens = opt.score_sensitivity;
                exponential_release(rng, &scores, sens, epsilon, None, norm, 1.0, who)
            }
            MedianMechanism::PermuteFlip => {
                let floor = if opt.floors { 1e-12 } else { 0.0 };
                let spend = (opt.score_sensitivity, epsilon, floor);
                permute_and_flip_release(rng, &scores, spend, 1.0, who)
            }
            MedianMechanism::Uniform => unreachable!(),
        }
    };
    let (subset, rest) = partition_of(j, cats);
    Ok(Split::Subset { attr, subset, rest })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The median as it was computed before selection: sort, read the middle.
    fn median_by_sorting(v: &[f64]) -> f64 {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let m = v.len();
        if m % 2 == 1 {
            v[m / 2]
        } else {
            0.5 * (v[m / 2 - 1] + v[m / 2])
        }
    }

    #[test]
    fn subset_sums_give_each_partitions_count() {
        let mut rng = Pcg64::seed_from_u64(5);
        for m in 1..=MAX_CATEGORIES {
            let c: Vec<usize> = (0..m).map(|_| rng.gen_range(0..1000)).collect();
            let cats: Vec<f64> = (0..m).map(|k| k as f64).collect();
            let n_c = partition_counts(&c);
            assert_eq!(n_c.len(), 1 << (m - 1));
            for (j, &n) in n_c.iter().enumerate() {
                let (subset, _) = partition_of(j, &cats);
                let direct: usize = subset.iter().map(|&k| c[k as usize]).sum();
                assert_eq!(n, direct, "m = {m}, partition {j}");
            }
        }
    }

    #[test]
    fn selection_gives_the_median_of_the_sorted_values_bit_for_bit() {
        let mut rng = Pcg64::seed_from_u64(3);
        for case in 0..2000 {
            let m = 1 + case % 37;
            let v: Vec<f64> = (0..m)
                .map(|_| match case % 3 {
                    0 => rng.gen::<f64>(),
                    1 => [0.0, -0.0, 0.5, 1.0, -1.0][rng.gen_range(0..5)],
                    _ => (rng.gen_range(0..7) as f64) / 3.0 - 1.0,
                })
                .collect();
            let mut w = v.clone();
            assert_eq!(
                exact_median(&mut w).to_bits(),
                median_by_sorting(&v).to_bits(),
                "{v:?}"
            );
        }
    }
}
