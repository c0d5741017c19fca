//! Drawing a [`Panel`] with plotters to SVG, and the SVG to PNG with resvg: one coordinate
//! type for linear and logarithmic axes with explicit ticks, bands as translucent
//! polygons, lines (with markers when they are sparse), a legend that covers no line and
//! a two-line title.
//!
//! The PNG is the SVG rasterized by resvg with the shipped font, so its text is shaped as
//! the SVG's (plotters' own bitmap text misplaces glyphs: `1. 253`, `DP-ERTcalled`).

use super::{LegendPosition, Panel, Source};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;
use resvg::{tiny_skia, usvg};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Once, OnceLock};

/// Image size in pixels (PNG) or user units (SVG).
const SIZE: (u32, u32) = (960, 620);
/// The font family name the embedded font is registered under.
pub(super) const FONT: &str = "sans-serif";
/// DejaVu Sans 2.37 (Debian fonts-dejavu-core), licence in assets/fonts/LICENSE-DejaVu.txt.
static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Tableau 10: distinguishable, and readable by most colour-blind readers together with
/// the markers, which also differ per line.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4E, 0x79, 0xA7),
    RGBColor(0xF2, 0x8E, 0x2B),
    RGBColor(0xE1, 0x57, 0x59),
    RGBColor(0x59, 0xA1, 0x4F),
    RGBColor(0xB0, 0x7A, 0xA1),
    RGBColor(0x76, 0xB7, 0xB2),
    RGBColor(0x9C, 0x75, 0x5F),
    RGBColor(0xED, 0xC9, 0x48),
    RGBColor(0xFF, 0x9D, 0xA7),
    RGBColor(0xBA, 0xB0, 0xAC),
];

pub(super) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font (checked by the figure tests).
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// A figure drawn onto any plotters backend (heat maps, leaf-occupancy figures), so one
/// function writes its SVG and PNG ([`write_svg_png`]).
pub(super) trait Drawable {
    /// The figure's name, for error messages.
    fn name(&self) -> &str;
    /// Draws the whole figure onto `root`.
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Writes `fig` as `svg` and `png`, both `size` pixels (user units for SVG).
///
/// # Errors
/// [`super::FigureError::Draw`] naming the figure and the file.
pub(super) fn write_svg_png<F: Drawable>(
    fig: &F,
    svg: &Path,
    png: &Path,
    size: (u32, u32),
) -> Result<(), super::FigureError> {
    let draw_err = |path: &Path| {
        let path = path.to_path_buf();
        move |message: String| super::FigureError::Draw {
            figure: fig.name().to_string(),
            path,
            message,
        }
    };
    let (text, ()) = svg_text(size, |root| fig.draw_on(root)).map_err(draw_err(svg))?;
    std::fs::write(svg, &text)
        .map_err(|e| e.to_string())
        .map_err(draw_err(svg))?;
    write_png_from_svg(&text, png).map_err(draw_err(png))
}

/// Draws with `draw` onto an SVG of `size` user units and returns the SVG text.
pub(super) fn svg_text<T>(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<T, String>,
) -> Result<(String, T), String> {
    register_font();
    let mut text = String::new();
    let out = {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        let out = draw(&root)?;
        root.present().map_err(|e| e.to_string())?;
        out
    };
    Ok((text, out))
}

/// The family name of the shipped font, which the SVGs' `sans-serif` resolves to.
const FONT_FAMILY: &str = "DejaVu Sans";

/// resvg's options: a font database holding only the shipped font (no system fonts, so a
/// PNG is the same on every machine), which serves `sans-serif`.
fn raster_options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(DEJAVU_SANS.to_vec());
        db.set_sans_serif_family(FONT_FAMILY);
        usvg::Options {
            font_family: FONT_FAMILY.to_string(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// Rasterizes SVG text into PNG bytes at the SVG's size (one pixel per user unit) on a
/// white background, its text laid out and shaped by resvg with the shipped font.
///
/// # Errors
/// An unparsable SVG or an empty image, as text.
pub(super) fn png_bytes_from_svg(svg: &str) -> Result<Vec<u8>, String> {
    let tree = usvg::Tree::from_str(svg, raster_options()).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "the SVG has an empty size".to_string())?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// Writes the PNG of SVG text ([`png_bytes_from_svg`]) to `path`.
pub(super) fn write_png_from_svg(svg: &str, path: &Path) -> Result<(), String> {
    let bytes = png_bytes_from_svg(svg)?;
    std::fs::write(path, bytes).map_err(|e| e.to_string())
}

/// Paints `root` white, writes a multi-panel figure's title and up to three wrapped lines
/// of subtitle in its top `header` pixels, and splits the rest into a grid of `panels`
/// areas, `columns` per row (row-major). Shared by heat maps and leaf-occupancy figures.
///
/// # Errors
/// The backend's drawing error, as text.
pub(super) fn titled_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (title, subtitle): (&str, &str),
    header: u32,
    (panels, columns): (usize, usize),
) -> Result<Vec<DrawingArea<DB, Shift>>, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let (top, body) = root.split_vertically(header);
    let pos = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        title.to_string(),
        (w as i32 / 2, 10),
        TextStyle::from((FONT, 20).into_font()).pos(pos),
    ))
    .map_err(err)?;
    let width = (w as usize / 8).max(40);
    for (i, line) in wrap(subtitle, width).iter().take(3).enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 38 + 17 * i as i32),
            TextStyle::from((FONT, 13).into_font())
                .color(&RGBColor(0x44, 0x44, 0x44))
                .pos(pos),
        ))
        .map_err(err)?;
    }
    let rows = panels.max(1).div_ceil(columns);
    let cols = panels.clamp(1, columns);
    Ok(body.split_evenly((rows, cols)))
}

/// Draws the panel as SVG text; returns it with where the plot, the legend and the lines'
/// points ended up.
pub(super) fn panel_svg(
    panel: &Panel,
    legend: LegendPosition,
) -> Result<(String, PanelLayout), String> {
    svg_text(SIZE, |root| draw(panel, root, legend))
}

/// A linear or logarithmic axis over [lo, hi] with explicit tick values.
#[derive(Debug, Clone)]
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl Axis {
    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.t(self.lo), self.t(self.hi));
        let f = (self.t(*v) - a) / (b - a);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Only bold grid lines, with labels, at the ticks.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// About `target` "nice" ticks (1, 2, 2.5 or 5 × 10^k apart) in [lo, hi].
pub(super) fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = hi - lo;
    if span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / target as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let step = mag
        * if norm < 1.5 {
            1.0
        } else if norm < 2.25 {
            2.0
        } else if norm < 3.5 {
            2.5
        } else if norm < 7.5 {
            5.0
        } else {
            10.0
        };
    let mut k = (lo / step).ceil();
    let mut out = Vec::new();
    while k * step <= hi + step * 1e-9 {
        // Rounded to the step's precision, so labels print without float noise.
        let v = k * step;
        let digits = (-step.log10().floor()).max(0.0) as i32 + 1;
        let scale = 10f64.powi(digits);
        out.push((v * scale).round() / scale);
        k += 1.0;
    }
    out
}

/// Ticks of a log axis: 1, 2, 5 × 10^k over a decade or more (powers of ten only when
/// those are too many), nice linear ticks within less than a decade.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi / lo < 10.0 {
        return nice_ticks(lo, hi, 5);
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let mut out = Vec::new();
    for k in a..=b {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(k);
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
    }
    if out.len() > 10 {
        out.retain(|v| (v.log10() - v.log10().round()).abs() < 1e-9);
    }
    out
}

/// Tick label text: at most 4 significant digits, no trailing zeros.
pub(super) fn format_tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.2e}");
    }
    let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Splits text into lines of at most `width` characters at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let cur = lines.last_mut().expect("one line");
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
    }
    lines
}

fn axes(panel: &Panel) -> (Axis, Axis, bool) {
    let xs: Vec<f64> = panel
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.x))
        .collect();
    let x = match &panel.x_categories {
        Some(c) => Axis {
            lo: -0.5,
            hi: c.len() as f64 - 0.5,
            log: false,
            ticks: (0..c.len()).map(|i| i as f64).collect(),
        },
        None => {
            let (a, b) = min_max(&xs);
            let mut distinct = xs.clone();
            distinct.sort_by(f64::total_cmp);
            distinct.dedup();
            if panel.log_x && a > 0.0 {
                let ratio = if b > a { (b / a).powf(0.04) } else { 1.1 };
                let (lo, hi) = (a / ratio, b * ratio);
                Axis {
                    lo,
                    hi,
                    log: true,
                    ticks: if distinct.len() <= 12 {
                        distinct
                    } else {
                        log_ticks(lo, hi)
                    },
                }
            } else {
                let pad = if b > a { (b - a) * 0.04 } else { 0.5 };
                let ticks = if distinct.len() <= 12 {
                    distinct
                } else {
                    nice_ticks(a, b, 8)
                };
                Axis {
                    lo: a - pad,
                    hi: b + pad,
                    log: false,
                    ticks,
                }
            }
        }
    };
    let ys: Vec<f64> = panel
        .lines
        .iter()
        .flat_map(|l| {
            l.points
                .iter()
                .flat_map(|p| [Some(p.mean), p.lo, p.hi].into_iter().flatten())
        })
        .filter(|v| v.is_finite())
        .collect();
    let (a, b) = min_max(&ys);
    let log = panel.log_y && a > 0.0;
    let y = if log {
        let ratio = if b > a { (b / a).powf(0.06) } else { 1.1 };
        let (lo, hi) = (a / ratio, b * ratio);
        Axis {
            lo,
            hi,
            log: true,
            ticks: log_ticks(lo, hi),
        }
    } else {
        let pad = if b > a {
            (b - a) * 0.06
        } else {
            (a.abs() * 0.1).max(1e-9)
        };
        let (lo, hi) = (a - pad, b + pad);
        Axis {
            lo,
            hi,
            log: false,
            ticks: nice_ticks(lo, hi, 6),
        }
    };
    (x, y, panel.log_y && !log)
}

fn min_max(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// Lines with at most this many points get a marker at each point; denser lines (fitted
/// curves on a grid, long sweeps) are drawn as plain lines, which markers would clutter.
pub const MARKER_MAX_POINTS: usize = 20;

/// Whether `line` is drawn with markers (and its legend sample shows one).
pub fn has_markers(line: &super::Line) -> bool {
    line.points.len() <= MARKER_MAX_POINTS
}

/// A rectangle in pixels of the whole image, both edges included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelRect {
    /// Leftmost column.
    pub left: i32,
    /// Top row.
    pub top: i32,
    /// Rightmost column.
    pub right: i32,
    /// Bottom row.
    pub bottom: i32,
}

impl PixelRect {
    /// The rectangle grown by `by` pixels on every side.
    pub fn grown(&self, by: i32) -> PixelRect {
        PixelRect {
            left: self.left - by,
            top: self.top - by,
            right: self.right + by,
            bottom: self.bottom + by,
        }
    }

    /// Whether the point lies in the rectangle.
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        self.left <= x && x <= self.right && self.top <= y && y <= self.bottom
    }

    /// Whether the segment from `a` to `b` meets the rectangle (Liang–Barsky clipping).
    pub fn meets_segment(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        let (x0, y0) = (f64::from(a.0), f64::from(a.1));
        let (dx, dy) = (f64::from(b.0) - x0, f64::from(b.1) - y0);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, x0 - f64::from(self.left)),
            (dx, f64::from(self.right) - x0),
            (-dy, y0 - f64::from(self.top)),
            (dy, f64::from(self.bottom) - y0),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the polyline through `points` (a single point: the point) meets the
    /// rectangle.
    pub fn meets_polyline(&self, points: &[(i32, i32)]) -> bool {
        match points {
            [] => false,
            [p] => self.contains(*p),
            _ => points.windows(2).any(|w| self.meets_segment(w[0], w[1])),
        }
    }

    /// Whether the two rectangles share a pixel.
    pub fn overlaps(&self, other: &PixelRect) -> bool {
        self.left <= other.right
            && other.left <= self.right
            && self.top <= other.bottom
            && other.top <= self.bottom
    }
}

/// Where a panel's parts were drawn, in pixels of the whole image: what the figure tests
/// check (the legend covers no line) and what decides where the legend goes.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelLayout {
    /// The plotting area (inside the axes).
    pub plot: PixelRect,
    /// The legend's box; `None` when no line has points.
    pub legend: Option<PixelRect>,
    /// Where the legend went: the figure's position, or [`LegendPosition::Below`] when a
    /// box in that corner would have covered a line.
    pub legend_position: LegendPosition,
    /// Each line's points (mean, finite values only), in the order of `Panel::lines`.
    pub lines: Vec<Vec<(i32, i32)>>,
    /// Each line's band edges (lower, then upper), empty without a band.
    pub bands: Vec<Vec<Vec<(i32, i32)>>>,
    /// Whether each line was drawn with markers ([`has_markers`]).
    pub markers: Vec<bool>,
}

impl PanelLayout {
    /// The indices of the lines (or their bands) that the legend box meets, with a
    /// margin of `margin` pixels around the box; empty for a legend outside the plot.
    pub fn lines_under_legend(&self, margin: i32) -> Vec<usize> {
        let Some(r) = self.legend.map(|r| r.grown(margin)) else {
            return Vec::new();
        };
        (0..self.lines.len())
            .filter(|&i| r.meets_polyline(&self.lines[i]) || r.meets_band(&self.bands[i]))
            .collect()
    }
}

impl PixelRect {
    /// Whether the rectangle meets a band given by its edges (lower, upper): an edge
    /// crosses it, or it lies inside the band's polygon.
    pub fn meets_band(&self, edges: &[Vec<(i32, i32)>]) -> bool {
        if edges.iter().any(|e| self.meets_polyline(e)) {
            return true;
        }
        let [lower, upper] = edges else {
            return false;
        };
        let polygon: Vec<(i32, i32)> = lower.iter().chain(upper.iter().rev()).copied().collect();
        let centre = (
            f64::from(self.left + self.right) / 2.0,
            f64::from(self.top + self.bottom) / 2.0,
        );
        polygon.len() >= 3 && inside_polygon(centre, &polygon)
    }
}

/// Whether `p` lies inside the polygon (even-odd rule).
fn inside_polygon((x, y): (f64, f64), polygon: &[(i32, i32)]) -> bool {
    let mut inside = false;
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let (xi, yi) = (f64::from(polygon[i].0), f64::from(polygon[i].1));
        let (xj, yj) = (f64::from(polygon[j].0), f64::from(polygon[j].1));
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Legend text size, row height and sample width (pixels).
const LEGEND_FONT: u32 = 15;
const LEGEND_ROW: i32 = 22;
const SAMPLE: i32 = 30;
/// Padding inside the legend box, the gap between sample and text, the distance of a
/// corner box from the axes, and the margin kept between a corner box and any line.
const LEGEND_PAD: i32 = 8;
const SAMPLE_GAP: i32 = 8;
const CORNER_INSET: i32 = 10;
const LEGEND_CLEARANCE: i32 = 4;
/// Space between two columns of a legend below the plot.
const BELOW_COLUMN_GAP: i32 = 28;

fn legend_style() -> TextStyle<'static> {
    TextStyle::from((FONT, LEGEND_FONT).into_font())
}

/// A line figure's chart on a drawing area.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Axis, Axis>>;

/// The chart of a panel on `area`: the margins and label areas every line figure uses.
fn build_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x: &Axis,
    y: &Axis,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(area)
        .margin_left(12)
        .margin_right(28)
        .margin_top(8)
        .margin_bottom(12)
        .x_label_area_size(52)
        .y_label_area_size(78)
        .build_cartesian_2d(x.clone(), y.clone())
}

fn plot_rect<DB: DrawingBackend>(chart: &Chart<DB>) -> PixelRect {
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    PixelRect {
        left: xr.start,
        top: yr.start,
        right: xr.end - 1,
        bottom: yr.end - 1,
    }
}

/// Each line's points and band edges in pixels (finite values only).
type PixelLines = (Vec<Vec<(i32, i32)>>, Vec<Vec<Vec<(i32, i32)>>>);

fn pixel_lines<DB: DrawingBackend>(panel: &Panel, chart: &Chart<DB>) -> PixelLines {
    let path = |l: &super::Line, y: &dyn Fn(&super::Point) -> Option<f64>| -> Vec<(i32, i32)> {
        l.points
            .iter()
            .filter_map(|p| {
                y(p).filter(|v| v.is_finite() && p.x.is_finite())
                    .map(|v| (p.x, v))
            })
            .map(|c| chart.backend_coord(&c))
            .collect()
    };
    let lines = panel
        .lines
        .iter()
        .map(|l| path(l, &|p| Some(p.mean)))
        .collect();
    let bands = panel
        .lines
        .iter()
        .map(|l| {
            [path(l, &|p| p.lo), path(l, &|p| p.hi)]
                .into_iter()
                .filter(|e| !e.is_empty())
                .collect()
        })
        .collect();
    (lines, bands)
}

/// The legend's entries: the lines with points, each with its label's width in pixels.
fn legend_entries<DB: DrawingBackend>(
    panel: &Panel,
    root: &DrawingArea<DB, Shift>,
) -> Result<Vec<(usize, i32)>, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = legend_style();
    let mut out = Vec::new();
    for (i, l) in panel.lines.iter().enumerate() {
        if !l.points.is_empty() {
            let (w, _) = root.estimate_text_size(&l.label, &style)?;
            out.push((i, w as i32));
        }
    }
    Ok(out)
}

/// The box of a legend of `entries` in `corner` of the plotting area `plot`.
fn corner_box(plot: PixelRect, corner: LegendPosition, entries: &[(usize, i32)]) -> PixelRect {
    let text = entries.iter().map(|e| e.1).max().unwrap_or(0);
    let w = 2 * LEGEND_PAD + SAMPLE + SAMPLE_GAP + text;
    let h = 2 * LEGEND_PAD + LEGEND_ROW * entries.len() as i32 - 4;
    let left = match corner {
        LegendPosition::UpperLeft | LegendPosition::LowerLeft => plot.left + CORNER_INSET,
        LegendPosition::UpperMiddle => (plot.left + plot.right - w) / 2,
        _ => plot.right - CORNER_INSET - w,
    };
    let top = match corner {
        LegendPosition::LowerLeft | LegendPosition::LowerRight => plot.bottom - CORNER_INSET - h,
        _ => plot.top + CORNER_INSET,
    };
    PixelRect {
        left,
        top,
        right: left + w,
        bottom: top + h,
    }
}

/// A legend below the plot: entries in rows of `columns` columns `column` pixels wide.
struct BelowGrid {
    columns: usize,
    rows: usize,
    column: i32,
}

impl BelowGrid {
    fn new(entries: &[(usize, i32)], width: i32) -> BelowGrid {
        let text = entries.iter().map(|e| e.1).max().unwrap_or(0);
        let column = SAMPLE + SAMPLE_GAP + text + BELOW_COLUMN_GAP;
        let columns =
            (((width - 24 + BELOW_COLUMN_GAP) / column).max(1) as usize).min(entries.len().max(1));
        BelowGrid {
            columns,
            rows: entries.len().div_ceil(columns),
            column,
        }
    }

    /// Height of the strip the legend takes under the chart.
    fn strip_height(&self) -> u32 {
        (LEGEND_ROW * self.rows as i32 + 10) as u32
    }

    /// The legend's box in a strip whose top is `top`, centred in `width`.
    fn rect(&self, top: i32, width: i32) -> PixelRect {
        let w = self.column * self.columns as i32 - BELOW_COLUMN_GAP;
        let left = (width - w) / 2;
        PixelRect {
            left,
            top: top + 2,
            right: left + w,
            bottom: top + 2 + LEGEND_ROW * self.rows as i32,
        }
    }
}

/// Draws a line's marker (shape by line index: circle, triangle, square, diamond) centred
/// at `(x, y)`.
fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    i: usize,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let filled = color.filled();
    match i % 4 {
        0 => area.draw(&Circle::new((x, y), 4, filled)),
        1 => area.draw(&TriangleMarker::new((x, y), 5, filled)),
        2 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], filled)),
        _ => area.draw(&Polygon::new(
            vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
            filled,
        )),
    }
}

/// Draws line `i`'s legend sample, `SAMPLE` pixels wide from `(x, y)`: solid for ours,
/// dashed for the paper's, with the line's marker (a cross for the paper's) when the line
/// has markers.
fn draw_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    line: &super::Line,
    i: usize,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = color.stroke_width(2);
    let mid = (x + SAMPLE / 2, y);
    if line.source == Source::Paper {
        area.draw(&DashedPathElement::new(
            vec![(x, y), (x + SAMPLE, y)],
            5,
            3,
            style,
        ))?;
        if has_markers(line) {
            area.draw(&Cross::new(mid, 3, color.stroke_width(1)))?;
        }
    } else {
        area.draw(&PathElement::new(vec![(x, y), (x + SAMPLE, y)], style))?;
        if has_markers(line) {
            draw_marker(area, mid, i, color)?;
        }
    }
    Ok(())
}

/// Draws one legend entry (sample and label) whose row is centred at `y`, from `x`.
fn draw_entry<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    panel: &Panel,
    i: usize,
    color: RGBColor,
    style: &TextStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_sample(area, (x, y), &panel.lines[i], i, color)?;
    area.draw(&Text::new(
        panel.lines[i].label.clone(),
        (x + SAMPLE + SAMPLE_GAP, y),
        style.pos(Pos::new(HPos::Left, VPos::Center)),
    ))
}

fn draw<DB: DrawingBackend>(
    panel: &Panel,
    root: &DrawingArea<DB, Shift>,
    legend: LegendPosition,
) -> Result<PanelLayout, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, h) = root.dim_in_pixel();
    let sub = wrap(&panel.subtitle, 118);
    let header = 44 + 18 * sub.len() as u32;
    let (top, body) = root.split_vertically(header);
    let center = |y: i32| (w as i32 / 2, y);
    let pos = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        panel.title.clone(),
        center(12),
        TextStyle::from((FONT, 22).into_font()).pos(pos),
    ))
    .map_err(err)?;
    for (i, line) in sub.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            center(42 + 18 * i as i32),
            TextStyle::from((FONT, 14).into_font())
                .color(&RGBColor(0x44, 0x44, 0x44))
                .pos(pos),
        ))
        .map_err(err)?;
    }

    let (x_axis, y_axis, log_fallback) = axes(panel);
    let entries = legend_entries(panel, root).map_err(err)?;
    // A corner legend that would cover a line (or its band) goes below the plot instead.
    let placed = match legend {
        LegendPosition::Right | LegendPosition::Below => legend,
        corner => {
            let probe = build_chart(&body, &x_axis, &y_axis).map_err(err)?;
            let (lines, bands) = pixel_lines(panel, &probe);
            let r = corner_box(plot_rect(&probe), corner, &entries).grown(LEGEND_CLEARANCE);
            let covers = lines.iter().any(|l| r.meets_polyline(l))
                || bands.iter().any(|edges| r.meets_band(edges));
            if covers {
                LegendPosition::Below
            } else {
                corner
            }
        }
    };
    // A legend on the right takes a column of the body, one below a strip under it; the
    // chart the rest.
    let below = BelowGrid::new(&entries, w as i32);
    let (chart_area, side) = match placed {
        LegendPosition::Right => {
            let (chart_area, side) = body.split_horizontally(w.saturating_sub(RIGHT_LEGEND_WIDTH));
            (chart_area, Some(side))
        }
        LegendPosition::Below if !entries.is_empty() => {
            let (_, body_h) = body.dim_in_pixel();
            let (chart_area, _) =
                body.split_vertically(body_h.saturating_sub(below.strip_height()));
            (chart_area, None)
        }
        _ => (body.clone(), None),
    };
    let categories = panel.x_categories.clone();
    let y_desc = if log_fallback {
        format!("{} (linear: a value is ≤ 0)", panel.y_label)
    } else {
        panel.y_label.clone()
    };
    let mut chart = build_chart(&chart_area, &x_axis, &y_axis).map_err(err)?;
    let x_fmt = move |v: &f64| match &categories {
        Some(c) => c
            .get(v.round().max(0.0) as usize)
            .cloned()
            .unwrap_or_default(),
        None => format_tick(*v),
    };
    let y_fmt = |v: &f64| format_tick(*v);
    chart
        .configure_mesh()
        .x_desc(panel.x_label.clone())
        .y_desc(y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .bold_line_style(RGBColor(0xDD, 0xDD, 0xDD))
        .light_line_style(TRANSPARENT)
        .axis_style(RGBColor(0x55, 0x55, 0x55))
        .draw()
        .map_err(err)?;

    // Colours: our lines in order; a paper curve takes the colour of the line it is
    // drawn beside, else the next free one.
    let slots: Vec<usize> = colour_slots(panel);
    let colour = |i: usize| PALETTE[slots[i] % PALETTE.len()];
    // Bands first, so every line is drawn over every band.
    for (i, line) in panel.lines.iter().enumerate() {
        let color = colour(i);
        let upper: Vec<(f64, f64)> = line
            .points
            .iter()
            .filter_map(|p| p.hi.map(|h| (p.x, h)))
            .collect();
        let lower: Vec<(f64, f64)> = line
            .points
            .iter()
            .filter_map(|p| p.lo.map(|l| (p.x, l)))
            .collect();
        if upper.len() >= 2 && lower.len() == upper.len() {
            let poly: Vec<(f64, f64)> = lower.into_iter().chain(upper.into_iter().rev()).collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    poly,
                    color.mix(0.18).filled(),
                )))
                .map_err(err)?;
        } else if upper.len() == 1 && lower.len() == 1 {
            // A single point: its band as a vertical bar.
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![lower[0], upper[0]],
                    color.mix(0.5).stroke_width(3),
                )))
                .map_err(err)?;
        }
    }
    let (pixels, band_pixels) = pixel_lines(panel, &chart);
    let markers: Vec<bool> = panel.lines.iter().map(has_markers).collect();
    for (i, line) in panel.lines.iter().enumerate() {
        if line.points.is_empty() {
            continue;
        }
        let color = colour(i);
        let pts: Vec<(f64, f64)> = line.points.iter().map(|p| (p.x, p.mean)).collect();
        if line.source == Source::Paper {
            // Dashed, with small crosses at the digitized points when they are few.
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    pts,
                    7,
                    5,
                    color.stroke_width(2),
                )))
                .map_err(err)?;
            if markers[i] {
                for &p in &pixels[i] {
                    root.draw(&Cross::new(p, 3, color.stroke_width(1)))
                        .map_err(err)?;
                }
            }
            continue;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                pts,
                color.stroke_width(2),
            )))
            .map_err(err)?;
        if markers[i] {
            for &p in &pixels[i] {
                draw_marker(root, p, i, color).map_err(err)?;
            }
        }
    }

    let style = legend_style();
    let legend_rect = if entries.is_empty() {
        None
    } else {
        match placed {
            LegendPosition::Right => {
                let side = side.expect("a right legend has its column");
                draw_side_legend(panel, &side, &slots).map_err(err)?;
                let (x, y) = side.get_base_pixel();
                let (sw, sh) = side.dim_in_pixel();
                Some(PixelRect {
                    left: x,
                    top: y,
                    right: x + sw as i32 - 1,
                    bottom: y + sh as i32 - 1,
                })
            }
            LegendPosition::Below => {
                let r = below.rect(h as i32 - below.strip_height() as i32, w as i32);
                for (k, &(i, _)) in entries.iter().enumerate() {
                    let (row, col) = (k / below.columns, k % below.columns);
                    let x = r.left + below.column * col as i32;
                    let y = r.top + LEGEND_ROW * row as i32 + LEGEND_ROW / 2;
                    draw_entry(root, (x, y), panel, i, colour(i), &style).map_err(err)?;
                }
                Some(r)
            }
            corner => {
                let r = corner_box(plot_rect(&chart), corner, &entries);
                root.draw(&Rectangle::new(
                    [(r.left, r.top), (r.right, r.bottom)],
                    WHITE.mix(0.9).filled(),
                ))
                .map_err(err)?;
                root.draw(&Rectangle::new(
                    [(r.left, r.top), (r.right, r.bottom)],
                    RGBColor(0xAA, 0xAA, 0xAA).stroke_width(1),
                ))
                .map_err(err)?;
                for (k, &(i, _)) in entries.iter().enumerate() {
                    let y = r.top + LEGEND_PAD + LEGEND_ROW * k as i32 + LEGEND_ROW / 2 - 2;
                    draw_entry(root, (r.left + LEGEND_PAD, y), panel, i, colour(i), &style)
                        .map_err(err)?;
                }
                Some(r)
            }
        }
    };
    Ok(PanelLayout {
        plot: plot_rect(&chart),
        legend: legend_rect,
        legend_position: placed,
        lines: pixels,
        bands: band_pixels,
        markers,
    })
}

/// Width in pixels of the column a `right` legend takes.
const RIGHT_LEGEND_WIDTH: u32 = 290;

/// Draws the legend of `panel` in its own column `area`: one row per line with a line
/// sample (solid for ours, dashed for the paper's, with the line's marker or a cross when
/// the line has markers) and the label, shrinking the rows when there are many.
fn draw_side_legend<DB: DrawingBackend>(
    panel: &Panel,
    area: &DrawingArea<DB, Shift>,
    slots: &[usize],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let shown: Vec<usize> = (0..panel.lines.len())
        .filter(|&i| !panel.lines[i].points.is_empty())
        .collect();
    let (_, h) = area.dim_in_pixel();
    let row = (h.saturating_sub(40) / (shown.len().max(1) as u32)).clamp(12, 22) as i32;
    let font = if row < 18 { 12 } else { 14 };
    for (k, &i) in shown.iter().enumerate() {
        let line = &panel.lines[i];
        let color = PALETTE[slots[i] % PALETTE.len()];
        let y = 20 + row * k as i32;
        draw_sample(area, (6, y), line, i, color)?;
        // About 7.5 pixels a character at 14 px: long labels get a smaller font.
        let size = if line.label.chars().count() > 31 {
            font.min(12)
        } else {
            font
        };
        area.draw(&Text::new(
            line.label.clone(),
            (6 + SAMPLE + SAMPLE_GAP, y),
            TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// The palette slot of each line of `panel`: our lines take 0, 1, … in order; a paper
/// curve the slot of the line in its `colour_of`, or the next unused slot.
fn colour_slots(panel: &Panel) -> Vec<usize> {
    let mut slots = vec![0; panel.lines.len()];
    let mut next = 0;
    for (i, l) in panel.lines.iter().enumerate() {
        if l.source == Source::Ours {
            slots[i] = next;
            next += 1;
        }
    }
    for (i, l) in panel.lines.iter().enumerate() {
        if l.source == Source::Paper {
            slots[i] = match l.colour_of {
                Some(j) => slots[j],
                None => {
                    next += 1;
                    next - 1
                }
            };
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_nice_and_cover_the_range() {
        assert_eq!(nice_ticks(0.0, 1.0, 5), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(
            nice_ticks(1.03, 1.61, 5),
            vec![1.1, 1.2, 1.3, 1.4, 1.5, 1.6]
        );
        assert_eq!(log_ticks(0.8, 30.0), vec![1.0, 2.0, 5.0, 10.0, 20.0]);
        assert_eq!(format_tick(1.25), "1.25");
        assert_eq!(format_tick(10.0), "10");
        assert_eq!(format_tick(0.5), "0.5");
    }

    #[test]
    fn wrap_breaks_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
    }
}
