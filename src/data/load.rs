//! Loading real data sets: locating the data folder, checking a file's sha256 against its
//! manifest, and parsing numeric CSV files into a [`Dataset`] (docs/architecture.md, `data/`).

use std::path::{Path, PathBuf};

use super::cache::{CacheOptions, FileStamp, CACHE_DIR_ENV};
use super::error::{DataError, DATA_DIR_ENV};
use super::file::{clean_cell, csv_error, open_csv, FileFormat};
pub use super::file::{sha256_bytes, sha256_file, Loaded};
use super::manifest::{check_shape, data_file, verify_sha256, Manifest};
use super::missing::classify;
use super::rows::NumericRows;
use super::Dataset;
use super::{Matrix, Task};

/// Where the data folder of [`resolve_data_dir_with_origin`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataDirOrigin {
    /// The `--data-dir` option.
    Cli,
    /// The environment variable `DP_REPRO_DATA`.
    Env,
    /// The per-user data folder ([`user_data_dir`]).
    User,
}

impl DataDirOrigin {
    /// How the origin is named in messages: `--data-dir`, `DP_REPRO_DATA`, `per-user default`.
    pub fn describe(&self) -> &'static str {
        match self {
            DataDirOrigin::Cli => "--data-dir",
            DataDirOrigin::Env => DATA_DIR_ENV,
            DataDirOrigin::User => "per-user default",
        }
    }
}

/// The per-user data folder, where `dp-repro data fetch` downloads by default: on Linux
/// `$XDG_DATA_HOME/dp-repro`, else `$HOME/.local/share/dp-repro`; on macOS
/// `~/Library/Application Support/dp-repro`; on Windows `%APPDATA%\dp-repro\data`
/// (the `directories` crate). None when the home folder cannot be determined.
pub fn user_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "dp-repro").map(|p| p.data_dir().to_path_buf())
}

/// The folder of data files and where it came from: the `--data-dir` value if given, else
/// the environment variable `DP_REPRO_DATA` if set and non-empty, else the per-user data
/// folder ([`user_data_dir`], which need not exist), else `None`.
pub fn resolve_data_dir_with_origin(cli: Option<&Path>) -> Option<(PathBuf, DataDirOrigin)> {
    if let Some(dir) = cli {
        return Some((dir.to_path_buf(), DataDirOrigin::Cli));
    }
    match std::env::var_os(DATA_DIR_ENV) {
        Some(v) if !v.is_empty() => Some((PathBuf::from(v), DataDirOrigin::Env)),
        _ => user_data_dir().map(|d| (d, DataDirOrigin::User)),
    }
}

/// The folder of data files: the `--data-dir` value if given, else the environment
/// variable `DP_REPRO_DATA` if set and non-empty, else the per-user data folder
/// ([`user_data_dir`]), else `None` (no home folder).
pub fn resolve_data_dir(cli: Option<&Path>) -> Option<PathBuf> {
    resolve_data_dir_with_origin(cli).map(|(d, _)| d)
}

/// Loads a numeric CSV file into a [`Dataset`]: n rows, the label in column
/// `label_column` (0-based), the other columns, in file order, as the n×d features.
///
/// Every cell is parsed as `f64` after trimming whitespace and surrounding quotes (so
/// `" 2.2e+01"` is 22). A cell that is empty, a marker `?` or `NA`, or not a finite number
/// (`NaN`, `inf`) is *missing* (see [`super::missing`]): under [`MissingPolicy::Error`] it is
/// an error, under [`MissingPolicy::DropRows`] its row is left out and counted in
/// [`Loaded::dropped_rows`]. With `has_header` the first line is read as column names,
/// which then appear in errors. Empty lines are skipped. For [`Task::Classification`]
/// labels must be integers ≥ 0 (`1` or `1.0`).
///
/// # Errors
/// [`DataError::MissingValue`] for a missing cell under [`MissingPolicy::Error`] and
/// [`DataError::NonNumeric`] for any other non-numeric cell (1-based line number in the
/// file, 0-based column and header name); [`DataError::Ragged`] for a row whose number of
/// cells differs from the first row's; [`DataError::BadClassLabel`];
/// [`DataError::LabelColumnOutOfRange`]; [`DataError::Empty`] if there are no data rows,
/// [`DataError::AllRowsDropped`] if every row was dropped; [`DataError::Io`] and
/// [`DataError::Csv`] for unreadable or malformed files.
pub fn load_csv(path: &Path, name: &str, format: FileFormat) -> Result<Loaded, DataError> {
    match load_csv_fast(path, name, format) {
        Some(loaded) => Ok(loaded),
        None => load_csv_general(path, name, format),
    }
}

/// [`load_csv`]'s fast path: the file parsed from its bytes in parallel blocks (see
/// [`super::fast_csv`]), with the same result bit for bit, or None where the general reader
/// must read it — a `"` anywhere in the file, a carriage return that is not part of a line
/// end, a byte-order mark, and every file that has an error (the general reader then
/// reports it) or no data row.
pub fn load_csv_fast(path: &Path, name: &str, format: FileFormat) -> Option<Loaded> {
    super::fast_csv::parse(path, format, false)
        .0
        .map(|parsed| parsed.into_loaded(name, format.task))
}

impl super::fast_csv::Parsed {
    /// The parsed rows as a loaded data set.
    fn into_loaded(self, name: &str, task: Task) -> Loaded {
        let n = self.y.len();
        Loaded {
            dataset: Dataset::numeric(name, task, Matrix::new(n, self.width - 1, self.x), self.y),
            dropped_rows: self.dropped,
        }
    }
}

/// [`load_csv`] by the general reader (the `csv` crate, record by record): any quoting and
/// line ends, every error with its line and column. [`load_csv`] uses it where its fast
/// path does not apply; it is also the reference the fast path is tested against.
///
/// # Errors
/// As [`load_csv`].
pub fn load_csv_general(path: &Path, name: &str, format: FileFormat) -> Result<Loaded, DataError> {
    let (mut reader, header) = open_csv(path, format.has_header)?;
    let mut rows = NumericRows::new(path, header.as_deref(), format);
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(|e| csv_error(path, e))?
    {
        let line = record.position().map_or(0, |p| p.line());
        let text = |k: usize| String::from_utf8_lossy(&record[k]);
        rows.push(
            line,
            record.len(),
            |k| classify(clean_cell(&text(k))),
            |k| text(k).into_owned(),
        )?;
    }
    rows.finish(name)
}

/// Loads the data set a manifest describes from `data_dir`: checks that the file exists,
/// that its sha256 equals the manifest's, parses it with [`load_csv`] (or, for a raw file
/// with `encode` rules, [`super::encode::load_encoded`]) under the manifest's
/// `missing` policy and checks that it has `n_rows` data rows — counted in the file, so
/// rows dropped for missing values included — and `n_features` features. Files of at least
/// [`super::cache::CACHE_MIN_BYTES`] go through the binary cache the environment configures
/// ([`CacheOptions::from_env`]; see [`load_manifest_dataset_cached`]).
///
/// `data_dir` is normally [`resolve_data_dir`]'s result.
///
/// # Errors
/// [`DataError::NoDataDir`] if `data_dir` is `None`; [`DataError::MissingFile`] (full
/// path, expected sha256, `DP_REPRO_DATA`, `dp-repro data fetch`);
/// [`DataError::ChecksumMismatch`] (path, expected and actual sha256, `DP_REPRO_DATA`);
/// [`DataError::ShapeMismatch`]; and the errors of [`load_csv`].
pub fn load_manifest_dataset(m: &Manifest, data_dir: Option<&Path>) -> Result<Loaded, DataError> {
    load_manifest_dataset_cached(m, data_dir, &CacheOptions::from_env())
}

/// [`load_manifest_dataset`] with the cache `cache` (see [`super::cache`]): a file at
/// least `cache.min_bytes` long is read from its cache entry when there is a usable one
/// (memory-mapped, values checked by hash), else parsed and then stored there. The file's
/// sha256 is computed unless the entry's stamp shows that this very file (path, size,
/// modification and change time, inode) was verified before. An entry that is truncated
/// or corrupt is reported on stderr, removed and rebuilt; one that cannot be written is
/// reported and the load goes on.
///
/// # Errors
/// As [`load_manifest_dataset`].
pub fn load_manifest_dataset_cached(
    m: &Manifest,
    data_dir: Option<&Path>,
    cache: &CacheOptions,
) -> Result<Loaded, DataError> {
    let path = data_file(m, data_dir)?;
    let size = std::fs::metadata(&path)
        .map_err(|source| DataError::Io {
            path: path.clone(),
            source,
        })?
        .len();
    let entry = cache.entry(m, &path, size);
    let stamp = entry.as_ref().and_then(|_| FileStamp::of(&path).ok());
    let known = matches!((&entry, &stamp), (Some(e), Some(s)) if e.verified(s));
    let hit = entry.as_ref().and_then(|e| e.exists().then_some(e));
    if !known && hit.is_some() {
        // A cache hit reads nothing of the file but this hash.
        verify_sha256(m, &path)?;
    }
    let cached = match &entry {
        Some(e) => e.open(&m.name).unwrap_or_else(|why| {
            eprintln!(
                "warning: cache file {} of data set `{}` is unusable ({}); removed it, \
                 rebuilding it from {}",
                e.path().display(),
                m.name,
                why.0,
                path.display()
            );
            None
        }),
        None => None,
    };
    let mut loaded = match cached {
        Some(l) => l,
        None => {
            let l = parse_checked(m, &path, !known && hit.is_none()).map_err(|e| {
                let setting = format!("its manifest {}.yaml", m.name);
                super::hints::with_hint(e, &path, m.has_header, &setting)
            })?;
            check_shape(m, &path, &l)?;
            if let Some(e) = &entry {
                match e.store(&l) {
                    Ok(()) => eprintln!(
                        "note: data set `{}` ({} × {}) cached in {} for faster loading \
                         ({CACHE_DIR_ENV}=off disables the cache)",
                        m.name,
                        l.dataset.n(),
                        l.dataset.d(),
                        e.path().display()
                    ),
                    Err(err) => eprintln!(
                        "warning: cannot write cache file {}: {err}; {} will be parsed \
                         again next time (set {CACHE_DIR_ENV} to a writable folder, or to \
                         `off`)",
                        e.path().display(),
                        path.display()
                    ),
                }
            }
            l
        }
    };
    check_shape(m, &path, &loaded)?;
    if let (Some(e), Some(s), false) = (&entry, &stamp, known) {
        e.record_verified(s);
    }
    loaded.dataset.leaf_occupancy = m.leaf_occupancy;
    Ok(loaded)
}

/// Parses manifest `m`'s data file `path` by its kind and encoding, checking its sha256
/// first when `verify` — while parsing, for a numeric CSV file, so that it is read once:
/// a parse that fails before the end is only reported after the whole file was hashed, so
/// an altered file is reported as such whatever its content.
///
/// # Errors
/// [`DataError::ChecksumMismatch`] before any parse error, then the parse's errors.
fn parse_checked(m: &Manifest, path: &Path, verify: bool) -> Result<Loaded, DataError> {
    if let Some(encoding) = &m.encode {
        if verify {
            verify_sha256(m, path)?;
        }
        return super::encode::load_encoded(path, &m.name, m.format(), encoding);
    }
    if super::parquet::is_parquet(path) {
        if verify {
            verify_sha256(m, path)?;
        }
        return super::parquet::load_parquet(path, &m.name, m.format());
    }
    let (parsed, digest) = super::fast_csv::parse(path, m.format(), verify);
    if verify {
        match digest {
            Some(actual) if actual != m.sha256.to_ascii_lowercase() => {
                return Err(DataError::ChecksumMismatch {
                    path: path.to_path_buf(),
                    expected: m.sha256.clone(),
                    actual,
                })
            }
            Some(_) => {}
            None => verify_sha256(m, path)?,
        }
    }
    match parsed {
        Some(p) => Ok(p.into_loaded(&m.name, m.task)),
        None => load_csv_general(path, &m.name, m.format()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::missing::{MissingKind, MissingPolicy};
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
        let ds = load_csv(&p, "t", FileFormat::new(1, Task::Regression).with_header())
            .unwrap()
            .dataset;
        assert_eq!((ds.n(), ds.d()), (2, 2));
        assert_eq!(ds.y, vec![2.0, 5.0]);
        assert_eq!(ds.x.data, vec![1.0, 3.0, 4.0, 6.0]);
        assert_eq!(ds.name, "t");
    }

    #[test]
    fn empty_cell_is_a_missing_value_with_header_name() {
        let (_d, p) = csv_file("a,b\n1,2\n3,\n");
        let err =
            load_csv(&p, "t", FileFormat::new(0, Task::Regression).with_header()).unwrap_err();
        match &err {
            DataError::MissingValue {
                row, column, kind, ..
            } => {
                assert_eq!(*row, 3);
                assert_eq!(column.index, 1);
                assert_eq!(column.name.as_deref(), Some("b"));
                assert_eq!(*kind, MissingKind::Empty);
            }
            other => panic!("unexpected {other:?}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains("line 3, column 1 (\"b\"): empty cell")
                && msg.contains("missing: drop_rows"),
            "{msg}"
        );
    }

    #[test]
    fn nan_inf_and_markers_are_missing_values() {
        for (cell, kind, what) in [
            (
                "NaN",
                MissingKind::NotFinite,
                "\"NaN\" is not a finite number",
            ),
            (
                "-inf",
                MissingKind::NotFinite,
                "\"-inf\" is not a finite number",
            ),
            ("?", MissingKind::Marker, "\"?\" marks a missing value"),
            ("NA", MissingKind::Marker, "\"NA\" marks a missing value"),
        ] {
            let (_d, p) = csv_file(&format!("1,2,3\n4,{cell},6\n"));
            let err = load_csv(&p, "t", FileFormat::new(0, Task::Regression)).unwrap_err();
            assert!(
                matches!(&err, DataError::MissingValue { row: 2, kind: k, .. } if *k == kind),
                "{err:?}"
            );
            let msg = err.to_string();
            assert!(msg.contains(&format!("line 2, column 1: {what}")), "{msg}");
        }
    }

    #[test]
    fn drop_rows_drops_and_counts_rows_with_missing_cells() {
        let drop = FileFormat::new(0, Task::Regression).with_missing(MissingPolicy::DropRows);
        let (_d, p) = csv_file("y,a,b\n1,2,3\nNaN,5,6\n7,,9\n10,?,NA\n11,inf,12\n13,14,15\n");
        let l = load_csv(&p, "t", drop.with_header()).unwrap();
        assert_eq!(l.dropped_rows, 4);
        assert_eq!(l.dataset.y, vec![1.0, 13.0]);
        assert_eq!(l.dataset.x.data, vec![2.0, 3.0, 14.0, 15.0]);
        // Text that is not a missing marker stays an error.
        let (_d, p) = csv_file("1,2\n,x\n");
        let err = load_csv(&p, "t", drop).unwrap_err();
        assert!(matches!(err, DataError::NonNumeric { row: 2, .. }), "{err}");
        // Every row dropped.
        let (_d, p) = csv_file("1,\nNA,2\n");
        let err = load_csv(&p, "t", drop).unwrap_err();
        assert!(
            matches!(err, DataError::AllRowsDropped { rows: 2, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("all 2 data rows"), "{err}");
    }

    #[test]
    fn ragged_row_names_line() {
        let (_d, p) = csv_file("1,2\n3,4,5\n");
        let msg = load_csv(&p, "t", FileFormat::new(0, Task::Regression))
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
        let ds = load_csv(&p, "t", FileFormat::new(0, Task::Classification))
            .unwrap()
            .dataset;
        assert_eq!(ds.y, vec![1.0, 0.0]);
        for bad in ["0.5,1\n", "-1,1\n"] {
            let (_d, p) = csv_file(bad);
            let err = load_csv(&p, "t", FileFormat::new(0, Task::Classification)).unwrap_err();
            assert!(
                matches!(err, DataError::BadClassLabel { row: 1, .. }),
                "{err}"
            );
        }
    }

    #[test]
    fn label_column_out_of_range_and_empty_file() {
        let (_d, p) = csv_file("1,2\n");
        let err = load_csv(&p, "t", FileFormat::new(2, Task::Regression)).unwrap_err();
        assert!(err.to_string().contains("valid: 0..=1"), "{err}");
        let (_d, p) = csv_file("");
        let err = load_csv(&p, "t", FileFormat::new(0, Task::Regression)).unwrap_err();
        assert!(matches!(err, DataError::Empty { .. }), "{err}");
    }

    /// A loaded data set's values as bits, or the error message.
    fn outcome(r: Result<Loaded, DataError>) -> Result<(Vec<u64>, Vec<u64>, usize, usize), String> {
        r.map(|l| {
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            (
                bits(&l.dataset.x.data),
                bits(&l.dataset.y),
                l.dataset.d(),
                l.dropped_rows,
            )
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn fast_path_reads_what_the_general_reader_reads() {
        use rand::{Rng, SeedableRng};
        let cells = [
            "1",
            "-2.5",
            "+.5",
            "3.",
            "1e3",
            "-0",
            "0.1000000000000000055511151231257827",
            "7E-2",
            " 4 ",
            "'5'",
            "\"6\"",
            "",
            "?",
            "NA",
            "nan",
            "-inf",
            "1e400",
            "abc",
            "0x1",
            "\t8\t",
            "2",
            "3",
            "4",
            "0",
            "1",
        ];
        let mut rng = rand_pcg::Pcg64::seed_from_u64(12);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let (mut fast_used, mut compared) = (0, 0);
        for case in 0..3000 {
            let width = rng.gen_range(1..5);
            let rows = rng.gen_range(0..6);
            let has_header = rng.gen_bool(0.3);
            let mut text = String::new();
            if rng.gen_bool(0.05) {
                text.push('\n');
            }
            if has_header {
                let names: Vec<String> = (0..width).map(|k| format!("c{k}")).collect();
                text.push_str(&names.join(","));
                text.push('\n');
            }
            for _ in 0..rows {
                let w = if rng.gen_bool(0.05) { width + 1 } else { width };
                let row: Vec<&str> = (0..w)
                    .map(|_| {
                        // Mostly plain numbers, so that many files parse.
                        if rng.gen_bool(0.8) {
                            cells[rng.gen_range(20..cells.len())]
                        } else {
                            cells[rng.gen_range(0..cells.len())]
                        }
                    })
                    .collect();
                text.push_str(&row.join(","));
                text.push_str(match rng.gen_range(0..20) {
                    0 => "\r\n",
                    1 => "\n\n",
                    2 => "\r",
                    _ => "\n",
                });
            }
            if rng.gen_bool(0.2) && text.ends_with('\n') {
                text.pop();
            }
            fs::write(&path, &text).unwrap();
            let label_column = rng.gen_range(0..width + 1);
            let task = if rng.gen_bool(0.3) {
                Task::Classification
            } else {
                Task::Regression
            };
            let missing = if rng.gen_bool(0.5) {
                MissingPolicy::DropRows
            } else {
                MissingPolicy::Error
            };
            let args = FileFormat {
                label_column,
                has_header,
                task,
                missing,
            };
            let general = outcome(load_csv_general(&path, "t", args));
            let fast = load_csv_fast(&path, "t", args);
            let auto = outcome(load_csv(&path, "t", args));
            assert_eq!(auto, general, "case {case}: {text:?} {args:?}");
            let fast_applies = !text.contains('"') && !text.replace("\r\n", "\n").contains('\r');
            match fast {
                Some(l) => {
                    fast_used += 1;
                    assert_eq!(
                        Ok(outcome(Ok(l)).unwrap()),
                        general,
                        "case {case}: {text:?}"
                    );
                }
                None => assert!(
                    general.is_err() || !fast_applies,
                    "case {case}: the fast path gave up on a file it reads: {text:?} {args:?}"
                ),
            }
            compared += 1;
        }
        assert!(fast_used > compared / 4, "{fast_used} of {compared}");
    }

    #[test]
    fn fast_path_handles_blocks_of_many_lines() {
        // More lines than one piece per thread, a header and CRLF line ends.
        let mut text = String::from("y,a,b\r\n");
        for i in 0..20_000 {
            text.push_str(&format!("{i},{}.25,-{}e-3\r\n", i % 7, i));
        }
        let (_d, p) = csv_file(&text);
        let fast =
            load_csv_fast(&p, "t", FileFormat::new(0, Task::Regression).with_header()).unwrap();
        assert_eq!((fast.dataset.n(), fast.dataset.d()), (20_000, 2));
        assert_eq!(
            fast.dataset.x.row(19_999),
            &[19_999.0 % 7.0 + 0.25, -19.999]
        );
        let general =
            load_csv_general(&p, "t", FileFormat::new(0, Task::Regression).with_header()).unwrap();
        assert_eq!(outcome(Ok(fast)), outcome(Ok(general)));
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
