//! The blocks a composition is made of (docs/architecture.md, `methods/`): the partition
//! rule and the data it is grown on, the cell and label mechanisms, the estimator and the
//! budget split, the [`Composition`] that holds them, as YAML reads it, and its one-line
//! description.

use super::forest::{self, ForestBlock};
use crate::yaml_word::yaml_word;
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// The tree rule on the T-axes of `histogram_x_tree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SemiTree {
    /// Max-edge with public-only variance reduction (card §5.4, Algorithm 1).
    MaxEdge,
    /// Quantile-candidate CART with public-only scoring (card §3.6).
    Cart,
}

/// How the shape (s, depth, bins) of `histogram_x_tree` is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SemiShape {
    /// Parameters `s`, `depth`, `bins` (HistOfTree).
    Fixed,
    /// Eq. (15) from n, ε, d and the mask, without labels (AdHistOfTree, card §7).
    Adaptive,
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
}

impl fmt::Display for Composition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(block) = &self.forest {
            return write!(f, "{}", forest::describe(block));
        }
        let criterion = match self.partition.criterion {
            SplitCriterion::Variance => String::new(),
            c => format!(" ({})", yaml_word(&c)),
        };
        let semi = [
            self.partition.tree.map(|t| yaml_word(&t)),
            self.partition.shape.map(|t| yaml_word(&t)),
        ];
        let criterion = semi
            .into_iter()
            .flatten()
            .fold(criterion, |a, w| format!("{a} ({w})"));
        write!(
            f,
            "partition {}{criterion} on {}, cell {}, label {}, estimator {}, budget {}",
            yaml_word(&self.partition.rule),
            yaml_word(&self.partition.grown_on),
            yaml_word(&self.cell_mechanism),
            yaml_word(&self.label_mechanism),
            yaml_word(&self.estimator),
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
