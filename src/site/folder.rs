//! What the site reads of one results folder: the files `dp-repro run` and `check`
//! wrote (run.json, spec.yaml, check.csv, audit.csv, ledger.csv, the rendered tables and
//! figures). It reads files only, so the site needs neither the runner nor the data.

use super::SiteError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One row of `check.csv` (every column read as text; the columns a file of an older
/// version lacks are empty).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CheckRow {
    /// `cell`, `anchor`, `rank_sum`, `epsilon_order`, `epsilon_match_method`, `claim`,
    /// `suspect` or `golden`.
    pub kind: String,
    /// A cell's reported table (file stem), a rank sum's table.
    pub table: String,
    /// Method label (a claim's id).
    pub method: String,
    /// Data set (our name).
    pub dataset: String,
    /// ε as text; empty for a non-private cell.
    pub epsilon: String,
    /// The paper's value (a claim: the data sets it needs).
    pub reported: String,
    /// Ours (a cell: the mean over repetitions; a claim: the data sets it holds on).
    pub reproduced: String,
    /// Standard error of our mean.
    pub std_error: String,
    /// Repetitions.
    pub reps: String,
    /// The largest |ours − paper| accepted.
    pub tolerance: String,
    /// A known deviation's band.
    pub band: String,
    /// `ok`, `deviation`, `regression`, `not_run` (`suspect` for a suspect repetition).
    pub verdict: String,
    /// The reason (a deviation's, why not run, a claim's details).
    pub reason: String,
    /// Where the paper's value comes from (file:line), a claim's words.
    pub source: String,
    /// The authors' code's mean on the cell, when it was run.
    pub authors_code: String,
    /// Whom the authors' code agrees with.
    pub authors_agreement: String,
    /// The paper's 95 % half-width, when the reported files give one.
    pub reported_halfwidth: String,
}

/// One row of `audit.csv`, the columns the site shows.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditRow {
    /// Method label.
    pub method: String,
    /// The audited part of the release.
    pub part: String,
    /// The ε the part claims.
    pub claimed_epsilon: String,
    /// The certified lower bound on the privacy loss.
    pub audited_epsilon: String,
    /// `consistent` or `violation` (empty when not audited).
    pub verdict: String,
}

/// One row of `ledger.csv`, the columns the site shows.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LedgerRow {
    /// Method label.
    pub method: String,
    /// The column's ε.
    pub epsilon: String,
    /// What the worst user paid in one fit.
    pub epsilon_per_fit: String,
    /// And once the cell's selection is counted.
    pub epsilon_with_tuning: String,
    /// The findings (`;`-separated parts).
    pub findings: String,
}

/// One row of `marks.csv`: the marks of one cell of the run's rendered tables.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct MarkRow {
    /// The rendered table's name.
    pub table: String,
    /// The method block of the cell's ε group (empty: none).
    pub block: String,
    /// Data set (our name).
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// ε as text; empty for a non-private column.
    pub epsilon: String,
    /// Printed bold (`1`).
    pub bold: String,
    /// Printed underlined (`1`).
    pub underline: String,
    /// Printed with `*` (`1`).
    pub star: String,
}

/// A known violation the spec lists (`audit.known_violations`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(default)]
pub struct KnownViolation {
    /// Method label or `*`.
    pub method: String,
    /// The part of the release.
    pub part: String,
    /// Why it is known.
    pub why: String,
}

/// One results folder as the site reads it.
#[derive(Debug, Clone)]
pub struct ResultsFolder {
    /// The folder.
    pub path: PathBuf,
    /// The spec's name.
    pub name: String,
    /// The spec's description.
    pub description: String,
    /// The spec's seed.
    pub seed: String,
    /// The spec's repetitions.
    pub spec_repetitions: String,
    /// The spec's known violations.
    pub known: Vec<KnownViolation>,
    /// run.json (empty when absent).
    pub run: serde_json::Value,
    /// check.csv's rows.
    pub check: Vec<CheckRow>,
    /// audit.csv's rows (empty when the check did not audit).
    pub audit: Vec<AuditRow>,
    /// ledger.csv's rows (empty when absent).
    pub ledger: Vec<LedgerRow>,
    /// marks.csv's rows (empty when the folder predates it).
    pub marks: Vec<MarkRow>,
    /// The rendered tables: (name, Markdown text) of each `table-*.md`, in name order.
    pub tables: Vec<(String, String)>,
    /// The figures' SVG files (`figures/*.svg`), in name order.
    pub figures: Vec<PathBuf>,
    /// Every CSV file of the folder (and of `figures/`), in name order.
    pub csv_files: Vec<PathBuf>,
}

fn read_csv<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, SiteError> {
    let mut r = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .map_err(|e| SiteError::Csv {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    r.deserialize()
        .enumerate()
        .map(|(i, row)| {
            row.map_err(|e| SiteError::Csv {
                path: path.to_path_buf(),
                message: format!("row {}: {e}", i + 2),
            })
        })
        .collect()
}

/// [`read_csv`] of a file that may be absent (then no rows).
fn optional_csv<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, SiteError> {
    if path.is_file() {
        read_csv(path)
    } else {
        Ok(Vec::new())
    }
}

fn sorted_files(dir: &Path, suffix: &str, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(suffix) && n.starts_with(prefix))
        })
        .collect();
    out.sort();
    out
}

impl ResultsFolder {
    /// Reads `path`, a folder `dp-repro check` has written into.
    ///
    /// # Errors
    /// [`SiteError::NotChecked`] when it has no spec.yaml or check.csv (with the command
    /// that writes them), [`SiteError::Csv`] naming the file and row of a malformed CSV,
    /// [`SiteError::Io`] for a file that cannot be read.
    pub fn read(path: &Path) -> Result<Self, SiteError> {
        for file in ["spec.yaml", "check.csv"] {
            if !path.join(file).is_file() {
                return Err(SiteError::NotChecked {
                    folder: path.to_path_buf(),
                    file,
                });
            }
        }
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |e: std::io::Error| SiteError::Io { path: p, source: e }
        };
        let spec_path = path.join("spec.yaml");
        let spec_text = std::fs::read_to_string(&spec_path).map_err(io(&spec_path))?;
        let spec: serde_yaml::Value =
            serde_yaml::from_str(&spec_text).map_err(|e| SiteError::Csv {
                path: spec_path.clone(),
                message: e.to_string(),
            })?;
        let text = |key: &str| match spec.get(key) {
            Some(serde_yaml::Value::String(s)) => s.clone(),
            Some(serde_yaml::Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let known = spec
            .get("audit")
            .and_then(|a| a.get("known_violations"))
            .and_then(|k| serde_yaml::from_value::<Vec<KnownViolation>>(k.clone()).ok())
            .unwrap_or_default();
        let run_path = path.join("run.json");
        let run = match std::fs::read_to_string(&run_path) {
            Ok(t) => serde_json::from_str(&t).map_err(|e| SiteError::Csv {
                path: run_path.clone(),
                message: e.to_string(),
            })?,
            Err(_) => serde_json::Value::Null,
        };
        let mut tables = Vec::new();
        for p in sorted_files(path, ".md", "table-") {
            let name = p
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .trim_start_matches("table-")
                .to_string();
            if name == "audit" {
                continue;
            }
            tables.push((name, std::fs::read_to_string(&p).map_err(io(&p))?));
        }
        let mut csv_files = sorted_files(path, ".csv", "");
        csv_files.extend(sorted_files(&path.join("figures"), ".csv", ""));
        Ok(ResultsFolder {
            path: path.to_path_buf(),
            name: text("name"),
            description: text("description"),
            seed: text("seed"),
            spec_repetitions: text("repetitions"),
            known,
            run,
            check: read_csv(&path.join("check.csv"))?,
            audit: optional_csv(&path.join("audit.csv"))?,
            ledger: optional_csv(&path.join("ledger.csv"))?,
            marks: optional_csv(&path.join("marks.csv"))?,
            tables,
            figures: sorted_files(&path.join("figures"), ".svg", ""),
            csv_files,
        })
    }

    /// run.json's field `key` as text (empty when absent).
    pub fn run_text(&self, key: &str) -> String {
        match self.run.get(key) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    }

    /// The ledger's largest ε per fit and with tuning of each method, with its findings.
    pub fn ledger_by_method(&self) -> BTreeMap<String, (f64, f64, Vec<String>)> {
        let mut out: BTreeMap<String, (f64, f64, Vec<String>)> = BTreeMap::new();
        for r in &self.ledger {
            let e = out
                .entry(r.method.clone())
                .or_insert((f64::NAN, f64::NAN, Vec::new()));
            let ratio = |v: &str| {
                let (v, eps) = (v.parse::<f64>(), r.epsilon.parse::<f64>());
                match (v, eps) {
                    (Ok(v), Ok(eps)) if eps > 0.0 => v / eps,
                    _ => f64::NAN,
                }
            };
            e.0 = e.0.max(ratio(&r.epsilon_per_fit));
            e.1 = e.1.max(ratio(&r.epsilon_with_tuning));
            for f in r
                .findings
                .split(';')
                .map(str::trim)
                .filter(|f| !f.is_empty())
            {
                if !e.2.iter().any(|x| x == f) {
                    e.2.push(f.to_string());
                }
            }
        }
        out
    }
}
