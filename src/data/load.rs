//! Loading real data sets: locating the data folder, checking a file's sha256 against its
//! manifest, and parsing numeric CSV files into a [`Dataset`] (DESIGN.md, `data/`).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::{ColumnRef, DataError, DATA_DIR_ENV};
use super::manifest::Manifest;
use super::{Dataset, Matrix, Task};

/// The folder of data files: the `--data-dir` value if given, else the environment
/// variable `DP_REPRO_DATA` if set and non-empty, else `None`.
pub fn resolve_data_dir(cli: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = cli {
        return Some(dir.to_path_buf());
    }
    match std::env::var_os(DATA_DIR_ENV) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => None,
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
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Trims whitespace, then one pair of surrounding quotes (`"` or `'`), then whitespace
/// again.
fn clean_cell(raw: &str) -> &str {
    let s = raw.trim();
    let s = s
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(s);
    s.trim()
}

/// Loads a numeric CSV file into a [`Dataset`]: n rows, the label in column
/// `label_column` (0-based), the other columns, in file order, as the n×d features.
///
/// Every cell is parsed as `f64` after trimming whitespace and surrounding quotes (so
/// `" 2.2e+01"` is 22); Rust's `f64` syntax is accepted, including `NaN` and `inf`.
/// With `has_header` the first line is read as column names, which then appear in
/// errors. Empty lines are skipped. For [`Task::Classification`] labels must be integers
/// ≥ 0 (`1` or `1.0`).
///
/// # Errors
/// [`DataError::NonNumeric`] for an empty or non-numeric cell (1-based line number in the
/// file, 0-based column and header name); [`DataError::Ragged`] for a row whose number of
/// cells differs from the first row's; [`DataError::BadClassLabel`];
/// [`DataError::LabelColumnOutOfRange`]; [`DataError::Empty`] if there are no data rows;
/// [`DataError::Io`] and [`DataError::Csv`] for unreadable or malformed files.
pub fn load_csv(
    path: &Path,
    name: &str,
    label_column: usize,
    has_header: bool,
    task: Task,
) -> Result<Dataset, DataError> {
    let file = File::open(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let csv_err = |e: csv::Error| {
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
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(has_header)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(io::BufReader::with_capacity(1 << 20, file));

    let header: Option<Vec<String>> = if has_header {
        let h = reader.byte_headers().map_err(csv_err)?;
        Some(
            h.iter()
                .map(|c| clean_cell(&String::from_utf8_lossy(c)).to_string())
                .collect(),
        )
    } else {
        None
    };
    let column = |index: usize| ColumnRef {
        index,
        name: header.as_ref().and_then(|h| h.get(index).cloned()),
    };

    let mut n_columns = header.as_ref().map(|h| h.len());
    let mut x: Vec<f64> = Vec::new();
    let mut y: Vec<f64> = Vec::new();
    let mut record = csv::ByteRecord::new();
    while reader.read_byte_record(&mut record).map_err(csv_err)? {
        let row = record.position().map_or(0, |p| p.line());
        let expected = *n_columns.get_or_insert(record.len());
        if label_column >= expected {
            return Err(DataError::LabelColumnOutOfRange {
                path: path.to_path_buf(),
                label_column,
                n_columns: expected,
            });
        }
        if record.len() != expected {
            return Err(DataError::Ragged {
                path: path.to_path_buf(),
                row,
                expected,
                found: record.len(),
            });
        }
        for (k, raw) in record.iter().enumerate() {
            let text = String::from_utf8_lossy(raw);
            let cell = clean_cell(&text);
            let v: f64 = match cell.parse() {
                Ok(v) if !cell.is_empty() => v,
                _ => {
                    return Err(DataError::NonNumeric {
                        path: path.to_path_buf(),
                        row,
                        column: column(k),
                        value: text.into_owned(),
                    })
                }
            };
            if k == label_column {
                let valid_class = v.is_finite() && v >= 0.0 && v.fract() == 0.0;
                if task == Task::Classification && !valid_class {
                    return Err(DataError::BadClassLabel {
                        path: path.to_path_buf(),
                        row,
                        column: column(k),
                        value: text.into_owned(),
                    });
                }
                y.push(v);
            } else {
                x.push(v);
            }
        }
    }
    let n = y.len();
    if n == 0 {
        return Err(DataError::Empty {
            path: path.to_path_buf(),
        });
    }
    let d = n_columns.unwrap_or(1) - 1;
    Ok(Dataset {
        name: name.to_string(),
        x: Matrix::new(n, d, x),
        y,
        task,
    })
}

/// Loads the data set a manifest describes from `data_dir`: checks that the file exists,
/// that its sha256 equals the manifest's, parses it with [`load_csv`] and checks that it
/// has `n_rows` rows and `n_features` features.
///
/// `data_dir` is normally [`resolve_data_dir`]'s result.
///
/// # Errors
/// [`DataError::NoDataDir`] if `data_dir` is `None`; [`DataError::MissingFile`] (full
/// path, expected sha256, `DP_REPRO_DATA`); [`DataError::ChecksumMismatch`] (path,
/// expected and actual sha256, `DP_REPRO_DATA`); [`DataError::ShapeMismatch`]; and the
/// errors of [`load_csv`].
pub fn load_manifest_dataset(m: &Manifest, data_dir: Option<&Path>) -> Result<Dataset, DataError> {
    let dir = data_dir.ok_or_else(|| DataError::NoDataDir {
        name: m.name.clone(),
        file: m.file.clone(),
    })?;
    let path = dir.join(&m.file);
    if !path.is_file() {
        return Err(DataError::MissingFile {
            name: m.name.clone(),
            path,
            expected_sha256: m.sha256.clone(),
        });
    }
    let actual = sha256_file(&path)?;
    if actual != m.sha256.to_ascii_lowercase() {
        return Err(DataError::ChecksumMismatch {
            path,
            expected: m.sha256.clone(),
            actual,
        });
    }
    let ds = load_csv(&path, &m.name, m.label_column, m.has_header, m.task)?;
    for (field, expected, found) in [
        ("n_rows", m.n_rows, ds.n()),
        ("n_features", m.n_features, ds.d()),
    ] {
        if expected != found {
            return Err(DataError::ShapeMismatch {
                name: m.name.clone(),
                path,
                field,
                expected,
                found,
            });
        }
    }
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn csv_file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn clean_cell_trims_spaces_and_quotes() {
        assert_eq!(clean_cell(" \" 2.5e+01 \" "), "2.5e+01");
        assert_eq!(clean_cell("'3'"), "3");
        assert_eq!(clean_cell("\""), "\"");
    }

    #[test]
    fn label_column_is_split_off() {
        let (_d, p) = csv_file("h0,h1,h2\n1, 2 ,\"3\"\n4,5,6\n");
        let ds = load_csv(&p, "t", 1, true, Task::Regression).unwrap();
        assert_eq!((ds.n(), ds.d()), (2, 2));
        assert_eq!(ds.y, vec![2.0, 5.0]);
        assert_eq!(ds.x.data, vec![1.0, 3.0, 4.0, 6.0]);
        assert_eq!(ds.name, "t");
    }

    #[test]
    fn empty_cell_is_non_numeric_with_header_name() {
        let (_d, p) = csv_file("a,b\n1,2\n3,\n");
        let err = load_csv(&p, "t", 0, true, Task::Regression).unwrap_err();
        match &err {
            DataError::NonNumeric { row, column, .. } => {
                assert_eq!(*row, 3);
                assert_eq!(column.index, 1);
                assert_eq!(column.name.as_deref(), Some("b"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn ragged_row_names_line() {
        let (_d, p) = csv_file("1,2\n3,4,5\n");
        let msg = load_csv(&p, "t", 0, false, Task::Regression)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("line 2 has 3 cells") && msg.contains("has 2"),
            "{msg}"
        );
    }

    #[test]
    fn classification_labels_must_be_non_negative_integers() {
        let (_d, p) = csv_file("1.0,2\n0,3\n");
        let ds = load_csv(&p, "t", 0, false, Task::Classification).unwrap();
        assert_eq!(ds.y, vec![1.0, 0.0]);
        for bad in ["0.5,1\n", "-1,1\n", "NaN,1\n"] {
            let (_d, p) = csv_file(bad);
            let err = load_csv(&p, "t", 0, false, Task::Classification).unwrap_err();
            assert!(
                matches!(err, DataError::BadClassLabel { row: 1, .. }),
                "{err}"
            );
        }
    }

    #[test]
    fn label_column_out_of_range_and_empty_file() {
        let (_d, p) = csv_file("1,2\n");
        let err = load_csv(&p, "t", 2, false, Task::Regression).unwrap_err();
        assert!(err.to_string().contains("valid: 0..=1"), "{err}");
        let (_d, p) = csv_file("");
        let err = load_csv(&p, "t", 0, false, Task::Regression).unwrap_err();
        assert!(matches!(err, DataError::Empty { .. }), "{err}");
    }

    #[test]
    fn sha256_of_known_bytes() {
        let (_d, p) = csv_file("abc");
        assert_eq!(
            sha256_file(&p).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn cli_data_dir_wins() {
        assert_eq!(
            resolve_data_dir(Some(Path::new("/x"))),
            Some(PathBuf::from("/x"))
        );
    }
}
