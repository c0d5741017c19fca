//! The Laplace mechanism.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// One draw of Laplace(0, b): density exp(−|z|/b)/(2b), variance 2b².
/// b = 0 returns 0 (no noise). Drawn as the difference of two independent Exp(1)
/// variables times b, which has exactly the Laplace(b) law.
///
/// # Panics
/// If b is negative or not finite.
#[inline]
pub fn laplace<R: Rng + ?Sized>(rng: &mut R, b: f64) -> f64 {
    assert!(
        b.is_finite() && b >= 0.0,
        "Laplace scale must be finite and >= 0"
    );
    if b == 0.0 {
        return 0.0;
    }
    let e1: f64 = rng.sample(rand_distr::Exp1);
    let e2: f64 = rng.sample(rand_distr::Exp1);
    let b = if crate::mutants::active("laplace-draw-scale-halved") {
        b / 2.0
    } else {
        b
    };
    b * (e1 - e2)
}

/// The sum of n independent Laplace(0, b) draws, drawn in O(1): it has exactly the law of
/// b·(G − G′) with G, G′ iid Gamma(n, 1), because a Laplace(b) draw is b times the
/// difference of two Exp(1) draws and a sum of n Exp(1) is Gamma(n, 1) (docs/architecture.md,
/// "Releases are first-class"; docs/methods/lpdt.md §7.3 "Exact cheap simulation"). Used by PHIST/APHIST, where
/// the curator only sees per-cell sums of the users' noise.
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
    b * (g.sample(rng) - g.sample(rng))
}
