//! Leaf-occupancy figures (`leaf_occupancy:` in a spec; DiPriMe Fig. 3, card diprime.md
//! §7): each panel refits a forest's selected grid point in one repetition with the run's
//! own streams ([`super::refit`]) and histograms the exact training rows of its leaves.

use super::refit::{read_selected, refit};
use crate::data::Dataset;
use crate::report::figure::occupancy::{write_occupancy, OccupancyFigure, OccupancyPanel};
use crate::spec::Experiment;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Draws every leaf-occupancy figure of the spec into `out/figures/` from the selected grid
/// points of `out/selected.csv`; `data` holds the spec's loaded data sets in the order of
/// `exp.datasets`. n_train, the unit of the tick labels, is the repetition's number of
/// private training rows.
///
/// # Errors
/// A message naming the figure and what is wrong: no selected grid point, a method without
/// tree leaves (only forests have them), the method's own error, or a drawing error.
pub fn render_leaf_occupancy(
    exp: &Experiment,
    data: &[Option<Arc<Dataset>>],
    out: &Path,
) -> Result<Vec<PathBuf>, String> {
    let figures = &exp.spec.leaf_occupancy;
    if figures.is_empty() {
        return Ok(Vec::new());
    }
    let selected = read_selected(&out.join("selected.csv"))?;
    let dir = out.join("figures");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for f in figures {
        let fail = |m: String| format!("leaf-occupancy figure `{}`: {m}", f.name);
        let mut panels = Vec::new();
        let mut n_train = 0;
        for p in &f.panels {
            let mut r = refit(
                exp,
                data,
                &selected,
                (&f.dataset, &p.method),
                f.epsilon,
                f.repetition,
                None,
            )
            .map_err(|e| fail(format!("{}: {e}", p.method)))?;
            n_train = r.data.private.n();
            let leaves = r
                .prepared
                .leaf_rows(&r.mechanism, r.epsilon, &mut r.rng)
                .ok_or_else(|| {
                    fail(format!(
                        "{} ({}) has no tree leaves to count; leaf-occupancy panels take forest methods",
                        p.method,
                        r.method.method.name()
                    ))
                })?
                .map_err(|e| fail(format!("{}: {e}", p.method)))?;
            panels.push(OccupancyPanel {
                label: p.label.clone().unwrap_or_else(|| p.method.clone()),
                method: p.method.clone(),
                epsilon: r.epsilon,
                params: r.key.clone(),
                leaves,
            });
        }
        let fig = OccupancyFigure {
            figure: f.name.clone(),
            dataset: f.dataset.clone(),
            title: f
                .title
                .clone()
                .unwrap_or_else(|| format!("Leaf occupancy on {}", f.dataset)),
            subtitle: format!(
                "Exact training rows of every leaf over all trees; repetition {} refitted with the run's seeded streams at ε = {} (each method's epsilon_factor applies); {} equal bins on [0, {}·n_train], n_train = {}",
                f.repetition, f.epsilon, f.bins, f.range, n_train
            ),
            n_train,
            bins: f.bins,
            range: f.range,
            panels,
        };
        written.extend(write_occupancy(&fig, &dir, &f.name).map_err(|e| fail(e.to_string()))?);
    }
    Ok(written)
}
