//! One table of a spec (`tables:`), built from the selected grid points: the data rows
//! with their marks, the summary rows, the notes and the caption.
//!
//! Two marking conventions ([`MarkStyle`]): LPDT Tables 2/5 (`bold_best`: best bold,
//! second underlined, `*` by the spec's significance rule; `docs/methods/lpdt.md` §8.3) and LPCT
//! Table 2 (`star_best`: `*` on the best mean and its ties at the printed precision, bold
//! on every method not significantly worse than the best; `docs/methods/lpct.md` §10.5). Summary rows
//! ("Rank Sum", "No. 1"; `docs/methods/lpct.md` §10.6) are computed per ε block over the compared
//! methods. [`table_rows`] is the pure part (selected results in, rows out); [`build_table`]
//! adds what comes from the experiment (notes on selection, privacy and skipped methods).

use super::seeds::epsilon_text;
use crate::data::Task;
use crate::report::{Cell, ColumnGroup, Legend, NumberFormat, Row, Table};
use crate::spec::raw::{
    Digits, Interval, MarkStyle, RankTies, RatioOf, RowLabels, Selection, SummaryRow, TableBlock,
    TableEntry, TableValue,
};
use crate::spec::tables::read_reported;
pub use crate::spec::tables::ReportedCells;
use crate::spec::Experiment;
use crate::stats::{
    ci95_halfwidth, first_place_counts, rank_marks, rank_sums, rank_sums_competition,
    significance_marks, star_significant, summarize, ties_for_best, SignificanceRule, Summary,
    TieRank, DEFAULT_ALPHA,
};
use std::collections::BTreeMap;

/// The selected grid point of one data set × method × ε.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The grid point (`name=value;…`), or for per-repetition selections the modal one
    /// with its count.
    pub params: String,
    /// Summary of `values` over repetitions.
    pub summary: Summary,
    /// Repetition → test metric of the selected grid point (MSE or accuracy).
    pub values: BTreeMap<usize, f64>,
    /// Repetition → seconds of one fit + predict of the grid point that gave that
    /// repetition's value (runs.csv `seconds`); empty when not known.
    pub seconds: BTreeMap<usize, f64>,
}

impl Selected {
    /// A selection from its grid point and per-repetition values (summarised here).
    pub fn new(params: impl Into<String>, values: BTreeMap<usize, f64>) -> Selected {
        Selected {
            params: params.into(),
            summary: summarize(&values.values().copied().collect::<Vec<_>>()),
            values,
            seconds: BTreeMap::new(),
        }
    }

    /// The same selection with the seconds of every repetition.
    pub fn with_seconds(mut self, seconds: BTreeMap<usize, f64>) -> Selected {
        self.seconds = seconds;
        self
    }
}

/// Selected grid points by (data set, method label, ε text — `""` for non-private
/// methods, else as [`epsilon_text`] writes it).
pub type SelectedMap = BTreeMap<(String, String, String), Selected>;

/// What [`table_rows`] reads besides the table entry.
#[derive(Debug, Clone, Copy)]
pub struct TableData<'a> {
    /// One row per data set, in order: (data set name as in `selected`, row label).
    pub datasets: &'a [(String, String)],
    /// The selected grid points.
    pub selected: &'a SelectedMap,
    /// The task of the data sets: it decides the metric's direction (higher accuracy,
    /// lower MSE is better), the number format and the worst value a missing result
    /// counts as in rank sums.
    pub task: Task,
    /// The spec's `significance` rule: the `*` of `bold_best`; for `star_best`, the level
    /// of its `not_worse_than_best` bold (absent: [`DEFAULT_ALPHA`]).
    pub significance: Option<SignificanceRule>,
    /// The paper's values to print beside ours (the table's `reported:` file), as
    /// [`read_reported`] returns them.
    pub reported: Option<&'a ReportedCells>,
}

/// `cell`'s text followed by the paper's value in parentheses, when the paper has one
/// for (data set, method, ε text) and we have a value.
fn with_reported(mut cell: Cell, data: &TableData, dataset: &str, method: &str, eps: &str) -> Cell {
    let Some(cells) = data.reported else {
        return cell;
    };
    let key = |e: Option<String>| (dataset.to_string(), method.to_string(), e);
    let paper = cells
        .get(&key(Some(eps.to_string())))
        .or_else(|| cells.get(&key(None)));
    if let (Some(p), Some(_)) = (paper, cell.value) {
        cell.text = format!("{} ({p})", cell.text);
    }
    cell
}

/// The rule that bolds cells under `star_best`: not worse than the best, at the level of
/// the spec's `not_worse_than_best` rule or at [`DEFAULT_ALPHA`] (validation refuses
/// other rules with `star_best`).
fn bold_rule(significance: Option<SignificanceRule>) -> SignificanceRule {
    match significance {
        Some(rule @ SignificanceRule::NotWorseThanBest { .. }) => rule,
        _ => SignificanceRule::NotWorseThanBest {
            alpha: DEFAULT_ALPHA,
        },
    }
}

/// What a cell shows of a selection: the value printed (`None`: nothing to show) and the
/// per-repetition values its marks compare.
struct Shown {
    mean: Option<f64>,
    values: BTreeMap<usize, f64>,
}

/// The cell of selection `s` under the table's `value`; `denominator` is the selection of
/// a `ratio_to` method on the same data set (a ratio without one shows nothing).
fn shown(value: &TableValue, s: &Selected, denominator: Option<&Selected>) -> Shown {
    match value {
        TableValue::Metric => Shown {
            mean: Some(s.summary.mean),
            values: s.values.clone(),
        },
        TableValue::Seconds => Shown {
            mean: (!s.seconds.is_empty())
                .then(|| summarize(&s.seconds.values().copied().collect::<Vec<_>>()).mean),
            values: s.values.clone(),
        },
        TableValue::RatioTo { of, .. } => {
            let Some(d) = denominator else {
                return Shown {
                    mean: None,
                    values: BTreeMap::new(),
                };
            };
            match of {
                RatioOf::Means => Shown {
                    mean: Some(s.summary.mean / d.summary.mean),
                    values: s
                        .values
                        .iter()
                        .map(|(&r, &v)| (r, v / d.summary.mean))
                        .collect(),
                },
                RatioOf::PerRepetition => {
                    let values: BTreeMap<usize, f64> = s
                        .values
                        .iter()
                        .filter_map(|(&r, &v)| d.values.get(&r).map(|&dv| (r, v / dv)))
                        .collect();
                    let mean = (!values.is_empty())
                        .then(|| summarize(&values.values().copied().collect::<Vec<_>>()).mean);
                    Shown { mean, values }
                }
            }
        }
    }
}

/// The level of the `*` of `star_significant`: the `alpha` of the spec's rule, else
/// [`DEFAULT_ALPHA`].
fn star_alpha(significance: Option<SignificanceRule>) -> f64 {
    match significance {
        Some(SignificanceRule::BetterThanRest { alpha, .. })
        | Some(SignificanceRule::NotWorseThanBest { alpha }) => alpha,
        _ => DEFAULT_ALPHA,
    }
}

/// The label of the column group of block `block` in ε block `e`: `ε = 1`, or
/// `ε = 1 · Aligned` for a labelled block.
fn group_label(e: f64, block: &TableBlock) -> String {
    if block.label.is_empty() {
        format!("ε = {}", epsilon_text(e))
    } else {
        format!("ε = {} · {}", epsilon_text(e), block.label)
    }
}

/// The data rows and summary rows of table `t`.
///
/// Data rows: one per data set; the non-private columns first (never marked), then per ε
/// of `t.epsilons`, per block of [`TableEntry::column_blocks`] (`methods` as one block when
/// the table has no `blocks`), the cells of the block's methods: the mean of its selected
/// grid point (`None` = not run, never marked), or under `value: seconds` its mean seconds,
/// or under `value: {ratio_to: D}` its ratio to D's selected grid point on the data set
/// (ratio of the means, or under `of: per_repetition` the mean of the per-repetition
/// ratios; no D, no cell). Accuracies print with 4 decimals, MSEs in the papers'
/// scientific format, ratios as the HistOfTree tables print them. Within each ε × block:
/// - `bold_best` (`docs/methods/lpdt.md` §8.3): the best mean bold, the second underlined, `*` by
///   `data.significance` ([`significance_marks`]);
/// - `star_best` (`docs/methods/lpct.md` §10.5): `*` on the best mean and every mean equal to it as
///   printed ([`ties_for_best`] on the printed values); bold on every method a one-sided
///   Wilcoxon signed-rank test, paired by repetition, does not find significantly worse
///   than the best (the best included; [`significance_marks`] with
///   `not_worse_than_best`);
/// - `star_significant` (`docs/methods/histoftree.md` §10): [`star_significant`] on the printed values
///   and the per-repetition values shown (a ratio of means divides them by D's mean).
///
/// The tests pair the methods of a block on the repetitions all of them have.
///
/// Summary rows (`docs/methods/lpct.md` §10.6), one per entry of `t.summary_rows`, with a count per
/// compared method, ε and block (the non-private columns empty): `rank_sum` — with a tie
/// order (the block's `rank_ties` list, default the column order) the methods'
/// [`rank_sums`] of ordinal ranks by mean, a missing mean counted as
/// [`Task::worst_value`]; with `rank_ties: min | max` the [`rank_sums_competition`] of
/// the printed values (`docs/methods/histoftree.md` §10); `*` on the lowest sum. `no1` —
/// [`first_place_counts`] of the cells starred or bold; `*` on the highest count.
pub fn table_rows(t: &TableEntry, data: &TableData) -> (Vec<Row>, Vec<Row>) {
    let lower = data.task.lower_is_better();
    let seconds = t.value == TableValue::Seconds;
    let format = match t.value {
        TableValue::Seconds => NumberFormat::Sci,
        TableValue::RatioTo { .. } => NumberFormat::Ratio,
        TableValue::Metric => t.digits.map_or(number_format(data.task), digits_format),
    };
    // The text of a cell of data set `name` showing selection `s`: its interval and the
    // row's scale (the DiPriMe tables), or the plain text as it is.
    let shown_as = |c: Cell, name: &str, s: Option<&Selected>| -> Cell {
        let scale = t.scale.get(name).copied();
        if t.interval.is_none() && scale.is_none() {
            return c;
        }
        let halfwidth = match t.interval {
            Some(Interval::Ci95) => {
                s.and_then(|s| ci95_halfwidth(&s.values.values().copied().collect::<Vec<_>>()))
            }
            None => None,
        };
        c.with_interval(halfwidth, format, scale)
    };
    let bold = bold_rule(data.significance);
    let stars_rule = data.significance.unwrap_or(SignificanceRule::None);
    let blocks = t.column_blocks();
    // The selection of (data set, method) in ε block `et`: a non-private method compares
    // its one result in every ε block (CT-Q in LPCT Table 2).
    let lookup = |name: &str, m: &str, et: &str| {
        data.selected
            .get(&(name.to_string(), m.to_string(), et.to_string()))
            .or_else(|| {
                data.selected
                    .get(&(name.to_string(), m.to_string(), String::new()))
            })
    };
    // Per ε × block (index e · blocks + k): the means and the printed values (rows = data
    // sets) and whether each cell is starred or bold.
    let n_groups = t.epsilons.len() * blocks.len();
    let mut group_means: Vec<Vec<Vec<Option<f64>>>> = vec![Vec::new(); n_groups];
    let mut group_printed: Vec<Vec<Vec<Option<f64>>>> = vec![Vec::new(); n_groups];
    let mut group_marked: Vec<Vec<Vec<bool>>> = vec![Vec::new(); n_groups];
    let mut rows = Vec::new();
    for (name, label) in data.datasets {
        let mut cells = Vec::new();
        for m in &t.non_private {
            let sel = data.selected.get(&(name.clone(), m.clone(), String::new()));
            let v = sel.and_then(|s| {
                let d = match &t.value {
                    TableValue::RatioTo { ratio_to, .. } => lookup(name, ratio_to, ""),
                    _ => None,
                };
                shown(&t.value, s, d).mean
            });
            let cell = shown_as(Cell::new(v, format), name, sel);
            cells.push(with_reported(cell, data, name, m, ""));
        }
        for (e_idx, e) in t.epsilons.iter().enumerate() {
            let et = epsilon_text(*e);
            let denominator = match &t.value {
                TableValue::RatioTo { ratio_to, .. } => lookup(name, ratio_to, &et),
                _ => None,
            };
            for (k, blk) in blocks.iter().enumerate() {
                let g = e_idx * blocks.len() + k;
                let sel: Vec<Option<Shown>> = blk
                    .methods
                    .iter()
                    .map(|m| lookup(name, m, &et).map(|s| shown(&t.value, s, denominator)))
                    .map(|s| s.filter(|s| s.mean.is_some() || seconds))
                    .collect();
                let means: Vec<Option<f64>> = sel
                    .iter()
                    .map(|s| s.as_ref().and_then(|s| s.mean))
                    .collect();
                // Pair on the repetitions every run method has.
                let common: Vec<usize> = sel
                    .iter()
                    .flatten()
                    .map(|s| s.values.keys().cloned().collect::<Vec<_>>())
                    .reduce(|a, b| a.into_iter().filter(|r| b.contains(r)).collect())
                    .unwrap_or_default();
                let values: Vec<Option<Vec<f64>>> = sel
                    .iter()
                    .map(|s| {
                        s.as_ref()
                            .map(|s| common.iter().map(|r| s.values[r]).collect())
                    })
                    .collect();
                let plain: Vec<Cell> = means.iter().map(|v| Cell::new(*v, format)).collect();
                // The means at the printed precision: the printed texts read back.
                let printed: Vec<Option<f64>> = plain
                    .iter()
                    .map(|c| c.value.and_then(|_| c.text.parse().ok()))
                    .collect();
                let block: Vec<Cell> = match t.marks {
                    // Running times are shown, not ranked.
                    _ if seconds => plain,
                    MarkStyle::None => plain,
                    MarkStyle::BoldBest => {
                        let (best, second) = rank_marks(&means, lower);
                        let stars = significance_marks(&values, lower, &stars_rule);
                        plain
                            .into_iter()
                            .enumerate()
                            .map(|(i, c)| {
                                c.with_marks(best == Some(i), second == Some(i), stars[i])
                            })
                            .collect()
                    }
                    MarkStyle::StarBest => {
                        let stars = ties_for_best(&printed, lower);
                        let bolds = significance_marks(&values, lower, &bold);
                        plain
                            .into_iter()
                            .enumerate()
                            .map(|(i, c)| c.with_marks(bolds[i], false, stars[i]))
                            .collect()
                    }
                    MarkStyle::StarSignificant => {
                        let stars = star_significant(
                            &printed,
                            &values,
                            lower,
                            star_alpha(data.significance),
                        );
                        plain
                            .into_iter()
                            .enumerate()
                            .map(|(i, c)| c.with_marks(false, false, stars[i]))
                            .collect()
                    }
                };
                group_marked[g].push(block.iter().map(|c| c.star || c.bold).collect());
                group_means[g].push(means);
                group_printed[g].push(printed);
                cells.extend(block.into_iter().zip(&blk.methods).map(|(c, m)| {
                    let c = shown_as(c, name, lookup(name, m, &et));
                    with_reported(c, data, name, m, &et)
                }));
            }
        }
        rows.push(Row {
            label: label.clone(),
            cells,
            scale: t.scale.get(name).copied(),
        });
    }
    let n_columns = t.non_private.len()
        + t.epsilons.len() * blocks.iter().map(|b| b.methods.len()).sum::<usize>();
    for u in &t.unavailable {
        rows.push(Row {
            label: u.label.clone(),
            cells: vec![Cell::missing(); n_columns],
            scale: None,
        });
    }

    let summary_rows = t
        .summary_rows
        .iter()
        .map(|kind| {
            let mut cells: Vec<Cell> = t
                .non_private
                .iter()
                .map(|_| Cell::new(None, NumberFormat::Fixed(0)))
                .collect();
            for g in 0..n_groups {
                let blk = &blocks[g % blocks.len()];
                let (counts, lowest_best) = match kind {
                    SummaryRow::RankSum => {
                        let worst = data.task.worst_value();
                        let sums = match &blk.rank_ties {
                            RankTies::Order(order) => {
                                let tie_position: Vec<usize> = blk
                                    .methods
                                    .iter()
                                    .enumerate()
                                    .map(|(i, m)| order.iter().position(|r| r == m).unwrap_or(i))
                                    .collect();
                                rank_sums(&group_means[g], lower, worst, &tie_position)
                            }
                            RankTies::Min => {
                                rank_sums_competition(&group_printed[g], lower, worst, TieRank::Min)
                            }
                            RankTies::Max => {
                                rank_sums_competition(&group_printed[g], lower, worst, TieRank::Max)
                            }
                        };
                        // No data sets: a zero per method.
                        let mut sums = sums;
                        sums.resize(blk.methods.len(), 0);
                        (sums, true)
                    }
                    SummaryRow::No1 => (
                        first_place_counts(&group_marked[g], blk.methods.len()),
                        false,
                    ),
                };
                let as_f64: Vec<Option<f64>> = counts.iter().map(|&c| Some(c as f64)).collect();
                let stars = ties_for_best(&as_f64, lowest_best);
                cells.extend(as_f64.iter().zip(stars).map(|(v, star)| {
                    Cell::new(*v, NumberFormat::Fixed(0)).with_marks(false, false, star)
                }));
            }
            Row {
                label: kind.label().to_string(),
                cells,
                scale: None,
            }
        })
        .collect();
    (rows, summary_rows)
}

/// Accuracies with 4 decimals (as fractions: the LPCT paper prints 10 × accuracy with 3), MSEs in the papers' scientific format.
fn number_format(task: Task) -> NumberFormat {
    if task.lower_is_better() {
        NumberFormat::Sci
    } else {
        NumberFormat::Fixed(4)
    }
}

/// The notes on a table's `interval` (what "±" is) and `scale` (what the row factors
/// mean); empty without them.
fn interval_notes(t: &TableEntry, exp: &Experiment) -> Vec<String> {
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

/// The number format of `digits:`.
fn digits_format(d: Digits) -> NumberFormat {
    match d {
        Digits::Significant(n) => NumberFormat::Significant(n),
        Digits::Decimals(n) => NumberFormat::Fixed(n),
    }
}

/// The note on the `*` of `bold_best` under `rule`; empty for no rule.
fn rule_note(rule: &SignificanceRule, lower: bool) -> String {
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
fn star_best_note(t: &TableEntry, rule: &SignificanceRule, metric: &str, lower: bool) -> String {
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
fn data_alpha(exp: &Experiment) -> f64 {
    star_alpha(exp.spec.significance)
}

/// The level of the one-sided Wilcoxon signed-rank tests behind `t`'s marks, or `None`
/// when its marks need no test (no marks, seconds, bold best without a rule).
fn test_level(t: &TableEntry, exp: &Experiment) -> Option<f64> {
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
fn star_significant_note(alpha: f64, lower: bool) -> String {
    let better = if lower { "lower" } else { "higher" };
    format!(
        "*: the best value of each block as printed, with every value equal to it, when each of them is significantly {better} than every other method of the block by a one-sided Wilcoxon signed-rank test at level {alpha}, paired by repetition (our reading of the HistOfTree paper's lost caption, docs/methods/histoftree.md §10). Missing results are never marked."
    )
}

/// The notes on the summary rows of `t` (`docs/methods/lpct.md` §10.6), one per row kind.
fn summary_notes(t: &TableEntry, task: Task, n_datasets: usize) -> Vec<String> {
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

/// Table `t` of the experiment under selection `mode`: [`table_rows`], then the notes
/// (what the numbers are and how grid points were selected, the marks, the summary rows,
/// privacy, methods not run) and the caption (the spec's, with the selection appended).
///
/// # Errors
/// A message naming the table's `reported:` file when it cannot be read.
pub fn build_table(
    exp: &Experiment,
    t: &TableEntry,
    selected: &SelectedMap,
    mode: Selection,
) -> Result<Table, String> {
    let (task, lower, metric) = task_direction(exp);
    let datasets: Vec<(String, String)> = exp
        .datasets
        .iter()
        .map(|d| {
            let label = match t.row_labels {
                RowLabels::Abbreviation => d.row_label.clone(),
                RowLabels::Name => d.name.clone(),
            };
            (d.name.clone(), label)
        })
        .collect();
    let reported = match &t.reported {
        Some(r) => {
            let dir = exp.path.parent().unwrap_or(std::path::Path::new(""));
            Some(
                read_reported(&dir.join(&r.file), &r.column)
                    .map_err(|e| format!("table {}: reported: {e}", t.name))?,
            )
        }
        None => None,
    };
    let (rows, summary_rows) = table_rows(
        t,
        &TableData {
            datasets: &datasets,
            selected,
            task,
            significance: exp.spec.significance,
            reported: reported.as_ref(),
        },
    );
    let mut groups = Vec::new();
    if !t.non_private.is_empty() {
        groups.push(ColumnGroup {
            label: String::new(),
            epsilon: None,
            block: String::new(),
            columns: t.non_private.clone(),
        });
    }
    let blocks = t.column_blocks();
    for e in &t.epsilons {
        for blk in &blocks {
            groups.push(ColumnGroup {
                label: group_label(*e, blk),
                epsilon: Some(*e),
                block: blk.label.clone(),
                columns: blk.methods.clone(),
            });
        }
    }
    let reps = selected.values().map(|s| s.summary.n).max().unwrap_or(0);
    let how = match mode {
        Selection::BestMean => {
            let paper = t
                .oracle_note
                .as_ref()
                .map(|n| format!(", {}", n.trim()))
                .unwrap_or_default();
            format!("Oracle selection (best_mean): for each data set, method and ε the grid point with the best mean test {metric} over repetitions{paper}.")
        }
        Selection::Cv => format!("Cross-validated selection (cv): in each repetition the grid point with the best mean held-out {metric} over {} folds of the private training data, each fold fitted with fresh privatization; its fit on the whole private training data is reported (LPDT paper §4; the folds' privacy cost is not accounted, as in the paper).", exp.spec.tuning.cv_folds),
        Selection::PrivateValidation => format!("Private validation (private_validation): in each repetition {}% of the private training users are held out and report their clipped squared error under every grid point's model with Laplace noise of scale R²·k/ε; the grid point with the lowest mean noisy error is reported, fitted on the other users (LPDT paper App. D.2, with basic composition where the paper uses advanced composition).", exp.spec.tuning.validation_share * 100.0),
    };
    let what = match &t.value {
        TableValue::Metric => format!("Mean test {metric} over {reps} repetitions."),
        TableValue::RatioTo { ratio_to, of: RatioOf::Means } => format!("Mean test {metric} over {reps} repetitions divided by the mean test {metric} of {ratio_to} (its selected grid point) on the same data set; ratios below 10 with two decimals, below 100 with one, above with one significant digit (HistOfTree paper, method card docs/methods/histoftree.md §10)."),
        TableValue::RatioTo { ratio_to, of: RatioOf::PerRepetition } => format!("Mean over {reps} repetitions of the ratio of the test {metric} to the test {metric} of {ratio_to} (its selected grid point) on the same data set and repetition; ratios below 10 with two decimals, below 100 with one, above with one significant digit (HistOfTree paper, method card docs/methods/histoftree.md §10)."),
        TableValue::Seconds => format!("Mean wall-clock seconds of one fit + predict of the selected grid point over {reps} repetitions, on this machine: the fit on the private training data (the partition grown on public data, the users' releases, the estimator) and the prediction of the test set; the time to load and split the data is not counted (LPCT paper Table 3, method card docs/methods/lpct.md §10.8)."),
    };
    let mut notes = vec![format!("{what} {how}")];
    if let Some(r) = &t.reported {
        let label = r.label.as_deref().unwrap_or("the paper's value");
        notes.push(format!("In parentheses: {label}."));
    }
    let rule = exp.spec.significance.unwrap_or(SignificanceRule::None);
    let marks_note = match t.marks {
        _ if t.value == TableValue::Seconds => String::new(),
        MarkStyle::BoldBest => rule_note(&rule, lower),
        MarkStyle::StarBest => star_best_note(t, &rule, metric, lower),
        MarkStyle::StarSignificant => star_significant_note(data_alpha(exp), lower),
        MarkStyle::None => String::new(),
    };
    if !marks_note.is_empty() {
        notes.push(marks_note);
    }
    if let Some(alpha) = test_level(t, exp) {
        notes.extend(too_few_repetitions(reps, alpha));
    }
    notes.extend(interval_notes(t, exp));
    notes.extend(summary_notes(t, task, datasets.len()));
    let compared = t.compared_methods();
    let shown: Vec<&str> = compared.iter().map(String::as_str).collect();
    let all: Vec<&str> = t
        .non_private
        .iter()
        .map(String::as_str)
        .chain(shown.iter().copied())
        .collect();
    notes.extend(super::accounting::model_notes(exp, &all));
    notes.extend(super::accounting::privacy_notes(exp, &shown, mode));
    for u in &t.unavailable {
        notes.push(format!("—: {} not available: {}", u.label, u.reason));
    }
    for s in &exp.spec.skip {
        if compared.contains(&s.method) || t.non_private.contains(&s.method) {
            notes.push(format!(
                "—: {} not run on {}: {}",
                s.method,
                s.datasets.join(", "),
                s.reason
            ));
        }
    }
    let base = if t.caption.is_empty() {
        format!("{} ({})", exp.spec.name, t.name)
    } else {
        t.caption.clone()
    };
    let selection = match mode {
        Selection::BestMean => {
            "oracle selection of grid points (best mean test metric over repetitions)"
        }
        Selection::Cv => "grid points selected by cross-validation on the private training data",
        Selection::PrivateValidation => {
            "grid points selected by private validation (held-out users report noisy errors)"
        }
    };
    let mut caption = format!("{base} Selection: {selection}.");
    if reps != exp.spec.repetitions {
        caption.push_str(&format!(
            " Repetitions run: {reps} of the spec's {}.",
            exp.spec.repetitions
        ));
    }
    let short_notes = vec![short_note(
        t,
        exp,
        &rows,
        reps,
        !t.unavailable.is_empty() || notes.iter().any(|n| n.starts_with("—:")),
    )];
    Ok(Table {
        name: t.name.clone(),
        caption,
        row_header: "Data".into(),
        groups,
        rows,
        summary_rows,
        notes,
        legend: match t.marks {
            MarkStyle::BoldBest => Legend::BoldBestUnderlineSecond,
            MarkStyle::StarBest | MarkStyle::StarSignificant | MarkStyle::None => Legend::InNotes,
        },
        layout: t.layout,
        short_notes,
        notes_file: None,
    })
}

/// The short note under a LaTeX table whose full notes are in a companion file (about
/// two lines of footnote text; the renderer adds the pointer to the file): what the
/// numbers are, what the marks and summary rows mean, and whether a dash stands for a
/// missing result (`missing`: a data set not available or a method not run).
fn short_note(
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

/// The experiment's task (the first data set's; regression without data sets), whether
/// lower values are better (MSE) or higher (accuracy), and the metric's name.
fn task_direction(exp: &Experiment) -> (Task, bool, &'static str) {
    let task = exp
        .datasets
        .first()
        .map(|d| d.task)
        .unwrap_or(Task::Regression);
    (task, task.lower_is_better(), task.metric_name())
}
