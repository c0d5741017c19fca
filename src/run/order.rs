//! The order the runner starts its work in: the costliest first, so that no thread idles
//! at the end of a run while another finishes a long unit that started last.
//!
//! A unit (a structural grid point of one method on one data set and repetition, with
//! all its ε and mechanism points) is costed by its method's
//! [`crate::methods::Method::unit_cost`], scaled by the seconds the method's units took in
//! earlier repetitions when runs.csv holds them. The units of one (data set, repetition)
//! share its split, so they stay together: groups go costliest first, and within a group
//! its units costliest first. The order changes when rows are written, never what they
//! hold: every unit draws from streams of its own.

use super::units::Unit;
use crate::spec::Experiment;
use std::cmp::Ordering;
use std::collections::HashMap;

/// The pending units of one (data set, repetition), costliest first.
pub(super) struct Group {
    /// Index of the data set in the experiment.
    pub dataset: usize,
    /// Repetition (1-based).
    pub rep: usize,
    /// Units with their task keys.
    pub units: Vec<(Unit, Vec<String>)>,
    /// The estimated cost of all of them.
    pub cost: f64,
}

/// The rows × features the cost model assumes for a data set of unknown shape.
const UNKNOWN_SHAPE: (usize, usize) = (1000, 10);

/// Unit `u`'s cost in its method's row-operations ([`crate::methods::Method::unit_cost`])
/// with `tasks` rows to compute, on the data set's shape from `shapes`.
pub(super) fn prior_cost(
    exp: &Experiment,
    shapes: &[Option<(usize, usize)>],
    u: &Unit,
    tasks: usize,
) -> f64 {
    let &(d, _, mi, si) = u;
    let (n, dim) = shapes[d].unwrap_or(UNKNOWN_SHAPE);
    let m = &exp.methods[mi];
    m.method
        .unit_cost(&m.structural[si], n, dim, tasks)
        .max(1.0)
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite() && *x > 0.0);
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
    Some(v[v.len() / 2])
}

/// Seconds per row-operation of each method of the experiment, from `measured` (units
/// whose every row is in runs.csv, with the sum of their rows' seconds): the median over
/// the method's measured units of seconds / [`prior_cost`]; a method without any takes
/// the median over the methods that have one, and with no measurement at all every
/// method's rate is 1 (the prior alone orders).
pub(super) fn method_rates(
    exp: &Experiment,
    shapes: &[Option<(usize, usize)>],
    measured: &[(Unit, usize, f64)],
) -> Vec<f64> {
    let per_method: Vec<Option<f64>> = (0..exp.methods.len())
        .map(|mi| {
            median(
                measured
                    .iter()
                    .filter(|(u, _, _)| u.2 == mi)
                    .map(|(u, tasks, secs)| secs / prior_cost(exp, shapes, u, *tasks))
                    .collect(),
            )
        })
        .collect();
    let fallback = median(per_method.iter().flatten().copied().collect()).unwrap_or(1.0);
    per_method
        .into_iter()
        .map(|r| r.unwrap_or(fallback))
        .collect()
}

/// The seconds unit `keys` took by the rows runs.csv holds for them (`seconds` by task
/// key), or None unless every key has its row. A row's seconds are the unit's
/// preparation (the partition, shared by its rows) plus the row's share of the
/// predictions, so the unit took about Σ sᵢ − (k − 1)·min sᵢ: the preparation once (at
/// most the least row) and every row's own share.
pub(super) fn unit_seconds(keys: &[String], seconds: &HashMap<String, f64>) -> Option<f64> {
    let s: Vec<f64> = keys
        .iter()
        .map(|k| seconds.get(k).copied())
        .collect::<Option<_>>()?;
    let min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let sum: f64 = s.iter().sum();
    (!s.is_empty()).then(|| sum - (s.len() - 1) as f64 * min)
}

/// `todo` (units with the keys they still have to compute, `pending` of them each)
/// grouped by (data set, repetition) and ordered costliest first, groups and units within
/// each, at `rates` ([`method_rates`]). Ties keep the canonical order.
pub(super) fn order(
    exp: &Experiment,
    shapes: &[Option<(usize, usize)>],
    todo: Vec<(Unit, Vec<String>, usize)>,
    rates: &[f64],
) -> Vec<Group> {
    let mut costed: Vec<(Unit, Vec<String>, f64)> = todo
        .into_iter()
        .map(|(u, k, pending)| {
            let c = prior_cost(exp, shapes, &u, pending) * rates[u.2];
            (u, k, c)
        })
        .collect();
    // Canonical order first, so that equal costs keep it (the sorts below are stable).
    costed.sort_by_key(|(u, _, _)| *u);
    let mut grouped: Vec<Vec<(Unit, Vec<String>, f64)>> = Vec::new();
    for item in costed {
        match grouped.last_mut() {
            Some(g) if (g[0].0 .0, g[0].0 .1) == (item.0 .0, item.0 .1) => g.push(item),
            _ => grouped.push(vec![item]),
        }
    }
    let by_cost = |a: &f64, b: &f64| b.partial_cmp(a).unwrap_or(Ordering::Equal);
    let mut groups: Vec<Group> = grouped
        .into_iter()
        .map(|mut g| {
            g.sort_by(|a, b| by_cost(&a.2, &b.2));
            Group {
                dataset: g[0].0 .0,
                rep: g[0].0 .1,
                cost: g.iter().map(|x| x.2).sum(),
                units: g.into_iter().map(|(u, k, _)| (u, k)).collect(),
            }
        })
        .collect();
    groups.sort_by(|a, b| by_cost(&a.cost, &b.cost));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::units::units;
    use std::path::Path;

    /// Two synthetic data sets, 400 and 4,000 rows; DT (3 structural points, one task
    /// each) and LPDT-M (2 structural points, 2 ε × 2 ρ tasks each); two repetitions.
    fn experiment() -> Experiment {
        let text = "name: order\nseed: 1\nrepetitions: 2\ndatasets:\n  - {name: small, synthetic: lpdt_sine, sizes: {public: 100, private: 200, test: 100}}\n  - {name: large, synthetic: lpdt_sine, sizes: {public: 1000, private: 2000, test: 1000}}\nepsilons: [1, 2]\nmethods:\n  - method: DT\n    grid: {max_depth: [2, 4, 6]}\n  - method: LPDT-M\n    grid: {depth: [2, 3], min_leaf: [10], rho: [0.3, 0.5]}\nselection: best_mean\n";
        let path = Path::new("order.yaml");
        crate::spec::validate(crate::spec::parse_str(text, path).unwrap(), path, &[]).unwrap()
    }

    fn todo(
        exp: &Experiment,
        shapes: &[Option<(usize, usize)>],
    ) -> Vec<(Unit, Vec<String>, usize)> {
        units(exp, None, shapes)
            .into_iter()
            .map(|u| {
                let m = &exp.methods[u.2];
                let tasks = if m.method.private() {
                    2 * m.mechanism.len()
                } else {
                    1
                };
                (u, vec![String::new(); tasks], tasks)
            })
            .collect()
    }

    #[test]
    fn the_costliest_groups_and_units_start_first() {
        let exp = experiment();
        let shapes = [Some((400, 1)), Some((4000, 1))];
        let rates = method_rates(&exp, &shapes, &[]);
        assert_eq!(rates, [1.0, 1.0], "no measurement: the prior alone");
        let groups = order(&exp, &shapes, todo(&exp, &shapes), &rates);
        let firsts: Vec<(usize, usize)> = groups.iter().map(|g| (g.dataset, g.rep)).collect();
        // The large data set's repetitions first, each data set's in repetition order.
        assert_eq!(firsts, [(1, 1), (1, 2), (0, 1), (0, 2)]);
        for g in &groups {
            let costs: Vec<f64> = g
                .units
                .iter()
                .map(|(u, k)| prior_cost(&exp, &shapes, u, k.len()))
                .collect();
            assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
            // LPDT-M's units (4 tasks) before DT's (1 task).
            assert_eq!(g.units[0].0 .2, 1);
            assert_eq!(g.units.last().unwrap().0 .2, 0);
        }
    }

    #[test]
    fn measured_seconds_rescale_their_method() {
        let exp = experiment();
        let shapes = [Some((400, 1)), Some((4000, 1))];
        // DT's units measured at a thousand times the prior's rate of LPDT-M's.
        let measured: Vec<(Unit, usize, f64)> = todo(&exp, &shapes)
            .into_iter()
            .filter(|(u, _, _)| u.1 == 1)
            .map(|(u, _, tasks)| {
                let prior = prior_cost(&exp, &shapes, &u, tasks);
                (u, tasks, prior * if u.2 == 0 { 1e-3 } else { 1e-6 })
            })
            .collect();
        let rates = method_rates(&exp, &shapes, &measured);
        assert!((rates[0] / 1e-3 - 1.0).abs() < 1e-9 && (rates[1] / 1e-6 - 1.0).abs() < 1e-9);
        let groups = order(&exp, &shapes, todo(&exp, &shapes), &rates);
        for g in &groups {
            assert_eq!(
                g.units[0].0 .2, 0,
                "DT first once it is measured as the slower"
            );
        }
        // A method never measured takes the median of the others' rates.
        let only_dt: Vec<_> = measured.into_iter().filter(|m| m.0 .2 == 0).collect();
        let rates = method_rates(&exp, &shapes, &only_dt);
        assert_eq!(rates[0], rates[1]);
    }
}
