//! The encoding rules a manifest's `encode` block declares, column by column: the role of
//! each column (label, dropped, one-hot over its sorted categories, codes, numeric), the
//! columns derived from a timestamp, the declared categorical and unbinned features, and
//! the rescaled regression target (the pre-processing of the LPCT paper, App. C.1, and of
//! the DiPriMe paper, §4, method card docs/methods/diprime.md §6.2).

use crate::data::manifest::{DatePart, Derived, Encoding, Rescale};
use crate::data::missing::{classify, Cell};
use crate::data::{DataError, Matrix, MinMax};
use crate::yaml_word::yaml_word;
use chrono::{Datelike, NaiveDateTime, Timelike};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

impl DatePart {
    /// This part of `t` as a number.
    pub(super) fn of(self, t: &NaiveDateTime) -> f64 {
        f64::from(match self {
            DatePart::Year => return f64::from(t.year()),
            DatePart::Month => t.month(),
            DatePart::Day => t.day(),
            DatePart::Weekday => t.weekday().num_days_from_monday(),
            DatePart::Hour => t.hour(),
            DatePart::Minute => t.minute(),
        })
    }
}

/// What an encoding does with one column.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Role {
    Label,
    Drop,
    Numeric,
    OneHot(Vec<String>),
    Codes(BTreeMap<String, f64>),
}

pub(super) fn encoding_error(path: &Path, message: String) -> DataError {
    DataError::Encoding {
        path: path.to_path_buf(),
        message,
    }
}

/// The role of every column: label, dropped, one-hot (with its sorted categories over the
/// file's complete rows), codes, or numeric.
pub(super) fn column_roles(
    path: &Path,
    names: &[String],
    label_column: usize,
    encoding: &Encoding,
    rows: &[(u64, Vec<String>)],
) -> Result<Vec<Role>, DataError> {
    let index = |field: &str, name: &str| {
        names.iter().position(|n| n == name).ok_or_else(|| {
            encoding_error(
                path,
                format!(
                    "{field} names column {name:?}, which the file does not have (columns: {})",
                    names.join(", ")
                ),
            )
        })
    };
    let mut roles = vec![Role::Numeric; names.len()];
    roles[label_column] = Role::Label;
    let mut claim = |k: usize, field: &str, role: Role| {
        if roles[k] != Role::Numeric {
            return Err(encoding_error(
                path,
                format!(
                    "{field}: column {:?} is already the label or named elsewhere in encode",
                    names[k]
                ),
            ));
        }
        roles[k] = role;
        Ok(())
    };
    for n in &encoding.drop {
        claim(index("encode.drop", n)?, "encode.drop", Role::Drop)?;
    }
    for (n, map) in &encoding.codes {
        claim(
            index("encode.codes", n)?,
            "encode.codes",
            Role::Codes(map.clone()),
        )?;
    }
    for n in &encoding.one_hot {
        let k = index("encode.one_hot", n)?;
        claim(k, "encode.one_hot", Role::OneHot(categories(rows, k)))?;
    }
    for n in &encoding.category_codes {
        let k = index("encode.category_codes", n)?;
        let codes = categories(rows, k)
            .into_iter()
            .enumerate()
            .map(|(code, value)| (value, code as f64))
            .collect();
        claim(k, "encode.category_codes", Role::Codes(codes))?;
    }
    Ok(roles)
}

/// The distinct values of column `k` over the file's complete rows (the rows a
/// `drop_rows` policy keeps, so a value that only occurs beside a missing cell is no
/// category), sorted by code point.
fn categories(rows: &[(u64, Vec<String>)], k: usize) -> Vec<String> {
    let complete = |cells: &Vec<String>| {
        !cells
            .iter()
            .any(|c| matches!(classify(c), Cell::Missing(_)))
    };
    let categories: BTreeSet<&str> = rows
        .iter()
        .filter(|(_, cells)| complete(cells))
        .map(|(_, cells)| cells[k].as_str())
        .collect();
    categories.into_iter().map(str::to_string).collect()
}

/// The file column of every `encode.derive` entry, in order: it must exist and be
/// dropped (a timestamp is no number), and the new name must be new.
pub(super) fn derived_sources<'a>(
    path: &Path,
    names: &[String],
    roles: &[Role],
    encoding: &'a Encoding,
) -> Result<Vec<(usize, &'a Derived)>, DataError> {
    let mut seen = BTreeSet::new();
    encoding
        .derive
        .iter()
        .map(|derive| {
            if names.contains(&derive.name) || !seen.insert(derive.name.as_str()) {
                return Err(encoding_error(
                    path,
                    format!(
                        "encode.derive: the name {:?} is already a column of the file or of \
                         encode.derive; give the derived column a new name",
                        derive.name
                    ),
                ));
            }
            let k = names
                .iter()
                .position(|n| *n == derive.from)
                .ok_or_else(|| {
                    encoding_error(
                        path,
                        format!(
                            "encode.derive {:?} reads column {:?}, which the file does not have \
                         (columns: {})",
                            derive.name,
                            derive.from,
                            names.join(", ")
                        ),
                    )
                })?;
            if roles[k] != Role::Drop {
                return Err(encoding_error(
                    path,
                    format!(
                        "encode.derive {:?} reads column {:?}, which must also be listed in \
                         encode.drop (a timestamp is not a number)",
                        derive.name, derive.from
                    ),
                ));
            }
            Ok((k, derive))
        })
        .collect()
}

/// The feature indices (0-based, increasing) of `encode.categorical` and
/// `encode.unbinned`: names of kept, coded or derived columns, each once, and no name in
/// both lists.
pub(super) fn declared_features(
    path: &Path,
    names: &[String],
    roles: &[Role],
    encoding: &Encoding,
) -> Result<(Vec<usize>, Vec<usize>), DataError> {
    // The encoded features in order: (name, whether it is a one-hot indicator).
    let mut features: Vec<(&str, bool)> = Vec::new();
    for (name, role) in names.iter().zip(roles) {
        match role {
            Role::Numeric | Role::Codes(_) => features.push((name.as_str(), false)),
            Role::OneHot(c) => features.extend(c.iter().map(|_| (name.as_str(), true))),
            Role::Label | Role::Drop => {}
        }
    }
    features.extend(encoding.derive.iter().map(|d| (d.name.as_str(), false)));
    let valid = || {
        features
            .iter()
            .filter(|f| !f.1)
            .map(|f| f.0)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let resolve = |field: &str, list: &[String]| -> Result<Vec<usize>, DataError> {
        let mut out = Vec::with_capacity(list.len());
        for name in list {
            let why = match features.iter().position(|f| f.0 == name) {
                Some(j) if !features[j].1 => {
                    if out.contains(&j) {
                        "is listed twice"
                    } else {
                        out.push(j);
                        continue;
                    }
                }
                Some(_) => "is one-hot coded (its indicator columns are 0/1 numbers, not codes)",
                None if names.contains(name) => "is the label or dropped, not a feature",
                None => "is not a column of the file or of encode.derive",
            };
            return Err(encoding_error(
                path,
                format!("{field}: {name:?} {why} (valid: {})", valid()),
            ));
        }
        out.sort_unstable();
        Ok(out)
    };
    let categorical = resolve("encode.categorical", &encoding.categorical)?;
    let unbinned = resolve("encode.unbinned", &encoding.unbinned)?;
    if let Some(j) = unbinned.iter().find(|j| categorical.contains(j)) {
        return Err(encoding_error(
            path,
            format!(
                "encode.unbinned: {:?} is categorical, and categorical features are never \
                 binned; list only numeric features there",
                features[*j].0
            ),
        ));
    }
    Ok((categorical, unbinned))
}

/// Rescales the regression target `y` in place over all its values (see [`Rescale`]),
/// with the min-max scaler of [`MinMax`].
///
/// # Errors
/// [`DataError::Encoding`] when `y` is constant (`min_max`) or not non-negative with a
/// positive maximum (`max`).
pub(super) fn rescale_target(
    path: &Path,
    y: &mut Vec<f64>,
    rescale: Rescale,
) -> Result<(), DataError> {
    let mut target = Matrix::new(y.len(), 1, std::mem::take(y));
    let fitted = MinMax::fit(&target);
    let (lo, hi) = (fitted.lo[0], fitted.hi[0]);
    let scaler = match rescale {
        Rescale::MinMax if hi > lo => fitted,
        Rescale::Max if lo >= 0.0 && hi > 0.0 => MinMax {
            lo: vec![0.0],
            hi: vec![hi],
        },
        _ => {
            let need = match rescale {
                Rescale::MinMax => "max > min",
                Rescale::Max => "min >= 0 and max > 0",
            };
            return Err(encoding_error(
                path,
                format!(
                    "encode.target.rescale {}: the target ranges over [{lo}, {hi}], but it \
                     needs {need}",
                    yaml_word(&rescale)
                ),
            ));
        }
    };
    scaler.transform(&mut target);
    *y = target.data.into_vec();
    Ok(())
}
