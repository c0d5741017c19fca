//! Checking a finished run against the paper's reported numbers, the paper's qualitative
//! claims, and our own blessed ("golden") numbers (docs/architecture.md, `check/`; issue 3).
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
pub mod claims;
pub mod damage;
pub mod epsilon_match;
pub mod epsilon_order;
pub mod golden;
pub mod paper_layer;
pub mod rank_sums;
pub mod render;
pub mod repetitions;
pub mod reported;
pub mod reported_rows;
pub mod sensitivity;
pub mod spread;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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

/// Errors of reading result files, validating the check sections of a spec, comparing,
/// blessing and rendering. Every variant names the file (and line, column) or the spec
/// field at fault and what would be valid.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A file could not be opened or read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file or folder could not be written or created.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A CSV file that cannot be read or does not read as it should: the file, and the
    /// line, column and value at fault ([`CsvError`]).
    #[error(transparent)]
    Table(#[from] CsvError),
    /// Two rows with the same key in a file where keys must be unique.
    #[error("{}:{line}: duplicate row for {key}; the first is at line {first}", path.display())]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second row.
        line: u64,
        /// 1-based line of the first row.
        first: u64,
        /// The key, e.g. `abalone / LPDT-M / ε=2 / depth=2`.
        key: String,
    },
    /// An invalid value in the spec's `reported:`, `claims:` or `golden:` section.
    #[error("spec field `{field}`: {message}")]
    Invalid {
        /// Dotted path of the field, e.g. `reported.tolerance` or `claims[2].at_least`.
        field: String,
        /// What is wrong and what would be valid.
        message: String,
    },
    /// No reported cell names a data set of our results: the names do not match.
    #[error("no data set of the reported files {files} is among our results ({ours}); reported names: {reported}. Check `reported.dataset_names` (abbreviation maps the paper's abbreviations such as ABA through the manifests' `paper.abbreviation`; name uses them as they are)")]
    NoOverlap {
        /// The reported files, comma-separated.
        files: String,
        /// The data set names of the reported files, as written, comma-separated.
        reported: String,
        /// Our data set names, comma-separated.
        ours: String,
    },
    /// A template failed to parse or to render (tera's message with its causes).
    #[error("template `{template}`: {message}")]
    Template {
        /// Template name, e.g. `check.tex.tera`.
        template: String,
        /// tera's error and its causes.
        message: String,
    },
}

pub use crate::report::selected::SelectedRow;

/// One row of `tests.csv`: a one-sided Wilcoxon signed-rank test of `method` against
/// `other` over the paired repetitions of one data set × ε block.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRow {
    /// Data set name (manifest name).
    pub dataset: String,
    /// ε of the block; `None` if the field is empty.
    pub epsilon: Option<f64>,
    /// The method tested.
    pub method: String,
    /// The method it is tested against.
    pub other: String,
    /// `less` (H1: `method`'s metric is lower, for MSE) or `greater` (accuracy).
    pub alternative: String,
    /// Signed-rank statistic; `None` when the test was undefined (empty field).
    pub statistic: Option<f64>,
    /// One-sided p-value; `None` when the test was undefined (empty field).
    pub p_value: Option<f64>,
    /// Number of paired repetitions.
    pub n: usize,
}

/// Reads `selected.csv` ([`crate::report::selected::read_selected`]).
///
/// # Errors
/// [`CheckError::Table`] with the file, line and column of what does not read.
pub fn read_selected(path: &Path) -> Result<Vec<SelectedRow>, CheckError> {
    Ok(crate::report::selected::read_selected(path)?)
}

/// One point of one of our figure curves (a row of `figures/<figure>-<dataset>.csv` with
/// `source` = `ours`).
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// The figure's name.
    pub figure: String,
    /// Data set name.
    pub dataset: String,
    /// Position on the x axis.
    pub x: f64,
    /// The line's legend label.
    pub line: String,
    /// The method label the line draws.
    pub method: String,
    /// ε of the point; `None` for a non-private method.
    pub epsilon: Option<f64>,
    /// Mean test metric over repetitions.
    pub mean: f64,
}

/// Reads our points of every line-figure CSV in `dir` (a results folder's `figures/`;
/// columns of [`crate::report::figure::FIGURE_CSV_HEADER`]); the paper's overlay points
/// (`source` = `paper`) are skipped, and so are the CSVs of the other figure kinds (heat
/// maps, leaf occupancy), told apart by a first line that is not that header. A missing
/// folder reads as no points.
///
/// # Errors
/// As [`read_selected`], for each file.
pub fn read_curve_points(dir: &Path) -> Result<Vec<CurvePoint>, CheckError> {
    let mut out = Vec::new();
    for f in csv_files_with_header(dir, crate::report::figure::FIGURE_CSV_HEADER) {
        let t = CsvTable::read(
            &f,
            &[
                "figure", "dataset", "x", "line", "epsilon", "mean", "source",
            ],
        )?;
        for (line, r) in &t.records {
            let line = *line;
            if t.get(r, "source") != "ours" {
                continue;
            }
            out.push(CurvePoint {
                figure: t.text(line, r, "figure")?,
                dataset: t.text(line, r, "dataset")?,
                x: t.f64(line, r, "x")?,
                line: t.text(line, r, "line")?,
                method: t.text(line, r, "method")?,
                epsilon: t.epsilon(line, r, "epsilon")?,
                mean: t.f64(line, r, "mean")?,
            });
        }
    }
    Ok(out)
}

/// One panel of a leaf-occupancy figure's summary (`figures/<figure>-summary.csv`,
/// [`crate::report::figure::occupancy::SUMMARY_CSV_HEADER`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LeafBalance {
    /// The figure's name.
    pub figure: String,
    /// Data set name.
    pub dataset: String,
    /// The method label of the panel.
    pub method: String,
    /// Leaves per tree.
    pub leaves_per_tree: f64,
    /// Coefficient of variation of the leaf sizes (population sd / mean).
    pub cv: f64,
}

/// Reads every leaf-occupancy summary in `dir` (a results folder's `figures/`): the CSVs
/// whose first line is [`crate::report::figure::occupancy::SUMMARY_CSV_HEADER`]. A
/// missing folder reads as none.
///
/// # Errors
/// As [`read_selected`], for each such file.
pub fn read_leaf_balance(dir: &Path) -> Result<Vec<LeafBalance>, CheckError> {
    let mut out = Vec::new();
    for f in csv_files_with_header(dir, crate::report::figure::occupancy::SUMMARY_CSV_HEADER) {
        let t = CsvTable::read(
            &f,
            &["figure", "dataset", "method", "leaves_per_tree", "cv_rows"],
        )?;
        for (line, r) in &t.records {
            let line = *line;
            out.push(LeafBalance {
                figure: t.text(line, r, "figure")?,
                dataset: t.text(line, r, "dataset")?,
                method: t.text(line, r, "method")?,
                leaves_per_tree: t.f64(line, r, "leaves_per_tree")?,
                cv: t.f64(line, r, "cv_rows")?,
            });
        }
    }
    Ok(out)
}

/// The `.csv` files of `dir` (sorted; none when the folder is missing) whose first line is
/// `header`: the figure folder holds the CSVs of several figure kinds.
fn csv_files_with_header(dir: &Path, header: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv") && first_line(p) == header)
        .collect();
    files.sort();
    files
}

/// The first line of a file without its line end; empty when unreadable.
fn first_line(path: &Path) -> String {
    use std::io::BufRead;
    let mut first = String::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = std::io::BufReader::new(file).read_line(&mut first);
    }
    first.trim_end().to_string()
}

/// Reads `tests.csv` (columns `dataset,epsilon,method,other,alternative,statistic,p_value,n`,
/// in any order; extra columns are ignored). Empty `statistic` / `p_value` (an undefined
/// test) and an empty ε read as `None`.
///
/// # Errors
/// As [`read_selected`]; `alternative` must be `less`, `greater` or `two_sided` /
/// `two-sided`.
pub fn read_tests(path: &Path) -> Result<Vec<TestRow>, CheckError> {
    let t = CsvTable::read(
        path,
        &[
            "dataset",
            "epsilon",
            "method",
            "other",
            "alternative",
            "statistic",
            "p_value",
            "n",
        ],
    )?;
    let mut out = Vec::with_capacity(t.records.len());
    for (line, r) in &t.records {
        let line = *line;
        let alternative = t.get(r, "alternative").to_string();
        if !matches!(
            alternative.as_str(),
            "less" | "greater" | "two_sided" | "two-sided"
        ) {
            return Err(t
                .field_error(
                    line,
                    "alternative",
                    &alternative,
                    "`less`, `greater` or `two_sided`",
                )
                .into());
        }
        out.push(TestRow {
            dataset: t.text(line, r, "dataset")?,
            epsilon: t.epsilon(line, r, "epsilon")?,
            method: t.text(line, r, "method")?,
            other: t.text(line, r, "other")?,
            alternative,
            statistic: t.opt_f64(line, r, "statistic")?,
            p_value: t.opt_f64(line, r, "p_value")?,
            n: t.usize(line, r, "n")?,
        });
    }
    Ok(out)
}

/// The map from the papers' data-set abbreviations (`paper.abbreviation` of the
/// manifests, e.g. `ABA`) to manifest names (`abalone`), as [`compare_reported`] takes it.
/// Every paper a manifest lists counts; manifests without a `paper` section are skipped.
pub fn abbreviation_map<'a>(
    manifests: impl IntoIterator<Item = &'a crate::data::manifest::Manifest>,
) -> HashMap<String, String> {
    manifests
        .into_iter()
        .flat_map(|m| {
            m.paper
                .iter()
                .map(|p| (p.abbreviation.clone(), m.name.clone()))
        })
        .collect()
}

/// Everything `dp-repro check` found: the reported cells, the claims and the golden
/// comparison (`None` when no golden file was compared).
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// One entry per reported cell, in the order of the reported files.
    pub cells: Vec<CellCheck>,
    /// One entry per claim, in spec order.
    pub claims: Vec<ClaimCheck>,
    /// The golden comparison, if any.
    pub golden: Option<GoldenCheck>,
    /// The ε inference per reported table (`reported.epsilon_match`), in file order.
    pub epsilon_matches: Vec<EpsilonMatch>,
    /// The paper's rank sums against ours (`reported.rank_sums`), in file order.
    pub rank_sums: Vec<RankSumCheck>,
    /// The privacy audit the spec's `audit:` section asks for, if any.
    pub audit: Option<audit::AuditCheck>,
    /// ε per fit and ε with tuning of each private method of every table
    /// ([`budget::table_budgets`]; empty when the spec has no table).
    pub budgets: Vec<budget::TableBudget>,
    /// `Some((run, spec))` when the check ran fewer repetitions than the spec's (`check
    /// --reps N`): the verdicts are provisional.
    pub provisional: Option<(usize, usize)>,
    /// Lines stating how the reported values were read (`reported.epsilon_reading`),
    /// printed with the summary.
    pub readings: Vec<String>,
    /// The baselines' absolute metric against another paper's values
    /// ([`anchors::anchor_checks`]).
    pub anchors: Vec<CellCheck>,
    /// Repetitions of the selected cells that look wrong or cannot be right
    /// ([`spread::suspects`]; only the impossible ones are regressions).
    pub suspects: Vec<spread::Suspect>,
    /// The golden comparison was left out of the verdict on purpose (`check
    /// --no-golden`): the report says so rather than "not checked".
    pub golden_left_out: bool,
    /// Error non-increasing in ε: every two consecutive ε of each private method of the
    /// tables on each data set ([`epsilon_orders`]; empty without tables or with one ε).
    pub epsilon_orders: Vec<EpsilonPair>,
}

impl CheckReport {
    /// True when any layer regressed: the paper layer ([`CheckReport::paper_regressed`]),
    /// the golden file ([`CheckReport::golden_regressed`]) or the privacy audit
    /// ([`audit::AuditCheck::regressed`]). `dp-repro check` exits 1 then, 0 otherwise.
    pub fn regressed(&self) -> bool {
        self.paper_regressed() || self.golden_regressed() || self.audit_regressed()
    }

    /// The paper layer regressed: a check that compared nothing, a reported cell, a
    /// claim, an ε inference (a table's or a method's), a rank sum, an impossible repetition or an anchor. It stands apart from
    /// our own blessed numbers, so a damaged run is judged against the paper alone.
    pub fn paper_regressed(&self) -> bool {
        self.compared_nothing()
            || self.cells.iter().any(|c| c.verdict == Verdict::Regression)
            || self.claims.iter().any(|c| c.regressed())
            || self.epsilon_matches.iter().any(|m| m.regressions() > 0)
            || self
                .rank_sums
                .iter()
                .any(|r| r.verdict == Verdict::Regression)
            || self.suspects.iter().any(|x| x.impossible)
            || self
                .epsilon_orders
                .iter()
                .any(|p| p.verdict == Verdict::Regression)
            || self
                .anchors
                .iter()
                .any(|c| c.verdict == Verdict::Regression)
    }

    /// The golden layer regressed: a row changed, is missing or is extra.
    pub fn golden_regressed(&self) -> bool {
        self.golden.as_ref().is_some_and(|g| g.regressed())
    }

    /// The privacy audit found a violation without a known reason.
    pub fn audit_regressed(&self) -> bool {
        self.audit.as_ref().is_some_and(|a| a.regressed())
    }
}

impl CheckReport {
    /// The spec has reported cells but compared none of them (every cell not run or not
    /// available): a check that compares nothing says nothing, so it fails (issue 44).
    pub fn compared_nothing(&self) -> bool {
        !self.cells.is_empty()
            && !self.cells.iter().any(|c| {
                matches!(
                    c.verdict,
                    Verdict::Ok | Verdict::KnownDeviation(_) | Verdict::Regression
                )
            })
    }
}

impl From<crate::spec::FieldError> for CheckError {
    /// A spec section's invalid field, as [`CheckError::Invalid`] (same message).
    fn from(e: crate::spec::FieldError) -> CheckError {
        CheckError::Invalid {
            field: e.field,
            message: e.message,
        }
    }
}

/// ε as the result files write it (shortest round-trip decimal: `0.5`, `2`).
pub(crate) use crate::seeds::epsilon_text as eps_text;
