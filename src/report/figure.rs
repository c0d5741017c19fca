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

use crate::csv_table::CsvError;
use crate::run_row::RunRow;
pub use crate::spec::figures::{
    validate_figures, FigureContext, FigureSpec, LegendPosition, Lines, MethodInfo, Overlay,
    PaperPoint, Restriction, Series, Shift, SizePart, XAxis, YAxis,
};
use std::path::{Path, PathBuf};

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
    /// A results file that does not read as the CSV it should be (file, line, column).
    #[error(transparent)]
    Table(#[from] CsvError),
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

impl From<crate::spec::FieldError> for FigureError {
    /// An invalid field of the `figures:` section, as [`FigureError::Invalid`].
    fn from(e: crate::spec::FieldError) -> FigureError {
        FigureError::Invalid {
            field: e.field,
            message: e.message,
        }
    }
}

impl From<crate::spec::figures::OverlayError> for FigureError {
    /// An unreadable paper-overlay file, as [`FigureError::Io`] (same message).
    fn from(e: crate::spec::figures::OverlayError) -> FigureError {
        FigureError::Io {
            path: e.path,
            message: e.message,
        }
    }
}

pub use super::selected::SelectedRow;

/// Reads `selected.csv` ([`super::selected::read_selected`]).
///
/// # Errors
/// [`FigureError::Table`] naming the file, line and column of what does not read.
pub fn read_selected(path: &Path) -> Result<Vec<SelectedRow>, FigureError> {
    Ok(super::selected::read_selected(path)?)
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
