//! The seven DiPriMe data sets in the shared folder (method card
//! docs/methods/diprime.md §6.2, `specs/reported/diprime_datasets.csv`): each manifest cites the
//! paper's table with its N, loads with the card's n, d and categorical indices, and carries
//! the paper's preprocessing as declared rules (timestamps into derived columns, pandas
//! category codes, regression targets rescaled to [0, 1] at load, Robot's binarised label,
//! Credit's unbinned PAY_* columns). The expected values were computed from the files
//! independently of dp-repro (Python's csv and datetime modules).

mod common;

use dp_repro::data::encode::load_encoded;
use dp_repro::data::{find_manifest, load_manifest_dataset, Dataset, Task};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One data set as the card describes it.
struct Expected {
    /// Manifest name.
    name: &'static str,
    /// Its row key in reported/diprime_datasets.csv.
    card: &'static str,
    /// The paper's table and the name it prints.
    table: &'static str,
    abbreviation: &'static str,
    n: usize,
    d: usize,
    categorical: &'static [usize],
    unbinned: &'static [usize],
}

const SETS: [Expected; 7] = [
    Expected {
        name: "parkinsons",
        card: "parkinsons",
        table: "DiPriMe Table 1",
        abbreviation: "Parkinson's",
        n: 5875,
        d: 19,
        categorical: &[1],
        unbinned: &[],
    },
    Expected {
        name: "appliances",
        card: "appliances",
        table: "DiPriMe Table 1",
        abbreviation: "Appliances",
        n: 19735,
        d: 27,
        categorical: &[25],
        unbinned: &[],
    },
    Expected {
        name: "traffic",
        card: "traffic",
        table: "DiPriMe Table 1",
        abbreviation: "Traffic",
        n: 48204,
        d: 8,
        categorical: &[0, 5, 6],
        unbinned: &[],
    },
    Expected {
        name: "gas_turbine",
        card: "turbine",
        table: "DiPriMe Table 1",
        abbreviation: "Turbine",
        n: 36733,
        d: 10,
        categorical: &[],
        unbinned: &[],
    },
    Expected {
        name: "banknote",
        card: "banknote",
        table: "DiPriMe Table 2",
        abbreviation: "Banknote",
        n: 1372,
        d: 4,
        categorical: &[],
        unbinned: &[],
    },
    Expected {
        name: "credit_default",
        card: "credit_card",
        table: "DiPriMe Table 2",
        abbreviation: "Credit Card",
        n: 30000,
        d: 23,
        categorical: &[1, 2, 3],
        unbinned: &[5, 6, 7, 8, 9, 10],
    },
    Expected {
        name: "wall_following",
        card: "robot",
        table: "DiPriMe Table 2",
        abbreviation: "Robot",
        n: 5456,
        d: 24,
        categorical: &[],
        unbinned: &[],
    },
];

fn manifest_dir() -> PathBuf {
    common::root().join("datasets")
}

/// The indices in the card's `categorical_features` text ("sex (index 1)", "… = indices
/// 0,5,6", "none").
fn card_indices(text: &str) -> Vec<usize> {
    match text.find("ind") {
        None => Vec::new(),
        Some(at) => text[at..]
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect(),
    }
}

/// Every manifest cites the paper's table with the N it prints (no d: the paper prints
/// none), agrees with the card's n, d and categorical indices, and says MISMATCH where the
/// file differs from the card (none does).
#[test]
fn each_manifest_cites_the_paper_and_agrees_with_the_card() {
    let card: Option<BTreeMap<String, (usize, usize, Vec<usize>, usize)>> =
        common::reported_file("diprime_datasets.csv").map(|path| {
            let mut rdr = csv::Reader::from_path(path).unwrap();
            let h = rdr.headers().unwrap().clone();
            let col = |name: &str| h.iter().position(|c| c == name).unwrap();
            let (key, n, d, cat, occ) = (
                col("dataset"),
                col("n"),
                col("d_if_known"),
                col("categorical_features"),
                col("min_leaf_occupancy"),
            );
            rdr.records()
                .map(|r| {
                    let r = r.unwrap();
                    let parsed = (
                        r[n].parse().unwrap(),
                        r[d].parse().unwrap(),
                        card_indices(&r[cat]),
                        r[occ].parse().unwrap(),
                    );
                    (r[key].to_string(), parsed)
                })
                .collect()
        });
    for e in &SETS {
        let m = find_manifest(e.name, &[manifest_dir()]).unwrap();
        assert_eq!((m.n_rows, m.n_features), (e.n, e.d), "{}", e.name);
        let task = if e.table.ends_with('1') {
            Task::Regression
        } else {
            Task::Classification
        };
        assert_eq!(m.task, task, "{}", e.name);
        assert_eq!(m.paper.len(), 1, "{}", e.name);
        let p = &m.paper[0];
        assert_eq!(
            (p.table.as_str(), p.abbreviation.as_str(), p.n, p.d),
            (e.table, e.abbreviation, e.n, None),
            "{}",
            e.name
        );
        let note = m.note.as_deref().unwrap_or("");
        assert!(note.contains("§6.2"), "{}: the note cites the card", e.name);
        if let Some(card) = &card {
            let (n, d, categorical, occupancy) = &card[e.card];
            // The depth rule's occupancy (card §5): 10 on Banknote, 25 elsewhere.
            assert_eq!(m.leaf_occupancy, Some(*occupancy), "{}", e.name);
            let differs = (*n, *d) != (m.n_rows, m.n_features) || categorical != e.categorical;
            assert_eq!(differs, note.contains("MISMATCH"), "{}", e.name);
            assert!(
                !differs,
                "{}: the card says {n} x {d}, {categorical:?}",
                e.name
            );
        }
        if task == Task::Regression {
            let rescale = m.encode.as_ref().and_then(|enc| enc.target);
            assert!(rescale.is_some(), "{}: target rescaled", e.name);
            assert!(note.contains("applied at load"), "{}", e.name);
        }
    }
}

/// Loads every data set (None with a printed note when the data folder lacks them).
fn load_all() -> Option<BTreeMap<&'static str, Dataset>> {
    let files: Vec<String> = SETS.iter().map(|e| format!("{}.csv", e.name)).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let data = common::real_data(&files)?;
    Some(
        SETS.iter()
            .map(|e| {
                let m = find_manifest(e.name, &[manifest_dir()]).unwrap();
                let loaded = load_manifest_dataset(&m, Some(&data)).unwrap();
                assert_eq!(loaded.dropped_rows, 0, "{}", e.name);
                (e.name, loaded.dataset)
            })
            .collect(),
    )
}

/// The distinct values of feature `k`.
fn distinct(ds: &Dataset, k: usize) -> Vec<f64> {
    let mut v: Vec<f64> = (0..ds.n()).map(|i| ds.x.row(i)[k]).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
            (lo.min(y), hi.max(y))
        })
}

/// The loaded data have the card's n, d, categorical (and Credit's unbinned) indices, finite
/// values, regression targets in [0, 1] (min 0 and max 1; Parkinson's divided by its
/// maximum, min 7/54.992 ≈ 0.127) and 0/1 classes (Robot's class-1 share 0.596).
#[test]
fn each_data_set_loads_as_the_card_describes() {
    let Some(all) = load_all() else {
        return;
    };
    for e in &SETS {
        let ds = &all[e.name];
        assert_eq!((ds.n(), ds.d()), (e.n, e.d), "{}", e.name);
        assert_eq!(ds.categorical, e.categorical, "{}", e.name);
        assert_eq!(ds.unbinned, e.unbinned, "{}", e.name);
        assert!(
            ds.x.data.iter().chain(&ds.y).all(|v| v.is_finite()),
            "{}",
            e.name
        );
        let (lo, hi) = min_max(&ds.y);
        match ds.task {
            Task::Regression if e.name == "parkinsons" => {
                assert_eq!((lo, hi), (7.0 / 54.992, 1.0), "y / max y");
                assert!((lo - 0.127).abs() < 5e-4);
            }
            Task::Regression => assert_eq!((lo, hi), (0.0, 1.0), "{}: min-max", e.name),
            Task::Classification => {
                assert!(ds.y.iter().all(|&y| y == 0.0 || y == 1.0), "{}", e.name);
            }
        }
    }
    let robot = &all["wall_following"];
    let ones = robot.y.iter().filter(|&&y| y == 1.0).count();
    assert_eq!(ones, 3251, "the three turning classes");
    assert_eq!(format!("{:.3}", ones as f64 / robot.n() as f64), "0.596");
    // The first row of the Robot file is a Slight-Right-Turn.
    assert_eq!(robot.y[0], 1.0);
}

/// Traffic: holiday and weather_main as pandas category codes (12 and 11 values, the index
/// in the sorted distinct values), weekday (7 values, Monday = 0) and hour from date_time.
/// Appliances: Month (5 values, January..May as 1..5) and Day from date.
#[test]
fn derived_columns_and_category_codes_hold_the_papers_values() {
    let Some(all) = load_all() else {
        return;
    };
    let traffic = &all["traffic"];
    let codes = |k: usize, count: usize| {
        assert_eq!(
            distinct(traffic, k),
            (0..count).map(|c| c as f64).collect::<Vec<_>>(),
            "feature {k}"
        );
    };
    codes(0, 12); // holiday
    codes(5, 11); // weather_main
    codes(6, 7); // weekday
    codes(7, 24); // hour

    // Row 1: None (code 7 of 12), 288.28, 0, 0, 40, Clouds (1 of 11), 2012-10-02 09:00:00 =
    // a Tuesday (1) at 9; traffic_volume 5545 of [0, 7280].
    assert_eq!(
        traffic.x.row(0),
        &[7.0, 288.28, 0.0, 0.0, 40.0, 1.0, 1.0, 9.0]
    );
    assert_eq!(traffic.y[0], 5545.0 / 7280.0);
    // 48143 of the 48204 rows are no holiday ('None').
    let none = (0..traffic.n())
        .filter(|&i| traffic.x.row(i)[0] == 7.0)
        .count();
    assert_eq!(none, 48143);

    let appliances = &all["appliances"];
    assert_eq!(
        distinct(appliances, 25),
        vec![1.0, 2.0, 3.0, 4.0, 5.0],
        "Month"
    );
    let days = distinct(appliances, 26);
    assert_eq!((days[0], days[days.len() - 1], days.len()), (1.0, 31.0, 31));
    // Row 1: 2016-01-11 17:00:00, lights 30, Appliances 60 of [10, 1080].
    let row = appliances.x.row(0);
    assert_eq!((row[0], row[25], row[26]), (30.0, 1.0, 11.0));
    assert_eq!(appliances.y[0], (60.0 - 10.0) / (1080.0 - 10.0));

    // Credit's categorical columns keep their UCI codes: SEX 1..2, EDUCATION 0..6,
    // MARRIAGE 0..3.
    let credit = &all["credit_default"];
    let count = |k| distinct(credit, k).len();
    assert_eq!((count(1), count(2), count(3)), (2, 7, 4));
    let parkinsons = &all["parkinsons"];
    assert_eq!(distinct(parkinsons, 1), vec![0.0, 1.0], "sex");
}

/// A malformed timestamp in a file read by Traffic's own rules is an error naming the file,
/// the line, the column and the format.
#[test]
fn a_malformed_date_names_file_and_line() {
    let m = find_manifest("traffic", &[manifest_dir()]).unwrap();
    let encoding = m.encode.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("traffic.csv");
    std::fs::write(
        &path,
        "holiday,temp,rain_1h,snow_1h,clouds_all,weather_main,weather_description,date_time,traffic_volume\n\
         None,288.28,0.0,0.0,40,Clouds,scattered clouds,2012-10-02 09:00:00,5545\n\
         None,289.36,0.0,0.0,75,Clouds,broken clouds,2012-10-02 25:00:00,4516\n",
    )
    .unwrap();
    let err = load_encoded(&path, "traffic", m.format(), &encoding)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&path.display().to_string())
            && err.contains("line 3, column 7 (\"date_time\")")
            && err.contains("\"2012-10-02 25:00:00\"")
            && err.contains("%Y-%m-%d %H:%M:%S"),
        "{err}"
    );
}

/// `dp-repro data list` shows the seven data sets with the paper's tables and names, and
/// `dp-repro list datasets` their shapes and N.
#[test]
fn data_list_shows_them() {
    let files: Vec<String> = SETS.iter().map(|e| format!("{}.csv", e.name)).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("dp-repro")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let data = data.to_str().unwrap();
    let listed = run(&["data", "list", "--data-dir", data]);
    let shapes = run(&["list", "datasets"]);
    for e in &SETS {
        let line = listed
            .lines()
            .find(|l| l.split_whitespace().next() == Some(e.name))
            .unwrap_or_else(|| panic!("{}: {listed}", e.name));
        assert!(line.contains("verified"), "{line}");
        assert!(
            line.contains(&format!("{} ({})", e.table, e.abbreviation)),
            "{line}"
        );
        let line = shapes
            .lines()
            .find(|l| l.split_whitespace().next() == Some(e.name))
            .unwrap_or_else(|| panic!("{}: {shapes}", e.name));
        assert!(
            line.contains(&format!("{} rows × {} features", e.n, e.d))
                && line.contains(&format!("{}: n={}]", e.abbreviation, e.n)),
            "{line}"
        );
    }
}
