//! Data-set manifests: one YAML file `datasets/<name>.yaml` per real data set, naming the
//! data file, its task, label column, sha256 and shape, where it comes from and the
//! paper's n and d (docs/architecture.md, `data/`); the `encode:` rules a raw file's
//! manifest declares (the types: `encode.rs` applies them); and the checks that a data
//! file is the one its manifest describes (present, sha256, shape).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

use super::error::DataError;
use super::file::{sha256_file, FileFormat, Loaded};
use super::missing::MissingPolicy;
use super::Task;

/// A data-set manifest, as stored in `datasets/<name>.yaml`.
///
/// Unknown fields are rejected. `n_features` counts every column except the label.
/// `n_rows` counts the data rows of the file (header excluded) *before* any row is dropped
/// for missing values, so it describes the file the sha256 pins, as the shared
/// `MANIFEST.csv` does; with `missing: drop_rows` the loaded data set has `n_rows` minus
/// the dropped rows (reported in run.json as `dropped_rows`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Short name used in specs and results; equals the manifest's file stem.
    pub name: String,
    /// Data file name, relative to the data folder (`--data-dir` / `DP_REPRO_DATA`).
    pub file: String,
    /// Regression or classification.
    pub task: Task,
    /// 0-based column of the label in the file.
    pub label_column: usize,
    /// Whether the first line of the file is a header row.
    pub has_header: bool,
    /// sha256 of the file's bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// Number of data rows in the file (header excluded, rows with missing values
    /// included).
    pub n_rows: usize,
    /// Number of feature columns d (all columns but the label).
    pub n_features: usize,
    /// What loading does with a row that has a missing cell: `error` (default) or
    /// `drop_rows` (see [`crate::data::missing`]).
    #[serde(default, skip_serializing_if = "MissingPolicy::is_error")]
    pub missing: MissingPolicy,
    /// How a raw file (text categories, a text label, columns to leave out) becomes
    /// numeric (see [`crate::data::encode`]); absent for files that are numeric already.
    /// `n_features` is then the encoded d.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encode: Option<Encoding>,
    /// Where the file was taken from.
    pub source: Source,
    /// How `dp-repro data fetch` makes the file from its source (default: the source's
    /// bytes unchanged).
    #[serde(default, skip_serializing_if = "FetchSpec::is_default")]
    pub fetch: FetchSpec,
    /// The papers' table rows describing this data set: one map, or a list when several
    /// papers use it. The first one's abbreviation labels the data set in tables.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub paper: Vec<PaperRef>,
    /// The features ranked from most to least sensitive, as 0-based feature indices (the
    /// columns other than the label in file order; with `encode`, the encoded columns): a
    /// permutation of 0..n_features. Semi-feature LDP reads it (HistOfTree paper §5.2;
    /// method card docs/methods/histoftree.md §1, §10): the aligned privacy mask makes the first d_P
    /// features of the ranking private, the personalized mask protects the feature of rank
    /// j with a probability that decreases in j. Absent: column order (the card's default;
    /// the paper ranks features subjectively and does not publish its rankings). See
    /// [`Manifest::sensitivity_ranking`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<Vec<usize>>,
    /// The expected leaf occupancy of the DiPriMe paper's depth rule on this data set (card
    /// docs/methods/diprime.md §5: 25, 10 on Banknote), copied into [`Dataset::leaf_occupancy`](super::Dataset::leaf_occupancy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_occupancy: Option<usize>,
    /// Free-text provenance and any mismatch between the file and the paper's n or d.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Manifest {
    /// How the manifest's file is read: its `label_column`, `has_header`, `task` and
    /// `missing` policy.
    pub fn format(&self) -> FileFormat {
        FileFormat {
            label_column: self.label_column,
            has_header: self.has_header,
            task: self.task,
            missing: self.missing,
        }
    }

    /// The features from most to least sensitive (length `n_features`, a permutation of
    /// 0..n_features): the declared `sensitivity`, else column order 0, 1, …, d − 1.
    pub fn sensitivity_ranking(&self) -> Vec<usize> {
        self.sensitivity
            .clone()
            .unwrap_or_else(|| (0..self.n_features).collect())
    }
}

/// Provenance of a data file: a public repository at a fixed commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `owner/name` of the repository.
    pub repository: String,
    /// Full commit hash.
    pub commit: String,
    /// Path of the original file inside the repository.
    pub path: String,
}

/// How `dp-repro data fetch` obtains a data file from its [`Source`]: the pinned URL
/// `https://raw.githubusercontent.com/<repository>/<commit>/<path>` (or a mirror's),
/// then `convert` in order, and the result must have the manifest's sha256. A source that
/// cannot be downloaded as one file (several files concatenated, a member of a zip or
/// xlsx, a site that needs a login) has `manual` instructions instead, which the command
/// prints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSpec {
    /// Conversions applied to the downloaded bytes, in order (e.g. `[crlf_to_lf]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub convert: Vec<Conversion>,
    /// How to obtain the file by hand, when it cannot be downloaded automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual: Option<String>,
}

impl FetchSpec {
    /// Whether nothing is declared (download verbatim).
    pub fn is_default(&self) -> bool {
        self == &FetchSpec::default()
    }
}

/// Reads `paper:` as one [`PaperRef`] map or a list of them.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PaperRef>, D::Error> {
    use serde::de::Error;
    match serde_yaml::Value::deserialize(d)? {
        v @ serde_yaml::Value::Sequence(_) => {
            Vec::<PaperRef>::deserialize(v).map_err(Error::custom)
        }
        v => PaperRef::deserialize(v)
            .map(|p| vec![p])
            .map_err(Error::custom),
    }
}

/// The paper's description of a data set (e.g. a row of LPDT Table 4), kept as printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperRef {
    /// Which table, e.g. `LPDT Table 4`.
    pub table: String,
    /// The paper's abbreviation, e.g. `ABA`.
    pub abbreviation: String,
    /// Sample size n as printed in the paper.
    pub n: usize,
    /// Dimension d as printed in the paper; absent when the paper prints none (the
    /// DiPriMe paper gives only N: the manifest's `note` then compares `n_features` with
    /// the d the authors' code used, method card docs/methods/diprime.md §6.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d: Option<usize>,
}

/// Checks the values of a parsed manifest (`name` and `file` non-empty, `sha256` 64
/// lowercase hex digits, label column within the columns, `sensitivity` a permutation of
/// the feature indices).
fn validate(m: &Manifest, path: &Path) -> Result<(), DataError> {
    let field = |field: &str, message: String| DataError::ManifestField {
        path: path.to_path_buf(),
        field: field.to_string(),
        message,
    };
    if m.name.trim().is_empty() {
        return Err(field("name", "must not be empty".into()));
    }
    if m.file.trim().is_empty() {
        return Err(field(
            "file",
            "must not be empty (a file name relative to the data folder)".into(),
        ));
    }
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    if m.sha256.len() != 64 || !m.sha256.chars().all(hex) {
        return Err(field(
            "sha256",
            format!(
                "{:?} is not a sha256: expected 64 lowercase hex digits (as printed by `sha256sum`)",
                m.sha256
            ),
        ));
    }
    if super::file::is_parquet(Path::new(&m.file)) && !m.has_header {
        return Err(field(
            "has_header",
            "a Parquet file names its columns in its schema: set `has_header: true`".into(),
        ));
    }
    if let Some(manual) = &m.fetch.manual {
        if manual.trim().is_empty() {
            return Err(field(
                "fetch.manual",
                "must say how to obtain the file (instructions printed by `dp-repro data fetch`)"
                    .into(),
            ));
        }
        if !m.fetch.convert.is_empty() {
            return Err(field(
                "fetch",
                "give either `convert` (the file is downloaded) or `manual` (it is not), not both"
                    .into(),
            ));
        }
    } else if m.source.path.contains(';') || m.source.path.contains('!') {
        return Err(field(
            "fetch",
            format!(
                "source.path {:?} names several files or a member of an archive, which cannot \
                 be downloaded as one file: add `fetch: {{manual: \"how to make the file\"}}`",
                m.source.path
            ),
        ));
    }
    if let Some(ranking) = &m.sensitivity {
        let d = m.n_features;
        let mut seen = vec![false; d];
        for &j in ranking {
            if j >= d {
                return Err(field(
                    "sensitivity",
                    format!("feature index {j} is out of range: with n_features = {d} the features are 0..={} (0-based, label excluded)", d.saturating_sub(1)),
                ));
            }
            if std::mem::replace(&mut seen[j], true) {
                return Err(field(
                    "sensitivity",
                    format!("feature index {j} is listed twice: the ranking must list every feature 0..{d} once, most sensitive first"),
                ));
            }
        }
        if ranking.len() != d {
            return Err(field(
                "sensitivity",
                format!("lists {} features but n_features = {d}: the ranking must list every feature 0..{d} once, most sensitive first", ranking.len()),
            ));
        }
    }
    // With `encode`, n_features is the encoded d and says nothing of the file's width
    // (the encoding checks its columns when the file is loaded).
    if m.encode.is_none() && m.label_column > m.n_features {
        return Err(field(
            "label_column",
            format!(
                "{} is out of range: with n_features = {} the file has {} columns (valid: 0..={})",
                m.label_column,
                m.n_features,
                m.n_features + 1,
                m.n_features
            ),
        ));
    }
    Ok(())
}

/// Reads and validates one manifest file.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be read; [`DataError::ManifestYaml`] (with the
/// path, the 1-based line and column and a message in plain words, as for a spec: see
/// [`crate::yaml_error::explain`]) if it is empty, not valid YAML or does not fit the schema;
/// [`DataError::ManifestField`] if a value is invalid (e.g. a malformed `sha256`).
pub fn load_manifest(path: &Path) -> Result<Manifest, DataError> {
    let text = fs::read_to_string(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let yaml_error = |line: usize, column: usize, message: String| DataError::ManifestYaml {
        path: path.to_path_buf(),
        line: (line > 0).then_some(line),
        column: (column > 0).then_some(column),
        message,
    };
    if crate::yaml_error::is_blank(&text) {
        return Err(yaml_error(
            0,
            0,
            "the file is empty (no YAML content, only blank lines or comments)".into(),
        ));
    }
    let m: Manifest = serde_yaml::from_str(&text).map_err(|e| {
        let (line, column, message) = crate::yaml_error::explain(&e, &text);
        yaml_error(line, column, message)
    })?;
    validate(&m, path)?;
    Ok(m)
}

/// The manifest files `*.yaml` of the existing folders among `dirs`, keyed by file stem;
/// a stem found in an earlier folder shadows later ones. Missing folders are skipped.
fn manifest_files(dirs: &[PathBuf]) -> Result<BTreeMap<String, PathBuf>, DataError> {
    let mut found = BTreeMap::new();
    for dir in dirs {
        if !dir.is_dir() {
            continue;
        }
        let entries = fs::read_dir(dir).map_err(|source| DataError::Io {
            path: dir.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| DataError::Io {
                path: dir.clone(),
                source,
            })?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("yaml") || !path.is_file() {
                continue;
            }
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                found.entry(stem.to_string()).or_insert(path);
            }
        }
    }
    Ok(found)
}

/// Loads `path` and checks that its `name` equals the file stem `stem`.
fn load_named(stem: &str, path: &Path) -> Result<Manifest, DataError> {
    let m = load_manifest(path)?;
    if m.name != stem {
        return Err(DataError::ManifestField {
            path: path.to_path_buf(),
            field: "name".into(),
            message: format!(
                "is {:?} but the file is named {stem}.yaml; they must agree (valid: {stem:?})",
                m.name
            ),
        });
    }
    Ok(m)
}

/// Finds and loads the manifest `<name>.yaml` in the first of `dirs` that has it.
///
/// # Errors
/// [`DataError::UnknownDataset`] listing the folders searched and the valid names found
/// there if no folder has it; otherwise the errors of [`load_manifest`], and
/// [`DataError::ManifestField`] if the manifest's `name` differs from its file stem.
pub fn find_manifest(name: &str, dirs: &[PathBuf]) -> Result<Manifest, DataError> {
    let files = manifest_files(dirs)?;
    match files.get(name) {
        Some(path) => load_named(name, path),
        None => Err(DataError::UnknownDataset {
            name: name.to_string(),
            searched: dirs.to_vec(),
            valid: files.into_keys().collect(),
        }),
    }
}

/// Loads every manifest `*.yaml` in `dirs`, sorted by name. A name found in an earlier
/// folder shadows the same name in later ones; missing folders are skipped.
///
/// # Errors
/// The first error of [`load_manifest`], or [`DataError::ManifestField`] if a manifest's
/// `name` differs from its file stem.
pub fn list_manifests(dirs: &[PathBuf]) -> Result<Vec<Manifest>, DataError> {
    manifest_files(dirs)?
        .iter()
        .map(|(stem, path)| load_named(stem, path))
        .collect()
}

/// [`list_manifests`] for the commands that list or fetch data sets: finding no manifest
/// at all is an error (a `--manifests` folder that is empty, misspelled or not the
/// manifests'), not an empty list.
///
/// # Errors
/// Those of [`list_manifests`], and [`DataError::NoManifests`] naming the folders.
pub fn require_manifests(dirs: &[PathBuf]) -> Result<Vec<Manifest>, DataError> {
    let list = list_manifests(dirs)?;
    if list.is_empty() {
        return Err(DataError::NoManifests {
            searched: dirs.to_vec(),
        });
    }
    Ok(list)
}

/// The default manifest folders: `./datasets` if it exists, then the crate's own
/// `datasets/` (`CARGO_MANIFEST_DIR/datasets`, skipped if it is the same folder).
pub fn default_manifest_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let local = PathBuf::from("datasets");
    if local.is_dir() {
        dirs.push(local);
    }
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    let same = dirs.first().is_some_and(|d| {
        matches!(
            (fs::canonicalize(d), fs::canonicalize(&builtin)),
            (Ok(a), Ok(b)) if a == b
        )
    });
    if !same {
        dirs.push(builtin);
    }
    dirs
}

/// A transformation of the downloaded bytes, declared in a manifest's `fetch.convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conversion {
    /// Every CR LF pair becomes LF (Windows line endings to Unix ones); a lone CR stays.
    CrlfToLf,
}

impl Conversion {
    /// The name used in manifests, e.g. `crlf_to_lf`.
    pub fn name(&self) -> &'static str {
        match self {
            Conversion::CrlfToLf => "crlf_to_lf",
        }
    }

    /// Applies the conversion to a whole file's bytes.
    pub fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Conversion::CrlfToLf => {
                let mut out = Vec::with_capacity(bytes.len());
                for (i, &b) in bytes.iter().enumerate() {
                    if !(b == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
                        out.push(b);
                    }
                }
                out
            }
        }
    }
}

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
    /// Categorical columns replaced by pandas category codes: the index (0, 1, …) of the
    /// value among the column's distinct values in sorted order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub category_codes: Vec<String>,
    /// Columns read from a timestamp column, appended after the file's columns in this
    /// order. The timestamp column itself must be in `drop`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derive: Vec<Derived>,
    /// Encoded features (by column name: kept, coded or derived; not one-hot) whose values
    /// are category codes; their indices become
    /// [`Dataset::categorical`](super::Dataset::categorical).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categorical: Vec<String>,
    /// Numeric encoded features (by column name, not `categorical`) that the 5-bin
    /// discretisation of DP-RF and DP-DF (method card docs/methods/diprime.md §4.7) leaves as they are;
    /// their indices become [`Dataset::unbinned`](super::Dataset::unbinned).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unbinned: Vec<String>,
    /// How the regression target is rescaled at load (absent: left as in the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
}

/// A feature read from a timestamp column (`encode.derive`), e.g. the month of
/// `"2016-01-11 17:00:00"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Derived {
    /// Name of the new column (for `categorical`, `unbinned` and error messages); must
    /// differ from the file's column names.
    pub name: String,
    /// The timestamp column it is read from; that column must also be in `drop`.
    pub from: String,
    /// The timestamp's layout, date and time, in strftime syntax as Python's
    /// `datetime.strptime` and chrono read it, e.g. `"%Y-%m-%d %H:%M:%S"`.
    pub format: String,
    /// Which part of the timestamp becomes the value.
    pub part: DatePart,
}

/// A part of a timestamp, as Python's `datetime` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatePart {
    /// The year, e.g. 2016.
    Year,
    /// The month, 1 (January) to 12.
    Month,
    /// The day of the month, 1 to 31.
    Day,
    /// The day of the week, 0 (Monday) to 6 (Sunday), as `datetime.weekday()`.
    Weekday,
    /// The hour, 0 to 23.
    Hour,
    /// The minute, 0 to 59.
    Minute,
}

/// What loading does to a regression target (`encode.target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The rescaling, computed over the loaded rows of the whole file (before any split).
    pub rescale: Rescale,
}

/// A rescaling of the regression target to [0, 1] (DiPriMe, method card docs/methods/diprime.md §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rescale {
    /// `(y − min y) / (max y − min y)`: onto [0, 1] exactly. Needs max y > min y.
    MinMax,
    /// `y / max y`: into [min y / max y, 1]. Needs min y ≥ 0 and max y > 0.
    Max,
}

/// The data file of manifest `m`, present and with the manifest's sha256.
///
/// # Errors
/// [`DataError::NoDataDir`], [`DataError::MissingFile`], [`DataError::ChecksumMismatch`].
pub(crate) fn verified_path(m: &Manifest, data_dir: Option<&Path>) -> Result<PathBuf, DataError> {
    let path = data_file(m, data_dir)?;
    verify_sha256(m, &path)?;
    Ok(path)
}

/// The path of manifest `m`'s data file in `data_dir`, which must exist.
///
/// # Errors
/// [`DataError::NoDataDir`], [`DataError::MissingFile`].
pub(crate) fn data_file(m: &Manifest, data_dir: Option<&Path>) -> Result<PathBuf, DataError> {
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
    Ok(path)
}

/// Checks that the file at `path` has manifest `m`'s sha256.
///
/// # Errors
/// [`DataError::ChecksumMismatch`], or [`DataError::Io`] if it cannot be read.
pub(crate) fn verify_sha256(m: &Manifest, path: &Path) -> Result<(), DataError> {
    let actual = sha256_file(path)?;
    if actual != m.sha256.to_ascii_lowercase() {
        return Err(DataError::ChecksumMismatch {
            path: path.to_path_buf(),
            expected: m.sha256.clone(),
            actual,
        });
    }
    Ok(())
}
/// Checks that a loaded data set has the manifest's `n_rows` (file rows, dropped ones
/// included) and `n_features`.
///
/// # Errors
/// [`DataError::ShapeMismatch`].
pub(crate) fn check_shape(m: &Manifest, path: &Path, loaded: &Loaded) -> Result<(), DataError> {
    for (field, expected, found) in [
        ("n_rows", m.n_rows, loaded.dataset.n() + loaded.dropped_rows),
        ("n_features", m.n_features, loaded.dataset.d()),
    ] {
        if expected != found {
            return Err(DataError::ShapeMismatch {
                name: m.name.clone(),
                path: path.to_path_buf(),
                field,
                expected,
                found,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 0\n\
        has_header: false\nsha256: 0000000000000000000000000000000000000000000000000000000000000000\n\
        n_rows: 3\nn_features: 2\nsource: {repository: a/b, commit: c, path: p.csv}\n";

    fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
        let p = dir.join(file);
        fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn parses_without_optional_fields() {
        let dir = tempfile::tempdir().unwrap();
        let m = load_manifest(&write(dir.path(), "toy.yaml", GOOD)).unwrap();
        assert_eq!(m.name, "toy");
        assert_eq!(m.task, Task::Regression);
        assert!(m.paper.is_empty() && m.note.is_none());
        assert_eq!(m.missing, MissingPolicy::Error);
        assert!(m.fetch.is_default());
    }

    #[test]
    fn unknown_field_is_rejected_with_location() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "toy.yaml", &format!("{GOOD}colour: red\n"));
        let err = load_manifest(&p).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("colour"), "{msg}");
        assert!(msg.contains(&format!("{}:", p.display())), "{msg}");
        assert!(
            matches!(err, DataError::ManifestYaml { line: Some(_), .. }),
            "{msg}"
        );
    }

    #[test]
    fn paper_is_one_map_or_a_list_and_fetch_and_missing_parse() {
        let dir = tempfile::tempdir().unwrap();
        let one = "paper: {table: LPDT Table 4, abbreviation: TOY, n: 3, d: 2}\n";
        let m = load_manifest(&write(dir.path(), "toy.yaml", &format!("{GOOD}{one}"))).unwrap();
        assert_eq!(m.paper.len(), 1);
        let two = "paper:\n  - {table: LPDT Table 4, abbreviation: TOY, n: 3, d: 2}\n  \
                   - {table: HistOfTree Table 5, abbreviation: TY, n: 3, d: 2}\n\
                   missing: drop_rows\nfetch: {convert: [crlf_to_lf]}\n";
        let m = load_manifest(&write(dir.path(), "toy.yaml", &format!("{GOOD}{two}"))).unwrap();
        assert_eq!(m.paper[1].abbreviation, "TY");
        assert_eq!(m.missing, MissingPolicy::DropRows);
        assert_eq!(m.fetch.convert, vec![Conversion::CrlfToLf]);
        let bad = "missing: drop\n";
        let msg = load_manifest(&write(dir.path(), "toy.yaml", &format!("{GOOD}{bad}")))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("drop_rows"), "{msg}");
    }

    #[test]
    fn several_source_files_need_manual_fetch() {
        let dir = tempfile::tempdir().unwrap();
        let text = GOOD.replace("path: p.csv", "path: a.csv;b.csv");
        let msg = load_manifest(&write(dir.path(), "toy.yaml", &text))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("`fetch`") && msg.contains("manual"), "{msg}");
        let text = format!("{text}fetch: {{manual: \"concatenate a.csv and b.csv\"}}\n");
        let m = load_manifest(&write(dir.path(), "toy.yaml", &text)).unwrap();
        assert!(m.fetch.manual.unwrap().contains("concatenate"));
        let text = format!("{GOOD}fetch: {{manual: x, convert: [crlf_to_lf]}}\n");
        let msg = load_manifest(&write(dir.path(), "toy.yaml", &text))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("not both"), "{msg}");
    }

    #[test]
    fn bad_sha_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "toy.yaml", &GOOD.replace("0000000000", "ZZ"));
        let msg = load_manifest(&p).unwrap_err().to_string();
        assert!(
            msg.contains("`sha256`") && msg.contains("64 lowercase hex"),
            "{msg}"
        );
    }

    #[test]
    fn name_must_match_file_stem() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "other.yaml", GOOD);
        let dirs = vec![dir.path().to_path_buf()];
        let msg = find_manifest("other", &dirs).unwrap_err().to_string();
        assert!(
            msg.contains("other.yaml") && msg.contains("`name`"),
            "{msg}"
        );
    }

    #[test]
    fn earlier_dirs_shadow_later_and_missing_dirs_are_skipped() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        write(a.path(), "toy.yaml", GOOD);
        write(
            b.path(),
            "toy.yaml",
            &GOOD.replace("n_rows: 3", "n_rows: 4"),
        );
        write(
            b.path(),
            "zed.yaml",
            &GOOD.replace("name: toy", "name: zed"),
        );
        let dirs = vec![
            a.path().join("missing"),
            a.path().to_path_buf(),
            b.path().to_path_buf(),
        ];
        let all = list_manifests(&dirs).unwrap();
        let names: Vec<_> = all.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["toy", "zed"]);
        assert_eq!(all[0].n_rows, 3);
        assert_eq!(find_manifest("toy", &dirs).unwrap().n_rows, 3);
    }
}
