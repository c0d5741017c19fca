//! `level` claims: the means of some methods at some ε are level (their range within a
//! multiple of the largest standard error).

use super::{eps_text, format_sci, At, Outcome, SelectedRow};

/// Outcome of a `level` claim on data set `d`: the range of the means of `methods` at
/// `epsilons` is at most `within` times their largest standard error.
pub(super) fn level(
    methods: &[String],
    epsilons: &[f64],
    within: &f64,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, .. } = at;
    let mut cells = Vec::new();
    for m in methods {
        for &e in epsilons {
            let row = data
                .index
                .at(d, m, Some(e))
                .ok_or_else(|| format!("no row of {m} at ε = {}", eps_text(e)))?;
            cells.push((m.as_str(), e, row));
        }
    }
    let key = |r: &&SelectedRow| r.mean;
    let (lo, hi) = cells
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), c| {
            (a.min(key(&c.2)), b.max(key(&c.2)))
        });
    let se = cells.iter().map(|c| c.2.std_error()).fold(0.0f64, f64::max);
    Ok(if hi - lo <= within * se {
        Ok(())
    } else {
        let listed: Vec<String> = cells
            .iter()
            .map(|(m, e, r)| format!("{m} ε {} {}", eps_text(*e), format_sci(r.mean)))
            .collect();
        Err(format!(
            "range {} > {within} × SE {}: {}",
            format_sci(hi - lo),
            format_sci(se),
            listed.join(", ")
        ))
    })
}
