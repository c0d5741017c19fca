//! Drawing a [`Panel`] with plotters to SVG and PNG: one coordinate type for linear and
//! logarithmic axes with explicit ticks, bands as translucent polygons, lines with markers,
//! a legend and a two-line title.

use super::{LegendPosition, Panel, Source};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;
use std::ops::Range;
use std::path::Path;
use std::sync::Once;

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
    register_font();
    {
        let root = SVGBackend::new(svg, size).into_drawing_area();
        fig.draw_on(&root)
            .and_then(|_| root.present().map_err(|e| e.to_string()))
            .map_err(draw_err(svg))?;
    }
    let root = BitMapBackend::new(png, size).into_drawing_area();
    fig.draw_on(&root)
        .and_then(|_| root.present().map_err(|e| e.to_string()))
        .map_err(draw_err(png))
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

/// Writes the panel as SVG.
pub(super) fn svg(panel: &Panel, path: &Path, legend: LegendPosition) -> Result<(), String> {
    register_font();
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    draw(panel, &root, legend)?;
    root.present().map_err(|e| e.to_string())
}

/// Writes the panel as PNG.
pub(super) fn png(panel: &Panel, path: &Path, legend: LegendPosition) -> Result<(), String> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    draw(panel, &root, legend)?;
    root.present().map_err(|e| e.to_string())
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

/// Draws line `$i`'s markers at `$pts` and its legend entry (line and marker), with a
/// marker shape per line: circle, triangle, square, diamond. (A macro, not a function
/// returning a boxed element: plotters' boxed elements need a 'static backend.)
macro_rules! markers_and_legend {
    ($chart:expr, $anno_series:expr, $i:expr, $pts:expr, $color:expr, $label:expr, $err:expr) => {{
        let color: RGBColor = $color;
        let style = color.filled();
        macro_rules! shape {
            ($make:expr) => {{
                $chart
                    .draw_series($anno_series)
                    .map_err($err)?
                    .label($label)
                    .legend(move |(x, y)| {
                        EmptyElement::at((x, y))
                            + PathElement::new(vec![(-12, 0), (12, 0)], color.stroke_width(2))
                            + $make(style)
                    });
                $chart
                    .draw_series($pts.into_iter().map(|p| EmptyElement::at(p) + $make(style)))
                    .map_err($err)?;
            }};
        }
        match $i % 4 {
            0 => shape!(|s| Circle::new((0, 0), 4, s)),
            1 => shape!(|s| TriangleMarker::new((0, 0), 5, s)),
            2 => shape!(|s| Rectangle::new([(-4, -4), (4, 4)], s)),
            _ => shape!(|s| Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], s)),
        }
    }};
}

fn draw<'b, DB: DrawingBackend + 'b>(
    panel: &Panel,
    root: &DrawingArea<DB, Shift>,
    legend: LegendPosition,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
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

    // A legend on the right takes a column of the body; the chart the rest.
    let (body, legend_area) = if legend == LegendPosition::Right {
        let (chart_area, side) = body.split_horizontally(w.saturating_sub(RIGHT_LEGEND_WIDTH));
        (chart_area, Some(side))
    } else {
        (body, None)
    };
    let (x_axis, y_axis, log_fallback) = axes(panel);
    let categories = panel.x_categories.clone();
    let y_desc = if log_fallback {
        format!("{} (linear: a value is ≤ 0)", panel.y_label)
    } else {
        panel.y_label.clone()
    };
    let mut chart = ChartBuilder::on(&body)
        .margin_left(12)
        .margin_right(28)
        .margin_top(8)
        .margin_bottom(12)
        .x_label_area_size(52)
        .y_label_area_size(78)
        .build_cartesian_2d(x_axis, y_axis)
        .map_err(err)?;
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
    // Bands first, so every line is drawn over every band.
    for (i, line) in panel.lines.iter().enumerate() {
        let color = PALETTE[slots[i] % PALETTE.len()];
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
    for (i, line) in panel.lines.iter().enumerate() {
        if line.points.is_empty() {
            continue;
        }
        let color = PALETTE[slots[i] % PALETTE.len()];
        let pts: Vec<(f64, f64)> = line.points.iter().map(|p| (p.x, p.mean)).collect();
        if line.source == Source::Paper {
            // Dashed, with small crosses at the digitized points.
            let style = color.stroke_width(2);
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    pts.clone(),
                    7,
                    5,
                    style,
                )))
                .map_err(err)?
                .label(line.label.clone())
                .legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x - 12, y), (x + 12, y)], 5, 3, style)
                });
            chart
                .draw_series(pts.iter().map(|&p| Cross::new(p, 3, color.stroke_width(1))))
                .map_err(err)?;
            continue;
        }
        let path = PathElement::new(pts.clone(), color.stroke_width(2));
        markers_and_legend!(
            chart,
            std::iter::once(path),
            i,
            pts,
            color,
            line.label.clone(),
            err
        );
    }
    if let Some(side) = legend_area {
        return draw_side_legend(panel, &side, &slots).map_err(err);
    }
    let position = match legend {
        LegendPosition::UpperRight => SeriesLabelPosition::UpperRight,
        LegendPosition::UpperLeft => SeriesLabelPosition::UpperLeft,
        LegendPosition::LowerRight => SeriesLabelPosition::LowerRight,
        LegendPosition::LowerLeft => SeriesLabelPosition::LowerLeft,
        LegendPosition::UpperMiddle => SeriesLabelPosition::UpperMiddle,
        LegendPosition::Right => unreachable!("drawn beside the chart above"),
    };
    chart
        .configure_series_labels()
        .position(position)
        .margin(12)
        .legend_area_size(34)
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(0xAA, 0xAA, 0xAA))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Width in pixels of the column a `right` legend takes.
const RIGHT_LEGEND_WIDTH: u32 = 290;

/// Draws the legend of `panel` in its own column `area`: one row per line with a line
/// sample (solid with the line's marker for ours, dashed with a cross for the paper's) and
/// the label, shrinking the rows when there are many.
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
        let style = color.stroke_width(2);
        if line.source == Source::Paper {
            area.draw(&DashedPathElement::new(vec![(6, y), (38, y)], 5, 3, style))?;
            area.draw(&Cross::new((22, y), 3, color.stroke_width(1)))?;
        } else {
            area.draw(&PathElement::new(vec![(6, y), (38, y)], style))?;
            let filled = color.filled();
            match i % 4 {
                0 => area.draw(&Circle::new((22, y), 4, filled))?,
                1 => area.draw(&TriangleMarker::new((22, y), 5, filled))?,
                2 => area.draw(&Rectangle::new([(18, y - 4), (26, y + 4)], filled))?,
                _ => area.draw(&Polygon::new(
                    vec![(22, y - 5), (27, y), (22, y + 5), (17, y)],
                    filled,
                ))?,
            }
        }
        // About 7.5 pixels a character at 14 px: long labels get a smaller font.
        let size = if line.label.chars().count() > 31 {
            font.min(12)
        } else {
            font
        };
        area.draw(&Text::new(
            line.label.clone(),
            (46, y),
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
