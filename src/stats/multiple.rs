//! Multiple-testing correction: Holm's step-down adjustment of a family of p-values
//! (S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist.
//! 6, 1979). Rejecting every hypothesis whose adjusted p-value is ≤ α keeps the
//! family-wise error rate ≤ α under any dependence between the tests, as Bonferroni does,
//! and rejects at least as much.

/// Holm-adjusted p-values, in the order of `p`.
///
/// With the m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, the i-th (1-based) adjusted value
/// is max over j ≤ i of min(1, (m − j + 1)·p₍ⱼ₎); ties keep their input order. The result
/// is in [0, 1] for p-values in [0, 1]; an empty family gives an empty vector. A NaN
/// p-value sorts last ([`f64::total_cmp`]) and makes its own and every later adjusted value
/// NaN, so a broken test can never pass for a rejection.
pub fn holm_adjust(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![f64::NAN; m];
    let mut running = 0.0_f64;
    for (rank, &i) in order.iter().enumerate() {
        // `f64::min` would turn a NaN into 1: keep it.
        let scaled = (m - rank) as f64 * p[i];
        running = if scaled.is_nan() || running.is_nan() {
            f64::NAN
        } else {
            running.max(scaled.min(1.0))
        };
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::holm_adjust;

    #[test]
    fn matches_the_step_down_by_hand() {
        // Sorted: 0.01 × 3 = 0.03, 0.02 × 2 = 0.04, 0.04 × 1 = 0.04.
        let adj = holm_adjust(&[0.04, 0.01, 0.02]);
        assert_eq!(adj, vec![0.04, 0.03, 0.04]);
    }

    #[test]
    fn is_monotone_and_capped_at_one() {
        // Sorted: 0.001 × 4, 0.3 × 3, 0.5 × 2 = 1, then 0.9 × 1 raised to the running 1.
        let adj = holm_adjust(&[0.5, 0.001, 0.9, 0.3]);
        let want = [1.0, 0.004, 1.0, 0.9];
        assert!(
            adj.iter().zip(want).all(|(a, w)| (a - w).abs() < 1e-12),
            "{adj:?}"
        );
        assert!(holm_adjust(&[]).is_empty());
    }

    #[test]
    fn a_nan_is_never_a_rejection() {
        let adj = holm_adjust(&[0.001, f64::NAN]);
        assert_eq!(adj[0], 0.002);
        assert!(adj[1].is_nan());
    }
}
