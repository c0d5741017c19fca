//! `dp-repro table`: a finished run's summaries and tables rendered again.

use super::failure::{bad_input, Failure};
use super::outputs::render_folder;
use anyhow::anyhow;
use std::path::PathBuf;

/// The flags of `dp-repro table`.
#[derive(clap::Args)]
pub(super) struct TableArgs {
    /// A results folder written by `dp-repro run`, `check` or `merge` (it holds its
    /// resolved spec.yaml and the data set manifests, so any working directory works).
    results_dir: PathBuf,
    /// Folder of data set manifests.
    #[arg(long)]
    manifests: Option<PathBuf>,
}

/// Renders the results folder again, under its lock.
pub(super) fn execute(args: TableArgs) -> Result<(), Failure> {
    let TableArgs {
        results_dir,
        manifests,
    } = args;
    if !results_dir.join("spec.yaml").is_file() {
        return Err(bad_input(anyhow!(
            "{}: not a results folder (no spec.yaml); pass the folder `dp-repro run` wrote",
            results_dir.display()
        )));
    }
    let _lock =
        crate::run::OutputFolder::lock(&results_dir).map_err(|e| bad_input(e.for_table()))?;
    render_folder(&results_dir, manifests)
}
