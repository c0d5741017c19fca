//! The YAML schema of a spec, as serde structs. Parsing checks shapes and names of
//! fields only; [`super::validate`] checks meaning.

use crate::data::{LpctDesign, Task, XScale};
use crate::schema_parts::{one_key_map, one_of, words};
use schemars::{json_schema, Schema, SchemaGenerator};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

pub use super::tables::*;

/// A whole spec file.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Spec name; the default output folder is `results/<name>`.
    pub name: String,
    /// Free text shown in run.json and captions.
    #[serde(default)]
    pub description: String,
    /// Root seed of every random stream.
    pub seed: u64,
    /// Number of repetitions (seeded splits).
    pub repetitions: usize,
    /// Data sets: a manifest name, or a map (inline file or synthetic kind).
    pub datasets: Vec<DatasetEntry>,
    /// Split ratios; required unless every data set is synthetic.
    #[serde(default)]
    pub split: Option<SplitEntry>,
    /// Which rows the min-max scaler is fitted on.
    #[serde(default)]
    pub scaling: Scaling,
    /// Where label bounds (clipping, noise scales) come from.
    #[serde(default)]
    pub label_bounds: LabelBoundsFrom,
    /// How the users' noise streams are seeded: `fresh` (default) or `{frozen: SEED}` (the
    /// authors' code); a method entry may override it.
    #[serde(default)]
    pub noise: Noise,
    /// The ε grid.
    pub epsilons: Vec<f64>,
    /// Methods and their grids.
    pub methods: Vec<MethodEntry>,
    /// How a grid point is selected per data set × method × ε: one mode or a list of
    /// modes (the first gives summary.csv's companions selected.csv, tests.csv and the
    /// tables; every other mode gets its own `-<mode>` files).
    #[serde(default)]
    pub selection: Selections,
    /// Options of the honest selection modes.
    #[serde(default)]
    pub tuning: Tuning,
    /// The significance rule of the tables' `*` marks.
    #[serde(default)]
    pub significance: Option<crate::stats::SignificanceRule>,
    /// (method, data sets) pairs that are not run, with a reason (printed as — with a note).
    #[serde(default)]
    pub skip: Vec<SkipEntry>,
    /// Tables to render.
    #[serde(default)]
    pub tables: Vec<TableEntry>,
    /// The paper's numbers and how our cells are compared with them (`dp-repro check`),
    /// inline or as the path of a YAML file holding the section (shared by several specs).
    #[serde(default)]
    pub reported: Option<Section<super::reported::ReportedSpec>>,
    /// The paper's qualitative claims, checked on our results (`dp-repro check`), inline or
    /// as the path of a YAML file holding the list.
    #[serde(default)]
    pub claims: Option<Section<Vec<super::claims::Claim>>>,
    /// Our own blessed summary.csv (`dp-repro check --golden`, `--bless`).
    #[serde(default)]
    pub golden: Option<super::golden::GoldenSpec>,
    /// Require the empirical privacy audit to find every private method consistent
    /// (`dp-repro check`; [`crate::check::audit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<super::audit::AuditRequirement>,
    /// Line plots (SVG, PNG and a tidy CSV of the points) rendered from the results into
    /// `figures/`: x = ε or a grid parameter, y = the metric's mean over repetitions with
    /// an optional quantile band (see `report::figure`).
    #[serde(default)]
    pub figures: Vec<super::figures::FigureSpec>,
    /// Fitted regression functions of 1-D data sets, drawn on [0,1] (LPDT Fig. 1).
    #[serde(default)]
    pub curves: Vec<CurveEntry>,
    /// Leaf-occupancy histograms of forests (DiPriMe Fig. 3).
    #[serde(default)]
    pub leaf_occupancy: Vec<OccupancyEntry>,
}

impl schemars::JsonSchema for LabelBoundsFrom {
    fn schema_name() -> Cow<'static, str> {
        "LabelBoundsFrom".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let bounds = json_schema!({
            "type": "object",
            "properties": { "lo": g.subschema_for::<f64>(), "hi": g.subschema_for::<f64>() },
            "required": ["lo", "hi"],
            "additionalProperties": false
        });
        one_of(
            "Where the label bounds come from: `public`, `private_train` or `{fixed: {lo: .., hi: ..}}`.",
            vec![words(&["public", "private_train"]), one_key_map("fixed", bounds)],
        )
    }
}

impl<'de> Deserialize<'de> for LabelBoundsFrom {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Bounds {
            lo: f64,
            hi: f64,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct FixedMap {
            fixed: Bounds,
        }
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "public" => Ok(LabelBoundsFrom::Public),
            serde_yaml::Value::String(s) if s == "private_train" => Ok(LabelBoundsFrom::PrivateTrain),
            v @ serde_yaml::Value::Mapping(_) => FixedMap::deserialize(v)
                .map(|m| LabelBoundsFrom::Fixed { lo: m.fixed.lo, hi: m.fixed.hi })
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "label_bounds must be public, private_train or {{fixed: {{lo: .., hi: ..}}}}, got {other:?}"
            ))),
        }
    }
}

/// How the users' releases are seeded (docs/architecture.md, "Determinism: seeded streams").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Noise {
    /// A fresh stream per data set, repetition, method, release grid point and ε (the
    /// default; every fit draws new noise, as the papers' protocols assume).
    #[default]
    Fresh,
    /// The mechanism's stream restarts from this seed at every fit: every repetition,
    /// grid point and ε draws the same uniforms and Laplace variates, as the authors' code
    /// does (LPDT: `np.random.seed(666)` in the splitter's constructor, docs/methods/lpdt.md §9; LPCT's
    /// PHIST resets the global seed to 1, docs/methods/lpct.md §7.2). Oracle selection over a grid then
    /// picks the grid point that suits this one draw.
    Frozen {
        /// The seed every fit restarts from.
        seed: u64,
    },
}

impl Noise {
    /// `fresh` or `frozen SEED`, for notes and run.json.
    pub fn describe(&self) -> String {
        match self {
            Noise::Fresh => "fresh".to_string(),
            Noise::Frozen { seed } => format!("frozen {seed}"),
        }
    }
}

impl Serialize for Noise {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Noise::Fresh => s.serialize_str("fresh"),
            Noise::Frozen { seed } => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("frozen", seed)?;
                m.end()
            }
        }
    }
}

impl schemars::JsonSchema for Noise {
    fn schema_name() -> Cow<'static, str> {
        "Noise".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "How the users' noise streams are seeded: `fresh` or `{frozen: SEED}`.",
            vec![
                words(&["fresh"]),
                one_key_map("frozen", g.subschema_for::<u64>()),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for Noise {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct FrozenMap {
            frozen: u64,
        }
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "fresh" => Ok(Noise::Fresh),
            v @ serde_yaml::Value::Mapping(_) => FrozenMap::deserialize(v)
                .map(|m| Noise::Frozen { seed: m.frozen })
                .map_err(|e| de::Error::custom(format!("noise: {e}; write `fresh` or `{{frozen: SEED}}` with SEED a non-negative integer"))),
            other => Err(de::Error::custom(format!(
                "noise must be `fresh` or `{{frozen: SEED}}`, got {other:?}"
            ))),
        }
    }
}

/// A spec section given inline or as the path (relative to the spec) of a YAML file that
/// holds it; paths inside such a file are relative to that file.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Section<T> {
    /// The path of a YAML file holding the section.
    File(PathBuf),
    /// The section itself.
    Inline(T),
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Section<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Section_{}", T::schema_name()).into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "The section inline, or the path (relative to the spec) of a YAML file holding it.",
            vec![json_schema!({ "type": "string" }), g.subschema_for::<T>()],
        )
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Section<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A string is a path; anything else is the section itself, deserialized with its
        // own error messages (an untagged enum would hide them).
        let v = serde_yaml::Value::deserialize(d)?;
        match v {
            serde_yaml::Value::String(s) => Ok(Section::File(PathBuf::from(s))),
            other => T::deserialize(other)
                .map(Section::Inline)
                .map_err(de::Error::custom),
        }
    }
}

/// Public / private / test ratios.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitEntry {
    /// Public share.
    pub public: f64,
    /// Private training share.
    pub private: f64,
    /// Test share.
    pub test: f64,
}

/// Rows the min-max scaler is fitted on.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scaling {
    /// The whole data set before splitting (LPDT protocol, docs/methods/lpdt.md §8.3).
    #[default]
    Whole,
    /// The public part only (LPDT §3.2 remark; docs/methods/lpdt.md §8.3 option `scale_on = public`).
    Public,
    /// No scaling (features already in [0,1]).
    None,
}

/// Where the label bounds [y_lo, y_hi] come from (docs/methods/lpdt.md §8.3 "Label bounds").
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelBoundsFrom {
    /// Min and max of the public labels; private labels are clipped into them (default).
    #[default]
    Public,
    /// Min and max of the private training labels: the authors' code, which leaks a little
    /// (docs/methods/lpdt.md §9 item 1). Only by this explicit option.
    PrivateTrain,
    /// Bounds stated in the spec, `{fixed: {lo: -4, hi: 4}}`: a known domain, needed when
    /// there are no public labels (LPDT without public data, docs/methods/lpdt.md §5).
    Fixed {
        /// y_lo.
        lo: f64,
        /// y_hi ≥ y_lo.
        hi: f64,
    },
}

/// Grid-point selection.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// Oracle selection: the grid point with the best mean test metric over repetitions
    /// (the papers' practice; docs/methods/lpdt.md §8.1(b)).
    #[default]
    BestMean,
    /// k-fold cross-validation on the private training data, as the LPDT paper states
    /// (docs/methods/lpdt.md §8.1(a)): per repetition, every grid point is fitted on k − 1 folds with
    /// fresh privatization and scored by the non-private MSE of the held-out fold; the best
    /// one's test metric (its fit on the whole private training data) is reported. It
    /// does not account for the privacy cost of the folds, as the paper does not.
    Cv,
    /// LDP tuning of the LPDT paper's App. D.2 (docs/methods/lpdt.md §8.1(c)): a share of the private
    /// users is held out; each reports its squared error under every grid point's model,
    /// clipped to [0, R²], with Laplace noise of scale R²·k/ε (basic composition over the
    /// k grid points); the grid point with the lowest mean noisy error is reported, fitted
    /// on the remaining users. The training users report once per grid point, as in the
    /// paper (the gap of §8.1(c) item 5).
    PrivateValidation,
    /// Tuning on the public sample alone, free of privacy cost (docs/tuning.md): in each
    /// repetition the public sample is split into a mock public part, mock private users
    /// (at most as many as the real ones, released at the column's ε as if private) and
    /// held-out public rows; every grid point
    /// is fitted on the mock split and scored without noise on the held-out rows; the grid
    /// point of least score is reported, fitted on the real private users (one release of
    /// each user at ε). Needs a public sample.
    Public,
    /// Parallel composition over disjoint users (docs/tuning.md): in each repetition the
    /// private training users are split into a validation group and one group per candidate
    /// grid point; candidate j is fitted on its group at ε and scored by its own share of
    /// the validation group, each of whom releases one clipped loss with Laplace noise at
    /// ε; the candidate of least mean noisy loss is reported. Every user releases once at ε.
    /// Local and semi-feature models.
    UserSplit,
    /// Private selection by random stopping (central DP; Liu & Talwar 2019, Papernot &
    /// Steinke 2022; docs/tuning.md): a random number K of candidate runs (law
    /// `tuning.stopping`), each a uniformly drawn grid point fitted at ε₀ on the training rows
    /// and scored at ε₀ on disjoint validation rows; the best run is reported. ε₀ =
    /// ε/(2 + η), so the selection is ε-DP.
    RandomStopping,
}

impl Selection {
    /// The name used in specs and file names.
    pub fn name(&self) -> &'static str {
        match self {
            Selection::BestMean => "best_mean",
            Selection::Cv => "cv",
            Selection::PrivateValidation => "private_validation",
            Selection::Public => "public",
            Selection::UserSplit => "user_split",
            Selection::RandomStopping => "random_stopping",
        }
    }
}

/// One selection mode or several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selections(pub Vec<Selection>);

impl Default for Selections {
    fn default() -> Self {
        Selections(vec![Selection::BestMean])
    }
}

impl schemars::JsonSchema for Selections {
    fn schema_name() -> Cow<'static, str> {
        "Selections".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "One selection mode or a non-empty list of modes.",
            vec![
                g.subschema_for::<Selection>(),
                json_schema!({ "type": "array", "items": g.subschema_for::<Selection>(), "minItems": 1 }),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for Selections {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_yaml::Value::deserialize(d)?;
        let list = match v {
            serde_yaml::Value::Sequence(_) => {
                Vec::<Selection>::deserialize(v).map_err(de::Error::custom)?
            }
            other => vec![Selection::deserialize(other).map_err(de::Error::custom)?],
        };
        if list.is_empty() {
            return Err(de::Error::custom(
                "selection: give at least one of best_mean, cv, private_validation, public, user_split, random_stopping",
            ));
        }
        Ok(Selections(list))
    }
}

/// Options of the honest selection modes.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tuning {
    /// Number of folds k of `cv` (default 5, as the LPDT paper).
    #[serde(default = "default_folds")]
    pub cv_folds: usize,
    /// Share of the private training users held out as validation users by
    /// `private_validation` (default 0.2).
    #[serde(default = "default_validation_share")]
    pub validation_share: f64,
    /// How the training users of `private_validation` release for the k_r grid points
    /// whose releases differ: `fresh` (default, the paper's protocol: a fresh release per
    /// such grid point, k_r·ε in total) or `shared` (each training user spends ε once:
    /// ε/k_r per release, basic composition). Grid points that differ only in curator-side
    /// parameters share one release in both modes.
    #[serde(default)]
    pub validation_releases: ValidationReleases,
    /// Share of the public sample held out to score the mock fits of `public` selection
    /// (default 0.25); the rest is split in halves, a mock public part and mock private
    /// users (at most as many as the real private users).
    #[serde(default = "default_public_share")]
    pub public_share: f64,
    /// `user_split`: how many candidate grid points share the users (default: every grid
    /// point of the method). Fewer candidates give each a larger group: a seeded random
    /// subset of the grid, drawn per data set, method and repetition before any data is
    /// read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<usize>,
    /// `random_stopping`: the law of the number of candidate runs.
    #[serde(default)]
    pub stopping: Stopping,
}

/// The law of the number of candidate runs K of `random_stopping`: the truncated negative
/// binomial D_{η,γ} of Papernot & Steinke (2022) with shape `eta` (1: the geometric law of
/// Liu & Talwar 2019; 0: the logarithmic law) and γ solved from `mean`, E[K].
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stopping {
    /// η > −1 (default 1, the geometric law). The selection costs (2 + η)·ε₀ under pure DP.
    #[serde(default = "default_eta")]
    pub eta: f64,
    /// E[K] > 1, the mean number of candidate runs (default 10).
    #[serde(default = "default_stopping_mean")]
    pub mean: f64,
}

impl Default for Stopping {
    fn default() -> Self {
        Stopping {
            eta: default_eta(),
            mean: default_stopping_mean(),
        }
    }
}

impl Stopping {
    /// The law this stands for.
    ///
    /// # Errors
    /// When η ≤ −1 or the mean is not above 1 (the spec's validation refuses both first).
    pub fn law(
        &self,
    ) -> Result<crate::privacy::selection::StoppingLaw, crate::privacy::selection::StoppingError>
    {
        crate::privacy::selection::StoppingLaw::with_mean(self.eta, self.mean)
    }
}

fn default_eta() -> f64 {
    1.0
}

fn default_stopping_mean() -> f64 {
    10.0
}

fn default_public_share() -> f64 {
    0.25
}

/// How private validation's training users release across grid points.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ValidationReleases {
    /// A fresh ε-release per grid point whose release differs (LPDT App. D.2 as stated):
    /// the training users spend k_r·ε in total.
    #[default]
    Fresh,
    /// One budget ε per training user, shared by the k_r releases (ε/k_r each).
    Shared,
}

fn default_folds() -> usize {
    5
}

fn default_validation_share() -> f64 {
    0.2
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            cv_folds: default_folds(),
            validation_share: default_validation_share(),
            validation_releases: ValidationReleases::default(),
            public_share: default_public_share(),
            candidates: None,
            stopping: Stopping::default(),
        }
    }
}

/// A data set entry.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum DatasetEntry {
    /// A manifest name from `datasets/<name>.yaml`.
    Name(String),
    /// An inline definition.
    Inline(InlineDataset),
}

/// An inline data set: either a CSV file or a synthetic kind.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InlineDataset {
    /// Name used in results.
    pub name: String,
    /// Row label in tables (default: the name).
    #[serde(default)]
    pub label: Option<String>,
    /// CSV path, relative to the spec file.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// 0-based label column of the CSV.
    #[serde(default)]
    pub label_column: Option<usize>,
    /// Whether the CSV has a header row.
    #[serde(default)]
    pub has_header: Option<bool>,
    /// Task of the CSV.
    #[serde(default)]
    pub task: Option<Task>,
    /// What loading the CSV does with a row that has a missing cell (empty, `?`, `NA`,
    /// NaN, inf): `error` (default) or `drop_rows` (dropped and counted in run.json).
    /// Only with `path`; a manifest says it in its own `missing` field.
    #[serde(default)]
    pub missing: Option<crate::data::MissingPolicy>,
    /// A synthetic kind instead of a file: `lpdt_sine`, `{lpct_drift: {gamma: …}}`,
    /// `{semi_feature_sine: {d: …, sigma: …}}` or `{taxi_shape: {task: …}}`.
    #[serde(default)]
    pub synthetic: Option<SyntheticKind>,
    /// `lpct_drift` only: the name its random streams are keyed on (default: the data
    /// set's name). Data sets sharing a stream draw the same points where their sizes
    /// overlap (samples are nested) and the same public X and uniforms whatever γ, so a
    /// sweep over n_P, n_Q, γ or the range rule compares like with like in every
    /// repetition (common random numbers).
    #[serde(default)]
    pub stream: Option<String>,
    /// Two manifests instead of one file: every row of `public` is public, the rows of
    /// `private` are split into private training and test by `split` (whose `public` share
    /// must then be 0). Features are scaled on the union (LPDT Fig. 5, docs/methods/lpdt.md §8.6).
    #[serde(default)]
    pub pair: Option<PairEntry>,
    /// A manifest whose public rows are chosen by a column condition, evaluated on the
    /// raw file before encoding (LPCT App. C.1: Census's U.S. natives, Election's Texas
    /// counties, Employee's 2012 joiners): those rows are public in every repetition, the
    /// others are split into private training and test by `split` (whose `public` share
    /// must then be 0).
    #[serde(default)]
    pub public_by_rule: Option<RuleEntry>,
    /// A manifest of which a fixed random sample of `rows` rows is public in every
    /// repetition (drawn once from the spec seed and the data set's name, as the LPCT
    /// authors cut each file once into `<name>_pub.csv` and `<name>_pri.csv`; lpct.md
    /// §10.1); the other rows are split into private training and test by `split` (whose
    /// `public` share must then be 0).
    #[serde(default)]
    pub public_sample: Option<SampleEntry>,
    /// Sizes of a synthetic data set (each repetition draws fresh data).
    #[serde(default)]
    pub sizes: Option<SizesEntry>,
    /// `variance` (default) or `sd`: how the LPDT design's 0.025 is read.
    #[serde(default)]
    pub x_scale: Option<XScale>,
}

/// Synthetic data kinds: `lpdt_sine`, or `{lpct_drift: {gamma: G, …}}` with the
/// parameters of [`LpctDesign`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SyntheticKind {
    /// LPDT §4.1: Y = sin(16X) + N(0,1), X ~ N(0.5, 0.025) on [0,1] (docs/methods/lpdt.md §8.2).
    LpdtSine,
    /// LPCT §6: X uniform on [0,1]², public labels from η_Q (with γ), private and test
    /// labels from η_P (docs/methods/lpct.md §8); see [`LpctDesign`].
    LpctDrift(LpctDesign),
    /// HistOfTree Figure 2: X uniform on [0,1]^d, Y = (1/d) Σ sin(2π X_j) + σ N(0,1)
    /// (`docs/methods/histoftree.md` §11, [G]); see [`crate::data::SemiFeatureSine`].
    SemiFeatureSine(crate::data::SemiFeatureSine),
    /// A stand-in with the shape of the Chicago taxi data (LPDT Table 3,
    /// `docs/methods/lpdt.md` §8.5): continuous trip features and one-hot zones and companies, 93
    /// features by default; see [`crate::data::TaxiShape`].
    TaxiShape(crate::data::TaxiShape),
}

impl Serialize for SyntheticKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            SyntheticKind::LpdtSine => s.serialize_str("lpdt_sine"),
            SyntheticKind::LpctDrift(design) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("lpct_drift", design)?;
                m.end()
            }
            SyntheticKind::SemiFeatureSine(design) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("semi_feature_sine", design)?;
                m.end()
            }
            SyntheticKind::TaxiShape(design) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("taxi_shape", design)?;
                m.end()
            }
        }
    }
}

impl schemars::JsonSchema for SyntheticKind {
    fn schema_name() -> Cow<'static, str> {
        "SyntheticKind".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "A synthetic kind: `lpdt_sine`, `{lpct_drift: {...}}`, `{semi_feature_sine: {...}}` or `{taxi_shape: {...}}`.",
            vec![
                words(&["lpdt_sine"]),
                one_key_map("lpct_drift", g.subschema_for::<LpctDesign>()),
                one_key_map("semi_feature_sine", g.subschema_for::<crate::data::SemiFeatureSine>()),
                one_key_map("taxi_shape", g.subschema_for::<crate::data::TaxiShape>()),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for SyntheticKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expected = "`lpdt_sine` or `{lpct_drift: {gamma: G, sign_threshold: T, domain: {scale: [LO, HI], range: known | estimated | {assumed: A}}}}` (sign_threshold and domain optional), or `{semi_feature_sine: {d: D, sigma: S}}` (sigma optional, default 0.5), or `{taxi_shape: {task: regression | classification, zones: Z, companies: C, shift: S}}` (all optional)";
        let v = serde_yaml::Value::deserialize(d)?;
        match &v {
            serde_yaml::Value::String(s) if s == "lpdt_sine" => Ok(SyntheticKind::LpdtSine),
            serde_yaml::Value::Mapping(m) if m.len() == 1 => match m.get("lpct_drift") {
                Some(params) => LpctDesign::deserialize(params.clone())
                    .map(SyntheticKind::LpctDrift)
                    .map_err(|e| de::Error::custom(format!("lpct_drift: {e}"))),
                None if m.contains_key("semi_feature_sine") => {
                    crate::data::SemiFeatureSine::deserialize(m["semi_feature_sine"].clone())
                        .map(SyntheticKind::SemiFeatureSine)
                        .map_err(|e| de::Error::custom(format!("semi_feature_sine: {e}")))
                }
                None if m.contains_key("taxi_shape") => {
                    crate::data::TaxiShape::deserialize(m["taxi_shape"].clone())
                        .map(SyntheticKind::TaxiShape)
                        .map_err(|e| de::Error::custom(format!("taxi_shape: {e}")))
                }
                None => Err(de::Error::custom(format!(
                    "unknown synthetic kind; expected {expected}"
                ))),
            },
            _ => Err(de::Error::custom(format!(
                "unknown synthetic kind; expected {expected}"
            ))),
        }
    }
}

/// A figure of fitted regression functions f̂(x) on [0,1] for 1-D data sets (LPDT Fig. 1):
/// each line refits a method's selected grid point in one repetition with the run's own
/// seeded streams (so it is the fit runs.csv scored) and predicts on a grid of points.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurveEntry {
    /// File stem: `figures/<name>.svg`, `.png`, `.csv`.
    pub name: String,
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// ε of the private fits.
    pub epsilon: f64,
    /// The repetition whose fits are drawn (default 1).
    #[serde(default = "one")]
    pub repetition: usize,
    /// Number of grid points on [0,1] (default 101).
    #[serde(default = "default_points")]
    pub points: usize,
    /// The curves: a method on a data set, with an optional legend label.
    pub lines: Vec<CurveLine>,
}

fn one() -> usize {
    1
}

fn default_points() -> usize {
    101
}

/// One fitted curve.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurveLine {
    /// Data set name (1-D).
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// Legend label (default: method and data set).
    #[serde(default)]
    pub label: Option<String>,
}

/// A leaf-occupancy figure (DiPriMe Fig. 3, card docs/methods/diprime.md §7): each panel refits a
/// forest method's selected grid point in one repetition with the run's own seeded streams
/// (the fit runs.csv scored) and histograms the exact training rows of every leaf over all
/// its trees: `bins` equal bins on [0, `range`·n_train], ticks as fractions of n_train.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OccupancyEntry {
    /// File stem: `figures/<name>.svg`, `.png`, `.csv`, `-leaves.csv`, `-summary.csv`.
    pub name: String,
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// The data set (one of the spec's).
    pub dataset: String,
    /// The spec's ε at which the private forests are refitted (each method's
    /// `epsilon_factor` applies as in the run).
    pub epsilon: f64,
    /// The repetition refitted (default 1).
    #[serde(default = "one")]
    pub repetition: usize,
    /// Number of equal bins (default 24, the paper's).
    #[serde(default = "default_bins")]
    pub bins: usize,
    /// Upper end of the binned range as a fraction of n_train (default 0.25, the paper's).
    #[serde(default = "default_range")]
    pub range: f64,
    /// The forests, one panel each.
    pub panels: Vec<OccupancyPanelEntry>,
}

fn default_bins() -> usize {
    24
}

fn default_range() -> f64 {
    0.25
}

/// One panel of a leaf-occupancy figure.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OccupancyPanelEntry {
    /// Method label (as in the spec's `methods`).
    pub method: String,
    /// Panel title (default: the method label).
    #[serde(default)]
    pub label: Option<String>,
}

/// A public data set and a private one (distribution shift between them).
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PairEntry {
    /// Manifest name of the public data set.
    pub public: String,
    /// Manifest name of the private data set.
    pub private: String,
}

/// Public rows of a manifest's data set chosen by the raw text of one column.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleEntry {
    /// Manifest name of the data set.
    pub dataset: String,
    /// The column (its header name, or its name in the manifest's `encode.columns`).
    pub column: String,
    /// A row is public when the column's cell (trimmed, unquoted) is one of these.
    pub values: Vec<String>,
}

/// A fixed random public sample of a manifest's rows (`public_sample`).
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleEntry {
    /// Manifest name of the data set.
    pub dataset: String,
    /// Number of public rows (≥ 1, fewer than the data set's rows).
    pub rows: usize,
}

/// Sizes of the three parts of a synthetic data set.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizesEntry {
    /// n_pub.
    pub public: usize,
    /// n (private training).
    pub private: usize,
    /// Test size.
    pub test: usize,
}

impl<'de> Deserialize<'de> for DatasetEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DatasetEntry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a data set name or a map with name and path or synthetic")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DatasetEntry, E> {
                Ok(DatasetEntry::Name(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DatasetEntry, A::Error> {
                InlineDataset::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(DatasetEntry::Inline)
            }
        }
        d.deserialize_any(V)
    }
}

/// A method entry: a registry name, an optional column label, a grid and fixed values.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MethodEntry {
    /// Registry name (see `dp-repro list methods`); or give `compose`.
    #[serde(default)]
    pub method: Option<String>,
    /// A method built from blocks (partition, cell and label mechanisms, estimator,
    /// budget), instead of a registry name; needs a `label`.
    #[serde(default)]
    pub compose: Option<crate::methods::Composition>,
    /// Column label in results and tables (default: the method name); must be unique.
    #[serde(default)]
    pub label: Option<String>,
    /// Parameter name → list of values.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema_parts::grid_map")]
    pub grid: BTreeMap<String, serde_yaml::Value>,
    /// Parameter name → one fixed value.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema_parts::params_map")]
    pub params: BTreeMap<String, serde_yaml::Value>,
    /// Noise seeding of this method (default: the spec's `noise`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
}

/// Methods not run on some data sets.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkipEntry {
    /// Method label.
    pub method: String,
    /// Data set names.
    pub datasets: Vec<String>,
    /// Why (printed under the table).
    pub reason: String,
}
