//! Tests of `dp_repro::check`: reading result files, reported cells (relative and SE
//! tolerance, known deviations, not-run cells), claims (every kind holding and failing,
//! `all`, known failures), golden numbers (exact, changed, tolerance, missing / extra,
//! bless) and rendering, on small hand-made files in a temporary folder.

mod common;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use dp_repro::check::{
    abbreviation_map, bless, compare_golden, compare_reported, evaluate_claims, read_curve_points,
    read_selected, read_tests, render_check, validate_claims, AtLeast, Band, CellCheck, CheckError,
    CheckReport, Claim, ClaimCheck, CsvError, DatasetNames, GoldenCheck, GoldenSpec,
    KnownDeviation, ReportedSpec, SelectedRow, TestRow, Tolerance, Verdict,
};
use dp_repro::spec::FieldError;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&p, text).unwrap();
    p
}

// Our results: reps = 4, so the standard error is std / 2.
//
// abalone: DT 5; LPDT-M 20 / 10 / 8 at ε 1 / 2 / 6 (improves); PHIST 12 / 11 at ε 2 / 6.
// housing: DT 20; LPDT-M 90 / 100 / 70 (not monotone); PHIST 80 / 85 at ε 2 / 6.
// concrete: DT 50; LPDT-M 300 / 200 / 100 (improves); no PHIST.
const SELECTED: &str = "\
dataset,method,epsilon,mean,std,median,reps,params
abalone,DT,,5,1,5,4,max_depth=3
abalone,LPDT-M,1,20,4,19,4,depth=1;min_leaf=5;rho=0.5
abalone,LPDT-M,2,10,2,10,4,depth=2;min_leaf=5;rho=0.5
abalone,LPDT-M,6,8,2,8,4,depth=3;min_leaf=5;rho=0.5
abalone,PHIST,2,12,2,12,4,bins=2;t=0.05
abalone,PHIST,6,11,2,11,4,bins=2;t=0.05
housing,DT,,20,2,20,4,max_depth=4
housing,LPDT-M,1,90,10,90,4,depth=1;min_leaf=5;rho=0.5
housing,LPDT-M,2,100,10,100,4,depth=1;min_leaf=5;rho=0.5
housing,LPDT-M,6,70,10,70,4,depth=2;min_leaf=5;rho=0.5
housing,PHIST,2,80,10,80,4,bins=1;t=0.05
housing,PHIST,6,85,10,85,4,bins=1;t=0.05
concrete,DT,,50,5,50,4,max_depth=4
concrete,LPDT-M,1,300,40,300,4,depth=1;min_leaf=5;rho=0.5
concrete,LPDT-M,2,200,40,200,4,depth=1;min_leaf=5;rho=0.5
concrete,LPDT-M,6,100,20,100,4,depth=1;min_leaf=5;rho=0.5
";

const TESTS: &str = "\
dataset,epsilon,method,other,alternative,statistic,p_value,n
abalone,2,LPDT-M,PHIST,less,1,0.01,4
abalone,2,PHIST,LPDT-M,less,9,0.99,4
housing,2,LPDT-M,PHIST,less,8,0.9,4
housing,2,PHIST,LPDT-M,less,2,0.03,4
abalone,6,LPDT-M,PHIST,less,0,0.04,4
housing,6,LPDT-M,PHIST,less,,,4
";

fn selected() -> Vec<SelectedRow> {
    let dir = tempfile::tempdir().unwrap();
    read_selected(&write(dir.path(), "selected.csv", SELECTED)).unwrap()
}

fn tests() -> Vec<TestRow> {
    let dir = tempfile::tempdir().unwrap();
    read_tests(&write(dir.path(), "tests.csv", TESTS)).unwrap()
}

fn abbreviations() -> HashMap<String, String> {
    [("ABA", "abalone"), ("HOU", "housing"), ("CON", "concrete")]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn spec(files: &[&str], tolerance: Tolerance, known: Vec<KnownDeviation>) -> ReportedSpec {
    ReportedSpec {
        known_deviations: known,
        ..ReportedSpec::new(files.iter().map(PathBuf::from).collect(), tolerance)
    }
}

fn rel(r: f64) -> Tolerance {
    Tolerance {
        relative: Some(r),
        se: None,
        halfwidths: None,
    }
}

fn se(k: f64) -> Tolerance {
    Tolerance {
        relative: None,
        se: Some(k),
        halfwidths: None,
    }
}

/// Runs compare_reported on one reported file with the given body (header added).
fn cells_of(body: &str, tolerance: Tolerance, known: Vec<KnownDeviation>) -> Vec<CellCheck> {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "reported/t.csv",
        &format!("dataset,method,epsilon,value,best,second,significant\n{body}"),
    );
    compare_reported(
        &spec(&["reported/t.csv"], tolerance, known),
        dir.path(),
        &selected(),
        &abbreviations(),
    )
    .unwrap()
}

fn find<'a>(cells: &'a [CellCheck], ds: &str, m: &str, e: Option<f64>) -> &'a CellCheck {
    cells
        .iter()
        .find(|c| c.dataset == ds && c.method == m && c.epsilon == e)
        .unwrap_or_else(|| panic!("no cell {ds} {m} {e:?} in {cells:#?}"))
}

// ---------------------------------------------------------------- reading result files

#[test]
fn read_selected_parses_every_field() {
    let rows = selected();
    assert_eq!(rows.len(), 16);
    let dt = &rows[0];
    assert_eq!(dt.dataset, "abalone");
    assert_eq!(dt.method, "DT");
    assert_eq!(dt.epsilon, None);
    assert_eq!((dt.mean, dt.std, dt.median, dt.reps), (5.0, 1.0, 5.0, 4));
    assert_eq!(dt.params, "max_depth=3");
    assert_eq!(rows[1].epsilon, Some(1.0));
    assert_eq!(rows[1].std_error(), 2.0);
}

#[test]
fn read_selected_accepts_quoted_params_with_commas() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "selected.csv",
        "dataset,method,epsilon,mean,std,median,reps,params\nabalone,X,0.5,1,0,1,1,\"a=1,b=2\"\n",
    );
    let rows = read_selected(&p).unwrap();
    assert_eq!(rows[0].params, "a=1,b=2");
    assert_eq!(rows[0].epsilon, Some(0.5));
}

#[test]
fn read_errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "selected.csv",
        "dataset,method,epsilon,mean,std,median,reps,params\nabalone,DT,,5,1,5,4,x\nabalone,DT,,abc,1,5,4,x\n",
    );
    let e = read_selected(&p).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, CheckError::Table(CsvError::Field { line: 3, .. })),
        "{msg}"
    );
    assert!(
        msg.contains("selected.csv:3") && msg.contains("`mean`") && msg.contains("\"abc\""),
        "{msg}"
    );

    let p = write(
        dir.path(),
        "bad_eps.csv",
        "dataset,method,epsilon,mean,std,median,reps,params\nabalone,DT,-1,5,1,5,4,x\n",
    );
    let msg = read_selected(&p).unwrap_err().to_string();
    assert!(
        msg.contains("bad_eps.csv:2") && msg.contains("positive number"),
        "{msg}"
    );

    let p = write(
        dir.path(),
        "short.csv",
        "dataset,method,epsilon,mean\nabalone,DT,,5\n",
    );
    let e = read_selected(&p).unwrap_err();
    assert!(
        matches!(e, CheckError::Table(CsvError::MissingColumn { ref column, .. }) if column == "std"),
        "{e}"
    );

    let p = write(
        dir.path(),
        "ragged.csv",
        "dataset,method,epsilon,mean,std,median,reps,params\nabalone,DT,,5,1\n",
    );
    let e = read_selected(&p).unwrap_err();
    assert!(
        matches!(e, CheckError::Table(CsvError::Csv { line: 2, .. })),
        "{e}"
    );

    let e = read_selected(&dir.path().join("absent.csv")).unwrap_err();
    assert!(
        matches!(e, CheckError::Table(CsvError::Read { .. }))
            && e.to_string().contains("absent.csv")
    );
}

#[test]
fn read_tests_parses_undefined_tests() {
    let t = tests();
    assert_eq!(t.len(), 6);
    assert_eq!(t[0].dataset, "abalone");
    assert_eq!(t[0].epsilon, Some(2.0));
    assert_eq!(
        (t[0].method.as_str(), t[0].other.as_str()),
        ("LPDT-M", "PHIST")
    );
    assert_eq!(t[0].alternative, "less");
    assert_eq!(
        (t[0].statistic, t[0].p_value, t[0].n),
        (Some(1.0), Some(0.01), 4)
    );
    assert_eq!((t[5].statistic, t[5].p_value), (None, None));

    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "tests.csv",
        "dataset,epsilon,method,other,alternative,statistic,p_value,n\nabalone,2,A,B,smaller,1,0.5,4\n",
    );
    let msg = read_tests(&p).unwrap_err().to_string();
    assert!(
        msg.contains("tests.csv:2") && msg.contains("alternative"),
        "{msg}"
    );
}

// ---------------------------------------------------------------- reported cells

#[test]
fn relative_tolerance() {
    // ours abalone LPDT-M ε=2: 10 (se 1). 10.9 is 8.3 % away, 11.5 is 13 % away.
    let cells = cells_of(
        "ABA,LPDT-M,2,10.9,,,\nABA,PHIST,2,11.5,,,\nABA,DT,,5,,,\n",
        rel(0.1),
        vec![],
    );
    assert_eq!(cells.len(), 3);
    let c = find(&cells, "abalone", "LPDT-M", Some(2.0));
    assert_eq!(c.verdict, Verdict::Ok);
    assert_eq!(c.paper, Some(10.9));
    assert_eq!(c.ours, Some((10.0, 1.0, 4)));
    assert!((c.ratio.unwrap() - 10.0 / 10.9).abs() < 1e-12);
    assert_eq!(c.reported_dataset, "ABA");
    assert_eq!(c.source, "t.csv:2");
    // PHIST ours 12 vs 11.5: 4.3 % → ok; DT exact → ok.
    assert_eq!(
        find(&cells, "abalone", "PHIST", Some(2.0)).verdict,
        Verdict::Ok
    );
    assert_eq!(find(&cells, "abalone", "DT", None).verdict, Verdict::Ok);

    let cells = cells_of("ABA,LPDT-M,2,11.5,,,\n", rel(0.1), vec![]);
    assert_eq!(cells[0].verdict, Verdict::Regression);
    // Exactly on the boundary counts as within.
    let cells = cells_of("ABA,LPDT-M,2,8,,,\n", rel(0.25), vec![]);
    assert_eq!(cells[0].verdict, Verdict::Ok);
}

#[test]
fn standard_error_band() {
    // ours abalone LPDT-M ε=2: mean 10, std 2, reps 4 → se 1.
    let cells = cells_of("ABA,LPDT-M,2,12.9,,,\n", se(3.0), vec![]);
    assert_eq!(cells[0].verdict, Verdict::Ok);
    let cells = cells_of("ABA,LPDT-M,2,13.1,,,\n", se(3.0), vec![]);
    assert_eq!(cells[0].verdict, Verdict::Regression);
    let cells = cells_of("ABA,LPDT-M,2,6.9,,,\n", se(3.0), vec![]);
    assert_eq!(cells[0].verdict, Verdict::Regression);
    // Either criterion suffices: 13.1 is outside 3 se but within 35 %.
    let both = Tolerance {
        relative: Some(0.35),
        se: Some(3.0),
        halfwidths: None,
    };
    let cells = cells_of("ABA,LPDT-M,2,13.1,,,\n", both, vec![]);
    assert_eq!(cells[0].verdict, Verdict::Ok);
    // …and 12.9 is within 3 se though 29 % away from a 1 % relative tolerance.
    let both = Tolerance {
        relative: Some(0.01),
        se: Some(3.0),
        halfwidths: None,
    };
    let cells = cells_of("ABA,LPDT-M,2,12.9,,,\n", both, vec![]);
    assert_eq!(cells[0].verdict, Verdict::Ok);
    // Direct use.
    assert!(se(2.0).accepts(10.0, 0.5, 11.0));
    assert!(!se(2.0).accepts(10.0, f64::NAN, 10.5));
    assert!(!rel(0.5).accepts(f64::NAN, 1.0, 10.0));
    assert!(rel(0.1).accepts(0.0, 1.0, 0.0) && !rel(0.1).accepts(1e-9, 0.0, 0.0));
}

#[test]
fn known_deviation_selectors() {
    let known = vec![
        // by our name + method + ε
        KnownDeviation {
            datasets: Some(vec!["abalone".into()]),
            methods: Some(vec!["LPDT-M".into()]),
            epsilons: Some(vec![1.0]),
            band: Band::Ratio([1e-3, 1e3]),
            tested_by: vec!["t.yaml".into()],
            reason: "faithful LPDT at small ε".into(),
            option: None,
        },
        // by the paper's abbreviation, any method and ε
        KnownDeviation {
            datasets: Some(vec!["HOU".into()]),
            methods: None,
            epsilons: None,
            band: Band::Ratio([1e-3, 1e3]),
            tested_by: vec!["t.yaml".into()],
            reason: "housing differs".into(),
            option: None,
        },
        // method only, with an ε list: never matches the non-private DT
        KnownDeviation {
            datasets: None,
            methods: Some(vec!["PHIST".into(), "DT".into()]),
            epsilons: Some(vec![6.0]),
            band: Band::Ratio([1e-3, 1e3]),
            tested_by: vec!["t.yaml".into()],
            reason: "biased histogram".into(),
            option: None,
        },
    ];
    let body = "\
ABA,LPDT-M,1,2,,,
ABA,LPDT-M,2,2,,,
HOU,LPDT-M,2,1,,,
HOU,DT,,1,,,
ABA,PHIST,6,1,,,
ABA,PHIST,2,1,,,
ABA,DT,,1,,,
";
    let cells = cells_of(body, rel(0.1), known);
    let v = |d, m, e| find(&cells, d, m, e).verdict.clone();
    let kd = |s: &str| Verdict::KnownDeviation(format!("{s} (tested by t.yaml)"));
    assert_eq!(
        v("abalone", "LPDT-M", Some(1.0)),
        kd("faithful LPDT at small ε")
    );
    assert_eq!(v("abalone", "LPDT-M", Some(2.0)), Verdict::Regression);
    assert_eq!(v("housing", "LPDT-M", Some(2.0)), kd("housing differs"));
    assert_eq!(v("housing", "DT", None), kd("housing differs"));
    assert_eq!(v("abalone", "PHIST", Some(6.0)), kd("biased histogram"));
    assert_eq!(v("abalone", "PHIST", Some(2.0)), Verdict::Regression);
    assert_eq!(v("abalone", "DT", None), Verdict::Regression);

    // A cell within tolerance is ok even when a selector matches it.
    let cells = cells_of(
        "ABA,LPDT-M,1,20,,,\n",
        rel(0.1),
        vec![KnownDeviation {
            datasets: None,
            methods: None,
            epsilons: None,
            band: Band::Ratio([1e-3, 1e3]),
            tested_by: vec!["t.yaml".into()],
            reason: "anything".into(),
            option: None,
        }],
    );
    assert_eq!(cells[0].verdict, Verdict::Ok);
}

#[test]
fn not_run_cells_and_left_out_data_sets() {
    let body = "\
ABA,PHIST,1,3,,,
ABA,DECONV,2,1e7,,,
ABA,LPDT-M,4,9,,,
CON,PHIST,2,,false,false,false
CON,PHIST,6,100,,,
WHI,LPDT-M,2,0.7,,,
ABA,LPDT-M,2,10,,,
";
    let cells = cells_of(body, rel(0.1), vec![]);
    // WHI is not among our data sets (nor in the map): listed as not run, with why.
    assert_eq!(cells.len(), 7, "{cells:#?}");
    let whi = cells.iter().find(|c| c.reported_dataset == "WHI").unwrap();
    assert_eq!(whi.verdict, Verdict::NotRun);
    assert_eq!(whi.note.as_deref(), Some(dp_repro::check::NOT_IN_SPEC));
    for (d, m, e) in [
        ("abalone", "PHIST", 1.0),  // ε not run for this method
        ("abalone", "DECONV", 2.0), // method not implemented
        ("abalone", "LPDT-M", 4.0), // ε not run
        ("concrete", "PHIST", 2.0), // paper prints "−" (and we did not run it)
        ("concrete", "PHIST", 6.0), // method not run on this data set
    ] {
        let c = find(&cells, d, m, Some(e));
        assert_eq!(c.verdict, Verdict::NotRun, "{c:?}");
        assert_eq!(c.ratio, None);
    }
    assert_eq!(find(&cells, "concrete", "PHIST", Some(2.0)).paper, None);
    assert_eq!(find(&cells, "abalone", "DECONV", Some(2.0)).ours, None);
    // A "−" cell where we have a value is still not run (nothing to compare), ours shown.
    let cells = cells_of("ABA,PHIST,2,−,,,\n", rel(0.1), vec![]);
    assert_eq!(cells[0].verdict, Verdict::NotRun);
    assert_eq!(cells[0].ours, Some((12.0, 1.0, 4)));
}

#[test]
fn identical_cells_of_two_files_are_checked_once() {
    let dir = tempfile::tempdir().unwrap();
    let h = "dataset,method,epsilon,value\n";
    write(
        dir.path(),
        "a.csv",
        &format!("{h}ABA,DT,,5\nABA,LPDT-M,2,10\n"),
    );
    write(dir.path(), "b.csv", &format!("{h}ABA,DT,,5\nABA,DT,,5.1\n"));
    let cells = compare_reported(
        &spec(&["a.csv", "b.csv"], rel(0.1), vec![]),
        dir.path(),
        &selected(),
        &abbreviations(),
    )
    .unwrap();
    let sources: Vec<&str> = cells.iter().map(|c| c.source.as_str()).collect();
    assert_eq!(sources, ["a.csv:2", "a.csv:3", "b.csv:3"]);
}

#[test]
fn dataset_names_as_they_are_and_no_overlap() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "r.csv",
        "dataset,method,epsilon,value\nABA,DT,,5\n",
    );
    let mut s = spec(&["r.csv"], rel(0.1), vec![]);
    s.dataset_names = DatasetNames::Name;
    let e = compare_reported(&s, dir.path(), &selected(), &abbreviations()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, CheckError::NoOverlap { .. }), "{msg}");
    assert!(
        msg.contains("ABA") && msg.contains("abalone") && msg.contains("dataset_names"),
        "{msg}"
    );

    write(
        dir.path(),
        "n.csv",
        "dataset,method,epsilon,value\nabalone,DT,,5\n",
    );
    s.files = vec!["n.csv".into()];
    let cells = compare_reported(&s, dir.path(), &selected(), &abbreviations()).unwrap();
    assert_eq!(cells[0].verdict, Verdict::Ok);
    assert_eq!(cells[0].reported_dataset, "abalone");

    // A bad value names file, line and column.
    write(
        dir.path(),
        "bad.csv",
        "dataset,method,epsilon,value\nabalone,DT,,five\n",
    );
    s.files = vec!["bad.csv".into()];
    let msg = compare_reported(&s, dir.path(), &selected(), &abbreviations())
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("bad.csv:2") && msg.contains("`value`"),
        "{msg}"
    );
}

#[test]
fn reported_spec_yaml_and_validation() {
    let yaml = r#"
files: [reported/lpdt_table2.csv, reported/lpdt_table5.csv]
tolerance: {relative: 0.25, se: 3}
known_deviations:
  - {methods: [LPDT-M, LPDT-V], epsilons: [0.5, 1], band: {ratio: [1.1, 1.6]}, tested_by: [specs/x.yaml], reason: "docs/methods/lpdt.md §12 item 2"}
  - {methods: [APHIST], band: {absolute: [0.5, 2]}, reason: "unexplained: biased estimator, docs/methods/lpdt.md §7.4"}
"#;
    let s: ReportedSpec = serde_yaml::from_str(yaml).unwrap();
    assert_eq!(s.dataset_names, DatasetNames::Abbreviation);
    assert_eq!(s.tolerance.relative, Some(0.25));
    assert_eq!(s.known_deviations[0].epsilons, Some(vec![0.5, 1.0]));
    assert_eq!(s.known_deviations[1].datasets, None);
    assert_eq!(s.known_deviations[0].band, Band::Ratio([1.1, 1.6]));
    assert!(s.known_deviations[0].explained() && !s.known_deviations[1].explained());
    s.validate().unwrap();
    // Round trip.
    let back: ReportedSpec = serde_yaml::from_str(&serde_yaml::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);

    let e = serde_yaml::from_str::<ReportedSpec>(
        "files: [a.csv]\ntolerance: {relative: 0.1, sigma: 2}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sigma"), "{e}");
    let e = serde_yaml::from_str::<ReportedSpec>(
        "files: [a.csv]\ntolerance: {se: 2}\ndataset_names: abbrev\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("abbreviation"), "{e}");

    let bad = |s: ReportedSpec, field: &str| {
        let e = s.validate().unwrap_err();
        assert!(
            matches!(&e, FieldError { field: f, .. } if f == field),
            "{e} (expected field {field})"
        );
    };
    bad(
        spec(&["a.csv"], Tolerance::default(), vec![]),
        "reported.tolerance",
    );
    bad(spec(&[], rel(0.1), vec![]), "reported.files");
    bad(
        spec(&["a.csv"], rel(-0.1), vec![]),
        "reported.tolerance.relative",
    );
    bad(
        spec(&["a.csv"], se(f64::NAN), vec![]),
        "reported.tolerance.se",
    );
    let kd = |reason: &str, epsilons: Option<Vec<f64>>| KnownDeviation {
        datasets: None,
        methods: None,
        epsilons,
        band: Band::Ratio([1e-3, 1e3]),
        tested_by: vec!["t.yaml".into()],
        reason: reason.into(),
        option: None,
    };
    bad(
        spec(&["a.csv"], rel(0.1), vec![kd(" ", None)]),
        "reported.known_deviations[0].reason",
    );
    bad(
        spec(
            &["a.csv"],
            rel(0.1),
            vec![kd("r", None), kd("r", Some(vec![]))],
        ),
        "reported.known_deviations[1].epsilons",
    );
    bad(
        spec(&["a.csv"], rel(0.1), vec![kd("r", Some(vec![0.0]))]),
        "reported.known_deviations[0].epsilons",
    );
    // compare_reported validates first.
    let dir = tempfile::tempdir().unwrap();
    let e = compare_reported(
        &spec(&["a.csv"], Tolerance::default(), vec![]),
        dir.path(),
        &selected(),
        &abbreviations(),
    )
    .unwrap_err();
    assert!(matches!(e, CheckError::Invalid { .. }));
}

/// Every cell of the LPDT tables maps onto a
/// manifest: with ours equal to the paper everywhere, every valued cell is ok.
#[test]
fn copied_lpdt_tables_map_onto_the_manifests() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifests = dp_repro::data::manifest::list_manifests(&[root.join("datasets")]).unwrap();
    let abbr = abbreviation_map(&manifests);
    // Every manifest has its own abbreviation; the 14 of LPDT Table 4 among them.
    assert_eq!(abbr.len(), manifests.len());
    let lpdt = manifests
        .iter()
        .filter(|m| m.paper.iter().any(|p| p.table == "LPDT Table 4"))
        .count();
    assert_eq!(lpdt, 14);
    assert_eq!(abbr["ABA"], "abalone");
    // Ours := the paper's values (DECONV not run), 50 repetitions.
    let mut rows = Vec::new();
    for f in ["lpdt_table2.csv", "lpdt_table5.csv"] {
        let text = fs::read_to_string(root.join("specs/reported").join(f)).unwrap();
        for line in text.lines().skip(1) {
            let v: Vec<&str> = line.split(',').collect();
            if v[3].is_empty() || v[1] == "DECONV" {
                continue;
            }
            rows.push(SelectedRow {
                dataset: abbr[v[0]].clone(),
                method: v[1].into(),
                epsilon: if v[2].is_empty() {
                    None
                } else {
                    Some(v[2].parse().unwrap())
                },
                mean: v[3].parse().unwrap(),
                std: 1.0,
                median: v[3].parse().unwrap(),
                reps: 50,
                params: String::new(),
            });
        }
    }
    let s = spec(
        &["reported/lpdt_table2.csv", "reported/lpdt_table5.csv"],
        rel(0.0),
        vec![],
    );
    let cells = compare_reported(&s, &root.join("specs"), &rows, &abbr).unwrap();
    // 154 + 294 rows, minus the 14 DT rows repeated identically in Table 5.
    assert_eq!(cells.len(), 154 + 294 - 14);
    let not_run = cells
        .iter()
        .filter(|c| c.verdict == Verdict::NotRun)
        .count();
    // DECONV: 14 × 6 ε; "−": PHIST and APHIST on BUI and MUS at 6 ε.
    assert_eq!(not_run, 84 + 24);
    assert!(cells
        .iter()
        .all(|c| c.verdict == Verdict::Ok || c.verdict == Verdict::NotRun));
}

// ---------------------------------------------------------------- claims

fn claims_yaml(yaml: &str) -> Vec<Claim> {
    let claims: Vec<Claim> = serde_yaml::from_str(yaml).unwrap();
    validate_claims(&claims).unwrap();
    claims
}

fn eval(yaml: &str) -> Vec<ClaimCheck> {
    evaluate_claims(&claims_yaml(yaml), &selected(), &tests(), &[], true)
}

fn counts(c: &ClaimCheck) -> (bool, usize, usize, usize) {
    (c.holds, c.count, c.out_of, c.needed)
}

#[test]
fn better_claims() {
    let r = eval(
        r#"
- claim: better           # abalone 10 < 12 yes; housing 100 < 80 no; concrete: no PHIST
  method: LPDT-M
  than: PHIST
  epsilon: 2
  at_least: 1
- claim: better
  id: lpdt-vs-phist-all
  method: LPDT-M
  than: PHIST
  epsilon: 2
  at_least: all
- claim: better           # ε = 6: abalone 8 < 11, housing 70 < 85
  method: LPDT-M
  than: PHIST
  epsilon: 6
  at_least: all
- claim: better           # C6-like: DT (non-private) better than LPDT-M at ε = 2 everywhere
  method: DT
  than: LPDT-M
  epsilon: 2
  at_least: 3
- claim: better
  method: LPDT-M
  than: PHIST
  epsilon: 2
  at_least: 3             # more than the 2 data sets where both ran
"#,
    );
    assert_eq!(counts(&r[0]), (true, 1, 2, 1));
    assert!(
        r[0].details
            .contains("fails on housing (LPDT-M 1.00e+2 vs PHIST 8.00e+1)"),
        "{}",
        r[0].details
    );
    assert!(
        r[0].details
            .contains("not defined on concrete (no row of PHIST)"),
        "{}",
        r[0].details
    );
    assert_eq!(
        r[0].label,
        "LPDT-M better than PHIST at ε = 2 on ≥ 1 data sets"
    );
    assert_eq!(counts(&r[1]), (false, 1, 2, 2));
    assert_eq!(r[1].label, "lpdt-vs-phist-all");
    assert_eq!(
        r[1].description,
        "LPDT-M better than PHIST at ε = 2 on all data sets"
    );
    assert!(r[1].regressed());
    assert_eq!(counts(&r[2]), (true, 2, 2, 2));
    assert_eq!(
        r[2].details,
        "holds on every data set where defined; not defined on concrete (no row of PHIST)"
    );
    assert_eq!(counts(&r[3]), (true, 3, 3, 3));
    assert_eq!(counts(&r[4]), (false, 1, 2, 3));
    assert!(
        r[4].details
            .contains("needs 3 data sets but is defined on only 2"),
        "{}",
        r[4].details
    );

    // Higher is better (accuracy): the same data read the other way round.
    let c = claims_yaml("- {claim: better, method: LPDT-M, than: PHIST, epsilon: 2, at_least: 1}");
    let r = evaluate_claims(&c, &selected(), &tests(), &[], false);
    assert_eq!(counts(&r[0]), (true, 1, 2, 1));
    assert!(
        r[0].details.contains("fails on abalone"),
        "{}",
        r[0].details
    );

    // Without ε only non-private rows are compared.
    let r = eval("- {claim: better, method: DT, than: LPDT-M, at_least: 1}");
    assert_eq!(counts(&r[0]), (false, 0, 0, 1));
    assert!(
        r[0].details.contains("defined on no data set"),
        "{}",
        r[0].details
    );
}

#[test]
fn significantly_better_claims() {
    let r = eval(
        r#"
- claim: significantly_better   # abalone p = 0.01, housing p = 0.9
  method: LPDT-M
  than: PHIST
  epsilon: 2
  at_least: 1
- claim: significantly_better
  method: LPDT-M
  than: PHIST
  epsilon: 2
  at_least: all
- claim: significantly_better   # abalone p = 0.04 < 0.05; housing test undefined
  method: LPDT-M
  than: PHIST
  epsilon: 6
  at_least: 2
- claim: significantly_better   # p = 0.04 is not < 0.01
  method: LPDT-M
  than: PHIST
  epsilon: 6
  alpha: 0.01
  at_least: 1
- claim: significantly_better   # housing p = 0.03
  method: PHIST
  than: LPDT-M
  epsilon: 2
  at_least: 1
"#,
    );
    assert_eq!(counts(&r[0]), (true, 1, 2, 1));
    assert!(
        r[0].details.contains("housing (p = 9.00e-1)"),
        "{}",
        r[0].details
    );
    assert!(
        r[0].details.contains("not defined on concrete"),
        "{}",
        r[0].details
    );
    assert_eq!(counts(&r[1]), (false, 1, 2, 2));
    assert_eq!(counts(&r[2]), (false, 1, 2, 2));
    assert!(
        r[2].details.contains("housing (test undefined)"),
        "{}",
        r[2].details
    );
    assert_eq!(counts(&r[3]), (false, 0, 2, 1));
    assert_eq!(counts(&r[4]), (true, 1, 2, 1));
    // The default α is 0.05.
    let c: Vec<Claim> =
        claims_yaml("- {claim: significantly_better, method: A, than: B, epsilon: 2, at_least: 1}");
    assert!(matches!(c[0], Claim::SignificantlyBetter { alpha, .. } if alpha == 0.05));
    // With higher-is-better the `less` rows are not the right tests: undefined.
    let r = evaluate_claims(&c, &selected(), &tests(), &[], false);
    assert_eq!(r[0].out_of, 0);
}

#[test]
fn best_among_claims() {
    let r = eval(
        r#"
- claim: best_among      # abalone: LPDT-M 10 < PHIST 12 < DT 5? DT not in `among`
  methods: [LPDT-M]
  among: [LPDT-M, PHIST]
  epsilon: 2
  at_least: 2
- claim: best_among      # concrete: only LPDT-M ran → best; housing fails
  methods: [LPDT-M]
  among: [LPDT-M, PHIST]
  epsilon: 2
  at_least: all
- claim: best_among      # DT (non-private row) is best everywhere
  methods: [DT]
  among: [DT, LPDT-M, PHIST]
  epsilon: 6
  at_least: all
- claim: best_among      # PHIST did not run on concrete: undefined there
  methods: [PHIST]
  among: [LPDT-M, PHIST]
  epsilon: 2
  at_least: 1
"#,
    );
    assert_eq!(counts(&r[0]), (true, 2, 3, 2));
    assert!(
        r[0].details
            .contains("fails on housing (PHIST 8.00e+1 vs LPDT-M 1.00e+2)"),
        "{}",
        r[0].details
    );
    assert_eq!(counts(&r[1]), (false, 2, 3, 3));
    assert_eq!(counts(&r[2]), (true, 3, 3, 3));
    assert_eq!(counts(&r[3]), (true, 1, 2, 1));
    assert!(
        r[3].details
            .contains("not defined on concrete (none of PHIST ran)"),
        "{}",
        r[3].details
    );

    // A tie for the best holds.
    let tie =
        "dataset,method,epsilon,mean,std,median,reps,params\nd,A,2,1,0,1,1,\nd,B,2,1,0,1,1,\n";
    let dir = tempfile::tempdir().unwrap();
    let rows = read_selected(&write(dir.path(), "s.csv", tie)).unwrap();
    let c = claims_yaml(
        "- {claim: best_among, methods: [A], among: [A, B], epsilon: 2, at_least: all}",
    );
    assert!(evaluate_claims(&c, &rows, &[], &[], true)[0].holds);
}

#[test]
fn improves_with_epsilon_claims() {
    let r = eval(
        r#"
- claim: improves_with_epsilon     # abalone, concrete improve; housing 90 → 100 → 70 not
  method: LPDT-M
  at_least: 2
- claim: improves_with_epsilon
  method: LPDT-M
  at_least: all
- claim: improves_with_epsilon
  id: C-known
  text: "LPDT-M's MSE decreases in ε on every data set"
  method: LPDT-M
  at_least: all
  known_failure: "faithful LPDT is unstable at small ε (docs/methods/lpdt.md §12 item 2)"
- claim: improves_with_epsilon     # PHIST: abalone 12 → 11 yes, housing 80 → 85 no
  method: PHIST
  at_least: all
"#,
    );
    assert_eq!(counts(&r[0]), (true, 2, 3, 2));
    assert!(
        r[0].details
            .contains("fails on housing (ε 1 → 2: 9.00e+1 → 1.00e+2)"),
        "{}",
        r[0].details
    );
    assert_eq!(counts(&r[1]), (false, 2, 3, 3));
    assert!(r[1].regressed());
    // Known failure: fails, but not a regression.
    assert_eq!(counts(&r[2]), (false, 2, 3, 3));
    assert_eq!(r[2].label, "C-known");
    assert_eq!(
        r[2].text.as_deref(),
        Some("LPDT-M's MSE decreases in ε on every data set")
    );
    assert!(r[2].known_failure.is_some());
    assert!(!r[2].regressed());
    assert_eq!(counts(&r[3]), (false, 1, 2, 2));
    assert!(
        r[3].details
            .contains("not defined on concrete (PHIST has fewer than two ε)"),
        "{}",
        r[3].details
    );
}

#[test]
fn claim_grammar_errors() {
    let err = |yaml: &str| {
        serde_yaml::from_str::<Vec<Claim>>(yaml)
            .unwrap_err()
            .to_string()
    };
    let e = err("- {claim: better, method: A, than: B, at_least: most}");
    assert!(e.contains("positive integer") && e.contains("all"), "{e}");
    let e = err("- {claim: better, method: A, than: B, at_least: 0}");
    assert!(e.contains("positive integer"), "{e}");
    let e = err("- {claim: better, method: A, than: B, at_least: -2}");
    assert!(e.contains("positive integer"), "{e}");
    let e = err("- {claim: beter, method: A, than: B, at_least: 1}");
    assert!(
        e.contains("beter") && e.contains("significantly_better"),
        "{e}"
    );
    let e = err("- {claim: better, method: A, than: B, at_least: 1, epsilons: [2]}");
    assert!(e.contains("epsilons"), "{e}");
    let e = err("- {claim: better, method: A, than: B}");
    assert!(e.contains("at_least"), "{e}");
    let e = err("- {claim: significantly_better, method: A, than: B, at_least: 1}");
    assert!(e.contains("epsilon"), "{e}");

    let c: Vec<Claim> =
        serde_yaml::from_str("- {claim: better, method: A, than: B, at_least: all}").unwrap();
    assert_eq!(c[0].at_least(), AtLeast::All);
    // Round trip.
    let back: Vec<Claim> = serde_yaml::from_str(&serde_yaml::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);

    let invalid = |yaml: &str, field: &str| {
        let c: Vec<Claim> = serde_yaml::from_str(yaml).unwrap();
        let e = validate_claims(&c).unwrap_err();
        assert!(
            matches!(&e, FieldError { field: f, .. } if f == field),
            "{e} (expected {field})"
        );
        // Evaluating an invalid claim reports it as failing, with the reason.
        let r = evaluate_claims(&c, &selected(), &tests(), &[], true);
        assert!(r
            .iter()
            .any(|r| !r.holds && r.details.starts_with("invalid claim")));
    };
    invalid(
        "- {claim: better, method: A, than: A, at_least: 1}",
        "claims[0].than",
    );
    invalid(
        "- {claim: better, method: A, than: B, epsilon: 0, at_least: 1}",
        "claims[0].epsilon",
    );
    invalid(
        "- {claim: significantly_better, method: A, than: B, epsilon: 2, alpha: 1.5, at_least: 1}",
        "claims[0].alpha",
    );
    invalid(
        "- {claim: best_among, methods: [C], among: [A, B], epsilon: 2, at_least: 1}",
        "claims[0].methods",
    );
    invalid(
        "- {claim: best_among, methods: [], among: [A, B], epsilon: 2, at_least: 1}",
        "claims[0].methods",
    );
    invalid(
        "- {claim: improves_with_epsilon, method: A, at_least: 1, known_failure: ''}",
        "claims[0].known_failure",
    );
    let c: Vec<Claim> = serde_yaml::from_str(
        "- {claim: better, id: x, method: A, than: B, at_least: 1}\n- {claim: better, id: x, method: B, than: A, at_least: 1}",
    )
    .unwrap();
    let e = validate_claims(&c).unwrap_err().to_string();
    assert!(e.contains("claims[1].id") && e.contains("unique"), "{e}");
}

// ---------------------------------------------------------------- golden numbers

const SUMMARY: &str = "\
dataset,method,epsilon,params,mean,std,median,reps
abalone,DT,,max_depth=1,5.5,1.25,5.4,4
abalone,DT,,max_depth=2,5.000000000000001,1,5,4
abalone,LPDT-M,2,\"depth=2;min_leaf=5,x\",10.123456789012345,2.5,10,4
abalone,LPDT-M,2,depth=2;min_leaf=10,0.1,0.2,0.15,4
housing,PHIST,6,bins=1,NaN,NaN,NaN,0
";

#[test]
fn golden_exact_equality() {
    let dir = tempfile::tempdir().unwrap();
    let s = write(dir.path(), "summary.csv", SUMMARY);
    let g = write(dir.path(), "golden.csv", SUMMARY);
    let c = compare_golden(&s, &g, 0.0).unwrap();
    assert_eq!(c.compared, 5);
    assert!(!c.regressed(), "{c:?}");
    assert!(c.changed.is_empty() && c.missing.is_empty() && c.extra.is_empty());
    // Row order does not matter; the same numbers written differently are equal values.
    let reordered = "\
dataset,method,epsilon,params,mean,std,median,reps
housing,PHIST,6,bins=1,NaN,NaN,NaN,0
abalone,LPDT-M,2,depth=2;min_leaf=10,1e-1,0.20,0.15,4
abalone,LPDT-M,2,\"depth=2;min_leaf=5,x\",10.123456789012345,2.5,10,4
abalone,DT,,max_depth=2,5.000000000000001,1.0,5,4
abalone,DT,,max_depth=1,5.5,1.25,5.4,4
";
    let g = write(dir.path(), "golden2.csv", reordered);
    assert!(!compare_golden(&s, &g, 0.0).unwrap().regressed());
}

#[test]
fn golden_detects_a_changed_value() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "golden.csv", SUMMARY);
    // The last bit of a mean, a std and reps change.
    let changed = SUMMARY
        .replace("5.000000000000001,1,5,4", "5,1,5,4")
        .replace("0.1,0.2,0.15,4", "0.1,0.2,0.15,5")
        .replace("5.5,1.25,5.4", "5.5,1.2500000000000002,5.4");
    let s = write(dir.path(), "summary.csv", &changed);
    let c = compare_golden(&s, &g, 0.0).unwrap();
    assert_eq!(c.compared, 5);
    assert_eq!(c.changed.len(), 3, "{:#?}", c.changed);
    assert!(c.regressed());
    assert_eq!(
        c.changed[0],
        "abalone / DT / ε=— / max_depth=1: std 1.25 → 1.2500000000000002"
    );
    assert_eq!(
        c.changed[1],
        "abalone / DT / ε=— / max_depth=2: mean 5.000000000000001 → 5"
    );
    assert_eq!(
        c.changed[2],
        "abalone / LPDT-M / ε=2 / depth=2;min_leaf=10: reps 4 → 5"
    );
    // A NaN that becomes a number is a change.
    let s = write(
        dir.path(),
        "s2.csv",
        &SUMMARY.replace("NaN,NaN,NaN,0", "1,NaN,NaN,0"),
    );
    let c = compare_golden(&s, &g, 0.0).unwrap();
    assert_eq!(c.changed, ["housing / PHIST / ε=6 / bins=1: mean NaN → 1"]);
}

#[test]
fn golden_relative_tolerance_accepts_a_tiny_change() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "golden.csv", SUMMARY);
    let tiny = SUMMARY.replace("10.123456789012345", "10.12345678901236");
    let s = write(dir.path(), "summary.csv", &tiny);
    assert_eq!(compare_golden(&s, &g, 0.0).unwrap().changed.len(), 1);
    let c = compare_golden(&s, &g, 1e-12).unwrap();
    assert!(!c.regressed(), "{c:?}");
    assert_eq!(c.relative_tolerance, 1e-12);
    // …but not a larger one.
    let big = SUMMARY.replace("10.123456789012345", "10.2");
    let s = write(dir.path(), "s2.csv", &big);
    assert_eq!(compare_golden(&s, &g, 1e-3).unwrap().changed.len(), 1);
    // Invalid tolerance.
    let e = compare_golden(&s, &g, -1.0).unwrap_err();
    assert!(
        matches!(e, CheckError::Invalid { ref field, .. } if field == "golden.relative_tolerance")
    );
}

#[test]
fn golden_missing_and_extra_rows() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "golden.csv", SUMMARY);
    let mut lines: Vec<&str> = SUMMARY.lines().collect();
    lines.remove(2); // abalone DT max_depth=2
    let mut ours = lines.join("\n");
    ours.push_str("\nabalone,DT,,max_depth=3,5.2,1,5,4\n");
    let s = write(dir.path(), "summary.csv", &ours);
    let c = compare_golden(&s, &g, 0.0).unwrap();
    assert_eq!(c.compared, 4);
    assert!(c.changed.is_empty());
    assert_eq!(c.missing, ["abalone / DT / ε=— / max_depth=2"]);
    assert_eq!(c.extra, ["abalone / DT / ε=— / max_depth=3"]);
    assert!(c.regressed());
}

#[test]
fn golden_rejects_duplicate_keys_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let dup = format!("{SUMMARY}abalone,DT,,max_depth=1,5.5,1.25,5.4,4\n");
    let s = write(dir.path(), "summary.csv", &dup);
    let g = write(dir.path(), "golden.csv", SUMMARY);
    let e = compare_golden(&s, &g, 0.0).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(
            e,
            CheckError::Duplicate {
                line: 7,
                first: 2,
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("summary.csv:7") && msg.contains("max_depth=1"),
        "{msg}"
    );
    let e = compare_golden(&g, &dir.path().join("nope.csv"), 0.0).unwrap_err();
    assert!(
        matches!(e, CheckError::Table(CsvError::Read { .. })) && e.to_string().contains("nope.csv")
    );
}

#[test]
fn bless_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = write(dir.path(), "results/summary.csv", SUMMARY);
    let g = dir.path().join("specs/golden/deep/ci-summary.csv");
    bless(&s, &g).unwrap();
    assert_eq!(fs::read(&g).unwrap(), fs::read(&s).unwrap());
    assert!(!compare_golden(&s, &g, 0.0).unwrap().regressed());
    // A change is detected, and blessing again accepts it.
    let s2 = write(
        dir.path(),
        "results/summary.csv",
        &SUMMARY.replace("5.4,4", "5.45,4"),
    );
    assert!(compare_golden(&s2, &g, 0.0).unwrap().regressed());
    bless(&s2, &g).unwrap();
    assert!(!compare_golden(&s2, &g, 0.0).unwrap().regressed());
    let e = bless(&dir.path().join("none.csv"), &g).unwrap_err();
    assert!(matches!(e, CheckError::Read { .. }));

    let gs: GoldenSpec = serde_yaml::from_str("file: golden/ci.csv\n").unwrap();
    assert_eq!(gs.relative_tolerance, 0.0);
    assert_eq!(
        gs.path(Path::new("specs")),
        Path::new("specs/golden/ci.csv")
    );
    gs.validate().unwrap();
    assert!(serde_yaml::from_str::<GoldenSpec>("file: a.csv\ntolerance: 1\n").is_err());
}

// ---------------------------------------------------------------- report and rendering

fn sample_report() -> CheckReport {
    let cell = |ds: &str,
                m: &str,
                e: Option<f64>,
                paper: Option<f64>,
                ours: Option<(f64, f64, usize)>,
                verdict: Verdict| CellCheck {
        dataset: ds.to_string(),
        reported_dataset: ds.to_uppercase(),
        method: m.to_string(),
        epsilon: e,
        paper,
        paper_halfwidth: None,
        ours,
        ratio: match (paper, ours) {
            (Some(p), Some(o)) => Some(o.0 / p),
            _ => None,
        },
        verdict,
        allowed: None,
        band: None,
        note: None,
        source: "t.csv:2".into(),
        authors: None,
    };
    CheckReport {
        cells: vec![
            cell(
                "abalone",
                "DT",
                None,
                Some(5.67),
                Some((5.7, 0.1, 50)),
                Verdict::Ok,
            ),
            cell(
                "abalone",
                "LPDT-M",
                Some(0.5),
                Some(10.1),
                Some((2.0e4, 3.0e3, 50)),
                Verdict::KnownDeviation(
                    "faithful LPDT at ε ≤ 1 (docs/methods/lpdt.md §12 item 2)".into(),
                ),
            ),
            cell(
                "my_data",
                "tree_min_leaf",
                Some(2.0),
                Some(1.0),
                Some((3.0, 0.1, 50)),
                Verdict::Regression,
            ),
            cell(
                "abalone",
                "APHIST",
                Some(2.0),
                Some(18.9),
                Some((10.0, 0.2, 50)),
                Verdict::KnownDeviation("APHIST: biased estimator −⅔ (§7.4) 50% & more".into()),
            ),
            cell(
                "abalone",
                "DECONV",
                Some(2.0),
                Some(1.01e7),
                None,
                Verdict::NotRun,
            ),
        ],
        claims: vec![
            ClaimCheck {
                label: "C5".into(),
                description:
                    "LPDT-M or LPDT-V best among LPDT-M, LPDT-V, PHIST at ε = 2 on ≥ 12 data sets"
                        .into(),
                text: Some("LPDT has the lowest MSE on 12 of 14 data sets".into()),
                holds: true,
                count: 13,
                out_of: 14,
                needed: 12,
                known_failure: None,
                details: "fails on housing (PHIST 8.00e+1 vs LPDT-M 1.00e+2)".into(),
            },
            ClaimCheck {
                label: "LPDT-M improves at every step up of ε on all data sets".into(),
                description: "LPDT-M improves at every step up of ε on all data sets".into(),
                text: None,
                holds: false,
                count: 2,
                out_of: 3,
                needed: 3,
                known_failure: Some("small-ε instability".into()),
                details: "fails on housing (ε 1 → 2: 9.00e+1 → 1.00e+2)".into(),
            },
        ],
        golden: Some(GoldenCheck {
            golden_file: PathBuf::from("specs/golden/ci_summary.csv"),
            relative_tolerance: 0.0,
            compared: 10,
            changed: vec!["abalone / LPDT-M / ε=2 / depth=2;min_leaf=5: mean 1.5 → 1.25".into()],
            missing: vec!["abalone / DT / ε=— / max_depth=2".into()],
            extra: vec![],
        }),
        epsilon_matches: Vec::new(),
        rank_sums: Vec::new(),
        audit: None,
        budgets: Vec::new(),
        provisional: None,
        readings: Vec::new(),
        suspects: Vec::new(),
        anchors: Vec::new(),
        golden_left_out: false,
        epsilon_orders: Vec::new(),
    }
}

#[test]
fn regressed_combinations() {
    let mut r = sample_report();
    assert!(r.regressed());
    r.golden = None;
    assert!(r.regressed()); // the regression cell
    r.cells.retain(|c| c.verdict != Verdict::Regression);
    assert!(!r.regressed()); // known deviations, not run and a known failure only
    r.claims[1].known_failure = None;
    assert!(r.regressed());
    assert!(!CheckReport::default().regressed());
    r.claims.clear();
    r.golden = Some(GoldenCheck::default());
    assert!(!r.regressed());
}

#[test]
fn render_markdown_contains_every_cell() {
    let r = sample_report();
    let (md, _) = render_check(&r, "LPDT Table 2 check").unwrap();
    assert!(md.starts_with("# LPDT Table 2 check\n"), "{md}");
    assert!(md.contains("Result: **REGRESSION**"), "{md}");
    assert!(md.contains(
        "- Reported cells: 5 — 1 ok (within tolerance), 2 known deviations inside their bands (2 explained, 0 unexplained), 1 regression, 1 not run."
    ), "{md}");
    assert!(
        md.contains("- Claims: 1 of 2 hold; 1 fail as known failures, 0 regressed."),
        "{md}"
    );
    assert!(md.contains("1 changed, 1 missing, 0 extra"), "{md}");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    // header and alignment + 5 cells + header and alignment + 5 methods + header and
    // alignment + 4 private methods by ε
    assert_eq!(rows.len(), 20, "{md}");
    // Per private method and ε: within tolerance of those compared; "not run" is not
    // compared (DECONV), a known deviation or regression is compared but not ok.
    assert!(md.contains("| method | ε=0.5 | ε=2 |\n| :--- | ---: | ---: |\n| LPDT-M | 0/1 | — |\n| tree\\_min\\_leaf | — | 0/1 |\n| APHIST | — | 0/1 |\n| DECONV | — | — |\n"), "{md}");
    assert!(
        md.contains("| ABALONE (abalone) | DT | — | 5.67e+0 | 5.70e+0 ± 1.00e-1 | 1.01 | ok |"),
        "{md}"
    );
    assert!(md.contains("| ABALONE (abalone) | LPDT-M | 0.5 | 1.01e+1 | 2.00e+4 ± 3.00e+3 | 1.98e+3 | known deviation (1) |"), "{md}");
    assert!(md.contains("| MY\\_DATA (my\\_data) | tree\\_min\\_leaf | 2 | 1.00e+0 | 3.00e+0 ± 1.00e-1 | 3.00 | **regression** |"), "{md}");
    assert!(md.contains("known deviation (2)"), "{md}");
    assert!(
        md.contains("| ABALONE (abalone) | DECONV | 2 | 1.01e+7 | — | — | not run |"),
        "{md}"
    );
    assert!(
        md.contains("1. faithful LPDT at ε ≤ 1 (docs/methods/lpdt.md §12 item 2)\n2. APHIST"),
        "{md}"
    );
    assert!(md.contains("over 50 repetitions"), "{md}");
    assert!(md.contains("| LPDT-M | 0 | 1 | 0 | 0 |"), "{md}");
    assert!(md.contains("- **C5** (LPDT-M or LPDT-V best among"), "{md}");
    assert!(md.contains("holds; 13 of 14 data sets, needs 12."), "{md}");
    assert!(
        md.contains("Paper: “LPDT has the lowest MSE on 12 of 14 data sets”"),
        "{md}"
    );
    assert!(
        md.contains("fails, a known failure: small-ε instability; 2 of 3 data sets, needs 3."),
        "{md}"
    );
    assert!(
        md.contains("- abalone / LPDT-M / ε=2 / depth=2;min\\_leaf=5: mean 1.5 → 1.25"),
        "{md}"
    );
    assert!(
        md.contains("Missing from our summary:\n\n- abalone / DT / ε=— / max\\_depth=2"),
        "{md}"
    );
    assert!(!md.contains("Not in the golden file"), "{md}");
    // Deterministic.
    assert_eq!(render_check(&r, "LPDT Table 2 check").unwrap().0, md);
}

#[test]
fn render_latex_contains_every_cell_escaped() {
    let r = sample_report();
    let (_, tex) = render_check(&r, "Check of lpdt_table2").unwrap();
    assert!(tex.contains(r"\section*{Check of lpdt\_table2}"), "{tex}");
    assert!(
        tex.contains("booktabs") && tex.contains("longtable"),
        "{tex}"
    );
    assert!(
        tex.contains(r"Result: \textbf{REGRESSION}: something regressed."),
        "{tex}"
    );
    for row in [
        r"ABALONE & DT & --- & 5.67e+0 & 5.70e+0 $\pm$ 1.00e-1 & 1.01 & ok \\",
        r"ABALONE & LPDT-M & 0.5 & 1.01e+1 & 2.00e+4 $\pm$ 3.00e+3 & 1.98e+3 & known deviation\textsuperscript{1} \\",
        r"MY\_DATA & tree\_min\_leaf & 2 & 1.00e+0 & 3.00e+0 $\pm$ 1.00e-1 & 3.00 & \textbf{regression} \\",
        r"ABALONE & APHIST & 2 & 1.89e+1 & 1.00e+1 $\pm$ 2.00e-1 & 0.53 & known deviation\textsuperscript{2} \\",
        r"ABALONE & DECONV & 2 & 1.01e+7 & --- & --- & not run \\",
    ] {
        assert!(tex.contains(row), "missing {row}\n{tex}");
    }
    // Reasons, claims and golden lines escaped; no raw unicode pdflatex cannot typeset.
    assert!(
        tex.contains(
            r"\item faithful LPDT at $\varepsilon$ $\le$ 1 (docs/methods/lpdt.md \S{}12 item 2)"
        ),
        "{tex}"
    );
    assert!(
        tex.contains(r"estimator $-$$\frac{2}{3}$ (\S{}7.4)"),
        "{tex}"
    );
    assert!(tex.contains(r"50\% \& more"), "{tex}");
    assert!(
        tex.contains(r"depth=2;min\_leaf=5: mean 1.5 $\to$ 1.25"),
        "{tex}"
    );
    assert!(
        tex.contains(r"\texttt{specs/golden/ci\_summary.csv}"),
        "{tex}"
    );
    assert!(
        tex.contains(r"\textbf{fails}") || tex.contains("a known failure"),
        "{tex}"
    );
    for bad in ['→', '±', 'ε', '≤', '§', '—', '−', '⅔', '√'] {
        assert!(!tex.contains(bad), "raw {bad:?} in\n{tex}");
    }
    // Environments balance.
    for env in ["longtable", "itemize", "enumerate"] {
        assert_eq!(
            tex.matches(&format!(r"\begin{{{env}}}")).count(),
            tex.matches(&format!(r"\end{{{env}}}")).count(),
            "{env}"
        );
    }
    // Every row of the cell table has 7 columns.
    for line in tex.lines().filter(|l| l.starts_with("ABALONE &")) {
        assert_eq!(line.matches(" & ").count(), 6, "{line}");
    }
}

#[test]
fn render_empty_report() {
    let (md, tex) = render_check(&CheckReport::default(), "empty").unwrap();
    assert!(md.contains("Result: **PASS**"), "{md}");
    assert!(md.contains("No reported cells were checked."), "{md}");
    assert!(md.contains("No claims were checked."), "{md}");
    assert!(md.contains("## Golden numbers\n\nNot checked."), "{md}");
    assert!(
        tex.contains(r"Result: \textbf{PASS}: nothing regressed."),
        "{tex}"
    );
    assert!(!tex.contains(r"\begin{longtable}"), "{tex}");
    // A clean golden comparison says so.
    let r = CheckReport {
        golden: Some(GoldenCheck {
            golden_file: "g.csv".into(),
            compared: 3,
            ..GoldenCheck::default()
        }),
        ..CheckReport::default()
    };
    let (md, _) = render_check(&r, "t").unwrap();
    assert!(
        md.contains("Golden numbers: 3 rows compared with g.csv (bit-exact): no change."),
        "{md}"
    );
}

/// Compiles the LaTeX report with pdflatex (booktabs + longtable) when it is installed;
/// skipped otherwise.
#[test]
fn latex_compiles_with_pdflatex_if_available() {
    if Command::new("pdflatex").arg("--version").output().is_err() {
        eprintln!("skipped: pdflatex not found on PATH");
        return;
    }
    let (_, tex) = render_check(&sample_report(), "Check of lpdt_table2").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let doc = format!(
        "\\documentclass{{article}}\n\\usepackage{{booktabs}}\n\\usepackage{{longtable}}\n\\begin{{document}}\n{tex}\n\\end{{document}}\n"
    );
    fs::write(dir.path().join("check.tex"), doc).unwrap();
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "check.tex"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pdflatex failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// End to end on files: selected + tests + reported + claims into one report.
#[test]
fn end_to_end_on_files() {
    let dir = tempfile::tempdir().unwrap();
    let sel = read_selected(&write(dir.path(), "results/selected.csv", SELECTED)).unwrap();
    let tst = read_tests(&write(dir.path(), "results/tests.csv", TESTS)).unwrap();
    write(
        dir.path(),
        "specs/reported/r.csv",
        "dataset,method,epsilon,value,best,second,significant\nABA,DT,,5.1,,,\nABA,LPDT-M,1,2.0,,,\nHOU,PHIST,2,81,,,\nABA,DECONV,2,1e7,,,\n",
    );
    let spec_yaml = r#"
reported:
  files: [reported/r.csv]
  tolerance: {relative: 0.05}
  known_deviations:
    - {methods: [LPDT-M], epsilons: [0.5, 1], band: {ratio: [0.001, 1000]}, tested_by: [t.yaml], reason: "docs/methods/lpdt.md §12 item 2"}
claims:
  - {claim: better, method: LPDT-M, than: PHIST, epsilon: 6, at_least: all}
"#;
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Part {
        reported: ReportedSpec,
        claims: Vec<Claim>,
    }
    let part: Part = serde_yaml::from_str(spec_yaml).unwrap();
    let cells = compare_reported(
        &part.reported,
        &dir.path().join("specs"),
        &sel,
        &abbreviations(),
    )
    .unwrap();
    let verdicts: Vec<&str> = cells.iter().map(|c| c.verdict.name()).collect();
    assert_eq!(verdicts, ["ok", "known deviation", "ok", "not run"]);
    let claims = evaluate_claims(&part.claims, &sel, &tst, &[], true);
    let report = CheckReport {
        cells,
        claims,
        golden: None,
        epsilon_matches: Vec::new(),
        rank_sums: Vec::new(),
        audit: None,
        budgets: Vec::new(),
        provisional: None,
        readings: Vec::new(),
        suspects: Vec::new(),
        anchors: Vec::new(),
        golden_left_out: false,
        epsilon_orders: Vec::new(),
    };
    assert!(!report.regressed());
    let (md, _) = render_check(&report, "e2e").unwrap();
    assert!(md.contains("Result: **PASS**"), "{md}");
}

#[test]
fn level_claims_compare_the_range_of_means_with_the_largest_standard_error() {
    let r = eval(
        r#"
- claim: level            # PHIST ε 2 / 6: abalone 12 / 11 (SE 1), housing 80 / 85 (SE 5)
  methods: [PHIST]
  epsilons: [2, 6]
  at_least: all
- claim: level            # half a standard error: both ranges too wide
  methods: [PHIST]
  epsilons: [2, 6]
  within: 0.5
  at_least: 1
- claim: level            # only abalone counts
  id: abalone-only
  methods: [PHIST]
  epsilons: [2, 6]
  datasets: [abalone]
  at_least: all
- claim: level            # DT's one row stands for ε 6: abalone 5 vs 8, SE max(0.5, 1)
  methods: [DT, LPDT-M]
  epsilons: [6]
  datasets: [abalone]
  at_least: all
"#,
    );
    assert_eq!(counts(&r[0]), (true, 2, 2, 2));
    assert!(
        r[0].details
            .contains("not defined on concrete (no row of PHIST at ε = 2)"),
        "{}",
        r[0].details
    );
    assert_eq!(counts(&r[1]), (false, 0, 2, 1));
    assert!(
        r[1].details
            .contains("housing (range 5.00e+0 > 0.5 × SE 5.00e+0"),
        "{}",
        r[1].details
    );
    assert_eq!(counts(&r[2]), (true, 1, 1, 1));
    assert_eq!(counts(&r[3]), (false, 0, 1, 1));
    assert!(
        r[3].details.contains("range 3.00e+0 > 1 × SE 1.00e+0"),
        "{}",
        r[3].details
    );
    // A single cell is refused, as is a negative `within`.
    for bad in [
        "- {claim: level, methods: [DT], epsilons: [2], at_least: all}",
        "- {claim: level, methods: [DT, PHIST], epsilons: [2], within: -1, at_least: all}",
    ] {
        let claims: Vec<Claim> = serde_yaml::from_str(bad).unwrap();
        assert!(validate_claims(&claims).is_err(), "{bad}");
    }
}

#[test]
fn better_on_curve_claims_read_our_figure_points() {
    let dir = tempfile::tempdir().unwrap();
    // Lower is better. Line A beats B at x = 1 and 2 and loses at x = 3 (ε 8); at ε 1 A
    // loses everywhere; the paper's overlay points (A far worse) are not ours.
    write(
        dir.path(),
        "figures/f-abalone.csv",
        "figure,dataset,x,line,method,epsilon,mean,lo,hi,reps,params,source
f,abalone,1,A,A,8,1.0,,,4,depth=1,ours
f,abalone,2,A,A,8,2.0,,,4,depth=1,ours
f,abalone,3,A,A,8,3.5,,,4,depth=1,ours
f,abalone,1,B,B,8,1.5,,,4,depth=1,ours
f,abalone,2,B,B,8,2.5,,,4,depth=1,ours
f,abalone,3,B,B,8,3.0,,,4,depth=1,ours
f,abalone,1,A,A,1,9.0,,,4,depth=1,ours
f,abalone,1,B,B,1,5.0,,,4,depth=1,ours
f,abalone,2,A,A,8,99,,,,fig.png,paper
",
    );
    let curves = read_curve_points(&dir.path().join("figures")).unwrap();
    assert_eq!(curves.len(), 8);
    let c = claims_yaml(
        r#"
- {claim: better_on_curve, figure: f, method: A, than: [B], epsilon: 8, at_least: all}
- {claim: better_on_curve, figure: f, method: A, than: [B], epsilon: 8, x_max: 2, at_least: all}
- {claim: better_on_curve, figure: f, method: A, than: [B], at_least: all}
- {claim: better_on_curve, figure: g, method: A, than: [B], at_least: all}
"#,
    );
    let r = evaluate_claims(&c, &selected(), &tests(), &curves, true);
    assert_eq!(counts(&r[0]), (false, 0, 1, 1));
    assert!(
        r[0].details.contains("x = 3 ε 8: A 3.50e+0 vs B 3.00e+0"),
        "{}",
        r[0].details
    );
    assert_eq!(counts(&r[1]), (true, 1, 1, 1));
    assert!(
        r[2].details.contains("x = 1 ε 1: A 9.00e+0 vs B 5.00e+0"),
        "{}",
        r[2].details
    );
    assert!(!r[2].holds);
    // No figure g: defined nowhere, so it does not hold.
    assert_eq!(counts(&r[3]), (false, 0, 0, 0));
    assert!(
        r[1].description
            .starts_with("f: A better than B at ε = 8 at every x ≤ 2"),
        "{}",
        r[1].description
    );
}

fn design_row(dataset: &str, mean: f64, std: f64) -> SelectedRow {
    SelectedRow {
        dataset: dataset.into(),
        method: "LPCT".into(),
        epsilon: Some(1.0),
        mean,
        std,
        median: mean,
        reps: 100,
        params: String::new(),
    }
}

/// `trend_across_datasets` (LPCT Fig. 4(c): accuracy falls as the drift γ grows): one
/// verdict over the ordered data sets; a step back counts only beyond `slack` standard
/// errors of the step, and the last must be past the first.
#[test]
fn trend_across_datasets_claims() {
    let claim = |extra: &str| {
        claims_yaml(&format!(
            "- claim: trend_across_datasets\n  method: LPCT\n  datasets: [g1, g2, g3]\n  epsilon: 1\n  direction: worse\n{extra}"
        ))
    };
    // Accuracy (higher is better): std 0.03 over 100 repetitions, SE 0.003 per mean,
    // 0.0042 per step; 2 SE of a step is 0.0085.
    let eval_rows = |c: &[Claim], means: [f64; 3]| {
        let rows: Vec<SelectedRow> = ["g1", "g2", "g3"]
            .iter()
            .zip(means)
            .map(|(d, m)| design_row(d, m, 0.03))
            .collect();
        evaluate_claims(c, &rows, &[], &[], false).remove(0)
    };
    let c = claim("");
    assert!(eval_rows(&c, [0.66, 0.65, 0.64]).holds);
    // A rise of 0.004 (under 2 SE of the step) is noise; one of 0.02 is a step back.
    assert!(eval_rows(&c, [0.66, 0.65, 0.654]).holds);
    let r = eval_rows(&c, [0.66, 0.63, 0.65]);
    assert!(!r.holds);
    assert!(r.details.contains("steps back: g2 → g3"), "{}", r.details);
    // Level within the noise everywhere, but the last is not below the first: fails.
    let r = eval_rows(&c, [0.66, 0.662, 0.661]);
    assert!(
        !r.holds && r.details.contains("the last is not past the first"),
        "{}",
        r.details
    );
    // With slack 0 even the small rise is a step back; `direction: better` mirrors.
    assert!(!eval_rows(&claim("  slack: 0\n"), [0.66, 0.65, 0.654]).holds);
    let better = claims_yaml("- claim: trend_across_datasets\n  method: LPCT\n  datasets: [g1, g2, g3]\n  epsilon: 1\n  direction: better\n");
    assert!(eval_rows(&better, [0.64, 0.65, 0.66]).holds);
    assert!(!eval_rows(&better, [0.66, 0.65, 0.64]).holds);
    // A data set without a row: undefined, so the claim does not hold.
    let rows = vec![design_row("g1", 0.66, 0.03), design_row("g3", 0.64, 0.03)];
    let r = evaluate_claims(&c, &rows, &[], &[], false).remove(0);
    assert!(
        !r.holds && r.details.contains("no row of LPCT on g2"),
        "{}",
        r.details
    );
    // One data set is no trend; a negative slack is no slack.
    let bad: Vec<Claim> = serde_yaml::from_str(
        "- {claim: trend_across_datasets, method: LPCT, datasets: [g1], direction: worse}\n- {claim: trend_across_datasets, method: LPCT, datasets: [g1, g2], direction: worse, slack: -1}\n",
    )
    .unwrap();
    let e = validate_claims(&bad[..1]).unwrap_err().to_string();
    assert!(e.contains("datasets"), "{e}");
    let e = validate_claims(&bad[1..]).unwrap_err().to_string();
    assert!(e.contains("slack"), "{e}");
}

/// check.md prints, where the reported cells are, ε per fit and ε with tuning of every
/// private method of every table, and where they come from; LaTeX the same table.
#[test]
fn render_prints_each_tables_budget_per_fit_and_with_tuning() {
    use dp_repro::check::budget::TableBudget;
    use dp_repro::spec::raw::Selection;
    let budget = |method: &str, with_tuning: f64, from_ledger: bool| TableBudget {
        table: "table2".into(),
        selection: Selection::BestMean,
        method: method.into(),
        epsilon: 2.0,
        per_fit: 2.0000000036,
        with_tuning,
        from_ledger,
    };
    let r = CheckReport {
        budgets: vec![
            budget("LPDT-M", 264.0000001, true),
            budget("PHIST", 8.0, false),
        ],
        ..CheckReport::default()
    };
    let (md, tex) = render_check(&r, "budget").unwrap();
    assert!(md.contains("## Privacy budget of the tables"), "{md}");
    assert!(
        md.contains("| table2 | best\\_mean | LPDT-M | 2 | 2.000 | 264.0 | 132.0 | ledger |"),
        "{md}"
    );
    assert!(
        md.contains("| table2 | best\\_mean | PHIST | 2 | 2.000 | 8.000 | 4.000 | grid |"),
        "{md}"
    );
    assert!(tex.contains("Privacy budget of the tables"), "{tex}");
    assert!(tex.contains("LPDT-M & 2 & 2.000 & 264.0"), "{tex}");
    // Without tables, no section.
    let (md, _) = render_check(&CheckReport::default(), "none").unwrap();
    assert!(!md.contains("Privacy budget"), "{md}");
}

#[test]
fn the_headline_says_in_plain_words_what_a_pass_carries() {
    use dp_repro::check::audit::{AuditCheck, AuditViolation};
    let mut r = sample_report();
    r.cells.retain(|c| c.verdict != Verdict::Regression);
    r.golden = None;
    r.cells[1].verdict = Verdict::KnownDeviation("unexplained: ours higher at ε 0.5".into());
    let known = |what: &str| AuditViolation {
        method: "LPDT-M".into(),
        part: "tuning_over_budget".into(),
        what: what.into(),
        claimed: 0.5,
        audited: 66.0,
        known: Some("the paper's oracle selection over 132 configurations".into()),
        unexplained: None,
    };
    r.audit = Some(AuditCheck {
        parts: 3,
        fits: 10,
        violations: vec![known("abalone ε 0.5"), known("abalone ε 2")],
        not_audited: Vec::new(),
        known_not_found: Vec::new(),
    });
    assert!(!r.regressed());
    let (md, tex) = render_check(&r, "t").unwrap();
    let headline = md
        .lines()
        .find(|l| l.starts_with("Result: "))
        .expect("a result line");
    for words in [
        "Result: **PASS**: nothing regressed.",
        "does not say that our numbers equal the paper's",
        "2 cells differ from the paper by more than the tolerance but stay inside the band measured for them, 1 of them with no explanation yet",
        "([the deviations and their reasons](#known-deviations))",
        "passes with 2 known violations",
        "([the known violations](#privacy-audit))",
    ] {
        assert!(headline.contains(words), "{words:?} not in {headline}");
    }
    // The links lead somewhere: GitHub's anchors of the two headings.
    assert!(md.contains("\n### Known deviations\n"), "{md}");
    assert!(md.contains("\n## Privacy audit\n"), "{md}");
    assert!(
        md.contains("- LPDT-M · tuning\\_over\\_budget (2 rows, up to 132.000 x the claim): the paper's oracle selection over 132 configurations"),
        "{md}"
    );
    // LaTeX says where the lists are in words, with no Markdown link syntax.
    assert!(
        tex.contains("the deviations and their reasons, below"),
        "{tex}"
    );
    assert!(!tex.contains("](#"), "{tex}");
    // Without deviations or violations there is nothing to explain.
    r.cells.retain(|c| c.verdict == Verdict::Ok);
    r.audit = None;
    let (md, _) = render_check(&r, "t").unwrap();
    let headline = md.lines().find(|l| l.starts_with("Result: ")).unwrap();
    assert_eq!(headline, "Result: **PASS**: nothing regressed.");
    // A regression says so first.
    let (md, _) = render_check(&sample_report(), "t").unwrap();
    assert!(
        md.contains("Result: **REGRESSION**: something regressed."),
        "{md}"
    );
}
