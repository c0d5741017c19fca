//! The repetitions behind each selected cell: the per-repetition test metric of every row
//! of `selected.csv`, read back from `runs.csv`. The checks that must see
//! through a mean (suspect repetitions, a spread a damaged repetition cannot widen, error
//! non-increasing in ε on paired repetitions) read them here.

use std::collections::HashMap;
use std::path::Path;

use super::{eps_text, CheckError, SelectedRow};
use crate::run_row::RunRow;

/// One repetition of one selected cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Repetition {
    /// Repetition number, 1-based (the data split and the noise streams of the run).
    pub repetition: usize,
    /// The test metric (MSE or accuracy, as `runs.csv` has it).
    pub value: f64,
    /// The task key of the row in `runs.csv` (`run::keys::task_key`).
    pub task: String,
}

/// The repetitions of every selected cell, keyed by data set, method, ε and grid point.
#[derive(Debug, Clone, Default)]
pub struct Repetitions {
    cells: HashMap<CellKey, Vec<Repetition>>,
}

/// `(dataset, method, ε as written, params)`.
type CellKey = (String, String, String, String);

fn key(dataset: &str, method: &str, epsilon: Option<f64>, params: &str) -> CellKey {
    (
        dataset.to_string(),
        method.to_string(),
        epsilon.map(eps_text).unwrap_or_default(),
        params.to_string(),
    )
}

impl Repetitions {
    /// Reads the rows of `runs_csv` that belong to a row of `selected` (same data set,
    /// method, ε and grid point), each cell's repetitions in repetition order.
    ///
    /// # Errors
    /// [`CheckError::Invalid`] naming the file and line when `runs.csv` does not read (see
    /// [`crate::run::read_runs`]).
    pub fn read(runs_csv: &Path, selected: &[SelectedRow]) -> Result<Self, CheckError> {
        let runs = crate::run::read_runs(runs_csv).map_err(|message| CheckError::Invalid {
            field: "runs.csv".into(),
            message,
        })?;
        Ok(Self::from_runs(runs, selected))
    }

    /// As [`Repetitions::read`], from rows of `runs.csv` already read.
    pub fn from_runs(runs: impl IntoIterator<Item = RunRow>, selected: &[SelectedRow]) -> Self {
        let mut cells: HashMap<CellKey, Vec<Repetition>> = selected
            .iter()
            .map(|s| (key(&s.dataset, &s.method, s.epsilon, &s.params), Vec::new()))
            .collect();
        for r in runs {
            if let Some(reps) = cells.get_mut(&key(&r.dataset, &r.method, r.epsilon, &r.params)) {
                reps.push(Repetition {
                    repetition: r.repetition,
                    value: r.value,
                    task: r.task,
                });
            }
        }
        for reps in cells.values_mut() {
            reps.sort_by_key(|r| r.repetition);
        }
        Repetitions { cells }
    }

    /// The repetitions of a selected cell (empty when `runs.csv` has none of them).
    pub fn of(&self, row: &SelectedRow) -> &[Repetition] {
        self.cells
            .get(&key(&row.dataset, &row.method, row.epsilon, &row.params))
            .map_or(&[], Vec::as_slice)
    }
}
