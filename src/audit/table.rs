//! The audit's own table from each registered method to its audit cases (docs/architecture.md,
//! `audit/`): the audit reaches a method's concrete type through
//! [`crate::methods::AsAny`] and builds the cases from the release functions the method
//! exports, so no method imports `audit/`. Each family's module answers for its own
//! methods ([`FAMILIES`]); a method no family claims has no audit cases.

use super::{AuditCase, AuditContext};
use crate::methods::{Method, MethodError, Params};

/// The cases of one family: `Some(result)` when `method` is one of the family's, None
/// otherwise.
pub type FamilyCases = fn(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    ctx: &AuditContext,
) -> Option<Result<Vec<AuditCase>, MethodError>>;

/// Every family that audits methods, asked in this order.
pub const FAMILIES: &[FamilyCases] = &[
    // The local-DP methods with public data (LPDT, PHIST/APHIST, LPCT, DECONV, PGLM, PSGD).
    super::local::cases,
    super::semi_feature::cases,
    super::forest::cases,
];

/// The audit cases of `method` at grid point `params` (structural joined with mechanism)
/// and budget ε: the first family in [`FAMILIES`] that claims the method builds them;
/// None when no family does (`dp-repro audit` reports the method as not audited).
///
/// # Errors
/// The family's error (e.g. a budget split that is not valid).
pub fn cases_for(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    ctx: &AuditContext,
) -> Result<Option<Vec<AuditCase>>, MethodError> {
    for family in FAMILIES {
        if let Some(cases) = family(method, params, epsilon, ctx) {
            return cases.map(Some);
        }
    }
    Ok(None)
}
