//! Checking a finished run against the paper's reported numbers, the paper's qualitative
//! claims, and our own blessed ("golden") numbers (docs/architecture.md, `check/`).
//!
//! Three independent checks, each driven by an optional section of the spec:
//! - [`ReportedSpec`] (`reported:`): every cell of the paper's tables (tidy CSV files such
//!   as `specs/reported/lpdt_table2.csv`) against our mean over repetitions of the
//!   selected grid point (`selected.csv`), within a [`Tolerance`] (relative, or a band in
//!   units of our standard error), with [`KnownDeviation`] selectors carrying a written
//!   reason. See [`compare_reported`].
//! - [`Claim`] (`claims:`): the paper's qualitative statements in a small grammar
//!   (`better`, `significantly_better`, `best_among`, `improves_with_epsilon`, `level`,
//!   `better_on_curve`, `best_rank_sum`, `within_factor`), evaluated on `selected.csv`,
//!   `tests.csv` and the figures' curves. See [`evaluate_claims`].
//! - `reported.epsilon_match` and `reported.rank_sums`: which of our ε fits each reported
//!   table whose ε is not printed, and the paper's rank sums against our tables' (the
//!   HistOfTree tables). See [`epsilon_matches`] and [`rank_sum_checks`].
//! - [`GoldenSpec`] (`golden:`): `summary.csv` against a blessed copy, bit-exact or within a
//!   relative tolerance. See [`compare_golden`] and [`bless`].
//!
//! The three results go into a [`CheckReport`], whose [`CheckReport::regressed`] decides
//! the exit status of `dp-repro check`, and which [`render_check`] prints as Markdown and
//! LaTeX through the templates `templates/check.md.tera` and `templates/check.tex.tera`.
//!
//! The inputs are the files written by `summary/`:
//! - `selected.csv`: `dataset,method,epsilon,mean,std,median,reps,params` ([`read_selected`]);
//! - `tests.csv`: `dataset,epsilon,method,other,alternative,statistic,p_value,n`
//!   ([`read_tests`]);
//! - `summary.csv`: `dataset,method,epsilon,params,mean,std,median,reps` ([`compare_golden`]).

pub mod anchors;
pub mod audit;
pub mod authors_code;
pub mod budget;
pub mod check_csv;
mod check_report;
pub mod claims;
pub mod damage;
pub mod epsilon_match;
pub mod epsilon_order;
mod error;
pub mod golden;
mod inputs;
pub mod paper_layer;
pub mod rank_sums;
pub mod render;
pub mod repetitions;
pub mod reported;
pub mod reported_rows;
pub mod sensitivity;
pub mod spread;

pub use claims::{
    evaluate_claims, evaluate_claims_with_leaves, validate_claims, AtLeast, Claim, ClaimCheck,
};

pub use crate::spec::reported::{
    AuthorsCode, Band, DatasetNames, EpsilonMatchSpec, EpsilonReading, KnownDeviation,
    KnownEpsilonGap, NotAvailable, RankSumSpec, RankSumTolerance, ReportedSpec, ReportedValue,
    Tolerance, Verdict,
};
pub use check_csv::check_csv;
pub use epsilon_match::{epsilon_matches, match_epsilons, EpsilonMatch, EpsilonScore, MethodMatch};
pub use epsilon_order::{epsilon_orders, EpsilonPair};
pub use golden::{bless, compare_golden, GoldenCheck, GoldenSpec};
pub use rank_sums::{compare_rank_sums, our_rank_sums, rank_sum_checks, RankSumCheck};
pub use render::{quiet_lines, render_check};
pub use reported::{
    cell_verdict, compare_reported, preflight_reported, CellCheck, RowIndex, NOT_IN_SPEC,
};
pub use reported_rows::ratio_rows;

pub use crate::csv_table::CsvError;
pub(crate) use crate::csv_table::CsvTable;

pub use crate::report::selected::SelectedRow;
pub use check_report::CheckReport;
pub use error::CheckError;
pub use inputs::{
    abbreviation_map, read_curve_points, read_leaf_balance, read_selected, read_tests, CurvePoint,
    LeafBalance, TestRow,
};

/// ε as the result files write it (shortest round-trip decimal: `0.5`, `2`).
pub(crate) use crate::seeds::epsilon_text as eps_text;
