//! The baselines of the DiPriMe paper as builtins (card docs/methods/diprime.md §4): `RF` and `ERT`
//! (non-private, scikit-learn semantics, [`crate::forest::sklearn`]), `DP-RF`
//! ([`crate::forest::dp_rf`]) and `DP-DF` ([`crate::forest::dp_df`]) on the 5-bin
//! discretisation of [`crate::forest::discretize`].
//!
//! **Modes.** `mode: reference_quirks` (default) reproduces what produced the paper's
//! tables; `mode: paper` turns every quirk off. Each quirk is also a parameter of its own
//! whose default `mode` follows the `mode` parameter (reference / paper value in brackets):
//! * DP-RF: `k` (all / 5 candidate attributes), `row_sample` (shared / bootstrap),
//!   `gini_sensitivity` (one / friedman_schuster), `split_budget` (whole_tree / per_level),
//!   `node_means` (unclamped / clamped), `weight_floors` (true / false);
//! * DP-DF: `height_limit` (false / true), `root_exclusion` (false / true), `descent`
//!   (root_only / categories).
//!
//! DP-DF's ε as run (1.0 in Table 2 where the paper says 2; 0.5ε in Fig 2) is the spec's
//! `epsilon_factor: 0.5`, not a constant here.
//!
//! **Depth.** `depth` is an integer or `rule`: the card §5 rule with the spec's `occupancy`
//! on the training rows, d_full for RF and ERT, d_mult (5-way) for DP-RF and DP-DF.
//!
//! **Full data.** Bins and category lists come from the repetition's private ∪ test rows,
//! the contract's "full data" (card §4.7: once, before the split, on all rows). Columns
//! declared categorical (or unbinned, Credit's PAY_*) keep their values.

use super::{
    required_epsilon, Method, MethodError, ParamDecl, ParamKind, ParamRole, ParamValue, Params,
    Prepared, RepData,
};
use crate::data::{Dataset, Escape, Task};
use crate::estimate::LabelBounds;
use crate::forest::discretize::{Coded, Discretizer};
use crate::forest::dp_df::{fit_dp_df, Descent, DpDf, DpDfParams, PruneRule};
use crate::forest::dp_rf::{
    fit_dp_rf, DpRf, DpRfParams, DpRfTask, GiniScore, NodeMeans, RowSample, SplitBudget,
};
use crate::forest::sklearn::{fit_forest, ForestParams, Target};
use crate::forest::{d_full, d_mult};
use crate::privacy::Budget;
use rand_pcg::Pcg64;

/// A quirk parameter (module docs, **Modes**): structural, of values `kind` (`mode` among
/// them), with the default `mode`, which follows the `mode` parameter.
const fn quirk_param(name: &'static str, kind: ParamKind, doc: &'static str) -> ParamDecl {
    ParamDecl {
        name,
        role: ParamRole::Structural,
        kind,
        default: Some("mode"),
        doc,
    }
}

/// The values of a yes/no quirk: true, false or `mode`.
const BOOL_OR_MODE: ParamKind = ParamKind::Either(&[ParamKind::Bool, ParamKind::Choice(&["mode"])]);

const TREES: ParamDecl = ParamDecl {
    name: "trees",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 1 },
    default: Some("10"),
    doc: "number of trees N_T (card §6.3: 10)",
};

const DEPTH: ParamDecl = ParamDecl {
    name: "depth",
    role: ParamRole::Structural,
    kind: ParamKind::Either(&[ParamKind::Int { min: 0 }, ParamKind::Choice(&["rule"])]),
    default: Some("rule"),
    doc: "maximum depth, or rule = card §5 floor(log_b(n_train/occupancy)) (b = 2 for RF/ERT: d_full; b = 5 for DP-RF/DP-DF: d_mult)",
};

const OCCUPANCY: ParamDecl = ParamDecl {
    name: "occupancy",
    role: ParamRole::Structural,
    kind: ParamKind::Either(&[ParamKind::Int { min: 1 }, ParamKind::Choice(&["dataset"])]),
    default: Some("25"),
    doc: "expected leaf occupancy of the depth rule (card §5: 25, Banknote 10), or `dataset` = the data manifest's `leaf_occupancy`",
};

const MODE: ParamDecl = ParamDecl {
    name: "mode",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["reference_quirks", "paper"]),
    default: Some("reference_quirks"),
    doc: "reference_quirks = as the authors' code ran (card §9), paper = every quirk off; each quirk parameter set to `mode` follows this",
};

const EPSILON_FACTOR: ParamDecl = ParamDecl {
    name: "epsilon_factor",
    role: ParamRole::Release,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: true,
    },
    default: Some("1"),
    doc: "the method is called with factor x the spec's epsilon (DP-DF as run: 0.5, card §6.4 and Fig 2)",
};

const RHO: ParamDecl = ParamDecl {
    name: "rho",
    role: ParamRole::Release,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1.0,
        open: true,
    },
    default: Some("0.5"),
    doc: "share of each level's budget on the split, the rest on the node counts/means (card §4.4)",
};

const RF_K: ParamDecl = ParamDecl {
    name: "k",
    role: ParamRole::Structural,
    kind: ParamKind::Either(&[ParamKind::Int { min: 1 }, ParamKind::Choice(&["all"])]),
    default: Some("5"),
    doc: "max_features: candidate features per node (card §4.1: 5, Banknote 4, Fig 1 10); all = every feature",
};

const MIN_SAMPLES_LEAF: ParamDecl = ParamDecl {
    name: "min_samples_leaf",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 1 },
    default: Some("5"),
    doc: "sklearn's min_samples_leaf (card §4.1: 5)",
};

const DPRF_K: ParamDecl = quirk_param("k", ParamKind::Either(&[ParamKind::Int { min: 1 }, ParamKind::Choice(&["all", "mode"])]), "candidate attributes per node: mode = all as run (reference_quirks), 5 as the paper says (paper); Fig 2 uses 4");

const ROWS_FRACTION: ParamDecl = ParamDecl {
    name: "rows_fraction",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1.0,
        open: false,
    },
    default: Some("1"),
    doc: "fraction f in (0, 1] of the training rows the trees grow on (card §4.4: 1 in the tables, 0.25 in Fig 2)",
};

const ROW_SAMPLE: ParamDecl = quirk_param("row_sample", ParamKind::Choice(&["mode", "shared", "bootstrap"]), "shared = floor(f n) rows drawn once without replacement for all trees (as run); bootstrap = each tree its own floor(f n) rows with replacement (paper); mode follows `mode`");

const GINI_SENSITIVITY: ParamDecl = quirk_param("gini_sensitivity", ParamKind::Choice(&["mode", "one", "friedman_schuster"]), "classification split EM: one = normalised Gini score with sensitivity 1 (as run); friedman_schuster = count-weighted Gini with sensitivity 2 (paper); mode follows `mode`");

const SPLIT_BUDGET: ParamDecl = quirk_param("split_budget", ParamKind::Choice(&["mode", "whole_tree", "per_level"]), "regression split EM budget: whole_tree = eps_T at every node (as run, card §4.5 bug); per_level = rho eps_T/(d+1) (paper); mode follows `mode`");

const NODE_MEANS: ParamDecl = quirk_param("node_means", ParamKind::Choice(&["mode", "unclamped", "clamped"]), "regression node values: unclamped (as run) or clamped to the label bounds (paper); mode follows `mode`");

const WEIGHT_FLOORS: ParamDecl = quirk_param("weight_floors", BOOL_OR_MODE, "regression split EM weights exp(score) + 1e-12 without max subtraction (true, as run: uniform when all underflow) or an exact softmax (false, paper); mode follows `mode`");

const HEIGHT_LIMIT: ParamDecl = quirk_param("height_limit", BOOL_OR_MODE, "stop at depth h-1 so a path makes 2h-1 queries (true, paper) or grow until attributes or rows run out (false, as run: tracer 0, card §4.6); mode follows `mode`");

const ROOT_EXCLUSION: ParamDecl = quirk_param("root_exclusion", BOOL_OR_MODE, "exclude earlier trees' root attributes at the root (true, paper) or not (false, as run: tracer 0); mode follows `mode`");

const PRUNE: ParamDecl = ParamDecl {
    name: "prune",
    role: ParamRole::Structural,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "bottom-up pruning (card §4.6; the tables prune on every data set but Banknote)",
};

const PRUNE_RULE: ParamDecl = quirk_param("prune_rule", ParamKind::Choice(&["mode", "as_run", "bottom_up"]), "with prune: as_run = the authors' _prune_leaf (children weighted by the node's noisy size, a size-0 leaf stored as one row, each pruning cascading to the parent; card §4.6 as run) or bottom_up = the card's rule (paper); mode follows `mode`");

const DESCENT: ParamDecl = quirk_param("descent", ParamKind::Choice(&["mode", "root_only", "categories"]), "root_only = every record gets the trees' noisy root majorities (as run: string keys never match, card §4.6); categories = descend by the record's values (paper); mode follows `mode`");

static RF_PARAMS: [ParamDecl; 5] = [TREES, RF_K, DEPTH, OCCUPANCY, MIN_SAMPLES_LEAF];

static DPRF_PARAMS: [ParamDecl; 13] = [
    TREES,
    DPRF_K,
    DEPTH,
    OCCUPANCY,
    MODE,
    ROWS_FRACTION,
    ROW_SAMPLE,
    GINI_SENSITIVITY,
    SPLIT_BUDGET,
    NODE_MEANS,
    WEIGHT_FLOORS,
    RHO,
    EPSILON_FACTOR,
];

static DPDF_PARAMS: [ParamDecl; 10] = [
    TREES,
    DEPTH,
    OCCUPANCY,
    MODE,
    HEIGHT_LIMIT,
    ROOT_EXCLUSION,
    PRUNE,
    PRUNE_RULE,
    DESCENT,
    EPSILON_FACTOR,
];

/// Whether the grid point runs in `mode: paper`.
fn paper(p: &Params) -> bool {
    p.str(MODE.name) == "paper"
}

/// A named quirk choice of a central-DP method (card §9–§10): its value, or — when it is
/// `mode` or not declared at this grid point — the reference value, or the paper value
/// under `mode: paper`. Shared by these baselines and the `forest` block.
pub(crate) fn quirk<'a>(
    p: &'a Params,
    name: &str,
    reference: &'a str,
    paper_value: &'a str,
) -> &'a str {
    match p.0.iter().find(|(k, _)| k == name) {
        Some((_, ParamValue::Str(v))) if v != "mode" => v,
        _ if paper(p) => paper_value,
        _ => reference,
    }
}

/// A boolean quirk: its value, or (`mode`) `reference` / its negation in paper mode.
fn quirk_bool(p: &Params, name: &str, reference: bool) -> bool {
    match p.get(name) {
        ParamValue::Bool(b) => *b,
        _ => reference != paper(p),
    }
}

/// `occupancy` at this grid point for the training rows `train`: the integer, or with
/// `dataset` the manifest's declared `leaf_occupancy` (card §5: 10 on Banknote, 25 on the
/// others), so one spec runs the paper's per-data-set rule.
///
/// # Errors
/// `occupancy: dataset` on a data set whose manifest declares no `leaf_occupancy`.
pub(crate) fn occupancy_of(p: &Params, train: &Dataset) -> Result<usize, MethodError> {
    match p.get(OCCUPANCY.name) {
        ParamValue::Int(o) => Ok(*o as usize),
        _ => train.leaf_occupancy.ok_or_else(|| {
            MethodError::Other(format!(
                "occupancy: dataset, but the manifest of data set '{}' declares no leaf_occupancy; give an integer occupancy or add `leaf_occupancy:` to its manifest",
                train.name
            ))
        }),
    }
}

/// `depth` at this grid point: the integer, or the §5 rule with base `rule` on the
/// training rows `train`.
fn depth_of(
    p: &Params,
    train: &Dataset,
    rule: fn(usize, usize) -> usize,
) -> Result<usize, MethodError> {
    Ok(match p.get(DEPTH.name) {
        ParamValue::Int(d) => *d as usize,
        _ => rule(train.n(), occupancy_of(p, train)?),
    })
}

/// `k`: Some(integer) or None for all features.
fn k_of(p: &Params, paper_default: usize) -> Option<usize> {
    match p.get("k") {
        ParamValue::Int(k) => Some(*k as usize),
        ParamValue::Str(s) if s == "mode" && paper(p) => Some(paper_default),
        _ => None,
    }
}

/// The number of classes of a classification data set: 1 + the largest training label
/// (at least 2).
fn classes_of(train: &Dataset) -> usize {
    train.y.iter().fold(1.0f64, |m, &v| m.max(v)).max(1.0) as usize + 1
}

/// The label-code check the forests rely on: classification labels are 0, 1, ….
fn check_labels(name: &str, train: &Dataset) -> Result<(), MethodError> {
    if train.task == Task::Classification && !train.y.iter().all(|&v| v >= 0.0 && v.fract() == 0.0)
    {
        return Err(MethodError::Other(format!(
            "{name}: classification labels must be codes 0, 1, … (data set {})",
            train.name
        )));
    }
    Ok(())
}

/// Predictions computed once in `prepare` (non-private methods).
struct Fixed(Vec<f64>);

impl Prepared for Fixed {
    fn predict(
        &self,
        _m: &Params,
        _epsilon: Option<f64>,
        _rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        Ok(self.0.clone())
    }
}

/// `RF` or `ERT`; registered as [`RF`] and [`ERT`].
#[derive(Debug, Clone, Copy)]
pub struct SklearnForest {
    extra: bool,
}

/// RF: sklearn `RandomForest{Regressor,Classifier}` semantics (card §4.1).
pub static RF: SklearnForest = SklearnForest { extra: false };

/// ERT: sklearn `ExtraTrees{Regressor,Classifier}` semantics (card §4.1).
pub static ERT: SklearnForest = SklearnForest { extra: true };

impl Method for SklearnForest {
    fn name(&self) -> &str {
        if self.extra {
            "ERT"
        } else {
            "RF"
        }
    }
    fn description(&self) -> &str {
        if self.extra {
            "non-private extremely randomized trees, sklearn ExtraTrees semantics (no bootstrap, one uniform threshold per candidate feature, best candidate kept, min_samples_leaf); DiPriMe card §4.1"
        } else {
            "non-private random forest, sklearn RandomForest semantics (bootstrap, best split over k random features, min_samples_leaf, squared error / Gini, averaged class probabilities); DiPriMe card §4.1"
        }
    }
    fn params(&self) -> &[ParamDecl] {
        &RF_PARAMS
    }
    builtin! { [Regression, Classification], NonPrivate }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let train = data.private.escape(Escape::NotPrivate);
        check_labels(self.name(), train)?;
        if train.n() == 0 {
            return Err(MethodError::Other(format!(
                "{}: no training rows",
                self.name()
            )));
        }
        let k = k_of(p, 5).unwrap_or(train.d()).max(1);
        let depth = depth_of(p, train, d_full)?;
        let (trees, msl) = (p.usize(TREES.name), p.usize(MIN_SAMPLES_LEAF.name));
        let fp = if self.extra {
            ForestParams::extra_trees(trees, k, depth, msl)
        } else {
            ForestParams::random_forest(trees, k, depth, msl)
        };
        let target = match train.task {
            Task::Regression => Target::Regression,
            Task::Classification => Target::Classes(classes_of(train)),
        };
        let forest = fit_forest(&train.x, &train.y, target, &fp, rng);
        Ok(Some(Box::new(Fixed(forest.predict(&data.test.x)))))
    }
}

/// The coded training and test rows of a repetition (bins from private ∪ test rows).
struct CodedRep {
    train: Coded,
    y: Vec<f64>,
    test: Coded,
    task: Task,
    classes: usize,
    bounds: LabelBounds,
}

/// The columns the discretisation leaves as they are: the categorical ones and the ones
/// the data manifest declares `unbinned` (Credit's PAY_*; card §4.7), in increasing order.
fn kept_columns(d: &Dataset) -> Vec<usize> {
    let mut kept: Vec<usize> = d.categorical.iter().chain(&d.unbinned).copied().collect();
    kept.sort_unstable();
    kept.dedup();
    kept
}

/// The 5-bin discretisation of a repetition fitted on the private training rows and the
/// test rows (card §4.7: a private quantity, which the escape [`Escape::BinEdges`] records
/// on the ledger), and the coded rows the curator's mechanisms read.
fn coded_rep(data: &RepData) -> CodedRep {
    let binned = data.private.escape(Escape::BinEdges);
    let dz = Discretizer::fit(&[&binned.x, &data.test.x], &kept_columns(binned));
    let train = data.private.escape(Escape::CentralCurator);
    CodedRep {
        train: dz.encode(&train.x),
        y: train.y.clone(),
        test: dz.encode(&data.test.x),
        task: train.task,
        classes: classes_of(train),
        bounds: data.bounds,
    }
}

/// The budget DP-RF or DP-DF (`name`) is called with at grid point `m`: the spec's ε ×
/// `epsilon_factor` (card §6.3–§6.4), checked.
///
/// # Errors
/// No ε, or a product that is not finite and > 0.
pub fn called_epsilon(name: &str, epsilon: Option<f64>, m: &Params) -> Result<f64, MethodError> {
    let e = required_epsilon(name, epsilon)? * m.f64(EPSILON_FACTOR.name);
    Ok(Budget::new(e)?.epsilon())
}

/// The `DP-RF` builtin; registered as [`DP_RF`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DpRfMethod;

/// DP-RF: Patil & Singh's private random forest as run, and its regression analogue (card
/// §4.4–§4.5).
pub static DP_RF: DpRfMethod = DpRfMethod;

struct PreparedDpRf {
    rep: CodedRep,
    params: DpRfParams,
}

impl PreparedDpRf {
    /// The forest at grid point `m` and budget `epsilon`, every draw from `rng`.
    fn fit(&self, m: &Params, epsilon: Option<f64>, rng: &mut Pcg64) -> Result<DpRf, MethodError> {
        let eps = called_epsilon("DP-RF", epsilon, m)?;
        let params = DpRfParams {
            rho: m.f64(RHO.name),
            ..self.params
        };
        let r = &self.rep;
        let task = match r.task {
            Task::Regression => DpRfTask::Regression(r.bounds),
            Task::Classification => DpRfTask::Classes(r.classes),
        };
        Ok(fit_dp_rf(&r.train, &r.y, task, &params, eps, rng))
    }
}

impl Prepared for PreparedDpRf {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        Ok(self.fit(m, epsilon, rng)?.predict(&self.rep.test))
    }

    fn leaf_rows(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Option<Result<Vec<Vec<usize>>, MethodError>> {
        Some(self.fit(m, epsilon, rng).map(|f| {
            f.trees
                .iter()
                .map(|t| {
                    t.nodes
                        .iter()
                        .filter(|n| n.split.is_none())
                        .map(|n| n.rows)
                        .collect()
                })
                .collect()
        }))
    }
}

impl Method for DpRfMethod {
    builtin! {
        "DP-RF", [Regression, Classification], Central, &DPRF_PARAMS,
        "Patil & Singh's DP random forest on 5-bin features as the DiPriMe authors ran it (multiway splits by EM on Gini / within-category MSE, Laplace node counts / means, eps/N_T per tree), and their regression analogue; DiPriMe card §4.4-§4.5"
    }
    fn privacy_notes(&self) -> Vec<String> {
        vec![
            "the 5 bins and the category lists come from all rows (training and test) in the clear (card §4.7, §3.11 caveat 5)".into(),
            "the regression split sensitivity 4B^2/n and the node-mean noise scale W/(n e) use exact node counts, never privatised (card §9 item 3)".into(),
            "under reference_quirks the Gini split score is given sensitivity 1, and the regression split mechanism spends the whole tree budget eps/N_T at every node (card §9 item 13), so its splits are not covered by the stated eps".into(),
        ]
    }
    fn audit_key(&self, params: &Params) -> String {
        // Its quirks are structural parameters and change what is released.
        params.release_key(self.params())
    }
    fn check_grid(&self, points: &[Params]) -> Result<(), String> {
        for p in points {
            if p.f64(ROWS_FRACTION.name) <= 0.0 {
                return Err(format!(
                    "{}: a number in (0, 1]; 0 leaves no row",
                    ROWS_FRACTION.name
                ));
            }
        }
        Ok(())
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let train = data.private.escape(Escape::CentralCurator);
        check_labels("DP-RF", train)?;
        if train.n() == 0 {
            return Err(MethodError::Other("DP-RF: no training rows".into()));
        }
        let params = dp_rf_params(p, depth_of(p, train, d_mult)?);
        Ok(Some(Box::new(PreparedDpRf {
            rep: coded_rep(data),
            params,
        })))
    }
}

/// DP-RF's arguments at grid point `p` and tree depth `depth` (ρ still unset: NaN until
/// the fit sets the grid point's value); what the fit and the audit both use.
pub fn dp_rf_params(p: &Params, depth: usize) -> DpRfParams {
    DpRfParams {
        trees: p.usize(TREES.name),
        depth,
        k: k_of(p, 5),
        rho: RHO_UNSET,
        rows_fraction: p.f64(ROWS_FRACTION.name),
        row_sample: match quirk(p, ROW_SAMPLE.name, "shared", "bootstrap") {
            "bootstrap" => RowSample::Bootstrap,
            _ => RowSample::Shared,
        },
        gini: match quirk(p, GINI_SENSITIVITY.name, "one", "friedman_schuster") {
            "friedman_schuster" => GiniScore::FriedmanSchuster,
            _ => GiniScore::SensitivityOne,
        },
        split_budget: match quirk(p, SPLIT_BUDGET.name, "whole_tree", "per_level") {
            "per_level" => SplitBudget::PerLevel,
            _ => SplitBudget::WholeTree,
        },
        node_means: match quirk(p, NODE_MEANS.name, "unclamped", "clamped") {
            "clamped" => NodeMeans::Clamped,
            _ => NodeMeans::Unclamped,
        },
        weight_floors: quirk_bool(p, WEIGHT_FLOORS.name, true),
    }
}

/// Placeholder for ρ until `predict` sets the grid point's value (ρ is a release
/// parameter, not known in `prepare`).
const RHO_UNSET: f64 = f64::NAN;

/// The `DP-DF` builtin; registered as [`DP_DF`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DpDfMethod;

/// DP-DF: Fletcher & Islam's DP decision forest as the DiPriMe authors ran it (card §4.6).
pub static DP_DF: DpDfMethod = DpDfMethod;

struct PreparedDpDf {
    rep: CodedRep,
    params: DpDfParams,
    /// Leaf occupancy as the authors' figure counts it: a leaf whose noisy size was 0
    /// stores a count of 1 (card §7, Fig 3); set under `mode: reference_quirks`.
    zero_size_counts_one: bool,
}

impl PreparedDpDf {
    /// The forest at grid point `m` and budget `epsilon`, every draw from `rng`.
    fn fit(&self, m: &Params, epsilon: Option<f64>, rng: &mut Pcg64) -> Result<DpDf, MethodError> {
        let eps = called_epsilon("DP-DF", epsilon, m)?;
        let r = &self.rep;
        Ok(fit_dp_df(&r.train, &r.y, r.classes, &self.params, eps, rng))
    }
}

impl Prepared for PreparedDpDf {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        Ok(self.fit(m, epsilon, rng)?.predict(&self.rep.test))
    }

    /// The reachable nodes without children, pruned ones included (card §7, Fig 3).
    fn leaf_rows(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Option<Result<Vec<Vec<usize>>, MethodError>> {
        Some(self.fit(m, epsilon, rng).map(|f| {
            f.trees
                .iter()
                .map(|t| {
                    t.leaves()
                        .iter()
                        .map(|n| {
                            let zero = n.counts.iter().sum::<f64>() == 0.0;
                            if zero && self.zero_size_counts_one {
                                1
                            } else {
                                n.rows
                            }
                        })
                        .collect()
                })
                .collect()
        }))
    }
}

impl Method for DpDfMethod {
    builtin! {
        "DP-DF", [Classification], Central, &DPDF_PARAMS,
        "Fletcher & Islam's DP decision forest on 5-bin features as the DiPriMe authors ran it (EM on Gini gain with the noisy-size sensitivity, truncated Laplace class counts, eps/(N_T(2h-1)) per query; as run: no height limit and root-majority predictions); DiPriMe card §4.6"
    }
    fn privacy_notes(&self) -> Vec<String> {
        vec![
            "the 5 bins and the category lists come from all rows (training and test) in the clear (card §4.7)".into(),
            "which classes are present in a node (only those are noised) and whether one class only is present are read from the exact data (card §4.6)".into(),
            "under reference_quirks no height limit (tracer 0), so a path makes more than the 2h-1 queries the budget is split into and the forest is not eps-DP as accounted; predictions are the trees' noisy root majorities (card §9 item 12)".into(),
        ]
    }
    fn audit_key(&self, params: &Params) -> String {
        // Its quirks are structural parameters and change what is released.
        params.release_key(self.params())
    }
    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let train = data.private.escape(Escape::CentralCurator);
        check_labels("DP-DF", train)?;
        let params = DpDfParams {
            trees: p.usize(TREES.name),
            height: depth_of(p, train, d_mult)?.max(1),
            height_limit: quirk_bool(p, HEIGHT_LIMIT.name, false),
            root_exclusion: quirk_bool(p, ROOT_EXCLUSION.name, false),
            prune: p.bool(PRUNE.name),
            prune_rule: match quirk(p, PRUNE_RULE.name, "as_run", "bottom_up") {
                "bottom_up" => PruneRule::BottomUp,
                _ => PruneRule::AsRun,
            },
            descent: match quirk(p, DESCENT.name, "root_only", "categories") {
                "categories" => Descent::Categories,
                _ => Descent::RootOnly,
            },
        };
        Ok(Some(Box::new(PreparedDpDf {
            rep: coded_rep(data),
            params,
            zero_size_counts_one: !paper(p),
        })))
    }
}
