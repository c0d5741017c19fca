//! The papers' budget statements, written here from the papers' equations and independent
//! of the runner's budget functions (`Composition::budgets`, `Budget::split`,
//! `LpdtMechanism::new`, `lpct_round_epsilon`, …): the ε each audited part of a local or
//! semi-feature release is promised. The spec audit holds every case against this
//! statement where it has one ([`super::spec`]), so a slip in a budget function, which
//! moves the case's own claim with it, no longer moves the verdict; where the case's own
//! claim differs from the paper's, audit.csv says so in the row's `neighbours`.
//!
//! | method family | part | the paper's ε |
//! | --- | --- | --- |
//! | every local or semi-feature method | `user release` (one round of a user's release) | ε; ε/2 per round for LPCT-prune `prune: paper` (LPCT paper Alg. 2, two rounds) |
//! | LPDT-M, LPDT-V and compositions with the `rho` budget | `bits`, `cell release` / `label`, `label release` | ρε / (1 − ρ)ε (LPDT paper Alg. 1, §2.2: the leaf vector at ρε, the label at (1 − ρ)ε) |
//! | compositions with fixed shares (PHIST, APHIST, LPCT: `cell: 0.5, label: 0.5`) | `cell vector`, `cell release` / `label vector`, `label release` | share × ε of the round (LPDT paper App. D.1; LPCT paper Alg. 1: each vector at ε/2) |
//! | DECONV | `features` / `label` | ε/2 each (LPDT paper App. D.1) |
//!
//! The shares of a composition are read from its declared budget block (`rho` or fixed
//! shares), which is what the paper's method states; the budget *functions* that turn them
//! into scales are what this table checks. Central-DP forests, PGLM's (ε, δ) parts and
//! HistOfTree's per-round parts have no row here yet: their cases keep their own claims
//! (the privacy ledger totals them against the column's ε).

use crate::methods::compose::{BudgetBlock, Composed, Composition, EstimatorBlock};
use crate::methods::{Method, ParamValue, Params, PrivacyModel};

/// The paper's ε for `part` of `method`'s release at grid point `params` and column budget
/// ε (natural log), or None where the table has no row for it (see the module docs).
pub fn paper_claim(method: &dyn Method, params: &Params, epsilon: f64, part: &str) -> Option<f64> {
    let local = matches!(
        method.privacy_model(),
        PrivacyModel::LocalPublicData | PrivacyModel::SemiFeature
    );
    if !local {
        return None;
    }
    let composition = method
        .as_any()
        .downcast_ref::<Composed>()
        .map(|c| &c.composition);
    let round = composition.map_or(epsilon, |c| round_epsilon(c, params, epsilon));
    if part == "user release" {
        return Some(round);
    }
    if method.name() == "DECONV" {
        return matches!(part, "features" | "label").then_some(epsilon / 2.0);
    }
    let c = composition?;
    let (cell, label) = match c.budget {
        BudgetBlock::Rho(_) => {
            let rho = lookup(params, "rho")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.5);
            (rho, 1.0 - rho)
        }
        BudgetBlock::Shares { cell, label } => (cell, label),
    };
    match part {
        "bits" | "cell release" | "cell vector" => Some(cell * round),
        "label" | "label release" | "label vector" => Some(label * round),
        _ => None,
    }
}

/// The ε of one round of a user's release: LPCT-prune under `prune: paper` releases in two
/// rounds of ε/2 (LPCT paper Alg. 2); every other method releases once.
fn round_epsilon(c: &Composition, params: &Params, epsilon: f64) -> f64 {
    let two_rounds = c.estimator == EstimatorBlock::LpctPrune
        && matches!(lookup(params, "prune"), Some(ParamValue::Str(s)) if s == "paper");
    if two_rounds {
        epsilon / 2.0
    } else {
        epsilon
    }
}

/// The value of parameter `name` at `params`, if the grid point has it.
fn lookup<'a>(params: &'a Params, name: &str) -> Option<&'a ParamValue> {
    params.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}
