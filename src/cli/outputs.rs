//! What several commands write or print after they work: re-rendered folders, refitted
//! figures, repetition warnings and the list of files written.

use super::failure::{bad_input, failed, run_failure, Failure};
use super::inputs::{load_experiment, recorded_repetitions};
use crate::data::resolve_data_dir;
use crate::spec::Experiment;
use crate::summary::finish;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// Draws the spec's figures that refit one repetition (fitted curves, leaf occupancy), so
/// file data sets are loaded again; synthetic ones need no files.
pub(super) fn draw_refits(
    exp: &Experiment,
    data_dir: Option<&Path>,
    out: &Path,
) -> Result<Vec<PathBuf>, Failure> {
    if exp.spec.curves.is_empty() && exp.spec.leaf_occupancy.is_empty() {
        return Ok(Vec::new());
    }
    let data = crate::run::load_datasets(exp, data_dir).map_err(run_failure)?;
    let mut files =
        crate::run::curves::render_curves(exp, &data, out).map_err(|e| failed(anyhow!(e)))?;
    files.extend(
        crate::run::occupancy::render_leaf_occupancy(exp, &data, out)
            .map_err(|e| failed(anyhow!(e)))?,
    );
    Ok(files)
}

/// Re-renders the outputs of a results folder (locked by the caller) from its runs.csv
/// and spec.yaml, prints the tables as Markdown, and lists the files written on stderr.
pub(super) fn render_folder(dir: &Path, manifests: Option<PathBuf>) -> Result<(), Failure> {
    let (mut exp, _) = load_experiment(&dir.join("spec.yaml"), manifests)?;
    if let Some(r) = recorded_repetitions(dir) {
        exp.repetitions = r;
    }
    let done = finish(&exp, dir).map_err(|e| bad_input(anyhow!(e)))?;
    warn_repetitions(&exp);
    let curves = draw_refits(&exp, resolve_data_dir(None).as_deref(), dir)?;
    for (_, md) in &done.markdown {
        println!("{md}");
    }
    print_written(done.files.iter().chain(&curves));
    Ok(())
}

/// Prints on stderr the warning of every table whose marks need more repetitions than
/// were run.
pub(super) fn warn_repetitions(exp: &crate::spec::Experiment) {
    for w in crate::summary::table::repetition_warnings(exp) {
        eprintln!("{w}");
    }
}

/// Lists written files on stderr, one per line.
pub(super) fn print_written<'a>(files: impl Iterator<Item = &'a PathBuf>) {
    let files: Vec<&PathBuf> = files.collect();
    eprintln!("wrote {} files:", files.len());
    for f in files {
        eprintln!("  {}", f.display());
    }
}
