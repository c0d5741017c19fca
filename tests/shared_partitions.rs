//! Trees grown once on a public sample that every repetition shares (`partition::shared`):
//! a method given the shared trees predicts exactly what it predicts growing its own,
//! random growers are never shared, and a whole run with shared trees writes the rows of a
//! run without them (all but the seconds).

mod common;

use dp_repro::data::{Dataset, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::{complete_point, find, ParamValue, RepData};
use dp_repro::partition::{PartitionCache, SharedPublic};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::fs;

/// n points of a 2-D grid-like design with class 1{x0 + x1 > 1}, flipped when `flip`.
fn sample(n: usize, salt: usize, flip: bool) -> Dataset {
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let a = ((i * 37 + salt) % n) as f64 / n as f64;
        let b = ((i * 91 + 3 * salt) % n) as f64 / n as f64;
        x.extend([a, b]);
        y.push(f64::from(u8::from((a + b > 1.0 || a < 0.2 * b) != flip)));
    }
    common::toy_dataset(2, x, y, Task::Classification)
}

/// For each method, structural grid point and mechanism grid point: the predictions of two
/// repetitions (same public sample, other private users) with shared trees equal those of
/// fresh fits, and the cache holds `trees` trees afterwards (0 for the random grower).
#[test]
fn shared_trees_give_the_predictions_of_fresh_ones() {
    use ParamValue::{Float, Int, Str};
    let public = sample(300, 0, false);
    let reps: Vec<RepData> = [(1, false), (2, true)]
        .iter()
        .map(|&(salt, flip)| RepData {
            public: public.clone(),
            private: PrivateRows::new(sample(3000, salt, flip)),
            test: sample(200, 7, false),
            bounds: LabelBounds { lo: 0.0, hi: 1.0 },
            masks: None,
        })
        .collect();
    let tree = |depth: i64, min_leaf: i64| {
        vec![
            ("depth", Int(depth)),
            ("min_leaf", Int(min_leaf)),
            ("min_samples_split", Int(1)),
        ]
    };
    let with = |mut v: Vec<(&'static str, ParamValue)>, more: (&'static str, ParamValue)| {
        v.push(more);
        v
    };
    let mut prune = with(tree(3, 1), ("p_min", Int(1)));
    prune.push(("prune", Str("paper".into())));
    let cases: Vec<(&str, Vec<(&str, ParamValue)>, usize)> = vec![
        ("LPCT-M", with(tree(4, 1), ("lambda", Float(1.0))), 1),
        ("LPCT-C", with(tree(4, 8), ("lambda", Float(1.0))), 1),
        ("LPCT-prune-C", prune, 2),
        ("CT-Q", vec![("max_depth", Int(3))], 1),
        ("LPCT-R", with(tree(4, 1), ("lambda", Float(1.0))), 0),
    ];
    for (method, set, trees) in cases {
        let m = find(method).unwrap();
        // The whole grid point (the declared defaults and `set`) serves as both the
        // structural and the mechanism point: each reads its own parameters.
        let structural = complete_point(m.params(), &set);
        let mech = &structural;
        let eps = m.private().then_some(2.0);
        let cache = PartitionCache::new();
        let shared = SharedPublic::new(&cache, &public);
        for (r, d) in reps.iter().enumerate() {
            let run = |s: Option<&SharedPublic<'_>>| {
                let mut rng = Pcg64::seed_from_u64(r as u64);
                let p = m
                    .prepare_shared(d, &structural, &mut rng, s)
                    .unwrap()
                    .unwrap();
                p.predict(mech, eps, &mut rng).unwrap()
            };
            assert_eq!(run(None), run(Some(&shared)), "{method}, repetition {r}");
            assert_eq!(cache.len(), trees, "{method}, repetition {r}");
        }
    }
}

use common::dp_repro_in as cli;

/// A run of LPCT methods on a public sample fixed by rule (Employee) shares its trees
/// across repetitions; the same spec with a table of seconds (which switches sharing off,
/// `run::shares_partitions`) grows every tree afresh. runs.csv holds the same rows, bit for
/// bit, but for the seconds column.
#[test]
fn a_run_with_shared_trees_writes_the_rows_of_one_without() {
    let Some(data) = common::real_data(&["employee.csv"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = "name: shared\nseed: 8\nrepetitions: 3\ndatasets:\n  - {name: Employee, public_by_rule: {dataset: employee, column: JoiningYear, values: [\"2012\"]}}\nsplit: {public: 0, private: 0.8, test: 0.2}\nscaling: public\nlabel_bounds: public\nepsilons: [1, 8]\nmethods:\n  - method: LPCT-M\n    grid: &g {depth: [2, 6], min_leaf: [1, 64], min_samples_split: [1], lambda: [0.5, 10]}\n  - method: LPCT-C\n    grid: *g\n  - method: LPCT-M\n    label: LPDT\n    grid: {depth: [2, 6], min_leaf: [1, 64], min_samples_split: [1], lambda: [0]}\n  - method: LPCT-prune-C\n    grid: {depth: [3], p_min: [1], min_leaf: [1, 5], min_samples_split: [1], prune: [reference_v1, paper]}\n  - method: CT-Q\n    grid: {max_depth: [2, 5]}\nselection: best_mean\n";
    let seconds =
        "tables:\n  - name: t\n    value: seconds\n    epsilons: [1]\n    methods: [LPCT-M]\n";
    fs::write(dir.path().join("shared.yaml"), spec).unwrap();
    fs::write(dir.path().join("fresh.yaml"), format!("{spec}{seconds}")).unwrap();
    let data_dir = data.to_str().unwrap();
    let rows = |name: &str, jobs: &str| {
        let (code, _, err) = cli(
            dir.path(),
            &[
                "run",
                &format!("{name}.yaml"),
                "--quiet",
                "--jobs",
                jobs,
                "--out",
                name,
                "--data-dir",
                data_dir,
            ],
        );
        assert_eq!(code, 0, "{err}");
        let mut v: Vec<String> = fs::read_to_string(dir.path().join(name).join("runs.csv"))
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect();
        v.sort();
        v
    };
    let shared = rows("shared", "2");
    // 3 repetitions × (LPCT-M, LPCT-C: 8 points × 2 ε; LPDT: 4 × 2; prune: 4 × 2; CT-Q: 2).
    assert_eq!(shared.len(), 1 + 3 * (16 + 16 + 8 + 8 + 2));
    assert_eq!(shared, rows("fresh", "2"));
}
