//! The DiPriMe figure specs (`specs/diprime/figure1.yaml`, `figure2.yaml`,
//! `heatmaps.yaml`): each validates against the real data, and Fig. 2 (Banknote, a few
//! seconds) runs end to end into its figure files.

mod common;

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::fs;

use common::root;

#[test]
fn the_diprime_figure_specs_validate() {
    let Some(data) = common::real_data(&["appliances.csv", "banknote.csv"]) else {
        return;
    };
    for (spec, tasks) in [
        ("figure1.yaml", "5,860 tasks"),
        ("figure2.yaml", "510 tasks"),
        ("heatmaps.yaml", "320 tasks"),
    ] {
        let o = Command::cargo_bin("dp-repro")
            .unwrap()
            .current_dir(root())
            .env("DP_REPRO_DATA", &data)
            .args(["validate", &format!("specs/diprime/{spec}")])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(stdout.contains(tasks), "{spec}: {stdout}");
    }
}

#[test]
fn figure2_runs_end_to_end() {
    let Some(data) = common::real_data(&["banknote.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .env("DP_REPRO_DATA", &data)
        .args([
            "run",
            "specs/diprime/figure2.yaml",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dir = out.join("figures");
    for ext in ["svg", "png", "csv"] {
        assert!(dir.join(format!("figure2-banknote.{ext}")).is_file());
    }
    // line → ε → mean accuracy.
    let mut points: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut rdr = csv::Reader::from_path(dir.join("figure2-banknote.csv")).unwrap();
    for r in rdr.records() {
        let r = r.unwrap();
        points
            .entry(r[3].to_string())
            .or_default()
            .insert(r[2].to_string(), r[6].parse().unwrap());
    }
    assert_eq!(points.len(), 9, "{:?}", points.keys());
    assert!(points.values().all(|p| p.len() == 8), "8 epsilons per line");
    // Non-private lines are flat; at epsilon 300 DiPriMe is near RF and far above DP-DF,
    // whose reference predictions are the noisy root majority (card §4.6).
    let rf = &points["RF (non-private)"];
    assert!(rf.values().all(|v| *v == rf["0.1"]));
    let dipr = points["DiPriMe"]["300"];
    assert!(dipr > 0.9 && dipr <= 1.0, "DiPriMe at 300: {dipr}");
    assert!(dipr > points["DP-DF"]["300"] + 0.2);
    let text = fs::read_to_string(dir.join("figure2-banknote.svg")).unwrap();
    assert!(text.contains("DP-ERT") && text.contains("DiPriMeFlip"));
}
