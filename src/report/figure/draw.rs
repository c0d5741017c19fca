//! Drawing a [`Panel`] with plotters to SVG, and the SVG to PNG with resvg: one coordinate
//! type for linear and logarithmic axes with explicit ticks, bands as translucent
//! polygons, lines (with markers when they are sparse), a legend that covers no line and
//! a two-line title.
//!
//! The PNG is the SVG rasterized by resvg with the shipped font, so its text is shaped as
//! the SVG's (plotters' own bitmap text misplaces glyphs: `1. 253`, `DP-ERTcalled`).
//!
//! This module draws a line figure's panel (chart, bands, lines, colours); `axis` holds
//! the axes and their ticks, `layout` the pixel geometry of what was drawn, `legend` the
//! legend's placement and drawing, `title` the titles and wrapped subtitles, `output` the
//! font and the SVG and PNG files.

mod axis;
mod layout;
mod legend;
mod output;
mod title;

use axis::{axes, Axis};
pub(super) use axis::{format_tick, nice_ticks};
pub use layout::{PanelLayout, PixelRect};
use legend::{
    corner_box, draw_entry, draw_marker, draw_side_legend, legend_entries, legend_style, BelowGrid,
    LEGEND_CLEARANCE, LEGEND_PAD, LEGEND_ROW, RIGHT_LEGEND_WIDTH,
};
use output::svg_text;
pub(super) use output::{png_bytes_from_svg, write_png_from_svg, write_svg_png, Drawable, FONT};
pub(super) use title::titled_grid;
use title::wrap;

use super::{LegendPosition, Panel, Source};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Image size in pixels (PNG) or user units (SVG).
const SIZE: (u32, u32) = (960, 620);

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

/// Draws the panel as SVG text; returns it with where the plot, the legend and the lines'
/// points ended up.
pub(super) fn panel_svg(
    panel: &Panel,
    legend: LegendPosition,
) -> Result<(String, PanelLayout), String> {
    svg_text(SIZE, |root| draw(panel, root, legend))
}

/// Lines with at most this many points get a marker at each point; denser lines (fitted
/// curves on a grid, long sweeps) are drawn as plain lines, which markers would clutter.
pub const MARKER_MAX_POINTS: usize = 20;

/// Whether `line` is drawn with markers (and its legend sample shows one).
pub fn has_markers(line: &super::Line) -> bool {
    line.points.len() <= MARKER_MAX_POINTS
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
