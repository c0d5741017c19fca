//! The rank-sum tie rule of LPCT Table 2 (method card `docs/methods/lpct.md` §10.6): ordinal
//! ranks whose ties a fixed method order breaks, on a hand-made table and on the paper's
//! printed Table 2, whose recomputed sums the card gives (§10.7).

mod common;

use dp_repro::stats::{first_place_counts, ordinal_ranks, rank_sums};
use std::collections::BTreeMap;

/// Three data sets × four methods (accuracies), with an exact three-way tie, a two-way tie
/// below the best and two missing results. Ranks worked out by hand below.
fn hand_made() -> Vec<Vec<Option<f64>>> {
    vec![
        // A, B, C tie at 0.9; D below. Tie order C, A, D, B → C 1, A 2, B 3, D 4.
        vec![Some(0.9), Some(0.9), Some(0.9), Some(0.7)],
        // D best; A and C tie at 0.6 → C 2, A 3; B missing (accuracy 0) → 4.
        vec![Some(0.6), None, Some(0.6), Some(0.8)],
        // B 1, A 2; C missing (accuracy 0) ties with D's real 0 → C 3, D 4.
        vec![Some(0.5), Some(0.55), None, Some(0.0)],
    ]
}

#[test]
fn ties_decide_the_rank_sums_of_a_hand_made_table() {
    // Tie order C, A, D, B: positions A 1, B 3, C 0, D 2.
    let authors = [1, 3, 0, 2];
    let sums = rank_sums(&hand_made(), false, 0.0, &authors);
    // A: 2 + 3 + 2 = 7; B: 3 + 4 + 1 = 8; C: 1 + 2 + 3 = 6; D: 4 + 1 + 4 = 9.
    assert_eq!(sums, [7, 8, 6, 9]);
    // The column order as tie order (A, B, C, D) gives other sums from the same means:
    // A 1 + 2 + 2 = 5, B 2 + 4 + 1 = 7, C 3 + 3 + 3 = 9, D 4 + 1 + 4 = 9.
    let columns = [0, 1, 2, 3];
    assert_eq!(rank_sums(&hand_made(), false, 0.0, &columns), [5, 7, 9, 9]);
    // Either way the ranks of a data set are a permutation of 1..=4.
    for row in hand_made() {
        let values: Vec<f64> = row.iter().map(|v| v.unwrap_or(0.0)).collect();
        let mut ranks = ordinal_ranks(&values, false, &authors);
        ranks.sort();
        assert_eq!(ranks, [1, 2, 3, 4]);
    }
}

#[test]
fn lower_is_better_ranks_mse_and_missing_is_infinite() {
    // MSE: lower is better; the missing one counts as +inf and ties with nothing finite.
    let table = vec![vec![Some(2.0), None, Some(2.0), Some(1.0)]];
    assert_eq!(
        rank_sums(&table, true, f64::INFINITY, &[1, 0, 2, 3]),
        [2, 4, 3, 1]
    );
}

#[test]
fn no1_counts_the_marked_cells_per_method() {
    let marked = vec![
        vec![true, false, true],
        vec![true, true, false],
        vec![false, false, false],
    ];
    assert_eq!(first_place_counts(&marked, 3), [2, 1, 1]);
}

/// The paper's printed Table 2 (`lpct_table2.csv`, accuracies as fractions, empty = "-")
/// ranked with the authors' tie order gives the sums the card recomputes in §10.7 (not
/// the printed ones, which the card shows to be inconsistent).
#[test]
fn the_papers_table2_gives_the_cards_recomputed_rank_sums() {
    let Some(path) = common::reported_file("lpct_table2.csv") else {
        return;
    };
    let columns = [
        "LPCT(Maxedge)",
        "LPCT(CART)",
        "LPCT-prune(Maxedge)",
        "LPCT-prune(CART)",
        "CT-Q",
        "PHIST",
        "LPDT",
        "PGLM",
        "PSGD-L",
        "PSGD-N",
    ];
    // numpy argsort over the authors' internal names in alphabetical order (§10.6):
    // CT_pub, LDPGLM, LDPHIST, LDPTC-Prune, LPCT-M, LPCT-Prune-V, LPCT-V, LPCT-original,
    // PSGD-L, PSGD-N.
    let tie_order = [
        "CT-Q",
        "PGLM",
        "PHIST",
        "LPCT-prune(Maxedge)",
        "LPCT(Maxedge)",
        "LPCT-prune(CART)",
        "LPCT(CART)",
        "LPDT",
        "PSGD-L",
        "PSGD-N",
    ];
    let position: Vec<usize> = columns
        .iter()
        .map(|c| tie_order.iter().position(|t| t == c).unwrap())
        .collect();
    let text = std::fs::read_to_string(&path).unwrap();
    // ε → data sets in file order, each with method → accuracy.
    type Block = Vec<(String, BTreeMap<String, Option<f64>>)>;
    let mut blocks: BTreeMap<String, Block> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (dataset, method, eps, acc) = (f[0], f[1], f[2], f[3]);
        let rows = blocks.entry(eps.to_string()).or_default();
        if rows.last().is_none_or(|(d, _)| d != dataset) {
            rows.push((dataset.to_string(), BTreeMap::new()));
        }
        let value = (!acc.is_empty()).then(|| acc.parse::<f64>().unwrap());
        rows.last_mut().unwrap().1.insert(method.to_string(), value);
    }
    let expected = [
        ("0.5", [36, 19, 53, 36, 38, 81, 83, 105, 73, 81]),
        ("2", [39, 19, 57, 32, 41, 84, 71, 105, 78, 79]),
        ("8", [44, 20, 76, 46, 49, 77, 55, 99, 59, 80]),
    ];
    for (eps, sums) in expected {
        let rows = &blocks[eps];
        assert_eq!(rows.len(), 11, "ε = {eps}: 11 data sets");
        let table: Vec<Vec<Option<f64>>> = rows
            .iter()
            .map(|(_, m)| columns.iter().map(|c| m[*c]).collect())
            .collect();
        let got = rank_sums(&table, false, 0.0, &position);
        assert_eq!(got, sums, "ε = {eps}");
        assert_eq!(got.iter().sum::<usize>(), 605, "ε = {eps}: 11 · 55");
    }
    // The tie order matters: Anonymity at ε = 0.5 has LPCT(Maxedge), LPCT(CART), CT-Q
    // and PHIST tied at 0.8346; the authors' order ranks them CT-Q, PHIST, LPCT(Maxedge),
    // LPCT(CART); the column order would rank them in column order.
    let (name, anonymity) = &blocks["0.5"][0];
    assert_eq!(name, "Anonymity");
    let values: Vec<f64> = columns
        .iter()
        .map(|c| anonymity[*c].unwrap_or(0.0))
        .collect();
    let authors = ordinal_ranks(&values, false, &position);
    assert_eq!(&authors[..2], [3, 4]);
    assert_eq!((authors[4], authors[5]), (1, 2));
    let by_column = ordinal_ranks(&values, false, &(0..10).collect::<Vec<_>>());
    assert_eq!(&by_column[..2], [1, 2]);
    assert_eq!((by_column[4], by_column[5]), (3, 4));
}
