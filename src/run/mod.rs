//! Planning and running an experiment (docs/architecture.md, `run/`): per (data set, repetition) the
//! data are loaded once, split with the repetition's seed and scaled; per method and
//! structural grid point the partition is built once, then every mechanism grid point and
//! ε is privatized, predicted and scored. Rows are appended to runs.csv as tasks finish.

pub mod accounting;
pub mod curves;
pub mod keys;

pub mod limit;
mod merge;
pub mod occupancy;
pub mod order;
pub mod output;
mod point;
pub mod records;
pub mod refit;
mod repetition;
mod results;
pub mod seeds;
pub mod splits_export;
mod units;

pub use merge::merge;
pub use output::{check_output_folder, OutputFolder, OutputFolderError};
pub use results::{read_runs, rewrite_runs, RunRow, RUNS_HEADER};

pub use point::{
    central_validation_score, stopping_draws, tuning_data, user_split_candidates, user_split_data,
    user_split_groups, validation_score, TuningData,
};
pub use repetition::{
    dataset_shapes, finish_repetition, load_datasets, load_datasets_counted, public_is_fixed,
    repetition_data, repetition_data_owned, scale_whole, shares_partitions, split_indices,
    DroppedRows, LoadedDatasets,
};
pub use units::{coverage, task_count, thousands, Coverage, MissingUnit, TaskCount};

use point::*;
use units::*;

use crate::data::Dataset;
use crate::partition::{PartitionCache, SharedPublic};
use crate::spec::Experiment;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use thiserror::Error;

/// Errors of a run.
#[derive(Debug, Error)]
pub enum RunError {
    /// A data set failed to load.
    #[error("data set `{dataset}`: {source}")]
    Data {
        dataset: String,
        source: crate::data::DataError,
    },
    /// A split that leaves a part empty.
    #[error("data set `{dataset}`: {message}")]
    Split { dataset: String, message: String },
    /// The spec does not fit the loaded data (e.g. a split that leaves a part of an inline
    /// file empty); the message names the spec field.
    #[error(transparent)]
    Spec(crate::spec::SpecError),
    /// A method failed.
    #[error("data set `{dataset}`, repetition {repetition}, method {method} ({params}): {source}")]
    Method {
        dataset: String,
        repetition: usize,
        method: String,
        params: String,
        source: crate::methods::MethodError,
    },
    /// A results file that cannot be read (the message names it).
    #[error("{0}")]
    Results(String),
    /// Output files.
    #[error("{path}: {message}")]
    Output { path: PathBuf, message: String },
    /// The output folder cannot be used: in use by another process, holding another
    /// spec's results, or not writable.
    #[error(transparent)]
    Folder(#[from] OutputFolderError),
}

/// Options of `dp-repro run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output folder.
    pub out: PathBuf,
    /// Folder of the real data files (`--data-dir` or `DP_REPRO_DATA`).
    pub data_dir: Option<PathBuf>,
    /// Worker threads (None: rayon's default, one per core).
    pub jobs: Option<usize>,
    /// Show a progress bar.
    pub progress: bool,
    /// Run only shard i of N (1-based i): a deterministic round-robin share of the units.
    pub shard: Option<(usize, usize)>,
    /// Replace the results of another spec held by `out` (`--force`) instead of refusing.
    pub force: bool,
}

fn out_err(path: &Path, e: impl std::fmt::Display) -> RunError {
    RunError::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// What one call of [`run`] did.
#[derive(Debug)]
pub struct RunSummary {
    /// The output folder, still locked: keep this value while writing further outputs
    /// into it (tables, check reports); dropping it releases the folder.
    pub folder: OutputFolder,
    /// Rows computed and appended by this call.
    pub computed: usize,
    /// Rows found in runs.csv from an earlier, interrupted or sharded call and reused.
    pub reused: usize,
    /// Bytes of a partial last line (left by a crash) cut from runs.csv.
    pub cut_bytes: u64,
    /// Lines of runs.csv whose rows were damaged (cut short, or run together with
    /// another) and removed; their tasks were computed again.
    pub damaged_lines: Vec<usize>,
}

impl RunSummary {
    /// What the run repaired in runs.csv, one line each, for the user: damaged rows
    /// removed (and computed again), a partial last line cut.
    pub fn repairs(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.damaged_lines.is_empty() {
            notes.push(format!(
                "removed {} damaged rows from runs.csv (lines {:?}) and computed their tasks again",
                self.damaged_lines.len(),
                self.damaged_lines
            ));
        }
        if self.cut_bytes > 0 {
            notes.push(format!(
                "dropped a partial last line of {} bytes from runs.csv (an interrupted run)",
                self.cut_bytes
            ));
        }
        notes
    }
}

/// Runs the tasks of the experiment (or of one shard of it) that runs.csv in `opts.out`
/// does not hold yet, appending their rows as they finish, and writes `run.json`. The
/// folder is first locked and claimed for the spec ([`OutputFolder::claim`]: the resolved,
/// self-contained `spec.yaml` with its copies; another spec's results are refused unless
/// `opts.force`); the lock is returned in [`RunSummary::folder`]. A run killed at any point resumes where it stopped; the rows, and hence
/// every output derived from them, are the same whatever the number of threads, shards or
/// interruptions.
///
/// Rows are reused by task key only, so editing a spec's tables or adding grid points
/// reuses every row that still belongs to a task; rows of tasks no longer in the spec stay
/// in runs.csv but are ignored by [`finish`].
///
/// # Errors
/// Loading, splitting, an output folder in use or holding another spec's results
/// ([`RunError::Folder`]), a method failure, an output file error or a malformed runs.csv;
/// rows written before the error stay in runs.csv.
pub fn run(exp: &Experiment, spec_text: &str, opts: &RunOptions) -> Result<RunSummary, RunError> {
    let started = chrono::Utc::now();
    // Data first: a file that is missing or that the split cannot divide is reported
    // before anything is created.
    let (data, dropped_rows) = load_datasets_counted(exp, opts.data_dir.as_deref())?;
    let resolved = crate::spec::resolve(exp, spec_text).map_err(RunError::Spec)?;
    let folder = OutputFolder::claim(
        &opts.out,
        &resolved,
        &exp.path,
        spec_text,
        opts.force,
        || keys::all_task_keys(exp),
    )?;
    let record_path = opts.out.join("run.json");
    let runs_path = opts.out.join("runs.csv");
    let appending = results::open_for_append(&runs_path).map_err(RunError::Results)?;
    let (cut_bytes, damaged_lines) = (appending.cut_bytes, appending.damaged_lines);
    // The tasks runs.csv holds, with their seconds (which order the work below).
    let done: HashMap<String, f64> = appending
        .rows
        .into_iter()
        .map(|r| (r.task, r.seconds))
        .collect();
    let writer = Mutex::new(appending.writer);

    let contexts = keys::dataset_contexts(exp);
    // Keys of each unit's rows, in the order the unit computes them.
    let tags = keys::extra_row_tags(exp);
    let unit_keys = |&(d, rep, mi, si): &Unit| {
        keys::unit_row_keys(exp, &contexts[d], rep, &exp.methods[mi], si, &tags)
    };
    let pool = {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(j) = opts.jobs {
            b = b.num_threads(j);
        }
        b.build().map_err(|e| out_err(&opts.out, e))?
    };
    let shapes = dataset_shapes(exp, &data);
    // Every unit's keys (hundreds of thousands of SHA-256s on large specs), on the pool.
    let keyed: Vec<(Unit, Vec<String>, usize)> = pool.install(|| {
        units(exp, opts.shard, &shapes)
            .into_par_iter()
            .map(|u| {
                let k = unit_keys(&u);
                let have = k.iter().filter(|k| done.contains_key(*k)).count();
                (u, k, have)
            })
            .collect()
    });
    // Units not yet done, with how many of their rows are pending; units done in full
    // measure their method's seconds for the order below.
    let mut todo: Vec<(Unit, Vec<String>, usize)> = Vec::new();
    let mut measured: Vec<(Unit, usize, f64)> = Vec::new();
    let mut reused = 0;
    for (u, k, have) in keyed {
        reused += have;
        if have < k.len() {
            let pending = k.len() - have;
            todo.push((u, k, pending));
        } else if let Some(secs) = order::unit_seconds(&k, &done) {
            measured.push((u, k.len(), secs));
        }
    }
    let total: usize = todo.iter().map(|(_, _, pending)| pending).sum();
    let bar = if opts.progress {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} tasks, ETA {eta} {msg}",
            )
            .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    if reused > 0 {
        bar.println(format!(
            "resuming: {reused} tasks already in {}",
            runs_path.display()
        ));
    }

    // The pending units by (data set, repetition), so that each split is made once,
    // costliest first ([`order`]).
    let rates = order::method_rates(exp, &shapes, &measured);
    let groups = order::order(exp, &shapes, todo, &rates);
    // Each loaded data set is handed to the last of its pending repetitions, which can
    // then reorder its rows in place instead of copying them (unless a repetition
    // record below reads them again).
    let pending: Vec<AtomicUsize> = (0..exp.datasets.len())
        .map(|d| AtomicUsize::new(groups.iter().filter(|g| g.dataset == d).count()))
        .collect();
    let slots: Vec<Mutex<Option<Arc<Dataset>>>> = data.into_iter().map(Mutex::new).collect();
    let take_rows = |d: usize| {
        let mut slot = slots[d].lock().expect("data lock");
        let last = pending[d].fetch_sub(1, Ordering::SeqCst) == 1;
        if last && !records::reads_data_after_run(exp, &exp.datasets[d]) {
            slot.take()
        } else {
            slot.clone()
        }
    };
    // Trees grown on a public sample that every repetition shares, one cache per data set,
    // emptied when the data set's last pending repetition is done.
    let caches: Vec<Option<PartitionCache>> = exp
        .datasets
        .iter()
        .map(|p| (shares_partitions(exp) && public_is_fixed(exp, p)).then(PartitionCache::new))
        .collect();
    let unfinished: Vec<AtomicUsize> = pending
        .iter()
        .map(|n| AtomicUsize::new(n.load(Ordering::SeqCst)))
        .collect();
    let computed = AtomicUsize::new(0);
    let threads = pool.current_num_threads();
    // One queue of every unit in that order: each thread takes the next one, so the
    // longest units start first and no thread waits while work remains. A group's split
    // is made by the first of its units to start and dropped after its last finishes.
    let queue: Vec<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| (0..group.units.len()).map(move |i| (g, i)))
        .collect();
    type Prepared<'c> = Arc<(
        crate::methods::RepData,
        TuningData,
        Option<SharedPublic<'c>>,
    )>;
    let states: Vec<(Mutex<Option<Prepared<'_>>>, AtomicUsize)> = groups
        .iter()
        .map(|g| (Mutex::new(None), AtomicUsize::new(g.units.len())))
        .collect();
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<RunError>> = Mutex::new(None);
    let run_unit = |g: usize, i: usize| -> Result<(), RunError> {
        let group = &groups[g];
        let d = group.dataset;
        let plan = &exp.datasets[d];
        let prepared = {
            let mut slot = states[g].0.lock().expect("group lock");
            match &*slot {
                Some(p) => Arc::clone(p),
                None => {
                    let rep_data = repetition_data_owned(exp, plan, take_rows(d), group.rep)?;
                    let tuning = tuning_data(exp, plan, &rep_data, group.rep);
                    let shared = caches[d]
                        .as_ref()
                        .map(|c| SharedPublic::new(c, &rep_data.public));
                    let p = Arc::new((rep_data, tuning, shared));
                    *slot = Some(Arc::clone(&p));
                    p
                }
            }
        };
        let ((_, _, mi, si), keys) = &group.units[i];
        let (rep_data, tuning, shared) = &*prepared;
        let rows = run_structural_point(
            exp,
            plan,
            rep_data,
            tuning,
            group.rep,
            &exp.methods[*mi],
            *si,
            keys,
            shared.as_ref(),
        )?;
        drop(prepared);
        let new: Vec<&RunRow> = rows
            .iter()
            .filter(|r| !done.contains_key(&r.task))
            .collect();
        let mut w = writer.lock().expect("writer lock");
        for row in &new {
            w.serialize(row).map_err(|e| out_err(&runs_path, e))?;
        }
        w.flush().map_err(|e| out_err(&runs_path, e))?;
        drop(w);
        computed.fetch_add(new.len(), Ordering::Relaxed);
        bar.inc(keys.iter().filter(|k| !done.contains_key(*k)).count() as u64);
        if states[g].1.fetch_sub(1, Ordering::SeqCst) == 1 {
            // The group's last unit: its split goes, and with the data set's last group
            // the trees shared across its repetitions.
            states[g].0.lock().expect("group lock").take();
            if unfinished[d].fetch_sub(1, Ordering::SeqCst) == 1 {
                if let Some(c) = &caches[d] {
                    c.clear();
                }
            }
        }
        Ok(())
    };
    // One worker per thread of the pool (a broadcast, not spawned jobs: a thread that
    // waits inside a unit's own parallel loop never picks up a second worker, which could
    // wait on the group its first worker is preparing).
    pool.broadcast(|_| loop {
        if failure.lock().expect("failure lock").is_some() {
            break;
        }
        let k = next.fetch_add(1, Ordering::SeqCst);
        let Some(&(g, i)) = queue.get(k) else { break };
        if let Err(e) = run_unit(g, i) {
            failure.lock().expect("failure lock").get_or_insert(e);
            break;
        }
    });
    let result = match failure.into_inner().expect("failure lock") {
        Some(e) => Err(e),
        None => Ok(()),
    };
    bar.finish_and_clear();
    let mut w = writer.into_inner().expect("writer lock");
    w.flush().map_err(|e| out_err(&runs_path, e))?;
    result?;
    let summary = RunSummary {
        folder,
        computed: computed.into_inner(),
        reused,
        cut_bytes,
        damaged_lines,
    };
    let data: Vec<Option<Arc<Dataset>>> = slots
        .into_iter()
        .map(|s| s.into_inner().expect("data lock"))
        .collect();
    let mut privacy = accounting::privacy_record(exp);
    for (key, value) in records::records(exp, &data)? {
        privacy[key] = value;
    }
    let record = serde_json::json!({
        "spec": exp.path.display().to_string(),
        "spec_name": exp.spec.name,
        // Hashes of the resolved spec.yaml's content (comments and layout ignored) and of
        // the part of it that determines runs.csv (see spec::resolve).
        "spec_hash": resolved.content_hash(),
        "computed_hash": resolved.computed_hash(),
        "git_commit": git_commit(&exp.path),
        "dp_repro_version": env!("CARGO_PKG_VERSION"),
        "epsilons": exp.epsilons,
        "repetitions": exp.repetitions,
        "shard": opts.shard.map(|(i, n)| format!("{i}/{n}")),
        "started": started.to_rfc3339(),
        "finished": chrono::Utc::now().to_rfc3339(),
        "threads": threads,
        "host": host_name(),
        "tasks_computed": summary.computed,
        "tasks_reused": summary.reused,
        "partial_bytes_cut": summary.cut_bytes,
        "damaged_lines_removed": summary.damaged_lines,
        "privacy": privacy,
        // Rows left out for missing values, per data set with `missing: drop_rows`.
        "dropped_rows": dropped_rows,
    });
    std::fs::write(
        &record_path,
        serde_json::to_string_pretty(&record).expect("json") + "\n",
    )
    .map_err(|e| out_err(&record_path, e))?;
    Ok(summary)
}

/// The commit of the git checkout holding `path`, if there is one.
fn git_commit(path: &Path) -> Option<String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// This machine's host name (Linux), or None.
fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .or_else(|| std::env::var("HOSTNAME").ok())
}

#[cfg(test)]
mod tests {
    use super::validation_score;
    use crate::data::Task;
    use crate::estimate::LabelBounds;
    use crate::privacy::ledger::recording;

    /// Private validation on the ledger: k = 4 grid points scored with scale R²·k/ε charge
    /// each of the n_v validation users ε/4 four times, ε in total; scoring them with the
    /// scale of one grid point (k = 1) four times charges 4ε, which the ledger shows.
    #[test]
    fn private_validation_charges_each_validation_user_epsilon_over_k_per_grid_point() {
        let bounds = LabelBounds { lo: -1.0, hi: 1.0 };
        let (y, pred) = ([0.5, -0.5, 1.0], [0.0, 0.0, 0.0]);
        let mut rng = crate::run::seeds::stream(3, &["pv-ledger"]);
        let score = |k: f64, rng: &mut rand_pcg::Pcg64| {
            for _ in 0..4 {
                validation_score(Task::Regression, bounds, &y, &pred, Some(0.8), k, rng);
            }
        };
        let ((), r) = recording(|| score(4.0, &mut rng));
        assert_eq!(r.subjects, 3);
        assert!((r.max_epsilon - 0.8).abs() < 1e-12, "{}", r.max_epsilon);
        assert!((r.min_epsilon - 0.8).abs() < 1e-12);
        assert_eq!(r.path[0].calls, 4);
        let ((), r) = recording(|| score(1.0, &mut rng));
        assert!((r.max_epsilon - 3.2).abs() < 1e-12, "{}", r.max_epsilon);
    }
}
