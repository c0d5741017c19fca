//! Noise streams are keyed on what changes a user's release, never on curator-side
//! parameters, and private validation states what its training users
//! spend. Synthetic data only: no data files needed.

use assert_cmd::Command;
use dp_repro::methods::Params;
use dp_repro::run::seeds::release_stream;
use dp_repro::spec::{parse_str, validate};
use rand::RngCore;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const SPEC: &str = "name: streams\nseed: 5\nrepetitions: 3\ndatasets:\n  - {name: sine, synthetic: lpdt_sine, sizes: {public: 300, private: 2000, test: 400}}\nepsilons: [4]\nmethods:\n  - method: LPDT-M\n    grid: {depth: [3], min_leaf: [20], rho: [0.3, 0.7], ood: [zero, route], tau: [0, 0.0001]}\nselection: [best_mean, private_validation]\ntables:\n  - {name: t, epsilons: [4], methods: [LPDT-M]}\n";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(spec: &Path, out: &Path) {
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .args(["run", spec.to_str().unwrap(), "--quiet"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// (repetition, params) → test MSE, from runs.csv.
fn mse(out: &Path) -> BTreeMap<(usize, String), f64> {
    let text = fs::read_to_string(out.join("runs.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[6] == "mse").then(|| {
                (
                    (c[5].parse().unwrap(), c[3].to_string()),
                    c[7].parse().unwrap(),
                )
            })
        })
        .collect()
}

#[test]
fn grid_points_differing_only_in_curator_parameters_share_the_release_stream() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    let exp = validate(
        parse_str(SPEC, &path).unwrap(),
        &path,
        &[root().join("datasets")],
    )
    .unwrap();
    let m = &exp.methods[0];
    let draw = |key: &str| {
        release_stream(5, "noise", "sine", 1, m, &Params::parse_key(key), "4", "").next_u64()
    };
    let base = "depth=3;min_leaf=20;min_samples_split=2;rho=0.3;tau=0;ood=zero";
    // τ and the out-of-domain rule are the curator's: same stream.
    assert_eq!(draw(base), draw(&base.replace("tau=0", "tau=0.0001")));
    assert_eq!(draw(base), draw(&base.replace("ood=zero", "ood=route")));
    // ρ changes what each user releases, and so does the partition: other streams.
    assert_ne!(draw(base), draw(&base.replace("rho=0.3", "rho=0.7")));
    assert_ne!(draw(base), draw(&base.replace("depth=3", "depth=4")));
    // k_r counts release configurations: 2 values of ρ, not the 8 grid points.
    assert_eq!(m.mechanism.len(), 8);
    assert_eq!(m.release_configurations(), 2);
}

#[test]
fn gridding_a_curator_parameter_scores_the_same_releases() {
    // Every test point of the synthetic model lies in [0,1], so `ood: zero` and `ood:
    // route` predict alike given the same releases: their MSEs must be equal in every
    // repetition (they differed when the stream was keyed on `ood`).
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.yaml");
    fs::write(&spec, SPEC).unwrap();
    let out = dir.path().join("out");
    run(&spec, &out);
    let rows = mse(&out);
    let mut compared = 0;
    for ((rep, params), v) in &rows {
        if params.contains("ood=zero") {
            let twin = rows[&(*rep, params.replace("ood=zero", "ood=route"))];
            assert_eq!(*v, twin, "repetition {rep}, {params}");
            compared += 1;
        }
    }
    assert_eq!(compared, 3 * 4);
    // ρ = 0.3 and ρ = 0.7 draw different releases: some MSE differs.
    assert!(rows
        .iter()
        .any(|((r, p), v)| p.contains("rho=0.3")
            && rows[&(*r, p.replace("rho=0.3", "rho=0.7"))] != *v));
}

#[test]
fn private_validation_states_the_training_users_budget() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.yaml");
    fs::write(&spec, SPEC).unwrap();
    let out = dir.path().join("fresh");
    run(&spec, &out);
    let md = fs::read_to_string(out.join("table-t-private_validation.md")).unwrap();
    assert!(md.contains("LPDT-M 2ε (2 distinct releases)"), "{md}");
    // The budget note: ε per fit and with tuning (two release configurations).
    assert!(md.contains("LPDT-M ε per fit, 2ε with tuning"), "{md}");
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let pv = &record["privacy"]["private_validation"];
    assert_eq!(pv["validation_releases"], "fresh");
    assert_eq!(
        pv["methods"]["LPDT-M"]["training_users_epsilon_multiplier"],
        2
    );
    // The oracle table has no such note; it says instead that oracle selection re-spends
    // epsilon over the grid's distinct releases.
    let oracle = fs::read_to_string(out.join("table-t.md")).unwrap();
    assert!(
        !oracle.contains("Budget under private validation"),
        "{oracle}"
    );
    assert!(
        oracle.contains("re-spends epsilon once per release: LPDT-M 2 distinct releases"),
        "{oracle}"
    );
    assert!(
        oracle.contains("LPDT-M ε per fit, 2ε with tuning"),
        "{oracle}"
    );

    // Shared releases: ε once per training user, fits at ε/k_r — other pv rows.
    let shared = dir.path().join("shared.yaml");
    fs::write(
        &shared,
        SPEC.replace("tables:", "tuning: {validation_releases: shared}\ntables:"),
    )
    .unwrap();
    let out2 = dir.path().join("shared");
    run(&shared, &out2);
    let md = fs::read_to_string(out2.join("table-t-private_validation.md")).unwrap();
    assert!(md.contains("LPDT-M 1ε (2 distinct releases)"), "{md}");
    assert!(md.contains("LPDT-M ε per fit, ε with tuning"), "{md}");
    let pv_rows = |o: &Path| -> Vec<String> {
        fs::read_to_string(o.join("runs.csv"))
            .unwrap()
            .lines()
            .filter(|l| l.contains(",pv_mse,"))
            .map(|l| l.split(',').skip(1).take(7).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(pv_rows(&out).len(), pv_rows(&out2).len());
    assert_ne!(pv_rows(&out), pv_rows(&out2));
    // The reported fit (test metric) is the same in both: only the pv fit changes.
    assert_eq!(mse(&out), mse(&out2));
}

#[test]
fn frozen_noise_repeats_the_same_draw_in_every_repetition_and_fresh_noise_does_not() {
    // One split (repetition 1's data), two repetitions' release streams: under
    // `noise: {frozen: 666}` the fits are identical, under fresh noise they differ.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    let predictions = |spec: &str| {
        let exp = validate(
            parse_str(spec, &path).unwrap(),
            &path,
            &[root().join("datasets")],
        )
        .unwrap();
        let m = &exp.methods[0];
        let data = dp_repro::run::repetition_data(&exp, &exp.datasets[0], None, 1).unwrap();
        let structural = &m.structural[0];
        let mech = &m.mechanism[0];
        let prepared = m
            .method
            .prepare(&data, structural, &mut rand_pcg::Pcg64::new(1, 1))
            .unwrap()
            .unwrap();
        let params = structural.join(mech);
        [1, 2].map(|rep| {
            let mut rng = release_stream(5, "noise", "sine", rep, m, &params, "4", "");
            prepared.predict(mech, Some(4.0), &mut rng).unwrap()
        })
    };
    let fresh = predictions(SPEC);
    assert_ne!(fresh[0], fresh[1]);
    let frozen = predictions(&SPEC.replacen("epsilons:", "noise: {frozen: 666}\nepsilons:", 1));
    assert_eq!(frozen[0], frozen[1]);
    // A method entry may override the spec's choice.
    let entry = predictions(&SPEC.replace(
        "    grid: {depth",
        "    noise: {frozen: 666}\n    grid: {depth",
    ));
    assert_eq!(entry[0], entry[1]);
    assert_eq!(entry, frozen);
}

#[test]
fn frozen_noise_is_stated_in_notes_and_run_json_and_keys_its_rows_apart() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.yaml");
    fs::write(&fresh, SPEC).unwrap();
    let frozen = dir.path().join("frozen.yaml");
    fs::write(
        &frozen,
        SPEC.replacen("epsilons:", "noise: {frozen: 660}\nepsilons:", 1),
    )
    .unwrap();
    let first = dir.path().join("fresh-out");
    run(&fresh, &first);
    let fresh_rows = mse(&first);
    let keys = |out: &Path| -> std::collections::HashSet<String> {
        fs::read_to_string(out.join("runs.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect()
    };
    // The frozen spec computes other rows: its folder may not be the fresh one's ...
    let o = Command::cargo_bin("dp-repro")
        .unwrap()
        .current_dir(root())
        .args(["run", frozen.to_str().unwrap(), "--quiet", "--out"])
        .arg(&first)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("noise"));
    // ... and its rows are keyed apart from the fresh ones.
    let out = dir.path().join("frozen-out");
    run(&frozen, &out);
    assert!(keys(&out).is_disjoint(&keys(&first)));
    let md = fs::read_to_string(out.join("table-t.md")).unwrap();
    assert!(md.contains("LPDT-M (frozen 660)"), "{md}");
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["privacy"]["noise"]["LPDT-M"]["frozen"], 660);
    assert_ne!(mse(&out), fresh_rows);
}
