//! Ordinal ranks with a fixed tie order, rank sums and first-place counts: the summary
//! rows "Rank Sum" and "No. 1" of LPCT Table 2 (method card `docs/methods/lpct.md` §10.6).
//!
//! A summary row is computed per ε block over a table whose rows are data sets and whose
//! columns are the compared methods. Ranks are ordinal (1, 2, 3, … with no averaging):
//! methods with equal values get different ranks, decided by a fixed tie order (the
//! authors ranked with `numpy.argsort` over their methods in alphabetical order of their
//! internal names; `docs/methods/lpct.md` §10.6).

use std::cmp::Ordering;

/// 1-based ordinal ranks of `values` (one per method; 1 = best).
///
/// Methods are ordered best first: by value, lowest first when `lower_is_better` (MSE),
/// highest first otherwise (accuracy); NaN is ranked after every number. Among equal
/// values the method that comes first in the tie order gets the smaller rank:
/// `tie_position[m]` is method m's position in the tie order (any distinct numbers; the
/// smaller goes first). So the ranks are always a permutation of 1..=n. Source:
/// `docs/methods/lpct.md` §10.6 (ordinal ranks, ties broken by a fixed method order).
///
/// ```
/// use dp_repro::stats::ordinal_ranks;
/// // Accuracies; methods 0 and 2 tie, and the tie order puts method 2 first.
/// let ranks = ordinal_ranks(&[0.8, 0.9, 0.8], false, &[1, 0, 0]);
/// assert_eq!(ranks, vec![3, 1, 2]);
/// ```
///
/// # Panics
/// If `tie_position` and `values` differ in length.
pub fn ordinal_ranks(values: &[f64], lower_is_better: bool, tie_position: &[usize]) -> Vec<usize> {
    assert_eq!(
        values.len(),
        tie_position.len(),
        "ordinal_ranks: one tie position per value"
    );
    let better_first = |a: f64, b: f64| -> Ordering {
        match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if lower_is_better => a.total_cmp(&b),
            (false, false) => b.total_cmp(&a),
        }
    };
    let mut order: Vec<usize> = (0..values.len()).collect();
    // Equal values compare equal (also 0.0 and -0.0, which total_cmp would separate).
    order.sort_by(|&a, &b| {
        let by_value = if values[a] == values[b] {
            Ordering::Equal
        } else {
            better_first(values[a], values[b])
        };
        by_value.then(tie_position[a].cmp(&tie_position[b]))
    });
    let mut ranks = vec![0; values.len()];
    for (place, &m) in order.iter().enumerate() {
        ranks[m] = place + 1;
    }
    ranks
}

/// Rank sums of the methods over data sets ("Rank Sum", `docs/methods/lpct.md` §10.6).
///
/// `table[d][m]` is the mean metric of method m on data set d (rows = data sets, one
/// column per method), `None` when the method has no result there; a missing result
/// counts as `missing`, the worst possible value of the metric (accuracy 0; for MSE
/// +∞). On each data set the methods get [`ordinal_ranks`] (1 = best; ties by
/// `tie_position`, as there); the result is each method's sum of ranks over the data sets
/// (the lowest sum is the best). With D data sets and n methods the sums add up to
/// D·n(n+1)/2.
///
/// ```
/// use dp_repro::stats::rank_sums;
/// let table = vec![
///     vec![Some(0.9), Some(0.8), None],      // data set 1: ranks 1, 2, 3
///     vec![Some(0.7), Some(0.7), Some(0.9)], // data set 2: tie 0/1 by tie order: 2, 3, 1
/// ];
/// assert_eq!(rank_sums(&table, false, 0.0, &[0, 1, 2]), vec![3, 5, 4]);
/// ```
///
/// # Panics
/// If a row's length differs from `tie_position`'s.
pub fn rank_sums(
    table: &[Vec<Option<f64>>],
    lower_is_better: bool,
    missing: f64,
    tie_position: &[usize],
) -> Vec<usize> {
    let mut sums = vec![0; tie_position.len()];
    for row in table {
        let values: Vec<f64> = row.iter().map(|v| v.unwrap_or(missing)).collect();
        for (s, r) in sums
            .iter_mut()
            .zip(ordinal_ranks(&values, lower_is_better, tie_position))
        {
            *s += r;
        }
    }
    sums
}

/// How [`competition_ranks`] ranks a group of equal values.
///
/// Competition ranks give a tie of k values ranked at places r..r+k−1 one shared rank:
/// `Min` gives each the best place r ("1224" ranking, the personalized block of the
/// HistOfTree tables), `Max` the worst place r+k−1 ("1334", the aligned block). Source:
/// method card `docs/methods/histoftree.md` §10, where these two rules reproduce all 36 printed rank
/// sums from the printed ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieRank {
    /// Every tied value gets the best rank of the tie.
    Min,
    /// Every tied value gets the worst rank of the tie.
    Max,
}

/// 1-based competition ranks of `values` (one per method; 1 = best).
///
/// A value's rank is decided by how many values are strictly better than it
/// (`TieRank::Min`: that count + 1) or by how many are better or equal
/// (`TieRank::Max`: that count, itself included). Better is lower when
/// `lower_is_better` (MSE), higher otherwise. NaN is worse than every number and
/// equal to every other NaN. Equal values are compared with `==` (so 0.0 and −0.0 tie);
/// pass values as printed to rank at the printed precision (`docs/methods/histoftree.md` §10).
///
/// ```
/// use dp_repro::stats::{competition_ranks, TieRank};
/// let v = [1.13, 1.13, 1.26, 2e5, 1.44];
/// assert_eq!(competition_ranks(&v, true, TieRank::Max), vec![2, 2, 3, 5, 4]);
/// assert_eq!(competition_ranks(&v, true, TieRank::Min), vec![1, 1, 3, 5, 4]);
/// ```
pub fn competition_ranks(values: &[f64], lower_is_better: bool, ties: TieRank) -> Vec<usize> {
    // `better(a, b)`: a is strictly better than b.
    let better = |a: f64, b: f64| match (a.is_nan(), b.is_nan()) {
        (_, true) => !a.is_nan(),
        (true, false) => false,
        (false, false) if lower_is_better => a < b,
        (false, false) => a > b,
    };
    let equal = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a == b;
    values
        .iter()
        .map(|&v| {
            let strictly = values.iter().filter(|&&o| better(o, v)).count();
            match ties {
                TieRank::Min => strictly + 1,
                TieRank::Max => strictly + values.iter().filter(|&&o| equal(o, v)).count(),
            }
        })
        .collect()
}

/// Rank sums with [`competition_ranks`] (the "rank sum" rows of the HistOfTree tables,
/// `docs/methods/histoftree.md` §10).
///
/// `table[d][m]` is method m's value on data set d (rows = data sets), `None` when the
/// method has no result there, which counts as `missing` (the worst value of the metric:
/// +∞ for MSE ratios). On each data set the methods get competition ranks under `ties`;
/// the result is each method's sum over the data sets (lowest = best). The width is the
/// longest row's; a shorter row counts its absent entries as missing.
///
/// ```
/// use dp_repro::stats::{rank_sums_competition, TieRank};
/// let table = vec![
///     vec![Some(1.5), Some(1.5), Some(2.0)],
///     vec![Some(1.0), None, Some(3.0)],
/// ];
/// assert_eq!(rank_sums_competition(&table, true, f64::INFINITY, TieRank::Max), vec![3, 5, 5]);
/// assert_eq!(rank_sums_competition(&table, true, f64::INFINITY, TieRank::Min), vec![2, 4, 5]);
/// ```
pub fn rank_sums_competition(
    table: &[Vec<Option<f64>>],
    lower_is_better: bool,
    missing: f64,
    ties: TieRank,
) -> Vec<usize> {
    let width = table.iter().map(Vec::len).max().unwrap_or(0);
    let mut sums = vec![0; width];
    for row in table {
        let values: Vec<f64> = (0..width)
            .map(|m| row.get(m).copied().flatten().unwrap_or(missing))
            .collect();
        for (s, r) in sums
            .iter_mut()
            .zip(competition_ranks(&values, lower_is_better, ties))
        {
            *s += r;
        }
    }
    sums
}

/// "No. 1" counts (`docs/methods/lpct.md` §10.6): for each of `n_methods` methods, the number of data
/// sets on which it is marked first — starred or bold in LPCT Table 2.
/// `marked[d][m]` says whether method m is marked on data set d; a row shorter than
/// `n_methods` counts its absent entries as unmarked.
///
/// ```
/// use dp_repro::stats::first_place_counts;
/// let marked = vec![vec![true, true, false], vec![false, true, false]];
/// assert_eq!(first_place_counts(&marked, 3), vec![1, 2, 0]);
/// ```
pub fn first_place_counts(marked: &[Vec<bool>], n_methods: usize) -> Vec<usize> {
    let mut counts = vec![0; n_methods];
    for row in marked {
        for (c, &m) in counts.iter_mut().zip(row) {
            *c += usize::from(m);
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competition_ranks_share_the_best_or_worst_place_of_a_tie() {
        let v = [2.0, 1.0, 2.0, 2.0, 3.0];
        assert_eq!(competition_ranks(&v, true, TieRank::Min), [2, 1, 2, 2, 5]);
        assert_eq!(competition_ranks(&v, true, TieRank::Max), [4, 1, 4, 4, 5]);
        assert_eq!(competition_ranks(&v, false, TieRank::Min), [2, 5, 2, 2, 1]);
        assert_eq!(competition_ranks(&v, false, TieRank::Max), [4, 5, 4, 4, 1]);
        // Without ties both rules are the ordinal ranks.
        let v = [0.3, 0.1, 0.2];
        assert_eq!(competition_ranks(&v, true, TieRank::Min), [3, 1, 2]);
        assert_eq!(competition_ranks(&v, true, TieRank::Max), [3, 1, 2]);
        // NaN is last and ties with NaN; signed zeros tie.
        let v = [f64::NAN, 0.0, -0.0, f64::NAN];
        assert_eq!(competition_ranks(&v, true, TieRank::Min), [3, 1, 1, 3]);
        assert_eq!(competition_ranks(&v, false, TieRank::Max), [4, 2, 2, 4]);
        assert!(competition_ranks(&[], true, TieRank::Min).is_empty());
    }

    #[test]
    fn competition_rank_sums_count_missing_as_the_worst_value() {
        let table = vec![vec![None, Some(1.0), Some(f64::INFINITY)], vec![Some(1.0)]];
        // Row 1: 1.0 → 1, the missing and the real +inf tie (Max 3, 3; Min 2, 2).
        // Row 2 is short: methods 1 and 2 are missing and tie behind method 0.
        assert_eq!(
            rank_sums_competition(&table, true, f64::INFINITY, TieRank::Max),
            [4, 4, 6]
        );
        assert_eq!(
            rank_sums_competition(&table, true, f64::INFINITY, TieRank::Min),
            [3, 3, 4]
        );
        assert!(rank_sums_competition(&[], true, 0.0, TieRank::Min).is_empty());
    }

    #[test]
    fn ranks_without_ties_follow_the_values() {
        assert_eq!(ordinal_ranks(&[3.0, 1.0, 2.0], true, &[0, 1, 2]), [3, 1, 2]);
        assert_eq!(
            ordinal_ranks(&[3.0, 1.0, 2.0], false, &[0, 1, 2]),
            [1, 3, 2]
        );
        // Without ties the tie order changes nothing.
        assert_eq!(ordinal_ranks(&[3.0, 1.0, 2.0], true, &[2, 0, 1]), [3, 1, 2]);
    }

    #[test]
    fn ties_are_decided_by_the_tie_order_not_the_index() {
        // All three tied: the ranks are the tie positions (+1), whatever the indices.
        assert_eq!(ordinal_ranks(&[0.5; 3], false, &[2, 0, 1]), [3, 1, 2]);
        assert_eq!(ordinal_ranks(&[0.5; 3], false, &[0, 1, 2]), [1, 2, 3]);
        // A tie below a distinct best: ranks 2 and 3 go by the tie order.
        assert_eq!(
            ordinal_ranks(&[0.7, 0.9, 0.7], false, &[9, 5, 3]),
            [3, 1, 2]
        );
        // Signed zeros are equal values.
        assert_eq!(ordinal_ranks(&[0.0, -0.0], true, &[1, 0]), [2, 1]);
    }

    #[test]
    fn nan_ranks_last() {
        assert_eq!(
            ordinal_ranks(&[f64::NAN, 1.0, 2.0], true, &[0, 1, 2]),
            [3, 1, 2]
        );
        assert_eq!(
            ordinal_ranks(&[f64::NAN, 1.0, 2.0], false, &[0, 1, 2]),
            [3, 2, 1]
        );
    }

    #[test]
    fn missing_counts_as_the_worst_value_and_ties_with_it() {
        // Accuracy: a missing result counts as 0, so it ties with a real 0 and the tie
        // order decides; it is behind every positive accuracy.
        let table = vec![vec![None, Some(0.0), Some(0.4)]];
        assert_eq!(rank_sums(&table, false, 0.0, &[0, 1, 2]), [2, 3, 1]);
        assert_eq!(rank_sums(&table, false, 0.0, &[1, 0, 2]), [3, 2, 1]);
        // MSE: missing counts as +inf.
        let table = vec![vec![None, Some(1e9), Some(2.0)]];
        assert_eq!(
            rank_sums(&table, true, f64::INFINITY, &[0, 1, 2]),
            [3, 2, 1]
        );
    }

    #[test]
    fn rank_sums_add_up_and_count_each_data_set() {
        let table = vec![
            vec![Some(0.9), Some(0.8), Some(0.7), None],
            vec![Some(0.6), Some(0.6), Some(0.6), Some(0.6)],
            vec![None, None, Some(0.1), Some(0.2)],
        ];
        let sums = rank_sums(&table, false, 0.0, &[3, 2, 1, 0]);
        // Set 1: 1, 2, 3, 4. Set 2 (all tied, tie order 3, 2, 1, 0): 4, 3, 2, 1.
        // Set 3: 0.2 → 1, 0.1 → 2, the two missing tie at 0: method 1 (position 2) → 3,
        // method 0 (position 3) → 4.
        assert_eq!(sums, [9, 8, 7, 6]);
        assert_eq!(sums.iter().sum::<usize>(), 3 * 4 * 5 / 2);
        assert_eq!(rank_sums(&[], false, 0.0, &[0, 1]), [0, 0]);
    }

    #[test]
    fn first_place_counts_sum_columns() {
        let marked = vec![vec![true, false], vec![true, true], vec![false]];
        assert_eq!(first_place_counts(&marked, 2), [2, 1]);
        assert_eq!(first_place_counts(&[], 3), [0, 0, 0]);
    }
}
