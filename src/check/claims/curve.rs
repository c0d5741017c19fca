//! `better_on_curve` claims: better at every x of a figure's curves; the verdict of a
//! curve claim.

use super::{eps_text, format_sci, is_better, At, CurvePoint, Data, Outcome};

/// Outcome of a `better_on_curve` claim on data set `d`: `method` better than each of
/// `than` at every x of `figure` in [`x_min`, `x_max`].
pub(super) fn better_on_curve(
    figure: &str,
    method: &str,
    than: &[String],
    epsilon: &Option<f64>,
    x_min: &Option<f64>,
    x_max: &Option<f64>,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let points: Vec<&CurvePoint> = figure_points(data, figure, d, *epsilon)
        .filter(|p| x_min.is_none_or(|a| p.x >= a) && x_max.is_none_or(|b| p.x <= b))
        .collect();
    if points.is_empty() {
        return Err(format!("no point of figure {figure}"));
    }
    // The other method's point at the same x and ε (its non-private curve at any ε).
    let at = |m: &str, x: f64, e: Option<f64>| {
        points
            .iter()
            .find(|p| p.method == m && p.x == x && (p.epsilon == e || p.epsilon.is_none()))
            .map(|p| p.mean)
    };
    let mut compared = 0;
    let mut fails = Vec::new();
    for p in points.iter().filter(|p| p.method == *method) {
        for other in than {
            if let Some(o) = at(other, p.x, p.epsilon) {
                compared += 1;
                if !is_better(p.mean, o, lower) {
                    let e = epsilon_suffix(p.epsilon);
                    fails.push(format!(
                        "x = {}{e}: {method} {} vs {other} {}",
                        p.x,
                        format_sci(p.mean),
                        format_sci(o)
                    ));
                }
            }
        }
    }
    curve_verdict(compared, fails, method, than, figure)
}

/// The verdict of a curve claim that compared `method` with `others` at `compared` points
/// of `figure` and failed at `fails`: an error when no point was compared (the claim is not
/// defined), else holds (`Ok(Ok)`) or fails with the points joined.
pub(super) fn curve_verdict(
    compared: usize,
    fails: Vec<String>,
    method: &str,
    others: &[String],
    figure: &str,
) -> Result<Result<(), String>, String> {
    if compared == 0 {
        return Err(format!(
            "{method} and {} share no x in figure {figure}",
            others.join(", ")
        ));
    }
    Ok(if fails.is_empty() {
        Ok(())
    } else {
        Err(fails.join("; "))
    })
}

/// " ε 2" for a curve point at ε = 2, nothing for a non-private point.
pub(super) fn epsilon_suffix(epsilon: Option<f64>) -> String {
    epsilon
        .map(|e| format!(" ε {}", eps_text(e)))
        .unwrap_or_default()
}

/// The points of `figure`'s curves on data set `d`, at `epsilon` when it is given (a
/// non-private point stands for every ε).
pub(super) fn figure_points<'a>(
    data: &'a Data,
    figure: &'a str,
    d: &'a str,
    epsilon: Option<f64>,
) -> impl Iterator<Item = &'a CurvePoint> {
    data.curves.iter().filter(move |p| {
        p.figure == figure
            && p.dataset == d
            && epsilon.is_none_or(|e| p.epsilon.is_none_or(|pe| pe == e))
    })
}
