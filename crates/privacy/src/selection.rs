//! Private selection from private candidates by random stopping (Liu & Talwar, STOC 2019,
//! §3; Papernot & Steinke, ICLR 2022, §3): draw a random number K of candidate runs, each
//! an ε₀-DP run of one randomly chosen configuration that also releases an ε₀-DP score,
//! and release only the best. The number of runs K is drawn from a law chosen *before*
//! the data are seen; its shape fixes what the selection costs:
//!
//! - **pure DP** (Papernot & Steinke Theorem 2 with λ, λ̂ → ∞; for η = 1 Liu & Talwar's
//!   random stopping without a cap on K): when every run is ε₀-DP, the released best run is
//!   (2 + η)·ε₀-DP, K drawn from the truncated negative binomial law D_{η,γ}
//!   ([`StoppingLaw::pure_multiplier`]). The geometric law (η = 1) costs 3ε₀, the
//!   logarithmic law (η = 0) 2ε₀.
//! - **Rényi DP** (Papernot & Steinke Theorem 2): when every run is (λ, ε)-RDP and
//!   (λ̂, ε̂)-RDP, the selection is (λ, ε′)-RDP with ε′ = ε + (1 + η)(1 − 1/λ̂)ε̂ + (1 +
//!   η)·ln(1/γ)/λ̂ + ln(E\[K\])/(λ − 1) ([`StoppingLaw::rdp_epsilon`]).
//!
//! Why this helps only a curator: the runs that are not released cost nothing because
//! nobody sees them. Under local DP every user's releases for every run leave the user's
//! device and the curator sees them all, so K runs compose to K·ε₀ and random stopping
//! saves nothing.

use rand::Rng;

/// The law of the number of candidate runs K ≥ 1 of random stopping: the truncated
/// negative binomial D_{η,γ} of Papernot & Steinke (2022, Definition 1),
/// P(K = k) = (1 − γ)^k / (γ^{−η} − 1) · Π_{ℓ=0}^{k−1} (ℓ + η)/(ℓ + 1) for η ≠ 0 and
/// P(K = k) = (1 − γ)^k / (k·ln(1/γ)) for η = 0 (the logarithmic law); η = 1 is the
/// geometric law P(K = k) = γ(1 − γ)^{k−1} of Liu & Talwar (2019).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppingLaw {
    /// η > −1: the shape (1 the geometric law, 0 the logarithmic).
    pub eta: f64,
    /// γ ∈ (0, 1): the stopping probability (the geometric law's 1/E\[K\]).
    pub gamma: f64,
}

/// Why a stopping law cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoppingError {
    /// η ≤ −1 or not finite.
    #[error("the shape eta must be a finite number above -1, got {0}")]
    Eta(f64),
    /// The mean is not above 1 (K ≥ 1 always) or not finite.
    #[error("the mean number of candidate runs must be a finite number above 1, got {0}")]
    Mean(f64),
}

impl StoppingLaw {
    /// The law D_{η,γ} with E\[K\] = `mean`, γ solved by bisection (E\[K\] falls as γ
    /// grows, from ∞ at γ → 0 to 1 at γ → 1).
    ///
    /// # Errors
    /// [`StoppingError`] when η ≤ −1 or the mean is not above 1.
    pub fn with_mean(eta: f64, mean: f64) -> Result<StoppingLaw, StoppingError> {
        if !(eta.is_finite() && eta > -1.0) {
            return Err(StoppingError::Eta(eta));
        }
        if !(mean.is_finite() && mean > 1.0) {
            return Err(StoppingError::Mean(mean));
        }
        let (mut lo, mut hi) = (1e-15_f64, 1.0 - 1e-15);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if (StoppingLaw { eta, gamma: mid }).mean() > mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(StoppingLaw {
            eta,
            gamma: 0.5 * (lo + hi),
        })
    }

    /// E\[K\] = η(1 − γ)/(γ(1 − γ^η)) for η ≠ 0, (1/γ − 1)/ln(1/γ) for η = 0 (Papernot &
    /// Steinke 2022, §3); 1/γ for the geometric law.
    pub fn mean(&self) -> f64 {
        let (eta, g) = (self.eta, self.gamma);
        if eta.abs() < 1e-12 {
            (1.0 / g - 1.0) / (1.0 / g).ln()
        } else {
            eta * (1.0 - g) / (g * (1.0 - g.powf(eta)))
        }
    }

    /// P(K = k) (0 at k = 0).
    pub fn pmf(&self, k: usize) -> f64 {
        if k == 0 {
            return 0.0;
        }
        self.probabilities().nth(k - 1).unwrap_or(0.0)
    }

    /// P(K = 1), P(K = 2), … in order, each from the one before (an endless iterator).
    pub fn probabilities(&self) -> impl Iterator<Item = f64> + '_ {
        let mut k = 0usize;
        std::iter::successors(Some(self.first()), move |&p| {
            k += 1;
            Some(p * self.ratio(k))
        })
    }

    /// P(K = 1).
    fn first(&self) -> f64 {
        let (eta, g) = (self.eta, self.gamma);
        if eta.abs() < 1e-12 {
            (1.0 - g) / (1.0 / g).ln()
        } else {
            (1.0 - g) * eta / (g.powf(-eta) - 1.0)
        }
    }

    /// P(K = k + 1)/P(K = k) = (1 − γ)(k + η)/(k + 1).
    fn ratio(&self, k: usize) -> f64 {
        (1.0 - self.gamma) * (k as f64 + self.eta) / (k as f64 + 1.0)
    }

    /// One draw of K by inversion of the distribution function (one uniform from `rng`).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u: f64 = rng.gen();
        let (mut k, mut p) = (1usize, self.first());
        let mut cdf = p;
        while cdf < u && p > 0.0 {
            p *= self.ratio(k);
            k += 1;
            cdf += p;
        }
        k
    }

    /// What the selection costs in units of ε₀ under pure DP: 2 + η (Papernot & Steinke
    /// 2022, Theorem 2 at λ, λ̂ → ∞, where an ε₀-DP run is (λ, ε₀)-RDP at every order;
    /// Liu & Talwar 2019, §3, random stopping without a cap on K, for the geometric law: 3).
    pub fn pure_multiplier(&self) -> f64 {
        2.0 + self.eta
    }

    /// The ε₀ of each candidate run for a selection whose total under pure DP is `total`:
    /// total/(2 + η).
    pub fn candidate_epsilon(&self, total: f64) -> f64 {
        if crate::mutants::active("stopping-epsilon-not-divided") {
            return total;
        }
        total / self.pure_multiplier()
    }

    /// Papernot & Steinke (2022) Theorem 2: the Rényi DP of order `lambda` (> 1) of the
    /// selection when every run is (`lambda`, `eps`)-RDP and (`lambda_hat`,
    /// `eps_hat`)-RDP (`lambda_hat` ≥ 1).
    pub fn rdp_epsilon(&self, lambda: f64, eps: f64, lambda_hat: f64, eps_hat: f64) -> f64 {
        let eta = self.eta;
        eps + (1.0 + eta) * (1.0 - 1.0 / lambda_hat) * eps_hat
            + (1.0 + eta) * (1.0 / self.gamma).ln() / lambda_hat
            + self.mean().ln() / (lambda - 1.0)
    }
}

/// The (ε, δ)-DP of a mechanism that is (λ, ε_λ)-RDP at order `lambda`: ε_λ +
/// ln(1/δ)/(λ − 1) (Mironov 2017, Proposition 3).
pub fn rdp_to_dp(lambda: f64, eps_lambda: f64, delta: f64) -> f64 {
    eps_lambda + (1.0 / delta).ln() / (lambda - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The law sums to 1 and has the stated mean, for the geometric, logarithmic and a
    /// fractional shape.
    #[test]
    fn pmf_sums_to_one_and_has_the_mean() {
        for (eta, mean) in [(1.0, 10.0), (0.0, 5.0), (0.5, 20.0), (-0.5, 3.0)] {
            let law = StoppingLaw::with_mean(eta, mean).unwrap();
            let (mut total, mut m) = (0.0, 0.0);
            for (k, p) in (1..200_000).zip(law.probabilities()) {
                total += p;
                m += k as f64 * p;
            }
            assert!((total - 1.0).abs() < 1e-6, "eta {eta}: total {total}");
            assert!((m - mean).abs() / mean < 1e-3, "eta {eta}: mean {m}");
        }
    }

    /// The geometric law is γ(1 − γ)^{k−1} with γ = 1/mean.
    #[test]
    fn eta_one_is_the_geometric_law() {
        let law = StoppingLaw::with_mean(1.0, 4.0).unwrap();
        assert!((law.gamma - 0.25).abs() < 1e-12);
        for k in 1..10 {
            let want = 0.25 * 0.75f64.powi(k as i32 - 1);
            assert!((law.pmf(k) - want).abs() < 1e-12);
        }
    }

    /// Draws follow the law: the sample mean of 20,000 draws within 4 standard errors of
    /// E[K] (a two-sided 4σ band fails by chance with probability 6e-5), and the share of
    /// draws above the 90th percentile within 4 binomial standard errors of its exact
    /// tail probability.
    #[test]
    fn draws_follow_the_law() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for (eta, mean) in [(1.0, 10.0), (0.0, 8.0)] {
            let law = StoppingLaw::with_mean(eta, mean).unwrap();
            let n = 20_000;
            let draws: Vec<usize> = (0..n).map(|_| law.sample(&mut rng)).collect();
            let var: f64 = (1..100_000)
                .zip(law.probabilities())
                .map(|(k, p)| p * (k as f64 - mean).powi(2))
                .sum();
            let m = draws.iter().sum::<usize>() as f64 / n as f64;
            let se = (var / n as f64).sqrt();
            assert!((m - mean).abs() < 4.0 * se, "eta {eta}: mean {m} vs {mean}");
            let mut q = 1;
            let mut cdf = law.pmf(1);
            while cdf < 0.9 {
                q += 1;
                cdf += law.pmf(q);
            }
            let tail = 1.0 - cdf;
            let seen = draws.iter().filter(|&&k| k > q).count() as f64 / n as f64;
            let se = (tail * (1.0 - tail) / n as f64).sqrt();
            assert!(
                (seen - tail).abs() < 4.0 * se,
                "eta {eta}: P(K > {q}) {seen} vs {tail}"
            );
        }
    }

    /// The pure-DP bound on a worked case: each run releases a score bit by randomized
    /// response at ε₀ and the best (highest) score is released, so P(best = 0) is the
    /// probability generating function G(q) = E[q^K] at q = P(bit 0). The log ratio of the
    /// two neighbours' outcome probabilities stays under (2 + η)ε₀, and exceeds ε₀ (the
    /// selection costs more than one run: counting it is not optional).
    #[test]
    fn randomized_response_runs_stay_under_the_bound() {
        for (eta, mean) in [(1.0, 10.0), (0.0, 10.0), (1.0, 100.0)] {
            let law = StoppingLaw::with_mean(eta, mean).unwrap();
            let pgf = |q: f64| {
                (1..20_000)
                    .zip(law.probabilities())
                    .map(|(k, p)| p * q.powi(k as i32))
                    .sum::<f64>()
            };
            let mut worst = 0.0f64;
            for eps0 in [0.1, 0.5, 1.0, 2.0] {
                let p = 1.0 / (1.0 + f64::exp(eps0)); // P(bit 0) on D; 1 − p on D'
                for (a, b) in [(p, 1.0 - p), (1.0 - p, p)] {
                    let zero = (pgf(a) / pgf(b)).ln().abs();
                    let one = ((1.0 - pgf(a)) / (1.0 - pgf(b))).ln().abs();
                    let loss = zero.max(one);
                    assert!(
                        loss <= law.pure_multiplier() * eps0 + 1e-9,
                        "{loss} > bound"
                    );
                    worst = worst.max(loss / eps0);
                }
            }
            assert!(worst > 1.0, "eta {eta}: selection looks free ({worst})");
        }
    }

    /// Theorem 2's RDP bound by hand for the geometric law with mean 10 (γ = 0.1):
    /// ε′ = 0.5 + 2·(1 − 1/4)·0.5 + 2·ln 10/4 + ln 10/(8 − 1).
    #[test]
    fn rdp_bound_by_hand() {
        let law = StoppingLaw::with_mean(1.0, 10.0).unwrap();
        let got = law.rdp_epsilon(8.0, 0.5, 4.0, 0.5);
        let want = 0.5 + 0.75 + 2.0 * 10f64.ln() / 4.0 + 10f64.ln() / 7.0;
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        assert!((rdp_to_dp(8.0, 1.0, 1e-5) - (1.0 + 1e5f64.ln() / 7.0)).abs() < 1e-12);
    }

    /// Bad shapes and means are refused.
    #[test]
    fn bad_parameters_are_refused() {
        assert!(StoppingLaw::with_mean(-1.0, 10.0).is_err());
        assert!(StoppingLaw::with_mean(1.0, 1.0).is_err());
        assert!(StoppingLaw::with_mean(1.0, f64::NAN).is_err());
    }
}
