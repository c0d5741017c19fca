//! Marks of a table block: best / second-best means (bold / underline) and significance
//! stars from paired one-sided Wilcoxon signed-rank tests over repetitions.
//!
//! A block is one data set × one ε: a row of competing methods whose per-repetition
//! metrics are paired by repetition (the split of repetition r is shared by all methods,
//! docs/architecture.md "Determinism: seeded streams").
//!
//! Ordering convention shared by every function here: a method whose mean is missing
//! (`None`) or not finite is skipped; methods are ordered best first by mean with a stable
//! sort, so among equal means the lower index wins.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::summary::summarize;
use super::wilcoxon::{wilcoxon_signed_rank, Alternative};

/// The default level of the one-sided tests of every rule, 0.05 (both papers).
pub const DEFAULT_ALPHA: f64 = 0.05;

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}

fn default_max_group() -> usize {
    3
}

/// How the significance stars of a block are decided.
///
/// Deserialises from a map tagged by `rule` (snake_case), with defaults `alpha: 0.05`
/// and `max_group: 3`, e.g. `{rule: none}`, `{rule: better_than_rest, alpha: 0.05,
/// max_group: 3}`, `{rule: not_worse_than_best}`. Unknown fields are rejected.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum SignificanceRule {
    /// No stars.
    None,
    /// LPDT Tables 2/5 (method card `docs/methods/lpdt.md` §8.3, "Marks in Tables 2/5", an inferred
    /// reading of the caption): star the smallest group of g ≤ `max_group` best methods,
    /// g < number of run methods, each of which is significantly better than every
    /// remaining method (one-sided Wilcoxon signed-rank, p < `alpha`).
    BetterThanRest {
        /// Level of each one-sided test; default 0.05.
        #[serde(default = "default_alpha")]
        alpha: f64,
        /// Largest group size g tried; default 3.
        #[serde(default = "default_max_group")]
        max_group: usize,
    },
    /// LPCT paper convention (method card `docs/methods/lpct.md` §10.5): star the best method and every
    /// method that is not significantly worse than it (one-sided Wilcoxon signed-rank of
    /// the best against the method, p ≥ `alpha` or the test undefined).
    NotWorseThanBest {
        /// Level of each one-sided test; default 0.05.
        #[serde(default = "default_alpha")]
        alpha: f64,
    },
}

/// An invalid [`SignificanceRule`] parameter.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RuleError {
    /// `alpha` is not in (0, 1).
    #[error("significance rule: alpha = {0} is invalid; it must lie strictly between 0 and 1")]
    Alpha(f64),
    /// `max_group` is 0.
    #[error("significance rule: max_group = 0 is invalid; it must be at least 1")]
    MaxGroup,
}

impl SignificanceRule {
    /// Checks the parameters: `alpha` in (0, 1) and `max_group` ≥ 1.
    ///
    /// # Errors
    /// [`RuleError::Alpha`] or [`RuleError::MaxGroup`], naming the offending value.
    pub fn validate(&self) -> Result<(), RuleError> {
        let alpha = match *self {
            SignificanceRule::None => return Ok(()),
            SignificanceRule::BetterThanRest { alpha, max_group } => {
                if max_group == 0 {
                    return Err(RuleError::MaxGroup);
                }
                alpha
            }
            SignificanceRule::NotWorseThanBest { alpha } => alpha,
        };
        if alpha > 0.0 && alpha < 1.0 {
            Ok(())
        } else {
            Err(RuleError::Alpha(alpha))
        }
    }
}

/// Indices of the methods with a finite mean, best first (stable: lower index first
/// among equal means).
fn order_best_first(means: &[Option<f64>], lower_is_better: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..means.len())
        .filter(|&i| matches!(means[i], Some(m) if m.is_finite()))
        .collect();
    idx.sort_by(|&a, &b| {
        let (ma, mb) = (means[a].unwrap(), means[b].unwrap());
        if lower_is_better {
            ma.total_cmp(&mb)
        } else {
            mb.total_cmp(&ma)
        }
    });
    idx
}

/// Index of the best and of the second-best mean of a block (bold and underline).
///
/// `means[m]` is the mean metric of method m over the repetitions, `None` if the method
/// was not run; `None` and non-finite means are skipped. Best is the lowest mean when
/// `lower_is_better` (MSE), the highest otherwise (accuracy). Ties: the lower index wins
/// (it is best, the other second). Returns `(None, None)` when no method has a mean and
/// `(Some(b), None)` when only one does. Source: `docs/methods/lpdt.md` §8.3 (bold / underline of
/// Tables 2/5).
pub fn rank_marks(means: &[Option<f64>], lower_is_better: bool) -> (Option<usize>, Option<usize>) {
    let order = order_best_first(means, lower_is_better);
    (order.first().copied(), order.get(1).copied())
}

/// Every entry tied for the best value: `result[m]` is true iff `values[m]` equals the
/// best (lowest when `lower_is_better`, highest otherwise) of the finite values.
/// `None` and non-finite entries are never marked; with no finite value nothing is.
///
/// Used for the `*` of LPCT Table 2 (`docs/methods/lpct.md` §10.5: the best mean of a block, with every
/// mean tied with it at the printed precision — pass the means as printed) and for the `*`
/// of its summary rows (§10.6: the lowest rank sum, the highest "No. 1" count).
///
/// ```
/// use dp_repro::stats::ties_for_best;
/// let printed = [Some(0.835), None, Some(0.835), Some(0.812)];
/// assert_eq!(ties_for_best(&printed, false), vec![true, false, true, false]);
/// ```
pub fn ties_for_best(values: &[Option<f64>], lower_is_better: bool) -> Vec<bool> {
    let best = order_best_first(values, lower_is_better)
        .first()
        .and_then(|&i| values[i]);
    values
        .iter()
        .map(|v| matches!((v, best), (Some(v), Some(b)) if *v == b))
        .collect()
}

/// Whether `a` is significantly better than `b`: one-sided Wilcoxon signed-rank test of
/// d = a − b (`Less` when lower is better, `Greater` otherwise) with p < alpha. A test
/// that cannot be computed (e.g. all differences zero, unequal lengths) is not
/// significant.
fn significantly_better(a: &[f64], b: &[f64], lower_is_better: bool, alpha: f64) -> bool {
    let alternative = if lower_is_better {
        Alternative::Less
    } else {
        Alternative::Greater
    };
    wilcoxon_signed_rank(a, b, alternative)
        .map(|r| r.p_value < alpha)
        .unwrap_or(false)
}

/// Significance stars of a block: `result[m]` is true iff method m is starred.
///
/// `values[m]` is the per-repetition metric of method m (all of the same length R, paired
/// by repetition index; units of the metric) or `None` if the method was not run. A
/// method that is `None`, has no values, or has a non-finite mean is treated as not run:
/// never starred and not compared. Methods are ordered by mean, best first (lowest if
/// `lower_is_better`), ties to the lower index. "a significantly better than b" means
/// `wilcoxon_signed_rank(a, b, Less)` (`Greater` if higher is better) has p < alpha; a
/// test that errors (all differences zero, unequal lengths, non-finite values) counts
/// as not significant.
///
/// - [`SignificanceRule::None`]: nothing is starred.
/// - [`SignificanceRule::BetterThanRest`] (`docs/methods/lpdt.md` §8.3, Tables 2/5 of LPDT): the
///   smallest g in 1..=max_group with g < (number of run methods) such that each of the
///   g best is significantly better than every remaining run method; those g are
///   starred. If no g qualifies (or fewer than two methods were run), none is starred.
/// - [`SignificanceRule::NotWorseThanBest`] (`docs/methods/lpct.md` §10.5, LPCT paper): the best
///   method is starred, and so is every other run method m unless the best is
///   significantly better than m.
///
/// The output has the length of `values`.
pub fn significance_marks(
    values: &[Option<Vec<f64>>],
    lower_is_better: bool,
    rule: &SignificanceRule,
) -> Vec<bool> {
    let mut marks = vec![false; values.len()];
    let means: Vec<Option<f64>> = values
        .iter()
        .map(|v| match v {
            Some(v) if !v.is_empty() => Some(summarize(v).mean),
            _ => None,
        })
        .collect();
    let order = order_best_first(&means, lower_is_better);
    let vals = |m: usize| values[m].as_deref().unwrap_or(&[]);
    match *rule {
        SignificanceRule::None => {}
        SignificanceRule::BetterThanRest { alpha, max_group } => {
            for g in 1..=max_group.min(order.len().saturating_sub(1)) {
                let (top, rest) = order.split_at(g);
                let qualifies = top.iter().all(|&a| {
                    rest.iter()
                        .all(|&b| significantly_better(vals(a), vals(b), lower_is_better, alpha))
                });
                if qualifies {
                    for &a in top {
                        marks[a] = true;
                    }
                    break;
                }
            }
        }
        SignificanceRule::NotWorseThanBest { alpha } => {
            if let Some((&best, others)) = order.split_first() {
                marks[best] = true;
                for &m in others {
                    marks[m] = !significantly_better(vals(best), vals(m), lower_is_better, alpha);
                }
            }
        }
    }
    marks
}

/// The `*` of the HistOfTree tables (`docs/methods/histoftree.md` §10, our reading of a lost
/// caption): `result[m]` is true iff method m is tied for the best printed value of the
/// block and every method so tied is significantly better than every other run method of
/// the block.
///
/// `printed[m]` is method m's cell value as printed (the text read back; `None` = not
/// run), `values[m]` its per-repetition metric, paired by repetition index across methods
/// (`None` = not run). Ties are found with [`ties_for_best`] on `printed`. "a
/// significantly better than b": a one-sided Wilcoxon signed-rank test of a − b (`Less`
/// when `lower_is_better`, else `Greater`) has p < `alpha`; a test that cannot be computed
/// is not significant. Methods with `None` in either input are not compared. Nothing is
/// starred when no run method is left outside the tie (nothing to be better than).
///
/// ```
/// use dp_repro::stats::star_significant;
/// let a: Vec<f64> = (0..20).map(|r| 1.0 + 0.01 * r as f64).collect();
/// let b: Vec<f64> = a.iter().map(|v| v + 0.5).collect();
/// let stars = star_significant(&[Some(1.1), Some(1.6)], &[Some(a), Some(b)], true, 0.05);
/// assert_eq!(stars, vec![true, false]);
/// ```
///
/// # Panics
/// If `printed` and `values` differ in length.
pub fn star_significant(
    printed: &[Option<f64>],
    values: &[Option<Vec<f64>>],
    lower_is_better: bool,
    alpha: f64,
) -> Vec<bool> {
    assert_eq!(
        printed.len(),
        values.len(),
        "star_significant: one printed value per method"
    );
    let run = |m: usize| printed[m].is_some_and(f64::is_finite) && values[m].is_some();
    let tied = ties_for_best(printed, lower_is_better);
    let best: Vec<usize> = (0..printed.len()).filter(|&m| tied[m] && run(m)).collect();
    let rest: Vec<usize> = (0..printed.len()).filter(|&m| !tied[m] && run(m)).collect();
    let vals = |m: usize| values[m].as_deref().unwrap_or(&[]);
    let starred = !best.is_empty()
        && !rest.is_empty()
        && best.iter().all(|&a| {
            rest.iter()
                .all(|&b| significantly_better(vals(a), vals(b), lower_is_better, alpha))
        });
    (0..printed.len())
        .map(|m| starred && best.contains(&m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_stable_and_skips_missing_or_non_finite() {
        let means = [
            Some(2.0),
            None,
            Some(1.0),
            Some(f64::NAN),
            Some(1.0),
            Some(3.0),
        ];
        assert_eq!(order_best_first(&means, true), vec![2, 4, 0, 5]);
        assert_eq!(order_best_first(&means, false), vec![5, 0, 2, 4]);
    }

    #[test]
    fn ties_for_best_marks_every_tie_and_skips_missing() {
        let v = [
            Some(2.0),
            None,
            Some(1.0),
            Some(f64::NAN),
            Some(1.0),
            Some(3.0),
        ];
        assert_eq!(
            ties_for_best(&v, true),
            [false, false, true, false, true, false]
        );
        assert_eq!(
            ties_for_best(&v, false),
            [false, false, false, false, false, true]
        );
        assert_eq!(
            ties_for_best(&[None, Some(f64::INFINITY)], true),
            [false, false]
        );
        assert!(ties_for_best(&[], true).is_empty());
    }
}
