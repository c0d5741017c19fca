//! `reported.authors_code`: the authors' own code, run on our splits by
//! `scripts/authors-<paper>.py`, as a third value beside the paper's and ours
//! (docs/check.md, "The authors' code as a third column").

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where the authors' code's values of a reported section are, and how agreement with
/// ours is tested.
///
/// ```yaml
/// authors_code:
///   file: lpdt-authors-code.csv   # relative to this file's folder
///   alpha: 0.01                   # two-sided level of the per-cell test against ours
/// ```
///
/// The file (written by `scripts/authors-<paper>.py`; `#` lines are its provenance)
/// has the columns `dataset, method, epsilon, repetition, grid_point, value, note`: one
/// row per repetition of a cell (our data set name and method label; ε empty for a
/// non-private method; the value of the grid point the authors' code selects), or one row
/// with an empty value and a note for a cell the authors' code cannot run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthorsCode {
    /// The CSV of the authors' code's values, relative to the folder of the file holding
    /// this `reported:` section.
    pub file: PathBuf,
    /// Two-sided level of the Welch test that the authors' code and ours have one mean
    /// (default 0.01; docs/check.md derives it).
    #[serde(default = "default_alpha", skip_serializing_if = "is_default_alpha")]
    pub alpha: f64,
}

fn default_alpha() -> f64 {
    0.01
}

fn is_default_alpha(a: &f64) -> bool {
    *a == default_alpha()
}
