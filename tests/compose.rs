//! Methods as compositions of blocks: the presets, a baseline defined in YAML only and run
//! end to end, the privacy validation of compositions, and the generic ratio estimator
//! for every cell and label mechanism.

mod common;

use dp_repro::data::{Dataset, Escape, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{registry, Composed, Composition, Method, ParamValue, Params, RepData};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::fs;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dp_repro(args: &[&str]) -> (i32, String, String) {
    common::dp_repro_in(&root(), args)
}

#[test]
fn the_paper_methods_are_presets_of_blocks() {
    let names: Vec<String> = registry().iter().map(|m| m.name().to_string()).collect();
    for n in ["LPDT-M", "LPDT-V", "PHIST", "APHIST", "DT", "DT-pub"] {
        assert!(names.contains(&n.to_string()), "{n} in {names:?}");
    }
    let lpdt = registry()
        .into_iter()
        .find(|m| m.name() == "LPDT-M")
        .unwrap();
    assert_eq!(
        lpdt.blocks().unwrap(),
        "partition max_edge on public, cell randomized_response, label laplace, estimator ratio, budget rho"
    );
    let dt = registry().into_iter().find(|m| m.name() == "DT").unwrap();
    assert!(!dt.private());
}

const BASELINE: &str = "name: yaml-baseline\nseed: 9\nrepetitions: 3\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 400, private: 3000, test: 500}}\nepsilons: [2, 8]\nmethods:\n  - label: LPDT-Lap-RME\n    compose:\n      partition: {rule: random_max_edge, grown_on: public}\n      cell_mechanism: laplace\n      label_mechanism: laplace\n      estimator: ratio\n      budget: rho\n    grid: {depth: [2, 3], min_leaf: [20], rho: [0.5]}\n  - method: LPDT-M\n    grid: {depth: [2, 3], min_leaf: [20], rho: [0.5]}\ntables:\n  - {name: t, epsilons: [2, 8], methods: [LPDT-Lap-RME, LPDT-M]}\n";

#[test]
fn a_baseline_defined_in_yaml_only_runs_end_to_end_and_is_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("baseline.yaml");
    fs::write(&spec, BASELINE).unwrap();
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = dp_repro(&[
        "run",
        spec.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("LPDT-Lap-RME"), "{stdout}");
    let runs = fs::read_to_string(out.join("runs.csv")).unwrap();
    let rows: Vec<&str> = runs
        .lines()
        .filter(|l| l.contains(",LPDT-Lap-RME,"))
        .collect();
    assert_eq!(rows.len(), 2 * 2 * 3, "2 depths × 2 ε × 3 repetitions");
    for r in rows {
        let mse: f64 = r.split(',').nth(7).unwrap().parse().unwrap();
        assert!(mse.is_finite() && mse > 0.5, "{r}");
    }
    let (code, stdout, _) = dp_repro(&["list", "methods", "--spec", spec.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("LPDT-Lap-RME"));
    assert!(stdout.contains("blocks: partition random_max_edge on public, cell laplace, label laplace, estimator ratio, budget rho"), "{stdout}");
}

fn rejected(compose: &str, expect: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("bad.yaml");
    let text = BASELINE.replace(
        "      partition: {rule: random_max_edge, grown_on: public}\n      cell_mechanism: laplace\n      label_mechanism: laplace\n      estimator: ratio\n      budget: rho\n",
        compose,
    );
    fs::write(&spec, text).unwrap();
    let (code, _, stderr) = dp_repro(&["validate", spec.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("methods[0].compose") && stderr.contains(expect),
        "{stderr}"
    );
}

#[test]
fn compositions_that_are_not_ldp_are_rejected() {
    rejected(
        "      partition: {rule: max_edge, grown_on: private}\n      cell_mechanism: randomized_response\n      label_mechanism: laplace\n      estimator: ratio\n",
        "grown on private data inside a local-DP method",
    );
    rejected(
        "      partition: {rule: max_edge, grown_on: public}\n      cell_mechanism: randomized_response\n      label_mechanism: laplace\n      estimator: ratio\n      budget: {cell: 0.7, label: 0.5}\n",
        "add up to 1.2 > 1",
    );
    rejected(
        "      partition: {rule: max_edge, grown_on: public}\n      cell_mechanism: none\n      label_mechanism: laplace\n      estimator: ratio\n",
        "in the clear",
    );
    rejected(
        "      partition: {rule: histogram, grown_on: none}\n      cell_mechanism: randomized_response\n      label_mechanism: laplace\n      estimator: histogram\n",
        "implemented for",
    );
}

/// Private points in [0,1]: the left half has label 1, the right half label 3.
fn step_data() -> RepData {
    let ds = |n: usize| {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect();
        let y: Vec<f64> = x.iter().map(|&v| if v < 0.5 { 1.0 } else { 3.0 }).collect();
        Dataset {
            name: "step".into(),
            x: Matrix::new(n, 1, x),
            y,
            task: Task::Regression,
            fixed_public: 0,
            leaf_occupancy: None,
            categorical: Vec::new(),
            unbinned: Vec::new(),
        }
    };
    RepData {
        public: ds(200),
        private: PrivateRows::new(ds(4000)),
        test: ds(100),
        bounds: LabelBounds { lo: 0.0, hi: 4.0 },
        masks: None,
    }
}

#[test]
fn every_cell_and_label_mechanism_estimates_leaf_means_at_a_large_epsilon() {
    // ε = 400, ρ = 0.5: the cell scores' noise per leaf sums to an sd of about
    // 2/(ρε)·sqrt(2n) ≈ 0.9 against counts of 2000, and the label noise to
    // R/((1−ρ)ε)·sqrt(2·2000) ≈ 1.3 against label sums of 2000–6000: the leaf values are
    // within 0.005 of the true means with overwhelming probability; 0.05 leaves room.
    let data = step_data();
    for (cell, label) in [
        ("laplace", "laplace"),
        ("generalized_rr", "laplace"),
        ("randomized_response", "laplace_vector"),
        ("laplace", "laplace_vector"),
    ] {
        let yaml = format!(
            "partition: {{rule: max_edge, grown_on: public}}\ncell_mechanism: {cell}\nlabel_mechanism: {label}\nestimator: ratio\nbudget: rho\n"
        );
        let comp: Composition = serde_yaml::from_str(&yaml).unwrap();
        let m = Composed::new("x", "test", comp).unwrap();
        let structural = Params(vec![
            ("depth".into(), ParamValue::Int(1)),
            ("min_leaf".into(), ParamValue::Int(5)),
            ("min_samples_split".into(), ParamValue::Int(2)),
        ]);
        let mut rng = Pcg64::seed_from_u64(1);
        let prepared = m.prepare(&data, &structural, &mut rng).unwrap().unwrap();
        let mech = Params(vec![
            ("rho".into(), ParamValue::Float(0.5)),
            ("tau".into(), ParamValue::Int(0)),
            ("ood".into(), ParamValue::Str("zero".into())),
            ("y_center".into(), ParamValue::Bool(false)),
        ]);
        let pred = prepared.predict(&mech, Some(400.0), &mut rng).unwrap();
        for (p, y) in pred.iter().zip(&data.test.y) {
            assert!(
                (p - y).abs() < 0.05,
                "{cell}/{label}: predicted {p}, true {y}"
            );
        }
    }
}

#[test]
fn random_max_edge_without_data_is_a_seeded_complete_tree() {
    let data = step_data();
    let comp: Composition = serde_yaml::from_str(
        "partition: {rule: random_max_edge, grown_on: none}\ncell_mechanism: randomized_response\nlabel_mechanism: laplace\nestimator: ratio\n",
    )
    .unwrap();
    let m = Composed::new("rme", "test", comp).unwrap();
    assert_eq!(
        m.params().iter().map(|p| p.name).collect::<Vec<_>>(),
        vec!["depth", "rho", "simulation", "tau", "ood"]
    );
    let structural = Params(vec![("depth".into(), ParamValue::Int(3))]);
    let mech = Params(vec![
        ("rho".into(), ParamValue::Float(0.5)),
        ("tau".into(), ParamValue::Int(0)),
        ("ood".into(), ParamValue::Str("zero".into())),
        ("simulation".into(), ParamValue::Str("fast".into())),
    ]);
    let run = |seed| {
        let mut rng = Pcg64::seed_from_u64(seed);
        let p = m.prepare(&data, &structural, &mut rng).unwrap().unwrap();
        p.predict(&mech, Some(400.0), &mut rng).unwrap()
    };
    assert_eq!(run(5), run(5), "same stream, same predictions");
    // 8 dyadic cells of [0,1]: each leaf is inside one half, so the means are recovered.
    for (p, y) in run(5).iter().zip(&data.test.y) {
        assert!((p - y).abs() < 0.1, "{p} vs {y}");
    }
}

#[test]
fn subsample_fits_on_the_first_share_of_the_private_users() {
    // step_data's private users are ordered by x: with private_share 0.5 a non-private
    // tree grown on them sees only the left half (label 1), so it predicts 1 everywhere;
    // with share 1 it recovers the step.
    let data = step_data();
    let comp: Composition = serde_yaml::from_str(
        "partition: {rule: cart_exhaustive, grown_on: private}\ncell_mechanism: none\nlabel_mechanism: none\nestimator: leaf_mean\nsubsample: true\n",
    )
    .unwrap();
    let m = Composed::new("dt-sub", "test", comp).unwrap();
    assert_eq!(
        m.params().iter().map(|p| p.name).collect::<Vec<_>>(),
        vec!["max_depth", "private_share"]
    );
    assert!(m
        .blocks()
        .unwrap()
        .ends_with("subsample of the private users"));
    let predict = |share: f64| {
        let structural = Params(vec![
            ("max_depth".into(), ParamValue::Int(2)),
            ("private_share".into(), ParamValue::Float(share)),
        ]);
        let mut rng = Pcg64::seed_from_u64(3);
        let p = m.prepare(&data, &structural, &mut rng).unwrap().unwrap();
        p.predict(&Params::default(), None, &mut rng).unwrap()
    };
    assert!(predict(0.5).iter().all(|&v| v == 1.0));
    assert_eq!(predict(1.0), data.test.y);
}

#[test]
fn the_mixture_partition_set_mixes_public_and_removed_private_points() {
    // docs/methods/lpdt.md §8.6: m = n_pub points, round(δm) public, the rest private users that no
    // longer report.
    let data = step_data(); // 200 public, 4000 private
    let mut rng = Pcg64::seed_from_u64(8);
    for (delta, k_pub) in [(1.0, 200), (0.5, 100), (0.0, 0), (0.3, 60)] {
        let (reduced, grow) = dp_repro::methods::compose::mixture(&data, delta, &mut rng);
        assert_eq!(grow.n(), 200, "delta {delta}");
        assert_eq!(reduced.private.n(), 4000 - (200 - k_pub), "delta {delta}");
        // The private points in the set are the first users of the private order, and the
        // reporting users are the rest.
        let k_priv = 200 - k_pub;
        let (before, after) = (
            data.private.escape(Escape::Bookkeeping),
            reduced.private.escape(Escape::Bookkeeping),
        );
        assert_eq!(&grow.y[k_pub..], &before.y[..k_priv]);
        assert_eq!(after.y[..], before.y[k_priv..]);
        assert_eq!(reduced.public.n(), 200);
    }
    let text = "partition: {rule: max_edge, grown_on: mixture}\ncell_mechanism: randomized_response\nlabel_mechanism: laplace\nestimator: ratio\n";
    // Private users' records in the clear need an explicit acknowledgement …
    let bare: Composition = serde_yaml::from_str(text).unwrap();
    let err = Composed::new("mix", "test", bare).unwrap_err();
    assert!(err.contains("non_private_users: true"), "{err}");
    let comp: Composition =
        serde_yaml::from_str(&format!("{text}non_private_users: true\n")).unwrap();
    let m = Composed::new("mix", "test", comp).unwrap();
    // … which the table notes repeat.
    assert!(
        m.privacy_notes()[0].contains("no privacy"),
        "{:?}",
        m.privacy_notes()
    );
    // And is refused where no private record is used in the clear.
    let public: Composition = serde_yaml::from_str(
        &text
            .replace("grown_on: mixture", "grown_on: public")
            .to_string()
            .replace(
                "estimator: ratio\n",
                "estimator: ratio\nnon_private_users: true\n",
            ),
    )
    .unwrap();
    assert!(Composed::new("pub", "test", public).is_err());
    assert_eq!(
        m.params().iter().map(|p| p.name).collect::<Vec<_>>(),
        vec![
            "depth",
            "min_leaf",
            "min_samples_split",
            "delta",
            "rho",
            "simulation",
            "tau",
            "ood"
        ]
    );
}

/// `y_center` on the ratio estimator over a Laplace label vector (the LPDT authors' code's
/// Laplace estimator, docs/methods/lpdt.md §5): users release labels shifted by the bounds' midpoint and
/// the curator adds it back. On the step data moved to labels 101 and 103 (bounds
/// [100, 104]) at ε = 8, ρ = 0.5, the uncentred vector's scale is 2·104/4 = 52 per
/// coordinate, so a leaf's label sum over 2000 users carries noise of sd 52·√4000 ≈ 3300
/// against sums of about 204,000 (1.6 %, about 1.6 in the estimate), and its count's 2.2 %
/// error multiplies a label near 102 (about 2.3): an MSE of several units. Centred, the
/// scale is 2·2/4 = 1 and the count's error multiplies |y − c| = 1: an MSE of about 0.002.
/// Over 10 seeds the centred MSE is asserted below a hundredth of the uncentred one (the
/// expected ratio is over a thousand). At ε = 400 the centred estimate recovers the leaf
/// means, so the midpoint is added back.
#[test]
fn y_center_releases_centred_labels_and_adds_the_midpoint_back() {
    let mut data = step_data();
    let mut private = data.private.escape(Escape::Bookkeeping).clone();
    for d in [&mut data.public, &mut private, &mut data.test] {
        for y in &mut d.y {
            *y += 100.0;
        }
    }
    data.private = PrivateRows::new(private);
    data.bounds = LabelBounds {
        lo: 100.0,
        hi: 104.0,
    };
    let comp = |label: &str| -> Composed {
        let yaml = format!(
            "partition: {{rule: max_edge, grown_on: public}}\ncell_mechanism: laplace\nlabel_mechanism: {label}\nestimator: ratio\nbudget: rho\n"
        );
        Composed::new("x", "test", serde_yaml::from_str(&yaml).unwrap()).unwrap()
    };
    let names = |m: &Composed| m.params().iter().map(|p| p.name).collect::<Vec<_>>();
    assert!(names(&comp("laplace_vector")).contains(&"y_center"));
    assert!(
        !names(&comp("laplace")).contains(&"y_center"),
        "the scalar label has no y_center"
    );
    let m = comp("laplace_vector");
    let structural = Params(vec![
        ("depth".into(), ParamValue::Int(1)),
        ("min_leaf".into(), ParamValue::Int(5)),
        ("min_samples_split".into(), ParamValue::Int(2)),
    ]);
    let mech = |centre: bool| {
        Params(vec![
            ("rho".into(), ParamValue::Float(0.5)),
            ("tau".into(), ParamValue::Int(0)),
            ("ood".into(), ParamValue::Str("zero".into())),
            ("y_center".into(), ParamValue::Bool(centre)),
        ])
    };
    let mse = |centre: bool, epsilon: f64, seed: u64| -> f64 {
        let mut rng = Pcg64::seed_from_u64(seed);
        let prepared = m.prepare(&data, &structural, &mut rng).unwrap().unwrap();
        let pred = prepared
            .predict(&mech(centre), Some(epsilon), &mut rng)
            .unwrap();
        pred.iter()
            .zip(&data.test.y)
            .map(|(p, y)| (p - y) * (p - y))
            .sum::<f64>()
            / pred.len() as f64
    };
    assert!(mse(true, 400.0, 1) < 0.05 * 0.05, "{}", mse(true, 400.0, 1));
    let (centred, raw): (f64, f64) = (0..10)
        .map(|s| (mse(true, 8.0, s), mse(false, 8.0, s)))
        .fold((0.0, 0.0), |(a, b), (c, r)| (a + c, b + r));
    assert!(centred < raw / 100.0, "centred {centred}, uncentred {raw}");
}
