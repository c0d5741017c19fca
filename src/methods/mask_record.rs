//! The record of the privacy masks in a run (HistOfTree card §1, §10; `data::mask` for the
//! laws): run.json's `privacy.masks` and the table notes of the semi-feature methods.
//! The masks themselves come with each repetition's data ([`crate::data::RepetitionMasks`]),
//! from the stream `seeds::stream(seed, ["mask", data set, repetition])`.

use super::mask_params::{declares_mask, mask_rule};
use super::{GridUse, RepData, RepetitionRecord};
use crate::data::MaskRule;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The privacy masks' record (a unit: its data comes with each repetition).
pub struct MaskRecord;

/// The one [`MaskRecord`], listed in [`super::REPETITION_RECORDS`].
pub const MASK_RECORD: MaskRecord = MaskRecord;

/// The distinct mask laws in the structural grids of `users` (those declaring `mask`), in
/// order of first appearance, each with the labels of the methods using it.
fn settings(users: &[GridUse<'_>]) -> Vec<(MaskRule, Vec<String>)> {
    let mut out: Vec<(MaskRule, Vec<String>)> = Vec::new();
    for u in users {
        if !declares_mask(u.method.params()) {
            continue;
        }
        for p in u.points {
            let rule = mask_rule(p);
            match out.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, labels)) if labels.iter().any(|l| l == u.label) => {}
                Some((_, labels)) => labels.push(u.label.to_string()),
                None => out.push((rule, vec![u.label.to_string()])),
            }
        }
    }
    out
}

impl RepetitionRecord for MaskRecord {
    fn key(&self) -> &'static str {
        "masks"
    }

    /// The stream rule and each law's formula.
    fn header(&self) -> Value {
        json!({
            "stream": "seeds::stream(seed, [\"mask\", data set, repetition]): n_train x d uniforms U_ij on [0,1), users in split order, features in column order; shared by every method and grid point of the repetition",
            "laws": {
                "aligned": "P_ij = 1{rank(j) <= d_p}",
                "personalized": "P_ij = 1{U_ij < rank(j)^-mask_tau} (rank 1 always private)",
                "personalized_prefix": "P_ij = 1{U_i,r1 < rank(j)^-mask_tau}, r1 the rank-1 feature: user i protects ranks 1..D_i, P(D_i >= j) = j^-mask_tau",
            },
        })
    }

    /// The data set's ranking and, per mask setting in the methods' grids, the share of
    /// users protecting each feature (column order, over all repetitions) and the SHA-256
    /// over the repetitions' mask digests ([`crate::data::PrivacyMask::digest`], in
    /// repetition order). Reading the masks draws them.
    fn dataset(&self, users: &[GridUse<'_>], reps: &mut dyn Iterator<Item = RepData>) -> Value {
        let rules = settings(users);
        // Per setting: protection counts summed over repetitions, and users summed.
        let mut counts: Vec<Vec<usize>> = vec![Vec::new(); rules.len()];
        let mut n_users = 0usize;
        let mut hashers: Vec<Sha256> = vec![Sha256::new(); rules.len()];
        let mut ranking_used = Vec::new();
        let mut declared = false;
        for rd in reps {
            let Some(masks) = rd.masks else { continue };
            let source = masks.source();
            ranking_used = source.ranking().to_vec();
            declared = masks.ranking_declared();
            n_users += source.n();
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
                .map(|cj| cj as f64 / n_users.max(1) as f64)
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
        json!({
            "ranking": ranking_used,
            "ranking_source": if declared { "manifest sensitivity" } else { "column order" },
            "settings": settings,
        })
    }

    /// One sentence per mask setting in the methods' grids.
    fn notes(&self, users: &[GridUse<'_>]) -> Vec<String> {
        settings(users)
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
}
