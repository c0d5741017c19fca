//! PrivUnitG: the ε-LDP release of one user's gradient vector used by PSGD-L / PSGD-N
//! (Asi, Feldman & Talwar 2022, "Optimal algorithms for mean estimation under local
//! differential privacy", the Gaussian variant of PrivUnit; as used by Lowy et al. 2023 and
//! by the LPCT paper's competitors, method card `docs/methods/lpct.md` §7.5).
//!
//! **The law.** Given a vector g ∈ ℝ^k and a clipping level C > 0, the user sets
//! u = g / max(‖g‖₂, C) (so ‖u‖ ≤ 1; the mechanism's analysis assumes ‖u‖ = 1, the
//! reference code does not normalise further and neither do we) and releases
//!
//! ```text
//!   σ · ( z − (u·z) u + α u ),   z ~ N(0, I_k),
//!   α ~ N(0,1) conditioned on α ≥ γ   with probability p,
//!   α ~ N(0,1) conditioned on α < γ   with probability 1 − p,
//! ```
//!
//! with the parameters of [`PrivUnitGParams`]: q = 1/(1 + e^ε (1−p)/p) = P(N(0,1) ≥ γ),
//! i.e. γ = Φ̄⁻¹(q); μ = E[α] = φ(γ)·(p/q − (1−p)/(1−q)) and σ = 1/μ, so that the release
//! is unbiased: E[release] = σ·μ·u = u (the z-terms have mean 0). p is the value p* of the
//! grid {0.01, 0.02, …, 0.99} that minimises σ (card §7.5).
//!
//! For a unit u the covariance is σ²(I − uuᵀ) + (σ²E[α²] − 1)uuᵀ with
//! E[α²] = 1 + γμ, so E‖release‖² = σ²k + σγ and Var(release_j) = σ² + u_j²(σγ − 1);
//! the tests check these moments.
//!
//! **Differences from the reference code, and why they do not change the law.**
//! - *The ε ≥ 20 cap.* For ε ≥ 20 the code sets q = 1/(4·10⁸) whatever p is (about the
//!   q of ε = 20 at p = 1/2), so ε = 1000 behaves like ε ≈ 20. We keep the cap, as
//!   [`PRIV_UNIT_G_EPSILON_CAP`]: it makes the release more private than ε, never less.
//! - *The draw of α below γ.* The code takes the first of 1000 standard-normal draws below
//!   γ (and releases σ·z if none is); we draw N(0,1) conditioned on α < γ exactly, by the
//!   inverse CDF. The laws differ only on the event that all 1000 draws exceed γ, of
//!   probability q¹⁰⁰⁰; at p* q is below 1/2 for every ε (see the tests), so below 2^−1000.
//! - *The draw of α above γ* is the inverse CDF on the upper tail, as in the code
//!   (α = −Φ⁻¹(r), r uniform on (0, q]); statrs' quantile is accurate for small r.

use super::BudgetError;
use rand::Rng;
use rand_distr::{Open01, OpenClosed01, StandardNormal};
use statrs::distribution::{Continuous, ContinuousCDF, Normal};

/// At and above this ε the reference code replaces q by [`PRIV_UNIT_G_Q_CAP`] (card §7.5).
pub const PRIV_UNIT_G_EPSILON_CAP: f64 = 20.0;

/// q used for ε ≥ [`PRIV_UNIT_G_EPSILON_CAP`]: 1/(4·10⁸) (card §7.5).
pub const PRIV_UNIT_G_Q_CAP: f64 = 1.0 / 4.0e8;

/// The parameters of PrivUnitG at one ε, found once and reused for every release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivUnitGParams {
    /// The budget ε of one release.
    pub epsilon: f64,
    /// p*: the probability of drawing α above γ.
    pub p: f64,
    /// q = P(N(0,1) ≥ γ) = 1/(1 + e^ε (1−p)/p), or the cap for ε ≥ 20.
    pub q: f64,
    /// γ = Φ̄⁻¹(q), the threshold on the component along u.
    pub gamma: f64,
    /// σ = 1/μ, the scale that makes the release unbiased.
    pub sigma: f64,
}

/// (q, γ, σ) at the probability p and budget ε (card §7.5): q = 1/(1 + e^ε(1−p)/p), or
/// [`PRIV_UNIT_G_Q_CAP`] for ε ≥ 20; γ = Φ̄⁻¹(q); σ = 1/(φ(γ)·(p/q − (1−p)/(1−q))).
fn gamma_sigma(p: f64, epsilon: f64) -> (f64, f64, f64) {
    let n = Normal::standard();
    let q = if epsilon < PRIV_UNIT_G_EPSILON_CAP {
        1.0 / (1.0 + epsilon.exp() * (1.0 - p) / p)
    } else {
        PRIV_UNIT_G_Q_CAP
    };
    // Φ̄⁻¹(q) = −Φ⁻¹(q), accurate for small q; Φ̄(γ) = Φ(−γ).
    let gamma = -n.inverse_cdf(q);
    let mu = n.pdf(gamma) * (p / n.cdf(-gamma) - (1.0 - p) / n.cdf(gamma));
    (q, gamma, 1.0 / mu)
}

impl PrivUnitGParams {
    /// The parameters at budget ε: p* is the value of {0.01, 0.02, …, 0.99} with the
    /// smallest σ (the first on ties), then q, γ and σ at p* (card §7.5; ε ≥ 20 capped).
    /// μ > 0 for every p on the grid (q < p since ε > 0), so σ > 0.
    ///
    /// # Errors
    /// [`BudgetError::Epsilon`] unless ε is finite and > 0.
    pub fn new(epsilon: f64) -> Result<PrivUnitGParams, BudgetError> {
        if !(epsilon.is_finite() && epsilon > 0.0) {
            return Err(BudgetError::Epsilon(epsilon));
        }
        let mut best: Option<PrivUnitGParams> = None;
        for i in 1..100 {
            let p = f64::from(i) / 100.0;
            let (q, gamma, sigma) = gamma_sigma(p, epsilon);
            if best.is_none_or(|b| sigma < b.sigma) {
                best = Some(PrivUnitGParams {
                    epsilon,
                    p,
                    q,
                    gamma,
                    sigma,
                });
            }
        }
        Ok(best.expect("the grid is not empty"))
    }

    /// The ε one release at these parameters really spends: ln(p(1 − q)/(q(1 − p))), the
    /// log-ratio of the probabilities of the tight event {α ≥ γ} for u against −u (Asi,
    /// Feldman & Talwar 2022). It is ε up to rounding below the cap, and less than ε at
    /// and above [`PRIV_UNIT_G_EPSILON_CAP`] (q is then capped).
    pub fn spent_epsilon(&self) -> f64 {
        (self.p * (1.0 - self.q) / (self.q * (1.0 - self.p))).ln()
    }

    /// One user's release of the vector `g` (any length k ≥ 1) with clipping level C > 0,
    /// written into `out` (length k): see the module documentation for the law. Draws, in
    /// order: k standard normals z, one uniform for the choice of side, one uniform for α.
    ///
    /// # Panics
    /// If `out.len() != g.len()` or C is not > 0.
    pub fn release_into<R: Rng + ?Sized>(&self, g: &[f64], c: f64, rng: &mut R, out: &mut [f64]) {
        assert_eq!(out.len(), g.len(), "one output per coordinate");
        assert!(c > 0.0, "the clipping level C must be > 0");
        let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        // Slip: the direction scaled by 1/C whatever the norm, so a gradient above C is not
        // clipped into the unit ball.
        let scale = if crate::mutants::active("gradient-norm-unclipped") {
            1.0 / c
        } else {
            1.0 / norm.max(c)
        };
        for o in out.iter_mut() {
            *o = rng.sample(StandardNormal);
        }
        let n = Normal::standard();
        let alpha = if rng.gen::<f64>() < self.p {
            // Upper tail: r uniform on (0, q], α = Φ̄⁻¹(r) = −Φ⁻¹(r) ≥ γ.
            let r = rng.sample::<f64, _>(OpenClosed01) * self.q;
            -n.inverse_cdf(r)
        } else {
            // Lower part: Φ(α) uniform on (0, Φ(γ)).
            let r = rng.sample::<f64, _>(Open01) * n.cdf(self.gamma);
            n.inverse_cdf(r)
        };
        let u_dot_z = g
            .iter()
            .zip(out.iter())
            .map(|(gi, zi)| gi * scale * zi)
            .sum::<f64>();
        for (o, gi) in out.iter_mut().zip(g) {
            let ui = gi * scale;
            *o = self.sigma * (*o - u_dot_z * ui + alpha * ui);
        }
    }

    /// One subject's release as [`PrivUnitGParams::release_into`] draws it (the same
    /// draws), charged to `who` under `part` at [`PrivUnitGParams::spent_epsilon`] (nats),
    /// the ε of the parameters the draw used: the input is normalised into the unit ball
    /// whatever it is, so only a non-finite coordinate of `g` moves the charge (to ∞).
    /// PSGD's gradient tensors draw here (docs/methods/lpct.md §7.5).
    ///
    /// # Panics
    /// As [`PrivUnitGParams::release_into`].
    pub fn release_into_charged<R: Rng + ?Sized>(
        &self,
        g: &[f64],
        c: f64,
        rng: &mut R,
        out: &mut [f64],
        part: &str,
        who: crate::ledger::Subjects<'_>,
    ) {
        self.release_into(g, c, rng, out);
        if crate::ledger::is_recording() {
            let spent = if g.iter().all(|v| v.is_finite()) {
                self.spent_epsilon()
            } else {
                f64::INFINITY
            };
            crate::ledger::charge(part, who, spent, 0.0);
        }
    }

    /// [`PrivUnitGParams::release_into`] into a new vector.
    pub fn release<R: Rng + ?Sized>(&self, g: &[f64], c: f64, rng: &mut R) -> Vec<f64> {
        let mut out = vec![0.0; g.len()];
        self.release_into(g, c, rng, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// A fixed unit vector in ℝ⁵.
    fn unit5() -> Vec<f64> {
        let v = [0.3, -0.5, 0.1, 0.7, -0.2];
        let n = v.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn parameters_are_valid_and_sigma_shrinks_with_epsilon() {
        let mut last = f64::INFINITY;
        for eps in [0.05, 0.5, 1.0, 2.0, 4.0, 8.0, 19.9] {
            let p = PrivUnitGParams::new(eps).unwrap();
            assert!(p.p >= 0.01 && p.p <= 0.99);
            // q is the upper-tail mass at γ, below p and below 1/2 (so the reference
            // code's 1000-draw rejection fails with probability q^1000 < 2^-1000).
            let n = Normal::standard();
            // (statrs' normal quantile is accurate to about 1e-10 relative.)
            assert!((n.sf(p.gamma) / p.q - 1.0).abs() < 1e-9, "eps {eps}: {p:?}");
            assert!(p.q < p.p && p.q < 0.5, "eps {eps}: {p:?}");
            // The privacy constraint p(1−q)/(q(1−p)) = e^ε.
            let ratio = (p.p * (1.0 - p.q) / (p.q * (1.0 - p.p))).ln();
            assert!(
                (ratio - eps).abs() < 1e-9 * eps.max(1.0),
                "eps {eps}: {ratio}"
            );
            assert!(p.sigma > 0.0 && p.sigma < last, "eps {eps}: {p:?}");
            last = p.sigma;
            // p* minimises σ over the grid.
            for i in 1..100 {
                assert!(gamma_sigma(f64::from(i) / 100.0, eps).2 >= p.sigma);
            }
        }
        // The cap: every ε ≥ 20 gives the same parameters.
        let a = PrivUnitGParams::new(20.0).unwrap();
        let b = PrivUnitGParams::new(1000.0).unwrap();
        assert_eq!((a.p, a.q, a.gamma, a.sigma), (b.p, b.q, b.gamma, b.sigma));
        assert_eq!(a.q, PRIV_UNIT_G_Q_CAP);
        assert!(PrivUnitGParams::new(0.0).is_err());
        assert!(PrivUnitGParams::new(f64::INFINITY).is_err());
    }

    #[test]
    fn release_is_unbiased_for_a_unit_vector() {
        // E[release] = u. Each coordinate's mean over R draws has variance
        // Var_j / R with the exact Var_j = σ² + u_j²(σγ − 1) (module documentation); the
        // tolerance is 5 standard errors, so a correct mechanism fails one of these 20
        // checks with probability about 20·5.7e-7. σ is 5.0, 1.27, 0.36 and 0.17 at these
        // ε, so 5 standard errors are at most 0.04 (ε = 0.5) and 0.003 (ε = 1000): a σ off
        // by 10% moves the largest coordinate (u ≈ 0.75) by 0.075 and fails.
        let u = unit5();
        for (eps, seed) in [(0.5, 1u64), (2.0, 2), (8.0, 3), (1000.0, 4)] {
            let p = PrivUnitGParams::new(eps).unwrap();
            let r = 400_000usize;
            let mut rng = Pcg64::seed_from_u64(seed);
            let mut sum = [0.0; 5];
            let mut out = [0.0; 5];
            for _ in 0..r {
                p.release_into(&u, 1.0, &mut rng, &mut out);
                for (s, o) in sum.iter_mut().zip(&out) {
                    *s += o;
                }
            }
            for j in 0..5 {
                let mean = sum[j] / r as f64;
                let var = p.sigma * p.sigma + u[j] * u[j] * (p.sigma * p.gamma - 1.0);
                let se = (var / r as f64).sqrt();
                assert!(
                    (mean - u[j]).abs() < 5.0 * se,
                    "eps {eps}, coordinate {j}: mean {mean}, want {} ± {}",
                    u[j],
                    5.0 * se
                );
            }
        }
    }

    #[test]
    fn squared_norm_has_the_stated_mean_and_short_vectors_stay_unbiased() {
        // E‖release‖² = σ²k + σγ for a unit u (module documentation). The tolerance is 5
        // standard errors of the mean of ‖release‖², with the standard deviation
        // estimated from the same draws (R = 200,000: the estimate is within a percent).
        let u = unit5();
        for (eps, seed) in [(1.0, 11u64), (4.0, 12)] {
            let p = PrivUnitGParams::new(eps).unwrap();
            let r = 200_000usize;
            let mut rng = Pcg64::seed_from_u64(seed);
            let sq: Vec<f64> = (0..r)
                .map(|_| p.release(&u, 1.0, &mut rng).iter().map(|v| v * v).sum())
                .collect();
            let mean = sq.iter().sum::<f64>() / r as f64;
            let var = sq.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (r - 1) as f64;
            let want = p.sigma * p.sigma * 5.0 + p.sigma * p.gamma;
            assert!(
                (mean - want).abs() < 5.0 * (var / r as f64).sqrt(),
                "eps {eps}: E|out|^2 {mean}, want {want}"
            );
        }
        // A gradient shorter than C is released unclipped (u = g/C, ‖u‖ < 1) and the
        // release stays unbiased: E = σμu = u whatever ‖u‖. For ‖u‖ ≤ 1, z_j − (u·z)u_j
        // has variance 1 − 2u_j² + u_j²‖u‖² ≤ 1 and α (independent of z) adds
        // u_j²Var(α) ≤ E[α²] = 1 + γμ, so Var(release_j) ≤ σ²(2 + γμ) = 2σ² + σγ: the
        // tolerance is 5 standard errors under this bound.
        let p = PrivUnitGParams::new(2.0).unwrap();
        let g = [0.2, -0.1, 0.05];
        let r = 400_000usize;
        let mut rng = Pcg64::seed_from_u64(13);
        let mut sum = [0.0; 3];
        for _ in 0..r {
            for (s, o) in sum.iter_mut().zip(p.release(&g, 1.0, &mut rng)) {
                *s += o;
            }
        }
        let bound = p.sigma * p.sigma * 2.0 + p.sigma * p.gamma;
        for j in 0..3 {
            let mean = sum[j] / r as f64;
            assert!(
                (mean - g[j]).abs() < 5.0 * (bound / r as f64).sqrt(),
                "coordinate {j}: {mean} vs {}",
                g[j]
            );
        }
    }

    #[test]
    fn long_gradients_are_clipped_to_norm_c() {
        // g of norm 10 with C = 1 has the law of the release of g/10: same stream, same
        // output (the release depends on g only through u).
        let p = PrivUnitGParams::new(1.0).unwrap();
        let g = [6.0, 8.0];
        let u = [0.6, 0.8];
        let a = p.release(&g, 1.0, &mut Pcg64::seed_from_u64(5));
        let b = p.release(&u, 1.0, &mut Pcg64::seed_from_u64(5));
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }

    /// The spent ε, ln(p(1 − q)/(q(1 − p))), is the budget below the cap (q is solved from
    /// it) and less than it above (q is capped).
    #[test]
    fn spent_epsilon_is_the_budget_below_the_cap() {
        for eps in [0.3, 1.0, 4.0, 12.0] {
            let p = PrivUnitGParams::new(eps).unwrap();
            assert!(
                (p.spent_epsilon() - eps).abs() < 1e-9,
                "{eps}: {}",
                p.spent_epsilon()
            );
        }
        let capped = PrivUnitGParams::new(1000.0).unwrap();
        assert!(capped.spent_epsilon() < 1000.0 && capped.spent_epsilon() > 15.0);
    }
}
