//! The snapping mechanism (Mironov, "On significance of the least significant bits for
//! differential privacy", CCS 2012, §5): a Laplace mechanism whose floating-point outputs
//! do not leak through their low-order bits.
//!
//! The naive sampler `value + λ·(noise)` produces outputs whose set of representable values
//! depends on `value` (e.g. 0 + noise reaches values below 2⁻⁵³ that 1 + noise never does),
//! so an observer of the exact bits can tell neighbouring inputs apart (see
//! `audit::sampler`). Snapping clamps the input to \[−B, B\], adds
//! λ·S·ln(U) with U uniform on (0, 1\] drawn at full floating precision and S a random sign,
//! rounds the sum to the nearest multiple of Λ, the smallest power of two ≥ λ, and clamps
//! again to \[−B, B\]: every output lies on the lattice ΛZ ∩ \[−B, B\] whatever the input.
//!
//! Guarantee (Mironov 2012, Theorem 1): for inputs of sensitivity Δ and λ = Δ/ε with
//! λ < B < 2⁴⁶·λ, the mechanism is ε′-DP with ε′ = ε·(1 + 2⁻⁴⁹·B/Δ)
//! ([`SnappingLaplace::epsilon`]); the proof assumes a correctly rounded `ln`, and Rust's
//! `f64::ln` (the platform's libm) is faithful to within an ulp but not guaranteed correctly
//! rounded.

use rand::Rng;

/// The snapping mechanism at scale λ and bound B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnappingLaplace {
    /// λ, the Laplace scale (Δ/ε).
    pub lambda: f64,
    /// B, the clamping bound of inputs and outputs.
    pub bound: f64,
    /// Λ = 2^⌈log₂ λ⌉, the output lattice's step.
    pub step: f64,
}

/// Why a snapping mechanism cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("snapping mechanism: need 0 < lambda < B < 2^46 lambda, got lambda {lambda}, B {bound}")]
pub struct SnappingError {
    /// The scale asked for.
    pub lambda: f64,
    /// The bound asked for.
    pub bound: f64,
}

impl SnappingLaplace {
    /// The mechanism at scale `lambda` and bound `bound`.
    ///
    /// # Errors
    /// [`SnappingError`] unless 0 < λ < B < 2⁴⁶·λ (finite), the range of Mironov's theorem.
    pub fn new(lambda: f64, bound: f64) -> Result<SnappingLaplace, SnappingError> {
        let ok = lambda.is_finite()
            && bound.is_finite()
            && lambda > 0.0
            && lambda < bound
            && bound < 2f64.powi(46) * lambda;
        if !ok {
            return Err(SnappingError { lambda, bound });
        }
        Ok(SnappingLaplace {
            lambda,
            bound,
            step: 2f64.powi(lambda.log2().ceil() as i32),
        })
    }

    /// The ε′ the mechanism guarantees for inputs of sensitivity `sensitivity`:
    /// (Δ/λ)·(1 + 2⁻⁴⁹·B/Δ) (Mironov 2012, Theorem 1, rescaled from Δ = 1).
    pub fn epsilon(&self, sensitivity: f64) -> f64 {
        sensitivity / self.lambda * (1.0 + 2f64.powi(-49) * self.bound / sensitivity)
    }

    /// One release of `value`: clamp to \[−B, B\], add λ·S·ln U, round to the nearest
    /// multiple of Λ, clamp to \[−B, B\]. Draws 1 sign bit and a full-precision uniform
    /// ([`uniform_full_precision`]) from `rng`.
    pub fn release<R: Rng + ?Sized>(&self, value: f64, rng: &mut R) -> f64 {
        let b = self.bound;
        let sign = if rng.gen::<bool>() { 1.0 } else { -1.0 };
        let noisy = value.clamp(-b, b) + sign * self.lambda * uniform_full_precision(rng).ln();
        // Division and multiplication by a power of two are exact.
        ((noisy / self.step).round() * self.step).clamp(-b, b)
    }
}

/// A uniform draw on (0, 1\] in which every double of (0, 1\] can occur with its
/// probability: the exponent is geometric (one more halving per leading zero bit of a
/// random stream, down to the subnormals) and the 52 mantissa bits are uniform, as the
/// snapping mechanism's proof needs (Mironov 2012, §5.2). `rng.gen::<f64>()` instead
/// returns multiples of 2⁻⁵³ only.
pub fn uniform_full_precision<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let mut exponent: i32 = -1;
    loop {
        let bits: u64 = rng.gen();
        if bits != 0 {
            exponent -= bits.leading_zeros() as i32;
            break;
        }
        exponent -= 64;
        if exponent < -1074 {
            return f64::MIN_POSITIVE * f64::EPSILON;
        }
    }
    let mantissa = rng.gen::<u64>() >> 12;
    let m = 1.0 + mantissa as f64 * 2f64.powi(-52);
    // m·2^e ∈ [2^e, 2^(e+1)); the top value 1 is reached by rounding m up, as in Mironov.
    // (2^e is built from its bits: `2f64.powi(e)` underflows to 0 below about 2^-1023.)
    m * pow2(exponent.max(-1074))
}

/// 2^e exactly, for −1074 ≤ e ≤ 0 (subnormal below −1022).
fn pow2(e: i32) -> f64 {
    debug_assert!((-1074..=0).contains(&e));
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// Outputs lie on the lattice ΛZ inside [−B, B], whatever the input's low bits.
    #[test]
    fn outputs_are_on_the_lattice_and_clamped() {
        let m = SnappingLaplace::new(0.3, 4.0).unwrap();
        assert_eq!(m.step, 0.5);
        let mut rng = Pcg64::seed_from_u64(1);
        for i in 0..10_000 {
            let v = [0.0, 1.0, 0.1 + f64::EPSILON, -7.0][i % 4];
            let z = m.release(v, &mut rng);
            assert!(z.abs() <= 4.0, "{z}");
            assert_eq!((z / 0.5).fract(), 0.0, "{z}");
        }
    }

    /// Before rounding the noise is Laplace(λ): its mean absolute value is λ. With the
    /// lattice step Λ ≤ 2λ the rounding moves each output by at most Λ/2, so the mean
    /// |z| of 10⁵ releases of 0 (far from the bound) is within Λ/2 + 5 standard errors
    /// (sd of |Laplace| is λ) of λ.
    #[test]
    fn noise_has_the_laplace_scale() {
        let lambda = 0.7;
        let m = SnappingLaplace::new(lambda, 1000.0).unwrap();
        let mut rng = Pcg64::seed_from_u64(2);
        let n = 100_000;
        let mean = (0..n).map(|_| m.release(0.0, &mut rng).abs()).sum::<f64>() / n as f64;
        let tol = m.step / 2.0 + 5.0 * lambda / (n as f64).sqrt();
        assert!((mean - lambda).abs() <= tol, "{mean} vs {lambda} ± {tol}");
    }

    /// The full-precision uniform reaches values below 2⁻⁵³ (which `gen::<f64>()` never
    /// returns except 0) with about their probability: P[U < 2⁻¹⁰] = 2⁻¹⁰.
    #[test]
    fn full_precision_uniform_has_fine_values_and_the_right_law() {
        let mut rng = Pcg64::seed_from_u64(3);
        let n = 1 << 20;
        let draws: Vec<f64> = (0..n).map(|_| uniform_full_precision(&mut rng)).collect();
        assert!(draws.iter().all(|&u| u > 0.0 && u <= 1.0));
        let small = draws.iter().filter(|&&u| u < 2f64.powi(-10)).count() as f64;
        // Binomial(2^20, 2^-10): mean 1024, sd 32; 5 sd.
        assert!((small - 1024.0).abs() < 160.0, "{small}");
        assert!(draws.iter().any(|&u| (u * 2f64.powi(53)).fract() != 0.0));
    }

    #[test]
    fn the_theorem_range_is_enforced() {
        assert!(SnappingLaplace::new(1.0, 0.5).is_err());
        assert!(SnappingLaplace::new(0.0, 1.0).is_err());
        assert!(SnappingLaplace::new(1.0, 2f64.powi(47)).is_err());
        let m = SnappingLaplace::new(0.5, 10.0).unwrap();
        assert!((m.epsilon(1.0) - 2.0 * (1.0 + 10.0 * 2f64.powi(-49))).abs() < 1e-15);
    }

    /// With λ a power of two the lattice step is Λ = λ, and the snapped output of 0 (far
    /// from B) is round(Z/λ)·λ for Z ~ Laplace(λ): P(|z| = kλ) = e^{−(k−½)} − e^{−(k+½)}
    /// for k ≥ 1, so E|z| = λ·(e^{½} − e^{−½})·Σ k e^{−k} = λ·(e^{½} − e^{−½})·e^{−1}/(1 −
    /// e^{−1})² ≈ 0.9595λ, and E z = 0. Over n = 10⁵ releases each mean is within 5
    /// standard errors of its value (sd z ≤ sd Z + λ/2 = (√2 + ½)λ < 2λ: the rounding moves
    /// each output by at most Λ/2).
    #[test]
    fn snapped_noise_has_its_exact_law() {
        let lambda = 0.5;
        let m = SnappingLaplace::new(lambda, 1000.0).unwrap();
        assert_eq!(m.step, lambda);
        let e = std::f64::consts::E;
        let want_abs = lambda * (e.sqrt() - 1.0 / e.sqrt()) * (1.0 / e) / (1.0 - 1.0 / e).powi(2);
        let mut rng = Pcg64::seed_from_u64(4);
        let n = 100_000;
        let z: Vec<f64> = (0..n).map(|_| m.release(0.0, &mut rng)).collect();
        let tol = 5.0 * 2.0 * lambda / (n as f64).sqrt();
        let mean_abs = z.iter().map(|v| v.abs()).sum::<f64>() / n as f64;
        let mean = z.iter().sum::<f64>() / n as f64;
        assert!(
            (mean_abs - want_abs).abs() <= tol,
            "E|z| {mean_abs} vs {want_abs} ± {tol}"
        );
        assert!(mean.abs() <= tol, "E z {mean}");
        // A value far inside the bound is the centre of its outputs.
        let z3: f64 = (0..n).map(|_| m.release(3.0, &mut rng)).sum::<f64>() / n as f64;
        assert!((z3 - 3.0).abs() <= tol, "E z {z3} for 3");
    }

    /// ε′ = (Δ/λ)(1 + 2⁻⁴⁹·B/Δ) at Δ = 2 (Δ ≠ 1 tells B/Δ from B·Δ).
    #[test]
    fn epsilon_by_hand_at_a_sensitivity_of_two() {
        let m = SnappingLaplace::new(0.5, 10.0).unwrap();
        let want = 4.0 * (1.0 + 2f64.powi(-49) * 5.0);
        assert_eq!(m.epsilon(2.0), want);
    }

    /// A stream of given u64 draws (then zeros), to walk the rare branches of
    /// [`uniform_full_precision`]: a zero draw (probability 2⁻⁶⁴ each) adds 64 to the
    /// exponent's depth.
    struct Draws(Vec<u64>);
    impl rand::RngCore for Draws {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            if self.0.is_empty() {
                0
            } else {
                self.0.remove(0)
            }
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            rand::RngCore::try_fill_bytes(self, dest).unwrap()
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
            for b in dest {
                *b = self.next_u64() as u8;
            }
            Ok(())
        }
    }

    #[test]
    fn zero_draws_deepen_the_exponent_down_to_the_smallest_subnormal() {
        // One zero draw, then a draw with its top bit set: exponent −1 − 64 = −65; the
        // mantissa's 52 bits all ones: u = (2 − 2⁻⁵²)·2⁻⁶⁵.
        let u = uniform_full_precision(&mut Draws(vec![0, 1 << 63, u64::MAX]));
        assert_eq!(u, (2.0 - 2f64.powi(-52)) * 2f64.powi(-65));
        // Three leading zero bits after two zero draws: −1 − 128 − 3 = −132, mantissa 0.
        let u = uniform_full_precision(&mut Draws(vec![0, 0, 1 << 60, 0]));
        assert_eq!(u, 2f64.powi(-132));
        // Zeros forever: the smallest positive double, 2⁻¹⁰⁷⁴, never 0.
        let u = uniform_full_precision(&mut Draws(vec![]));
        assert_eq!(u, f64::from_bits(1));
        // Sixteen zero draws: 2⁻¹⁰²⁵, a subnormal (2f64.powi(-1025) is 0: this once
        // returned 2⁻¹⁰⁷⁴ instead).
        let mut d = vec![0; 16];
        d.extend([1 << 63, 0]);
        let u = uniform_full_precision(&mut Draws(d));
        assert_eq!(u, f64::from_bits(1 << 49));
    }
}
