//! [`Dataset`] (n×d features and n labels) and its [`Task`], which fixes the metric.

use super::Matrix;
use serde::{Deserialize, Serialize};

/// The learning task of a data set, which fixes the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Real-valued labels; metric: test mean squared error (lower is better).
    Regression,
    /// Class labels coded 0, 1, …; metric: test accuracy (higher is better).
    Classification,
}

/// A loaded data set: n×d features `x` and n labels `y`.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Short name used in specs and results (e.g. `abalone`).
    pub name: String,
    /// n×d features, in the file's units until scaled.
    pub x: Matrix,
    /// n labels, in the file's units, or rescaled to [0, 1] at load when the manifest
    /// declares `encode.target` (DiPriMe's regression targets); never scaled later.
    pub y: Vec<f64>,
    /// Regression or classification.
    pub task: Task,
    /// How many of the last rows are public by the data set's definition (a pair's public
    /// data set, the rows a `public_by_rule` makes public): the split ratios divide only
    /// the rows before them. 0 for an ordinary data set and for any selection of rows.
    pub fixed_public: usize,
    /// Indices (0-based, < d) of the features that are categorical codes rather than
    /// numbers, in increasing order; empty when every feature is numeric. Central-DP trees
    /// split them by binary subsets of their categories (DiPriMe card docs/methods/diprime.md §3.5);
    /// every other method reads codes as numbers.
    pub categorical: Vec<usize>,
    /// Indices (0-based, < d, increasing, none of them in `categorical`) of numeric
    /// features that the 5-bin discretisation of DP-RF and DP-DF (method card diprime.md
    /// §4.7) leaves as they are: that discretisation bins feature k iff k is in neither
    /// `categorical` nor `unbinned`. Only Credit Card declares some (PAY_0, PAY_2..PAY_6,
    /// as the authors' notebook did); empty for every other data set. Set from the
    /// manifest's `encode.unbinned`; no other method reads it.
    pub unbinned: Vec<usize>,
    /// The expected leaf occupancy the DiPriMe paper's depth rule uses on this data set
    /// (card docs/methods/diprime.md §5: 25, 10 on Banknote; reported/diprime_datasets.csv
    /// `min_leaf_occupancy`), from the manifest's `leaf_occupancy`; None when not declared.
    /// Read by the forests' `occupancy: dataset`.
    pub leaf_occupancy: Option<usize>,
}

impl Dataset {
    /// A data set named `name` of n×d numeric features `x` and n labels `y`, with no
    /// categorical or unbinned feature, no fixed public rows and no declared leaf occupancy
    /// (synthetic data, plain CSV and Parquet files).
    pub fn numeric(name: &str, task: Task, x: Matrix, y: Vec<f64>) -> Dataset {
        Dataset {
            fixed_public: 0,
            leaf_occupancy: None,
            categorical: Vec::new(),
            unbinned: Vec::new(),
            name: name.to_string(),
            x,
            y,
            task,
        }
    }

    /// The rows at `idx` as a new data set with the same name and task.
    pub fn select(&self, idx: &[usize]) -> Dataset {
        Dataset {
            fixed_public: 0,
            categorical: self.categorical.clone(),
            unbinned: self.unbinned.clone(),
            leaf_occupancy: self.leaf_occupancy,
            name: self.name.clone(),
            x: self.x.select_rows(idx),
            y: idx.iter().map(|&i| self.y[i]).collect(),
            task: self.task,
        }
    }

    /// Number of samples n.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Number of features d.
    pub fn d(&self) -> usize {
        self.x.d
    }
}

impl Task {
    /// Name of the test metric: `mse` for regression, `accuracy` for classification.
    pub fn metric_name(&self) -> &'static str {
        match self {
            Task::Regression => "mse",
            Task::Classification => "accuracy",
        }
    }

    /// Whether a lower metric is better (MSE) or a higher one (accuracy).
    pub fn lower_is_better(&self) -> bool {
        matches!(self, Task::Regression)
    }

    /// The worst possible value of the metric: +∞ for MSE, 0 for accuracy. A missing
    /// result counts as this value in rank sums (`docs/methods/lpct.md` §10.6).
    pub fn worst_value(&self) -> f64 {
        match self {
            Task::Regression => f64::INFINITY,
            Task::Classification => 0.0,
        }
    }

    /// The test metric of predictions `pred` against labels `y` (same length n ≥ 1): the
    /// mean squared error, or the share of predictions equal to the label.
    pub fn score(&self, y: &[f64], pred: &[f64]) -> f64 {
        assert_eq!(y.len(), pred.len());
        let n = y.len() as f64;
        match self {
            Task::Regression => {
                y.iter()
                    .zip(pred)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
                    / n
            }
            Task::Classification => y.iter().zip(pred).filter(|(a, b)| a == b).count() as f64 / n,
        }
    }
}
