//! How big a run is before it starts: the task count (counted arithmetically, see
//! [`super::task_count`]) against a limit that `--max-tasks` raises, and a rough estimate
//! of the memory, disk and time it takes, so that a spec of ten billion tasks is refused
//! with its size instead of aborting in a memory allocation.

use super::TaskCount;
use crate::spec::Experiment;
use std::fmt;
use std::path::PathBuf;

/// The most tasks `run`, `check` and `validate` accept without `--max-tasks`: about 14
/// times the largest spec of the repository (3.6 million tasks), and by the estimate
/// below about 35 GB of memory.
pub const DEFAULT_MAX_TASKS: usize = 50_000_000;

/// Peak memory per runs.csv row (task keys, rows read back, summaries), in bytes:
/// `specs/ci.yaml` (467,200 rows) peaks at 322 MB.
const MEMORY_PER_TASK: f64 = 700.0;

/// Bytes of runs.csv per row (`specs/ci.yaml`: 75 MB for 467,200 rows).
const DISK_PER_TASK: f64 = 160.0;

/// CPU seconds per row at the pace of `specs/ci.yaml` (LPDT, PHIST and DT on the 14
/// LPDT data sets: 44 s of CPU for 467,200 rows); forests and larger data sets are slower.
const CPU_PER_TASK: f64 = 1e-4;

/// A rough estimate of what a run needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    /// Peak memory in bytes: the bookkeeping of the tasks and two copies of every data
    /// set of known shape (loaded, and split).
    pub memory_bytes: f64,
    /// Size of runs.csv in bytes.
    pub disk_bytes: f64,
    /// Wall-clock seconds on `threads` threads.
    pub seconds: f64,
    /// The threads the time assumes.
    pub threads: usize,
}

impl Footprint {
    /// The estimate for `tasks` rows on data sets of the given shapes (n rows, d features;
    /// None for an inline file not loaded) with `threads` threads.
    pub fn estimate(tasks: usize, shapes: &[Option<(usize, usize)>], threads: usize) -> Self {
        let threads = threads.max(1);
        let data: f64 = shapes
            .iter()
            .flatten()
            .map(|&(n, d)| 2.0 * 8.0 * n as f64 * (d + 1) as f64)
            .sum();
        let tasks = tasks as f64;
        Footprint {
            memory_bytes: data + MEMORY_PER_TASK * tasks,
            disk_bytes: DISK_PER_TASK * tasks,
            seconds: CPU_PER_TASK * tasks / threads as f64,
            threads,
        }
    }
}

impl fmt::Display for Footprint {
    /// `about 330 MB of memory, 75 MB of runs.csv and 23 s on 2 threads (rough: …)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "about {} of memory, {} of runs.csv and {} on {} thread{} (rough: at the pace of specs/ci.yaml; forests and larger data sets take longer)",
            bytes(self.memory_bytes),
            bytes(self.disk_bytes),
            duration(self.seconds),
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

/// Bytes in SI units with two significant digits: `330 MB`, `4.2 TB`.
pub fn bytes(b: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = b.max(0.0);
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if v < 10.0 && u > 0 {
        format!("{v:.1} {}", units[u])
    } else {
        format!("{v:.0} {}", units[u])
    }
}

/// A duration in the largest fitting unit: `23 s`, `12 min`, `3.5 h`, `190 days`,
/// `3.4 years`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    let (v, unit) = if s < 1.0 {
        return "under a second".to_string();
    } else if s < 120.0 {
        (s, "s")
    } else if s < 7200.0 {
        (s / 60.0, "min")
    } else if s < 3.0 * 86400.0 {
        (s / 3600.0, "h")
    } else if s < 2.0 * 365.25 * 86400.0 {
        (s / 86400.0, "days")
    } else {
        (s / (365.25 * 86400.0), "years")
    };
    if v < 10.0 && unit != "s" {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// A spec with more tasks than the limit.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "{}: {} tasks ({} per repetition × `repetitions: {}`) are more than the limit of {} tasks; they would need {footprint}. Lower `repetitions` or the grids, or raise the limit with --max-tasks {}",
    spec.display(),
    super::thousands(*tasks),
    super::thousands(tasks / (*repetitions).max(1)),
    repetitions,
    super::thousands(*limit),
    tasks
)]
pub struct TooManyTasks {
    /// The spec file.
    pub spec: PathBuf,
    /// Its tasks.
    pub tasks: usize,
    /// Its repetitions (as run: `--reps` overrides the spec's).
    pub repetitions: usize,
    /// The limit (`--max-tasks`, else [`DEFAULT_MAX_TASKS`]).
    pub limit: usize,
    /// What the run would need.
    pub footprint: Footprint,
}

/// Refuses an experiment of more than `limit` tasks (`count`, from [`super::task_count`]
/// on `shapes`); returns the estimate on rayon's threads (`--jobs`, else one per core).
///
/// # Errors
/// [`TooManyTasks`] naming the spec, the count, the limit, the estimate and the flag
/// that raises the limit.
pub fn check_task_limit(
    exp: &Experiment,
    count: &TaskCount,
    shapes: &[Option<(usize, usize)>],
    limit: usize,
) -> Result<Footprint, TooManyTasks> {
    let footprint = Footprint::estimate(count.tasks, shapes, rayon::current_num_threads());
    if count.tasks > limit {
        return Err(TooManyTasks {
            spec: exp.path.clone(),
            tasks: count.tasks,
            repetitions: exp.repetitions,
            limit,
            footprint,
        });
    }
    Ok(footprint)
}

/// [`check_task_limit`] before a run: the shapes the plan knows without loading (an
/// inline file counts all its grid points).
///
/// # Errors
/// As [`check_task_limit`].
pub fn check_run_size(exp: &Experiment, limit: usize) -> Result<Footprint, TooManyTasks> {
    let shapes = super::dataset_shapes(exp, &[]);
    let count = super::task_count(exp, &shapes);
    check_task_limit(exp, &count, &shapes, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_read_well() {
        assert_eq!(bytes(322e6), "322 MB");
        assert_eq!(bytes(4.2e12), "4.2 TB");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(duration(0.2), "under a second");
        assert_eq!(duration(23.4), "23 s");
        assert_eq!(duration(720.0), "12 min");
        assert_eq!(duration(3.5 * 3600.0), "3.5 h");
        assert_eq!(duration(190.0 * 86400.0), "190 days");
    }

    #[test]
    fn the_estimate_grows_with_tasks_and_data() {
        let small = Footprint::estimate(1000, &[Some((100, 4))], 2);
        let large = Footprint::estimate(2000, &[Some((100, 4))], 2);
        assert!(large.memory_bytes > small.memory_bytes);
        assert_eq!(large.disk_bytes, 2.0 * small.disk_bytes);
        assert_eq!(
            Footprint::estimate(1000, &[], 1).seconds,
            2.0 * small.seconds
        );
    }
}
