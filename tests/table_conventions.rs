//! Table conventions of LPCT Table 2 (method card `docs/methods/lpct.md` §10.5–§10.6):
//! `marks: star_best` (* = best mean and its ties as printed, bold = not significantly
//! worse than the best) and the summary rows Rank Sum and No. 1 with a tie order, on a
//! hand-made classification table; and the spec fields end to end through the CLI.

mod common;

use assert_cmd::Command;
use dp_repro::data::Task;
use dp_repro::report::{render_latex, render_markdown, ColumnGroup, Legend, Row, Table};
use dp_repro::spec::raw::{MarkStyle, RankTies, RowLabels, SummaryRow, TableEntry, TableValue};
use dp_repro::stats::SignificanceRule;
use dp_repro::summary::table::{table_rows, ReportedCells, Selected, SelectedMap, TableData};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

const REPS: usize = 10;

/// Per-repetition accuracies `f(r)` for r = 0..10.
fn reps(f: impl Fn(f64) -> f64) -> BTreeMap<usize, f64> {
    (0..REPS).map(|r| (r, f(r as f64))).collect()
}

/// Three data sets, methods M1, M2, M3 at ε = 1 and the non-private CT-W (best
/// everywhere, never marked). Means (as printed with 4 decimals):
/// - A: M1 0.909 and M3 identical to M1 (all differences zero); M2 = M1 − 0.05.
/// - B: M2 0.859; M1 0.857 with mixed-sign differences (not significant); M3 not run.
/// - C: M1 0.80003 and M2 = M1 − 0.00005 (0.79998): both print 0.8000, but M2 is lower in
///   every repetition (significantly worse); M3 0.5.
fn selected() -> SelectedMap {
    let mut s = SelectedMap::new();
    let mut put = |d: &str, m: &str, eps: &str, values: BTreeMap<usize, f64>| {
        s.insert(
            (d.to_string(), m.to_string(), eps.to_string()),
            Selected::new("depth=1", values),
        );
    };
    for d in ["A", "B", "C"] {
        put(d, "CT-W", "", reps(|_| 0.99));
    }
    let a1 = |r: f64| 0.90 + 0.002 * r;
    put("A", "M1", "1", reps(a1));
    put("A", "M2", "1", reps(|r| a1(r) - 0.05));
    put("A", "M3", "1", reps(a1));
    let b2 = |r: f64| 0.85 + 0.002 * r;
    let d = [
        -0.03, 0.01, 0.01, 0.01, -0.03, 0.01, 0.01, 0.01, -0.03, 0.01,
    ];
    put("B", "M1", "1", reps(|r| b2(r) + d[r as usize]));
    put("B", "M2", "1", reps(b2));
    let c1 = |r: f64| 0.79994 + 0.00002 * r;
    put("C", "M1", "1", reps(c1));
    put("C", "M2", "1", reps(|r| c1(r) - 0.00005));
    put("C", "M3", "1", reps(|_| 0.5));
    s
}

fn entry(rank_ties: &[&str]) -> TableEntry {
    TableEntry {
        name: "t".into(),
        caption: String::new(),
        epsilons: vec![1.0],
        methods: vec!["M1".into(), "M2".into(), "M3".into()],
        blocks: Vec::new(),
        non_private: vec!["CT-W".into()],
        row_labels: RowLabels::Name,
        marks: MarkStyle::StarBest,
        summary_rows: vec![SummaryRow::RankSum, SummaryRow::No1],
        rank_ties: RankTies::Order(rank_ties.iter().map(|s| s.to_string()).collect()),
        oracle_note: None,
        value: TableValue::Metric,
        reported: None,
        ..TableEntry::default()
    }
}

fn rows_of(t: &TableEntry) -> (Vec<Row>, Vec<Row>) {
    let datasets: Vec<(String, String)> = ["A", "B", "C"]
        .iter()
        .map(|d| (d.to_string(), d.to_string()))
        .collect();
    let selected = selected();
    table_rows(
        t,
        &TableData {
            datasets: &datasets,
            selected: &selected,
            task: Task::Classification,
            significance: Some(SignificanceRule::NotWorseThanBest { alpha: 0.05 }),
            reported: None,
        },
    )
}

/// A running-time table (`value: seconds`, LPCT Table 3) shows each selection's mean
/// seconds, not its metric, with no marks, and prints the paper's value beside ours: by
/// (data set, method) for every block when the file has no ε, and nothing where the paper
/// has no value or we have no result.
#[test]
fn seconds_table_shows_mean_seconds_beside_the_papers_values() {
    let mut selected = SelectedMap::new();
    let secs = |base: f64| -> BTreeMap<usize, f64> {
        (0..4).map(|r| (r, base * (r + 1) as f64)).collect()
    };
    for (d, m, base) in [("A", "M1", 0.01), ("A", "M2", 2.0), ("B", "M1", 0.5)] {
        selected.insert(
            (d.to_string(), m.to_string(), "1".to_string()),
            Selected::new("depth=1", reps(|_| 0.9)).with_seconds(secs(base)),
        );
    }
    selected.insert(
        ("A".to_string(), "CT-W".to_string(), String::new()),
        Selected::new("max_depth=2", reps(|_| 0.99)).with_seconds(secs(0.002)),
    );
    let mut reported = ReportedCells::new();
    reported.insert(("A".into(), "M1".into(), None), "3e-2".into());
    reported.insert(("A".into(), "CT-W".into(), None), "0.003".into());
    reported.insert(("B".into(), "M2".into(), None), "1e2".into());
    let mut t = entry(&[]);
    t.methods = vec!["M1".into(), "M2".into()];
    t.value = TableValue::Seconds;
    t.summary_rows.clear();
    let datasets = vec![
        ("A".to_string(), "A".to_string()),
        ("B".to_string(), "B".to_string()),
    ];
    let (rows, summary) = table_rows(
        &t,
        &TableData {
            datasets: &datasets,
            selected: &selected,
            task: Task::Classification,
            significance: None,
            reported: Some(&reported),
        },
    );
    assert!(summary.is_empty());
    let texts: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.cells.iter().map(|c| c.text.as_str()).collect())
        .collect();
    // Means of base × (1 + 2 + 3 + 4) / 4 = 2.5 × base.
    assert!((rows[0].cells[0].value.unwrap() - 0.005).abs() < 1e-15);
    assert_eq!(
        texts[0],
        vec!["5.00e-3 (0.003)", "2.50e-2 (3e-2)", "5.00e+0"]
    );
    assert_eq!(rows[1].cells[1].value, Some(1.25));
    assert_eq!(texts[1][1], "1.25e+0");
    // B × M2 did not run: no value, so the paper's 1e2 is not printed in its place.
    assert_eq!(rows[1].cells[2].value, None);
    assert!(rows
        .iter()
        .flat_map(|r| &r.cells)
        .all(|c| !c.bold && !c.star && !c.underline));
}

/// (star, bold) per cell of a row, the CT-W column first.
fn marks(r: &Row) -> Vec<(bool, bool)> {
    r.cells.iter().map(|c| (c.star, c.bold)).collect()
}

#[test]
fn star_best_marks_and_summary_rows_on_a_hand_made_classification_table() {
    let (rows, summary) = rows_of(&entry(&["M3", "M1", "M2"]));
    let none = (false, false);
    // A: M1 and M3 tie (starred, bold: all differences zero); M2 significantly worse.
    assert_eq!(marks(&rows[0]), [none, (true, true), none, (true, true)]);
    // B: M2 best; M1 lower but not significantly (bold only); M3 missing, unmarked.
    assert_eq!(marks(&rows[1]), [none, (false, true), (true, true), none]);
    assert_eq!(rows[1].cells[3].value, None);
    // C: M2 ties M1 as printed (starred) but is significantly worse (not bold).
    assert_eq!(marks(&rows[2]), [none, (true, true), (true, false), none]);
    assert_eq!(rows[2].cells[1].text, "0.8000");
    assert_eq!(rows[2].cells[2].text, "0.8000");
    // No underline in this style; CT-W (0.9900, the highest) is never marked.
    assert!(rows.iter().flat_map(|r| &r.cells).all(|c| !c.underline));
    assert!(rows.iter().all(|r| r.cells[0].text == "0.9900"));

    // Rank Sum with tie order M3, M1, M2: A: M3 1, M1 2, M2 3; B: M2 1, M1 2, M3
    // (missing = accuracy 0) 3; C: M1 1, M2 2, M3 3. Sums 5, 6, 7; the lowest starred.
    assert_eq!(summary[0].label, "Rank Sum");
    let texts = |r: &Row| r.cells.iter().map(|c| c.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&summary[0]), ["", "5", "6", "7"]);
    assert_eq!(marks(&summary[0]), [none, (true, false), none, none]);
    // No. 1 = starred or bold: M1 on A, B, C; M2 on B, C; M3 on A.
    assert_eq!(summary[1].label, "No. 1");
    assert_eq!(texts(&summary[1]), ["", "3", "2", "1"]);
    assert_eq!(marks(&summary[1]), [none, (true, false), none, none]);

    // The default tie order is the column order: on A, M1 now ranks before M3.
    let (_, by_column) = rows_of(&entry(&[]));
    assert_eq!(texts(&by_column[0]), ["", "4", "6", "8"]);
}

#[test]
fn summary_rows_render_after_a_rule_and_stay_one_table() {
    let (rows, summary_rows) = rows_of(&entry(&["M3", "M1", "M2"]));
    let mut t = Table::new("t", "Accuracy", "Data");
    t.groups.push(ColumnGroup::plain("", vec!["CT-W".into()]));
    t.groups.push(ColumnGroup::private(
        1.0,
        vec!["M1".into(), "M2".into(), "M3".into()],
    ));
    t.rows = rows;
    t.summary_rows = summary_rows;
    t.notes.push("What the marks mean.".into());
    t.legend = Legend::InNotes;
    let md = render_markdown(&t).unwrap();
    let lines: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(
        lines[2..],
        [
            r"| A | 0.9900 | **0.9090**\* | 0.8590 | **0.9090**\* |",
            r"| B | 0.9900 | **0.8570** | **0.8590**\* | — |",
            r"| C | 0.9900 | **0.8000**\* | 0.8000\* | 0.5000 |",
            r"| Rank Sum |  | 5\* | 6 | 7 |",
            r"| No. 1 |  | 3\* | 2 | 1 |",
        ],
        "{md}"
    );
    // Every line has the same number of cells, so the table reads as one in pandas; the
    // notes explain the marks (no LPDT legend "Bold: best").
    assert!(lines.iter().all(|l| l.matches('|').count() == 6));
    assert!(!md.contains("Bold: best"), "{md}");

    let tex = render_latex(&t).unwrap();
    let body: Vec<&str> = tex.lines().collect();
    let c = body.iter().position(|l| l.starts_with("C &")).unwrap();
    assert_eq!(body[c + 1], r"\midrule", "{tex}");
    assert_eq!(body[c + 2], r"Rank Sum &  & 5$^*$ & 6 & 7 \\");
    assert_eq!(body[c + 3], r"No. 1 &  & 3$^*$ & 2 & 1 \\");
    assert_eq!(body[c + 4], r"\bottomrule");
    assert!(tex.contains(r"C & 0.9900 & \textbf{0.8000}$^*$ & 0.8000$^*$ & 0.5000 \\"));
}

// ------------------------------------------------------------------ through the CLI

/// Two synthetic data sets, three private methods, DT; 8 repetitions.
const SPEC: &str = "name: conventions\nseed: 5\nrepetitions: 8\ndatasets:\n  - {name: s1, synthetic: lpdt_sine, sizes: {public: 100, private: 800, test: 200}}\n  - {name: s2, synthetic: lpdt_sine, sizes: {public: 300, private: 1500, test: 200}}\nepsilons: [1, 8]\nmethods:\n  - method: DT\n    grid: {max_depth: [3]}\n  - method: LPDT-M\n    grid: {depth: [2, 3], min_leaf: [10], rho: [0.5]}\n  - method: PHIST\n    grid: {bins: [2, 3], t: [0.05]}\n  - method: APHIST\n    grid: {bins: [2, 3], t: [0.05]}\nskip:\n  - {method: APHIST, datasets: [s2], reason: a test of missing cells}\nsignificance: {rule: not_worse_than_best, alpha: 0.05}\ntables:\n  - name: lpct\n    epsilons: [1, 8]\n    methods: [LPDT-M, PHIST, APHIST]\n    non_private: [DT]\n    marks: star_best\n    summary_rows: [rank_sum, no1]\n    rank_ties: [APHIST, PHIST, LPDT-M]\n    oracle_note: as a paper would say\n  - name: lpdt\n    epsilons: [1, 8]\n    methods: [LPDT-M, PHIST, APHIST]\n    non_private: [DT]\n";

fn dp_repro(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(dir)
        .envs(common::no_user_data())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The Markdown table's lines as cells (row label first), header and alignment dropped.
fn md_cells(md: &str) -> Vec<Vec<String>> {
    md.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Data") && !l.starts_with("| :"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn spec_fields_render_marks_summary_rows_and_notes_consistent_with_selected_csv() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("spec.yaml"), SPEC).unwrap();
    let (code, err) = dp_repro(dir.path(), &["run", "spec.yaml", "--quiet", "--out", "out"]);
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join("out");
    let md = fs::read_to_string(out.join("table-lpct.md")).unwrap();

    // selected.csv: (data set, method, ε) → mean; the oracle of this test.
    let selected = fs::read_to_string(out.join("selected.csv")).unwrap();
    let mean: BTreeMap<(String, String, String), f64> = selected
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                (f[0].into(), f[1].into(), f[2].into()),
                f[3].parse().unwrap(),
            )
        })
        .collect();
    // tests.csv: p of "method lower than other" per (data set, ε, method, other).
    let tests = fs::read_to_string(out.join("tests.csv")).unwrap();
    let p_value = |ds: &str, eps: &str, method: &str, other: &str| -> Option<f64> {
        tests
            .lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f[0] == ds && f[1] == eps && f[2] == method && f[3] == other)
            .and_then(|f| f[6].parse().ok())
    };
    let methods = ["LPDT-M", "PHIST", "APHIST"];
    let tie_position = [2, 1, 0]; // rank_ties: APHIST, PHIST, LPDT-M
    let cells = md_cells(&md);
    assert_eq!(cells.len(), 4, "{md}"); // SINE rows of s1 and s2, Rank Sum, No. 1
    let (data, summary) = cells.split_at(2);
    assert_eq!(summary[0][0], "Rank Sum");
    assert_eq!(summary[1][0], "No. 1");
    assert_eq!((summary[0][1].as_str(), summary[1][1].as_str()), ("", ""));
    for (b, eps) in ["1", "8"].iter().enumerate() {
        let col = |m: usize| 2 + 3 * b + m; // label, DT, then 3 per ε block
        let mut sums = [0usize; 3];
        let mut no1 = [0usize; 3];
        for (d, ds) in ["s1", "s2"].iter().enumerate() {
            let row = &data[d];
            assert!(!row[1].contains('*'), "DT is never marked: {row:?}");
            let means: Vec<Option<f64>> = methods
                .iter()
                .map(|m| {
                    mean.get(&(ds.to_string(), m.to_string(), eps.to_string()))
                        .copied()
                })
                .collect();
            // * on the cells whose printed mean equals the best printed mean.
            let printed: Vec<Option<f64>> = (0..3)
                .map(|m| {
                    let c = row[col(m)].replace("**", "").replace("\\*", "");
                    c.parse().ok()
                })
                .collect();
            let best = printed
                .iter()
                .flatten()
                .cloned()
                .fold(f64::INFINITY, f64::min);
            for m in 0..3 {
                let cell = &row[col(m)];
                assert_eq!(
                    cell.ends_with("\\*"),
                    printed[m] == Some(best),
                    "{ds} ε={eps} {}: {cell}",
                    methods[m]
                );
                if means[m].is_none() {
                    assert_eq!(cell, "—");
                }
                // Bold: the best mean, and every method tests.csv does not find
                // significantly worse than it (p of "best lower than m" ≥ 0.05).
                let best_m = (0..3)
                    .filter(|&i| means[i].is_some())
                    .min_by(|&a, &b| means[a].unwrap().total_cmp(&means[b].unwrap()))
                    .unwrap();
                if means[m].is_some() {
                    let p = p_value(ds, eps, methods[best_m], methods[m]);
                    let not_worse = m == best_m || p.is_none_or(|p| p >= 0.05);
                    assert_eq!(
                        cell.starts_with("**"),
                        not_worse,
                        "{ds} ε={eps} {}: {cell}, p {p:?}",
                        methods[m]
                    );
                }
                no1[m] += usize::from(cell.contains('*'));
            }
            // Ordinal ranks by mean (missing = +inf MSE), ties by the tie order.
            let mut order: Vec<usize> = (0..3).collect();
            order.sort_by(|&a, &b| {
                let v = |i: usize| means[i].unwrap_or(f64::INFINITY);
                v(a).total_cmp(&v(b))
                    .then(tie_position[a].cmp(&tie_position[b]))
            });
            for (place, &m) in order.iter().enumerate() {
                sums[m] += place + 1;
            }
        }
        for m in 0..3 {
            let s = &summary[0][col(m)];
            assert_eq!(
                s.trim_end_matches("\\*"),
                sums[m].to_string(),
                "rank sum ε={eps}"
            );
            assert_eq!(s.ends_with("\\*"), sums[m] == *sums.iter().min().unwrap());
            let n = &summary[1][col(m)];
            assert_eq!(
                n.trim_end_matches("\\*"),
                no1[m].to_string(),
                "No. 1 ε={eps}"
            );
            assert_eq!(n.ends_with("\\*"), no1[m] == *no1.iter().max().unwrap());
        }
    }
    // Notes: the generic oracle sentence with the spec's clause, what * and bold mean,
    // how the summary rows are computed; no LPDT legend.
    for needle in [
        "the best mean test mse over repetitions, as a paper would say.",
        "\\*: the best mean test mse of each ε block, and every mean equal to it as printed. Bold: the best and every method that a one-sided Wilcoxon signed-rank test at level 0.05",
        "ties broken by the order APHIST, PHIST, LPDT-M; a missing result counts as the worst mse, +∞), and the ranks are summed over the 2 data sets",
        "No. 1: the number of data sets on which the method is starred or bold",
        "—: APHIST not run on s2",
    ] {
        assert!(md.contains(needle), "missing `{needle}` in\n{md}");
    }
    assert!(!md.contains("Bold: best"), "{md}");
    let tex = fs::read_to_string(out.join("table-lpct.tex")).unwrap();
    assert_eq!(tex.matches(r"\midrule").count(), 2, "{tex}");

    // The table without the new fields keeps the LPDT conventions and the generic note.
    let lpdt = fs::read_to_string(out.join("table-lpdt.md")).unwrap();
    assert!(lpdt.contains("Bold: best, italics: second best"), "{lpdt}");
    assert!(
        lpdt.contains("the best mean test mse over repetitions.\n"),
        "{lpdt}"
    );
    assert!(!lpdt.contains("Rank Sum"), "{lpdt}");
}

/// `validate` on SPEC with `from` replaced by `to`: the exit code and stderr.
fn validate_with(from: &str, to: &str) -> (i32, String) {
    assert!(SPEC.contains(from), "{from}");
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("spec.yaml"), SPEC.replace(from, to)).unwrap();
    dp_repro(dir.path(), &["validate", "spec.yaml"])
}

#[test]
fn bad_table_conventions_exit_2_naming_the_field() {
    let cases = [
        (
            "rank_ties: [APHIST, PHIST, LPDT-M]",
            "rank_ties: [APHIST, PHIST, DT]",
            "tables[0].rank_ties",
            "`DT` is not one of the table's methods",
        ),
        (
            "rank_ties: [APHIST, PHIST, LPDT-M]",
            "rank_ties: [APHIST, PHIST]",
            "tables[0].rank_ties",
            "missing: LPDT-M",
        ),
        (
            "rank_ties: [APHIST, PHIST, LPDT-M]",
            "rank_ties: [APHIST, PHIST, APHIST]",
            "tables[0].rank_ties",
            "listed twice",
        ),
        (
            "summary_rows: [rank_sum, no1]",
            "summary_rows: [no1]",
            "tables[0].rank_ties",
            "rank_sum summary row only",
        ),
        (
            "summary_rows: [rank_sum, no1]",
            "summary_rows: [no1, no1]",
            "tables[0].summary_rows",
            "listed twice",
        ),
        (
            "significance: {rule: not_worse_than_best, alpha: 0.05}",
            "significance: {rule: better_than_rest}",
            "tables[0].marks",
            "not_worse_than_best",
        ),
        (
            "oracle_note: as a paper would say",
            "oracle_note: As a paper would say.",
            "tables[0].oracle_note",
            "drop the final `.`",
        ),
        (
            "oracle_note: as a paper would say",
            "oracle_note: \" \"",
            "tables[0].oracle_note",
            "empty",
        ),
    ];
    for (from, to, field, message) in cases {
        let (code, err) = validate_with(from, to);
        assert_eq!(code, 2, "{to}: {err}");
        assert!(err.contains(field) && err.contains(message), "{to}: {err}");
    }
    // Unknown values are parse errors naming the valid ones.
    let (code, err) = validate_with("marks: star_best", "marks: lpct");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bold_best") && err.contains("star_best"),
        "{err}"
    );
    let (code, err) = validate_with(
        "summary_rows: [rank_sum, no1]",
        "summary_rows: [rank_sum, wins]",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rank_sum") && err.contains("no1"), "{err}");
    // Leaving significance out gives star_best the level 0.05.
    let (code, err) = validate_with(
        "significance: {rule: not_worse_than_best, alpha: 0.05}\n",
        "",
    );
    assert_eq!(code, 0, "{err}");
}
