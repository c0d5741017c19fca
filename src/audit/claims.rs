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
//! | HistOfTree, AdHistOfTree (`budget: rho`, ρ the cell share) | `cell (generalized RR over I_i)`, `cell (centred RR bits over I_i)` / `label` | ρε / (1 − ρ)ε (HistOfTree paper: ε = ε_U + ε_Y, the index at ε_U, the label at ε_Y) |
//! | KRR | `private features (k-RR)` / `label` | ε/2 each (ε/(2d_i) per binned feature; HistOfTree paper's KRR competitor) |
//! | ParDT, LabelDT | `label` | ε (a noisy label alone) |
//! | PGLM | `matrix x~x~'` / `vector x~y` | ε/2 each, at δ/2 each (LPCT paper's PGLM baseline, docs/methods/lpct.md §7.4; the δ stays the case's) |
//! | DiPriMe forests (`forest` compositions) | `median`, `median (replace one)`, `K medians` | ε_s = ε_lvl = ρ ε_T / d_max for DiPriMe (its attribute choice spends nothing); ε_s = ε_lvl / 2 for DiPriMeExp and DiPriMeFlip (DiPriMe paper §3.2, §3.3: ε_T = ε on disjoint shares, ε / N_T on all rows) |
//! | DiPriMeExp, DiPriMeFlip | `attribute choice` | ε_a = ε_lvl / 2 |
//! | every forest composition | `leaf …` | ε_ℓ = (1 − ρ) ε_T |
//! | DP-DF | `node counts` | e_q = ε / (N_T (2h − 1)): 2h − 1 equal queries along a path (Fletcher & Islam's budget as the DiPriMe authors run it, docs/methods/diprime.md §4.6) |
//! | DP-RF | `node counts (classification)`, `node mean (regression)` / `split choice (regression)` | (1 − ρ) ε_T / (d + 1) / ρ ε_T / (d + 1), ε_T = ε / N_T (Patil & Singh's budget as the DiPriMe paper runs it) |
//!
//! The shares of a composition are read from its declared budget block (`rho` or fixed
//! shares), which is what the paper's method states; the budget *functions* that turn them
//! into scales are what this table checks. A forest's ε is the one it is called with (the
//! column's ε times `epsilon_factor`), its depth the grid point's or the paper's rule at the
//! audit's n (as the cases' own). Every audited part of every private method now has a row.

use super::forest::audit_depth;
use super::AuditContext;
use crate::forest::{d_mult, depth_rule};
use crate::methods::compose::forest::forest_shape;
use crate::methods::compose::{BudgetBlock, Composed, Composition, EstimatorBlock};
use crate::methods::diprime_baselines::{DpDfMethod, DpRfMethod};
use crate::methods::{Method, ParamValue, Params, PrivacyModel};

/// The paper's ε for `part` of `method`'s release at grid point `params` and column budget
/// ε (natural log), or None where the table has no row for it (see the module docs).
/// `ctx`: the audit's n, for a forest whose depth follows the paper's rule.
pub fn paper_claim(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    part: &str,
    ctx: &AuditContext,
) -> Option<f64> {
    match method.privacy_model() {
        PrivacyModel::LocalPublicData | PrivacyModel::SemiFeature => {}
        PrivacyModel::Central => return forest_claim(method, params, epsilon, part, ctx),
        PrivacyModel::NonPrivate => return None,
    }
    let composition = method
        .as_any()
        .downcast_ref::<Composed>()
        .map(|c| &c.composition);
    let round = composition.map_or(epsilon, |c| round_epsilon(c, params, epsilon));
    if part == "user release" {
        return Some(round);
    }
    match method.name() {
        "DECONV" => return matches!(part, "features" | "label").then_some(epsilon / 2.0),
        "KRR" => {
            return matches!(part, "private features (k-RR)" | "label").then_some(epsilon / 2.0)
        }
        "ParDT" | "LabelDT" => return (part == "label").then_some(epsilon),
        "PGLM" => return matches!(part, "matrix x~x~'" | "vector x~y").then_some(epsilon / 2.0),
        _ => {}
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
        p if p.starts_with("cell (") => Some(cell * round),
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

/// The DiPriMe paper's ε for `part` of a central forest (the table's forest rows).
fn forest_claim(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    part: &str,
    ctx: &AuditContext,
) -> Option<f64> {
    let number = |name: &str| lookup(params, name).and_then(|v| v.as_f64());
    let called = epsilon * number("epsilon_factor").unwrap_or(1.0);
    let any = method.as_any();
    if any.downcast_ref::<DpDfMethod>().is_some() {
        // 2h − 1 equal queries along a root-to-leaf path of each of N_T trees.
        let trees = number("trees")?;
        let (height, _) = audit_depth(params, ctx, d_mult);
        let queries = (2 * height.max(1) - 1) as f64;
        return (part == "node counts").then_some(called / (trees * queries));
    }
    let rho = number("rho")?;
    if any.downcast_ref::<DpRfMethod>().is_some() {
        let trees = number("trees")?;
        let (depth, _) = audit_depth(params, ctx, d_mult);
        let per_node = called / trees / (depth + 1) as f64;
        return match part {
            "node counts (classification)" | "node mean (regression)" => {
                Some((1.0 - rho) * per_node)
            }
            "split choice (regression)" => Some(rho * per_node),
            _ => None,
        };
    }
    let forest = any
        .downcast_ref::<Composed>()?
        .composition
        .forest
        .as_ref()?;
    let (trees, disjoint, _) = forest_shape(params);
    let per_tree = if disjoint {
        called
    } else {
        called / trees as f64
    };
    let shares = if disjoint { trees } else { 1 };
    let (depth, _) = audit_depth(params, ctx, |n, o| depth_rule(n, o, 2, shares));
    let level = if depth == 0 {
        0.0
    } else {
        rho * per_tree / depth as f64
    };
    let spends = forest.attribute.spends();
    match part {
        "median" | "median (replace one)" | "K medians" if spends => Some(level / 2.0),
        "median" | "median (replace one)" | "K medians" => Some(level),
        "attribute choice" => Some(level / 2.0),
        p if p.starts_with("leaf") => Some((1.0 - rho) * per_tree),
        _ => None,
    }
}

/// The value of parameter `name` at `params`, if the grid point has it.
fn lookup<'a>(params: &'a Params, name: &str) -> Option<&'a ParamValue> {
    params.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}
