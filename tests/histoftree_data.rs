//! The ten real data sets of the HistOfTree paper (App. C.2, method card
//! docs/methods/histoftree.md §10): each has a manifest citing the paper's row (n, d as
//! `specs/reported/histoftree_datasets.csv` gives them, a MISMATCH note where the file
//! differs), loads with the rows and dimension of its file and the label in column 0, and
//! has a sensitivity ranking (column order unless declared). The expected counts and first
//! labels were taken from the files independently of dp-repro (Python's csv module).

mod common;

use dp_repro::data::{find_manifest, load_manifest, load_manifest_dataset};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The paper's table of data sets, as the manifests cite it.
const TABLE: &str = "HistOfTree App. C.2";

/// (manifest, the paper's abbreviation, rows, features, first label) of the files.
const FILES: [(&str, &str, usize, usize, f64); 10] = [
    ("abalone", "ABA", 4177, 8, 15.0),
    ("aquatic", "AQU", 546, 8, 3.74),
    ("building", "BUI", 372, 107, 2200.0),
    ("dakbilgic", "DAK", 536, 8, 0.035753708),
    ("fish", "FIS", 908, 6, 3.77),
    ("music", "MUS", 1059, 68, -15.75),
    ("portfolio", "POR", 63, 6, 0.5318748023032747),
    ("pyrim", "PYR", 74, 27, 0.568),
    ("redwine", "RED", 1599, 11, 5.0),
    ("whitewine", "WHI", 4898, 11, 6.0),
];

/// The files whose shape differs from the paper's: BUI (107 features: the 103 inputs and 4
/// date columns), DAK (8 features: the paper counts the UCI sheet's 10 columns, date and
/// label included), POR (63 x 6: the paper quotes UCI's 5 sheets x 63 rows and 6 inputs + 6
/// outputs).
const DIFFER: [&str; 3] = ["building", "dakbilgic", "portfolio"];

fn manifest_dir() -> PathBuf {
    common::root().join("datasets")
}

/// Every HistOfTree data set cites the paper's row with the n and d of the shared table;
/// a file whose shape differs says MISMATCH in its note, and the manifest's own shape is the
/// file's.
#[test]
fn each_manifest_cites_the_papers_row_and_names_its_mismatch() {
    let shared = common::reported_file("histoftree_datasets.csv");
    let table: Option<BTreeMap<String, (usize, usize)>> = shared.map(|path| {
        csv::Reader::from_path(path)
            .unwrap()
            .records()
            .map(|r| {
                let r = r.unwrap();
                (
                    r[0].to_string(),
                    (r[1].parse().unwrap(), r[2].parse().unwrap()),
                )
            })
            .collect()
    });
    if let Some(t) = &table {
        assert_eq!(t.len(), FILES.len(), "the paper has ten real data sets");
    }
    for (name, abbreviation, rows, features, _) in FILES {
        let m = find_manifest(name, &[manifest_dir()]).unwrap();
        assert_eq!(
            (m.n_rows, m.n_features),
            (rows, features),
            "{name}: the file's shape"
        );
        let paper = m
            .paper
            .iter()
            .find(|p| p.table == TABLE)
            .unwrap_or_else(|| panic!("{name}: no `paper` entry for {TABLE}"));
        assert_eq!(paper.abbreviation, abbreviation, "{name}");
        // Every abbreviation the manifest declares is the same (tables and `check` map the
        // paper's names to ours through them).
        assert!(
            m.paper.iter().all(|p| p.abbreviation == abbreviation),
            "{name}: one abbreviation"
        );
        if let Some(t) = &table {
            assert_eq!(
                (paper.n, paper.d),
                (t[abbreviation].0, Some(t[abbreviation].1)),
                "{name} ({abbreviation})"
            );
        }
        let note = m.note.as_deref().unwrap_or("");
        assert!(
            note.contains("HistOfTree"),
            "{name}: the note covers the paper"
        );
        let differs = paper.n != m.n_rows || paper.d != Some(m.n_features);
        assert_eq!(
            differs,
            DIFFER.contains(&name),
            "{name}: file {rows}x{features} against the paper's {}x{:?}",
            paper.n,
            paper.d
        );
        assert!(
            !differs || note.contains("MISMATCH"),
            "{name}: the shapes differ but the note does not say MISMATCH"
        );
        // No ranking is published: column order (card §10).
        assert_eq!(m.sensitivity, None, "{name}");
        assert_eq!(m.sensitivity_ranking(), (0..features).collect::<Vec<_>>());
    }
}

/// The files load with their rows and dimension (no encoding: numeric files with the label
/// in column 0, as the authors' loaders read them) and every value finite.
#[test]
fn each_file_loads_with_its_rows_dimension_and_label_column() {
    let files: Vec<String> = FILES.iter().map(|f| format!("{}.csv", f.0)).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    for (name, _, rows, features, first_label) in FILES {
        let m = find_manifest(name, &[manifest_dir()]).unwrap();
        let loaded = load_manifest_dataset(&m, Some(&data)).unwrap();
        let ds = &loaded.dataset;
        assert_eq!((ds.n(), ds.d()), (rows, features), "{name}");
        assert_eq!(loaded.dropped_rows, 0, "{name}: no missing cells");
        assert_eq!(ds.y[0], first_label, "{name}: the label is column 0");
        assert!(
            ds.x.data.iter().chain(&ds.y).all(|v| v.is_finite()),
            "{name}: finite values"
        );
    }
}

/// A declared `sensitivity` ranking is a permutation of the feature indices 0..d; anything
/// else is refused naming the file, the field and what would be valid.
#[test]
fn a_sensitivity_ranking_must_list_every_feature_once() {
    let dir = tempfile::tempdir().unwrap();
    let base = "name: toy\nfile: toy.csv\ntask: regression\nlabel_column: 0\nhas_header: false\n\
        sha256: 0000000000000000000000000000000000000000000000000000000000000000\n\
        n_rows: 3\nn_features: 4\nsource: {repository: a/b, commit: c, path: p.csv}\n";
    let write = |extra: &str| {
        let p = dir.path().join("toy.yaml");
        std::fs::write(&p, format!("{base}{extra}")).unwrap();
        p
    };
    let m = load_manifest(&write("sensitivity: [2, 0, 3, 1]\n")).unwrap();
    assert_eq!(m.sensitivity_ranking(), [2, 0, 3, 1]);
    let m = load_manifest(&write("")).unwrap();
    assert_eq!(
        m.sensitivity_ranking(),
        [0, 1, 2, 3],
        "default: column order"
    );
    for (ranking, says) in [
        ("[2, 0, 4, 1]", "feature index 4 is out of range"),
        ("[2, 0, 2, 1]", "feature index 2 is listed twice"),
        ("[2, 0, 3]", "lists 3 features but n_features = 4"),
    ] {
        let p = write(&format!("sensitivity: {ranking}\n"));
        let msg = load_manifest(&p).unwrap_err().to_string();
        assert!(
            msg.contains(&p.display().to_string())
                && msg.contains("`sensitivity`")
                && msg.contains(says),
            "{ranking}: {msg}"
        );
    }
    let p = write("sensitivity: [a, b]\n");
    let msg = load_manifest(&p).unwrap_err().to_string();
    assert!(msg.contains("sensitivity"), "{msg}");
}
