//! The data of one repetition (docs/architecture.md, `run/`): each data set loaded once
//! per run, then per repetition split with the repetition's seed into public, private and
//! test rows, scaled, and given its label range and privacy masks ([`RepData`]).

use super::{seeds, RunError};
use crate::data::{
    lpdt_sine, random_split, semi_feature_sine, Dataset, MaskStream, MinMax, MissingPolicy,
    RepetitionMasks, SplitIndices, SplitRows, TaxiPopulation,
};
use crate::estimate::LabelBounds;
use crate::methods::RepData;
use crate::spec::raw::{LabelBoundsFrom, Scaling, TableValue};
use crate::spec::{DataSource, DatasetPlan, Experiment};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

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
            scale_whole(p, ds);
        }
        data.push(d.map(Arc::new));
    }
    Ok((data, dropped))
}

/// `scaling: whole` (docs/methods/lpdt.md §8.3): the features of the loaded data set `ds`
/// (n×d) min-max scaled over every row, private and test rows included, once before the
/// split; recorded on the ledger as a quantity computed from private rows. The load of a
/// run and the end-to-end audit's neighbouring data sets both scale through here.
pub fn scale_whole(plan: &DatasetPlan, ds: &mut Dataset) {
    crate::privacy::ledger::private_quantity("scaling: whole", || {
        format!(
            "{}: feature minima and maxima over every row, private and test rows included",
            plan.name
        )
    });
    MinMax::fit(&ds.x).transform(&mut ds.x);
}

/// The split of a loaded file data set `all` for repetition `rep` (1-based): the rows
/// that the split ratios divide ([`DatasetPlan::split_rows`]) shuffled with the
/// repetition's stream `["split", data set, rep]` into public, private and test rows; the
/// data set's fixed public rows (a pair's public file, rows public by rule) join the
/// public part. The split depends only on (seed, data set, rep) and the number of rows,
/// so two data sets of the same size that differ in one row split alike.
///
/// # Errors
/// [`RunError::Split`] when a part would be empty.
pub fn split_indices(
    exp: &Experiment,
    plan: &DatasetPlan,
    all: &Dataset,
    rep: usize,
) -> Result<SplitIndices, RunError> {
    let ratios = exp.split.expect("validated: file data sets have a split");
    let n_split = plan.split_rows(all);
    let sizes = ratios.sizes(n_split).map_err(|e| RunError::Split {
        dataset: plan.name.clone(),
        message: e.to_string(),
    })?;
    let mut rng = seeds::stream(exp.spec.seed, &["split", &plan.name, &rep.to_string()]);
    let mut s = random_split(n_split, sizes, &mut rng);
    s.public.extend(n_split..all.n());
    Ok(s)
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
pub(super) enum Rows<'a> {
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
pub(super) fn split_repetition(
    exp: &Experiment,
    plan: &DatasetPlan,
    data: Option<Rows<'_>>,
    rep: usize,
) -> Result<RepData, RunError> {
    let seed = exp.spec.seed;
    let rep_text = rep.to_string();
    let (public, private, test, scaling) = match (&plan.source, data) {
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
            // A pair: the first rows are the private data set, split into private and
            // test; every remaining row is public.
            let s = split_indices(exp, plan, rows.get(), rep)?;
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
    Ok(finish_repetition(
        exp, plan, public, private, test, scaling, rep,
    ))
}

/// The last steps of a repetition's data, after its split: `scaling: public` where the
/// split left it to do (min-max fitted on the public part, applied to all three), the
/// label bounds the spec names, and the repetition's privacy masks over the private
/// users. The runner's repetitions and the end-to-end audit's neighbouring data sets both
/// end here.
pub fn finish_repetition(
    exp: &Experiment,
    plan: &DatasetPlan,
    mut public: Dataset,
    mut private: Dataset,
    mut test: Dataset,
    scaling: Scaling,
    rep: usize,
) -> RepData {
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
    let masks = RepetitionMasks::new(MaskStream {
        seed: exp.spec.seed,
        dataset: plan.name.clone(),
        repetition: rep,
        n: private.n(),
        ranking: plan.sensitivity_ranking(private.d()),
        ranking_declared: plan.declared_ranking().is_some(),
    });
    RepData {
        public,
        private,
        test,
        bounds,
        masks: Some(masks),
    }
}

/// Whether the public sample of `plan` is the same in every repetition: a file data set
/// whose split gives the public part no share, so that its public rows are the data set's
/// fixed public rows (a pair's public file, the rows a `public_by_rule` or `public_sample`
/// makes public) in file order, scaled by a rule that does not vary by repetition
/// (`scaling: public` is fitted on those same rows, `whole` once at load). Synthetic data
/// sets draw theirs per repetition. The trees shared on this ground are still keyed by the
/// public sample's content ([`SharedPublic`](crate::partition::SharedPublic)), so a wrong
/// answer here costs memory, never a wrong row.
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
