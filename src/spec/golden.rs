//! The spec's `golden:` section: which blessed `summary.csv` a check compares ours with,
//! and how closely (`dp-repro check`, `check/golden.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::FieldError;

/// The spec's `golden:` section.
///
/// ```yaml
/// golden:
///   file: golden/ci-summary.csv    # relative to the spec's folder
///   relative_tolerance: 0          # default 0: bit-exact
///   rows: summary                  # default: every grid point; `selected`: the tables' rows
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoldenSpec {
    /// The blessed `summary.csv`, relative to the folder of the spec file.
    pub file: PathBuf,
    /// Relative tolerance on mean, std and median, a fraction: `|new − old| ≤ tol ×
    /// |old|`. 0 (the default) compares exactly.
    #[serde(default)]
    pub relative_tolerance: f64,
    /// Which rows are blessed and compared: `summary` (every grid point, `summary.csv`;
    /// the default) or `selected` (the selected grid point of every data set × method × ε,
    /// `selected.csv`: the rows the tables print). A full table spec of millions of tasks
    /// blesses its selected rows: a summary of 100,000 grid points would weigh tens of MB
    /// in the repository, and any move of a table's number shows in them all the same.
    #[serde(default)]
    pub rows: GoldenRows,
}

/// The rows a golden file holds ([`GoldenSpec::rows`]).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum GoldenRows {
    /// Every grid point (`summary.csv`).
    #[default]
    Summary,
    /// The selected grid point of every data set × method × ε (`selected.csv`).
    Selected,
}

impl GoldenRows {
    /// The results file these rows are read from: `summary.csv` or `selected.csv`.
    pub fn file_name(self) -> &'static str {
        match self {
            GoldenRows::Summary => "summary.csv",
            GoldenRows::Selected => "selected.csv",
        }
    }
}

impl GoldenSpec {
    /// The golden file's path: `file` joined to the spec's folder.
    pub fn path(&self, spec_dir: &Path) -> PathBuf {
        spec_dir.join(&self.file)
    }

    /// Checks that `file` is not empty and `relative_tolerance` is finite and ≥ 0.
    ///
    /// # Errors
    /// [`FieldError`] naming `golden.file` or `golden.relative_tolerance`.
    pub fn validate(&self) -> Result<(), FieldError> {
        if self.file.as_os_str().is_empty() {
            return Err(FieldError {
                field: "golden.file".into(),
                message: "is empty; give the blessed summary.csv, relative to the spec".into(),
            });
        }
        validate_tolerance(self.relative_tolerance)
    }
}

/// Checks a golden relative tolerance: finite and ≥ 0.
///
/// # Errors
/// [`FieldError`] naming `golden.relative_tolerance`.
pub fn validate_tolerance(t: f64) -> Result<(), FieldError> {
    if t.is_finite() && t >= 0.0 {
        Ok(())
    } else {
        Err(FieldError {
            field: "golden.relative_tolerance".into(),
            message: format!("{t} is not a finite number ≥ 0 (0 compares exactly)"),
        })
    }
}
