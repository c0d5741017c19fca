//! Audit cases of the PHIST/APHIST user release (docs/methods/lpdt.md §7.3;
//! [`HistogramMechanism::release`]): the noisy cell indicator W at ε_cell, the noisy label
//! vector Z at ε_label, and the two together.
//!
//! Worst-case neighbours: a user in cell 0 against one in cell 1 (two coordinates of W and of
//! Z differ), both with the label of largest |y − shift| (Z's L1 distance 2·M_Y); for the
//! label vector also a label far beyond that bound against the bound (one law when the
//! release clips). Cells
//! beyond the two that differ carry input-independent noise, so two cells suffice. The
//! curator's simulation draws per-cell sums of these releases ([`histogram_predict`]'s
//! Gamma sums); the release audited here is the single user's.
//!
//! [`histogram_predict`]: crate::estimate::histogram_predict

use super::{beyond, laplace_log_ratio, two_part_cases, AuditCase, NeighbourPair, BEYOND};
use crate::estimate::HistogramMechanism;
use crate::privacy::ledger::Subjects;
use rand_pcg::Pcg64;

/// The three cases of `mech`'s user release, claiming `eps_cell` for W, `eps_label` for Z
/// and their sum for the whole release. Each statistic is the log-likelihood ratio of the
/// release under the claimed budgets (W at scale 2/ε_cell, Z at 2·M_Y/ε_label), summed over
/// the two cells that differ.
pub fn histogram_release_cases(
    mech: &HistogramMechanism,
    eps_cell: f64,
    eps_label: f64,
) -> Vec<AuditCase> {
    let m = *mech;
    let (lo, hi) = (m.bounds.lo, m.bounds.hi);
    // The label of largest |y − shift|, and its shifted value (the Z coordinate's centre).
    let y = if (hi - m.shift).abs() >= (lo - m.shift).abs() {
        hi
    } else {
        lo
    };
    let centre = m.bounds.clip(y) - m.shift;
    let (b_w, b_z) = (2.0 / eps_cell, 2.0 * centre.abs() / eps_label);
    // One release of a user in `cell`: (W_0, W_1, Z_0, Z_1).
    let release = move |cell: usize, rng: &mut Pcg64| {
        let (mut w, mut z) = ([0.0; 2], [0.0; 2]);
        m.release(cell, y, (&mut w, &mut z), Subjects::One(0), rng);
        (w, z)
    };
    // Input a is cell 0, input b cell 1: centres (1, 0) vs (0, 1) for W, (c, 0) vs (0, c) for Z.
    let llr_w = move |w: [f64; 2]| {
        laplace_log_ratio(w[0], 1.0, 0.0, b_w) + laplace_log_ratio(w[1], 0.0, 1.0, b_w)
    };
    let llr_z = move |z: [f64; 2]| {
        laplace_log_ratio(z[0], centre, 0.0, b_z) + laplace_log_ratio(z[1], 0.0, centre, b_z)
    };
    let neighbours = format!("cell 0 vs cell 1, y = {y}; statistic the log-likelihood ratio");
    // The label vector also tries, in cell 0, a label far beyond the bound y against y
    // itself (the same law when the release clips): statistic Z_0.
    let far = if y == hi {
        beyond(lo, hi)
    } else {
        lo - (beyond(lo, hi) - hi)
    };
    let z0 = move |label: f64, rng: &mut Pcg64| {
        let (mut w, mut z) = ([0.0; 2], [0.0; 2]);
        m.release(0, label, (&mut w, &mut z), Subjects::One(0), rng);
        z[0]
    };
    let beyond_pair = NeighbourPair {
        neighbours: format!(
            "cell 0, y {BEYOND} widths beyond the bound vs y = {y} (the bound it clips to); statistic Z_0"
        ),
        release_a: Box::new(move |r| z0(far, r)),
        release_b: Box::new(move |r| z0(y, r)),
    };
    let mut cases = two_part_cases(
        [("cell vector", eps_cell), ("label vector", eps_label)],
        &neighbours,
        move |b, r| {
            let (w, z) = release(usize::from(b), r);
            (llr_w(w), llr_z(z))
        },
    );
    cases[1].alternatives.push(beyond_pair);
    cases
}
