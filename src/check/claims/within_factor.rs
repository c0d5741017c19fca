//! `within_factor` claims: a method is within a factor of the best of others, on the
//! selected rows or at every x of a figure.

use super::curve::{curve_verdict, epsilon_suffix, figure_points};
use super::{best_of, format_sci, shown_value, At, CurvePoint, Outcome};

/// Outcome of a `within_factor` claim on data set `d` read from the selected rows:
/// `method`'s value within `factor` of the best of `of` (as ratios to `ratio_to` when
/// given).
pub(super) fn on_rows(
    method: &str,
    of: &[String],
    factor: &f64,
    epsilon: &Option<f64>,
    ratio_to: &Option<String>,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let value = |m: &str| shown_value(data.index, d, m, *epsilon, ratio_to.as_deref());
    let a = value(method).ok_or_else(|| format!("no row of {method}"))?;
    let best = best_of(
        of.iter().filter_map(|m| value(m).map(|v| (m.as_str(), v))),
        lower,
    )
    .ok_or_else(|| format!("no row of {}", of.join(", ")))?;
    Ok(within(a, best.1, *factor, lower)
        .then_some(())
        .ok_or_else(|| {
            format!(
                "{method} {} vs best {} {} (factor {})",
                format_sci(a),
                best.0,
                format_sci(best.1),
                format_sci(a / best.1)
            )
        }))
}

/// Outcome of a `within_factor` claim on data set `d` read from `figure`'s curves: within
/// `factor` of the best of `of` at every x.
pub(super) fn on_curve(
    method: &str,
    of: &[String],
    factor: &f64,
    epsilon: &Option<f64>,
    figure: &str,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let points: Vec<&CurvePoint> = figure_points(data, figure, d, *epsilon).collect();
    let mut compared = 0;
    let mut fails = Vec::new();
    for p in points.iter().filter(|p| p.method == *method) {
        let others = points.iter().filter(|q| {
            q.x == p.x && of.contains(&q.method) && (q.epsilon == p.epsilon || q.epsilon.is_none())
        });
        let Some((m, b)) = best_of(others.map(|q| (q.method.as_str(), q.mean)), lower) else {
            continue;
        };
        compared += 1;
        if !within(p.mean, b, *factor, lower) {
            let e = epsilon_suffix(p.epsilon);
            fails.push(format!(
                "x = {}{e}: {method} {} vs best {m} {}",
                p.x,
                format_sci(p.mean),
                format_sci(b)
            ));
        }
    }
    curve_verdict(compared, fails, method, of, figure)
}

/// `value` within `factor` of `best`: ≤ factor × best when lower is better, else
/// ≥ best / factor.
pub(super) fn within(value: f64, best: f64, factor: f64, lower: bool) -> bool {
    if lower {
        value <= factor * best
    } else {
        value >= best / factor
    }
}
