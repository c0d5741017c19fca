//! From results to plotted points: grid-point choice per x value, means over repetitions
//! and quantile bands.

use super::{
    FigureContext, FigureSpec, Lines, PaperPoint, SelectedRow, SizePart, XAxis, FIGURE_CSV_HEADER,
};
use crate::run_row::RunRow;
use crate::seeds::epsilon_text;
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
    /// The grid point, `name=value;…` (for a paper point, `source_plot=<file>`).
    pub params: String,
    /// The point's data set when it differs from the panel's (size axes).
    pub dataset: Option<String>,
}

/// Where a line's values come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Source {
    /// Our results.
    #[default]
    Ours,
    /// A paper's digitized curve (a figure's `reported` overlay), drawn dashed.
    Paper,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::Ours => "ours",
            Source::Paper => "paper",
        }
    }
}

/// One line of a panel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Method label.
    pub method: String,
    /// ε of the line (None on an `x: epsilon` axis and for a non-private method).
    pub epsilon: Option<f64>,
    /// Points, by increasing x.
    pub points: Vec<Point>,
    /// Ours or the paper's.
    pub source: Source,
    /// The series (group of data sets) of a size axis.
    pub series: Option<String>,
    /// The index (in the panel) of the line whose colour this one takes: a paper curve
    /// takes the colour of the line it is drawn beside; None: its own.
    pub colour_of: Option<usize>,
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
    /// Logarithmic x axis.
    pub log_x: bool,
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
                let reps = match l.source {
                    Source::Ours => p.reps.to_string(),
                    Source::Paper => String::new(),
                };
                w.write_record([
                    self.figure.as_str(),
                    p.dataset.as_deref().unwrap_or(self.dataset.as_str()),
                    p.x_text.as_str(),
                    l.label.as_str(),
                    l.method.as_str(),
                    eps.as_str(),
                    &p.mean.to_string(),
                    &opt(p.lo),
                    &opt(p.hi),
                    &reps,
                    p.params.as_str(),
                    l.source.as_str(),
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
    /// Data set → metric name (`mse`, `accuracy`).
    pub(super) metric: HashMap<String, String>,
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

    /// Grid point → repetition → value of data set `d`, method `m` at `e`.
    pub(super) fn grid(
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
///
/// `paper` holds the digitized points of the figure's overlay (see
/// [`super::Overlay::load`]; empty for none): each paper method mapped by the overlay's
/// `methods` becomes a dashed line per ε beside the line it names.
pub fn build_panels(
    fig: &FigureSpec,
    runs: &[RunRow],
    selected: &[SelectedRow],
    ctx: &FigureContext,
    paper: &[PaperPoint],
) -> Vec<Panel> {
    build_panels_indexed(fig, &RunIndex::new(runs), selected, ctx, paper)
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
        dataset: None,
    }
}

/// The better of two grid points by the rule of oracle selection: more repetitions
/// first, then the better mean.
pub(super) fn better(
    reps: &BTreeMap<usize, f64>,
    mean: f64,
    cur: &BTreeMap<usize, f64>,
    cur_mean: f64,
    lower_is_better: bool,
) -> bool {
    reps.len() > cur.len()
        || (reps.len() == cur.len()
            && if lower_is_better {
                mean < cur_mean
            } else {
                mean > cur_mean
            })
}

/// Mean of a grid point's values in repetition order (as summary.csv computes it).
pub(super) fn mean_of(reps: &BTreeMap<usize, f64>) -> f64 {
    summarize(&reps.values().cloned().collect::<Vec<_>>()).mean
}

/// The grid point drawn for data set `d`, method `m` at `eps`: the one of selected.csv,
/// or, when the figure restricts this method there, the best (by [`better`]; ties keep
/// the grid point whose params text sorts first) among the admitted grid points.
fn choose<'a>(
    fig: &FigureSpec,
    index: &'a RunIndex,
    selected: &[SelectedRow],
    ctx: &FigureContext,
    (d, m, eps): (&str, &str, Option<f64>),
) -> Option<(&'a String, &'a BTreeMap<usize, f64>)> {
    let grid = index.grid(d, m, eps)?;
    let rules: Vec<&super::Restriction> = fig
        .restrict
        .iter()
        .filter(|r| r.applies(m, eps, d))
        .collect();
    if rules.is_empty() {
        let sel = selected.iter().find(|s| {
            s.dataset == d && s.method == m && s.epsilon.map(f64::to_bits) == eps.map(f64::to_bits)
        })?;
        return grid.get_key_value(&sel.params);
    }
    let mut best: Option<(&String, &BTreeMap<usize, f64>, f64)> = None;
    for (params, reps) in grid {
        if !rules.iter().all(|r| r.admits(params)) {
            continue;
        }
        let mean = mean_of(reps);
        if best
            .as_ref()
            .is_none_or(|(_, cur, cm)| better(reps, mean, cur, *cm, ctx.lower_is_better))
        {
            best = Some((params, reps, mean));
        }
    }
    best.map(|(p, r, _)| (p, r))
}

/// The value of `name` in a `name=value;…` grid point.
pub(super) fn param_value<'a>(params: &'a str, name: &str) -> Option<&'a str> {
    params
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The metric's name in labels: `MSE` for `mse`, else as is.
pub(super) fn metric_label(metric: &str) -> String {
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
    paper: &[PaperPoint],
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
    let restricted = if fig.restrict.is_empty() {
        String::new()
    } else {
        let mut methods: Vec<&str> = Vec::new();
        for r in &fig.restrict {
            if !methods.contains(&r.method.as_str()) {
                methods.push(&r.method);
            }
        }
        format!(
            "; {} drawn at restricted grid points (the figure's `restrict`; each point's parameters are in the CSV)",
            methods.join(", ")
        )
    };
    let mut panels = Vec::new();
    let size_axis = matches!(fig.x, XAxis::Size(_));
    // A size axis draws one panel over all data sets; the others one per data set.
    let panel_datasets: Vec<String> = if size_axis {
        vec![String::new()]
    } else {
        datasets.clone()
    };
    for d in &panel_datasets {
        let metric_of = |d: &str| {
            index
                .metric
                .get(d)
                .map(|m| metric_label(m))
                .unwrap_or_else(|| "metric".into())
        };
        let metric = if size_axis {
            datasets
                .iter()
                .find_map(|d| index.metric.get(d))
                .map(|m| metric_label(m))
                .unwrap_or_else(|| "metric".into())
        } else {
            metric_of(d)
        };
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
                        let Some((params, values)) =
                            choose(fig, index, selected, ctx, (d.as_str(), m.as_str(), eps))
                        else {
                            continue;
                        };
                        points.push(point(e, epsilon_text(e), eps, params, values, fig.band));
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
                        ..Line::default()
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
                let show_method = fig.methods.len() > 1 || fig.lines == Lines::PerMethod;
                let show_eps = epsilons.len() > 1 || fig.lines == Lines::PerEpsilon;
                for (m, e) in line_order(fig, &epsilons, &private) {
                    let label = match (e, show_method, show_eps) {
                        (Some(e), true, true) => format!("{m}, ε = {}", epsilon_text(e)),
                        (Some(e), false, true) => format!("ε = {}", epsilon_text(e)),
                        _ => m.clone(),
                    };
                    let mut points = Vec::new();
                    if let Some(grid) = index.grid(d, &m, e) {
                        let rules: Vec<&super::Restriction> = fig
                            .restrict
                            .iter()
                            .filter(|r| r.applies(&m, e, d))
                            .collect();
                        // Oracle selection within each slice: complete grid points first
                        // (most repetitions), then the better mean; ties keep the grid
                        // point whose params text sorts first.
                        let mut best: BTreeMap<String, (&String, &BTreeMap<usize, f64>, f64)> =
                            BTreeMap::new();
                        for (params, reps) in grid {
                            let Some(value) = param_value(params, p) else {
                                continue;
                            };
                            if !rules.iter().all(|r| r.admits(params)) {
                                continue;
                            }
                            let mean = mean_of(reps);
                            let key = value.to_string();
                            if best.get(&key).is_none_or(|(_, cur, cur_mean)| {
                                better(reps, mean, cur, *cur_mean, ctx.lower_is_better)
                            }) {
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
                        ..Line::default()
                    });
                }
                subtitle = format!(
                    "Mean test {metric} over {{reps}} repetitions; for each {p} the grid point with the best mean over the other parameters (oracle within the slice){}",
                    band_note(fig.band)
                );
            }
            XAxis::Size(part) => {
                let (k, name) = match part {
                    SizePart::Public => (0, "public sample size n_Q"),
                    SizePart::Private => (1, "private sample size n_P"),
                };
                x_label = name.to_string();
                let series: Vec<(Option<String>, Vec<String>)> = match &fig.series {
                    Some(list) => list
                        .iter()
                        .map(|s| (Some(s.label.clone()), s.datasets.clone()))
                        .collect(),
                    None => vec![(None, datasets.clone())],
                };
                let mut pooled = false;
                for (label, members) in &series {
                    for (m, e) in line_order(fig, &epsilons, &private) {
                        let mut parts: Vec<String> = label.iter().cloned().collect();
                        if fig.methods.len() > 1 || label.is_none() {
                            parts.push(m.clone());
                        }
                        if let Some(e) = e.filter(|_| epsilons.len() > 1) {
                            parts.push(format!("ε = {}", epsilon_text(e)));
                        }
                        // Per x: the best of the series' data sets at that size.
                        let mut best: BTreeMap<usize, Point> = BTreeMap::new();
                        for ds in members {
                            let Some(size) = ctx.sizes.get(ds).map(|s| s[k]) else {
                                continue;
                            };
                            let Some((params, values)) =
                                choose(fig, index, selected, ctx, (ds.as_str(), m.as_str(), e))
                            else {
                                continue;
                            };
                            let mut pt =
                                point(size as f64, size.to_string(), e, params, values, fig.band);
                            pt.dataset = Some(ds.clone());
                            match best.get(&size) {
                                Some(cur) => {
                                    pooled = true;
                                    let wins = pt.reps > cur.reps
                                        || (pt.reps == cur.reps
                                            && if ctx.lower_is_better {
                                                pt.mean < cur.mean
                                            } else {
                                                pt.mean > cur.mean
                                            });
                                    if wins {
                                        best.insert(size, pt);
                                    }
                                }
                                None => {
                                    best.insert(size, pt);
                                }
                            }
                        }
                        lines.push(Line {
                            label: parts.join(", "),
                            method: m,
                            epsilon: e,
                            points: best.into_values().collect(),
                            series: label.clone(),
                            ..Line::default()
                        });
                    }
                }
                let rule = if ctx.selection == "best_mean" {
                    "oracle selection".to_string()
                } else {
                    format!("selection `{}`", ctx.selection)
                };
                subtitle = format!(
                    "Mean test {metric} over {{reps}} repetitions at the grid point selected per data set, method and ε ({rule}){}{}",
                    if pooled {
                        "; where a line has several data sets at one x, the best of them"
                    } else {
                        ""
                    },
                    band_note(fig.band)
                );
            }
        }
        let shifted = add_paper_lines(fig, paper, &epsilons, &mut lines);
        let reps = lines
            .iter()
            .filter(|l| l.source == Source::Ours)
            .flat_map(|l| l.points.iter().map(|p| p.reps))
            .max()
            .unwrap_or(0);
        let title = match (fig.title.is_empty(), d.is_empty()) {
            (true, true) => fig.name.clone(),
            (true, false) => format!("{} — {d}", fig.name),
            (false, true) => fig.title.clone(),
            (false, false) => format!("{} — {d}", fig.title),
        };
        let y_label = fig.y.label.clone().unwrap_or_else(|| {
            format!(
                "test {metric} (mean over repetitions{})",
                if fig.y.log_scale { ", log scale" } else { "" }
            )
        });
        let overlay_note = match &fig.reported {
            Some(o) if lines.iter().any(|l| l.source == Source::Paper) => format!(
                "; dashed: the paper's Fig. {} (digitized){shifted}",
                o.figure
            ),
            _ => String::new(),
        };
        panels.push(Panel {
            figure: fig.name.clone(),
            dataset: d.clone(),
            title,
            subtitle: subtitle.replace("{reps}", &reps.to_string()) + &restricted + &overlay_note,
            x_label: fig.x_label.clone().unwrap_or(x_label),
            y_label,
            log_y: fig.y.log_scale,
            log_x: fig.x_log_scale,
            x_categories,
            lines,
        });
    }
    panels
}

/// The (method, ε) of each line of a parameter or size axis, in the order of `lines`:
/// private methods per ε, then the non-private ones (ε None).
fn line_order(
    fig: &FigureSpec,
    epsilons: &[f64],
    private: &dyn Fn(&str) -> bool,
) -> Vec<(String, Option<f64>)> {
    let private_methods: Vec<&String> = fig.methods.iter().filter(|m| private(m)).collect();
    let mut order: Vec<(String, Option<f64>)> = Vec::new();
    match fig.lines {
        Lines::PerMethod => {
            for m in &private_methods {
                for &e in epsilons {
                    order.push(((*m).clone(), Some(e)));
                }
            }
        }
        Lines::PerEpsilon => {
            for &e in epsilons {
                for m in &private_methods {
                    order.push(((*m).clone(), Some(e)));
                }
            }
        }
    }
    for m in fig.methods.iter().filter(|m| !private(m)) {
        order.push((m.clone(), None));
    }
    order
}

/// One paper curve being collected: (paper method, ε of the curve) and its points.
type PaperCurve<'a> = ((String, Option<f64>), Vec<&'a PaperPoint>);

/// Appends the overlay's paper curves to `lines`: per mapped paper method (and per ε, off
/// an ε axis) one dashed line in the colour of our line it names — same method or
/// series, same ε (on an ε axis, same method). On an ε axis only the figure's ε are
/// drawn; elsewhere only curves of the figure's ε (or without ε). Returns the subtitle's
/// note on shifted curves (empty without shifts).
fn add_paper_lines(
    fig: &FigureSpec,
    paper: &[PaperPoint],
    epsilons: &[f64],
    lines: &mut Vec<Line>,
) -> String {
    let Some(overlay) = &fig.reported else {
        return String::new();
    };
    let eps_axis = fig.x == XAxis::Epsilon;
    let has = |e: f64| epsilons.iter().any(|x| x.to_bits() == e.to_bits());
    // Curves in file order: (paper method, ε of the curve) → points.
    let mut curves: Vec<PaperCurve> = Vec::new();
    for p in paper {
        let Some(_) = overlay.methods.get(&p.method) else {
            continue;
        };
        let (key, keep) = if eps_axis {
            ((p.method.clone(), None), has(p.x))
        } else {
            ((p.method.clone(), p.epsilon), p.epsilon.is_none_or(has))
        };
        if !keep {
            continue;
        }
        match curves
            .iter_mut()
            .find(|(k, _)| k.0 == key.0 && k.1.map(f64::to_bits) == key.1.map(f64::to_bits))
        {
            Some((_, pts)) => pts.push(p),
            None => curves.push((key, vec![p])),
        }
    }
    let ours = lines.len();
    for ((method, eps), pts) in curves {
        let target = &overlay.methods[&method];
        let matched = (0..ours).find(|&i| {
            let l = &lines[i];
            (l.method == *target || l.series.as_ref() == Some(target))
                && (eps_axis || l.epsilon.map(f64::to_bits) == eps.map(f64::to_bits))
        });
        let label = match matched {
            Some(i) => format!("{} (paper)", lines[i].label),
            None => match eps {
                Some(e) => format!("{method}, ε = {} (paper)", epsilon_text(e)),
                None => format!("{method} (paper)"),
            },
        };
        let mut points: Vec<Point> = pts
            .iter()
            .map(|p| Point {
                x: p.x,
                x_text: trim_number(p.x),
                mean: p.value,
                lo: None,
                hi: None,
                epsilon: p.epsilon,
                reps: 0,
                params: if p.source_plot.is_empty() {
                    String::new()
                } else {
                    format!("source_plot={}", p.source_plot)
                },
                dataset: None,
            })
            .collect();
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        lines.push(Line {
            label,
            method: method.clone(),
            epsilon: eps,
            points,
            source: Source::Paper,
            series: matched.and_then(|i| lines[i].series.clone()),
            colour_of: matched,
        });
    }
    overlay
        .shift
        .iter()
        .map(|s| {
            format!(
                "; paper {}{} shifted by {:+}",
                s.method,
                s.epsilon
                    .map(|e| format!(" at ε = {}", epsilon_text(e)))
                    .unwrap_or_default(),
                s.by
            )
        })
        .collect()
}

/// A number as short text: `0.5`, `1000`, `4000`.
fn trim_number(v: f64) -> String {
    let s = format!("{v}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}
