//! A ledger run (docs/architecture.md "The ledger"): a real fit of each private
//! method of a spec at every grid point (structural × mechanism) and ε, on each data set's
//! real data, on repetitions [`LEDGER_REPETITIONS`] (the run's own seeded streams), inside a
//! [`ledger::recording`](crate::privacy::ledger::recording). Every mechanism call of the
//! fit charges, in its sampler, what it actually spent to the users or rows it read, and
//! the loading, scaling and split record every quantity they compute from private rows; a
//! row of `ledger.csv` holds the largest total any one user or row paid in the fit
//! (`epsilon_per_fit`), what the selection of a cell among the method's grid points makes
//! that user pay (`epsilon_with_tuning`, [`crate::run::accounting::epsilon_with_tuning`]), that
//! subject's composition path and the private quantities, against the column's ε.
//!
//! A structural grid point is prepared (its partition grown) once per data set and
//! repetition, recorded, and each of its mechanism grid points and ε is recorded on top of
//! that preparation ([`Recorder::record_from`], on one recording pool per worker thread):
//! the totals are those of one recording of the whole fit.

use crate::methods::{MethodError, Params, RepData};
use crate::privacy::ledger::{recording, LedgerReport, PrivateQuantity, Recorded, Recorder};
use crate::run::accounting::{epsilon_with_tuning, TuningCharges};
use crate::run::seeds::{epsilon_text, partition_stream, release_stream};
use crate::run::{load_datasets, repetition_data, RunError};
use crate::spec::raw::{Selection, ValidationReleases};
use crate::spec::{Experiment, MethodPlan};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

/// The repetitions a ledger run fits on: the first two, so that a charge that depends on
/// the split (a data-dependent scale, a partition that changes what a release spends)
/// shows on more than one draw of it. Every grid point of every private method is fitted
/// on each, at every ε.
pub const LEDGER_REPETITIONS: [usize; 2] = [1, 2];

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
pub const LEDGER_HEADER: &str = "dataset,repetition,method,params,epsilon,epsilon_per_fit,epsilon_with_tuning,charged_delta,min_charged_epsilon,subjects_charged,n_private,calls,releases_selected_over,path,private_quantities,findings";

/// What a ledger row found.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Some user or row paid more than the column's ε in one fit.
    OverBudget,
    /// Some user or row pays more than the column's ε once the selection of the cell among
    /// the grid points is counted ([`LedgerRow::with_tuning`]), and more than in the fit
    /// alone.
    TuningOverBudget,
    /// Some user or row pays more than the column's ε under an honest selection mode
    /// (`public`, `user_split`, `random_stopping`), whose promise is that the column's ε
    /// is the whole budget, tuning included (docs/tuning.md). Its own part name per mode,
    /// so that an oracle's known `tuning_over_budget` never covers it.
    HonestOverBudget(Selection),
    /// A private method whose fit charged nothing: its releases are not on the ledger.
    Uncharged,
    /// A quantity computed from private rows outside a mechanism.
    DataDependent(PrivateQuantity),
}

impl Finding {
    /// The finding's name in `ledger.csv` and in `known_violations`' `part`:
    /// `over_budget`, `tuning_over_budget`, `uncharged`, or the private quantity's name.
    pub fn part(&self) -> &str {
        match self {
            Finding::OverBudget => "over_budget",
            Finding::TuningOverBudget => TUNING_OVER_BUDGET,
            Finding::HonestOverBudget(mode) => honest_over_budget_part(*mode),
            Finding::Uncharged => "uncharged",
            Finding::DataDependent(q) => &q.name,
        }
    }
}

/// The name of [`Finding::TuningOverBudget`].
pub const TUNING_OVER_BUDGET: &str = "tuning_over_budget";

/// Whether `mode` promises that the column's ε is the whole budget, tuning included.
pub fn is_honest(mode: Selection) -> bool {
    matches!(
        mode,
        Selection::Public | Selection::UserSplit | Selection::RandomStopping
    )
}

/// The part name of [`Finding::HonestOverBudget`] under `mode`.
pub fn honest_over_budget_part(mode: Selection) -> &'static str {
    match mode {
        Selection::Public => "honest_over_budget: public",
        Selection::UserSplit => "honest_over_budget: user_split",
        Selection::RandomStopping => "honest_over_budget: random_stopping",
        _ => TUNING_OVER_BUDGET,
    }
}

/// One row of `ledger.csv`: one fit of a method at one grid point and ε on one data set
/// and repetition.
#[derive(Debug, Clone)]
pub struct LedgerRow {
    /// Data set name.
    pub dataset: String,
    /// The repetition fitted on.
    pub repetition: usize,
    /// The method's label in the spec.
    pub method: String,
    /// The grid point's key (structural joined with mechanism parameters).
    pub params: String,
    /// The column's ε.
    pub epsilon: f64,
    /// The fit's ledger (charges of the fit itself): `epsilon_per_fit` is its
    /// `max_epsilon`. Its private quantities are moved into
    /// [`LedgerRow::private_quantities`] (a paper spec's ledger holds hundreds of thousands
    /// of rows).
    pub report: LedgerReport,
    /// Private quantities of the loading, scaling and split of this data set, then of
    /// the fit, each once.
    pub private_quantities: Vec<PrivateQuantity>,
    /// n_P, the private sample's size.
    pub n_private: usize,
    /// k_r, the method's distinct release configurations: selection of a cell over them
    /// stands on k_r releases of each user.
    pub releases: usize,
    /// What the worst user or row pays once selection is counted, per selection mode of
    /// the spec ([`epsilon_with_tuning`] of the charges of every release configuration of
    /// the method at this data set, repetition and ε); empty until [`apply_tuning`].
    pub tuning: Vec<(Selection, f64)>,
    /// What the row found (empty: within budget, no private quantity).
    pub findings: Vec<Finding>,
}

impl LedgerRow {
    /// Builds the row's findings from the fit's ledger and the data preparation's private
    /// quantities `prep`: over budget when some subject paid more than ε (NaN included),
    /// uncharged when the fit charged nothing, and one finding per private quantity.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        (dataset, repetition): (&str, usize),
        plan: &MethodPlan,
        params: String,
        epsilon: f64,
        mut report: LedgerReport,
        prep: &[PrivateQuantity],
        n_private: usize,
    ) -> LedgerRow {
        let quantities: Vec<PrivateQuantity> = prep
            .iter()
            .cloned()
            .chain(std::mem::take(&mut report.private_quantities))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let findings = findings(epsilon, &report, &quantities);
        LedgerRow {
            dataset: dataset.to_string(),
            repetition,
            method: plan.label.clone(),
            params,
            epsilon,
            report,
            private_quantities: quantities,
            n_private,
            releases: plan.release_configurations(),
            tuning: Vec::new(),
            findings,
        }
    }

    /// `epsilon_per_fit`: the largest total any user or row paid in this fit (nats).
    pub fn per_fit(&self) -> f64 {
        self.report.max_epsilon
    }

    /// `epsilon_with_tuning`: the largest of [`LedgerRow::tuning`] over the spec's
    /// selection modes (the per-fit charge before [`apply_tuning`]).
    pub fn with_tuning(&self) -> f64 {
        self.with_tuning_of(|_| true)
    }

    /// The largest of [`LedgerRow::tuning`] over the modes `keep` accepts (the per-fit
    /// charge when it accepts none).
    pub fn with_tuning_of(&self, keep: impl Fn(Selection) -> bool) -> f64 {
        self.tuning
            .iter()
            .filter(|t| keep(t.0))
            .map(|t| t.1)
            .reduce(|a, b| if a.is_nan() || b > a { b } else { a })
            .unwrap_or(self.report.max_epsilon)
    }

    /// The spend under selection `mode` ([`LedgerRow::tuning`]), if the spec selects by it.
    pub fn with_tuning_under(&self, mode: Selection) -> Option<f64> {
        self.tuning.iter().find(|t| t.0 == mode).map(|t| t.1)
    }
}

/// Whether a total `charged` exceeds `epsilon`, up to [`ROUNDING_SLACK`] (NaN does).
fn above(charged: f64, epsilon: f64) -> bool {
    charged.is_nan() || charged > epsilon * (1.0 + ROUNDING_SLACK)
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
    if above(report.max_epsilon, epsilon) {
        out.push(Finding::OverBudget);
    }
    if report.calls == 0 {
        out.push(Finding::Uncharged);
    }
    out.extend(quantities.iter().cloned().map(Finding::DataDependent));
    out
}

/// The key of a row's [`apply_tuning`] group and of a `private_validation` training fit
/// at ε/k_r: (data set, repetition, method, ε text) and, for a fit, its release
/// configuration.
pub type TuningKey = (String, usize, String, String);

/// Fills [`LedgerRow::tuning`] of every row from the rows of the same data set,
/// repetition, method and ε ([`TuningCharges`]: per release configuration, the largest
/// per-fit charge among its grid points; under shared validation releases, the charge of
/// the `private_validation` training fits at ε/k_r in `shared`, by group and
/// configuration) and adds [`Finding::TuningOverBudget`] where
/// [`LedgerRow::with_tuning`] exceeds ε and the per-fit charge (a fit over ε selected
/// among nothing else is [`Finding::OverBudget`] alone). `configuration[i]` names row i's release
/// configuration; `validation_per_point(group, plan)` is what one validation user pays
/// per grid point (asked only when the spec selects by `private_validation`).
pub fn apply_tuning(
    exp: &Experiment,
    rows: &mut [LedgerRow],
    configuration: &[String],
    shared: &BTreeMap<(TuningKey, String), f64>,
    validation_per_point: impl Fn(&TuningKey, &MethodPlan) -> f64,
) {
    apply_tuning_with(
        exp,
        rows,
        configuration,
        shared,
        validation_per_point,
        |_, _| HonestTotals::default(),
    )
}

/// What the honest protocols' own runs charged, per (data set, repetition, method, ε)
/// ([`honest_totals`]; [`apply_tuning_with`]), in nats.
#[derive(Debug, Clone, Copy)]
pub struct HonestTotals {
    /// The worst private user over one whole run of `user_split`.
    pub user_split: f64,
    /// The worst private row over one candidate run of `random_stopping`.
    pub stopping_run: f64,
}

impl Default for HonestTotals {
    /// Not measured: NaN, which a comparison with ε flags.
    fn default() -> Self {
        HonestTotals {
            user_split: f64::NAN,
            stopping_run: f64::NAN,
        }
    }
}

/// [`apply_tuning`] with what the honest protocols charged, from `honest` (asked only when
/// the spec selects by `user_split` or `random_stopping`).
pub fn apply_tuning_with(
    exp: &Experiment,
    rows: &mut [LedgerRow],
    configuration: &[String],
    shared: &BTreeMap<(TuningKey, String), f64>,
    validation_per_point: impl Fn(&TuningKey, &MethodPlan) -> f64,
    honest: impl Fn(&TuningKey, &MethodPlan) -> HonestTotals,
) {
    let key = |r: &LedgerRow| -> TuningKey {
        (
            r.dataset.clone(),
            r.repetition,
            r.method.clone(),
            epsilon_text(r.epsilon),
        )
    };
    // Per group, per release configuration (in first-seen order): the largest per-fit
    // charge (NaN wins) and the ε/k_r fit's.
    let mut groups: BTreeMap<TuningKey, Vec<(String, f64, f64)>> = BTreeMap::new();
    for (r, c) in rows.iter().zip(configuration) {
        let g = key(r);
        let sh = shared
            .get(&(g.clone(), c.clone()))
            .copied()
            .unwrap_or(f64::NAN);
        let list = groups.entry(g).or_default();
        match list.iter_mut().find(|e| e.0 == *c) {
            Some(e) => {
                e.1 = worse(e.1, r.per_fit());
                e.2 = worse(e.2, sh);
            }
            None => list.push((c.clone(), r.per_fit(), sh)),
        }
    }
    let modes = &exp.selection;
    let mut spends: BTreeMap<TuningKey, Vec<(Selection, f64)>> = BTreeMap::new();
    for (g, list) in &groups {
        let Some(plan) = exp.methods.iter().find(|m| m.label == g.2) else {
            continue;
        };
        let honest_modes =
            modes.contains(&Selection::UserSplit) || modes.contains(&Selection::RandomStopping);
        let measured = if honest_modes {
            honest(g, plan)
        } else {
            HonestTotals::default()
        };
        let charges = TuningCharges {
            per_fit: list.iter().map(|e| e.1).collect(),
            per_fit_shared: list.iter().map(|e| e.2).collect(),
            validation_per_point: if modes.contains(&Selection::PrivateValidation) {
                validation_per_point(g, plan)
            } else {
                0.0
            },
            grid_points: crate::run::accounting::grid_points(plan),
            user_split_total: measured.user_split,
            stopping_run: measured.stopping_run,
            stopping_multiplier: exp
                .spec
                .tuning
                .stopping
                .law()
                .map_or(f64::NAN, |l| l.pure_multiplier()),
        };
        let spend = modes
            .iter()
            .map(|&m| (m, epsilon_with_tuning(&exp.spec.tuning, m, &charges)))
            .collect();
        spends.insert(g.clone(), spend);
    }
    for r in rows.iter_mut() {
        let Some(spend) = spends.get(&key(r)) else {
            continue;
        };
        r.tuning = spend.clone();
        // Selection over one configuration adds nothing to the fit: a fit over ε is
        // `over_budget` alone.
        let oracle = r.with_tuning_of(|m| !is_honest(m));
        let mut found = Vec::new();
        if r.tuning.iter().any(|t| !is_honest(t.0))
            && above(oracle, r.epsilon)
            && above(oracle, r.per_fit())
        {
            found.push(Finding::TuningOverBudget);
        }
        // An honest mode promises ε in total: over it, and over what the fit alone
        // charged, is a finding of its own (a fit that overspends by itself is
        // `over_budget`, whatever the selection).
        for &(mode, spent) in spend.iter().filter(|t| is_honest(t.0)) {
            if above(spent, r.epsilon) && above(spent, r.per_fit()) {
                found.push(Finding::HonestOverBudget(mode));
            }
        }
        let at = r
            .findings
            .iter()
            .position(|f| *f != Finding::OverBudget)
            .unwrap_or(r.findings.len());
        r.findings.splice(at..at, found);
    }
}

/// The larger of two charges, NaN the largest.
fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
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

/// One structural grid point of one method on one data set and repetition: prepared
/// once, then every mechanism grid point and ε fitted on it.
struct Unit<'a> {
    /// Index into the prepared repetitions.
    data: usize,
    repetition: usize,
    dataset: &'a str,
    plan: &'a MethodPlan,
    structural: &'a Params,
}

/// What a unit recorded: its rows with their release configurations, and the charges of
/// the `private_validation` training fits at ε/k_r by (column ε text, configuration).
type UnitOut = (Vec<(LedgerRow, String)>, Vec<(String, String, f64)>);

/// The structural grid points of `plan` (one empty point when it has none).
fn structural_points(plan: &MethodPlan) -> Vec<Params> {
    if plan.structural.is_empty() {
        vec![Params::default()]
    } else {
        plan.structural.clone()
    }
}

/// The mechanism grid points of `plan` (one empty point when it has none).
fn mechanism_points(plan: &MethodPlan) -> Vec<Params> {
    if plan.mechanism.is_empty() {
        vec![Params::default()]
    } else {
        plan.mechanism.clone()
    }
}

/// What one validation user of `private_validation` pays for one grid point's noisy loss
/// under `plan` at `epsilon`: the charge of `run::point::validation_score` itself, recorded
/// on one validation user with a loss inside its bounds.
fn validation_charge(exp: &Experiment, plan: &MethodPlan, data: &RepData, epsilon: f64) -> f64 {
    let grid = crate::run::accounting::grid_points(plan) as f64;
    let y = [data.bounds.lo];
    let mut rng = crate::run::seeds::stream(exp.spec.seed, &["ledger", "validation"]);
    let ((), r) = recording(|| {
        crate::run::validation_score(
            data.test.task,
            data.bounds,
            &y,
            &y,
            Some(epsilon),
            grid,
            &mut rng,
        );
    });
    r.max_epsilon
}

/// What the honest protocols charge, measured on their own code path (docs/tuning.md):
/// one whole run of `user_split` on repetition `rep` of `data` at `epsilon` — every
/// candidate's fit on its group ([`crate::run::user_split_data`]) and its validation users'
/// noisy losses — and one candidate run of `random_stopping` per grid point (its fit at
/// ε₀ on the training rows, its score on the validation rows), each call's charges
/// captured and added up per private user or row by its place in the private sample, so
/// that a user in two groups, or a row both fitted and scored, pays twice. The largest
/// totals; NaN for a protocol the spec does not select or a fit that fails.
fn honest_totals(
    exp: &Experiment,
    dplan: &crate::spec::DatasetPlan,
    data: &RepData,
    rep: usize,
    plan: &MethodPlan,
    epsilon: f64,
) -> HonestTotals {
    use crate::privacy::ledger::capturing;
    use crate::run::{
        central_validation_score, tuning_data, user_split_candidates, user_split_data,
        user_split_groups, validation_score,
    };
    let tuning = tuning_data(exp, dplan, data, rep);
    let structural = structural_points(plan);
    let mechanism = mechanism_points(plan);
    let points: Vec<(&Params, &Params)> = structural
        .iter()
        .flat_map(|s| mechanism.iter().map(move |q| (s, q)))
        .collect();
    let seed = exp.spec.seed;
    let stream = |what: &str, i: usize| {
        crate::run::seeds::stream(
            seed,
            &["ledger", what, &dplan.name, &plan.label, &i.to_string()],
        )
    };
    // One candidate: its fit on `d` at `eps` and its score of the first `n_val` test rows,
    // the charges of each mapped to private-sample places by `train` and `val`.
    let candidate = |d: &RepData,
                     n_val: usize,
                     (s, q): (&Params, &Params),
                     eps: f64,
                     central: bool,
                     (train, val): (&[usize], &[usize]),
                     i: usize,
                     totals: &mut BTreeMap<usize, f64>|
     -> bool {
        // A grid point the method skips on this data (a histogram over the memory cap) is
        // no candidate: it releases nothing. A fit that fails leaves the total unmeasured.
        let (pred, fit) =
            capturing(
                || match plan.method.prepare(d, s, &mut stream("partition", i)) {
                    Ok(None) => Ok(None),
                    Ok(Some(fitted)) => fitted
                        .predict(q, Some(eps), &mut stream("release", i))
                        .map(Some),
                    Err(e) => Err(e),
                },
            );
        let pred = match pred {
            Ok(Some(p)) => p,
            Ok(None) => return true,
            Err(_) => return false,
        };
        let (y_val, p_val) = (&d.test.y[..n_val], &pred[..n_val]);
        let mut rng = stream("score", i);
        let ((), score) = capturing(|| {
            if central {
                central_validation_score(d.test.task, d.bounds, y_val, p_val, eps, &mut rng);
            } else {
                validation_score(
                    d.test.task,
                    d.bounds,
                    y_val,
                    p_val,
                    Some(eps),
                    1.0,
                    &mut rng,
                );
            }
        });
        for (k, e) in fit.per_subject() {
            *totals.entry(train[k]).or_default() += e;
        }
        for (k, e) in score.per_subject() {
            *totals.entry(val[k]).or_default() += e;
        }
        true
    };
    let worst = |t: &BTreeMap<usize, f64>| t.values().copied().fold(0.0, worse);
    let mut out = HonestTotals::default();
    if let Some((order, n_v)) = &tuning.users {
        let k = points.len();
        let candidates = user_split_candidates(exp, &dplan.name, rep, &plan.label, k);
        let slots = candidates.len();
        let (ok, totals) = recording(|| {
            let mut totals = BTreeMap::new();
            let mut ok = true;
            for (slot, &g) in candidates.iter().enumerate() {
                let (val, train) = user_split_groups((order, *n_v), slot, slots);
                let (d, n_val) = user_split_data(data, (order, *n_v), slot, slots);
                ok &= candidate(
                    &d,
                    n_val,
                    points[g],
                    epsilon,
                    false,
                    (&train, &val),
                    g,
                    &mut totals,
                );
            }
            (ok, totals)
        })
        .0;
        if ok {
            out.user_split = worst(&totals);
        }
    }
    if let (Some((pv, n_v)), Some(order), Ok(law)) = (
        &tuning.validation,
        &tuning.validation_order,
        exp.spec.tuning.stopping.law(),
    ) {
        if exp
            .selection
            .contains(&crate::spec::raw::Selection::RandomStopping)
        {
            let eps0 = law.candidate_epsilon(epsilon);
            let (val, train) = order.split_at(*n_v);
            let mut run_worst: f64 = 0.0;
            for (i, &point) in points.iter().enumerate() {
                let (ok, totals) = recording(|| {
                    let mut totals = BTreeMap::new();
                    let ok = candidate(pv, *n_v, point, eps0, true, (train, val), i, &mut totals);
                    (ok, totals)
                })
                .0;
                run_worst = if ok {
                    worse(run_worst, worst(&totals))
                } else {
                    f64::NAN
                };
            }
            out.stopping_run = run_worst;
        }
    }
    out
}

/// Runs the ledger of every private method of `exp` (only `method` when given) at each of
/// `epsilons` on every data set of the spec the method runs on, on repetitions
/// [`LEDGER_REPETITIONS`], at every grid point; rows in spec order (data set, repetition,
/// method, grid point, ε), with [`LedgerRow::tuning`] filled ([`apply_tuning`]). Each
/// structural point is prepared once and each fit recorded on a one-thread pool of its
/// own; units run in parallel, and the rows do not depend on the number of threads.
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
    // Per (data set, repetition), in that order.
    let mut prepared: Vec<(Arc<RepData>, Vec<PrivateQuantity>)> = Vec::new();
    for (d, plan) in exp.datasets.iter().enumerate() {
        let mine = |q: &&PrivateQuantity| q.detail.starts_with(&format!("{}:", plan.name));
        for rep in LEDGER_REPETITIONS {
            let (data, split_report) = recording(|| {
                repetition_data(exp, plan, loaded.get(d).and_then(|x| x.as_deref()), rep)
            });
            let prep: Vec<PrivateQuantity> = load_report
                .private_quantities
                .iter()
                .filter(mine)
                .chain(&split_report.private_quantities)
                .cloned()
                .collect();
            prepared.push((Arc::new(data?), prep));
        }
    }
    let structural: Vec<Vec<Params>> = exp.methods.iter().map(structural_points).collect();
    let mut units = Vec::new();
    for (d, dplan) in exp.datasets.iter().enumerate() {
        for (ri, &repetition) in LEDGER_REPETITIONS.iter().enumerate() {
            let data = d * LEDGER_REPETITIONS.len() + ri;
            let rep = &prepared[data].0;
            let n_all = rep.public.n() + rep.private.n() + rep.test.n();
            for (mi, plan) in exp.methods.iter().enumerate() {
                let wanted = method.is_none_or(|l| l == plan.label);
                if !wanted || !plan.method.private() || plan.skip.contains(&dplan.name) {
                    continue;
                }
                for s in &structural[mi] {
                    if plan.method.skip_reason(s, n_all, rep.test.d()).is_some() {
                        continue;
                    }
                    units.push(Unit {
                        data,
                        repetition,
                        dataset: &dplan.name,
                        plan,
                        structural: s,
                    });
                }
            }
        }
    }
    let shared_validation = exp.selection.contains(&Selection::PrivateValidation)
        && exp.spec.tuning.validation_releases == ValidationReleases::Shared;

    let seed = exp.spec.seed;
    let fit = |recorder: &Recorder, u: &Unit| -> Result<UnitOut, LedgerError> {
        let (data, prep) = &prepared[u.data];
        let decls = u.plan.method.params();
        let k_r = u.plan.release_configurations().max(1) as f64;
        let err = |params: String, epsilon: f64, source| LedgerError::Method {
            method: u.plan.label.clone(),
            dataset: u.dataset.to_string(),
            params,
            epsilon,
            source,
        };
        let mut ps = partition_stream(
            seed,
            u.dataset,
            u.repetition,
            &u.plan.label,
            &u.structural.key(),
        );
        let (fitted, start) = recorder.record_from(&Recorded::default(), || {
            u.plan.method.prepare(data, u.structural, &mut ps)
        });
        let fitted = fitted.map_err(|e| err(u.structural.key(), f64::NAN, e))?;
        let Some(fitted) = fitted else {
            return Ok((Vec::new(), Vec::new()));
        };
        let record = |mechanism: &Params, point: &Params, epsilon: f64| {
            let mut rs = release_stream(
                seed,
                "noise",
                u.dataset,
                u.repetition,
                u.plan,
                point,
                &epsilon_text(epsilon),
                "",
            );
            let (out, recorded) = recorder.record_from(&start, || {
                fitted
                    .predict(mechanism, Some(epsilon), &mut rs)
                    .map(|_| ())
            });
            out.map(|()| recorded.report())
        };
        let mut rows = Vec::new();
        let mut shared = Vec::new();
        for q in mechanism_points(u.plan) {
            let point = u.structural.join(&q);
            let configuration = format!("{}|{}", u.structural.key(), q.release_key(decls));
            for &epsilon in epsilons {
                let report =
                    record(&q, &point, epsilon).map_err(|e| err(point.key(), epsilon, e))?;
                let row = LedgerRow::new(
                    (u.dataset, u.repetition),
                    u.plan,
                    point.key(),
                    epsilon,
                    report,
                    prep,
                    data.private.n(),
                );
                rows.push((row, configuration.clone()));
                if shared_validation {
                    let at = epsilon / k_r;
                    let charged = record(&q, &point, at)
                        .map_err(|e| err(point.key(), at, e))?
                        .max_epsilon;
                    shared.push((epsilon_text(epsilon), configuration.clone(), charged));
                }
            }
        }
        Ok((rows, shared))
    };
    let outs = on_worker_threads(&units, fit);
    let (mut rows, mut configurations) = (Vec::new(), Vec::new());
    let mut shared = BTreeMap::new();
    for (u, out) in units.iter().zip(outs) {
        let (unit_rows, unit_shared) = out?;
        for (eps, c, charged) in unit_shared {
            let group = (
                u.dataset.to_string(),
                u.repetition,
                u.plan.label.clone(),
                eps,
            );
            let e = shared.entry((group, c)).or_insert(charged);
            *e = worse(*e, charged);
        }
        for (row, c) in unit_rows {
            rows.push(row);
            configurations.push(c);
        }
    }
    let data_of = |g: &TuningKey| {
        let d = exp.datasets.iter().position(|p| p.name == g.0).unwrap_or(0);
        let r = LEDGER_REPETITIONS
            .iter()
            .position(|&r| r == g.1)
            .unwrap_or(0);
        let epsilon: f64 = g.3.parse().unwrap_or(f64::NAN);
        (&prepared[d * LEDGER_REPETITIONS.len() + r].0, epsilon)
    };
    let validation = |g: &TuningKey, plan: &MethodPlan| {
        let (data, epsilon) = data_of(g);
        validation_charge(exp, plan, data, epsilon)
    };
    let honest = |g: &TuningKey, plan: &MethodPlan| {
        let (data, epsilon) = data_of(g);
        let dplan = exp.datasets.iter().find(|p| p.name == g.0);
        match dplan {
            Some(dplan) => honest_totals(exp, dplan, data, g.1, plan, epsilon),
            None => HonestTotals::default(),
        }
    };
    apply_tuning_with(exp, &mut rows, &configurations, &shared, validation, honest);
    Ok(rows)
}

/// `f` of every unit, in order, computed on as many plain threads as rayon's pool has,
/// each thread handing `f` its own [`Recorder`] (one recording pool per thread, not per
/// fit). Recording from plain threads: calling it from rayon's own workers instead would
/// let a worker that waits for one recording start the next one on the same stack,
/// nesting without bound.
fn on_worker_threads<U: Sync, T: Send>(
    units: &[U],
    f: impl Fn(&Recorder, &U) -> T + Sync,
) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = rayon::current_num_threads().clamp(1, units.len().max(1));
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let recorder = Recorder::new();
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(u) = units.get(i) else {
                            return mine;
                        };
                        mine.push((i, f(&recorder, u)));
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
            r.repetition.to_string(),
            field(&r.method),
            field(&r.params),
            epsilon_text(r.epsilon),
            format!("{}", r.per_fit()),
            format!("{}", r.with_tuning()),
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
    /// recordings in a row do not nest (each worker's on its one recording pool, from plain
    /// threads: 2,000 of them would overflow a worker's stack if they did).
    #[test]
    fn worker_threads_keep_the_order_and_recordings_do_not_nest() {
        let units: Vec<usize> = (0..2000).collect();
        let out = on_worker_threads(&units, |recorder, &u| {
            let charge = || crate::privacy::ledger::charge("x", Subjects::One(u), 0.5, 0.0);
            recorder
                .record_from(&Recorded::default(), charge)
                .1
                .report()
                .worst
        });
        assert_eq!(out, units.iter().map(|&u| Some(u)).collect::<Vec<_>>());
    }

    #[test]
    fn ledger_csv_quotes_paths_and_lists_findings() {
        let r = report(&[0.25, 1.5]);
        let mut row = LedgerRow {
            dataset: "abalone".into(),
            repetition: 2,
            method: "LPDT-M".into(),
            params: "rho=0.5".into(),
            epsilon: 1.0,
            findings: findings(1.0, &r, &[]),
            report: r,
            private_quantities: Vec::new(),
            n_private: 2,
            releases: 3,
            tuning: Vec::new(),
        };
        // Before the tuning is applied, the column repeats the per-fit charge.
        assert_eq!(row.with_tuning(), 1.5);
        row.tuning = vec![(Selection::BestMean, 4.5), (Selection::Cv, 3.0)];
        row.findings.insert(1, Finding::TuningOverBudget);
        let text = ledger_csv(&[row]);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(LEDGER_HEADER));
        assert_eq!(
            lines.next(),
            Some("abalone,2,LPDT-M,rho=0.5,1,1.5,4.5,0,0.25,2,2,2,3,part: 1 x 1.500000,,over_budget; tuning_over_budget")
        );
    }
}
