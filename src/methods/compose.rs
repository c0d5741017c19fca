//! Methods as compositions of building blocks (docs/architecture.md, `methods/`): a partition rule and
//! the data it is grown on, a cell mechanism, a label mechanism, an estimator and a budget
//! split. The paper methods LPDT-M, LPDT-V, PHIST, APHIST, DT and DT-pub are presets
//! written this way in `specs/methods/*.yaml`; a spec may compose its own baseline the
//! same way (`compose:`), without touching Rust.
//!
//! Validation ([`Composition::check`]) rejects compositions that are not ε-LDP as stated:
//! a partition grown on private data inside a local-DP method, a cell or label released in
//! the clear next to a private one, budget shares adding up to more than 1.

use super::{
    predict_leaves, Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData,
};
use crate::data::{Dataset, Matrix, Task};
use crate::estimate::{
    histogram_predict, lpdt_leaf_values, HistogramConfig, LabelBounds, LpdtConfig, Simulation,
};
use crate::partition::{grid_allowed, random_max_edge, Grid, Partition, SharedPublic, TreeParams};
use crate::privacy::{Budget, BudgetError};
use grower::Grower;
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

pub mod forest;
mod grower;
mod lpct;
mod release;
mod semi_feature;

pub use forest::{Accuracy, ForestBlock};
pub use lpct::{lpct_release, lpct_round_epsilon};
pub use release::UserRelease;
pub use semi_feature::{
    candidate_mechanism, histoftree_budgets, round1_labels, SemiShape, SemiTree,
};

/// How the feature space is cut into cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Max-edge with variance-reduction choice (LPDT-M, docs/methods/lpdt.md §3); without data the
    /// complete max-edge partition (§5).
    MaxEdge,
    /// Quantile-candidate CART (LPDT-V, docs/methods/lpdt.md §4).
    Cart,
    /// sklearn-like exhaustive CART (DT, docs/methods/lpdt.md §7.1).
    CartExhaustive,
    /// Longest edge drawn at random, midpoint split (data-independent but for pruning).
    RandomMaxEdge,
    /// Regular grid with m bins per feature (PHIST, docs/methods/lpdt.md §7.3).
    Histogram,
    /// HistOfTree: histogram on the s most protected features × a tree on the others
    /// (docs/methods/histoftree.md §5; `compose/semi_feature.rs`).
    HistogramXTree,
}

/// Which sample a partition is grown on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrownOn {
    /// The public sample.
    Public,
    /// The private training sample: only for non-private methods.
    Private,
    /// The public and the private training samples pooled (public rows first): only for
    /// non-private methods (LPCT's CT-W: "we fit CT on the whole data, namely P and Q data
    /// together", LPCT paper §7.2).
    PublicAndPrivate,
    /// No data: the partition is fixed by its parameters.
    None,
    /// A partition set of n_pub points mixing a share δ (parameter `delta`) of public
    /// points with 1 − δ private points, the latter used without privacy and removed from
    /// the private users who report (LPDT Fig. 5, distribution shift; docs/methods/lpdt.md §8.6).
    Mixture,
    /// The users' round-1 releases (public coordinates and noisy labels): the semi-feature
    /// model (docs/methods/histoftree.md §5.3–§5.4).
    Released,
}

/// The score a data-driven tree rule ranks its candidate splits by.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SplitCriterion {
    /// Variance reduction (LPDT, docs/methods/lpdt.md §3–§4).
    #[default]
    Variance,
    /// Binary-entropy information gain on 0/1 labels (LPCT's code, docs/methods/lpct.md §2.2; the
    /// LPCT paper says Gini). For `max_edge` and `cart`.
    Entropy,
}

impl SplitCriterion {
    fn is_variance(&self) -> bool {
        *self == SplitCriterion::Variance
    }
}

/// The partition block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartitionBlock {
    /// The rule.
    pub rule: Rule,
    /// The data it is grown on.
    pub grown_on: GrownOn,
    /// The split score of `max_edge` and `cart` (default: variance).
    #[serde(default, skip_serializing_if = "SplitCriterion::is_variance")]
    pub criterion: SplitCriterion,
    /// An optional parameter of the rule to declare (default: none).
    #[serde(default, skip_serializing_if = "RuleOption::is_none")]
    pub option: RuleOption,
    /// The tree on the T-axes of `histogram_x_tree`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<SemiTree>,
    /// How `histogram_x_tree` picks s, depth and bins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<SemiShape>,
}

/// An optional parameter a rule declares only when its composition asks for it
/// (`partition: {…, option: min_samples_leaf}`), so that the grid keys (runs.csv `params`,
/// the CI goldens) of the compositions without it stay as they are. Its default value
/// reproduces the rule without it exactly.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RuleOption {
    /// No optional parameter.
    #[default]
    None,
    /// `cart_exhaustive`: sklearn's `min_samples_leaf` (structural, default 1 = DT).
    MinSamplesLeaf,
    /// `histogram`: `cells` (structural): `capped` (default, the memory rule of
    /// `grid_allowed`) or `sparse` (cells keyed by their per-axis bins, any d).
    Cells,
}

impl RuleOption {
    fn is_none(&self) -> bool {
        *self == RuleOption::None
    }
}

/// What each private user releases about its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellMechanism {
    /// Bitwise randomized response on the one-hot cell vector, each bit kept with
    /// probability e^{ε_c/2}/(1+e^{ε_c/2}) (LPDT, docs/methods/lpdt.md §2.1).
    RandomizedResponse,
    /// Laplace mechanism on the one-hot vector, scale 2/ε_c (L1 sensitivity 2).
    Laplace,
    /// Generalized (k-ary) randomized response on the cell index: the true cell with
    /// probability e^{ε_c}/(e^{ε_c}+K−1), else one of the K−1 others uniformly.
    GeneralizedRr,
    /// Nothing private: only for non-private methods.
    None,
}

/// What each private user releases about its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LabelMechanism {
    /// One Laplace-noised label, scale R/ε_l, shared by all cells (LPDT, docs/methods/lpdt.md §2.1).
    Laplace,
    /// The vector y·U plus Laplace noise of scale 2M_Y/ε_l on every cell (PHIST).
    LaplaceVector,
    /// Nothing private: only for non-private methods.
    None,
}

/// How the curator turns reports into predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EstimatorBlock {
    /// Ratio of the noisy label sum to the noisy count per leaf (LPDT eq. 5) with the
    /// public-mean fallback below τ (parameters `tau`, `ood`).
    Ratio,
    /// PHIST: ν̂/μ̂ per grid cell, 0 below t (parameters `t`, `y_center`).
    Histogram,
    /// APHIST: ν̂/(w_μ μ̂ + w_λ λ) (parameters `t`, `weights`, `y_center`).
    AdjustedHistogram,
    /// The mean label of the growing sample in each leaf (non-private methods).
    LeafMean,
    /// The most frequent class of the growing sample in each leaf, ties to the smallest
    /// class as sklearn's `argmax` does (non-private classification: CT-W, CT-Q of LPCT
    /// §7.1). With 0/1 labels the CART variance-reduction split is the Gini split (Gini
    /// impurity = 2 × the variance of 0/1 labels), so `cart_exhaustive` grows sklearn's
    /// `DecisionTreeClassifier` tree; more than two classes are refused until a Gini
    /// splitter exists.
    LeafMajority,
    /// LPCT (LPCT paper eq. 8, docs/methods/lpct.md §4): class 1{(Ṽ + λV_Q)/(Ũ + λU_Q) > 1/2} per leaf
    /// from the users' noisy sums Ũ, Ṽ and the leaf's public counts U_Q, V_Q (parameter
    /// `lambda`); test points outside [0,1]^d get class 0 (§4.4). Without mechanisms
    /// (`cell_mechanism: none`, `label_mechanism: none`) it is LPCT-Q: V_Q/U_Q on the
    /// public partition. Classification with 0/1 labels.
    Lpct,
    /// LPCT-prune (LPCT paper §5, docs/methods/lpct.md §5): the LPCT sums pooled over ancestors and a
    /// per-leaf choice of level and λ (parameters `p_min`, `prune`: `reference_v1`,
    /// `reference_v1_as_coded` or `paper`). Needs `cell_mechanism: laplace`,
    /// `label_mechanism: laplace_vector`.
    LpctPrune,
}

/// How ε is split between the cell and the label mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum BudgetBlock {
    /// `rho`: the share ρ of the cell mechanism is a parameter (default 0.5); the label
    /// gets 1 − ρ.
    Rho(RhoTag),
    /// Fixed shares of ε, e.g. `{cell: 0.5, label: 0.5}` (PHIST); they must add up to at
    /// most 1.
    Shares {
        /// Share of the cell mechanism.
        cell: f64,
        /// Share of the label mechanism.
        label: f64,
    },
}

/// The word `rho` in YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RhoTag {
    /// ρ is a parameter.
    Rho,
}

impl Default for BudgetBlock {
    fn default() -> Self {
        BudgetBlock::Rho(RhoTag::Rho)
    }
}

/// A method made of blocks: the local-DP blocks (`partition`, `cell_mechanism`,
/// `label_mechanism`, `estimator`, `budget`, …) or a central-DP `forest` block alone
/// (`compose/forest.rs`). In a forest composition the local-DP fields hold inert values
/// ([`Composition::forest_only`]) that no code path reads: every method below dispatches
/// on `forest` first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "RawComposition")]
pub struct Composition {
    /// Partition rule and its data.
    pub partition: PartitionBlock,
    /// Cell mechanism.
    pub cell_mechanism: CellMechanism,
    /// Label mechanism.
    pub label_mechanism: LabelMechanism,
    /// Estimator.
    pub estimator: EstimatorBlock,
    /// Budget split (default: the parameter ρ).
    #[serde(default)]
    pub budget: BudgetBlock,
    /// Train on a random share of the private users: adds the structural parameter
    /// `private_share` δ ∈ (0, 1], the fit uses the first ⌈δ·n⌉ private users of the
    /// repetition's (randomly ordered) split (LPDT Fig. 3, docs/methods/lpdt.md §8.4).
    #[serde(default)]
    pub subsample: bool,
    /// An explicit acknowledgement that the method uses some private users' records in the
    /// clear (today: `grown_on: mixture`, whose partition set holds 1 − δ private users'
    /// features and labels): such a method is not ε-LDP for those users. Required by
    /// [`Composition::check`] for those blocks and stated in every table note.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_private_users: bool,
    /// A central-DP forest of the DiPriMe tree engine (`compose/forest.rs`); excludes every
    /// local-DP block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forest: Option<ForestBlock>,
}

/// A composition as written in YAML, before the local-DP blocks and the `forest` block
/// are told apart.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    { "required": ["partition", "cell_mechanism", "label_mechanism", "estimator"],
      "not": { "required": ["forest"] } },
    { "required": ["forest"],
      "not": { "anyOf": [
          { "required": ["partition"] }, { "required": ["cell_mechanism"] },
          { "required": ["label_mechanism"] }, { "required": ["estimator"] },
          { "required": ["budget"] }, { "required": ["subsample"] },
          { "required": ["non_private_users"] } ] } }
]))]
struct RawComposition {
    partition: Option<PartitionBlock>,
    cell_mechanism: Option<CellMechanism>,
    label_mechanism: Option<LabelMechanism>,
    estimator: Option<EstimatorBlock>,
    budget: Option<BudgetBlock>,
    #[serde(default)]
    subsample: Option<bool>,
    #[serde(default)]
    non_private_users: Option<bool>,
    forest: Option<ForestBlock>,
}

impl TryFrom<RawComposition> for Composition {
    type Error = String;
    fn try_from(r: RawComposition) -> Result<Self, String> {
        if let Some(f) = r.forest {
            let local = [
                ("partition", r.partition.is_some()),
                ("cell_mechanism", r.cell_mechanism.is_some()),
                ("label_mechanism", r.label_mechanism.is_some()),
                ("estimator", r.estimator.is_some()),
                ("budget", r.budget.is_some()),
                ("subsample", r.subsample.is_some()),
                ("non_private_users", r.non_private_users.is_some()),
            ];
            if let Some((field, _)) = local.iter().find(|(_, given)| *given) {
                return Err(format!(
                    "`{field}` is a local-DP block and `forest` a central-DP one (docs/architecture.md, Privacy models): a composition takes either the local blocks (partition, cell_mechanism, label_mechanism, estimator, budget) or `forest` alone; remove `{field}` or `forest`"
                ));
            }
            return Ok(Composition::forest_only(f));
        }
        let need = |field: &str| {
            format!("missing field `{field}` (a composition needs partition, cell_mechanism, label_mechanism and estimator, or a `forest` block alone)")
        };
        Ok(Composition {
            partition: r.partition.ok_or_else(|| need("partition"))?,
            cell_mechanism: r.cell_mechanism.ok_or_else(|| need("cell_mechanism"))?,
            label_mechanism: r.label_mechanism.ok_or_else(|| need("label_mechanism"))?,
            estimator: r.estimator.ok_or_else(|| need("estimator"))?,
            budget: r.budget.unwrap_or_default(),
            subsample: r.subsample.unwrap_or(false),
            non_private_users: r.non_private_users.unwrap_or(false),
            forest: None,
        })
    }
}

/// The YAML word of a unit enum value (`max_edge`, `public`, …).
fn word<T: Serialize>(v: &T) -> String {
    serde_yaml::to_string(v)
        .unwrap_or_default()
        .trim()
        .to_string()
}

impl fmt::Display for Composition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(block) = &self.forest {
            return write!(f, "{}", forest::describe(block));
        }
        let criterion = match self.partition.criterion {
            SplitCriterion::Variance => String::new(),
            c => format!(" ({})", word(&c)),
        };
        let semi = [
            self.partition.tree.map(|t| word(&t)),
            self.partition.shape.map(|t| word(&t)),
        ];
        let criterion = semi
            .into_iter()
            .flatten()
            .fold(criterion, |a, w| format!("{a} ({w})"));
        write!(
            f,
            "partition {}{criterion} on {}, cell {}, label {}, estimator {}, budget {}",
            word(&self.partition.rule),
            word(&self.partition.grown_on),
            word(&self.cell_mechanism),
            word(&self.label_mechanism),
            word(&self.estimator),
            match self.budget {
                BudgetBlock::Rho(_) => "rho".to_string(),
                BudgetBlock::Shares { cell, label } => format!("cell {cell}, label {label}"),
            }
        )?;
        if self.subsample {
            write!(f, ", subsample of the private users")?;
        }
        if self.non_private_users {
            write!(f, ", uses some private users in the clear")?;
        }
        Ok(())
    }
}

const fn int(
    name: &'static str,
    min: i64,
    default: Option<&'static str>,
    structural: bool,
    doc: &'static str,
) -> ParamDecl {
    ParamDecl {
        name,
        role: if structural {
            ParamRole::Structural
        } else {
            ParamRole::Release
        },
        kind: ParamKind::Int { min },
        default,
        doc,
    }
}

const DEPTH: ParamDecl = int("depth", 0, None, true, "maximum depth s of the partition");
const MIN_LEAF: ParamDecl = int(
    "min_leaf",
    1,
    None,
    true,
    "n_l, minimum number of points of the growing sample in each child of a split",
);
const MSS: ParamDecl = int(
    "min_samples_split",
    1,
    Some("2"),
    true,
    "a node with <= this many points (or distinct rows) is a leaf (the authors' code's default is 2)",
);
const MSS_LPCT: ParamDecl = int(
    "min_samples_split",
    0,
    Some("1"),
    true,
    "m_s: a node with <= this many public points (or distinct rows) is a leaf (LPCT's code uses 1, docs/methods/lpct.md §2.1)",
);
const P_MIN: ParamDecl = int(
    "p_min",
    0,
    Some("1"),
    true,
    "p_min: the pruning walk stops at this depth (reference_v1), or the flag's second round uses a depth-p_min partition (paper); real data in LPCT's code: p0 = depth = 2, p_min = 1 (docs/methods/lpct.md §5.4)",
);
const PRUNE: ParamDecl = ParamDecl {
    name: "prune",
    role: ParamRole::Release,
    kind: ParamKind::Choice(&["reference_v1", "reference_v1_as_coded", "paper"]),
    default: Some("reference_v1"),
    doc: "reference_v1: one round with the full epsilon and the code's statistic, which produced the LPCT paper's numbers (docs/methods/lpct.md §5.4), every node at its true depth and evaluated once; reference_v1_as_coded: the same with the V1 code's walk state (quirks Q1, Q2 and the pooled sums of adopted nodes: heights counted from the first leaf that reaches a node and a walk of at least one step, lambda* kept on revisits, a finished leaf's adopted node summed into ancestors built later); paper: Algorithm 2, epsilon/2 + epsilon/2 with the flag's second round (§5.2)",
};
const LAMBDA: ParamDecl = ParamDecl {
    name: "lambda",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: None,
    doc: "weight of the public counts in (V + lambda V_Q)/(U + lambda U_Q) (LPCT paper eq. 8); 0 = private only (LPCT-P, LPDT)",
};
const SEARCH: ParamDecl = int(
    "search_number",
    1,
    Some("10"),
    true,
    "number of quantile threshold candidates per feature for the CART split search on public data",
);
const MAX_DEPTH: ParamDecl = int(
    "max_depth",
    0,
    None,
    true,
    "maximum depth of the CART tree (sklearn DecisionTreeRegressor defaults otherwise)",
);
const MIN_SAMPLES_LEAF: ParamDecl = int(
    "min_samples_leaf",
    1,
    Some("1"),
    true,
    "sklearn's min_samples_leaf of the CART (partition option min_samples_leaf; 1 = sklearn's default)",
);
const CELLS: ParamDecl = ParamDecl {
    name: "cells",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["capped", "sparse"]),
    default: Some("capped"),
    doc: "capped: grids over the memory rule (bins > 1 with d > 21 or more than 2^30 cells) are skipped (LPDT paper App. D.1); sparse: cells keyed by their per-axis bins, any d, noise drawn only for the cells test points fall in (exact in law for what the curator reads; HistOfTree card §8)",
};
const BINS: ParamDecl = int("bins", 1, None, true, "m = 1/h bins per feature on [0,1]^d (grids with d*ln m > 30 ln 2 or d > 21 and m > 1 are skipped: the memory limit of LPDT paper App. D.1)");
const DELTA: ParamDecl = ParamDecl {
    name: "delta",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1.0,
        open: false,
    },
    default: None,
    doc: "share of public points in the mixed partition set (grown_on: mixture; LPDT paper §4.3, Fig. 5)",
};
const PRIVATE_SHARE: ParamDecl = ParamDecl {
    name: "private_share",
    role: ParamRole::Structural,
    kind: ParamKind::Float { lo: 0.0, hi: 1.0, open: false },
    default: Some("1"),
    doc: "share delta of the private users the fit uses (the first ceil(delta*n) of the repetition's random order)",
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
    doc: "share of epsilon for the cell mechanism; the label gets 1 - rho",
};
const SIMULATION: ParamDecl = ParamDecl {
    name: "simulation",
    role: ParamRole::Release,
    kind: ParamKind::Choice(crate::estimate::Simulation::NAMES),
    default: Some("fast"),
    doc: "how the users' LPDT releases are simulated, the same law either way: fast (per leaf, the users' bit flips drawn 64 at a time; exact in distribution for the curator's sums, see estimate/lpdt_fast.rs) or per_user (every user's bit vector drawn as the user would, one draw per user and leaf; for audits)",
};
const TAU: ParamDecl = ParamDecl {
    name: "tau",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: Some("0"),
    doc: "fallback threshold: a leaf takes its public mean when its debiased count <= tau*n (the paper's estimator, eq. (5), falls back only at 0: tau = 0)",
};
const OOD: ParamDecl = ParamDecl {
    name: "ood",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["zero", "route"]),
    default: Some("zero"),
    doc: "test points outside [0,1]^d: zero (paper) or route by thresholds (the authors' code)",
};
const T: ParamDecl = ParamDecl {
    name: "t",
    role: ParamRole::Curator,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: false,
    },
    default: None,
    doc: "truncation level: a cell whose (estimated) denominator is below t predicts 0",
};
const WEIGHTS: ParamDecl = ParamDecl {
    name: "weights",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["average", "reported_fit"]),
    default: Some("average"),
    doc: "denominator weights: average = (mu+lambda)/2 (paper's words), reported_fit = mu + lambda/2 (fits the reported APHIST; LPDT paper App. D.1)",
};
const Y_CENTER: ParamDecl = ParamDecl {
    name: "y_center",
    role: ParamRole::Release,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "shift labels by the midpoint of the label bounds (option; the paper uses raw labels)",
};

impl Composition {
    /// A composition of the `forest` block alone; the local-DP fields hold inert values
    /// (no partition, no mechanisms) that are never read.
    pub fn forest_only(block: ForestBlock) -> Composition {
        Composition {
            partition: PartitionBlock {
                rule: Rule::RandomMaxEdge,
                grown_on: GrownOn::None,
                criterion: SplitCriterion::Variance,
                option: RuleOption::None,
                tree: None,
                shape: None,
            },
            cell_mechanism: CellMechanism::None,
            label_mechanism: LabelMechanism::None,
            estimator: EstimatorBlock::LeafMean,
            budget: BudgetBlock::default(),
            subsample: false,
            non_private_users: false,
            forest: Some(block),
        }
    }

    /// Whether the method spends a privacy budget.
    pub fn private(&self) -> bool {
        if let Some(f) = &self.forest {
            return f.private();
        }
        self.cell_mechanism != CellMechanism::None || self.label_mechanism != LabelMechanism::None
    }

    /// Checks that the blocks fit together and that the composition is ε-LDP as stated.
    ///
    /// # Errors
    /// A sentence saying what is wrong and what would be valid.
    pub fn check(&self) -> Result<(), String> {
        use CellMechanism as C;
        use EstimatorBlock as E;
        use LabelMechanism as L;
        if let Some(f) = &self.forest {
            return forest::check(f);
        }
        let p = self.partition;
        if p.rule == Rule::HistogramXTree
            || p.grown_on == GrownOn::Released
            || p.tree.is_some()
            || p.shape.is_some()
        {
            return semi_feature::check(self);
        }
        if p.criterion == SplitCriterion::Entropy
            && !(matches!(p.rule, Rule::MaxEdge | Rule::Cart) && p.grown_on != GrownOn::None)
        {
            return Err("`criterion: entropy` ranks the splits of `max_edge` and `cart` grown on data; the other rules have no score".into());
        }
        match (p.option, p.rule) {
            (RuleOption::None, _)
            | (RuleOption::MinSamplesLeaf, Rule::CartExhaustive)
            | (RuleOption::Cells, Rule::Histogram) => {}
            (o, _) => {
                return Err(format!(
                    "`option: {}` is not an option of `rule: {}`; valid: `option: min_samples_leaf` with `rule: cart_exhaustive`, `option: cells` with `rule: histogram`",
                    word(&o),
                    word(&p.rule)
                ))
            }
        }
        if matches!(self.estimator, E::Lpct | E::LpctPrune) && p.rule == Rule::Histogram {
            return Err("`estimator: lpct` and `lpct_prune` need a tree partition (max_edge, cart or random_max_edge); for a grid use `estimator: histogram`".into());
        }
        match (self.cell_mechanism, self.label_mechanism) {
            (C::None, L::None) => {
                if !matches!(self.estimator, E::LeafMean | E::LeafMajority | E::Lpct) {
                    return Err("a non-private method (no cell or label mechanism) needs `estimator: leaf_mean`, `leaf_majority` or `lpct` (public counts only, LPCT-Q)".into());
                }
                if p.grown_on == GrownOn::None || p.rule == Rule::Histogram {
                    return Err("`estimator: leaf_mean`, `leaf_majority` and `lpct` without mechanisms need a tree grown on public or private data".into());
                }
                if self.estimator == E::Lpct && p.grown_on != GrownOn::Public {
                    return Err("`estimator: lpct` without mechanisms reads the public counts of each leaf (LPCT-Q): grow the partition on public data".into());
                }
                return Ok(());
            }
            (C::None, _) => return Err("`cell_mechanism: none` with a private label mechanism releases each user's cell in the clear: not ε-LDP; choose randomized_response, laplace or generalized_rr".into()),
            (_, L::None) => return Err("`label_mechanism: none` with a private cell mechanism releases each user's label in the clear: not ε-LDP; choose laplace or laplace_vector".into()),
            _ => {}
        }
        if p.grown_on == GrownOn::Mixture && p.rule == Rule::Histogram {
            return Err("`grown_on: mixture` needs a tree partition".into());
        }
        if p.grown_on == GrownOn::Mixture && !self.non_private_users {
            return Err("`grown_on: mixture` grows the partition on 1 - delta private users' features and labels in the clear, so the method is not epsilon-LDP for those users; acknowledge it with `non_private_users: true` (table notes then say so)".into());
        }
        if self.non_private_users && p.grown_on != GrownOn::Mixture {
            return Err("`non_private_users: true` acknowledges private records used in the clear, but these blocks use none (only `grown_on: mixture` does); remove it".into());
        }
        if matches!(p.grown_on, GrownOn::Private | GrownOn::PublicAndPrivate) {
            return Err("a partition grown on private data inside a local-DP method is not ε-LDP as stated (the partition itself would leak private data); grow it on public data or none".into());
        }
        if let BudgetBlock::Shares { cell, label } = self.budget {
            if !(cell > 0.0 && label > 0.0) {
                return Err(format!(
                    "budget shares must be > 0, got cell {cell}, label {label}"
                ));
            }
            if cell + label > 1.0 + 1e-12 {
                return Err(format!(
                    "budget shares add up to {} > 1: the release would spend more than epsilon",
                    cell + label
                ));
            }
        }
        match self.estimator {
            E::LeafMean | E::LeafMajority => Err("`estimator: leaf_mean` and `leaf_majority` use labels without privacy; a private method needs ratio, histogram, adjusted_histogram, lpct or lpct_prune".into()),
            E::Lpct => Ok(()),
            E::LpctPrune => {
                if self.cell_mechanism != C::Laplace || self.label_mechanism != L::LaplaceVector || self.budget != (BudgetBlock::Shares { cell: 0.5, label: 0.5 }) {
                    Err("`estimator: lpct_prune` is defined for the LPCT release: `cell_mechanism: laplace`, `label_mechanism: laplace_vector`, `budget: {cell: 0.5, label: 0.5}` (docs/methods/lpct.md §3, §5)".into())
                } else if p.rule != Rule::MaxEdge && p.rule != Rule::Cart {
                    Err("`estimator: lpct_prune` walks a max_edge or cart tree grown on public data".into())
                } else {
                    Ok(())
                }
            }
            E::Histogram | E::AdjustedHistogram => {
                if p.rule != Rule::Histogram || self.cell_mechanism != C::Laplace || self.label_mechanism != L::LaplaceVector {
                    Err("the histogram estimators are implemented for `partition: {rule: histogram}` with `cell_mechanism: laplace` and `label_mechanism: laplace_vector` (LPDT paper App. D.1)".into())
                } else {
                    Ok(())
                }
            }
            E::Ratio => {
                if p.rule == Rule::Histogram {
                    return Err("`estimator: ratio` needs a tree partition (max_edge, cart, cart_exhaustive or random_max_edge)".into());
                }
                if p.grown_on == GrownOn::None && matches!(p.rule, Rule::Cart | Rule::CartExhaustive) {
                    return Err("a CART partition needs data: grow it on public data".into());
                }
                Ok(())
            }
        }
    }

    /// The parameters of the composition, structural first, in a fixed order.
    pub fn params(&self) -> Vec<ParamDecl> {
        if let Some(f) = &self.forest {
            return forest::params(f);
        }
        let p = self.partition;
        let with_data = p.grown_on != GrownOn::None;
        let mss = if p.criterion == SplitCriterion::Entropy
            || matches!(
                self.estimator,
                EstimatorBlock::Lpct | EstimatorBlock::LpctPrune
            ) {
            MSS_LPCT
        } else {
            MSS
        };
        let mut out = match p.rule {
            Rule::MaxEdge | Rule::RandomMaxEdge if with_data => vec![DEPTH, MIN_LEAF, mss],
            Rule::MaxEdge | Rule::RandomMaxEdge => vec![DEPTH],
            Rule::Cart => vec![DEPTH, MIN_LEAF, mss, SEARCH],
            Rule::CartExhaustive if p.option == RuleOption::MinSamplesLeaf => {
                vec![MAX_DEPTH, MIN_SAMPLES_LEAF]
            }
            Rule::CartExhaustive => vec![MAX_DEPTH],
            Rule::Histogram if p.option == RuleOption::Cells => vec![BINS, CELLS],
            Rule::Histogram => vec![BINS],
            Rule::HistogramXTree => return semi_feature::params(self),
        };
        if p.grown_on == GrownOn::Mixture {
            out.push(DELTA);
        }
        if self.subsample {
            out.push(PRIVATE_SHARE);
        }
        if self.estimator == EstimatorBlock::LpctPrune {
            out.extend([P_MIN, PRUNE]);
        }
        if self.private() && self.budget == BudgetBlock::default() {
            out.push(RHO);
        }
        if self.lpdt_release() {
            out.push(SIMULATION);
        }
        match self.estimator {
            EstimatorBlock::Ratio => {
                out.extend([TAU, OOD]);
                if self.label_vector_ratio() {
                    out.push(Y_CENTER);
                }
            }
            EstimatorBlock::Histogram => out.extend([T, Y_CENTER]),
            EstimatorBlock::AdjustedHistogram => out.extend([T, WEIGHTS, Y_CENTER]),
            EstimatorBlock::Lpct if self.private() => out.push(LAMBDA),
            EstimatorBlock::LeafMean
            | EstimatorBlock::LeafMajority
            | EstimatorBlock::Lpct
            | EstimatorBlock::LpctPrune => {}
        }
        out
    }

    /// Whether the composition is the ratio estimator over a Laplace label vector, the one
    /// that takes `y_center` (the LPDT authors' code's Laplace estimator, docs/methods/lpdt.md §5).
    pub fn label_vector_ratio(&self) -> bool {
        self.forest.is_none()
            && self.estimator == EstimatorBlock::Ratio
            && self.label_mechanism == LabelMechanism::LaplaceVector
            && self.partition.rule != Rule::HistogramXTree
    }

    /// Whether grid point `m` centres the labels of its release ([`LabelBounds::centred`]):
    /// `y_center` on a [`Composition::label_vector_ratio`] composition.
    pub fn centres_labels(&self, m: &Params) -> bool {
        self.label_vector_ratio() && m.bool("y_center")
    }

    /// Sentences for table notes on what this composition does with privacy beyond its
    /// ε: private users used in the clear (`non_private_users`).
    pub fn privacy_notes(&self) -> Vec<String> {
        if let Some(f) = &self.forest {
            return forest::privacy_notes(f);
        }
        let mut out = Vec::new();
        if self.non_private_users {
            out.push("grows its partition on a mixture of public points and 1 - delta private users' records used in the clear (LPDT Sec. 4.3, distribution shift); those users get no privacy, the others epsilon-LDP".to_string());
        }
        out
    }

    /// Whether the composition releases what LPDT's users release (docs/methods/lpdt.md §2.1: bitwise
    /// randomized response on the one-hot leaf vector at ρε and one Laplace label at
    /// (1 − ρ)ε) into the ratio estimator: [`lpdt_leaf_values`] computes it, with the
    /// `simulation` parameter.
    pub fn lpdt_release(&self) -> bool {
        self.forest.is_none()
            && self.partition.rule != Rule::HistogramXTree
            && self.cell_mechanism == CellMechanism::RandomizedResponse
            && self.label_mechanism == LabelMechanism::Laplace
            && self.budget == BudgetBlock::default()
            && self.estimator == EstimatorBlock::Ratio
    }

    /// Whether the composition releases what PHIST's users release (docs/methods/lpdt.md §7.3: a noisy
    /// one-hot cell vector and a noisy label vector on a regular grid, [`histogram_predict`]),
    /// as [`Composed::prepare`] routes it.
    pub fn histogram_release(&self) -> bool {
        self.forest.is_none() && self.partition.rule == Rule::Histogram
    }

    /// (ε_cell, ε_label) for a budget ε and the mechanism grid point `mech`: (ρε, (1 − ρ)ε)
    /// by [`Budget::split`] under `budget: rho`, (cell·ε, label·ε) under fixed shares.
    ///
    /// # Errors
    /// When ε is not finite and > 0 or ρ ∉ (0, 1).
    pub fn budgets(&self, epsilon: f64, mech: &Params) -> Result<(f64, f64), BudgetError> {
        let b = Budget::new(epsilon)?;
        match self.budget {
            BudgetBlock::Rho(_) => b.split("rho", mech.f64("rho")),
            BudgetBlock::Shares { cell, label } => Ok((cell * epsilon, label * epsilon)),
        }
    }
}

/// A composed method: a name, a description and its blocks.
#[derive(Debug, Clone)]
pub struct Composed {
    /// Name (preset) or label (inline composition).
    pub name: String,
    /// One line with the source.
    pub description: String,
    /// The blocks.
    pub composition: Composition,
    params: Vec<ParamDecl>,
}

impl Composed {
    /// A composed method after [`Composition::check`].
    ///
    /// # Errors
    /// The check's message.
    pub fn new(name: &str, description: &str, composition: Composition) -> Result<Self, String> {
        composition.check()?;
        Ok(Composed {
            name: name.to_string(),
            description: description.to_string(),
            params: composition.params(),
            composition,
        })
    }
}

fn tree_params(p: &Params, with_data: bool) -> TreeParams {
    TreeParams {
        depth: p.usize("depth"),
        min_leaf: if with_data { p.usize("min_leaf") } else { 0 },
        min_samples_split: if with_data {
            p.usize("min_samples_split")
        } else {
            0
        },
        threshold: 0.0,
    }
}

impl Method for Composed {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn params(&self) -> &[ParamDecl] {
        &self.params
    }
    fn private(&self) -> bool {
        self.composition.private()
    }
    fn tasks(&self) -> &'static [Task] {
        if self.composition.forest.is_some() {
            return &[Task::Regression, Task::Classification];
        }
        match self.composition.estimator {
            EstimatorBlock::LeafMajority | EstimatorBlock::Lpct | EstimatorBlock::LpctPrune => {
                &[Task::Classification]
            }
            // PHIST for classification predicts 1{ratio > 1/2} (LPCT paper §7.2).
            EstimatorBlock::Histogram => &[Task::Regression, Task::Classification],
            _ => &[Task::Regression],
        }
    }
    fn blocks(&self) -> Option<String> {
        Some(self.composition.to_string())
    }
    fn audit_key(&self, params: &Params) -> String {
        // HistOfTree's cases fix a candidate set of 4 cells: bins, depth and s shape the
        // real candidate sets but not the loss of GRR or of the bits; ρ sets the budgets.
        if self.composition.partition.rule == Rule::HistogramXTree {
            return format!("rho={}", params.f64("rho"));
        }
        super::release_params_key(&self.params, params)
    }
    fn privacy_notes(&self) -> Vec<String> {
        self.composition.privacy_notes()
    }
    fn privacy_model(&self) -> super::PrivacyModel {
        if self.composition.forest.is_some() {
            return if self.private() {
                super::PrivacyModel::Central
            } else {
                super::PrivacyModel::NonPrivate
            };
        }
        match self.composition.partition.grown_on {
            GrownOn::Released => super::PrivacyModel::SemiFeature,
            _ if self.private() => super::PrivacyModel::LocalPublicData,
            _ => super::PrivacyModel::NonPrivate,
        }
    }
    fn check_grid(&self, points: &[Params]) -> Result<(), String> {
        if self.composition.forest.is_some() {
            return Ok(());
        }
        // Refused at the fit otherwise, after the data are loaded.
        if self.composition.subsample && points.iter().any(|p| p.f64("private_share") <= 0.0) {
            return Err(
                "private_share: must be > 0 (the share of the private users the fit uses; 0 leaves none)"
                    .into(),
            );
        }
        super::mask_params::check_mask_grid(points)
    }
    fn score(&self, task: Task, params: &Params, y: &[f64], pred: &[f64]) -> f64 {
        match &self.composition.forest {
            Some(f) => forest::score(f, task, params, y, pred),
            None => task.score(y, pred),
        }
    }
    fn skip_reason(&self, p: &Params, _n: usize, d: usize) -> Option<String> {
        if self.composition.forest.is_some() {
            return None;
        }
        if self.composition.partition.rule == Rule::HistogramXTree {
            return semi_feature::skip_reason(&self.composition, p, d);
        }
        (self.composition.partition.rule == Rule::Histogram
            && !sparse_cells(&self.composition, p)
            && !grid_allowed(p.usize("bins"), d))
        .then(|| "bins over the memory cap".to_string())
    }

    fn prepare(
        &self,
        data: &RepData,
        p: &Params,
        rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        self.prepare_shared(data, p, rng, None)
    }

    /// Trees grown on the public sample (`grown_on: public`, any rule but
    /// `random_max_edge`) are taken from `shared` when given ([`Grower::grow_shared`]).
    fn prepare_shared(
        &self,
        data: &RepData,
        p: &Params,
        rng: &mut Pcg64,
        shared: Option<&SharedPublic<'_>>,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let c = &self.composition;
        if c.forest.is_some() {
            return forest::prepare(c, data);
        }
        if c.partition.rule == Rule::HistogramXTree {
            return semi_feature::prepare(c, data, p, rng);
        }
        let subsampled;
        let data = if c.subsample {
            let share = p.f64("private_share");
            if share <= 0.0 {
                return Err(MethodError::Other("private_share must be > 0".into()));
            }
            let k = ((share * data.private.n() as f64).ceil() as usize).clamp(1, data.private.n());
            subsampled = RepData {
                private: data.private.select(&(0..k).collect::<Vec<_>>()),
                ..data.clone()
            };
            &subsampled
        } else {
            data
        };
        let d = data.private.d();
        let n = data.public.n() + data.private.n() + data.test.n();
        if self.skip_reason(p, n, d).is_some() {
            return Ok(None);
        }
        if c.partition.rule == Rule::Histogram {
            let m = p.usize("bins");
            let grid = Grid { m, d };
            let test_classes = (data.test.task == Task::Classification).then(|| {
                (0..data.test.n())
                    .map(|i| data.test.x.row(i).iter().all(|v| (0.0..=1.0).contains(v)))
                    .collect()
            });
            if sparse_cells(c, p) {
                let keys = |x: &Matrix| (0..x.n).map(|i| grid.cell_key(x.row(i))).collect();
                return Ok(Some(Box::new(PreparedGrid {
                    private_cells: keys(&data.private.x),
                    test_cells: keys(&data.test.x),
                    test_classes,
                    grid,
                    y: data.private.y.clone(),
                    bounds: data.bounds,
                    composition: c.clone(),
                })));
            }
            let cells = |x: &Matrix| (0..x.n).map(|i| grid.cell_of(x.row(i))).collect();
            return Ok(Some(Box::new(PreparedGrid {
                private_cells: cells(&data.private.x),
                test_cells: cells(&data.test.x),
                test_classes,
                grid,
                y: data.private.y.clone(),
                bounds: data.bounds,
                composition: c.clone(),
            })));
        }
        let mixed;
        let pooled;
        let (data, grown) = match c.partition.grown_on {
            GrownOn::Public => (data, Some(&data.public)),
            GrownOn::Private => (data, Some(&data.private)),
            GrownOn::PublicAndPrivate => {
                let mut all = data.public.clone();
                all.x.append_rows(&data.private.x);
                all.y.extend_from_slice(&data.private.y);
                pooled = all;
                (data, Some(&pooled))
            }
            GrownOn::None => (data, None),
            GrownOn::Released => unreachable!("histogram_x_tree is prepared above"),
            GrownOn::Mixture => {
                mixed = mixture(data, p.f64("delta"), rng);
                (&mixed.0, Some(&mixed.1))
            }
        };
        let grow = |depth: usize| -> Result<Arc<Partition>, MethodError> {
            Ok(Grower::of(c, p, depth, d, grown.is_some())?.grow_shared(c, grown, shared))
        };
        let partition = match c.partition.rule {
            Rule::RandomMaxEdge => Arc::new(random_max_edge(
                grown.map(|g| (&g.x, g.y.as_slice())),
                d,
                &tree_params(p, grown.is_some()),
                rng,
            )),
            Rule::CartExhaustive => grow(0)?,
            _ => grow(p.usize("depth"))?,
        };
        let test_leaves: Vec<usize> = partition.leaves_of(&data.test.x);
        if c.estimator == EstimatorBlock::LeafMean {
            let leaves: Vec<Option<usize>> = test_leaves.into_iter().map(Some).collect();
            return Ok(Some(Box::new(PreparedFixed {
                predictions: predict_leaves(&leaves, &partition.leaf_means),
            })));
        }
        if matches!(
            c.estimator,
            EstimatorBlock::Lpct | EstimatorBlock::LpctPrune
        ) {
            // Algorithm 2's second round (prune: paper) uses a depth-p_min partition;
            // `prune` is a release parameter, so it is grown for either mode.
            let (second, p_min) = if c.estimator == EstimatorBlock::LpctPrune {
                (Some(grow(p.usize("p_min"))?), p.usize("p_min"))
            } else {
                (None, 0)
            };
            let fit = lpct::LpctFit::new(partition, second, data, (p.usize("depth"), p_min));
            if !c.private() {
                return Ok(Some(Box::new(PreparedFixed {
                    predictions: fit.public_only(),
                })));
            }
            return Ok(Some(Box::new(lpct::PreparedLpct {
                fit,
                composition: c.clone(),
            })));
        }
        if c.estimator == EstimatorBlock::LeafMajority {
            let g = grown.expect("checked: leaf_majority needs a grown tree");
            let classes = leaf_majority(&partition, g)?;
            return Ok(Some(Box::new(PreparedFixed {
                predictions: test_leaves.iter().map(|&l| classes[l]).collect(),
            })));
        }
        Ok(Some(Box::new(PreparedTree {
            private_leaves: partition.leaves_of(&data.private.x),
            test_in_domain: (0..data.test.n())
                .map(|i| partition.in_domain(data.test.x.row(i)))
                .collect(),
            test_leaves,
            partition,
            y: data.private.y.clone(),
            bounds: data.bounds,
            composition: c.clone(),
        })))
    }
}

/// The most frequent class of `grown`'s rows in each leaf of `partition`, ties to the
/// smallest class; an empty leaf (none in a tree grown on `grown`) predicts the overall
/// majority.
///
/// # Errors
/// A label other than 0 or 1: the variance-reduction CART is the Gini CART only for two
/// classes.
fn leaf_majority(partition: &Partition, grown: &Dataset) -> Result<Vec<f64>, MethodError> {
    if let Some(bad) = grown.y.iter().find(|&&y| y != 0.0 && y != 1.0) {
        return Err(MethodError::Other(format!(
            "leaf_majority grows its tree with the variance-reduction CART, which is the Gini CART only for 0/1 labels; found class {bad}"
        )));
    }
    let mut ones = vec![0usize; partition.n_leaves()];
    let mut counts = vec![0usize; partition.n_leaves()];
    for i in 0..grown.n() {
        let l = partition.leaf_of(grown.x.row(i));
        counts[l] += 1;
        ones[l] += usize::from(grown.y[i] == 1.0);
    }
    let total_ones: usize = ones.iter().sum();
    let overall = f64::from(u8::from(2 * total_ones > grown.n()));
    Ok(counts
        .iter()
        .zip(&ones)
        .map(|(&n, &k)| match n {
            0 => overall,
            _ => f64::from(u8::from(2 * k > n)),
        })
        .collect())
}

/// The mixed partition set of `grown_on: mixture` (docs/methods/lpdt.md §8.6): of its m = n_pub points,
/// round(δ·m) are public points drawn at random with `rng` and the rest are the first
/// private users of the repetition's random order (at most all but one of them), who are
/// then removed from the reporting users. Returns the data with the reduced private sample
/// and the partition set.
///
/// **Ledger.** The k private users of the partition set are used in the clear: each is
/// charged an infinite ε (part `partition set: record in the clear`), and the set is
/// recorded as a private quantity; the method declares it (`non_private_users`). The
/// ledger numbers the reporting users first (0..n − k, the reduced sample's order, as the
/// release charges them) and the partition set's users after them (n − k..n).
pub fn mixture(data: &RepData, delta: f64, rng: &mut Pcg64) -> (RepData, crate::data::Dataset) {
    use rand::seq::SliceRandom;
    let m = data.public.n();
    let k_pub = ((delta * m as f64).round() as usize).min(m);
    let k_priv = (m - k_pub).min(data.private.n().saturating_sub(1));
    let mut pub_idx: Vec<usize> = (0..m).collect();
    pub_idx.shuffle(rng);
    let mut grow = data.public.select(&pub_idx[..k_pub]);
    let drawn = data.private.select(&(0..k_priv).collect::<Vec<_>>());
    grow.x.data.extend_from_slice(&drawn.x.data);
    grow.x.n += drawn.n();
    grow.y.extend_from_slice(&drawn.y);
    let rest: Vec<usize> = (k_priv..data.private.n()).collect();
    let n = data.private.n();
    crate::privacy::ledger::charge(
        "partition set: record in the clear",
        crate::privacy::ledger::Subjects::Range(n - k_priv, n),
        f64::INFINITY,
        0.0,
    );
    crate::privacy::ledger::private_quantity("partition set", || {
        format!("{k_priv} private users' features and labels in the clear grow the partition (grown_on: mixture, delta = {delta})")
    });
    (
        RepData {
            private: data.private.select(&rest),
            masks: data.masks_of(&rest),
            ..data.clone()
        },
        grow,
    )
}

/// Predictions that do not depend on ε (non-private methods).
struct PreparedFixed {
    predictions: Vec<f64>,
}

impl Prepared for PreparedFixed {
    fn predict(&self, _: &Params, _: Option<f64>, _: &mut Pcg64) -> Result<Vec<f64>, MethodError> {
        Ok(self.predictions.clone())
    }
}

/// A tree partition with the ratio estimator.
struct PreparedTree {
    partition: Arc<Partition>,
    private_leaves: Vec<usize>,
    test_leaves: Vec<usize>,
    test_in_domain: Vec<bool>,
    y: Vec<f64>,
    bounds: LabelBounds,
    composition: Composition,
}

impl Prepared for PreparedTree {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = super::required_epsilon("a composed method", epsilon)?;
        let c = &self.composition;
        let tau = m.f64("tau");
        let values = if c.lpdt_release() {
            // LPDT exactly as the paper states it (docs/methods/lpdt.md §2).
            let cfg = LpdtConfig {
                epsilon,
                rho: m.f64("rho"),
                bounds: self.bounds,
                tau,
                simulation: Simulation::from_name(m.str("simulation"))
                    .expect("validated against Simulation::NAMES"),
            };
            lpdt_leaf_values(
                &self.private_leaves,
                &self.y,
                &self.partition.leaf_means,
                &cfg,
                rng,
            )?
            .values
        } else {
            let (eps_cell, eps_label) = c.budgets(epsilon, m)?;
            ratio_by_simulation(self, (eps_cell, eps_label), tau, c.centres_labels(m), rng)
        };
        let route_all = m.str("ood") == "route";
        let leaves: Vec<Option<usize>> = self
            .test_leaves
            .iter()
            .zip(&self.test_in_domain)
            .map(|(&l, &inside)| (inside || route_all).then_some(l))
            .collect();
        Ok(predict_leaves(&leaves, &values))
    }
}

/// The ratio estimator for any cell and label mechanism (see [`simulate_sums`]): the
/// curator predicts T_j/S_j (times a for the label vector, whose sum carries no factor
/// a), or the leaf's fallback when S_j ≤ 0 or S_j/a ≤ τ·n. With `y_center` (label vector
/// only) the users release labels shifted by the bounds' midpoint c ([`LabelBounds::centred`])
/// and the curator predicts c + a·T_j/S_j; the fallback is the leaf's public mean either
/// way.
fn ratio_by_simulation(
    t: &PreparedTree,
    (eps_cell, eps_label): (f64, f64),
    tau: f64,
    y_center: bool,
    rng: &mut Pcg64,
) -> Vec<f64> {
    let k = t.partition.n_leaves();
    let n = t.y.len();
    let (bounds, shift) = t.bounds.centred(y_center);
    let rel = UserRelease::new(&t.composition, k, bounds, (eps_cell, eps_label));
    let shifted: Vec<f64>;
    let y = if y_center {
        shifted = t.y.iter().map(|v| v - shift).collect();
        &shifted
    } else {
        &t.y
    };
    let sums = simulate_sums(&rel, (&t.private_leaves, y), rng);
    let (s, tsum, a) = (&sums.s, &sums.t, sums.a);
    (0..k)
        .map(|j| {
            if s[j] <= 0.0 || s[j] / a <= tau * n as f64 {
                t.partition.leaf_means[j]
            } else if sums.vector {
                shift + a * tsum[j] / s[j]
            } else {
                tsum[j] / s[j]
            }
        })
        .collect()
}

/// The curator's per-cell sums of simulated releases, for any cell and label mechanism.
pub(crate) struct SimulatedSums {
    /// S_j = Σ_i c_ij, the centred cell scores with E[c_ij] = a·U_ij.
    pub s: Vec<f64>,
    /// T_j: Σ_i ỹ_i c_ij for the scalar Laplace label (E = a·Σ y_i U_ij), or Σ_i of the
    /// noisy label vector's coordinate j for `laplace_vector` (E = Σ y_i U_ij).
    pub t: Vec<f64>,
    /// The factor a of the cell scores.
    pub a: f64,
    /// Whether the label mechanism is `laplace_vector`.
    pub vector: bool,
}

/// Simulates every private user's release `rel` (O(n·K) draws; users in order, for each
/// its cell release then its label release, [`UserRelease::release`], which charges user
/// i) and returns the curator's sums. `leaves`, `y`: the cell and label of each of the n
/// private users; labels are clipped into the release's bounds, whose range sets the
/// scalar Laplace scale R/ε_l and whose largest absolute value M_Y the vector's 2M_Y/ε_l.
pub(crate) fn simulate_sums(
    rel: &UserRelease,
    (leaves, y): (&[usize], &[f64]),
    rng: &mut Pcg64,
) -> SimulatedSums {
    let k = rel.k();
    let mut s = vec![0.0; k];
    let mut tsum = vec![0.0; k];
    let mut score = vec![0.0; k];
    let mut label_vector = vec![0.0; if rel.vector() { k } else { 0 }];
    for (i, (&leaf, &yi)) in leaves.iter().zip(y).enumerate() {
        let noisy = rel.release(i, leaf, yi, &mut score, &mut label_vector, rng);
        if rel.vector() {
            for j in 0..k {
                s[j] += score[j];
                tsum[j] += label_vector[j];
            }
        } else {
            for j in 0..k {
                s[j] += score[j];
                tsum[j] += noisy * score[j];
            }
        }
    }
    SimulatedSums {
        s,
        t: tsum,
        a: rel.a,
        vector: rel.vector(),
    }
}

/// Whether grid point `p` of the histogram composition `c` asks for sparse cells.
fn sparse_cells(c: &Composition, p: &Params) -> bool {
    c.partition.option == RuleOption::Cells && p.str("cells") == "sparse"
}

/// A regular grid with the histogram estimators; cells are identified by `K`: the mixed-
/// radix index `u64` (`cells: capped`) or the per-axis bins `Vec<u32>` (`cells: sparse`).
/// The estimator draws the same noise in the same order for either key (tested).
struct PreparedGrid<K> {
    grid: Grid,
    private_cells: Vec<K>,
    test_cells: Vec<K>,
    /// For a classification data set: whether each test point lies in [0,1]^d. The
    /// prediction is then the class 1{m̂ > 1/2} inside the box and 0 outside (PHIST as
    /// the LPCT paper runs it, Berrett & Butucea's estimator; docs/methods/lpct.md §7.2).
    test_classes: Option<Vec<bool>>,
    y: Vec<f64>,
    bounds: LabelBounds,
    composition: Composition,
}

impl<K: std::hash::Hash + Eq + Clone + Send + Sync> Prepared for PreparedGrid<K> {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = super::required_epsilon("a composed method", epsilon)?;
        let (eps_cell, eps_label) = self.composition.budgets(epsilon, m)?;
        let weights = match self.composition.estimator {
            EstimatorBlock::AdjustedHistogram if m.str("weights") == "reported_fit" => (1.0, 0.5),
            EstimatorBlock::AdjustedHistogram => (0.5, 0.5),
            _ => (1.0, 0.0),
        };
        let cfg = HistogramConfig {
            eps_cell,
            eps_label,
            t: m.f64("t"),
            bounds: self.bounds,
            weights,
            y_center: m.bool("y_center"),
        };
        let values = histogram_predict(
            &self.grid,
            &self.private_cells,
            &self.y,
            &self.test_cells,
            &cfg,
            rng,
        )?;
        Ok(match &self.test_classes {
            None => values,
            Some(inside) => values
                .iter()
                .zip(inside)
                .map(|(&v, &inside)| f64::from(u8::from(inside && v > 0.5)))
                .collect(),
        })
    }
}

/// The preset files shipped in `specs/methods/`, embedded in the binary.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "specs/methods/lpdt-m.yaml",
        include_str!("../../specs/methods/lpdt-m.yaml"),
    ),
    (
        "specs/methods/lpdt-v.yaml",
        include_str!("../../specs/methods/lpdt-v.yaml"),
    ),
    (
        "specs/methods/aphist.yaml",
        include_str!("../../specs/methods/aphist.yaml"),
    ),
    (
        "specs/methods/phist.yaml",
        include_str!("../../specs/methods/phist.yaml"),
    ),
    (
        "specs/methods/dt.yaml",
        include_str!("../../specs/methods/dt.yaml"),
    ),
    (
        "specs/methods/histoftree/dt-leaf.yaml",
        include_str!("../../specs/methods/histoftree/dt-leaf.yaml"),
    ),
    (
        "specs/methods/histoftree/hist.yaml",
        include_str!("../../specs/methods/histoftree/hist.yaml"),
    ),
    (
        "specs/methods/dt-pub.yaml",
        include_str!("../../specs/methods/dt-pub.yaml"),
    ),
    (
        "specs/methods/ct-w.yaml",
        include_str!("../../specs/methods/ct-w.yaml"),
    ),
    (
        "specs/methods/ct-q.yaml",
        include_str!("../../specs/methods/ct-q.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-m.yaml",
        include_str!("../../specs/methods/lpct/lpct-m.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-c.yaml",
        include_str!("../../specs/methods/lpct/lpct-c.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-prune-m.yaml",
        include_str!("../../specs/methods/lpct/lpct-prune-m.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-prune-c.yaml",
        include_str!("../../specs/methods/lpct/lpct-prune-c.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-q.yaml",
        include_str!("../../specs/methods/lpct/lpct-q.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-r.yaml",
        include_str!("../../specs/methods/lpct/lpct-r.yaml"),
    ),
    (
        "specs/methods/histoftree/histoftree-me.yaml",
        include_str!("../../specs/methods/histoftree/histoftree-me.yaml"),
    ),
    (
        "specs/methods/histoftree/histoftree-cart.yaml",
        include_str!("../../specs/methods/histoftree/histoftree-cart.yaml"),
    ),
    (
        "specs/methods/histoftree/adhistoftree-me.yaml",
        include_str!("../../specs/methods/histoftree/adhistoftree-me.yaml"),
    ),
    (
        "specs/methods/histoftree/adhistoftree-cart.yaml",
        include_str!("../../specs/methods/histoftree/adhistoftree-cart.yaml"),
    ),
    (
        "specs/methods/diprime/diprime.yaml",
        include_str!("../../specs/methods/diprime/diprime.yaml"),
    ),
    (
        "specs/methods/diprime/diprimeexp.yaml",
        include_str!("../../specs/methods/diprime/diprimeexp.yaml"),
    ),
    (
        "specs/methods/diprime/diprimeflip.yaml",
        include_str!("../../specs/methods/diprime/diprimeflip.yaml"),
    ),
    (
        "specs/methods/diprime/median.yaml",
        include_str!("../../specs/methods/diprime/median.yaml"),
    ),
    (
        "specs/methods/diprime/dp-ert.yaml",
        include_str!("../../specs/methods/diprime/dp-ert.yaml"),
    ),
];

/// Parses and checks one method file (a preset in `specs/methods/`, or a user's own): a
/// composition plus `name` and `description` strings.
///
/// # Errors
/// A message naming the file and what is wrong (malformed YAML, a missing `name` or
/// `description`, an unknown or invalid block, as [`Composed::new`] checks it).
pub fn parse_method_file(path: &str, text: &str) -> Result<Composed, String> {
    let mut map: serde_yaml::Mapping =
        serde_yaml::from_str(text).map_err(|e| format!("{path}: {e}"))?;
    let mut take = |key: &str| match map.remove(key) {
        Some(serde_yaml::Value::String(v)) => Ok(v),
        _ => Err(format!("{path}: a method file needs a `{key}` string")),
    };
    let (name, description) = (take("name")?, take("description")?);
    let composition: Composition = serde_yaml::from_value(serde_yaml::Value::Mapping(map))
        .map_err(|e| format!("{path}: {e}"))?;
    Composed::new(&name, &description, composition).map_err(|e| format!("{path}: {e}"))
}

/// Whether a YAML text is a method file rather than an experiment spec: a mapping with
/// `name` and `description` but no `methods` list.
pub fn is_method_file(text: &str) -> bool {
    match serde_yaml::from_str::<serde_yaml::Mapping>(text) {
        Ok(m) => {
            let has = |k: &str| m.contains_key(serde_yaml::Value::String(k.into()));
            has("name") && has("description") && !has("methods")
        }
        Err(_) => false,
    }
}

/// Parses and checks every preset.
///
/// # Panics
/// If a shipped preset is invalid (a test checks they all load).
pub fn presets() -> Vec<Composed> {
    PRESETS
        .iter()
        .map(|(path, text)| parse_method_file(path, text).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}
