//! A validated spec: what [`super::validate`] returns and every later stage (the runner,
//! the reports, `check`) reads. Below the validation of each section, which reads it too.

use super::claims::Claim;
use super::dataset_plan::DatasetPlan;
use super::method_plan::MethodPlan;
use super::raw::{LabelBoundsFrom, Scaling, Selection, Spec};
use super::reported::ReportedSpec;
use crate::data::SplitRatios;
use std::path::PathBuf;

/// A validated spec.
#[derive(Clone)]
pub struct Experiment {
    /// The parsed spec.
    pub spec: Spec,
    /// Path of the spec file.
    pub path: PathBuf,
    /// Data sets.
    pub datasets: Vec<DatasetPlan>,
    /// Split ratios (None when every data set is synthetic).
    pub split: Option<SplitRatios>,
    /// Scaling.
    pub scaling: Scaling,
    /// Label bounds rule.
    pub label_bounds: LabelBoundsFrom,
    /// ε grid.
    pub epsilons: Vec<f64>,
    /// Methods.
    pub methods: Vec<MethodPlan>,
    /// Selection modes, the first one primary.
    pub selection: Vec<Selection>,
    /// Repetitions.
    pub repetitions: usize,
    /// The reported-values section and the folder its file paths are relative to.
    pub reported: Option<(ReportedSpec, PathBuf)>,
    /// The claims.
    pub claims: Vec<Claim>,
}

impl Experiment {
    /// Whether the test metric is an error (lower is better: MSE) rather than an accuracy,
    /// read from the first data set's task (a spec's data sets share one task); true for a
    /// spec without data sets.
    pub fn lower_is_better(&self) -> bool {
        self.datasets
            .first()
            .map(|d| d.task.lower_is_better())
            .unwrap_or(true)
    }
}
