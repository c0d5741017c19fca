//! The `forest` composition block: central-DP forests of the DiPriMe tree engine
//! (`crate::forest`; method card docs/methods/diprime.md §3, §4.2, §4.3, §9, §10).
//!
//! ```yaml
//! compose:
//!   forest: {median: permute_flip, attribute: uniform, tree_rows: disjoint}
//! params: {k: 1}
//! ```
//!
//! Block fields (the method's structure): `median` (exact | exponential | permute_flip |
//! uniform), `attribute` (argmin | uniform | exponential | permute_flip), and the defaults
//! of three parameters a preset fixes: `tree_rows` (disjoint), `k` (1), `epsilon_factor`
//! (1); `reference_accuracy` (hard | soft) says how the reference code scored the
//! method's classification accuracy (soft for DP-ERT, card §4.3, §9 item 11).
//!
//! Parameters ([`params`]): `trees`, `k` (int or `all`), `depth` (int or `rule` =
//! floor(log2(n_train / (occupancy · parts))) with parts = `trees` for disjoint rows,
//! else 1; card §5), `occupancy`, `tree_rows`, `ranges` (full_data | train), and for a
//! private forest `rho`, `epsilon_factor`; `mode` (reference_quirks | paper) and one
//! parameter per quirk whose value `mode` (the default) follows it: `median_budget`
//! (halved | full), `categorical_score` (code_bug | correct), `pf_width` (power |
//! linear), `weight_floors` (on | off), `accuracy` (soft | hard; reference = the block's
//! `reference_accuracy`, paper = hard). `privacy` (as_published | dp):
//! `dp` makes the forest ε-DP under add/remove and replace-one neighbours
//! ([`crate::forest::budget::Privacy::Dp`]) and overrides `k_medians` (composed),
//! `weight_floors` (off), `categorical_score` (correct), `pf_width` (linear) and `ranges`
//! (test: the test rows, never the private training rows).
//!
//! The whole forest is drawn in [`Prepared::predict`] from the runner's noise stream of
//! (data set, repetition, method, grid point, ε): a forest is one release of the curator.
//! Central DP reads `RepData.private` (the training rows) through the curator's escape
//! ([`Escape::CentralCurator`]); the root ranges from training rows (`ranges: full_data`,
//! with the test rows, or `train`) through [`Escape::RootRanges`], which records them on the
//! ledger (card §3.1, §3.11 caveat 5, said in the table notes).

use crate::data::{Dataset, Escape, PrivateRows, Task};
use crate::estimate::LabelBounds;
use crate::forest::budget::{median_score_sensitivity, Privacy};
use crate::forest::{
    depth_rule, node_budgets, AttributeMechanism, Forest, MedianBudget, MedianMechanism,
    MedianOptions, NodeBudgets, PfWidth, Ranges, TreeConfig, TreeRows,
};
use crate::methods::diprime_baselines::quirk;
use crate::methods::{
    MethodError, ParamDecl, ParamKind, ParamRole, ParamValue, Params, Prepared, RepData,
};
use crate::yaml_word::yaml_word;
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// `k` in a block: a number or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum BlockK {
    /// K candidate attributes.
    N(u32),
    /// Every attribute.
    All(AllWord),
}

/// The word `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AllWord {
    /// All attributes.
    All,
}

/// How the reference code scored a classification forest.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Accuracy {
    /// The share of thresholded predictions equal to the label.
    #[default]
    Hard,
    /// `1 − mean|y − p̂|` of the unthresholded mean leaf fraction (DP-ERT, card §4.3).
    Soft,
}

/// The `forest` block.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForestBlock {
    /// The median mechanism.
    pub median: MedianMechanism,
    /// The attribute mechanism.
    pub attribute: AttributeMechanism,
    /// Default of the parameter `tree_rows` (default: disjoint).
    #[serde(default = "disjoint")]
    pub tree_rows: TreeRows,
    /// Default of the parameter `k` (default: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<BlockK>,
    /// Default of the parameter `epsilon_factor` (default: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon_factor: Option<f64>,
    /// The reference code's accuracy for this method (default: hard).
    #[serde(default)]
    pub reference_accuracy: Accuracy,
}

fn disjoint() -> TreeRows {
    TreeRows::Disjoint
}

impl ForestBlock {
    /// Whether the forest spends ε: neither mechanism reads the data in the clear.
    pub fn private(&self) -> bool {
        self.median != MedianMechanism::Exact && self.attribute != AttributeMechanism::Argmin
    }

    /// Whether the attribute choice reads the split scores.
    fn scores_attributes(&self) -> bool {
        self.attribute != AttributeMechanism::Uniform
    }
}

/// Checks the block (called by [`Composition::check`](super::Composition::check)).
///
/// # Errors
/// A private mechanism next to one that reads the data in the clear (the forest would
/// spend ε and still not be private), or a bad block default.
pub(super) fn check(f: &ForestBlock) -> Result<(), String> {
    let exact = f.median == MedianMechanism::Exact;
    let argmin = f.attribute == AttributeMechanism::Argmin;
    let private_median = matches!(
        f.median,
        MedianMechanism::Exponential | MedianMechanism::PermuteFlip
    );
    if (exact && f.attribute.spends()) || (argmin && private_median) {
        return Err(format!(
            "forest: `median: {}` with `attribute: {}` mixes a mechanism that reads the data in the clear with a private one, so the forest is not private; a private forest takes median exponential|permute_flip|uniform with attribute uniform|exponential|permute_flip, a non-private one median exact|uniform with attribute argmin|uniform",
            yaml_word(&f.median),
            yaml_word(&f.attribute)
        ));
    }
    if let Some(e) = f.epsilon_factor {
        if !(e > 0.0 && e.is_finite()) {
            return Err(format!("forest.epsilon_factor: a number > 0, got {e}"));
        }
        if !f.private() {
            return Err(
                "forest.epsilon_factor: a non-private forest spends no epsilon; remove it".into(),
            );
        }
    }
    if f.k == Some(BlockK::N(0)) {
        return Err("forest.k: an integer >= 1 or `all`".into());
    }
    Ok(())
}

/// A `&'static str` for a block-derived default (interned: each distinct text is leaked
/// once, so repeated validation does not grow memory).
fn intern(s: String) -> &'static str {
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let set = seen.get_or_insert_with(HashSet::new);
    if let Some(&t) = set.get(s.as_str()) {
        return t;
    }
    let t: &'static str = Box::leak(s.into_boxed_str());
    set.insert(t);
    t
}

const fn choice(
    name: &'static str,
    names: &'static [&'static str],
    default: &'static str,
    role: ParamRole,
    doc: &'static str,
) -> ParamDecl {
    ParamDecl {
        name,
        role,
        kind: ParamKind::Choice(names),
        default: Some(default),
        doc,
    }
}

/// The parameters of a forest composition (see the module docs), all release-side but
/// `accuracy` (curator-side: soft and hard accuracy score the same forests).
pub(super) fn params(f: &ForestBlock) -> Vec<ParamDecl> {
    let r = ParamRole::Release;
    let k_default = match f.k {
        None => "1",
        Some(BlockK::All(_)) => "all",
        Some(BlockK::N(k)) => intern(k.to_string()),
    };
    let rows_default = match f.tree_rows {
        TreeRows::Disjoint => "disjoint",
        TreeRows::All => "all",
    };
    let mut out = vec![
        ParamDecl { name: "trees", role: r, kind: ParamKind::Int { min: 1 }, default: Some("10"), doc: "N_T, trees in the forest (card §3.9)" },
        ParamDecl { name: "k", role: r, kind: ParamKind::Either(&[ParamKind::Int { min: 1 }, ParamKind::Choice(&["all"])]), default: Some(k_default), doc: "K, candidate attributes per node drawn without replacement (card §3.6; min(K, attributes left))" },
        ParamDecl { name: "depth", role: r, kind: ParamKind::Either(&[ParamKind::Int { min: 0 }, ParamKind::Choice(&["rule"])]), default: Some("rule"), doc: "d_max, or `rule` = floor(log2(n_train / (occupancy * parts))), parts = trees for disjoint tree rows, else 1 (card §5: d_part, d_full)" },
        ParamDecl { name: "occupancy", role: r, kind: ParamKind::Either(&[ParamKind::Int { min: 1 }, ParamKind::Choice(&["dataset"])]), default: Some("25"), doc: "expected leaf occupancy of the depth rule (25; 10 on Banknote), or `dataset` = the data manifest's `leaf_occupancy`" },
        choice("tree_rows", &["disjoint", "all"], rows_default, r, "disjoint: each tree on its own random share of the rows with the whole epsilon (partition = True); all: every tree on all rows with epsilon / trees (card §3.9)"),
        choice("ranges", &["full_data", "train", "test"], "full_data", r, "root ranges and category lists from all rows, train and test, not privatised (reference, card §3.1), from the training rows, or from the test rows only (no private row; what `privacy: dp` uses)"),
    ];
    if f.private() {
        out.push(ParamDecl {
            name: "rho",
            role: r,
            kind: ParamKind::Float {
                lo: 0.0,
                hi: 1.0,
                open: true,
            },
            default: Some("0.5"),
            doc: "share of a tree's budget on splits; the leaves get 1 - rho (card §3.2)",
        });
        out.push(ParamDecl {
            name: "epsilon_factor",
            role: r,
            kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: true },
            default: Some(match f.epsilon_factor {
                None => "1",
                Some(e) => intern(ParamValue::Float(e).to_string()),
            }),
            doc: "the forest is called with epsilon_factor x the spec's epsilon (the paper's calling conventions: DP-ERT 2 in the tables; card §6.3, §7)",
        });
    }
    out.push(choice("mode", &["reference_quirks", "paper"], "reference_quirks", r, "reference_quirks: the authors' code, which produced the tables; paper: every quirk off (card §9, §10); each quirk below defaults to `mode`"));
    if f.private() {
        out.push(choice("privacy", &["as_published", "dp"], "as_published", r, "as_published: the paper's mechanism (exact node counts in the leaf scale and the empty-leaf branch, ranges from the rows `ranges` names, shuffle-then-cut tree shares); dp: epsilon-DP under add/remove and replace-one neighbours (noisy leaf sum and count, K medians composed at sensitivity 2, exponential-mechanism continuous medians, attribute score the within-child sum of squares, trees by a hash of each row, ranges from the test rows; overrides k_medians, weight_floors, categorical_score, pf_width and ranges)"));
    }
    if f.private() && !f.attribute.spends() && f.median != MedianMechanism::Uniform {
        out.push(choice("median_budget", &["mode", "halved", "full"], "mode", r, "halved: the median gets rho*eps_T/(2 d) although the attribute choice spends nothing (reference); full: rho*eps_T/d (paper; card §3.2, §9 item 1)"));
    }
    if f.private()
        && matches!(
            f.median,
            MedianMechanism::Exponential | MedianMechanism::PermuteFlip
        )
    {
        out.push(choice("k_medians", &["shared", "composed"], "shared", r, "shared: each of a node's K candidate medians is drawn with eps_s and the K together are charged eps_s (the paper and the code; on the same rows they compose to K*eps_s, card §3.11 caveat 1); composed: each with eps_s/K, so that they spend eps_s"));
    }
    if f.scores_attributes() {
        out.push(choice("categorical_score", &["mode", "code_bug", "correct"], "mode", r, "code_bug: a categorical candidate is scored on the rows in C twice (reference, card §3.6); correct: both children"));
    }
    if f.median == MedianMechanism::PermuteFlip {
        out.push(choice("pf_width", &["mode", "power", "linear"], "mode", r, "power: PF weighs a bin's width as width^eps (reference, card §3.4); linear: as the EM base measure"));
    }
    if matches!(
        f.median,
        MedianMechanism::Exponential | MedianMechanism::PermuteFlip
    ) || f.attribute.spends()
    {
        out.push(choice("weight_floors", &["mode", "on", "off"], "mode", r, "on: the reference's weight floors (+1e-12, +1e-6), unshifted EM weights with a uniform fallback (card §2.2); off: exact log-sum-exp"));
    }
    out.push(choice("accuracy", &["mode", "soft", "hard"], "mode", ParamRole::Curator, "classification score: hard = share of thresholded predictions right; soft = 1 - mean|y - p| of the mean leaf fraction (DP-ERT's reference, card §4.3); reference_quirks = the block's reference_accuracy, paper = hard"));
    out
}

/// The accuracy the grid point asks for.
fn accuracy(f: &ForestBlock, p: &Params) -> Accuracy {
    let reference = match f.reference_accuracy {
        Accuracy::Soft => "soft",
        Accuracy::Hard => "hard",
    };
    match quirk(p, "accuracy", reference, "hard") {
        "soft" => Accuracy::Soft,
        _ => Accuracy::Hard,
    }
}

/// The test metric of a forest composition's predictions: `1 − mean|y − p̂|` for soft
/// classification accuracy, else `task.score`.
pub(super) fn score(f: &ForestBlock, task: Task, p: &Params, y: &[f64], pred: &[f64]) -> f64 {
    if task == Task::Classification && accuracy(f, p) == Accuracy::Soft {
        let n = y.len() as f64;
        return 1.0 - y.iter().zip(pred).map(|(a, b)| (a - b).abs()).sum::<f64>() / n;
    }
    task.score(y, pred)
}

/// Table-note sentences: what a forest reads in the clear.
pub(super) fn privacy_notes(f: &ForestBlock) -> Vec<String> {
    if !f.private() {
        return vec!["non-private forest on the training rows (DiPriMe card §4.2)".into()];
    }
    vec![format!(
        "central DP (DiPriMe card §3.11): the curator reads the training rows through the {} median and the {} attribute choice and Laplace leaves; under `privacy: as_published` (default) exact node counts are used in the clear (attribute sensitivity 4B^2/n, leaf noise scale, the M <= 1 and empty-node cases), the K candidate medians are charged one eps_s, and with `ranges: full_data` the root ranges and category lists come from all rows (train and test) without privacy; `privacy: dp` is epsilon-DP (noisy leaf sum and count, composed medians, ranges from the test rows, trees by a hash of each row); the `mode` and `privacy` parameters and each quirk are in the run's params",
        yaml_word(&f.median),
        yaml_word(&f.attribute)
    )]
}

/// One line for `list methods`.
pub(super) fn describe(f: &ForestBlock) -> String {
    format!(
        "forest: median {}, attribute {}, tree_rows {}",
        yaml_word(&f.median),
        yaml_word(&f.attribute),
        yaml_word(&f.tree_rows)
    )
}

/// Checks the training labels and keeps the rows; nothing is drawn here, and the root
/// ranges are computed at the first fit that asks for them ([`PreparedForest::ranges`]).
pub(super) fn prepare(
    f: ForestBlock,
    data: &RepData,
) -> Result<Option<Box<dyn Prepared>>, MethodError> {
    let mut forest = PreparedForest {
        block: f,
        rows: data.private.clone(),
        full: OnceLock::new(),
        train_only: OnceLock::new(),
        test_only: Ranges::default(),
        test_x: data.test.x.clone(),
        bounds: match data.private.task() {
            Task::Regression => data.bounds,
            Task::Classification => LabelBounds { lo: 0.0, hi: 1.0 },
        },
    };
    let train = forest.train();
    if train.task == Task::Classification {
        if let Some(bad) = train.y.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return Err(MethodError::Other(format!(
                "a forest classifies 0/1 labels (DiPriMe card §3.8); found label {bad} in data set `{}`",
                train.name
            )));
        }
    }
    let test_only = Ranges::root(&[&data.test.x], &train.categorical);
    forest.test_only = test_only;
    Ok(Some(Box::new(forest)))
}

struct PreparedForest {
    block: ForestBlock,
    /// The training rows, read through [`PreparedForest::train`] and
    /// [`PreparedForest::ranges`].
    rows: PrivateRows,
    /// Root ranges from the training and test rows (`ranges: full_data`), once asked for.
    full: OnceLock<Ranges>,
    /// Root ranges from the training rows (`ranges: train`), once asked for.
    train_only: OnceLock<Ranges>,
    /// Root ranges from the test rows (`ranges: test`, `privacy: dp`).
    test_only: Ranges,
    test_x: crate::data::Matrix,
    bounds: LabelBounds,
}

/// (N_T, tree rows, K) at grid point `m` (K None: every attribute).
fn shape(m: &Params) -> (usize, TreeRows, Option<usize>) {
    let rows = match m.str("tree_rows") {
        "all" => TreeRows::All,
        _ => TreeRows::Disjoint,
    };
    let k = match m.get("k") {
        ParamValue::Int(k) => Some(*k as usize),
        _ => None,
    };
    (m.usize("trees"), rows, k)
}

/// The privacy mode at grid point `m` (`as_published` when the forest declares none).
pub fn privacy_of(m: &Params) -> Privacy {
    match m.0.iter().find(|(k, _)| k == "privacy") {
        Some((_, ParamValue::Str(v))) if v == "dp" => Privacy::Dp,
        _ => Privacy::AsPublished,
    }
}

/// The per-node budgets of a private forest at grid point `m`, budget ε (the spec's; times
/// `epsilon_factor` here) and tree depth `depth` (card §3.2, [`node_budgets`]); the median
/// budget is ε_s, which `k_medians: composed` shares among the K candidates
/// ([`median_share`]).
fn budgets(f: &ForestBlock, m: &Params, epsilon: f64, depth: usize) -> NodeBudgets {
    let (trees, rows, _) = shape(m);
    let median_budget = match quirk(m, "median_budget", "halved", "full") {
        "full" => MedianBudget::Full,
        _ => MedianBudget::Halved,
    };
    node_budgets(
        epsilon * m.f64("epsilon_factor"),
        rows,
        trees,
        m.f64("rho"),
        depth,
        f.attribute.spends(),
        median_budget,
    )
}

/// The share of ε_s each of the K candidate medians of a node is drawn with: 1 under
/// `k_medians: shared` (the paper's and the code's accounting, card §3.11 caveat 1: the K
/// medians on the same rows compose to K·ε_s), 1/K under `composed` or `privacy: dp`
/// (sequential composition: the K together spend ε_s). `k_all` is K when `k: all`.
fn median_share(m: &Params, k_all: usize) -> f64 {
    let composed =
        privacy_of(m) == Privacy::Dp || quirk(m, "k_medians", "shared", "shared") == "composed";
    if composed {
        let k = match m.get("k") {
            ParamValue::Int(k) => *k as usize,
            _ => k_all,
        };
        1.0 / k.max(1) as f64
    } else {
        1.0
    }
}

/// The median draw's reference quirks at grid point `m` for a forest of task `task` (the
/// classification code's `ln(w + 1e-12)` under PF, card §3.4); `privacy: dp` turns the
/// floors off, weighs PF widths linearly and calibrates the score to sensitivity 2.
fn median_options(m: &Params, task: Task) -> MedianOptions {
    let privacy = privacy_of(m);
    let dp = privacy == Privacy::Dp;
    MedianOptions {
        floors: !dp && quirk(m, "weight_floors", "on", "off") == "on",
        pf_width: match quirk(m, "pf_width", "power", "linear") {
            _ if dp => PfWidth::Linear,
            "linear" => PfWidth::Linear,
            _ => PfWidth::Power,
        },
        pf_log_width_floor: task == Task::Classification,
        score_sensitivity: median_score_sensitivity(privacy),
    }
}

/// Everything a private forest's node mechanisms are drawn with at one grid point and
/// budget: what the runner's fit and the audit both build the mechanisms from
/// ([`node_release`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeRelease {
    /// The median mechanism.
    pub median: MedianMechanism,
    /// Options of the median draw (floors, PF width, score sensitivity).
    pub median_options: MedianOptions,
    /// The budget one median draw is made with (ε_s, or ε_s/K when composed).
    pub eps_median: f64,
    /// ε_s, what the K medians of a node are claimed to spend together.
    pub eps_split: f64,
    /// The attribute mechanism.
    pub attribute: AttributeMechanism,
    /// ε_a of an attribute choice.
    pub eps_attribute: f64,
    /// ε_ℓ of a leaf.
    pub eps_leaf: f64,
    /// The reference's categorical scoring bug.
    pub categorical_bug: bool,
    /// As published or the DP mode.
    pub privacy: Privacy,
}

/// The node mechanisms of private forest `f` at grid point `m`, spec budget `epsilon`
/// (`epsilon_factor` applied here), tree depth `depth` and K = `k_all` candidates under
/// `k: all`, for a forest of task `task` (card §3.2, §3.4, §3.6, §3.8).
pub fn node_release(
    f: &ForestBlock,
    m: &Params,
    epsilon: f64,
    depth: usize,
    k_all: usize,
    task: Task,
) -> NodeRelease {
    let b = budgets(f, m, epsilon, depth);
    let privacy = privacy_of(m);
    NodeRelease {
        median: f.median,
        median_options: median_options(m, task),
        eps_median: b.median * median_share(m, k_all),
        eps_split: b.median,
        attribute: f.attribute,
        eps_attribute: b.attribute,
        eps_leaf: b.leaf,
        categorical_bug: privacy == Privacy::AsPublished
            && quirk(m, "categorical_score", "code_bug", "correct") == "code_bug",
        privacy,
    }
}

/// (N_T, whether trees take disjoint shares, K) at grid point `m` (K None: every
/// attribute), for the audit.
pub fn forest_shape(m: &Params) -> (usize, bool, Option<usize>) {
    let (trees, rows, k) = shape(m);
    (trees, rows == TreeRows::Disjoint, k)
}

impl PreparedForest {
    /// The training rows as the forest reads them: a private forest's curator through its
    /// mechanisms only (central DP), a non-private one in the clear.
    fn train(&self) -> &Dataset {
        if self.block.private() {
            self.rows.escape(Escape::CentralCurator)
        } else {
            self.rows.escape(Escape::NotPrivate)
        }
    }

    /// The root ranges and category lists grid point `m` asks for: from the test rows under
    /// `privacy: dp` or `ranges: test`, else from the training rows (`ranges: train`) or
    /// from the training and test rows (`ranges: full_data`), computed at the first fit
    /// that asks (a private forest's ranges from training rows are a private quantity,
    /// recorded by [`Escape::RootRanges`]).
    fn ranges(&self, m: &Params) -> &Ranges {
        let rows = || {
            if self.block.private() {
                self.rows.escape(Escape::RootRanges {
                    ranges: m.str("ranges"),
                })
            } else {
                self.rows.escape(Escape::NotPrivate)
            }
        };
        match (privacy_of(m), m.str("ranges")) {
            (Privacy::Dp, _) | (_, "test") => &self.test_only,
            (_, "train") => self.train_only.get_or_init(|| {
                let train = rows();
                Ranges::root(&[&train.x], &train.categorical)
            }),
            _ => self.full.get_or_init(|| {
                let train = rows();
                Ranges::root(&[&train.x, &self.test_x], &train.categorical)
            }),
        }
    }

    /// The forest at grid point `m` and budget `epsilon`, every draw from `rng`.
    fn fit(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Forest, MethodError> {
        let f = &self.block;
        let (trees, rows, k) = shape(m);
        let depth = match m.get("depth") {
            ParamValue::Int(d) => *d as usize,
            _ => {
                let parts = if rows == TreeRows::Disjoint { trees } else { 1 };
                let occupancy = crate::methods::diprime_baselines::occupancy_of(m, self.train())?;
                depth_rule(self.rows.n(), occupancy, 2, parts)
            }
        };
        let eps = if f.private() {
            Some(crate::methods::required_epsilon("a forest", epsilon)?)
        } else {
            None
        };
        let privacy = privacy_of(m);
        let (eps_median, eps_attribute, eps_leaf, median_options, categorical_bug) = match eps {
            Some(e) => {
                let r = node_release(f, m, e, depth, self.rows.d(), self.rows.task());
                (
                    r.eps_median,
                    r.eps_attribute,
                    Some(r.eps_leaf),
                    r.median_options,
                    r.categorical_bug,
                )
            }
            None => (
                0.0,
                0.0,
                None,
                median_options(m, self.rows.task()),
                quirk(m, "categorical_score", "code_bug", "correct") == "code_bug",
            ),
        };
        let cfg = TreeConfig {
            median: f.median,
            attribute: f.attribute,
            k,
            depth,
            eps_median,
            eps_attribute,
            eps_leaf,
            bounds: self.bounds,
            task: self.rows.task(),
            median_options,
            categorical_bug,
            privacy,
        };
        let train = self.train();
        Forest::fit(&train.x, &train.y, self.ranges(m), &cfg, (trees, rows), rng)
            .map_err(|e| MethodError::Other(e.to_string()))
    }
}

impl Prepared for PreparedForest {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let mean = self.fit(m, epsilon, rng)?.predict_mean(&self.test_x);
        Ok(match (self.rows.task(), accuracy(&self.block, m)) {
            (Task::Classification, Accuracy::Hard) => mean
                .into_iter()
                .map(|p| f64::from(u8::from(p >= 0.5)))
                .collect(),
            _ => mean,
        })
    }

    fn leaf_rows(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Option<Result<Vec<Vec<usize>>, MethodError>> {
        Some(
            self.fit(m, epsilon, rng)
                .map(|f| f.trees.iter().map(|t| t.leaf_counts()).collect()),
        )
    }
}
