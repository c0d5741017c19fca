//! Privacy masks in a run (HistOfTree card §1, §10; `data::mask` for the laws): the
//! per-repetition draw, its record in run.json (`privacy.masks`) and the table notes.
//!
//! Stream: `seeds::stream(seed, ["mask", data set, repetition])` gives the n_train×d uniforms
//! of [`MaskSource::draw`] (users in split order). It names neither method nor grid point,
//! so every method and every mask setting of a repetition threshold the same uniforms:
//! masks are paired across methods and nested in τ. It is drawn only when a method of the
//! spec is semi-feature, from its own stream, so no other stream shifts.

use super::seeds;
use crate::data::{Dataset, Manifest, MaskRule, MaskSource};
use crate::methods::mask_params::{mask_rule, MASK};
use crate::methods::{PrivacyModel, RepData};
use crate::spec::{DataSource, DatasetPlan, Experiment, MethodPlan};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The manifest whose columns the data set's features are (a pair's private manifest).
fn manifest_of(plan: &DatasetPlan) -> Option<&Manifest> {
    match &plan.source {
        DataSource::Manifest(m)
        | DataSource::Pair { private: m, .. }
        | DataSource::Rule { manifest: m, .. }
        | DataSource::Sample { manifest: m, .. } => Some(m),
        _ => None,
    }
}

/// The sensitivity ranking the data set's manifest declares, if it declares one (part of
/// the task keys then; see `keys::dataset_context`).
pub fn declared_ranking(plan: &DatasetPlan) -> Option<&[usize]> {
    manifest_of(plan).and_then(|m| m.sensitivity.as_deref())
}

/// The sensitivity ranking of a data set with `d` features: the manifest's
/// ([`Manifest::sensitivity_ranking`], column order unless declared); column order for
/// inline files and synthetic data.
pub fn ranking(plan: &DatasetPlan, d: usize) -> Vec<usize> {
    manifest_of(plan)
        .map(Manifest::sensitivity_ranking)
        .filter(|r| r.len() == d)
        .unwrap_or_else(|| (0..d).collect())
}

/// Whether [`mask_record`] reads data set `plan`'s loaded rows after the run (it redraws
/// the masks of every repetition when a semi-feature method runs on it).
pub(crate) fn reads_data_after_run(exp: &Experiment, plan: &DatasetPlan) -> bool {
    semi_feature_methods(exp, plan).next().is_some()
}

/// The semi-feature methods of the experiment that run on data set `plan`.
fn semi_feature_methods<'a>(
    exp: &'a Experiment,
    plan: &'a DatasetPlan,
) -> impl Iterator<Item = &'a MethodPlan> {
    exp.methods.iter().filter(move |m| {
        m.method.privacy_model() == PrivacyModel::SemiFeature && !m.skip.contains(&plan.name)
    })
}

/// The mask source of repetition `rep` (1-based) for the private training users `private`
/// of data set `plan`, or None when no semi-feature method runs on it (nothing is drawn).
pub fn draw(
    exp: &Experiment,
    plan: &DatasetPlan,
    private: &Dataset,
    rep: usize,
) -> Option<Arc<MaskSource>> {
    semi_feature_methods(exp, plan).next()?;
    let mut rng = seeds::stream(exp.spec.seed, &["mask", &plan.name, &rep.to_string()]);
    Some(Arc::new(MaskSource::draw(
        private.n(),
        ranking(plan, private.d()),
        &mut rng,
    )))
}

/// The distinct mask laws in the structural grids of `methods` (those declaring `mask`),
/// in order of first appearance, each with the labels of the methods using it.
fn settings<'a>(methods: impl Iterator<Item = &'a MethodPlan>) -> Vec<(MaskRule, Vec<String>)> {
    let mut out: Vec<(MaskRule, Vec<String>)> = Vec::new();
    for m in methods {
        if !m.method.params().iter().any(|p| p.name == MASK.name) {
            continue;
        }
        for p in &m.structural {
            let rule = mask_rule(p);
            match out.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, labels)) if labels.contains(&m.label) => {}
                Some((_, labels)) => labels.push(m.label.clone()),
                None => out.push((rule, vec![m.label.clone()])),
            }
        }
    }
    out
}

/// run.json's `privacy.masks`: the stream rule, each law's formula, and per data set with
/// a semi-feature method its ranking and, per mask setting in the methods' grids, the
/// share of users protecting each feature (column order, over all repetitions) and
/// the SHA-256 over the repetitions' mask digests ([`crate::data::PrivacyMask::digest`],
/// in repetition order). The masks are regenerated from the seeds. Null when no method of
/// the spec is semi-feature; `data` as from `run::load_datasets`.
///
/// # Errors
/// A repetition whose split fails (as the run itself would).
pub fn mask_record(
    exp: &Experiment,
    data: &[Option<Arc<Dataset>>],
) -> Result<Value, super::RunError> {
    let mut per_dataset = serde_json::Map::new();
    for (di, plan) in exp.datasets.iter().enumerate() {
        if semi_feature_methods(exp, plan).next().is_none() {
            continue;
        }
        let rules = settings(semi_feature_methods(exp, plan));
        // Per setting: protection counts summed over repetitions, and users summed.
        let mut counts: Vec<Vec<usize>> = vec![Vec::new(); rules.len()];
        let mut users = 0usize;
        let mut hashers: Vec<Sha256> = vec![Sha256::new(); rules.len()];
        let mut ranking_used = Vec::new();
        for rep in 1..=exp.repetitions {
            let rd: RepData =
                super::repetition_data(exp, plan, data.get(di).and_then(|d| d.as_deref()), rep)?;
            let Some(source) = rd.masks else { continue };
            ranking_used = source.ranking().to_vec();
            users += source.n();
            for (k, (rule, _)) in rules.iter().enumerate() {
                let mask = source.mask(rule);
                let c = mask.protection_counts();
                counts[k].resize(c.len(), 0);
                for (s, cj) in counts[k].iter_mut().zip(c) {
                    *s += cj;
                }
                hashers[k].update(mask.digest().as_bytes());
            }
        }
        let share = counts.into_iter().map(|c| {
            c.into_iter()
                .map(|cj| cj as f64 / users.max(1) as f64)
                .collect::<Vec<f64>>()
        });
        let settings: Vec<Value> = rules
            .iter()
            .zip(share)
            .zip(hashers)
            .map(|(((rule, labels), share), h)| {
                json!({
                    "setting": rule.to_string(),
                    "law": rule.formula(),
                    "methods": labels,
                    "protection_share": share,
                    "sha256": hex::encode(h.finalize()),
                })
            })
            .collect();
        per_dataset.insert(
            plan.name.clone(),
            json!({
                "ranking": ranking_used,
                "ranking_source": if declared_ranking(plan).is_some() { "manifest sensitivity" } else { "column order" },
                "settings": settings,
            }),
        );
    }
    if per_dataset.is_empty() {
        return Ok(Value::Null);
    }
    Ok(json!({
        "stream": "seeds::stream(seed, [\"mask\", data set, repetition]): n_train x d uniforms U_ij on [0,1), users in split order, features in column order; shared by every method and grid point of the repetition",
        "laws": {
            "aligned": "P_ij = 1{rank(j) <= d_p}",
            "personalized": "P_ij = 1{U_ij < rank(j)^-mask_tau} (rank 1 always private)",
            "personalized_prefix": "P_ij = 1{U_i,r1 < rank(j)^-mask_tau}, r1 the rank-1 feature: user i protects ranks 1..D_i, P(D_i >= j) = j^-mask_tau",
        },
        "datasets": per_dataset,
    }))
}

/// Table notes on the privacy masks of the methods `labels` shown in a table: one sentence
/// per mask setting in their grids.
pub fn mask_notes(exp: &Experiment, labels: &[&str]) -> Vec<String> {
    let shown = exp.methods.iter().filter(|m| {
        labels.contains(&m.label.as_str()) && m.method.privacy_model() == PrivacyModel::SemiFeature
    });
    settings(shown)
        .into_iter()
        .map(|(rule, methods)| {
            format!(
                "Privacy mask of {} ({rule}): {}, features ranked by each data set's sensitivity ranking (column order unless its manifest declares one); drawn per repetition from its own stream, shared by every method, and public.",
                methods.join(", "),
                rule.formula()
            )
        })
        .collect()
}
