//! `dp-repro bench`: one fit + predict of every method of a spec, timed.

use super::failure::{bad_input, failed, run_failure, Failure};
use super::inputs::{load_experiment, DataFlags};
use super::outputs::print_written;
use crate::data::resolve_data_dir;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The flags of `dp-repro bench`.
#[derive(clap::Args)]
pub(super) struct BenchArgs {
    /// The spec file (YAML).
    spec: PathBuf,
    /// A results folder whose selected.csv names the grid point of every data set,
    /// method and ε (default: each method's first grid point in the spec).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Timed repeats per method (the median and the minimum are reported).
    #[arg(long, default_value_t = crate::bench::DEFAULT_REPEATS)]
    repeat: usize,
    /// Threads a method may use inside one fit (methods are timed one at a time).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Output folder (default: results/<spec name>-bench).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    data: DataFlags,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Times the spec's methods.
pub(super) fn execute(args: BenchArgs) -> Result<(), Failure> {
    let BenchArgs {
        spec,
        results,
        repeat,
        jobs,
        out,
        data: DataFlags {
            data_dir,
            manifests,
        },
        quiet,
    } = args;
    bench_command(
        &spec,
        crate::bench::BenchOptions {
            out: PathBuf::new(),
            data_dir: resolve_data_dir(data_dir.as_deref()),
            results,
            repeats: repeat,
            jobs,
            progress: !quiet,
        },
        out,
        manifests,
    )
}

/// `dp-repro bench`: time every method of the spec, print the tables, list the files.
fn bench_command(
    spec: &Path,
    mut opts: crate::bench::BenchOptions,
    out: Option<PathBuf>,
    manifests: Option<PathBuf>,
) -> Result<(), Failure> {
    use crate::bench::{bench, BenchError};
    let (exp, _) = load_experiment(spec, manifests)?;
    if opts.repeats == 0 || opts.jobs == 0 {
        return Err(bad_input(anyhow!("--repeat and --jobs must be at least 1")));
    }
    opts.out = out.unwrap_or_else(|| Path::new("results").join(format!("{}-bench", exp.spec.name)));
    let outcome = bench(&exp, &opts).map_err(|e| match e {
        BenchError::Run(e) => run_failure(*e),
        e @ (BenchError::NoRepeats
        | BenchError::Selected(_)
        | BenchError::NotSelected { .. }
        | BenchError::Table { .. }) => bad_input(e),
        e => failed(e),
    })?;
    for s in &outcome.skipped {
        eprintln!("not timed: {} on {}: {}", s.method, s.dataset, s.reason);
    }
    for (_, md) in &outcome.markdown {
        println!("{md}");
    }
    eprintln!(
        "{} fits timed (data set × method × ε), {} repeats each; results in {}",
        outcome.timings.len(),
        opts.repeats,
        opts.out.display()
    );
    print_written(outcome.files.iter());
    Ok(())
}
