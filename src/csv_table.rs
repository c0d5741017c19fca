//! A results or reference CSV file read whole with its header (on the ground floor: `check/`
//! reads every results file through it, `report/` the selection it draws figures from):
//! columns by name, records with their line numbers, and typed fields whose errors name
//! the file, line, column, value and what would be valid.

use csv::StringRecord as Record;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Errors of reading a CSV file: every variant names the file (and line and column).
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// A file could not be opened or read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A malformed CSV record (e.g. a different number of fields than the header).
    #[error("{}:{line}: {message}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// 1-based line of the record (0 when unknown).
        line: u64,
        /// The csv crate's message.
        message: String,
    },
    /// The header lacks a required column.
    #[error("`{}`: no column `{column}` in the header `{header}`; expected the columns {expected}", path.display())]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The missing column.
        column: String,
        /// The header as found, comma-separated.
        header: String,
        /// The required columns, comma-separated.
        expected: String,
    },
    /// A field that does not parse.
    #[error("{}:{line}: column `{column}`: {value:?} is not {expected}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// Column name.
        column: String,
        /// The field as found.
        value: String,
        /// What would be valid, e.g. "a number".
        expected: String,
    },
}

/// A CSV file opened with its header parsed: column positions by name, records with
/// their line numbers.
pub struct CsvTable {
    /// The file.
    pub path: PathBuf,
    /// Column positions by header name.
    pub columns: HashMap<String, usize>,
    /// The records with their 1-based lines.
    pub records: Vec<(u64, csv::StringRecord)>,
}

impl CsvTable {
    /// Reads `path` (header row required, fields trimmed, lines starting with `#` skipped:
    /// a provenance header) and checks that every column of
    /// `required` is in the header.
    pub fn read(path: &Path, required: &[&str]) -> Result<CsvTable, CsvError> {
        let text = std::fs::read(path).map_err(|source| CsvError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .from_reader(text.as_slice());
        let csv_err = |e: csv::Error| CsvError::Csv {
            path: path.to_path_buf(),
            line: e.position().map(|p| p.line()).unwrap_or(0),
            message: e.to_string(),
        };
        let header = rdr.headers().map_err(csv_err)?.clone();
        let columns: HashMap<String, usize> = header
            .iter()
            .enumerate()
            .map(|(i, h)| (h.to_string(), i))
            .collect();
        for c in required {
            if !columns.contains_key(*c) {
                return Err(CsvError::MissingColumn {
                    path: path.to_path_buf(),
                    column: c.to_string(),
                    header: header.iter().collect::<Vec<_>>().join(","),
                    expected: required.join(","),
                });
            }
        }
        let mut records = Vec::new();
        for r in rdr.records() {
            let r = r.map_err(csv_err)?;
            let line = r.position().map(|p| p.line()).unwrap_or(0);
            records.push((line, r));
        }
        Ok(CsvTable {
            path: path.to_path_buf(),
            columns,
            records,
        })
    }

    /// The field of column `col` (which must have been required) in `rec`.
    pub fn get<'r>(&self, rec: &'r csv::StringRecord, col: &str) -> &'r str {
        self.columns
            .get(col)
            .and_then(|&i| rec.get(i))
            .unwrap_or("")
    }

    /// The error of field `value` of column `col` at `line`, which is not `expected`.
    pub fn field_error(&self, line: u64, col: &str, value: &str, expected: &str) -> CsvError {
        CsvError::Field {
            path: self.path.clone(),
            line,
            column: col.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// The field of column `col` in `rec` (at `line`) read by `parse`, or an error naming
    /// the file, line, column, value and what was `expected`.
    fn field<T>(
        &self,
        (line, rec, col): (u64, &Record, &str),
        expected: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, CsvError> {
        let v = self.get(rec, col);
        parse(v).ok_or_else(|| self.field_error(line, col, v, expected))
    }

    /// A float field (`NaN`, `inf` accepted).
    pub fn f64(&self, line: u64, rec: &Record, col: &str) -> Result<f64, CsvError> {
        self.field((line, rec, col), "a number", |v| v.parse().ok())
    }

    /// A float field that may be empty (`None`).
    pub fn opt_f64(&self, line: u64, rec: &Record, col: &str) -> Result<Option<f64>, CsvError> {
        self.field((line, rec, col), "a number or empty", |v| match v {
            "" => Some(None),
            _ => v.parse().ok().map(Some),
        })
    }

    /// An ε field: empty (`None`, non-private) or a positive finite number.
    pub fn epsilon(&self, line: u64, rec: &Record, col: &str) -> Result<Option<f64>, CsvError> {
        let expected = "a positive number (ε), or empty for a non-private method";
        self.field((line, rec, col), expected, |v| match v {
            "" => Some(None),
            _ => v
                .parse::<f64>()
                .ok()
                .filter(|e| e.is_finite() && *e > 0.0)
                .map(Some),
        })
    }

    /// A non-negative integer field.
    pub fn usize(&self, line: u64, rec: &Record, col: &str) -> Result<usize, CsvError> {
        self.field((line, rec, col), "a non-negative integer", |v| {
            v.parse().ok()
        })
    }

    /// A non-empty text field.
    pub fn text(&self, line: u64, rec: &Record, col: &str) -> Result<String, CsvError> {
        self.field((line, rec, col), "a non-empty name", |v| {
            (!v.is_empty()).then(|| v.to_string())
        })
    }
}
