//! The tidy results files: runs.csv (one row per task) and its re-reading.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One row of runs.csv: the test metric of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// Grid point, `name=value;…` in the method's parameter order.
    pub params: String,
    /// ε, or None for non-private methods (an empty cell).
    pub epsilon: Option<f64>,
    /// Repetition, 1-based.
    pub repetition: usize,
    /// Metric name: `mse` or `accuracy`.
    pub metric: String,
    /// Metric value on the test sample.
    pub value: f64,
    /// Wall-clock seconds of the task: its prediction plus its share of the partition.
    pub seconds: f64,
}

/// Reads every row of a runs.csv.
///
/// # Errors
/// A message naming the file and the line of the first malformed row.
pub fn read_runs(path: &Path) -> Result<Vec<RunRow>, String> {
    let mut rdr = csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, r) in rdr.deserialize::<RunRow>().enumerate() {
        rows.push(r.map_err(|e| format!("{}: line {}: {e}", path.display(), i + 2))?);
    }
    Ok(rows)
}
