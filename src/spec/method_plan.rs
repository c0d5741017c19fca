//! The methods of a spec, validated (the `methods:` and `skip:` sections): each entry's
//! registry method or composition with its grid expanded into grid points
//! ([`MethodPlan`]), and the data sets it skips.

use super::dataset_plan::DatasetPlan;
use super::duplicates::first_repeat;
use super::raw::MethodEntry;
use super::raw::{Noise, SkipEntry, Spec};
use super::SpecError;
use super::{csv_unsafe, invalid};
use crate::methods::{self, Method, ParamValue, Params};
use crate::suggest::did_you_mean;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// A method with its expanded grid.
#[derive(Clone)]
pub struct MethodPlan {
    /// Column label (unique in the spec).
    pub label: String,
    /// The method: a registry preset or builtin, or a composition of the spec.
    pub method: Arc<dyn Method>,
    /// Structural grid points (partition built once per repetition for each).
    pub structural: Vec<Params>,
    /// Mechanism grid points (applied to every structural point and ε).
    pub mechanism: Vec<Params>,
    /// Data sets this method is not run on.
    pub skip: BTreeSet<String>,
    /// How its users' noise streams are seeded (the entry's `noise`, else the spec's).
    pub noise: Noise,
}

impl MethodPlan {
    /// k_r: the number of grid points whose users' releases differ (structural points ×
    /// distinct release keys of the mechanism points; curator-side parameters do not
    /// count, see [`crate::methods::ParamRole`]). A user who releases for every grid point
    /// at budget ε spends k_r·ε.
    pub fn release_configurations(&self) -> usize {
        let decls = self.method.params();
        let distinct: BTreeSet<String> = self
            .mechanism
            .iter()
            .map(|q| q.release_key(decls))
            .collect();
        self.structural.len() * distinct.len().max(1)
    }
}

pub(super) fn labels(methods: &[MethodPlan]) -> String {
    methods
        .iter()
        .map(|m| m.label.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn apply_skips(
    skip: &[SkipEntry],
    methods: &mut [MethodPlan],
    datasets: &[DatasetPlan],
    path: &Path,
) -> Result<(), SpecError> {
    let all = labels(methods);
    let label_list: Vec<String> = methods.iter().map(|m| m.label.clone()).collect();
    for (i, s) in skip.iter().enumerate() {
        let m = methods
            .iter_mut()
            .find(|m| m.label == s.method)
            .ok_or_else(|| {
                invalid(
                    path,
                    format!("skip[{i}].method"),
                    format!(
                        "unknown method `{}`{}; methods of this spec: {all}",
                        s.method,
                        did_you_mean(&s.method, label_list.iter().map(String::as_str))
                    ),
                )
            })?;
        for d in &s.datasets {
            if !datasets.iter().any(|p| &p.name == d) {
                let names: Vec<_> = datasets.iter().map(|p| p.name.as_str()).collect();
                return Err(invalid(
                    path,
                    format!("skip[{i}].datasets"),
                    format!(
                        "unknown data set `{d}`{}; data sets of this spec: {}",
                        did_you_mean(d, names.iter().copied()),
                        names.join(", ")
                    ),
                ));
            }
            m.skip.insert(d.clone());
        }
    }
    Ok(())
}

/// The plan of the method entry `methods[i]`: the registry method or the composition it
/// names, its label (distinct from those of `taken`, the entries before it) and its grid
/// expanded into structural and mechanism grid points.
///
/// # Errors
/// [`SpecError::Invalid`] naming the entry's field at fault: an unknown method or
/// parameter (with the valid names), a repeated label, an empty or repeated grid value, a
/// value of the wrong kind, or a grid the method refuses.
#[allow(clippy::result_large_err)] // one error per spec validation: its size does not matter
pub(super) fn method_plan(
    i: usize,
    entry: &MethodEntry,
    spec: &Spec,
    taken: &[MethodPlan],
    path: &Path,
) -> Result<MethodPlan, SpecError> {
    let field = format!("methods[{i}]");
    let method: Arc<dyn Method> = match (&entry.method, &entry.compose) {
        (Some(name), None) => {
            methods::find(name).map_err(|e| invalid(path, format!("{field}.method"), e))?
        }
        (None, Some(comp)) => {
            let label = entry.label.as_deref().ok_or_else(|| {
                invalid(
                    path,
                    format!("{field}.label"),
                    "a composed method needs a `label` (its column name)",
                )
            })?;
            let described = format!("composed in {}: {comp}", path.display());
            Arc::new(
                methods::Composed::new(label, &described, comp.clone())
                    .map_err(|e| invalid(path, format!("{field}.compose"), e))?,
            )
        }
        _ => {
            return Err(invalid(
                path,
                &field,
                "give exactly one of `method` (a registry name) or `compose` (blocks)",
            ))
        }
    };
    let label = entry
        .label
        .clone()
        .unwrap_or_else(|| method.name().to_string());
    if taken.iter().any(|m| m.label == label) {
        return Err(invalid(
            path,
            &field,
            format!("method label `{label}` is used twice; give a distinct `label`"),
        ));
    }
    if let Some(m) = csv_unsafe("method label", &label) {
        return Err(invalid(path, format!("{field}.label"), m));
    }
    let valid: Vec<&str> = method.params().iter().map(|p| p.name).collect();
    let given =
        (entry.grid.keys().map(|k| ("grid", k))).chain(entry.params.keys().map(|k| ("params", k)));
    for (section, name) in given {
        if !valid.contains(&name.as_str()) {
            return Err(invalid(
                path,
                format!("{field}.{section}.{name}"),
                format!(
                    "unknown parameter of {}{}; valid parameters: {}",
                    method.name(),
                    did_you_mean(name, valid.iter().copied()),
                    valid.join(", ")
                ),
            ));
        }
        if entry.grid.contains_key(name) && entry.params.contains_key(name) {
            return Err(invalid(
                path,
                format!("{field}.{name}"),
                "given both in grid and params",
            ));
        }
    }
    let mut structural: Vec<Vec<(String, ParamValue)>> = vec![vec![]];
    let mut mechanism: Vec<Vec<(String, ParamValue)>> = vec![vec![]];
    for decl in method.params() {
        let values: Vec<ParamValue> = if let Some(v) = entry.grid.get(decl.name) {
            let seq = v.as_sequence().ok_or_else(|| {
                invalid(
                    path,
                    format!("{field}.grid.{}", decl.name),
                    "a grid must be a list of values",
                )
            })?;
            if seq.is_empty() {
                return Err(invalid(
                    path,
                    format!("{field}.grid.{}", decl.name),
                    "the grid is empty",
                ));
            }
            let values: Vec<ParamValue> = seq
                .iter()
                .map(|x| {
                    ParamValue::from_yaml(x).ok_or_else(|| {
                        invalid(
                            path,
                            format!("{field}.grid.{}", decl.name),
                            "values must be numbers, names or booleans",
                        )
                    })
                })
                .collect::<Result<_, _>>()?;
            // `1` and `1.0` are one value: compare the canonical text.
            let texts: Vec<String> = values.iter().map(ToString::to_string).collect();
            if let Some((first, again)) = first_repeat(&texts) {
                return Err(invalid(
                    path,
                    format!("{field}.grid.{}[{again}]", decl.name),
                    format!(
                        "{} is listed twice ({name}[{first}] and {name}[{again}]), which would compute its tasks twice; list each value once",
                        texts[again],
                        name = decl.name
                    ),
                ));
            }
            values
        } else if let Some(v) = entry.params.get(decl.name) {
            vec![ParamValue::from_yaml(v).ok_or_else(|| {
                invalid(
                    path,
                    format!("{field}.params.{}", decl.name),
                    "must be a number, name or boolean",
                )
            })?]
        } else if let Some(d) = decl.default {
            vec![ParamValue::parse(d)]
        } else {
            return Err(invalid(
                path,
                format!("{field}.grid.{}", decl.name),
                format!("{} needs `{}` ({})", method.name(), decl.name, decl.doc),
            ));
        };
        for v in &values {
            decl.kind.check(v).map_err(|want| {
                invalid(
                    path,
                    format!("{field}.{}", decl.name),
                    format!("{v} is not valid; expected {want}"),
                )
            })?;
        }
        let target = if decl.structural() {
            &mut structural
        } else {
            &mut mechanism
        };
        *target = target
            .iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((decl.name.to_string(), v.clone()));
                    q
                })
            })
            .collect();
    }
    let structural: Vec<Params> = structural.into_iter().map(Params).collect();
    method.check_grid(&structural).map_err(|e| {
        // The error names the parameter first: point at the entry's field holding it.
        match e.split_once(": ") {
            Some((name, message)) if entry.grid.contains_key(name) => {
                invalid(path, format!("{field}.grid.{name}"), message)
            }
            Some((name, message)) if entry.params.contains_key(name) => {
                invalid(path, format!("{field}.params.{name}"), message)
            }
            _ => invalid(path, &field, e),
        }
    })?;
    Ok(MethodPlan {
        label,
        method,
        structural,
        mechanism: mechanism.into_iter().map(Params).collect(),
        skip: BTreeSet::new(),
        noise: entry.noise.unwrap_or(spec.noise),
    })
}
