//! What a run records about the material its methods read per repetition beyond the split
//! (docs/architecture.md, "Privacy models"). A method names its record with
//! [`super::Method::repetition_record`]; the runner, knowing no privacy model, writes each
//! record of [`super::REPETITION_RECORDS`] (the registry's list) under its key in run.json's
//! `privacy` object and adds its sentences to the notes of the tables that show its methods.

use super::{Method, Params, RepData};
use serde_json::Value;

/// One method of a spec as a record sees it.
#[derive(Clone, Copy)]
pub struct GridUse<'a> {
    /// The method's label in the spec.
    pub label: &'a str,
    /// The method.
    pub method: &'a dyn Method,
    /// Its structural grid points.
    pub points: &'a [Params],
}

/// A kind of per-repetition material, its run.json record and its table notes.
pub trait RepetitionRecord: Sync {
    /// The key under run.json's `privacy` object (null there when no method of the spec
    /// uses the record).
    fn key(&self) -> &'static str;
    /// The fields of the record that hold whatever the data set (a JSON object); the
    /// runner adds `datasets`.
    fn header(&self) -> Value;
    /// The record of one data set, from the methods `users` that run on it and the data of
    /// its repetitions, in repetition order.
    fn dataset(&self, users: &[GridUse<'_>], reps: &mut dyn Iterator<Item = RepData>) -> Value;
    /// Table notes for the methods `users` shown in a table.
    fn notes(&self, users: &[GridUse<'_>]) -> Vec<String>;
}
