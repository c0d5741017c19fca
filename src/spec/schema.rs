//! The JSON Schema of the spec format (`dp-repro schema`), derived with `schemars` from
//! the serde types a spec deserializes into ([`super::raw::Spec`] and what it embeds).
//! Types with a hand-written `Deserialize` (a word or a one-key map, a word or a list)
//! have hand-written schemas beside it, built with the helpers here.
//!
//! The schema checks shapes and field names, as parsing does; [`super::validate`] checks
//! meaning (known method names, ε > 0, …), which no schema states. `specs/spec.schema.json`
//! is this output, committed so editors can point a spec at it with
//! `# yaml-language-server: $schema=…`; `tests/spec_schema.rs` keeps it current.

use schemars::{json_schema, Schema};

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

/// An object with exactly one key, `key`, whose value follows `value`: the YAML form
/// `{key: value}` of the spec's one-key maps (`{frozen: 7}`, `{parameter: depth}`).
pub(crate) fn one_key_map(key: &str, value: Schema) -> Schema {
    json_schema!({
        "type": "object",
        "properties": { key: value },
        "required": [key],
        "additionalProperties": false
    })
}

/// A string that is one of `words`.
pub(crate) fn words(words: &[&str]) -> Schema {
    json_schema!({ "type": "string", "enum": words })
}

/// Exactly one of `alternatives`, with a description.
pub(crate) fn one_of(description: &str, alternatives: Vec<Schema>) -> Schema {
    json_schema!({ "description": description, "oneOf": alternatives })
}

/// One parameter value: a number, a name or a boolean (`ParamValue::from_yaml`).
fn param_value() -> serde_json::Value {
    serde_json::json!({ "type": ["number", "string", "boolean"] })
}

/// A method entry's `grid`: parameter name → a non-empty list of values.
pub(crate) fn grid_map(_: &mut schemars::SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": { "type": "array", "items": param_value(), "minItems": 1 }
    })
}

/// A method entry's `params`: parameter name → one value.
pub(crate) fn params_map(_: &mut schemars::SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "additionalProperties": param_value() })
}

/// A figure restriction's `params`: parameter name → one value or a list of values.
pub(crate) fn allowed_params_map(_: &mut schemars::SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": {
            "anyOf": [param_value(), { "type": "array", "items": param_value() }]
        }
    })
}
