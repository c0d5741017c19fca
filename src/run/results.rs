//! The tidy results files: runs.csv (one row per task) and its re-reading.

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// The header of runs.csv.
pub const RUNS_HEADER: &str = "task,dataset,method,params,epsilon,repetition,metric,value,seconds";

/// One row of runs.csv: the test metric of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Table 3, lpct.md §10.8): the fit on the repetition's training data (the partition,
    /// shared by the rows of one structural grid point, counted in full in each row) plus
    /// this row's privatization and prediction. Rows therefore do not sum to the run's
    /// compute time; fits for cross-validation folds or private validation are not counted.
    pub seconds: f64,
}

/// Reads every row of a runs.csv.
///
/// # Errors
/// A message naming the file and the line of the first malformed row, or a header that
/// is not [`RUNS_HEADER`].
pub fn read_runs(path: &Path) -> Result<Vec<RunRow>, String> {
    let mut rdr = csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header = rdr
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if header.iter().collect::<Vec<_>>().join(",") != RUNS_HEADER {
        return Err(format!(
            "{}: not a runs.csv of this dp-repro version (header should be `{RUNS_HEADER}`)",
            path.display()
        ));
    }
    let mut rows = Vec::new();
    for (i, r) in rdr.deserialize::<RunRow>().enumerate() {
        rows.push(r.map_err(|e| format!("{}: line {}: {e}", path.display(), i + 2))?);
    }
    Ok(rows)
}

/// Writes `rows` as the whole of runs.csv at `path` (through a temporary file renamed over
/// it, so an interruption leaves the old file).
///
/// # Errors
/// I/O errors, naming the file.
pub fn rewrite_runs(path: &Path, rows: &[RunRow]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let tmp = path.with_extension("csv.tmp");
    {
        let mut file = File::create(&tmp).map_err(|e| err(&e))?;
        writeln!(file, "{RUNS_HEADER}").map_err(|e| err(&e))?;
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(file);
        for r in rows {
            w.serialize(r).map_err(|e| err(&e))?;
        }
        w.flush().map_err(|e| err(&e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| err(&e))
}

/// Opens runs.csv for appending, creating it with its header when absent. A last line
/// without its newline — what a crash while writing leaves — is cut off first. Returns the
/// rows already there and the number of bytes cut.
///
/// # Errors
/// I/O errors and malformed rows, naming the file.
pub fn open_for_append(path: &Path) -> Result<(Vec<RunRow>, u64, csv::Writer<File>), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut cut = 0;
    let existing = if path.exists() {
        let bytes = std::fs::read(path).map_err(err)?;
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if keep < bytes.len() {
            cut = (bytes.len() - keep) as u64;
            OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(err)?
                .set_len(keep as u64)
                .map_err(err)?;
        }
        keep > 0
    } else {
        false
    };
    let rows = if existing {
        read_runs(path)?
    } else {
        Vec::new()
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    if !existing {
        writeln!(file, "{RUNS_HEADER}").map_err(err)?;
    }
    let writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(file);
    Ok((rows, cut, writer))
}
