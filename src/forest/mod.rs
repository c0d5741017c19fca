//! Central-DP tree engine of the DiPriMe paper and its forests (docs/architecture.md, `forest/`;
//! method card docs/methods/diprime.md §3, §4.2, §4.3, §5).
//!
//! One engine (card §10): a median mechanism ([`MedianMechanism`]: exact, exponential,
//! permute-and-flip, uniform) × an attribute mechanism ([`AttributeMechanism`]: argmin,
//! uniform, exponential, permute-and-flip) × K × d_max × ρ × ε × which rows each tree
//! sees ([`TreeRows`]) × the task. DiPriMe, DiPriMeExp, DiPriMeFlip, Median and DP-ERT are
//! settings of it (wired as YAML compositions in `methods/compose/forest.rs`).
//!
//! **What the engine reads in the clear** (card §3.11, reproduced as the reference code
//! does and only documented here): the exact row count `n` of every node, which sets the
//! attribute-choice sensitivity `4B∞²/n` and the leaf noise scale `W/(n ε_ℓ)`, and decides
//! the data-dependent special cases (`M ≤ 1` ⇒ uniform threshold, empty leaf ⇒ uniform
//! value); the root ranges and category lists when taken from the full data (train and
//! test rows); and the K candidate medians composed as one ε_s on the same rows (the
//! paper's accounting, not standard sequential composition).
//!
//! Modules: [`columns`] (the features column-major, shared by a fit's trees), [`depth_rule`] (§5), [`ranges`] (§3.1, §3.7), [`median`] (§3.4–§3.5),
//! [`attribute`] (§3.6), [`leaf`] (§3.8), [`budget`] (§3.2), [`tree`] (§3.3),
//! [`ensemble`] (§3.9); the baselines [`sklearn`] (RF, ERT, §4.1), [`dp_rf`] (§4.4–§4.5),
//! [`dp_df`] (§4.6) and [`discretize`] (§4.7).

pub mod attribute;
pub mod budget;
pub mod columns;
pub mod depth_rule;
pub mod ensemble;
pub mod leaf;
pub mod median;
pub mod ranges;
pub mod tree;

// The baselines of card §4.1, §4.4–§4.7 (RF, ERT, DP-RF, DP-DF and their discretisation).
pub mod discretize;
pub mod dp_df;
pub mod dp_rf;
pub mod sklearn;

pub use attribute::AttributeMechanism;
pub use budget::{node_budgets, MedianBudget, NodeBudgets, TreeRows};
pub use columns::Columns;
pub use depth_rule::{d_full, d_mult, d_part, depth_rule};
pub use ensemble::Forest;
pub use median::{MedianMechanism, MedianOptions, PfWidth};
pub use ranges::{AttrRange, Ranges, Split};
pub use tree::{Tree, TreeConfig};

use thiserror::Error;

/// An error of the tree engine.
#[derive(Debug, Error, PartialEq)]
pub enum ForestError {
    /// A categorical attribute with more categories than the binary-subset enumeration
    /// handles.
    #[error("feature {attr} is categorical with {m} categories; binary-subset splits (DiPriMe card §3.5) enumerate 2^(m-1)-1 partitions and are limited to {max} categories: declare it numeric or merge categories", max = median::MAX_CATEGORIES)]
    TooManyCategories {
        /// Column index.
        attr: usize,
        /// Number of categories.
        m: usize,
    },
}
