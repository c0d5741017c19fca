//! The YAML word of a spec value, for messages, descriptions and notes: `max_edge` for a
//! unit enum value, `0.5` for a number. On the ground floor, so `data/`, `methods/` and
//! `spec/` say a value as a spec writes it in one way.

use serde::Serialize;

/// `v` as a spec writes it: a string (a unit enum value serializes to one) as it is,
/// without the quotes YAML would put around `1` or `true`; any other value as its YAML text,
/// trimmed (`0.5`; a list in block style). Empty if `v` does not serialize.
pub fn yaml_word<T: Serialize + ?Sized>(v: &T) -> String {
    match serde_yaml::to_value(v) {
        Ok(serde_yaml::Value::String(s)) => s,
        Ok(other) => serde_yaml::to_string(&other)
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::yaml_word;

    #[derive(serde::Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Rule {
        MaxEdge,
    }

    #[test]
    fn words_are_written_as_in_a_spec() {
        assert_eq!(yaml_word(&Rule::MaxEdge), "max_edge");
        assert_eq!(yaml_word("1"), "1");
        assert_eq!(yaml_word("true"), "true");
        assert_eq!(yaml_word(&0.5), "0.5");
        assert_eq!(yaml_word(&[1, 2]), "- 1\n- 2");
    }
}
