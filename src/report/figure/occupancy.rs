//! Leaf-occupancy histograms (`leaf_occupancy:` in a spec; DiPriMe Fig. 3, card
//! docs/methods/diprime.md §7): for each forest, the exact training-row count of every leaf over all its
//! trees, binned into equal bins on [0, `range`·n_train] with tick labels as fractions of
//! n_train. One panel per method, side by side in one file `figures/<name>.svg` / `.png`.
//!
//! Three tidy CSVs beside the images:
//! - `<name>.csv` ([`OCCUPANCY_CSV_HEADER`]), one row per (panel, bin): its bounds in rows
//!   and as fractions of n_train and the number of leaves in it;
//! - `<name>-leaves.csv` ([`LEAVES_CSV_HEADER`]), one row per leaf: tree, leaf, rows;
//! - `<name>-summary.csv` ([`SUMMARY_CSV_HEADER`]), one row per panel: leaves per tree, the
//!   mean, median and coefficient of variation of the leaf sizes, the leaves with no row,
//!   and the leaves beyond the plotted range (left out of the bins, as in the paper's
//!   `matplotlib.hist(range=…)`).

use super::draw::{format_tick, titled_grid, write_svg_png, Drawable, FONT};
use super::FigureError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// Header of `<name>.csv`, one row per panel and bin.
pub const OCCUPANCY_CSV_HEADER: &str =
    "figure,dataset,panel,method,epsilon,params,n_train,bin,lo_rows,hi_rows,lo_fraction,hi_fraction,leaves";
/// Header of `<name>-leaves.csv`, one row per leaf.
pub const LEAVES_CSV_HEADER: &str = "figure,dataset,panel,method,epsilon,tree,leaf,rows,fraction";
/// Header of `<name>-summary.csv`, one row per panel.
pub const SUMMARY_CSV_HEADER: &str = "figure,dataset,panel,method,epsilon,params,n_train,trees,leaves,leaves_per_tree,mean_rows,median_rows,cv_rows,empty_leaves,above_range";

/// One forest's leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyPanel {
    /// Panel title (the method label unless the spec names it).
    pub label: String,
    /// Method label in the spec.
    pub method: String,
    /// ε the method was called with in the run (None: non-private).
    pub epsilon: Option<f64>,
    /// The grid point, `name=value;…`.
    pub params: String,
    /// Exact training rows of every leaf, one vector per tree.
    pub leaves: Vec<Vec<usize>>,
}

/// Summary statistics of a panel's leaf sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeafStats {
    /// Number of trees.
    pub trees: usize,
    /// Number of leaves over all trees.
    pub leaves: usize,
    /// Mean leaf size in rows.
    pub mean: f64,
    /// Median leaf size in rows (mean of the two middle ones for an even count).
    pub median: f64,
    /// Coefficient of variation: population standard deviation over the mean (0 for
    /// perfectly balanced leaves; NaN without leaves).
    pub cv: f64,
    /// Leaves with no training row.
    pub empty: usize,
    /// Leaves beyond the plotted range (more than `range`·n_train rows).
    pub above_range: usize,
}

/// A leaf-occupancy figure: the panels of one data set and repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyFigure {
    /// Figure name (file stem).
    pub figure: String,
    /// Data set name.
    pub dataset: String,
    /// Title.
    pub title: String,
    /// Subtitle (what was refitted).
    pub subtitle: String,
    /// Training rows n_train of the repetition (the unit of the tick labels).
    pub n_train: usize,
    /// Number of equal bins.
    pub bins: usize,
    /// Upper end of the binned range as a fraction of n_train (the paper: 1/4).
    pub range: f64,
    /// One panel per forest.
    pub panels: Vec<OccupancyPanel>,
}

impl OccupancyFigure {
    /// Upper end of the binned range in rows.
    pub fn upper(&self) -> f64 {
        self.range * self.n_train as f64
    }

    /// Leaves per bin of `panel`: `bins` equal bins on [0, upper], each half-open but the
    /// last, closed (numpy's `histogram` rule); leaves beyond the upper end are left out.
    pub fn histogram(&self, panel: &OccupancyPanel) -> Vec<usize> {
        let (b, hi) = (self.bins.max(1), self.upper());
        let mut out = vec![0usize; b];
        for &v in panel.leaves.iter().flatten() {
            let v = v as f64;
            if v > hi || hi <= 0.0 {
                continue;
            }
            let j = ((v / hi * b as f64).floor() as usize).min(b - 1);
            out[j] += 1;
        }
        out
    }

    /// Summary statistics of `panel`'s leaf sizes.
    pub fn stats(&self, panel: &OccupancyPanel) -> LeafStats {
        let mut all: Vec<usize> = panel.leaves.iter().flatten().copied().collect();
        all.sort_unstable();
        let n = all.len();
        let mean = all.iter().sum::<usize>() as f64 / n as f64;
        let var = all.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        let median = match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => all[n / 2] as f64,
            _ => (all[n / 2 - 1] + all[n / 2]) as f64 / 2.0,
        };
        LeafStats {
            trees: panel.leaves.len(),
            leaves: n,
            mean,
            median,
            cv: var.sqrt() / mean,
            empty: all.iter().filter(|&&v| v == 0).count(),
            above_range: all.iter().filter(|&&v| v as f64 > self.upper()).count(),
        }
    }

    /// The columns that name panel `p`'s rows in every CSV file: figure, data set, panel,
    /// method, ε (empty for a non-private method).
    fn panel_columns(&self, p: &OccupancyPanel) -> Vec<String> {
        vec![
            self.figure.clone(),
            self.dataset.clone(),
            p.label.clone(),
            p.method.clone(),
            p.epsilon
                .map(crate::seeds::epsilon_text)
                .unwrap_or_default(),
        ]
    }

    fn csv_rows(&self) -> Vec<Vec<String>> {
        let w = self.upper() / self.bins.max(1) as f64;
        let mut rows = Vec::new();
        for p in &self.panels {
            for (j, count) in self.histogram(p).into_iter().enumerate() {
                let (lo, hi) = (w * j as f64, w * (j + 1) as f64);
                let mut row = self.panel_columns(p);
                row.extend([
                    p.params.clone(),
                    self.n_train.to_string(),
                    (j + 1).to_string(),
                    lo.to_string(),
                    hi.to_string(),
                    (lo / self.n_train as f64).to_string(),
                    (hi / self.n_train as f64).to_string(),
                    count.to_string(),
                ]);
                rows.push(row);
            }
        }
        rows
    }

    fn leaf_rows(&self) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        for p in &self.panels {
            for (t, tree) in p.leaves.iter().enumerate() {
                for (l, &v) in tree.iter().enumerate() {
                    let mut row = self.panel_columns(p);
                    row.extend([
                        (t + 1).to_string(),
                        (l + 1).to_string(),
                        v.to_string(),
                        (v as f64 / self.n_train as f64).to_string(),
                    ]);
                    rows.push(row);
                }
            }
        }
        rows
    }

    fn summary_rows(&self) -> Vec<Vec<String>> {
        self.panels
            .iter()
            .map(|p| {
                let s = self.stats(p);
                let mut row = self.panel_columns(p);
                row.extend([
                    p.params.clone(),
                    self.n_train.to_string(),
                    s.trees.to_string(),
                    s.leaves.to_string(),
                    (s.leaves as f64 / s.trees.max(1) as f64).to_string(),
                    s.mean.to_string(),
                    s.median.to_string(),
                    s.cv.to_string(),
                    s.empty.to_string(),
                    s.above_range.to_string(),
                ]);
                row
            })
            .collect()
    }
}

fn write_csv(path: &Path, header: &str, rows: &[Vec<String>]) -> Result<(), FigureError> {
    let io = |e: String| FigureError::Io {
        path: path.to_path_buf(),
        message: e,
    };
    let mut w = csv::Writer::from_path(path).map_err(|e| io(e.to_string()))?;
    w.write_record(header.split(','))
        .map_err(|e| io(e.to_string()))?;
    for r in rows {
        w.write_record(r).map_err(|e| io(e.to_string()))?;
    }
    w.flush().map_err(|e| io(e.to_string()))
}

/// Writes `<stem>.svg`, `<stem>.png`, `<stem>.csv`, `<stem>-leaves.csv` and
/// `<stem>-summary.csv` into `dir`; returns the paths.
///
/// # Errors
/// A drawing or I/O error naming the file.
pub fn write_occupancy(
    fig: &OccupancyFigure,
    dir: &Path,
    stem: &str,
) -> Result<Vec<PathBuf>, FigureError> {
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    let size = image_size(fig.panels.len());
    write_svg_png(fig, &svg, &png, size)?;
    let bins = dir.join(format!("{stem}.csv"));
    let leaves = dir.join(format!("{stem}-leaves.csv"));
    let summary = dir.join(format!("{stem}-summary.csv"));
    write_csv(&bins, OCCUPANCY_CSV_HEADER, &fig.csv_rows())?;
    write_csv(&leaves, LEAVES_CSV_HEADER, &fig.leaf_rows())?;
    write_csv(&summary, SUMMARY_CSV_HEADER, &fig.summary_rows())?;
    Ok(vec![svg, png, bins, leaves, summary])
}

/// Pixel size of one panel.
const PANEL: (u32, u32) = (520, 400);
/// Height of the title block.
const HEADER: u32 = 96;
/// Panels per row (the paper draws Fig. 3's four histograms in a row; two rows of two
/// keep the tick labels readable).
const COLUMNS: usize = 2;

fn image_size(panels: usize) -> (u32, u32) {
    let cols = panels.clamp(1, COLUMNS);
    let rows = panels.max(1).div_ceil(COLUMNS);
    (PANEL.0 * cols as u32, HEADER + PANEL.1 * rows as u32)
}

impl Drawable for OccupancyFigure {
    fn name(&self) -> &str {
        &self.figure
    }
    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        draw(self, root)
    }
}

fn draw<DB: DrawingBackend>(
    fig: &OccupancyFigure,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let areas = titled_grid(
        root,
        (&fig.title, &fig.subtitle),
        HEADER,
        (fig.panels.len(), COLUMNS),
    )?;
    for (panel, area) in fig.panels.iter().zip(areas.iter()) {
        draw_panel(fig, panel, area)?;
    }
    Ok(())
}

/// One histogram: bars of the leaves per bin, x ticks as fractions of n_train.
fn draw_panel<DB: DrawingBackend>(
    fig: &OccupancyFigure,
    panel: &OccupancyPanel,
    area: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let counts = fig.histogram(panel);
    let s = fig.stats(panel);
    // The x axis is in units of n_train, so the ticks fall on round fractions.
    let hi = fig.range;
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.08;
    let stats = format!(
        "{:.1} leaves/tree · median {} rows · CV {:.2}",
        s.leaves as f64 / s.trees.max(1) as f64,
        format_tick(s.median),
        s.cv
    );
    let mut chart = ChartBuilder::on(area)
        .caption(panel.label.clone(), (FONT, 15))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..hi, 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(6)
        .x_label_formatter(&|v| format_tick(*v))
        .y_label_formatter(&|v| format_tick(*v))
        .x_desc("leaf rows / n_train")
        .y_desc("leaves")
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()
        .map_err(err)?;
    let w = hi / counts.len().max(1) as f64;
    let bar = RGBColor(0x4E, 0x79, 0xA7);
    chart
        .draw_series(counts.iter().enumerate().map(|(j, &c)| {
            let x0 = w * j as f64;
            Rectangle::new([(x0, 0.0), (x0 + w, c as f64)], bar.filled())
        }))
        .map_err(err)?;
    chart
        .draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(j, &c)| {
                    let x0 = w * j as f64;
                    Rectangle::new([(x0, 0.0), (x0 + w, c as f64)], WHITE.stroke_width(1))
                }),
        )
        .map_err(err)?;
    let mut notes = vec![stats];
    if s.above_range > 0 {
        notes.push(format!(
            "{} leaves > {} n_train (not binned)",
            s.above_range,
            format_tick(fig.range)
        ));
    }
    chart
        .draw_series(notes.into_iter().enumerate().map(|(i, t)| {
            Text::new(
                t,
                (hi * 0.98, top * (0.97 - 0.07 * i as f64)),
                TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Right, VPos::Top)),
            )
        }))
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(leaves: Vec<Vec<usize>>) -> OccupancyFigure {
        OccupancyFigure {
            figure: "f".into(),
            dataset: "d".into(),
            title: "t".into(),
            subtitle: String::new(),
            n_train: 400,
            bins: 4,
            range: 0.25,
            panels: vec![OccupancyPanel {
                label: "p".into(),
                method: "m".into(),
                epsilon: Some(2.0),
                params: String::new(),
                leaves,
            }],
        }
    }

    #[test]
    fn bins_follow_numpy_rule_and_drop_leaves_beyond_the_range() {
        // Range [0, 100] in 4 bins of 25 rows: 0 and 24 → bin 1; 25 → bin 2; 100 → the
        // last bin (closed); 101 is left out.
        let f = fig(vec![vec![0, 24, 25], vec![99, 100, 101]]);
        let p = &f.panels[0];
        assert_eq!(f.histogram(p), vec![2, 1, 0, 2]);
        let s = f.stats(p);
        assert_eq!((s.trees, s.leaves, s.empty, s.above_range), (2, 6, 1, 1));
        assert_eq!(s.median, (25.0 + 99.0) / 2.0);
    }

    #[test]
    fn balanced_leaves_have_zero_variation() {
        let f = fig(vec![vec![50; 8]]);
        let s = f.stats(&f.panels[0]);
        assert_eq!((s.mean, s.median, s.cv), (50.0, 50.0, 0.0));
    }
}
