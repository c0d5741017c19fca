//! Claims that one method is better than another on a data set: by mean (`better`) and by
//! a one-sided Wilcoxon signed-rank test (`significantly_better`).

use super::{format_sci, is_better, At, Outcome};

/// Outcome of a `better` claim on data set `d`: `method`'s mean better than `than`'s at
/// `epsilon` (a non-private side uses its row).
pub(super) fn better(
    method: &str,
    than: &str,
    epsilon: &Option<f64>,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let a = data.index.at(d, method, *epsilon);
    let b = data.index.at(d, than, *epsilon);
    match (a, b) {
        (Some(a), Some(b)) => Ok(if is_better(a.mean, b.mean, lower) {
            Ok(())
        } else {
            Err(format!(
                "{method} {} vs {than} {}",
                format_sci(a.mean),
                format_sci(b.mean)
            ))
        }),
        (a, b) => {
            let missing: Vec<&str> = [(a, method), (b, than)]
                .into_iter()
                .filter(|(r, _)| r.is_none())
                .map(|(_, m)| m)
                .collect();
            Err(format!("no row of {}", missing.join(" and ")))
        }
    }
}

/// Outcome of a `significantly_better` claim on data set `d`: the one-sided Wilcoxon
/// signed-rank test of `method` against `than` at `epsilon` (tests.csv) has p < `alpha`.
pub(super) fn significantly_better(
    method: &str,
    than: &str,
    epsilon: &f64,
    alpha: &f64,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let alt = if lower { "less" } else { "greater" };
    let row = data.tests.iter().find(|t| {
        t.dataset == d
            && t.method == *method
            && t.other == *than
            && t.epsilon == Some(*epsilon)
            && t.alternative == alt
    });
    match row {
        None => Err(format!("no `{alt}` test of {method} against {than}")),
        Some(t) => Ok(match t.p_value {
            Some(p) if p < *alpha => Ok(()),
            Some(p) => Err(format!("p = {}", format_sci(p))),
            None => Err("test undefined".to_string()),
        }),
    }
}
