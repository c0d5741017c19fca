//! Fitted-curve figures (`curves:` in a spec; LPDT Fig. 1): for 1-D data sets, the
//! regression function a method fitted in one repetition, drawn on [0,1] beside the true
//! function of the synthetic model.

use super::refit::refit;
use crate::data::{synthetic::lpdt_sine_mean, Dataset, Matrix};
use crate::methods::RepData;
use crate::report::{write_panel, LegendPosition, Line, Panel, Point};
use crate::spec::{DataSource, Experiment};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Draws every curve figure of the spec into `out/figures/` from the selected grid points
/// of `out/selected.csv`. Each line refits its method's selected grid point in the chosen
/// repetition with the run's own streams (partition and noise), so the curve is the very
/// fit whose test metric runs.csv holds, and predicts on `points` equally spaced x in
/// [0,1]. Lines of the LPDT synthetic model come with the true f(x) = sin(16x).
///
/// # Errors
/// A message naming the curve and what is wrong: an unknown data set or method, a data
/// set that is not 1-D, no selected grid point, or a drawing error.
pub fn render_curves(
    exp: &Experiment,
    data: &[Option<Arc<Dataset>>],
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    let curves = &exp.spec.curves;
    if curves.is_empty() {
        return Ok(Vec::new());
    }
    let selected = super::refit::read_selected(&out.join("selected.csv"))?;
    let dir = out.join("figures");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for c in curves {
        let fail = |m: String| format!("curve `{}`: {m}", c.name);
        let grid: Vec<f64> = (0..c.points.max(2))
            .map(|j| j as f64 / (c.points.max(2) - 1) as f64)
            .collect();
        let mut lines = Vec::new();
        let mut synthetic = true;
        for l in &c.lines {
            let plan = exp
                .datasets
                .iter()
                .find(|p| p.name == l.dataset)
                .ok_or_else(|| fail(format!("unknown data set `{}`", l.dataset)))?;
            synthetic &= matches!(plan.source, DataSource::LpdtSine { .. });
            let on_grid = |rep: &RepData| {
                if rep.private.d() != 1 {
                    return Err(format!(
                        "data set `{}` has {} features; curves need 1",
                        plan.name,
                        rep.private.d()
                    ));
                }
                Ok(Dataset::numeric(
                    &plan.name,
                    rep.test.task,
                    Matrix::new(grid.len(), 1, grid.clone()),
                    vec![0.0; grid.len()],
                ))
            };
            let mut r = refit(
                exp,
                data,
                &selected,
                (&l.dataset, &l.method),
                c.epsilon,
                c.repetition,
                Some(&on_grid),
            )
            .map_err(fail)?;
            let (eps, key, mean) = (r.epsilon, r.key.clone(), r.mean);
            let pred = r
                .prepared
                .predict(&r.mechanism, eps, &mut r.rng)
                .map_err(|e| fail(e.to_string()))?;
            let label = l
                .label
                .clone()
                .unwrap_or_else(|| format!("{} on {}", l.method, plan.name));
            lines.push(Line {
                label: format!("{label} (test MSE {mean:.3})"),
                method: l.method.clone(),
                epsilon: eps,
                points: grid
                    .iter()
                    .zip(&pred)
                    .map(|(&x, &y)| point(x, y, eps, &key))
                    .collect(),
                ..Line::default()
            });
        }
        if synthetic {
            lines.insert(
                0,
                Line {
                    label: "true f(x) = sin(16x)".into(),
                    method: "truth".into(),
                    epsilon: None,
                    points: grid
                        .iter()
                        .map(|&x| point(x, lpdt_sine_mean(x), None, ""))
                        .collect(),
                    ..Line::default()
                },
            );
        }
        let panel = Panel {
            figure: c.name.clone(),
            dataset: c.lines.first().map(|l| l.dataset.clone()).unwrap_or_default(),
            title: c.title.clone().unwrap_or_else(|| c.name.clone()),
            subtitle: format!(
                "Fits of repetition {} at ε = {} (the selected grid point of each method, refitted with the run's seeded streams)",
                c.repetition, c.epsilon
            ),
            x_label: "x".into(),
            y_label: "fitted regression function".into(),
            log_y: false,
            log_x: false,
            x_categories: None,
            lines,
        };
        written.extend(
            write_panel(&panel, &dir, &c.name, LegendPosition::Below)
                .map_err(|e| fail(e.to_string()))?,
        );
    }
    Ok(written)
}

fn point(x: f64, y: f64, epsilon: Option<f64>, params: &str) -> Point {
    Point {
        x,
        x_text: format!("{x}"),
        mean: y,
        lo: None,
        hi: None,
        epsilon,
        reps: 1,
        params: params.to_string(),
        dataset: None,
    }
}
