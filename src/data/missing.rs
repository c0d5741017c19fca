//! Missing values in data files: which cells count as missing, and what the loader does
//! with them (`missing:` in a manifest or an inline data set of a spec).
//!
//! A cell is *missing* when it is empty (after trimming spaces and one pair of quotes), is
//! one of the markers [`MISSING_MARKERS`] (`?` as in UCI Adult, `NA` as in R exports), or
//! parses as a number that is not finite (`NaN`, `inf`, `-infinity`, in any case). Any
//! other text that does not parse as a number is not missing but malformed, and stays an
//! error under every policy.

use serde::{Deserialize, Serialize};

/// The cell texts, besides empty cells and non-finite numbers, that count as missing.
/// Compared exactly (case-sensitive) after trimming.
pub const MISSING_MARKERS: [&str; 2] = ["?", "NA"];

/// What loading does with a row that has a missing cell (in a feature or the label).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MissingPolicy {
    /// The first missing cell is an error naming file, line and column (the default).
    #[default]
    Error,
    /// Rows with a missing cell are dropped; their number is reported
    /// ([`Loaded::dropped_rows`](super::Loaded), and `dropped_rows` in run.json).
    DropRows,
}

impl MissingPolicy {
    /// Whether this is the default, [`MissingPolicy::Error`] (for `skip_serializing_if`).
    pub fn is_error(&self) -> bool {
        *self == MissingPolicy::Error
    }
}

/// Why a cell counts as missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingKind {
    /// Nothing but spaces (and quotes).
    Empty,
    /// One of [`MISSING_MARKERS`].
    Marker,
    /// A number that is not finite: NaN or ±infinity.
    NotFinite,
}

/// A cleaned cell, classified.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cell {
    /// A finite number.
    Number(f64),
    /// A missing value.
    Missing(MissingKind),
    /// Text that is neither a number nor a missing value.
    Text,
}

/// Classifies a cell already cleaned of spaces and quotes.
pub(crate) fn classify(cell: &str) -> Cell {
    if cell.is_empty() {
        return Cell::Missing(MissingKind::Empty);
    }
    if MISSING_MARKERS.contains(&cell) {
        return Cell::Missing(MissingKind::Marker);
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Cell::Number(v),
        Ok(_) => Cell::Missing(MissingKind::NotFinite),
        Err(_) => Cell::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_classified() {
        assert_eq!(classify("2.5e-1"), Cell::Number(0.25));
        assert_eq!(classify("-3"), Cell::Number(-3.0));
        assert_eq!(classify(""), Cell::Missing(MissingKind::Empty));
        for m in ["?", "NA"] {
            assert_eq!(classify(m), Cell::Missing(MissingKind::Marker), "{m}");
        }
        for nf in ["NaN", "nan", "inf", "-inf", "+Infinity"] {
            assert_eq!(classify(nf), Cell::Missing(MissingKind::NotFinite), "{nf}");
        }
        for t in ["abc", "na", "1,2", "TRUE"] {
            assert_eq!(classify(t), Cell::Text, "{t}");
        }
    }
}
