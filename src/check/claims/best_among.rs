//! `best_among` claims: the named methods hold the best mean among a set.

use super::{format_sci, is_better, At, Outcome};

/// Outcome of a `best_among` claim on data set `d`: the best mean among `among` at
/// `epsilon` belongs to one of `methods`.
pub(super) fn best_among(
    methods: &[String],
    among: &[String],
    epsilon: &f64,
    at: At,
) -> Result<Outcome, String> {
    let At { d, data, lower } = at;
    let ran: Vec<(&str, f64)> = among
        .iter()
        .filter_map(|m| {
            data.index
                .at(d, m, Some(*epsilon))
                .map(|r| (m.as_str(), r.mean))
        })
        .collect();
    let ours: Vec<&(&str, f64)> = ran
        .iter()
        .filter(|(m, _)| methods.iter().any(|x| x == m))
        .collect();
    if ours.is_empty() {
        return Err(format!("none of {} ran", methods.join(", ")));
    }
    // Best of ours (NaN never best), then whether a competitor is strictly better.
    let best_ours = ours.iter().filter(|(_, v)| !v.is_nan()).fold(
        None::<(&str, f64)>,
        |acc, (m, v)| match acc {
            Some((_, bv)) if !is_better(*v, bv, lower) => acc,
            _ => Some((m, *v)),
        },
    );
    let best_other = ran
        .iter()
        .filter(|(m, v)| !methods.iter().any(|x| x == m) && !v.is_nan())
        .fold(None::<(&str, f64)>, |acc, (m, v)| match acc {
            Some((_, bv)) if !is_better(*v, bv, lower) => acc,
            _ => Some((m, *v)),
        });
    Ok(match (best_ours, best_other) {
        (None, _) => Err("mean is NaN".to_string()),
        (Some(_), None) => Ok(()),
        (Some((om, ov)), Some((bm, bv))) => {
            if is_better(bv, ov, lower) {
                Err(format!(
                    "{bm} {} vs {om} {}",
                    format_sci(bv),
                    format_sci(ov)
                ))
            } else {
                Ok(())
            }
        }
    })
}
