//! The parameters a composition declares (structural, release and curator parameters of
//! docs/methods/lpdt.md, docs/methods/lpct.md and the LPDT paper App. D.1) and the
//! questions about its release that decide them: which release it is (LPDT's, PHIST's),
//! whether labels are centred, how ε is split.

use super::blocks::{
    BudgetBlock, CellMechanism, Composition, EstimatorBlock, GrownOn, LabelMechanism, Rule,
    RuleOption, SplitCriterion,
};
use super::{forest, semi_feature};
use crate::methods::{ParamDecl, ParamKind, ParamRole, Params};
use crate::privacy::{Budget, BudgetError};

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

pub(super) const DEPTH: ParamDecl = int("depth", 0, None, true, "maximum depth s of the partition");
pub(super) const MIN_LEAF: ParamDecl = int(
    "min_leaf",
    1,
    None,
    true,
    "n_l, minimum number of points of the growing sample in each child of a split",
);
pub(super) const MSS: ParamDecl = int(
    "min_samples_split",
    1,
    Some("2"),
    true,
    "a node with <= this many points (or distinct rows) is a leaf (the authors' code's default is 2)",
);
pub(super) const MSS_LPCT: ParamDecl = int(
    "min_samples_split",
    0,
    Some("1"),
    true,
    "m_s: a node with <= this many public points (or distinct rows) is a leaf (LPCT's code uses 1, docs/methods/lpct.md §2.1)",
);
pub(super) const P_MIN: ParamDecl = int(
    "p_min",
    0,
    Some("1"),
    true,
    "p_min: the pruning walk stops at this depth (reference_v1), or the flag's second round uses a depth-p_min partition (paper); real data in LPCT's code: p0 = depth = 2, p_min = 1 (docs/methods/lpct.md §5.4)",
);
pub(super) const PRUNE: ParamDecl = ParamDecl {
    name: "prune",
    role: ParamRole::Release,
    kind: ParamKind::Choice(&["reference_v1", "reference_v1_as_coded", "paper"]),
    default: Some("reference_v1"),
    doc: "reference_v1: one round with the full epsilon and the code's statistic, which produced the LPCT paper's numbers (docs/methods/lpct.md §5.4), every node at its true depth and evaluated once; reference_v1_as_coded: the same with the V1 code's walk state (quirks Q1, Q2 and the pooled sums of adopted nodes: heights counted from the first leaf that reaches a node and a walk of at least one step, lambda* kept on revisits, a finished leaf's adopted node summed into ancestors built later); paper: Algorithm 2, epsilon/2 + epsilon/2 with the flag's second round (§5.2)",
};
pub(super) const LAMBDA: ParamDecl = ParamDecl {
    name: "lambda",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: None,
    doc: "weight of the public counts in (V + lambda V_Q)/(U + lambda U_Q) (LPCT paper eq. 8); 0 = private only (LPCT-P, LPDT)",
};
pub(super) const SEARCH: ParamDecl = int(
    "search_number",
    1,
    Some("10"),
    true,
    "number of quantile threshold candidates per feature for the CART split search on public data",
);
pub(super) const MAX_DEPTH: ParamDecl = int(
    "max_depth",
    0,
    None,
    true,
    "maximum depth of the CART tree (sklearn DecisionTreeRegressor defaults otherwise)",
);
pub(super) const MIN_SAMPLES_LEAF: ParamDecl = int(
    "min_samples_leaf",
    1,
    Some("1"),
    true,
    "sklearn's min_samples_leaf of the CART (partition option min_samples_leaf; 1 = sklearn's default)",
);
pub(super) const CELLS: ParamDecl = ParamDecl {
    name: "cells",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["capped", "sparse"]),
    default: Some("capped"),
    doc: "capped: grids over the memory rule (bins > 1 with d > 21 or more than 2^30 cells) are skipped (LPDT paper App. D.1); sparse: cells keyed by their per-axis bins, any d, noise drawn only for the cells test points fall in (exact in law for what the curator reads; HistOfTree card §8)",
};
pub(super) const BINS: ParamDecl = int("bins", 1, None, true, "m = 1/h bins per feature on [0,1]^d (grids with d*ln m > 30 ln 2 or d > 21 and m > 1 are skipped: the memory limit of LPDT paper App. D.1)");
pub(super) const DELTA: ParamDecl = ParamDecl {
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
pub(super) const PRIVATE_SHARE: ParamDecl = ParamDecl {
    name: "private_share",
    role: ParamRole::Structural,
    kind: ParamKind::Float { lo: 0.0, hi: 1.0, open: false },
    default: Some("1"),
    doc: "share delta of the private users the fit uses (the first ceil(delta*n) of the repetition's random order)",
};
pub(super) const RHO: ParamDecl = ParamDecl {
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
pub(super) const SIMULATION: ParamDecl = ParamDecl {
    name: "simulation",
    role: ParamRole::Release,
    kind: ParamKind::Choice(crate::estimate::Simulation::NAMES),
    default: Some("fast"),
    doc: "how the users' LPDT releases are simulated, the same law either way: fast (per leaf, the users' bit flips drawn 64 at a time; exact in distribution for the curator's sums, see estimate/lpdt_fast.rs) or per_user (every user's bit vector drawn as the user would, one draw per user and leaf; for audits)",
};
pub(super) const TAU: ParamDecl = ParamDecl {
    name: "tau",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: Some("0"),
    doc: "fallback threshold: a leaf takes its public mean when its debiased count <= tau*n (the paper's estimator, eq. (5), falls back only at 0: tau = 0)",
};
pub(super) const OOD: ParamDecl = ParamDecl {
    name: "ood",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["zero", "route"]),
    default: Some("zero"),
    doc: "test points outside [0,1]^d: zero (paper) or route by thresholds (the authors' code)",
};
pub(super) const T: ParamDecl = ParamDecl {
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
pub(super) const WEIGHTS: ParamDecl = ParamDecl {
    name: "weights",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["average", "reported_fit"]),
    default: Some("average"),
    doc: "denominator weights: average = (mu+lambda)/2 (paper's words), reported_fit = mu + lambda/2 (fits the reported APHIST; LPDT paper App. D.1)",
};
pub(super) const Y_CENTER: ParamDecl = ParamDecl {
    name: "y_center",
    role: ParamRole::Release,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "shift labels by the midpoint of the label bounds (option; the paper uses raw labels)",
};

impl Composition {
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

    /// Whether grid point `m` centres the labels of its release ([`LabelBounds::centred`](crate::estimate::LabelBounds::centred)):
    /// `y_center` on a [`Composition::label_vector_ratio`] composition.
    pub fn centres_labels(&self, m: &Params) -> bool {
        self.label_vector_ratio() && m.bool("y_center")
    }

    /// Whether the composition releases what LPDT's users release (docs/methods/lpdt.md §2.1: bitwise
    /// randomized response on the one-hot leaf vector at ρε and one Laplace label at
    /// (1 − ρ)ε) into the ratio estimator: [`lpdt_leaf_values`](crate::estimate::lpdt_leaf_values) computes it, with the
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
    /// one-hot cell vector and a noisy label vector on a regular grid, [`histogram_predict`](crate::estimate::histogram_predict)),
    /// as [`Composed::prepare`](super::Composed) routes it.
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
