//! Audit cases of the Laplace samplers themselves: the mechanism of
//! sensitivity 1 on inputs 0 and 1 at scale 1/ε, drawn by the tool's floating-point
//! sampler (`value + laplace(rng, 1/ε)`, what every method runs) or by the snapping
//! mechanism ([`SnappingLaplace`], `dp-repro audit --secure-noise`).
//!
//! Two statistics per sampler: the output z (the mechanism's mathematics: half-lines of z
//! are its tight events) and its low bits, `1{|z| < 1/2 and z is not a multiple of 2⁻⁵³}`.
//! From input 1 every output below 1/2 in absolute value is a multiple of 2⁻⁵³ (1 + n with
//! n ∈ (−3/2, −1/2) is exact, and such n are multiples of 2⁻⁵³), while from input 0 small
//! outputs are the noise itself, with bits far below 2⁻⁵³: the event has probability 0
//! under input 1 and not under input 0, an unbounded loss that the audit certifies up to
//! what its draws allow (Mironov, CCS 2012, makes the same observation with the sets of
//! reachable outputs). The snapping mechanism's outputs are multiples of Λ ≥ 1/ε whatever
//! the input, so the event never happens.

use super::AuditCase;
use crate::privacy::{laplace, SnappingLaplace};
use rand_pcg::Pcg64;

/// Which Laplace sampler an audit draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampler {
    /// `value + laplace(rng, scale)`, the floating-point sampler every method uses.
    FloatingPoint,
    /// The snapping mechanism, bound B = 1 + 30λ (the inputs 0 and 1 and 30 scales of
    /// noise).
    Snapping,
}

impl Sampler {
    /// The method column of its rows.
    pub fn label(self) -> &'static str {
        match self {
            Sampler::FloatingPoint => "Laplace sampler (floating point)",
            Sampler::Snapping => "Laplace sampler (snapping)",
        }
    }
}

/// The low-bit statistic: 1 when |z| < 1/2 and z has bits below 2⁻⁵³, else 0.
pub fn low_bits(z: f64) -> f64 {
    f64::from(u8::from(
        z.abs() < 0.5 && (z * 2f64.powi(53)).fract() != 0.0,
    ))
}

/// The cases of `sampler` at budget ε: `value` (the output) and `low bits`, on inputs 0 vs
/// 1, each claiming ε (floating point) or the snapping mechanism's ε′.
///
/// # Panics
/// If ε is not finite and > 0.
pub fn sampler_cases(sampler: Sampler, epsilon: f64) -> Vec<AuditCase> {
    assert!(epsilon.is_finite() && epsilon > 0.0, "epsilon must be > 0");
    let lambda = 1.0 / epsilon;
    let (draw, claimed): (fn(f64, f64, &mut Pcg64) -> f64, f64) = match sampler {
        Sampler::FloatingPoint => (|v, l, r| v + laplace(r, l), epsilon),
        Sampler::Snapping => (
            |v, l, r| {
                SnappingLaplace::new(l, 1.0 + 30.0 * l)
                    .expect("30 scales above 1 are inside the theorem's range")
                    .release(v, r)
            },
            SnappingLaplace::new(lambda, 1.0 + 30.0 * lambda)
                .expect("30 scales above 1 are inside the theorem's range")
                .epsilon(1.0),
        ),
    };
    let case = |part: &str, neighbours: &str, stat: fn(f64) -> f64| AuditCase {
        part: part.into(),
        neighbours: neighbours.into(),
        claimed,
        delta: 0.0,
        release_a: Box::new(move |r| stat(draw(0.0, lambda, r))),
        release_b: Box::new(move |r| stat(draw(1.0, lambda, r))),
        alternatives: Vec::new(),
    };
    vec![
        case(
            "value",
            "input 0 vs 1, scale 1/epsilon; statistic the output",
            |z| z,
        ),
        case(
            "low bits",
            "input 0 vs 1, scale 1/epsilon; statistic 1{|z| < 1/2 and z not a multiple of 2^-53}",
            low_bits,
        ),
    ]
}
