//! A command line that guides: each bad input a user reported exits 2
//! with a message naming the place (file, line, field or flag) and the fix, and the
//! corrected input passes. No real data: synthetic data sets, or small files written here.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

fn run(args: &[&str]) -> (i32, String, String) {
    common::run_bare(args)
}

/// Asserts exit code 2 and that stderr holds every piece of `expect`; returns stderr.
fn red(args: &[&str], expect: &[&str]) -> String {
    let (code, _, stderr) = run(args);
    assert_eq!(code, 2, "exit code for bad input; stderr: {stderr}");
    for e in expect {
        assert!(stderr.contains(e), "stderr should contain {e:?}: {stderr}");
    }
    stderr
}

/// Asserts exit code 0; returns stdout.
fn green(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "{stderr}");
    stdout
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small synthetic spec (2 repetitions × 1 grid point × 2 ε of LPDT-M, and DT): runs in
/// well under a second.
const GOOD: &str = "name: guide
seed: 1
repetitions: 2
datasets:
  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}
epsilons: [1, 2]
methods:
  - method: DT
    grid: {max_depth: [1, 2]}
  - method: LPDT-M
    grid: {depth: [2], min_leaf: [5]}
tables:
  - name: t
    caption: a table
    epsilons: [1]
    methods: [LPDT-M]
";

/// Writes `text` as spec.yaml in a fresh folder; returns the folder and the spec path.
fn spec(text: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let p = write(tmp.path(), "spec.yaml", text);
    (tmp, p)
}

/// The corrected input validates.
fn validates(text: &str) {
    let (_tmp, p) = spec(text);
    assert!(green(&["validate", s(&p)]).contains("ok"));
}

/// Item 1: A billion repetitions: validate states the size and refuses it, run refuses it
/// before creating anything, --max-tasks raises the limit; a sane spec gets the estimate.
#[test]
fn too_many_tasks_are_refused_with_their_size_and_the_flag() {
    let bad = GOOD.replace("repetitions: 2", "repetitions: 1000000000");
    let (tmp, p) = spec(&bad);
    let expect = [
        "spec.yaml",
        "4,000,000,000 tasks",
        "`repetitions: 1000000000`",
        "more than the limit of 50,000,000 tasks",
        "of memory",
        "--max-tasks",
    ];
    red(&["validate", s(&p)], &expect);
    let out = tmp.path().join("out");
    red(&["run", s(&p), "--out", s(&out), "--quiet"], &expect);
    assert!(!out.exists(), "nothing is created for a refused run");
    // Raising the limit: validate says ok, with the estimate.
    let stdout = green(&["validate", s(&p), "--max-tasks", "20000000000"]);
    assert!(
        stdout.contains("4,000,000,000 tasks") && stdout.contains("estimate: about"),
        "{stdout}"
    );
    // The corrected input, with its estimate; and the limit is documented.
    let (_tmp, p) = spec(GOOD);
    let stdout = green(&["validate", s(&p)]);
    assert!(
        stdout.contains(", 8 tasks")
            && stdout.contains("estimate: about")
            && stdout.contains("of memory"),
        "{stdout}"
    );
    let help = green(&["run", "--help"]);
    assert!(
        help.contains("--max-tasks") && help.contains("50000000"),
        "{help}"
    );
}

/// Runs GOOD (with `name` and `seed` replaced) into `out`.
fn run_spec(dir: &Path, name: &str, seed: u64, out: &Path) -> PathBuf {
    let text = GOOD
        .replace("name: guide", &format!("name: {name}"))
        .replace("seed: 1", &format!("seed: {seed}"));
    let p = write(dir, &format!("{name}.yaml"), &text);
    green(&["run", s(&p), "--out", s(out), "--quiet"]);
    p
}

/// Item 2: `table` on a folder whose rows belong to another spec, and `check --sensitivity`
/// on another spec's folder, are refused naming the folder and the spec it belongs to.
#[test]
fn a_folder_of_another_specs_rows_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let spec_a = run_spec(tmp.path(), "alpha", 1, &a);
    run_spec(tmp.path(), "beta", 2, &b);
    // Folder a with b's spec.yaml: its rows are none of that spec's tasks.
    fs::copy(b.join("spec.yaml"), a.join("spec.yaml")).unwrap();
    red(
        &["table", s(&a)],
        &[
            &format!("results folder {}", a.display()),
            "none of the 8 rows of its runs.csv is a task of spec `beta`",
            "computed by spec `alpha`",
            "dp-repro run",
        ],
    );
    // check --sensitivity compares the folder's spec with the one given.
    let c = tmp.path().join("c");
    run_spec(tmp.path(), "gamma", 3, &c);
    red(
        &[
            "check",
            s(&spec_a),
            "--results",
            s(&c),
            "--sensitivity",
            "1.2",
        ],
        &["it holds the results of another spec (`gamma`", "--results"],
    );
    // The corrected input: b's own folder renders.
    green(&["table", s(&b)]);
}

/// Item 3: A closed pipe ends the command quietly instead of a panic (exit 101).
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_no_panic() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader); // every write now fails with EPIPE
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dp-repro"))
        .current_dir(common::root())
        .args(["list", "methods"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.trim().is_empty(), "quiet: {stderr}");
}

/// Item 4: Misspelled or miscased names get a suggestion: methods, data sets, spec fields,
/// parameters, labels in tables and skips, and flags (clap's).
#[test]
fn misspelled_names_get_a_suggestion() {
    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "method: LPDT-M",
            "method: lpdt-m",
            &[
                "methods[1].method",
                "unknown method 'lpdt-m' (did you mean `LPDT-M`?)",
            ],
        ),
        (
            "epsilons:",
            "epsilon:",
            &[
                "line 6, column 1",
                "unknown field `epsilon` (did you mean `epsilons`?)",
            ],
        ),
        (
            "min_leaf",
            "minleaf",
            &["methods[1].grid.minleaf", "(did you mean `min_leaf`?)"],
        ),
        (
            "methods: [LPDT-M]",
            "methods: [lpdt-M]",
            &[
                "tables[0]",
                "unknown method `lpdt-M` (did you mean `LPDT-M`?)",
            ],
        ),
        (
            "tables:",
            "skip:\n  - {method: dt, datasets: [sine], reason: x}\ntables:",
            &["skip[0].method", "(did you mean `DT`?)"],
        ),
        (
            "tables:",
            "skip:\n  - {method: DT, datasets: [Sine], reason: x}\ntables:",
            &[
                "skip[0].datasets",
                "unknown data set `Sine` (did you mean `sine`?)",
            ],
        ),
    ];
    for (good, bad, expect) in cases {
        let (_tmp, p) = spec(&GOOD.replacen(good, bad, 1));
        red(&["validate", s(&p)], expect);
    }
    // A data set name (a manifest).
    let text = GOOD.replace(
        "  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}",
        "  - Airfoil\nsplit: {public: 0.1, private: 0.7, test: 0.2}",
    );
    let (_tmp, p) = spec(&text);
    red(
        &["validate", s(&p)],
        &[
            "datasets[0]",
            "unknown data set `Airfoil` (did you mean `airfoil`?)",
        ],
    );
    // A flag and a subcommand (clap).
    let (_tmp, p) = spec(GOOD);
    let (code, _, stderr) = run(&["validate", s(&p), "--max-task", "5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("similar argument exists: '--max-tasks'"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["vaildate", s(&p)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("'validate'"), "{stderr}");
    validates(GOOD);
}

/// Item 5: A repeated ε or grid value is refused, naming the field and the value.
#[test]
fn repeated_epsilons_and_grid_values_are_refused() {
    let (_tmp, p) = spec(&GOOD.replace("epsilons: [1, 2]", "epsilons: [1, 1, 2]"));
    red(
        &["validate", s(&p)],
        &[
            "field `epsilons[1]`",
            "epsilon 1 is listed twice (epsilons[0] and epsilons[1])",
        ],
    );
    let (_tmp, p) = spec(&GOOD.replace("max_depth: [1, 2]", "max_depth: [1, 2, 2.0]"));
    red(
        &["validate", s(&p)],
        &[
            "field `methods[0].grid.max_depth[2]`",
            "2 is listed twice (max_depth[1] and max_depth[2])",
        ],
    );
    let (_tmp, p) = spec(&GOOD.replace("    epsilons: [1]\n", "    epsilons: [1, 1]\n"));
    red(
        &["validate", s(&p)],
        &["tables[0].epsilons", "epsilon 1 is listed twice"],
    );
    validates(GOOD);
}

/// Item 6: A key given twice is reported at the second one's line, not at line 1, column 1;
/// in a grid (which serde would fill from the last one silently) too.
#[test]
fn a_repeated_key_is_reported_at_its_line() {
    let (_tmp, p) = spec(&GOOD.replace("seed: 1\n", "seed: 1\nname: again\n"));
    red(
        &["validate", s(&p)],
        &[
            "spec.yaml: line 3, column 1:",
            "`name` is given twice in one mapping (first at line 1)",
        ],
    );
    let (_tmp, p) = spec(&GOOD.replace("{max_depth: [1, 2]}", "{max_depth: [1], max_depth: [2]}"));
    red(
        &["validate", s(&p)],
        &[
            "spec.yaml: line 9, column 28:",
            "`max_depth` is given twice",
        ],
    );
    let (_tmp, p) = spec(&GOOD.replace(
        "  - method: LPDT-M\n",
        "  - method: LPDT-M\n    label: X\n    label: Y\n",
    ));
    red(
        &["validate", s(&p)],
        &[
            "spec.yaml: line 12, column 5:",
            "`label` is given twice in one mapping (first at line 11)",
        ],
    );
    validates(GOOD);
}

/// Item 7: An unclosed `[` is named at its own line, not where YAML stumbles later.
#[test]
fn an_unclosed_bracket_is_named_at_its_line() {
    let (_tmp, p) = spec(&GOOD.replace("epsilons: [1, 2]", "epsilons: [1, 2"));
    let e = red(
        &["validate", s(&p)],
        &[
            "spec.yaml: line 6, column 11:",
            "unclosed `[`",
            "before line 7 (`methods:`)",
            "close it with `]`",
        ],
    );
    assert!(!e.contains("invalid type"), "{e}");
    let (_tmp, p) = spec(&GOOD.replace("methods: [LPDT-M]", "methods: [LPDT-M"));
    red(
        &["validate", s(&p)],
        &["line 16, column 14:", "unclosed `[`", "end of the file"],
    );
    let (_tmp, p) =
        spec(&GOOD.replace("{depth: [2], min_leaf: [5]}", "{depth: [2}, min_leaf: [5]}"));
    red(
        &["validate", s(&p)],
        &["line 11, column 21:", "`}` does not close the `[`"],
    );
    validates(GOOD);
}

/// A spec reading the inline file `file` (in the spec's folder) with `has_header`.
fn file_spec(file: &str, has_header: bool) -> String {
    format!(
        "name: f\nseed: 1\nrepetitions: 1\ndatasets:\n  - {{name: h, path: {file}, label_column: 0, task: regression, has_header: {has_header}}}\nsplit: {{public: 0.2, private: 0.6, test: 0.2}}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {{max_depth: [1]}}\n"
    )
}

/// 40 rows of three numeric columns, with `sep` between cells.
fn rows(sep: &str) -> String {
    (1..=40)
        .map(|i| format!("{i}.5{sep}{}.1{sep}{}.2\n", i * 3, i % 7))
        .collect()
}

/// Item 8: A header row read as data, and a `;`-separated file, get their hint (inline files
/// and manifests).
#[test]
fn a_header_row_and_semicolons_get_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "h.csv", &format!("y,a,b\n{}", rows(",")));
    write(dir, "s.csv", &rows(";"));
    let p = write(dir, "spec.yaml", &file_spec("h.csv", false));
    red(
        &["validate", s(&p)],
        &["h.csv: line 1", "\"y\" is not a number", "the first row looks like a header: set `has_header: true` in the spec's entry of data set `h`"],
    );
    let p = write(dir, "spec.yaml", &file_spec("s.csv", false));
    red(
        &["validate", s(&p)],
        &[
            "s.csv: line 1",
            "the file seems `;`-separated (line 1 holds `;` and no `,`)",
        ],
    );
    let p = write(dir, "spec.yaml", &file_spec("h.csv", true));
    green(&["validate", s(&p)]);

    // A manifest saying has_header: false for the file with a header.
    let manifests = dir.join("manifests");
    fs::create_dir(&manifests).unwrap();
    let bytes = fs::read(dir.join("h.csv")).unwrap();
    let sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(&bytes))
    };
    let manifest = |has_header: bool| {
        format!("name: hh\nfile: h.csv\ntask: regression\nlabel_column: 0\nhas_header: {has_header}\nsha256: {sha}\nn_rows: {}\nn_features: 2\nsource: {{repository: a/b, commit: \"0000000000000000000000000000000000000000\", path: h.csv}}\n", if has_header { 40 } else { 41 })
    };
    write(&manifests, "hh.yaml", &manifest(false));
    let text = "name: m\nseed: 1\nrepetitions: 1\ndatasets: [hh]\nsplit: {public: 0.2, private: 0.6, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";
    let p = write(dir, "m.yaml", text);
    let args = [
        "validate",
        s(&p),
        "--manifests",
        s(&manifests),
        "--data-dir",
        s(dir),
    ];
    red(&args, &["set `has_header: true` in its manifest hh.yaml"]);
    write(&manifests, "hh.yaml", &manifest(true));
    green(&args);
}

/// Item 9: No manifest at all is an error naming the folder, not "0 of 0 verified".
#[test]
fn an_empty_manifest_folder_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let want = format!("no manifests (*.yaml) in {}", empty.display());
    red(
        &["data", "list", "--manifests", s(&empty)],
        &[&want, "--manifests DIR"],
    );
    red(&["list", "datasets", "--manifests", s(&empty)], &[&want]);
    red(
        &[
            "data",
            "fetch",
            "--manifests",
            s(&empty),
            "--to",
            s(tmp.path()),
        ],
        &[&want],
    );
    let missing = tmp.path().join("nowhere");
    red(
        &["data", "list", "--manifests", s(&missing)],
        &["(not a folder)"],
    );
    // The corrected input: the crate's manifests.
    let stdout = green(&["data", "list", "--manifests", "datasets"]);
    assert!(stdout.contains("airfoil"), "{stdout}");
}

/// Item 10: `check` on another spec's folder names its own flag, --results.
#[test]
fn check_on_another_specs_folder_names_results() {
    let tmp = tempfile::tempdir().unwrap();
    let other = tmp.path().join("other");
    run_spec(tmp.path(), "other", 2, &other);
    let (_t, p) = spec(GOOD);
    let e = red(
        &["check", s(&p), "--results", s(&other), "--quiet"],
        &[
            "it holds the results of another spec (`other`",
            "Choose another folder with --results",
        ],
    );
    assert!(!e.contains("--out"), "{e}");
    // The corrected input: a folder of its own.
    let own = tmp.path().join("own");
    green(&["check", s(&p), "--results", s(&own), "--quiet"]);
}

/// Item 11: A damaged runs.csv row: `table` says which line and that `run` recomputes it, and
/// that command does (a row cut short in the middle, and a partial last line).
#[test]
fn a_damaged_runs_csv_row_points_to_run_which_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    run_spec(tmp.path(), "guide", 1, &out);
    let runs = out.join("runs.csv");
    let whole = fs::read_to_string(&runs).unwrap();
    let sorted = |t: &str| {
        let mut l: Vec<String> = t
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string()) // without seconds
            .collect();
        l.sort();
        l
    };
    // The hint carries the folder's own repetition count (run.json), so following it
    // never extends the folder to another count.
    let reps = fs::read_to_string(out.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["repetitions"].as_u64())
        .expect("run.json records the repetitions");
    let rerun = format!(
        "run `dp-repro run {} --out {} --reps {reps}` to recompute the damaged rows",
        out.join("spec.yaml").display(),
        out.display()
    );
    // A row cut short in the middle of the file.
    let mut lines: Vec<&str> = whole.lines().collect();
    let cut = &lines[5][..30].to_string();
    lines[5] = cut;
    fs::write(&runs, lines.join("\n") + "\n").unwrap();
    red(
        &["table", s(&out)],
        &[
            "runs.csv: line 6: the row has",
            "fields, not 9",
            "damaged",
            &rerun,
        ],
    );
    let (code, _, stderr) = run(&[
        "run",
        s(&out.join("spec.yaml")),
        "--out",
        s(&out),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("removed 1 damaged rows"), "{stderr}");
    green(&["table", s(&out)]);
    assert_eq!(sorted(&fs::read_to_string(&runs).unwrap()), sorted(&whole));
    // A partial last line (an interrupted write).
    let text = fs::read_to_string(&runs).unwrap();
    let last = text.trim_end().rfind('\n').unwrap() + 1;
    fs::write(&runs, &text[..last + 30]).unwrap();
    red(&["table", s(&out)], &["damaged", &rerun]);
    green(&[
        "run",
        s(&out.join("spec.yaml")),
        "--out",
        s(&out),
        "--quiet",
    ]);
    green(&["table", s(&out)]);
    assert_eq!(sorted(&fs::read_to_string(&runs).unwrap()), sorted(&whole));
}

/// Item 12: `occupancy: dataset` on a data set without a declared leaf occupancy fails in
/// validate, not at the first fit.
#[test]
fn occupancy_dataset_without_a_manifest_entry_fails_validation() {
    let text = "name: occ\nseed: 1\nrepetitions: 1\ndatasets: [airfoil]\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nepsilons: [1]\nmethods:\n  - method: DiPriMe\n    grid: {occupancy: [dataset]}\n";
    let (_tmp, p) = spec(text);
    red(
        &["validate", s(&p)],
        &[
            "field `methods[0].grid.occupancy`",
            "the manifest of data set `airfoil` declares no `leaf_occupancy`",
            "give an integer occupancy",
        ],
    );
    // A synthetic data set has no manifest.
    let synthetic = "name: occ\nseed: 1\nrepetitions: 1\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}\nlabel_bounds: {fixed: {lo: -4, hi: 4}}\nepsilons: [1]\nmethods:\n  - method: DiPriMe\n    params: {occupancy: dataset}\n";
    let (_tmp, p) = spec(synthetic);
    red(
        &["validate", s(&p)],
        &[
            "methods[0].params.occupancy",
            "data set `sine` has no manifest",
        ],
    );
    // The corrected inputs: an integer occupancy; or an integer depth, which reads none.
    validates(&synthetic.replace("occupancy: dataset", "occupancy: 25"));
    validates(&synthetic.replace("occupancy: dataset", "occupancy: dataset, depth: 3"));
}

/// Item 12, further: `private_share: 0` of a subsampling composition, refused at the fit
/// until now, fails in validate too.
#[test]
fn a_zero_private_share_fails_validation() {
    let text = "name: ps
seed: 1
repetitions: 1
datasets:
  - {name: sine, synthetic: lpdt_sine, sizes: {public: 50, private: 200, test: 50}}
epsilons: [1]
methods:
  - label: H
    compose:
      partition: {rule: histogram, grown_on: none}
      cell_mechanism: laplace
      label_mechanism: laplace_vector
      estimator: histogram
      subsample: true
    grid: {bins: [2], t: [0.05], private_share: [0, 1]}
";
    let (_tmp, p) = spec(text);
    red(
        &["validate", s(&p)],
        &["field `methods[0].grid.private_share`", "must be > 0"],
    );
    validates(&text.replace("[0, 1]", "[0.5, 1]"));
}

/// `validate` on a method file (a composition such as `specs/methods/lpdt-m.yaml`) checks
/// it as a method: every shipped preset passes, a broken block is refused with exit 2.
#[test]
fn validate_checks_method_files_as_methods() {
    let mut files = Vec::new();
    for dir in [
        "specs/methods",
        "specs/methods/histoftree",
        "specs/methods/lpct",
        "specs/methods/diprime",
    ] {
        for e in fs::read_dir(common::root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 20, "{files:?}");
    for f in &files {
        let out = green(&["validate", s(f)]);
        assert!(out.contains("ok — method file"), "{out}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let lpdt = fs::read_to_string(common::root().join("specs/methods/lpdt-m.yaml")).unwrap();
    let bad = write(
        tmp.path(),
        "m.yaml",
        &lpdt.replace("rule: max_edge", "rule: max_egde"),
    );
    red(
        &["validate", s(&bad)],
        &["m.yaml", "unknown variant `max_egde`", "max_edge"],
    );
}
