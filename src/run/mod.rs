//! Planning and running an experiment (DESIGN.md, `run/`): per (data set, repetition) the
//! data are loaded once, split with the repetition's seed and scaled; per method and
//! structural grid point the partition is built once, then every mechanism grid point and
//! ε is privatized, predicted and scored. Rows are appended to runs.csv as tasks finish.

mod results;
pub mod seeds;
mod summary;

pub use results::{read_runs, RunRow};
pub use summary::{finish, Finished, GroupKey};

use crate::data::{lpdt_sine, random_split, Dataset, MinMax};
use crate::estimate::LabelBounds;
use crate::methods::RepData;
use crate::spec::raw::{LabelBoundsFrom, Scaling};
use crate::spec::{DataSource, DatasetPlan, Experiment, MethodPlan};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;
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
    /// A method failed.
    #[error("data set `{dataset}`, repetition {repetition}, method {method} ({params}): {source}")]
    Method {
        dataset: String,
        repetition: usize,
        method: String,
        params: String,
        source: crate::methods::MethodError,
    },
    /// Output files.
    #[error("{path}: {message}")]
    Output { path: PathBuf, message: String },
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
}

fn out_err(path: &Path, e: impl std::fmt::Display) -> RunError {
    RunError::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Loads every file data set of the experiment (checking sha256 and shape) and, with
/// `scaling: whole`, min-max scales its features on all rows once (lpdt.md §8.3: the
/// scaler is fitted on the whole data set before splitting).
///
/// # Errors
/// The first data set that cannot be loaded.
pub fn load_datasets(
    exp: &Experiment,
    data_dir: Option<&Path>,
) -> Result<Vec<Option<Arc<Dataset>>>, RunError> {
    exp.datasets
        .iter()
        .map(|p| {
            let mut d = p.load(data_dir).map_err(|source| RunError::Data {
                dataset: p.name.clone(),
                source,
            })?;
            if let (Some(ds), Scaling::Whole) = (d.as_mut(), exp.scaling) {
                MinMax::fit(&ds.x).transform(&mut ds.x);
            }
            Ok(d.map(Arc::new))
        })
        .collect()
}

/// The data of repetition `rep` (1-based) of a data set: split with the repetition's
/// stream, scaled on the public part when `scaling: public`, with label bounds. `data` is
/// the loaded (and, with `scaling: whole`, already scaled) data set from
/// [`load_datasets`], None for synthetic data sets.
///
/// # Errors
/// A split that leaves a part empty.
pub fn repetition_data(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: Option<&Dataset>,
    rep: usize,
) -> Result<RepData, RunError> {
    let seed = exp.spec.seed;
    let rep_text = rep.to_string();
    let (mut public, mut private, mut test, scaling) = match (&plan.source, data) {
        (
            DataSource::LpdtSine {
                public,
                private,
                test,
                x_scale,
            },
            _,
        ) => {
            let mut rng = seeds::stream(seed, &["data", &plan.name, &rep_text]);
            let all = lpdt_sine(&plan.name, public + private + test, *x_scale, &mut rng);
            let idx: Vec<usize> = (0..all.n()).collect();
            let (a, rest) = idx.split_at(*public);
            let (b, c) = rest.split_at(*private);
            // Synthetic features already live in [0,1]: no scaling.
            (all.select(a), all.select(b), all.select(c), Scaling::None)
        }
        (_, Some(all)) => {
            let ratios = exp.split.expect("validated: file data sets have a split");
            let sizes = ratios.sizes(all.n()).map_err(|message| RunError::Split {
                dataset: plan.name.clone(),
                message,
            })?;
            let mut rng = seeds::stream(seed, &["split", &plan.name, &rep_text]);
            let s = random_split(all.n(), sizes, &mut rng);
            // `scaling: whole` was applied once at load time (see `load_datasets`).
            let scaling = if exp.scaling == Scaling::Public {
                Scaling::Public
            } else {
                Scaling::None
            };
            (
                all.select(&s.public),
                all.select(&s.private),
                all.select(&s.test),
                scaling,
            )
        }
        (_, None) => unreachable!("file data sets are loaded before running"),
    };
    if scaling == Scaling::Public {
        let mm = MinMax::fit(&public.x);
        mm.transform(&mut public.x);
        mm.transform(&mut private.x);
        mm.transform(&mut test.x);
    }
    let bounds = match exp.label_bounds {
        LabelBoundsFrom::Public if public.n() > 0 => LabelBounds::of(&public.y),
        LabelBoundsFrom::Public => LabelBounds::of(&[]),
        LabelBoundsFrom::PrivateTrain => LabelBounds::of(&private.y),
    };
    Ok(RepData {
        public,
        private,
        test,
        bounds,
    })
}

/// Number of tasks (runs.csv rows) of the whole experiment, before grid points that do
/// not apply to a data set (e.g. histogram grids over the memory cap) are dropped.
pub fn task_count(exp: &Experiment) -> usize {
    exp.datasets
        .iter()
        .map(|d| rows_per_rep(exp, d))
        .sum::<usize>()
        * exp.repetitions
}

/// Number of rows a data set contributes per repetition.
fn rows_per_rep(exp: &Experiment, plan: &DatasetPlan) -> usize {
    exp.methods
        .iter()
        .filter(|m| !m.skip.contains(&plan.name))
        .map(|m| {
            m.structural.len()
                * m.mechanism.len()
                * if m.method.private() {
                    exp.epsilons.len()
                } else {
                    1
                }
        })
        .sum()
}

/// Runs every task of the experiment, writing `runs.csv` (and a copy of the spec as
/// `spec.yaml`) into `opts.out`. Results are the same whatever the number of threads.
///
/// # Errors
/// Loading, splitting, a method failure or an output file error; rows written before
/// the error stay in runs.csv.
pub fn run(exp: &Experiment, spec_text: &str, opts: &RunOptions) -> Result<(), RunError> {
    std::fs::create_dir_all(&opts.out).map_err(|e| out_err(&opts.out, e))?;
    let spec_copy = opts.out.join("spec.yaml");
    std::fs::write(&spec_copy, spec_text).map_err(|e| out_err(&spec_copy, e))?;
    let data = load_datasets(exp, opts.data_dir.as_deref())?;
    let runs_path = opts.out.join("runs.csv");
    let writer = csv::Writer::from_path(&runs_path).map_err(|e| out_err(&runs_path, e))?;
    let writer = Mutex::new(writer);

    let units: Vec<(usize, usize)> = (0..exp.datasets.len())
        .flat_map(|d| (1..=exp.repetitions).map(move |r| (d, r)))
        .collect();
    let total: usize = units
        .iter()
        .map(|&(d, _)| rows_per_rep(exp, &exp.datasets[d]))
        .sum();
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

    let pool = {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(j) = opts.jobs {
            b = b.num_threads(j);
        }
        b.build().map_err(|e| out_err(&opts.out, e))?
    };
    let result = pool.install(|| {
        units.par_iter().try_for_each(|&(d, rep)| {
            let plan = &exp.datasets[d];
            let rep_data = repetition_data(exp, plan, data[d].as_deref(), rep)?;
            let items: Vec<(usize, usize)> = exp
                .methods
                .iter()
                .enumerate()
                .filter(|(_, m)| !m.skip.contains(&plan.name))
                .flat_map(|(mi, m)| (0..m.structural.len()).map(move |si| (mi, si)))
                .collect();
            items.par_iter().try_for_each(|&(mi, si)| {
                let rows = run_structural_point(exp, plan, &rep_data, rep, &exp.methods[mi], si)?;
                let n = rows.len();
                let mut w = writer.lock().expect("writer lock");
                for row in &rows {
                    w.serialize(row).map_err(|e| out_err(&runs_path, e))?;
                }
                w.flush().map_err(|e| out_err(&runs_path, e))?;
                drop(w);
                let m = &exp.methods[mi];
                let expected = m.mechanism.len()
                    * if m.method.private() {
                        exp.epsilons.len()
                    } else {
                        1
                    };
                bar.inc(expected.max(n) as u64);
                Ok(())
            })
        })
    });
    bar.finish_and_clear();
    let mut w = writer.into_inner().expect("writer lock");
    w.flush().map_err(|e| out_err(&runs_path, e))?;
    result
}

/// All rows of one (data set, repetition, method, structural grid point): the partition
/// is built once and reused for every mechanism grid point and ε.
fn run_structural_point(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: &RepData,
    rep: usize,
    m: &MethodPlan,
    si: usize,
) -> Result<Vec<RunRow>, RunError> {
    let structural = &m.structural[si];
    let start = Instant::now();
    let err = |params: String, source| RunError::Method {
        dataset: plan.name.clone(),
        repetition: rep,
        method: m.label.clone(),
        params,
        source,
    };
    let prepared = match m.method.prepare(data, structural) {
        Ok(Some(p)) => p,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(err(structural.key(), e)),
    };
    let prepare_secs = start.elapsed().as_secs_f64();
    let epsilons: Vec<Option<f64>> = if m.method.private() {
        exp.epsilons.iter().map(|&e| Some(e)).collect()
    } else {
        vec![None]
    };
    let n_rows = (m.mechanism.len() * epsilons.len()) as f64;
    let task = data.test.task;
    let rep_text = rep.to_string();
    let mut rows = Vec::with_capacity(n_rows as usize);
    for mech in &m.mechanism {
        let params = structural.join(mech);
        let key = params.key();
        for &eps in &epsilons {
            let t0 = Instant::now();
            let eps_text = eps.map(seeds::epsilon_text).unwrap_or_default();
            let mut rng = seeds::stream(
                exp.spec.seed,
                &["noise", &plan.name, &rep_text, &m.label, &key, &eps_text],
            );
            let pred = prepared
                .predict(mech, eps, &mut rng)
                .map_err(|e| err(key.clone(), e))?;
            let value = task.score(&data.test.y, &pred);
            rows.push(RunRow {
                dataset: plan.name.clone(),
                method: m.label.clone(),
                params: key.clone(),
                epsilon: eps,
                repetition: rep,
                metric: task.metric_name().to_string(),
                value,
                seconds: t0.elapsed().as_secs_f64() + prepare_secs / n_rows,
            });
        }
    }
    Ok(rows)
}
