//! Errors of the data layer: manifests (`datasets/*.yaml`), data files, checksums and
//! CSV parsing. Every message names the file and, where it applies, the line, row,
//! column or field, and says what would be valid (docs/architecture.md, "Conventions").

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use super::missing::MissingKind;

/// Name of the environment variable holding the folder of data files (`--data-dir`
/// takes precedence over it).
pub const DATA_DIR_ENV: &str = "DP_REPRO_DATA";

/// A column of a CSV file: its 0-based index and, when the file has a header row, its
/// name. Displays as `column 3 ("Temperature")` or `column 3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    /// 0-based column index in the file (the label column counts).
    pub index: usize,
    /// Header name of the column, when the file has a header row.
    pub name: Option<String>,
}

impl fmt::Display for ColumnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "column {} ({:?})", self.index, name),
            None => write!(f, "column {}", self.index),
        }
    }
}

/// Formats a list of names for error messages.
fn names(list: &[String]) -> String {
    if list.is_empty() {
        "(none)".to_string()
    } else {
        list.join(", ")
    }
}

/// Formats a list of folders for error messages.
fn dirs(list: &[PathBuf]) -> String {
    if list.is_empty() {
        "(none)".to_string()
    } else {
        list.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Describes a missing cell for [`DataError::MissingValue`].
fn missing_what(kind: &MissingKind, value: &str) -> String {
    match kind {
        MissingKind::Empty => "empty cell (a missing value)".to_string(),
        MissingKind::Marker => format!("{value:?} marks a missing value"),
        MissingKind::NotFinite => format!("{value:?} is not a finite number"),
    }
}

/// Everything that can go wrong while finding a manifest, checking a data file and
/// loading it into a [`Dataset`](crate::data::Dataset).
#[derive(Debug, Error)]
pub enum DataError {
    /// A file or folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A manifest is empty, not valid YAML, or does not fit the manifest schema (unknown
    /// or missing field, wrong type). `line`/`column` are 1-based when known; `message` is
    /// in plain words, as a spec's (see [`crate::yaml_error::explain`]).
    #[error(
        "{}: {}{message} (in a data-set manifest; docs/data.md, \"Manifests\", lists its fields)",
        path.display(),
        crate::yaml_error::position(line.unwrap_or(0), column.unwrap_or(0))
    )]
    ManifestYaml {
        /// The manifest file.
        path: PathBuf,
        /// 1-based line of the error, when known.
        line: Option<usize>,
        /// 1-based column of the error, when known.
        column: Option<usize>,
        /// What the YAML parser reported, without its own location suffix.
        message: String,
    },

    /// A manifest parses but one of its fields has an invalid value.
    #[error("{}: field `{field}`: {message}", path.display())]
    ManifestField {
        /// The manifest file.
        path: PathBuf,
        /// The offending field.
        field: String,
        /// What is wrong and what would be valid.
        message: String,
    },

    /// No manifest `<name>.yaml` exists in the manifest folders.
    #[error(
        "unknown data set `{name}`{}: no {name}.yaml in {}; valid names: {}",
        crate::suggest::did_you_mean(name, valid.iter().map(String::as_str)),
        dirs(searched),
        names(valid)
    )]
    UnknownDataset {
        /// The requested name.
        name: String,
        /// The folders searched, in order.
        searched: Vec<PathBuf>,
        /// The data-set names found there, sorted.
        valid: Vec<String>,
    },

    /// An error with a hint at its likely cause (see [`crate::data::hints`]).
    #[error("{error}; {hint}")]
    Hinted {
        /// The error.
        error: Box<DataError>,
        /// The likely cause and its fix.
        hint: String,
    },

    /// No manifest at all in the manifest folders (`data list`, `data fetch`, `list
    /// datasets`).
    #[error(
        "no manifests (*.yaml) in {}{}; pass --manifests DIR with the folder of data set manifests (the crate's datasets/ by default)",
        dirs(searched),
        if searched.iter().any(|d| !d.is_dir()) { " (not a folder)" } else { "" }
    )]
    NoManifests {
        /// The folders searched, in order.
        searched: Vec<PathBuf>,
    },

    /// No folder of data files was given, and there is no per-user data folder (no home
    /// folder).
    #[error(
        "no data folder for data set `{name}` (file {file}): pass --data-dir DIR or set \
         {DATA_DIR_ENV}=DIR to the folder holding the data files (`dp-repro data fetch --to \
         DIR` downloads them)"
    )]
    NoDataDir {
        /// The data set's name.
        name: String,
        /// The data file expected in that folder.
        file: String,
    },

    /// The data file named by a manifest does not exist.
    #[error(
        "data file {} for data set `{name}` not found (expected sha256 {expected_sha256}); \
         pass --data-dir DIR or set {DATA_DIR_ENV}=DIR to the folder holding {}, or download \
         it into {} with `dp-repro data fetch {name} --to {}`",
        path.display(),
        path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        path.parent().map(|p| p.display().to_string()).unwrap_or_default(),
        path.parent().map(|p| p.display().to_string()).unwrap_or_default()
    )]
    MissingFile {
        /// The data set's name.
        name: String,
        /// Full path that was looked for.
        path: PathBuf,
        /// sha256 the manifest expects.
        expected_sha256: String,
    },

    /// The data file's sha256 differs from the manifest's.
    #[error(
        "sha256 mismatch for {}: expected {expected}, found {actual}; the file is not the one \
         the manifest describes: point --data-dir or {DATA_DIR_ENV} at the original data \
         files, or fix the manifest",
        path.display()
    )]
    ChecksumMismatch {
        /// The data file.
        path: PathBuf,
        /// sha256 in the manifest (lowercase hex).
        expected: String,
        /// sha256 of the file's bytes (lowercase hex).
        actual: String,
    },

    /// A cell is text that is neither a number nor a missing value. `row` is the 1-based
    /// line number in the file.
    #[error(
        "{}: line {row}, {column}: {value:?} is not a number (every cell must parse as a \
         decimal number such as 1, -0.5 or 2.3e-4)",
        path.display()
    )]
    NonNumeric {
        /// The data file.
        path: PathBuf,
        /// 1-based line number in the file.
        row: u64,
        /// The column (0-based index, and header name if any).
        column: ColumnRef,
        /// The offending cell, as read.
        value: String,
    },

    /// A cell is missing — empty, a marker (`?`, `NA`) or not finite (NaN, inf) — and the
    /// data set's `missing` policy is `error`. `row` is the 1-based line number in the file.
    #[error(
        "{}: line {row}, {column}: {}; every cell must be a finite number. To drop the rows \
         that have a missing value (an empty cell, NaN, inf, `?` or `NA`) and count them in \
         run.json, add `missing: drop_rows` to the data set (its manifest in datasets/ or its \
         entry in the spec)",
        path.display(),
        missing_what(kind, value)
    )]
    MissingValue {
        /// The data file.
        path: PathBuf,
        /// 1-based line number in the file.
        row: u64,
        /// The column (0-based index, and header name if any).
        column: ColumnRef,
        /// Why the cell is missing.
        kind: MissingKind,
        /// The offending cell, as read.
        value: String,
    },

    /// Under `missing: drop_rows`, every data row had a missing value.
    #[error(
        "{}: all {rows} data rows have a missing value, so `missing: drop_rows` leaves none \
         (a data set needs at least one complete row)",
        path.display()
    )]
    AllRowsDropped {
        /// The data file.
        path: PathBuf,
        /// Number of data rows in the file.
        rows: usize,
    },

    /// A row has a different number of cells from the first row.
    #[error(
        "{}: line {row} has {found} cells, but the first row has {expected}; every row must \
         have the same number of comma-separated cells",
        path.display()
    )]
    Ragged {
        /// The data file.
        path: PathBuf,
        /// 1-based line number in the file.
        row: u64,
        /// Number of cells of the first row (or header).
        expected: usize,
        /// Number of cells of this row.
        found: usize,
    },

    /// A classification label is not an integer ≥ 0.
    #[error(
        "{}: line {row}, {column}: class label {value:?} is not valid (classification labels \
         must be integers 0, 1, 2, …)",
        path.display()
    )]
    BadClassLabel {
        /// The data file.
        path: PathBuf,
        /// 1-based line number in the file.
        row: u64,
        /// The label column.
        column: ColumnRef,
        /// The offending cell, as read.
        value: String,
    },

    /// The label column does not exist in the file.
    #[error(
        "{}: label_column {label_column} is out of range: the file has {n_columns} columns \
         (valid: 0..={})",
        path.display(),
        n_columns.saturating_sub(1)
    )]
    LabelColumnOutOfRange {
        /// The data file.
        path: PathBuf,
        /// The requested label column (0-based).
        label_column: usize,
        /// Number of columns in the file.
        n_columns: usize,
    },

    /// A manifest's `encode` rules do not fit the file (an unknown column name, a column
    /// named twice, a value no mapping covers); the message names the field and what is valid.
    #[error("{}: {message}", path.display())]
    Encoding {
        /// The data file.
        path: PathBuf,
        /// What does not fit, naming the `encode` field.
        message: String,
    },

    /// A Parquet file that cannot be read, or has a column that is neither a number nor
    /// text (the message names it and what to do).
    #[error("{}: {message}", path.display())]
    Parquet {
        /// The data file.
        path: PathBuf,
        /// What is wrong and what would be valid.
        message: String,
    },

    /// The file has no data rows.
    #[error("{}: no data rows (a data file needs at least one row)", path.display())]
    Empty {
        /// The data file.
        path: PathBuf,
    },

    /// The CSV reader failed (for example on malformed quoting).
    #[error("{}{}: malformed CSV: {message}", path.display(), line.map(|l| format!(": line {l}")).unwrap_or_default())]
    Csv {
        /// The data file.
        path: PathBuf,
        /// 1-based line number, when known.
        line: Option<u64>,
        /// What the CSV reader reported.
        message: String,
    },

    /// The loaded data do not have the shape the manifest declares (`n_rows` counts the
    /// data rows in the file, rows dropped for missing values included).
    #[error(
        "{}: data set `{name}` has {field} = {found}, but its manifest says {expected}; the \
         file or the manifest's `{field}` is wrong",
        path.display()
    )]
    ShapeMismatch {
        /// The data set's name.
        name: String,
        /// The data file.
        path: PathBuf,
        /// `n_rows` or `n_features`.
        field: &'static str,
        /// Value in the manifest.
        expected: usize,
        /// Value found in the file.
        found: usize,
    },
}
