//! From results to plotted points: grid-point choice per x value, means over repetitions
//! and quantile bands.

use super::{FigureContext, FigureSpec, Lines, SelectedRow, XAxis, FIGURE_CSV_HEADER};
use crate::run::seeds::epsilon_text;
use crate::run::RunRow;
use crate::stats::summarize;
use std::collections::{BTreeMap, HashMap};

/// One plotted point: the mean over repetitions of one grid point's metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position on the x axis (ε, the parameter's value, or the index of a non-numeric
    /// parameter value).
    pub x: f64,
    /// The x value as text (`2`, `0.5`, `max_edge`).
    pub x_text: String,
    /// Mean of the metric over the grid point's repetitions.
    pub mean: f64,
    /// Lower band bound (the band's lower quantile of the per-repetition values).
    pub lo: Option<f64>,
    /// Upper band bound.
    pub hi: Option<f64>,
    /// ε of the result (None for a non-private method).
    pub epsilon: Option<f64>,
    /// Number of repetitions.
    pub reps: usize,
    /// The grid point, `name=value;…`.
    pub params: String,
}

/// One line of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Method label.
    pub method: String,
    /// ε of the line (None on an `x: epsilon` axis and for a non-private method).
    pub epsilon: Option<f64>,
    /// Points, by increasing x.
    pub points: Vec<Point>,
}

/// One panel (one data set) of a figure, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Figure name.
    pub figure: String,
    /// Data set name.
    pub dataset: String,
    /// Title line.
    pub title: String,
    /// Second title line: the selection rule and the band.
    pub subtitle: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Names of the x positions 0, 1, … when the parameter is not numeric.
    pub x_categories: Option<Vec<String>>,
    /// The lines.
    pub lines: Vec<Line>,
}

impl Panel {
    /// The tidy CSV of the plotted points (header [`FIGURE_CSV_HEADER`]); `lo` and `hi`
    /// are empty without a band, `epsilon` is empty when the line has no single ε.
    pub fn to_csv(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        for l in &self.lines {
            for p in &l.points {
                let eps = p.epsilon.map(epsilon_text).unwrap_or_default();
                w.write_record([
                    self.figure.as_str(),
                    self.dataset.as_str(),
                    p.x_text.as_str(),
                    l.label.as_str(),
                    l.method.as_str(),
                    eps.as_str(),
                    &p.mean.to_string(),
                    &opt(p.lo),
                    &opt(p.hi),
                    &p.reps.to_string(),
                    p.params.as_str(),
                ])
                .expect("writing to memory");
            }
        }
        let body = String::from_utf8(w.into_inner().expect("writing to memory")).expect("utf-8");
        format!("{FIGURE_CSV_HEADER}\n{body}")
    }
}

/// The `p`-quantile of sorted values by linear interpolation between order statistics
/// (Hyndman and Fan's type 7: NumPy's default `linear` method and R's default): with
/// h = (n − 1)·p, the value x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎), 0-based. NaN for an
/// empty slice.
///
/// ```
/// use dp_repro::report::figure::quantile;
/// assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.1), 1.4);
/// assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0);
/// ```
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let i = h.floor() as usize;
    if i + 1 >= n {
        return sorted[n - 1];
    }
    sorted[i] + (h - i as f64) * (sorted[i + 1] - sorted[i])
}

type Key = (String, String, Option<u64>);

/// The runs grouped by (data set, method, ε) and then grid point → repetition → value.
pub(crate) struct RunIndex {
    groups: HashMap<Key, BTreeMap<String, BTreeMap<usize, f64>>>,
    metric: HashMap<String, String>,
}

impl RunIndex {
    pub(crate) fn new(runs: &[RunRow]) -> Self {
        let mut groups: HashMap<Key, BTreeMap<String, BTreeMap<usize, f64>>> = HashMap::new();
        let mut metric = HashMap::new();
        for r in runs {
            groups
                .entry((
                    r.dataset.clone(),
                    r.method.clone(),
                    r.epsilon.map(f64::to_bits),
                ))
                .or_default()
                .entry(r.params.clone())
                .or_default()
                .insert(r.repetition, r.value);
            metric
                .entry(r.dataset.clone())
                .or_insert_with(|| r.metric.clone());
        }
        RunIndex { groups, metric }
    }

    fn grid(
        &self,
        d: &str,
        m: &str,
        e: Option<f64>,
    ) -> Option<&BTreeMap<String, BTreeMap<usize, f64>>> {
        self.groups
            .get(&(d.to_string(), m.to_string(), e.map(f64::to_bits)))
    }
}

/// Builds the panels (one per data set) of a figure from runs.csv rows and selected.csv
/// rows. The figure is assumed valid ([`FigureSpec::validate`]).
pub fn build_panels(
    fig: &FigureSpec,
    runs: &[RunRow],
    selected: &[SelectedRow],
    ctx: &FigureContext,
) -> Vec<Panel> {
    build_panels_indexed(fig, &RunIndex::new(runs), selected, ctx)
}

fn point(
    x: f64,
    x_text: String,
    epsilon: Option<f64>,
    params: &str,
    values: &BTreeMap<usize, f64>,
    band: Option<[f64; 2]>,
) -> Point {
    // In repetition order, as summary.csv and selected.csv compute it, so the mean is
    // bit-identical to theirs.
    let v: Vec<f64> = values.values().cloned().collect();
    let s = summarize(&v);
    let (lo, hi) = match band {
        Some([a, b]) => {
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            (Some(quantile(&sorted, a)), Some(quantile(&sorted, b)))
        }
        None => (None, None),
    };
    Point {
        x,
        x_text,
        mean: s.mean,
        lo,
        hi,
        epsilon,
        reps: s.n,
        params: params.to_string(),
    }
}

/// The value of `name` in a `name=value;…` grid point.
fn param_value<'a>(params: &'a str, name: &str) -> Option<&'a str> {
    params
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn metric_label(metric: &str) -> String {
    match metric {
        "mse" => "MSE".to_string(),
        other => other.to_string(),
    }
}

fn band_note(band: Option<[f64; 2]>) -> String {
    match band {
        Some([a, b]) => format!(
            "; band: {}%–{}% quantiles over repetitions",
            trim(a * 100.0),
            trim(b * 100.0)
        ),
        None => String::new(),
    }
}

fn trim(v: f64) -> String {
    let s = format!("{:.4}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

pub(crate) fn build_panels_indexed(
    fig: &FigureSpec,
    index: &RunIndex,
    selected: &[SelectedRow],
    ctx: &FigureContext,
) -> Vec<Panel> {
    let datasets = fig.datasets.clone().unwrap_or_else(|| ctx.datasets.clone());
    let epsilons = fig.epsilons.clone().unwrap_or_else(|| ctx.epsilons.clone());
    let private = |m: &str| {
        ctx.methods
            .iter()
            .find(|i| i.label == m)
            .map(|i| i.private)
            .unwrap_or(true)
    };
    let mut panels = Vec::new();
    for d in &datasets {
        let metric = index
            .metric
            .get(d)
            .map(|m| metric_label(m))
            .unwrap_or_else(|| "metric".into());
        let mut lines = Vec::new();
        let mut x_categories = None;
        let x_label;
        let subtitle;
        match &fig.x {
            XAxis::Epsilon => {
                x_label = "ε (privacy budget)".to_string();
                for m in &fig.methods {
                    let mut points = Vec::new();
                    for &e in &epsilons {
                        let eps = if private(m) { Some(e) } else { None };
                        let Some(sel) = selected.iter().find(|s| {
                            &s.dataset == d
                                && &s.method == m
                                && s.epsilon.map(f64::to_bits) == eps.map(f64::to_bits)
                        }) else {
                            continue;
                        };
                        let Some(values) = index.grid(d, m, eps).and_then(|g| g.get(&sel.params))
                        else {
                            continue;
                        };
                        points.push(point(
                            e,
                            epsilon_text(e),
                            eps,
                            &sel.params,
                            values,
                            fig.band,
                        ));
                    }
                    points.sort_by(|a, b| a.x.total_cmp(&b.x));
                    let label = if private(m) {
                        m.clone()
                    } else {
                        format!("{m} (non-private)")
                    };
                    lines.push(Line {
                        label,
                        method: m.clone(),
                        epsilon: None,
                        points,
                    });
                }
                let rule = if ctx.selection == "best_mean" {
                    "oracle selection: the grid point with the best mean over repetitions"
                        .to_string()
                } else {
                    format!("selection `{}`", ctx.selection)
                };
                subtitle = format!(
                    "Mean test {metric} over {{reps}} repetitions at the grid point selected per method and ε ({rule}){}",
                    band_note(fig.band)
                );
            }
            XAxis::Parameter(p) => {
                x_label = p.clone();
                // x positions: the parameter's values in grid order over the methods.
                let mut values: Vec<String> = Vec::new();
                for m in &fig.methods {
                    if let Some(info) = ctx.methods.iter().find(|i| &i.label == m) {
                        for (name, vs) in &info.params {
                            if name == p {
                                for v in vs {
                                    if !values.contains(v) {
                                        values.push(v.clone());
                                    }
                                }
                            }
                        }
                    }
                }
                let numeric = values.iter().all(|v| v.parse::<f64>().is_ok());
                if !numeric {
                    x_categories = Some(values.clone());
                }
                let position = |v: &str| -> Option<f64> {
                    if numeric {
                        v.parse().ok()
                    } else {
                        values.iter().position(|c| c == v).map(|i| i as f64)
                    }
                };
                let private_methods: Vec<&String> =
                    fig.methods.iter().filter(|m| private(m)).collect();
                let mut order: Vec<(String, Option<f64>)> = Vec::new();
                match fig.lines {
                    Lines::PerMethod => {
                        for m in &private_methods {
                            for &e in &epsilons {
                                order.push(((*m).clone(), Some(e)));
                            }
                        }
                    }
                    Lines::PerEpsilon => {
                        for &e in &epsilons {
                            for m in &private_methods {
                                order.push(((*m).clone(), Some(e)));
                            }
                        }
                    }
                }
                for m in fig.methods.iter().filter(|m| !private(m)) {
                    order.push((m.clone(), None));
                }
                let show_method = fig.methods.len() > 1 || fig.lines == Lines::PerMethod;
                let show_eps = epsilons.len() > 1 || fig.lines == Lines::PerEpsilon;
                for (m, e) in order {
                    let label = match (e, show_method, show_eps) {
                        (Some(e), true, true) => format!("{m}, ε = {}", epsilon_text(e)),
                        (Some(e), false, true) => format!("ε = {}", epsilon_text(e)),
                        _ => m.clone(),
                    };
                    let mut points = Vec::new();
                    if let Some(grid) = index.grid(d, &m, e) {
                        // Oracle selection within each slice: complete grid points first
                        // (most repetitions), then the better mean; ties keep the grid
                        // point whose params text sorts first.
                        let mut best: BTreeMap<String, (&String, &BTreeMap<usize, f64>, f64)> =
                            BTreeMap::new();
                        for (params, reps) in grid {
                            let Some(value) = param_value(params, p) else {
                                continue;
                            };
                            let v: Vec<f64> = reps.values().cloned().collect();
                            let mean = summarize(&v).mean;
                            let key = value.to_string();
                            let better = match best.get(&key) {
                                None => true,
                                Some((_, cur, cur_mean)) => {
                                    reps.len() > cur.len()
                                        || (reps.len() == cur.len()
                                            && if ctx.lower_is_better {
                                                mean < *cur_mean
                                            } else {
                                                mean > *cur_mean
                                            })
                                }
                            };
                            if better {
                                best.insert(key, (params, reps, mean));
                            }
                        }
                        for (value, (params, reps, _)) in &best {
                            let Some(x) = position(value) else { continue };
                            points.push(point(x, value.clone(), e, params, reps, fig.band));
                        }
                    }
                    points.sort_by(|a, b| a.x.total_cmp(&b.x));
                    lines.push(Line {
                        label,
                        method: m,
                        epsilon: e,
                        points,
                    });
                }
                subtitle = format!(
                    "Mean test {metric} over {{reps}} repetitions; for each {p} the grid point with the best mean over the other parameters (oracle within the slice){}",
                    band_note(fig.band)
                );
            }
        }
        let reps = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.reps))
            .max()
            .unwrap_or(0);
        let title = if fig.title.is_empty() {
            format!("{} — {d}", fig.name)
        } else {
            format!("{} — {d}", fig.title)
        };
        let y_label = fig.y.label.clone().unwrap_or_else(|| {
            format!(
                "test {metric} (mean over repetitions{})",
                if fig.y.log_scale { ", log scale" } else { "" }
            )
        });
        panels.push(Panel {
            figure: fig.name.clone(),
            dataset: d.clone(),
            title,
            subtitle: subtitle.replace("{reps}", &reps.to_string()),
            x_label,
            y_label,
            log_y: fig.y.log_scale,
            x_categories,
            lines,
        });
    }
    panels
}
