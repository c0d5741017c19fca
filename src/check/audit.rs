//! `audit:` in a spec: `dp-repro check` runs the empirical privacy audit of the spec's
//! private methods ([`crate::audit::spec`]) and the privacy ledger of one real fit per
//! release configuration ([`crate::audit::ledger`]), and requires every audited part to be
//! consistent with its claimed ε, every charged total within the column's ε and no
//! quantity computed from private rows, except the parts the spec lists as known
//! violations (each with the bound it stays under and the reason), and every private
//! method to have audit cases.

use crate::audit::ledger::{Finding, LedgerRow, TUNING_OVER_BUDGET};
use crate::audit::spec::AuditRow;
use crate::audit::Verdict;

pub use crate::spec::audit::{AuditRequire, AuditRequirement, KnownViolation};

/// One violation the audit or the ledger found.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditViolation {
    /// The method's label.
    pub method: String,
    /// The audited part, `over_budget`, `tuning_over_budget`, `uncharged` or the private
    /// quantity's name.
    pub part: String,
    /// Method label, grid point key, ε and part (and the data set, for the ledger).
    pub what: String,
    /// The claimed ε (NaN for a private quantity).
    pub claimed: f64,
    /// The certified lower bound (audit) or the charged total (ledger: per fit, or with
    /// tuning for `tuning_over_budget`); NaN for a private quantity.
    pub audited: f64,
    /// The spec's reason when a known violation covers it.
    pub known: Option<String>,
    /// Why a listed violation still counts as unexplained (above its bound, no bound).
    pub unexplained: Option<String>,
}

impl AuditViolation {
    /// Which verifier found it: `end-to-end audit` (a part named `end-to-end, …`),
    /// `ledger` (`over_budget`, `tuning_over_budget`, `uncharged` or a private quantity)
    /// or `part audit`.
    pub fn found_by(&self) -> &'static str {
        let ledger = ["over_budget", TUNING_OVER_BUDGET, "uncharged"];
        if self.part.starts_with("end-to-end") {
            "end-to-end audit"
        } else if ledger.contains(&self.part.as_str()) || self.claimed.is_nan() {
            "ledger"
        } else {
            "part audit"
        }
    }
}

/// What the check's audit and ledger found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuditCheck {
    /// Parts audited.
    pub parts: usize,
    /// Fits the ledger recorded.
    pub fits: usize,
    /// The violations, known or not.
    pub violations: Vec<AuditViolation>,
    /// Private methods without audit cases.
    pub not_audited: Vec<String>,
    /// Known violations that neither the audit nor the ledger found (informative, not a
    /// regression).
    pub known_not_found: Vec<String>,
}

impl AuditCheck {
    /// Compares the audit's `rows` and the ledger's `ledger` rows with the requirement.
    pub fn new(rows: &[AuditRow], ledger: &[LedgerRow], req: &AuditRequirement) -> AuditCheck {
        // (known reason, why it is still unexplained) for a violation of `part` of `method`
        // reaching `ratio` times its claim (None: a private quantity).
        let judge =
            |method: &str, part: &str, ratio: Option<f64>| {
                let shared = ratio.is_none() || part.starts_with("end-to-end");
                let Some(k) = req.known_violations.iter().find(|k| {
                    k.part == part && (k.method == method || (k.method == "*" && shared))
                }) else {
                    return (None, None);
                };
                let unexplained = match (ratio, k.max_ratio) {
                    (None, _) => None,
                    (Some(_), None) => Some(format!(
                        "the spec lists {method} · {part} without max_ratio"
                    )),
                    (Some(r), Some(b)) if r.is_nan() || r > b => Some(format!(
                        "{r:.3} x the claim, above the listed max_ratio {b}"
                    )),
                    _ => None,
                };
                (Some(k.why.clone()), unexplained)
            };
        let mut not_audited: Vec<String> = rows
            .iter()
            .filter(|r| r.outcome.is_none())
            .map(|r| r.method.clone())
            .collect();
        not_audited.dedup();
        let mut found: Vec<(String, String)> = Vec::new();
        let mut violations: Vec<AuditViolation> = Vec::new();
        for r in rows
            .iter()
            .filter(|r| r.verdict == Some(Verdict::Violation))
        {
            let audited = r.outcome.as_ref().map_or(f64::NAN, |o| o.epsilon_lower);
            let (known, unexplained) = judge(&r.method, &r.part, Some(audited / r.claimed));
            found.push((r.method.clone(), r.part.clone()));
            violations.push(AuditViolation {
                method: r.method.clone(),
                part: r.part.clone(),
                what: format!(
                    "{} [{}] epsilon {} · {}",
                    r.method, r.params, r.epsilon, r.part
                ),
                claimed: r.claimed,
                audited,
                known,
                unexplained,
            });
        }
        for r in ledger {
            for f in &r.findings {
                let (claimed, charged, ratio) = match f {
                    Finding::DataDependent(_) => (f64::NAN, f64::NAN, None),
                    Finding::TuningOverBudget => {
                        let w = r.with_tuning_of(|m| !crate::audit::ledger::is_honest(m));
                        (r.epsilon, w, Some(w / r.epsilon))
                    }
                    Finding::HonestOverBudget(mode) => {
                        let w = r.with_tuning_under(*mode).unwrap_or(f64::NAN);
                        (r.epsilon, w, Some(w / r.epsilon))
                    }
                    _ => (r.epsilon, r.per_fit(), Some(r.per_fit() / r.epsilon)),
                };
                let (known, mut unexplained) = judge(&r.method, f.part(), ratio);
                if *f == Finding::Uncharged {
                    unexplained = Some("a private method's fit charged nothing".into());
                }
                found.push((r.method.clone(), f.part().to_string()));
                let detail = match f {
                    Finding::DataDependent(q) => format!(" ({})", q.detail),
                    Finding::TuningOverBudget => format!(
                        ": {} per fit, selected among {} release configurations",
                        r.per_fit(),
                        r.releases
                    ),
                    Finding::HonestOverBudget(mode) => format!(
                        ": {} per fit, {} under {} selection, whose total must be the column's epsilon",
                        r.per_fit(),
                        r.with_tuning_under(*mode).unwrap_or(f64::NAN),
                        mode.name()
                    ),
                    _ => format!(": path {}", r.report.path_text()),
                };
                violations.push(AuditViolation {
                    method: r.method.clone(),
                    part: f.part().to_string(),
                    what: format!(
                        "ledger {} on {} (repetition {}) [{}] epsilon {} · {}{detail}",
                        r.method,
                        r.dataset,
                        r.repetition,
                        r.params,
                        r.epsilon,
                        f.part()
                    ),
                    claimed,
                    audited: charged,
                    known,
                    unexplained,
                });
            }
        }
        let known_not_found = req
            .known_violations
            .iter()
            .filter(|k| {
                !found
                    .iter()
                    .any(|(m, p)| (*m == k.method || k.method == "*") && *p == k.part)
            })
            .map(|k| format!("{} · {}", k.method, k.part))
            .collect();
        AuditCheck {
            parts: rows.iter().filter(|r| r.outcome.is_some()).count(),
            fits: ledger.len(),
            violations,
            not_audited,
            known_not_found,
        }
    }

    /// Whether a violation counts against the check: no known reason, or one that does not
    /// cover it.
    fn counts(v: &AuditViolation) -> bool {
        v.known.is_none() || v.unexplained.is_some()
    }

    /// The violations that count: no known reason covers them, or they exceed its bound.
    pub fn unexplained(&self) -> impl Iterator<Item = &AuditViolation> {
        self.violations.iter().filter(|v| Self::counts(v))
    }

    /// A violation without a known reason (or above its known bound), or a private method
    /// without audit cases.
    pub fn regressed(&self) -> bool {
        !self.not_audited.is_empty() || self.violations.iter().any(Self::counts)
    }

    /// The check report's summary line.
    pub fn summary_line(&self) -> String {
        let unexplained = self.violations.iter().filter(|v| Self::counts(v)).count();
        let mut s = format!(
            "Privacy audit and ledger: {} parts audited, {} fits on the ledger, {} violations ({} known, {} not), {} private methods not audited.",
            self.parts,
            self.fits,
            self.violations.len(),
            self.violations.len() - unexplained,
            unexplained,
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

    /// One line per (method, part) of the known violations found: how many audited parts
    /// or fits, the largest ratio of certified or charged ε to the claim, and the reason.
    pub fn known_lines(&self) -> Vec<String> {
        let mut groups: Vec<(&str, &str, usize, f64, &str)> = Vec::new();
        for v in self.violations.iter().filter(|v| !Self::counts(v)) {
            let ratio = v.audited / v.claimed;
            match groups.iter_mut().find(|g| g.0 == v.method && g.1 == v.part) {
                Some(g) => {
                    g.2 += 1;
                    g.3 = g.3.max(ratio);
                }
                None => groups.push((
                    &v.method,
                    &v.part,
                    1,
                    ratio,
                    v.known.as_deref().unwrap_or(""),
                )),
            }
        }
        groups
            .into_iter()
            .map(|(m, p, n, r, why)| {
                let ratio = if r.is_nan() {
                    String::new()
                } else {
                    format!(", up to {r:.3} x the claim")
                };
                format!("known: {m} · {p} ({n} rows{ratio}): {why}")
            })
            .collect()
    }

    /// One line per failing item, for `check --quiet`.
    pub fn failing_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .violations
            .iter()
            .filter(|v| Self::counts(v))
            .map(|v| {
                let why = v
                    .unexplained
                    .as_deref()
                    .map(|u| format!(" ({u})"))
                    .unwrap_or_default();
                if v.claimed.is_nan() {
                    format!("privacy violation: {}{why}", v.what)
                } else {
                    format!(
                        "privacy violation: {}: claims {}, reached >= {:.3}{why}",
                        v.what, v.claimed, v.audited
                    )
                }
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

/// What [`privacy_check`] may fail on.
#[derive(Debug, thiserror::Error)]
pub enum PrivacyCheckError {
    /// The empirical audit.
    #[error(transparent)]
    Audit(#[from] crate::audit::spec::AuditError),
    /// The ledger run.
    #[error(transparent)]
    Ledger(#[from] crate::audit::ledger::LedgerError),
    /// The end-to-end audit.
    #[error(transparent)]
    EndToEnd(#[from] crate::audit::e2e::E2eError),
}

/// Runs the privacy audit of `exp`'s private methods at the requirement's draws and n_P,
/// and the ledger of one real fit per release configuration and ε on the data in
/// `data_dir`, and judges both against `req`: what `dp-repro check` does for a spec's
/// `audit:` section. Returns the audit's rows, the ledger's rows and the verdict.
///
/// # Errors
/// [`PrivacyCheckError`]: a method's refusal, or a data set that cannot be loaded.
#[allow(clippy::result_large_err)] // one error per check run: its size does not matter
pub fn privacy_check(
    exp: &crate::spec::Experiment,
    req: &AuditRequirement,
    data_dir: Option<&std::path::Path>,
) -> Result<(Vec<AuditRow>, Vec<LedgerRow>, AuditCheck), PrivacyCheckError> {
    use crate::audit::{AuditConfig, AuditContext};
    let opts = crate::audit::spec::AuditOptions {
        method: None,
        epsilons: None,
        config: AuditConfig {
            draws: req.draws,
            pilot: (req.draws / 10).max(1),
            ..AuditConfig::default()
        },
        context: AuditContext {
            n_private: req.n_private.unwrap_or(AuditContext::default().n_private),
        },
        samplers: Vec::new(),
    };
    let mut rows = crate::audit::spec::audit_experiment(exp, &opts)?;
    let e2e = crate::audit::e2e::E2eOptions::default();
    let fits = req.e2e_fits.unwrap_or(e2e.fits);
    if fits > 0 {
        rows.extend(crate::audit::e2e::e2e_experiment(
            exp,
            data_dir,
            &crate::audit::e2e::E2eOptions {
                fits,
                pilot: (fits / 10).max(1),
                ..e2e
            },
        )?);
    }
    let ledger = crate::audit::ledger::ledger_experiment(exp, data_dir, None, &exp.epsilons)?;
    let verdict = AuditCheck::new(&rows, &ledger, req);
    Ok((rows, ledger, verdict))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::ledger::findings;
    use crate::privacy::ledger::{charge, recording, PrivateQuantity, Subjects};

    fn row(method: &str, epsilon: f64, charged: f64, quantities: &[&str]) -> LedgerRow {
        let report = recording(|| charge("label: Laplace", Subjects::One(0), charged, 0.0)).1;
        let q: Vec<PrivateQuantity> = quantities
            .iter()
            .map(|n| PrivateQuantity {
                name: n.to_string(),
                detail: "d: why".into(),
            })
            .collect();
        LedgerRow {
            dataset: "d".into(),
            repetition: 1,
            method: method.into(),
            params: String::new(),
            epsilon,
            findings: findings(epsilon, &report, &q),
            report,
            private_quantities: q,
            n_private: 1,
            releases: 1,
            tuning: Vec::new(),
        }
    }

    /// A row of an oracle grid of `k` release configurations, each charging `charged`:
    /// with tuning k·charged, flagged when above ε.
    fn tuned(method: &str, epsilon: f64, charged: f64, k: usize) -> LedgerRow {
        let mut r = row(method, epsilon, charged, &[]);
        r.releases = k;
        r.tuning = vec![(crate::spec::raw::Selection::BestMean, k as f64 * charged)];
        if r.with_tuning() > epsilon {
            r.findings.push(Finding::TuningOverBudget);
        }
        r
    }

    /// The tuning finding is judged on its own ratio (with tuning over ε), against its
    /// own known violation: a spec whose max_ratio for it is below the measured ratio
    /// fails, one at or above it passes, and listing only over_budget does not cover it.
    #[test]
    fn a_tuning_spend_above_epsilon_fails_unless_known_within_its_bound() {
        let ledger = [tuned("LPDT-M", 1.0, 1.0, 132), tuned("PHIST", 2.0, 2.0, 1)];
        assert_eq!(ledger[0].findings, vec![Finding::TuningOverBudget]);
        assert!(ledger[1].findings.is_empty());
        let strict = AuditCheck::new(&[], &ledger, &req(&[]));
        assert!(strict.regressed());
        assert_eq!(strict.violations[0].found_by(), "ledger");
        assert!(strict.failing_lines()[0].contains("tuning_over_budget"));
        assert!(strict.failing_lines()[0].contains("reached >= 132.000"));
        let known = |r| req(&[("LPDT-M", TUNING_OVER_BUDGET, Some(r))]);
        assert!(!AuditCheck::new(&[], &ledger, &known(132.0)).regressed());
        let below = AuditCheck::new(&[], &ledger, &known(131.0));
        assert!(below.regressed());
        assert!(
            below.failing_lines()[0]
                .contains("132.000 x the claim, above the listed max_ratio 131"),
            "{:?}",
            below.failing_lines()
        );
        let other = req(&[("LPDT-M", "over_budget", Some(200.0))]);
        assert!(AuditCheck::new(&[], &ledger, &other).regressed());
    }

    fn req(known: &[(&str, &str, Option<f64>)]) -> AuditRequirement {
        AuditRequirement {
            require: AuditRequire::Consistent,
            draws: 1000,
            n_private: None,
            known_violations: known
                .iter()
                .map(|&(m, p, r)| KnownViolation {
                    method: m.into(),
                    part: p.into(),
                    max_ratio: r,
                    why: "reason".into(),
                })
                .collect(),
            e2e_fits: None,
        }
    }

    #[test]
    fn a_charged_total_above_epsilon_fails_unless_known_within_its_bound() {
        let ledger = [row("PGLM", 1.0, 1.8, &[]), row("LPDT-M", 1.0, 1.0, &[])];
        let strict = AuditCheck::new(&[], &ledger, &req(&[]));
        assert!(strict.regressed());
        assert_eq!(strict.failing_lines().len(), 1);
        assert!(
            strict.failing_lines()[0].contains("PGLM"),
            "{:?}",
            strict.failing_lines()
        );
        let within = AuditCheck::new(&[], &ledger, &req(&[("PGLM", "over_budget", Some(2.0))]));
        assert!(!within.regressed(), "{:?}", within.failing_lines());
        // Above the bound, without a bound, or listed for another part or method: red.
        for known in [
            ("PGLM", "over_budget", Some(1.5)),
            ("PGLM", "over_budget", None),
            ("PGLM", "label release", Some(2.0)),
            ("LPDT-M", "over_budget", Some(2.0)),
            ("*", "over_budget", Some(2.0)),
        ] {
            let c = AuditCheck::new(&[], &ledger, &req(&[known]));
            assert!(c.regressed(), "{known:?}");
        }
    }

    #[test]
    fn private_quantities_fail_unless_declared_for_the_method_or_the_spec() {
        let ledger = [row(
            "HistOfTree",
            1.0,
            1.0,
            &["label_bounds: private_train", "scaling: whole"],
        )];
        assert!(AuditCheck::new(&[], &ledger, &req(&[])).regressed());
        let one = req(&[("HistOfTree", "label_bounds: private_train", None)]);
        let c = AuditCheck::new(&[], &ledger, &one);
        assert!(c.regressed());
        assert!(c.failing_lines()[0].contains("scaling: whole"));
        let both = req(&[
            ("HistOfTree", "label_bounds: private_train", None),
            ("*", "scaling: whole", None),
        ]);
        let c = AuditCheck::new(&[], &ledger, &both);
        assert!(!c.regressed(), "{:?}", c.failing_lines());
        assert!(c.known_not_found.is_empty());
        // A declaration nothing needs is reported, not failed.
        let extra = req(&[
            ("HistOfTree", "label_bounds: private_train", None),
            ("*", "scaling: whole", None),
            ("KRR", "over_budget", Some(2.0)),
        ]);
        let c = AuditCheck::new(&[], &ledger, &extra);
        assert!(!c.regressed());
        assert_eq!(c.known_not_found, vec!["KRR · over_budget".to_string()]);
    }

    #[test]
    fn an_uncharged_private_fit_always_fails() {
        let mut r = row("PHIST", 1.0, 0.0, &[]);
        r.report = crate::privacy::ledger::LedgerReport::default();
        r.findings = findings(1.0, &r.report, &[]);
        let c = AuditCheck::new(&[], &[r], &req(&[("PHIST", "uncharged", Some(10.0))]));
        assert!(c.regressed());
    }
}
