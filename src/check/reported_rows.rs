//! Rows as the reported-value checks read them: the method key of a reported file's
//! record, and our selected rows as ratios to a denominator method (for papers that report
//! MSE ratios). Shared by the cell, ε-inference and rank-sum checks.

use std::collections::HashMap;

use super::{eps_text, CsvTable, SelectedRow};

/// The method key of a CSV record: the non-empty fields of `columns`, joined by `/`.
pub(crate) fn method_key(t: &CsvTable, r: &csv::StringRecord, columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| t.get(r, c))
        .filter(|f| !f.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}

/// Our rows as ratios to `denominator` (MSE ratios, `docs/methods/histoftree.md` §10): every row of
/// another method whose data set has a `denominator` row at the same ε or a non-private
/// one (preferred in that order) becomes mean / D, std / D, median / D with D the
/// denominator's mean (the denominator's own noise is not propagated); rows without a
/// denominator are left out, as are the denominator's own rows.
pub fn ratio_rows(selected: &[SelectedRow], denominator: &str) -> Vec<SelectedRow> {
    let mut means: HashMap<(&str, String), f64> = HashMap::new();
    for r in selected.iter().filter(|r| r.method == denominator) {
        let et = r.epsilon.map(eps_text).unwrap_or_default();
        means.insert((r.dataset.as_str(), et), r.mean);
    }
    selected
        .iter()
        .filter(|r| r.method != denominator)
        .filter_map(|r| {
            let et = r.epsilon.map(eps_text).unwrap_or_default();
            let d = means
                .get(&(r.dataset.as_str(), et))
                .or_else(|| means.get(&(r.dataset.as_str(), String::new())))?;
            Some(SelectedRow {
                mean: r.mean / d,
                std: r.std / d,
                median: r.median / d,
                ..r.clone()
            })
        })
        .collect()
}
