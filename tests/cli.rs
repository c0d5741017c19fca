//! End-to-end tests of the `dp-repro` command line: a real-data run and its table, thread
//! count independence, and every kind of bad input (exit code 2 and a message naming what
//! is wrong and where).

mod common;

use common::root;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn run(args: &[&str]) -> (i32, String, String) {
    common::run_bare(args)
}

fn write_spec(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

/// Parses a rendered Markdown table: row label → cells (text as printed).
fn markdown_rows(md: &str) -> BTreeMap<String, Vec<String>> {
    md.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Data") && !l.starts_with("| :"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .collect()
}

fn number(cell: &str) -> f64 {
    cell.replace("**", "")
        .replace('_', "")
        .replace("\\*", "")
        .parse()
        .unwrap()
}

#[test]
fn real_data_run_renders_a_table_with_consistent_marks() {
    let Some(data) = common::real_data(&["airfoil.csv", "concrete.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = run(&[
        "run",
        "tests/specs/small-real.yaml",
        "--quiet",
        "--data-dir",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let md = fs::read_to_string(out.join("table-small.md")).unwrap();
    assert!(
        stdout.contains(md.trim()),
        "the Markdown table is printed at the end of the run"
    );
    let tex = fs::read_to_string(out.join("table-small.tex")).unwrap();
    assert!(tex.contains("\\toprule") && tex.contains("$\\varepsilon = 8$"));
    let rows = markdown_rows(&md);
    assert_eq!(
        rows.keys().cloned().collect::<Vec<_>>(),
        vec!["AIR", "CON"],
        "rows use the paper's abbreviations"
    );

    // Significance p-values from tests.csv: (dataset, eps, method, other) → p.
    let mut p: BTreeMap<(String, String, String, String), f64> = BTreeMap::new();
    let tests = fs::read_to_string(out.join("tests.csv")).unwrap();
    for l in tests.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        if let Ok(v) = f[6].parse() {
            p.insert((f[0].into(), f[1].into(), f[2].into(), f[3].into()), v);
        }
    }
    let methods = ["LPDT-M", "LPDT-V", "PHIST"];
    for (label, name) in [("AIR", "airfoil"), ("CON", "concrete")] {
        let cells = &rows[label];
        assert_eq!(cells.len(), 1 + 2 * 3, "DT + 2 ε blocks × 3 methods");
        for (b, eps) in ["2", "8"].iter().enumerate() {
            let block = &cells[1 + 3 * b..4 + 3 * b];
            let values: Vec<f64> = block.iter().map(|c| number(c)).collect();
            let bold: Vec<usize> = (0..3).filter(|&i| block[i].starts_with("**")).collect();
            let under: Vec<usize> = (0..3).filter(|&i| block[i].starts_with('_')).collect();
            assert_eq!(bold.len(), 1, "{label} ε={eps}: one best");
            assert_eq!(under.len(), 1, "{label} ε={eps}: one second");
            let min = values.iter().cloned().fold(f64::INFINITY, f64::min);
            assert_eq!(
                values[bold[0]], min,
                "{label} ε={eps}: bold is the lowest MSE"
            );
            // Stars: the starred methods must each be significantly better than every
            // unstarred one (one-sided Wilcoxon, p < 0.05), and be the best ones.
            let starred: Vec<usize> = (0..3).filter(|&i| block[i].ends_with("\\*")).collect();
            for &s in &starred {
                for o in (0..3).filter(|o| !starred.contains(o)) {
                    let pv = p[&(
                        name.to_string(),
                        eps.to_string(),
                        methods[s].to_string(),
                        methods[o].to_string(),
                    )];
                    assert!(
                        pv < 0.05,
                        "{label} ε={eps}: {} starred but p = {pv} against {}",
                        methods[s],
                        methods[o]
                    );
                    assert!(values[s] <= values[o]);
                }
            }
        }
    }
    // selected.csv has the documented columns and one row per data set × method × ε.
    let selected = fs::read_to_string(out.join("selected.csv")).unwrap();
    assert!(selected.starts_with("dataset,method,epsilon,mean,std,median,reps,params\n"));
    assert_eq!(selected.lines().count(), 1 + 2 * (1 + 3 * 2));
    // `table` re-renders the same files from runs.csv.
    let before = fs::read(out.join("table-small.tex")).unwrap();
    fs::remove_file(out.join("table-small.tex")).unwrap();
    let (code, _, stderr) = run(&["table", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fs::read(out.join("table-small.tex")).unwrap(), before);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let out = tmp.path().join(format!("jobs{jobs}"));
        let (code, _, stderr) = run(&[
            "run",
            "specs/quickstart.yaml",
            "--quiet",
            "--reps",
            "3",
            "--jobs",
            jobs,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        outputs.push(out);
    }
    // runs.csv: same rows (order follows task completion; seconds are wall clock).
    let rows = |dir: &Path| {
        let mut v: Vec<String> = fs::read_to_string(dir.join("runs.csv"))
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(rows(&outputs[0]), rows(&outputs[1]));
    for f in [
        "summary.csv",
        "selected.csv",
        "tests.csv",
        "table-quickstart.md",
        "table-quickstart.tex",
    ] {
        assert_eq!(
            fs::read(outputs[0].join(f)).unwrap(),
            fs::read(outputs[1].join(f)).unwrap(),
            "{f} differs between --jobs 1 and --jobs 2"
        );
    }
}

const GOOD: &str = "name: t\nseed: 1\nrepetitions: 2\ndatasets:\n  - {name: s, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}\nepsilons: [1]\nmethods:\n  - method: LPDT-M\n    grid: {depth: [2], min_leaf: [5]}\n";

fn bad(spec_text: &str, args: &[&str], expect: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", spec_text);
    let mut a = vec!["validate", spec.to_str().unwrap()];
    a.extend_from_slice(args);
    let (code, _, stderr) = run(&a);
    assert_eq!(code, 2, "exit code for bad input; stderr: {stderr}");
    for e in expect {
        assert!(stderr.contains(e), "stderr should contain {e:?}: {stderr}");
    }
}

#[test]
fn a_good_spec_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", GOOD);
    let (code, stdout, stderr) = run(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ok"));
}

/// `validate --results DIR` scales the last run's wall time × threads by the spec's tasks
/// over the tasks that run computed; a folder without a run, or a run.json without its
/// finish, says how to measure instead of printing a number (seen red: the damaged record
/// gives no estimate).
#[test]
fn validate_estimates_the_cpu_time_from_a_measured_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", GOOD);
    let (_, stdout, _) = run(&["validate", spec.to_str().unwrap()]);
    let tasks: f64 = stdout
        .split(" tasks")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .expect("the task count");
    let folder = tmp.path().join("measured");
    let (code, stdout, _) = run(&[
        "validate",
        spec.to_str().unwrap(),
        "--results",
        folder.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("not measured yet") && stdout.contains("--reps 1"),
        "{stdout}"
    );
    // Before a measurement the only time is the CPU line's guess, named as a guess; the
    // estimate line gives memory and disk alone.
    assert!(
        stdout.contains("a guess at the pace of specs/ci.yaml is")
            && stdout.contains("several times longer per task"),
        "{stdout}"
    );
    let estimate = stdout
        .lines()
        .find(|l| l.starts_with("estimate: "))
        .expect("an estimate");
    assert!(
        estimate.ends_with("of runs.csv") && !estimate.contains("thread"),
        "{estimate}"
    );
    // One task in 6 s on 2 threads: 12 s of CPU per task, 12 s × the spec's tasks at most.
    fs::create_dir_all(&folder).unwrap();
    let record = |finished: &str| {
        format!(
            r#"{{"started": "2026-11-29T10:00:00+00:00", "finished": "{finished}", "threads": 2, "tasks_computed": 1}}"#
        )
    };
    fs::write(folder.join("run.json"), record("2026-11-29T10:00:06+00:00")).unwrap();
    let (_, stdout, _) = run(&[
        "validate",
        spec.to_str().unwrap(),
        "--results",
        folder.to_str().unwrap(),
    ]);
    let want = format!("at most about {:.0} s", 12.0 * tasks);
    assert!(stdout.contains(&want), "{want}: {stdout}");
    // Seen red: a record that never finished gives no number.
    fs::write(folder.join("run.json"), record("not a time")).unwrap();
    let (_, stdout, _) = run(&[
        "validate",
        spec.to_str().unwrap(),
        "--results",
        folder.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("not measured (") && !stdout.contains("at most"),
        "{stdout}"
    );
}

#[test]
fn malformed_yaml_names_file_line_and_column() {
    bad(
        &GOOD.replace("epsilons: [1]", "epsilons: [1"),
        &[],
        &["spec.yaml:", ":"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", "name: t\nseed: [oops\n");
    let (code, _, stderr) = run(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("spec.yaml: line 2, column"), "{stderr}");
}

#[test]
fn unknown_names_list_the_valid_ones() {
    bad(
        &GOOD.replace("LPDT-M", "LPDT-X"),
        &[],
        &["unknown method 'LPDT-X'", "LPDT-M", "PHIST", "DT"],
    );
    bad(
        &GOOD.replace("min_leaf: [5]", "min_leaf: [5], min_leafs: [3]"),
        &[],
        &["min_leafs", "valid parameters", "depth, min_leaf"],
    );
    bad(
        &GOOD.replace(
            "  - {name: s, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}",
            "  - abalonee",
        ),
        &[],
        &["abalonee", "abalone", "whitewine"],
    );
    bad(
        &GOOD.replace("seed: 1", "seed: 1\nsead: 2"),
        &[],
        &["unknown field `sead`"],
    );
}

/// A method label or data set name with a comma, a quote or a line break would split its
/// column in every CSV output (found when a spec labelled a method "LPDT-M Laplace, raw
/// labels" and selected.csv got nine fields on that row): refused, naming the field.
#[test]
fn labels_that_would_break_the_csv_outputs_are_rejected() {
    bad(
        &GOOD.replace("grid: {depth", "label: \"LPDT-M, raw\"\n    grid: {depth"),
        &[],
        &["methods[0].label", "LPDT-M, raw", "','"],
    );
    bad(
        &GOOD.replace("{name: s, synthetic", "{name: 's\"1', synthetic"),
        &[],
        &["datasets[0].name", "'\"'"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "spec.yaml",
        &GOOD.replace("grid: {depth", "label: LPDT-M; raw\n    grid: {depth"),
    );
    let (code, _, stderr) = run(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn invalid_values_are_rejected() {
    bad(
        &GOOD.replace("epsilons: [1]", "epsilons: [1, 0]"),
        &[],
        &["epsilons[1]", "> 0"],
    );
    bad(
        &GOOD.replace("epsilons: [1]", "epsilons: [-2]"),
        &[],
        &["epsilons[0]"],
    );
    bad(
        &GOOD.replace("epsilons: [1]", "epsilons: []"),
        &[],
        &["epsilon grid is empty"],
    );
    bad(
        &GOOD.replace("depth: [2]", "depth: []"),
        &[],
        &["grid.depth", "empty"],
    );
    bad(
        &GOOD.replace("min_leaf: [5]", "min_leaf: [5], rho: [1.5]"),
        &[],
        &["rho", "1.5", "open interval"],
    );
    let file_spec = "name: t\nseed: 1\nrepetitions: 2\ndatasets: [airfoil]\nsplit: {public: 0.2, private: 0.7, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    bad(file_spec, &[], &["split", "sum to 1"]);
}

#[test]
fn public_label_bounds_without_public_rows_are_rejected() {
    let text = GOOD.replace("public: 50,", "public: 0,");
    bad(&text, &[], &["label_bounds", "no public rows", "fixed"]);
    let fixed = format!("{text}label_bounds: {{fixed: {{lo: -4, hi: 4}}}}\n");
    // With bounds given, LPDT-M still needs public rows to grow its partition on...
    bad(
        &fixed,
        &[],
        &["LPDT-M grows its partition on the public sample"],
    );
    // ...and a method that grows none (PHIST's regular grid) validates without them.
    let fixed = fixed.replace(
        "  - method: LPDT-M\n    grid: {depth: [2], min_leaf: [5]}\n",
        "  - method: PHIST\n    grid: {bins: [2], t: [0]}\n",
    );
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", &fixed);
    let (code, _, stderr) = run(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_split_leaving_a_part_empty_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("tiny.csv"), "1,0.1\n2,0.2\n3,0.3\n").unwrap();
    let spec = "name: t\nseed: 1\nrepetitions: 1\ndatasets:\n  - {name: tiny, path: tiny.csv, label_column: 0, task: regression}\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    let p = write_spec(tmp.path(), "spec.yaml", spec);
    let (code, _, stderr) = run(&[
        "run",
        p.to_str().unwrap(),
        "--quiet",
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("tiny") && stderr.contains("empty"),
        "{stderr}"
    );
}

#[test]
fn a_non_numeric_cell_names_file_row_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("bad.csv"), "1,0.1,2\n2,abc,3\n3,0.3,4\n").unwrap();
    let spec = "name: t\nseed: 1\nrepetitions: 1\ndatasets:\n  - {name: badcsv, path: bad.csv, label_column: 0, task: regression}\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    let p = write_spec(tmp.path(), "spec.yaml", spec);
    let (code, _, stderr) = run(&["validate", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.csv") && stderr.contains("abc") && stderr.contains('2'),
        "{stderr}"
    );
}

const AIRFOIL_SPEC: &str = "name: t\nseed: 1\nrepetitions: 1\ndatasets: [airfoil]\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";

/// `validate` with `--data-dir dir` fails with exit code 2 and names the airfoil file,
/// its expected sha256 and the DP_REPRO_DATA variable.
fn expect_airfoil_data_error(spec: &Path, dir: &Path) {
    let (code, _, stderr) = run(&[
        "validate",
        spec.to_str().unwrap(),
        "--data-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    for part in ["airfoil.csv", "5c94613ab05b41cc", "DP_REPRO_DATA"] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
}

#[test]
fn a_missing_data_file_names_path_checksum_and_env() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", AIRFOIL_SPEC);
    let empty = tmp.path().join("nodata");
    fs::create_dir(&empty).unwrap();
    expect_airfoil_data_error(&spec, &empty);
    // No --data-dir and no DP_REPRO_DATA: the (empty) per-user data folder is searched,
    // and the message says how to point elsewhere or fetch the file there.
    let (code, _, stderr) = run(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 2);
    let user_dir = common::no_user_data()[0].1.join("dp-repro");
    for part in [
        "DP_REPRO_DATA",
        "--data-dir",
        "dp-repro data fetch airfoil",
        &user_dir.join("airfoil.csv").display().to_string(),
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
}

#[test]
fn an_altered_data_file_fails_its_checksum() {
    let Some(data) = common::real_data(&["airfoil.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", AIRFOIL_SPEC);
    let dir = tmp.path().join("data");
    fs::create_dir(&dir).unwrap();
    let mut bytes = fs::read(data.join("airfoil.csv")).unwrap();
    bytes[10] = if bytes[10] == b'1' { b'2' } else { b'1' };
    fs::write(dir.join("airfoil.csv"), bytes).unwrap();
    expect_airfoil_data_error(&spec, &dir);
}

#[test]
fn list_shows_methods_and_datasets() {
    let (code, stdout, _) = run(&["list", "methods"]);
    assert_eq!(code, 0);
    for m in [
        "LPDT-M", "LPDT-V", "PHIST", "APHIST", "DT", "DT-pub", "min_leaf", "rho",
    ] {
        assert!(stdout.contains(m), "{m}");
    }
    let (code, stdout, _) = run(&["list", "datasets"]);
    assert_eq!(code, 0);
    let manifests = dp_repro::data::list_manifests(&[root().join("datasets")]).unwrap();
    assert_eq!(stdout.lines().count(), manifests.len(), "{stdout}");
    assert!(manifests.len() >= 14);
    for cmd in ["run", "table", "validate", "list"] {
        let (code, stdout, _) = run(&[cmd, "--help"]);
        assert_eq!(code, 0);
        assert!(stdout.contains("Usage"));
    }
}

// ------------------------------------------------ errors a new user understands

#[test]
fn a_tab_in_the_yaml_is_called_a_tab_with_one_position() {
    let (code, _, stderr) = run_validate(&GOOD.replace("    grid", "\tgrid"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("spec.yaml: line 9, column 1:"), "{stderr}");
    assert!(stderr.contains("tab character"), "{stderr}");
    assert_eq!(
        stderr.matches("line").count(),
        2,
        "one position, one mention of the line: {stderr}"
    );
    assert!(
        !stderr.contains("cannot start any token"),
        "no parser jargon: {stderr}"
    );
}

#[test]
fn bad_indentation_names_the_line_it_belongs_to() {
    let (code, _, stderr) = run_validate(&GOOD.replace("    grid", "      grid"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("spec.yaml: line 9, column"), "{stderr}");
    assert!(stderr.contains("indented more than line 8"), "{stderr}");
    assert_eq!(
        stderr.matches("column").count(),
        1,
        "the position once: {stderr}"
    );
}

#[test]
fn an_empty_spec_file_says_it_is_empty() {
    let (code, _, stderr) = run_validate("# only a comment\n\n");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("the file is empty"), "{stderr}");
    assert!(!stderr.contains("missing field"), "{stderr}");
}

#[test]
fn validate_catches_a_split_that_leaves_the_test_part_empty() {
    // From the manifest's row count alone (no data folder needed), before any folder exists.
    let spec = "name: t\nseed: 1\nrepetitions: 1\ndatasets: [fish]\nsplit: {public: 0.1, private: 0.8999, test: 0.0001}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    let (code, _, stderr) = run_validate(spec);
    assert_eq!(code, 2, "{stderr}");
    for part in [
        "field `split.test`",
        "fish",
        "n = 908",
        "smallest valid `split.test`",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
}

#[test]
fn an_out_that_is_a_file_exits_2_naming_the_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", GOOD);
    let file = tmp.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let (code, _, stderr) = run(&[
        "run",
        spec.to_str().unwrap(),
        "--quiet",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("output folder") && stderr.contains("not a folder"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "x",
        "the file is untouched"
    );
}

/// `validate` on a spec text: (exit code, stdout, stderr).
fn run_validate(text: &str) -> (i32, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "spec.yaml", text);
    run(&["validate", spec.to_str().unwrap()])
}
