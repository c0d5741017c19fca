//! The audit cases of the local-DP methods with public data (LPDT and LPCT papers): LPDT-M,
//! LPDT-V, PHIST, APHIST, LPCT and its variants, any other composition of a cell and a label
//! mechanism, DECONV, PGLM, PSGD-L and PSGD-N ([`cases`], registered in
//! [`super::table::FAMILIES`]).
//!
//! Every case draws the release the runner draws, built by the function the runner builds
//! it with: [`LpdtMechanism::new`] for LPDT, [`HistogramMechanism::new`] for PHIST/APHIST,
//! [`lpct_release`] for the LPCT estimators, [`UserRelease::new`] for the other
//! compositions, [`crate::methods::deconv::release`], [`crate::methods::pglm::user_release`]
//! and [`Psgd::tensor_mechanism`]. The claimed ε of each part comes from the composition's
//! budget shares ([`Composition::budgets`]), independently of the code that builds the
//! release, so a slip in a release's own budget code moves the release and not the claim.
//!
//! The runner's exact shortcuts (LPDT's `fast` simulation, the Gamma sums of LPCT and
//! PHIST, PGLM's aggregated Gaussian) draw the curator's sums, not one user's release; each
//! takes its scales from the same release object and is tested against the per-user
//! release for its law (`tests/simulation_law.rs`, `methods::compose::release`).

use super::{laplace_log_ratio, two_part_cases, AuditCase, AuditContext};
use crate::estimate::{
    HistogramConfig, HistogramMechanism, LabelBounds, LpdtConfig, LpdtMechanism, Simulation,
};
use crate::methods::compose::{lpct_release, lpct_round_epsilon, CellMechanism, EstimatorBlock};
use crate::methods::compose::{Composed, Composition, Rule, UserRelease};
use crate::methods::deconv::Deconv;
use crate::methods::pglm::{noise_aggregate, Pglm};
use crate::methods::psgd::Psgd;
use crate::methods::{Method, MethodError, Params};
use rand_pcg::Pcg64;

/// The audit cases of `method` if it is one of this family's ([`super::table::FamilyCases`]):
/// a local-DP composition (not a central-DP forest, not HistOfTree's histogram × tree) that
/// spends a budget, DECONV, PGLM, PSGD-L or PSGD-N; None otherwise.
pub fn cases(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    ctx: &AuditContext,
) -> Option<Result<Vec<AuditCase>, MethodError>> {
    let any = method.as_any();
    if let Some(m) = any.downcast_ref::<Composed>() {
        let c = &m.composition;
        if c.forest.is_some() || c.partition.rule == Rule::HistogramXTree || !c.private() {
            return None;
        }
        return Some(composition_cases(c, params, epsilon));
    }
    // The loss does not depend on the label range: labels in [0, 1].
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    if any.is::<Deconv>() {
        return Some(Ok(super::deconv::deconv_release_cases(epsilon, bounds)));
    }
    if any.is::<Pglm>() {
        return Some(
            super::pglm::pglm_release_cases(epsilon, ctx.n_private, noise_aggregate(params))
                .map_err(MethodError::from),
        );
    }
    if let Some(p) = any.downcast_ref::<Psgd>() {
        // The tensors of a model on d = 2 features (the loss does not depend on their
        // sizes).
        return Some(p.tensor_mechanism(params, epsilon).map(|mech| {
            super::priv_unit_g::priv_unit_g_cases(mech, &p.tensor_sizes(params, 2), epsilon)
        }));
    }
    None
}

/// The cases of a private local-DP composition `c` at grid point `params` and budget ε, on
/// two cells with labels in [0, 1] (the loss depends on neither the number of cells nor
/// the label range).
fn composition_cases(
    c: &Composition,
    params: &Params,
    epsilon: f64,
) -> Result<Vec<AuditCase>, MethodError> {
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    if c.lpdt_release() {
        let claims = c.budgets(epsilon, params)?;
        let mech = LpdtMechanism::new(
            2,
            &LpdtConfig {
                epsilon,
                rho: params.f64("rho"),
                bounds,
                tau: 0.0,
                simulation: Simulation::PerUser,
            },
        )?;
        return Ok(super::lpdt::lpdt_release_cases(&mech, claims.0, claims.1));
    }
    if c.histogram_release() {
        // The runner's configuration (compose.rs, PreparedGrid::predict): budgets from the
        // shares, the `y_center` option.
        let (eps_cell, eps_label) = c.budgets(epsilon, params)?;
        let cfg = HistogramConfig {
            eps_cell,
            eps_label,
            t: 0.0,
            bounds,
            weights: (1.0, 0.0),
            y_center: params.bool("y_center"),
        };
        let mech = HistogramMechanism::new(&cfg)?;
        return Ok(super::histogram::histogram_release_cases(
            &mech, eps_cell, eps_label,
        ));
    }
    if matches!(
        c.estimator,
        EstimatorBlock::Lpct | EstimatorBlock::LpctPrune
    ) {
        // One round of the users' releases, as the runner's sums draw it.
        let eps_round = lpct_round_epsilon(c, params, epsilon);
        let claims = c.budgets(eps_round, params)?;
        let rel = lpct_release(c, 2, bounds, eps_round, params)?;
        return Ok(user_release_cases(rel, claims));
    }
    let claims = c.budgets(epsilon, params)?;
    // The runner's bounds (compose.rs, ratio_by_simulation): centred under `y_center`.
    let (bounds, _) = bounds.centred(c.centres_labels(params));
    Ok(user_release_cases(
        UserRelease::new(c, 2, bounds, claims),
        claims,
    ))
}

/// The audit cases of a composition's user release `rel` on two cells: a user in
/// cell 0 against one in cell 1, with labels lo vs hi for the scalar label (sensitivity R)
/// and the label of largest |y| for both under the label vector (L1 distance 2·M_Y).
/// Parts: the cell release (claims `claim_cell`), the label release (`claim_label`), the
/// whole release (their sum), each through its log-likelihood ratio under the claimed
/// budgets: randomized response ε_cell/2 per differing bit, generalized RR ±ε_cell on
/// reports 0 and 1, Laplace vectors per differing coordinate at the claimed scales.
///
/// # Panics
/// If the release has fewer than two cells.
pub fn user_release_cases(rel: UserRelease, (claim_c, claim_l): (f64, f64)) -> Vec<AuditCase> {
    assert!(rel.k() >= 2, "an audit needs two cells");
    let (lo, hi) = (rel.bounds().lo, rel.bounds().hi);
    let (y_a, y_b) = if rel.vector() {
        let y = if hi.abs() >= lo.abs() { hi } else { lo };
        (y, y)
    } else {
        (lo, hi)
    };
    // Claimed scales, from the budgets alone.
    let (cell_b, label_b, vector_b) = (
        2.0 / claim_c,
        (hi - lo) / claim_l,
        2.0 * lo.abs().max(hi.abs()) / claim_l,
    );
    // (cell statistic, label statistic) of one release of a user in `leaf` with `y`.
    let stats = move |leaf: usize, y: f64, r: &mut Pcg64| {
        let (mut score, mut vector) = (vec![0.0; rel.k()], vec![0.0; rel.k()]);
        let noisy = rel.release(0, leaf, y, &mut score, &mut vector, r);
        let cell = match rel.cell() {
            CellMechanism::RandomizedResponse => claim_c * (score[0] - score[1]),
            CellMechanism::Laplace => {
                laplace_log_ratio(score[0], 1.0, 0.0, cell_b)
                    + laplace_log_ratio(score[1], 0.0, 1.0, cell_b)
            }
            CellMechanism::GeneralizedRr => {
                claim_c
                    * (f64::from(u8::from(score[0] > 0.0)) - f64::from(u8::from(score[1] > 0.0)))
            }
            CellMechanism::None => unreachable!(),
        };
        let label = if rel.vector() {
            laplace_log_ratio(vector[0], y_a, 0.0, vector_b)
                + laplace_log_ratio(vector[1], 0.0, y_b, vector_b)
        } else {
            laplace_log_ratio(noisy, y_a, y_b, label_b)
        };
        (cell, label)
    };
    let neighbours =
        format!("cell 0, y = {y_a} vs cell 1, y = {y_b}; statistic the log-likelihood ratio");
    two_part_cases(
        [("cell release", claim_c), ("label release", claim_l)],
        &neighbours,
        move |b, r| {
            if b {
                stats(1, y_b, r)
            } else {
                stats(0, y_a, r)
            }
        },
    )
}
