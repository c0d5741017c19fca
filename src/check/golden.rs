//! Golden numbers: our own `summary.csv` against a blessed copy.
//!
//! Every result is seeded (docs/architecture.md, "Determinism: seeded streams") and bit-identical whatever the
//! thread count, so by default the comparison is exact: the parsed `f64` of `mean`, `std`
//! and `median` must be equal (the files hold shortest round-trip decimals, so equal
//! parsed values mean equal bits). Where a platform's floating point may differ (e.g. a
//! libm), the spec declares a relative tolerance.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{CheckError, CsvTable};
use crate::spec::golden::validate_tolerance;
pub use crate::spec::golden::GoldenSpec;

/// The outcome of a golden comparison. Any non-empty list is a regression.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GoldenCheck {
    /// The golden file compared with.
    pub golden_file: PathBuf,
    /// The relative tolerance used (0: exact).
    pub relative_tolerance: f64,
    /// Number of rows present in both files.
    pub compared: usize,
    /// Rows whose mean, std, median or reps changed, as `<key>: mean old → new, …`, in
    /// the order of our summary.
    pub changed: Vec<String>,
    /// Keys in the golden file but not in our summary.
    pub missing: Vec<String>,
    /// Keys in our summary but not in the golden file.
    pub extra: Vec<String>,
}

impl GoldenCheck {
    /// Whether any row changed, is missing or is extra.
    pub fn regressed(&self) -> bool {
        !(self.changed.is_empty() && self.missing.is_empty() && self.extra.is_empty())
    }
}

struct GoldenRow {
    key: String,
    mean: f64,
    std: f64,
    median: f64,
    reps: usize,
}

/// Reads a summary.csv into rows in file order, rejecting duplicate keys.
fn read_summary(path: &Path) -> Result<Vec<GoldenRow>, CheckError> {
    let t = CsvTable::read(
        path,
        &[
            "dataset", "method", "epsilon", "params", "mean", "std", "median", "reps",
        ],
    )?;
    let mut out = Vec::with_capacity(t.records.len());
    let mut first: HashMap<String, u64> = HashMap::new();
    for (line, r) in &t.records {
        let line = *line;
        let key = row_key(
            &t.text(line, r, "dataset")?,
            &t.text(line, r, "method")?,
            t.get(r, "epsilon"),
            t.get(r, "params"),
        );
        if let Some(&f) = first.get(&key) {
            return Err(CheckError::Duplicate {
                path: path.to_path_buf(),
                line,
                first: f,
                key,
            });
        }
        first.insert(key.clone(), line);
        out.push(GoldenRow {
            key,
            mean: t.f64(line, r, "mean")?,
            std: t.f64(line, r, "std")?,
            median: t.f64(line, r, "median")?,
            reps: t.usize(line, r, "reps")?,
        });
    }
    Ok(out)
}

/// The key of a summary row, e.g. `abalone / LPDT-M / ε=2 / max_depth=3`: data set,
/// method, ε as written (`—` when empty) and grid point.
pub fn row_key(dataset: &str, method: &str, epsilon: &str, params: &str) -> String {
    let eps = if epsilon.is_empty() { "—" } else { epsilon };
    format!("{dataset} / {method} / ε={eps} / {params}")
}

/// The standard deviation and repetition count of every row of a blessed `summary.csv`,
/// keyed by [`row_key`]: the reference spread a damaged run cannot widen
/// ([`super::spread::cap_by_golden`]).
///
/// # Errors
/// As [`compare_golden`] for an unreadable file or a duplicate key.
pub fn golden_spreads(golden: &Path) -> Result<HashMap<String, (f64, usize)>, CheckError> {
    Ok(read_summary(golden)?
        .into_iter()
        .map(|r| (r.key, (r.std, r.reps)))
        .collect())
}

/// Whether `new` equals `old` (both NaN count as equal), exactly when `tol` = 0, else
/// within `tol × |old|`.
fn same(old: f64, new: f64, tol: f64) -> bool {
    if old.to_bits() == new.to_bits() || old == new || (old.is_nan() && new.is_nan()) {
        return true;
    }
    tol > 0.0 && (new - old).abs() <= tol * old.abs()
}

/// Compares `summary` (a `summary.csv` just produced) with the blessed `golden` file,
/// row by row keyed by (dataset, method, ε, params) as written: mean, std and median must
/// be equal as parsed `f64` when `relative_tolerance` is 0, else within it relative to
/// the golden value; reps must be equal.
///
/// # Errors
/// [`CheckError::Invalid`] for a negative or non-finite tolerance; [`CheckError::Table`]
/// ([`super::CsvError`]) for an
/// unreadable file; [`CheckError::Duplicate`] for a key that appears twice in one file.
pub fn compare_golden(
    summary: &Path,
    golden: &Path,
    relative_tolerance: f64,
) -> Result<GoldenCheck, CheckError> {
    validate_tolerance(relative_tolerance)?;
    let ours = read_summary(summary)?;
    let old = read_summary(golden)?;
    let old_index: HashMap<&str, &GoldenRow> = old.iter().map(|r| (r.key.as_str(), r)).collect();
    let ours_keys: std::collections::HashSet<&str> = ours.iter().map(|r| r.key.as_str()).collect();
    let mut check = GoldenCheck {
        golden_file: golden.to_path_buf(),
        relative_tolerance,
        ..GoldenCheck::default()
    };
    for n in &ours {
        let Some(o) = old_index.get(n.key.as_str()) else {
            check.extra.push(n.key.clone());
            continue;
        };
        check.compared += 1;
        let mut diffs = Vec::new();
        for (name, a, b) in [
            ("mean", o.mean, n.mean),
            ("std", o.std, n.std),
            ("median", o.median, n.median),
        ] {
            if !same(a, b, relative_tolerance) {
                diffs.push(format!("{name} {a} → {b}"));
            }
        }
        if o.reps != n.reps {
            diffs.push(format!("reps {} → {}", o.reps, n.reps));
        }
        if !diffs.is_empty() {
            check
                .changed
                .push(format!("{}: {}", n.key, diffs.join(", ")));
        }
    }
    check.missing = old
        .iter()
        .filter(|r| !ours_keys.contains(r.key.as_str()))
        .map(|r| r.key.clone())
        .collect();
    Ok(check)
}

/// Blesses `summary`: copies it byte for byte to `golden`, creating the parent folders.
///
/// # Errors
/// [`CheckError::Read`] if `summary` cannot be read, [`CheckError::Write`] if a folder or
/// `golden` cannot be written.
pub fn bless(summary: &Path, golden: &Path) -> Result<(), CheckError> {
    let bytes = std::fs::read(summary).map_err(|source| CheckError::Read {
        path: summary.to_path_buf(),
        source,
    })?;
    if let Some(parent) = golden.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| CheckError::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(golden, bytes).map_err(|source| CheckError::Write {
        path: golden.to_path_buf(),
        source,
    })
}
