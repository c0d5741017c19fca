//! Claims: the paper's qualitative statements (the `claims:` grammar of
//! [`crate::spec::claims`]), evaluated on our results (issue 3, item 2).

mod describe;

use std::collections::HashMap;

use super::{eps_text, CurvePoint, LeafBalance, SelectedRow, TestRow};
use crate::report::{format_ratio, format_sci};
use crate::stats::rank_sums_competition;

pub use crate::spec::claims::{validate_claims, AtLeast, Claim, ClaimTies, TrendDirection};

/// The outcome of one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCheck {
    /// The claim's `id`, or its generated description.
    pub label: String,
    /// The generated description ([`Claim::describe`]).
    pub description: String,
    /// The paper's words, if the claim gives them.
    pub text: Option<String>,
    /// Whether it holds: defined on at least one data set and `count ≥ needed`.
    pub holds: bool,
    /// Number of data sets on which it holds.
    pub count: usize,
    /// Number of data sets on which it is defined.
    pub out_of: usize,
    /// Number needed (`k`, or `out_of` for `all`).
    pub needed: usize,
    /// The claim's `known_failure` reason, if any.
    pub known_failure: Option<String>,
    /// Where it fails and where it is undefined, with the values involved.
    pub details: String,
}

impl ClaimCheck {
    /// A failing claim without a `known_failure`.
    pub fn regressed(&self) -> bool {
        !self.holds && self.known_failure.is_none()
    }
}

/// Selected rows indexed by data set and method, with the data sets in order of first
/// appearance.
struct Index<'a> {
    datasets: Vec<&'a str>,
    rows: HashMap<(&'a str, &'a str), Vec<&'a SelectedRow>>,
}

impl<'a> Index<'a> {
    fn new(selected: &'a [SelectedRow]) -> Index<'a> {
        let mut datasets = Vec::new();
        let mut rows: HashMap<(&str, &str), Vec<&SelectedRow>> = HashMap::new();
        for r in selected {
            if !datasets.contains(&r.dataset.as_str()) {
                datasets.push(r.dataset.as_str());
            }
            rows.entry((r.dataset.as_str(), r.method.as_str()))
                .or_default()
                .push(r);
        }
        Index { datasets, rows }
    }

    /// The row of `method` on `dataset` at `epsilon` (a private row), falling back to
    /// the non-private row; with `epsilon = None` the non-private row only.
    fn at(&self, dataset: &str, method: &str, epsilon: Option<f64>) -> Option<&'a SelectedRow> {
        let rows = self.rows.get(&(dataset, method))?;
        let np = || rows.iter().copied().find(|r| r.epsilon.is_none());
        match epsilon {
            Some(e) => rows
                .iter()
                .copied()
                .find(|r| r.epsilon == Some(e))
                .or_else(np),
            None => np(),
        }
    }
}

/// A `trend_across_datasets` claim: (holds, details listing every mean and any step back
/// beyond the slack).
fn trend_across_datasets(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
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

fn is_better(a: f64, b: f64, lower: bool) -> bool {
    if lower {
        a < b
    } else {
        a > b
    }
}

/// Evaluates every claim on our selected rows and tests. `lower_is_better` is true for
/// error metrics (MSE) and false for accuracy. An invalid claim ([`Claim::validate`])
/// does not hold and its details say why. Data sets are those of `selected`, in order of
/// first appearance.
pub fn evaluate_claims(
    claims: &[Claim],
    selected: &[SelectedRow],
    tests: &[TestRow],
    curves: &[CurvePoint],
    lower_is_better: bool,
) -> Vec<ClaimCheck> {
    evaluate_claims_with_leaves(claims, selected, tests, curves, &[], lower_is_better)
}

/// [`evaluate_claims`] with the leaf-occupancy summaries `leaves` (read by
/// [`super::read_leaf_balance`]) that `balanced_leaves` claims are checked on.
pub fn evaluate_claims_with_leaves(
    claims: &[Claim],
    selected: &[SelectedRow],
    tests: &[TestRow],
    curves: &[CurvePoint],
    leaves: &[LeafBalance],
    lower_is_better: bool,
) -> Vec<ClaimCheck> {
    let index = Index::new(selected);
    let data = Data {
        index: &index,
        tests,
        curves,
        leaves,
    };
    claims
        .iter()
        .enumerate()
        .map(|(i, c)| evaluate(c, i, &data, lower_is_better))
        .collect()
}

/// What claims are evaluated on.
struct Data<'a> {
    index: &'a Index<'a>,
    tests: &'a [TestRow],
    curves: &'a [CurvePoint],
    leaves: &'a [LeafBalance],
}

/// Per data set: `Some(Ok(()))` holds, `Some(Err(why))` fails, `None` undefined (why).
type Outcome = Result<(), String>;

fn evaluate(claim: &Claim, i: usize, data: &Data, lower: bool) -> ClaimCheck {
    let index = data.index;
    let description = claim.describe();
    let label = claim
        .id()
        .map(str::to_string)
        .unwrap_or_else(|| description.clone());
    let mut out = ClaimCheck {
        label,
        description,
        text: claim.text().map(str::to_string),
        holds: false,
        count: 0,
        out_of: 0,
        needed: 0,
        known_failure: claim.known_failure().map(str::to_string),
        details: String::new(),
    };
    if let Err(e) = claim.validate(i) {
        out.details = format!("invalid claim: {e}");
        return out;
    }
    if let Claim::BalancedLeaves {
        figure,
        method,
        than,
        ..
    } = claim
    {
        let (holds, details) = balanced_leaves(figure, method, than, data.leaves);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    if let Claim::TrendAcrossDatasets { .. } = claim {
        let (holds, details) = trend_across_datasets(claim, index, lower);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    if let Claim::BestRankSum { .. } = claim {
        let (holds, details) = best_rank_sum(claim, index, lower);
        out.out_of = 1;
        out.needed = 1;
        out.count = usize::from(holds);
        out.holds = holds;
        out.details = details;
        return out;
    }
    let mut per: Vec<(&str, Outcome)> = Vec::new();
    let mut undefined: Vec<String> = Vec::new();
    for &d in &index.datasets {
        if !applies_to(claim, d, data) {
            continue;
        }
        match outcome(claim, d, data, lower) {
            Ok(o) => per.push((d, o)),
            Err(why) => undefined.push(format!("{d} ({why})")),
        }
    }
    out.out_of = per.len();
    out.count = per.iter().filter(|(_, o)| o.is_ok()).count();
    out.needed = claim.at_least().needed(out.out_of);
    out.holds = out.out_of > 0 && out.count >= out.needed;
    let fails: Vec<String> = per
        .iter()
        .filter_map(|(d, o)| o.as_ref().err().map(|why| format!("{d} ({why})")))
        .collect();
    let mut parts = Vec::new();
    if out.out_of == 0 {
        parts.push("defined on no data set".to_string());
    } else if fails.is_empty() {
        parts.push("holds on every data set where defined".to_string());
    } else {
        parts.push(format!("fails on {}", fails.join(", ")));
    }
    if out.needed > out.out_of && out.out_of > 0 {
        parts.push(format!(
            "needs {} data sets but is defined on only {}",
            out.needed, out.out_of
        ));
    }
    if !undefined.is_empty() {
        parts.push(format!("not defined on {}", undefined.join(", ")));
    }
    out.details = parts.join("; ");
    out
}

/// Whether data set `d` is one the claim speaks of at all (left out of the report
/// otherwise): a `level` claim's `datasets`, a `better_on_curve` claim's figure's data sets
/// (with points in its x range).
fn applies_to(claim: &Claim, d: &str, data: &Data) -> bool {
    match claim {
        Claim::Level {
            datasets: Some(ds), ..
        } => ds.iter().any(|x| x == d),
        Claim::BetterOnCurve {
            figure,
            x_min,
            x_max,
            ..
        } => data.curves.iter().any(|p| {
            p.figure == *figure
                && p.dataset == d
                && x_min.is_none_or(|a| p.x >= a)
                && x_max.is_none_or(|b| p.x <= b)
        }),
        Claim::WithinFactor {
            figure: Some(figure),
            ..
        } => data
            .curves
            .iter()
            .any(|p| p.figure == *figure && p.dataset == d),
        _ => true,
    }
}

/// Outcome of `claim` on data set `d`: `Ok(outcome)` when defined, `Err(why)` when not.
fn outcome(claim: &Claim, d: &str, data: &Data, lower: bool) -> Result<Outcome, String> {
    let (index, tests) = (data.index, data.tests);
    let sci = format_sci;
    match claim {
        Claim::Better {
            method,
            than,
            epsilon,
            ..
        } => {
            let a = index.at(d, method, *epsilon);
            let b = index.at(d, than, *epsilon);
            match (a, b) {
                (Some(a), Some(b)) => Ok(if is_better(a.mean, b.mean, lower) {
                    Ok(())
                } else {
                    Err(format!(
                        "{method} {} vs {than} {}",
                        sci(a.mean),
                        sci(b.mean)
                    ))
                }),
                (a, b) => {
                    let missing: Vec<&str> = [(a, method), (b, than)]
                        .into_iter()
                        .filter(|(r, _)| r.is_none())
                        .map(|(_, m)| m.as_str())
                        .collect();
                    Err(format!("no row of {}", missing.join(" and ")))
                }
            }
        }
        Claim::SignificantlyBetter {
            method,
            than,
            epsilon,
            alpha,
            ..
        } => {
            let alt = if lower { "less" } else { "greater" };
            let row = tests.iter().find(|t| {
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
                    Some(p) => Err(format!("p = {}", sci(p))),
                    None => Err("test undefined".to_string()),
                }),
            }
        }
        Claim::BestAmong {
            methods,
            among,
            epsilon,
            ..
        } => {
            let ran: Vec<(&str, f64)> = among
                .iter()
                .filter_map(|m| index.at(d, m, Some(*epsilon)).map(|r| (m.as_str(), r.mean)))
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
                        Err(format!("{bm} {} vs {om} {}", sci(bv), sci(ov)))
                    } else {
                        Ok(())
                    }
                }
            })
        }
        Claim::BestRankSum { .. } => Err("a rank sum runs over every data set".to_string()),
        Claim::TrendAcrossDatasets { .. } => {
            Err("a trend runs over its data sets together".to_string())
        }
        Claim::BalancedLeaves { .. } => Err("a leaf-balance claim reads its figure".to_string()),
        Claim::WithinFactor {
            method,
            of,
            factor,
            epsilon,
            figure: None,
            ratio_to,
            ..
        } => {
            let value = |m: &str| shown_value(index, d, m, *epsilon, ratio_to.as_deref());
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
                        sci(a),
                        best.0,
                        sci(best.1),
                        sci(a / best.1)
                    )
                }))
        }
        Claim::WithinFactor {
            method,
            of,
            factor,
            epsilon,
            figure: Some(figure),
            ..
        } => {
            let points: Vec<&CurvePoint> = data
                .curves
                .iter()
                .filter(|p| {
                    p.figure == *figure
                        && p.dataset == d
                        && epsilon.is_none_or(|e| p.epsilon.is_none_or(|pe| pe == e))
                })
                .collect();
            let mut compared = 0;
            let mut fails = Vec::new();
            for p in points.iter().filter(|p| p.method == *method) {
                let others = points.iter().filter(|q| {
                    q.x == p.x
                        && of.contains(&q.method)
                        && (q.epsilon == p.epsilon || q.epsilon.is_none())
                });
                let Some((m, b)) = best_of(others.map(|q| (q.method.as_str(), q.mean)), lower)
                else {
                    continue;
                };
                compared += 1;
                if !within(p.mean, b, *factor, lower) {
                    let e = epsilon_suffix(p.epsilon);
                    fails.push(format!(
                        "x = {}{e}: {method} {} vs best {m} {}",
                        p.x,
                        sci(p.mean),
                        sci(b)
                    ));
                }
            }
            curve_verdict(compared, fails, method, of, figure)
        }
        Claim::ImprovesWithEpsilon { method, .. } => {
            let mut rows: Vec<&SelectedRow> = index
                .rows
                .get(&(d, method.as_str()))
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
                        sci(w[0].mean),
                        sci(w[1].mean)
                    )
                })
                .collect();
            Ok(if steps.is_empty() {
                Ok(())
            } else {
                Err(steps.join("; "))
            })
        }
        Claim::Level {
            methods,
            epsilons,
            within,
            ..
        } => {
            let mut cells = Vec::new();
            for m in methods {
                for &e in epsilons {
                    let row = index
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
                    .map(|(m, e, r)| format!("{m} ε {} {}", eps_text(*e), sci(r.mean)))
                    .collect();
                Err(format!(
                    "range {} > {within} × SE {}: {}",
                    sci(hi - lo),
                    sci(se),
                    listed.join(", ")
                ))
            })
        }
        Claim::BetterOnCurve {
            figure,
            method,
            than,
            epsilon,
            x_min,
            x_max,
            ..
        } => {
            let points: Vec<&CurvePoint> = data
                .curves
                .iter()
                .filter(|p| {
                    p.figure == *figure
                        && p.dataset == d
                        && epsilon.is_none_or(|e| p.epsilon.is_none_or(|pe| pe == e))
                        && x_min.is_none_or(|a| p.x >= a)
                        && x_max.is_none_or(|b| p.x <= b)
                })
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
                                sci(p.mean),
                                sci(o)
                            ));
                        }
                    }
                }
            }
            curve_verdict(compared, fails, method, than, figure)
        }
    }
}

/// The value a claim compares for `method` on data set `d`: its mean at `epsilon` (or its
/// non-private row), or with `ratio_to` the ratio to that method's mean at the table's
/// printed precision ([`format_ratio`] read back); `None` without a row (or denominator).
fn shown_value(
    index: &Index,
    d: &str,
    method: &str,
    epsilon: Option<f64>,
    ratio_to: Option<&str>,
) -> Option<f64> {
    let m = index.at(d, method, epsilon)?.mean;
    match ratio_to {
        None => Some(m),
        Some(den) => {
            let r = m / index.at(d, den, epsilon)?.mean;
            format_ratio(r).parse().ok().or(Some(r))
        }
    }
}

/// The best of (method, value) pairs (NaN never best; the first on ties).
fn best_of<'a>(
    values: impl Iterator<Item = (&'a str, f64)>,
    lower: bool,
) -> Option<(&'a str, f64)> {
    values
        .filter(|(_, v)| !v.is_nan())
        .fold(None, |acc: Option<(&str, f64)>, (m, v)| match acc {
            Some((_, b)) if !is_better(v, b, lower) => acc,
            _ => Some((m, v)),
        })
}

/// `value` within `factor` of `best`: ≤ factor × best when lower is better, else
/// ≥ best / factor.
fn within(value: f64, best: f64, factor: f64, lower: bool) -> bool {
    if lower {
        value <= factor * best
    } else {
        value >= best / factor
    }
}

/// Evaluates a `best_rank_sum` claim: (holds, details listing every rank sum).
fn best_rank_sum(claim: &Claim, index: &Index, lower: bool) -> (bool, String) {
    let Claim::BestRankSum {
        methods,
        among,
        epsilon,
        ties,
        ratio_to,
        ..
    } = claim
    else {
        return (false, "not a best_rank_sum claim".to_string());
    };
    let mut table: Vec<Vec<Option<f64>>> = Vec::new();
    let mut skipped = Vec::new();
    for &d in &index.datasets {
        if among
            .iter()
            .all(|m| index.at(d, m, Some(*epsilon)).is_none())
        {
            continue;
        }
        if let Some(den) = ratio_to {
            if index.at(d, den, Some(*epsilon)).is_none() {
                skipped.push(d);
                continue;
            }
        }
        table.push(
            among
                .iter()
                .map(|m| shown_value(index, d, m, Some(*epsilon), ratio_to.as_deref()))
                .collect(),
        );
    }
    if table.is_empty() {
        return (
            false,
            format!(
                "defined on no data set: none of {} ran at ε = {}",
                among.join(", "),
                eps_text(*epsilon)
            ),
        );
    }
    let worst = if lower {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    };
    let sums = rank_sums_competition(&table, lower, worst, ties.rank());
    let lowest = sums.iter().copied().min().unwrap_or(0);
    let holds = among
        .iter()
        .zip(&sums)
        .any(|(m, &s)| s == lowest && methods.contains(m));
    let listed: Vec<String> = among
        .iter()
        .zip(&sums)
        .map(|(m, s)| format!("{m} {s}{}", if *s == lowest { "*" } else { "" }))
        .collect();
    let mut details = format!(
        "rank sums over {} data sets: {}",
        table.len(),
        listed.join(", ")
    );
    if !skipped.is_empty() {
        details.push_str(&format!(
            "; not ranked (no {} row): {}",
            ratio_to.as_deref().unwrap_or(""),
            skipped.join(", ")
        ));
    }
    (holds, details)
}

/// " ε 2" for a curve point at ε = 2, nothing for a non-private point.
fn epsilon_suffix(epsilon: Option<f64>) -> String {
    epsilon
        .map(|e| format!(" ε {}", eps_text(e)))
        .unwrap_or_default()
}

/// The verdict of a curve claim that compared `method` with `others` at `compared` points
/// of `figure` and failed at `fails`: an error when no point was compared (the claim is not
/// defined), else holds (`Ok(Ok)`) or fails with the points joined.
fn curve_verdict(
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

/// A `balanced_leaves` claim: `method`'s coefficient of variation of leaf sizes on
/// `figure` is strictly below that of every method of `than`; (holds, details).
fn balanced_leaves(
    figure: &str,
    method: &str,
    than: &[String],
    leaves: &[LeafBalance],
) -> (bool, String) {
    let cv = |m: &str| {
        leaves
            .iter()
            .find(|l| l.figure == figure && l.method == m)
            .map(|l| l.cv)
    };
    let Some(ours) = cv(method) else {
        return (
            false,
            format!("no leaf-occupancy summary of {method} on figure {figure} (is `{figure}` a leaf_occupancy figure of the spec?)"),
        );
    };
    let mut parts = vec![format!("{method} CV {ours:.3}")];
    let mut holds = true;
    for t in than {
        match cv(t) {
            Some(v) => {
                parts.push(format!("{t} {v:.3}"));
                holds &= ours < v;
            }
            None => {
                parts.push(format!("{t} has no summary"));
                holds = false;
            }
        }
    }
    (holds, parts.join(", "))
}
