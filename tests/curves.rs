//! Fitted-curve figures (`curves:`, LPDT Fig. 1): the true function, and each method's
//! refitted selected grid point on a grid of [0,1].

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

#[test]
fn figure1_draws_the_truth_and_both_fits() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("f1");
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .args([
            "run",
            "specs/lpdt/figure1.yaml",
            "--quiet",
            "--reps",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for ext in ["svg", "png", "csv"] {
        assert!(out.join(format!("figures/figure1.{ext}")).exists(), "{ext}");
    }
    let csv = fs::read_to_string(out.join("figures/figure1.csv")).unwrap();
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for row in csv.lines().skip(1) {
        // figure,dataset,x,line,method,epsilon,mean,... ; labels are quoted if they hold commas
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(row.as_bytes());
        let rec = r.records().next().unwrap().unwrap();
        lines
            .entry(rec[4].to_string())
            .or_default()
            .push((rec[2].parse().unwrap(), rec[6].parse().unwrap()));
    }
    assert_eq!(
        lines.len(),
        3,
        "truth + two methods: {:?}",
        lines.keys().collect::<Vec<_>>()
    );
    for (x, y) in &lines["truth"] {
        assert!((y - (16.0 * x).sin()).abs() < 1e-12);
    }
    // A tree fit is piecewise constant: at most 2^8 values (depth <= 8), far fewer than
    // the 101 grid points, and finite.
    for m in ["LPDT-M", "LPDT (no public data)"] {
        let v = &lines[m];
        assert_eq!(v.len(), 101);
        let mut distinct: Vec<f64> = v.iter().map(|p| p.1).collect();
        assert!(distinct.iter().all(|y| y.is_finite()));
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert!(
            distinct.len() < 101,
            "{m}: {} distinct values",
            distinct.len()
        );
    }
}
