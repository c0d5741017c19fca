//! The parameters a composition declares (from the declarations of `decls.rs`) and the
//! questions about its release that decide them: which release it is (LPDT's, PHIST's),
//! whether labels are centred, how ε is split.

use super::blocks::{
    BudgetBlock, CellMechanism, Composition, EstimatorBlock, GrownOn, LabelMechanism, Rule,
    RuleOption, SplitCriterion,
};
use super::decls::{
    BINS, CELLS, DELTA, DEPTH, LAMBDA, MAX_DEPTH, MIN_LEAF, MIN_SAMPLES_LEAF, MSS, MSS_LPCT, OOD,
    PRIVATE_SHARE, PRUNE, P_MIN, RHO, SEARCH, SIMULATION, T, TAU, WEIGHTS, Y_CENTER,
};
use super::{forest, semi_feature};
use crate::methods::{ParamDecl, Params};
use crate::privacy::{Budget, BudgetError};

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
