//! Claims: the paper's qualitative statements (the `claims:` grammar of
//! [`crate::spec::claims`]), evaluated on our results.

mod balanced_leaves;
mod best_among;
mod better;
mod curve;
mod describe;
mod improves;
mod level;
mod rank_sum;
mod trend;
mod within_factor;

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

/// Where a claim kind is evaluated: data set `d` of `data`, `lower` when a lower mean is
/// better (MSE).
#[derive(Clone, Copy)]
struct At<'a> {
    d: &'a str,
    data: &'a Data<'a>,
    lower: bool,
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
    // Claims judged once over all data sets: one verdict with its details.
    let whole = match claim {
        Claim::BalancedLeaves {
            figure,
            method,
            than,
            ..
        } => Some(balanced_leaves::balanced_leaves(
            figure,
            method,
            than,
            data.leaves,
        )),
        Claim::TrendAcrossDatasets { .. } => {
            Some(trend::trend_across_datasets(claim, index, lower))
        }
        Claim::BestRankSum { .. } => Some(rank_sum::best_rank_sum(claim, index, lower)),
        _ => None,
    };
    if let Some((holds, details)) = whole {
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
    let at = At { d, data, lower };
    match claim {
        Claim::Better {
            method,
            than,
            epsilon,
            ..
        } => better::better(method, than, epsilon, at),
        Claim::SignificantlyBetter {
            method,
            than,
            epsilon,
            alpha,
            ..
        } => better::significantly_better(method, than, epsilon, alpha, at),
        Claim::BestAmong {
            methods,
            among,
            epsilon,
            ..
        } => best_among::best_among(methods, among, epsilon, at),
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
        } => within_factor::on_rows(method, of, factor, epsilon, ratio_to, at),
        Claim::WithinFactor {
            method,
            of,
            factor,
            epsilon,
            figure: Some(figure),
            ..
        } => within_factor::on_curve(method, of, factor, epsilon, figure, at),
        Claim::ImprovesWithEpsilon { method, .. } => improves::improves_with_epsilon(method, at),
        Claim::Level {
            methods,
            epsilons,
            within,
            ..
        } => level::level(methods, epsilons, within, at),
        Claim::BetterOnCurve {
            figure,
            method,
            than,
            epsilon,
            x_min,
            x_max,
            ..
        } => curve::better_on_curve(figure, method, than, epsilon, x_min, x_max, at),
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
