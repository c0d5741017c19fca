//! The data and splits of a run written out, so that another implementation (the authors'
//! own code, `scripts/authors-*.py`) runs on exactly the rows ours used
//! (docs/check.md, "The authors' code as a third column").
//!
//! For every file data set of a spec the folder gets:
//! - `<data set>.csv`: the data set as the run loads it (n×(1+d): `label` first, then the
//!   features `x1..xd`), after dropped rows, encodings and, with `scaling: whole`, the
//!   min-max scaling over every row (docs/methods/lpdt.md §8.3);
//! - `splits.csv` (tidy, one row per data row and repetition): `dataset, repetition, part,
//!   row`, where `part` is `public`, `private` or `test` and `row` the 0-based row of
//!   `<data set>.csv`, in the order the run's parts hold them;
//! - `splits.json`: the spec, its seed, the scaling still to apply (`public`: min-max
//!   fitted on the public rows, applied to all three parts; `whole` and `none`: nothing
//!   more), and per data set its file, shape, task, categorical features and sha256.

use super::{load_datasets, out_err, split_indices, RunError};
use crate::data::{sha256_file, Task};
use crate::spec::raw::Scaling;
use crate::spec::Experiment;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One exported data set, as listed in `splits.json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExportedDataset {
    /// The data set's name in the spec (and the stem of its file).
    pub name: String,
    /// The file written, relative to the export folder.
    pub file: String,
    /// Rows of the file (n).
    pub rows: usize,
    /// Features (d).
    pub features: usize,
    /// `regression` or `classification`.
    pub task: &'static str,
    /// 0-based feature indices (into `x1..xd`, so feature k is column `x{k+1}`) that are
    /// categorical codes.
    pub categorical: Vec<usize>,
    /// sha256 of the file written.
    pub sha256: String,
}

/// What `splits.json` holds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SplitsManifest {
    /// The spec's path as given.
    pub spec: String,
    /// The spec's seed (every split stream derives from it).
    pub seed: u64,
    /// Scaling still to apply to the parts: `public` (min-max on the public rows),
    /// `whole` (already applied to the file) or `none`.
    pub scaling: &'static str,
    /// Repetitions exported (1..=repetitions).
    pub repetitions: usize,
    /// The data sets, in spec order.
    pub datasets: Vec<ExportedDataset>,
}

/// Writes the data sets of `exp` (those named in `only`, or every file data set when it is
/// empty) and the splits of repetitions 1..=`reps` into `out` (created if missing).
/// Synthetic data sets are skipped (their rows are drawn per repetition, not split).
///
/// # Errors
/// A data set that cannot be loaded or split ([`RunError`]), or a file that cannot be
/// written ([`RunError::Output`], naming it). Names in `only` must be file data sets of
/// the spec (the command line checks them first).
pub fn export_splits(
    exp: &Experiment,
    data_dir: Option<&Path>,
    out: &Path,
    reps: usize,
    only: &[String],
) -> Result<SplitsManifest, RunError> {
    let io = |path: &Path, e: std::io::Error| out_err(path, e);
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let data = load_datasets(exp, data_dir)?;
    let splits_path = out.join("splits.csv");
    let mut splits = std::io::BufWriter::new(
        std::fs::File::create(&splits_path).map_err(|e| io(&splits_path, e))?,
    );
    writeln!(splits, "dataset,repetition,part,row").map_err(|e| io(&splits_path, e))?;
    let mut exported = Vec::new();
    for (plan, ds) in exp.datasets.iter().zip(&data) {
        let Some(ds) = ds else { continue };
        if !only.is_empty() && !only.contains(&plan.name) {
            continue;
        }
        let file = format!("{}.csv", plan.name);
        let path = out.join(&file);
        write_dataset(&path, ds).map_err(|e| io(&path, e))?;
        for rep in 1..=reps {
            let s = split_indices(exp, plan, ds, rep)?;
            for (part, rows) in [
                ("public", &s.public),
                ("private", &s.private),
                ("test", &s.test),
            ] {
                for r in rows.iter() {
                    writeln!(splits, "{},{rep},{part},{r}", plan.name)
                        .map_err(|e| io(&splits_path, e))?;
                }
            }
        }
        exported.push(ExportedDataset {
            name: plan.name.clone(),
            rows: ds.n(),
            features: ds.x.d,
            task: match ds.task {
                Task::Regression => "regression",
                Task::Classification => "classification",
            },
            categorical: ds.categorical.clone(),
            sha256: sha256_file(&path).map_err(|e| out_err(&path, e))?,
            file,
        });
    }
    splits.flush().map_err(|e| io(&splits_path, e))?;
    let manifest = SplitsManifest {
        spec: exp.path.display().to_string(),
        seed: exp.spec.seed,
        scaling: match exp.scaling {
            Scaling::Whole => "whole",
            Scaling::Public => "public",
            Scaling::None => "none",
        },
        repetitions: reps,
        datasets: exported,
    };
    let json_path: PathBuf = out.join("splits.json");
    let text = serde_json::to_string_pretty(&manifest).expect("plain data serializes");
    std::fs::write(&json_path, text + "\n").map_err(|e| io(&json_path, e))?;
    Ok(manifest)
}

/// `ds` (n×d) as CSV: a `label,x1..xd` header, then one row per data row with every value
/// in Rust's shortest round-trip form, so a reader parses back the very f64 the run used.
fn write_dataset(path: &Path, ds: &crate::data::Dataset) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let header: Vec<String> = std::iter::once("label".to_string())
        .chain((1..=ds.x.d).map(|k| format!("x{k}")))
        .collect();
    writeln!(w, "{}", header.join(","))?;
    for i in 0..ds.n() {
        write!(w, "{}", ds.y[i])?;
        for v in ds.x.row(i) {
            write!(w, ",{v}")?;
        }
        writeln!(w)?;
    }
    w.flush()
}
