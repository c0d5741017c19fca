//! The reporting side of the DiPriMe tables: the "±" formula
//! (95 % Student-t half-width with the population sd, method card `docs/methods/diprime.md` §6.1), the
//! table cells with the paper's scale factors rendered in Markdown and LaTeX, the check's
//! tolerance in units of the paper's half-width on the real reported files, and the
//! loader reading every row of both files with the unavailable data sets marked.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use dp_repro::check::{
    compare_reported, render_check, CheckReport, ReportedSpec, SelectedRow, Verdict,
};
use dp_repro::data::Task;
use dp_repro::report::{render_latex, render_markdown, ColumnGroup, Legend, Table};
use dp_repro::spec::raw::TableEntry;
use dp_repro::stats::{ci95_halfwidth, ci95_halfwidth_from_std, t_quantile_975};
use dp_repro::summary::table::{table_rows, Selected, SelectedMap, TableData};

fn reported_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/reported")
}

/// The ± of 10 values by hand: 1..10 has mean 5.5 and population variance 8.25 (ddof 0),
/// so ± = t_{0.975,9}·√8.25/√10 = 2.262157·2.872281/3.162278 = 2.054706.
#[test]
fn halfwidth_formula_by_hand() {
    let v: Vec<f64> = (1..=10).map(f64::from).collect();
    let h = ci95_halfwidth(&v).unwrap();
    assert!((h - 2.054706).abs() < 1e-6, "{h}");
    // Not the sample-sd version (ddof 1 would give 2.165 ...).
    assert!((h - 2.262157 * (82.5f64 / 9.0).sqrt() / 10f64.sqrt()).abs() > 0.1);
    // The card's t_{0.975,9} = 2.26216.
    assert!((t_quantile_975(9).unwrap() - 2.26216).abs() < 5e-6);
    // The paper's relation sd0 = ± · √10 / 2.26216 (diprime_table1.csv mse_sd): Parkinson's
    // RF ± 0.0007 ↔ sd0 0.0009785; Turbine DP-RF ± 0.0056 ↔ 0.007828.
    for (hw, sd) in [(0.0007, 0.0009785), (0.0056, 0.007828)] {
        assert!((hw * 10f64.sqrt() / 2.26216 - sd).abs() < 5e-7, "{hw} {sd}");
    }
    // From selected.csv's sample sd: sd0 = sd·√(9/10).
    let s = dp_repro::stats::summarize(&v);
    assert!((ci95_halfwidth_from_std(s.std, 10).unwrap() - h).abs() < 1e-12);
}

fn selected_of(values: &[f64]) -> Selected {
    Selected::new(
        "k=5",
        values.iter().enumerate().map(|(r, &v)| (r, v)).collect(),
    )
}

/// Ten values with mean `mean` and population sd `sd0` (half of them mean ± sd0).
fn values_with(mean: f64, sd0: f64) -> Vec<f64> {
    (0..10)
        .map(|r| if r % 2 == 0 { mean + sd0 } else { mean - sd0 })
        .collect()
}

/// A DiPriMe-like table: Parkinson's in units of 1e-2 and Traffic in 1e-3, RF non-private
/// and two private methods at ε = 10, Flight unavailable; cells `mean ± half-width`.
#[test]
fn rendered_cells_with_halfwidth_and_scale() {
    let t: TableEntry = serde_yaml::from_str(
        "name: table1\nepsilons: [10]\nnon_private: [RF]\nmethods: [DP-RF, DiPriMe]\nmarks: none\ninterval: ci95\ndigits: {significant: 3}\nscale: {parkinsons: -2, traffic: -3}\nunavailable:\n  - {label: Flight, reason: no data}\n",
    )
    .unwrap();
    let mut selected = SelectedMap::new();
    let mut put = |d: &str, m: &str, e: &str, v: Vec<f64>| {
        selected.insert((d.into(), m.into(), e.into()), selected_of(&v));
    };
    // sd0 chosen so that ± = 2.262157·sd0/√10: sd0 = 0.0009785 gives 0.000700.
    put("parkinsons", "RF", "", values_with(0.0159, 0.0009785));
    put("parkinsons", "DP-RF", "10", values_with(0.0561, 0.01761));
    put("parkinsons", "DiPriMe", "10", values_with(0.0336, 0.001817));
    put("traffic", "RF", "", values_with(0.00464, 0.0002796));
    put("traffic", "DP-RF", "10", values_with(0.0331, 0.007828));
    // Traffic DiPriMe not run: a dash.
    let datasets = vec![
        ("parkinsons".to_string(), "Parkinson's".to_string()),
        ("traffic".to_string(), "Traffic".to_string()),
    ];
    let (rows, summary) = table_rows(
        &t,
        &TableData {
            datasets: &datasets,
            selected: &selected,
            task: Task::Regression,
            significance: None,
            reported: None,
        },
    );
    assert!(summary.is_empty());
    assert_eq!(rows.len(), 3);
    let texts: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.cells.iter().map(|c| c.text.as_str()).collect())
        .collect();
    assert_eq!(texts[0], ["1.59 ± 0.07", "5.61 ± 1.26", "3.36 ± 0.13"]);
    assert_eq!(texts[1], ["4.64 ± 0.20", "33.1 ± 5.6", ""]);
    assert_eq!(rows[0].scale, Some(-2));
    assert_eq!(rows[2].label, "Flight");
    assert!(rows[2].cells.iter().all(|c| c.value.is_none()));
    // Values stay unscaled; no marks.
    assert_eq!(rows[0].cells[0].value, Some(0.0159));
    assert!(rows
        .iter()
        .flat_map(|r| &r.cells)
        .all(|c| !c.bold && !c.star && !c.underline));

    let mut table = Table::new("table1", "DiPriMe Table 1", "Data");
    table.groups.push(ColumnGroup::plain("", vec!["RF".into()]));
    table.groups.push(ColumnGroup::private(
        10.0,
        vec!["DP-RF".into(), "DiPriMe".into()],
    ));
    table.rows = rows;
    table.legend = Legend::InNotes;
    table
        .notes
        .push("±: a 95 % Student-t half-width, not a standard deviation.".into());
    let md = render_markdown(&table).unwrap();
    assert!(
        md.contains("| Parkinson's (×10⁻²) | 1.59 ± 0.07 | 5.61 ± 1.26 | 3.36 ± 0.13 |"),
        "{md}"
    );
    assert!(
        md.contains("| Traffic (×10⁻³) | 4.64 ± 0.20 | 33.1 ± 5.6 | — |"),
        "{md}"
    );
    assert!(md.contains("| Flight | — | — | — |"), "{md}");
    let tex = render_latex(&table).unwrap();
    assert!(
        tex.contains(r"Parkinson's ($\times 10^{-2}$) & 1.59 $\pm$ 0.07 & 5.61 $\pm$ 1.26"),
        "{tex}"
    );
    assert!(tex.contains(r"Traffic ($\times 10^{-3}$) & 4.64 $\pm$ 0.20 & 33.1 $\pm$ 5.6 & --"));
    latex_compiles(&format!(
        "\\documentclass{{article}}\n\\usepackage{{booktabs}}\n\\usepackage{{graphicx}}\n\\begin{{document}}\n{tex}\n\\end{{document}}\n"
    ));
    // fill_text keeps the interval and the row's scale.
    let before = table.clone();
    table.fill_text(dp_repro::report::NumberFormat::Significant(3));
    assert_eq!(table, before);
}

/// Table 2's format: three decimals, no scale (`0.989 ± 0.007`).
#[test]
fn decimals_without_scale() {
    let t: TableEntry = serde_yaml::from_str(
        "name: table2\nepsilons: [2]\nnon_private: [RF]\nmethods: [DiPriMe]\nmarks: none\ninterval: ci95\ndigits: {decimals: 3}\n",
    )
    .unwrap();
    let mut selected = SelectedMap::new();
    selected.insert(
        ("banknote".into(), "RF".into(), "".into()),
        selected_of(&values_with(0.98913, 0.009308)),
    );
    selected.insert(
        ("banknote".into(), "DiPriMe".into(), "2".into()),
        selected_of(&[0.9; 10]),
    );
    let datasets = vec![("banknote".to_string(), "Banknote".to_string())];
    let (rows, _) = table_rows(
        &t,
        &TableData {
            datasets: &datasets,
            selected: &selected,
            task: Task::Classification,
            significance: None,
            reported: None,
        },
    );
    let texts: Vec<&str> = rows[0].cells.iter().map(|c| c.text.as_str()).collect();
    // Zero spread prints 0.000, as the paper does where scipy says NaN.
    assert_eq!(texts, ["0.989 ± 0.007", "0.900 ± 0.000"]);
    assert_eq!(rows[0].scale, None);
}

fn latex_compiles(doc: &str) {
    if Command::new("pdflatex").arg("--version").output().is_err() {
        eprintln!("skipped: pdflatex not found on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.tex"), doc).unwrap();
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "t.tex"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pdflatex failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn reported_spec(file: &str) -> ReportedSpec {
    let text = std::fs::read_to_string(reported_dir().join(file)).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

fn row(dataset: &str, method: &str, epsilon: Option<f64>, mean: f64, std: f64) -> SelectedRow {
    common::selected_row(dataset, method, epsilon, (mean, std, 10))
}

/// Every (data set, method) of our runs at the table's ε, each at the paper's mean.
fn all_rows(
    datasets: &[&str],
    methods: &[&str],
    nonprivate: &[&str],
    eps: f64,
) -> Vec<SelectedRow> {
    let mut out = Vec::new();
    for d in datasets {
        for m in methods {
            let e = (!nonprivate.contains(m)).then_some(eps);
            out.push(row(d, m, e, 0.5, 0.01));
        }
    }
    out
}

const T1_METHODS: [&str; 8] = [
    "RF",
    "ERT",
    "Median",
    "DP-RF",
    "DP-ERT",
    "DiPriMe",
    "DiPriMeExp",
    "DiPriMeFlip",
];
const T2_METHODS: [&str; 9] = [
    "RF",
    "ERT",
    "Median",
    "DP-DF",
    "DP-RF",
    "DP-ERT",
    "DiPriMe",
    "DiPriMeExp",
    "DiPriMeFlip",
];
const NONPRIVATE: [&str; 3] = ["RF", "ERT", "Median"];

/// Table 1: Parkinson's RF is 0.0159 ± 0.0007 in the paper. Ours with sd 0.001 over 10
/// runs has h = 2.262157·0.001·√0.9/√10 = 0.000679, so the band is
/// 2·√(0.0007² + 0.000679²) = 0.00195: 0.0170 is inside, 0.0180 outside (a regression:
/// RF has no known deviation), whereas the paper's half-width alone (2·0.0007 = 0.0014)
/// would reject 0.0170 too.
#[test]
fn halfwidth_tolerance_on_the_real_table1() {
    let spec = reported_spec("diprime-table1.yaml");
    let check = |mean: f64| {
        let selected = vec![row("parkinsons", "RF", None, mean, 0.001)];
        let cells = compare_reported(&spec, &reported_dir(), &selected, &HashMap::new()).unwrap();
        let c = cells
            .iter()
            .find(|c| c.dataset == "parkinsons" && c.method == "RF")
            .unwrap()
            .clone();
        assert_eq!(c.paper, Some(0.0159));
        assert_eq!(c.paper_halfwidth, Some(0.0007));
        c.verdict
    };
    assert_eq!(check(0.0159), Verdict::Ok);
    assert_eq!(check(0.0170), Verdict::Ok);
    assert_eq!(check(0.0140), Verdict::Ok);
    assert_eq!(check(0.0180), Verdict::Regression);
    assert_eq!(check(0.0137), Verdict::Regression);
    // Private cells are matched at the nominal ε (eps_nominal), DP-ERT at 10 though the
    // authors passed 20; gas_turbine is the file's `turbine`.
    let selected = vec![row("gas_turbine", "DP-ERT", Some(10.0), 0.00419, 0.0014)];
    let cells = compare_reported(&spec, &reported_dir(), &selected, &HashMap::new()).unwrap();
    let c = cells
        .iter()
        .find(|c| c.dataset == "gas_turbine" && c.method == "DP-ERT")
        .unwrap();
    assert_eq!(
        (c.reported_dataset.as_str(), c.epsilon),
        ("turbine", Some(10.0))
    );
    assert_eq!(c.verdict, Verdict::Ok);
}

/// Table 2: Credit DiPriMeFlip is 0.781 ± 0.005 in the paper, which our run reproduces
/// under reference_quirks, so no known deviation covers it any more: 0.80 is a
/// regression, as is Robot DiPriMe (0.759 ± 0.015 in the paper) at 0.70.
#[test]
fn regressions_on_the_real_table2() {
    let spec = reported_spec("diprime-table2.yaml");
    let selected = vec![
        row("credit_default", "DiPriMeFlip", Some(2.0), 0.80, 0.005),
        row("wall_following", "DiPriMe", Some(2.0), 0.70, 0.02),
        row("wall_following", "DiPriMeExp", Some(2.0), 0.765, 0.02),
    ];
    let cells = compare_reported(&spec, &reported_dir(), &selected, &HashMap::new()).unwrap();
    let v = |d: &str, m: &str| {
        cells
            .iter()
            .find(|c| c.dataset == d && c.method == m)
            .unwrap()
            .verdict
            .clone()
    };
    assert_eq!(v("credit_default", "DiPriMeFlip"), Verdict::Regression);
    assert_eq!(v("wall_following", "DiPriMe"), Verdict::Regression);
    assert_eq!(v("wall_following", "DiPriMeExp"), Verdict::Ok);
    // A method we did not run on a data set we ran: not run.
    assert_eq!(v("wall_following", "RF"), Verdict::NotRun);
}

/// The loader reads every row: 5 data sets × 8 methods in Table 1 and 5 × 9 in Table 2,
/// with Flight, HIGGS and PUC-Rio listed as not available (never left out, never a
/// regression), and the report says so.
#[test]
fn loader_reads_every_row_with_unavailable_sets_marked() {
    for (file, ours, methods, eps, missing) in [
        (
            "diprime-table1.yaml",
            vec!["parkinsons", "appliances", "traffic", "gas_turbine"],
            &T1_METHODS[..],
            10.0,
            vec!["flight"],
        ),
        (
            "diprime-table2.yaml",
            vec!["banknote", "credit_default", "wall_following"],
            &T2_METHODS[..],
            2.0,
            vec!["higgs", "puc_rio"],
        ),
    ] {
        let spec = reported_spec(file);
        let selected = all_rows(&ours, methods, &NONPRIVATE, eps);
        let cells = compare_reported(&spec, &reported_dir(), &selected, &HashMap::new()).unwrap();
        assert_eq!(cells.len(), 5 * methods.len(), "{file}");
        let mut per_set: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &cells {
            *per_set.entry(c.reported_dataset.as_str()).or_default() += 1;
            let unavailable = missing.contains(&c.reported_dataset.as_str());
            assert_eq!(
                matches!(c.verdict, Verdict::NotAvailable(_)),
                unavailable,
                "{file}: {c:?}"
            );
            assert!(c.paper.is_some() && c.paper_halfwidth.is_some(), "{c:?}");
            if !unavailable {
                // Every cell of ours found its reported row at the right ε.
                assert!(c.ours.is_some(), "{c:?}");
                assert_eq!(c.epsilon.is_none(), NONPRIVATE.contains(&c.method.as_str()));
            }
        }
        assert!(per_set.values().all(|&n| n == methods.len()), "{per_set:?}");
        let report = CheckReport {
            cells,
            ..CheckReport::default()
        };
        assert!(
            !report
                .cells
                .iter()
                .any(|c| c.verdict == Verdict::Regression)
                || report.regressed()
        );
        let (md, tex) = render_check(&report, "dp-repro check: diprime").unwrap();
        let n_na = missing.len() * methods.len();
        assert!(
            md.contains(&format!("{n_na} not available (no data)")),
            "{md}"
        );
        assert!(md.contains("Not available:"), "{md}");
        assert!(md.contains("not available (1)"), "{md}");
        assert!(tex.contains("Not available:"));
    }
}

/// The tolerance needs the paper's half-widths: `halfwidths` without `halfwidth_column` is
/// refused naming the field.
#[test]
fn halfwidths_need_a_column() {
    let mut spec = reported_spec("diprime-table1.yaml");
    spec.halfwidth_column = None;
    let err = compare_reported(&spec, &reported_dir(), &[], &HashMap::new()).unwrap_err();
    assert!(
        err.to_string().contains("reported.tolerance.halfwidths"),
        "{err}"
    );
}

/// End to end with methods that exist today (DT and LPDT-M on the LPDT synthetic model,
/// no data files): a spec table with `interval: ci95`, `digits`, `scale`, `marks: none`
/// and an unavailable row renders `mean ± half-width` cells, the factor after the label,
/// the dashed row and the notes saying what ± is; a scale naming an unknown data set is
/// refused naming the field.
#[test]
fn spec_table_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let spec = |extra: &str| {
        format!(
            "name: pm\nseed: 1\nrepetitions: 3\ndatasets:\n  - {{name: sine, synthetic: lpdt_sine, sizes: {{public: 200, private: 600, test: 200}}}}\nepsilons: [4]\nmethods:\n  - {{method: DT, params: {{max_depth: 3}}}}\n  - {{method: LPDT-M, params: {{depth: 3, min_leaf: 10, rho: 0.5}}}}\nselection: best_mean\ntables:\n  - name: pm\n    epsilons: [4]\n    non_private: [DT]\n    methods: [LPDT-M]\n    marks: none\n    interval: ci95\n    digits: {{significant: 3}}\n    scale: {{{extra}: -1}}\n    unavailable:\n      - {{label: Flight, reason: not in the data folder}}\n"
        )
    };
    let path = dir.path().join("pm.yaml");
    std::fs::write(&path, spec("sine")).unwrap();
    let out = dir.path().join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_dp-repro"))
        .args([
            "run",
            path.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let md = std::fs::read_to_string(out.join("table-pm.md")).unwrap();
    let line = md
        .lines()
        .find(|l| l.starts_with("| SINE") || l.starts_with("| sine"))
        .unwrap();
    assert!(line.contains(" (×10⁻¹) | "), "{md}");
    // Every cell is `a ± b` with as many decimals on both sides.
    let cells: Vec<&str> = line
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .skip(1)
        .collect();
    assert_eq!(cells.len(), 2, "{line}");
    for c in cells {
        let (a, b) = c.split_once(" ± ").unwrap_or_else(|| panic!("{c}"));
        let dec = |s: &str| s.split_once('.').map_or(0, |(_, d)| d.len());
        assert_eq!(dec(a), dec(b), "{c}");
        assert!(
            a.parse::<f64>().is_ok() && b.parse::<f64>().unwrap() >= 0.0,
            "{c}"
        );
    }
    assert!(md.contains("| Flight | — | — |"), "{md}");
    assert!(md.contains("Student-t"), "{md}");
    assert!(md.contains("t\\_{0.975,2} = 4.30265"), "{md}");
    assert!(
        md.contains("Flight not available: not in the data folder"),
        "{md}"
    );
    assert!(!md.contains("**"), "marks: none bolds nothing\n{md}");
    // The tables of local-DP methods get no privacy-model note.
    assert!(!md.contains("Privacy model:"), "{md}");

    std::fs::write(&path, spec("nosuch")).unwrap();
    let bad = Command::new(env!("CARGO_BIN_EXE_dp-repro"))
        .args(["validate", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("tables[0].scale.nosuch") && err.contains("sine"),
        "{err}"
    );
}
