//! Statistical tests of the laws of the Laplace mechanism, with fixed seeds. Every
//! tolerance is 5 standard deviations of the estimator under test, derived from the exact
//! law in the comment next to it (never tuned): a correct implementation fails with
//! probability below 1e-6 per check, a wrong noise scale by more than a few percent fails
//! for sure at these sample sizes.

use dp_privacy::{laplace, laplace_sum};
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

#[test]
fn laplace_scale_mean_abs_and_variance() {
    // |Z| ~ Exp(mean b) for Z ~ Laplace(b): E|Z| = b, sd(|Z|) = b; Var Z = 2b², and
    // Var(Z²) = E Z⁴ − (E Z²)² = 24b⁴ − 4b⁴ = 20b⁴.
    let (b, n) = (1.7, 400_000usize);
    let mut r = rng(1);
    let z: Vec<f64> = (0..n).map(|_| laplace(&mut r, b)).collect();
    let mean_abs = z.iter().map(|v| v.abs()).sum::<f64>() / n as f64;
    let mean_sq = z.iter().map(|v| v * v).sum::<f64>() / n as f64;
    let mean = z.iter().sum::<f64>() / n as f64;
    assert!(
        (mean_abs - b).abs() < 5.0 * b / (n as f64).sqrt(),
        "E|Z| = {mean_abs}, want {b}"
    );
    assert!(
        (mean_sq - 2.0 * b * b).abs() < 5.0 * (20.0f64).sqrt() * b * b / (n as f64).sqrt(),
        "E Z^2 = {mean_sq}"
    );
    assert!(
        mean.abs() < 5.0 * (2.0f64).sqrt() * b / (n as f64).sqrt(),
        "E Z = {mean}"
    );
}

#[test]
fn laplace_sum_has_the_law_of_a_sum() {
    // Σ of m Laplace(b): mean 0, variance 2mb²; E|Σ| for large m ≈ sqrt(2/π)·sqrt(2m)·b.
    // Check the variance over `reps` draws: Var of the sample variance of a nearly normal
    // variable is ≈ 2σ⁴/reps (kurtosis excess 3/m is negligible for m = 50).
    let (b, m, reps) = (0.8, 50usize, 100_000usize);
    let mut r = rng(2);
    let s: Vec<f64> = (0..reps).map(|_| laplace_sum(&mut r, m, b)).collect();
    let var = s.iter().map(|v| v * v).sum::<f64>() / reps as f64;
    let sigma2 = 2.0 * m as f64 * b * b;
    let sd_var = sigma2 * (2.0f64 + 6.0 / m as f64).sqrt() / (reps as f64).sqrt();
    assert!(
        (var - sigma2).abs() < 5.0 * sd_var,
        "var {var}, want {sigma2}"
    );
    assert_eq!(laplace_sum(&mut r, 0, b), 0.0);
}
