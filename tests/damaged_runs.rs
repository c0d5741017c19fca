//! Verdicts a damaged run cannot fool: a private method's cell whose
//! repetitions were all copied from one (standard deviation 0) is a regression, not a
//! cell checked with a standard error of 0.

mod common;

use std::path::Path;

fn check(dir: &Path) -> (i32, String) {
    let (spec, out) = (dir.join("s.yaml"), dir.join("out"));
    let (code, stdout, err) = common::into_folder(dir, "check", &spec, &out, &[]);
    (code, format!("{stdout}{err}"))
}

#[test]
fn repetitions_copied_from_one_are_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    // The paper's value is set far from anything, with a tolerance wide enough that the
    // faithful run is ok: only the copied repetitions can turn the cell.
    std::fs::write(
        tmp.path().join("r.csv"),
        "dataset,method,epsilon,value\nsine,LPDT-M,1,1.5\n",
    )
    .unwrap();
    let text = "name: damaged\nseed: 3\nrepetitions: 4\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}\nepsilons: [1]\nmethods:\n  - {method: LPDT-M, params: {depth: 2, min_leaf: 5, rho: 0.5}}\nreported: {files: [r.csv], dataset_names: name, tolerance: {relative: 100}}\n";
    std::fs::write(tmp.path().join("s.yaml"), text).unwrap();
    let (code, text) = check(tmp.path());
    assert_eq!(code, 0, "{text}");
    // Copy repetition 1's value into every repetition of runs.csv.
    let runs = tmp.path().join("out/runs.csv");
    let csv = std::fs::read_to_string(&runs).unwrap();
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let (rep, value) = (
        header.iter().position(|c| *c == "repetition").unwrap(),
        header.iter().position(|c| *c == "value").unwrap(),
    );
    let first = lines[1..]
        .iter()
        .find(|l| l.split(',').nth(rep) == Some("1"))
        .unwrap()
        .split(',')
        .nth(value)
        .unwrap()
        .to_string();
    for l in lines.iter_mut().skip(1) {
        let mut f: Vec<String> = l.split(',').map(str::to_string).collect();
        f[value] = first.clone();
        *l = f.join(",");
    }
    std::fs::write(&runs, lines.join("\n") + "\n").unwrap();
    let (code, text) = check(tmp.path());
    assert_eq!(code, 1, "{text}");
    let check_csv = std::fs::read_to_string(tmp.path().join("out/check.csv")).unwrap();
    assert!(check_csv.contains("regression"), "{check_csv}");
    assert!(check_csv.contains("standard deviation 0"), "{check_csv}");
}

/// A folder run with `--reps 2` of a 4-repetition spec, one row damaged: the repair hint
/// carries `--reps 2`, and following it recomputes the row without extending the folder
/// to 4 repetitions.
#[test]
fn the_repair_hint_keeps_the_folders_repetition_count() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name: reps\nseed: 5\nrepetitions: 4\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 20, private: 60, test: 20}}\nepsilons: [1]\nmethods:\n  - {method: DT, params: {max_depth: 2}}\n";
    let spec = tmp.path().join("s.yaml");
    std::fs::write(&spec, text).unwrap();
    let out = tmp.path().join("out");
    let (code, _, err) = common::into_folder(tmp.path(), "run", &spec, &out, &["--reps", "2"]);
    assert_eq!(code, 0, "{err}");
    let runs = out.join("runs.csv");
    let whole = std::fs::read_to_string(&runs).unwrap();
    let rows = whole.lines().count();
    let mut lines: Vec<&str> = whole.lines().collect();
    let cut = lines[1][..20].to_string();
    lines[1] = &cut;
    std::fs::write(&runs, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = common::dp_repro_in(tmp.path(), &["table", out.to_str().unwrap()]);
    assert_ne!(code, 0, "{err}");
    let start = err.find("`dp-repro run ").expect("a repair hint") + 1;
    let hint = &err[start..start + err[start..].find('`').unwrap()];
    assert!(hint.contains("--reps 2"), "{hint}");
    let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
    let (code, _, err) = common::dp_repro_in(tmp.path(), &args);
    assert_eq!(code, 0, "{hint}: {err}");
    assert_eq!(
        std::fs::read_to_string(&runs).unwrap().lines().count(),
        rows,
        "the folder grew"
    );
}

/// The paper layer and the golden file are judged apart: a golden file that disagrees
/// turns the golden verdict red and the paper verdict stays green; `--no-golden` leaves
/// the golden out of the exit code and says so.
#[test]
fn the_golden_verdict_stands_apart_and_can_be_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("r.csv"),
        "dataset,method,epsilon,value\nsine,LPDT-M,1,1.5\n",
    )
    .unwrap();
    let text = "name: apart\nseed: 3\nrepetitions: 4\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}\nepsilons: [1]\nmethods:\n  - {method: LPDT-M, params: {depth: 2, min_leaf: 5, rho: 0.5}}\nreported: {files: [r.csv], dataset_names: name, tolerance: {relative: 100}}\ngolden: {file: g.csv}\n";
    std::fs::write(tmp.path().join("s.yaml"), text).unwrap();
    let (spec, out) = (tmp.path().join("s.yaml"), tmp.path().join("out"));
    // No golden file yet: refused before anything runs, unless it is left out.
    let (code, _, err) = common::into_folder(tmp.path(), "check", &spec, &out, &[]);
    assert_eq!(code, 2, "{err}");
    let (code, stdout, err) =
        common::into_folder(tmp.path(), "check", &spec, &out, &["--no-golden"]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("paper PASS; golden left out"), "{stdout}");
    // A golden file whose numbers differ: golden red, paper green, exit 1.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut lines: Vec<String> = summary.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let mean = header.iter().position(|c| *c == "mean").unwrap();
    let mut f: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    f[mean] = format!("{}", f[mean].parse::<f64>().unwrap() * 1.01);
    lines[1] = f.join(",");
    std::fs::write(tmp.path().join("g.csv"), lines.join("\n") + "\n").unwrap();
    let (code, stdout, err) = common::into_folder(tmp.path(), "check", &spec, &out, &[]);
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(stdout.contains("paper PASS; golden REGRESSION"), "{stdout}");
    let (code, stdout, err) =
        common::into_folder(tmp.path(), "check", &spec, &out, &["--no-golden"]);
    assert_eq!(code, 0, "{stdout}{err}");
}

/// `golden: {rows: selected}` blesses and compares the tables' rows (`selected.csv`), so a
/// full table spec's golden file stays small; a moved number of a table still turns it red.
#[test]
fn a_golden_file_of_selected_rows_sees_a_table_number_move() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name: sel\nseed: 3\nrepetitions: 3\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}\nepsilons: [1]\nmethods:\n  - {method: DT, grid: {max_depth: [1, 2, 3]}}\ngolden: {file: g.csv, rows: selected}\n";
    std::fs::write(tmp.path().join("s.yaml"), text).unwrap();
    let (spec, out) = (tmp.path().join("s.yaml"), tmp.path().join("out"));
    let (code, stdout, err) = common::into_folder(tmp.path(), "check", &spec, &out, &["--bless"]);
    assert_eq!(code, 0, "{stdout}{err}");
    let golden = std::fs::read_to_string(tmp.path().join("g.csv")).unwrap();
    assert_eq!(
        golden,
        std::fs::read_to_string(out.join("selected.csv")).unwrap()
    );
    assert_eq!(golden.lines().count(), 2, "one selected row and the header");
    let (code, stdout, err) = common::into_folder(tmp.path(), "check", &spec, &out, &[]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("golden PASS"), "{stdout}");
    let header: Vec<&str> = golden.lines().next().unwrap().split(',').collect();
    let mean = header.iter().position(|c| *c == "mean").unwrap();
    let mut row: Vec<String> = golden
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    row[mean] = format!("{}", row[mean].parse::<f64>().unwrap() * 1.001);
    std::fs::write(
        tmp.path().join("g.csv"),
        format!("{}\n{}\n", golden.lines().next().unwrap(), row.join(",")),
    )
    .unwrap();
    let (code, stdout, err) = common::into_folder(tmp.path(), "check", &spec, &out, &[]);
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(stdout.contains("golden REGRESSION"), "{stdout}");
}
