//! Planning and running an experiment (docs/architecture.md, `run/`): per (data set, repetition) the
//! data are loaded once, split with the repetition's seed and scaled; per method and
//! structural grid point the partition is built once, then every mechanism grid point and
//! ε is privatized, predicted and scored. Rows are appended to runs.csv as tasks finish.

pub mod accounting;
pub mod bench;
pub mod curves;
pub mod keys;
pub mod ledger;
pub mod limit;
pub mod masks;
mod merge;
pub mod occupancy;
pub mod output;
pub mod refit;
mod results;
pub mod seeds;
mod summary;
pub mod table;

pub use merge::merge;
pub use output::{check_output_folder, OutputFolder, OutputFolderError};
pub use results::{read_runs, RunRow, RUNS_HEADER};
pub use summary::{finish, Finished, GroupKey};

use crate::data::{
    lpdt_sine, random_split, semi_feature_sine, Dataset, MinMax, MissingPolicy, SplitRows,
    TaxiPopulation,
};
use crate::estimate::LabelBounds;
use crate::methods::{MethodError, Params, Prepared, RepData};
use crate::partition::{PartitionCache, SharedPublic};
use crate::spec::raw::{LabelBoundsFrom, Scaling, TableValue, ValidationReleases};
use crate::spec::{DataSource, DatasetPlan, Experiment, MethodPlan};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Loads every file data set of the experiment (checking sha256 and shape), checks that
/// the split leaves no part of it empty and, with `scaling: whole`, min-max scales its
/// features on all rows once (docs/methods/lpdt.md §8.3: the scaler is fitted on the whole data set
/// before splitting).
///
/// # Errors
/// The first data set that cannot be loaded ([`RunError::Data`]) or that the split
/// leaves a part of empty ([`RunError::Spec`], naming `split.<part>`).
pub fn load_datasets(
    exp: &Experiment,
    data_dir: Option<&Path>,
) -> Result<Vec<Option<Arc<Dataset>>>, RunError> {
    Ok(load_datasets_counted(exp, data_dir)?.0)
}

/// Rows dropped for missing values, by data-set name.
pub type DroppedRows = BTreeMap<String, usize>;

/// Each data set of an experiment as loaded (None for synthetic ones), in spec order.
pub type LoadedDatasets = Vec<Option<Arc<Dataset>>>;

/// [`load_datasets`], with the number of rows each data set under `missing: drop_rows`
/// dropped for missing values, by data-set name (run.json's `dropped_rows`; data sets
/// under the default `missing: error` drop nothing and are not listed).
///
/// # Errors
/// The first data set that cannot be loaded.
pub fn load_datasets_counted(
    exp: &Experiment,
    data_dir: Option<&Path>,
) -> Result<(LoadedDatasets, DroppedRows), RunError> {
    let mut dropped = BTreeMap::new();
    let mut data = Vec::with_capacity(exp.datasets.len());
    for p in &exp.datasets {
        let loaded = p.load(data_dir).map_err(|source| RunError::Data {
            dataset: p.name.clone(),
            source,
        })?;
        let drops_rows = match &p.source {
            DataSource::Manifest(m) => m.missing == MissingPolicy::DropRows,
            DataSource::File { missing, .. } => *missing == MissingPolicy::DropRows,
            _ => false,
        };
        if let (Some(l), Some(split)) = (loaded.as_ref(), exp.split) {
            crate::spec::check_split_rows(split, &p.name, p.split_rows(&l.dataset), &exp.path)
                .map_err(RunError::Spec)?;
        }
        let mut d = loaded.map(|l| {
            if drops_rows {
                dropped.insert(p.name.clone(), l.dropped_rows);
            }
            l.dataset
        });
        if let DataSource::Manifest(m) = &p.source {
            if let Some(t) = m.encode.as_ref().and_then(|e| e.target) {
                crate::privacy::ledger::private_quantity("target rescale", || {
                    format!(
                        "{}: the regression target rescaled ({:?}) over every row of the file, private and test rows included",
                        p.name, t.rescale
                    )
                });
            }
        }
        if let (Some(ds), Scaling::Whole) = (d.as_mut(), exp.scaling) {
            crate::privacy::ledger::private_quantity("scaling: whole", || {
                format!(
                    "{}: feature minima and maxima over every row, private and test rows included",
                    p.name
                )
            });
            MinMax::fit(&ds.x).transform(&mut ds.x);
        }
        data.push(d.map(Arc::new));
    }
    Ok((data, dropped))
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
    split_repetition(exp, plan, data.map(Rows::Borrowed), rep)
}

/// [`repetition_data`] taking the loaded data set: when `data` is its only reference
/// (the last repetition of a data set in a run), its rows are moved into split order in
/// place rather than copied, so the repetition needs no second copy of the matrix.
///
/// # Errors
/// A split that leaves a part empty.
pub fn repetition_data_owned(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: Option<Arc<Dataset>>,
    rep: usize,
) -> Result<RepData, RunError> {
    split_repetition(exp, plan, data.map(Rows::Owned), rep)
}

/// A loaded data set, borrowed or shared.
enum Rows<'a> {
    Borrowed(&'a Dataset),
    Owned(Arc<Dataset>),
}

impl Rows<'_> {
    fn get(&self) -> &Dataset {
        match self {
            Rows::Borrowed(d) => d,
            Rows::Owned(d) => d,
        }
    }
}

/// The body of [`repetition_data`] and [`repetition_data_owned`].
fn split_repetition(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: Option<Rows<'_>>,
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
        (
            DataSource::SemiFeatureSine {
                public,
                private,
                test,
                design,
            },
            _,
        ) => {
            let mut rng = seeds::stream(seed, &["data", &plan.name, &rep_text]);
            let n = public + private + test;
            let all = semi_feature_sine(&plan.name, n, design.d, design.sigma, &mut rng);
            let idx: Vec<usize> = (0..n).collect();
            let (a, rest) = idx.split_at(*public);
            let (b, c) = rest.split_at(*private);
            // Uniform features already live in [0,1]: no scaling.
            (all.select(a), all.select(b), all.select(c), Scaling::None)
        }
        (
            DataSource::TaxiShape {
                public,
                private,
                test,
                design,
            },
            _,
        ) => {
            // Each part drawn in place from its own stream (no n×d copy: at the Taxi
            // scale one part is gigabytes); features already in [0,1].
            let part = |n: usize, population, name: &str| {
                let mut rng = seeds::stream(seed, &["data", &plan.name, &rep_text, name]);
                design.sample(&plan.name, n, population, &mut rng)
            };
            (
                part(*public, TaxiPopulation::Public, "public"),
                part(*private, TaxiPopulation::Private, "private"),
                part(*test, TaxiPopulation::Private, "test"),
                Scaling::None,
            )
        }
        (
            DataSource::LpctDrift {
                public,
                private,
                test,
                design,
                stream,
            },
            _,
        ) => {
            let [a, b, c] = design.repetition(&plan.name, (*public, *private, *test), |part| {
                seeds::stream(seed, &["data", stream, &rep_text, part])
            });
            // The design maps its points back to the unit square itself (known,
            // estimated or assumed range); nothing more to scale.
            (a, b, c, Scaling::None)
        }
        (_, Some(rows)) => {
            let all = rows.get();
            let ratios = exp.split.expect("validated: file data sets have a split");
            // A pair: the first rows are the private data set, split into private and
            // test; every remaining row is public.
            let n_split = plan.split_rows(all);
            let sizes = ratios.sizes(n_split).map_err(|e| RunError::Split {
                dataset: plan.name.clone(),
                message: e.to_string(),
            })?;
            let mut rng = seeds::stream(seed, &["split", &plan.name, &rep_text]);
            let mut s = random_split(n_split, sizes, &mut rng);
            s.public.extend(n_split..all.n());
            // The three parts are views of one buffer of the split's rows: the loaded
            // matrix itself, reordered in place, when this is its last user.
            let mut split = match rows {
                Rows::Owned(arc) => match Arc::try_unwrap(arc) {
                    Ok(all) => SplitRows::permute(all, &s),
                    Err(arc) => SplitRows::gather(&arc, &s),
                },
                Rows::Borrowed(all) => SplitRows::gather(all, &s),
            };
            // `scaling: whole` was applied once at load time (see `load_datasets`);
            // `scaling: public` is applied here to the whole buffer, before the views.
            if exp.scaling == Scaling::Public {
                split.scale_by_public();
            }
            let (public, private, test) = split.parts();
            (public, private, test, Scaling::None)
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
        LabelBoundsFrom::PrivateTrain => {
            crate::privacy::ledger::private_quantity("label_bounds: private_train", || {
                format!(
                    "{}: the label range (clipping and noise scales) from the private labels' minimum and maximum",
                    plan.name
                )
            });
            LabelBounds::of(&private.y)
        }
        LabelBoundsFrom::Fixed { lo, hi } => LabelBounds { lo, hi },
    };
    let masks = masks::draw(exp, plan, &private, rep);
    Ok(RepData {
        public,
        private,
        test,
        bounds,
        masks,
    })
}

/// Whether the public sample of `plan` is the same in every repetition: a file data set
/// whose split gives the public part no share, so that its public rows are the data set's
/// fixed public rows (a pair's public file, the rows a `public_by_rule` or `public_sample`
/// makes public) in file order, scaled by a rule that does not vary by repetition
/// (`scaling: public` is fitted on those same rows, `whole` once at load). Synthetic data
/// sets draw theirs per repetition. The trees shared on this ground are still keyed by the
/// public sample's content ([`SharedPublic`]), so a wrong answer here costs memory, never
/// a wrong row.
pub fn public_is_fixed(exp: &Experiment, plan: &DatasetPlan) -> bool {
    !plan.source.is_synthetic() && exp.split.is_some_and(|s| s.public == 0.0)
}

/// Whether the repetitions of a run share trees grown on a fixed public sample (see
/// [`crate::partition::shared`]): yes unless a table of the spec shows seconds, whose rows
/// must each time a full fit, the tree grown included (LPCT Table 3, LPDT Table 6). The
/// rows are the same either way but for their seconds.
pub fn shares_partitions(exp: &Experiment) -> bool {
    !exp.spec
        .tables
        .iter()
        .any(|t| t.value == TableValue::Seconds)
}

/// Shape (n rows, d features) of each data set of the experiment: from the loaded data
/// set (`data`, as from [`load_datasets`]; may be shorter or empty) where there is one,
/// else as far as the plan knows ([`DatasetPlan::known_shape`]); None for an inline file
/// that was not loaded.
pub fn dataset_shapes(
    exp: &Experiment,
    data: &[Option<Arc<Dataset>>],
) -> Vec<Option<(usize, usize)>> {
    exp.datasets
        .iter()
        .enumerate()
        .map(|(i, p)| match data.get(i) {
            Some(Some(d)) => Some((d.n(), d.d())),
            _ => p.known_shape(),
        })
        .collect()
}

/// Why structural grid point `si` of `m` does not run on a data set of shape `shape`
/// (the method's [`crate::methods::Method::skip_reason`]); None when it runs or the shape
/// is unknown.
fn skip_reason(m: &MethodPlan, si: usize, shape: Option<(usize, usize)>) -> Option<String> {
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

/// One unit of work: (data set index, repetition, method index, structural grid point).
type Unit = (usize, usize, usize, usize);

/// Every unit of the experiment in its canonical order, without the structural grid
/// points that do not apply to their data set's shape (`shapes`, from
/// [`dataset_shapes`]); shard i of N takes the units whose position modulo N is i − 1
/// (round robin keeps shards balanced).
fn units(
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
    let done: HashSet<String> = appending.rows.into_iter().map(|r| r.task).collect();
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
                let have = k.iter().filter(|k| done.contains(*k)).count();
                (u, k, have)
            })
            .collect()
    });
    let mut todo: Vec<(Unit, Vec<String>)> = Vec::new();
    let mut reused = 0;
    for (u, k, have) in keyed {
        reused += have;
        if have < k.len() {
            todo.push((u, k));
        }
    }
    let total: usize = todo
        .iter()
        .map(|(_, k)| k.iter().filter(|k| !done.contains(*k)).count())
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
    if reused > 0 {
        bar.println(format!(
            "resuming: {reused} tasks already in {}",
            runs_path.display()
        ));
    }

    // Group the pending units by (data set, repetition) so each split is made once.
    let mut by_rep: Vec<((usize, usize), Vec<(Unit, Vec<String>)>)> = Vec::new();
    for (u, k) in todo {
        match by_rep.last_mut() {
            Some((key, list)) if *key == (u.0, u.1) => list.push((u, k)),
            _ => by_rep.push(((u.0, u.1), vec![(u, k)])),
        }
    }
    // Each loaded data set is handed to the last of its pending repetitions, which can
    // then reorder its rows in place instead of copying them (unless the mask record
    // below reads them again).
    let pending: Vec<AtomicUsize> = (0..exp.datasets.len())
        .map(|d| AtomicUsize::new(by_rep.iter().filter(|((dd, _), _)| *dd == d).count()))
        .collect();
    let slots: Vec<Mutex<Option<Arc<Dataset>>>> = data.into_iter().map(Mutex::new).collect();
    let take_rows = |d: usize| {
        let mut slot = slots[d].lock().expect("data lock");
        let last = pending[d].fetch_sub(1, Ordering::SeqCst) == 1;
        if last && !masks::reads_data_after_run(exp, &exp.datasets[d]) {
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
    let result = pool.install(|| {
        by_rep.par_iter().try_for_each(|((d, rep), list)| {
            let plan = &exp.datasets[*d];
            let rep_data = repetition_data_owned(exp, plan, take_rows(*d), *rep)?;
            let tuning = tuning_data(exp, plan, &rep_data, *rep);
            let shared = caches[*d]
                .as_ref()
                .map(|c| SharedPublic::new(c, &rep_data.public));
            let done_rep = list.par_iter().try_for_each(|((_, _, mi, si), keys)| {
                let rows = run_structural_point(
                    exp,
                    plan,
                    &rep_data,
                    &tuning,
                    *rep,
                    &exp.methods[*mi],
                    *si,
                    keys,
                    shared.as_ref(),
                )?;
                let new: Vec<&RunRow> = rows.iter().filter(|r| !done.contains(&r.task)).collect();
                let mut w = writer.lock().expect("writer lock");
                for row in &new {
                    w.serialize(row).map_err(|e| out_err(&runs_path, e))?;
                }
                w.flush().map_err(|e| out_err(&runs_path, e))?;
                drop(w);
                computed.fetch_add(new.len(), Ordering::Relaxed);
                bar.inc(keys.iter().filter(|k| !done.contains(*k)).count() as u64);
                Ok::<(), RunError>(())
            });
            if unfinished[*d].fetch_sub(1, Ordering::SeqCst) == 1 {
                if let Some(c) = &caches[*d] {
                    c.clear();
                }
            }
            done_rep
        })
    });
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
    privacy["masks"] = masks::mask_record(exp, &data)?;
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

/// Data of one repetition for the honest selection modes: the cv folds (each a RepData
/// whose private part is the other folds and whose test part is the fold) and the
/// private-validation split (private part: the training users; test part: the n_v
/// validation users followed by the test set).
pub struct TuningData {
    /// One RepData per fold (empty without cv).
    pub folds: Vec<RepData>,
    /// The validation RepData and n_v (None without private_validation).
    pub validation: Option<(RepData, usize)>,
}

/// Splits a repetition's private training users for the spec's selection modes, with the
/// repetition's own streams (the same for every method, so selection stays paired).
pub fn tuning_data(exp: &Experiment, plan: &DatasetPlan, data: &RepData, rep: usize) -> TuningData {
    use crate::spec::raw::Selection;
    use rand::seq::SliceRandom;
    let n = data.private.n();
    let rep_text = rep.to_string();
    let t = exp.spec.tuning;
    let mut folds = Vec::new();
    if exp.selection.contains(&Selection::Cv) {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.shuffle(&mut seeds::stream(
            exp.spec.seed,
            &["cv", &plan.name, &rep_text],
        ));
        for f in 0..t.cv_folds {
            let held: Vec<usize> = idx
                .iter()
                .enumerate()
                .filter(|(pos, _)| pos % t.cv_folds == f)
                .map(|(_, &i)| i)
                .collect();
            let train: Vec<usize> = idx
                .iter()
                .enumerate()
                .filter(|(pos, _)| pos % t.cv_folds != f)
                .map(|(_, &i)| i)
                .collect();
            folds.push(RepData {
                public: data.public.clone(),
                private: data.private.select(&train),
                test: data.private.select(&held),
                bounds: data.bounds,
                masks: data.masks_of(&train),
            });
        }
    }
    let validation = exp
        .selection
        .contains(&Selection::PrivateValidation)
        .then(|| {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.shuffle(&mut seeds::stream(
                exp.spec.seed,
                &["validation", &plan.name, &rep_text],
            ));
            let n_v = ((t.validation_share * n as f64).round() as usize)
                .clamp(1, n.saturating_sub(1).max(1));
            let mut test = data.private.select(&idx[..n_v]);
            test.x.data.extend_from_slice(&data.test.x.data);
            test.x.n += data.test.n();
            test.y.extend_from_slice(&data.test.y);
            (
                RepData {
                    public: data.public.clone(),
                    private: data.private.select(&idx[n_v..]),
                    test,
                    bounds: data.bounds,
                    masks: data.masks_of(&idx[n_v..]),
                },
                n_v,
            )
        });
    TuningData { folds, validation }
}

/// The curator's estimate of a grid point's validation loss under private_validation
/// (LPDT App. D.2; docs/methods/lpdt.md §8.1(c)): validation user i computes its loss e_i — the squared
/// error with prediction and label clipped to [y_lo, y_hi], so e_i ∈ [0, R²] (0/1 loss for
/// classification) — and releases e_i + Lap(B·k/ε) with B the loss bound and k the number
/// of grid points (basic composition: ε/k per value). The mean of the n_v releases is drawn
/// exactly as mean(e) + (one sum of n_v Laplace draws)/n_v. Non-private methods report
/// the exact mean loss.
fn validation_score(
    task: crate::data::Task,
    bounds: LabelBounds,
    y: &[f64],
    pred: &[f64],
    epsilon: Option<f64>,
    grid_size: f64,
    rng: &mut rand_pcg::Pcg64,
) -> f64 {
    let n_v = y.len();
    let (losses, bound): (f64, f64) = match task {
        crate::data::Task::Regression => (
            y.iter()
                .zip(pred)
                .map(|(a, b)| (bounds.clip(*b) - bounds.clip(*a)).powi(2))
                .sum(),
            bounds.range() * bounds.range(),
        ),
        crate::data::Task::Classification => (
            y.iter().zip(pred).filter(|(a, b)| a != b).count() as f64,
            1.0,
        ),
    };
    let noise = match epsilon {
        Some(e) => {
            let scale = bound * grid_size / e;
            // Each of the n_v validation users released one loss in [0, bound] at this
            // scale (the sum below stands for their n_v draws): the ledger charges each
            // of them what that release spent, once per grid point scored.
            crate::privacy::ledger::charge(
                "validation loss: Laplace",
                crate::privacy::ledger::Subjects::Range(0, n_v),
                crate::privacy::ledger::laplace_epsilon(bound, scale),
                0.0,
            );
            crate::privacy::laplace_sum(rng, n_v, scale)
        }
        None => 0.0,
    };
    (losses + noise) / n_v as f64
}

/// All rows of one (data set, repetition, method, structural grid point): the partition
/// is built once and reused for every mechanism grid point and ε. `keys` are the task keys
/// of the rows in the order they are computed (mechanism grid point, then ε). `shared`:
/// the repetition's public sample with its data set's tree cache, when the repetitions
/// share trees grown on it ([`shares_partitions`], [`public_is_fixed`]); the cv folds and
/// the private-validation split have the same public sample.
#[allow(clippy::too_many_arguments)]
fn run_structural_point(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: &RepData,
    tuning: &TuningData,
    rep: usize,
    m: &MethodPlan,
    si: usize,
    keys: &[String],
    shared: Option<&SharedPublic<'_>>,
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
    let partition_stream =
        || seeds::partition_stream(exp.spec.seed, &plan.name, rep, &m.label, &structural.key());
    let prepare = |d: &RepData| {
        m.method
            .prepare_shared(d, structural, &mut partition_stream(), shared)
            .map_err(|e| err(structural.key(), e))
    };
    let Some(prepared) = prepare(data)? else {
        return Ok(Vec::new());
    };
    // The fit on this repetition's data alone: what one fit of any of these rows costs
    // (the folds' and validation fits below serve selection, not the reported model).
    let fit_secs = start.elapsed().as_secs_f64();
    // The honest selection modes fit the same grid point on other users: the folds of
    // cv, the training users of private_validation.
    let fold_fits = tuning
        .folds
        .iter()
        .map(prepare)
        .collect::<Result<Vec<_>, _>>()?;
    let pv_fit = match &tuning.validation {
        Some((d, _)) => prepare(d)?,
        None => None,
    };
    let epsilons: Vec<Option<f64>> = if m.method.private() {
        exp.epsilons.iter().map(|&e| Some(e)).collect()
    } else {
        vec![None]
    };
    let task = data.test.task;
    let metric = task.metric_name();
    let grid_size = (m.structural.len() * m.mechanism.len()) as f64;
    let points: Vec<Params> = m.mechanism.iter().map(|q| structural.join(q)).collect();
    let groups = release_groups(&points, m.method.params());
    // The rows of each (mechanism grid point, ε) as (metric, value, seconds), filled group
    // by group and written out below in the order of `keys` (grid point, then ε).
    let mut cells: Vec<Vec<(String, f64, f64)>> = vec![Vec::new(); points.len() * epsilons.len()];
    for (ei, &eps) in epsilons.iter().enumerate() {
        let eps_text = eps.map(seeds::epsilon_text).unwrap_or_default();
        for group in &groups {
            let t0 = Instant::now();
            // Seconds of a row: the fit plus this group's time so far, split evenly over
            // its grid points (they were computed together).
            let seconds = || fit_secs + t0.elapsed().as_secs_f64() / group.len() as f64;
            let streams = |purpose: &str, extra: &str| -> Vec<rand_pcg::Pcg64> {
                group
                    .iter()
                    .map(|&j| {
                        seeds::release_stream(
                            exp.spec.seed,
                            purpose,
                            &plan.name,
                            rep,
                            m,
                            &points[j],
                            &eps_text,
                            extra,
                        )
                    })
                    .collect()
            };
            let predict = |fit: &dyn Prepared, e: Option<f64>, rngs: &mut [rand_pcg::Pcg64]| {
                predict_group(fit, &m.mechanism, group, e, rngs, |j, source| {
                    err(points[j].key(), source)
                })
            };
            let preds = predict(prepared.as_ref(), eps, &mut streams("noise", ""))?;
            for (&j, p) in group.iter().zip(&preds) {
                let value = m.method.score(task, &points[j], &data.test.y, p);
                cells[j * epsilons.len() + ei].push((metric.to_string(), value, seconds()));
            }
            if !tuning.folds.is_empty() {
                // cv: mean held-out metric over the folds, each fitted with fresh noise.
                let mut totals = vec![0.0; group.len()];
                for (f, (fit, fold)) in fold_fits.iter().zip(&tuning.folds).enumerate() {
                    let fit = fit.as_ref().ok_or_else(|| {
                        err(
                            points[group[0]].key(),
                            MethodError::Other("grid point not applicable to a fold".into()),
                        )
                    })?;
                    let p = predict(fit.as_ref(), eps, &mut streams("cv", &f.to_string()))?;
                    for ((total, &j), p) in totals.iter_mut().zip(group).zip(&p) {
                        *total += m.method.score(task, &points[j], &fold.test.y, p);
                    }
                }
                for (&j, total) in group.iter().zip(totals) {
                    cells[j * epsilons.len() + ei].push((
                        format!("cv_{metric}"),
                        total / tuning.folds.len() as f64,
                        seconds(),
                    ));
                }
            }
            if let (Some(fit), Some((pv, n_v))) = (&pv_fit, &tuning.validation) {
                // private_validation: one fit on the training users predicts the
                // validation users (first n_v points) and the test set (the rest).
                // Under `validation_releases: shared` the training users split ε over
                // the k_r releases (basic composition), so each spends ε in total.
                let fit_eps = match exp.spec.tuning.validation_releases {
                    ValidationReleases::Fresh => eps,
                    ValidationReleases::Shared => {
                        eps.map(|e| e / m.release_configurations() as f64)
                    }
                };
                let mut rngs = streams("pv", "");
                let preds = predict(fit.as_ref(), fit_eps, &mut rngs)?;
                for ((&j, p), rng) in group.iter().zip(&preds).zip(&mut rngs) {
                    let (p_val, p_test) = p.split_at(*n_v);
                    let (y_val, y_test) = pv.test.y.split_at(*n_v);
                    let test_value = m.method.score(task, &points[j], y_test, p_test);
                    let score =
                        validation_score(task, data.bounds, y_val, p_val, eps, grid_size, rng);
                    let cell = &mut cells[j * epsilons.len() + ei];
                    cell.push((format!("pv_{metric}"), test_value, seconds()));
                    cell.push(("pv_score".to_string(), score, seconds()));
                }
            }
        }
    }
    let mut keys = keys.iter();
    let mut rows = Vec::with_capacity(keys.len());
    for (j, point) in points.iter().enumerate() {
        let params = point.key();
        for (ei, &eps) in epsilons.iter().enumerate() {
            for (metric, value, seconds) in cells[j * epsilons.len() + ei].drain(..) {
                rows.push(RunRow {
                    task: keys.next().expect("one key per row").clone(),
                    dataset: plan.name.clone(),
                    method: m.label.clone(),
                    params: params.clone(),
                    epsilon: eps,
                    repetition: rep,
                    metric,
                    value,
                    seconds,
                });
            }
        }
    }
    Ok(rows)
}

/// The mechanism grid points (indices into `points`) grouped by the users' releases they
/// share ([`Params::release_key`] under `decls`): points that differ only in curator-side
/// parameters draw from the same streams and are predicted together. Groups are in order
/// of their first point, points in grid order.
fn release_groups(points: &[Params], decls: &[crate::methods::ParamDecl]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (j, p) in points.iter().enumerate() {
        let key = p.release_key(decls);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(j),
            None => groups.push((key, vec![j])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Predictions of `fit` at the mechanism grid points `group` (indices into `mechanisms`),
/// `rngs` their release streams: one [`Prepared::predict`] for a single point, else
/// [`Prepared::predict_shared`]. When the shared call fails, the points are predicted one
/// by one so that the error names the grid point that fails (`err` builds it from the
/// point's index).
fn predict_group(
    fit: &dyn Prepared,
    mechanisms: &[Params],
    group: &[usize],
    epsilon: Option<f64>,
    rngs: &mut [rand_pcg::Pcg64],
    err: impl Fn(usize, MethodError) -> RunError,
) -> Result<Vec<Vec<f64>>, RunError> {
    let one_by_one = |rngs: &mut [rand_pcg::Pcg64]| {
        group
            .iter()
            .zip(rngs.iter_mut())
            .map(|(&j, rng)| {
                fit.predict(&mechanisms[j], epsilon, rng)
                    .map_err(|e| err(j, e))
            })
            .collect()
    };
    if group.len() == 1 {
        return one_by_one(rngs);
    }
    let entry = rngs.to_vec();
    let mechs: Vec<&Params> = group.iter().map(|&j| &mechanisms[j]).collect();
    match fit.predict_shared(&mechs, epsilon, rngs) {
        Ok(preds) => Ok(preds),
        Err(_) => {
            rngs.clone_from_slice(&entry);
            one_by_one(rngs)
        }
    }
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
