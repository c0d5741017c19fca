//! "Did you mean": the valid name a misspelled or miscased one most likely stands for, for
//! the messages about unknown methods, data sets, spec fields and parameters (clap
//! suggests the command line's flags and subcommands itself).

/// How similar a misspelling must be to a valid name (normalized Damerau–Levenshtein
/// similarity of the lowercased names, 1 = equal) to be suggested: `epsilon` for
/// `epsilons` (0.88) and `airfoi` for `airfoil` (0.86) are, `DT` for `RF` (0) is not.
const MIN_SIMILARITY: f64 = 0.7;

/// Lowercase letters and digits only: `min_leaf`, `Min-Leaf` and `minleaf` agree.
fn squashed(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The candidate `name` most likely stands for: one equal to it ignoring case first, then
/// one equal ignoring case, `-`, `_` and spaces, then the most similar one (by
/// normalized Damerau–Levenshtein similarity, at least 0.7; the first of equals). None
/// when `name` is itself a candidate or nothing is close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    if candidates.contains(&name) {
        return None;
    }
    let lower = name.to_lowercase();
    if let Some(c) = candidates.iter().find(|c| c.to_lowercase() == lower) {
        return Some(c);
    }
    let squash = squashed(name);
    if !squash.is_empty() {
        if let Some(c) = candidates.iter().find(|c| squashed(c) == squash) {
            return Some(c);
        }
    }
    let mut best: Option<(f64, &'a str)> = None;
    for c in candidates {
        let s = strsim::normalized_damerau_levenshtein(&lower, &c.to_lowercase());
        if s >= MIN_SIMILARITY && best.is_none_or(|(b, _)| s > b) {
            best = Some((s, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `` (did you mean `X`?)`` for the candidate [`closest`] to `name`, or an empty string:
/// written right after the unknown `name` in a message.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METHODS: [&str; 5] = ["LPDT-M", "LPDT-V", "DT", "PHIST", "APHIST"];

    #[test]
    fn case_first_then_separators_then_similarity() {
        assert_eq!(closest("lpdt-m", METHODS), Some("LPDT-M"));
        assert_eq!(closest("dt", METHODS), Some("DT"));
        assert_eq!(closest("lpdt_v", METHODS), Some("LPDT-V"));
        assert_eq!(
            closest("minleaf", ["depth", "min_leaf", "rho"]),
            Some("min_leaf")
        );
        assert_eq!(closest("airfoi", ["abalone", "airfoil"]), Some("airfoil"));
        assert_eq!(closest("epsilon", ["seed", "epsilons"]), Some("epsilons"));
        assert_eq!(closest("PHSIT", METHODS), Some("PHIST"));
    }

    #[test]
    fn nothing_for_valid_or_unrelated_names() {
        assert_eq!(closest("DT", METHODS), None);
        assert_eq!(closest("RF", METHODS), None);
        assert_eq!(closest("", METHODS), None);
        assert_eq!(did_you_mean("forest", METHODS), "");
        assert_eq!(did_you_mean("lpdt-m", METHODS), " (did you mean `LPDT-M`?)");
    }
}
