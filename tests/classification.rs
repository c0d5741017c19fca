//! Classification end to end: the non-private trees CT-W and
//! CT-Q (LPCT §7.1) as compositions with `estimator: leaf_majority`, accuracy as the metric.

mod common;

use assert_cmd::Command;
use std::fs;
use std::path::Path;

fn run(dir: &Path, spec: &str) -> (i32, String) {
    let p = dir.join("spec.yaml");
    fs::write(&p, spec).unwrap();
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(dir)
        .envs(common::no_user_data())
        .args(["run", "spec.yaml", "--quiet", "--out", "out"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A toy file: x on a grid of [0, 1), class 1 where x > 0.5 (so a depth-1 tree is exact),
/// and a noise feature.
fn toy(dir: &Path, classes: usize) {
    let mut csv = String::new();
    for i in 0..200 {
        let x = i as f64 / 200.0;
        let class = if classes == 2 {
            usize::from(x > 0.5)
        } else {
            i % classes
        };
        csv.push_str(&format!("{class},{x},{}\n", (i * 37 % 101) as f64 / 101.0));
    }
    fs::write(dir.join("toy.csv"), csv).unwrap();
}

const SPEC: &str = "name: cls\nseed: 3\nrepetitions: 3\ndatasets:\n  - {name: toy, path: toy.csv, label_column: 0, task: classification}\nsplit: {public: 0.3, private: 0.5, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: CT-W\n    grid: {max_depth: [1, 2]}\n  - method: CT-Q\n    grid: {max_depth: [1]}\ntables:\n  - {name: t, caption: accuracy, epsilons: [], methods: [], non_private: [CT-W, CT-Q]}\n";

#[test]
fn classification_trees_score_accuracy_and_a_separable_problem_is_solved() {
    let dir = tempfile::tempdir().unwrap();
    toy(dir.path(), 2);
    let (code, err) = run(dir.path(), SPEC);
    assert_eq!(code, 0, "{err}");
    let summary = fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    let runs = fs::read_to_string(dir.path().join("out/runs.csv")).unwrap();
    assert!(
        runs.lines().skip(1).all(|l| l.contains(",accuracy,")),
        "{runs}"
    );
    // One split at x = 0.5 separates the classes: every depth-1 fit is exact, on private
    // (CT-W) or public (CT-Q) data alike. (A test point between the two training points
    // around 0.5 could fall on the wrong side; the grid steps are 1/200, and the
    // threshold is the midpoint, so only x = 0.5 itself could, and it is class 0.)
    for method in ["CT-W", "CT-Q"] {
        let line = summary
            .lines()
            .find(|l| l.starts_with(&format!("toy,{method},")) && l.contains("max_depth=1"))
            .unwrap_or_else(|| panic!("{method}: {summary}"));
        let mean: f64 = line.split(',').nth(4).unwrap().parse().unwrap();
        assert!(mean > 0.98, "{method}: {line}");
    }
    let md = fs::read_to_string(dir.path().join("out/table-t.md")).unwrap();
    assert!(md.contains("accuracy"), "{md}");
}

#[test]
fn more_than_two_classes_are_refused_until_a_gini_splitter_exists() {
    let dir = tempfile::tempdir().unwrap();
    toy(dir.path(), 3);
    let (code, err) = run(dir.path(), SPEC);
    assert_ne!(code, 0);
    assert!(
        err.contains("0/1 labels") && err.contains("class 2"),
        "{err}"
    );
}

#[test]
fn a_regression_method_on_a_classification_data_set_is_a_spec_error() {
    let dir = tempfile::tempdir().unwrap();
    toy(dir.path(), 2);
    let (code, err) = run(dir.path(), &SPEC.replace("method: CT-Q", "method: DT"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("DT does not support the Classification task"),
        "{err}"
    );
}
