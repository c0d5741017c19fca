//! The audit of a spec's private methods (`dp-repro audit`): every method's
//! [`AuditCase`]s at each ε of the spec, their outcomes as rows of `audit.csv`.
//!
//! Grid points: every structural point of each method joined with every mechanism point,
//! audited once per distinct [`crate::methods::Method::audit_key`] (by default the
//! release parameters: a partition's shape and curator-side parameters do not change the
//! audited release); the key is the `params` column. No data set is read: the neighbouring inputs are the worst cases
//! the method's cases construct.
//!
//! Family-wise confidence: a spec audits many parts (108 for the LPDT paper's Table 2), and
//! a faithful part whose loss equals its claim is flagged with probability up to its α, so
//! the spec's α is split over its m parts (Bonferroni): each part is bounded at level α/m
//! and the chance that any faithful part of the spec is flagged is at most α.

use super::{AuditCase, AuditConfig, AuditContext, AuditOutcome, Verdict};
use crate::methods::{MethodError, Params};
use crate::report::{Cell, ColumnGroup, Legend, NumberFormat, Row, Table};
use crate::run::seeds::{epsilon_text, stream};
use crate::spec::Experiment;
use rayon::prelude::*;
use std::collections::BTreeSet;

/// `audit.csv`'s header.
pub const AUDIT_HEADER: &str = "method,params,epsilon,part,neighbours,claimed_epsilon,claimed_delta,audited_epsilon,plug_in_epsilon,confidence,event,count_a,count_b,draws,verdict";

/// Which methods and budgets to audit, and how hard.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// Only the method with this label (None: every private method of the spec).
    pub method: Option<String>,
    /// These budgets instead of the spec's ε grid.
    pub epsilons: Option<Vec<f64>>,
    /// Draws of each case, and the family-wise α of the whole audit (each of its m parts
    /// is bounded at α/m).
    pub config: AuditConfig,
    /// What releases may depend on beyond the grid point (n_P, `--n-private`).
    pub context: AuditContext,
    /// Laplace samplers audited on their own at each ε, after the methods
    /// ([`super::sampler`]; `--low-bits`, `--secure-noise`).
    pub samplers: Vec<super::sampler::Sampler>,
}

/// One row of `audit.csv`: a case's outcome, or a method with no audit yet (`outcome`
/// None).
#[derive(Debug, Clone)]
pub struct AuditRow {
    /// The method's column label in the spec.
    pub method: String,
    /// The grid point's key (structural joined with mechanism parameters).
    pub params: String,
    /// The budget ε the method runs at.
    pub epsilon: f64,
    /// The audited part of the release (empty when not audited).
    pub part: String,
    /// The neighbouring inputs and statistic, in words.
    pub neighbours: String,
    /// The ε the part claims (NaN when not audited).
    pub claimed: f64,
    /// The δ the part claims (0 for pure ε-DP; NaN when not audited).
    pub delta: f64,
    /// The outcome, None for a method without audit cases.
    pub outcome: Option<AuditOutcome>,
    /// The verdict, None when not audited.
    pub verdict: Option<Verdict>,
    /// The level α/m at which this part was bounded (m parts audited).
    pub alpha: f64,
}

/// Errors of a spec audit.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// `--method` names no method of the spec.
    #[error("--method {0}: no method of the spec has this label (labels: {1})")]
    UnknownMethod(String, String),
    /// A budget ε ≤ 0 or not finite.
    #[error("--epsilon {0}: a budget must be a finite number > 0")]
    Epsilon(f64),
    /// n_P < 2.
    #[error("--n-private {0}: at least 2 private users (PGLM's delta = 1/n_P^2 must be < 1)")]
    NPrivate(usize),
    /// The method refused a grid point.
    #[error("{method} at {params}, epsilon {epsilon}: {source}")]
    Method {
        /// The method's label.
        method: String,
        /// The grid point's key.
        params: String,
        /// The budget.
        epsilon: f64,
        /// What the method said.
        source: MethodError,
    },
}

/// Audits the private methods of `exp` (rows in spec order: method, grid point, ε, part).
/// Each case draws from streams seeded by the spec seed and (method, grid point, ε, part),
/// so the rows do not depend on the number of threads.
///
/// # Errors
/// [`AuditError`]: an unknown `--method`, a bad ε, or a method's refusal.
pub fn audit_experiment(
    exp: &Experiment,
    opts: &AuditOptions,
) -> Result<Vec<AuditRow>, AuditError> {
    if let Some(label) = &opts.method {
        if !exp.methods.iter().any(|m| &m.label == label) {
            let labels: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
            let hint = crate::suggest::did_you_mean(label, labels.iter().copied());
            return Err(AuditError::UnknownMethod(
                format!("{label}{hint}"),
                labels.join(", "),
            ));
        }
    }
    let epsilons = opts
        .epsilons
        .clone()
        .unwrap_or_else(|| exp.epsilons.clone());
    if let Some(&e) = epsilons.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
        return Err(AuditError::Epsilon(e));
    }
    if opts.context.n_private < 2 {
        return Err(AuditError::NPrivate(opts.context.n_private));
    }
    // (method label, grid point, ε, cases or None).
    let mut work: Vec<(String, String, f64, Option<AuditCase>)> = Vec::new();
    for plan in &exp.methods {
        let wanted = opts.method.as_ref().is_none_or(|l| l == &plan.label);
        if !wanted || !plan.method.private() {
            continue;
        }
        let mut seen = BTreeSet::new();
        let structural: Vec<Params> = if plan.structural.is_empty() {
            vec![Params::default()]
        } else {
            plan.structural.clone()
        };
        let mechanism: Vec<Params> = if plan.mechanism.is_empty() {
            vec![Params::default()]
        } else {
            plan.mechanism.clone()
        };
        let points = structural
            .iter()
            .flat_map(|s| mechanism.iter().map(move |q| s.join(q)));
        for params in points {
            let key = plan.method.audit_key(&params);
            if !seen.insert(key.clone()) {
                continue;
            }
            for &eps in &epsilons {
                let cases =
                    super::table::cases_for(plan.method.as_ref(), &params, eps, &opts.context)
                        .map_err(|source| AuditError::Method {
                            method: plan.label.clone(),
                            params: key.clone(),
                            epsilon: eps,
                            source,
                        })?;
                match cases {
                    None => work.push((plan.label.clone(), key.clone(), eps, None)),
                    Some(cases) => work.extend(cases.into_iter().map(|mut c| {
                        // The paper's claim for this part, not the runner's budget
                        // functions': a slip in those moves the case's own claim.
                        if let Some(paper) =
                            super::claims::paper_claim(
                                plan.method.as_ref(),
                                &params,
                                eps,
                                &c.part,
                                &opts.context,
                            )
                        {
                            if (paper - c.claimed).abs() > 1e-9 * paper.abs().max(1.0) {
                                c.neighbours = format!(
                                    "{}; the code's budget functions claim {} where the paper states {paper}",
                                    c.neighbours, c.claimed
                                );
                            }
                            c.claimed = paper;
                        }
                        (plan.label.clone(), key.clone(), eps, Some(c))
                    })),
                }
            }
        }
    }
    for &sampler in &opts.samplers {
        for &eps in &epsilons {
            work.extend(
                super::sampler::sampler_cases(sampler, eps)
                    .into_iter()
                    .map(|c| (sampler.label().to_string(), String::new(), eps, Some(c))),
            );
        }
    }
    let seed = exp.spec.seed;
    let parts = work.iter().filter(|w| w.3.is_some()).count().max(1);
    let cfg = AuditConfig {
        alpha: opts.config.alpha / parts as f64,
        ..opts.config
    };
    Ok(work
        .into_par_iter()
        .map(|(method, params, epsilon, case)| {
            let Some(case) = case else {
                return AuditRow {
                    method,
                    params,
                    epsilon,
                    part: String::new(),
                    neighbours: String::new(),
                    claimed: f64::NAN,
                    delta: f64::NAN,
                    outcome: None,
                    verdict: None,
                    alpha: cfg.alpha,
                };
            };
            let eps_text = epsilon_text(epsilon);
            // The pair (a, b) keeps the streams it always had; each further candidate pair
            // of the worst-case search gets streams of its own.
            let streams = |pair: usize| {
                let pair_text = pair.to_string();
                ["pilot-a", "pilot-b", "final-a", "final-b"].map(|role| {
                    let mut parts = vec!["audit", &method, &params, &eps_text, &case.part, role];
                    if pair > 0 {
                        parts.push(&pair_text);
                    }
                    stream(seed, &parts)
                })
            };
            let case_cfg = AuditConfig {
                delta: case.delta,
                ..cfg
            };
            let pairs: Vec<(&super::Release, &super::Release)> =
                std::iter::once((&case.release_a, &case.release_b))
                    .chain(
                        case.alternatives
                            .iter()
                            .map(|p| (&p.release_a, &p.release_b)),
                    )
                    .collect();
            let (chosen, outcome) = super::audit_search(&case_cfg, &pairs, streams);
            let neighbours = match chosen {
                0 => case.neighbours.clone(),
                i => case.alternatives[i - 1].neighbours.clone(),
            };
            AuditRow {
                verdict: Some(Verdict::of(outcome.epsilon_lower, case.claimed)),
                method,
                params,
                epsilon,
                part: case.part,
                neighbours,
                claimed: case.claimed,
                delta: case.delta,
                outcome: Some(outcome),
                alpha: cfg.alpha,
            }
        })
        .collect())
}

/// `audit.csv`'s text: [`AUDIT_HEADER`], then one row per [`AuditRow`] (numbers in Rust's
/// shortest round-trip form; `confidence` is the part's own, 1 − α/m; the outcome's columns
/// empty and the verdict `not audited` for a method without audit cases).
pub fn audit_csv(rows: &[AuditRow]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(AUDIT_HEADER.split(','))
        .expect("writing to memory");
    for r in rows {
        let mut rec = vec![
            r.method.clone(),
            r.params.clone(),
            epsilon_text(r.epsilon),
            r.part.clone(),
            r.neighbours.clone(),
        ];
        match (&r.outcome, r.verdict) {
            (Some(o), Some(v)) => rec.extend([
                format!("{}", r.claimed),
                format!("{}", r.delta),
                format!("{}", o.epsilon_lower),
                format!("{}", o.epsilon_plug_in),
                format!("{}", 1.0 - r.alpha),
                o.event.to_string(),
                o.count_a.to_string(),
                o.count_b.to_string(),
                o.draws.to_string(),
                v.as_str().to_string(),
            ]),
            _ => {
                rec.extend(std::iter::repeat_n(String::new(), 9));
                rec.push("not audited".to_string());
            }
        }
        w.write_record(&rec).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing to memory")).expect("csv is UTF-8")
}

/// The audit as a [`Table`] (rendered through the same templates as the papers' tables):
/// one row per method, grid point and part, one column group per ε with the claimed ε and
/// the certified lower bound; a bound above its claim (a violation) is bold; a method
/// without audit cases shows dashes. `alpha` is the audit's family-wise level.
pub fn audit_table(rows: &[AuditRow], alpha: f64, spec_name: &str) -> Table {
    let mut epsilons: Vec<f64> = rows.iter().map(|r| r.epsilon).collect();
    epsilons.sort_by(f64::total_cmp);
    epsilons.dedup();
    // Row labels in first-seen order.
    let mut labels: Vec<String> = Vec::new();
    let label_of = |r: &AuditRow| {
        let part = if r.part.is_empty() {
            "not audited"
        } else {
            &r.part
        };
        format!("{} [{}] · {part}", r.method, r.params)
    };
    for r in rows {
        let l = label_of(r);
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    let format = NumberFormat::Fixed(3);
    let table_rows = labels
        .iter()
        .map(|label| {
            let cells = epsilons
                .iter()
                .flat_map(|&e| {
                    let r = rows
                        .iter()
                        .find(|r| r.epsilon == e && &label_of(r) == label);
                    let (claimed, audited, violation) = match r.and_then(|r| {
                        r.outcome
                            .as_ref()
                            .map(|o| (r.claimed, o.epsilon_lower, r.verdict))
                    }) {
                        Some((c, a, v)) => (Some(c), Some(a), v == Some(Verdict::Violation)),
                        None => (None, None, false),
                    };
                    let mut audited = Cell::new(audited, format);
                    audited.bold = violation;
                    [Cell::new(claimed, format), audited]
                })
                .collect();
            Row {
                label: label.clone(),
                cells,
                scale: None,
            }
        })
        .collect();
    Table {
        name: "audit".into(),
        caption: format!(
            "Empirical privacy audit of {spec_name}: claimed epsilon and certified lower bound per part of each release"
        ),
        row_header: "Method [grid point] · part".into(),
        groups: epsilons
            .iter()
            .map(|&e| ColumnGroup {
                label: String::new(),
                epsilon: Some(e),
                block: String::new(),
                columns: vec!["claimed".into(), "audited ≥".into()],
            })
            .collect(),
        rows: table_rows,
        summary_rows: Vec::new(),
        notes: vec![
            format!(
                "audited: a lower bound on the privacy loss that holds for all parts together with probability at least {} (Clopper-Pearson, Bonferroni over the parts); bold: a violation, the bound above the claim",
                1.0 - alpha
            ),
            "the Laplace and Gaussian samplers are naive floating-point code, which leaks through the low-order bits of its outputs (Mironov, CCS 2012): harmless for simulating the papers' mathematics, and not what the methods' events look at; `--low-bits` audits the Laplace sampler on its low bits (it fails), `--secure-noise` the snapping mechanism (it passes)".into(),
        ],
        legend: Legend::InNotes,
        ..Table::new("audit", "", "")
    }
}
