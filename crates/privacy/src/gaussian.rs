//! The Gaussian mechanism ((ε, δ)-DP) for vectors and symmetric matrices, per user and
//! aggregated over n users (used by PGLM, method card `docs/methods/lpct.md` §7.4).
//!
//! **Per user.** A user holding a vector v ∈ ℝ^k releases v + σ·g, g ~ N(0, I_k); holding a
//! symmetric D×D matrix M, releases M + σ·(G + Gᵀ)/√2 with G a D×D matrix of iid N(0,1)
//! (as the LPCT reference code symmetrises its noise: off-diagonal entries get variance σ²,
//! diagonal ones 2σ²). With σ² = 2 ln(1.25/δ) Δ²/ε² ([`gaussian_mechanism_variance`]) and
//! Δ the L2 sensitivity of v (Frobenius for M), the release is (ε, δ)-DP (Dwork & Roth
//! 2014, Theorem A.1; stated there for ε < 1, used by Wang et al. 2023 and the card as is).
//!
//! **Aggregated.** The curator only uses the sum of the n releases. The noise of that sum is
//! a sum of n iid centred Gaussians, which is exactly one Gaussian of n times the variance:
//! drawing σ√n·g once has the same law as drawing and adding n per-user noises (docs/architecture.md,
//! "Releases are first-class": an exact shortcut). [`GaussianAggregate::Sum`] is that law.
//! [`GaussianAggregate::SqrtN`] is the LPCT reference code's PGLM, whose total variance is
//! σ²·√n: the law of no sum of per-user releases at σ (it is n^{1/4} too little noise in
//! standard deviation for the stated guarantee; card §7.4 step 2, §11 item 10).

use super::BudgetError;
use crate::ledger::{self, gaussian_epsilon, Domain};
use rand::Rng;
use rand_distr::StandardNormal;

/// The variance σ² = 2 ln(1.25/δ)·Δ²/ε² of the Gaussian mechanism with L2 sensitivity Δ
/// at (ε, δ) (Dwork & Roth 2014, Theorem A.1).
///
/// # Errors
/// [`BudgetError::Epsilon`] unless ε is finite and > 0; [`BudgetError::Share`] (named
/// `delta`) unless 0 < δ < 1.
pub fn gaussian_mechanism_variance(
    sensitivity: f64,
    epsilon: f64,
    delta: f64,
) -> Result<f64, BudgetError> {
    if !(epsilon.is_finite() && epsilon > 0.0) {
        return Err(BudgetError::Epsilon(epsilon));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(BudgetError::Share {
            name: "delta".into(),
            value: delta,
        });
    }
    Ok(2.0 * (1.25 / delta).ln() * sensitivity * sensitivity / (epsilon * epsilon))
}

/// How the noise of n users' Gaussian releases adds up in the curator's sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaussianAggregate {
    /// The exact law of a sum of n per-user releases at variance σ²: variance n·σ².
    Sum,
    /// The LPCT reference code's PGLM: variance √n·σ² (not the law of any sum of
    /// per-user releases at σ; card §7.4).
    SqrtN,
}

impl GaussianAggregate {
    /// The variance of the aggregated noise of n users whose per-user variance is σ².
    pub fn variance(self, sigma2: f64, n: usize) -> f64 {
        match self {
            GaussianAggregate::Sum => n as f64 * sigma2,
            GaussianAggregate::SqrtN => (n as f64).sqrt() * sigma2,
        }
    }

    /// The variance of one user's release whose n-fold sum has the aggregated variance:
    /// σ² under [`GaussianAggregate::Sum`], σ²/√n under [`GaussianAggregate::SqrtN`] (the
    /// reference code's noise seen as what each user would have released; the privacy
    /// audit draws it).
    pub fn per_user(self, sigma2: f64, n: usize) -> f64 {
        self.variance(sigma2, n) / n as f64
    }
}

/// k iid N(0, variance) draws: the noise of one user's vector release at that variance, or
/// of a sum of releases at the aggregated variance ([`GaussianAggregate::variance`]).
///
/// # Panics
/// If the variance is negative or not finite.
pub fn gaussian_noise<R: Rng + ?Sized>(rng: &mut R, k: usize, variance: f64) -> Vec<f64> {
    assert!(
        variance.is_finite() && variance >= 0.0,
        "Gaussian variance must be finite and >= 0"
    );
    let sd = variance.sqrt();
    (0..k)
        .map(|_| sd * rng.sample::<f64, _>(StandardNormal))
        .collect()
}

/// A symmetric dim×dim noise matrix (row-major, length dim²) √variance·(G + Gᵀ)/√2, G
/// drawn row-major with iid N(0,1) entries: off-diagonal entries have the given variance,
/// diagonal ones twice it. One user's matrix noise, or the noise of a sum of releases at
/// the aggregated variance.
///
/// # Panics
/// If the variance is negative or not finite.
pub fn symmetric_gaussian_noise<R: Rng + ?Sized>(
    rng: &mut R,
    dim: usize,
    variance: f64,
) -> Vec<f64> {
    let g = gaussian_noise(rng, dim * dim, 1.0);
    let s = (variance / 2.0).sqrt();
    let mut out = vec![0.0; dim * dim];
    for i in 0..dim {
        for j in 0..dim {
            out[i * dim + j] = s * (g[i * dim + j] + g[j * dim + i]);
        }
    }
    out
}

/// One user's Gaussian release of the vector `v`: v + σ·g (per-user variance σ²).
pub fn gaussian_release<R: Rng + ?Sized>(rng: &mut R, v: &[f64], sigma2: f64) -> Vec<f64> {
    let noise = gaussian_noise(rng, v.len(), sigma2);
    v.iter().zip(noise).map(|(a, b)| a + b).collect()
}

/// One user's Gaussian release of the symmetric dim×dim matrix `m` (row-major):
/// M + σ·(G + Gᵀ)/√2 (per-user variance σ²).
///
/// # Panics
/// If `m.len() != dim * dim`.
pub fn symmetric_gaussian_release<R: Rng + ?Sized>(
    rng: &mut R,
    m: &[f64],
    dim: usize,
    sigma2: f64,
) -> Vec<f64> {
    assert_eq!(m.len(), dim * dim, "a dim x dim matrix");
    let noise = symmetric_gaussian_noise(rng, dim, sigma2);
    m.iter().zip(noise).map(|(a, b)| a + b).collect()
}

/// The curator's noisy sum of n subjects' Gaussian releases of a vector, drawn at once:
/// `sum` plus k iid N(0, `variance`) draws ([`gaussian_noise`], one standard normal per
/// coordinate in order), `variance` the aggregated variance of the n releases'
/// noise. Charges each subject `first..first + n` under `part` the ε of one release at the
/// per-subject variance `variance`/n read at `delta` ([`gaussian_epsilon`], Dwork & Roth
/// 2014, Theorem A.1), with the L2 sensitivity of `domain` (PGLM's x̃y, docs/methods/lpct.md
/// §7.4: a stated 2r², infinite when a coordinate of `sum` is not finite).
///
/// # Panics
/// If the variance is negative or not finite.
#[allow(clippy::too_many_arguments)]
pub fn gaussian_sum_release<R: Rng + ?Sized>(
    rng: &mut R,
    sum: &[f64],
    variance: f64,
    (first, n): (usize, usize),
    domain: Domain,
    delta: f64,
    part: &str,
) -> Vec<f64> {
    let noise = gaussian_noise(rng, sum.len(), variance);
    charge_sum(sum, variance, (first, n), domain, delta, part);
    sum.iter().zip(noise).map(|(a, b)| a + b).collect()
}

/// The same for a symmetric dim×dim matrix (row-major): `sum` plus
/// [`symmetric_gaussian_noise`] at the aggregated `variance`, charged as
/// [`gaussian_sum_release`] charges (PGLM's x̃x̃ᵀ).
///
/// # Panics
/// If the variance is negative or not finite, or `sum.len() != dim * dim`.
#[allow(clippy::too_many_arguments)]
pub fn symmetric_gaussian_sum_release<R: Rng + ?Sized>(
    rng: &mut R,
    sum: &[f64],
    dim: usize,
    variance: f64,
    (first, n): (usize, usize),
    domain: Domain,
    delta: f64,
    part: &str,
) -> Vec<f64> {
    assert_eq!(sum.len(), dim * dim, "a dim x dim matrix");
    let noise = symmetric_gaussian_noise(rng, dim, variance);
    charge_sum(sum, variance, (first, n), domain, delta, part);
    sum.iter().zip(noise).map(|(a, b)| a + b).collect()
}

/// Charges subjects `first..first + n` one Gaussian release each at the per-subject
/// variance `variance`/n (see [`gaussian_sum_release`]).
fn charge_sum(
    sum: &[f64],
    variance: f64,
    (first, n): (usize, usize),
    domain: Domain,
    delta: f64,
    part: &str,
) {
    if ledger::is_recording() {
        let spent = gaussian_epsilon(domain.sensitivity_seen(sum), variance / n as f64, delta);
        ledger::charge(
            part,
            ledger::Subjects::Range(first, first + n),
            spent,
            delta,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The sample variance about the known mean 0.
    fn var0(v: &[f64]) -> f64 {
        v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64
    }

    #[test]
    fn pglm_variance_is_the_gaussian_mechanism_at_half_budget() {
        // Card §7.4: σ² = 32 r⁴ ln(2.5/δ)/ε² is the mechanism with Δ = 2r² at (ε/2, δ/2).
        let (r, eps, delta) = (4.0f64, 2.0f64, 1e-6f64);
        let direct = 32.0 * r.powi(4) * (2.5 / delta).ln() / (eps * eps);
        let v = gaussian_mechanism_variance(2.0 * r * r, eps / 2.0, delta / 2.0).unwrap();
        assert!((v / direct - 1.0).abs() < 1e-12, "{v} vs {direct}");
        assert!(gaussian_mechanism_variance(1.0, 0.0, 0.1).is_err());
        assert!(gaussian_mechanism_variance(1.0, 1.0, 1.0).is_err());
        assert!(gaussian_mechanism_variance(1.0, 1.0, 0.0).is_err());
    }

    #[test]
    fn aggregated_noise_has_the_law_of_a_sum_of_releases() {
        // n users with per-user variance σ². The sample variance (about 0) of R centred
        // Gaussians of variance V has standard deviation V·sqrt(2/R): each check allows 5
        // of them. A sum drawn user by user, the shortcut at Sum (n σ²) and the shortcut at
        // SqrtN (√n σ²) are each checked against their variance; n = 64 makes SqrtN's
        // variance 8 times smaller than the sum's, so the two rules cannot be confused.
        let (n, sigma2, r) = (64usize, 0.7, 40_000usize);
        let mut rng = Pcg64::seed_from_u64(9);
        let by_user: Vec<f64> = (0..r)
            .map(|_| {
                (0..n)
                    .map(|_| gaussian_release(&mut rng, &[0.0], sigma2)[0])
                    .sum()
            })
            .collect();
        let tol = |v: f64| 5.0 * v * (2.0 / r as f64).sqrt();
        let want = n as f64 * sigma2;
        assert!((var0(&by_user) - want).abs() < tol(want));
        for rule in [GaussianAggregate::Sum, GaussianAggregate::SqrtN] {
            let v = rule.variance(sigma2, n);
            let agg = gaussian_noise(&mut rng, r, v);
            assert!(
                (var0(&agg) - v).abs() < tol(v),
                "{rule:?}: {} vs {v}",
                var0(&agg)
            );
        }
        assert_eq!(GaussianAggregate::SqrtN.variance(sigma2, n), 8.0 * sigma2);
    }

    #[test]
    fn symmetric_noise_is_symmetric_with_double_variance_on_the_diagonal() {
        // Off-diagonal entries (G_ij + G_ji)·s, s² = V/2: variance V; diagonal 2 s G_ii:
        // variance 2V. Over R matrices, 5 standard deviations of the sample variance.
        let (dim, v, r) = (3usize, 2.5, 40_000usize);
        let mut rng = Pcg64::seed_from_u64(10);
        let mut diag = Vec::with_capacity(r);
        let mut off = Vec::with_capacity(r);
        for _ in 0..r {
            let m = symmetric_gaussian_noise(&mut rng, dim, v);
            for i in 0..dim {
                for j in 0..dim {
                    assert_eq!(m[i * dim + j], m[j * dim + i]);
                }
            }
            diag.push(m[4]);
            off.push(m[1]);
        }
        let tol = |v: f64| 5.0 * v * (2.0 / r as f64).sqrt();
        assert!((var0(&off) - v).abs() < tol(v), "{}", var0(&off));
        assert!(
            (var0(&diag) - 2.0 * v).abs() < tol(2.0 * v),
            "{}",
            var0(&diag)
        );
        // A release adds the noise to the value.
        let m = [1.0, 2.0, 2.0, 5.0];
        let a = symmetric_gaussian_release(&mut Pcg64::seed_from_u64(1), &m, 2, v);
        let b = symmetric_gaussian_noise(&mut Pcg64::seed_from_u64(1), 2, v);
        for k in 0..4 {
            assert_eq!(a[k], m[k] + b[k]);
        }
    }

    /// The aggregated and per-user variances at hand-computed values (σ² = 2).
    #[test]
    fn aggregate_variances_by_hand() {
        use GaussianAggregate::{SqrtN, Sum};
        assert_eq!(Sum.variance(2.0, 3), 6.0);
        assert!((SqrtN.variance(2.0, 9) - 6.0).abs() < 1e-15);
        assert_eq!(Sum.per_user(2.0, 3), 2.0);
        assert!((SqrtN.per_user(2.0, 9) - 2.0 / 3.0).abs() < 1e-15);
    }

    /// The charged sums add the plain noise and charge each of the n subjects the ε of
    /// the per-subject variance: 16σ² over n = 16 subjects is σ² each, ε back; a NaN in the
    /// sum is charged ∞.
    #[test]
    fn charged_sums_add_the_noise_and_charge_the_per_subject_variance() {
        use crate::ledger::recording;
        let (d, eps, delta) = (Domain::Sensitivity(1.5), 0.4, 1e-6);
        let v = gaussian_mechanism_variance(1.5, eps, delta).unwrap();
        let s = [1.0, 2.0, 3.0, 4.0];
        let (got, r) = recording(|| {
            symmetric_gaussian_sum_release(
                &mut Pcg64::seed_from_u64(8),
                &s,
                2,
                16.0 * v,
                (3, 16),
                d,
                delta,
                "m",
            )
        });
        let noise = symmetric_gaussian_noise(&mut Pcg64::seed_from_u64(8), 2, 16.0 * v);
        assert_eq!(
            got,
            s.iter().zip(noise).map(|(a, b)| a + b).collect::<Vec<_>>()
        );
        assert_eq!((r.subjects, r.worst), (16, Some(3)));
        assert!((r.max_epsilon - eps).abs() < 1e-12 && r.max_delta == delta);
        let (got, r) = recording(|| {
            gaussian_sum_release(
                &mut Pcg64::seed_from_u64(9),
                &[f64::NAN, 0.0],
                v,
                (0, 1),
                d,
                delta,
                "v",
            )
        });
        assert_eq!(
            got[1],
            gaussian_noise(&mut Pcg64::seed_from_u64(9), 2, v)[1]
        );
        assert_eq!(r.max_epsilon, f64::INFINITY);
    }

    /// A release is the value plus the noise drawn from the same stream, in order.
    #[test]
    fn a_release_adds_the_streams_noise() {
        let v = [1.0, -2.0, 0.5];
        let released = gaussian_release(&mut Pcg64::seed_from_u64(11), &v, 0.3);
        let noise = gaussian_noise(&mut Pcg64::seed_from_u64(11), 3, 0.3);
        for j in 0..3 {
            assert_eq!(released[j], v[j] + noise[j]);
        }
        let m = [1.0, 2.0, 2.0, 5.0];
        let released = symmetric_gaussian_release(&mut Pcg64::seed_from_u64(12), &m, 2, 0.3);
        let noise = symmetric_gaussian_noise(&mut Pcg64::seed_from_u64(12), 2, 0.3);
        for j in 0..4 {
            assert_eq!(released[j], m[j] + noise[j]);
        }
    }
}
