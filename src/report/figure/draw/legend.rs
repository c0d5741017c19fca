//! The legend of a line figure: its entries, its box in a corner of the plot, below it
//! or in a column on the right, and the line samples and markers it draws.

use super::super::{LegendPosition, Panel, Source};
use super::{has_markers, PixelRect, FONT, PALETTE};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Legend text size, row height and sample width (pixels).
const LEGEND_FONT: u32 = 15;
pub(super) const LEGEND_ROW: i32 = 22;
const SAMPLE: i32 = 30;
/// Padding inside the legend box, the gap between sample and text, the distance of a
/// corner box from the axes, and the margin kept between a corner box and any line.
pub(super) const LEGEND_PAD: i32 = 8;
const SAMPLE_GAP: i32 = 8;
const CORNER_INSET: i32 = 10;
pub(super) const LEGEND_CLEARANCE: i32 = 4;
/// Space between two columns of a legend below the plot.
const BELOW_COLUMN_GAP: i32 = 28;

pub(super) fn legend_style() -> TextStyle<'static> {
    TextStyle::from((FONT, LEGEND_FONT).into_font())
}

/// The legend's entries: the lines with points, each with its label's width in pixels.
pub(super) fn legend_entries<DB: DrawingBackend>(
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
pub(super) fn corner_box(
    plot: PixelRect,
    corner: LegendPosition,
    entries: &[(usize, i32)],
) -> PixelRect {
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
pub(super) struct BelowGrid {
    pub(super) columns: usize,
    rows: usize,
    pub(super) column: i32,
}

impl BelowGrid {
    pub(super) fn new(entries: &[(usize, i32)], width: i32) -> BelowGrid {
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
    pub(super) fn strip_height(&self) -> u32 {
        (LEGEND_ROW * self.rows as i32 + 10) as u32
    }

    /// The legend's box in a strip whose top is `top`, centred in `width`.
    pub(super) fn rect(&self, top: i32, width: i32) -> PixelRect {
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
pub(super) fn draw_marker<DB: DrawingBackend>(
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
    line: &super::super::Line,
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
pub(super) fn draw_entry<DB: DrawingBackend>(
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

/// Width in pixels of the column a `right` legend takes.
pub(super) const RIGHT_LEGEND_WIDTH: u32 = 290;

/// Draws the legend of `panel` in its own column `area`: one row per line with a line
/// sample (solid for ours, dashed for the paper's, with the line's marker or a cross when
/// the line has markers) and the label, shrinking the rows when there are many.
pub(super) fn draw_side_legend<DB: DrawingBackend>(
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
