//! The deterministic tree growers of the partition block (`max_edge`, `cart`,
//! `cart_exhaustive`), each with every parameter it reads, so that its `Debug` text names
//! the tree it grows on a given sample: the key of trees shared across repetitions
//! ([`crate::partition::SharedPublic`]). `random_max_edge` draws random numbers and is not
//! one of them.

use super::{Composition, GrownOn, Rule, RuleOption, SplitCriterion};
use crate::data::Dataset;
use crate::methods::{MethodError, Params};
use crate::partition::{
    cart_quantile, cart_quantile_entropy, cart_with, complete_max_edge, max_edge, max_edge_entropy,
    CartParams, Missing, Partition, SharedPublic, TreeParams,
};
use std::sync::Arc;

/// A grower and all its parameters; it draws no random numbers.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Grower {
    /// sklearn-like exhaustive CART (docs/methods/lpdt.md §7.1).
    CartExhaustive(CartParams),
    /// Max-edge on data (docs/methods/lpdt.md §3), variance or entropy gain.
    MaxEdge { params: TreeParams, entropy: bool },
    /// The complete max-edge partition of depth `depth` in d dimensions (no data).
    CompleteMaxEdge { d: usize, depth: usize },
    /// Quantile-candidate CART (docs/methods/lpdt.md §4), variance or entropy gain.
    Cart {
        params: TreeParams,
        search_number: usize,
        entropy: bool,
    },
}

/// The tree parameters of grid point `p`: its `depth`, and with `with_data` (a partition
/// grown on a sample) its `min_leaf` and `min_samples_split`, else 0 for both.
pub(super) fn tree_params(p: &Params, with_data: bool) -> TreeParams {
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

impl Grower {
    /// The grower of composition `c` at structural grid point `p` for a tree of depth
    /// `depth` (ignored by `cart_exhaustive`, which reads `max_depth`) in `d` dimensions,
    /// `with_data` when the partition is grown on a sample.
    ///
    /// # Errors
    /// A rule that needs data without any (`cart`, `cart_exhaustive`), or a rule that is
    /// not one of these growers (validated earlier; a caller's bug).
    pub(super) fn of(
        c: &Composition,
        p: &Params,
        depth: usize,
        d: usize,
        with_data: bool,
    ) -> Result<Grower, MethodError> {
        let entropy = c.partition.criterion == SplitCriterion::Entropy;
        // Read only by the growers that take tree parameters (not `cart_exhaustive`,
        // whose grid has `max_depth` and no `depth`).
        let params = || TreeParams {
            depth,
            ..tree_params(p, with_data)
        };
        Ok(match (c.partition.rule, with_data) {
            (Rule::CartExhaustive, true) => Grower::CartExhaustive(CartParams {
                max_depth: p.usize("max_depth"),
                min_samples_leaf: match c.partition.option {
                    RuleOption::MinSamplesLeaf => p.usize("min_samples_leaf"),
                    _ => 1,
                },
                missing: Missing::Refuse,
            }),
            (Rule::MaxEdge, true) => Grower::MaxEdge {
                params: params(),
                entropy,
            },
            (Rule::MaxEdge, false) => Grower::CompleteMaxEdge { d, depth },
            (Rule::Cart, true) => Grower::Cart {
                params: params(),
                search_number: p.usize("search_number"),
                entropy,
            },
            _ => {
                return Err(MethodError::Other(
                    "this partition needs data (validated earlier)".into(),
                ))
            }
        })
    }

    /// The tree grown on `grown` (None only for [`Grower::CompleteMaxEdge`]).
    ///
    /// # Panics
    /// A data-driven grower without data ([`Grower::of`] never makes one).
    pub(super) fn grow(&self, grown: Option<&Dataset>) -> Partition {
        let g = || grown.expect("Grower::of gives a data-driven grower only with data");
        match self {
            Grower::CartExhaustive(params) => cart_with(&g().x, &g().y, params),
            Grower::MaxEdge {
                params,
                entropy: true,
            } => max_edge_entropy(&g().x, &g().y, params),
            Grower::MaxEdge { params, .. } => max_edge(&g().x, &g().y, params),
            Grower::CompleteMaxEdge { d, depth } => complete_max_edge(*d, *depth),
            Grower::Cart {
                params,
                search_number,
                entropy: true,
            } => cart_quantile_entropy(&g().x, &g().y, params, *search_number),
            Grower::Cart {
                params,
                search_number,
                ..
            } => cart_quantile(&g().x, &g().y, params, *search_number),
        }
    }

    /// [`Grower::grow`] on the sample composition `c` grows on (`grown`, which is
    /// `data.public` under `grown_on: public`), taken from `shared` when given and the
    /// sample is the public one: a public sample shared by the repetitions gets each
    /// grower's tree once.
    pub(super) fn grow_shared(
        &self,
        c: &Composition,
        grown: Option<&Dataset>,
        shared: Option<&SharedPublic<'_>>,
    ) -> Arc<Partition> {
        match (shared, grown) {
            (Some(s), Some(public)) if c.partition.grown_on == GrownOn::Public => {
                s.get_or_grow(public, format!("{self:?}"), || self.grow(Some(public)))
            }
            _ => Arc::new(self.grow(grown)),
        }
    }
}
