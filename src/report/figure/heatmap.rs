//! Heat maps: a figure with a grid parameter on the y axis (`y: {parameter: NAME}`) and ε
//! or another grid parameter on the x axis; each cell's colour is the mean over
//! repetitions of the test metric at that pair of values (the DiPriMe appendix Figs. 7/8,
//! card docs/methods/diprime.md §7).
//!
//! A heat map has one panel per method (and per ε of the figure when neither axis is ε and
//! the method is private), drawn side by side in one file per data set,
//! `figures/<name>-<dataset>.svg` / `.png` / `.csv`. A cell holds the grid points whose
//! x and y parameters take the cell's values; when the grid varies other parameters too,
//! the cell is the best mean over them (oracle within the cell, the rule of the parameter
//! axis of line figures), and the figure's `restrict` confines those grid points as it
//! does for lines. Each panel has its own linear colour scale (viridis, with a colour bar)
//! and every cell is annotated with its mean; the best cell is outlined.
//!
//! The CSV ([`HEATMAP_CSV_HEADER`]) has one row per cell:
//! `figure,dataset,panel,x,y,method,epsilon,mean,std,reps,params` (`std` the sample
//! standard deviation over repetitions, as summary.csv; `params` the grid point drawn).

use super::data::{better, mean_of, metric_label, param_value, RunIndex};
use super::draw::{format_tick, nice_ticks, titled_grid, write_svg_png, Drawable, FONT};
use super::{FigureContext, FigureError, FigureSpec, XAxis};
use crate::run_row::RunRow;
use crate::seeds::epsilon_text;
use crate::stats::summarize;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Header of a heat map's tidy CSV, one row per cell.
pub const HEATMAP_CSV_HEADER: &str = "figure,dataset,panel,x,y,method,epsilon,mean,std,reps,params";

/// One cell of a heat-map panel: the grid point drawn at (x, y) and its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Column index into [`HeatMap::x_values`].
    pub xi: usize,
    /// Row index into [`HeatMap::y_values`].
    pub yi: usize,
    /// ε of the result (None for a non-private method).
    pub epsilon: Option<f64>,
    /// Mean of the metric over the grid point's repetitions (bit-identical to
    /// summary.csv's mean of that grid point).
    pub mean: f64,
    /// Sample standard deviation over repetitions (n − 1).
    pub std: f64,
    /// Number of repetitions.
    pub reps: usize,
    /// The grid point, `name=value;…`.
    pub params: String,
}

/// One panel: a method (at one ε when ε is not an axis) over the x × y grid.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPanel {
    /// Panel title: the method label, with `, ε = …` when the panel is at one ε.
    pub label: String,
    /// Method label.
    pub method: String,
    /// The panel's ε when ε is not an axis and the method is private.
    pub epsilon: Option<f64>,
    /// The cells that have results (a missing cell is drawn grey).
    pub cells: Vec<Cell>,
}

/// A heat-map figure for one data set, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    /// Figure name.
    pub figure: String,
    /// Data set name.
    pub dataset: String,
    /// Title line.
    pub title: String,
    /// Second title line: what a cell is.
    pub subtitle: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Colour bar label (the metric).
    pub metric: String,
    /// True when a lower value is better (MSE): the best cell is the lowest.
    pub lower_is_better: bool,
    /// The x values, left to right, as text (`3`, `0.5`, `disjoint`).
    pub x_values: Vec<String>,
    /// The y values, bottom to top, as text.
    pub y_values: Vec<String>,
    /// The panels, in the order of the figure's methods (then ε).
    pub panels: Vec<HeatPanel>,
}

impl HeatMap {
    /// The tidy CSV of the cells (header [`HEATMAP_CSV_HEADER`]), panel by panel, cells by
    /// row then column; `epsilon` is empty for a non-private method.
    pub fn to_csv(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        for p in &self.panels {
            for c in &p.cells {
                let eps = c.epsilon.map(epsilon_text).unwrap_or_default();
                w.write_record([
                    self.figure.as_str(),
                    self.dataset.as_str(),
                    p.label.as_str(),
                    self.x_values[c.xi].as_str(),
                    self.y_values[c.yi].as_str(),
                    p.method.as_str(),
                    eps.as_str(),
                    &c.mean.to_string(),
                    &c.std.to_string(),
                    &c.reps.to_string(),
                    c.params.as_str(),
                ])
                .expect("writing to memory");
            }
        }
        let body = String::from_utf8(w.into_inner().expect("writing to memory")).expect("utf-8");
        format!("{HEATMAP_CSV_HEADER}\n{body}")
    }
}

/// The values of parameter `p` over the figure's methods: in grid order, or sorted by
/// number when every value is a number.
fn axis_values(fig: &FigureSpec, ctx: &FigureContext, p: &str) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for m in &fig.methods {
        for (name, vs) in ctx.method(m).map(|i| i.params.as_slice()).unwrap_or(&[]) {
            if name == p {
                for v in vs {
                    if !values.contains(v) {
                        values.push(v.clone());
                    }
                }
            }
        }
    }
    let numbers: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok()).collect();
    if let Some(numbers) = numbers {
        let mut pairs: Vec<(f64, String)> = numbers.into_iter().zip(values).collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        values = pairs.into_iter().map(|(_, v)| v).collect();
    }
    values
}

/// Builds the heat maps (one per data set) of a heat-map figure from runs.csv rows. The
/// figure is assumed valid ([`FigureSpec::validate`]) and to have `y.parameter`.
pub fn build_heat_maps(fig: &FigureSpec, runs: &[RunRow], ctx: &FigureContext) -> Vec<HeatMap> {
    build_indexed(fig, &RunIndex::new(runs), ctx)
}

pub(super) fn build_indexed(
    fig: &FigureSpec,
    index: &RunIndex,
    ctx: &FigureContext,
) -> Vec<HeatMap> {
    let Some(y) = fig.y.parameter.as_deref() else {
        return Vec::new();
    };
    let mut epsilons = fig.epsilons.clone().unwrap_or_else(|| ctx.epsilons.clone());
    epsilons.sort_by(f64::total_cmp);
    let y_values = axis_values(fig, ctx, y);
    let (x_values, x_name) = match &fig.x {
        XAxis::Parameter(p) => (axis_values(fig, ctx, p), Some(p.as_str())),
        _ => (epsilons.iter().map(|&e| epsilon_text(e)).collect(), None),
    };
    let datasets = fig.datasets.clone().unwrap_or_else(|| ctx.datasets.clone());
    let private = |m: &str| ctx.method(m).map(|i| i.private).unwrap_or(true);
    let mut maps = Vec::new();
    for d in &datasets {
        let mut panels = Vec::new();
        for m in &fig.methods {
            // (panel ε, ε of each column): ε on x gives one panel over the columns' ε.
            let slots: Vec<(Option<f64>, Vec<Option<f64>>)> = match x_name {
                None => vec![(None, epsilons.iter().map(|&e| Some(e)).collect())],
                Some(_) if private(m) => epsilons
                    .iter()
                    .map(|&e| (Some(e), vec![Some(e); x_values.len()]))
                    .collect(),
                Some(_) => vec![(None, vec![None; x_values.len()])],
            };
            for (panel_eps, column_eps) in slots {
                let mut cells = Vec::new();
                for (xi, &e) in column_eps.iter().enumerate() {
                    let Some(grid) = index.grid(d, m, e) else {
                        continue;
                    };
                    let rules: Vec<&super::Restriction> =
                        fig.restrict.iter().filter(|r| r.applies(m, e, d)).collect();
                    for (yi, yv) in y_values.iter().enumerate() {
                        let mut best: Option<(&String, &BTreeMap<usize, f64>, f64)> = None;
                        for (params, reps) in grid {
                            if param_value(params, y) != Some(yv.as_str())
                                || x_name.is_some_and(|p| {
                                    param_value(params, p) != Some(x_values[xi].as_str())
                                })
                                || !rules.iter().all(|r| r.admits(params))
                            {
                                continue;
                            }
                            let mean = mean_of(reps);
                            if best.as_ref().is_none_or(|(_, cur, cm)| {
                                better(reps, mean, cur, *cm, ctx.lower_is_better)
                            }) {
                                best = Some((params, reps, mean));
                            }
                        }
                        if let Some((params, reps, _)) = best {
                            // In repetition order, as summary.csv computes it.
                            let v: Vec<f64> = reps.values().cloned().collect();
                            let s = summarize(&v);
                            cells.push(Cell {
                                xi,
                                yi,
                                epsilon: e,
                                mean: s.mean,
                                std: s.std,
                                reps: s.n,
                                params: params.clone(),
                            });
                        }
                    }
                }
                cells.sort_by_key(|c| (c.yi, c.xi));
                let label = match panel_eps {
                    Some(e) => format!("{m}, ε = {}", epsilon_text(e)),
                    None => m.clone(),
                };
                panels.push(HeatPanel {
                    label,
                    method: m.clone(),
                    epsilon: panel_eps,
                    cells,
                });
            }
        }
        let metric = index
            .metric
            .get(d)
            .map(|m| metric_label(m))
            .unwrap_or_else(|| "metric".into());
        let reps = panels
            .iter()
            .flat_map(|p| p.cells.iter().map(|c| c.reps))
            .max()
            .unwrap_or(0);
        let title = if fig.title.is_empty() {
            format!("{} — {d}", fig.name)
        } else {
            format!("{} — {d}", fig.title)
        };
        let x_name_text = x_name.unwrap_or("ε");
        let x_label = match x_name {
            Some(p) => p.to_string(),
            None => "ε (privacy budget)".to_string(),
        };
        let restricted = if fig.restrict.is_empty() {
            ""
        } else {
            " within the figure's `restrict`"
        };
        maps.push(HeatMap {
            figure: fig.name.clone(),
            dataset: d.clone(),
            title,
            subtitle: format!(
                "Colour and number: mean test {metric} over {reps} repetition{} at the cell's {x_name_text} and {y}; other grid parameters: the best mean (oracle){restricted}; outlined: the panel's best cell; each panel has its own colour scale",
                if reps == 1 { "" } else { "s" }
            ),
            x_label: fig.x_label.clone().unwrap_or(x_label),
            y_label: fig.y.label.clone().unwrap_or_else(|| y.to_string()),
            metric,
            lower_is_better: ctx.lower_is_better,
            x_values: x_values.clone(),
            y_values: y_values.clone(),
            panels,
        });
    }
    maps
}

/// Writes one heat map as `<stem>.svg`, `<stem>.png` and `<stem>.csv` into `dir`; returns
/// the three paths.
///
/// # Errors
/// A drawing or I/O error naming the file.
pub fn write_heat_map(map: &HeatMap, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, FigureError> {
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    let csv = dir.join(format!("{stem}.csv"));
    let size = image_size(map.panels.len());
    write_svg_png(map, &svg, &png, size)?;
    std::fs::write(&csv, map.to_csv()).map_err(|e| FigureError::Io {
        path: csv.clone(),
        message: e.to_string(),
    })?;
    Ok(vec![svg, png, csv])
}

/// Pixel size of one panel (plot, tick labels, colour bar).
const PANEL: (u32, u32) = (520, 470);
/// Height of the title block.
const HEADER: u32 = 96;
/// Panels per row.
const COLUMNS: usize = 2;

fn image_size(panels: usize) -> (u32, u32) {
    let cols = panels.clamp(1, COLUMNS);
    let rows = panels.max(1).div_ceil(COLUMNS);
    (PANEL.0 * cols as u32, HEADER + PANEL.1 * rows as u32)
}

/// A value as text with three significant digits (`7.12`, `12.3`, `0.0712`).
fn annotation(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.decimals$}")
}

impl Drawable for HeatMap {
    fn name(&self) -> &str {
        &self.figure
    }
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        draw(self, root)
    }
}

fn draw<DB: DrawingBackend>(map: &HeatMap, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let areas = titled_grid(
        root,
        (&map.title, &map.subtitle),
        HEADER,
        (map.panels.len(), COLUMNS),
    )?;
    for (panel, area) in map.panels.iter().zip(areas.iter()) {
        draw_panel(map, panel, area).map_err(err)?;
    }
    Ok(())
}

/// Draws one panel in its area: title, cells with their means, tick labels, axis labels
/// and a colour bar.
fn draw_panel<DB: DrawingBackend>(
    map: &HeatMap,
    panel: &HeatPanel,
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let grey = RGBColor(0x55, 0x55, 0x55);
    let centre = Pos::new(HPos::Center, VPos::Center);
    area.draw(&Text::new(
        panel.label.clone(),
        (w / 2, 8),
        TextStyle::from((FONT, 17).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    // Plot rectangle: room for the y labels on the left, the x labels below and the
    // colour bar on the right.
    let (left, right, top, bottom) = (92, w - 112, 40, h - 72);
    let nx = map.x_values.len().max(1) as i32;
    let ny = map.y_values.len().max(1) as i32;
    let cw = (right - left) / nx;
    let ch = (bottom - top) / ny;
    let (right, top) = (left + cw * nx, bottom - ch * ny);
    let means: Vec<f64> = panel
        .cells
        .iter()
        .map(|c| c.mean)
        .filter(|v| v.is_finite())
        .collect();
    let lo = means.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = means.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let colour = |v: f64| -> RGBColor {
        if !lo.is_finite() || hi <= lo {
            ViridisRGB::get_color(0.5f64)
        } else {
            ViridisRGB::get_color_normalized(v, lo, hi)
        }
    };
    let cell_rect = |xi: usize, yi: usize| {
        let x0 = left + cw * xi as i32;
        let y1 = bottom - ch * yi as i32;
        [(x0, y1 - ch), (x0 + cw, y1)]
    };
    // Missing cells grey, then the cells with results.
    area.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        RGBColor(0xE4, 0xE4, 0xE4).filled(),
    ))?;
    let best = panel
        .cells
        .iter()
        .filter(|c| c.mean.is_finite())
        .min_by(|a, b| {
            if map.lower_is_better {
                a.mean.total_cmp(&b.mean)
            } else {
                b.mean.total_cmp(&a.mean)
            }
        });
    let font = if cw < 70 { 11 } else { 14 };
    for c in &panel.cells {
        let fill = colour(c.mean);
        let rect = cell_rect(c.xi, c.yi);
        area.draw(&Rectangle::new(rect, fill.filled()))?;
        // Dark text on the light end of viridis, white on the dark end.
        let luma =
            0.299 * f64::from(fill.0) + 0.587 * f64::from(fill.1) + 0.114 * f64::from(fill.2);
        let text = if luma > 140.0 { BLACK } else { WHITE };
        area.draw(&Text::new(
            annotation(c.mean),
            ((rect[0].0 + rect[1].0) / 2, (rect[0].1 + rect[1].1) / 2),
            TextStyle::from((FONT, font).into_font())
                .color(&text)
                .pos(centre),
        ))?;
    }
    if let Some(b) = best {
        let [(x0, y0), (x1, y1)] = cell_rect(b.xi, b.yi);
        area.draw(&Rectangle::new(
            [(x0 + 1, y0 + 1), (x1 - 2, y1 - 2)],
            RGBColor(0xE1, 0x57, 0x59).stroke_width(3),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        grey.stroke_width(1),
    ))?;
    // Tick labels at the cell centres.
    for (i, v) in map.x_values.iter().enumerate() {
        area.draw(&Text::new(
            v.clone(),
            (left + cw * i as i32 + cw / 2, bottom + 8),
            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    for (i, v) in map.y_values.iter().enumerate() {
        area.draw(&Text::new(
            v.clone(),
            (left - 8, bottom - ch * i as i32 - ch / 2),
            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    area.draw(&Text::new(
        map.x_label.clone(),
        ((left + right) / 2, bottom + 36),
        TextStyle::from((FONT, 16).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    area.draw(&Text::new(
        map.y_label.clone(),
        (18, (top + bottom) / 2),
        TextStyle::from((FONT, 16).into_font())
            .transform(FontTransform::Rotate270)
            .pos(centre),
    ))?;
    // Colour bar: 64 bands from the panel's lowest mean (bottom) to its highest.
    let (bx0, bx1) = (right + 18, right + 34);
    let steps = 64;
    for k in 0..steps {
        let y1 = bottom - (bottom - top) * k / steps;
        let y0 = bottom - (bottom - top) * (k + 1) / steps;
        let f = (f64::from(k) + 0.5) / f64::from(steps);
        let c = if lo.is_finite() && hi > lo {
            ViridisRGB::get_color(f)
        } else {
            ViridisRGB::get_color(0.5f64)
        };
        area.draw(&Rectangle::new([(bx0, y0), (bx1, y1)], c.filled()))?;
    }
    area.draw(&Rectangle::new(
        [(bx0, top), (bx1, bottom)],
        grey.stroke_width(1),
    ))?;
    if lo.is_finite() {
        // Nice values inside [lo, hi]; the two ends when fewer than two fall inside.
        let mut ticks: Vec<f64> = nice_ticks(lo, hi, 4)
            .into_iter()
            .filter(|v| *v >= lo && *v <= hi)
            .collect();
        if ticks.len() < 2 {
            ticks = if hi > lo { vec![lo, hi] } else { vec![lo] };
        }
        for v in ticks {
            let f = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
            let y = bottom - ((bottom - top) as f64 * f).round() as i32;
            area.draw(&PathElement::new(vec![(bx1, y), (bx1 + 4, y)], grey))?;
            area.draw(&Text::new(
                format_tick(v),
                (bx1 + 7, y),
                TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
    }
    area.draw(&Text::new(
        format!("test {}", map.metric),
        (w - 6, (top + bottom) / 2),
        TextStyle::from((FONT, 13).into_font())
            .transform(FontTransform::Rotate270)
            .pos(centre),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_keep_three_significant_digits() {
        assert_eq!(annotation(0.007123), "0.00712");
        assert_eq!(annotation(7.123), "7.12");
        assert_eq!(annotation(12.34), "12.3");
        assert_eq!(annotation(0.9512), "0.951");
        assert_eq!(annotation(f64::NAN), "–");
    }

    #[test]
    fn image_grows_by_rows_of_two_panels() {
        assert_eq!(image_size(1), (520, 96 + 470));
        assert_eq!(image_size(2), (1040, 96 + 470));
        assert_eq!(image_size(3), (1040, 96 + 940));
    }
}
