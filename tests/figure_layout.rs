//! Figures a reader can read: the legend covers no line (computed from the layout the
//! drawing used), dense lines carry no markers, and the PNG's text is set with proper
//! spacing (no `1. 253`, no `DP-ERTcalled`).

use dp_repro::report::figure::{
    has_markers, panel_svg, svg_to_png, PanelLayout, PixelRect, MARKER_MAX_POINTS,
};
use dp_repro::report::{write_panel, LegendPosition, Line, Panel, Point};
use resvg::tiny_skia::Pixmap;

const POSITIONS: [LegendPosition; 7] = [
    LegendPosition::UpperRight,
    LegendPosition::UpperLeft,
    LegendPosition::LowerRight,
    LegendPosition::LowerLeft,
    LegendPosition::UpperMiddle,
    LegendPosition::Right,
    LegendPosition::Below,
];

fn point(x: f64, y: f64) -> Point {
    Point {
        x,
        x_text: x.to_string(),
        mean: y,
        lo: None,
        hi: None,
        epsilon: None,
        reps: 1,
        params: String::new(),
        dataset: None,
    }
}

fn line(label: &str, points: Vec<Point>) -> Line {
    Line {
        label: label.into(),
        method: label.into(),
        points,
        ..Line::default()
    }
}

fn panel(title: &str, lines: Vec<Line>) -> Panel {
    Panel {
        figure: "f".into(),
        dataset: "d".into(),
        title: title.into(),
        subtitle: String::new(),
        x_label: "x".into(),
        y_label: "y".into(),
        log_y: false,
        log_x: false,
        x_categories: None,
        lines,
    }
}

/// LPDT Fig. 1's shape: sin(16x) and two step functions on a grid of 101 points of
/// [0, 1], with long legend labels; the curves reach every corner of the plot.
fn fitted_curves() -> Panel {
    let grid: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
    let step = |levels: &[f64]| {
        grid.iter()
            .map(|&x| {
                point(
                    x,
                    levels[((x * levels.len() as f64) as usize).min(levels.len() - 1)],
                )
            })
            .collect()
    };
    panel(
        "fitted curves",
        vec![
            line(
                "true f(x) = sin(16x)",
                grid.iter().map(|&x| point(x, (16.0 * x).sin())).collect(),
            ),
            line(
                "(a) no public data, n = 8000 (test MSE 1.115)",
                step(&[
                    2.5, 0.0, 1.1, -0.5, -0.4, -0.8, 0.5, 0.8, 0.7, 0.0, -0.9, -0.6, -0.2, 0.3,
                    -0.2, 0.0,
                ]),
            ),
            line(
                "(b) 500 public + 7000 private (test MSE 1.071)",
                step(&[
                    -0.1, -0.1, -0.1, -0.8, 0.4, 1.2, 0.8, 0.0, -0.9, -1.1, 0.45, 0.45, 0.45,
                ]),
            ),
        ],
    )
}

/// Four short lines of 8 points in the lower half of the plot: the upper corners are free.
fn sweep() -> Panel {
    let xs = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0];
    let lines = (0..4)
        .map(|k| {
            let pts = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| point(x, 0.5 + 0.02 * (i + k) as f64))
                .collect();
            line(&format!("method {k}"), pts)
        })
        // One point high up on the left: the upper-left corner is taken.
        .chain(std::iter::once(line("ceiling", vec![point(0.1, 1.0)])))
        .collect();
    let mut p = panel("sweep", lines);
    p.log_x = true;
    p
}

fn layout(panel: &Panel, legend: LegendPosition) -> (String, PanelLayout) {
    panel_svg(panel, legend).unwrap()
}

#[test]
fn the_legend_covers_no_line_wherever_it_is_asked_for() {
    for p in [fitted_curves(), sweep()] {
        for legend in POSITIONS {
            let (_, l) = layout(&p, legend);
            let r = l.legend.expect("a legend");
            assert!(
                l.lines_under_legend(2).is_empty(),
                "{}: a legend asked {legend:?}, drawn {:?} at {r:?}, covers lines {:?}",
                p.title,
                l.legend_position,
                l.lines_under_legend(2)
            );
            if matches!(
                l.legend_position,
                LegendPosition::Right | LegendPosition::Below
            ) {
                assert!(
                    !r.overlaps(&l.plot),
                    "{legend:?}: {r:?} inside the plot {:?}",
                    l.plot
                );
            } else {
                assert!(
                    l.plot.grown(1).overlaps(&r)
                        && r.left >= l.plot.left
                        && r.right <= l.plot.right
                );
            }
            // The whole legend is in the image.
            assert!(
                r.left >= 0 && r.top >= 0 && r.right < 960 && r.bottom < 620,
                "{r:?}"
            );
        }
    }
}

#[test]
fn curves_that_fill_the_plot_push_a_corner_legend_below_it() {
    let p = fitted_curves();
    // The old place of LPDT Fig. 1's legend covered curve (a).
    let (_, l) = layout(&p, LegendPosition::LowerLeft);
    assert_eq!(l.legend_position, LegendPosition::Below);
    let r = l.legend.unwrap();
    assert!(r.top > l.plot.bottom, "{r:?} below {:?}", l.plot);
    // A free corner keeps the legend inside the plot.
    let (_, l) = layout(&sweep(), LegendPosition::UpperRight);
    assert_eq!(l.legend_position, LegendPosition::UpperRight);
    let (_, l) = layout(&sweep(), LegendPosition::UpperLeft);
    assert_eq!(
        l.legend_position,
        LegendPosition::Below,
        "the upper-left point is under it"
    );
}

#[test]
fn a_band_that_fills_a_corner_keeps_the_legend_out_of_it() {
    // A flat line low in the plot with a band from the bottom to the top: the upper-right
    // box would sit on the band.
    let xs = [1.0, 2.0, 4.0, 8.0];
    let pts = xs
        .iter()
        .map(|&x| Point {
            lo: Some(0.0),
            hi: Some(1.0),
            ..point(x, 0.1)
        })
        .collect();
    let p = panel("band", vec![line("wide band", pts)]);
    let (_, l) = layout(&p, LegendPosition::UpperRight);
    assert_eq!(l.legend_position, LegendPosition::Below);
    assert!(l.lines_under_legend(0).is_empty());
    // A box inside a band's polygon meets the band though it meets neither edge.
    let lower = vec![(0, 500), (900, 500)];
    let upper = vec![(0, 10), (900, 10)];
    let inside = PixelRect {
        left: 700,
        top: 40,
        right: 880,
        bottom: 90,
    };
    assert!(!inside.meets_polyline(&lower) && !inside.meets_polyline(&upper));
    assert!(inside.meets_band(&[lower.clone(), upper.clone()]));
    let outside = PixelRect {
        top: 520,
        bottom: 560,
        ..inside
    };
    assert!(!outside.meets_band(&[lower, upper]));
}

#[test]
fn dense_lines_have_no_markers_sparse_ones_do() {
    let p = fitted_curves();
    assert!(p.lines.iter().all(|l| l.points.len() > MARKER_MAX_POINTS));
    let (svg, l) = layout(&p, LegendPosition::Below);
    assert_eq!(l.markers, vec![false; 3]);
    // Markers are the only circles, triangles and squares the line figures draw.
    assert_eq!(svg.matches("<circle").count(), 0, "markers on a dense line");
    let (svg, l) = layout(&sweep(), LegendPosition::UpperRight);
    assert_eq!(l.markers, vec![true; 5]);
    assert!(sweep().lines.iter().all(has_markers));
    // Line 0 and the ceiling (line 4) are circles: 8 + 1 points and their two legend samples.
    assert_eq!(svg.matches("<circle").count(), 8 + 1 + 2);
}

/// Columns of `png` that hold ink (a dark pixel) in rows `rows`.
fn ink_columns(png: &Pixmap, rows: std::ops::Range<u32>) -> Vec<bool> {
    (0..png.width())
        .map(|x| {
            rows.clone().any(|y| {
                let c = png.pixel(x, y).unwrap();
                u16::from(c.red()) + u16::from(c.green()) + u16::from(c.blue()) < 3 * 140
            })
        })
        .collect()
}

/// The widths of the blank runs between the first and the last inked column.
fn gaps(ink: &[bool]) -> Vec<usize> {
    let first = ink.iter().position(|&i| i).expect("some ink");
    let last = ink.iter().rposition(|&i| i).unwrap();
    let mut out = Vec::new();
    let mut run = 0;
    for &i in &ink[first..=last] {
        if i {
            if run > 0 {
                out.push(run);
            }
            run = 0;
        } else {
            run += 1;
        }
    }
    out
}

#[test]
fn png_text_has_word_spaces_only_between_words() {
    // The title row of a panel, as `write_panel` writes its PNG: the gaps wider than a
    // letter gap are exactly the word spaces (plotters' bitmap text gave `1. 253` and
    // `DP-ERTcalled`). One title per glitch, so that one cannot hide the other.
    let dir = tempfile::tempdir().unwrap();
    for (k, title) in ["1.253", "DP-ERT called", "(test MSE 1.071)", "N_T = 10"]
        .into_iter()
        .enumerate()
    {
        let p = panel(title, sweep().lines);
        let stem = format!("t{k}");
        write_panel(&p, dir.path(), &stem, LegendPosition::UpperRight).unwrap();
        let bytes = std::fs::read(dir.path().join(format!("{stem}.png"))).unwrap();
        let png = Pixmap::decode_png(&bytes).unwrap();
        assert_eq!((png.width(), png.height()), (960, 620));
        let g = gaps(&ink_columns(&png, 8..36));
        let wide = g.iter().filter(|&&w| w >= 5).count();
        assert_eq!(
            wide,
            title.matches(' ').count(),
            "gaps between inked columns of `{title}`: {g:?}"
        );
        // The PNG is the SVG's rendering.
        let svg = std::fs::read_to_string(dir.path().join(format!("{stem}.svg"))).unwrap();
        assert_eq!(svg_to_png(&svg).unwrap(), bytes);
    }
}
