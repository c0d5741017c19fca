//! The errors of `dp-repro check`: reading result files, validating the check sections of
//! a spec, comparing, blessing and rendering.

use super::CsvError;
use std::path::PathBuf;

/// Errors of reading result files, validating the check sections of a spec, comparing,
/// blessing and rendering. Every variant names the file (and line, column) or the spec
/// field at fault and what would be valid.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A file could not be opened or read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file or folder could not be written or created.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A CSV file that cannot be read or does not read as it should: the file, and the
    /// line, column and value at fault ([`CsvError`]).
    #[error(transparent)]
    Table(#[from] CsvError),
    /// Two rows with the same key in a file where keys must be unique.
    #[error("{}:{line}: duplicate row for {key}; the first is at line {first}", path.display())]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second row.
        line: u64,
        /// 1-based line of the first row.
        first: u64,
        /// The key, e.g. `abalone / LPDT-M / ε=2 / depth=2`.
        key: String,
    },
    /// An invalid value in the spec's `reported:`, `claims:` or `golden:` section.
    #[error("spec field `{field}`: {message}")]
    Invalid {
        /// Dotted path of the field, e.g. `reported.tolerance` or `claims[2].at_least`.
        field: String,
        /// What is wrong and what would be valid.
        message: String,
    },
    /// No reported cell names a data set of our results: the names do not match.
    #[error("no data set of the reported files {files} is among our results ({ours}); reported names: {reported}. Check `reported.dataset_names` (abbreviation maps the paper's abbreviations such as ABA through the manifests' `paper.abbreviation`; name uses them as they are)")]
    NoOverlap {
        /// The reported files, comma-separated.
        files: String,
        /// The data set names of the reported files, as written, comma-separated.
        reported: String,
        /// Our data set names, comma-separated.
        ours: String,
    },
    /// A template failed to parse or to render (tera's message with its causes).
    #[error("template `{template}`: {message}")]
    Template {
        /// Template name, e.g. `check.tex.tera`.
        template: String,
        /// tera's error and its causes.
        message: String,
    },
}

impl From<crate::spec::FieldError> for CheckError {
    /// A spec section's invalid field, as [`CheckError::Invalid`] (same message).
    fn from(e: crate::spec::FieldError) -> CheckError {
        CheckError::Invalid {
            field: e.field,
            message: e.message,
        }
    }
}
