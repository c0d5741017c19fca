//! `selected.csv`, the selected grid point of every data set × method × ε with the summary
//! of its test metric (written by `run/`): its row and its one reader, which the figures
//! draw from and `check` compares with the papers.

use crate::csv_table::{CsvError, CsvTable};
use std::path::Path;

/// One row of `selected.csv`: the selected grid point of one data set × method × ε, with
/// the summary of its test metric over repetitions (units of the metric: MSE or
/// accuracy).
#[derive(Debug, Clone, PartialEq)]
pub struct SelectedRow {
    /// Data set name as in the spec and results (manifest name, e.g. `abalone`).
    pub dataset: String,
    /// Method label (column name), e.g. `LPDT-M`.
    pub method: String,
    /// Privacy budget ε; `None` for non-private methods (empty field), e.g. DT.
    pub epsilon: Option<f64>,
    /// Mean of the test metric over repetitions.
    pub mean: f64,
    /// Sample standard deviation over repetitions (n − 1 denominator).
    pub std: f64,
    /// Median over repetitions.
    pub median: f64,
    /// Number of repetitions.
    pub reps: usize,
    /// Selected grid point, `name=value;name=value`.
    pub params: String,
}

impl SelectedRow {
    /// Standard error of the mean, `std / √reps` (NaN when `reps` = 0).
    pub fn std_error(&self) -> f64 {
        if self.reps == 0 {
            f64::NAN
        } else {
            self.std / (self.reps as f64).sqrt()
        }
    }
}

/// Reads `selected.csv` (columns `dataset,method,epsilon,mean,std,median,reps,params`, in
/// any order; extra columns are ignored).
///
/// # Errors
/// [`CsvError::Read`] if the file cannot be read, [`CsvError::MissingColumn`] for a header
/// without a required column, [`CsvError::Csv`] for a malformed record and
/// [`CsvError::Field`] for an empty name, an ε that is not empty or a positive number, a
/// non-numeric statistic or a non-integer `reps` (each with file and line).
pub fn read_selected(path: &Path) -> Result<Vec<SelectedRow>, CsvError> {
    let t = CsvTable::read(
        path,
        &[
            "dataset", "method", "epsilon", "mean", "std", "median", "reps", "params",
        ],
    )?;
    let mut out = Vec::with_capacity(t.records.len());
    for (line, r) in &t.records {
        let line = *line;
        out.push(SelectedRow {
            dataset: t.text(line, r, "dataset")?,
            method: t.text(line, r, "method")?,
            epsilon: t.epsilon(line, r, "epsilon")?,
            mean: t.f64(line, r, "mean")?,
            std: t.f64(line, r, "std")?,
            median: t.f64(line, r, "median")?,
            reps: t.usize(line, r, "reps")?,
            params: t.get(r, "params").to_string(),
        });
    }
    Ok(out)
}
