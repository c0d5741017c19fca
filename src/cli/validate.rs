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
    /// Results folder whose runs.csv measures each method's pace on this machine, for the
    /// CPU time estimate (default: results/<spec name>, where `run` writes; a run with
    /// `--reps 1` is enough).
    #[arg(long)]
    results: Option<PathBuf>,
}

/// Validates the spec and prints its size.
pub(super) fn execute(args: ValidateArgs) -> Result<(), Failure> {
    let ValidateArgs {
        spec,
        data_dir,
        manifests,
        limit,
        results,
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
    // The time is the CPU line's: measured on this machine when a run has been made, else
    // a guess at specs/ci.yaml's pace that says how far off it can be.
    println!(
        "estimate: about {} of memory and {} of runs.csv",
        crate::run::limit::bytes(footprint.memory_bytes),
        crate::run::limit::bytes(footprint.disk_bytes)
    );
    let folder = results.unwrap_or_else(|| PathBuf::from("results").join(&exp.spec.name));
    let guess = footprint.seconds * footprint.threads as f64;
    println!("{}", cpu_line(&folder, &spec, tasks.tasks, guess));
    Ok(())
}

/// The line on the spec's CPU time on this machine, measured by the last run into
/// `folder` (run.json: its wall time × its threads, an upper bound on its CPU time, for
/// the tasks it computed), scaled to the spec's `tasks`; else how to measure it, with
/// `guess` (CPU seconds at the pace of specs/ci.yaml) as a first idea.
fn cpu_line(folder: &std::path::Path, spec: &std::path::Path, tasks: usize, guess: f64) -> String {
    let how = format!(
        "before measuring, a guess at the pace of specs/ci.yaml is {} of CPU, and DECONV, LPCT's trees, PSGD and the forests take several times longer per task; run `dp-repro run {} --reps 1 --out {}` and validate again: that run measures this machine's pace on the spec",
        crate::run::limit::duration(guess),
        spec.display(),
        folder.display()
    );
    let record = folder.join("run.json");
    let Some(run) = std::fs::read_to_string(&record)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return format!(
            "CPU time on this machine: not measured yet ({} has no run.json); {how}",
            folder.display()
        );
    };
    let time = |k: &str| {
        run.get(k)
            .and_then(|v| v.as_str())
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
    };
    let threads = run.get("threads").and_then(|v| v.as_u64()).unwrap_or(1) as f64;
    let computed = run
        .get("tasks_computed")
        .and_then(|v| v.as_u64())
        .unwrap_or(0) as usize;
    match (time("started"), time("finished")) {
        (Some(a), Some(b)) if computed > 0 && b > a => {
            let wall = (b - a).num_milliseconds() as f64 / 1000.0;
            let cpu = wall * threads * tasks as f64 / computed as f64;
            let here = rayon::current_num_threads() as f64;
            format!(
                "CPU time on this machine: at most about {} (the last run into {} computed {} tasks in {} on {} thread(s); scaled to the spec's {} tasks, so data sets and methods weigh as in that run), about {} on {} threads",
                crate::run::limit::duration(cpu),
                folder.display(),
                crate::run::thousands(computed),
                crate::run::limit::duration(wall),
                threads,
                crate::run::thousands(tasks),
                crate::run::limit::duration(cpu / here),
                here
            )
        }
        _ => format!(
            "CPU time on this machine: not measured ({} records no computed task); {how}",
            record.display()
        ),
    }
}
