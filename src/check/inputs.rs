//! The result files `check` reads (written by `summary/`): `selected.csv`, `tests.csv`,
//! the figures' curves and leaf balances; and the papers' data-set abbreviations.

use super::{CheckError, CsvTable, SelectedRow};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
