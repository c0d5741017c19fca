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
    pub figures: Vec<crate::report::figure::FigureSpec>,
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
}

impl Selection {
    /// The name used in specs and file names.
    pub fn name(&self) -> &'static str {
        match self {
            Selection::BestMean => "best_mean",
            Selection::Cv => "cv",
            Selection::PrivateValidation => "private_validation",
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
                "selection: give at least one of best_mean, cv, private_validation",
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
    /// A stand-in with the shape of the Chicago taxi data (issue 12 item 6; LPDT Table 3,
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

/// A table: rows = data sets, columns = non-private methods then ε × methods.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableEntry {
    /// File stem: `table-<name>.tex` / `.md`.
    pub name: String,
    /// Caption (a note on the selection protocol is appended).
    #[serde(default)]
    pub caption: String,
    /// ε blocks, in order.
    pub epsilons: Vec<f64>,
    /// Method labels compared in every ε block (marks compare these); a non-private
    /// method listed here shows its one result in every block (LPCT Table 2's CT-Q).
    /// Exactly one of `methods` and `blocks` is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<String>,
    /// Several blocks of compared methods per ε, each marked and ranked on its own with its
    /// own tie rule (the aligned and personalized blocks of the HistOfTree tables,
    /// `docs/methods/histoftree.md` §10); columns: for each ε, for each block, its methods. A label may
    /// appear in several blocks. Exactly one of `methods` and `blocks` is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<TableBlock>,
    /// Non-private method labels, shown first without ε.
    #[serde(default)]
    pub non_private: Vec<String>,
    /// Row labels: the paper's abbreviation from the manifest (default) or the name.
    #[serde(default)]
    pub row_labels: RowLabels,
    /// How the cells of each ε block are marked: `bold_best` (default, LPDT Tables 2/5) or
    /// `star_best` (LPCT Table 2).
    #[serde(default, skip_serializing_if = "MarkStyle::is_default")]
    pub marks: MarkStyle,
    /// Rows under the data rows, after a rule, in this order: `rank_sum` and/or `no1`
    /// (LPCT Table 2, `docs/methods/lpct.md` §10.6); computed per ε block over the `methods`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary_rows: Vec<SummaryRow>,
    /// The tie rule of `rank_sum` for `methods` (see [`RankTies`]): a tie order listing
    /// every label of `methods` once (among equal means the method listed first gets the
    /// better rank), or `min` / `max` (competition ranks of the printed values). Default:
    /// the order of `methods`. With `blocks`, each block has its own.
    #[serde(default, skip_serializing_if = "RankTies::is_default")]
    pub rank_ties: RankTies,
    /// A clause that ends the note on oracle selection (`best_mean`) after a comma, saying
    /// how the paper or its code selected grid points, e.g. `as the authors' public code
    /// does (the LPDT paper, §4, states 5-fold cross-validation)`; no final period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle_note: Option<String>,
    /// What the cells show: `metric` (default; the mean test metric of the selected grid
    /// point), `seconds` (the mean wall time of one fit + predict of the selected grid
    /// point, runs.csv `seconds`; LPCT Table 3, docs/methods/lpct.md §10.8; no marks and no summary
    /// rows) or `{ratio_to: DT, of: means}` (the metric over a denominator method's on the
    /// same data set; the HistOfTree tables, `docs/methods/histoftree.md` §10).
    #[serde(default, skip_serializing_if = "TableValue::is_default")]
    pub value: TableValue,
    /// The paper's values printed beside ours in every cell, `ours (paper)`, from a CSV
    /// file with columns `dataset`, `method`, the value `column` and optionally `epsilon`
    /// (without it a value applies to every ε block). Data sets are matched by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<TableReported>,
    /// An interval printed after each mean: `ci95` = `mean ± t_{0.975,n−1}·sd₀/√n`, the
    /// 95 % Student-t half-width with the population standard deviation (ddof 0) over
    /// the repetitions, as the DiPriMe tables print "±" (`docs/methods/diprime.md` §6.1; not a standard
    /// deviation). Only with `value: metric`. Absent: the mean alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// How the metric's values are printed, overriding the task's default (MSE in
    /// scientific notation, accuracy with 4 decimals): `{significant: 3}` (fixed point,
    /// 3 significant digits: `1.59`, `40.7`, `241`; DiPriMe Table 1) or `{decimals: 3}`
    /// (DiPriMe Table 2). Only with `value: metric`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<Digits>,
    /// Per data set (its name in the spec), the power of ten its row is printed in: `-2`
    /// prints 0.0159 as `1.59` with `(×10⁻²)` after the row label (the DiPriMe paper's
    /// factors, `docs/methods/diprime.md` §11). Needs `digits`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scale: BTreeMap<String, i32>,
    /// Rows of the paper's table whose data set we do not have, printed after the data
    /// rows with every cell missing (`—`) and a note with the reason (DiPriMe's Flight,
    /// HIGGS, PUC-Rio), so the table says so instead of dropping them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableRow>,
    /// How `table-<name>.tex` lays the table out so that it fits the page (Markdown
    /// ignores it); every field defaults to `false`:
    /// - `transpose: true`: data sets as columns, methods as rows under one heading row
    ///   per ε (and block); summary rows become the last columns (the DiPriMe paper's
    ///   layout; the HistOfTree tables, whose twelve method columns are too wide);
    /// - `split: true`: one float per ε, captioned `(a) ε = 0.5`, `(b) …` (the LPCT
    ///   paper's Table 2); needs two or more `epsilons`;
    /// - `landscape: true`: a `sidewaystable` (LaTeX package `rotating`), as wide as the
    ///   text height.
    ///
    /// The options combine (`{split: true, transpose: true}`). The paper tables of
    /// `specs/` choose theirs so that each tabular is at least 80 % of its natural size on
    /// a 6.5-inch line (tests/table_width.rs measures them).
    #[serde(default, skip_serializing_if = "crate::report::Layout::is_default")]
    pub layout: crate::report::Layout,
}

/// The interval a table prints after each mean (`interval:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    /// The half-width of a 95 % Student-t interval, `t_{0.975,n−1}·sd₀/√n`, sd₀ with
    /// denominator n ([`crate::stats::ci95_halfwidth`]; `docs/methods/diprime.md` §6.1).
    Ci95,
}

/// How a table prints its values (`digits:`).
///
/// YAML: `{significant: 3}` or `{decimals: 3}` (exactly one of the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Fixed point with this many significant digits (≥ 1).
    Significant(usize),
    /// Fixed point with this many decimals.
    Decimals(usize),
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct DigitsRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    significant: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decimals: Option<usize>,
}

impl schemars::JsonSchema for Digits {
    fn schema_name() -> Cow<'static, str> {
        "Digits".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let n = g.subschema_for::<usize>();
        json_schema!({
            "description": "How a table prints its values: `{significant: N}` or `{decimals: N}` (exactly one).",
            "type": "object",
            "properties": { "significant": n.clone(), "decimals": n },
            "additionalProperties": false,
            "oneOf": [ { "required": ["significant"] }, { "required": ["decimals"] } ]
        })
    }
}

impl<'de> Deserialize<'de> for Digits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = DigitsRepr::deserialize(d)?;
        match (r.significant, r.decimals) {
            (Some(n), None) => Ok(Digits::Significant(n)),
            (None, Some(n)) => Ok(Digits::Decimals(n)),
            _ => Err(de::Error::custom(
                "digits must be {significant: N} or {decimals: N} (exactly one)",
            )),
        }
    }
}

impl Serialize for Digits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (significant, decimals) = match *self {
            Digits::Significant(n) => (Some(n), None),
            Digits::Decimals(n) => (None, Some(n)),
        };
        DigitsRepr {
            significant,
            decimals,
        }
        .serialize(s)
    }
}

/// A row of the paper's table that we cannot reproduce (`unavailable:`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnavailableRow {
    /// The row label, as the paper names the data set (e.g. `Flight`).
    pub label: String,
    /// Why it is not run, printed in the notes (e.g. `data not available: ...`).
    pub reason: String,
}

/// What a table's cells show.
///
/// YAML: `metric`, `seconds` or `{ratio_to: LABEL, of: means | per_repetition}` (`of`
/// defaults to `means`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TableValue {
    /// The mean test metric (MSE or accuracy) of the selected grid point.
    #[default]
    Metric,
    /// The mean seconds of one fit + predict of the selected grid point.
    Seconds,
    /// The metric divided by the metric of method `ratio_to` (its selected grid point on
    /// the same data set; the HistOfTree tables' MSE(method)/MSE(DT), `histoftree.md`
    /// §10), printed as the paper prints ratios (`1.85`, `22.6`, `7e2`).
    RatioTo {
        /// The denominator's method label.
        ratio_to: String,
        /// Ratio of means or mean of per-repetition ratios.
        of: RatioOf,
    },
}

/// Which ratio a `ratio_to` cell shows (`docs/methods/histoftree.md` §10 leaves it open, [G]).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RatioOf {
    /// The mean metric over repetitions divided by the denominator's mean (default).
    #[default]
    Means,
    /// The mean over repetitions of the per-repetition ratios (repetitions both have).
    PerRepetition,
}

impl TableValue {
    /// Whether this is the default (`metric`), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == TableValue::default()
    }
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RatioToRepr {
    ratio_to: String,
    #[serde(default)]
    of: RatioOf,
}

impl schemars::JsonSchema for TableValue {
    fn schema_name() -> Cow<'static, str> {
        "TableValue".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "What a table's cells show: `metric`, `seconds` or `{ratio_to: METHOD, of: means | per_repetition}`.",
            vec![words(&["metric", "seconds"]), g.subschema_for::<RatioToRepr>()],
        )
    }
}

impl<'de> Deserialize<'de> for TableValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "metric" => Ok(TableValue::Metric),
            serde_yaml::Value::String(s) if s == "seconds" => Ok(TableValue::Seconds),
            v @ serde_yaml::Value::Mapping(_) => RatioToRepr::deserialize(v)
                .map(|r| TableValue::RatioTo {
                    ratio_to: r.ratio_to,
                    of: r.of,
                })
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "value must be metric, seconds or {{ratio_to: METHOD, of: means | per_repetition}}, got {other:?}"
            ))),
        }
    }
}

impl Serialize for TableValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TableValue::Metric => s.serialize_str("metric"),
            TableValue::Seconds => s.serialize_str("seconds"),
            TableValue::RatioTo { ratio_to, of } => RatioToRepr {
                ratio_to: ratio_to.clone(),
                of: *of,
            }
            .serialize(s),
        }
    }
}

/// The tie rule of a `rank_sum` row.
///
/// YAML: `min`, `max` or a list of the block's method labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RankTies {
    /// Ordinal ranks by mean; among equal means the method listed first gets the better
    /// rank (LPCT Table 2, `docs/methods/lpct.md` §10.6). Empty: the column order.
    Order(Vec<String>),
    /// Competition ranks of the printed values, a tie sharing its best rank (the
    /// personalized block of the HistOfTree tables, `docs/methods/histoftree.md` §10).
    Min,
    /// Competition ranks of the printed values, a tie sharing its worst rank (the aligned
    /// block of the HistOfTree tables, `docs/methods/histoftree.md` §10).
    Max,
}

impl Default for RankTies {
    fn default() -> Self {
        RankTies::Order(Vec::new())
    }
}

impl RankTies {
    /// Whether this is the default (the column order), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == RankTies::default()
    }
}

impl schemars::JsonSchema for RankTies {
    fn schema_name() -> Cow<'static, str> {
        "RankTies".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        one_of(
            "The tie rule of `rank_sum`: `min`, `max` or a list of method labels.",
            vec![
                words(&["min", "max"]),
                json_schema!({ "type": "array", "items": { "type": "string" } }),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for RankTies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "min" => Ok(RankTies::Min),
            serde_yaml::Value::String(s) if s == "max" => Ok(RankTies::Max),
            v @ serde_yaml::Value::Sequence(_) => Vec::<String>::deserialize(v)
                .map(RankTies::Order)
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "rank_ties must be min, max or a list of method labels, got {other:?}"
            ))),
        }
    }
}

impl Serialize for RankTies {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RankTies::Order(v) => v.serialize(s),
            RankTies::Min => s.serialize_str("min"),
            RankTies::Max => s.serialize_str("max"),
        }
    }
}

/// One block of compared methods of a table (`blocks:`): marked and ranked on its own in
/// every ε.
///
/// ```yaml
/// blocks:
///   - {label: Aligned, methods: [HistOfTree(ME) A, ParDT A, Hist], rank_ties: max}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableBlock {
    /// Shown after the ε in the column group's label (`ε = 1 · Aligned`).
    pub label: String,
    /// The block's method labels, in column order.
    pub methods: Vec<String>,
    /// The block's `rank_sum` tie rule; default the column order.
    #[serde(default, skip_serializing_if = "RankTies::is_default")]
    pub rank_ties: RankTies,
}

impl TableEntry {
    /// The blocks of compared methods: `blocks`, or one block with an empty label holding
    /// `methods` and `rank_ties` when the table has no `blocks`.
    pub fn column_blocks(&self) -> Vec<TableBlock> {
        if self.blocks.is_empty() {
            vec![TableBlock {
                label: String::new(),
                methods: self.methods.clone(),
                rank_ties: self.rank_ties.clone(),
            }]
        } else {
            self.blocks.clone()
        }
    }

    /// Every compared method label, in column order within an ε (a label in several
    /// blocks appears once, at its first block).
    pub fn compared_methods(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b in self.column_blocks() {
            for m in b.methods {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        out
    }
}

/// A table's `reported:` field: the paper's values to print beside ours.
///
/// ```yaml
/// reported: {file: ../reported/lpct_table3_time.csv, column: seconds}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableReported {
    /// The CSV file, relative to the spec's folder (a run copies it into the results
    /// folder's `reported/`).
    pub file: std::path::PathBuf,
    /// The column holding the paper's values.
    pub column: String,
    /// What the note calls the values, e.g. `the paper's seconds (72-core Xeon 2.6 GHz)`;
    /// default `the paper's value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// How the cells of a table's ε blocks are marked (among the `methods` of a block; the
/// `non_private` columns and missing cells are never marked).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MarkStyle {
    /// LPDT Tables 2/5 (`docs/methods/lpdt.md` §8.3): the best mean bold, the second best underlined
    /// (italics in Markdown), `*` by the spec's `significance` rule.
    #[default]
    BoldBest,
    /// LPCT Table 2 (`docs/methods/lpct.md` §10.5): `*` on the best mean and on every mean tied with it
    /// at the printed precision; bold on every method a one-sided Wilcoxon signed-rank
    /// test (paired by repetition) does not find significantly worse than the best, the
    /// best included (the spec's `significance` must then be absent, for level 0.05, or
    /// `not_worse_than_best`, whose `alpha` is the level).
    StarBest,
    /// The HistOfTree tables (`docs/methods/histoftree.md` §10): `*` on every cell tied for the best at
    /// the printed precision when each of them is significantly better than every method
    /// of the block not tied with it (one-sided Wilcoxon signed-rank test paired by
    /// repetition, at the `alpha` of the spec's `significance` rule, else 0.05). No bold.
    StarSignificant,
    /// No marks (the DiPriMe tables, which print mean ± half-width only).
    None,
}

impl MarkStyle {
    /// Whether this is the default style (`bold_best`), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == MarkStyle::default()
    }
}

/// A summary row of a table (`docs/methods/lpct.md` §10.6), computed per ε block and method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SummaryRow {
    /// "Rank Sum": on every data set the compared methods are ranked by mean (1 = best;
    /// ordinal ranks, ties by `rank_ties`; a missing result counts as the metric's worst
    /// value) and the ranks are summed over the data sets; `*` on the lowest sum.
    RankSum,
    /// "No. 1": the number of data sets on which the method is starred or bold; `*` on
    /// the highest count.
    No1,
}

impl SummaryRow {
    /// The row label, as LPCT Table 2 prints it: `Rank Sum`, `No. 1`.
    pub fn label(&self) -> &'static str {
        match self {
            SummaryRow::RankSum => "Rank Sum",
            SummaryRow::No1 => "No. 1",
        }
    }
}

/// How table rows are labelled.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RowLabels {
    /// The paper's abbreviation (ABA, AIR, …) when the manifest has one.
    #[default]
    Abbreviation,
    /// The data set name.
    Name,
}
