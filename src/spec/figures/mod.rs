//! The spec's `figures:` section as it is written: each figure's axes, methods, bands,
//! series, restrictions and paper overlay ([`FigureSpec`]), what the figures need to know
//! of the experiment ([`FigureContext`]) and the section's validation against it. The
//! drawing is `report::figure`, whose documentation describes each kind of figure.

mod context;
mod validate;

pub use context::{FigureContext, MethodInfo};
pub use validate::validate_figures;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
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
    /// [`OverlayError`] naming the file for an unreadable file, a missing column or a
    /// malformed number (with its line).
    pub fn load(&self, base: &Path) -> Result<Vec<PaperPoint>, OverlayError> {
        let path = base.join(&self.file);
        let io = |message: String| OverlayError {
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

/// A paper-overlay file ([`Overlay::file`]) that cannot be read, lacks a column or has a
/// malformed number.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct OverlayError {
    /// The file.
    pub path: PathBuf,
    /// The cause, with the line for a malformed row.
    pub message: String,
}
