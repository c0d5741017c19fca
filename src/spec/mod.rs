//! Specs: the YAML schema ([`raw`]) and its validation into an [`Experiment`]
//! (DESIGN.md, `spec/`). Parse first, validate second.

pub mod raw;
mod validate;

pub use raw::Spec;
pub use validate::{validate, DataSource, DatasetPlan, Experiment, MethodPlan};

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Everything that can be wrong with a spec.
#[derive(Debug, Error)]
pub enum SpecError {
    /// The file cannot be read.
    #[error("{path}: cannot read the spec: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Malformed YAML or a field of the wrong shape.
    #[error("{path}:{line}:{column}: {message}")]
    Yaml {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A field with an invalid value.
    #[error("{path}: field `{field}`: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
    /// A data set that cannot be found, checked or loaded.
    #[error("{path}: data set `{dataset}`: {source}")]
    Data {
        path: PathBuf,
        dataset: String,
        source: crate::data::DataError,
    },
}

/// Reads and parses a spec file; returns the spec and its text.
///
/// # Errors
/// [`SpecError::Io`], or [`SpecError::Yaml`] with the file, line and column of the problem.
pub fn parse_file(path: &Path) -> Result<(Spec, String), SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let spec = parse_str(&text, path)?;
    Ok((spec, text))
}

/// Parses spec text; `path` is used in error messages only.
pub fn parse_str(text: &str, path: &Path) -> Result<Spec, SpecError> {
    parse_yaml(text, path)
}

/// Parses YAML text into `T`; errors carry `path` and the line and column of the problem.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> Result<T, SpecError> {
    serde_yaml::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        SpecError::Yaml {
            path: path.to_path_buf(),
            line,
            column,
            message: e.to_string(),
        }
    })
}
