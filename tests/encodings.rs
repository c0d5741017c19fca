//! The LPCT paper's raw data files made numeric by the rules their manifests declare
//! (issue 9 item 2): for each, the complete rows, the encoded dimension d (LPCT Table 1,
//! `../shared/reported/lpct_table1_datasets.csv`) and the label balance. The expected counts
//! were taken from the files independently of dp-repro (Python's csv module over the same
//! files, with the shared data README's counts): complete rows are those without an empty,
//! `?` or `NA` cell anywhere.

mod common;

use dp_repro::data::{find_manifest, load_manifest_dataset};

/// (manifest, complete rows, d, rows of class 1).
const EXPECTED: [(&str, usize, usize, usize); 8] = [
    // 617 complete rows = 567 private + 50 public; 104 tried masking their identity.
    ("anonymity", 617, 14, 104),
    // Osmancik (class 1): 2180 of 3810.
    ("rice", 3810, 7, 2180),
    // 45,222 complete rows; 11,208 earn >50K.
    ("census", 45_222, 46, 11_208),
    // 1,837 complete rows of 2,413 (the copy's injected blanks); Clinton won 912.
    ("election", 1_837, 9, 912),
    // 1,600 leavers of 4,653.
    ("employee", 4_653, 9, 1_600),
    // Employable (class 1): 1,729 of 2,982.
    ("employ", 2_982, 8, 1_729),
    ("diabetes_pub", 200, 8, 75),
    ("diabetes_pri", 2_568, 8, 877),
];

#[test]
fn each_raw_file_encodes_to_the_papers_dimension_with_its_rows_and_labels() {
    let files: Vec<String> = EXPECTED.iter().map(|e| format!("{}.csv", e.0)).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let Some(data) = common::real_data(&files) else {
        return;
    };
    let table1 =
        std::fs::read_to_string(common::root().join("../shared/reported/lpct_table1_datasets.csv"))
            .ok();
    for (name, rows, d, ones) in EXPECTED {
        let m = find_manifest(name, &[common::root().join("datasets")]).unwrap();
        let loaded = load_manifest_dataset(&m, Some(&data)).unwrap();
        let ds = &loaded.dataset;
        assert_eq!(ds.n(), rows, "{name}: complete rows");
        assert_eq!(ds.d(), d, "{name}: encoded d");
        assert_eq!(
            ds.n() + loaded.dropped_rows,
            m.n_rows,
            "{name}: rows in the file"
        );
        let class1 = ds.y.iter().filter(|&&y| y == 1.0).count();
        let class0 = ds.y.iter().filter(|&&y| y == 0.0).count();
        assert_eq!(
            (class1, class0),
            (ones, rows - ones),
            "{name}: label balance"
        );
        // The encoded d is the paper's (Table 1) where the shared table is present.
        if let Some(t) = &table1 {
            let abbreviation = &m.paper[0].abbreviation;
            if let Some(line) = t
                .lines()
                .find(|l| l.starts_with(&format!("{abbreviation},")))
            {
                let paper_d: usize = line.split(',').nth(4).unwrap().parse().unwrap();
                assert_eq!(ds.d(), paper_d, "{name}: Table 1's d");
            }
        }
        // Every feature is finite; one-hot and code columns hold their values only.
        assert!(ds.x.row(0).iter().all(|v| v.is_finite()));
    }
}
