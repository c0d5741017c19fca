//! Refitting one method's selected grid point in one repetition with the run's own seeded
//! streams, for figures that need the fitted model itself rather than its test metric:
//! fitted curves (`curves:`, LPDT Fig. 1) and leaf occupancy (`leaf_occupancy:`, DiPriMe
//! Fig. 3). The refit draws exactly what the run drew for that task (the partition stream
//! of the structural grid point, the noise stream of the release), so it is the very fit
//! whose test metric runs.csv holds.

use super::{repetition_data, seeds};
use crate::data::Dataset;
use crate::methods::{Params, Prepared, RepData};
use crate::spec::{Experiment, MethodPlan};
use rand_pcg::Pcg64;
use std::collections::HashMap;
use std::path::Path;

/// (data set, method label, ε text) → (grid point key, mean test metric), from a results
/// folder's `selected.csv`.
pub type SelectedIndex = HashMap<(String, String, String), (String, f64)>;

/// Reads `selected.csv` of a results folder into a [`SelectedIndex`].
///
/// # Errors
/// The file is missing or malformed (the message names it).
pub fn read_selected(path: &Path) -> Result<SelectedIndex, String> {
    Ok(crate::report::figure::read_selected(path)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| {
            (
                (
                    r.dataset,
                    r.method,
                    r.epsilon.map(seeds::epsilon_text).unwrap_or_default(),
                ),
                (r.params, r.mean),
            )
        })
        .collect())
}

/// Splits a grid point key (`name=value;…`, as runs.csv and selected.csv write it) into
/// the method's structural parameters (those that shape the partition, handed to
/// [`crate::methods::Method::prepare`]) and its mechanism parameters (handed to
/// [`Prepared::predict`]), each in the key's order.
pub fn split_key(m: &MethodPlan, key: &str) -> (Params, Params) {
    let structural_names: Vec<&str> = m
        .method
        .params()
        .iter()
        .filter(|p| p.structural())
        .map(|p| p.name)
        .collect();
    let (s, q): (Vec<_>, Vec<_>) = Params::parse_key(key)
        .0
        .into_iter()
        .partition(|(k, _)| structural_names.contains(&k.as_str()));
    (Params(s), Params(q))
}

/// Replaces a repetition's test part (e.g. by a grid of x values), or refuses the
/// repetition's data with a message.
pub type TestOverride<'f> = &'f dyn Fn(&RepData) -> Result<Dataset, String>;

/// A prepared refit, ready to release.
pub struct Refit<'a> {
    /// The method's plan in the spec.
    pub method: &'a MethodPlan,
    /// The prepared structural grid point.
    pub prepared: Box<dyn Prepared>,
    /// The mechanism (non-structural) parameters of the grid point.
    pub mechanism: Params,
    /// The release's noise stream, as the run seeded it.
    pub rng: Pcg64,
    /// ε handed to the release (None for a non-private method).
    pub epsilon: Option<f64>,
    /// The grid point, `name=value;…`.
    pub key: String,
    /// Its mean test metric over the run's repetitions (selected.csv).
    pub mean: f64,
    /// The repetition's data (the test part replaced when the caller asked).
    pub data: RepData,
}

/// Prepares the selected grid point of method `label` on data set `dataset` at `epsilon`
/// (ignored for a non-private method) in repetition `repetition` (1-based) and seeds its
/// release stream. `test` replaces the repetition's test part (e.g. a grid of x values);
/// (it may refuse the repetition's data with a message); `data` holds the spec's loaded data sets in the order of `exp.datasets`.
///
/// # Errors
/// A message: an unknown data set or method, no selected grid point, a grid point that
/// does not apply, or the method's own error.
pub fn refit<'a>(
    exp: &'a Experiment,
    data: &[Option<std::sync::Arc<Dataset>>],
    selected: &SelectedIndex,
    (dataset, label): (&str, &str),
    epsilon: f64,
    repetition: usize,
    test: Option<TestOverride>,
) -> Result<Refit<'a>, String> {
    let d = exp
        .datasets
        .iter()
        .position(|p| p.name == dataset)
        .ok_or_else(|| format!("unknown data set `{dataset}`"))?;
    let plan = &exp.datasets[d];
    let m = exp
        .methods
        .iter()
        .find(|m| m.label == label)
        .ok_or_else(|| format!("unknown method `{label}`"))?;
    let eps_text = if m.method.private() {
        seeds::epsilon_text(epsilon)
    } else {
        String::new()
    };
    let (key, mean) = selected
        .get(&(plan.name.clone(), m.label.clone(), eps_text.clone()))
        .ok_or_else(|| {
            format!(
                "no selected grid point of {} on {} at ε = {epsilon}",
                m.label, plan.name
            )
        })?
        .clone();
    let (structural, mechanism) = split_key(m, &key);
    let mut rep =
        repetition_data(exp, plan, data[d].as_deref(), repetition).map_err(|e| e.to_string())?;
    if let Some(t) = test {
        rep.test = t(&rep)?;
    }
    let mut ps = seeds::partition_stream(
        exp.spec.seed,
        &plan.name,
        repetition,
        &m.label,
        &structural.key(),
    );
    let prepared = m
        .method
        .prepare(&rep, &structural, &mut ps)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the selected grid point does not apply".to_string())?;
    let rng = seeds::release_stream(
        exp.spec.seed,
        "noise",
        &plan.name,
        repetition,
        m,
        &Params::parse_key(&key),
        &eps_text,
        "",
    );
    Ok(Refit {
        method: m,
        prepared,
        mechanism,
        rng,
        epsilon: m.method.private().then_some(epsilon),
        key,
        mean,
        data: rep,
    })
}
