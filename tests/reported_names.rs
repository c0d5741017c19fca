//! A check that compares nothing fails, and a reported file that names nothing of ours
//! fails before any task runs: every row of the spec's reported files
//! is read and its names resolved first (`dp_repro::check::preflight_reported`): a method
//! label close to one of the spec's (`LPDT-MM`, `lpdt-m`) or a data set no manifest knows
//! (`ABAA`) exits 2 with the file, the line and "did you mean"; a bad number exits 2 with
//! its line, before anything is computed; and a check whose every cell is not run exits 1.

mod common;

use dp_repro::check::{abbreviation_map, preflight_reported};
use dp_repro::data::manifest::list_manifests;
use std::path::Path;

/// Every spec of the project with a `reported:` section passes the preflight: their files
/// name only data sets and methods of ours (a wrong rule here would turn the papers' own
/// checks red before they ran).
#[test]
fn the_papers_reported_files_all_resolve() {
    let root = common::root();
    let dirs = dp_repro::data::default_manifest_dirs();
    let manifests = list_manifests(&dirs).unwrap();
    let abbreviations = abbreviation_map(&manifests);
    let mut specs = Vec::new();
    for dir in [
        root.join("specs"),
        root.join("specs/lpdt"),
        root.join("specs/lpct"),
        root.join("specs/histoftree"),
        root.join("specs/diprime"),
    ] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "yaml") {
                specs.push(e.path());
            }
        }
    }
    let mut checked = 0;
    for path in specs {
        let Ok((parsed, _)) = dp_repro::spec::parse_file(&path) else {
            continue;
        };
        let Ok(exp) = dp_repro::spec::validate(parsed, &path, &dirs) else {
            continue;
        };
        let Some((r, dir)) = &exp.reported else {
            continue;
        };
        let mut datasets: Vec<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
        datasets.extend(exp.datasets.iter().map(|d| d.name.as_str()));
        let methods: Vec<&str> = exp.methods.iter().map(|m| m.label.as_str()).collect();
        let rows = preflight_reported(r, dir, &methods, &datasets, &abbreviations)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            rows > 0,
            "{}: no reported row names a method of the spec",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} specs with reported files");
}

/// A spec running LPDT-M on Abalone whose reported file is `csv` (dataset, method,
/// epsilon, value), written into `dir`; returns the spec's path.
fn spec_with(dir: &Path, csv: &str, extra: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("bad.csv"), csv).unwrap();
    let text = format!(
        "name: names\nseed: 1\nrepetitions: 1\ndatasets: [abalone]\nsplit: {{public: 0.1, private: 0.7, test: 0.2}}\nepsilons: [1]\nmethods:\n  - {{method: LPDT-M, params: {{depth: 2, min_leaf: 5, rho: 0.5}}}}\nreported: {{files: [bad.csv], dataset_names: abbreviation, tolerance: {{relative: 0.25, se: 3}}}}\n{extra}"
    );
    let path = dir.join("names.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_misspelled_name_or_a_bad_cell_exits_2_before_any_task_runs() {
    let header = "dataset,method,epsilon,value\n";
    let good = "ABA,LPDT-M,1,6.5\n";
    for (row, words) in [
        ("ABA,LPDT-MM,1,6.5\n", "did you mean `LPDT-M`?"),
        ("ABA,lpdt-m,1,6.5\n", "did you mean `LPDT-M`?"),
        ("ABAA,LPDT-M,1,6.5\n", "did you mean `ABA`?"),
        ("ABA,LPDT-M,1,six\n", "bad.csv"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let csv = format!("{header}{good}{row}");
        let path = spec_with(tmp.path(), &csv, "");
        let out = tmp.path().join("out");
        // No data folder is given: a run would fail on the missing file, so exit 2 here
        // with the reported file's words shows the preflight came first.
        let (code, _, err) = common::into_folder(tmp.path(), "check", &path, &out, &[]);
        assert_eq!(code, 2, "{row}: {err}");
        assert!(err.contains(words), "{row}: {err}");
        assert!(err.contains(":3"), "{row}: the line of the bad row: {err}");
        assert!(!out.exists(), "{row}: the results folder was created");
    }
}

/// Every reported cell of a synthetic spec's file is one the paper prints no value for
/// (`-`): the check compares nothing, and says so with exit 1.
#[test]
fn a_check_that_compares_no_cell_fails() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("r.csv"),
        "dataset,method,epsilon,value\nsine,DT,,-\n",
    )
    .unwrap();
    let text = "name: nothing\nseed: 1\nrepetitions: 2\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 20, private: 60, test: 20}}\nepsilons: [1]\nmethods:\n  - {method: DT, params: {max_depth: 2}}\nreported: {files: [r.csv], dataset_names: name, tolerance: {relative: 0.25}}\n";
    let path = tmp.path().join("nothing.yaml");
    std::fs::write(&path, text).unwrap();
    let out = tmp.path().join("out");
    let (code, stdout, err) = common::into_folder(tmp.path(), "check", &path, &out, &[]);
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(
        format!("{stdout}{err}").contains("not one compared"),
        "{stdout}{err}"
    );
    // With a value the paper prints, the same check compares one cell and passes or
    // fails on it, not on comparing nothing.
    std::fs::write(
        tmp.path().join("r.csv"),
        "dataset,method,epsilon,value\nsine,DT,,1.2\n",
    )
    .unwrap();
    let (_, stdout, err) = common::into_folder(tmp.path(), "check", &path, &out, &[]);
    assert!(
        !format!("{stdout}{err}").contains("not one compared"),
        "{stdout}{err}"
    );
}
