//! The notes of a table: what the numbers, intervals, marks and summary rows mean, the
//! short note under a LaTeX table, and the warning when too few repetitions leave the
//! marks' tests unable to reject.

use super::rows::{bold_rule, star_alpha};
use super::task_direction;
use crate::data::Task;
use crate::report::{Cell, Row};
use crate::spec::raw::{
    Interval, MarkStyle, RankTies, RatioOf, SummaryRow, TableEntry, TableValue,
};
use crate::spec::Experiment;
use crate::stats::{SignificanceRule, DEFAULT_ALPHA};

/// The notes on a table's `interval` (what "±" is) and `scale` (what the row factors
/// mean); empty without them.
pub(super) fn interval_notes(t: &TableEntry, exp: &Experiment) -> Vec<String> {
    let mut notes = Vec::new();
    if t.interval == Some(Interval::Ci95) {
        let n = exp.repetitions;
        let t_n = crate::stats::t_quantile_975(n.saturating_sub(1))
            .map(|q| {
                format!(
                    " ($t_{{0.975,{}}} = {q:.5}$ for the spec's $n = {n}$)",
                    n - 1
                )
            })
            .unwrap_or_default();
        notes.push(format!("±: the half-width of a 95 % Student-$t$ interval for the mean over the $n$ repetitions, $t_{{0.975,n-1}} \\cdot \\mathrm{{sd}}_0/\\sqrt{{n}}$ with $\\mathrm{{sd}}_0$ the population standard deviation (ddof 0){t_n}, as the DiPriMe paper prints it (method card docs/methods/diprime.md §6.1): not a standard deviation ($\\mathrm{{sd}}_0 = {{\\pm}} \\cdot \\sqrt{{n}}/t$). A cell of fewer than 2 repetitions shows the mean alone."));
    }
    if !t.scale.is_empty() {
        let place = if t.layout.transpose {
            "under a data set"
        } else {
            "after a row label"
        };
        notes.push(format!("A factor {place} gives the units of that data set's means and ±, the paper's per-data-set factors: under $\\times 10^{{-2}}$, 1.59 means 0.0159."));
    }
    notes
}

/// The note on the `*` of `bold_best` under `rule`; empty for no rule.
pub(super) fn rule_note(rule: &SignificanceRule, lower: bool) -> String {
    let dir = if lower { "lower" } else { "higher" };
    match rule {
        SignificanceRule::None => String::new(),
        SignificanceRule::BetterThanRest { alpha, max_group } => format!(
            "*: the smallest group of at most {max_group} best methods of the block each of which a one-sided Wilcoxon signed-rank test over the paired repetitions finds {dir} than every other method at level {alpha} (LPDT paper §4.2 and the caption of Table 2, which do not define the group; this is our reading)."
        ),
        SignificanceRule::NotWorseThanBest { alpha } => format!(
            "*: the best method and every method a one-sided Wilcoxon signed-rank test at level {alpha} does not find worse than the best."
        ),
    }
}

/// The note on the marks of `star_best` (`docs/methods/lpct.md` §10.5).
pub(super) fn star_best_note(
    t: &TableEntry,
    rule: &SignificanceRule,
    metric: &str,
    lower: bool,
) -> String {
    let alpha = match rule {
        SignificanceRule::NotWorseThanBest { alpha } => *alpha,
        _ => DEFAULT_ALPHA,
    };
    let worse = if lower { "higher" } else { "lower" };
    let never = if t.non_private.is_empty() {
        "Missing results are never marked"
    } else {
        "Missing results and the non-private columns are never marked"
    };
    format!(
        "*: the best mean test {metric} of each ε block, and every mean equal to it as printed. Bold: the best and every method that a one-sided Wilcoxon signed-rank test at level {alpha}, paired by repetition with the best, does not find significantly {worse} (all differences zero count as not worse). {never} (LPCT paper, caption of Table 2)."
    )
}

/// The level of `star_significant`'s tests in experiment `exp` ([`star_alpha`]).
pub(super) fn data_alpha(exp: &Experiment) -> f64 {
    star_alpha(exp.spec.significance)
}

/// The level of the one-sided Wilcoxon signed-rank tests behind `t`'s marks, or `None`
/// when its marks need no test (no marks, seconds, bold best without a rule).
pub(super) fn test_level(t: &TableEntry, exp: &Experiment) -> Option<f64> {
    if t.value == TableValue::Seconds {
        return None;
    }
    match (t.marks, bold_rule(exp.spec.significance)) {
        (MarkStyle::None, _) | (MarkStyle::BoldBest, SignificanceRule::None) => None,
        (MarkStyle::BoldBest, SignificanceRule::BetterThanRest { alpha, .. })
        | (MarkStyle::BoldBest, SignificanceRule::NotWorseThanBest { alpha }) => Some(alpha),
        (MarkStyle::StarBest, _) | (MarkStyle::StarSignificant, _) => {
            Some(star_alpha(exp.spec.significance))
        }
    }
}

/// The warning for marks that need a test when `reps` paired repetitions are too few for
/// a one-sided Wilcoxon signed-rank test at level `alpha` to reject: its smallest exact
/// p-value is 2^−n (every difference of one sign, no ties), so no n with 2^−n > α can
/// mark anything significant, and "not worse than the best" then covers every method.
/// `None` when the test can reject.
pub fn too_few_repetitions(reps: usize, alpha: f64) -> Option<String> {
    let p_min = 0.5f64.powi(reps.min(1074) as i32);
    if p_min <= alpha {
        return None;
    }
    let needed = (1.0 / alpha).log2().ceil() as usize;
    Some(format!(
        "Warning: with {reps} repetitions a one-sided Wilcoxon signed-rank test cannot reject at level {alpha} (its smallest p-value is 2^-{reps} = {p_min:.3}), so no difference is marked significant and ties for the best cover every method; at least {needed} repetitions are needed."
    ))
}

/// The warnings of [`too_few_repetitions`] for the tables of `exp` at `exp.repetitions`,
/// one per distinct level (what `run`, `table` and `check` print on stderr).
pub fn repetition_warnings(exp: &Experiment) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in &exp.spec.tables {
        if let Some(w) = test_level(t, exp).and_then(|a| too_few_repetitions(exp.repetitions, a)) {
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The note on the marks of `star_significant` (`docs/methods/histoftree.md` §10).
pub(super) fn star_significant_note(alpha: f64, lower: bool) -> String {
    let better = if lower { "lower" } else { "higher" };
    format!(
        "*: the best value of each block as printed, with every value equal to it, when each of them is significantly {better} than every other method of the block by a one-sided Wilcoxon signed-rank test at level {alpha}, paired by repetition (our reading of the HistOfTree paper's lost caption, docs/methods/histoftree.md §10). Missing results are never marked."
    )
}

/// The notes on the summary rows of `t` (`docs/methods/lpct.md` §10.6), one per row kind.
pub(super) fn summary_notes(t: &TableEntry, task: Task, n_datasets: usize) -> Vec<String> {
    let metric = task.metric_name();
    let worst = match task.worst_value() {
        w if w.is_infinite() => "+∞".to_string(),
        w => format!("{w}"),
    };
    let sets = if n_datasets == 1 {
        "the one data set".to_string()
    } else {
        format!("the {n_datasets} data sets")
    };
    // Today's wording for a tie order (LPCT Table 2), unchanged.
    let ties_of = |ties: &RankTies| {
        match ties {
        RankTies::Order(o) if o.is_empty() => {
            "ordinal ranks, ties broken by the column order".to_string()
        }
        RankTies::Order(o) => format!("ordinal ranks, ties broken by the order {}", o.join(", ")),
        RankTies::Min => "competition ranks of the printed values, a tie sharing its best rank, HistOfTree paper, docs/methods/histoftree.md §10".to_string(),
        RankTies::Max => "competition ranks of the printed values, a tie sharing its worst rank, HistOfTree paper, docs/methods/histoftree.md §10".to_string(),
    }
    };
    let (block, how, ties) = if t.blocks.is_empty() {
        let how = match t.rank_ties {
            RankTies::Order(_) => format!(" by mean test {metric}"),
            _ => String::new(),
        };
        ("ε block", how, ties_of(&t.rank_ties))
    } else {
        let ties = t
            .blocks
            .iter()
            .map(|b| format!("{}: {}", b.label, ties_of(&b.rank_ties)))
            .collect::<Vec<_>>()
            .join("; ");
        ("ε block and method block", String::new(), ties)
    };
    t.summary_rows
        .iter()
        .map(|kind| match kind {
            SummaryRow::RankSum => format!(
                "Rank Sum: in each {block}, on every data set the methods are ranked{how} (1 = best; {ties}; a missing result counts as the worst {metric}, {worst}), and the ranks are summed over {sets}; * marks the lowest sum (LPCT paper, Table 2)."
            ),
            SummaryRow::No1 => format!("No. 1: the number of data sets on which the method is starred or bold in its {block}; * marks the highest count (LPCT paper, Table 2)."),
        })
        .collect()
}

/// The short note under a LaTeX table whose full notes are in a companion file (about
/// two lines of footnote text; the renderer adds the pointer to the file): what the
/// numbers are, what the marks and summary rows mean, and whether a dash stands for a
/// missing result (`missing`: a data set not available or a method not run).
pub(super) fn short_note(
    t: &TableEntry,
    exp: &Experiment,
    rows: &[Row],
    reps: usize,
    missing: bool,
) -> String {
    let (_, lower, metric) = task_direction(exp);
    let metric = if metric == "mse" { "MSE" } else { metric };
    let mut parts = vec![match &t.value {
        TableValue::Metric => format!("Mean test {metric} over {reps} repetitions"),
        TableValue::RatioTo {
            ratio_to,
            of: RatioOf::Means,
        } => {
            format!("Mean test {metric} over {reps} repetitions divided by that of {ratio_to}")
        }
        TableValue::RatioTo {
            ratio_to,
            of: RatioOf::PerRepetition,
        } => format!(
            "Mean over {reps} repetitions of the ratio of the test {metric} to that of {ratio_to}"
        ),
        TableValue::Seconds => {
            format!("Mean seconds of one fit + predict over {reps} repetitions, on this machine")
        }
    }];
    if t.interval == Some(Interval::Ci95) {
        parts[0].push_str(
            r" $\pm$ the half-width of a 95 % Student-$t$ interval, $t_{0.975,n-1} \cdot \mathrm{sd}_0/\sqrt{n}$",
        );
    }
    if !t.scale.is_empty() {
        parts.push(r"a factor $\times 10^{k}$ gives the units of a data set's values".into());
    }
    if t.reported.is_some() {
        parts.push("in parentheses: the paper's value".into());
    }
    let better = if lower { "lower" } else { "higher" };
    let seconds = t.value == TableValue::Seconds;
    let alpha = test_level(t, exp);
    let level = alpha.map(|a| format!(" (one-sided Wilcoxon signed-rank test, level {a})"));
    let level = level.as_deref().unwrap_or("");
    let any = |f: fn(&Cell) -> bool| rows.iter().flat_map(|r| &r.cells).any(f);
    match t.marks {
        _ if seconds => {}
        MarkStyle::None => {}
        MarkStyle::BoldBest => {
            let block = if t.epsilons.is_empty() {
                "group"
            } else {
                "ε block"
            };
            let mut m = format!("bold: best, underlined: second best in each {block}");
            if alpha.is_some() {
                m.push_str(&format!(
                    "; *: significantly {better} than the others{level}"
                ));
            }
            parts.push(m);
        }
        MarkStyle::StarBest => parts.push(format!(
            "*: best in its ε block; bold: not significantly {} than the best{level}",
            if lower { "higher" } else { "lower" }
        )),
        MarkStyle::StarSignificant => parts.push(format!(
            "*: best in its block and significantly {better} than each other method of it{level}"
        )),
    }
    for kind in &t.summary_rows {
        parts.push(match kind {
            SummaryRow::RankSum => "Rank Sum: ranks summed over the data sets, * the lowest".into(),
            SummaryRow::No1 => "No. 1: data sets where the method is starred or bold".into(),
        });
    }
    if alpha.is_some_and(|a| too_few_repetitions(reps, a).is_some()) {
        parts.push("too few repetitions for a test to reject".into());
    }
    if missing || any(|c| c.value.is_none()) {
        parts.push("–: not run or not available".into());
    }
    // Sentences: the first part, then each further part capitalized.
    let mut out = String::new();
    for p in parts {
        let mut chars = p.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
        out.push_str(&first.unwrap_or_default());
        out.push_str(chars.as_str());
        out.push_str(". ");
    }
    out.trim_end().to_string()
}
