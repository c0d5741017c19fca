//! The repetition records of a run (`methods::repetition_record`): each kind of
//! per-repetition material that methods of the spec read (the privacy masks, so far) is
//! recorded under its key in run.json's `privacy` object and noted under the tables that
//! show those methods. The runner asks each method which record it uses and knows no
//! kind by name.

use super::RunError;
use crate::data::Dataset;
use crate::methods::{GridUse, RepetitionRecord, REPETITION_RECORDS};
use crate::spec::{DatasetPlan, Experiment, MethodPlan};
use serde_json::Value;
use std::sync::Arc;

/// The methods of `methods` that use `record`, as the record sees them.
fn users_of<'a>(
    record: &dyn RepetitionRecord,
    methods: impl Iterator<Item = &'a MethodPlan>,
) -> Vec<GridUse<'a>> {
    methods
        .filter(|m| {
            m.method
                .repetition_record()
                .is_some_and(|r| r.key() == record.key())
        })
        .map(|m| GridUse {
            label: &m.label,
            method: m.method.as_ref(),
            points: &m.structural,
        })
        .collect()
}

/// The methods of the experiment that run on data set `plan`.
fn running_on<'a>(
    exp: &'a Experiment,
    plan: &'a DatasetPlan,
) -> impl Iterator<Item = &'a MethodPlan> {
    exp.methods
        .iter()
        .filter(move |m| !m.skip.contains(&plan.name))
}

/// Whether [`records`] reads data set `plan`'s loaded rows after the run (it regenerates
/// the repetitions of a data set that a method with a record runs on).
pub(crate) fn reads_data_after_run(exp: &Experiment, plan: &DatasetPlan) -> bool {
    running_on(exp, plan).any(|m| m.method.repetition_record().is_some())
}

/// Every record of [`REPETITION_RECORDS`] as (key, value) for run.json's `privacy` object:
/// the record's header and, per data set with a method using it, its `datasets` entry over
/// the regenerated repetitions; null when no method of the spec uses it. `data` as from
/// `run::load_datasets`.
///
/// # Errors
/// A repetition whose split fails (as the run itself would).
pub fn records(
    exp: &Experiment,
    data: &[Option<Arc<Dataset>>],
) -> Result<Vec<(&'static str, Value)>, RunError> {
    let mut out = Vec::new();
    for &record in REPETITION_RECORDS {
        let mut per_dataset = serde_json::Map::new();
        for (di, plan) in exp.datasets.iter().enumerate() {
            let users = users_of(record, running_on(exp, plan));
            if users.is_empty() {
                continue;
            }
            let rows = data.get(di).and_then(|d| d.as_deref());
            let mut failed = None;
            let mut reps = (1..=exp.repetitions).map_while(|rep| {
                super::repetition_data(exp, plan, rows, rep)
                    .map_err(|e| failed = Some(e))
                    .ok()
            });
            let value = record.dataset(&users, &mut reps);
            if let Some(e) = failed {
                return Err(e);
            }
            per_dataset.insert(plan.name.clone(), value);
        }
        let value = if per_dataset.is_empty() {
            Value::Null
        } else {
            let mut v = record.header();
            v["datasets"] = Value::Object(per_dataset);
            v
        };
        out.push((record.key(), value));
    }
    Ok(out)
}

/// The notes of every record for a table showing the methods `labels`.
pub fn record_notes(exp: &Experiment, labels: &[&str]) -> Vec<String> {
    let shown = || {
        exp.methods
            .iter()
            .filter(|m| labels.contains(&m.label.as_str()))
    };
    REPETITION_RECORDS
        .iter()
        .flat_map(|&record| {
            let users = users_of(record, shown());
            if users.is_empty() {
                Vec::new()
            } else {
                record.notes(&users)
            }
        })
        .collect()
}
