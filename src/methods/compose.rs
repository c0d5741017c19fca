//! Methods as compositions of building blocks (docs/architecture.md, `methods/`): a partition rule and
//! the data it is grown on, a cell mechanism, a label mechanism, an estimator and a budget
//! split. The paper methods LPDT-M, LPDT-V, PHIST, APHIST, DT and DT-pub are presets
//! written this way in `specs/methods/*.yaml`; a spec may compose its own baseline the
//! same way (`compose:`), without touching Rust.
//!
//! Validation ([`Composition::check`]) rejects compositions that are not ε-LDP as stated:
//! a partition grown on private data inside a local-DP method, a cell or label released in
//! the clear next to a private one, budget shares adding up to more than 1.

mod blocks;
mod composed;
mod decls;
pub mod forest;
mod grower;
mod lpct;
mod mixture;
mod params;
mod prepared;
mod presets;
mod release;
mod semi_feature;
mod validity;

pub use blocks::{
    BudgetBlock, CellMechanism, Composition, EstimatorBlock, GrownOn, LabelMechanism,
    PartitionBlock, RhoTag, Rule, RuleOption, SemiShape, SemiTree, SplitCriterion,
};
pub use composed::Composed;
pub use forest::{Accuracy, ForestBlock};
pub use lpct::{lpct_release, lpct_round_epsilon};
pub use mixture::mixture;
pub(crate) use prepared::simulate_sums;
pub use presets::{is_method_file, parse_method_file, presets, PRESETS};
pub use release::UserRelease;
pub use semi_feature::{candidate_mechanism, histoftree_budgets, round1_labels};
