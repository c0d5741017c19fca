//! The DiPriMe figure specs (`specs/diprime/figure1.yaml`, `figure2.yaml`,
//! `heatmaps.yaml`, `figure3.yaml`): each validates against the real data; Fig. 2
//! (Banknote, a few seconds) and Fig. 3 (Robot, under a second) run end to end into their
//! figure files.

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

/// Exact training rows of every leaf, summed per (panel method, tree), from
/// `figure3-leaves.csv`.
fn rows_per_tree(path: &std::path::Path) -> BTreeMap<(String, usize), usize> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (m, t, rows) = (col("method"), col("tree"), col("rows"));
    let mut out = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        *out.entry((rec[m].to_string(), rec[t].parse().unwrap()))
            .or_insert(0) += rec[rows].parse::<usize>().unwrap();
    }
    out
}

fn dp_repro(data: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .env("DP_REPRO_DATA", data)
        .args(args)
        .output()
        .unwrap()
}

/// Fig. 3 (card §7): `check` refits the four forests of the run, writes the histograms
/// and their CSVs, and the paper's "balanced leaves" claim holds. Each tree's leaves
/// partition its training rows (every tree of these four sees all 4,910 rows), so the
/// exact leaf counts of a tree sum to n_train; DP-DF in paper mode too (exact counts,
/// the card's pruning), while as run a leaf of noisy size 0 stores 1 row.
#[test]
fn figure3_leaf_occupancy_partitions_the_rows_and_the_claim_holds() {
    let Some(data) = common::real_data(&["wall_following.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = dp_repro(
        &data,
        &[
            "check",
            "specs/diprime/figure3.yaml",
            "--results",
            out.to_str().unwrap(),
            "--quiet",
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("Claims: 1 of 1 hold"), "{stdout}");
    let figs = out.join("figures");
    for f in [
        "figure3.svg",
        "figure3.png",
        "figure3.csv",
        "figure3-summary.csv",
    ] {
        assert!(figs.join(f).is_file(), "{f} missing");
    }
    let n_train = 4910; // ⌊0.9 × 5456⌋ rows of Robot
    let sums = rows_per_tree(&figs.join("figure3-leaves.csv"));
    for method in ["DiPriMe", "DP-RF", "DP-ERT"] {
        for tree in 1..=10 {
            assert_eq!(
                sums[&(method.to_string(), tree)],
                n_train,
                "{method} tree {tree}"
            );
        }
    }
    // The per-bin CSV bins every leaf up to n_train/4 into 23 bins per panel.
    let bins = fs::read_to_string(figs.join("figure3.csv")).unwrap();
    assert_eq!(bins.lines().count(), 1 + 4 * 23);

    // DP-DF in paper mode: exact counts and the card's pruning rule.
    let spec = fs::read_to_string(root().join("specs/diprime/figure3.yaml")).unwrap();
    let paper = spec.replace(
        "{trees: 10, depth: 3, prune: true, epsilon_factor: 0.5, mode: reference_quirks}",
        "{trees: 10, depth: 3, prune: true, epsilon_factor: 0.5, mode: paper}",
    );
    assert_ne!(
        paper, spec,
        "the DP-DF line of figure3.yaml changed; update this test"
    );
    let path = tmp.path().join("figure3-paper.yaml");
    fs::write(&path, paper).unwrap();
    let out2 = tmp.path().join("paper");
    let o = dp_repro(
        &data,
        &[
            "run",
            path.to_str().unwrap(),
            "--manifests",
            root().join("datasets").to_str().unwrap(),
            "--out",
            out2.to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sums = rows_per_tree(&out2.join("figures/figure3-leaves.csv"));
    for tree in 1..=10 {
        assert_eq!(
            sums[&("DP-DF".to_string(), tree)],
            n_train,
            "DP-DF tree {tree}"
        );
    }
}

/// A leaf-occupancy figure that names a method the spec does not have is refused at
/// validation, naming the field.
#[test]
fn leaf_occupancy_with_an_unknown_method_is_refused() {
    let Some(data) = common::real_data(&["wall_following.csv"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let spec = fs::read_to_string(root().join("specs/diprime/figure3.yaml"))
        .unwrap()
        .replace("- {method: DP-RF, label:", "- {method: DP-RFX, label:");
    let path = tmp.path().join("bad.yaml");
    fs::write(&path, spec).unwrap();
    let o = dp_repro(
        &data,
        &[
            "validate",
            path.to_str().unwrap(),
            "--manifests",
            root().join("datasets").to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        stderr.contains("leaf_occupancy[0].panels[2].method") && stderr.contains("DP-RFX"),
        "{stderr}"
    );
}
