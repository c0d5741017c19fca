//! `reported.anchors`: a baseline's absolute metric, for tables of ratios to it.

use serde::{Deserialize, Serialize};

use super::Band;

/// A baseline whose absolute metric anchors a table of ratios to it. A table of
/// `MSE / MSE(DT)` (HistOfTree Tables 1 and C.3) cannot see an error shared by every
/// method, the baseline included: the ratios cancel it. Another paper's printed value of
/// the same baseline on the same data sets can: each of its rows naming `method_in_file`
/// is compared with our selected row of `method` (data sets mapped as the reported
/// files'), and ours must lie in `band` (a ratio to the other paper's value: the two
/// papers' protocols differ, so the band is the measured ratio widened by the noise of
/// both means, not 1 ± a guess).
///
/// ```yaml
/// anchors:
///   - method: DT
///     file: lpdt_table2.csv          # relative to the reported section's folder
///     datasets: [FIS, AQU, RED]      # the file's names; default every row of `method_in_file`
///     band: {ratio: [0.83, 1.12]}
///     reason: "LPDT Table 2 prints DT's test MSE on the same files; measured 0.958 to 0.986"
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// Our method label of the baseline (a non-private method, e.g. `DT`).
    pub method: String,
    /// A CSV with columns `dataset`, `method`, `value` (and optionally `epsilon`, whose
    /// rows with an ε are skipped): another paper's printed values.
    pub file: std::path::PathBuf,
    /// The baseline's name in the file (default: `method`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_in_file: Option<String>,
    /// The file's data sets that anchor (as the file names them); `None`: every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasets: Option<Vec<String>>,
    /// Where ours must lie, as a ratio to the other paper's value (or an absolute range).
    pub band: Band,
    /// Why the other paper's value stands for ours, and the gap measured.
    pub reason: String,
}
