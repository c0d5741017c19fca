//! The JSON Schema of the spec format (`dp-repro schema`), derived with `schemars` from
//! the serde types a spec deserializes into ([`super::raw::Spec`] and what it embeds).
//! Types with a hand-written `Deserialize` (a word or a one-key map, a word or a list)
//! have hand-written schemas beside it, built with the helpers of [`crate::schema_parts`].
//!
//! The schema checks shapes and field names, as parsing does; [`super::validate`] checks
//! meaning (known method names, ε > 0, …), which no schema states. `specs/spec.schema.json`
//! is this output, committed so editors can point a spec at it with
//! `# yaml-language-server: $schema=…`; `tests/spec_schema.rs` keeps it current.

use schemars::Schema;

/// The schema of a spec file, as a JSON value (draft 2020-12).
pub fn spec_schema() -> Schema {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<super::Spec>();
    schema.insert(
        "title".into(),
        "dp-repro experiment spec".to_string().into(),
    );
    schema
}

/// [`spec_schema`] as pretty-printed JSON with a final newline: what `dp-repro schema`
/// prints and `specs/spec.schema.json` holds.
pub fn spec_schema_json() -> String {
    let mut text = serde_json::to_string_pretty(&spec_schema()).expect("a schema serializes");
    text.push('\n');
    text
}
