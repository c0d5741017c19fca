//! Privacy bookkeeping of a run beyond each column's ε: how the users' noise is seeded,
//! what the training users of private validation spend in total, private users' records
//! used in the clear, a label range read from private labels. One source for table notes and run.json, so they cannot disagree.

use crate::spec::raw::{LabelBoundsFrom, Noise, Selection, ValidationReleases};
use crate::spec::Experiment;
use serde_json::{json, Value};

/// The training users' total budget under `private_validation` for each private method of
/// `labels` (in that order): (label, k_r, multiplier of ε). With fresh releases a training
/// user releases once per grid point whose release differs, k_r·ε in total (LPDT App. D.2 as
/// stated); with `validation_releases: shared` the k_r releases split ε, so 1·ε.
pub fn validation_training_budget<'a>(
    exp: &'a Experiment,
    labels: &[&str],
) -> Vec<(&'a str, usize, usize)> {
    exp.methods
        .iter()
        .filter(|m| m.method.private() && labels.contains(&m.label.as_str()))
        .map(|m| {
            let k = m.release_configurations();
            let multiplier = match exp.spec.tuning.validation_releases {
                ValidationReleases::Fresh => k,
                ValidationReleases::Shared => 1,
            };
            (m.label.as_str(), k, multiplier)
        })
        .collect()
}

/// Table notes on privacy for a table showing the methods `labels` under selection `mode`:
/// one per method that uses private records in the clear, one per privacy-mask setting of the
/// semi-feature methods (`masks::mask_notes`), one for a label range taken from private
/// labels, and, under private validation, the training users' total budget.
pub fn privacy_notes(exp: &Experiment, labels: &[&str], mode: Selection) -> Vec<String> {
    let mut notes = Vec::new();
    for m in exp
        .methods
        .iter()
        .filter(|m| labels.contains(&m.label.as_str()))
    {
        for n in m.method.privacy_notes() {
            notes.push(format!("{}: {n}.", m.label));
        }
    }
    notes.extend(super::masks::mask_notes(exp, labels));
    let frozen: Vec<String> = exp
        .methods
        .iter()
        .filter(|m| labels.contains(&m.label.as_str()) && m.noise != Noise::Fresh)
        .map(|m| format!("{} ({})", m.label, m.noise.describe()))
        .collect();
    if !frozen.is_empty() {
        notes.push(format!("Frozen noise, as the authors' code runs: {} restart their users' noise from the same seed at every fit (every repetition, grid point and epsilon draws the same noise), so oracle selection picks the grid point that suits one draw.", frozen.join(", ")));
    }
    if exp.label_bounds == LabelBoundsFrom::PrivateTrain {
        notes.push("Label range from the private training labels (label_bounds: private_train, as the authors' code does): clipping and noise scales reveal their minimum and maximum, which the papers' epsilon-LDP guarantee does not cover.".to_string());
    }
    if mode == Selection::PrivateValidation {
        let budgets = validation_training_budget(exp, labels);
        if !budgets.is_empty() {
            let list = budgets
                .iter()
                .map(|(l, k, mult)| format!("{l} {mult}ε ({k} distinct releases)"))
                .collect::<Vec<_>>()
                .join(", ");
            let how = match exp.spec.tuning.validation_releases {
                ValidationReleases::Fresh => "a fresh release for each grid point whose release differs, as the paper's protocol (App. D.2) does",
                ValidationReleases::Shared => "shared validation releases: ε split evenly over the distinct releases",
            };
            notes.push(format!("Budget under private validation: each validation user spent ε; each training user spent in total {list} ({how}). The column's ε is the budget of one fit."));
        }
    }
    notes
}

/// The `privacy` record of run.json: label-bound source, methods using private records in
/// the clear, and the private-validation totals (null when not selected).
pub fn privacy_record(exp: &Experiment) -> Value {
    let all: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
    let in_clear: Vec<Value> = exp
        .methods
        .iter()
        .filter(|m| !m.method.privacy_notes().is_empty())
        .map(|m| json!({"method": m.label, "notes": m.method.privacy_notes()}))
        .collect();
    let validation = exp
        .selection
        .contains(&Selection::PrivateValidation)
        .then(|| {
            let per_method: serde_json::Map<String, Value> =
                validation_training_budget(exp, &all)
                    .into_iter()
                    .map(|(l, k, mult)| {
                        (
                            l.to_string(),
                            json!({"release_configurations": k, "training_users_epsilon_multiplier": mult}),
                        )
                    })
                    .collect();
            json!({
                "validation_releases": exp.spec.tuning.validation_releases,
                "validation_users_epsilon_multiplier": 1,
                "methods": per_method,
            })
        });
    let noise: serde_json::Map<String, Value> = exp
        .methods
        .iter()
        .filter(|m| m.method.private())
        .map(|m| (m.label.clone(), json!(m.noise)))
        .collect();
    json!({
        "noise": noise,
        "label_bounds": exp.label_bounds,
        "private_records_in_clear": in_clear,
        "private_validation": validation,
    })
}
