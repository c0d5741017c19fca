//! Data-set manifests and loaders: every manifest in `datasets/` loads, its data file in
//! the data folder (`DP_REPRO_DATA`, see `tests/common`) passes the sha256 and shape checks
//! and the loaders' errors name the file, line,
//! column and what is valid.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use dp_repro::data::{
    default_manifest_dirs, find_manifest, list_manifests, load_csv, load_manifest,
    load_manifest_dataset, DataError, FileFormat, Manifest, Task,
};

/// The 14 LPDT Table 4 data sets and their abbreviations.
const LPDT: [(&str, &str); 14] = [
    ("abalone", "ABA"),
    ("airfoil", "AIR"),
    ("algerian", "ALG"),
    ("aquatic", "AQU"),
    ("building", "BUI"),
    ("cbm", "CBM"),
    ("ccpp", "CCP"),
    ("concrete", "CON"),
    ("cpusmall", "CPU"),
    ("fish", "FIS"),
    ("housing", "HOU"),
    ("music", "MUS"),
    ("redwine", "RED"),
    ("whitewine", "WHI"),
];

fn manifest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets")
}

fn all_manifests() -> Vec<Manifest> {
    list_manifests(&[manifest_dir()]).expect("every manifest in datasets/ parses")
}

#[test]
fn every_lpdt_table4_manifest_is_present_and_consistent() {
    let all = all_manifests();
    let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "list_manifests sorts by name");
    for (name, abbr) in LPDT {
        let m = find_manifest(name, &[manifest_dir()]).unwrap();
        assert_eq!(m.file, format!("{name}.csv"));
        assert_eq!(m.task, Task::Regression);
        let paper = m.paper.first().expect("LPDT manifests cite the paper");
        assert_eq!(paper.table, "LPDT Table 4");
        assert_eq!(paper.abbreviation, abbr);
        let note = m.note.as_deref().unwrap_or("");
        assert!(!note.is_empty(), "{name}: note missing");
        let shape_differs = paper.n != m.n_rows || paper.d != Some(m.n_features);
        assert!(
            !shape_differs || note.contains("MISMATCH"),
            "{name}: file {}x{} vs paper n={} d={:?} but the note does not say MISMATCH",
            m.n_rows,
            m.n_features,
            paper.n,
            paper.d
        );
        let text = fs::read_to_string(manifest_dir().join(format!("{name}.yaml"))).unwrap();
        assert!(text.starts_with("# "), "{name}: leading comment line");
    }
}

#[test]
fn paper_columns_match_reported_table4() {
    let Some(reported) = common::reported_file("lpdt_table4_datasets.csv") else {
        return;
    };
    let mut rdr = csv::Reader::from_path(&reported).unwrap();
    let table: BTreeMap<String, (usize, usize)> = rdr
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[0].to_string(),
                (r[1].parse().unwrap(), r[2].parse().unwrap()),
            )
        })
        .collect();
    for (name, abbr) in LPDT {
        let m = find_manifest(name, &[manifest_dir()]).unwrap();
        let p = &m.paper[0];
        assert_eq!(
            (p.n, p.d),
            (table[abbr].0, Some(table[abbr].1)),
            "{name} ({abbr})"
        );
    }
}

#[test]
fn data_files_pass_sha256_and_shape() {
    let all = all_manifests();
    let files: Vec<&str> = all.iter().map(|m| m.file.as_str()).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    for m in &all {
        let loaded =
            load_manifest_dataset(m, Some(&data)).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let ds = &loaded.dataset;
        assert_eq!(ds.name, m.name);
        if m.missing == dp_repro::data::MissingPolicy::Error {
            assert_eq!(loaded.dropped_rows, 0, "{}", m.name);
        }
        assert_eq!(
            (ds.n() + loaded.dropped_rows, ds.d()),
            (m.n_rows, m.n_features),
            "{}",
            m.name
        );
        assert_eq!(ds.x.data.len(), ds.n() * ds.d());
        assert!(ds.y.iter().all(|v| v.is_finite()), "{}", m.name);
        assert!(ds.x.data.iter().all(|v| v.is_finite()), "{}", m.name);
    }
}

/// A folder with a manifest `toy.yaml` and its 3×2 data file `toy.csv`.
fn toy() -> (tempfile::TempDir, Manifest) {
    let dir = tempfile::tempdir().unwrap();
    let data = "1.5,2,3\n2.5,4,5\n3.5,6,7\n";
    fs::write(dir.path().join("toy.csv"), data).unwrap();
    let sha = dp_repro::data::sha256_file(&dir.path().join("toy.csv")).unwrap();
    let yaml = format!(
        "# toy manifest\nname: toy\nfile: toy.csv\ntask: regression\nlabel_column: 0\n\
         has_header: false\nsha256: {sha}\nn_rows: 3\nn_features: 2\n\
         source:\n  repository: a/b\n  commit: c\n  path: toy.csv\n"
    );
    let path = dir.path().join("toy.yaml");
    fs::write(&path, yaml).unwrap();
    let m = load_manifest(&path).unwrap();
    (dir, m)
}

#[test]
fn toy_manifest_loads() {
    let (dir, m) = toy();
    let ds = load_manifest_dataset(&m, Some(dir.path())).unwrap().dataset;
    assert_eq!(ds.y, vec![1.5, 2.5, 3.5]);
    assert_eq!(ds.x.row(2), &[6.0, 7.0]);
}

#[test]
fn non_numeric_cell_names_file_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    fs::write(&path, "y,alpha,beta\n1,2,3\n4, \"oops\" ,6\n").unwrap();
    let err = load_csv(
        &path,
        "bad",
        FileFormat::new(0, Task::Regression).with_header(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("line 3"), "{msg}");
    assert!(msg.contains("column 1") && msg.contains("alpha"), "{msg}");
    assert!(msg.contains("oops"), "{msg}");
    match err {
        DataError::NonNumeric { row, column, .. } => {
            assert_eq!(row, 3);
            assert_eq!(column.index, 1);
            assert_eq!(column.name.as_deref(), Some("alpha"));
        }
        other => panic!("expected NonNumeric, got {other:?}"),
    }

    // Without a header: line numbers count from the first line, no column name.
    fs::write(&path, "1,2\n3,x\n").unwrap();
    let msg = load_csv(&path, "bad", FileFormat::new(0, Task::Regression))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("line 2, column 1:"), "{msg}");
}

#[test]
fn ragged_rows_and_bad_class_labels_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    fs::write(&path, "1,2,3\n4,5\n").unwrap();
    let err = load_csv(&path, "r", FileFormat::new(0, Task::Regression)).unwrap_err();
    assert!(matches!(err, DataError::Ragged { row: 2, .. }), "{err}");
    fs::write(&path, "0,1\n1,1\n2.5,1\n").unwrap();
    let msg = load_csv(&path, "r", FileFormat::new(0, Task::Classification))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("line 3") && msg.contains("integers"), "{msg}");
}

#[test]
fn altered_file_gives_sha256_mismatch() {
    let (dir, m) = toy();
    let path = dir.path().join("toy.csv");
    fs::write(&path, "1.5,2,3\n2.5,4,5\n3.5,6,8\n").unwrap();
    let actual = dp_repro::data::sha256_file(&path).unwrap();
    let err = load_manifest_dataset(&m, Some(dir.path())).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DataError::ChecksumMismatch { .. }), "{err:?}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains(&m.sha256), "{msg}");
    assert!(msg.contains(&actual), "{msg}");
    assert!(msg.contains("DP_REPRO_DATA"), "{msg}");
}

#[test]
fn shape_mismatch_is_reported() {
    let (dir, mut m) = toy();
    m.n_rows = 4;
    let msg = load_manifest_dataset(&m, Some(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("n_rows = 3") && msg.contains("says 4"),
        "{msg}"
    );
}

#[test]
fn missing_file_and_missing_data_dir() {
    let (dir, m) = toy();
    let empty = dir.path().join("elsewhere");
    fs::create_dir(&empty).unwrap();
    let err = load_manifest_dataset(&m, Some(&empty)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DataError::MissingFile { .. }), "{err:?}");
    assert!(
        msg.contains(&empty.join("toy.csv").display().to_string()),
        "{msg}"
    );
    assert!(msg.contains(&m.sha256), "{msg}");
    assert!(msg.contains("DP_REPRO_DATA"), "{msg}");

    let msg = load_manifest_dataset(&m, None).unwrap_err().to_string();
    assert!(
        msg.contains("--data-dir") && msg.contains("DP_REPRO_DATA"),
        "{msg}"
    );
}

#[test]
fn malformed_manifest_yaml_gives_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.yaml");
    // Line 3 has an unclosed flow sequence.
    fs::write(
        &path,
        "name: broken\nfile: broken.csv\ntask: [regression\nlabel_column: 0\n",
    )
    .unwrap();
    let err = load_manifest(&path).unwrap_err();
    let msg = err.to_string();
    match &err {
        DataError::ManifestYaml { line, column, .. } => {
            let (l, c) = (line.expect("line"), column.expect("column"));
            assert!(
                msg.starts_with(&format!("{}: line {l}, column {c}:", path.display())),
                "{msg}"
            );
        }
        other => panic!("expected ManifestYaml, got {other:?}"),
    }

    // A wrong value type is located too: `n_rows` on line 8, column 9.
    let (dir2, _) = toy();
    let p2 = dir2.path().join("toy.yaml");
    let text = fs::read_to_string(&p2)
        .unwrap()
        .replace("n_rows: 3", "n_rows: three");
    fs::write(&p2, text).unwrap();
    let msg = load_manifest(&p2).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}: line 8, column 9:", p2.display())),
        "{msg}"
    );
    assert!(
        msg.contains("n_rows") && msg.contains("a whole number >= 0"),
        "{msg}"
    );

    // An unknown field names the valid ones.
    let text = fs::read_to_string(&p2)
        .unwrap()
        .replace("n_rows: three", "n_rows: 3\ncolour: red");
    fs::write(&p2, text).unwrap();
    let msg = load_manifest(&p2).unwrap_err().to_string();
    assert!(
        msg.contains("colour") && msg.contains("expected one of"),
        "{msg}"
    );
}

#[test]
fn unknown_data_set_lists_valid_names() {
    let err = find_manifest("abalon", &[manifest_dir()]).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DataError::UnknownDataset { .. }), "{err:?}");
    for (name, _) in LPDT {
        assert!(msg.contains(name), "{msg}");
    }
    assert!(msg.contains("abalon"), "{msg}");
}

#[test]
fn default_dirs_find_the_crate_manifests_once() {
    let dirs = default_manifest_dirs();
    assert!(!dirs.is_empty());
    let canon: Vec<_> = dirs
        .iter()
        .filter_map(|d| fs::canonicalize(d).ok())
        .collect();
    let mut dedup = canon.clone();
    dedup.dedup();
    assert_eq!(canon, dedup, "no folder listed twice: {dirs:?}");
    assert_eq!(find_manifest("abalone", &dirs).unwrap().n_rows, 4177);
}
