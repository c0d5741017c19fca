//! `dp-repro run`: every task of a spec, then the summaries and tables.

use super::failure::{bad_input, failed, run_failure, Failure};
use super::inputs::{load_experiment, use_threads, DataFlags, TaskLimit};
use super::outputs::{draw_refits, warn_repetitions};
use crate::data::resolve_data_dir;
use crate::run::{run, RunOptions};
use crate::summary::finish;
use anyhow::anyhow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The flags of `dp-repro run`.
#[derive(clap::Args)]
pub(super) struct RunArgs {
    /// The spec file (YAML).
    spec: PathBuf,
    /// Override the spec's number of repetitions.
    #[arg(long)]
    reps: Option<usize>,
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Output folder (default: results/<spec name>).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    data: DataFlags,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
    /// Run only shard I of N (e.g. 2/8): a deterministic 1/N of the tasks. Merge the
    /// shards' folders with `dp-repro merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// When the output folder holds results of another spec (one that computes other
    /// rows), delete them and start afresh instead of refusing.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    limit: TaskLimit,
}

/// Runs the spec and prints its tables.
pub(super) fn execute(args: RunArgs) -> Result<(), Failure> {
    let RunArgs {
        spec,
        reps,
        jobs,
        out,
        data: DataFlags {
            data_dir,
            manifests,
        },
        quiet,
        shard,
        force,
        limit,
    } = args;
    let (mut exp, text) = load_experiment(&spec, manifests)?;
    if let Some(r) = reps {
        if r == 0 {
            return Err(bad_input(anyhow!("--reps must be at least 1")));
        }
        exp.repetitions = r;
    }
    if jobs == Some(0) {
        return Err(bad_input(anyhow!("--jobs must be at least 1")));
    }
    use_threads(jobs);
    crate::run::limit::check_run_size(&exp, limit.max_tasks).map_err(bad_input)?;
    let out = out.unwrap_or_else(|| match shard {
        Some((i, n)) => Path::new("results").join(format!("{}-shard-{i}-of-{n}", exp.spec.name)),
        None => Path::new("results").join(&exp.spec.name),
    });
    crate::run::check_output_folder(&out).map_err(bad_input)?;
    let opts = RunOptions {
        out: out.clone(),
        data_dir: resolve_data_dir(data_dir.as_deref()),
        jobs,
        progress: !quiet,
        shard,
        force,
    };
    let start = Instant::now();
    // `summary` holds the folder's lock until the tables are written.
    let summary = run(&exp, &text, &opts).map_err(run_failure)?;
    let secs = start.elapsed().as_secs_f64();
    let done = finish(&exp, &out).map_err(|e| failed(anyhow!(e)))?;
    warn_repetitions(&exp);
    draw_refits(&exp, opts.data_dir.as_deref(), &out)?;
    for (_, md) in &done.markdown {
        println!("{md}");
    }
    for note in summary.repairs() {
        eprintln!("{note}");
    }
    eprintln!(
        "{} tasks computed, {} reused, in {:.1} s; {} rows in {}",
        summary.computed,
        summary.reused,
        secs,
        done.rows,
        out.display()
    );
    Ok(())
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard: write I/N with 1 <= I <= N, e.g. 2/8");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}
