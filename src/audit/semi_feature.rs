//! Audit cases of the semi-feature local releases (HistOfTree card histoftree.md §2–§3, §8):
//! neighbouring inputs agree on the user's public coordinates (which are sent in the clear
//! and fix the candidate set I_i) and differ in the private coordinates and the label.
//!
//! * HistOfTree / AdHistOfTree ([`candidate_release_cases`]): round 1 the noisy label
//!   Ỹ = clip(y) + Lap(R/ε_Y) ([`crate::methods::pardt::noisy_labels`], as the method draws
//!   it), round 2 the cell through generalized randomized response over I_i
//!   ([`Grr::release`]) or centred randomized-response bits ([`centred_rr_bit`]) at ε_U.
//! * ParDT and LabelDT ([`label_release_case`]): the noisy label alone.
//! * KRR ([`krr_release_cases`]): k-ary randomized response on each private feature's bin
//!   and the noisy label ([`krr_release`]).
//!
//! Statistics are log-likelihood ratios under the claimed budgets, as in [`super`].

use super::{laplace_log_ratio, two_part_cases, AuditCase};
use crate::data::{Matrix, PrivacyMask};
use crate::estimate::{centred_rr_bit, CandidateMechanism, LabelBounds};
use crate::methods::krr::{krr_budgets, krr_release, KrrValue};
use crate::methods::pardt::noisy_labels;
use crate::privacy::{rr_keep_probability, Grr};

/// The size of the candidate set I_i in the HistOfTree cases: the loss of GRR and of the
/// centred bits does not depend on it, K > 2 lets a report fall outside both true cells.
const CANDIDATES: usize = 4;

/// One noisy label Ỹ of `y` at ε_Y (scale R/ε_Y) and its log-likelihood ratio for labels
/// lo vs hi.
fn label_stat(
    bounds: LabelBounds,
    eps_label: f64,
) -> impl Fn(f64, &mut rand_pcg::Pcg64) -> f64 + Clone {
    let scale = bounds.range() / eps_label;
    move |y, rng| {
        let z = noisy_labels(&[y], bounds, scale, rng)[0];
        laplace_log_ratio(z, bounds.lo, bounds.hi, scale)
    }
}

/// HistOfTree's user release under cell mechanism `mech` at (ε_U, ε_Y) = (`eps_cell`,
/// `eps_label`): public coordinates equal (I_i of 4 cells), the private coordinates in cell
/// 0 vs cell 1 of I_i, y = lo vs hi. Parts: the cell report (ε_U), the label (ε_Y), the
/// user's two rounds (ε_U + ε_Y).
pub fn candidate_release_cases(
    mech: CandidateMechanism,
    eps_cell: f64,
    eps_label: f64,
    bounds: LabelBounds,
) -> Vec<AuditCase> {
    let label = label_stat(bounds, eps_label);
    let grr = Grr::new(eps_cell, CANDIDATES);
    let keep = rr_keep_probability(eps_cell).keep;
    let half = eps_cell / 2.0;
    let stats = move |input_b: bool, rng: &mut rand_pcg::Pcg64| {
        let truth = usize::from(input_b);
        let cell = match mech {
            CandidateMechanism::Grr => match grr.release(truth, rng) {
                0 => eps_cell,
                1 => -eps_cell,
                _ => 0.0,
            },
            CandidateMechanism::CentredRr => {
                // Every candidate's bit, in order; only cells 0 and 1 differ between a
                // and b, each bit at ε_U/2.
                let bits: Vec<bool> = (0..CANDIDATES)
                    .map(|j| centred_rr_bit(j == truth, keep, rng))
                    .collect();
                let sign = |b: bool| if b { half } else { -half };
                sign(bits[0]) - sign(bits[1])
            }
        };
        let y = if input_b { bounds.hi } else { bounds.lo };
        (cell, label(y, rng))
    };
    let cell_part = match mech {
        CandidateMechanism::Grr => "cell (generalized RR over I_i)",
        CandidateMechanism::CentredRr => "cell (centred RR bits over I_i)",
    };
    two_part_cases(
        [(cell_part, eps_cell), ("label", eps_label)],
        "public coordinates equal (|I_i| = 4), private coordinates in cell 0 vs cell 1, y = lo vs hi",
        stats,
    )
}

/// The noisy label Ỹ = clip(y) + Lap(R/ε) of ParDT and LabelDT, claiming ε, for labels lo
/// vs hi; `neighbours` says what else the inputs share.
pub fn label_release_case(epsilon: f64, bounds: LabelBounds, neighbours: &str) -> AuditCase {
    let (sa, sb) = (label_stat(bounds, epsilon), label_stat(bounds, epsilon));
    AuditCase {
        part: "label".into(),
        neighbours: neighbours.into(),
        claimed: epsilon,
        delta: 0.0,
        release_a: Box::new(move |r| sa(bounds.lo, r)),
        release_b: Box::new(move |r| sb(bounds.hi, r)),
    }
}

/// KRR's user release with `k` bins at ε ([`krr_release`], value `value`): a user with two
/// private features in bins 0 and 0 vs k − 1 and k − 1, y = lo vs hi. Parts: the features
/// (ε/2, split over the two), the label (ε/2), the whole release (ε).
///
/// # Panics
/// If k < 2.
pub fn krr_release_cases(
    k: usize,
    epsilon: f64,
    value: KrrValue,
    bounds: LabelBounds,
) -> Vec<AuditCase> {
    let d = 2;
    let (eps_label, eps_feature) = krr_budgets(epsilon, d);
    let mask = PrivacyMask::from_rows(vec![vec![true; d]]);
    let (lo_value, hi_value) = (value.of(0, k), value.of(k - 1, k));
    let label_scale = bounds.range() / eps_label;
    let stats = move |input_b: bool, rng: &mut rand_pcg::Pcg64| {
        let (x, y) = if input_b {
            (0.999, bounds.hi)
        } else {
            (0.0, bounds.lo)
        };
        let (released, labels) = krr_release(
            (&Matrix::new(1, d, vec![x; d]), &[y], &mask),
            bounds,
            (k, epsilon),
            value,
            rng,
        );
        let features: f64 = released
            .data
            .iter()
            .map(|&v| {
                if v == lo_value {
                    eps_feature
                } else if v == hi_value {
                    -eps_feature
                } else {
                    0.0
                }
            })
            .sum();
        (
            features,
            laplace_log_ratio(labels[0], bounds.lo, bounds.hi, label_scale),
        )
    };
    two_part_cases(
        [
            ("private features (k-RR)", epsilon / 2.0),
            ("label", eps_label),
        ],
        &format!(
            "two private features in bin 0 vs bin {} of k = {k}, y = lo vs hi",
            k - 1
        ),
        stats,
    )
}
