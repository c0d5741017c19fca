//! The Laplace mechanism: the samplers ([`laplace`], [`laplace_sum`]) and the charged
//! releases every method draws through ([`laplace_release`], [`laplace_vector_release`],
//! [`laplace_sums`]), which charge the privacy ledger from the scale the draw really used
//! and the domain of the input really seen (docs/architecture.md, "The ledger").

use crate::ledger::{self, laplace_epsilon, Domain, Subjects};
use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// The scale a draw of nominal scale `b` is made with: `b`, the one place the samplers
/// read their scale (the mutation suite's `laplace-draw-scale-halved` slip halves it
/// here, so the draws and the charges computed from what the draws used move together).
#[inline]
fn drawn_scale(b: f64) -> f64 {
    if crate::mutants::active("laplace-draw-scale-halved") {
        b / 2.0
    } else {
        b
    }
}

/// One draw of Laplace(0, b) and the scale it was drawn with (0 when b = 0: no noise).
#[inline]
fn laplace_drawn<R: Rng + ?Sized>(rng: &mut R, b: f64) -> (f64, f64) {
    assert!(
        b.is_finite() && b >= 0.0,
        "Laplace scale must be finite and >= 0"
    );
    if b == 0.0 {
        return (0.0, 0.0);
    }
    let e1: f64 = rng.sample(rand_distr::Exp1);
    let e2: f64 = rng.sample(rand_distr::Exp1);
    let b = drawn_scale(b);
    (b * (e1 - e2), b)
}

/// One draw of Laplace(0, b): density exp(−|z|/b)/(2b), variance 2b².
/// b = 0 returns 0 (no noise). Drawn as the difference of two independent Exp(1)
/// variables times b, which has exactly the Laplace(b) law. Uncharged: the methods draw
/// through [`laplace_release`] and its siblings; the audit and the tests draw the law here.
///
/// # Panics
/// If b is negative or not finite.
#[inline]
pub fn laplace<R: Rng + ?Sized>(rng: &mut R, b: f64) -> f64 {
    laplace_drawn(rng, b).0
}

/// The sum of n independent Laplace(0, b) draws, drawn in O(1): it has exactly the law of
/// b·(G − G′) with G, G′ iid Gamma(n, 1), because a Laplace(b) draw is b times the
/// difference of two Exp(1) draws and a sum of n Exp(1) is Gamma(n, 1) (docs/architecture.md,
/// "Releases are first-class"; docs/methods/lpdt.md §7.3 "Exact cheap simulation"). The
/// methods draw it through [`laplace_sums`], which charges the n users it stands for.
///
/// n = 0 or b = 0 returns 0.
pub fn laplace_sum<R: Rng + ?Sized>(rng: &mut R, n: usize, b: f64) -> f64 {
    assert!(
        b.is_finite() && b >= 0.0,
        "Laplace scale must be finite and >= 0"
    );
    if n == 0 || b == 0.0 {
        return 0.0;
    }
    let g = Gamma::new(n as f64, 1.0).expect("shape n > 0");
    drawn_scale(b) * (g.sample(rng) - g.sample(rng))
}

/// One subject's Laplace release `value + Lap(scale)` (one draw from `rng`), charged to
/// `who` under `part` at Δ/b: b the scale the draw used, Δ the sensitivity of `domain`
/// widened to take in `value` ([`Domain::sensitivity_seen`]: an unclipped label is
/// charged for the range it really spans, NaN or ∞ at ∞). Dwork & Roth 2014, Theorem 3.6;
/// the label releases of LPDT (eq. (5)), LPCT, HistOfTree (eq. (4)), DECONV and the
/// DiPriMe leaves draw here. ε in nats; `value`, `scale` and the domain in the value's
/// units.
///
/// # Panics
/// If `scale` is negative or not finite.
#[inline]
pub fn laplace_release<R: Rng + ?Sized>(
    rng: &mut R,
    value: f64,
    domain: Domain,
    scale: f64,
    part: &str,
    who: Subjects<'_>,
) -> f64 {
    let (noise, drawn) = laplace_drawn(rng, scale);
    if ledger::is_recording() {
        let epsilon = laplace_epsilon(domain.sensitivity_seen(&[value]), drawn);
        ledger::charge(part, who, epsilon, 0.0);
    }
    value + noise
}

/// One subject's Laplace release of a vector: `values[j] += Lap(scale)` coordinate by
/// coordinate (one draw each, in order), charged once to `who` under `part` at Δ/b: Δ the
/// L1 sensitivity of `domain` widened by the input `values` held before the noise
/// ([`Domain::sensitivity_seen`]), b the smallest scale the draws used. A one-hot cell
/// vector ([`Domain::OneHot`] with lo = hi = 1) and a label vector y·U (LPCT paper §3;
/// PHIST, LPDT paper App. D.1), DECONV's clamped features ([`Domain::Interval`] over d
/// coordinates) and a node's class counts ([`Domain::Sensitivity`] 1) draw here.
///
/// # Panics
/// If `scale` is negative or not finite.
pub fn laplace_vector_release<R: Rng + ?Sized>(
    rng: &mut R,
    values: &mut [f64],
    domain: Domain,
    scale: f64,
    part: &str,
    who: Subjects<'_>,
) {
    let sensitivity = if ledger::is_recording() {
        Some(domain.sensitivity_seen(values))
    } else {
        None
    };
    let mut smallest = f64::INFINITY;
    for v in values.iter_mut() {
        let (noise, drawn) = laplace_drawn(rng, scale);
        smallest = smallest.min(drawn);
        *v += noise;
    }
    if let Some(delta) = sensitivity {
        // No coordinate, no release: nothing spent.
        let epsilon = if values.is_empty() {
            0.0
        } else {
            laplace_epsilon(delta, smallest)
        };
        ledger::charge(part, who, epsilon, 0.0);
    }
}

/// The Laplace noise of n subjects' releases that a curator reads only through sums
/// (PHIST's and LPCT's per-cell sums, private validation's mean loss): every draw of
/// [`LaplaceSums::draw`] is one exact sum of n Laplace draws at the scale the subjects were
/// charged at ([`laplace_sums`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceSums {
    n: usize,
    scale: f64,
}

impl LaplaceSums {
    /// One sum of the n subjects' Laplace draws on one coordinate ([`laplace_sum`] at the
    /// charged scale; 0 with n = 0).
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        laplace_sum(rng, self.n, self.scale)
    }

    /// The number of subjects n.
    pub fn n(&self) -> usize {
        self.n
    }
}

/// Charges the n subjects `first..first + n` one Laplace release each at `scale` under
/// `part`, and returns the [`LaplaceSums`] that draws their noise as exact sums at that
/// scale. Subject `first + i` is charged Δ_i/b: b the scale the sampler draws with, Δ_i the
/// sensitivity of `domain` widened by its input, `inputs()[i]` (the hot value of a
/// one-hot label vector, a validation user's loss; [`Domain::sensitivity_seen`]).
/// `inputs` is called only while a recording runs and must yield n values.
///
/// # Panics
/// If `scale` is negative or not finite, or (recording) `inputs` does not yield n values.
pub fn laplace_sums<I: IntoIterator<Item = f64>>(
    domain: Domain,
    n: usize,
    inputs: impl FnOnce() -> I,
    scale: f64,
    part: &str,
    first: usize,
) -> LaplaceSums {
    assert!(
        scale.is_finite() && scale >= 0.0,
        "Laplace scale must be finite and >= 0"
    );
    let drawn = if scale == 0.0 {
        0.0
    } else {
        drawn_scale(scale)
    };
    ledger::charge_each(
        part,
        first,
        || {
            let eps: Vec<f64> = inputs()
                .into_iter()
                .map(|v| laplace_epsilon(domain.sensitivity_seen(&[v]), drawn))
                .collect();
            assert_eq!(eps.len(), n, "one input per subject");
            eps
        },
        0.0,
    );
    LaplaceSums { n, scale }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::recording;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The charged release draws exactly what `value + laplace` draws, and charges R/b
    /// inside the domain.
    #[test]
    fn a_release_is_the_plain_draw_and_charges_range_over_scale() {
        let d = Domain::Interval { lo: 0.0, hi: 2.0 };
        let (z, r) = recording(|| {
            laplace_release(
                &mut Pcg64::seed_from_u64(3),
                1.5,
                d,
                4.0,
                "label",
                Subjects::One(7),
            )
        });
        assert_eq!(z, 1.5 + laplace(&mut Pcg64::seed_from_u64(3), 4.0));
        assert_eq!(r.worst, Some(7));
        assert_eq!(r.max_epsilon, 0.5);
        assert_eq!(r.path_text(), "label: 1 x 0.500000");
    }

    /// An unclipped input is charged for the range it spans: 1000 ranges above the bounds,
    /// 1001 times the faithful charge; NaN and ∞ at ∞.
    #[test]
    fn an_input_outside_its_domain_is_charged_for_what_it_spans() {
        let d = Domain::Interval { lo: 0.0, hi: 1.0 };
        let charged = |v: f64| {
            recording(|| {
                laplace_release(
                    &mut Pcg64::seed_from_u64(1),
                    v,
                    d,
                    1.0,
                    "x",
                    Subjects::One(0),
                )
            })
            .1
            .max_epsilon
        };
        assert_eq!(charged(0.3), 1.0);
        assert_eq!(charged(1001.0), 1001.0);
        assert_eq!(charged(-2.0), 3.0);
        assert_eq!(charged(f64::NAN), f64::INFINITY);
        assert_eq!(charged(f64::INFINITY), f64::INFINITY);
    }

    /// A vector release adds one draw per coordinate, in order, and charges the vector
    /// once: a one-hot indicator at 2/b, a label vector at 2M/b, DECONV's box at d/b.
    #[test]
    fn a_vector_release_charges_the_vector_once() {
        let run = |values: &[f64], d: Domain| {
            let mut v = values.to_vec();
            let ((), r) = recording(|| {
                laplace_vector_release(
                    &mut Pcg64::seed_from_u64(5),
                    &mut v,
                    d,
                    0.5,
                    "v",
                    Subjects::One(0),
                )
            });
            let mut rng = Pcg64::seed_from_u64(5);
            for (a, b) in v.iter().zip(values) {
                assert_eq!(*a, b + laplace(&mut rng, 0.5));
            }
            (r.calls, r.max_epsilon)
        };
        let hot = Domain::OneHot {
            lo: 1.0,
            hi: 1.0,
            cells: 3,
        };
        assert_eq!(run(&[0.0, 1.0, 0.0], hot), (1, 4.0));
        let single = Domain::OneHot {
            lo: 1.0,
            hi: 1.0,
            cells: 1,
        };
        assert_eq!(run(&[1.0], single), (1, 0.0));
        let label = Domain::OneHot {
            lo: -1.0,
            hi: 3.0,
            cells: 2,
        };
        assert_eq!(run(&[0.0, 2.0], label), (1, 12.0));
        // A label 10 outside [−1, 3] in the vector: ‖x‖₁ + M = 13, over 0.5.
        assert_eq!(run(&[0.0, 10.0], label), (1, 26.0));
        let features = Domain::Interval { lo: 0.0, hi: 1.0 };
        assert_eq!(run(&[0.2, 0.9, 0.0], features), (1, 6.0));
    }

    /// The sums stand for n subjects: each is charged once (one call when all lie in the
    /// domain), a subject whose input lies outside alone pays more, and the draws are
    /// `laplace_sum` at the charged scale.
    #[test]
    fn sums_charge_every_subject_they_stand_for() {
        let d = Domain::OneHot {
            lo: 0.0,
            hi: 1.0,
            cells: 2,
        };
        let (z, r) = recording(|| {
            let s = laplace_sums(d, 4, || [0.0, 1.0, 0.5, 1.0], 2.0, "label", 10);
            s.draw(&mut Pcg64::seed_from_u64(2))
        });
        assert_eq!(z, laplace_sum(&mut Pcg64::seed_from_u64(2), 4, 2.0));
        assert_eq!(
            (r.subjects, r.calls, r.max_epsilon, r.min_epsilon),
            (4, 1, 1.0, 1.0)
        );
        let ((), r) = recording(|| {
            laplace_sums(d, 3, || [0.0, 7.0, 0.5], 2.0, "label", 0);
        });
        assert_eq!((r.subjects, r.calls, r.worst), (3, 3, Some(1)));
        assert_eq!(r.max_epsilon, 4.0);
        // Outside a recording the inputs are never read.
        let s = laplace_sums(d, 2, || -> Vec<f64> { unreachable!() }, 1.0, "x", 0);
        assert_eq!(s.n(), 2);
    }
}
