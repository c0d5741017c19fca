//! The axes of a line figure: linear or logarithmic coordinates over the data with
//! explicit ticks, and the ticks' values and labels.

use super::super::Panel;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// A linear or logarithmic axis over [lo, hi] with explicit tick values.
#[derive(Debug, Clone)]
pub(super) struct Axis {
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
pub(in crate::report::figure) fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
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
pub(in crate::report::figure) fn format_tick(v: f64) -> String {
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

pub(super) fn axes(panel: &Panel) -> (Axis, Axis, bool) {
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
}
