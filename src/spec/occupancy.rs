//! The checks that the forests' leaf-occupancy rule (`occupancy: dataset`) and the
//! leaf-occupancy figures fit the experiment: the manifests declare what the rule reads,
//! the figures name the spec's data sets, methods, ε and repetitions.

use super::dataset_plan::{DataSource, DatasetPlan};
use super::experiment::Experiment;
use super::invalid;
use super::method_plan::MethodPlan;
use super::raw::Spec;
use super::SpecError;
use crate::methods::{ParamValue, Params};
use crate::suggest::did_you_mean;

/// `occupancy: dataset` (the forests' depth rule with the manifest's `leaf_occupancy`)
/// needs every data set the method runs on to declare one; checked here rather than
/// when the first fit fails. A grid point with an integer `depth` does not read it. An
/// error is (the field at fault, what is wrong and the fix).
pub(super) fn check_dataset_occupancy(
    spec: &Spec,
    methods: &[MethodPlan],
    datasets: &[DatasetPlan],
) -> Result<(), (String, String)> {
    fn named<'p>(p: &'p Params, name: &str) -> Option<&'p ParamValue> {
        p.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
    for (i, m) in methods.iter().enumerate() {
        let reads_manifest = m.structural.iter().any(|s| {
            m.mechanism.iter().any(|q| {
                let point = s.join(q);
                let dataset = ParamValue::Str("dataset".into());
                named(&point, "occupancy") == Some(&dataset)
                    && !matches!(named(&point, "depth"), Some(ParamValue::Int(_)))
            })
        });
        if !reads_manifest {
            continue;
        }
        let entry = &spec.methods[i];
        let section = if entry.grid.contains_key("occupancy") {
            "grid"
        } else {
            "params"
        };
        for d in datasets.iter().filter(|d| !m.skip.contains(&d.name)) {
            if d.leaf_occupancy().is_none() {
                let whose = match &d.source {
                    DataSource::Manifest(_)
                    | DataSource::Pair { .. }
                    | DataSource::Rule { .. }
                    | DataSource::Sample { .. } => format!(
                        "the manifest of data set `{}` declares no `leaf_occupancy`",
                        d.name
                    ),
                    _ => format!(
                        "data set `{}` has no manifest, hence no `leaf_occupancy`",
                        d.name
                    ),
                };
                return Err((
                    format!("methods[{i}].{section}.occupancy"),
                    format!(
                        "`dataset` reads the data set's declared leaf occupancy, but {whose}; give an integer occupancy (the DiPriMe paper's 25), add `leaf_occupancy:` to the manifest, or skip {} on `{}` (`skip:`)",
                        m.label, d.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The `leaf_occupancy:` figures name a data set and methods of the spec, a private
/// method's ε is on the spec's ε grid, the repetition was run, and the bins make sense.
pub(super) fn check_leaf_occupancy(exp: &Experiment) -> Result<(), SpecError> {
    for (i, f) in exp.spec.leaf_occupancy.iter().enumerate() {
        let at = |field: &str| format!("leaf_occupancy[{i}].{field}");
        let bad = |field: &str, m: String| invalid(&exp.path, at(field), m);
        if !exp.datasets.iter().any(|d| d.name == f.dataset) {
            let names: Vec<&str> = exp.datasets.iter().map(|d| d.name.as_str()).collect();
            return Err(bad(
                "dataset",
                format!(
                    "`{}`{} is not a data set of the spec ({})",
                    f.dataset,
                    did_you_mean(&f.dataset, names.iter().copied()),
                    names.join(", ")
                ),
            ));
        }
        if f.bins == 0 {
            return Err(bad("bins", "at least 1".into()));
        }
        if !(f.range > 0.0 && f.range <= 1.0) {
            return Err(bad(
                "range",
                format!("{} is not in (0, 1] (a fraction of n_train)", f.range),
            ));
        }
        if f.repetition == 0 || f.repetition > exp.repetitions {
            return Err(bad(
                "repetition",
                format!(
                    "{} is not in 1..={} (the spec's repetitions)",
                    f.repetition, exp.repetitions
                ),
            ));
        }
        if f.panels.is_empty() {
            return Err(bad("panels", "name at least one method".into()));
        }
        for (j, p) in f.panels.iter().enumerate() {
            let m = exp
                .methods
                .iter()
                .find(|m| m.label == p.method)
                .ok_or_else(|| {
                    let labels: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
                    bad(
                        &format!("panels[{j}].method"),
                        format!(
                            "`{}`{} is not a method label of the spec ({})",
                            p.method,
                            did_you_mean(&p.method, labels.iter().copied()),
                            labels.join(", ")
                        ),
                    )
                })?;
            if m.method.private() && !exp.epsilons.contains(&f.epsilon) {
                return Err(bad(
                    "epsilon",
                    format!(
                        "{} is not on the spec's ε grid {:?}, so {} has no run there",
                        f.epsilon, exp.epsilons, p.method
                    ),
                ));
            }
        }
    }
    for (i, c) in exp.claims.iter().enumerate() {
        if let super::claims::Claim::BalancedLeaves {
            figure,
            method,
            than,
            ..
        } = c
        {
            let bad =
                |field: &str, m: String| invalid(&exp.path, format!("claims[{i}].{field}"), m);
            let Some(f) = exp.spec.leaf_occupancy.iter().find(|f| f.name == *figure) else {
                return Err(bad(
                    "figure",
                    format!("`{figure}` is not the name of a leaf_occupancy figure of the spec"),
                ));
            };
            for m in std::iter::once(method).chain(than) {
                if !f.panels.iter().any(|p| p.method == *m) {
                    return Err(bad(
                        "method",
                        format!("`{m}` has no panel on leaf_occupancy figure `{figure}`"),
                    ));
                }
            }
        }
    }
    Ok(())
}
