//! `dp-repro bench` (the LPDT paper's Table 6 protocol: seconds of one fit + predict per
//! method) and the LPDT Table 7 spec. No test asserts a duration: only that times are
//! measured (positive, min ≤ median), that the timed fit is the run's own fit, and what
//! the files hold.

mod common;

use common::dp_repro;

use dp_repro::bench::{cases, GridSource, TIMING_HEADER};
use dp_repro::run::refit::read_selected;
use dp_repro::run::{load_datasets, read_runs};
use dp_repro::spec::{parse_file, validate};
use std::fs;
use std::path::{Path, PathBuf};

/// A synthetic spec (no data files): one non-private and two private methods, two ε.
const SPEC: &str = "\
name: bench-test
seed: 7
repetitions: 2
datasets:
  - name: sine
    synthetic: lpdt_sine
    sizes: {public: 200, private: 1000, test: 300}
epsilons: [1, 4]
methods:
  - method: DT
    grid: {max_depth: [3, 2]}
  - method: LPDT-M
    grid: {depth: [2, 3], min_leaf: [10], rho: [0.5]}
  - method: PHIST
    grid: {bins: [2], t: [0.01, 0.05]}
selection: best_mean
tables:
  - name: seconds
    value: seconds
    epsilons: [1, 4]
    non_private: [DT]
    methods: [LPDT-M, PHIST]
";

fn write_spec(dir: &Path) -> PathBuf {
    let p = dir.join("bench-test.yaml");
    fs::write(&p, SPEC).unwrap();
    p
}

/// timing.csv's rows as maps from column name to text.
fn timing_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().next(), Some(TIMING_HEADER));
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn bench_writes_one_row_per_method_and_epsilon_with_positive_times() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path());
    let out = tmp.path().join("bench");
    let o = dp_repro(&[
        "bench",
        spec.to_str().unwrap(),
        "--repeat",
        "3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = timing_rows(&out.join("timing.csv"));
    let got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["method"].clone(),
                r["epsilon"].clone(),
                r["params"].clone(),
            )
        })
        .collect();
    // The spec's first grid point of each method, DT once, the private methods per ε.
    let first_lpdt =
        "depth=2;min_leaf=10;min_samples_split=2;rho=0.5;simulation=fast;tau=0;ood=zero";
    let first_phist = "bins=2;t=0.01;y_center=false";
    let expected: Vec<(String, String, String)> = [
        ("DT", "", "max_depth=3"),
        ("LPDT-M", "1", first_lpdt),
        ("LPDT-M", "4", first_lpdt),
        ("PHIST", "1", first_phist),
        ("PHIST", "4", first_phist),
    ]
    .iter()
    .map(|(m, e, p)| (m.to_string(), e.to_string(), p.to_string()))
    .collect();
    assert_eq!(got, expected);
    for r in &rows {
        let median: f64 = r["median_seconds"].parse().unwrap();
        let min: f64 = r["min_seconds"].parse().unwrap();
        assert!(min > 0.0 && min <= median && median.is_finite(), "{r:?}");
        assert_eq!(r["repeats"], "3");
        assert_eq!(r["dataset"], "sine");
        assert_eq!(
            (
                r["n_train"].as_str(),
                r["n_public"].as_str(),
                r["n_test"].as_str()
            ),
            ("1000", "200", "300")
        );
    }
    // The spec's `value: seconds` table, rendered with one row for the data set.
    let md = fs::read_to_string(out.join("table-seconds.md")).unwrap();
    assert!(md.contains("Median wall-clock seconds"), "{md}");
    assert!(md.contains("over 3 timed repeats"), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| sine")).count(),
        1,
        "{md}"
    );
    assert!(out.join("table-seconds.tex").is_file());
}

#[test]
fn bench_times_the_selected_grid_points_and_the_timed_fit_is_the_runs_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path());
    let run_out = tmp.path().join("run");
    let o = dp_repro(&[
        "run",
        spec.to_str().unwrap(),
        "--quiet",
        "--out",
        run_out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The CLI times the grid points selected.csv names.
    let out = tmp.path().join("bench");
    let o = dp_repro(&[
        "bench",
        spec.to_str().unwrap(),
        "--results",
        run_out.to_str().unwrap(),
        "--repeat",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let selected = read_selected(&run_out.join("selected.csv")).unwrap();
    let rows = timing_rows(&out.join("timing.csv"));
    assert_eq!(rows.len(), 5);
    for r in &rows {
        let key = (
            r["dataset"].clone(),
            r["method"].clone(),
            r["epsilon"].clone(),
        );
        assert_eq!(r["params"], selected[&key].0, "{key:?}");
    }

    // Each timed fit draws what the run drew: its repetition-1 score is runs.csv's, bit
    // for bit.
    let (parsed, _) = parse_file(&spec).unwrap();
    let exp = validate(parsed, &spec, &[]).unwrap();
    let data = load_datasets(&exp, None).unwrap();
    let path = run_out.join("selected.csv");
    let grid = GridSource::Selected {
        index: &selected,
        path: &path,
    };
    let (timed, skipped) = cases(&exp, &data, grid).unwrap();
    assert!(skipped.is_empty());
    let runs = read_runs(&run_out.join("runs.csv")).unwrap();
    assert_eq!(timed.len(), 5);
    for case in &timed {
        let pred = case.fit_predict().unwrap().expect("the grid point applies");
        let row = runs
            .iter()
            .find(|r| {
                r.repetition == 1
                    && r.metric == "mse"
                    && r.method == case.method.label
                    && r.params == case.key()
                    && r.epsilon == case.epsilon
            })
            .expect("the run's row of the case");
        assert_eq!(
            case.score(&pred).to_bits(),
            row.value.to_bits(),
            "{} {}",
            case.method.label,
            case.key()
        );
    }
}

#[test]
fn bench_refuses_a_folder_without_selected_csv_and_zero_repeats() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path());
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let o = dp_repro(&[
        "bench",
        spec.to_str().unwrap(),
        "--results",
        empty.to_str().unwrap(),
        "--quiet",
        "--out",
        tmp.path().join("b").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("selected.csv"), "{err}");

    let o = dp_repro(&["bench", spec.to_str().unwrap(), "--repeat", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--repeat"));
}

#[test]
fn table7_spec_validates_and_runs_with_two_repetitions() {
    let Some(data) = common::real_data(&["abalone.csv", "cbm.csv", "whitewine.csv"]) else {
        return;
    };
    let data = data.to_str().unwrap();
    let o = dp_repro(&["validate", "specs/lpdt/table7.yaml", "--data-dir", data]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t7");
    let o = dp_repro(&[
        "run",
        "specs/lpdt/table7.yaml",
        "--reps",
        "2",
        "--quiet",
        "--data-dir",
        data,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = fs::read_to_string(out.join("table-table7.md")).unwrap();
    // One row per data set (paper abbreviations), the three non-private columns and LPDT
    // at ε = 6.
    let header = md.lines().find(|l| l.starts_with("| Data")).unwrap();
    for col in [
        "DT",
        "DT-pub",
        "DT-pub (max-edge)",
        "ε=6 LPDT-M",
        "ε=6 LPDT-V",
    ] {
        assert!(header.contains(&format!("| {col} |")), "{header}");
    }
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Data") && !l.starts_with("| :"))
        .count();
    assert_eq!(rows, 14, "{md}");
    assert!(!md.contains('—'), "every cell has a value: {md}");
}
