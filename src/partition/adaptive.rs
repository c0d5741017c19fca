//! AdHistOfTree's label-free choice of the shape (s, p, b) (method card docs/methods/histoftree.md §6,
//! §7, eq. (15) [R]): from n, ε, d and the public mask only.
//!
//! objective(s, p) = 2^{−2p/(d−s)} + C · L · 2^{p(d+s)/(d−s)} · (1/n) Σ_i 2^{p k_i(s)/(d−s)},
//! L = log(n)/(n ε²) (or 1/(n ε²) without `log_n`, the log absorbed in C), k_i(s) = the
//! number of user i's private features among the T-axes (protection order positions > s),
//! α = 1 (Lipschitz), s ∈ {0..d−1} (s = d has d − s = 0: excluded), p ∈ {0..p_max};
//! b* = max(1, round(2^{p*/(d−s*)})), then b = max(1, b* + bins_offset).

use crate::data::PrivacyMask;

/// The chosen shape: histogram axes s (the first s of the protection order), tree depth,
/// bins per histogram axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdaptiveShape {
    /// Number of histogram axes s.
    pub s: usize,
    /// Tree depth p.
    pub depth: usize,
    /// Bins per histogram axis b ≥ 1.
    pub bins: usize,
}

/// Eq. (15) at (s, p) for d features, n users, budget `epsilon`, constant `c`, and per user
/// `k_tail[i]` = k_i(s). Infinite for s ≥ d.
pub fn adaptive_objective(
    s: usize,
    p: usize,
    d: usize,
    n: usize,
    epsilon: f64,
    c: f64,
    k_tail: &[usize],
    log_n: bool,
) -> f64 {
    if s >= d || n == 0 {
        return f64::INFINITY;
    }
    let w = (d - s) as f64;
    let p = p as f64;
    let bias = 2f64.powf(-2.0 * p / w);
    let nf = n as f64;
    let lead = if log_n { nf.ln() } else { 1.0 } / (nf * epsilon * epsilon);
    let tail = k_tail
        .iter()
        .map(|&k| 2f64.powf(p * k as f64 / w))
        .sum::<f64>()
        / k_tail.len().max(1) as f64;
    bias + c * lead * 2f64.powf(p * (d as f64 + s as f64) / w) * tail
}

/// b* = max(1, round(2^{p/(d−s)})).
pub fn default_bins(s: usize, p: usize, d: usize) -> usize {
    if s >= d {
        return 1;
    }
    (2f64.powf(p as f64 / (d - s) as f64).round() as usize).max(1)
}

/// The argmin of [`adaptive_objective`] over s ∈ {0..d−1}, p ∈ {0..p_max} (ties: the
/// smallest s, then the smallest p), with b = max(1, b* + `bins_offset`). `order` is the
/// protection order (feature indices, most protected first): k_i(s) counts user i's
/// private features among `order[s..]`. Shapes whose histogram would have more than 2^60
/// cells are not considered (they cannot be indexed; eq. (15) never favours them).
pub fn adaptive_shape(
    mask: &PrivacyMask,
    order: &[usize],
    epsilon: f64,
    c: f64,
    p_max: usize,
    log_n: bool,
    bins_offset: i64,
) -> AdaptiveShape {
    let (n, d) = (mask.n(), mask.d());
    let mut best = (
        f64::INFINITY,
        AdaptiveShape {
            s: 0,
            depth: 0,
            bins: 1,
        },
    );
    // k_i(s) for s = 0: every private feature; decreases as axes move into the histogram.
    let mut k: Vec<usize> = (0..n)
        .map(|i| mask.row(i).iter().filter(|&&b| b).count())
        .collect();
    for s in 0..d {
        if s > 0 {
            let a = order[s - 1];
            for (i, ki) in k.iter_mut().enumerate() {
                *ki -= usize::from(mask.is_private(i, a));
            }
        }
        for p in 0..=p_max {
            let bins = (default_bins(s, p, d) as i64 + bins_offset).max(1) as usize;
            let fits = u32::try_from(s)
                .ok()
                .and_then(|s| (bins as u64).checked_pow(s))
                .is_some_and(|cells| cells <= 1 << 60);
            if !fits {
                continue;
            }
            let v = adaptive_objective(s, p, d, n, epsilon, c, &k, log_n);
            if v < best.0 {
                best = (v, AdaptiveShape { s, depth: p, bins });
            }
        }
    }
    best.1
}
