//! Audit cases of DECONV's user release (docs/methods/lpdt.md §7.5; [`release`]): the features plus
//! Laplace noise per coordinate at ε_X = ε/2 (scale d/ε_X), the clipped label plus Laplace
//! noise at ε_Y = ε/2, and the two together at ε.
//!
//! Worst-case neighbours: features 0^d against 1^d (L1 distance d, the most within the
//! clamp to \[0,1\]^d) and labels at the two bounds; and, each on its own part, features and
//! a label far beyond their domain against the bound they are clamped to. The audit uses d = 2 features: the loss
//! does not depend on d when the scale is d/ε_X, and a scale that forgot d would show as a
//! doubled loss.

use super::{beyond, laplace_log_ratio, two_part_cases, AuditCase, NeighbourPair, BEYOND};
use crate::data::Matrix;
use crate::estimate::LabelBounds;
use crate::methods::deconv::release;
use rand_pcg::Pcg64;

/// Features per audited user.
const D: usize = 2;

/// The three cases of DECONV's release at budget ε with labels in `bounds`, claiming ε/2
/// for the features, ε/2 for the label and ε for the whole release. Each statistic is the
/// log-likelihood ratio under the claimed scales (d/(ε/2) per coordinate, R/(ε/2) for the
/// label).
///
/// # Panics
/// If ε is not finite and > 0 (the method validates ε before it is audited).
pub fn deconv_release_cases(epsilon: f64, bounds: LabelBounds) -> Vec<AuditCase> {
    let half = epsilon / 2.0;
    let (b_x, b_y) = (D as f64 / half, bounds.range() / half);
    let (lo, hi) = (bounds.lo, bounds.hi);
    // One release of a user with all features `v` and label `y`: (X̃, Ỹ).
    let one = move |v: f64, y: f64, rng: &mut Pcg64| {
        let x = Matrix::new(1, D, vec![v; D]);
        let r = release(&x, &[y], bounds, epsilon, rng).expect("a valid epsilon");
        ([r.x.get(0, 0), r.x.get(0, 1)], r.y[0])
    };
    let llr_x = move |x: [f64; D]| {
        x.iter()
            .map(|&z| laplace_log_ratio(z, 0.0, 1.0, b_x))
            .sum::<f64>()
    };
    let llr_y = move |y: f64| laplace_log_ratio(y, lo, hi, b_y);
    let mut cases = two_part_cases(
        [("features", half), ("label", half)],
        "(x = 0, y = lo) vs (x = 1, y = hi), d = 2; statistic the log-likelihood ratio",
        move |b, r| {
            let (x, y) = if b { one(1.0, hi, r) } else { one(0.0, lo, r) };
            (llr_x(x), llr_y(y))
        },
    );
    // Inputs far beyond the domain against the bound they are clamped or clipped to (one
    // law when the release clamps them): the features and the label, each on its own part.
    let far_x = beyond(0.0, 1.0);
    cases[0].alternatives.push(NeighbourPair {
        neighbours: format!("x = {BEYOND} widths beyond [0, 1] vs x = 1 (the bound it clamps to), y = hi; statistic the first noisy feature"),
        release_a: Box::new(move |r| one(far_x, hi, r).0[0]),
        release_b: Box::new(move |r| one(1.0, hi, r).0[0]),
    });
    let far_y = beyond(lo, hi);
    cases[1].alternatives.push(NeighbourPair {
        neighbours: format!(
            "y = hi + {BEYOND} widths vs y = hi (the bound it clips to); statistic the noisy label"
        ),
        release_a: Box::new(move |r| one(1.0, far_y, r).1),
        release_b: Box::new(move |r| one(1.0, hi, r).1),
    });
    cases
}
