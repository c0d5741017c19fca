//! The data sets of a spec, validated (the `datasets:` and `split:` sections): where each
//! data set's rows come from ([`DataSource`]), what the runner loads ([`DatasetPlan`]),
//! and the check that the split leaves no part empty.

use super::raw::{DatasetEntry, Spec, SyntheticKind};
use super::SpecError;
use super::{csv_unsafe, invalid};
use crate::data::{
    find_manifest, load_csv, load_manifest_dataset, Dataset, FileFormat, Loaded, LpctDesign,
    Manifest, MissingPolicy, RangeKnowledge, SplitRatios, Task, XScale,
};
use std::path::{Path, PathBuf};

/// Where a data set's rows come from.
#[derive(Debug, Clone)]
pub enum DataSource {
    /// A manifest in `datasets/`.
    Manifest(Manifest),
    /// An inline CSV file.
    File {
        path: PathBuf,
        label_column: usize,
        has_header: bool,
        /// What loading does with rows that have a missing cell.
        missing: MissingPolicy,
    },
    /// Two manifests: all rows of `public` are public; `private` is split into private
    /// training and test. Loaded as one data set, the private rows first.
    Pair { public: Manifest, private: Manifest },
    /// A manifest whose rows with `column` in `values` (raw text, before encoding) are
    /// public; loaded as one data set with the public rows last.
    Rule {
        manifest: Manifest,
        column: String,
        values: Vec<String>,
    },
    /// A manifest of which `rows` rows, drawn once with the stream ("public_sample", data
    /// set name) of the spec `seed`, are public in every repetition; loaded as one data set
    /// with the public rows last.
    Sample {
        manifest: Manifest,
        rows: usize,
        seed: u64,
    },
    /// The LPDT synthetic model, drawn afresh in every repetition with these sizes.
    LpdtSine {
        public: usize,
        private: usize,
        test: usize,
        x_scale: XScale,
    },
    /// The LPCT simulation design, drawn afresh in every repetition: `public` points
    /// labelled by η_Q, `private` and `test` points by η_P, from the streams keyed on
    /// `stream` (see [`LpctDesign::repetition`]).
    LpctDrift {
        public: usize,
        private: usize,
        test: usize,
        design: LpctDesign,
        stream: String,
    },
    /// The HistOfTree simulation design (`docs/methods/histoftree.md` §11), drawn afresh in every
    /// repetition with these sizes from the stream ("data", data set, repetition).
    SemiFeatureSine {
        public: usize,
        private: usize,
        test: usize,
        design: crate::data::SemiFeatureSine,
    },
    /// The taxi-shaped scale design, drawn afresh in every repetition
    /// with these sizes: each part from its own stream ("data", data set, repetition,
    /// part), the public part from the shifted population.
    TaxiShape {
        public: usize,
        private: usize,
        test: usize,
        design: crate::data::TaxiShape,
    },
}

impl DataSource {
    /// True for the synthetic kinds, which are drawn per repetition and load no file.
    pub fn is_synthetic(&self) -> bool {
        self.synthetic_sizes().is_some()
    }

    /// The sizes [public, private, test] of a synthetic kind (drawn per repetition); None
    /// for the data sets loaded from files.
    pub fn synthetic_sizes(&self) -> Option<[usize; 3]> {
        match self {
            DataSource::LpdtSine {
                public,
                private,
                test,
                ..
            }
            | DataSource::LpctDrift {
                public,
                private,
                test,
                ..
            }
            | DataSource::SemiFeatureSine {
                public,
                private,
                test,
                ..
            }
            | DataSource::TaxiShape {
                public,
                private,
                test,
                ..
            } => Some([*public, *private, *test]),
            DataSource::Manifest(_)
            | DataSource::File { .. }
            | DataSource::Pair { .. }
            | DataSource::Rule { .. }
            | DataSource::Sample { .. } => None,
        }
    }
}

/// Refuses `x_scale` (only `lpdt_sine` takes it) and `stream` (only `lpct_drift`) on an
/// inline data set of synthetic `kind`; an error is (the field at fault, what is wrong).
pub(super) fn refuse_lpdt_lpct_fields(
    d: &super::raw::InlineDataset,
    field: &str,
    kind: &str,
) -> Result<(), (String, String)> {
    for (set, name) in [
        (d.x_scale.is_some(), "x_scale"),
        (d.stream.is_some(), "stream"),
    ] {
        if set {
            return Err((
                format!("{field}.{name}"),
                format!("is not valid with `synthetic: {{{kind}: …}}`"),
            ));
        }
    }
    Ok(())
}

/// The plan of an inline synthetic data set of kind `kind` and sizes `s`; `field` is the
/// entry's place in the spec (`datasets[3]`). An error is (the field at fault, what would
/// be valid).
pub(super) fn synthetic_plan(
    d: &super::raw::InlineDataset,
    kind: SyntheticKind,
    s: super::raw::SizesEntry,
    row_label: String,
    field: &str,
) -> Result<DatasetPlan, (String, String)> {
    let source = match kind {
        SyntheticKind::LpdtSine => {
            if d.stream.is_some() {
                return Err((
                    format!("{field}.stream"),
                    "is only valid with `synthetic: {lpct_drift: …}`".into(),
                ));
            }
            DataSource::LpdtSine {
                public: s.public,
                private: s.private,
                test: s.test,
                x_scale: d.x_scale.unwrap_or(XScale::Variance),
            }
        }
        SyntheticKind::LpctDrift(design) => {
            if d.x_scale.is_some() {
                return Err((
                    format!("{field}.x_scale"),
                    "is only valid with `synthetic: lpdt_sine`".into(),
                ));
            }
            design
                .check()
                .map_err(|(f, message)| (format!("{field}.synthetic.lpct_drift.{f}"), message))?;
            let estimated = design
                .domain
                .is_some_and(|dom| dom.range == RangeKnowledge::Estimated);
            if estimated && s.public == 0 {
                return Err((
                    format!("{field}.sizes.public"),
                    "`range: estimated` fits the min-max scaling on the public points: give at least one".into(),
                ));
            }
            DataSource::LpctDrift {
                public: s.public,
                private: s.private,
                test: s.test,
                design,
                stream: d.stream.clone().unwrap_or_else(|| d.name.clone()),
            }
        }
        SyntheticKind::SemiFeatureSine(design) => {
            refuse_lpdt_lpct_fields(d, field, "semi_feature_sine")?;
            design.check().map_err(|(f, message)| {
                (format!("{field}.synthetic.semi_feature_sine.{f}"), message)
            })?;
            DataSource::SemiFeatureSine {
                public: s.public,
                private: s.private,
                test: s.test,
                design,
            }
        }
        SyntheticKind::TaxiShape(design) => {
            refuse_lpdt_lpct_fields(d, field, "taxi_shape")?;
            design
                .check()
                .map_err(|(f, message)| (format!("{field}.synthetic.taxi_shape.{f}"), message))?;
            DataSource::TaxiShape {
                public: s.public,
                private: s.private,
                test: s.test,
                design,
            }
        }
    };
    let task = match kind {
        SyntheticKind::LpdtSine | SyntheticKind::SemiFeatureSine(_) => Task::Regression,
        SyntheticKind::LpctDrift(_) => Task::Classification,
        SyntheticKind::TaxiShape(design) => design.task,
    };
    Ok(DatasetPlan {
        name: d.name.clone(),
        row_label,
        task,
        source,
    })
}

/// A resolved data set.
#[derive(Debug, Clone)]
pub struct DatasetPlan {
    /// Name in results.
    pub name: String,
    /// Row label in tables.
    pub row_label: String,
    /// Regression or classification.
    pub task: Task,
    /// Where the rows come from.
    pub source: DataSource,
}

impl DatasetPlan {
    /// The manifest whose columns the data set's features are (a pair's private manifest);
    /// None for inline files and synthetic data.
    pub fn manifest(&self) -> Option<&Manifest> {
        match &self.source {
            DataSource::Manifest(m)
            | DataSource::Pair { private: m, .. }
            | DataSource::Rule { manifest: m, .. }
            | DataSource::Sample { manifest: m, .. } => Some(m),
            _ => None,
        }
    }

    /// Every manifest whose file the data set reads (a pair's two, otherwise the one of
    /// [`DatasetPlan::manifest`]); empty for inline files and synthetic data. What
    /// `dp-repro data fetch --spec` fetches.
    pub fn data_files(&self) -> Vec<&Manifest> {
        match &self.source {
            DataSource::Pair { public, private } => vec![public, private],
            _ => self.manifest().into_iter().collect(),
        }
    }

    /// The sensitivity ranking the data set's manifest declares, if it declares one (part
    /// of the task keys then; see `run::keys::dataset_context`).
    pub fn declared_ranking(&self) -> Option<&[usize]> {
        self.manifest().and_then(|m| m.sensitivity.as_deref())
    }

    /// The sensitivity ranking of the data set's `d` features, most sensitive first: the
    /// manifest's ([`Manifest::sensitivity_ranking`], column order unless declared); column
    /// order for inline files and synthetic data.
    pub fn sensitivity_ranking(&self, d: usize) -> Vec<usize> {
        self.manifest()
            .map(Manifest::sensitivity_ranking)
            .filter(|r| r.len() == d)
            .unwrap_or_else(|| (0..d).collect())
    }

    /// Loads (and checksums) a file data set, with the number of rows dropped for missing
    /// values (`missing: drop_rows`); None for synthetic data sets.
    ///
    /// # Errors
    /// A missing, altered or malformed file; see [`crate::data::DataError`].
    pub fn load(&self, data_dir: Option<&Path>) -> Result<Option<Loaded>, crate::data::DataError> {
        match &self.source {
            DataSource::Manifest(m) => load_manifest_dataset(m, data_dir).map(Some),
            DataSource::File {
                path,
                label_column,
                has_header,
                missing,
            } => load_csv(
                path,
                &self.name,
                FileFormat {
                    label_column: *label_column,
                    has_header: *has_header,
                    task: self.task,
                    missing: *missing,
                },
            )
            .map(Some)
            .map_err(|e| {
                let setting = format!("the spec's entry of data set `{}`", self.name);
                crate::data::hints::with_hint(e, path, *has_header, &setting)
            }),
            DataSource::Pair { public, private } => {
                // Validation refuses `missing: drop_rows` in a pair: the runner splits the
                // first `private.n_rows` rows.
                let mut all = load_manifest_dataset(private, data_dir)?.dataset;
                let public = load_manifest_dataset(public, data_dir)?.dataset;
                if public.d() != all.d() {
                    return Err(crate::data::DataError::Empty {
                        path: PathBuf::from(&private.file),
                    });
                }
                all.x.data.extend_from_slice(&public.x.data);
                all.x.n += public.n();
                all.y.extend_from_slice(&public.y);
                all.name = self.name.clone();
                all.fixed_public = public.n();
                Ok(Some(Loaded {
                    dataset: all,
                    dropped_rows: 0,
                }))
            }
            DataSource::Rule {
                manifest,
                column,
                values,
            } => {
                let (loaded, public) = crate::data::encode::load_manifest_with_rule(
                    manifest, data_dir, column, values,
                )?;
                // Private rows first, in file order, then the public ones.
                let order: Vec<usize> = (0..public.len())
                    .filter(|&i| !public[i])
                    .chain((0..public.len()).filter(|&i| public[i]))
                    .collect();
                let mut dataset = loaded.dataset.select(&order);
                dataset.fixed_public = public.iter().filter(|&&p| p).count();
                dataset.name = self.name.clone();
                dataset.leaf_occupancy = manifest.leaf_occupancy;
                Ok(Some(Loaded {
                    dataset,
                    dropped_rows: loaded.dropped_rows,
                }))
            }
            DataSource::Sample {
                manifest,
                rows,
                seed,
            } => {
                use rand::seq::index::sample;
                let loaded = load_manifest_dataset(manifest, data_dir)?;
                let n = loaded.dataset.n();
                if *rows >= n {
                    return Err(crate::data::DataError::Encoding {
                        path: PathBuf::from(&manifest.file),
                        message: format!(
                            "public_sample.rows = {rows} must be smaller than the {n} complete rows of `{}`",
                            manifest.name
                        ),
                    });
                }
                let mut rng = crate::seeds::stream(*seed, &["public_sample", &self.name]);
                let mut public = vec![false; n];
                for i in sample(&mut rng, n, *rows) {
                    public[i] = true;
                }
                let order: Vec<usize> = (0..n)
                    .filter(|&i| !public[i])
                    .chain((0..n).filter(|&i| public[i]))
                    .collect();
                let mut dataset = loaded.dataset.select(&order);
                dataset.fixed_public = *rows;
                dataset.name = self.name.clone();
                Ok(Some(Loaded {
                    dataset,
                    dropped_rows: loaded.dropped_rows,
                }))
            }
            DataSource::LpdtSine { .. }
            | DataSource::LpctDrift { .. }
            | DataSource::SemiFeatureSine { .. }
            | DataSource::TaxiShape { .. } => Ok(None),
        }
    }

    /// The rows the split ratios divide, for a loaded file data set `all` (from
    /// [`DatasetPlan::load`]): every row but the last [`Dataset::fixed_public`] ones (a
    /// `pair`'s public data set, the rows a `public_by_rule` makes public).
    pub fn split_rows(&self, all: &Dataset) -> usize {
        all.n() - all.fixed_public
    }

    /// Shape (n rows, d features) as far as known without loading: a manifest's
    /// `n_rows` × `n_features` (a `pair`: both data sets' rows), the synthetic sizes
    /// (d = 1 for `lpdt_sine`, 2 for `lpct_drift`, its d for `semi_feature_sine` and
    /// `taxi_shape`); None
    /// for inline files.
    pub fn known_shape(&self) -> Option<(usize, usize)> {
        match &self.source {
            DataSource::Manifest(m) => Some((m.n_rows, m.n_features)),
            DataSource::Pair { public, private } => {
                Some((public.n_rows + private.n_rows, private.n_features))
            }
            DataSource::Rule { manifest, .. } | DataSource::Sample { manifest, .. } => {
                Some((manifest.n_rows, manifest.n_features))
            }
            DataSource::LpdtSine { .. }
            | DataSource::LpctDrift { .. }
            | DataSource::SemiFeatureSine { .. }
            | DataSource::TaxiShape { .. } => {
                let d = match &self.source {
                    DataSource::LpdtSine { .. } => 1,
                    DataSource::LpctDrift { .. } => 2,
                    DataSource::SemiFeatureSine { design, .. } => design.d,
                    DataSource::TaxiShape { design, .. } => design.d(),
                    _ => unreachable!("a synthetic kind"),
                };
                let [public, private, test] = self.source.synthetic_sizes()?;
                Some((public + private + test, d))
            }
            DataSource::File { .. } => None,
        }
    }

    /// The expected leaf occupancy the manifest declares (`leaf_occupancy`, read by the
    /// forests' `occupancy: dataset`): a manifest's, a `pair`'s private one's, a
    /// `public_by_rule` or `public_sample` data set's; None for inline files and synthetic
    /// data sets, which have no manifest.
    pub fn leaf_occupancy(&self) -> Option<usize> {
        match &self.source {
            DataSource::Manifest(m)
            | DataSource::Pair { private: m, .. }
            | DataSource::Rule { manifest: m, .. }
            | DataSource::Sample { manifest: m, .. } => m.leaf_occupancy,
            _ => None,
        }
    }

    /// The rows the split ratios divide as far as known without loading: a manifest's
    /// `n_rows` (for a `pair`, its private data set's); None for inline files and
    /// synthetic data sets.
    pub fn known_split_rows(&self) -> Option<usize> {
        match &self.source {
            DataSource::Manifest(m) => Some(m.n_rows),
            DataSource::Pair { private, .. } => Some(private.n_rows),
            _ => None,
        }
    }
}

/// Checks that `split` leaves no part empty for data set `dataset` of `n` rows (see
/// [`SplitRatios::sizes`]); `path` is the spec, for the message.
///
/// # Errors
/// [`SpecError::Invalid`] naming the field (`split.test`, …), the data set, its n and the
/// smallest valid ratio.
pub fn check_split_rows(
    split: SplitRatios,
    dataset: &str,
    n: usize,
    path: &Path,
) -> Result<(), SpecError> {
    split.sizes(n).map(|_| ()).map_err(|e| {
        invalid(
            path,
            format!("split.{}", e.part),
            format!("data set `{dataset}`: {e}"),
        )
    })
}

/// The plan of the data set entry `datasets[i]`: a manifest by name, or an inline file,
/// synthetic generator, pair of manifests, rule- or sample-chosen public rows.
///
/// # Errors
/// [`SpecError::Invalid`] naming the entry's field at fault: an unknown manifest (with
/// the valid names), two sources given, a missing `label_column`, `task` or `sizes`, or a
/// `split` that does not fit the source.
#[allow(clippy::result_large_err)] // one error per spec validation: its size does not matter
pub(super) fn dataset_plan(
    i: usize,
    entry: &DatasetEntry,
    spec: &Spec,
    split: Option<SplitRatios>,
    manifest_dirs: &[PathBuf],
    path: &Path,
) -> Result<DatasetPlan, SpecError> {
    let field = format!("datasets[{i}]");
    let base = path.parent().unwrap_or(Path::new("."));
    let plan = match entry {
        DatasetEntry::Name(name) => {
            let m = find_manifest(name, manifest_dirs)
                .map_err(|e| invalid(path, &field, e.to_string()))?;
            let row_label = m
                .paper
                .first()
                .map(|p| p.abbreviation.clone())
                .unwrap_or_else(|| m.name.clone());
            if split.is_none() {
                return Err(invalid(
                    path,
                    "split",
                    format!("data set `{name}` needs split ratios"),
                ));
            }
            DatasetPlan {
                name: m.name.clone(),
                row_label,
                task: m.task,
                source: DataSource::Manifest(m),
            }
        }
        DatasetEntry::Inline(d) => {
            if let Some(m) = csv_unsafe("data set name", &d.name) {
                return Err(invalid(path, format!("{field}.name"), m));
            }
            let row_label = d.label.clone().unwrap_or_else(|| d.name.clone());
            if d.missing.is_some() && d.path.is_none() {
                return Err(invalid(
                    path,
                    format!("{field}.missing"),
                    "is only valid with `path` (a manifest states `missing` in its own file; \
                     synthetic data have no missing values)",
                ));
            }
            if d.stream.is_some() && d.synthetic.is_none() {
                return Err(invalid(
                    path,
                    format!("{field}.stream"),
                    "is only valid with `synthetic: {lpct_drift: …}`",
                ));
            }
            if let Some(sample) = &d.public_sample {
                if d.path.is_some()
                    || d.synthetic.is_some()
                    || d.pair.is_some()
                    || d.public_by_rule.is_some()
                {
                    return Err(invalid(
                        path,
                        &field,
                        "give exactly one of `path`, `synthetic`, `pair`, `public_by_rule` or `public_sample`",
                    ));
                }
                let manifest = find_manifest(&sample.dataset, manifest_dirs).map_err(|e| {
                    invalid(
                        path,
                        format!("{field}.public_sample.dataset"),
                        e.to_string(),
                    )
                })?;
                if sample.rows == 0 || sample.rows >= manifest.n_rows {
                    return Err(invalid(
                        path,
                        format!("{field}.public_sample.rows"),
                        format!(
                            "must be between 1 and {} (the data set `{}` has {} rows)",
                            manifest.n_rows.saturating_sub(1),
                            manifest.name,
                            manifest.n_rows
                        ),
                    ));
                }
                match split {
                    Some(s) if s.public == 0.0 => {}
                    _ => return Err(invalid(path, "split", format!("data set `{}` takes a fixed public sample of {} rows, so `split.public` must be 0", d.name, sample.rows))),
                }
                DatasetPlan {
                    name: d.name.clone(),
                    row_label,
                    task: manifest.task,
                    source: DataSource::Sample {
                        manifest,
                        rows: sample.rows,
                        seed: spec.seed,
                    },
                }
            } else if let Some(rule) = &d.public_by_rule {
                if d.path.is_some() || d.synthetic.is_some() || d.pair.is_some() {
                    return Err(invalid(
                        path,
                        &field,
                        "give exactly one of `path`, `synthetic`, `pair` or `public_by_rule`",
                    ));
                }
                let manifest = find_manifest(&rule.dataset, manifest_dirs).map_err(|e| {
                    invalid(
                        path,
                        format!("{field}.public_by_rule.dataset"),
                        e.to_string(),
                    )
                })?;
                if rule.values.is_empty() {
                    return Err(invalid(
                        path,
                        format!("{field}.public_by_rule.values"),
                        "name at least one value that makes a row public",
                    ));
                }
                match split {
                    Some(s) if s.public == 0.0 => {}
                    _ => return Err(invalid(path, "split", format!("data set `{}` chooses its public rows by rule ({} in {:?}), so `split.public` must be 0", d.name, rule.column, rule.values))),
                }
                DatasetPlan {
                    name: d.name.clone(),
                    row_label,
                    task: manifest.task,
                    source: DataSource::Rule {
                        manifest,
                        column: rule.column.clone(),
                        values: rule.values.clone(),
                    },
                }
            } else if let Some(pair) = &d.pair {
                if d.path.is_some() || d.synthetic.is_some() {
                    return Err(invalid(
                        path,
                        &field,
                        "give exactly one of `path`, `synthetic` or `pair`",
                    ));
                }
                let public = find_manifest(&pair.public, manifest_dirs)
                    .map_err(|e| invalid(path, format!("{field}.pair.public"), e.to_string()))?;
                let private = find_manifest(&pair.private, manifest_dirs)
                    .map_err(|e| invalid(path, format!("{field}.pair.private"), e.to_string()))?;
                for m in [&public, &private] {
                    if m.missing == MissingPolicy::DropRows {
                        return Err(invalid(path, format!("{field}.pair"), format!("manifest `{}` says `missing: drop_rows`, which a pair does not support (its rows are split by count); use a file without missing values", m.name)));
                    }
                }
                if public.n_features != private.n_features {
                    return Err(invalid(
                        path,
                        format!("{field}.pair"),
                        format!(
                            "`{}` has {} features and `{}` has {}: a pair needs the same features",
                            public.name, public.n_features, private.name, private.n_features
                        ),
                    ));
                }
                match split {
                    Some(s) if s.public == 0.0 => {}
                    _ => return Err(invalid(path, "split", format!("data set `{}` is a pair: its public rows come from `{}`, so `split.public` must be 0", d.name, public.name))),
                }
                DatasetPlan {
                    name: d.name.clone(),
                    row_label,
                    task: private.task,
                    source: DataSource::Pair { public, private },
                }
            } else {
                match (&d.path, &d.synthetic) {
                    (Some(_), Some(_)) | (None, None) => {
                        return Err(invalid(
                            path,
                            &field,
                            "give exactly one of `path` or `synthetic`",
                        ))
                    }
                    (Some(p), None) => {
                        let label_column = d.label_column.ok_or_else(|| {
                            invalid(
                                path,
                                format!("{field}.label_column"),
                                "required with `path`",
                            )
                        })?;
                        let task = d.task.ok_or_else(|| {
                            invalid(
                                path,
                                format!("{field}.task"),
                                "required with `path`: regression or classification",
                            )
                        })?;
                        if split.is_none() {
                            return Err(invalid(
                                path,
                                "split",
                                format!("data set `{}` needs split ratios", d.name),
                            ));
                        }
                        DatasetPlan {
                            name: d.name.clone(),
                            row_label,
                            task,
                            source: DataSource::File {
                                path: base.join(p),
                                label_column,
                                has_header: d.has_header.unwrap_or(false),
                                missing: d.missing.unwrap_or_default(),
                            },
                        }
                    }
                    (None, Some(kind)) => {
                        let s = d.sizes.ok_or_else(|| {
                            invalid(
                                path,
                                format!("{field}.sizes"),
                                "a synthetic data set needs sizes: {public, private, test}",
                            )
                        })?;
                        if s.private == 0 || s.test == 0 {
                            return Err(invalid(
                                path,
                                format!("{field}.sizes"),
                                "private and test sizes must be > 0",
                            ));
                        }
                        synthetic_plan(d, *kind, s, row_label, &field)
                            .map_err(|(f, message)| invalid(path, f, message))?
                    }
                }
            }
        }
    };
    Ok(plan)
}
