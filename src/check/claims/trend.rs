//! `trend_across_datasets` claims: a method's mean moves one way along its data sets.

use super::{format_sci, is_better, Claim, Index, TrendDirection};

/// A `trend_across_datasets` claim: (holds, details listing every mean and any step back
/// beyond the slack).
pub(super) fn trend_across_datasets(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
    let Claim::TrendAcrossDatasets {
        method,
        datasets,
        epsilon,
        direction,
        slack,
        ..
    } = claim
    else {
        return (false, String::new());
    };
    let mut rows = Vec::new();
    for d in datasets {
        match index.at(d, method, *epsilon) {
            Some(r) => rows.push((d.as_str(), r)),
            None => return (false, format!("undefined: no row of {method} on {d}")),
        }
    }
    // `forward(a, b)`: b is a step in the claimed direction from a.
    let forward = |a: f64, b: f64| match direction {
        TrendDirection::Worse => is_better(a, b, lower),
        TrendDirection::Better => is_better(b, a, lower),
    };
    let mut back = Vec::new();
    for w in rows.windows(2) {
        let ((da, a), (db, b)) = (w[0], w[1]);
        let se = (a.std_error().powi(2) + b.std_error().powi(2)).sqrt();
        if !forward(a.mean, b.mean) && (b.mean - a.mean).abs() > slack * se {
            back.push(format!(
                "{da} → {db}: {} → {} (more than {slack} × SE {})",
                format_sci(a.mean),
                format_sci(b.mean),
                format_sci(se)
            ));
        }
    }
    let (first, last) = (rows[0].1.mean, rows[rows.len() - 1].1.mean);
    let overall = forward(first, last);
    let means: Vec<String> = rows
        .iter()
        .map(|(d, r)| format!("{d} {}", format_sci(r.mean)))
        .collect();
    let mut details = means.join(", ");
    if !overall {
        details.push_str("; the last is not past the first");
    }
    if !back.is_empty() {
        details.push_str(&format!("; steps back: {}", back.join("; ")));
    }
    (overall && back.is_empty(), details)
}
