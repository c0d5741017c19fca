//! LPCT's private classifiers: the estimator of eq. (8) wired as a
//! composition, the domain check of §4.4, λ's pull between private and public labels,
//! LPCT-prune in both modes, a classification baseline written in YAML only, and
//! determinism across thread counts.

mod common;

use dp_repro::data::{Dataset, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{find, ParamValue, Params, RepData};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::fs;
use std::path::Path;

/// A 1-D sample on a regular grid of [0, 1) with class 1 where x > 0.25, or the opposite
/// class when `flip`.
fn step(n: usize, flip: bool) -> Dataset {
    let x: Vec<f64> = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect();
    let y = x
        .iter()
        .map(|&v| f64::from(u8::from((v > 0.25) != flip)))
        .collect();
    Dataset {
        name: "step".into(),
        x: Matrix::new(n, 1, x),
        y,
        task: Task::Classification,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

/// Test points inside and outside [0, 1].
fn probes() -> Dataset {
    let x = vec![0.1, 0.6, 0.9, 1.2, -0.1];
    Dataset {
        name: "probe".into(),
        y: vec![0.0, 1.0, 1.0, 1.0, 0.0],
        x: Matrix::new(x.len(), 1, x),
        task: Task::Classification,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

fn data(private_flipped: bool) -> RepData {
    RepData {
        public: step(400, false),
        private: PrivateRows::new(step(20_000, private_flipped)),
        test: probes(),
        bounds: LabelBounds { lo: 0.0, hi: 1.0 },
        masks: None,
    }
}

fn params(v: &[(&str, ParamValue)]) -> Params {
    Params(v.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

fn tree(depth: i64) -> Params {
    params(&[
        ("depth", ParamValue::Int(depth)),
        ("min_leaf", ParamValue::Int(1)),
        ("min_samples_split", ParamValue::Int(1)),
    ])
}

fn predict(
    method: &str,
    d: &RepData,
    structural: &Params,
    mech: &Params,
    eps: Option<f64>,
) -> Vec<f64> {
    let m = find(method).unwrap();
    let mut rng = Pcg64::seed_from_u64(9);
    let p = m.prepare(d, structural, &mut rng).unwrap().unwrap();
    p.predict(mech, eps, &mut rng).unwrap()
}

/// LPCT paper §4.4: a test point outside [0,1]^d is class 0, whatever its leaf says
/// (x = 1.2 routes to the class-1 leaf); CT-Q, sklearn's tree, has no such check.
/// Inside, a depth-2 max-edge tree cuts at 0.25, 0.5 and 0.75, so the step at 0.25 is
/// exact.
#[test]
fn lpct_predicts_class_zero_outside_the_unit_box() {
    let d = data(false);
    let lpct_q = predict("LPCT-Q", &d, &tree(2), &Params::default(), None);
    assert_eq!(lpct_q, vec![0.0, 1.0, 1.0, 0.0, 0.0]);
    let lpct = predict(
        "LPCT-M",
        &d,
        &tree(2),
        &params(&[("lambda", ParamValue::Float(1.0))]),
        Some(1000.0),
    );
    assert_eq!(lpct, vec![0.0, 1.0, 1.0, 0.0, 0.0]);
    let ct_q = predict(
        "CT-Q",
        &d,
        &params(&[("max_depth", ParamValue::Int(2))]),
        &Params::default(),
        None,
    );
    assert_eq!(ct_q[3], 1.0, "CT-Q routes x = 1.2 to the class-1 side");
}

/// Eq. (8) with private labels the opposite of the public ones: λ = 0 follows the
/// private sums, a λ far above n_P/n_Q follows the public counts. At ε = 1000 the noise
/// of a leaf's sums has sd 4/1000·sqrt(2·20000) ≈ 0.8 against counts of 5000.
#[test]
fn lambda_moves_the_classifier_from_private_to_public_labels() {
    let d = data(true);
    let at = |lambda: f64| {
        predict(
            "LPCT-M",
            &d,
            &tree(2),
            &params(&[("lambda", ParamValue::Float(lambda))]),
            Some(1000.0),
        )
    };
    assert_eq!(at(0.0)[..3], [1.0, 0.0, 0.0], "private (flipped) labels");
    assert_eq!(at(1e6)[..3], [0.0, 1.0, 1.0], "public labels");
}

/// LPCT-prune, every mode, at ε = 1000 on labels that agree: Algorithm 2 (prune: paper)
/// finds every leaf signal-dominated (8·2^{p0−k}·n_P/(ε/2)² ≈ 1 ≪ Ũ ≈ 5000) and trusted,
/// so it recovers the step; the V1 reference finds the leaves noise-dominated (its proxy
/// B ≈ 2^{h+1−k} n_P exceeds every leaf's count) and uses the public counts, which carry
/// the same step; so does the reference with the code's walk state (every leaf of this
/// complete tree is at depth p0, where the code's heights are the true ones). All are
/// deterministic given the stream.
#[test]
fn lpct_prune_recovers_a_clean_step_in_both_modes() {
    let d = data(false);
    let structural = params(&[
        ("depth", ParamValue::Int(2)),
        ("min_leaf", ParamValue::Int(1)),
        ("min_samples_split", ParamValue::Int(1)),
        ("p_min", ParamValue::Int(1)),
    ]);
    for mode in ["reference_v1", "reference_v1_as_coded", "paper"] {
        let mech = params(&[("prune", ParamValue::Str(mode.into()))]);
        let a = predict("LPCT-prune-M", &d, &structural, &mech, Some(1000.0));
        let b = predict("LPCT-prune-M", &d, &structural, &mech, Some(1000.0));
        assert_eq!(a, b, "{mode}: same stream, same predictions");
        assert_eq!(a, vec![0.0, 1.0, 1.0, 0.0, 0.0], "{mode}");
    }
}

use common::dp_repro_in as cli;

/// The mean accuracy of each (method, ε) in a results folder's selected.csv.
fn selected(dir: &Path) -> Vec<(String, String, f64)> {
    let text = fs::read_to_string(dir.join("selected.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (m, e, v) = (col("method"), col("epsilon"), col("mean"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[m].to_string(), f[e].to_string(), f[v].parse().unwrap())
        })
        .collect()
}

/// LPCT with generalized randomized response on the leaf index in place
/// of the Laplace indicator vector, defined in the spec only, runs on a real LPCT data set
/// (Employee, public by rule) and is listed with its blocks. At ε = 1000 GRR reports the
/// true leaf (the probability of another leaf is (K−1)/(e^{500}+K−1)) and both label
/// vectors carry noise of sd ≈ 0.004·sqrt(2·3319) ≈ 0.33 per leaf, so the GRR variant and
/// LPCT-M at λ = 0 classify every leaf alike unless a leaf's private share of ones is
/// within about 0.33/count of 1/2: their accuracies may differ by a handful of test points
/// at most; we allow 0.01 (8 of Employee's 830 test points).
#[test]
fn a_classification_baseline_in_yaml_runs_on_real_data() {
    let Some(data) = common::real_data(&["employee.csv"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = format!(
        "name: grr\nseed: 5\nrepetitions: 2\ndatasets:\n  - {{name: Employee, public_by_rule: {{dataset: employee, column: JoiningYear, values: [\"2012\"]}}}}\nsplit: {{public: 0, private: 0.8, test: 0.2}}\nscaling: public\nepsilons: [1, 1000]\nmethods:\n  - label: LPCT-GRR\n    compose:\n      partition: {{rule: max_edge, grown_on: public, criterion: entropy}}\n      cell_mechanism: generalized_rr\n      label_mechanism: laplace_vector\n      estimator: lpct\n      budget: {{cell: 0.5, label: 0.5}}\n    grid: &g {{depth: [3, 5], min_leaf: [4], lambda: [0]}}\n  - method: LPCT-M\n    grid: *g\n"
    );
    fs::write(dir.path().join("spec.yaml"), spec).unwrap();
    let data_dir = data.to_str().unwrap();
    let (code, out, err) = cli(dir.path(), &["list", "methods", "--spec", "spec.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("LPCT-GRR"), "{out}");
    assert!(
        out.contains("cell generalized_rr, label laplace_vector, estimator lpct"),
        "{out}"
    );
    let (code, _, err) = cli(
        dir.path(),
        &[
            "run",
            "spec.yaml",
            "--quiet",
            "--out",
            "out",
            "--data-dir",
            data_dir,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let rows = selected(&dir.path().join("out"));
    let get = |m: &str, e: &str| {
        rows.iter()
            .find(|r| r.0 == m && r.1 == e)
            .unwrap_or_else(|| panic!("{m} at {e} in {rows:?}"))
            .2
    };
    let (grr, laplace) = (get("LPCT-GRR", "1000"), get("LPCT-M", "1000"));
    assert!(
        (grr - laplace).abs() <= 0.01,
        "GRR {grr} vs Laplace {laplace}"
    );
    assert!((0.0..=1.0).contains(&get("LPCT-GRR", "1")));
}

/// The LPCT methods give the same rows with one worker thread or two.
#[test]
fn lpct_results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::new();
    for i in 0..600 {
        let (a, b) = ((i * 37 % 600) as f64 / 600.0, (i * 91 % 600) as f64 / 600.0);
        csv.push_str(&format!("{},{a},{b}\n", u8::from(a + b > 1.0)));
    }
    fs::write(dir.path().join("toy.csv"), csv).unwrap();
    let spec = "name: det\nseed: 11\nrepetitions: 3\ndatasets:\n  - {name: toy, path: toy.csv, label_column: 0, task: classification}\nsplit: {public: 0.2, private: 0.6, test: 0.2}\nscaling: public\nepsilons: [1, 4]\nmethods:\n  - method: LPCT-M\n    grid: {depth: [2, 4], min_leaf: [2], lambda: [0, 1, 10]}\n  - method: LPCT-C\n    grid: {depth: [3], min_leaf: [2], lambda: [1]}\n  - method: LPCT-prune-M\n    grid: {depth: [3], p_min: [1], min_leaf: [1], prune: [reference_v1, reference_v1_as_coded, paper]}\n  - method: LPCT-R\n    grid: {depth: [3], min_leaf: [1], lambda: [1]}\n  - method: LPCT-Q\n    grid: {depth: [3], min_leaf: [1]}\n  - method: PHIST\n    grid: {bins: [2, 3], t: [0]}\n";
    fs::write(dir.path().join("spec.yaml"), spec).unwrap();
    let mut outs = Vec::new();
    for jobs in ["1", "2"] {
        let out = format!("jobs{jobs}");
        let (code, _, err) = cli(
            dir.path(),
            &["run", "spec.yaml", "--quiet", "--jobs", jobs, "--out", &out],
        );
        assert_eq!(code, 0, "{err}");
        outs.push(dir.path().join(out));
    }
    let rows = |d: &Path| {
        let mut v: Vec<String> = fs::read_to_string(d.join("runs.csv"))
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect();
        v.sort();
        v
    };
    let a = rows(&outs[0]);
    assert_eq!(a.len(), 82, "a header and 81 task rows");
    assert_eq!(a, rows(&outs[1]));
    assert_eq!(
        fs::read(outs[0].join("summary.csv")).unwrap(),
        fs::read(outs[1].join("summary.csv")).unwrap()
    );
}

/// One case of `tests/data/lpct_v1_prune.json`: a tree the authors' V1 code grew (max-edge
/// with information gain, on n_Q public points of a 2-D logistic design), every leaf's
/// sums (Ũ, Ṽ from n_P users with the code's Laplace noise at ε, rounded to multiples of
/// 1/1024 so that both sides read the same numbers; U_Q, V_Q), the code's leaf order and
/// the class its `RecursiveTreeBuilder.prune` (commit 7f81694, with
/// `AncestorNodePruningEstimator`) gave every leaf. The tree is written depth first
/// (left before right), leaf ids in that order. Generated outside the project by running
/// the authors' Python code; see the test below.
struct V1Case {
    name: String,
    nodes: Vec<dp_repro::partition::Node>,
    sums: Vec<[f64; 4]>,
    code_order: Vec<usize>,
    classes: Vec<f64>,
    config: dp_repro::estimate::PruneConfig,
}

fn v1_cases() -> Vec<V1Case> {
    use dp_repro::partition::Node;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lpct_v1_prune.json");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let int = |x: &serde_json::Value| x.as_u64().unwrap() as usize;
    let float = |x: &serde_json::Value| x.as_f64().unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| V1Case {
            name: format!(
                "seed {} eps {} p0 {} p_min {}",
                c["seed"], c["epsilon"], c["p0"], c["p_min"]
            ),
            nodes: c["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| match n.get("leaf") {
                    Some(l) => Node::Leaf { leaf: int(l) },
                    None => {
                        let s = n["split"].as_array().unwrap();
                        Node::Split {
                            feature: int(&s[0]),
                            threshold: float(&s[1]),
                            left: int(&s[2]),
                            right: int(&s[3]),
                        }
                    }
                })
                .collect(),
            sums: c["sums"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let s = s.as_array().unwrap();
                    [float(&s[0]), float(&s[1]), float(&s[2]), float(&s[3])]
                })
                .collect(),
            code_order: c["code_order"]
                .as_array()
                .unwrap()
                .iter()
                .map(int)
                .collect(),
            classes: c["classes"].as_array().unwrap().iter().map(float).collect(),
            config: dp_repro::estimate::PruneConfig {
                n_p: int(&c["n_p"]),
                n_q: int(&c["n_q"]),
                epsilon: float(&c["epsilon"]),
                p0: int(&c["p0"]),
                p_min: int(&c["p_min"]),
            },
        })
        .collect()
}

/// Cross-check with the authors' code (docs/methods/lpct.md §5.4): on twelve trees the V1 code grew
/// (8 to 132 leaves at many depths, n_Q from 30 to 1000, ε from 0.5 to 1000, p0 − p_min
/// from 0 to 6), `prune: reference_v1_as_coded` (`V1Quirks::AS_CODED`) walks the leaves
/// in the code's order and gives every leaf the code's class. The twelve were kept from
/// 160 random cases (all 160 agreed) so that each quirk matters somewhere: with any one
/// of them off, or all (the default `reference_v1`), some case disagrees.
#[test]
fn reference_v1_as_coded_matches_the_authors_pruning_code() {
    use dp_repro::estimate::{code_walk_order, pooled_sums, prune_reference_v1, V1Quirks};
    use dp_repro::partition::Partition;
    let cases = v1_cases();
    assert_eq!(cases.len(), 12);
    let off = [
        V1Quirks::NONE,
        V1Quirks {
            walk_heights: false,
            ..V1Quirks::AS_CODED
        },
        V1Quirks {
            fixed_lambda_revisits: false,
            ..V1Quirks::AS_CODED
        },
        V1Quirks {
            adopted_sums: false,
            ..V1Quirks::AS_CODED
        },
    ];
    let mut disagree = [0usize; 4];
    for case in &cases {
        let k = case.sums.len();
        let part = Partition {
            nodes: case.nodes.clone(),
            domain_lo: vec![0.0; 2],
            domain_hi: vec![1.0; 2],
            cells: vec![(vec![0.0; 2], vec![1.0; 2]); k],
            leaf_means: vec![0.0; k],
            leaf_counts: vec![0; k],
        };
        let shape = part.shape();
        let order = code_walk_order(&part.nodes);
        assert_eq!(
            order, case.code_order,
            "{}: the code's leaf order",
            case.name
        );
        let col = |i: usize| case.sums.iter().map(|s| s[i]).collect::<Vec<_>>();
        let sums = pooled_sums(&shape, (&col(0), &col(1)), (&col(2), &col(3)));
        let run = |q| prune_reference_v1(&shape, &sums, &case.config, q, &order);
        assert_eq!(run(V1Quirks::AS_CODED), case.classes, "{}", case.name);
        for (n, q) in disagree.iter_mut().zip(off) {
            *n += usize::from(run(q) != case.classes);
        }
    }
    assert!(
        disagree.iter().all(|&n| n > 0),
        "cases that disagree with the code without all quirks, without Q1, Q2, Q4: {disagree:?}"
    );
}
