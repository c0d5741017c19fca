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
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hash of the parts of the spec that determine every row of data set `plan`.
pub fn dataset_context(exp: &Experiment, plan: &DatasetPlan) -> String {
    let source = match &plan.source {
        DataSource::Manifest(m) => {
            json!({"manifest": m.name, "sha256": m.sha256, "label_column": m.label_column})
        }
        DataSource::File {
            path,
            label_column,
            has_header,
        } => {
            json!({"file": path.file_name().map(|f| f.to_string_lossy().to_string()), "label_column": label_column, "has_header": has_header})
        }
        DataSource::LpdtSine {
            public,
            private,
            test,
            x_scale,
        } => {
            json!({"synthetic": "lpdt_sine", "sizes": [public, private, test], "x_scale": x_scale})
        }
    };
    let split = exp.split.map(|s| [s.public, s.private, s.test]);
    let ctx = json!({
        "seed": exp.spec.seed,
        "dataset": plan.name,
        "source": source,
        "split": split,
        "scaling": exp.scaling,
        "label_bounds": exp.label_bounds,
    });
    sha256_hex(&ctx.to_string())
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
    let text = format!(
        "{context}|{rep}|{}|{}|{params}|{epsilon}",
        method.label,
        method.method.name()
    );
    sha256_hex(&text)[..16].to_string()
}

/// Keys of every task of the experiment (the rows a complete run has).
pub fn all_task_keys(exp: &Experiment) -> HashSet<String> {
    let mut keys = HashSet::new();
    for plan in &exp.datasets {
        let ctx = dataset_context(exp, plan);
        for m in exp.methods.iter().filter(|m| !m.skip.contains(&plan.name)) {
            let eps = epsilon_texts(exp, m);
            for s in &m.structural {
                for q in &m.mechanism {
                    let params = s.join(q).key();
                    for rep in 1..=exp.repetitions {
                        for e in &eps {
                            keys.insert(task_key(&ctx, rep, m, &params, e));
                        }
                    }
                }
            }
        }
    }
    keys
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
