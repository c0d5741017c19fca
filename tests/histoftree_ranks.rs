//! The rank-sum rows of the HistOfTree tables (method card `docs/methods/histoftree.md` §10):
//! competition ranks on the printed ratios, the worst rank of a tie in the aligned block
//! and the best rank in the personalized block, reproduce all 36 printed rank sums of
//! `histoftree_ranksum.csv` from the 360 printed ratios of `histoftree_tables.csv`; the
//! opposite rules do not. And the ratio number format prints the paper's values as the
//! paper does.

mod common;

use dp_repro::report::{format_ratio, NumberFormat};
use dp_repro::stats::{rank_sums_competition, TieRank};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn reported(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("specs/reported")
        .join(file)
}

/// The method key of a row: `method` or `method(partition)`, e.g. `HistOfTree(ME)`.
fn key(rec: &csv::StringRecord, h: &csv::StringRecord) -> String {
    let get = |name: &str| &rec[h.iter().position(|x| x == name).unwrap()];
    match get("partition") {
        "" => get("method").to_string(),
        p => format!("{}({p})", get("method")),
    }
}

/// Printed cells: (table, setting) → (method columns in file order, data set → method →
/// printed text).
type Printed =
    BTreeMap<(String, String), (Vec<String>, BTreeMap<String, BTreeMap<String, String>>)>;

fn printed_tables() -> Printed {
    let mut rdr = csv::Reader::from_path(reported("histoftree_tables.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let mut out = Printed::new();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let block = out
            .entry((
                rec[col("table")].to_string(),
                rec[col("setting")].to_string(),
            ))
            .or_default();
        let m = key(&rec, &h);
        if !block.0.contains(&m) {
            block.0.push(m.clone());
        }
        block
            .1
            .entry(rec[col("dataset")].to_string())
            .or_default()
            .insert(m, rec[col("value")].to_string());
    }
    out
}

/// (table, setting) → method → printed rank sum.
fn printed_rank_sums() -> BTreeMap<(String, String), BTreeMap<String, usize>> {
    let mut rdr = csv::Reader::from_path(reported("histoftree_ranksum.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let mut out: BTreeMap<(String, String), BTreeMap<String, usize>> = BTreeMap::new();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        out.entry((
            rec[col("table")].to_string(),
            rec[col("setting")].to_string(),
        ))
        .or_default()
        .insert(key(&rec, &h), rec[col("rank_sum")].parse().unwrap());
    }
    out
}

/// Our rank sums of every block under `rule(setting)`, as (table, setting) → method → sum.
fn recomputed(
    rule: impl Fn(&str) -> TieRank,
) -> BTreeMap<(String, String), BTreeMap<String, usize>> {
    printed_tables()
        .into_iter()
        .map(|((table, setting), (methods, cells))| {
            let rows: Vec<Vec<Option<f64>>> = cells
                .values()
                .map(|row| {
                    methods
                        .iter()
                        .map(|m| row.get(m).map(|t| t.parse::<f64>().unwrap()))
                        .collect()
                })
                .collect();
            let sums = rank_sums_competition(&rows, true, f64::INFINITY, rule(&setting));
            let by_method = methods.into_iter().zip(sums).collect();
            ((table, setting), by_method)
        })
        .collect()
}

fn paper_rule(setting: &str) -> TieRank {
    match setting {
        "aligned" => TieRank::Max,
        "personalized" => TieRank::Min,
        other => panic!("unknown setting {other}"),
    }
}

#[test]
fn the_printed_tables_have_360_cells_in_six_blocks() {
    let t = printed_tables();
    assert_eq!(t.len(), 6);
    let cells: usize = t
        .values()
        .map(|(_, rows)| rows.values().map(|r| r.len()).sum::<usize>())
        .sum();
    assert_eq!(cells, 360);
    for ((_, setting), (methods, rows)) in &t {
        assert_eq!(methods.len(), if setting == "aligned" { 5 } else { 7 });
        assert_eq!(rows.len(), 10);
        assert!(rows.values().all(|r| r.len() == methods.len()));
    }
}

#[test]
fn the_papers_tie_rules_reproduce_all_36_printed_rank_sums() {
    let printed = printed_rank_sums();
    let ours = recomputed(paper_rule);
    assert_eq!(printed.values().map(|m| m.len()).sum::<usize>(), 36);
    assert_eq!(ours, printed);
}

#[test]
fn the_opposite_tie_rules_do_not() {
    let printed = printed_rank_sums();
    let mismatches = |rule: fn(&str) -> TieRank| {
        let ours = recomputed(rule);
        printed
            .iter()
            .flat_map(|(k, m)| m.iter().map(move |(method, s)| (k, method, *s)))
            .filter(|(k, method, s)| ours[*k][*method] != *s)
            .count()
    };
    let swapped = |s: &str| match paper_rule(s) {
        TieRank::Max => TieRank::Min,
        TieRank::Min => TieRank::Max,
    };
    assert!(mismatches(swapped) > 0);
    assert!(mismatches(|_| TieRank::Max) > 0, "max everywhere");
    assert!(mismatches(|_| TieRank::Min) > 0, "min everywhere");
}

#[test]
fn the_ratio_format_prints_the_papers_values_as_printed() {
    let t = printed_tables();
    let mut n = 0;
    for (_, rows) in t.values() {
        for text in rows.values().flat_map(|r| r.values()) {
            let v: f64 = text.parse().unwrap();
            assert_eq!(format_ratio(v), *text);
            assert_eq!(NumberFormat::Ratio.format(v), *text);
            n += 1;
        }
    }
    assert_eq!(n, 360);
    for (v, text) in [
        (1.85, "1.85"),
        (22.6, "22.6"),
        (19.0, "19.0"),
        (7e2, "7e2"),
        (1e4, "1e4"),
        (9e5, "9e5"),
        (1.854, "1.85"),
        (1.856, "1.86"),
        (9.994, "9.99"),
        (9.996, "10.0"),
        (99.94, "99.9"),
        (99.96, "1e2"),
        (149.0, "1e2"),
        (151.0, "2e2"),
        (951_000.0, "1e6"),
        (0.0, "0.00"),
        (-0.001, "0.00"),
        (-1.5, "-1.50"),
        (f64::NAN, "nan"),
        (f64::INFINITY, "inf"),
    ] {
        assert_eq!(format_ratio(v), text, "{v}");
    }
}
