//! What several commands read before they work: the spec with its manifests, the
//! repetition count a results folder recorded, the size limit and the thread count.

use super::failure::{bad_input, Failure};
use crate::data::default_manifest_dirs;
use crate::spec::{parse_file, validate, Experiment};
use std::path::{Path, PathBuf};

/// `--data-dir` and `--manifests`: where the commands that load a spec's data sets find
/// the data files and their manifests.
#[derive(clap::Args)]
pub(super) struct DataFlags {
    /// Folder holding the real data files (default: $DP_REPRO_DATA, else the per-user data
    /// folder; see `dp-repro data list`).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Folder of data set manifests (default: ./datasets, then the crate's datasets/).
    #[arg(long)]
    pub manifests: Option<PathBuf>,
}

/// `--max-tasks` of the commands that run or size a spec.
#[derive(clap::Args)]
pub(super) struct TaskLimit {
    /// Refuse a spec of more than N tasks (runs.csv rows) instead of running out of
    /// memory: the default needs about 35 GB. Raise it for a spec that is that large on
    /// purpose.
    #[arg(long, value_name = "N", default_value_t = crate::run::limit::DEFAULT_MAX_TASKS)]
    pub(super) max_tasks: usize,
}

/// The manifest folders: `--manifests DIR` alone, else the default folders.
pub(super) fn manifest_dirs(cli: Option<PathBuf>) -> Vec<PathBuf> {
    match cli {
        Some(d) => vec![d],
        None => default_manifest_dirs(),
    }
}

/// The spec at `spec` (parsed and validated against the manifests) and its text.
pub(super) fn load_experiment(
    spec: &Path,
    manifests: Option<PathBuf>,
) -> Result<(Experiment, String), Failure> {
    let (parsed, text) = parse_file(spec).map_err(bad_input)?;
    // A results folder's spec.yaml finds the manifests it was run with beside it, first.
    let beside = spec.parent().unwrap_or(Path::new("")).join("datasets");
    let mut dirs = if beside.is_dir() && spec.ends_with("spec.yaml") {
        vec![beside]
    } else {
        Vec::new()
    };
    dirs.extend(manifest_dirs(manifests));
    let exp = validate(parsed, spec, &dirs).map_err(bad_input)?;
    Ok((exp, text))
}

/// The repetition count a results folder was run with (run.json), if recorded.
pub(super) fn recorded_repetitions(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["repetitions"].as_u64().map(|r| r as usize)
}

/// Makes `--jobs N` hold for every phase of a run, not only the computation: the
/// summaries, key hashing and reading of runs.csv use rayon's global pool, sized here.
pub(super) fn use_threads(jobs: Option<usize>) {
    if let Some(j) = jobs {
        // Fails only when the global pool already exists, which it does not this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j)
            .build_global();
    }
}
