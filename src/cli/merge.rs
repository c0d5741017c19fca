//! `dp-repro merge`: the output folders of a spec's shards combined into one.

use super::failure::{bad_input, failed, Failure};
use super::inputs::manifest_dirs;
use super::outputs::{print_written, render_folder};
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The flags of `dp-repro merge`.
#[derive(clap::Args)]
pub(super) struct MergeArgs {
    /// Shard output folders.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The merged folder (may be one of DIRS).
    #[arg(long)]
    out: PathBuf,
    /// Folder of data set manifests.
    #[arg(long)]
    manifests: Option<PathBuf>,
}

/// Merges the shards' folders.
pub(super) fn execute(args: MergeArgs) -> Result<(), Failure> {
    merge_command(&args.dirs, &args.out, args.manifests)
}

/// `dp-repro merge`: merge the shards' rows into `out`, then render it if every task is
/// there, else list what is missing and exit 1.
fn merge_command(dirs: &[PathBuf], out: &Path, manifests: Option<PathBuf>) -> Result<(), Failure> {
    let _lock = crate::run::OutputFolder::lock(out).map_err(bad_input)?;
    let outcome = crate::run::merge(dirs, out, &manifest_dirs(manifests.clone()))
        .map_err(|e| bad_input(anyhow!(e)))?;
    eprintln!(
        "merged {} folders into {}: {} rows added",
        dirs.len(),
        out.display(),
        outcome.rows_added
    );
    print_written(outcome.files.iter());
    let cov = &outcome.coverage;
    if cov.missing.is_empty() {
        return render_folder(out, manifests);
    }
    eprintln!(
        "incomplete: {} of {} task rows of the spec are missing, in {} units (data set, repetition, method, grid point):",
        cov.missing_rows(),
        cov.expected_rows,
        cov.missing.len()
    );
    const SHOWN: usize = 20;
    for m in cov.missing.iter().take(SHOWN) {
        eprintln!(
            "  {} rep {} {}{}{}: {} rows",
            m.dataset,
            m.repetition,
            m.method,
            if m.point.is_empty() { "" } else { " " },
            m.point,
            m.rows
        );
    }
    if cov.missing.len() > SHOWN {
        eprintln!("  … and {} more units", cov.missing.len() - SHOWN);
    }
    if let Some((n, absent, incomplete)) = outcome.shard_report() {
        let list = |v: &[usize]| {
            v.iter()
                .map(|i| format!("{i}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !absent.is_empty() {
            eprintln!("shards not among the merged folders: {}", list(&absent));
        }
        if !incomplete.is_empty() {
            eprintln!(
                "shards merged but unfinished (rerun them to resume): {}",
                list(&incomplete)
            );
        }
    }
    Err(failed(anyhow!(
        "{} holds the merged rows but no tables: merge again with the missing shards' folders",
        out.display()
    )))
}
