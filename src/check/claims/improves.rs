//! `improves_with_epsilon` claims: a method's mean improves as ε grows.

use super::{eps_text, format_sci, is_better, At, Outcome, SelectedRow};

/// Outcome of an `improves_with_epsilon` claim on data set `d`: `method`'s mean improves
/// with each larger ε.
pub(super) fn improves_with_epsilon(method: &str, at: At) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let mut rows: Vec<&SelectedRow> = data
        .index
        .rows
        .get(&(d, method))
        .map(|v| v.iter().copied().filter(|r| r.epsilon.is_some()).collect())
        .unwrap_or_default();
    if rows.len() < 2 {
        return Err(format!("{method} has fewer than two ε"));
    }
    rows.sort_by(|a, b| a.epsilon.unwrap().total_cmp(&b.epsilon.unwrap()));
    let steps: Vec<String> = rows
        .windows(2)
        .filter(|w| !is_better(w[1].mean, w[0].mean, lower))
        .map(|w| {
            format!(
                "ε {} → {}: {} → {}",
                eps_text(w[0].epsilon.unwrap()),
                eps_text(w[1].epsilon.unwrap()),
                format_sci(w[0].mean),
                format_sci(w[1].mean)
            )
        })
        .collect();
    Ok(if steps.is_empty() {
        Ok(())
    } else {
        Err(steps.join("; "))
    })
}
