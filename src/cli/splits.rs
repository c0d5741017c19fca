//! `dp-repro splits`: a spec's data sets and the rows of every repetition's public,
//! private and test parts written out, for running the authors' code on the same data.

use super::failure::{bad_input, run_failure, Failure};
use super::inputs::load_experiment;
use crate::data::resolve_data_dir;
use std::path::PathBuf;

/// The flags of `dp-repro splits`.
#[derive(clap::Args)]
pub(super) struct SplitsArgs {
    /// The spec file (YAML).
    spec: PathBuf,
    /// Folder to write `<data set>.csv`, `splits.csv` and `splits.json` into (created if
    /// missing; files of the same names are replaced).
    #[arg(long)]
    out: PathBuf,
    /// Repetitions to export (1..=N; default: the spec's `repetitions`).
    #[arg(long)]
    reps: Option<usize>,
    /// Only these data sets (comma-separated names from the spec; default: every file data
    /// set).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
    /// folder; see `dp-repro data list`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Folder of data set manifests.
    #[arg(long)]
    manifests: Option<PathBuf>,
}

/// Writes the export and prints what it wrote.
pub(super) fn execute(args: SplitsArgs) -> Result<(), Failure> {
    let (exp, _) = load_experiment(&args.spec, args.manifests)?;
    let names: Vec<&str> = exp
        .datasets
        .iter()
        .filter(|p| !p.source.is_synthetic())
        .map(|p| p.name.as_str())
        .collect();
    if let Some(bad) = args.datasets.iter().find(|n| !names.contains(&n.as_str())) {
        let hint = crate::suggest::did_you_mean(bad, names.iter().copied());
        return Err(bad_input(anyhow::anyhow!(
            "--datasets: `{bad}` is not a file data set of {}{hint}; it has: {}",
            args.spec.display(),
            names.join(", ")
        )));
    }
    if names.is_empty() {
        return Err(bad_input(anyhow::anyhow!(
            "{}: no file data set to export (synthetic data sets are drawn per repetition, not split)",
            args.spec.display()
        )));
    }
    let reps = args.reps.unwrap_or(exp.repetitions);
    if reps == 0 {
        return Err(bad_input(anyhow::anyhow!("--reps: must be at least 1")));
    }
    let data_dir = resolve_data_dir(args.data_dir.as_deref());
    let m = crate::run::splits_export::export_splits(
        &exp,
        data_dir.as_deref(),
        &args.out,
        reps,
        &args.datasets,
    )
    .map_err(run_failure)?;
    println!(
        "{}: {} data sets, repetitions 1..={reps}, scaling still to apply: {}",
        args.out.display(),
        m.datasets.len(),
        m.scaling
    );
    for d in &m.datasets {
        println!(
            "  {} ({} rows × {} features, {})",
            d.file, d.rows, d.features, d.task
        );
    }
    Ok(())
}
