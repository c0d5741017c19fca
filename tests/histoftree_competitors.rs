//! The HistOfTree competitors (method card docs/methods/histoftree.md §8): the
//! exhaustive CART with sklearn's `min_samples_leaf` and its depth truncation, ParDT,
//! LabelDT and KRR, and PHIST's sparse cells.

mod common;

use dp_repro::data::{
    find_manifest, load_manifest_dataset, Dataset, Escape, MaskRule, MaskSource, Matrix,
    PrivacyMask, PrivateRows, Task,
};
use dp_repro::estimate::{histogram_predict, HistogramConfig, LabelBounds};
use dp_repro::methods::krr::{krr_budgets, krr_release, KrrValue};
use dp_repro::methods::pardt::{noisy_labels, public_columns};
use dp_repro::methods::{find, ParamValue, Params, RepData};
use dp_repro::partition::{cart, cart_nested, cart_with, CartParams, Grid, Missing, Partition};
use dp_repro::privacy::Grr;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn abalone() -> Option<Dataset> {
    let dir = common::real_data(&["abalone.csv"])?;
    let m = find_manifest("abalone", &[common::root().join("datasets")]).unwrap();
    Some(load_manifest_dataset(&m, Some(&dir)).unwrap().dataset)
}

fn params(max_depth: usize, min_samples_leaf: usize) -> CartParams {
    CartParams {
        max_depth,
        min_samples_leaf,
        missing: Missing::Refuse,
    }
}

/// Leaf sizes of a partition's growing sample.
fn min_leaf_count(p: &Partition) -> usize {
    p.leaf_counts.iter().copied().min().unwrap()
}

/// `cart_with` at min_samples_leaf 1 is `cart` bit for bit (the DT denominator and the CI
/// golden depend on it), on the 4177 abalone rows at every depth of the LPDT grid.
#[test]
fn cart_with_leaf_one_is_cart_on_abalone() {
    let Some(ds) = abalone() else { return };
    for depth in [1, 3, 6, 10] {
        let a = cart(&ds.x, &ds.y, depth);
        let b = cart_with(&ds.x, &ds.y, &params(depth, 1));
        assert_eq!(a, b, "depth {depth}");
        assert!(a.n_leaves() > 1);
    }
}

/// Every leaf holds at least min_samples_leaf points, the bound binds (a smaller leaf
/// exists at min_samples_leaf 1), and a node with fewer than 2·msl points is a leaf.
#[test]
fn min_samples_leaf_is_respected() {
    let Some(ds) = abalone() else { return };
    assert!(min_leaf_count(&cart_with(&ds.x, &ds.y, &params(10, 1))) < 5);
    for msl in [5, 10, 20] {
        let p = cart_with(&ds.x, &ds.y, &params(10, msl));
        assert!(min_leaf_count(&p) >= msl, "msl {msl}");
        assert!(p.n_leaves() > 8, "msl {msl}: the tree still grows");
    }
    // 9 points, msl 5: no split can leave 5 on each side.
    let x = Matrix::new(9, 1, (0..9).map(f64::from).collect());
    let y: Vec<f64> = (0..9).map(|i| f64::from(i * i)).collect();
    assert_eq!(cart_with(&x, &y, &params(3, 5)).n_leaves(), 1);
    assert_eq!(cart_with(&x, &y, &params(3, 4)).n_leaves(), 2);
}

/// The depth-p tree is the depth-p prefix of the deepest tree: `truncate` equals regrowing
/// (whole partitions, leaf means and counts bit-exact), and `predict_at_depth` equals the
/// regrown tree's prediction, for every depth and leaf size of the card's grid.
#[test]
fn truncating_the_deepest_tree_equals_regrowing() {
    let Some(ds) = abalone() else { return };
    let mut rng = Pcg64::seed_from_u64(7);
    // Noisy labels as ParDT grows on (ties broken differently from the clean labels).
    let y: Vec<f64> = ds.y.iter().map(|v| v + rng.gen_range(-3.0..3.0)).collect();
    let sub = ds.select(&(0..1500).collect::<Vec<_>>());
    let y = &y[..1500];
    for msl in [1, 5, 10, 20] {
        let deep = cart_nested(&sub.x, y, &params(10, msl));
        assert_eq!(deep.tree, cart_with(&sub.x, y, &params(10, msl)));
        for depth in 0..=10 {
            let grown = cart_with(&sub.x, y, &params(depth, msl));
            assert_eq!(deep.truncate(depth), grown, "msl {msl}, depth {depth}");
            for i in (0..ds.n()).step_by(7) {
                let x = ds.x.row(i);
                assert_eq!(
                    deep.predict_at_depth(x, depth).to_bits(),
                    grown.leaf_means[grown.leaf_of(x)].to_bits()
                );
            }
        }
    }
}

/// A uniform [0,1]^d sample with a smooth label.
fn uniform(name: &str, n: usize, d: usize, rng: &mut Pcg64) -> Dataset {
    let data: Vec<f64> = (0..n * d).map(|_| rng.gen::<f64>()).collect();
    let x = Matrix::new(n, d, data);
    let y = (0..n)
        .map(|i| {
            let r = x.row(i);
            (6.0 * r[0]).sin() + 2.0 * r[d - 1] + rng.gen_range(-0.3..0.3)
        })
        .collect();
    Dataset {
        name: name.into(),
        x,
        y,
        task: Task::Regression,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

/// One repetition's data with a mask source drawn from seed 11.
fn rep_data(n: usize, n_test: usize, d: usize) -> RepData {
    let mut rng = Pcg64::seed_from_u64(3);
    let private = uniform("toy", n, d, &mut rng);
    let test = uniform("toy", n_test, d, &mut rng);
    let bounds = LabelBounds::of(&private.y);
    let masks = MaskSource::draw(n, (0..d).collect(), &mut Pcg64::seed_from_u64(11));
    RepData {
        public: private.select(&[]),
        private: PrivateRows::new(private),
        test,
        bounds,
        masks: Some(masks.into()),
    }
}

fn point(pairs: &[(&str, ParamValue)]) -> Params {
    Params(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn s(v: &str) -> ParamValue {
    ParamValue::Str(v.into())
}

fn mask_point(mask: &str, extra: &[(&str, ParamValue)]) -> Params {
    let mut v = vec![
        ("mask", s(mask)),
        ("d_p", ParamValue::Int(2)),
        ("mask_tau", ParamValue::Float(1.0)),
    ];
    v.extend_from_slice(extra);
    point(&v)
}

fn tree(depth: usize, msl: usize) -> Params {
    point(&[
        ("max_depth", ParamValue::Int(depth as i64)),
        ("min_samples_leaf", ParamValue::Int(msl as i64)),
    ])
}

/// Predictions of `cart_with` grown on (x, y) at the test rows `test`.
fn cart_predictions(x: &Matrix, y: &[f64], test: &Matrix, p: CartParams) -> Vec<f64> {
    let t = cart_with(x, y, &p);
    (0..test.n)
        .map(|i| t.leaf_means[t.leaf_of(test.row(i))])
        .collect()
}

fn columns(x: &Matrix, cols: &[usize]) -> Matrix {
    let mut data = Vec::new();
    for i in 0..x.n {
        data.extend(cols.iter().map(|&j| x.row(i)[j]));
    }
    Matrix::new(x.n, cols.len(), data)
}

/// ParDT with the aligned mask (d_p = 2) is CART on the d − 2 public columns grown on the
/// noisy labels y + Lap(R/ε) drawn from the same stream, for every tree grid point and in
/// any order of the grid (the cached deepest tree answers exactly, and the stream ends
/// where a fresh draw leaves it).
#[test]
fn pardt_aligned_is_cart_on_the_public_columns_with_the_same_noisy_labels() {
    let data = rep_data(600, 200, 5);
    let m = find("ParDT").unwrap();
    let fit = m
        .prepare(
            &data,
            &mask_point("aligned", &[("impute", s("public_mean"))]),
            &mut Pcg64::seed_from_u64(0),
        )
        .unwrap()
        .unwrap();
    let eps = 1.5;
    let public = columns(&data.private.escape(Escape::Bookkeeping).x, &[2, 3, 4]);
    let test = columns(&data.test.x, &[2, 3, 4]);
    let mut y_rng = Pcg64::seed_from_u64(99);
    let y_noisy = noisy_labels(
        &data.private.escape(Escape::Bookkeeping).y,
        data.bounds,
        data.bounds.range() / eps,
        &mut y_rng,
    );
    for (depth, msl) in [(3, 1), (7, 5), (1, 20), (3, 1), (10, 10), (12, 5), (0, 1)] {
        let mut rng = Pcg64::seed_from_u64(99);
        let ours = fit.predict(&tree(depth, msl), Some(eps), &mut rng).unwrap();
        assert_eq!(rng, y_rng, "the stream ends where the draw leaves it");
        let want = cart_predictions(&public, &y_noisy, &test, params(depth, msl));
        assert_eq!(ours, want, "depth {depth}, msl {msl}");
    }
    // The aligned mask's public columns are the last d − d_p (column-order ranking).
    let mask = data
        .masks
        .as_ref()
        .unwrap()
        .mask(&MaskRule::Aligned { d_p: 2 });
    assert_eq!(
        public_columns(&data.private.escape(Escape::Bookkeeping).x, &mask).1,
        vec![2, 3, 4]
    );
    // LabelDT is the same on every column.
    let label_dt = find("LabelDT")
        .unwrap()
        .prepare(&data, &Params::default(), &mut Pcg64::seed_from_u64(0))
        .unwrap()
        .unwrap();
    let ours = label_dt
        .predict(&tree(4, 5), Some(eps), &mut Pcg64::seed_from_u64(99))
        .unwrap();
    let want = cart_predictions(
        &data.private.escape(Escape::Bookkeeping).x,
        &y_noisy,
        &data.test.x,
        params(4, 5),
    );
    assert_eq!(ours, want);
}

/// Personalized masks: a column with no public entry is dropped, a private entry of a kept
/// column takes the mean of the column's public entries, public entries stay.
#[test]
fn pardt_imputes_private_entries_by_the_public_column_mean() {
    let x = Matrix::new(3, 3, vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    let mask = PrivacyMask::from_rows(vec![
        vec![true, false, true],
        vec![true, true, false],
        vec![true, false, false],
    ]);
    let (m, kept) = public_columns(&x, &mask);
    assert_eq!(kept, vec![1, 2]);
    assert_eq!(m.data, vec![0.2, 0.75, 0.5, 0.6, 0.8, 0.9]);
}

/// KRR changes only private entries, and each to one of the k bin values.
#[test]
fn krr_touches_only_private_entries() {
    let data = rep_data(2000, 10, 6);
    let mask = data
        .masks
        .as_ref()
        .unwrap()
        .mask(&MaskRule::Personalized { tau: 1.0 });
    let k = 4;
    let (released, labels) = krr_release(
        (
            &data.private.escape(Escape::Bookkeeping).x,
            &data.private.escape(Escape::Bookkeeping).y,
            &mask,
        ),
        data.bounds,
        (k, 1.0),
        KrrValue::Centre,
        &mut Pcg64::seed_from_u64(5),
    );
    assert_eq!(labels.len(), 2000);
    let values: Vec<f64> = (0..k).map(|r| KrrValue::Centre.of(r, k)).collect();
    let (mut private, mut public) = (0, 0);
    for i in 0..2000 {
        for j in 0..6 {
            let (a, b) = (
                data.private.escape(Escape::Bookkeeping).x.row(i)[j],
                released.row(i)[j],
            );
            if mask.is_private(i, j) {
                private += 1;
                assert!(values.contains(&b), "released {b}");
            } else {
                public += 1;
                assert_eq!(a.to_bits(), b.to_bits());
            }
        }
    }
    assert!(
        private > 2000 && public > 2000,
        "{private} private, {public} public"
    );
    assert_eq!(KrrValue::Index.of(3, 4), 1.0);
}

/// The law of one released feature: a user with 2 private features releases each through
/// k-RR at ε/4 (ε/(2 d_i)), so the true bin comes back with probability
/// e^{ε/4}/(e^{ε/4} + k − 1) and each other bin with 1/(e^{ε/4} + k − 1). Frequencies over
/// N = 100 000 users lie within 5 binomial standard deviations of the law. And every
/// user spends ε/2 on the label plus d_i · ε/(2 d_i) on its features: ε in total.
#[test]
fn krr_per_feature_law_and_total_spend() {
    let (n, k, eps) = (100_000, 4, 2.0);
    // Feature 0 in bin 2 of 4, feature 1 in bin 0; both private, feature 2 public.
    let x = Matrix::new(n, 3, [0.6, 0.1, 0.5].repeat(n));
    let y = vec![0.0; n];
    let mask = PrivacyMask::from_rows(vec![vec![true, true, false]; n]);
    let bounds = LabelBounds { lo: -1.0, hi: 1.0 };
    let (released, labels) = krr_release(
        (&x, &y, &mask),
        bounds,
        (k, eps),
        KrrValue::Index,
        &mut Pcg64::seed_from_u64(8),
    );
    let g = Grr::new(eps / 4.0, k);
    for (feature, true_bin) in [(0, 2), (1, 0)] {
        let mut counts = vec![0usize; k];
        for i in 0..n {
            let v = released.row(i)[feature];
            counts[(v * (k - 1) as f64).round() as usize] += 1;
        }
        for (r, &c) in counts.iter().enumerate() {
            let p = if r == true_bin {
                g.p_true()
            } else {
                g.p_other()
            };
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (c as f64 - n as f64 * p).abs() < 5.0 * sd,
                "feature {feature}, bin {r}: {c} vs {}",
                n as f64 * p
            );
        }
    }
    // Label noise Laplace(2R/ε): variance 2 (2R/ε)² = 8 for R = 2, ε = 2.
    let var = labels.iter().map(|v| v * v).sum::<f64>() / n as f64;
    let sd = (20.0 * 64.0 / n as f64).sqrt(); // Var(Z²) = E Z⁴ − 8² = 24 b⁴ − 4 b⁴ = 20 b⁴, b = 2
    assert!((var - 8.0).abs() < 5.0 * sd, "label variance {var}");
    for d_i in 1..=12 {
        let (label, feature) = krr_budgets(eps, d_i);
        assert!(
            (label + d_i as f64 * feature - eps).abs() < 1e-12,
            "d_i {d_i}"
        );
    }
    assert_eq!(krr_budgets(eps, 0), (1.0, 0.0));
}

/// KRR through the registry: answers a tree grid from the cache exactly like a fresh fit
/// (a second Prepared that sees each grid point first), and never on the mask's d_p > d.
#[test]
fn krr_method_cache_equals_fresh_fits() {
    let data = rep_data(500, 100, 4);
    let m = find("KRR").unwrap();
    let structural = mask_point("personalized", &[]);
    let prep = || {
        m.prepare(&data, &structural, &mut Pcg64::seed_from_u64(0))
            .unwrap()
            .unwrap()
    };
    let cached = prep();
    for (k, depth, msl, value) in [
        (4, 5, 1, "centre"),
        (4, 2, 1, "centre"),
        (4, 2, 10, "index"),
        (2, 8, 5, "centre"),
        (4, 5, 1, "centre"),
    ] {
        let mech = point(&[
            ("k", ParamValue::Int(k)),
            ("max_depth", ParamValue::Int(depth)),
            ("min_samples_leaf", ParamValue::Int(msl)),
            ("krr_value", s(value)),
        ]);
        let a = cached
            .predict(&mech, Some(1.0), &mut Pcg64::seed_from_u64(k as u64))
            .unwrap();
        let b = prep()
            .predict(&mech, Some(1.0), &mut Pcg64::seed_from_u64(k as u64))
            .unwrap();
        assert_eq!(a, b, "k {k}, depth {depth}, msl {msl}, {value}");
        assert!(a.iter().all(|v| v.is_finite()));
    }
    let too_many = mask_point("aligned", &[]);
    let mut big = too_many.clone();
    big.0[1].1 = ParamValue::Int(9);
    assert!(m.skip_reason(&big, 0, 4).is_some());
    assert!(m.skip_reason(&too_many, 0, 4).is_none());
}

/// `cells: sparse` (per-axis bin keys) predicts bit for bit what `capped` (mixed-radix
/// indices) predicts from the same stream where both apply.
#[test]
fn sparse_cells_equal_capped_cells() {
    let mut rng = Pcg64::seed_from_u64(21);
    let train = uniform("toy", 3000, 3, &mut rng);
    let test = uniform("toy", 500, 3, &mut rng);
    let grid = Grid { m: 3, d: 3 };
    let cfg = HistogramConfig {
        eps_cell: 1.0,
        eps_label: 1.0,
        t: 0.01,
        bounds: LabelBounds::of(&train.y),
        weights: (1.0, 0.0),
        y_center: false,
    };
    let idx = |x: &Matrix| -> Vec<u64> { (0..x.n).map(|i| grid.cell_of(x.row(i))).collect() };
    let key = |x: &Matrix| -> Vec<Vec<u32>> { (0..x.n).map(|i| grid.cell_key(x.row(i))).collect() };
    let a = histogram_predict(
        &grid,
        &idx(&train.x),
        &train.y,
        &idx(&test.x),
        &cfg,
        &mut Pcg64::seed_from_u64(4),
    )
    .unwrap();
    let b = histogram_predict(
        &grid,
        &key(&train.x),
        &train.y,
        &key(&test.x),
        &cfg,
        &mut Pcg64::seed_from_u64(4),
    )
    .unwrap();
    assert_eq!(a, b);
    assert!(a.iter().any(|&v| v != 0.0));
}

/// Hist (PHIST with the `cells` option) skips bins > 1 on d = 107 under `capped` and runs
/// there under `sparse` (no m^d anything); DT-leaf's min_samples_leaf defaults to DT.
#[test]
fn hist_sparse_runs_on_107_features_and_dt_leaf_matches_dt() {
    let data = rep_data(300, 80, 107);
    let hist = find("Hist").unwrap();
    let at = |cells: &str| point(&[("bins", ParamValue::Int(4)), ("cells", s(cells))]);
    assert!(hist.skip_reason(&at("capped"), 380, 107).is_some());
    assert!(hist.skip_reason(&at("sparse"), 380, 107).is_none());
    let fit = hist
        .prepare(&data, &at("sparse"), &mut Pcg64::seed_from_u64(0))
        .unwrap()
        .expect("sparse cells apply on d = 107");
    let mech = point(&[
        ("t", ParamValue::Float(0.01)),
        ("y_center", ParamValue::Bool(false)),
    ]);
    let pred = fit
        .predict(&mech, Some(1.0), &mut Pcg64::seed_from_u64(1))
        .unwrap();
    assert_eq!(pred.len(), 80);
    assert!(pred.iter().all(|v| v.is_finite()));
    // PHIST keeps its parameters (the CI goldens' keys).
    let names: Vec<&str> = find("PHIST")
        .unwrap()
        .params()
        .iter()
        .map(|p| p.name)
        .collect();
    assert!(!names.contains(&"cells"));
    let names: Vec<&str> = find("DT")
        .unwrap()
        .params()
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, vec!["max_depth"]);

    let small = rep_data(400, 50, 3);
    let dt = find("DT")
        .unwrap()
        .prepare(
            &small,
            &point(&[("max_depth", ParamValue::Int(4))]),
            &mut Pcg64::seed_from_u64(0),
        )
        .unwrap()
        .unwrap()
        .predict(&Params::default(), None, &mut Pcg64::seed_from_u64(0))
        .unwrap();
    let leaf = |msl: i64| {
        find("DT-leaf")
            .unwrap()
            .prepare(
                &small,
                &point(&[
                    ("max_depth", ParamValue::Int(4)),
                    ("min_samples_leaf", ParamValue::Int(msl)),
                ]),
                &mut Pcg64::seed_from_u64(0),
            )
            .unwrap()
            .unwrap()
            .predict(&Params::default(), None, &mut Pcg64::seed_from_u64(0))
            .unwrap()
    };
    assert_eq!(leaf(1), dt);
    assert_eq!(
        leaf(20),
        cart_predictions(
            &small.private.escape(Escape::Bookkeeping).x,
            &small.private.escape(Escape::Bookkeeping).y,
            &small.test.x,
            params(4, 20)
        )
    );
    assert_ne!(leaf(20), dt);
}

// ---------------------------------------------------------------------------------------
// ParDT `impute: nan_aware` (card §8 [G]): CART with missing values, sklearn ≥ 1.3's rule.

/// One feature: three low rows (y = 0), three high rows (y = 10) and three rows missing it
/// with label `y_missing`.
fn with_missing(y_missing: f64) -> (Matrix, Vec<f64>) {
    let x = vec![0.1, 0.2, 0.3, 0.7, 0.8, 0.9, f64::NAN, f64::NAN, f64::NAN];
    let mut y = vec![0.0, 0.0, 0.0, 10.0, 10.0, 10.0];
    y.extend([y_missing; 3]);
    (Matrix::new(9, 1, x), y)
}

#[test]
fn missing_values_go_to_the_side_with_the_larger_reduction() {
    let p = CartParams {
        max_depth: 1,
        min_samples_leaf: 1,
        missing: Missing::BestSide,
    };
    let test = Matrix::new(2, 1, vec![0.2, 0.8]);
    // Missing rows labelled like the high rows join them on the right; like the low rows,
    // on the left: either way the split between 0.3 and 0.7 is pure.
    for (y_missing, counts) in [(10.0, [3, 6]), (0.0, [6, 3])] {
        let (x, y) = with_missing(y_missing);
        let t = cart_nested(&x, &y, &p);
        assert_eq!(t.node_counts.len(), 3, "one split");
        assert_eq!(
            [t.node_counts[1], t.node_counts[2]],
            counts,
            "y_missing {y_missing}"
        );
        let pred: Vec<f64> = (0..2).map(|i| t.predict_at_depth(test.row(i), 1)).collect();
        assert_eq!(pred, [0.0, 10.0]);
    }
    // Observed rows all alike, missing rows apart: the split is "observed | missing"
    // (threshold +inf), so every complete test point lands with the observed rows.
    let x = Matrix::new(6, 1, vec![0.1, 0.5, 0.9, f64::NAN, f64::NAN, f64::NAN]);
    let y = [0.0, 0.0, 0.0, 10.0, 10.0, 10.0];
    let t = cart_nested(&x, &y, &p);
    assert_eq!([t.node_counts[1], t.node_counts[2]], [3, 3]);
    assert_eq!(t.predict_at_depth(&[0.95], 1), 0.0);
    assert_eq!(t.predict_at_depth(&[0.05], 1), 0.0);
}

#[test]
fn best_side_on_complete_data_is_the_refusing_cart_bit_for_bit() {
    let Some(ds) = abalone() else { return };
    for depth in [1, 4, 8] {
        let refuse = cart_with(&ds.x, &ds.y, &params(depth, 5));
        let best = cart_with(
            &ds.x,
            &ds.y,
            &CartParams {
                missing: Missing::BestSide,
                ..params(depth, 5)
            },
        );
        assert_eq!(refuse, best, "depth {depth}");
    }
}

#[test]
fn pardt_nan_aware_marks_exactly_the_private_entries_missing() {
    use dp_repro::methods::pardt::public_columns_missing;
    let mut rng = Pcg64::seed_from_u64(4);
    let x = Matrix::new(50, 3, (0..150).map(|_| rng.gen()).collect());
    let rows: Vec<Vec<bool>> = (0..50)
        .map(|i| vec![true, i % 2 == 0, i % 5 == 0])
        .collect();
    let mask = dp_repro::data::PrivacyMask::from_rows(rows);
    let (m, kept) = public_columns_missing(&x, &mask);
    // Column 0 has no public entry: dropped, as public_mean drops it.
    assert_eq!(kept, [1, 2]);
    assert_eq!(kept, public_columns(&x, &mask).1);
    for i in 0..50 {
        for (c, &j) in kept.iter().enumerate() {
            let v = m.row(i)[c];
            if mask.is_private(i, j) {
                assert!(v.is_nan());
            } else {
                assert_eq!(v, x.row(i)[j]);
            }
        }
    }
}
