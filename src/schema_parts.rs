//! Building blocks of the spec's JSON Schema (`dp-repro schema`, [`crate::spec::schema`]):
//! the hand-written schemas of the types whose `Deserialize` is hand-written (a word or a
//! one-key map, a word or a list), wherever in the crate those types live.

use schemars::{json_schema, Schema};

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
