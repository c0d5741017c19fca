//! Central-DP tree engine of the DiPriMe paper and its forests (DESIGN.md, `forest/`;
//! method card `../shared/methods/diprime.md` §3, §4, §5).

pub mod discretize;
pub mod dp_df;
pub mod dp_rf;
pub mod sklearn;
