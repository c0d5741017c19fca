//! Raw files made numeric by rules a manifest declares, never by a hand-edited copy of the
//! file: the label's values mapped to classes, columns dropped, categorical columns one-hot
//! encoded or given codes (the pre-processing the LPCT paper, App. C.1, describes in words;
//! the choices that reproduce its Table 1 dimensions are recorded in each manifest).
//!
//! ```yaml
//! encode:
//!   columns: [age, workclass, …]            # names for a file without a header row
//!   label: {">50K": 1, "<=50K": 0}           # label text → class (else a numeric label)
//!   drop: [education, native-country]        # columns left out
//!   one_hot: [workclass, occupation]         # one 0/1 column per category, categories sorted
//!   codes: {sex: {Male: 0, Female: 1}}       # one column of codes
//! ```
//!
//! Every other column must be numeric. Columns keep their file order; a one-hot column
//! becomes its categories' indicator columns in sorted order. Categories are the distinct
//! values of the file's complete rows (those without a missing cell), so the encoding does
//! not depend on the split.

use super::load::{clean_cell, csv_error, open_csv, Loaded};
use super::missing::{classify, Cell};
use super::{ColumnRef, DataError, Dataset, Matrix, MissingPolicy, Task};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How a raw file's columns become the n×d numeric features and the label (see the module
/// documentation).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Encoding {
    /// Column names of a file without a header row, in file order (the label's included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// Label cell text → class number. Without it the label must be numeric.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub label: BTreeMap<String, f64>,
    /// Columns left out, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop: Vec<String>,
    /// Categorical columns replaced by one 0/1 column per category (sorted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_hot: Vec<String>,
    /// Categorical columns replaced by one column of codes: value text → code.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub codes: BTreeMap<String, BTreeMap<String, f64>>,
}

/// What an encoding does with one column.
#[derive(Debug, Clone, PartialEq)]
enum Role {
    Label,
    Drop,
    Numeric,
    OneHot(Vec<String>),
    Codes(BTreeMap<String, f64>),
}

fn encoding_error(path: &Path, message: String) -> DataError {
    DataError::Encoding {
        path: path.to_path_buf(),
        message,
    }
}

/// Loads a raw CSV file through `encoding` into a [`Dataset`]: the label in column
/// `label_column` (0-based, in the file), the encoded features as the n×d matrix. A missing
/// cell (empty, `?`, `NA`, NaN, inf) anywhere in a row, dropped columns included, follows
/// `missing` as in [`super::load_csv`]: the row is an error or is dropped, as a `dropna`
/// before the columns are selected (which is what reproduces the LPCT paper's row counts,
/// e.g. Census's 45,222 complete rows).
///
/// # Errors
/// [`DataError::Encoding`] for a name the file does not have, a column named twice, a
/// `columns` list of the wrong length, or a label or code value the encoding does not map
/// (naming line, column and the valid values); and the errors of [`super::load_csv`]
/// (missing and non-numeric cells, ragged rows, bad class labels, empty files).
pub fn load_encoded(
    path: &Path,
    name: &str,
    label_column: usize,
    has_header: bool,
    task: Task,
    missing: MissingPolicy,
    encoding: &Encoding,
) -> Result<Loaded, DataError> {
    let format = Format {
        label_column,
        has_header,
        task,
        missing,
    };
    Ok(load_rows(path, name, format, encoding, None)?.0)
}

/// How a file is read: the label's column, a header row, the task and the missing policy.
#[derive(Debug, Clone, Copy)]
struct Format {
    label_column: usize,
    has_header: bool,
    task: Task,
    missing: MissingPolicy,
}

/// Loads the data set of manifest `m` (checked as [`super::load_manifest_dataset`] does:
/// file present, sha256, shape) through its `encode` rules (none: every column numeric)
/// and says, for every kept row, whether its raw `column` cell is one of `values` (a
/// public row by the spec's `public_by_rule`). The rule column may be one that `encode`
/// drops.
///
/// # Errors
/// Those of [`super::load_manifest_dataset`] and [`load_encoded`], and
/// [`DataError::Encoding`] when the file has no column `column`.
pub fn load_manifest_with_rule(
    m: &super::Manifest,
    data_dir: Option<&Path>,
    column: &str,
    values: &[String],
) -> Result<(Loaded, Vec<bool>), DataError> {
    let path = super::load::verified_path(m, data_dir)?;
    let format = Format {
        label_column: m.label_column,
        has_header: m.has_header,
        task: m.task,
        missing: m.missing,
    };
    let encoding = m.encode.clone().unwrap_or_default();
    let (loaded, public) = load_rows(&path, &m.name, format, &encoding, Some((column, values)))?;
    super::load::check_shape(m, &path, &loaded)?;
    Ok((loaded, public))
}

/// [`load_encoded`], and with `rule` = (column, values) the public flag of every kept row.
fn load_rows(
    path: &Path,
    name: &str,
    format: Format,
    encoding: &Encoding,
    rule: Option<(&str, &[String])>,
) -> Result<(Loaded, Vec<bool>), DataError> {
    let Format {
        label_column,
        has_header,
        task,
        missing,
    } = format;
    let (mut reader, header) = open_csv(path, has_header)?;
    let mut rows: Vec<(u64, Vec<String>)> = Vec::new();
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(|e| csv_error(path, e))?
    {
        let line = record.position().map_or(0, |p| p.line());
        let cells = record
            .iter()
            .map(|c| clean_cell(&String::from_utf8_lossy(c)).to_string())
            .collect();
        rows.push((line, cells));
    }
    let width = header
        .as_ref()
        .map(Vec::len)
        .or_else(|| rows.first().map(|r| r.1.len()))
        .ok_or_else(|| DataError::Empty {
            path: path.to_path_buf(),
        })?;
    let names: Vec<String> = match (&header, encoding.columns.is_empty()) {
        (Some(h), true) => h.clone(),
        (None, false) if encoding.columns.len() == width => encoding.columns.clone(),
        (None, false) => {
            return Err(encoding_error(
                path,
                format!(
                    "encode.columns names {} columns but the file has {width}",
                    encoding.columns.len()
                ),
            ))
        }
        (Some(_), false) => {
            return Err(encoding_error(
                path,
                "encode.columns is for files without a header row; this file has one".into(),
            ))
        }
        (None, true) => (0..width).map(|i| i.to_string()).collect(),
    };
    if label_column >= width {
        return Err(DataError::LabelColumnOutOfRange {
            path: path.to_path_buf(),
            label_column,
            n_columns: width,
        });
    }
    for (line, cells) in &rows {
        if cells.len() != width {
            return Err(DataError::Ragged {
                path: path.to_path_buf(),
                row: *line,
                expected: width,
                found: cells.len(),
            });
        }
    }
    let roles = column_roles(path, &names, label_column, encoding, &rows)?;
    let rule = match rule {
        Some((column, values)) => {
            let k = names.iter().position(|n| n == column).ok_or_else(|| {
                encoding_error(
                    path,
                    format!(
                        "public_by_rule.column {column:?} is not a column of the file (columns: {})",
                        names.join(", ")
                    ),
                )
            })?;
            Some((k, values))
        }
        None => None,
    };
    let mut public = Vec::new();
    let column = |index: usize| ColumnRef {
        index,
        name: Some(names[index].clone()),
    };

    let d: usize = roles
        .iter()
        .map(|r| match r {
            Role::Numeric | Role::Codes(_) => 1,
            Role::OneHot(c) => c.len(),
            Role::Label | Role::Drop => 0,
        })
        .sum();
    let (mut x, mut y) = (
        Vec::with_capacity(rows.len() * d),
        Vec::with_capacity(rows.len()),
    );
    let mut dropped_rows = 0;
    let mut features: Vec<f64> = Vec::with_capacity(d);
    'rows: for (line, cells) in &rows {
        // Missing cells anywhere in the row first (dropped columns included, as a
        // `dropna` before selecting columns): the policy decides.
        for (k, cell) in cells.iter().enumerate() {
            if let Cell::Missing(kind) = classify(cell) {
                if missing == MissingPolicy::Error {
                    return Err(DataError::MissingValue {
                        path: path.to_path_buf(),
                        row: *line,
                        column: column(k),
                        kind,
                        value: cell.clone(),
                    });
                }
                dropped_rows += 1;
                continue 'rows;
            }
        }
        features.clear();
        let mut label = 0.0;
        for (k, role) in roles.iter().enumerate() {
            let cell = &cells[k];
            match role {
                Role::Drop => {}
                Role::Label => {
                    label = if encoding.label.is_empty() {
                        number(path, *line, column(k), cell)?
                    } else {
                        *encoding.label.get(cell).ok_or_else(|| {
                            unmapped(
                                path,
                                *line,
                                &column(k),
                                cell,
                                "encode.label",
                                encoding.label.keys(),
                            )
                        })?
                    };
                }
                Role::Numeric => features.push(number(path, *line, column(k), cell)?),
                Role::Codes(map) => features.push(*map.get(cell).ok_or_else(|| {
                    unmapped(
                        path,
                        *line,
                        &column(k),
                        cell,
                        &format!("encode.codes.{}", names[k]),
                        map.keys(),
                    )
                })?),
                Role::OneHot(categories) => {
                    features.extend(categories.iter().map(|c| f64::from(u8::from(c == cell))))
                }
            }
        }
        if task == Task::Classification && !(label >= 0.0 && label.fract() == 0.0) {
            return Err(DataError::BadClassLabel {
                path: path.to_path_buf(),
                row: *line,
                column: column(label_column),
                value: cells[label_column].clone(),
            });
        }
        y.push(label);
        x.extend_from_slice(&features);
        if let Some((k, values)) = rule {
            public.push(values.iter().any(|v| *v == cells[k]));
        }
    }
    if y.is_empty() {
        return Err(if dropped_rows > 0 {
            DataError::AllRowsDropped {
                path: path.to_path_buf(),
                rows: dropped_rows,
            }
        } else {
            DataError::Empty {
                path: path.to_path_buf(),
            }
        });
    }
    let loaded = Loaded {
        dataset: Dataset {
            fixed_public: 0,
            categorical: Vec::new(),
            name: name.to_string(),
            x: Matrix::new(y.len(), d, x),
            y,
            task,
        },
        dropped_rows,
    };
    Ok((loaded, public))
}

/// The role of every column: label, dropped, one-hot (with its sorted categories over the
/// file's complete rows), codes, or numeric.
fn column_roles(
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
        // Categories of the complete rows (the rows a `drop_rows` policy keeps), so a value
        // that only occurs beside a missing cell makes no column.
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
        let categories = categories.into_iter().map(str::to_string).collect();
        claim(k, "encode.one_hot", Role::OneHot(categories))?;
    }
    Ok(roles)
}

fn number(path: &Path, line: u64, column: ColumnRef, cell: &str) -> Result<f64, DataError> {
    match classify(cell) {
        Cell::Number(v) => Ok(v),
        _ => Err(DataError::NonNumeric {
            path: path.to_path_buf(),
            row: line,
            column,
            value: cell.to_string(),
        }),
    }
}

fn unmapped<'a>(
    path: &Path,
    line: u64,
    column: &ColumnRef,
    cell: &str,
    field: &str,
    valid: impl Iterator<Item = &'a String>,
) -> DataError {
    encoding_error(
        path,
        format!(
            "line {line}, {column}: {cell:?} is not mapped by {field} (mapped: {})",
            valid
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("raw.csv");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    fn yaml(s: &str) -> Encoding {
        serde_yaml::from_str(s).unwrap()
    }

    const RAW: &str = "city,age,sex,id,class\nPune,30,Male,a,yes\nDelhi,41,Female,b,no\nPune,NA,Male,c,no\nAgra,25,Female,d,yes\n";

    #[test]
    fn one_hot_codes_drop_and_label_map() {
        let (_d, p) = file(RAW);
        let enc = yaml("label: {yes: 1, no: 0}\ndrop: [id]\none_hot: [city]\ncodes: {sex: {Male: 0, Female: 1}}\n");
        let l = load_encoded(
            &p,
            "t",
            4,
            true,
            Task::Classification,
            MissingPolicy::DropRows,
            &enc,
        )
        .unwrap();
        assert_eq!(l.dropped_rows, 1, "the NA age drops its row");
        let ds = l.dataset;
        // city → Agra, Delhi, Pune (sorted); then age; then sex code.
        assert_eq!(ds.d(), 5);
        assert_eq!(ds.y, vec![1.0, 0.0, 1.0]);
        assert_eq!(ds.x.row(0), &[0.0, 0.0, 1.0, 30.0, 0.0]);
        assert_eq!(ds.x.row(1), &[0.0, 1.0, 0.0, 41.0, 1.0]);
        assert_eq!(ds.x.row(2), &[1.0, 0.0, 0.0, 25.0, 1.0]);
    }

    #[test]
    fn errors_name_line_column_and_valid_values() {
        let (_d, p) = file(RAW);
        let load = |enc: &str, missing| {
            load_encoded(&p, "t", 4, true, Task::Classification, missing, &yaml(enc))
                .unwrap_err()
                .to_string()
        };
        let e = load(
            "label: {yes: 1}\ndrop: [id, city, sex]\n",
            MissingPolicy::DropRows,
        );
        assert!(
            e.contains("line 3") && e.contains("\"no\"") && e.contains("encode.label"),
            "{e}"
        );
        let e = load(
            "label: {yes: 1, no: 0}\ndrop: [id, city, sex]\n",
            MissingPolicy::Error,
        );
        assert!(e.contains("line 4") && e.contains("age"), "{e}");
        let e = load(
            "label: {yes: 1, no: 0}\ndrop: [id, town]\n",
            MissingPolicy::DropRows,
        );
        assert!(
            e.contains("\"town\"") && e.contains("city, age, sex, id, class"),
            "{e}"
        );
        let e = load(
            "label: {yes: 1, no: 0}\ndrop: [id, city]\n",
            MissingPolicy::DropRows,
        );
        assert!(e.contains("\"Male\" is not a number"), "{e}");
        let e = load("label: {yes: 1, no: 0}\ndrop: [id, city]\none_hot: [city]\ncodes: {sex: {Male: 0, Female: 1}}\n", MissingPolicy::DropRows);
        assert!(e.contains("already"), "{e}");
    }

    #[test]
    fn columns_name_a_file_without_header() {
        let (_d, p) = file("1,x,>50K\n2,y,<=50K\n");
        let enc = yaml("columns: [a, b, income]\nlabel: {'>50K': 1, '<=50K': 0}\none_hot: [b]\n");
        let l = load_encoded(
            &p,
            "t",
            2,
            false,
            Task::Classification,
            MissingPolicy::Error,
            &enc,
        )
        .unwrap();
        assert_eq!(l.dataset.d(), 3);
        assert_eq!(l.dataset.y, vec![1.0, 0.0]);
        let short = yaml("columns: [a, b]\n");
        let e = load_encoded(
            &p,
            "t",
            2,
            false,
            Task::Classification,
            MissingPolicy::Error,
            &short,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("names 2 columns but the file has 3"), "{e}");
    }
}
