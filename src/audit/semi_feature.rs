//! Audit cases of the semi-feature local releases (HistOfTree card docs/methods/histoftree.md §2–§3, §8):
//! neighbouring inputs agree on the user's public coordinates (which are sent in the clear
//! and fix the candidate set I_i) and differ in the private coordinates and the label.
//!
//! [`cases`] is the family's entry of [`super::table::FAMILIES`]: it reaches the method's
//! concrete type and builds the cases by calling the release functions the fit calls, at
//! the budgets the fit computes, so a slip in a release's scale or law moves the audited
//! releases with it:
//! * HistOfTree / AdHistOfTree ([`candidate_release_cases`]): round 1 the noisy label
//!   ([`round1_labels`], which computes the scale R/ε_Y), round 2 the cell through
//!   generalized randomized response over I_i ([`grr_cell_release`]) or the centred
//!   randomized-response bits ([`centred_rr_release`]) at ε_U, on a real candidate set of
//!   4 cells; (ε_U, ε_Y) from [`histoftree_budgets`].
//! * ParDT and LabelDT ([`label_release_case`]): the noisy label alone
//!   ([`crate::methods::pardt::label_release`]).
//! * KRR ([`krr_release_cases`]): k-ary randomized response on each private feature's bin
//!   and the noisy label ([`krr_release`]).
//!
//! Statistics are log-likelihood ratios under the claimed budgets, as in [`super`]: the
//! claim is the textbook law at the claimed ε, the draws are the code's.

use super::{laplace_log_ratio, two_part_cases, AuditCase, AuditContext};
use crate::data::{Matrix, PrivacyMask};
use crate::estimate::{centred_rr_release, grr_cell_release, CandidateMechanism, LabelBounds};
use crate::methods::compose::{candidate_mechanism, histoftree_budgets, round1_labels, Rule};
use crate::methods::krr::{krr_budgets, krr_release, krr_value, Krr, KrrValue, K};
use crate::methods::pardt::{label_release, LabelDt, ParDt};
use crate::methods::{Composed, Method, MethodError, Params};
use crate::partition::{CandidateTable, Cell};
use crate::privacy::Budget;

/// The size of the candidate set I_i in the HistOfTree cases: the loss of GRR and of the
/// centred bits does not depend on it, K > 2 lets a report fall outside both true cells.
const CANDIDATES: usize = 4;

/// The label bounds of every case: the loss does not depend on the range (each release
/// scales its noise by it).
const BOUNDS: LabelBounds = LabelBounds { lo: 0.0, hi: 1.0 };

/// The family's [`super::table::FamilyCases`]: the cases of HistOfTree and AdHistOfTree
/// (a [`Composed`] with `rule: histogram_x_tree`), ParDT, LabelDT and KRR at grid point
/// `params` and budget ε; None for any other method.
pub fn cases(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    _ctx: &AuditContext,
) -> Option<Result<Vec<AuditCase>, MethodError>> {
    let any = method.as_any();
    if let Some(m) = any.downcast_ref::<Composed>() {
        let c = &m.composition;
        if c.forest.is_some() || c.partition.rule != Rule::HistogramXTree {
            return None;
        }
        return Some(
            histoftree_budgets(c, epsilon, params)
                .map_err(MethodError::from)
                .map(|(eps_cell, eps_label)| {
                    candidate_release_cases(candidate_mechanism(c), eps_cell, eps_label, BOUNDS)
                }),
        );
    }
    if any.is::<ParDt>() || any.is::<LabelDt>() {
        let neighbours = if any.is::<ParDt>() {
            "public coordinates equal, private coordinates (not released) and y = lo vs hi"
        } else {
            "features equal (all released in the clear: label LDP only), y = lo vs hi"
        };
        return Some(
            Budget::new(epsilon)
                .map_err(MethodError::from)
                .map(|b| vec![label_release_case(b.epsilon(), BOUNDS, neighbours)]),
        );
    }
    if any.is::<Krr>() {
        return Some(Budget::new(epsilon).map_err(MethodError::from).map(|b| {
            krr_release_cases(params.usize(K.name), b.epsilon(), krr_value(params), BOUNDS)
        }));
    }
    None
}

/// One user's candidate set of [`CANDIDATES`] cells (one histogram axis of 4 bins, free
/// because the coordinate is private, one T-leaf) and the cell `h` of it.
fn one_user(h: u64) -> CandidateTable {
    let mut t = CandidateTable::new(CANDIDATES, 1);
    t.push(
        Cell { h, leaf: 0 },
        std::iter::once(None),
        std::iter::once(0),
    );
    t
}

/// HistOfTree's user release under cell mechanism `mech` at (ε_U, ε_Y) = (`eps_cell`,
/// `eps_label`): public coordinates equal (I_i of 4 cells), the private coordinates in cell
/// 0 vs cell 1 of I_i, y = lo vs hi. Each release is drawn by the fit's own functions
/// ([`round1_labels`], [`grr_cell_release`], [`centred_rr_release`]). Parts: the cell
/// report (ε_U), the label (ε_Y), the user's two rounds (ε_U + ε_Y).
pub fn candidate_release_cases(
    mech: CandidateMechanism,
    eps_cell: f64,
    eps_label: f64,
    bounds: LabelBounds,
) -> Vec<AuditCase> {
    let (user_a, user_b) = (one_user(0), one_user(1));
    let claimed_scale = bounds.range() / eps_label;
    let half = eps_cell / 2.0;
    let stats = move |input_b: bool, rng: &mut rand_pcg::Pcg64| {
        let user = if input_b { &user_b } else { &user_a };
        let (view, cell) = (user.view(0), user.cells[0]);
        let cell_stat = match mech {
            CandidateMechanism::Grr => match grr_cell_release(&view, cell, eps_cell, 0, rng).h {
                0 => eps_cell,
                1 => -eps_cell,
                _ => 0.0,
            },
            CandidateMechanism::CentredRr => {
                // Every candidate's bit, in the order of the candidates (cells 0..4); only
                // cells 0 and 1 differ between a and b, each bit at ε_U/2.
                let bits = centred_rr_release(&view, cell, eps_cell, 0, rng);
                let sign = |b: bool| if b { half } else { -half };
                sign(bits[0]) - sign(bits[1])
            }
        };
        let y = if input_b { bounds.hi } else { bounds.lo };
        let z = round1_labels(&[y], bounds, eps_label, rng)[0];
        (
            cell_stat,
            laplace_log_ratio(z, bounds.lo, bounds.hi, claimed_scale),
        )
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

/// The noisy label of ParDT and LabelDT ([`label_release`]), claiming ε, for labels lo vs
/// hi; `neighbours` says what else the inputs share.
pub fn label_release_case(epsilon: f64, bounds: LabelBounds, neighbours: &str) -> AuditCase {
    let scale = bounds.range() / epsilon;
    let stat = move |y: f64, rng: &mut rand_pcg::Pcg64| {
        let z = label_release(&[y], bounds, epsilon, rng)[0];
        laplace_log_ratio(z, bounds.lo, bounds.hi, scale)
    };
    AuditCase {
        part: "label".into(),
        neighbours: neighbours.into(),
        claimed: epsilon,
        delta: 0.0,
        release_a: Box::new(move |r| stat(bounds.lo, r)),
        release_b: Box::new(move |r| stat(bounds.hi, r)),
        alternatives: Vec::new(),
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
