//! Missing values end to end: a NaN, inf, `NA` or empty cell in a data file is an error
//! (exit 2) naming file, line, column and `missing: drop_rows`; with `missing: drop_rows`
//! (inline data set or manifest) the run goes through and run.json counts the dropped rows.

mod common;

use assert_cmd::Command;
use std::fs;
use std::path::Path;

/// Runs the binary in `dir` (no data folder of its own) and returns (exit code, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(dir)
        .env_remove("DP_REPRO_DATA")
        .envs(common::no_user_data())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A 60-row regression file `y,a,b` (header) whose data line `bad_line` (1-based line
/// number in the file, ≥ 2) has `cell` in column 2 (`b`).
fn data(bad_line: usize, cell: &str) -> String {
    let mut s = String::from("y,a,b\n");
    for i in 0..60 {
        let line = i + 2;
        let b = if line == bad_line {
            cell.to_string()
        } else {
            format!("{}", (i * 7 % 13) as f64 / 13.0)
        };
        s.push_str(&format!("{},{},{b}\n", i % 5, i as f64 / 60.0));
    }
    s
}

fn spec(missing: &str) -> String {
    format!(
        "name: miss\nseed: 1\nrepetitions: 2\ndatasets:\n  - {{name: mine, path: mine.csv, label_column: 0, has_header: true, task: regression{missing}}}\nsplit: {{public: 0.2, private: 0.6, test: 0.2}}\nepsilons: [2]\nmethods:\n  - method: DT\n    grid: {{max_depth: [2]}}\n"
    )
}

fn run_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("out/run.json")).unwrap()).unwrap()
}

#[test]
fn a_nan_cell_is_an_error_naming_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("spec.yaml"), spec("")).unwrap();
    for (cell, what) in [
        ("NaN", "\"NaN\" is not a finite number"),
        ("inf", "\"inf\" is not a finite number"),
        ("NA", "\"NA\" marks a missing value"),
        ("", "empty cell"),
    ] {
        fs::write(tmp.path().join("mine.csv"), data(9, cell)).unwrap();
        let validate: &[&str] = &["validate", "spec.yaml"];
        let run_args: &[&str] = &["run", "spec.yaml", "--quiet", "--out", "out"];
        for args in [validate, run_args] {
            let (code, stderr) = run(tmp.path(), args);
            let cmd = args[0];
            assert_eq!(code, 2, "{cmd} {cell:?}: {stderr}");
            for part in [
                "mine.csv: line 9, column 2 (\"b\")",
                what,
                "missing: drop_rows",
            ] {
                assert!(stderr.contains(part), "{cmd} {cell:?}: {part}: {stderr}");
            }
        }
    }
    // Text that is not a missing value is not dropped either: it stays an error.
    fs::write(tmp.path().join("mine.csv"), data(5, "abc")).unwrap();
    fs::write(tmp.path().join("spec.yaml"), spec(", missing: drop_rows")).unwrap();
    let (code, stderr) = run(tmp.path(), &["validate", "spec.yaml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("line 5, column 2") && stderr.contains("\"abc\" is not a number"),
        "{stderr}"
    );
}

#[test]
fn drop_rows_runs_and_counts_the_dropped_rows_in_run_json() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = data(9, "NaN");
    text = text.replacen("\n3,", "\n,", 1); // an empty label on another line
    fs::write(tmp.path().join("mine.csv"), &text).unwrap();
    fs::write(tmp.path().join("spec.yaml"), spec(", missing: drop_rows")).unwrap();
    let (code, stderr) = run(tmp.path(), &["run", "spec.yaml", "--quiet", "--out", "out"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        run_json(tmp.path())["dropped_rows"],
        serde_json::json!({"mine": 2})
    );
    let runs = fs::read_to_string(tmp.path().join("out/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2, "one DT row per repetition");

    // `missing` belongs to file data sets only.
    let bad = "name: s\nseed: 1\nrepetitions: 1\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 10, private: 10, test: 10}, missing: drop_rows}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    fs::write(tmp.path().join("bad.yaml"), bad).unwrap();
    let (code, stderr) = run(tmp.path(), &["validate", "bad.yaml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("datasets[0].missing"), "{stderr}");
}

/// A manifest with `missing: drop_rows`: `n_rows` counts the rows of the file, dropped
/// ones included (it describes the file the sha256 pins); the run drops and counts them.
#[test]
fn a_manifest_with_drop_rows_counts_file_rows_and_reports_drops() {
    let tmp = tempfile::tempdir().unwrap();
    let (manifests, data_dir) = (tmp.path().join("manifests"), tmp.path().join("data"));
    fs::create_dir_all(&manifests).unwrap();
    fs::create_dir_all(&data_dir).unwrap();
    let text = data(20, "?").replacen("y,a,b\n", "", 1);
    fs::write(data_dir.join("holey.csv"), &text).unwrap();
    let sha = dp_repro::data::sha256_file(&data_dir.join("holey.csv")).unwrap();
    let manifest = |n_rows: usize, missing: &str| {
        format!("name: holey\nfile: holey.csv\ntask: regression\nlabel_column: 0\nhas_header: false\nsha256: {sha}\nn_rows: {n_rows}\nn_features: 2\n{missing}source: {{repository: a/b, commit: c, path: holey.csv}}\n")
    };
    let spec = "name: m\nseed: 1\nrepetitions: 1\ndatasets: [holey]\nsplit: {public: 0.2, private: 0.6, test: 0.2}\nepsilons: [2]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    fs::write(tmp.path().join("spec.yaml"), spec).unwrap();
    let args = |cmd: &'static str| {
        let mut a = vec![
            cmd,
            "spec.yaml",
            "--manifests",
            "manifests",
            "--data-dir",
            "data",
        ];
        if cmd == "run" {
            a.extend(["--quiet", "--out", "out"]);
        }
        a
    };

    // Default policy: an error naming the line (the marker is on line 19: no header).
    fs::write(manifests.join("holey.yaml"), manifest(60, "")).unwrap();
    let (code, stderr) = run(tmp.path(), &args("validate"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("line 19, column 2: \"?\" marks a missing value"),
        "{stderr}"
    );

    // n_rows is the file's row count; the complete-row count is a shape mismatch.
    fs::write(
        manifests.join("holey.yaml"),
        manifest(59, "missing: drop_rows\n"),
    )
    .unwrap();
    let (code, stderr) = run(tmp.path(), &args("validate"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("n_rows = 60") && stderr.contains("says 59"),
        "{stderr}"
    );

    fs::write(
        manifests.join("holey.yaml"),
        manifest(60, "missing: drop_rows\n"),
    )
    .unwrap();
    let (code, stderr) = run(tmp.path(), &args("run"));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        run_json(tmp.path())["dropped_rows"],
        serde_json::json!({"holey": 1})
    );
}
