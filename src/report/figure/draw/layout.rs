//! Where a panel's parts were drawn, in pixels: rectangles and the tests of whether a
//! legend box meets a line or a band.

use super::super::LegendPosition;

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
    /// Whether each line was drawn with markers ([`has_markers`](super::has_markers)).
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
