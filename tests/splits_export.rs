//! `dp-repro splits` (docs/check.md, "The authors' code as a third column"): the data set
//! as the run loads it and the rows of every repetition's parts, so that the authors' code
//! runs on exactly our rows. Read back and scaled as splits.json says, the export gives
//! the very parts the runner hands its methods.

mod common;

use dp_repro::data::Escape;
use dp_repro::run::{load_datasets, repetition_data};
use dp_repro::spec::{parse_str, validate};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SPEC: &str = "name: s\nseed: 3\nrepetitions: 2\ndatasets: [concrete]\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nscaling: public\nepsilons: [1]\nmethods:\n  - method: DT\n    grid: {max_depth: [1]}\n";

/// (label, features) rows of an exported `<data set>.csv`.
fn read_rows(path: &Path) -> Vec<(f64, Vec<f64>)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|rec| {
            let v: Vec<f64> = rec.unwrap().iter().map(|f| f.parse().unwrap()).collect();
            (v[0], v[1..].to_vec())
        })
        .collect()
}

/// Rows of (repetition, part) from splits.csv.
fn read_splits(path: &Path) -> BTreeMap<(usize, String), Vec<usize>> {
    let mut out: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    let mut r = csv::Reader::from_path(path).unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        assert_eq!(&rec[0], "concrete");
        out.entry((rec[1].parse().unwrap(), rec[2].to_string()))
            .or_default()
            .push(rec[3].parse().unwrap());
    }
    out
}

/// Min-max of each feature over `rows`, applied to `x` as the run's `scaling: public` does.
fn scale_by(rows: &[&Vec<f64>], x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|k| {
            let lo = rows.iter().map(|r| r[k]).fold(f64::INFINITY, f64::min);
            let hi = rows.iter().map(|r| r[k]).fold(f64::NEG_INFINITY, f64::max);
            if hi > lo {
                (x[k] - lo) / (hi - lo)
            } else {
                0.0
            }
        })
        .collect()
}

#[test]
fn exported_splits_give_the_runners_parts() {
    let Some(data) = common::real_data(&["concrete.csv"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("s.yaml");
    std::fs::write(&spec_path, SPEC).unwrap();
    let out = dir.path().join("export");
    let (code, stdout, stderr) = common::dp_repro_with_data(
        Some(&data),
        &[
            "splits",
            spec_path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("scaling still to apply: public"),
        "{stdout}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("splits.json")).unwrap()).unwrap();
    assert_eq!(manifest["scaling"], "public");
    assert_eq!(manifest["seed"], 3);
    assert_eq!(
        manifest["datasets"][0]["sha256"].as_str().unwrap(),
        dp_repro::data::sha256_file(&out.join("concrete.csv")).unwrap()
    );
    let rows = read_rows(&out.join("concrete.csv"));
    let splits = read_splits(&out.join("splits.csv"));

    // The runner's own parts, for comparison.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exp = validate(
        parse_str(SPEC, &spec_path).unwrap(),
        &spec_path,
        &[root.join("datasets")],
    )
    .unwrap();
    let loaded = load_datasets(&exp, Some(&data)).unwrap();
    for rep in 1..=2 {
        let part = |p: &str| &splits[&(rep, p.to_string())];
        // The three parts divide every row once.
        let mut all: Vec<usize> = ["public", "private", "test"]
            .iter()
            .flat_map(|p| part(p).iter().copied())
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..rows.len()).collect::<Vec<_>>());
        let r = repetition_data(&exp, &exp.datasets[0], loaded[0].as_deref(), rep).unwrap();
        let public_x: Vec<&Vec<f64>> = part("public").iter().map(|&i| &rows[i].1).collect();
        for (name, ours) in [
            ("public", &r.public),
            ("private", r.private.escape(Escape::Bookkeeping)),
            ("test", &r.test),
        ] {
            let idx = part(name);
            assert_eq!(idx.len(), ours.n(), "{name} size, repetition {rep}");
            for (j, &i) in idx.iter().enumerate() {
                assert_eq!(rows[i].0, ours.y[j], "{name} label {j}, repetition {rep}");
                let x = scale_by(&public_x, &rows[i].1);
                for (k, v) in x.iter().enumerate() {
                    assert!(
                        (v - ours.x.get(j, k)).abs() <= 1e-12,
                        "{name} row {j} feature {k}, repetition {rep}: {v} vs {}",
                        ours.x.get(j, k)
                    );
                }
            }
        }
    }
    // Repetitions split differently.
    assert_ne!(splits[&(1, "public".into())], splits[&(2, "public".into())]);
}

#[test]
fn an_unknown_data_set_is_refused_with_the_nearest_name() {
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("s.yaml");
    std::fs::write(&spec_path, SPEC).unwrap();
    let (code, _, stderr) = common::dp_repro_in(
        dir.path(),
        &["splits", "s.yaml", "--out", "x", "--datasets", "concret"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("did you mean `concrete`"), "{stderr}");
    assert!(
        !dir.path().join("x").exists(),
        "nothing written on bad input"
    );
}
