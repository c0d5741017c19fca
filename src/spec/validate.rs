//! Validation of a parsed [`Spec`] into an [`Experiment`]: names resolved, grids expanded,
//! budgets and splits checked. Data files are loaded separately ([`DatasetPlan::load`]) so
//! tables can be re-rendered without data.

use super::duplicates::first_repeat;
use super::raw::{
    DatasetEntry, LabelBoundsFrom, MarkStyle, Noise, RankTies, Scaling, Section, Selection,
    SkipEntry, Spec, SummaryRow, SyntheticKind, TableBlock, TableEntry, TableValue,
};
use super::SpecError;
use crate::data::{
    find_manifest, load_csv, load_manifest_dataset, Dataset, Loaded, LpctDesign, Manifest,
    MissingPolicy, RangeKnowledge, SplitRatios, Task, XScale,
};
use crate::methods::{self, Method, ParamValue, Params};
use crate::stats::SignificanceRule;
use crate::suggest::did_you_mean;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The taxi-shaped scale design (issue 12 item 6), drawn afresh in every repetition
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
fn refuse_lpdt_lpct_fields(
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
fn synthetic_plan(
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
                *label_column,
                *has_header,
                self.task,
                *missing,
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

/// A method with its expanded grid.
#[derive(Clone)]
pub struct MethodPlan {
    /// Column label (unique in the spec).
    pub label: String,
    /// The method: a registry preset or builtin, or a composition of the spec.
    pub method: Arc<dyn Method>,
    /// Structural grid points (partition built once per repetition for each).
    pub structural: Vec<Params>,
    /// Mechanism grid points (applied to every structural point and ε).
    pub mechanism: Vec<Params>,
    /// Data sets this method is not run on.
    pub skip: BTreeSet<String>,
    /// How its users' noise streams are seeded (the entry's `noise`, else the spec's).
    pub noise: Noise,
}

impl MethodPlan {
    /// k_r: the number of grid points whose users' releases differ (structural points ×
    /// distinct release keys of the mechanism points; curator-side parameters do not
    /// count, see [`crate::methods::ParamRole`]). A user who releases for every grid point
    /// at budget ε spends k_r·ε.
    pub fn release_configurations(&self) -> usize {
        let decls = self.method.params();
        let distinct: BTreeSet<String> = self
            .mechanism
            .iter()
            .map(|q| q.release_key(decls))
            .collect();
        self.structural.len() * distinct.len().max(1)
    }
}

/// A validated spec.
#[derive(Clone)]
pub struct Experiment {
    /// The parsed spec.
    pub spec: Spec,
    /// Path of the spec file.
    pub path: PathBuf,
    /// Data sets.
    pub datasets: Vec<DatasetPlan>,
    /// Split ratios (None when every data set is synthetic).
    pub split: Option<SplitRatios>,
    /// Scaling.
    pub scaling: Scaling,
    /// Label bounds rule.
    pub label_bounds: LabelBoundsFrom,
    /// ε grid.
    pub epsilons: Vec<f64>,
    /// Methods.
    pub methods: Vec<MethodPlan>,
    /// Selection modes, the first one primary.
    pub selection: Vec<Selection>,
    /// Repetitions.
    pub repetitions: usize,
    /// The reported-values section and the folder its file paths are relative to.
    pub reported: Option<(super::reported::ReportedSpec, PathBuf)>,
    /// The claims.
    pub claims: Vec<super::claims::Claim>,
}

impl Experiment {
    /// Whether the test metric is an error (lower is better: MSE) rather than an accuracy,
    /// read from the first data set's task (a spec's data sets share one task); true for a
    /// spec without data sets.
    pub fn lower_is_better(&self) -> bool {
        self.datasets
            .first()
            .map(|d| d.task.lower_is_better())
            .unwrap_or(true)
    }
}

/// Why a method label or data set name would break the CSV outputs (runs, summary,
/// selected, tests and check .csv), which write it as an unquoted field: it holds a comma,
/// a double quote or a line break. `None` when it is safe.
fn csv_unsafe(what: &str, text: &str) -> Option<String> {
    let bad = text
        .chars()
        .find(|c| matches!(c, ',' | '"' | '\n' | '\r'))?;
    Some(format!(
        "{what} `{text}` contains {bad:?}, which would split its column in runs.csv and the other CSV outputs; use another character (e.g. `;` or `/`)"
    ))
}

fn invalid(path: &Path, field: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        path: path.to_path_buf(),
        field: field.into(),
        message: message.into(),
    }
}

/// Validates a parsed spec. `path` is the spec file (inline data paths are relative to its
/// folder); `manifest_dirs` are searched for `datasets/<name>.yaml`.
///
/// # Errors
/// The first problem found, naming the field: unknown data sets, methods or parameters
/// (with the valid names), ε ≤ 0, split ratios not summing to 1, empty grids, invalid
/// parameter values, tables naming unknown methods or ε.
pub fn validate(
    spec: Spec,
    path: &Path,
    manifest_dirs: &[PathBuf],
) -> Result<Experiment, SpecError> {
    if spec.name.trim().is_empty() || spec.name.contains(['/', '\\']) {
        return Err(invalid(
            path,
            "name",
            "must be a non-empty name without slashes",
        ));
    }
    if spec.repetitions == 0 {
        return Err(invalid(path, "repetitions", "must be at least 1"));
    }
    if spec.epsilons.is_empty() {
        return Err(invalid(path, "epsilons", "the epsilon grid is empty"));
    }
    for (i, &e) in spec.epsilons.iter().enumerate() {
        if !(e.is_finite() && e > 0.0) {
            return Err(invalid(
                path,
                format!("epsilons[{i}]"),
                format!("epsilon must be a finite number > 0, got {e}"),
            ));
        }
    }
    if let Some((first, again)) = first_repeat(&spec.epsilons) {
        return Err(invalid(
            path,
            format!("epsilons[{again}]"),
            format!(
                "epsilon {} is listed twice (epsilons[{first}] and epsilons[{again}]), which would compute its tasks twice; list each epsilon once",
                spec.epsilons[again]
            ),
        ));
    }
    if let Some(rule) = &spec.significance {
        rule.validate()
            .map_err(|e| invalid(path, "significance", e.to_string()))?;
    }
    let reported = match &spec.reported {
        Some(section) => {
            let (r, dir) = resolve_section(section, path, "reported")?;
            r.validate()
                .map_err(|e| invalid(path, "reported", e.to_string()))?;
            Some((r, dir))
        }
        None => None,
    };
    let claims = match &spec.claims {
        Some(section) => resolve_section(section, path, "claims")?.0,
        None => Vec::new(),
    };
    super::claims::validate_claims(&claims).map_err(|e| invalid(path, "claims", e.to_string()))?;
    if let Some(g) = &spec.golden {
        g.validate()
            .map_err(|e| invalid(path, "golden", e.to_string()))?;
    }
    if let LabelBoundsFrom::Fixed { lo, hi } = spec.label_bounds {
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(invalid(
                path,
                "label_bounds.fixed",
                format!("needs finite lo <= hi, got [{lo}, {hi}]"),
            ));
        }
    }
    if spec.tuning.cv_folds < 2 {
        return Err(invalid(path, "tuning.cv_folds", "needs at least 2 folds"));
    }
    if !(spec.tuning.validation_share > 0.0 && spec.tuning.validation_share < 1.0) {
        return Err(invalid(
            path,
            "tuning.validation_share",
            "must lie strictly between 0 and 1",
        ));
    }
    let split = match &spec.split {
        Some(s) => {
            for (part, v) in [
                ("public", s.public),
                ("private", s.private),
                ("test", s.test),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(invalid(
                        path,
                        format!("split.{part}"),
                        format!("must lie in [0, 1], got {v}"),
                    ));
                }
            }
            if s.private <= 0.0 || s.test <= 0.0 {
                return Err(invalid(
                    path,
                    "split",
                    "the private and test shares must be > 0",
                ));
            }
            let total = s.public + s.private + s.test;
            if (total - 1.0).abs() > 1e-9 {
                return Err(invalid(
                    path,
                    "split",
                    format!("public + private + test must sum to 1, got {total}"),
                ));
            }
            Some(SplitRatios {
                public: s.public,
                private: s.private,
                test: s.test,
            })
        }
        None => None,
    };

    let base = path.parent().unwrap_or(Path::new("."));
    let mut datasets = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, entry) in spec.datasets.iter().enumerate() {
        let field = format!("datasets[{i}]");
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
                    let public = find_manifest(&pair.public, manifest_dirs).map_err(|e| {
                        invalid(path, format!("{field}.pair.public"), e.to_string())
                    })?;
                    let private = find_manifest(&pair.private, manifest_dirs).map_err(|e| {
                        invalid(path, format!("{field}.pair.private"), e.to_string())
                    })?;
                    for m in [&public, &private] {
                        if m.missing == MissingPolicy::DropRows {
                            return Err(invalid(path, format!("{field}.pair"), format!("manifest `{}` says `missing: drop_rows`, which a pair does not support (its rows are split by count); use a file without missing values", m.name)));
                        }
                    }
                    if public.n_features != private.n_features {
                        return Err(invalid(path, format!("{field}.pair"), format!("`{}` has {} features and `{}` has {}: a pair needs the same features", public.name, public.n_features, private.name, private.n_features)));
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
        if !seen.insert(plan.name.clone()) {
            return Err(invalid(
                path,
                &field,
                format!("data set `{}` is listed twice", plan.name),
            ));
        }
        datasets.push(plan);
    }
    if datasets.is_empty() {
        return Err(invalid(path, "datasets", "no data sets"));
    }
    // One metric per spec: summary.csv, the selection, the Wilcoxon tests and the tables
    // read the first data set's task, so a data set of another task would be dropped.
    if let Some(i) = datasets.iter().position(|d| d.task != datasets[0].task) {
        return Err(invalid(
            path,
            format!("datasets[{i}]"),
            format!(
                "data set `{}` is a {:?} data set but `{}` (datasets[0]) is {:?}: the data sets of one spec share one task, hence one metric; put them in separate specs",
                datasets[i].name, datasets[i].task, datasets[0].name, datasets[0].task
            ),
        ));
    }
    // Inline files are checked when they are loaded (`run::load_datasets`).
    if let Some(split) = split {
        for d in &datasets {
            if let Some(n) = d.known_split_rows() {
                check_split_rows(split, &d.name, n, path)?;
            }
        }
    }

    let mut methods_out: Vec<MethodPlan> = Vec::new();
    for (i, entry) in spec.methods.iter().enumerate() {
        let field = format!("methods[{i}]");
        let method: Arc<dyn Method> = match (&entry.method, &entry.compose) {
            (Some(name), None) => {
                methods::find(name).map_err(|e| invalid(path, format!("{field}.method"), e))?
            }
            (None, Some(comp)) => {
                let label = entry.label.as_deref().ok_or_else(|| {
                    invalid(
                        path,
                        format!("{field}.label"),
                        "a composed method needs a `label` (its column name)",
                    )
                })?;
                let described = format!("composed in {}: {comp}", path.display());
                Arc::new(
                    methods::Composed::new(label, &described, comp.clone())
                        .map_err(|e| invalid(path, format!("{field}.compose"), e))?,
                )
            }
            _ => {
                return Err(invalid(
                    path,
                    &field,
                    "give exactly one of `method` (a registry name) or `compose` (blocks)",
                ))
            }
        };
        let label = entry
            .label
            .clone()
            .unwrap_or_else(|| method.name().to_string());
        if methods_out.iter().any(|m| m.label == label) {
            return Err(invalid(
                path,
                &field,
                format!("method label `{label}` is used twice; give a distinct `label`"),
            ));
        }
        if let Some(m) = csv_unsafe("method label", &label) {
            return Err(invalid(path, format!("{field}.label"), m));
        }
        let valid: Vec<&str> = method.params().iter().map(|p| p.name).collect();
        let given = (entry.grid.keys().map(|k| ("grid", k)))
            .chain(entry.params.keys().map(|k| ("params", k)));
        for (section, name) in given {
            if !valid.contains(&name.as_str()) {
                return Err(invalid(
                    path,
                    format!("{field}.{section}.{name}"),
                    format!(
                        "unknown parameter of {}{}; valid parameters: {}",
                        method.name(),
                        did_you_mean(name, valid.iter().copied()),
                        valid.join(", ")
                    ),
                ));
            }
            if entry.grid.contains_key(name) && entry.params.contains_key(name) {
                return Err(invalid(
                    path,
                    format!("{field}.{name}"),
                    "given both in grid and params",
                ));
            }
        }
        let mut structural: Vec<Vec<(String, ParamValue)>> = vec![vec![]];
        let mut mechanism: Vec<Vec<(String, ParamValue)>> = vec![vec![]];
        for decl in method.params() {
            let values: Vec<ParamValue> = if let Some(v) = entry.grid.get(decl.name) {
                let seq = v.as_sequence().ok_or_else(|| {
                    invalid(
                        path,
                        format!("{field}.grid.{}", decl.name),
                        "a grid must be a list of values",
                    )
                })?;
                if seq.is_empty() {
                    return Err(invalid(
                        path,
                        format!("{field}.grid.{}", decl.name),
                        "the grid is empty",
                    ));
                }
                let values: Vec<ParamValue> = seq
                    .iter()
                    .map(|x| {
                        ParamValue::from_yaml(x).ok_or_else(|| {
                            invalid(
                                path,
                                format!("{field}.grid.{}", decl.name),
                                "values must be numbers, names or booleans",
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?;
                // `1` and `1.0` are one value: compare the canonical text.
                let texts: Vec<String> = values.iter().map(ToString::to_string).collect();
                if let Some((first, again)) = first_repeat(&texts) {
                    return Err(invalid(
                        path,
                        format!("{field}.grid.{}[{again}]", decl.name),
                        format!(
                            "{} is listed twice ({name}[{first}] and {name}[{again}]), which would compute its tasks twice; list each value once",
                            texts[again],
                            name = decl.name
                        ),
                    ));
                }
                values
            } else if let Some(v) = entry.params.get(decl.name) {
                vec![ParamValue::from_yaml(v).ok_or_else(|| {
                    invalid(
                        path,
                        format!("{field}.params.{}", decl.name),
                        "must be a number, name or boolean",
                    )
                })?]
            } else if let Some(d) = decl.default {
                vec![ParamValue::parse(d)]
            } else {
                return Err(invalid(
                    path,
                    format!("{field}.grid.{}", decl.name),
                    format!("{} needs `{}` ({})", method.name(), decl.name, decl.doc),
                ));
            };
            for v in &values {
                decl.kind.check(v).map_err(|want| {
                    invalid(
                        path,
                        format!("{field}.{}", decl.name),
                        format!("{v} is not valid; expected {want}"),
                    )
                })?;
            }
            let target = if decl.structural() {
                &mut structural
            } else {
                &mut mechanism
            };
            *target = target
                .iter()
                .flat_map(|p| {
                    values.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push((decl.name.to_string(), v.clone()));
                        q
                    })
                })
                .collect();
        }
        let structural: Vec<Params> = structural.into_iter().map(Params).collect();
        method.check_grid(&structural).map_err(|e| {
            // The error names the parameter first: point at the entry's field holding it.
            match e.split_once(": ") {
                Some((name, message)) if entry.grid.contains_key(name) => {
                    invalid(path, format!("{field}.grid.{name}"), message)
                }
                Some((name, message)) if entry.params.contains_key(name) => {
                    invalid(path, format!("{field}.params.{name}"), message)
                }
                _ => invalid(path, &field, e),
            }
        })?;
        methods_out.push(MethodPlan {
            label,
            method,
            structural,
            mechanism: mechanism.into_iter().map(Params).collect(),
            skip: BTreeSet::new(),
            noise: entry.noise.unwrap_or(spec.noise),
        });
    }
    if methods_out.is_empty() {
        return Err(invalid(path, "methods", "no methods"));
    }
    for d in &datasets {
        for m in &methods_out {
            if !m.method.tasks().contains(&d.task) {
                return Err(invalid(
                    path,
                    "methods",
                    format!(
                        "{} does not support the {:?} task of data set `{}`",
                        m.label, d.task, d.name
                    ),
                ));
            }
        }
    }
    apply_skips(&spec.skip, &mut methods_out, &datasets, path)?;
    check_dataset_occupancy(&spec, &methods_out, &datasets)
        .map_err(|(field, message)| invalid(path, field, message))?;
    if spec.label_bounds == LabelBoundsFrom::Public {
        for d in &datasets {
            let no_public = match (&d.source, d.source.synthetic_sizes()) {
                (_, Some([public, ..])) => public == 0,
                (
                    DataSource::Pair { .. } | DataSource::Rule { .. } | DataSource::Sample { .. },
                    _,
                ) => false,
                _ => split.is_some_and(|s| s.public == 0.0),
            };
            let private_method = methods_out
                .iter()
                .find(|m| m.method.private() && !m.skip.contains(&d.name));
            if let (true, Some(m)) = (no_public, private_method) {
                return Err(invalid(
                    path,
                    "label_bounds",
                    format!("data set `{}` has no public rows, so `label_bounds: public` gives {} no label range; state one with `label_bounds: {{fixed: {{lo: .., hi: ..}}}}`", d.name, m.label),
                ));
            }
        }
    }
    check_tables(&spec, &methods_out, path)?;

    let exp = Experiment {
        path: path.to_path_buf(),
        datasets,
        split,
        scaling: spec.scaling,
        label_bounds: spec.label_bounds,
        epsilons: spec.epsilons.clone(),
        methods: methods_out,
        selection: spec.selection.0.clone(),
        repetitions: spec.repetitions,
        reported,
        claims,
        spec,
    };
    super::figures::validate_figures(
        &exp.spec.figures,
        &super::figures::FigureContext::from_experiment(&exp),
    )
    .map_err(|e| invalid(path, e.field, e.message))?;
    check_leaf_occupancy(&exp)?;
    Ok(exp)
}

/// `occupancy: dataset` (the forests' depth rule with the manifest's `leaf_occupancy`)
/// needs every data set the method runs on to declare one; checked here rather than
/// when the first fit fails. A grid point with an integer `depth` does not read it. An
/// error is (the field at fault, what is wrong and the fix).
fn check_dataset_occupancy(
    spec: &Spec,
    methods: &[MethodPlan],
    datasets: &[DatasetPlan],
) -> Result<(), (String, String)> {
    fn named<'p>(p: &'p Params, name: &str) -> Option<&'p ParamValue> {
        p.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
    for (i, m) in methods.iter().enumerate() {
        let reads_manifest = m.structural.iter().any(|s| {
            m.mechanism.iter().any(|q| {
                let point = s.join(q);
                let dataset = ParamValue::Str("dataset".into());
                named(&point, "occupancy") == Some(&dataset)
                    && !matches!(named(&point, "depth"), Some(ParamValue::Int(_)))
            })
        });
        if !reads_manifest {
            continue;
        }
        let entry = &spec.methods[i];
        let section = if entry.grid.contains_key("occupancy") {
            "grid"
        } else {
            "params"
        };
        for d in datasets.iter().filter(|d| !m.skip.contains(&d.name)) {
            if d.leaf_occupancy().is_none() {
                let whose = match &d.source {
                    DataSource::Manifest(_)
                    | DataSource::Pair { .. }
                    | DataSource::Rule { .. }
                    | DataSource::Sample { .. } => format!(
                        "the manifest of data set `{}` declares no `leaf_occupancy`",
                        d.name
                    ),
                    _ => format!(
                        "data set `{}` has no manifest, hence no `leaf_occupancy`",
                        d.name
                    ),
                };
                return Err((
                    format!("methods[{i}].{section}.occupancy"),
                    format!(
                        "`dataset` reads the data set's declared leaf occupancy, but {whose}; give an integer occupancy (the DiPriMe paper's 25), add `leaf_occupancy:` to the manifest, or skip {} on `{}` (`skip:`)",
                        m.label, d.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The `leaf_occupancy:` figures name a data set and methods of the spec, a private
/// method's ε is on the spec's ε grid, the repetition was run, and the bins make sense.
fn check_leaf_occupancy(exp: &Experiment) -> Result<(), SpecError> {
    for (i, f) in exp.spec.leaf_occupancy.iter().enumerate() {
        let at = |field: &str| format!("leaf_occupancy[{i}].{field}");
        let bad = |field: &str, m: String| invalid(&exp.path, at(field), m);
        if !exp.datasets.iter().any(|d| d.name == f.dataset) {
            let names: Vec<&str> = exp.datasets.iter().map(|d| d.name.as_str()).collect();
            return Err(bad(
                "dataset",
                format!(
                    "`{}`{} is not a data set of the spec ({})",
                    f.dataset,
                    did_you_mean(&f.dataset, names.iter().copied()),
                    names.join(", ")
                ),
            ));
        }
        if f.bins == 0 {
            return Err(bad("bins", "at least 1".into()));
        }
        if !(f.range > 0.0 && f.range <= 1.0) {
            return Err(bad(
                "range",
                format!("{} is not in (0, 1] (a fraction of n_train)", f.range),
            ));
        }
        if f.repetition == 0 || f.repetition > exp.repetitions {
            return Err(bad(
                "repetition",
                format!(
                    "{} is not in 1..={} (the spec's repetitions)",
                    f.repetition, exp.repetitions
                ),
            ));
        }
        if f.panels.is_empty() {
            return Err(bad("panels", "name at least one method".into()));
        }
        for (j, p) in f.panels.iter().enumerate() {
            let m = exp
                .methods
                .iter()
                .find(|m| m.label == p.method)
                .ok_or_else(|| {
                    let labels: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
                    bad(
                        &format!("panels[{j}].method"),
                        format!(
                            "`{}`{} is not a method label of the spec ({})",
                            p.method,
                            did_you_mean(&p.method, labels.iter().copied()),
                            labels.join(", ")
                        ),
                    )
                })?;
            if m.method.private() && !exp.epsilons.contains(&f.epsilon) {
                return Err(bad(
                    "epsilon",
                    format!(
                        "{} is not on the spec's ε grid {:?}, so {} has no run there",
                        f.epsilon, exp.epsilons, p.method
                    ),
                ));
            }
        }
    }
    for (i, c) in exp.claims.iter().enumerate() {
        if let super::claims::Claim::BalancedLeaves {
            figure,
            method,
            than,
            ..
        } = c
        {
            let bad =
                |field: &str, m: String| invalid(&exp.path, format!("claims[{i}].{field}"), m);
            let Some(f) = exp.spec.leaf_occupancy.iter().find(|f| f.name == *figure) else {
                return Err(bad(
                    "figure",
                    format!("`{figure}` is not the name of a leaf_occupancy figure of the spec"),
                ));
            };
            for m in std::iter::once(method).chain(than) {
                if !f.panels.iter().any(|p| p.method == *m) {
                    return Err(bad(
                        "method",
                        format!("`{m}` has no panel on leaf_occupancy figure `{figure}`"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// An inline section, or the one in the YAML file it names (relative to the spec), with
/// the folder its relative paths are resolved against.
fn resolve_section<T: serde::de::DeserializeOwned + Clone>(
    section: &Section<T>,
    spec_path: &Path,
    field: &str,
) -> Result<(T, PathBuf), SpecError> {
    let spec_dir = spec_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    match section {
        Section::Inline(v) => Ok((v.clone(), spec_dir)),
        Section::File(rel) => {
            let p = spec_dir.join(rel);
            let text = std::fs::read_to_string(&p).map_err(|e| {
                invalid(
                    spec_path,
                    field,
                    format!("cannot read {}: {e}", p.display()),
                )
            })?;
            let v = super::parse_yaml(&text, &p)?;
            Ok((v, p.parent().unwrap_or(Path::new(".")).to_path_buf()))
        }
    }
}

fn labels(methods: &[MethodPlan]) -> String {
    methods
        .iter()
        .map(|m| m.label.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn apply_skips(
    skip: &[SkipEntry],
    methods: &mut [MethodPlan],
    datasets: &[DatasetPlan],
    path: &Path,
) -> Result<(), SpecError> {
    let all = labels(methods);
    let label_list: Vec<String> = methods.iter().map(|m| m.label.clone()).collect();
    for (i, s) in skip.iter().enumerate() {
        let m = methods
            .iter_mut()
            .find(|m| m.label == s.method)
            .ok_or_else(|| {
                invalid(
                    path,
                    format!("skip[{i}].method"),
                    format!(
                        "unknown method `{}`{}; methods of this spec: {all}",
                        s.method,
                        did_you_mean(&s.method, label_list.iter().map(String::as_str))
                    ),
                )
            })?;
        for d in &s.datasets {
            if !datasets.iter().any(|p| &p.name == d) {
                let names: Vec<_> = datasets.iter().map(|p| p.name.as_str()).collect();
                return Err(invalid(
                    path,
                    format!("skip[{i}].datasets"),
                    format!(
                        "unknown data set `{d}`{}; data sets of this spec: {}",
                        did_you_mean(d, names.iter().copied()),
                        names.join(", ")
                    ),
                ));
            }
            m.skip.insert(d.clone());
        }
    }
    Ok(())
}

fn check_tables(spec: &Spec, methods: &[MethodPlan], path: &Path) -> Result<(), SpecError> {
    let epsilons = &spec.epsilons;
    let all = labels(methods);
    let mut names = BTreeSet::new();
    for (i, t) in spec.tables.iter().enumerate() {
        if !names.insert(&t.name) {
            return Err(invalid(
                path,
                format!("tables[{i}].name"),
                format!("table `{}` is defined twice", t.name),
            ));
        }
        if let Some((_, again)) = first_repeat(&t.epsilons) {
            return Err(invalid(
                path,
                format!("tables[{i}].epsilons"),
                format!(
                    "epsilon {} is listed twice; list each epsilon once",
                    t.epsilons[again]
                ),
            ));
        }
        for e in &t.epsilons {
            if !epsilons.contains(e) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].epsilons"),
                    format!("epsilon {e} is not in the spec's epsilons {epsilons:?}"),
                ));
            }
        }
        if !t.blocks.is_empty() && !t.methods.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks"),
                "give either `methods` (one block per epsilon) or `blocks`, not both",
            ));
        }
        let compared = t.compared_methods();
        let denominator: Vec<String> = match &t.value {
            TableValue::RatioTo { ratio_to, .. } => vec![ratio_to.clone()],
            _ => Vec::new(),
        };
        for (list, private) in [
            (&compared, true),
            (&t.non_private, false),
            (&denominator, true),
        ] {
            for m in list {
                let plan = methods.iter().find(|p| &p.label == m).ok_or_else(|| {
                    invalid(
                        path,
                        format!("tables[{i}]"),
                        format!(
                            "unknown method `{m}`{}; methods of this spec: {all}",
                            did_you_mean(m, methods.iter().map(|p| p.label.as_str()))
                        ),
                    )
                })?;
                // A non-private method may compete in every ε block with its one result
                // (CT-Q in LPCT Table 2); a private one has no result without ε.
                if plan.method.private() && !private {
                    return Err(invalid(
                        path,
                        format!("tables[{i}].non_private"),
                        format!(
                            "`{m}` is private (one result per epsilon): list it under `methods`"
                        ),
                    ));
                }
            }
        }
        if compared.is_empty() && t.non_private.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}]"),
                "a table needs methods",
            ));
        }
        check_table_conventions(i, t, spec, path)?;
    }
    Ok(())
}

/// The checks of a table's `blocks`: labels present and distinct, each block with
/// methods listed once, and no table-level `rank_ties` beside them (each block has its
/// own).
fn check_table_blocks(i: usize, t: &TableEntry, path: &Path) -> Result<(), SpecError> {
    if t.blocks.is_empty() {
        return Ok(());
    }
    if !t.rank_ties.is_default() {
        return Err(invalid(
            path,
            format!("tables[{i}].rank_ties"),
            "with `blocks` each block has its own tie rule; move rank_ties into the blocks",
        ));
    }
    let mut labels = BTreeSet::new();
    for (k, b) in t.blocks.iter().enumerate() {
        if b.label.trim().is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].label"),
                "a block needs a label (it follows the epsilon in the column header)",
            ));
        }
        if !labels.insert(&b.label) {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].label"),
                format!("block `{}` is defined twice", b.label),
            ));
        }
        if b.methods.is_empty() {
            return Err(invalid(
                path,
                format!("tables[{i}].blocks[{k}].methods"),
                "a block needs methods",
            ));
        }
        let mut seen = BTreeSet::new();
        for m in &b.methods {
            if !seen.insert(m) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].blocks[{k}].methods"),
                    format!("`{m}` is listed twice in the block"),
                ));
            }
        }
    }
    Ok(())
}

/// The checks of one block's tie rule (`field` names it): only with a `rank_sum` row, and
/// a tie order lists every method of the block once.
fn check_rank_ties(
    field: String,
    block: &TableBlock,
    t: &TableEntry,
    path: &Path,
) -> Result<(), SpecError> {
    if block.rank_ties.is_default() {
        return Ok(());
    }
    if !t.summary_rows.contains(&SummaryRow::RankSum) {
        return Err(invalid(
            path,
            field,
            "the tie rule is used by the rank_sum summary row only; add `summary_rows: [rank_sum]` or drop rank_ties",
        ));
    }
    let RankTies::Order(order) = &block.rank_ties else {
        return Ok(());
    };
    let mut listed = BTreeSet::new();
    for m in order {
        if !block.methods.contains(m) {
            return Err(invalid(
                path,
                field,
                format!(
                    "`{m}` is not one of the table's methods: {}",
                    block.methods.join(", ")
                ),
            ));
        }
        if !listed.insert(m) {
            return Err(invalid(
                path,
                field,
                format!("`{m}` is listed twice; list each of the table's methods once"),
            ));
        }
    }
    let absent: Vec<&str> = block
        .methods
        .iter()
        .filter(|m| !listed.contains(m))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() {
        return Err(invalid(
            path,
            field,
            format!(
                "the tie order must list every method of the table; missing: {}",
                absent.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The checks of a table's marks style, summary rows, tie order and oracle note.
fn check_table_conventions(
    i: usize,
    t: &TableEntry,
    spec: &Spec,
    path: &Path,
) -> Result<(), SpecError> {
    if t.marks == MarkStyle::StarBest {
        if let Some(rule) = &spec.significance {
            if !matches!(rule, SignificanceRule::NotWorseThanBest { .. }) {
                return Err(invalid(
                    path,
                    format!("tables[{i}].marks"),
                    "`marks: star_best` bolds the methods not significantly worse than the best (LPCT Table 2); set `significance: {rule: not_worse_than_best, alpha: ..}` or leave `significance` out (alpha 0.05), or use `marks: bold_best`",
                ));
            }
        }
    }
    check_table_blocks(i, t, path)?;
    let mut seen = BTreeSet::new();
    for r in &t.summary_rows {
        if !seen.insert(r.label()) {
            return Err(invalid(
                path,
                format!("tables[{i}].summary_rows"),
                format!(
                    "`{}` is listed twice; give each of rank_sum, no1 at most once",
                    r.label()
                ),
            ));
        }
    }
    if !t.summary_rows.is_empty() && (t.compared_methods().is_empty() || t.epsilons.is_empty()) {
        return Err(invalid(
            path,
            format!("tables[{i}].summary_rows"),
            "summary rows are computed per epsilon block over the table's methods; the table needs both `epsilons` and `methods`",
        ));
    }
    let blocks = t.column_blocks();
    let tie_rules: Vec<(String, &TableBlock)> = if t.blocks.is_empty() {
        vec![(format!("tables[{i}].rank_ties"), &blocks[0])]
    } else {
        t.blocks
            .iter()
            .enumerate()
            .map(|(k, b)| (format!("tables[{i}].blocks[{k}].rank_ties"), b))
            .collect()
    };
    for (field, block) in tie_rules {
        check_rank_ties(field, block, t, path)?;
    }
    if t.value == TableValue::Seconds && !t.summary_rows.is_empty() {
        return Err(invalid(
            path,
            format!("tables[{i}].summary_rows"),
            "a table of running times (`value: seconds`) has no rank sums or first places; drop summary_rows",
        ));
    }
    if let Some(r) = &t.reported {
        let dir = path.parent().unwrap_or(Path::new(""));
        super::tables::read_reported(&dir.join(&r.file), &r.column)
            .map_err(|e| invalid(path, format!("tables[{i}].reported"), e))?;
    }
    check_table_interval(i, t, spec, path)?;
    if t.layout.split && t.epsilons.len() < 2 {
        return Err(invalid(
            path,
            format!("tables[{i}].layout.split"),
            format!(
                "split prints one table per epsilon, and this table has {} epsilon(s); drop `split` or list two or more `epsilons`",
                t.epsilons.len()
            ),
        ));
    }
    if let Some(note) = &t.oracle_note {
        let field = format!("tables[{i}].oracle_note");
        if note.trim().is_empty() {
            return Err(invalid(
                path,
                field,
                "the note is empty; give a clause or drop the field",
            ));
        }
        if note.trim_end().ends_with('.') {
            return Err(invalid(path, field, "the clause ends the sentence on oracle selection, which adds its own period; drop the final `.`"));
        }
        if !spec.selection.0.contains(&Selection::BestMean) {
            return Err(invalid(path, field, "the note is printed under the oracle (best_mean) table only, and this spec's selection does not include best_mean"));
        }
    }
    Ok(())
}

/// The checks of a table's `interval`, `digits`, `scale` and `unavailable` (the DiPriMe
/// tables): interval and digits only on the metric, at least one significant digit and at
/// most 12 decimals, scale keys naming the spec's data sets with exponents in −30..=30 and
/// only with `digits`, unavailable rows with a label and a reason.
fn check_table_interval(
    i: usize,
    t: &TableEntry,
    spec: &Spec,
    path: &Path,
) -> Result<(), SpecError> {
    let field = |f: &str| format!("tables[{i}].{f}");
    if t.value != TableValue::Metric && (t.interval.is_some() || t.digits.is_some()) {
        return Err(invalid(
            path,
            field(if t.interval.is_some() {
                "interval"
            } else {
                "digits"
            }),
            "applies to the mean test metric only; drop it or use `value: metric`",
        ));
    }
    match t.digits {
        Some(crate::spec::raw::Digits::Significant(0)) => {
            return Err(invalid(
                path,
                field("digits"),
                "significant: 0 prints nothing; give 1 or more (the DiPriMe tables use 3)",
            ));
        }
        Some(crate::spec::raw::Digits::Decimals(d)) if d > 12 => {
            return Err(invalid(
                path,
                field("digits"),
                format!("decimals: {d} is beyond double precision; give at most 12"),
            ));
        }
        _ => {}
    }
    if !t.scale.is_empty() && t.digits.is_none() {
        return Err(invalid(
            path,
            field("scale"),
            "a scale factor needs fixed-point `digits` ({significant: 3} or {decimals: 3}); the default scientific format already shows the magnitude",
        ));
    }
    let names: Vec<&str> = spec
        .datasets
        .iter()
        .map(|d| match d {
            crate::spec::raw::DatasetEntry::Name(n) => n.as_str(),
            crate::spec::raw::DatasetEntry::Inline(d) => d.name.as_str(),
        })
        .collect();
    for (name, k) in &t.scale {
        if !names.contains(&name.as_str()) {
            return Err(invalid(
                path,
                field(&format!("scale.{name}")),
                format!(
                    "not a data set of this spec; data sets: {}",
                    names.join(", ")
                ),
            ));
        }
        if !(-30..=30).contains(k) {
            return Err(invalid(
                path,
                field(&format!("scale.{name}")),
                format!("{k} is not a power of ten in -30..=30 (e.g. -2 for ×10⁻²)"),
            ));
        }
    }
    for (k, u) in t.unavailable.iter().enumerate() {
        if u.label.trim().is_empty() || u.reason.trim().is_empty() {
            return Err(invalid(
                path,
                field(&format!("unavailable[{k}]")),
                "needs a non-empty `label` (the paper's name of the data set) and `reason`",
            ));
        }
    }
    Ok(())
}
