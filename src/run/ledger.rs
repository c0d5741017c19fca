//! A ledger run (issue 27; docs/architecture.md "The ledger"): one real fit of each private method of
//! a spec at each distinct release configuration and ε, on each data set's real data
//! (repetition 1, the run's own seeded streams), inside a [`ledger::recording`]. Every
//! mechanism call of the fit charges what it actually spent to the users or rows it read,
//! and the loading, scaling and split record every quantity they compute from private rows;
//! a row of `ledger.csv` holds the largest total any one user or row paid, that subject's
//! composition path and the private quantities, against the column's ε.
//!
//! The distinct release configurations of a method are its grid points (structural joined
//! with mechanism) up to [`crate::methods::Method::audit_key`], the same points the
//! empirical audit draws ([`crate::audit::spec`]).

use super::seeds::{epsilon_text, partition_stream, release_stream};
use super::{load_datasets, repetition_data, RunError};
use crate::methods::{MethodError, Params, RepData};
use crate::privacy::ledger::{recording, LedgerReport, PrivateQuantity};
use crate::spec::{Experiment, MethodPlan};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// The repetition a ledger run fits on.
pub const LEDGER_REPETITION: usize = 1;

/// Relative slack when a charged total is compared with ε. Two roundings, both real but
/// far below anything a table can show: shares that add up to ε in exact arithmetic add
/// up to ε(1 + a few ulps) in floating point; and the fast randomized-response simulator
/// flips a bit when a 32-bit uniform falls under a threshold, so its flip probability is
/// 1 − κ rounded to a multiple of 2⁻³², which moves the spent ln(κ/(1 − κ)) per bit by
/// up to 2⁻³³/(κ(1 − κ)) — relative 2.7·10⁻⁹ for the 0.175 per bit of LPDT at ε = 0.5,
/// ρ = 0.7, and below 10⁻⁸ for every per-bit ε up to 5.3 (it grows like 2⁻³³e^a/a at
/// per-bit ε a, so larger per-bit budgets are flagged, as they should be).
pub const ROUNDING_SLACK: f64 = 1e-8;

/// `ledger.csv`'s header.
pub const LEDGER_HEADER: &str = "dataset,method,params,epsilon,charged_epsilon,charged_delta,min_charged_epsilon,subjects_charged,n_private,calls,releases_selected_over,path,private_quantities,findings";

/// What a ledger row found.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Some user or row paid more than the column's ε.
    OverBudget,
    /// A private method whose fit charged nothing: its releases are not on the ledger.
    Uncharged,
    /// A quantity computed from private rows outside a mechanism.
    DataDependent(PrivateQuantity),
}

impl Finding {
    /// The finding's name in `ledger.csv` and in `known_violations`' `part`:
    /// `over_budget`, `uncharged`, or the private quantity's name.
    pub fn part(&self) -> &str {
        match self {
            Finding::OverBudget => "over_budget",
            Finding::Uncharged => "uncharged",
            Finding::DataDependent(q) => &q.name,
        }
    }
}

/// One row of `ledger.csv`: one fit of a method at one release configuration and ε on one
/// data set.
#[derive(Debug, Clone)]
pub struct LedgerRow {
    /// Data set name.
    pub dataset: String,
    /// The method's label in the spec.
    pub method: String,
    /// The grid point's key (structural joined with mechanism parameters).
    pub params: String,
    /// The column's ε.
    pub epsilon: f64,
    /// The fit's ledger (charges of the fit itself).
    pub report: LedgerReport,
    /// Private quantities of the loading, scaling and split of this data set, then of
    /// the fit, each once.
    pub private_quantities: Vec<PrivateQuantity>,
    /// n_P, the private sample's size.
    pub n_private: usize,
    /// The method's distinct release configurations: oracle or validation selection of
    /// a cell over them re-spends ε once per configuration.
    pub releases: usize,
    /// What the row found (empty: within budget, no private quantity).
    pub findings: Vec<Finding>,
}

impl LedgerRow {
    /// Builds the row's findings from the fit's ledger and the data preparation's private
    /// quantities `prep`: over budget when some subject paid more than ε (NaN included),
    /// uncharged when the fit charged nothing, and one finding per private quantity.
    pub fn new(
        dataset: &str,
        plan: &MethodPlan,
        params: String,
        epsilon: f64,
        report: LedgerReport,
        prep: &[PrivateQuantity],
        n_private: usize,
    ) -> LedgerRow {
        let quantities: Vec<PrivateQuantity> = prep
            .iter()
            .chain(&report.private_quantities)
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let findings = findings(epsilon, &report, &quantities);
        LedgerRow {
            dataset: dataset.to_string(),
            method: plan.label.clone(),
            params,
            epsilon,
            report,
            private_quantities: quantities,
            n_private,
            releases: plan.release_configurations(),
            findings,
        }
    }
}

/// What a fit's ledger `report` finds against the column's ε, with the private quantities
/// `quantities` of the data preparation and the fit: [`Finding::OverBudget`] when some
/// subject paid more than ε(1 + [`ROUNDING_SLACK`]) (a NaN total included),
/// [`Finding::Uncharged`] when the fit charged nothing, and one
/// [`Finding::DataDependent`] per quantity.
pub fn findings(
    epsilon: f64,
    report: &LedgerReport,
    quantities: &[PrivateQuantity],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let total = report.max_epsilon;
    if total.is_nan() || total > epsilon * (1.0 + ROUNDING_SLACK) {
        out.push(Finding::OverBudget);
    }
    if report.calls == 0 {
        out.push(Finding::Uncharged);
    }
    out.extend(quantities.iter().cloned().map(Finding::DataDependent));
    out
}

/// What a ledger run may fail on.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// Loading or splitting a data set.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A method's fit.
    #[error("ledger run of {method} on {dataset} at {params}, epsilon {epsilon}: {source}")]
    Method {
        /// The method's label.
        method: String,
        /// The data set.
        dataset: String,
        /// The grid point's key.
        params: String,
        /// The budget.
        epsilon: f64,
        /// What the method said.
        source: MethodError,
    },
}

/// One fit to record.
struct Unit<'a> {
    dataset: usize,
    plan: &'a MethodPlan,
    structural: Params,
    mechanism: Params,
    key: String,
    epsilon: f64,
}

/// The release configurations of `plan` a ledger run fits: (structural, mechanism, grid
/// point key), for each distinct audit key the first and the last grid point that have it. The
/// audit key leaves out the partition's shape, but the shape can change what a release
/// spends (a one-hot vector over a single cell spends nothing; generalized randomized
/// response spends according to its number of cells), so the grid's two ends are fitted:
/// typically its coarsest and its finest partition.
fn configurations(plan: &MethodPlan) -> Vec<(Params, Params, String)> {
    let structural = if plan.structural.is_empty() {
        vec![Params::default()]
    } else {
        plan.structural.clone()
    };
    let mechanism = if plan.mechanism.is_empty() {
        vec![Params::default()]
    } else {
        plan.mechanism.clone()
    };
    // Per key, in first-seen order: its first and last (structural, mechanism) point.
    type Point = (usize, usize);
    let mut ends: Vec<(String, Point, Point)> = Vec::new();
    for (i, s) in structural.iter().enumerate() {
        for (j, q) in mechanism.iter().enumerate() {
            let key = plan.method.audit_key(&s.join(q));
            match ends.iter_mut().find(|(k, _, _)| *k == key) {
                Some(e) => e.2 = (i, j),
                None => ends.push((key, (i, j), (i, j))),
            }
        }
    }
    let mut out = Vec::new();
    for (_, first, last) in ends {
        let points = if first == last {
            vec![first]
        } else {
            vec![first, last]
        };
        for (i, j) in points {
            let point = structural[i].join(&mechanism[j]).key();
            out.push((structural[i].clone(), mechanism[j].clone(), point));
        }
    }
    out
}

/// Runs the ledger of every private method of `exp` (only `method` when given) at each of
/// `epsilons` on every data set of the spec the method runs on; rows in spec order (data
/// set, method, grid point, ε). Each fit is recorded on its own one-thread pool; fits run
/// in parallel, and the rows do not depend on the number of threads.
///
/// # Errors
/// [`LedgerError`]: a data set that cannot be loaded or split, or a method's error.
pub fn ledger_experiment(
    exp: &Experiment,
    data_dir: Option<&Path>,
    method: Option<&str>,
    epsilons: &[f64],
) -> Result<Vec<LedgerRow>, LedgerError> {
    let (loaded, load_report) = recording(|| load_datasets(exp, data_dir));
    let loaded = loaded?;
    let mut prepared: Vec<(Arc<RepData>, Vec<PrivateQuantity>)> = Vec::new();
    for (d, plan) in exp.datasets.iter().enumerate() {
        let (rep, split_report) = recording(|| {
            repetition_data(
                exp,
                plan,
                loaded.get(d).and_then(|x| x.as_deref()),
                LEDGER_REPETITION,
            )
        });
        let mine = |q: &&PrivateQuantity| q.detail.starts_with(&format!("{}:", plan.name));
        let prep: Vec<PrivateQuantity> = load_report
            .private_quantities
            .iter()
            .filter(mine)
            .chain(&split_report.private_quantities)
            .cloned()
            .collect();
        prepared.push((Arc::new(rep?), prep));
    }
    let mut units = Vec::new();
    for (d, dplan) in exp.datasets.iter().enumerate() {
        for plan in &exp.methods {
            let wanted = method.is_none_or(|l| l == plan.label);
            if !wanted || !plan.method.private() || plan.skip.contains(&dplan.name) {
                continue;
            }
            let rep = &prepared[d].0;
            let n_all = rep.public.n() + rep.private.n() + rep.test.n();
            for (structural, mechanism, key) in configurations(plan) {
                if plan
                    .method
                    .skip_reason(&structural, n_all, rep.test.d())
                    .is_some()
                {
                    continue;
                }
                for &epsilon in epsilons {
                    units.push(Unit {
                        dataset: d,
                        plan,
                        structural: structural.clone(),
                        mechanism: mechanism.clone(),
                        key: key.clone(),
                        epsilon,
                    });
                }
            }
        }
    }
    let seed = exp.spec.seed;
    let fit = |u: &Unit| -> Result<Option<LedgerRow>, LedgerError> {
        let dname = &exp.datasets[u.dataset].name;
        let (data, prep) = &prepared[u.dataset];
        let mut ps = partition_stream(
            seed,
            dname,
            LEDGER_REPETITION,
            &u.plan.label,
            &u.structural.key(),
        );
        let mut rs = release_stream(
            seed,
            "noise",
            dname,
            LEDGER_REPETITION,
            u.plan,
            &u.structural.join(&u.mechanism),
            &epsilon_text(u.epsilon),
            "",
        );
        let (fit, report) = recording(|| -> Result<bool, MethodError> {
            let Some(prepared) = u.plan.method.prepare(data, &u.structural, &mut ps)? else {
                return Ok(false);
            };
            prepared.predict(&u.mechanism, Some(u.epsilon), &mut rs)?;
            Ok(true)
        });
        let ran = fit.map_err(|source| LedgerError::Method {
            method: u.plan.label.clone(),
            dataset: dname.clone(),
            params: u.key.clone(),
            epsilon: u.epsilon,
            source,
        })?;
        Ok(ran.then(|| {
            LedgerRow::new(
                dname,
                u.plan,
                u.key.clone(),
                u.epsilon,
                report,
                prep,
                data.private.n(),
            )
        }))
    };
    let rows = on_worker_threads(&units, fit);
    let mut out = Vec::new();
    for r in rows {
        if let Some(row) = r? {
            out.push(row);
        }
    }
    Ok(out)
}

/// `f` of every unit, in order, computed on as many plain threads as rayon's pool has.
/// Each call records on a one-thread pool of its own ([`recording`]); calling it from
/// rayon's own workers instead would let a worker that waits for one recording start the
/// next one on the same stack, nesting without bound.
fn on_worker_threads<U: Sync, T: Send>(units: &[U], f: impl Fn(&U) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = rayon::current_num_threads().clamp(1, units.len().max(1));
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(u) = units.get(i) else {
                            return mine;
                        };
                        mine.push((i, f(u)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a ledger worker panicked"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `ledger.csv`: [`LEDGER_HEADER`] and one line per row; the private quantities and
/// findings joined by `; `, `findings` empty when the row found nothing.
pub fn ledger_csv(rows: &[LedgerRow]) -> String {
    let mut s = String::from(LEDGER_HEADER);
    s.push('\n');
    for r in rows {
        let quantities: Vec<String> = r
            .private_quantities
            .iter()
            .map(|q| format!("{} ({})", q.name, q.detail))
            .collect();
        let findings: Vec<&str> = r.findings.iter().map(Finding::part).collect();
        let cols = [
            field(&r.dataset),
            field(&r.method),
            field(&r.params),
            epsilon_text(r.epsilon),
            format!("{}", r.report.max_epsilon),
            format!("{}", r.report.max_delta),
            format!("{}", r.report.min_epsilon),
            r.report.subjects.to_string(),
            r.n_private.to_string(),
            r.report.calls.to_string(),
            r.releases.to_string(),
            field(&r.report.path_text()),
            field(&quantities.join("; ")),
            field(&findings.join("; ")),
        ];
        s.push_str(&cols.join(","));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::ledger::{charge, Subjects};

    fn report(charges: &[f64]) -> LedgerReport {
        recording(|| {
            for (i, &e) in charges.iter().enumerate() {
                charge("part", Subjects::One(i), e, 0.0);
            }
        })
        .1
    }

    #[test]
    fn findings_compare_the_worst_subject_with_epsilon() {
        assert!(findings(1.0, &report(&[0.5, 1.0]), &[]).is_empty());
        // Rounding of shares that add up to ε is not a finding; a real excess is.
        assert!(findings(0.3, &report(&[0.1 + 0.2]), &[]).is_empty());
        assert_eq!(
            findings(1.0, &report(&[0.5, 1.001]), &[]),
            vec![Finding::OverBudget]
        );
        assert_eq!(
            findings(1.0, &report(&[f64::NAN]), &[]),
            vec![Finding::OverBudget]
        );
        assert_eq!(findings(1.0, &report(&[]), &[]), vec![Finding::Uncharged]);
        let q = PrivateQuantity {
            name: "label_bounds: private_train".into(),
            detail: "d: the range".into(),
        };
        let f = findings(1.0, &report(&[1.0]), std::slice::from_ref(&q));
        assert_eq!(f, vec![Finding::DataDependent(q)]);
        assert_eq!(f[0].part(), "label_bounds: private_train");
    }

    /// Results come back in the units' order whatever thread computed them, and many
    /// recordings in a row do not nest (each on a one-thread pool of its own, from plain
    /// threads: 2,000 of them would overflow a worker's stack if they did).
    #[test]
    fn worker_threads_keep_the_order_and_recordings_do_not_nest() {
        let units: Vec<usize> = (0..2000).collect();
        let out = on_worker_threads(&units, |&u| {
            recording(|| crate::privacy::ledger::charge("x", Subjects::One(u), 0.5, 0.0))
                .1
                .worst
        });
        assert_eq!(out, units.iter().map(|&u| Some(u)).collect::<Vec<_>>());
    }

    #[test]
    fn ledger_csv_quotes_paths_and_lists_findings() {
        let r = report(&[0.25, 1.5]);
        let row = LedgerRow {
            dataset: "abalone".into(),
            method: "LPDT-M".into(),
            params: "rho=0.5".into(),
            epsilon: 1.0,
            findings: findings(1.0, &r, &[]),
            report: r,
            private_quantities: Vec::new(),
            n_private: 2,
            releases: 3,
        };
        let text = ledger_csv(&[row]);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(LEDGER_HEADER));
        assert_eq!(
            lines.next(),
            Some("abalone,LPDT-M,rho=0.5,1,1.5,0,0.25,2,2,2,3,part: 1 x 1.500000,,over_budget")
        );
    }
}
