//! The authors' code as a third column (docs/check.md, "The authors' code as a third
//! column"): a cell's authors'-code value is read from `reported.authors_code`, set beside
//! the paper's and ours, and classified; a known deviation whose authors' code gives the
//! paper's value turns into a regression unless it names the option of ours that behaves
//! as their code.

mod common;

use dp_repro::check::authors_code::{Agreement, AuthorsValue};
use dp_repro::check::{
    check_csv, compare_reported, AuthorsCode, Band, CellCheck, CheckReport, DatasetNames,
    KnownDeviation, ReportedSpec, SelectedRow, Tolerance, Verdict,
};
use std::collections::HashMap;
use std::path::Path;

/// The paper: LPDT-M at ε 1 on abalone 10.0 (ours 20 ± 0.5 s.e. deviates, a known
/// deviation with a ratio band 1.5–2.5); DT 5.0 (ours agrees).
const PAPER: &str = "dataset,method,epsilon,value\nabalone,LPDT-M,1,10.0\nabalone,DT,,5.0\n";

fn spec(option: Option<&str>) -> ReportedSpec {
    let tolerance = Tolerance {
        relative: Some(0.1),
        se: None,
        halfwidths: None,
    };
    ReportedSpec {
        dataset_names: DatasetNames::Name,
        known_deviations: vec![KnownDeviation {
            datasets: None,
            methods: Some(vec!["LPDT-M".into()]),
            epsilons: Some(vec![1.0]),
            band: Band::Ratio([1.5, 2.5]),
            tested_by: vec![],
            reason: "unexplained: ours twice the paper".into(),
            option: option.map(String::from),
        }],
        authors_code: Some(AuthorsCode {
            file: "authors.csv".into(),
            alpha: 0.01,
        }),
        ..ReportedSpec::new(vec!["paper.csv".into()], tolerance)
    }
}

/// Ours: LPDT-M 20 with sd 2.236 over 20 repetitions (s.e. 0.5); DT 5.05.
fn selected() -> Vec<SelectedRow> {
    vec![
        common::selected_row(
            "abalone",
            "LPDT-M",
            Some(1.0),
            (20.0, 0.5 * 20f64.sqrt(), 20),
        ),
        common::selected_row("abalone", "DT", None, (5.05, 0.1, 20)),
    ]
}

/// An authors' file whose LPDT-M repetitions are `values` (around their mean with a fixed
/// spread) and whose DT cannot run.
fn authors_file(values: &[f64]) -> String {
    let mut s = String::from(
        "# the authors' code on our splits (test fixture)\ndataset,method,epsilon,repetition,grid_point,value,note\n",
    );
    for (i, v) in values.iter().enumerate() {
        s.push_str(&format!("abalone,LPDT-M,1,{},max_depth=4,{v},\n", i + 1));
    }
    s.push_str("abalone,DT,,,,,\"cannot run: no implementation in their repository\"\n");
    s
}

/// Five repetitions around `centre`, sample sd ≈ 1.58.
fn around(centre: f64) -> Vec<f64> {
    [-2.0, -1.0, 0.0, 1.0, 2.0]
        .iter()
        .map(|d| centre + d)
        .collect()
}

fn cells(dir: &Path, spec: &ReportedSpec, authors: &str) -> Vec<CellCheck> {
    std::fs::write(dir.join("paper.csv"), PAPER).unwrap();
    std::fs::write(dir.join("authors.csv"), authors).unwrap();
    compare_reported(spec, dir, &selected(), &HashMap::new()).unwrap()
}

fn lpdt_m(c: &[CellCheck]) -> &CellCheck {
    c.iter().find(|c| c.method == "LPDT-M").unwrap()
}

#[test]
fn the_authors_code_agreeing_with_us_explains_a_deviation() {
    let dir = tempfile::tempdir().unwrap();
    let c = cells(dir.path(), &spec(None), &authors_file(&around(20.3)));
    let m = lpdt_m(&c);
    assert!(
        matches!(m.verdict, Verdict::KnownDeviation(_)),
        "{:?}",
        m.verdict
    );
    let a = m.authors.as_ref().unwrap();
    assert_eq!(a.agreement, Some(Agreement::WithUs), "{}", a.detail);
    match &a.value {
        AuthorsValue::Ran { mean, reps, .. } => {
            assert!((mean - 20.3).abs() < 1e-12);
            assert_eq!(*reps, 5);
        }
        v => panic!("{v:?}"),
    }
    // The cell their code cannot run says so, with the file's words.
    let dt = c.iter().find(|c| c.method == "DT").unwrap();
    assert!(matches!(
        &dt.authors.as_ref().unwrap().value,
        AuthorsValue::CannotRun { note, .. } if note.contains("no implementation")
    ));
    assert_eq!(dt.authors.as_ref().unwrap().agreement, None);
    // check.csv carries the value, its spread and the classification.
    let report = CheckReport {
        cells: c.clone(),
        ..CheckReport::default()
    };
    let csv = check_csv(&report).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(
        "authors_code,authors_std,authors_reps,authors_agreement,authors_detail,reported_halfwidth"
    ));
    let row = csv.lines().find(|l| l.contains(",LPDT-M,")).unwrap();
    assert!(
        row.contains(",20.3,") && row.contains(",5,with_us,"),
        "{row}"
    );
    let dt_row = csv.lines().find(|l| l.contains(",DT,")).unwrap();
    assert!(dt_row.contains("cannot_run"), "{dt_row}");
    // The report shows the third column and counts the deviation as explained by it.
    let (md, tex) = dp_repro::check::render_check(&report, "t").unwrap();
    assert!(md.contains("| authors' code |"), "{md}");
    assert!(md.contains("agrees with us"), "{md}");
    assert!(
        md.contains("1 of them by the authors' code agreeing with us, 0 unexplained"),
        "{md}"
    );
    assert!(tex.contains("Authors' code"));
}

#[test]
fn the_authors_code_moved_to_the_papers_value_turns_the_deviation_into_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    // The same file with the authors' values moved onto the paper's 10.0.
    let c = cells(dir.path(), &spec(None), &authors_file(&around(10.0)));
    let m = lpdt_m(&c);
    assert_eq!(
        m.authors.as_ref().unwrap().agreement,
        Some(Agreement::WithPaper)
    );
    assert_eq!(m.verdict, Verdict::Regression);
    assert!(m.note.as_deref().unwrap().contains("a difference of ours"));
    // A known deviation that names the option of ours behaving as their code stays one.
    let c = cells(
        dir.path(),
        &spec(Some("noise: frozen (specs/lpdt/table2-as-coded.yaml)")),
        &authors_file(&around(10.0)),
    );
    assert!(matches!(lpdt_m(&c).verdict, Verdict::KnownDeviation(_)));
    // Halfway (15): far from both, so neither explains the deviation, and it stays one.
    let c = cells(dir.path(), &spec(None), &authors_file(&around(15.0)));
    let m = lpdt_m(&c);
    assert_eq!(
        m.authors.as_ref().unwrap().agreement,
        Some(Agreement::Neither)
    );
    assert!(matches!(m.verdict, Verdict::KnownDeviation(_)));
}

#[test]
fn a_broken_authors_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("paper.csv"), PAPER).unwrap();
    std::fs::write(
        dir.path().join("authors.csv"),
        "dataset,method,epsilon,repetition,grid_point,value,note\nabalone,LPDT-M,1,1,x,twelve,\n",
    )
    .unwrap();
    let e = compare_reported(&spec(None), dir.path(), &selected(), &HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("authors.csv:2") && e.contains("`value`"), "{e}");
    // Values and a "cannot run" row for one cell contradict each other.
    std::fs::write(
        dir.path().join("authors.csv"),
        "dataset,method,epsilon,repetition,grid_point,value,note\nabalone,LPDT-M,1,1,x,12,\nabalone,LPDT-M,1,,,,cannot run\n",
    )
    .unwrap();
    let e = compare_reported(&spec(None), dir.path(), &selected(), &HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("authors.csv:3") && e.contains("not both"), "{e}");
    // alpha outside (0, 0.5) is refused at validation.
    let mut s = spec(None);
    s.authors_code.as_mut().unwrap().alpha = 0.7;
    assert!(s
        .validate()
        .unwrap_err()
        .field
        .contains("authors_code.alpha"));
}

#[test]
fn a_misspelled_name_in_the_authors_file_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("paper.csv"), PAPER).unwrap();
    let methods = ["LPDT-M", "DT"];
    let datasets = ["abalone"];
    let pre = |authors: &str| {
        std::fs::write(dir.path().join("authors.csv"), authors).unwrap();
        dp_repro::check::preflight_reported(
            &spec(None),
            dir.path(),
            &methods,
            &datasets,
            &HashMap::new(),
        )
    };
    assert!(pre(&authors_file(&around(20.0))).is_ok());
    let bad = authors_file(&around(20.0)).replace("abalone,LPDT-M", "abalone,LPDT-MM");
    let e = pre(&bad).unwrap_err().to_string();
    assert!(
        e.contains("did you mean `LPDT-M`") && e.contains("authors.csv:3"),
        "{e}"
    );
    let bad = authors_file(&around(20.0)).replace("abalone,DT", "abalon,DT");
    let e = pre(&bad).unwrap_err().to_string();
    assert!(e.contains("did you mean `abalone`"), "{e}");
    // A missing file is named.
    std::fs::remove_file(dir.path().join("authors.csv")).unwrap();
    let e = dp_repro::check::preflight_reported(
        &spec(None),
        dir.path(),
        &methods,
        &datasets,
        &HashMap::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("authors.csv"), "{e}");
}

#[test]
fn a_non_private_method_without_epsilon_stands_beside_every_epsilon_of_the_paper() {
    // The LPCT file carries the non-private CT-W at every ε; the authors' code runs it once.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("paper.csv"),
        "dataset,method,epsilon,value\nabalone,DT,1,5.0\nabalone,DT,2,5.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("authors.csv"),
        "dataset,method,epsilon,repetition,grid_point,value,note\nabalone,DT,,1,d=4,5.0,\nabalone,DT,,2,d=4,5.1,\n",
    )
    .unwrap();
    let c = compare_reported(&spec(None), dir.path(), &selected(), &HashMap::new()).unwrap();
    let dt: Vec<&CellCheck> = c.iter().filter(|c| c.method == "DT").collect();
    assert_eq!(dt.len(), 2);
    for cell in dt {
        assert_eq!(
            cell.authors.as_ref().and_then(|a| a.agreement),
            Some(Agreement::Both),
            "{cell:?}"
        );
    }
}
