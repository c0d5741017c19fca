//! dp-repro: reproduce the experiments of papers on private tree estimators with public
//! data (LPDT, LPCT, HistOfTree, DiPriMe) from declarative YAML specs.
//!
//! Data flows one way (see `docs/architecture.md`): spec → validated experiment → tasks →
//! runs.csv → summary → selection → paired tests → tables.

pub mod audit;
pub mod bench;
pub mod check;
pub mod cli;
pub mod csv_table;
pub mod data;
pub mod estimate;
pub mod forest;
pub mod methods;
pub mod partition;
pub use dp_privacy as privacy;
pub mod report;
pub mod run;
pub mod run_row;
pub mod schema_parts;
pub mod seeds;
pub mod site;
pub mod spec;
pub mod stats;
pub mod suggest;
pub mod summary;
pub mod yaml_error;
pub mod yaml_word;
