//! `audit:` in a spec: `dp-repro check` runs the empirical privacy audit of the spec's
//! private methods ([`crate::audit::spec`]) and requires every audited part to be
//! consistent with its claimed ε, except the methods the spec lists as known violations
//! (reference-code budgets that overspend, each with the reason), and every private method
//! to have audit cases.

use crate::audit::spec::AuditRow;
use crate::audit::Verdict;
use serde::{Deserialize, Serialize};

/// What the audit must find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditRequire {
    /// Every audited part consistent with its claim.
    Consistent,
}

/// A method whose violations are expected, and why.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KnownViolation {
    /// The method's label in the spec.
    pub method: String,
    /// Why it overspends (e.g. the method card's section on the reference code's budget).
    pub why: String,
}

/// The spec's `audit:` section.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
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
}

fn default_draws() -> usize {
    200_000
}

/// One violation the audit found.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditViolation {
    /// Method label, grid point key, ε and part.
    pub what: String,
    /// The claimed ε and the certified bound.
    pub claimed: f64,
    /// The certified lower bound.
    pub audited: f64,
    /// The spec's reason when the method is a known violation.
    pub known: Option<String>,
}

/// What the check's audit found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuditCheck {
    /// Parts audited.
    pub parts: usize,
    /// The violations, known or not.
    pub violations: Vec<AuditViolation>,
    /// Private methods without audit cases.
    pub not_audited: Vec<String>,
    /// Known violations the audit did not find (informative, not a regression).
    pub known_not_found: Vec<String>,
}

impl AuditCheck {
    /// Compares the audit's `rows` with the requirement.
    pub fn new(rows: &[AuditRow], req: &AuditRequirement) -> AuditCheck {
        let known = |m: &str| {
            req.known_violations
                .iter()
                .find(|k| k.method == m)
                .map(|k| k.why.clone())
        };
        let mut not_audited: Vec<String> = rows
            .iter()
            .filter(|r| r.outcome.is_none())
            .map(|r| r.method.clone())
            .collect();
        not_audited.dedup();
        let violations: Vec<AuditViolation> = rows
            .iter()
            .filter(|r| r.verdict == Some(Verdict::Violation))
            .map(|r| AuditViolation {
                what: format!(
                    "{} [{}] epsilon {} · {}",
                    r.method, r.params, r.epsilon, r.part
                ),
                claimed: r.claimed,
                audited: r.outcome.as_ref().map_or(f64::NAN, |o| o.epsilon_lower),
                known: known(&r.method),
            })
            .collect();
        let known_not_found = req
            .known_violations
            .iter()
            .filter(|k| {
                !rows
                    .iter()
                    .any(|r| r.method == k.method && r.verdict == Some(Verdict::Violation))
            })
            .map(|k| k.method.clone())
            .collect();
        AuditCheck {
            parts: rows.iter().filter(|r| r.outcome.is_some()).count(),
            violations,
            not_audited,
            known_not_found,
        }
    }

    /// A violation without a known reason, or a private method without audit cases.
    pub fn regressed(&self) -> bool {
        !self.not_audited.is_empty() || self.violations.iter().any(|v| v.known.is_none())
    }

    /// The check report's summary line.
    pub fn summary_line(&self) -> String {
        let known = self.violations.iter().filter(|v| v.known.is_some()).count();
        let mut s = format!(
            "Privacy audit: {} parts, {} violations ({} known, {} not), {} private methods not audited.",
            self.parts,
            self.violations.len(),
            known,
            self.violations.len() - known,
            self.not_audited.len()
        );
        if !self.known_not_found.is_empty() {
            s.push_str(&format!(
                " Known violations not found: {}.",
                self.known_not_found.join(", ")
            ));
        }
        s
    }

    /// One line per failing item, for `check --quiet`.
    pub fn failing_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .violations
            .iter()
            .filter(|v| v.known.is_none())
            .map(|v| {
                format!(
                    "privacy violation: {}: claims {}, audited >= {:.3}",
                    v.what, v.claimed, v.audited
                )
            })
            .collect();
        out.extend(
            self.not_audited
                .iter()
                .map(|m| format!("not audited: {m} has no audit cases")),
        );
        out
    }
}
