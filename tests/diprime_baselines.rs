//! The DiPriMe paper's baselines as registered builtins (method card
//! `docs/methods/diprime.md` §4.1, §4.4–§4.7): registry entries and privacy models, the mode-following
//! quirk parameters through the `Method` API on hand-made data, `epsilon_factor`,
//! determinism, spec validation of `depth`/`k`/`rows_fraction`, and smoke runs on the real
//! Abalone (regression) and Rice (classification) data through the command line.

mod common;

use assert_cmd::Command;
use dp_repro::data::{Dataset, Escape, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{find, ParamValue, Params, PrivacyModel, RepData};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fs;

/// Every declared parameter at its default, then `over` replacing some.
fn params(method: &str, over: &[(&str, ParamValue)]) -> Params {
    dp_repro::methods::complete_point(find(method).unwrap().params(), over)
}

fn s(v: &str) -> ParamValue {
    ParamValue::Str(v.into())
}

/// n rows, d = 3: x0 uniform on [0, 10] decides the label up to 15 % flips (y = 1{x0 ≥ 6}
/// XOR Bernoulli(0.15)), x1, x2 uniform noise. Class 0 is the majority:
/// P(y = 0) = 0.6·0.85 + 0.4·0.15 = 0.57; the rule x0 ≥ 6 scores 0.85 in expectation, a
/// constant prediction at most 0.57.
fn dataset(n: usize, rng: &mut Pcg64) -> Dataset {
    let x: Vec<f64> = (0..3 * n).map(|_| rng.gen::<f64>() * 10.0).collect();
    let y = (0..n)
        .map(|i| f64::from((x[3 * i] >= 6.0) != rng.gen_bool(0.15)))
        .collect();
    Dataset {
        name: "toy".into(),
        x: Matrix::new(n, 3, x),
        y,
        task: Task::Classification,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

fn toy(seed: u64) -> RepData {
    let mut rng = Pcg64::seed_from_u64(seed);
    RepData {
        public: dataset(0, &mut rng),
        private: PrivateRows::new(dataset(3000, &mut rng)),
        test: dataset(1000, &mut rng),
        bounds: LabelBounds { lo: 0.0, hi: 1.0 },
        masks: None,
    }
}

/// The classification toy with a real label instead: y = x0/10 + N(0, 0.1²), clipped to
/// [0, 1] (Var(y) ≈ 0.093; the regression function alone leaves MSE 0.01).
fn toy_regression(seed: u64) -> RepData {
    let mut data = toy(seed);
    let mut rng = Pcg64::seed_from_u64(seed + 100);
    let mut private = data.private.escape(Escape::Bookkeeping).clone();
    for part in [&mut private, &mut data.test] {
        part.task = Task::Regression;
        for i in 0..part.n() {
            let noise: f64 = rng.sample(rand_distr::StandardNormal);
            part.y[i] = (part.x.get(i, 0) / 10.0 + 0.1 * noise).clamp(0.0, 1.0);
        }
    }
    data.private = PrivateRows::new(private);
    data
}

/// The private rows of `data` with the manifest's `leaf_occupancy` set to `occupancy`.
fn with_occupancy(data: &RepData, occupancy: Option<usize>) -> PrivateRows {
    let mut rows = data.private.escape(Escape::Bookkeeping).clone();
    rows.leaf_occupancy = occupancy;
    PrivateRows::new(rows)
}

fn mse(data: &RepData, pred: &[f64]) -> f64 {
    Task::Regression.score(&data.test.y, pred)
}

fn run(method: &str, p: &Params, data: &RepData, eps: Option<f64>, seed: u64) -> Vec<f64> {
    let m = find(method).unwrap();
    let prepared = m
        .prepare(data, p, &mut Pcg64::seed_from_u64(seed))
        .unwrap()
        .unwrap();
    prepared
        .predict(p, eps, &mut Pcg64::seed_from_u64(seed + 1000))
        .unwrap()
}

fn accuracy(data: &RepData, pred: &[f64]) -> f64 {
    Task::Classification.score(&data.test.y, pred)
}

#[test]
fn the_baselines_are_registered_with_their_privacy_models() {
    for (name, private, model, tasks) in [
        ("RF", false, PrivacyModel::NonPrivate, 2),
        ("ERT", false, PrivacyModel::NonPrivate, 2),
        ("DP-RF", true, PrivacyModel::Central, 2),
        ("DP-DF", true, PrivacyModel::Central, 1),
    ] {
        let m = find(name).unwrap();
        assert_eq!(m.private(), private, "{name}");
        assert_eq!(m.privacy_model(), model, "{name}");
        assert_eq!(m.tasks().len(), tasks, "{name}");
        assert_eq!(m.privacy_notes().is_empty(), !private, "{name}");
        // Every parameter has a default, so `- method: NAME` alone is a valid entry.
        assert!(m.params().iter().all(|d| d.default.is_some()), "{name}");
    }
    assert_eq!(find("DP-DF").unwrap().tasks(), &[Task::Classification]);
}

/// DP-DF as run predicts every test row with the trees' noisy root majority (class 0,
/// 57 % of the rows, so accuracy = the test share of class 0), while `mode: paper` (or just
/// `descent: categories`) descends and learns the x0 threshold.
#[test]
fn dp_df_is_a_root_majority_classifier_as_run_and_descends_in_paper_mode() {
    let data = toy(1);
    let majority = data.test.y.iter().filter(|&&v| v == 0.0).count() as f64 / 1000.0;
    let quirks = run("DP-DF", &params("DP-DF", &[]), &data, Some(20.0), 3);
    assert!(quirks.iter().all(|&p| p == 0.0));
    assert_eq!(accuracy(&data, &quirks), majority);
    assert!(majority < 0.65, "{majority}");
    for over in [
        vec![("mode", s("paper"))],
        vec![("descent", s("categories"))],
    ] {
        let pred = run("DP-DF", &params("DP-DF", &over), &data, Some(20.0), 3);
        // Bins of x0 on [0, 10]: 5 of width 2, so x0 ≥ 6 is exactly bins 3, 4: a forest
        // that descends reaches the rule's 0.85 (sd of the test share 0.011), far above the
        // majority rate.
        assert!(
            accuracy(&data, &pred) > 0.78,
            "{over:?}: {}",
            accuracy(&data, &pred)
        );
    }
}

/// `epsilon_factor` scales the ε the method is called with: at ε with factor 0.5 a method
/// is, draw for draw, the method at ε/2 with factor 1 (DP-RF regression, whose predictions
/// move continuously with the noise scale; DP-DF's classes on the toy need not).
#[test]
fn epsilon_factor_calls_the_method_with_a_scaled_budget() {
    let data = toy_regression(2);
    for (mode, f) in [("reference_quirks", 0.5), ("paper", 0.25)] {
        let p = |f: f64| {
            params(
                "DP-RF",
                &[("mode", s(mode)), ("epsilon_factor", ParamValue::Float(f))],
            )
        };
        let scaled = run("DP-RF", &p(f), &data, Some(4.0), 5);
        assert!(
            scaled == run("DP-RF", &p(1.0), &data, Some(4.0 * f), 5),
            "{mode}"
        );
        assert!(
            scaled != run("DP-RF", &p(1.0), &data, Some(4.0), 5),
            "{mode}"
        );
    }
    // DP-DF reads the factor as well: factor 0.5 at ε 0.4 is factor 1 at ε 0.2.
    let data = toy(2);
    let q = |f: f64| {
        params(
            "DP-DF",
            &[
                ("mode", s("paper")),
                ("epsilon_factor", ParamValue::Float(f)),
            ],
        )
    };
    assert!(
        run("DP-DF", &q(0.5), &data, Some(0.4), 5) == run("DP-DF", &q(1.0), &data, Some(0.2), 5)
    );
}

/// The forests learn, are deterministic per stream, differ across streams, and DP-RF's
/// options change its draws.
#[test]
fn the_forests_learn_are_deterministic_and_follow_their_options() {
    let cls = toy(3);
    let reg = toy_regression(3);
    for (name, eps) in [("RF", None), ("ERT", None), ("DP-RF", Some(20.0))] {
        let p = params(name, &[]);
        // A constant classifier scores 0.57 in expectation; a forest that found x0 ≥ 6
        // about 0.85 (test-share sd 0.011).
        let a = run(name, &p, &cls, eps, 7);
        assert!(accuracy(&cls, &a) > 0.78, "{name}: {}", accuracy(&cls, &a));
        // Regression: the constant predictor has MSE Var(y) ≈ 0.093, the regression
        // function 0.01.
        let r = run(name, &p, &reg, eps, 7);
        assert!(mse(&reg, &r) < 0.03, "{name}: {}", mse(&reg, &r));
        assert!(r == run(name, &p, &reg, eps, 7), "{name}");
        assert!(r != run(name, &p, &reg, eps, 8), "{name}: another stream");
    }
    // DP-RF's options each change the fit (same streams), in both tasks.
    let base = run("DP-RF", &params("DP-RF", &[]), &reg, Some(2.0), 9);
    for over in [
        ("mode", s("paper")),
        ("row_sample", s("bootstrap")),
        ("split_budget", s("per_level")),
        ("node_means", s("clamped")),
        ("k", ParamValue::Int(1)),
        ("rows_fraction", ParamValue::Float(0.25)),
    ] {
        let other = run(
            "DP-RF",
            &params("DP-RF", &[over.clone()]),
            &reg,
            Some(2.0),
            9,
        );
        assert!(base != other, "{over:?}");
    }
    // The weight floors matter only when every split weight underflows below 1e-12, as
    // at ε_T = 200 here (exp(−200·0.09·3000/8) = 0): then the floored draw is uniform over
    // the attributes, the exact softmax picks x0. At ε = 2 the two laws agree to 1e-12 and
    // the same uniform draw picks the same attribute.
    let floors = [("weight_floors", ParamValue::Bool(false))];
    assert!(base == run("DP-RF", &params("DP-RF", &floors), &reg, Some(2.0), 9));
    let hi = run("DP-RF", &params("DP-RF", &[]), &reg, Some(2000.0), 9);
    let hi_exact = run("DP-RF", &params("DP-RF", &floors), &reg, Some(2000.0), 9);
    assert!(
        mse(&reg, &hi_exact) < mse(&reg, &hi),
        "{} vs {}",
        mse(&reg, &hi_exact),
        mse(&reg, &hi)
    );
    // The Gini option reads only classification fits.
    let gini = [("gini_sensitivity", s("friedman_schuster"))];
    assert!(base == run("DP-RF", &params("DP-RF", &gini), &reg, Some(2.0), 9));
    let (c0, c1) = (
        run("DP-RF", &params("DP-RF", &[]), &cls, Some(0.5), 9),
        run("DP-RF", &params("DP-RF", &gini), &cls, Some(0.5), 9),
    );
    assert!(c0 != c1);
}

/// Runs `dp-repro run spec.yaml` in `dir` on `spec` (with `DP_REPRO_DATA` = `data` when
/// given).
fn run_spec(
    dir: &std::path::Path,
    spec: &str,
    data: Option<&std::path::Path>,
) -> std::process::Output {
    fs::write(dir.join("spec.yaml"), spec).unwrap();
    let mut cmd = Command::cargo_bin("dp-repro").unwrap();
    cmd.current_dir(dir);
    if let Some(d) = data {
        cmd.env("DP_REPRO_DATA", d);
    }
    cmd.args(["run", "spec.yaml", "--quiet", "--out", "out"])
        .output()
        .unwrap()
}

/// Bad values of the int-or-name parameters and of rows_fraction are refused at validation
/// with the field named.
#[test]
fn validation_names_the_bad_parameter() {
    let dir = tempfile::tempdir().unwrap();
    for (methods, field, want) in [
        (
            "  - method: RF\n    params: {depth: deep}\n",
            "methods[0].depth",
            "an integer >= 0 or one of rule",
        ),
        (
            "  - method: RF\n    params: {k: 0}\n",
            "methods[0].k",
            "an integer >= 1 or one of all",
        ),
        (
            "  - method: DP-RF\n    grid: {rows_fraction: [0.5, 0]}\n",
            "methods[0].grid.rows_fraction",
            "(0, 1]",
        ),
    ] {
        let spec = format!(
            "name: bad\nseed: 5\nrepetitions: 1\ndatasets:\n  - name: sine\n    synthetic: lpdt_sine\n    sizes: {{public: 0, private: 300, test: 100}}\nlabel_bounds: {{fixed: {{lo: -4, hi: 4}}}}\nepsilons: [1]\nmethods:\n{methods}"
        );
        let out = run_spec(dir.path(), &spec, None);
        assert_eq!(out.status.code(), Some(2), "{methods}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(field) && err.contains(want), "{err}");
    }
}

/// The mean of a method's test metric over the rows of runs.csv (the params column may hold
/// ';' but no ',').
fn mean_metric(runs: &str, method: &str, params_contain: &str) -> f64 {
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (m, p, v) = (col("method"), col("params"), col("value"));
    let vals: Vec<f64> = runs
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[m] == method && f[p].contains(params_contain))
        .map(|f| f[v].parse().unwrap())
        .collect();
    assert!(!vals.is_empty(), "no rows for {method} {params_contain}");
    vals.iter().sum::<f64>() / vals.len() as f64
}

/// Smoke run on the real Abalone data (regression, rings 1..29): RF and ERT beat the
/// constant predictor (MSE ≈ Var(rings) ≈ 10.4) by far; DP-RF at ε = 10 runs in both modes.
/// As run its node means are not clamped, so tiny leaves can carry huge noise; clamped
/// (`paper`) its MSE cannot exceed the squared label range.
#[test]
fn the_baselines_run_on_abalone() {
    let Some(data) = common::real_data(&["abalone.csv"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = "name: diprime-abalone\nseed: 5\nrepetitions: 2\ndatasets: [abalone]\nsplit: {public: 0, private: 0.9, test: 0.1}\nscaling: none\nlabel_bounds: {fixed: {lo: 0, hi: 30}}\nepsilons: [10]\nmethods:\n  - method: RF\n  - method: ERT\n  - method: DP-RF\n    grid: {mode: [reference_quirks, paper]}\n";
    let out = run_spec(dir.path(), spec, Some(&data));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = fs::read_to_string(dir.path().join("out/runs.csv")).unwrap();
    let (rf, ert) = (mean_metric(&runs, "RF", ""), mean_metric(&runs, "ERT", ""));
    let quirks = mean_metric(&runs, "DP-RF", "mode=reference_quirks");
    let paper = mean_metric(&runs, "DP-RF", "mode=paper");
    println!(
        "abalone MSE: RF {rf:.3}, ERT {ert:.3}, DP-RF reference {quirks:.3}, paper {paper:.3}"
    );
    assert!(rf < 7.0 && ert < 7.0, "RF {rf}, ERT {ert}");
    assert!(quirks.is_finite() && paper.is_finite());
    assert!(paper <= 900.0);
}

/// Smoke run on the real Rice data (classification, 57 % Osmancik): RF and ERT well above
/// the majority rate; DP-RF and DP-DF run; DP-DF as run is a constant classifier.
#[test]
fn the_baselines_run_on_rice() {
    let Some(data) = common::real_data(&["rice.csv"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = "name: diprime-rice\nseed: 5\nrepetitions: 2\ndatasets: [rice]\nsplit: {public: 0, private: 0.9, test: 0.1}\nscaling: none\nlabel_bounds: {fixed: {lo: 0, hi: 1}}\nepsilons: [2]\nmethods:\n  - method: RF\n  - method: ERT\n  - method: DP-RF\n  - method: DP-DF\n    params: {epsilon_factor: 0.5, prune: true}\n    grid: {mode: [reference_quirks, paper]}\n";
    let out = run_spec(dir.path(), spec, Some(&data));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = fs::read_to_string(dir.path().join("out/runs.csv")).unwrap();
    let acc = |m: &str, p: &str| mean_metric(&runs, m, p);
    let (rf, ert, dprf) = (acc("RF", ""), acc("ERT", ""), acc("DP-RF", ""));
    let (df_q, df_p) = (
        acc("DP-DF", "mode=reference_quirks"),
        acc("DP-DF", "mode=paper"),
    );
    println!("rice accuracy: RF {rf:.3}, ERT {ert:.3}, DP-RF {dprf:.3}, DP-DF as run {df_q:.3}, paper {df_p:.3}");
    // The majority class (Osmancik) is 57 % of the rows; 381 test rows put the test share
    // within ±0.13 of it at 5 sd.
    assert!(rf > 0.85 && ert > 0.85, "RF {rf}, ERT {ert}");
    assert!(dprf > 0.7, "DP-RF {dprf}");
    assert!((df_q - 0.572).abs() < 0.13, "DP-DF as run {df_q}");
}

/// `occupancy: dataset` reads the manifest's `leaf_occupancy` (card §5: 10 on Banknote):
/// the same as the integer it declares, draw for draw, for a baseline (DP-RF, d_mult) and
/// for an engine forest (DiPriMe, d_part); refused with the data set's name when none is
/// declared.
#[test]
fn occupancy_dataset_reads_the_manifests_leaf_occupancy() {
    let mut data = toy(7);
    for method in ["DP-RF", "DiPriMe"] {
        let declared = params(method, &[("occupancy", s("dataset"))]);
        let err = find(method)
            .unwrap()
            .prepare(&data, &declared, &mut Pcg64::seed_from_u64(1))
            .and_then(|p| {
                p.unwrap()
                    .predict(&declared, Some(2.0), &mut Pcg64::seed_from_u64(2))
            })
            .err()
            .unwrap_or_else(|| panic!("{method}: occupancy dataset without a declaration"));
        assert!(err.to_string().contains("'toy'"), "{method}: {err}");
        data.private = with_occupancy(&data, Some(10));
        let by_int = params(method, &[("occupancy", ParamValue::Int(10))]);
        assert_eq!(
            run(method, &declared, &data, Some(2.0), 3),
            run(method, &by_int, &data, Some(2.0), 3),
            "{method}"
        );
        // 3000 rows: occupancy 10 and 25 give different depth rules (d_mult 3 vs 2,
        // d_part 4 vs 3), so the declaration is what decides.
        let by_25 = params(method, &[("occupancy", ParamValue::Int(25))]);
        assert_ne!(
            run(method, &declared, &data, Some(2.0), 3),
            run(method, &by_25, &data, Some(2.0), 3),
            "{method}"
        );
        data.private = with_occupancy(&data, None);
    }
}
