//! Specs: the YAML schema ([`raw`]) and its validation into an [`Experiment`]
//! (docs/architecture.md, `spec/`). Parse first, validate second.

pub mod audit;
pub use crate::yaml_error::brackets;
pub mod claims;
mod dataset_plan;
pub use crate::yaml_error::duplicates;
mod experiment;
pub mod figures;
pub mod golden;
mod method_plan;
mod occupancy;
pub mod raw;
pub mod reported;
pub mod resolve;
pub mod schema;
pub mod tables;
mod validate;
pub use crate::yaml_error as yaml;

pub use dataset_plan::{check_split_rows, DataSource, DatasetPlan};
pub use experiment::Experiment;
pub use method_plan::MethodPlan;
pub use raw::Spec;
pub use resolve::{resolve, ResolvedSpec};
pub use validate::validate;

use std::path::{Path, PathBuf};
use thiserror::Error;

/// An invalid value in one of a spec's sections (`reported:`, `claims:`, `golden:`,
/// `figures:`), found by that section's own `validate`; `field` is the dotted path of the
/// field, e.g. `reported.tolerance` or `claims[2].at_least`. The spec's validation reports
/// it as [`SpecError::Invalid`], `dp-repro check` as its `CheckError::Invalid` and the
/// figures as their `FigureError::Invalid`, each with this field and message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("spec field `{field}`: {message}")]
pub struct FieldError {
    /// Dotted path of the field.
    pub field: String,
    /// What is wrong and what would be valid.
    pub message: String,
}

/// Everything that can be wrong with a spec.
#[derive(Debug, Error)]
pub enum SpecError {
    /// The file cannot be read.
    #[error("{path}: cannot read the spec: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file with no YAML content (empty, or only blank lines and comments).
    #[error("{path}: the file is empty (no YAML content, only blank lines or comments)")]
    Empty { path: PathBuf },
    /// Malformed YAML or a field of the wrong shape; `message` is in plain words (see
    /// [`yaml::explain`]) and does not repeat the position.
    #[error("{}: {}{message}", path.display(), position(*line, *column))]
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

pub(crate) use crate::yaml_error::position;

/// Reads and parses a spec file; returns the spec and its text.
///
/// # Errors
/// [`SpecError::Io`], or [`SpecError::Yaml`] with the file, line and column of the problem.
pub fn parse_file(path: &Path) -> Result<(Spec, String), SpecError> {
    let text = read_text(path)?;
    let spec = parse_str(&text, path)?;
    Ok((spec, text))
}

/// The text of the spec (or method) file at `path`.
///
/// # Errors
/// [`SpecError::Io`] naming the file: unreadable, or not text (not valid UTF-8: said in
/// those words, the bytes not dumped).
pub fn read_text(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source: if source.kind() == std::io::ErrorKind::InvalidData {
            std::io::Error::new(
                source.kind(),
                "it is not a text file (not valid UTF-8): a spec is a YAML text file",
            )
        } else {
            source
        },
    })
}

/// Parses spec text; `path` is used in error messages only.
pub fn parse_str(text: &str, path: &Path) -> Result<Spec, SpecError> {
    parse_yaml(text, path)
}

/// Parses YAML text into `T` (a spec, a section file, a method preset).
///
/// # Errors
/// [`SpecError::Empty`] for a file without YAML content; [`SpecError::Yaml`] with `path`,
/// the line and column of the problem and a message in plain words ([`yaml::explain`]:
/// a tab is called a tab, an indentation mistake names the block it breaks).
pub fn parse_yaml<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> Result<T, SpecError> {
    if yaml::is_blank(text) {
        return Err(SpecError::Empty {
            path: path.to_path_buf(),
        });
    }
    let error = |e: serde_yaml::Error| {
        let (line, column, message) = yaml::explain(&e, text);
        SpecError::Yaml {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    };
    let value = serde_yaml::from_str(text).map_err(error)?;
    // serde fills a map field (a method's `grid`) from the last of two equal keys without
    // a word; the plain YAML value refuses them.
    match serde_yaml::from_str::<serde_yaml::Value>(text) {
        Err(e) if duplicates::duplicated_key(&e.to_string()).is_some() => Err(error(e)),
        _ => Ok(value),
    }
}

/// Why a method label or data set name would break the CSV outputs (runs, summary,
/// selected, tests and check .csv), which write it as an unquoted field: it holds a comma,
/// a double quote or a line break. `None` when it is safe.
fn csv_unsafe(what: &str, text: &str) -> Option<String> {
    let bad = text
        .chars()
        .find(|c| matches!(c, ',' | '"' | '\n' | '\r'))?;
    Some(format!(
        "{what} `{text}` contains {bad:?}, which would split its column in runs.csv and the other CSV outputs; use another character (e.g. `;` or `/`)"
    ))
}

/// [`SpecError::Invalid`] for `field` of the spec at `path`: the error every section's
/// validation returns.
fn invalid(path: &Path, field: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        path: path.to_path_buf(),
        field: field.into(),
        message: message.into(),
    }
}
