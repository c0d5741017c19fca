//! A data file's bytes and cells: its sha256, its kind (Parquet or text), CSV opening and
//! cell cleaning, and the table a file loads to ([`Loaded`]). Below every reader of `data/` (CSV,
//! Parquet, encoded files, the cache, `data fetch`) and the pipeline in `load.rs`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::DataError;
use super::missing::MissingPolicy;
use super::{Dataset, Task};

/// How a numeric data file is read: where its label is, whether it has a header row, what
/// its labels must be and what a missing cell does. Every reader of `data/` (the CSV fast
/// path and general reader, Parquet, the encoded loader) takes it; a manifest gives it with
/// [`crate::data::Manifest::format`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileFormat {
    /// 0-based column of the label (in the file; after `encode`, in the encoded table).
    pub label_column: usize,
    /// Whether the first non-empty line is a header row of column names.
    pub has_header: bool,
    /// Regression, or classification: then labels must be integers ≥ 0.
    pub task: Task,
    /// What a missing cell (empty, `?`, `NA`, not finite) does.
    pub missing: MissingPolicy,
}

impl FileFormat {
    /// The label in column `label_column`, no header row, a missing cell an error.
    pub const fn new(label_column: usize, task: Task) -> Self {
        FileFormat {
            label_column,
            has_header: false,
            task,
            missing: MissingPolicy::Error,
        }
    }

    /// The same, with the first non-empty line a header row.
    pub const fn with_header(self) -> Self {
        FileFormat {
            has_header: true,
            ..self
        }
    }

    /// The same, with `missing` as the missing-cell policy.
    pub const fn with_missing(self, missing: MissingPolicy) -> Self {
        FileFormat { missing, ..self }
    }
}

/// sha256 of a file's bytes as 64 lowercase hex digits, read in 1 MiB chunks (the file is
/// never held in memory whole).
///
/// # Errors
/// [`DataError::Io`] naming the path if the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, DataError> {
    let io_err = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_err)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let k = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        };
        hasher.update(&buf[..k]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// sha256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Trims whitespace, then one pair of surrounding quotes (`"` or `'`), then whitespace
/// again.
pub(crate) fn clean_cell(raw: &str) -> &str {
    let s = raw.trim();
    let s = s
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(s);
    s.trim()
}

/// A CSV reader over `path` (flexible row lengths, 1 MiB buffers) and, with `has_header`,
/// the cleaned names of its first line.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be opened, [`DataError::Csv`] for a malformed
/// header line.
pub(crate) fn open_csv(
    path: &Path,
    has_header: bool,
) -> Result<(csv::Reader<io::BufReader<File>>, Option<Vec<String>>), DataError> {
    let file = File::open(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(has_header)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(io::BufReader::with_capacity(1 << 20, file));
    let header = if has_header {
        let h = reader.byte_headers().map_err(|e| csv_error(path, e))?;
        Some(
            h.iter()
                .map(|c| clean_cell(&String::from_utf8_lossy(c)).to_string())
                .collect(),
        )
    } else {
        None
    };
    Ok((reader, header))
}

/// A CSV reader error as a [`DataError`] naming the file and line.
pub(crate) fn csv_error(path: &Path, e: csv::Error) -> DataError {
    let line = e.position().map(|p| p.line());
    match e.into_kind() {
        csv::ErrorKind::Io(source) => DataError::Io {
            path: path.to_path_buf(),
            source,
        },
        kind => DataError::Csv {
            path: path.to_path_buf(),
            line,
            message: format!("{kind:?}"),
        },
    }
}

/// A data set as loaded from its file, with the number of rows dropped for missing values.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The complete rows.
    pub dataset: Dataset,
    /// Data rows of the file left out because they had a missing cell (always 0 under
    /// [`MissingPolicy::Error`](super::MissingPolicy::Error)).
    pub dropped_rows: usize,
}

/// Whether `path` names a Parquet file (extension `parquet`, in any case).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}
