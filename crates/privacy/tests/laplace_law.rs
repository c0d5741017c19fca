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

/// Kolmogorov–Smirnov distance sup_x |F_n(x) − F(x)| of `z` (sorted in place) to the
/// Laplace(b) CDF F(x) = e^{x/b}/2 for x < 0, 1 − e^{−x/b}/2 for x ≥ 0.
fn ks_laplace(z: &mut [f64], b: f64) -> f64 {
    z.sort_by(f64::total_cmp);
    let n = z.len() as f64;
    z.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
        let f = if x < 0.0 {
            0.5 * (x / b).exp()
        } else {
            1.0 - 0.5 * (-x / b).exp()
        };
        d.max((f - i as f64 / n).abs())
            .max((f - (i + 1) as f64 / n).abs())
    })
}

/// The law checks of one sampler at scale b over n draws; Err names the first failure.
///
/// * KS: by the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant,
///   P(D_n > t) ≤ 2e^{−2nt²} for any continuous F, so t = sqrt(ln(2/α)/(2n)) with
///   α = 1e-6 is a critical value a correct sampler exceeds with probability ≤ 1e-6
///   (n = 400,000: t ≈ 0.00426).
/// * Moments of Z ~ Laplace(b): E Z^k = k!·b^k for even k, 0 for odd k. The sample mean of
///   Z^k has standard error sqrt((E Z^{2k} − (E Z^k)²)/n); each check allows 5 of them:
///   E Z (sd √2·b), E Z² (sd √(24 − 4)·b² = √20·b²), E Z³ (sd √720·b³), E Z⁴ (sd
///   √(40320 − 576)·b⁴ = √39744·b⁴).
fn law_checks(mut z: Vec<f64>, b: f64) -> Result<(), String> {
    let n = z.len() as f64;
    let t = ((2.0f64 / 1e-6).ln() / (2.0 * n)).sqrt();
    let moment = |k: i32| z.iter().map(|v| v.powi(k)).sum::<f64>() / n;
    let fact = |k: i32| (1..=k).map(f64::from).product::<f64>();
    for k in 1..=4 {
        let want = if k % 2 == 0 { fact(k) * b.powi(k) } else { 0.0 };
        let sd =
            ((fact(2 * k) - if k % 2 == 0 { fact(k).powi(2) } else { 0.0 }) / n).sqrt() * b.powi(k);
        let got = moment(k);
        if (got - want).abs() > 5.0 * sd {
            return Err(format!("E Z^{k} = {got}, want {want} ± 5·{sd}"));
        }
    }
    let d = ks_laplace(&mut z, b);
    if d > t {
        return Err(format!("KS distance {d} > critical {t}"));
    }
    Ok(())
}

#[test]
fn laplace_passes_kolmogorov_smirnov_and_four_moments() {
    let n = 400_000usize;
    for (seed, b) in [(11u64, 1.0), (12, 0.37), (13, 25.0)] {
        let mut r = rng(seed);
        let z: Vec<f64> = (0..n).map(|_| laplace(&mut r, b)).collect();
        law_checks(z, b).unwrap_or_else(|e| panic!("b = {b}: {e}"));
    }
}

#[test]
fn the_law_checks_reject_a_wrong_scale_a_lost_sign_and_a_biased_sign() {
    // Each of these samplers is wrong by an amount the checks above must see at n draws.
    use rand::Rng;
    let n = 400_000usize;
    let b = 1.0;
    let mut r = rng(21);
    let wrong_scale: Vec<f64> = (0..n).map(|_| laplace(&mut r, 1.05 * b)).collect();
    assert!(law_checks(wrong_scale, b).is_err(), "scale 5% off");
    let no_sign: Vec<f64> = (0..n).map(|_| laplace(&mut r, b).abs()).collect();
    assert!(law_checks(no_sign, b).is_err(), "no sign");
    let biased: Vec<f64> = (0..n)
        .map(|_| {
            let z = laplace(&mut r, b).abs();
            if r.gen::<f64>() < 0.51 {
                -z
            } else {
                z
            }
        })
        .collect();
    assert!(law_checks(biased, b).is_err(), "sign biased to 51%");
}
