//! A central-DP baseline composed in YAML (DiPriMe with PF medians
//! and uniform attribute choice) runs end to end through the CLI; the forest presets give
//! the same results for `--jobs 1` and `--jobs 2`; DP-ERT's soft accuracy is scored
//! through the method's scoring hook; validation refuses a composition that mixes the
//! central-DP `forest` block with local-DP blocks and names the field. In-repo synthetic
//! data only.

mod common;

use assert_cmd::Command;
use std::fs;
use std::path::Path;

/// The two data sets, one spec each (a spec holds one task): regression and classification.
const DATASETS: [&str; 2] = [
    "{name: sine, synthetic: lpdt_sine, sizes: {public: 0, private: 600, test: 150}}",
    "{name: drift, synthetic: {lpct_drift: {gamma: 0.5}}, sizes: {public: 0, private: 600, test: 150}}",
];

/// The spec, after its data set line.
const SPEC: &str = "label_bounds: {fixed: {lo: -4, hi: 4}}\nepsilons: [1, 8]\nmethods:\n  - label: DiPriMe-PF-uniform\n    compose:\n      forest: {median: permute_flip, attribute: uniform, tree_rows: disjoint}\n    params: {k: 1, trees: 4, occupancy: 10}\n  - {method: DiPriMe, params: {trees: 4, occupancy: 10}}\n  - {method: DiPriMeExp, params: {trees: 4, occupancy: 10, k: all}}\n  - {method: DiPriMeFlip, params: {trees: 4, depth: 3}, grid: {mode: [reference_quirks, paper]}}\n  - {method: Median, params: {trees: 3}}\n  - {method: DP-ERT, params: {trees: 4}, grid: {accuracy: [soft, hard]}}\n";

fn run(spec: &Path, out: &Path, jobs: &str) -> std::process::Output {
    Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(common::root())
        .args(["run", spec.to_str().unwrap(), "--quiet", "--jobs", jobs])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap()
}

/// runs.csv rows without the wall-clock `seconds` column, sorted.
fn rows(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_to_string(dir.join("runs.csv"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn composed_central_baseline_runs_and_results_do_not_depend_on_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut one = Vec::new();
    let mut text = String::new();
    for (i, dataset) in DATASETS.iter().enumerate() {
        let spec = tmp.path().join(format!("forest-cli-{i}.yaml"));
        let head =
            format!("name: forest-cli-{i}\nseed: 5\nrepetitions: 2\ndatasets:\n  - {dataset}\n");
        fs::write(&spec, head + SPEC).unwrap();
        let (a, b) = (
            tmp.path().join(format!("j1-{i}")),
            tmp.path().join(format!("j2-{i}")),
        );
        for (out, jobs) in [(&a, "1"), (&b, "2")] {
            let o = run(&spec, out, jobs);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        assert_eq!(
            rows(&a),
            rows(&b),
            "runs.csv differs between --jobs 1 and --jobs 2"
        );
        for f in ["summary.csv", "selected.csv"] {
            assert_eq!(
                fs::read(a.join(f)).unwrap(),
                fs::read(b.join(f)).unwrap(),
                "{f} differs"
            );
        }
        one.extend(rows(&a));
        // Both files' rows under one header, for the value checks below.
        let file = fs::read_to_string(a.join("runs.csv")).unwrap();
        let body = if text.is_empty() {
            file.as_str()
        } else {
            file.split_once('\n').unwrap().1
        };
        text.push_str(body);
    }
    for label in [
        ",DiPriMe-PF-uniform,",
        ",DiPriMe,",
        ",DiPriMeExp,",
        ",DiPriMeFlip,",
        ",Median,",
        ",DP-ERT,",
    ] {
        for ds in [",sine,", ",drift,"] {
            assert!(
                one.iter().any(|r| r.contains(label) && r.contains(ds)),
                "no {label} row on {ds}"
            );
        }
    }
    // Values: finite MSEs, accuracies in [0, 1]; the reference and paper modes are both
    // present; soft and hard DP-ERT accuracies differ (soft scores the unthresholded mean).
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (method, params, metric, value, dataset) = (
        col("method"),
        col("params"),
        col("metric"),
        col("value"),
        col("dataset"),
    );
    let mut soft = Vec::new();
    let mut hard = Vec::new();
    let mut modes = std::collections::BTreeSet::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let v: f64 = rec[value].parse().unwrap();
        assert!(v.is_finite());
        if &rec[metric] == "accuracy" {
            assert!((0.0..=1.0).contains(&v), "{rec:?}");
        }
        if &rec[method] == "DiPriMeFlip" {
            modes.insert(
                rec[params]
                    .split("mode=")
                    .nth(1)
                    .unwrap()
                    .split(';')
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
        if &rec[method] == "DP-ERT" && &rec[dataset] == "drift" {
            if rec[params].contains("accuracy=soft") {
                soft.push(v);
            } else {
                hard.push(v);
            }
        }
    }
    assert_eq!(
        modes.into_iter().collect::<Vec<_>>(),
        ["paper", "reference_quirks"]
    );
    assert_eq!(soft.len(), hard.len());
    assert!(!soft.is_empty());
    assert!(
        soft.iter().zip(&hard).any(|(s, h)| s != h),
        "soft {soft:?} hard {hard:?}"
    );
}

fn refused(compose: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("bad.yaml");
    let text = format!("name: bad\nseed: 1\nrepetitions: 1\ndatasets:\n  - {{name: s, synthetic: lpdt_sine, sizes: {{public: 0, private: 100, test: 20}}}}\nepsilons: [1]\nmethods:\n  - label: X\n    compose: {compose}\n");
    fs::write(&spec, text).unwrap();
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--quiet",
            "--out",
            tmp.path().join("o").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn validation_refuses_forest_mixed_with_local_blocks() {
    let e = refused("{forest: {median: exponential, attribute: uniform}, partition: {rule: max_edge, grown_on: public}}");
    assert!(e.contains("`partition` is a local-DP block"), "{e}");
    assert!(e.contains("methods"), "names the spec field: {e}");
    let e = refused("{forest: {median: exponential, attribute: uniform}, cell_mechanism: laplace}");
    assert!(e.contains("`cell_mechanism`"), "{e}");
    let e = refused("{forest: {median: exponential, attribute: argmin}}");
    assert!(e.contains("not private"), "{e}");
}
