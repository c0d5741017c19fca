//! Central-DP tree engine of the DiPriMe paper and its forests (DESIGN.md, `forest/`;
//! method card `../shared/methods/diprime.md` §3, §4.3, §5).

pub mod depth_rule;

pub use depth_rule::{d_full, d_mult, d_part, depth_rule};

// The baselines of card §4.1, §4.4–§4.7 (RF, ERT, DP-RF, DP-DF and their discretisation).
pub mod discretize;
pub mod dp_df;
pub mod dp_rf;
pub mod sklearn;
