//! One row of runs.csv, the tidy record of one task that every later step reads (the
//! summaries of `run/`, the figures of `report/`): on the ground floor, below both, while
//! `run/results.rs` writes and reads the file.

use serde::{Deserialize, Serialize};

/// The header of runs.csv.
pub const RUNS_HEADER: &str = "task,dataset,method,params,epsilon,repetition,metric,value,seconds";

/// One row of runs.csv: the test metric of one task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// Task key (see `run::keys::task_key`): resume and merge identify rows by it.
    pub task: String,
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
    /// Wall-clock seconds of one fit + predict of this row's configuration (LPCT paper
    /// Table 3, docs/methods/lpct.md §10.8): the fit on the repetition's training data (the partition,
    /// shared by the rows of one structural grid point, counted in full in each row) plus
    /// this row's privatization and prediction. Rows therefore do not sum to the run's
    /// compute time; fits for cross-validation folds or private validation are not counted.
    pub seconds: f64,
}
