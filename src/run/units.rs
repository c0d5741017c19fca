//! What a run has to do: the tasks of an experiment counted for the progress bar and the
//! start line, the units of work (data set × repetition × method × structural grid point)
//! and which of them runs.csv already covers (resume, shards).

use super::{dataset_shapes, keys};
use crate::spec::{Experiment, MethodPlan};
use std::collections::HashSet;

/// Why structural grid point `si` of `m` does not run on a data set of shape `shape`
/// (the method's [`crate::methods::Method::skip_reason`]); None when it runs or the shape
/// is unknown.
pub(super) fn skip_reason(
    m: &MethodPlan,
    si: usize,
    shape: Option<(usize, usize)>,
) -> Option<String> {
    shape.and_then(|(n, d)| m.method.skip_reason(&m.structural[si], n, d))
}

/// The size of an experiment: tasks that run and grid points that are skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TaskCount {
    /// Tasks that run: runs.csv rows, one per (data set, repetition, method, grid point,
    /// ε) plus, under `cv` or `private_validation` selection, that task's extra rows.
    pub tasks: usize,
    /// Grid points (data set × method × full grid point) that do not apply to their data
    /// set's shape and are skipped (see [`crate::methods::Method::skip_reason`]); methods
    /// a spec's `skip:` leaves out are not counted here.
    pub skipped_grid_points: usize,
    /// The tasks those grid points would have had.
    pub skipped_tasks: usize,
    /// The distinct reasons, each with the labels of the methods it applies to, in spec
    /// order.
    pub reasons: Vec<(String, Vec<String>)>,
}

/// `n` with a comma every three digits: `1168000` → `1,168,000`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl std::fmt::Display for TaskCount {
    /// `12,000 tasks (480 grid points skipped: PHIST bins over the memory cap)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} tasks", thousands(self.tasks))?;
        if self.skipped_grid_points > 0 {
            write!(
                f,
                " ({} grid point{} skipped, {} tasks: {})",
                thousands(self.skipped_grid_points),
                if self.skipped_grid_points == 1 {
                    ""
                } else {
                    "s"
                },
                thousands(self.skipped_tasks),
                self.reasons
                    .iter()
                    .map(|(reason, labels)| format!("{} {reason}", labels.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            )?;
        }
        Ok(())
    }
}

/// Counts the tasks of the whole experiment for data sets of the given shapes (from
/// [`dataset_shapes`]), leaving out methods a spec's `skip:` excludes and grid points
/// that do not apply to a data set's shape (counted apart, with their reasons). The
/// runner's work list and progress bar leave out the same grid points.
pub fn task_count(exp: &Experiment, shapes: &[Option<(usize, usize)>]) -> TaskCount {
    let rows_per_task = 1 + keys::extra_row_tags(exp).len();
    let mut count = TaskCount::default();
    for (plan, shape) in exp.datasets.iter().zip(shapes) {
        for m in exp.methods.iter().filter(|m| !m.skip.contains(&plan.name)) {
            let epsilons = if m.method.private() {
                exp.epsilons.len()
            } else {
                1
            };
            // Saturating: a spec of absurd size is counted (and refused), not wrapped.
            let per_point = (m.mechanism.len())
                .saturating_mul(epsilons)
                .saturating_mul(rows_per_task)
                .saturating_mul(exp.repetitions);
            for si in 0..m.structural.len() {
                match skip_reason(m, si, *shape) {
                    None => count.tasks = count.tasks.saturating_add(per_point),
                    Some(reason) => {
                        count.skipped_grid_points += m.mechanism.len();
                        count.skipped_tasks = count.skipped_tasks.saturating_add(per_point);
                        match count.reasons.iter_mut().find(|(r, _)| *r == reason) {
                            Some((_, labels)) if labels.contains(&m.label) => {}
                            Some((_, labels)) => labels.push(m.label.clone()),
                            None => count.reasons.push((reason, vec![m.label.clone()])),
                        }
                    }
                }
            }
        }
    }
    count
}

/// One unit of work: (data set index, repetition, method index, structural grid point).
pub(super) type Unit = (usize, usize, usize, usize);

/// Every unit of the experiment in its canonical order, without the structural grid
/// points that do not apply to their data set's shape (`shapes`, from
/// [`dataset_shapes`]); shard i of N takes the units whose position modulo N is i − 1
/// (round robin keeps shards balanced).
pub(super) fn units(
    exp: &Experiment,
    shard: Option<(usize, usize)>,
    shapes: &[Option<(usize, usize)>],
) -> Vec<Unit> {
    let mut all = Vec::new();
    for (d, plan) in exp.datasets.iter().enumerate() {
        for rep in 1..=exp.repetitions {
            for (mi, m) in exp.methods.iter().enumerate() {
                if m.skip.contains(&plan.name) {
                    continue;
                }
                for si in 0..m.structural.len() {
                    if skip_reason(m, si, shapes[d]).is_none() {
                        all.push((d, rep, mi, si));
                    }
                }
            }
        }
    }
    match shard {
        Some((i, n)) => all
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i - 1)
            .map(|(_, u)| u)
            .collect(),
        None => all,
    }
}

/// A unit of work (data set, repetition, method, structural grid point) some of whose
/// rows are missing from a results folder.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingUnit {
    /// 0-based position in the canonical order of units: shard i of N ran the units
    /// whose position modulo N is i − 1.
    pub position: usize,
    /// Data set name.
    pub dataset: String,
    /// 1-based repetition.
    pub repetition: usize,
    /// Method label.
    pub method: String,
    /// The structural grid point (empty for methods without one).
    pub point: String,
    /// Rows of the unit that are missing.
    pub rows: usize,
}

/// Which task rows of the experiment a set of runs.csv keys covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// Rows the experiment has (every unit that applies to its data set's shape).
    pub expected_rows: usize,
    /// The units with missing rows, in canonical order.
    pub missing: Vec<MissingUnit>,
}

impl Coverage {
    /// Rows missing in all.
    pub fn missing_rows(&self) -> usize {
        self.missing.iter().map(|m| m.rows).sum()
    }

    /// Shards i of `n` (1-based) that ran at least one missing unit.
    pub fn shards_lacking(&self, n: usize) -> Vec<usize> {
        let mut s: Vec<usize> = self.missing.iter().map(|m| m.position % n + 1).collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}

/// The rows of `exp` (with its `repetitions`) that `have` (task keys of runs.csv rows)
/// lacks, by unit. Shapes come from the manifests (inline files are not loaded, so all
/// their grid points count as applicable).
pub fn coverage(exp: &Experiment, have: &HashSet<String>) -> Coverage {
    let shapes = dataset_shapes(exp, &[]);
    let contexts = keys::dataset_contexts(exp);
    let tags = keys::extra_row_tags(exp);
    let mut expected_rows = 0;
    let mut missing = Vec::new();
    for (position, (d, rep, mi, si)) in units(exp, None, &shapes).into_iter().enumerate() {
        let m = &exp.methods[mi];
        let k = keys::unit_row_keys(exp, &contexts[d], rep, m, si, &tags);
        expected_rows += k.len();
        let rows = k.iter().filter(|k| !have.contains(*k)).count();
        if rows > 0 {
            missing.push(MissingUnit {
                position,
                dataset: exp.datasets[d].name.clone(),
                repetition: rep,
                method: m.label.clone(),
                point: m.structural[si].key(),
                rows,
            });
        }
    }
    Coverage {
        expected_rows,
        missing,
    }
}
