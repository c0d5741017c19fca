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
    use rayon::prelude::*;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header_end = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
    let mut rdr = csv::Reader::from_reader(&bytes[..header_end]);
    let header = rdr
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if header.iter().collect::<Vec<_>>().join(",") != RUNS_HEADER {
        return Err(format!(
            "{}: not a runs.csv of this dp-repro version (header should be `{RUNS_HEADER}`)",
            path.display()
        ));
    }
    let body = &bytes[header_end..];
    // Without quotes every line is one record, so the body can be cut at line ends and
    // the pieces parsed on rayon's threads (in order; the first error is reported with
    // its line). A quoted field may hold a line break: such a file is read in one piece.
    let pieces = if memchr::memchr(b'"', body).is_some() {
        vec![body]
    } else {
        split_at_lines(body, 1 << 20)
    };
    let mut first_line = Vec::with_capacity(pieces.len());
    let mut line = 2;
    for p in &pieces {
        first_line.push(line);
        line += memchr::memchr_iter(b'\n', p).count();
    }
    let parsed: Vec<Result<Vec<RunRow>, String>> = pieces
        .par_iter()
        .zip(first_line.par_iter())
        .map(|(piece, &line)| {
            csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(*piece)
                .deserialize::<RunRow>()
                .enumerate()
                .map(|(i, r)| r.map_err(|e| format!("{}: line {}: {e}", path.display(), line + i)))
                .collect()
        })
        .collect();
    let mut rows = Vec::with_capacity(parsed.iter().map(|p| p.as_ref().map_or(0, Vec::len)).sum());
    for p in parsed {
        rows.extend(p?);
    }
    Ok(rows)
}

/// `bytes` cut into pieces of about `size` bytes, each ending at a line end (the last one
/// at the end of `bytes`).
fn split_at_lines(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut pieces = Vec::new();
    let mut rest = bytes;
    while rest.len() > size {
        match memchr::memchr(b'\n', &rest[size..]) {
            Some(i) => {
                let (piece, tail) = rest.split_at(size + i + 1);
                pieces.push(piece);
                rest = tail;
            }
            None => break,
        }
    }
    if !rest.is_empty() {
        pieces.push(rest);
    }
    pieces
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize) -> RunRow {
        RunRow {
            task: format!("{i:016x}"),
            dataset: "abalone".into(),
            method: "LPDT-M".into(),
            params: format!("depth={};min_leaf=20", i % 7),
            epsilon: (i % 3 != 0).then_some(0.5 * (i % 5) as f64 + 0.5),
            repetition: i % 50 + 1,
            metric: "mse".into(),
            value: i as f64 / 7.0,
            seconds: 1e-4 * i as f64,
        }
    }

    /// A file of several 1 MiB pieces reads back as written, in order, and a malformed
    /// row in a later piece is reported with its own line number.
    #[test]
    fn pieces_read_in_order_and_errors_name_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let rows: Vec<RunRow> = (0..40_000).map(row).collect();
        rewrite_runs(&path, &rows).unwrap();
        assert!(
            std::fs::metadata(&path).unwrap().len() > 3 << 20,
            "several pieces"
        );
        assert_eq!(read_runs(&path).unwrap(), rows);

        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[35_001] = "0,abalone,LPDT-M,depth=1,0.5,1,mse,not-a-number,0.1";
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let err = read_runs(&path).unwrap_err();
        assert!(err.contains("line 35002"), "{err}");

        // A quoted field (here a line break inside one) is read in one piece.
        let mut quoted = rows[..3].to_vec();
        quoted[1].params = "a\nb".into();
        rewrite_runs(&path, &quoted).unwrap();
        assert_eq!(read_runs(&path).unwrap(), quoted);
    }
}
