//! Tests of the check: known deviations bounded by bands, no silent cells (data
//! sets a spec does not run, non-private methods carried with an ε), `check.csv`, and the
//! sensitivity of the check to a method's errors scaled by a factor. Every verifier is
//! shown to turn red on a deliberately wrong input (a number scaled, a band missed).

use std::collections::HashMap;
use std::path::Path;

use dp_repro::check::sensitivity::{scale_method, sensitivity, Limit};
use dp_repro::check::{
    check_csv, compare_reported, Band, CellCheck, CheckReport, DatasetNames, KnownDeviation,
    ReportedSpec, SelectedRow, Tolerance, Verdict, NOT_IN_SPEC,
};
use dp_repro::spec::FieldError;

mod common;

fn row(dataset: &str, method: &str, epsilon: Option<f64>, mean: f64, std: f64) -> SelectedRow {
    common::selected_row(dataset, method, epsilon, (mean, std, 4))
}

/// Ours: LPDT-M at 10 and 30 (the paper: 10 and 20), DT at 5 (the paper 5, no ε),
/// CT-W non-private at 0.9 (the paper carries it at ε 2 and 8). Standard errors std/2.
fn selected() -> Vec<SelectedRow> {
    vec![
        row("abalone", "DT", None, 5.0, 0.2),
        row("abalone", "LPDT-M", Some(2.0), 10.0, 0.2),
        row("abalone", "LPDT-M", Some(8.0), 30.0, 0.2),
        row("abalone", "CT-W", None, 0.9, 0.01),
    ]
}

const PAPER: &str = "\
dataset,method,epsilon,value
abalone,DT,,5
abalone,LPDT-M,2,10
abalone,LPDT-M,8,20
abalone,CT-W,2,0.9
abalone,CT-W,8,0.9
housing,LPDT-M,2,50
";

fn spec(known: Vec<KnownDeviation>) -> ReportedSpec {
    let tolerance = Tolerance {
        relative: Some(0.05),
        se: None,
        halfwidths: None,
    };
    ReportedSpec {
        dataset_names: DatasetNames::Name,
        known_deviations: known,
        ..ReportedSpec::new(vec!["paper.csv".into()], tolerance)
    }
}

fn known(band: Band) -> KnownDeviation {
    KnownDeviation {
        datasets: None,
        methods: Some(vec!["LPDT-M".into()]),
        epsilons: Some(vec![8.0]),
        band,
        tested_by: vec![],
        reason: "unexplained: ours 1.5 times the paper at ε 8".into(),
        option: None,
    }
}

fn cells(dir: &Path, spec: &ReportedSpec, selected: &[SelectedRow]) -> Vec<CellCheck> {
    std::fs::write(dir.join("paper.csv"), PAPER).unwrap();
    compare_reported(spec, dir, selected, &HashMap::new()).unwrap()
}

fn find<'a>(cells: &'a [CellCheck], ds: &str, m: &str, e: Option<f64>) -> &'a CellCheck {
    cells
        .iter()
        .find(|c| c.dataset == ds && c.method == m && c.epsilon == e)
        .unwrap_or_else(|| panic!("no cell {ds} {m} {e:?}"))
}

#[test]
fn a_known_deviation_holds_only_inside_its_band() {
    let dir = tempfile::tempdir().unwrap();
    // Ours / paper = 1.5 at ε 8: inside [1.4, 1.6], a deviation.
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Ratio([1.4, 1.6]))]),
        &selected(),
    );
    let cell = find(&c, "abalone", "LPDT-M", Some(8.0));
    assert!(matches!(&cell.verdict, Verdict::KnownDeviation(r) if r.starts_with("unexplained")));
    assert_eq!(cell.band, Some(Band::Ratio([1.4, 1.6])));
    // The same cell scaled by 1.2 (ratio 1.8) leaves the band: a regression, saying so.
    let scaled = scale_method(&selected(), "LPDT-M", 1.2, true);
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Ratio([1.4, 1.6]))]),
        &scaled,
    );
    let cell = find(&c, "abalone", "LPDT-M", Some(8.0));
    assert_eq!(cell.verdict, Verdict::Regression);
    assert!(cell
        .note
        .as_deref()
        .unwrap()
        .contains("outside the ratio 1.4–1.6"));
    // An absolute band: ours 30 in [25, 35]; 36 is not.
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Absolute([25.0, 35.0]))]),
        &selected(),
    );
    assert!(matches!(
        find(&c, "abalone", "LPDT-M", Some(8.0)).verdict,
        Verdict::KnownDeviation(_)
    ));
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Absolute([25.0, 35.0]))]),
        &scale_method(&selected(), "LPDT-M", 1.2, true),
    );
    assert_eq!(
        find(&c, "abalone", "LPDT-M", Some(8.0)).verdict,
        Verdict::Regression
    );
    // A band below ours does not hold either (ours better than the band expects).
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Ratio([1.6, 2.0]))]),
        &selected(),
    );
    assert_eq!(
        find(&c, "abalone", "LPDT-M", Some(8.0)).verdict,
        Verdict::Regression
    );
}

#[test]
fn known_deviations_must_have_a_band_and_a_tested_reason() {
    let parse = |y: &str| serde_yaml::from_str::<ReportedSpec>(y);
    let head = "files: [a.csv]\ntolerance: {relative: 0.1}\nknown_deviations:\n";
    let e = parse(&format!(
        "{head}  - {{methods: [A], reason: 'unexplained: x'}}\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("band"), "{e}");
    let field = |y: &str| match parse(&format!("{head}{y}")).unwrap().validate() {
        Err(FieldError { field, .. }) => field,
        other => panic!("{y}: {other:?}"),
    };
    // An explanation that names no spec that tested it.
    assert_eq!(
        field("  - {methods: [A], band: {ratio: [0.9, 1.2]}, reason: the seed}\n"),
        "reported.known_deviations[0].tested_by"
    );
    // Bands that are not bands.
    assert_eq!(
        field("  - {methods: [A], band: {ratio: [0, 1.2]}, reason: 'unexplained: x'}\n"),
        "reported.known_deviations[0].band"
    );
    assert_eq!(
        field("  - {methods: [A], band: {absolute: [2, 1]}, reason: 'unexplained: x'}\n"),
        "reported.known_deviations[0].band"
    );
    // Valid: explained with its spec, or unexplained.
    let ok = parse(&format!(
        "{head}  - {{methods: [A], band: {{ratio: [0.9, 1.2]}}, tested_by: [specs/x.yaml], reason: the seed}}\n  - {{methods: [B], band: {{absolute: [1, 2]}}, reason: 'unexplained: x'}}\n"
    ))
    .unwrap();
    ok.validate().unwrap();
    assert!(ok.known_deviations[0].explained() && !ok.known_deviations[1].explained());
    assert_eq!(
        ok.known_deviations[0].note(),
        "the seed (tested by specs/x.yaml)"
    );
}

#[test]
fn no_cell_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let c = cells(dir.path(), &spec(vec![]), &selected());
    // Every line of the paper's file is a cell.
    assert_eq!(c.len(), 6);
    // A data set this spec does not run is listed as not run, with its reason.
    let h = find(&c, "housing", "LPDT-M", Some(2.0));
    assert_eq!(h.verdict, Verdict::NotRun);
    assert_eq!(h.note.as_deref(), Some(NOT_IN_SPEC));
    // A non-private method the paper carries with an ε is compared with our ε-less row.
    for e in [2.0, 8.0] {
        let w = find(&c, "abalone", "CT-W", Some(e));
        assert_eq!(w.verdict, Verdict::Ok, "{w:?}");
        assert_eq!(w.ours.map(|o| o.0), Some(0.9));
    }
    // … and a wrong CT-W is seen there (it was never compared before).
    let c = cells(
        dir.path(),
        &spec(vec![]),
        &scale_method(&selected(), "CT-W", 2.0, false),
    );
    assert_eq!(
        find(&c, "abalone", "CT-W", Some(8.0)).verdict,
        Verdict::Regression
    );
    // Without any known deviation, LPDT-M at ε 8 is a plain regression.
    let c = cells(dir.path(), &spec(vec![]), &selected());
    assert_eq!(
        find(&c, "abalone", "LPDT-M", Some(8.0)).verdict,
        Verdict::Regression
    );
}

#[test]
fn check_csv_has_one_tidy_row_per_cell() {
    let dir = tempfile::tempdir().unwrap();
    let c = cells(
        dir.path(),
        &spec(vec![known(Band::Ratio([1.4, 1.6]))]),
        &selected(),
    );
    let report = CheckReport {
        cells: c,
        ..CheckReport::default()
    };
    let text = check_csv(&report).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "kind",
        "table",
        "method",
        "dataset",
        "epsilon",
        "reported",
        "reproduced",
        "tolerance",
        "band",
        "verdict",
        "reason",
    ] {
        assert!(
            header.iter().any(|h| h == col),
            "no column {col}: {header:?}"
        );
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 6);
    let get = |m: &str, e: &str, c: &str| {
        rows.iter()
            .find(|r| {
                &r[col("method")] == m && &r[col("epsilon")] == e && &r[col("dataset")] == "abalone"
            })
            .map(|r| r[col(c)].to_string())
            .unwrap()
    };
    assert_eq!(get("LPDT-M", "8", "verdict"), "deviation");
    assert_eq!(get("LPDT-M", "8", "band"), "ratio 1.4–1.6");
    assert_eq!(
        get("LPDT-M", "8", "reproduced").parse::<f64>().unwrap(),
        30.0
    );
    assert_eq!(get("LPDT-M", "2", "verdict"), "ok");
    // The relative tolerance 5 % of the paper's 10: 0.5 in the values' unit.
    assert!((get("LPDT-M", "2", "tolerance").parse::<f64>().unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(get("DT", "", "verdict"), "ok");
    let h = rows
        .iter()
        .find(|r| &r[col("dataset")] == "housing")
        .unwrap();
    assert_eq!(&h[col("verdict")], "not_run");
    assert_eq!(&h[col("reason")], NOT_IN_SPEC);
    assert!(rows.iter().all(|r| &r[col("kind")] == "cell"));
}

#[test]
fn sensitivity_sees_a_scaled_method_and_names_what_it_cannot_see() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("paper.csv"), PAPER).unwrap();
    let s = spec(vec![known(Band::Ratio([1.4, 1.6]))]);
    let rows = sensitivity(&s, dir.path(), &selected(), &HashMap::new(), 1.2, true).unwrap();
    let get = |m: &str| rows.iter().find(|r| r.method == m).unwrap();
    // DT: ours = paper, relative tolerance 5 %: 1.2× turns its one cell; the smallest
    // factor it resolves is the first grid step above 1.05.
    let dt = get("DT");
    assert!(dt.detected && dt.turned == 1 && dt.limit == Limit::None);
    let f = dt.resolvable.unwrap();
    assert!(f > 1.05 && f < 1.05 * 1.005 + 1e-12, "{f}");
    // LPDT-M: its ε 2 cell turns (and its ε 8 cell leaves the band: ratio 1.8).
    let l = get("LPDT-M");
    assert!(l.detected && l.turned == 2, "{l:?}");
    // At 1.04 nothing is seen, and the note says the tolerance is why.
    let rows = sensitivity(&s, dir.path(), &selected(), &HashMap::new(), 1.04, true).unwrap();
    let dt = rows.iter().find(|r| r.method == "DT").unwrap();
    assert!(!dt.detected && dt.limit == Limit::Tolerance, "{dt:?}");
    assert!(dt.note(1.04).contains("resolves 1.05"), "{}", dt.note(1.04));
    // A band wide enough to absorb 1.2×: the note blames the band.
    let wide = spec(vec![KnownDeviation {
        epsilons: None,
        ..known(Band::Ratio([0.5, 3.0]))
    }]);
    let rows = sensitivity(&wide, dir.path(), &selected(), &HashMap::new(), 1.2, true).unwrap();
    let l = rows.iter().find(|r| r.method == "LPDT-M").unwrap();
    assert!(!l.detected && l.limit == Limit::Band, "{l:?}");
}

#[test]
fn the_paper_spread_is_named_when_it_is_what_hides_a_factor() {
    // A paper value 1.0 ± 0.4 (95 % half-width), ours 1.0 with a small spread: a tolerance
    // of one combined half-width accepts up to ≈ 1.4, so 1.2× is not seen, and the note
    // names the paper's spread.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("paper.csv"),
        "dataset,method,epsilon,value,hw\nabalone,RF,,1.0,0.4\n",
    )
    .unwrap();
    let s = ReportedSpec {
        tolerance: Tolerance {
            relative: None,
            se: None,
            halfwidths: Some(1.0),
        },
        halfwidth_column: Some("hw".into()),
        ..spec(vec![])
    };
    let sel = vec![row("abalone", "RF", None, 1.0, 0.01)];
    let rows = sensitivity(&s, dir.path(), &sel, &HashMap::new(), 1.2, true).unwrap();
    assert_eq!(rows.len(), 1);
    assert!(
        !rows[0].detected && rows[0].limit == Limit::PaperSpread,
        "{:?}",
        rows[0]
    );
    let f = rows[0].resolvable.unwrap();
    assert!(f > 1.4 && f < 1.42, "{f}");
    assert!(rows[0].note(1.2).contains("paper's printed spread"));
}

#[test]
fn scaling_accuracy_scales_its_error_rate() {
    let sel = vec![row("abalone", "A", Some(1.0), 0.9, 0.02)];
    let s = scale_method(&sel, "A", 2.0, false);
    assert!((s[0].mean - 0.8).abs() < 1e-12 && (s[0].std - 0.04).abs() < 1e-12);
    let s = scale_method(&sel, "B", 2.0, false);
    assert_eq!(s[0], sel[0]);
}

#[test]
fn too_few_repetitions_for_a_wilcoxon_test_are_named() {
    use dp_repro::summary::table::too_few_repetitions;
    // One-sided exact Wilcoxon: smallest p-value 2^-n. At α = 0.05, n = 4 gives 0.0625.
    let w = too_few_repetitions(4, 0.05).unwrap();
    assert!(
        w.contains("with 4 repetitions") && w.contains("at least 5"),
        "{w}"
    );
    assert_eq!(too_few_repetitions(5, 0.05), None);
    assert!(too_few_repetitions(2, 0.05).is_some());
    assert_eq!(too_few_repetitions(7, 0.01), None);
    assert!(too_few_repetitions(6, 0.01).is_some());
}

/// `epsilon_reading` compares a table's private cells at the ε it names: ours at ε 8 is 30
/// against the paper's 20 (a regression at the file's ε 8); read at ε 2, where ours is 10
/// against a paper cell of 10, it is ok. Non-private cells keep no ε. A wrong reading (ε 8
/// for the table whose cells match at 2) turns the check red.
#[test]
fn epsilon_reading_moves_a_tables_cells_to_the_epsilon_it_names() {
    use dp_repro::check::EpsilonReading;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("paper.csv"),
        "table,dataset,method,epsilon,value\nT,abalone,LPDT-M,8,10\nT,abalone,DT,,5\n",
    )
    .unwrap();
    let reading = |e: f64| ReportedSpec {
        epsilon_reading: Some(EpsilonReading {
            column: "table".into(),
            epsilons: [("T".to_string(), e)].into_iter().collect(),
            source: "a test".into(),
        }),
        ..spec(vec![])
    };
    let cells = compare_reported(&reading(2.0), dir.path(), &selected(), &HashMap::new()).unwrap();
    let c = find(&cells, "abalone", "LPDT-M", Some(2.0));
    assert_eq!(
        (c.verdict.clone(), c.ours.map(|o| o.0)),
        (Verdict::Ok, Some(10.0))
    );
    assert_eq!(find(&cells, "abalone", "DT", None).verdict, Verdict::Ok);
    let cells = compare_reported(&reading(8.0), dir.path(), &selected(), &HashMap::new()).unwrap();
    assert_eq!(
        find(&cells, "abalone", "LPDT-M", Some(8.0)).verdict,
        Verdict::Regression
    );
    // A reading without a source, or at ε ≤ 0, is refused.
    let mut bad = reading(0.0);
    assert!(
        matches!(bad.validate(), Err(FieldError { field, .. }) if field == "reported.epsilon_reading.epsilons.T")
    );
    bad = reading(2.0);
    bad.epsilon_reading.as_mut().unwrap().source = " ".into();
    assert!(
        matches!(bad.validate(), Err(FieldError { field, .. }) if field == "reported.epsilon_reading")
    );
}
