//! The pure part of a table: the data rows with their marks and the summary rows, from
//! the selected results ([`table_rows`]), and the rules that choose the marks.

use super::{Selected, TableData};
use crate::data::Task;
use crate::report::{Cell, NumberFormat, Row};
use crate::run::seeds::epsilon_text;
use crate::spec::raw::{
    Digits, Interval, MarkStyle, RankTies, RatioOf, SummaryRow, TableEntry, TableValue,
};
use crate::stats::{
    ci95_halfwidth, first_place_counts, rank_marks, rank_sums, rank_sums_competition,
    significance_marks, star_significant, summarize, ties_for_best, SignificanceRule, TieRank,
    DEFAULT_ALPHA,
};
use std::collections::BTreeMap;

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
pub(super) fn bold_rule(significance: Option<SignificanceRule>) -> SignificanceRule {
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
pub(super) fn star_alpha(significance: Option<SignificanceRule>) -> f64 {
    match significance {
        Some(SignificanceRule::BetterThanRest { alpha, .. })
        | Some(SignificanceRule::NotWorseThanBest { alpha }) => alpha,
        _ => DEFAULT_ALPHA,
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

/// The number format of `digits:`.
fn digits_format(d: Digits) -> NumberFormat {
    match d {
        Digits::Significant(n) => NumberFormat::Significant(n),
        Digits::Decimals(n) => NumberFormat::Fixed(n),
    }
}
