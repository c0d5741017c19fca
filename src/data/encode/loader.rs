//! Loading a raw data file through its encoding rules: the file read as text cells (CSV or
//! Parquet), each row's cells turned into features and a label by the rules of
//! [`super::rules`], and the manifest-driven entry that also flags the rows of a
//! `public_by_rule` (LPCT paper App. C.1; DiPriMe card docs/methods/diprime.md §6.2).

use super::rules::{
    column_roles, declared_features, derived_sources, encoding_error, rescale_target, Role,
};
use crate::data::file::{clean_cell, csv_error, open_csv, FileFormat, Loaded};
use crate::data::manifest::{check_shape, verified_path, Encoding};
use crate::data::missing::{classify, Cell};
use crate::data::{ColumnRef, DataError, Dataset, Matrix, MissingPolicy, Task};
use chrono::NaiveDateTime;
use std::path::Path;

/// Loads a raw CSV file through `encoding` into a [`Dataset`]: the label in column
/// `label_column` (0-based, in the file), the encoded features as the n×d matrix. A missing
/// cell (empty, `?`, `NA`, NaN, inf) anywhere in a row, dropped columns included, follows
/// `missing` as in [`crate::data::load_csv`]: the row is an error or is dropped, as a `dropna`
/// before the columns are selected (which is what reproduces the LPCT paper's row counts,
/// e.g. Census's 45,222 complete rows). `categorical` and `unbinned` set the data set's
/// [`Dataset::categorical`] and [`Dataset::unbinned`]; `target` rescales the labels over all
/// kept rows.
///
/// # Errors
/// [`DataError::Encoding`] for a name the file does not have, a column named twice, a
/// `columns` list of the wrong length, a label or code value the encoding does not map
/// (naming line, column and the valid values), a timestamp that does not fit its `derive`
/// format (naming line, column and format), a `categorical`/`unbinned` name that is not a
/// kept, coded or derived feature, or a `target` rule that does not fit the task or the
/// target's range; and the errors of [`crate::data::load_csv`]
/// (missing and non-numeric cells, ragged rows, bad class labels, empty files).
pub fn load_encoded(
    path: &Path,
    name: &str,
    format: FileFormat,
    encoding: &Encoding,
) -> Result<Loaded, DataError> {
    Ok(load_rows(path, name, format, encoding, None)?.0)
}

/// Loads the data set of manifest `m` (checked as [`crate::data::load_manifest_dataset`] does:
/// file present, sha256, shape) through its `encode` rules (none: every column numeric)
/// and says, for every kept row, whether its raw `column` cell is one of `values` (a
/// public row by the spec's `public_by_rule`). The rule column may be one that `encode`
/// drops.
///
/// # Errors
/// Those of [`crate::data::load_manifest_dataset`] and [`load_encoded`], and
/// [`DataError::Encoding`] when the file has no column `column`.
pub fn load_manifest_with_rule(
    m: &crate::data::Manifest,
    data_dir: Option<&Path>,
    column: &str,
    values: &[String],
) -> Result<(Loaded, Vec<bool>), DataError> {
    let path = verified_path(m, data_dir)?;
    let format = m.format();
    let encoding = m.encode.clone().unwrap_or_default();
    let (loaded, public) = load_rows(&path, &m.name, format, &encoding, Some((column, values)))
        .map_err(|e| {
            let setting = format!("its manifest {}.yaml", m.name);
            crate::data::hints::with_hint(e, &path, m.has_header, &setting)
        })?;
    check_shape(m, &path, &loaded)?;
    Ok((loaded, public))
}

/// The header (with `has_header`) and the rows of a data file as cleaned text cells, each
/// with its line number: a CSV file record by record, or a Parquet file as its CSV export
/// (see [`crate::data::parquet`]).
///
/// # Errors
/// [`DataError::Io`], [`DataError::Csv`], [`DataError::Parquet`].
fn text_table(
    path: &Path,
    has_header: bool,
) -> Result<(Option<Vec<String>>, Vec<(u64, Vec<String>)>), DataError> {
    if crate::data::parquet::is_parquet(path) {
        let (names, rows) = crate::data::parquet::text_table(path)?;
        return Ok((Some(names), rows));
    }
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
    Ok((header, rows))
}

/// [`load_encoded`], and with `rule` = (column, values) the public flag of every kept row.
fn load_rows(
    path: &Path,
    name: &str,
    format: FileFormat,
    encoding: &Encoding,
    rule: Option<(&str, &[String])>,
) -> Result<(Loaded, Vec<bool>), DataError> {
    let FileFormat {
        label_column,
        has_header,
        task,
        missing,
    } = format;
    let (header, rows) = text_table(path, has_header)?;
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
    let derived = derived_sources(path, &names, &roles, encoding)?;
    let (categorical, unbinned) = declared_features(path, &names, &roles, encoding)?;
    if encoding.target.is_some() && task != Task::Regression {
        return Err(encoding_error(
            path,
            "encode.target rescales a regression target; this data set's task is \
             classification (its labels are classes 0, 1, …): remove encode.target"
                .into(),
        ));
    }
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
        .sum::<usize>()
        + derived.len();
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
        for &(k, derive) in &derived {
            let cell = &cells[k];
            let t = NaiveDateTime::parse_from_str(cell, &derive.format).map_err(|e| {
                encoding_error(
                    path,
                    format!(
                        "line {line}, {}: {cell:?} is not a timestamp of the format {:?} that \
                         encode.derive {:?} reads ({e})",
                        column(k),
                        derive.format,
                        derive.name
                    ),
                )
            })?;
            features.push(derive.part.of(&t));
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
    if let Some(target) = &encoding.target {
        rescale_target(path, &mut y, target.rescale)?;
    }
    let loaded = Loaded {
        dataset: Dataset {
            fixed_public: 0,
            leaf_occupancy: None,
            categorical,
            unbinned,
            name: name.to_string(),
            x: Matrix::new(y.len(), d, x),
            y,
            task,
        },
        dropped_rows,
    };
    Ok((loaded, public))
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
            FileFormat::new(4, Task::Classification)
                .with_header()
                .with_missing(MissingPolicy::DropRows),
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
            load_encoded(
                &p,
                "t",
                FileFormat::new(4, Task::Classification)
                    .with_header()
                    .with_missing(missing),
                &yaml(enc),
            )
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
        let l = load_encoded(&p, "t", FileFormat::new(2, Task::Classification), &enc).unwrap();
        assert_eq!(l.dataset.d(), 3);
        assert_eq!(l.dataset.y, vec![1.0, 0.0]);
        let short = yaml("columns: [a, b]\n");
        let e = load_encoded(&p, "t", FileFormat::new(2, Task::Classification), &short)
            .unwrap_err()
            .to_string();
        assert!(e.contains("names 2 columns but the file has 3"), "{e}");
    }

    const DATED: &str = "when,kind,v,y\n2016-01-11 17:00:00,b,1.5,10\n2016-03-06 08:30:00,a,2.5,30\n2016-05-27 23:10:00,c,3.5,20\n";

    fn regression(p: &Path, enc: &str) -> Result<Loaded, DataError> {
        load_encoded(
            p,
            "t",
            FileFormat::new(3, Task::Regression).with_header(),
            &yaml(enc),
        )
    }

    #[test]
    fn derived_columns_category_codes_and_declarations() {
        let (_d, p) = file(DATED);
        let enc = "drop: [when]\ncategory_codes: [kind]\nderive:\n  \
                   - {name: month, from: when, format: '%Y-%m-%d %H:%M:%S', part: month}\n  \
                   - {name: wd, from: when, format: '%Y-%m-%d %H:%M:%S', part: weekday}\n  \
                   - {name: h, from: when, format: '%Y-%m-%d %H:%M:%S', part: hour}\n  \
                   - {name: dd, from: when, format: '%Y-%m-%d %H:%M:%S', part: day}\n\
                   categorical: [wd, kind]\nunbinned: [v]\n";
        let ds = regression(&p, enc).unwrap().dataset;
        // kind (codes a=0 b=1 c=2), v, then the derived columns in the order listed:
        // 2016-01-11 is a Monday (0), 2016-03-06 a Sunday (6), 2016-05-27 a Friday (4).
        assert_eq!(ds.x.row(0), &[1.0, 1.5, 1.0, 0.0, 17.0, 11.0]);
        assert_eq!(ds.x.row(1), &[0.0, 2.5, 3.0, 6.0, 8.0, 6.0]);
        assert_eq!(ds.x.row(2), &[2.0, 3.5, 5.0, 4.0, 23.0, 27.0]);
        assert_eq!(ds.categorical, vec![0, 3], "sorted feature indices");
        assert_eq!(ds.unbinned, vec![1]);
        assert_eq!(ds.y, vec![10.0, 30.0, 20.0], "no target rule: file units");
    }

    #[test]
    fn a_malformed_timestamp_names_file_line_column_and_format() {
        let (_d, p) = file(&DATED.replace("2016-03-06 08:30:00", "2016-03-06T08:30"));
        let enc = "drop: [when, kind]\nderive: [{name: m, from: when, format: '%Y-%m-%d %H:%M:%S', part: month}]\n";
        let e = regression(&p, enc).unwrap_err().to_string();
        assert!(
            e.starts_with(&p.display().to_string())
                && e.contains("line 3, column 0 (\"when\")")
                && e.contains("\"2016-03-06T08:30\"")
                && e.contains("%Y-%m-%d %H:%M:%S"),
            "{e}"
        );
    }

    #[test]
    fn derive_and_declarations_refuse_what_does_not_fit() {
        let (_d, p) = file(DATED);
        let err = |enc: &str| regression(&p, enc).unwrap_err().to_string();
        let f = "format: '%Y-%m-%d %H:%M:%S'";
        let e = err(&format!(
            "drop: [kind]\nderive: [{{name: m, from: when, {f}, part: month}}]\n"
        ));
        assert!(e.contains("must also be listed in encode.drop"), "{e}");
        let e = err(&format!(
            "drop: [when, kind]\nderive: [{{name: v, from: when, {f}, part: month}}]\n"
        ));
        assert!(e.contains("\"v\" is already a column"), "{e}");
        let e = err(&format!(
            "drop: [when, kind]\nderive: [{{name: m, from: date, {f}, part: month}}]\n"
        ));
        assert!(
            e.contains("\"date\"") && e.contains("when, kind, v, y"),
            "{e}"
        );
        let e = err("drop: [when]\none_hot: [kind]\ncategorical: [kind]\n");
        assert!(
            e.contains("encode.categorical") && e.contains("one-hot"),
            "{e}"
        );
        let e = err("drop: [when, kind]\ncategorical: [when]\n");
        assert!(
            e.contains("label or dropped") && e.contains("(valid: v)"),
            "{e}"
        );
        let e = err("drop: [when, kind]\nunbinned: [w]\n");
        assert!(e.contains("encode.unbinned: \"w\" is not a column"), "{e}");
        let e = err("drop: [when, kind]\ncategorical: [v, v]\n");
        assert!(e.contains("listed twice"), "{e}");
        let e = err("drop: [when, kind]\ncategorical: [v]\nunbinned: [v]\n");
        assert!(e.contains("never binned"), "{e}");
        let e = err("drop: [when]\ncodes: {kind: {a: 0, b: 1, c: 2}}\ncategory_codes: [kind]\n");
        assert!(e.contains("already"), "{e}");
    }

    #[test]
    fn target_rescaling_min_max_and_max() {
        let (_d, p) = file(DATED);
        let y = |rule: &str| {
            regression(
                &p,
                &format!("drop: [when, kind]\ntarget: {{rescale: {rule}}}\n"),
            )
            .unwrap()
            .dataset
            .y
        };
        assert_eq!(y("min_max"), vec![0.0, 1.0, 0.5]);
        assert_eq!(y("max"), vec![10.0 / 30.0, 1.0, 20.0 / 30.0]);
        // A constant target cannot be min-max scaled, a negative one not divided by its max.
        let (_d, p) = file("a,y\n1,-2\n2,-2\n");
        for (rule, need) in [("min_max", "max > min"), ("max", "min >= 0 and max > 0")] {
            let e = load_encoded(
                &p,
                "t",
                FileFormat::new(1, Task::Regression).with_header(),
                &yaml(&format!("target: {{rescale: {rule}}}\n")),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains(&format!("encode.target.rescale {rule}"))
                    && e.contains("[-2, -2]")
                    && e.contains(need),
                "{e}"
            );
        }
        // Classification labels are classes, never rescaled.
        let (_d, p) = file("a,y\n1,0\n2,1\n");
        let e = load_encoded(
            &p,
            "t",
            FileFormat::new(1, Task::Classification).with_header(),
            &yaml("target: {rescale: min_max}\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("classification"), "{e}");
    }
}
