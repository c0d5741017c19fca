//! Whether a composition is private and ε-LDP as stated ([`Composition::check`]): it
//! rejects a partition grown on private data inside a local-DP method, a cell or label
//! released in the clear next to a private one, budget shares adding up to more than 1.

use super::blocks::{
    BudgetBlock, CellMechanism, Composition, EstimatorBlock, GrownOn, LabelMechanism, Rule,
    RuleOption, SplitCriterion,
};
use super::{forest, semi_feature};
use crate::yaml_word::yaml_word;

impl Composition {
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
                    yaml_word(&o),
                    yaml_word(&p.rule)
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
}
