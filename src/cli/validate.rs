//! `dp-repro validate`: a spec (or a method file) checked without running it.

use super::failure::{bad_input, Failure};
use super::inputs::{load_experiment, TaskLimit};
use crate::data::resolve_data_dir;
use std::path::PathBuf;

/// The flags of `dp-repro validate`.
#[derive(clap::Args)]
pub(super) struct ValidateArgs {
    /// The spec file (YAML).
    spec: PathBuf,
    /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
    /// folder; see `dp-repro data list`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Folder of data set manifests.
    #[arg(long)]
    manifests: Option<PathBuf>,
    #[command(flatten)]
    limit: TaskLimit,
}

/// Validates the spec and prints its size.
pub(super) fn execute(args: ValidateArgs) -> Result<(), Failure> {
    let ValidateArgs {
        spec,
        data_dir,
        manifests,
        limit,
    } = args;
    // A method file (a composition, e.g. specs/methods/lpdt-m.yaml) is checked as one.
    let text = crate::spec::read_text(&spec).map_err(bad_input)?;
    if crate::methods::compose::is_method_file(&text) {
        let m = crate::methods::compose::parse_method_file(&spec.display().to_string(), &text)
            .map_err(|e| bad_input(anyhow::anyhow!(e)))?;
        println!(
            "{}: ok — method file `{}`: {}",
            spec.display(),
            m.name,
            m.description
        );
        return Ok(());
    }
    let (exp, _) = load_experiment(&spec, manifests)?;
    let data_dir = resolve_data_dir(data_dir.as_deref());
    let needs_files = exp.datasets.iter().any(|d| !d.source.is_synthetic());
    let data = if needs_files {
        crate::run::load_datasets(&exp, data_dir.as_deref()).map_err(bad_input)?
    } else {
        Vec::new()
    };
    let shapes = crate::run::dataset_shapes(&exp, &data);
    let tasks = crate::run::task_count(&exp, &shapes);
    let footprint = crate::run::limit::check_task_limit(&exp, &tasks, &shapes, limit.max_tasks)
        .map_err(bad_input)?;
    println!(
        "{}: ok — {} data sets, {} methods, {} epsilons, {} repetitions, {}{}",
        spec.display(),
        exp.datasets.len(),
        exp.methods.len(),
        exp.epsilons.len(),
        exp.repetitions,
        tasks,
        if needs_files {
            "; data files verified"
        } else {
            ""
        }
    );
    println!("estimate: {footprint}");
    Ok(())
}
