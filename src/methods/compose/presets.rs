//! The preset method files shipped in `specs/methods/` (LPDT-M, LPDT-V, PHIST, APHIST, DT,
//! DT-pub, the LPCT, HistOfTree and DiPriMe baselines) and the reader of method files.

use super::blocks::Composition;
use super::composed::Composed;

/// The preset files shipped in `specs/methods/`, embedded in the binary.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "specs/methods/lpdt-m.yaml",
        include_str!("../../../specs/methods/lpdt-m.yaml"),
    ),
    (
        "specs/methods/lpdt-v.yaml",
        include_str!("../../../specs/methods/lpdt-v.yaml"),
    ),
    (
        "specs/methods/aphist.yaml",
        include_str!("../../../specs/methods/aphist.yaml"),
    ),
    (
        "specs/methods/phist.yaml",
        include_str!("../../../specs/methods/phist.yaml"),
    ),
    (
        "specs/methods/dt.yaml",
        include_str!("../../../specs/methods/dt.yaml"),
    ),
    (
        "specs/methods/histoftree/dt-leaf.yaml",
        include_str!("../../../specs/methods/histoftree/dt-leaf.yaml"),
    ),
    (
        "specs/methods/histoftree/hist.yaml",
        include_str!("../../../specs/methods/histoftree/hist.yaml"),
    ),
    (
        "specs/methods/dt-pub.yaml",
        include_str!("../../../specs/methods/dt-pub.yaml"),
    ),
    (
        "specs/methods/ct-w.yaml",
        include_str!("../../../specs/methods/ct-w.yaml"),
    ),
    (
        "specs/methods/ct-q.yaml",
        include_str!("../../../specs/methods/ct-q.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-m.yaml",
        include_str!("../../../specs/methods/lpct/lpct-m.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-c.yaml",
        include_str!("../../../specs/methods/lpct/lpct-c.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-prune-m.yaml",
        include_str!("../../../specs/methods/lpct/lpct-prune-m.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-prune-c.yaml",
        include_str!("../../../specs/methods/lpct/lpct-prune-c.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-q.yaml",
        include_str!("../../../specs/methods/lpct/lpct-q.yaml"),
    ),
    (
        "specs/methods/lpct/lpct-r.yaml",
        include_str!("../../../specs/methods/lpct/lpct-r.yaml"),
    ),
    (
        "specs/methods/histoftree/histoftree-me.yaml",
        include_str!("../../../specs/methods/histoftree/histoftree-me.yaml"),
    ),
    (
        "specs/methods/histoftree/histoftree-cart.yaml",
        include_str!("../../../specs/methods/histoftree/histoftree-cart.yaml"),
    ),
    (
        "specs/methods/histoftree/adhistoftree-me.yaml",
        include_str!("../../../specs/methods/histoftree/adhistoftree-me.yaml"),
    ),
    (
        "specs/methods/histoftree/adhistoftree-cart.yaml",
        include_str!("../../../specs/methods/histoftree/adhistoftree-cart.yaml"),
    ),
    (
        "specs/methods/diprime/diprime.yaml",
        include_str!("../../../specs/methods/diprime/diprime.yaml"),
    ),
    (
        "specs/methods/diprime/diprimeexp.yaml",
        include_str!("../../../specs/methods/diprime/diprimeexp.yaml"),
    ),
    (
        "specs/methods/diprime/diprimeflip.yaml",
        include_str!("../../../specs/methods/diprime/diprimeflip.yaml"),
    ),
    (
        "specs/methods/diprime/median.yaml",
        include_str!("../../../specs/methods/diprime/median.yaml"),
    ),
    (
        "specs/methods/diprime/dp-ert.yaml",
        include_str!("../../../specs/methods/diprime/dp-ert.yaml"),
    ),
];

/// Parses and checks one method file (a preset in `specs/methods/`, or a user's own): a
/// composition plus `name` and `description` strings.
///
/// # Errors
/// A message naming the file and what is wrong in plain words, as for a spec (malformed
/// YAML, a missing `name` or `description`, an unknown or invalid block, as
/// [`Composed::new`] checks it).
pub fn parse_method_file(path: &str, text: &str) -> Result<Composed, String> {
    use crate::yaml_error::{explain, plain_types, with_suggestion};
    let mut map: serde_yaml::Mapping = serde_yaml::from_str(text).map_err(|e| {
        let (line, column, message) = explain(&e, text);
        format!(
            "{path}: {}{message}",
            crate::yaml_error::position(line, column)
        )
    })?;
    let mut take = |key: &str| match map.remove(key) {
        Some(serde_yaml::Value::String(v)) => Ok(v),
        _ => Err(format!("{path}: a method file needs a `{key}` string")),
    };
    let (name, description) = (take("name")?, take("description")?);
    // A value carries no position: the message only is put in words.
    let composition: Composition = serde_yaml::from_value(serde_yaml::Value::Mapping(map))
        .map_err(|e| format!("{path}: {}", plain_types(&with_suggestion(&e.to_string()))))?;
    Composed::new(&name, &description, composition).map_err(|e| format!("{path}: {e}"))
}

/// Whether a YAML text is a method file rather than an experiment spec: a mapping with
/// `name` and `description` but no `methods` list.
pub fn is_method_file(text: &str) -> bool {
    match serde_yaml::from_str::<serde_yaml::Mapping>(text) {
        Ok(m) => {
            let has = |k: &str| m.contains_key(serde_yaml::Value::String(k.into()));
            has("name") && has("description") && !has("methods")
        }
        Err(_) => false,
    }
}

/// Parses and checks every preset.
///
/// # Panics
/// If a shipped preset is invalid (a test checks they all load).
pub fn presets() -> Vec<Composed> {
    PRESETS
        .iter()
        .map(|(path, text)| parse_method_file(path, text).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}
