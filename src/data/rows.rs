//! Rows of cells made into a numeric data set: the label column, missing cells under the
//! manifest's policy, integer class labels, rows as wide as the header. Shared by the general
//! CSV reader (`load.rs`) and the Parquet reader.

use std::path::Path;

use super::error::{ColumnRef, DataError};
use super::file::{FileFormat, Loaded};
use super::missing::{Cell, MissingPolicy};
use super::{Dataset, Matrix, Task};

/// Rows of cells made into n×d features and n labels by the rules of [`load_csv`]: the
/// label in column `label_column`, missing cells by the `missing` policy, classification
/// labels integers ≥ 0, every row as wide as the header (or the first row). Shared by the
/// CSV reader and the Parquet reader ([`super::parquet`]).
pub(crate) struct NumericRows<'a> {
    path: &'a Path,
    header: Option<&'a [String]>,
    label_column: usize,
    task: Task,
    missing: MissingPolicy,
    width: Option<usize>,
    x: Vec<f64>,
    y: Vec<f64>,
    dropped: usize,
    row_values: Vec<f64>,
}

impl<'a> NumericRows<'a> {
    /// No rows yet; with a `header`, rows must be as wide as it (`format.has_header` is the
    /// caller's: it has read the header or not).
    pub(crate) fn new(path: &'a Path, header: Option<&'a [String]>, format: FileFormat) -> Self {
        NumericRows {
            path,
            header,
            label_column: format.label_column,
            task: format.task,
            missing: format.missing,
            width: header.map(|h| h.len()),
            x: Vec::new(),
            y: Vec::new(),
            dropped: 0,
            row_values: Vec::new(),
        }
    }

    /// Reserves room for `rows` more rows of the header's width (nothing without a header).
    pub(crate) fn reserve(&mut self, rows: usize) {
        if let Some(w) = self.width {
            self.x.reserve(rows * w.saturating_sub(1));
            self.y.reserve(rows);
        }
    }

    /// The column `index` (with its header name) for messages.
    fn column(&self, index: usize) -> ColumnRef {
        ColumnRef {
            index,
            name: self.header.and_then(|h| h.get(index).cloned()),
        }
    }

    /// Adds the row of `width` cells on line `line` (1-based, for messages): `cell(k)` is
    /// cell k classified, `text(k)` its text as read (asked for only to name it in an error).
    ///
    /// # Errors
    /// [`DataError::LabelColumnOutOfRange`], [`DataError::Ragged`],
    /// [`DataError::MissingValue`] (under [`MissingPolicy::Error`]),
    /// [`DataError::NonNumeric`], [`DataError::BadClassLabel`].
    pub(crate) fn push(
        &mut self,
        line: u64,
        width: usize,
        cell: impl Fn(usize) -> Cell,
        text: impl Fn(usize) -> String,
    ) -> Result<(), DataError> {
        let path = self.path;
        let label_column = self.label_column;
        let expected = *self.width.get_or_insert(width);
        if label_column >= expected {
            return Err(DataError::LabelColumnOutOfRange {
                path: path.to_path_buf(),
                label_column,
                n_columns: expected,
            });
        }
        if width != expected {
            return Err(DataError::Ragged {
                path: path.to_path_buf(),
                row: line,
                expected,
                found: width,
            });
        }
        self.row_values.clear();
        let mut row_missing = false;
        for k in 0..width {
            match cell(k) {
                Cell::Number(v) => self.row_values.push(v),
                Cell::Missing(kind) => {
                    if self.missing == MissingPolicy::Error {
                        return Err(DataError::MissingValue {
                            path: path.to_path_buf(),
                            row: line,
                            column: self.column(k),
                            kind,
                            value: text(k),
                        });
                    }
                    row_missing = true;
                    self.row_values.push(f64::NAN);
                }
                Cell::Text => {
                    return Err(DataError::NonNumeric {
                        path: path.to_path_buf(),
                        row: line,
                        column: self.column(k),
                        value: text(k),
                    })
                }
            }
        }
        if row_missing {
            self.dropped += 1;
            return Ok(());
        }
        let label = self.row_values[label_column];
        let valid_class = label >= 0.0 && label.fract() == 0.0;
        if self.task == Task::Classification && !valid_class {
            return Err(DataError::BadClassLabel {
                path: path.to_path_buf(),
                row: line,
                column: self.column(label_column),
                value: text(label_column),
            });
        }
        self.y.push(label);
        for (k, &v) in self.row_values.iter().enumerate() {
            if k != label_column {
                self.x.push(v);
            }
        }
        Ok(())
    }

    /// The data set named `name`.
    ///
    /// # Errors
    /// [`DataError::AllRowsDropped`] or [`DataError::Empty`] when no row was kept.
    pub(crate) fn finish(self, name: &str) -> Result<Loaded, DataError> {
        let n = self.y.len();
        if n == 0 && self.dropped > 0 {
            return Err(DataError::AllRowsDropped {
                path: self.path.to_path_buf(),
                rows: self.dropped,
            });
        }
        if n == 0 {
            return Err(DataError::Empty {
                path: self.path.to_path_buf(),
            });
        }
        let d = self.width.unwrap_or(1) - 1;
        Ok(Loaded {
            dataset: Dataset::numeric(name, self.task, Matrix::new(n, d, self.x), self.y),
            dropped_rows: self.dropped,
        })
    }
}
