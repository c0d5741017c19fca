//! Figures: line plots of a metric's mean over repetitions, with an optional quantile
//! band, rendered to SVG and PNG with `plotters` and written as a tidy CSV of the plotted
//! points (docs/architecture.md, `report/`; the LPDT figures are docs/methods/lpdt.md §8.2, §8.4, §8.6).
//!
//! A spec's `figures:` section lists [`FigureSpec`]s. Each figure is drawn once per data
//! set (one panel per file) from the results of a run:
//!
//! * `x: epsilon` — x is ε; for each method and ε the grid point of `selected.csv` (the
//!   spec's selection rule) and its per-repetition values in `runs.csv`;
//! * `x: {parameter: NAME}` — x is the value of a grid parameter (`depth`, `min_leaf`,
//!   …); for each value, method and ε, the best mean over the *other* grid parameters
//!   (oracle selection within the slice) and that grid point's per-repetition values.
//!
//! y is the mean over repetitions of the test metric; the band, when asked for, is the
//! pair of linear-interpolation quantiles ([`quantile`]) of the per-repetition values of
//! the same grid point. Files: `figures/<name>-<dataset>.svg`, `.png` and `.csv`
//! (`figures/<name>.*` on a size axis; columns
//! `figure,dataset,x,line,method,epsilon,mean,lo,hi,reps,params,source`).
//!
//! Text is set in DejaVu Sans, shipped in `assets/fonts/` (licence in
//! `assets/fonts/LICENSE-DejaVu.txt`) and embedded at compile time, so rendering needs no
//! system font library. The SVG is drawn with plotters (which measures text with that
//! font); the PNG is the SVG rasterized by resvg with the same font, so its text is shaped
//! like the SVG's. A legend never covers a line: a corner box that would is drawn below
//! the plot ([`PanelLayout`]); lines of more than [`MARKER_MAX_POINTS`] points get no
//! markers.
//!
//! * `x: {size: public | private}` — x is a synthetic data set's public or private sample
//!   size (from the spec's `sizes`); one panel for all the figure's data sets, each point
//!   the grid point of `selected.csv` of one data set, method and ε. `series` groups data
//!   sets into lines (e.g. LPCT Fig. 8's known, estimated and unknown ranges); where a
//!   line has several data sets at one x, the best of them is drawn (the paper's tuning
//!   of a′ in Fig. 8).
//!
//! `restrict` confines a method's points (at some ε, on some data sets) to the grid
//! points with given parameter values, the best mean over the rest (e.g. LPCT-prune's p0
//! and p_min given by formulas of n_P, n_Q and ε). `reported` overlays a paper's
//! digitized curves, dashed, in the colour of the line they match (see [`Overlay`]); they
//! enter the figure's CSV with `source` = `paper`.
//!
//! * `y: {parameter: NAME}` — a heat map ([`heatmap`]): x is ε or another grid
//!   parameter, the colour of a cell the mean metric at that pair of values; one panel per
//!   method (and ε), one file per data set, a CSV row per cell ([`HEATMAP_CSV_HEADER`]).

mod data;
mod draw;
pub mod heatmap;
pub mod occupancy;

pub use data::{build_panels, quantile, Line, Panel, Point, Source};
pub use draw::{has_markers, PanelLayout, PixelRect, MARKER_MAX_POINTS};
pub use heatmap::{build_heat_maps, write_heat_map, HeatMap, HeatPanel, HEATMAP_CSV_HEADER};

use crate::run_row::RunRow;
use crate::spec::Experiment;
use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One figure of a spec's `figures:` section.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// File stem: `figures/<name>-<dataset>.svg` / `.png` / `.csv`.
    pub name: String,
    /// Title (the data set name is appended); default: the figure name.
    #[serde(default)]
    pub title: String,
    /// The x axis: `epsilon`, `{parameter: NAME}` or `{size: public | private}` (a heat
    /// map: `epsilon` or `{parameter: NAME}`).
    pub x: XAxis,
    /// Logarithmic x axis (e.g. ε from 0.5 to 1000, or λ).
    #[serde(default)]
    pub x_log_scale: bool,
    /// x axis label; default from the axis.
    #[serde(default)]
    pub x_label: Option<String>,
    /// The y axis (the metric's mean over repetitions; with `parameter`, a grid parameter
    /// and the figure is a heat map).
    #[serde(default)]
    pub y: YAxis,
    /// Method labels (as in the spec's `methods`), one line each (or one per ε).
    pub methods: Vec<String>,
    /// Data sets, one file each; default: every data set of the spec.
    #[serde(default)]
    pub datasets: Option<Vec<String>>,
    /// ε values shown (x values for `x: epsilon`, lines otherwise); default: the spec's.
    #[serde(default)]
    pub epsilons: Option<Vec<f64>>,
    /// One line per method (default) or per ε (parameter axes only).
    #[serde(default)]
    pub lines: Lines,
    /// Quantile levels `[lo, hi]` of the band over repetitions, e.g. `[0.1, 0.9]`.
    #[serde(default)]
    pub band: Option<[f64; 2]>,
    /// Where the legend goes: a corner of the plot (moved below the plot when it would
    /// cover a line), `right` or `below` (outside the plot).
    #[serde(default)]
    pub legend: LegendPosition,
    /// Size axes only: lines from groups of data sets (default: one group, the figure's
    /// data sets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Vec<Series>>,
    /// Grid-point restrictions per method (and ε, data sets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restrict: Vec<Restriction>,
    /// The paper's digitized curves drawn beside ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<Overlay>,
}

/// A line group of a size axis: data sets with a legend label.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// Legend label (also what an overlay's `methods` may name).
    pub label: String,
    /// Its data sets; several at one x: the best mean of them is drawn.
    pub datasets: Vec<String>,
}

/// Confines the points of `method` (at `epsilon`, on `datasets`; default all) to the grid
/// points whose parameters take the given values; the point is the best mean over the
/// remaining grid points (oracle over the parameters not named). All restrictions that
/// apply to a point hold together.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Restriction {
    /// Method label.
    pub method: String,
    /// ε (default: every ε).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Data sets (default: every data set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasets: Option<Vec<String>>,
    /// Parameter name → one value or a list of allowed values.
    #[schemars(schema_with = "crate::schema_parts::allowed_params_map")]
    pub params: std::collections::BTreeMap<String, serde_yaml::Value>,
}

impl Restriction {
    fn applies(&self, method: &str, epsilon: Option<f64>, dataset: &str) -> bool {
        self.method == method
            && self
                .epsilon
                .is_none_or(|e| epsilon.map(f64::to_bits) == Some(e.to_bits()))
            && self
                .datasets
                .as_ref()
                .is_none_or(|ds| ds.iter().any(|d| d == dataset))
    }

    /// True when the `name=value;…` grid point satisfies every named parameter (numbers
    /// compared as numbers, other values as text).
    fn admits(&self, params: &str) -> bool {
        self.params.iter().all(|(name, allowed)| {
            let Some(value) = params
                .split(';')
                .filter_map(|kv| kv.split_once('='))
                .find(|(k, _)| k == name)
                .map(|(_, v)| v)
            else {
                return false;
            };
            let one = |a: &serde_yaml::Value| match (a.as_f64(), value.parse::<f64>()) {
                (Some(x), Ok(y)) => x == y,
                _ => a.as_str().is_some_and(|t| t == value),
            };
            match allowed {
                serde_yaml::Value::Sequence(list) => list.iter().any(one),
                a => one(a),
            }
        })
    }
}

/// The paper's digitized curves to draw beside ours (dashed, in the colour of the line
/// they match): rows of a tidy CSV with columns `figure`, `method`, `epsilon` (empty for a
/// non-private method), `x` and `accuracy` (or `value`); optional `source_plot`.
///
/// ```yaml
/// reported:
///   file: ../reported/lpct_figures_digitized.csv   # relative to the spec
///   figure: 5c                            # the rows whose `figure` column is this
///   methods: {LPCT: LPCT-M, LPCT-prune: LPCT-prune}   # paper method → our method or series label
///   shift: [{method: LPCT-prune, epsilon: 1, by: -0.002}]   # added to the paper's values
/// ```
///
/// A run copies the file into the results folder's `reported/` (the resolved spec names
/// that copy), so `dp-repro table` finds it from any directory.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// The CSV, relative to the spec file.
    pub file: PathBuf,
    /// The `figure` value of the rows to draw.
    pub figure: String,
    /// Paper method name → the label of our line's method or series it is drawn beside;
    /// paper methods not listed are not drawn.
    pub methods: std::collections::BTreeMap<String, String>,
    /// Corrections added to the paper's values before drawing (e.g. to undo plotting
    /// offsets), each named in the subtitle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shift: Vec<Shift>,
}

/// A constant added to one paper curve.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shift {
    /// Paper method name.
    pub method: String,
    /// ε of the curve (default: every ε of the method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// The amount added.
    pub by: f64,
}

/// One digitized point of a paper's figure.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperPoint {
    /// Paper method name.
    pub method: String,
    /// ε (None for a non-private method).
    pub epsilon: Option<f64>,
    /// x value.
    pub x: f64,
    /// The paper's value after [`Overlay::shift`].
    pub value: f64,
    /// The plot file it was read from, if the CSV says.
    pub source_plot: String,
}

impl Overlay {
    /// Reads the rows of [`Overlay::figure`] from the CSV (`base` = the spec's folder) and
    /// applies the shifts.
    ///
    /// # Errors
    /// [`FigureError::Io`] naming the file for an unreadable file, a missing column or a
    /// malformed number (with its line).
    pub fn load(&self, base: &Path) -> Result<Vec<PaperPoint>, FigureError> {
        let path = base.join(&self.file);
        let io = |message: String| FigureError::Io {
            path: path.clone(),
            message,
        };
        let mut rdr = csv::Reader::from_path(&path).map_err(|e| io(e.to_string()))?;
        let header: Vec<String> = rdr
            .headers()
            .map_err(|e| io(e.to_string()))?
            .iter()
            .map(String::from)
            .collect();
        let col = |name: &str| header.iter().position(|h| h == name);
        let need = |name: &str| col(name).ok_or_else(|| io(format!("no `{name}` column")));
        let (cf, cm, ce, cx) = (
            need("figure")?,
            need("method")?,
            need("epsilon")?,
            need("x")?,
        );
        let cv = col("accuracy")
            .or_else(|| col("value"))
            .ok_or_else(|| io("no `accuracy` or `value` column".into()))?;
        let cp = col("source_plot");
        let mut out = Vec::new();
        for (i, r) in rdr.records().enumerate() {
            let r = r.map_err(|e| io(format!("line {}: {e}", i + 2)))?;
            if r.get(cf) != Some(self.figure.as_str()) {
                continue;
            }
            let num = |c: usize, what: &str| {
                let t = r.get(c).unwrap_or("").trim();
                t.parse::<f64>()
                    .map_err(|e| io(format!("line {}: {what} `{t}`: {e}", i + 2)))
            };
            let method = r.get(cm).unwrap_or("").to_string();
            let epsilon = match r.get(ce).unwrap_or("").trim() {
                "" => None,
                _ => Some(num(ce, "epsilon")?),
            };
            let shift: f64 = self
                .shift
                .iter()
                .filter(|s| {
                    s.method == method
                        && s.epsilon
                            .is_none_or(|e| epsilon.map(f64::to_bits) == Some(e.to_bits()))
                })
                .map(|s| s.by)
                .sum();
            out.push(PaperPoint {
                method,
                epsilon,
                x: num(cx, "x")?,
                value: num(cv, "value")? + shift,
                source_plot: cp.and_then(|c| r.get(c)).unwrap_or("").to_string(),
            });
        }
        Ok(out)
    }
}

/// The x axis of a figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XAxis {
    /// x = ε, at the selected grid point of each method and ε (`x: epsilon`).
    Epsilon,
    /// x = a grid parameter, best mean over the other parameters (`x: {parameter: NAME}`).
    Parameter(String),
    /// x = a synthetic data set's sample size (`x: {size: public}` or `private`), one
    /// panel over the figure's data sets.
    Size(SizePart),
}

/// Which sample size a size axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizePart {
    /// n_Q, the public sample.
    Public,
    /// n_P, the private training sample.
    Private,
}

impl schemars::JsonSchema for XAxis {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "XAxis".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::schema_parts::{one_key_map, one_of, words};
        one_of(
            "The x axis: `epsilon`, `{parameter: NAME}` or `{size: public | private}`.",
            vec![
                words(&["epsilon"]),
                one_key_map("parameter", g.subschema_for::<String>()),
                one_key_map("size", g.subschema_for::<SizePart>()),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for XAxis {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expected = "`epsilon` or `{parameter: NAME}` (a grid parameter such as depth) or `{size: public}` / `{size: private}` (synthetic data sets' sample sizes)";
        let v = serde_yaml::Value::deserialize(d)?;
        match &v {
            serde_yaml::Value::String(s) if s == "epsilon" => Ok(XAxis::Epsilon),
            serde_yaml::Value::String(s) => Err(de::Error::custom(format!(
                "unknown x axis `{s}`; expected {expected}"
            ))),
            serde_yaml::Value::Mapping(m) if m.len() == 1 => {
                match (m.keys().next(), m.values().next()) {
                    (Some(serde_yaml::Value::String(k)), Some(serde_yaml::Value::String(name)))
                        if k == "parameter" =>
                    {
                        Ok(XAxis::Parameter(name.clone()))
                    }
                    (Some(serde_yaml::Value::String(k)), Some(serde_yaml::Value::String(part)))
                        if k == "size" && (part == "public" || part == "private") =>
                    {
                        Ok(XAxis::Size(if part == "public" {
                            SizePart::Public
                        } else {
                            SizePart::Private
                        }))
                    }
                    _ => Err(de::Error::custom(format!("expected {expected}"))),
                }
            }
            _ => Err(de::Error::custom(format!("expected {expected}"))),
        }
    }
}

impl Serialize for XAxis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            XAxis::Epsilon => s.serialize_str("epsilon"),
            XAxis::Parameter(name) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("parameter", name)?;
                m.end()
            }
            XAxis::Size(part) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("size", part)?;
                m.end()
            }
        }
    }
}

/// The y axis: the mean over repetitions of the runs' metric (MSE or accuracy).
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct YAxis {
    /// Logarithmic scale (falls back to linear, with a note, if a value is ≤ 0).
    #[serde(default)]
    pub log_scale: bool,
    /// Axis label; default `test <metric> (mean over repetitions)` (a heat map: the
    /// parameter's name).
    #[serde(default)]
    pub label: Option<String>,
    /// A grid parameter on the y axis: the figure is a heat map whose colour is the mean
    /// metric ([`heatmap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
}

/// What a line is.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Lines {
    /// One line per method (and per ε if the figure has several, on parameter axes).
    #[default]
    PerMethod,
    /// One line per ε (and per method if the figure has several); parameter axes only.
    PerEpsilon,
}

/// Corner of the legend box.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LegendPosition {
    /// Upper right (default).
    #[default]
    UpperRight,
    /// Upper left.
    UpperLeft,
    /// Lower right.
    LowerRight,
    /// Lower left.
    LowerLeft,
    /// Upper middle.
    UpperMiddle,
    /// Outside the plot, on its right (for many lines, e.g. with a paper overlay).
    Right,
    /// Outside the plot, under the x axis, the entries in rows (for curves that fill the
    /// plot, e.g. LPDT Fig. 1). A corner legend that would cover a line or its band is
    /// drawn here instead.
    Below,
}

/// A method as figures see it.
#[derive(Debug, Clone)]
pub struct MethodInfo {
    /// Label (results' `method` column).
    pub label: String,
    /// Private methods have one result per ε; non-private ones a single result.
    pub private: bool,
    /// Grid parameters in declaration order, each with its values (as written in
    /// runs.csv's `params`) in grid order.
    pub params: Vec<(String, Vec<String>)>,
}

/// What figures need to know about the experiment.
#[derive(Debug, Clone)]
pub struct FigureContext {
    /// Data set names, in spec order.
    pub datasets: Vec<String>,
    /// The spec's ε grid.
    pub epsilons: Vec<f64>,
    /// The spec's methods.
    pub methods: Vec<MethodInfo>,
    /// True for MSE (lower is better), false for accuracy.
    pub lower_is_better: bool,
    /// The spec name (`best_mean`, …) of the selection rule behind `selected.csv`, quoted
    /// in subtitles.
    pub selection: String,
    /// Sample sizes (public, private, test) of the synthetic data sets, by name.
    pub sizes: std::collections::BTreeMap<String, [usize; 3]>,
    /// The folder of the spec file, against which overlay files are resolved.
    pub base: PathBuf,
}

impl FigureContext {
    /// The context of a validated experiment.
    pub fn from_experiment(exp: &Experiment) -> Self {
        let methods = exp
            .methods
            .iter()
            .map(|m| {
                let mut params: Vec<(String, Vec<String>)> = Vec::new();
                for p in m.structural.iter().chain(m.mechanism.iter()) {
                    for (k, v) in &p.0 {
                        let v = v.to_string();
                        match params.iter_mut().find(|(name, _)| name == k) {
                            Some((_, vs)) => {
                                if !vs.contains(&v) {
                                    vs.push(v)
                                }
                            }
                            None => params.push((k.clone(), vec![v])),
                        }
                    }
                }
                MethodInfo {
                    label: m.label.clone(),
                    private: m.method.private(),
                    params,
                }
            })
            .collect();
        // The spec name of the rule behind selected.csv: the only rule, or the first of a
        // list (the others write selected-<rule>.csv).
        let name = |v: &serde_yaml::Value| match v {
            serde_yaml::Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other)
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
        };
        let selection = match serde_yaml::to_value(&exp.selection) {
            Ok(serde_yaml::Value::Sequence(seq)) => seq.first().map(name).unwrap_or_default(),
            Ok(v) => name(&v),
            Err(_) => String::new(),
        };
        let sizes = exp
            .datasets
            .iter()
            .filter_map(|d| Some((d.name.clone(), d.source.synthetic_sizes()?)))
            .collect();
        FigureContext {
            sizes,
            base: exp.path.parent().unwrap_or(Path::new("")).to_path_buf(),
            datasets: exp.datasets.iter().map(|d| d.name.clone()).collect(),
            epsilons: exp.epsilons.clone(),
            methods,
            lower_is_better: exp.lower_is_better(),
            selection,
        }
    }

    fn method(&self, label: &str) -> Option<&MethodInfo> {
        self.methods.iter().find(|m| m.label == label)
    }
}

/// Errors of figure validation and rendering.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    /// A figure field with an invalid value (`field` is e.g. `figures[0].methods`).
    #[error("field `{field}`: {message}")]
    Invalid {
        /// The field, e.g. `figures[1].x`.
        field: String,
        /// What is wrong and what would be valid.
        message: String,
    },
    /// A results file that cannot be read or a figure file that cannot be written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        message: String,
    },
    /// plotters failed to draw a figure.
    #[error("figure `{figure}`, {}: {message}", path.display())]
    Draw {
        /// Figure name.
        figure: String,
        /// The file being drawn.
        path: PathBuf,
        /// plotters' error.
        message: String,
    },
}

impl FigureSpec {
    /// Checks the figure against the experiment: a usable name, known methods, data sets
    /// and ε, a parameter every listed method has, `lines: per_epsilon` only on parameter
    /// axes, band levels `0 ≤ lo < hi ≤ 1`; for a heat map (`y.parameter`) also its axes
    /// and no line-figure options ([`heatmap`]). `index` is the figure's place in the
    /// section (for the field name in errors).
    ///
    /// # Errors
    /// [`FigureError::Invalid`] naming the field and what would be valid.
    pub fn validate(&self, index: usize, ctx: &FigureContext) -> Result<(), FigureError> {
        let field = |f: &str| format!("figures[{index}].{f}");
        let bad = |f: &str, message: String| FigureError::Invalid {
            field: field(f),
            message,
        };
        if self.name.trim().is_empty() || self.name.contains(['/', '\\']) {
            return Err(bad(
                "name",
                "must be a non-empty name without slashes (it names the files)".into(),
            ));
        }
        let all: Vec<&str> = ctx.methods.iter().map(|m| m.label.as_str()).collect();
        if self.methods.is_empty() {
            return Err(bad(
                "methods",
                format!(
                    "a figure needs methods; methods of this spec: {}",
                    all.join(", ")
                ),
            ));
        }
        for m in &self.methods {
            if ctx.method(m).is_none() {
                return Err(bad(
                    "methods",
                    format!(
                        "unknown method `{m}`; methods of this spec: {}",
                        all.join(", ")
                    ),
                ));
            }
        }
        if let Some(ds) = &self.datasets {
            for d in ds {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        "datasets",
                        format!(
                            "unknown data set `{d}`; data sets of this spec: {}",
                            ctx.datasets.join(", ")
                        ),
                    ));
                }
            }
        }
        if let Some(es) = &self.epsilons {
            if es.is_empty() {
                return Err(bad(
                    "epsilons",
                    "the list is empty; omit it for the spec's ε grid".into(),
                ));
            }
            for e in es {
                if !ctx.epsilons.contains(e) {
                    return Err(bad(
                        "epsilons",
                        format!(
                            "epsilon {e} is not in the spec's epsilons {:?}",
                            ctx.epsilons
                        ),
                    ));
                }
            }
        }
        if let Some(y) = &self.y.parameter {
            heatmap::validate(self, y, index, ctx)?;
        }
        match &self.x {
            XAxis::Size(_) => {}
            XAxis::Epsilon => {
                if self.lines == Lines::PerEpsilon {
                    return Err(bad(
                        "lines",
                        "`per_epsilon` needs a parameter x axis; with `x: epsilon` lines are per method".into(),
                    ));
                }
            }
            XAxis::Parameter(p) => {
                for m in &self.methods {
                    let info = ctx.method(m).expect("checked above");
                    if !info.params.iter().any(|(name, _)| name == p) {
                        let names: Vec<&str> =
                            info.params.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(bad(
                            "x",
                            format!(
                                "method `{m}` has no parameter `{p}`; its parameters: {}",
                                names.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        if let XAxis::Size(part) = self.x {
            let mut names: Vec<&String> = match (&self.series, &self.datasets) {
                (Some(series), _) => series.iter().flat_map(|s| &s.datasets).collect(),
                (None, Some(ds)) => ds.iter().collect(),
                (None, None) => ctx.datasets.iter().collect(),
            };
            names.dedup();
            for d in names {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        "series",
                        format!(
                            "unknown data set `{d}`; data sets of this spec: {}",
                            ctx.datasets.join(", ")
                        ),
                    ));
                }
                if !ctx.sizes.contains_key(d) {
                    return Err(bad(
                        "x",
                        format!(
                            "data set `{d}` has no stated {} sample size: a size axis needs synthetic data sets (`sizes`)",
                            match part {
                                SizePart::Public => "public",
                                SizePart::Private => "private",
                            }
                        ),
                    ));
                }
            }
        } else if self.series.is_some() {
            return Err(bad(
                "series",
                "series group data sets along a size axis (`x: {size: public}` or `private`)"
                    .into(),
            ));
        }
        for (k, s) in self.series.iter().flatten().enumerate() {
            if s.datasets.is_empty() {
                return Err(bad(
                    &format!("series[{k}].datasets"),
                    "name at least one data set".into(),
                ));
            }
        }
        for (k, r) in self.restrict.iter().enumerate() {
            let Some(info) = ctx
                .method(&r.method)
                .filter(|_| self.methods.contains(&r.method))
            else {
                return Err(bad(
                    &format!("restrict[{k}].method"),
                    format!(
                        "`{}` is not a method of this figure: {}",
                        r.method,
                        self.methods.join(", ")
                    ),
                ));
            };
            for name in r.params.keys() {
                if !info.params.iter().any(|(n, _)| n == name) {
                    let names: Vec<&str> = info.params.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(bad(
                        &format!("restrict[{k}].params"),
                        format!(
                            "method `{}` has no parameter `{name}`; its parameters: {}",
                            r.method,
                            names.join(", ")
                        ),
                    ));
                }
            }
            if let Some(e) = r.epsilon {
                if !ctx.epsilons.contains(&e) {
                    return Err(bad(
                        &format!("restrict[{k}].epsilon"),
                        format!(
                            "epsilon {e} is not in the spec's epsilons {:?}",
                            ctx.epsilons
                        ),
                    ));
                }
            }
            for d in r.datasets.iter().flatten() {
                if !ctx.datasets.contains(d) {
                    return Err(bad(
                        &format!("restrict[{k}].datasets"),
                        format!("unknown data set `{d}`"),
                    ));
                }
            }
        }
        if let Some(o) = &self.reported {
            let points = o
                .load(&ctx.base)
                .map_err(|e| bad("reported.file", e.to_string()))?;
            if points.is_empty() {
                return Err(bad(
                    "reported.figure",
                    format!(
                        "{} has no rows with figure `{}`",
                        ctx.base.join(&o.file).display(),
                        o.figure
                    ),
                ));
            }
            let lines: Vec<&String> = self
                .methods
                .iter()
                .chain(self.series.iter().flatten().map(|s| &s.label))
                .collect();
            for (paper, ours) in &o.methods {
                if !points.iter().any(|p| &p.method == paper) {
                    let mut known: Vec<&str> = points.iter().map(|p| p.method.as_str()).collect();
                    known.dedup();
                    return Err(bad(
                        "reported.methods",
                        format!(
                            "figure `{}` of the file has no method `{paper}`; it has: {}",
                            o.figure,
                            known.join(", ")
                        ),
                    ));
                }
                if !lines.contains(&ours) {
                    return Err(bad(
                        "reported.methods",
                        format!(
                            "`{ours}` (for the paper's `{paper}`) is neither a method nor a series of this figure: {}",
                            lines.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
            for (k, sh) in o.shift.iter().enumerate() {
                if !o.methods.contains_key(&sh.method) {
                    return Err(bad(
                        &format!("reported.shift[{k}].method"),
                        format!(
                            "`{}` is not a paper method of `reported.methods`",
                            sh.method
                        ),
                    ));
                }
            }
        }
        if let Some([lo, hi]) = self.band {
            if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo >= hi {
                return Err(bad(
                    "band",
                    format!("quantile levels must satisfy 0 <= lo < hi <= 1, got [{lo}, {hi}]"),
                ));
            }
        }
        Ok(())
    }
}

/// Validates every figure of a spec (see [`FigureSpec::validate`]) and that names are
/// unique.
///
/// # Errors
/// The first problem, as [`FigureError::Invalid`].
pub fn validate_figures(figures: &[FigureSpec], ctx: &FigureContext) -> Result<(), FigureError> {
    let mut names = BTreeSet::new();
    for (i, f) in figures.iter().enumerate() {
        f.validate(i, ctx)?;
        if !names.insert(&f.name) {
            return Err(FigureError::Invalid {
                field: format!("figures[{i}].name"),
                message: format!("figure `{}` is defined twice", f.name),
            });
        }
    }
    Ok(())
}

/// One row of `selected.csv`: the selected grid point of a data set × method × ε.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectedRow {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// ε (None for non-private methods).
    pub epsilon: Option<f64>,
    /// The grid point, `name=value;…`.
    pub params: String,
    /// The grid point's mean test metric over repetitions (MSE or accuracy).
    pub mean: f64,
}

/// Reads `selected.csv` (`dataset,method,epsilon,mean,std,median,reps,params`).
///
/// # Errors
/// [`FigureError::Io`] naming the file and the malformed line.
pub fn read_selected(path: &Path) -> Result<Vec<SelectedRow>, FigureError> {
    let io = |message: String| FigureError::Io {
        path: path.to_path_buf(),
        message,
    };
    let mut rdr = csv::Reader::from_path(path).map_err(|e| io(e.to_string()))?;
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| io(e.to_string()))?
        .iter()
        .map(String::from)
        .collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| io(format!("no `{name}` column")))
    };
    let (cd, cm, ce, cp, cmean) = (
        col("dataset")?,
        col("method")?,
        col("epsilon")?,
        col("params")?,
        col("mean")?,
    );
    let mut rows = Vec::new();
    for (i, r) in rdr.records().enumerate() {
        let r = r.map_err(|e| io(format!("line {}: {e}", i + 2)))?;
        let eps = r.get(ce).unwrap_or("");
        let epsilon = if eps.is_empty() {
            None
        } else {
            Some(
                eps.parse::<f64>()
                    .map_err(|e| io(format!("line {}: epsilon `{eps}`: {e}", i + 2)))?,
            )
        };
        let mean = r.get(cmean).unwrap_or("");
        let mean = mean
            .parse::<f64>()
            .map_err(|e| io(format!("line {}: mean `{mean}`: {e}", i + 2)))?;
        rows.push(SelectedRow {
            dataset: r.get(cd).unwrap_or("").to_string(),
            method: r.get(cm).unwrap_or("").to_string(),
            epsilon,
            params: r.get(cp).unwrap_or("").to_string(),
            mean,
        });
    }
    Ok(rows)
}

/// Renders every figure of `figures` for the results in `out` (`runs` are the runs.csv
/// rows of the experiment's tasks; the selected grid points are read from
/// `out/selected.csv`) into `out/figures/`. Returns the files written, in order
/// (`.svg`, `.png`, `.csv` per figure × data set). Nothing is written (and no folder
/// made) when there are no figures; a data set with no result for any of the figure's
/// methods gets no files.
///
/// # Errors
/// An invalid figure ([`FigureError::Invalid`]), an unreadable selected.csv or an
/// unwritable file ([`FigureError::Io`]), a drawing failure ([`FigureError::Draw`]).
pub fn render_figures(
    figures: &[FigureSpec],
    runs: &[RunRow],
    out: &Path,
    ctx: &FigureContext,
) -> Result<Vec<PathBuf>, FigureError> {
    if figures.is_empty() {
        return Ok(Vec::new());
    }
    validate_figures(figures, ctx)?;
    let selected = read_selected(&out.join("selected.csv"))?;
    let dir = out.join("figures");
    std::fs::create_dir_all(&dir).map_err(|e| FigureError::Io {
        path: dir.clone(),
        message: e.to_string(),
    })?;
    let index = data::RunIndex::new(runs);
    let mut written = Vec::new();
    for f in figures {
        if f.y.parameter.is_some() {
            for map in heatmap::build_indexed(f, &index, ctx) {
                if map.panels.iter().all(|p| p.cells.is_empty()) {
                    continue;
                }
                let stem = format!("{}-{}", f.name, map.dataset);
                written.extend(write_heat_map(&map, &dir, &stem)?);
            }
            continue;
        }
        let paper = match &f.reported {
            Some(o) => o.load(&ctx.base)?,
            None => Vec::new(),
        };
        for panel in data::build_panels_indexed(f, &index, &selected, ctx, &paper) {
            if panel
                .lines
                .iter()
                .all(|l| l.points.is_empty() || l.source == Source::Paper)
            {
                continue;
            }
            let stem = if panel.dataset.is_empty() {
                f.name.clone()
            } else {
                format!("{}-{}", f.name, panel.dataset)
            };
            written.extend(write_panel(&panel, &dir, &stem, f.legend)?);
        }
    }
    Ok(written)
}

/// Writes one panel as `<stem>.svg`, `<stem>.png` and `<stem>.csv` into `dir`; returns the
/// three paths.
///
/// # Errors
/// A drawing or I/O error naming the file.
pub fn write_panel(
    panel: &Panel,
    dir: &Path,
    stem: &str,
    legend: LegendPosition,
) -> Result<Vec<PathBuf>, FigureError> {
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    let csv = dir.join(format!("{stem}.csv"));
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |message: String| FigureError::Draw {
            figure: panel.figure.clone(),
            path,
            message,
        }
    };
    let (text, _) = draw::panel_svg(panel, legend).map_err(fail(&svg))?;
    std::fs::write(&svg, &text).map_err(|e| FigureError::Io {
        path: svg.clone(),
        message: e.to_string(),
    })?;
    draw::write_png_from_svg(&text, &png).map_err(fail(&png))?;
    std::fs::write(&csv, panel.to_csv()).map_err(|e| FigureError::Io {
        path: csv.clone(),
        message: e.to_string(),
    })?;
    Ok(vec![svg, png, csv])
}

/// Header of a figure's tidy CSV.
/// `source` is `ours` for our results and `paper` for an overlay's digitized points
/// (whose `params` name the plot file and whose `reps` is empty).
pub const FIGURE_CSV_HEADER: &str =
    "figure,dataset,x,line,method,epsilon,mean,lo,hi,reps,params,source";

/// Draws `panel` as [`write_panel`] does and returns the SVG text with the layout it used
/// (where the plot, the legend and every line's points are, in pixels): for checking a
/// figure's layout without files.
///
/// # Errors
/// [`FigureError::Draw`] with plotters' message (the path is empty).
pub fn panel_svg(
    panel: &Panel,
    legend: LegendPosition,
) -> Result<(String, PanelLayout), FigureError> {
    draw::panel_svg(panel, legend).map_err(|message| FigureError::Draw {
        figure: panel.figure.clone(),
        path: PathBuf::new(),
        message,
    })
}

/// The PNG that [`write_panel`] writes for SVG text: the SVG rasterized by resvg at one
/// pixel per user unit on white, its text shaped with the shipped DejaVu Sans.
///
/// # Errors
/// [`FigureError::Draw`] for SVG text resvg cannot read (the path is empty).
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, FigureError> {
    draw::png_bytes_from_svg(svg).map_err(|message| FigureError::Draw {
        figure: String::new(),
        path: PathBuf::new(),
        message,
    })
}
