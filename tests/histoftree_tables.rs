//! The table options of the HistOfTree tables (method card `histoftree.md`
//! §10): cells as ratios to a denominator method, several blocks per ε each ranked with
//! its own tie rule (worst rank of a tie for the aligned block, best for the personalized
//! one, on printed values), and the `*` of `star_significant` (best as printed, and
//! significantly better than the rest of its block), on a hand-made table.

mod common;

use dp_repro::data::Task;
use dp_repro::report::Row;
use dp_repro::spec::raw::{
    MarkStyle, RankTies, RatioOf, RowLabels, SummaryRow, TableBlock, TableEntry, TableValue,
};
use dp_repro::summary::table::{table_rows, Selected, SelectedMap, TableData};
use std::collections::BTreeMap;

const REPS: usize = 10;

fn reps(f: impl Fn(usize) -> f64) -> BTreeMap<usize, f64> {
    (0..REPS).map(|r| (r, f(r))).collect()
}

/// Four data sets at ε = 1; DT (non-private, the denominator) has MSE 2 in every
/// repetition of A, B, C and no result on D. Ratios (= MSE / 2) as printed:
/// - A: X 1.52 and Y 1.52 (Y worse than X in every repetition, but tied as printed),
///   Hist 5.00; P 1.00.
/// - B: X 2.00 with mixed-sign differences against Y 2.10 (not significant), Hist 3.00;
///   P 3.00 tied with Hist exactly.
/// - C: X not run, Y 1.00, Hist 1e4; P not run.
/// - D: everything run, but no DT: no ratio.
fn selected() -> SelectedMap {
    let mut s = SelectedMap::new();
    let mut put = |d: &str, m: &str, eps: &str, values: BTreeMap<usize, f64>| {
        s.insert(
            (d.to_string(), m.to_string(), eps.to_string()),
            Selected::new("p=1", values),
        );
    };
    for d in ["A", "B", "C"] {
        put(d, "DT", "", reps(|_| 2.0));
    }
    let x = |r: usize| 3.0 + 0.01 * r as f64;
    put("A", "X", "1", reps(x));
    put("A", "Y", "1", reps(|r| x(r) + 0.003));
    put("A", "Hist", "1", reps(|_| 10.0));
    put("A", "P", "1", reps(|_| 2.0));
    let e = [-1.2, 0.4, 0.4, -1.2, 0.4, 0.4, 0.4, 0.4, 0.0, 0.0];
    put("B", "X", "1", reps(|r| 4.0 + e[r]));
    put("B", "Y", "1", reps(|_| 4.2));
    put("B", "Hist", "1", reps(|_| 6.0));
    put("B", "P", "1", reps(|_| 6.0));
    put("C", "Y", "1", reps(|_| 2.0));
    put("C", "Hist", "1", reps(|_| 20000.0));
    for m in ["X", "Y", "Hist", "P"] {
        put("D", m, "1", reps(|_| 1.0));
    }
    s
}

fn entry(value: TableValue) -> TableEntry {
    TableEntry {
        name: "t".into(),
        caption: String::new(),
        epsilons: vec![1.0],
        methods: Vec::new(),
        blocks: vec![
            TableBlock {
                label: "Aligned".into(),
                methods: vec!["X".into(), "Y".into(), "Hist".into()],
                rank_ties: RankTies::Max,
            },
            TableBlock {
                label: "Personalized".into(),
                methods: vec!["P".into(), "Hist".into()],
                rank_ties: RankTies::Min,
            },
        ],
        non_private: Vec::new(),
        row_labels: RowLabels::Name,
        marks: MarkStyle::StarSignificant,
        summary_rows: vec![SummaryRow::RankSum, SummaryRow::No1],
        rank_ties: RankTies::default(),
        oracle_note: None,
        value,
        reported: None,
        ..TableEntry::default()
    }
}

fn rows_of(t: &TableEntry, selected: &SelectedMap, sets: &[&str]) -> (Vec<Row>, Vec<Row>) {
    let datasets: Vec<(String, String)> = sets
        .iter()
        .map(|d| (d.to_string(), d.to_string()))
        .collect();
    table_rows(
        t,
        &TableData {
            datasets: &datasets,
            selected,
            task: Task::Regression,
            significance: None,
            reported: None,
        },
    )
}

fn ratio_to_dt() -> TableValue {
    TableValue::RatioTo {
        ratio_to: "DT".into(),
        of: RatioOf::Means,
    }
}

fn texts(r: &Row) -> Vec<Option<&str>> {
    r.cells
        .iter()
        .map(|c| c.value.map(|_| c.text.as_str()))
        .collect()
}

fn stars(r: &Row) -> Vec<bool> {
    r.cells.iter().map(|c| c.star).collect()
}

#[test]
fn two_blocks_of_ratio_cells_with_their_own_tie_rules_and_stars() {
    let (rows, summary) = rows_of(&entry(ratio_to_dt()), &selected(), &["A", "B", "C", "D"]);
    assert_eq!(rows.len(), 4);
    // Columns: X, Y, Hist (aligned), P, Hist (personalized).
    assert_eq!(
        texts(&rows[0]),
        [
            Some("1.52"),
            Some("1.52"),
            Some("5.00"),
            Some("1.00"),
            Some("5.00")
        ]
    );
    assert_eq!(
        texts(&rows[1]),
        [
            Some("2.00"),
            Some("2.10"),
            Some("3.00"),
            Some("3.00"),
            Some("3.00")
        ]
    );
    assert_eq!(
        texts(&rows[2]),
        [None, Some("1.00"), Some("1e4"), None, Some("1e4")]
    );
    assert_eq!(texts(&rows[3]), [None; 5], "no denominator, no ratio");
    // A: X and Y tie as printed and each beats Hist in every repetition: both starred,
    // although X is better than Y in every repetition. P beats Hist: starred.
    assert_eq!(stars(&rows[0]), [true, true, false, true, false]);
    // B: X is best but not significantly better than Y; P and Hist tie with nothing
    // left to be better than.
    assert_eq!(stars(&rows[1]), [false; 5]);
    // C: Y beats Hist (X not run); Hist is alone in the personalized block.
    assert_eq!(stars(&rows[2]), [false, true, false, false, false]);
    assert_eq!(stars(&rows[3]), [false; 5]);
    // Only stars, no bold or underline.
    assert!(rows
        .iter()
        .flat_map(|r| &r.cells)
        .all(|c| !c.bold && !c.underline));

    // Rank sums. Aligned, a tie takes its worst rank; missing = +inf ties with missing:
    //   A: X 2, Y 2, Hist 3; B: 1, 2, 3; C: X 3, Y 1, Hist 2; D: all 3.
    // Personalized, a tie takes its best rank:
    //   A: P 1, Hist 2; B: 1, 1; C: P 2, Hist 1; D: 1, 1.
    assert_eq!(summary[0].label, "Rank Sum");
    let sums: Vec<f64> = summary[0].cells.iter().map(|c| c.value.unwrap()).collect();
    assert_eq!(sums, [9.0, 8.0, 11.0, 5.0, 5.0]);
    assert_eq!(stars(&summary[0]), [false, true, false, true, true]);
    // No. 1: starred cells per method and block.
    let no1: Vec<f64> = summary[1].cells.iter().map(|c| c.value.unwrap()).collect();
    assert_eq!(no1, [1.0, 2.0, 0.0, 1.0, 0.0]);

    // The opposite tie rules give other sums from the same cells.
    let mut swapped = entry(ratio_to_dt());
    swapped.blocks[0].rank_ties = RankTies::Min;
    swapped.blocks[1].rank_ties = RankTies::Max;
    let (_, summary) = rows_of(&swapped, &selected(), &["A", "B", "C", "D"]);
    let sums: Vec<f64> = summary[0].cells.iter().map(|c| c.value.unwrap()).collect();
    // Aligned min: A 1, 1, 3; B 1, 2, 3; C 3, 1, 2; D 1, 1, 1.
    // Personalized max: A 1, 2; B 2, 2; C 2, 1; D 2, 2.
    assert_eq!(sums, [6.0, 5.0, 9.0, 7.0, 7.0]);
}

#[test]
fn a_tie_order_in_a_block_ranks_means_ordinally() {
    let mut t = entry(ratio_to_dt());
    t.blocks[0].rank_ties = RankTies::Order(vec!["Y".into(), "X".into(), "Hist".into()]);
    let (_, summary) = rows_of(&t, &selected(), &["A"]);
    // On the means X (1.5225) is below Y (1.524): the order is not needed, X 1, Y 2.
    let sums: Vec<f64> = summary[0].cells.iter().map(|c| c.value.unwrap()).collect();
    assert_eq!(sums, [1.0, 2.0, 3.0, 1.0, 2.0]);
}

#[test]
fn ratio_of_means_and_mean_of_ratios_differ_when_the_denominator_varies() {
    let mut s = SelectedMap::new();
    let two = |a: f64, b: f64| BTreeMap::from([(0, a), (1, b)]);
    s.insert(
        ("A".into(), "DT".into(), String::new()),
        Selected::new("", two(1.0, 3.0)),
    );
    s.insert(
        ("A".into(), "X".into(), "1".into()),
        Selected::new("", two(2.0, 3.0)),
    );
    let mut t = entry(ratio_to_dt());
    t.blocks = vec![TableBlock {
        label: "B".into(),
        methods: vec!["X".into()],
        rank_ties: RankTies::Max,
    }];
    t.summary_rows.clear();
    let (rows, _) = rows_of(&t, &s, &["A"]);
    // (2 + 3) / 2 over (1 + 3) / 2.
    assert_eq!(rows[0].cells[0].value, Some(1.25));
    t.value = TableValue::RatioTo {
        ratio_to: "DT".into(),
        of: RatioOf::PerRepetition,
    };
    let (rows, _) = rows_of(&t, &s, &["A"]);
    // (2/1 + 3/3) / 2.
    assert_eq!(rows[0].cells[0].value, Some(1.5));
    assert_eq!(rows[0].cells[0].text, "1.50");
}

#[test]
fn the_yaml_forms_of_blocks_ratio_and_tie_rules() {
    let yaml = "name: t\nepsilons: [1]\nblocks:\n  - {label: Aligned, methods: [X, Hist], rank_ties: max}\n  - {label: Personalized, methods: [P, Hist], rank_ties: min}\n  - {label: Other, methods: [Q, R], rank_ties: [R, Q]}\nmarks: star_significant\nsummary_rows: [rank_sum]\nvalue: {ratio_to: DT}\n";
    let t: TableEntry = serde_yaml::from_str(yaml).unwrap();
    assert!(t.methods.is_empty());
    assert_eq!(t.blocks[0].rank_ties, RankTies::Max);
    assert_eq!(t.blocks[1].rank_ties, RankTies::Min);
    assert_eq!(
        t.blocks[2].rank_ties,
        RankTies::Order(vec!["R".into(), "Q".into()])
    );
    assert_eq!(t.marks, MarkStyle::StarSignificant);
    assert_eq!(t.value, ratio_to_dt());
    assert_eq!(t.compared_methods(), ["X", "Hist", "P", "Q", "R"]);
    // A resolved spec writes the same forms back.
    let back: TableEntry = serde_yaml::from_str(&serde_yaml::to_string(&t).unwrap()).unwrap();
    assert_eq!(back.blocks, t.blocks);
    assert_eq!(back.value, t.value);
    assert_eq!(back.marks, t.marks);
    let per_rep: TableEntry = serde_yaml::from_str(
        "name: t\nepsilons: [1]\nmethods: [X]\nvalue: {ratio_to: DT, of: per_repetition}\n",
    )
    .unwrap();
    assert_eq!(
        per_rep.value,
        TableValue::RatioTo {
            ratio_to: "DT".into(),
            of: RatioOf::PerRepetition
        }
    );
    assert_eq!(per_rep.column_blocks().len(), 1);
    // Errors say what is valid.
    for (bad, says) in [
        ("rank_ties: median", "min, max or a list"),
        ("value: ratio", "metric, seconds or {ratio_to"),
        ("value: {ratio_to: DT, of: medians}", "means"),
    ] {
        let e = serde_yaml::from_str::<TableEntry>(&format!(
            "name: t\nepsilons: [1]\nmethods: [X]\n{bad}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// ε inference (check/epsilon_match.rs): which of our ε fits each reported table best.

use dp_repro::check::epsilon_match::{
    match_epsilons, our_values, read_grouped_cells, GroupedCell, GroupedFile,
};
use dp_repro::check::SelectedRow;
use std::collections::HashMap;

/// Method keys of `histoftree_tables.csv` (setting/method/partition) → our labels (the
/// plan's spec contract); both Hist keys → `Hist`.
fn method_map() -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (setting, s) in [("aligned", "A"), ("personalized", "P")] {
        for part in ["ME", "CART"] {
            m.insert(
                format!("{setting}/HistOfTree/{part}"),
                format!("HistOfTree({part}) {s}"),
            );
            if setting == "personalized" {
                m.insert(
                    format!("{setting}/AdHistOfTree/{part}"),
                    format!("AdHistOfTree({part}) {s}"),
                );
            }
        }
        m.insert(format!("{setting}/ParDT"), format!("ParDT {s}"));
        m.insert(format!("{setting}/KRR"), format!("KRR {s}"));
        m.insert(format!("{setting}/Hist"), "Hist".to_string());
    }
    m
}

fn paper_cells() -> Vec<GroupedCell> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("specs/reported/histoftree_tables.csv");
    let columns: Vec<String> = ["setting", "method", "partition"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let methods = method_map();
    read_grouped_cells(
        &path,
        &GroupedFile {
            group_column: "table",
            method_columns: &columns,
            methods: Some(&methods),
            value_column: "value",
        },
        |d| d.to_string(),
    )
    .unwrap()
}

fn row(dataset: &str, method: &str, epsilon: Option<f64>, mean: f64) -> SelectedRow {
    SelectedRow {
        dataset: dataset.into(),
        method: method.into(),
        epsilon,
        mean,
        std: 0.1,
        median: mean,
        reps: 50,
        params: String::new(),
    }
}

/// Selected rows whose ratios to DT (mean 2 on every data set) are the paper's values of
/// table `source(ε)` at each ε, times `factor(ε)`.
fn selected_rows(
    cells: &[GroupedCell],
    source: impl Fn(f64) -> &'static str,
    factor: impl Fn(f64) -> f64,
) -> Vec<SelectedRow> {
    let mut rows = Vec::new();
    let mut datasets: Vec<&str> = cells.iter().map(|c| c.dataset.as_str()).collect();
    datasets.dedup();
    for d in &datasets {
        rows.push(row(d, "DT", None, 2.0));
    }
    for e in [0.5, 1.0, 2.0, 4.0] {
        for c in cells.iter().filter(|c| c.group == source(e)) {
            rows.push(row(
                &c.dataset,
                &c.method,
                Some(e),
                2.0 * c.paper * factor(e),
            ));
        }
    }
    rows
}

#[test]
fn the_reported_file_reads_as_three_tables_with_their_stated_epsilon() {
    let cells = paper_cells();
    assert_eq!(cells.len(), 360);
    let stated: BTreeMap<&str, Option<f64>> =
        cells.iter().map(|c| (c.group.as_str(), c.stated)).collect();
    assert_eq!(
        stated,
        BTreeMap::from([("C3a", Some(0.5)), ("C3b", Some(2.0)), ("T1", Some(1.0))])
    );
    assert!(cells
        .iter()
        .any(|c| c.method == "AdHistOfTree(CART) P" && c.dataset == "POR" && c.paper == 2.98));
}

#[test]
fn epsilon_inference_finds_the_epsilon_whose_cells_are_the_papers() {
    let cells = paper_cells();
    // Ours at ε = 0.5, 1, 2 are exactly C3a, T1, C3b; ε = 4 is T1's cells 30 % higher.
    let source = |e: f64| match e {
        e if e == 0.5 => "C3a",
        e if e == 2.0 => "C3b",
        _ => "T1",
    };
    let factor = |e: f64| if e == 4.0 { 1.3 } else { 1.0 };
    let ours = our_values(&selected_rows(&cells, source, factor), Some("DT"));
    let matches = match_epsilons(&cells, &ours, &[0.5, 1.0, 2.0, 4.0]);
    let best: Vec<(&str, Option<f64>, Option<bool>)> = matches
        .iter()
        .map(|m| (m.group.as_str(), m.best, m.agrees()))
        .collect();
    assert_eq!(
        best,
        [
            ("T1", Some(1.0), Some(true)),
            ("C3a", Some(0.5), Some(true)),
            ("C3b", Some(2.0), Some(true)),
        ]
    );
    // Every ε compares all 120 cells of each table (both Hist keys map onto Hist).
    for m in &matches {
        assert!(m.scores.iter().all(|s| s.cells == 120), "{m:?}");
        let at = |e: f64| m.scores.iter().find(|s| s.epsilon == e).unwrap().score;
        assert_eq!(at(m.best.unwrap()), 0.0, "{}", m.group);
    }
    // T1 against its own cells 30 % higher: every |ln| is ln 1.3.
    let t1 = &matches[0];
    assert!((t1.scores[3].score - 1.3f64.ln()).abs() < 1e-12);
    assert!(t1.summary_line().starts_with(
        "ε match T1: best ε = 1 (stated 1, agrees); median |ln(ours/paper)|: ε 0.5: "
    ));
    assert!(t1.summary_line().contains("ε 4: 0.262 (120 cells)"));

    // Shift our ε by a factor 2 (the card's alternative reading, grid {1, 2, 4}): the
    // inference follows the numbers and says it disagrees with the stated ε.
    let shifted = |e: f64| match e {
        e if e == 1.0 => "C3a",
        e if e == 2.0 => "T1",
        e if e == 4.0 => "C3b",
        _ => "T1",
    };
    let factor = |e: f64| if e == 0.5 { 1.5 } else { 1.0 };
    let ours = our_values(&selected_rows(&cells, shifted, factor), Some("DT"));
    let matches = match_epsilons(&cells, &ours, &[0.5, 1.0, 2.0, 4.0]);
    let best: Vec<Option<f64>> = matches.iter().map(|m| m.best).collect();
    assert_eq!(best, [Some(2.0), Some(1.0), Some(4.0)]);
    assert!(matches.iter().all(|m| m.agrees() == Some(false)));
    assert!(matches[0]
        .summary_line()
        .starts_with("ε match T1: best ε = 2 (stated 1, DISAGREES)"));
}

#[test]
fn epsilon_inference_without_our_cells_or_denominator_says_so() {
    let cells = paper_cells();
    // Ours on no data set of the paper's names.
    let ours = our_values(&[row("abalone", "ParDT A", Some(1.0), 3.0)], Some("DT"));
    assert!(ours.is_empty(), "no DT, no ratio");
    let matches = match_epsilons(&cells, &HashMap::new(), &[1.0]);
    assert_eq!(matches.len(), 3);
    assert!(matches
        .iter()
        .all(|m| m.best.is_none() && m.scores[0].cells == 0));
    assert_eq!(
        matches[0].summary_line(),
        "ε match T1: no ε of ours has a cell of this table (stated 1); median |ln(ours/paper)|: ε 1: NaN (0 cells)"
    );
}

/// The `reported.epsilon_match` section end to end: read from YAML, scored on selected
/// rows, one line per table in `check --quiet`, a table's regression only under
/// `require_stated` when the best ε differs from the stated one, and each method's when
/// its cells fit another ε than the stated one.
#[test]
fn the_epsilon_match_section_prints_one_line_per_table() {
    use dp_repro::check::{epsilon_matches, quiet_lines, CheckReport, ReportedSpec};
    let mut methods = String::new();
    for (k, v) in method_map() {
        methods.push_str(&format!("    \"{k}\": \"{v}\"\n"));
    }
    let yaml = |require: bool| {
        format!(
            "files: [histoftree_tables.csv]\ndataset_names: name\ntolerance: {{relative: 0.15}}\nepsilon_match:\n  file: histoftree_tables.csv\n  method_columns: [setting, method, partition]\n  ratio_to: DT\n  require_stated: {require}\n  methods:\n{methods}"
        )
    };
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("specs/reported");
    let cells = paper_cells();
    let shifted = |e: f64| match e {
        e if e == 1.0 => "C3a",
        e if e == 2.0 => "T1",
        _ => "C3b",
    };
    let rows = selected_rows(&cells, shifted, |_| 1.0);
    for require in [false, true] {
        let spec: ReportedSpec = serde_yaml::from_str(&yaml(require)).unwrap();
        let matches = epsilon_matches(&spec, &dir, &rows, &HashMap::new()).unwrap();
        assert_eq!(matches.len(), 3);
        let report = CheckReport {
            epsilon_matches: matches,
            ..CheckReport::default()
        };
        let lines = quiet_lines(&report, "t");
        // One line per table; the per-method lines name the method after a comma.
        let is_table = |l: &&String| {
            let l = l.trim_start_matches("regression: ");
            l.starts_with("ε match") && !l.split(':').next().unwrap_or_default().contains(',')
        };
        let eps_lines: Vec<&String> = lines.iter().filter(is_table).collect();
        assert_eq!(eps_lines.len(), 3, "{lines:?}");
        // Ours at 0.5 are C3b's cells (the ε 4 of this run): C3b matches at 0.5 and 4.
        assert!(eps_lines[0].contains("ε match T1: best ε = 2 (stated 1, DISAGREES)"));
        assert!(eps_lines[1].contains("ε match C3a: best ε = 1 (stated 0.5, DISAGREES)"));
        assert_eq!(
            report.epsilon_matches.iter().any(|m| m.regressed()),
            require
        );
        assert_eq!(eps_lines[0].starts_with("regression: "), require);
        // Without a reading the cells are compared at the file's ε, so every method of
        // each table, whose cells fit another ε exactly, regresses whatever
        // `require_stated` says.
        for m in &report.epsilon_matches {
            assert_eq!(m.regressions(), usize::from(require) + 11, "{}", m.group);
        }
        assert!(report.regressed());
    }
    // Without the section there is nothing to infer.
    let mut spec: ReportedSpec = serde_yaml::from_str(&yaml(false)).unwrap();
    spec.epsilon_match = None;
    assert!(epsilon_matches(&spec, &dir, &rows, &HashMap::new())
        .unwrap()
        .is_empty());
}

// ------------------------------------------------------------------ through the CLI

/// Two synthetic data sets, DT and three private methods in two blocks, ratios to DT.
const SPEC: &str = "name: blocks\nseed: 5\nrepetitions: 6\ndatasets:\n  - {name: s1, synthetic: lpdt_sine, sizes: {public: 100, private: 800, test: 200}}\n  - {name: s2, synthetic: lpdt_sine, sizes: {public: 300, private: 1500, test: 200}}\nepsilons: [1, 8]\nmethods:\n  - method: DT\n    grid: {max_depth: [3]}\n  - method: LPDT-M\n    grid: {depth: [2, 3], min_leaf: [10], rho: [0.5]}\n  - method: PHIST\n    grid: {bins: [2, 3], t: [0.05]}\n  - method: APHIST\n    grid: {bins: [2, 3], t: [0.05]}\ntables:\n  - name: blocks\n    epsilons: [1, 8]\n    blocks:\n      - {label: A, methods: [LPDT-M, PHIST], rank_ties: max}\n      - {label: B, methods: [APHIST, PHIST], rank_ties: min}\n    marks: star_significant\n    summary_rows: [rank_sum]\n    value: {ratio_to: DT}\n";

fn dp_repro(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = assert_cmd::Command::cargo_bin("dp-repro")
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

#[test]
fn a_table_with_blocks_renders_ratio_cells_under_block_headers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.yaml"), SPEC).unwrap();
    let (code, err) = dp_repro(dir.path(), &["run", "spec.yaml", "--quiet", "--out", "out"]);
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join("out");
    let md = std::fs::read_to_string(out.join("table-blocks.md")).unwrap();
    for h in [
        "ε=1 · A LPDT-M",
        "ε=1 · B APHIST",
        "ε=8 · A PHIST",
        "ε=8 · B PHIST",
    ] {
        assert!(md.contains(h), "{h} in\n{md}");
    }
    let selected = std::fs::read_to_string(out.join("selected.csv")).unwrap();
    let mean = |d: &str, m: &str, e: &str| -> f64 {
        selected
            .lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f[0] == d && f[1] == m && f[2] == e)
            .unwrap()[3]
            .parse()
            .unwrap()
    };
    // Row s1: LPDT-M, PHIST | APHIST, PHIST at ε 1, then the same at ε 8.
    let row: Vec<String> = md
        .lines()
        .find(|l| l.starts_with("| s1"))
        .unwrap()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().replace(['*', '_', '\\'], ""))
        .collect();
    let mut k = 1;
    for e in ["1", "8"] {
        for m in ["LPDT-M", "PHIST", "APHIST", "PHIST"] {
            let want = dp_repro::report::format_ratio(mean("s1", m, e) / mean("s1", "DT", ""));
            assert_eq!(row[k], want, "{m} at ε {e}");
            k += 1;
        }
    }
    assert!(md.contains("| Rank Sum"), "{md}");
    assert!(md.contains("divided by the mean test mse of DT"), "{md}");
}

#[test]
fn bad_blocks_exit_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, field) in [
        (
            "    blocks:\n",
            "    methods: [LPDT-M]\n    blocks:\n",
            "tables[0].blocks",
        ),
        (
            "rank_ties: min}",
            "rank_ties: [APHIST, DT]}",
            "tables[0].blocks[1].rank_ties",
        ),
        ("{label: B,", "{label: A,", "tables[0].blocks[1].label"),
        ("ratio_to: DT", "ratio_to: XT", "unknown method `XT`"),
    ] {
        assert!(SPEC.contains(from), "{from}");
        std::fs::write(dir.path().join("bad.yaml"), SPEC.replacen(from, to, 1)).unwrap();
        let (code, err) = dp_repro(dir.path(), &["validate", "bad.yaml"]);
        assert_eq!(code, 2, "{to}: {err}");
        assert!(err.contains(field), "{to}: {err}");
    }
}
