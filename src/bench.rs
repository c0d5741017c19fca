//! `dp-repro bench`: wall-clock seconds of one fit + predict per method, the protocol of
//! the LPDT paper's Table 6 (seconds per fit, card `docs/methods/lpdt.md` §10) and the LPCT paper's
//! Table 3 (card `docs/methods/lpct.md` §10.8).
//!
//! For every data set × method × ε of a spec, one grid point is timed: the one a results
//! folder's `selected.csv` names (`--results`), else the spec's first grid point (its first
//! structural point joined with its first mechanism point). The unit timed is what one
//! runs.csv row costs: [`crate::methods::Method::prepare`] (the partition grown on public
//! data, or a non-private tree on the training rows) followed by
//! [`crate::methods::Prepared::predict`] (the users' simulated releases, the estimator and
//! the prediction of the test set). It runs on repetition 1's data with the run's own
//! seeded streams ([`crate::run::seeds::partition_stream`], [`crate::run::seeds::release_stream`]),
//! recreated before every repeat, so every repeat does the very same work and draws the
//! very same numbers as the run's task. Loading, splitting and scaling are done once,
//! before timing. One untimed warm-up fit precedes the `repeats` timed ones; the median
//! and the minimum are reported (the median is robust to a busy machine, the minimum is
//! the least disturbed run).
//!
//! Outputs: `timing.csv` (tidy, one row per timed case, [`TIMING_HEADER`]) and, for every
//! table of the spec with `value: seconds` (or one default table when the spec has none),
//! `table-<name>.md` / `.tex` through the table model and templates of `dp-repro run`,
//! with the paper's seconds in parentheses when the table's `reported:` gives them.

use crate::data::Dataset;
use crate::methods::{MethodError, Params, RepData};
use crate::report::{render_latex, render_markdown, Table};
use crate::run::refit::{split_key, SelectedIndex};
use crate::run::seeds::{epsilon_text, partition_stream, release_stream};
use crate::run::{load_datasets, repetition_data, RunError};
use crate::spec::raw::{Selection, TableEntry, TableValue};
use crate::spec::{Experiment, MethodPlan};
use crate::stats::summarize;
use crate::summary::table::{build_table, Selected, SelectedMap};
use indicatif::{ProgressBar, ProgressStyle};
use rand_pcg::Pcg64;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

/// The repetition whose data every case is timed on (1-based, as in runs.csv).
pub const BENCH_REPETITION: usize = 1;

/// Timed repeats per case when the command line does not say (`--repeat`).
pub const DEFAULT_REPEATS: usize = 20;

/// The header of `timing.csv`.
pub const TIMING_HEADER: &str =
    "dataset,method,params,epsilon,repeats,median_seconds,min_seconds,n_train,n_public,n_test";

/// Errors of `dp-repro bench`.
#[derive(Debug, Error)]
pub enum BenchError {
    /// Loading or splitting the data (the message names the data set).
    #[error(transparent)]
    Run(Box<RunError>),
    /// `--repeat 0`.
    #[error("--repeat must be at least 1")]
    NoRepeats,
    /// A results folder's `selected.csv` that cannot be read (the message names it).
    #[error("{0}")]
    Selected(String),
    /// `selected.csv` has no grid point for a case of the spec.
    #[error("{path}: no selected grid point of {method} on {dataset}{at}: run the spec (or one with the same data set and method labels) into that folder first, or leave out --results to time the spec's first grid point")]
    NotSelected {
        /// The `selected.csv` read.
        path: PathBuf,
        /// Data set name.
        dataset: String,
        /// Method label.
        method: String,
        /// ` at ε = 2`, or empty for a non-private method.
        at: String,
    },
    /// A method that failed while being timed.
    #[error("data set `{dataset}`, method {method} ({params}): {source}")]
    Method {
        /// Data set name.
        dataset: String,
        /// Method label.
        method: String,
        /// The grid point key.
        params: String,
        /// What the method said.
        source: MethodError,
    },
    /// A table that cannot be built or rendered.
    #[error("table {name}: {message}")]
    Table {
        /// The table's name.
        name: String,
        /// What went wrong (naming the `reported:` file where it is the cause).
        message: String,
    },
    /// An output file that cannot be written.
    #[error("{path}: {message}")]
    Output {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The worker pool could not be built.
    #[error("thread pool: {0}")]
    Pool(String),
}

impl From<RunError> for BenchError {
    fn from(e: RunError) -> Self {
        BenchError::Run(Box::new(e))
    }
}

/// Where each case's grid point comes from.
#[derive(Debug, Clone, Copy)]
pub enum GridSource<'s> {
    /// The spec's first grid point of each method (first structural point joined with the
    /// first mechanism point).
    FirstPoint,
    /// The grid point `selected.csv` names for the data set, method label and ε; `path`
    /// is the file, for messages.
    Selected {
        /// The index read from the file ([`crate::run::refit::read_selected`]).
        index: &'s SelectedIndex,
        /// The file.
        path: &'s Path,
    },
}

impl GridSource<'_> {
    /// Where the grid points came from, for table notes.
    pub fn describe(&self) -> String {
        match self {
            GridSource::FirstPoint => "each method's first grid point in the spec".to_string(),
            GridSource::Selected { path, .. } => {
                format!("the grid points selected in {}", path.display())
            }
        }
    }
}

/// One timed unit: a method at one grid point and ε on one data set's repetition data.
pub struct BenchCase<'a> {
    /// Data set name.
    pub dataset: String,
    /// The method's plan in the spec.
    pub method: &'a MethodPlan,
    /// The structural parameters (handed to `prepare`).
    pub structural: Params,
    /// The mechanism parameters (handed to `predict`).
    pub mechanism: Params,
    /// ε (None for a non-private method).
    pub epsilon: Option<f64>,
    /// The repetition's data (split and scaled), shared by the cases of a data set.
    pub data: Arc<RepData>,
    seed: u64,
    repetition: usize,
}

impl BenchCase<'_> {
    /// The grid point key, `name=value;…` (structural first), as runs.csv writes it.
    pub fn key(&self) -> String {
        self.structural.join(&self.mechanism).key()
    }

    /// ε as runs.csv writes it, empty for a non-private method.
    pub fn epsilon_text(&self) -> String {
        self.epsilon.map(epsilon_text).unwrap_or_default()
    }

    /// The run's partition and release streams of this case, freshly seeded (the same
    /// streams [`crate::run::run`] hands the task of this data set, repetition, method, grid
    /// point and ε).
    pub fn streams(&self) -> (Pcg64, Pcg64) {
        let ps = partition_stream(
            self.seed,
            &self.dataset,
            self.repetition,
            &self.method.label,
            &self.structural.key(),
        );
        let rs = release_stream(
            self.seed,
            "noise",
            &self.dataset,
            self.repetition,
            self.method,
            &self.structural.join(&self.mechanism),
            &self.epsilon_text(),
            "",
        );
        (ps, rs)
    }

    /// One fit + predict with the given streams: the test-set predictions (length
    /// n_test), or None when the grid point does not apply to the data (the method's
    /// `prepare` says so).
    ///
    /// # Errors
    /// The method's own error.
    pub fn fit_predict_with(
        &self,
        (mut ps, mut rs): (Pcg64, Pcg64),
    ) -> Result<Option<Vec<f64>>, MethodError> {
        let Some(prepared) = self
            .method
            .method
            .prepare(&self.data, &self.structural, &mut ps)?
        else {
            return Ok(None);
        };
        prepared
            .predict(&self.mechanism, self.epsilon, &mut rs)
            .map(Some)
    }

    /// [`BenchCase::fit_predict_with`] on freshly seeded [`BenchCase::streams`].
    ///
    /// # Errors
    /// The method's own error.
    pub fn fit_predict(&self) -> Result<Option<Vec<f64>>, MethodError> {
        self.fit_predict_with(self.streams())
    }

    /// The test metric of predictions `pred` (MSE or accuracy), as the runner scores it.
    pub fn score(&self, pred: &[f64]) -> f64 {
        self.method.method.score(
            self.data.test.task,
            &self.structural.join(&self.mechanism),
            &self.data.test.y,
            pred,
        )
    }

    fn error(&self, source: MethodError) -> BenchError {
        BenchError::Method {
            dataset: self.dataset.clone(),
            method: self.method.label.clone(),
            params: self.key(),
            source,
        }
    }
}

/// A (data set, method) pair the bench leaves out, with the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// Why (the spec's `skip:` reason, or the method's shape rule).
    pub reason: String,
}

/// Every case of the experiment, in spec order (data set, then method, then ε), on
/// repetition [`BENCH_REPETITION`]'s data, with the grid points of `grid`. `data` holds the
/// loaded data sets in the order of `exp.datasets` ([`load_datasets`]; None for synthetic
/// ones). Methods the spec's `skip:` leaves out on a data set, and grid points the method's
/// shape rule ([`crate::methods::Method::skip_reason`]) refuses, are returned apart.
///
/// # Errors
/// A split that leaves a part empty; under [`GridSource::Selected`], a case without a
/// selected grid point.
pub fn cases<'a>(
    exp: &'a Experiment,
    data: &[Option<Arc<Dataset>>],
    grid: GridSource,
) -> Result<(Vec<BenchCase<'a>>, Vec<Skipped>), BenchError> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (d, plan) in exp.datasets.iter().enumerate() {
        let rep = Arc::new(repetition_data(
            exp,
            plan,
            data.get(d).and_then(|x| x.as_deref()),
            BENCH_REPETITION,
        )?);
        let n_all = rep.public.n() + rep.private.n() + rep.test.n();
        let dim = rep.test.d();
        for m in &exp.methods {
            if m.skip.contains(&plan.name) {
                let reason = exp
                    .spec
                    .skip
                    .iter()
                    .find(|s| s.method == m.label && s.datasets.contains(&plan.name))
                    .map_or_else(|| "skipped by the spec".to_string(), |s| s.reason.clone());
                skipped.push(Skipped {
                    dataset: plan.name.clone(),
                    method: m.label.clone(),
                    reason,
                });
                continue;
            }
            let epsilons: Vec<Option<f64>> = if m.method.private() {
                exp.epsilons.iter().copied().map(Some).collect()
            } else {
                vec![None]
            };
            for eps in epsilons {
                let (structural, mechanism) = match grid {
                    GridSource::FirstPoint => (
                        m.structural.first().cloned().unwrap_or_default(),
                        m.mechanism.first().cloned().unwrap_or_default(),
                    ),
                    GridSource::Selected { index, path } => {
                        let et = eps.map(epsilon_text).unwrap_or_default();
                        let (key, _) = index
                            .get(&(plan.name.clone(), m.label.clone(), et))
                            .ok_or_else(|| BenchError::NotSelected {
                                path: path.to_path_buf(),
                                dataset: plan.name.clone(),
                                method: m.label.clone(),
                                at: eps.map(|e| format!(" at ε = {e}")).unwrap_or_default(),
                            })?;
                        split_key(m, key)
                    }
                };
                if let Some(reason) = m.method.skip_reason(&structural, n_all, dim) {
                    skipped.push(Skipped {
                        dataset: plan.name.clone(),
                        method: m.label.clone(),
                        reason: format!("{} {reason}", m.label),
                    });
                    continue;
                }
                out.push(BenchCase {
                    dataset: plan.name.clone(),
                    method: m,
                    structural,
                    mechanism,
                    epsilon: eps,
                    data: Arc::clone(&rep),
                    seed: exp.spec.seed,
                    repetition: BENCH_REPETITION,
                });
            }
        }
    }
    Ok((out, skipped))
}

/// The timing of one case: one row of `timing.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// The grid point key.
    pub params: String,
    /// ε (None for a non-private method).
    pub epsilon: Option<f64>,
    /// Timed repeats (the warm-up not counted).
    pub repeats: usize,
    /// Median over the repeats of the wall-clock seconds of one fit + predict.
    pub median_seconds: f64,
    /// Minimum over the repeats.
    pub min_seconds: f64,
    /// Private training rows (the users).
    pub n_train: usize,
    /// Public rows.
    pub n_public: usize,
    /// Test rows predicted.
    pub n_test: usize,
}

/// Times `case`: one untimed warm-up fit + predict, then `repeats` timed ones, each on
/// freshly seeded streams (seeding is not timed). None when the grid point does not apply
/// to the data.
///
/// # Errors
/// [`BenchError::NoRepeats`] for `repeats` = 0; the method's own error.
pub fn time_case(case: &BenchCase, repeats: usize) -> Result<Option<Timing>, BenchError> {
    if repeats == 0 {
        return Err(BenchError::NoRepeats);
    }
    if case.fit_predict().map_err(|e| case.error(e))?.is_none() {
        return Ok(None);
    }
    let mut seconds = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let streams = case.streams();
        let t0 = Instant::now();
        let pred = case.fit_predict_with(streams);
        let elapsed = t0.elapsed().as_secs_f64();
        std::hint::black_box(pred.map_err(|e| case.error(e))?);
        seconds.push(elapsed);
    }
    let min = seconds.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Some(Timing {
        dataset: case.dataset.clone(),
        method: case.method.label.clone(),
        params: case.key(),
        epsilon: case.epsilon,
        repeats,
        median_seconds: summarize(&seconds).median,
        min_seconds: min,
        n_train: case.data.private.n(),
        n_public: case.data.public.n(),
        n_test: case.data.test.n(),
    }))
}

/// `timing.csv`'s text: [`TIMING_HEADER`], then one row per timing in the given order
/// (seconds in Rust's shortest round-trip form, ε empty for non-private methods).
pub fn timing_csv(timings: &[Timing]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(TIMING_HEADER.split(','))
        .expect("writing to memory");
    for t in timings {
        w.write_record([
            t.dataset.clone(),
            t.method.clone(),
            t.params.clone(),
            t.epsilon.map(epsilon_text).unwrap_or_default(),
            t.repeats.to_string(),
            format!("{}", t.median_seconds),
            format!("{}", t.min_seconds),
            t.n_train.to_string(),
            t.n_public.to_string(),
            t.n_test.to_string(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 fields")
}

/// The tables of a bench: every table of the spec with `value: seconds`, or, when it has
/// none, one table `timing` with the spec's non-private methods first and its private
/// methods in every ε block. Cells show the median seconds (the paper's in parentheses
/// where the table's `reported:` gives them); the notes say what was timed, how often,
/// with how many threads, and where the grid points came from.
///
/// # Errors
/// [`BenchError::Table`] for a `reported:` file that cannot be read.
pub fn timing_tables(
    exp: &Experiment,
    timings: &[Timing],
    grid: &GridSource,
    threads: usize,
) -> Result<Vec<Table>, BenchError> {
    let mut entries: Vec<TableEntry> = exp
        .spec
        .tables
        .iter()
        .filter(|t| t.value == TableValue::Seconds)
        .cloned()
        .collect();
    if entries.is_empty() {
        let (public, private): (Vec<&MethodPlan>, Vec<&MethodPlan>) =
            exp.methods.iter().partition(|m| !m.method.private());
        entries.push(TableEntry {
            name: "timing".to_string(),
            caption: format!("{}: seconds of one fit + predict.", exp.spec.name),
            epsilons: if private.is_empty() {
                Vec::new()
            } else {
                exp.epsilons.clone()
            },
            methods: private.iter().map(|m| m.label.clone()).collect(),
            non_private: public.iter().map(|m| m.label.clone()).collect(),
            value: TableValue::Seconds,
            ..TableEntry::default()
        });
    }
    let mut selected = SelectedMap::new();
    for t in timings {
        let one = BTreeMap::from([(BENCH_REPETITION, t.median_seconds)]);
        selected.insert(
            (
                t.dataset.clone(),
                t.method.clone(),
                t.epsilon.map(epsilon_text).unwrap_or_default(),
            ),
            Selected::new(t.params.clone(), one.clone()).with_seconds(one),
        );
    }
    let repeats = timings.first().map_or(0, |t| t.repeats);
    let threads = if threads == 1 {
        "one thread".to_string()
    } else {
        format!("{threads} threads")
    };
    entries
        .iter()
        .map(|t| {
            let mut table = build_table(exp, t, &selected, Selection::BestMean).map_err(|e| {
                BenchError::Table {
                    name: t.name.clone(),
                    message: e,
                }
            })?;
            let what = format!(
                "Median wall-clock seconds of one fit + predict over {repeats} timed repeats (after one untimed warm-up; the minimum is in timing.csv), on this machine with {threads}: the fit on repetition {BENCH_REPETITION}'s private training data with the run's seeded streams (the partition grown on public data, the users' simulated releases, the estimator) and the prediction of the test set; loading, splitting and scaling are not counted (LPDT paper Table 6, card docs/methods/lpdt.md §10; LPCT paper Table 3, card docs/methods/lpct.md §10.8). Grid points: {}.",
                grid.describe()
            );
            match table.notes.first_mut() {
                Some(first) => *first = what,
                None => table.notes.push(what),
            }
            let base = t.caption_sentence(&exp.spec.name);
            table.caption = format!("{base} Grid points: {}.", grid.describe());
            Ok(table)
        })
        .collect()
}

/// Options of [`bench`].
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Output folder (created if needed).
    pub out: PathBuf,
    /// Folder of the real data files.
    pub data_dir: Option<PathBuf>,
    /// A results folder whose `selected.csv` names the grid points to time.
    pub results: Option<PathBuf>,
    /// Timed repeats per case.
    pub repeats: usize,
    /// Worker threads the methods may use inside one fit (cases run one after another).
    pub jobs: usize,
    /// Show a progress bar.
    pub progress: bool,
}

/// What [`bench`] did.
#[derive(Debug, Clone)]
pub struct BenchOutcome {
    /// One timing per case that applied, in spec order.
    pub timings: Vec<Timing>,
    /// The (data set, method) pairs left out.
    pub skipped: Vec<Skipped>,
    /// (table name, Markdown) of every rendered table.
    pub markdown: Vec<(String, String)>,
    /// Every file written: timing.csv, then the tables.
    pub files: Vec<PathBuf>,
}

fn write(path: PathBuf, text: &str) -> Result<PathBuf, BenchError> {
    std::fs::write(&path, text).map_err(|e| BenchError::Output {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(path)
}

/// Loads the spec's data, times every case (see the module documentation) and writes
/// `timing.csv` and the tables into `opts.out`.
///
/// # Errors
/// Loading or splitting the data, a `selected.csv` that cannot be read or lacks a case,
/// a method failure, a table that cannot be built, an output file that cannot be written.
pub fn bench(exp: &Experiment, opts: &BenchOptions) -> Result<BenchOutcome, BenchError> {
    if opts.repeats == 0 {
        return Err(BenchError::NoRepeats);
    }
    let data = load_datasets(exp, opts.data_dir.as_deref())?;
    let selected_path = opts.results.as_ref().map(|r| r.join("selected.csv"));
    let index = match &selected_path {
        Some(p) => Some(crate::run::refit::read_selected(p).map_err(BenchError::Selected)?),
        None => None,
    };
    let grid = match (&index, &selected_path) {
        (Some(index), Some(path)) => GridSource::Selected { index, path },
        _ => GridSource::FirstPoint,
    };
    let (cases, skipped) = cases(exp, &data, grid)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()
        .map_err(|e| BenchError::Pool(e.to_string()))?;
    let bar = if opts.progress {
        let b = ProgressBar::new(cases.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} cases {msg}")
                .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let mut timings = Vec::with_capacity(cases.len());
    let mut skipped = skipped;
    for case in &cases {
        bar.set_message(format!("{} {}", case.dataset, case.method.label));
        match pool.install(|| time_case(case, opts.repeats))? {
            Some(t) => timings.push(t),
            None => skipped.push(Skipped {
                dataset: case.dataset.clone(),
                method: case.method.label.clone(),
                reason: format!("grid point {} does not apply to the data", case.key()),
            }),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    std::fs::create_dir_all(&opts.out).map_err(|e| BenchError::Output {
        path: opts.out.clone(),
        message: e.to_string(),
    })?;
    let mut files = vec![write(opts.out.join("timing.csv"), &timing_csv(&timings))?];
    let mut markdown = Vec::new();
    for table in timing_tables(exp, &timings, &grid, pool.current_num_threads())? {
        let err = |e: crate::report::ReportError| BenchError::Table {
            name: table.name.clone(),
            message: e.to_string(),
        };
        let md = render_markdown(&table).map_err(err)?;
        let tex = render_latex(&table).map_err(err)?;
        files.push(write(
            opts.out.join(format!("table-{}.md", table.name)),
            &md,
        )?);
        files.push(write(
            opts.out.join(format!("table-{}.tex", table.name)),
            &tex,
        )?);
        markdown.push((table.name.clone(), md));
    }
    Ok(BenchOutcome {
        timings,
        skipped,
        markdown,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(method: &str, eps: Option<f64>, median: f64) -> Timing {
        Timing {
            dataset: "abalone".into(),
            method: method.into(),
            params: "depth=4;min_leaf=20".into(),
            epsilon: eps,
            repeats: 3,
            median_seconds: median,
            min_seconds: median / 2.0,
            n_train: 2924,
            n_public: 417,
            n_test: 836,
        }
    }

    #[test]
    fn timing_csv_is_tidy_with_empty_epsilon_for_non_private_methods() {
        let text = timing_csv(&[
            timing("DT", None, 0.001),
            timing("LPDT-M", Some(2.0), 2.5e-4),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], TIMING_HEADER);
        assert_eq!(
            lines[1],
            "abalone,DT,depth=4;min_leaf=20,,3,0.001,0.0005,2924,417,836"
        );
        assert_eq!(
            lines[2],
            "abalone,LPDT-M,depth=4;min_leaf=20,2,3,0.00025,0.000125,2924,417,836"
        );
        assert_eq!(lines.len(), 3);
    }
}
