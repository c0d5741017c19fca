//! Task keys: the identity of one runs.csv row, used to resume a run and to merge shards.
//!
//! A key hashes everything that determines the row's value: the spec's relevant part for
//! the data set (seed, how the data set is defined, split, scaling, label bounds), the data
//! set, the repetition, the method (label and registry name), the grid point and ε. Table,
//! selection and significance settings are not part of it, so changing them reuses rows.

use crate::spec::{DataSource, DatasetPlan, Experiment, MethodPlan};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashSet;

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Hash of the parts of the spec that determine every row of data set `plan`.
pub fn dataset_context(exp: &Experiment, plan: &DatasetPlan) -> String {
    let source = match &plan.source {
        DataSource::Manifest(m) => {
            let mut v =
                json!({"manifest": m.name, "sha256": m.sha256, "label_column": m.label_column});
            // A raw file's encoding decides its features (absent for numeric files, whose
            // keys stay as they were).
            if let Some(e) = &m.encode {
                v["encode"] = json!(e);
            }
            v
        }
        DataSource::File {
            path,
            label_column,
            has_header,
            ..
        } => {
            json!({"file": path.file_name().map(|f| f.to_string_lossy().to_string()), "label_column": label_column, "has_header": has_header})
        }
        DataSource::Pair { public, private } => {
            json!({"pair": [public.name, private.name], "sha256": [public.sha256, private.sha256]})
        }
        DataSource::Rule {
            manifest,
            column,
            values,
        } => {
            json!({"manifest": manifest.name, "sha256": manifest.sha256, "public_by_rule": {"column": column, "values": values}, "encode": manifest.encode})
        }
        DataSource::Sample { manifest, rows, .. } => {
            json!({"manifest": manifest.name, "sha256": manifest.sha256, "public_sample": rows, "encode": manifest.encode})
        }
        DataSource::LpdtSine {
            public,
            private,
            test,
            x_scale,
        } => {
            json!({"synthetic": "lpdt_sine", "sizes": [public, private, test], "x_scale": x_scale})
        }
        DataSource::LpctDrift {
            public,
            private,
            test,
            design,
            stream,
        } => {
            json!({"synthetic": "lpct_drift", "sizes": [public, private, test], "design": design, "stream": stream})
        }
        DataSource::SemiFeatureSine {
            public,
            private,
            test,
            design,
        } => {
            json!({"synthetic": "semi_feature_sine", "sizes": [public, private, test], "design": design})
        }
        DataSource::TaxiShape {
            public,
            private,
            test,
            design,
        } => {
            json!({"synthetic": "taxi_shape", "sizes": [public, private, test], "design": design})
        }
    };
    let split = exp.split.map(|s| [s.public, s.private, s.test]);
    let mut ctx = json!({
        "seed": exp.spec.seed,
        "dataset": plan.name,
        "source": source,
        "split": split,
        "scaling": exp.scaling,
        "label_bounds": exp.label_bounds,
    });
    // A declared sensitivity ranking decides the privacy masks (absent otherwise, so the
    // keys of every other data set stay as they were).
    if let Some(r) = plan.declared_ranking() {
        ctx["sensitivity"] = json!(r);
    }
    sha256_hex(&ctx.to_string())
}

/// [`dataset_context`] of every data set of the experiment, in spec order.
pub fn dataset_contexts(exp: &Experiment) -> Vec<String> {
    exp.datasets
        .iter()
        .map(|p| dataset_context(exp, p))
        .collect()
}

/// The key of one task: 16 hex digits (64 bits) of SHA-256 over the data set context,
/// repetition, method, grid point and ε ("" for non-private methods).
pub fn task_key(
    context: &str,
    rep: usize,
    method: &MethodPlan,
    params: &str,
    epsilon: &str,
) -> String {
    UnitHasher::new(context, rep, method).task_key(params, epsilon)
}

/// SHA-256 over the text `{context}|{rep}|{label}|{registry name}|` that every task of one
/// unit starts with, absorbed once (the context alone fills the first 64-byte block), and
/// the noise suffix they end with; [`UnitHasher::task_key`] adds the rest of one task.
struct UnitHasher {
    prefix: Sha256,
    noise: String,
}

impl UnitHasher {
    fn new(context: &str, rep: usize, method: &MethodPlan) -> UnitHasher {
        let mut prefix = Sha256::new();
        for part in [
            context,
            "|",
            &rep.to_string(),
            "|",
            &method.label,
            "|",
            method.method.name(),
            "|",
        ] {
            prefix.update(part.as_bytes());
        }
        // Frozen noise gives other rows than fresh noise: it is part of the key (fresh keys
        // are unchanged, so folders from before the option stay valid).
        let noise = match method.noise {
            crate::spec::raw::Noise::Fresh => String::new(),
            frozen => format!("|noise {}", frozen.describe()),
        };
        UnitHasher { prefix, noise }
    }

    /// The key of the task at grid point `params` and ε text `epsilon`: SHA-256 of
    /// `{prefix}{params}|{epsilon}{noise}`, first 16 hex digits.
    fn task_key(&self, params: &str, epsilon: &str) -> String {
        let mut h = self.prefix.clone();
        for part in [params, "|", epsilon, &self.noise] {
            h.update(part.as_bytes());
        }
        short_hex(h)
    }
}

/// The first 16 hex digits (64 bits) of the SHA-256 of what `h` has absorbed.
fn short_hex(h: Sha256) -> String {
    hex::encode(&h.finalize()[..8])
}

/// The key of a row derived from task `base` for a selection mode (`tag` names the row
/// and the mode's options, e.g. `cv_mse:5`): SHA-256 of `{base}|{tag}`, 16 hex digits.
pub fn derived_key(base: &str, tag: &str) -> String {
    let mut h = Sha256::new();
    for part in [base, "|", tag] {
        h.update(part.as_bytes());
    }
    short_hex(h)
}

/// The tags of the rows each task has besides its test metric, for the spec's selection
/// modes: `cv_<metric>:<folds>`, `pv_<metric>:<share>` and `pv_score:<share>`; `pub_score`,
/// `us_<metric>`, `us_score`, `rs_<metric>`, `rs_score` with their options.
pub fn extra_row_tags(exp: &Experiment) -> Vec<String> {
    use crate::spec::raw::Selection;
    let metric = exp
        .datasets
        .first()
        .map(|d| d.task.metric_name())
        .unwrap_or("mse");
    let t = exp.spec.tuning;
    let mut tags = Vec::new();
    if exp.selection.contains(&Selection::Cv) {
        tags.push(format!("cv_{metric}:{}", t.cv_folds));
    }
    if exp.selection.contains(&Selection::PrivateValidation) {
        let shared = match t.validation_releases {
            crate::spec::raw::ValidationReleases::Fresh => "",
            crate::spec::raw::ValidationReleases::Shared => ":shared",
        };
        tags.push(format!("pv_{metric}:{}{shared}", t.validation_share));
        tags.push(format!("pv_score:{}{shared}", t.validation_share));
    }
    if exp.selection.contains(&Selection::Public) {
        // `capped`: the mock users at most the real private users (older results had
        // uncapped mocks and must not be resumed as these).
        tags.push(format!("pub_score:{}:capped", t.public_share));
    }
    if exp.selection.contains(&Selection::UserSplit) {
        let c = t.candidates.map(|c| format!(":{c}")).unwrap_or_default();
        tags.push(format!("us_{metric}:{}{c}", t.validation_share));
        tags.push(format!("us_score:{}{c}", t.validation_share));
    }
    if exp.selection.contains(&Selection::RandomStopping) {
        let law = format!(
            "{}:{}:{}",
            t.validation_share, t.stopping.eta, t.stopping.mean
        );
        tags.push(format!("rs_{metric}:{law}"));
        tags.push(format!("rs_score:{law}"));
    }
    tags
}

/// Keys of the rows of one unit (data set context, repetition, method, structural grid
/// point), in the order the runner writes them: per mechanism grid point and ε, the test
/// metric's row, then one row per tag of [`extra_row_tags`].
pub fn unit_row_keys(
    exp: &Experiment,
    ctx: &str,
    rep: usize,
    m: &MethodPlan,
    si: usize,
    tags: &[String],
) -> Vec<String> {
    let eps = epsilon_texts(exp, m);
    let unit = UnitHasher::new(ctx, rep, m);
    let mut out = Vec::with_capacity(m.mechanism.len() * eps.len() * (1 + tags.len()));
    for q in &m.mechanism {
        let params = m.structural[si].join(q).key();
        for e in &eps {
            let base = unit.task_key(&params, e);
            out.extend(tags.iter().map(|t| derived_key(&base, t)));
            out.insert(out.len() - tags.len(), base);
        }
    }
    out
}

/// Keys of every task of the experiment (the rows a complete run has). The units' keys
/// are hashed on rayon's threads (hundreds of thousands of SHA-256s for a large spec).
pub fn all_task_keys(exp: &Experiment) -> HashSet<String> {
    use rayon::prelude::*;
    let tags = extra_row_tags(exp);
    let mut units = Vec::new();
    for plan in &exp.datasets {
        let ctx = dataset_context(exp, plan);
        for m in exp.methods.iter().filter(|m| !m.skip.contains(&plan.name)) {
            for si in 0..m.structural.len() {
                for rep in 1..=exp.repetitions {
                    units.push((ctx.clone(), m, si, rep));
                }
            }
        }
    }
    units
        .par_iter()
        .flat_map_iter(|(ctx, m, si, rep)| unit_row_keys(exp, ctx, *rep, m, *si, &tags))
        .collect()
}

/// The ε texts a method runs at: every ε of the spec, or "" for a non-private method.
pub fn epsilon_texts(exp: &Experiment, m: &MethodPlan) -> Vec<String> {
    if m.method.private() {
        exp.epsilons
            .iter()
            .map(|&e| super::seeds::epsilon_text(e))
            .collect()
    } else {
        vec![String::new()]
    }
}
