//! Hints for the two usual reasons a CSV file does not load: a header row read as data
//! (`has_header: false`), and a file separated by `;` rather than `,`.

use super::DataError;
use std::io::BufRead;
use std::path::Path;

/// Line `line` (1-based) of the text file `path`, if it can be read.
fn line_of(path: &Path, line: u64) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let n = usize::try_from(line.checked_sub(1)?).ok()?;
    std::io::BufReader::new(file).lines().nth(n)?.ok()
}

/// The 1-based number of the first line of `path` that holds anything.
fn first_content_line(path: &Path) -> Option<u64> {
    let file = std::fs::File::open(path).ok()?;
    let mut lines = std::io::BufReader::new(file).lines();
    let mut n = 0;
    loop {
        n += 1;
        if !lines.next()?.ok()?.trim().is_empty() {
            return Some(n);
        }
    }
}

/// Whether `line` looks `;`-separated: it holds `;` and no `,`.
fn semicolon_separated(line: &str) -> bool {
    line.contains(';') && !line.contains(',')
}

/// Whether no comma-separated cell of `line` is a number (a header row: `y,x1,x2`).
fn no_number(line: &str) -> bool {
    line.split(',')
        .all(|c| c.trim().trim_matches('"').parse::<f64>().is_err())
}

/// `error`, from loading the CSV file `path` read with `has_header`, with a hint appended
/// when the cause looks like one of two: the line at fault holds `;` and no `,` (the file
/// seems `;`-separated), or no cell of the first row is a number while `has_header` is
/// false (the first row looks like a header: set `has_header: true` in `setting`, the
/// manifest or spec entry that says how to read the file). Other errors, and Parquet
/// files, are returned as they are.
pub fn with_hint(error: DataError, path: &Path, has_header: bool, setting: &str) -> DataError {
    if super::file::is_parquet(path) {
        return error;
    }
    let line = match &error {
        DataError::NonNumeric { row, .. } => *row,
        DataError::LabelColumnOutOfRange { n_columns: 1, .. } => {
            first_content_line(path).unwrap_or(1)
        }
        _ => return error,
    };
    let Some(text) = line_of(path, line) else {
        return error;
    };
    let hint = if semicolon_separated(&text) {
        format!(
            "the file seems `;`-separated (line {line} holds `;` and no `,`): dp-repro reads comma-separated files; convert it, e.g. with `tr ';' ','`, and update the sha256 if a manifest pins it"
        )
    } else if !has_header
        && matches!(error, DataError::NonNumeric { .. })
        && first_content_line(path) == Some(line)
        && no_number(&text)
    {
        format!("the first row looks like a header: set `has_header: true` in {setting}")
    } else {
        return error;
    };
    DataError::Hinted {
        error: Box::new(error),
        hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{load_csv, FileFormat, Task};

    fn load(text: &str, has_header: bool, label_column: usize) -> String {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.csv");
        std::fs::write(&p, text).unwrap();
        let e = load_csv(
            &p,
            "f",
            FileFormat {
                has_header,
                ..FileFormat::new(label_column, Task::Regression)
            },
        )
        .unwrap_err();
        with_hint(e, &p, has_header, "the manifest f.yaml").to_string()
    }

    #[test]
    fn a_header_read_as_data() {
        let e = load("y,a\n1,2\n3,4\n", false, 0);
        assert!(
            e.contains("\"y\" is not a number")
                && e.contains("set `has_header: true` in the manifest f.yaml"),
            "{e}"
        );
        // A text cell further down is no header.
        let e = load("1,2\n3,x\n", false, 0);
        assert!(!e.contains("has_header"), "{e}");
    }

    #[test]
    fn a_semicolon_separated_file() {
        let e = load("1;2\n3;4\n", false, 0);
        assert!(e.contains("seems `;`-separated (line 1"), "{e}");
        let e = load("y;a\n1;2\n", true, 1);
        assert!(e.contains("seems `;`-separated (line 1"), "{e}");
        // Decimal commas: no guess.
        let e = load("1,5;2\n", false, 0);
        assert!(!e.contains("separated") && !e.contains("has_header"), "{e}");
    }
}
