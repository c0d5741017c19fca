//! The spec's `audit:` section: what the empirical privacy audit and the privacy ledger
//! of `dp-repro check` must find (`check/audit.rs`), and the violations the spec expects,
//! each with its bound and reason.

use serde::{Deserialize, Serialize};

/// What the audit must find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditRequire {
    /// Every audited part consistent with its claim.
    Consistent,
}

/// A violation the spec expects: one part of one method, with the bound it stays under,
/// and why.
///
/// `part` names an audited part (`audit.csv`'s `part`, e.g. `user release`), the ledger's
/// `over_budget` (some user or row paid more than the column's ε), or a private quantity
/// the ledger recorded (e.g. `label_bounds: private_train`, `scaling: whole`). For an
/// audited part or `over_budget`, `max_ratio` is required: the certified (audit) or
/// charged (ledger) ε may reach at most `max_ratio` × the claimed ε; above it the violation
/// counts as unexplained. A private quantity has no ε to bound and takes no `max_ratio`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnownViolation {
    /// The method's label in the spec; `*` for a private quantity of the data preparation
    /// that every method of the spec shares (e.g. `scaling: whole`).
    pub method: String,
    /// The part of its release, `over_budget`, or a private quantity's name.
    pub part: String,
    /// The largest ratio of the certified or charged ε to the claimed ε expected.
    #[serde(default)]
    pub max_ratio: Option<f64>,
    /// Why it overspends (e.g. the method card's section on the reference code's budget).
    pub why: String,
}

/// The spec's `audit:` section.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditRequirement {
    /// `consistent`.
    pub require: AuditRequire,
    /// Fresh releases per input and case (default 200,000: a check runs the audit every
    /// time, and a violation still shows well above the interval's width).
    #[serde(default = "default_draws")]
    pub draws: usize,
    /// n_P for the releases that depend on it (default 1000; `dp-repro audit --n-private`).
    #[serde(default)]
    pub n_private: Option<usize>,
    /// Methods whose violations are expected.
    #[serde(default)]
    pub known_violations: Vec<KnownViolation>,
    /// Fresh fits per neighbour of the end-to-end audit (docs/audit.md, "The end-to-end
    /// audit"; its pilot takes a tenth as many per canary pair); 0 turns it off. Default:
    /// `dp-repro audit`'s own (`--e2e-fits`).
    #[serde(default)]
    pub e2e_fits: Option<usize>,
}

fn default_draws() -> usize {
    200_000
}
