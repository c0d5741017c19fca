//! HistOfTree / AdHistOfTree (card docs/methods/histoftree.md §5–§7): candidate sets on
//! hand-made masks and their invariance to private coordinates, the masked growers against
//! LPDT-M / LPDT-V, truncation, sparse against dense accumulation, eq. (15) by hand, the
//! GRR estimator's unbiasedness, and a semi-feature baseline composed in YAML only.

mod common;

use assert_cmd::Command;
use dp_repro::data::{Matrix, PrivacyMask};
use dp_repro::estimate::{candidate_sums, CandidateMechanism};
use dp_repro::partition::{
    adaptive_objective, adaptive_shape, cart_quantile, masked_cart, masked_max_edge, max_edge,
    truncate, CandidateTable, Cell, HCandidates, HistTree, MaskedGrowth, MaskedTree, Node, Routing,
    TreeParams,
};
use dp_repro::privacy::Grr;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn data(n: usize, d: usize, seed: u64) -> (Matrix, Vec<f64>) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let data: Vec<f64> = (0..n * d).map(|_| rng.gen::<f64>()).collect();
    let x = Matrix::new(n, d, data);
    let y = (0..n)
        .map(|i| {
            let r = x.row(i);
            (6.0 * r[0]).sin() + r[d - 1] * 2.0 + 0.3 * rng.gen::<f64>()
        })
        .collect();
    (x, y)
}

fn random_mask(n: usize, d: usize, p: f64, seed: u64) -> PrivacyMask {
    let mut rng = Pcg64::seed_from_u64(seed);
    PrivacyMask::from_rows(
        (0..n)
            .map(|_| (0..d).map(|_| rng.gen::<f64>() < p).collect())
            .collect(),
    )
}

fn params(depth: usize) -> TreeParams {
    TreeParams {
        depth,
        min_leaf: 1,
        min_samples_split: 2,
        threshold: 0.0,
    }
}

/// H-axis 0 with 3 bins, a max-edge T-tree of depth 3 on axes 1, 2 (all public).
fn hist_tree() -> HistTree {
    let (x, y) = data(400, 3, 1);
    let mask = PrivacyMask::from_rows(vec![vec![false; 3]; 400]);
    let g = MaskedGrowth {
        x: &x,
        y: &y,
        mask: &mask,
        axes: &[1, 2],
    };
    let tree = masked_max_edge(&g, &params(3), Routing::Compatible).partition;
    assert!(tree.n_leaves() >= 6, "the test needs a real tree");
    HistTree {
        h_axes: vec![0],
        bins: 3,
        tree,
    }
}

#[test]
fn candidate_sets_on_hand_made_masks() {
    let ht = hist_tree();
    let k_t = ht.tree.n_leaves() as u64;
    let x = [0.7, 0.2, 0.9];
    let truth = ht.cell_of(&x);
    // Every feature public: one candidate, the true cell.
    let c = ht.candidates(&x, &[false; 3], HCandidates::Compatible);
    assert_eq!(c.len(3), 1);
    assert_eq!(c.nth(0, 3), truth);
    // Every feature private: all b^s · K_T cells.
    let c = ht.candidates(&x, &[true; 3], HCandidates::Compatible);
    assert_eq!(c.len(3), 3 * k_t);
    // Mixed (H private, axis 1 public, axis 2 private): the product of the H-bins (all 3)
    // and the leaves reachable by moving x_2 alone.
    let c = ht.candidates(&x, &[true, false, true], HCandidates::Compatible);
    let mut reach: Vec<usize> = (0..=1000)
        .map(|k| ht.tree.leaf_of(&[x[0], x[1], k as f64 / 1000.0]))
        .collect();
    reach.sort_unstable();
    reach.dedup();
    assert_eq!(c.leaves, reach);
    assert_eq!(c.h, vec![None]);
    assert_eq!(c.len(3), 3 * reach.len() as u64);
    // A public H-coordinate fixes its bin; `all` ignores it (Lemma B.10's count).
    let c = ht.candidates(&x, &[false, false, true], HCandidates::Compatible);
    assert_eq!(c.h, vec![Some(2)]);
    assert_eq!(c.len(3), reach.len() as u64);
    let c = ht.candidates(&x, &[false, false, true], HCandidates::All);
    assert_eq!(c.len(3), 3 * reach.len() as u64);
    // nth / index_of / contains agree, and the true cell is a candidate.
    let c = ht.candidates(&x, &[true, false, true], HCandidates::Compatible);
    for k in 0..c.len(3) {
        let cell = c.nth(k, 3);
        assert!(c.contains(&cell, 3));
        assert_eq!(c.index_of(&cell, 3), Some(k));
    }
    assert!(c.contains(&truth, 3));
    assert!(!c.contains(
        &Cell {
            h: 0,
            leaf: usize::MAX
        },
        3
    ));
}

#[test]
fn candidates_never_depend_on_private_coordinates() {
    let ht = hist_tree();
    let mut rng = Pcg64::seed_from_u64(77);
    for _ in 0..1000 {
        let x: Vec<f64> = (0..3).map(|_| rng.gen()).collect();
        let private: Vec<bool> = (0..3).map(|_| rng.gen::<bool>()).collect();
        let mut other = x.clone();
        for j in 0..3 {
            if private[j] {
                other[j] = rng.gen();
            }
        }
        for hc in [HCandidates::Compatible, HCandidates::All] {
            let a = ht.candidates(&x, &private, hc);
            assert_eq!(a, ht.candidates(&other, &private, hc));
            assert!(a.contains(&ht.cell_of(&x), 3));
            assert!(a.contains(&ht.cell_of(&other), 3));
        }
    }
}

/// The T-columns of `x` as their own matrix.
fn columns(x: &Matrix, axes: &[usize]) -> Matrix {
    let rows: Vec<Vec<f64>> = (0..x.n)
        .map(|i| axes.iter().map(|&a| x.get(i, a)).collect())
        .collect();
    Matrix::from_rows(&rows)
}

fn same_tree_on_columns(m: &MaskedTree, p: &dp_repro::partition::Partition, axes: &[usize]) {
    assert_eq!(m.partition.nodes.len(), p.nodes.len());
    for (a, b) in m.partition.nodes.iter().zip(&p.nodes) {
        match (a, b) {
            (
                Node::Split {
                    feature: fa,
                    threshold: ta,
                    left: la,
                    right: ra,
                },
                Node::Split {
                    feature: fb,
                    threshold: tb,
                    left: lb,
                    right: rb,
                },
            ) => {
                assert_eq!((*fa, ta, la, ra), (axes[*fb], tb, lb, rb));
            }
            (Node::Leaf { leaf: a }, Node::Leaf { leaf: b }) => assert_eq!(a, b),
            _ => panic!("node kinds differ"),
        }
    }
    assert_eq!(m.partition.leaf_means, p.leaf_means);
    assert_eq!(m.partition.leaf_counts, p.leaf_counts);
}

#[test]
fn masked_growers_with_an_aligned_mask_equal_lpdt_on_the_t_columns() {
    let (x, y) = data(600, 5, 3);
    let axes = [2, 3, 4];
    let mask = PrivacyMask::from_rows(vec![vec![true, true, false, false, false]; 600]);
    let g = MaskedGrowth {
        x: &x,
        y: &y,
        mask: &mask,
        axes: &axes,
    };
    let xt = columns(&x, &axes);
    for depth in [0, 3, 6] {
        for min_leaf in [1, 20] {
            let p = TreeParams {
                min_leaf,
                ..params(depth)
            };
            let me = masked_max_edge(&g, &p, Routing::Compatible);
            same_tree_on_columns(&me, &max_edge(&xt, &y, &p), &axes);
            let ct = masked_cart(&g, &p, 10, Routing::Compatible);
            same_tree_on_columns(&ct, &cart_quantile(&xt, &y, &p, 10), &axes);
        }
    }
}

#[test]
fn truncating_the_deepest_tree_equals_growing_at_that_depth() {
    let (x, y) = data(500, 4, 5);
    let mask = random_mask(500, 4, 0.4, 6);
    let g = MaskedGrowth {
        x: &x,
        y: &y,
        mask: &mask,
        axes: &[1, 2, 3],
    };
    for routing in [Routing::Compatible, Routing::Drop] {
        let deep_me = masked_max_edge(&g, &params(8), routing);
        let deep_ct = masked_cart(&g, &params(8), 10, routing);
        assert!(deep_me.partition.depth() >= 5 && deep_ct.partition.depth() >= 5);
        for p in 0..=8 {
            assert_eq!(
                truncate(&deep_me, p),
                masked_max_edge(&g, &params(p), routing)
            );
            assert_eq!(
                truncate(&deep_ct, p),
                masked_cart(&g, &params(p), 10, routing)
            );
        }
    }
}

/// Users of `hist_tree()` with a random mask: their candidate table.
fn users(n: usize, seed: u64) -> (HistTree, CandidateTable, Vec<f64>) {
    let ht = hist_tree();
    let (x, y) = data(n, 3, seed);
    let mask = random_mask(n, 3, 0.5, seed + 1);
    let t = ht.candidate_table(&x, |i| mask.row(i), HCandidates::Compatible);
    (ht, t, y)
}

#[test]
fn sparse_grr_sums_equal_a_dense_accumulation() {
    let (ht, users, y) = users(60, 11);
    let cells: Vec<Cell> = (0..3u64)
        .flat_map(|h| (0..ht.tree.n_leaves()).map(move |leaf| Cell { h, leaf }))
        .collect();
    let eps = 1.3;
    let sparse = candidate_sums(
        &users,
        &y,
        &cells,
        CandidateMechanism::Grr,
        eps,
        &mut Pcg64::seed_from_u64(4),
    );
    // Dense: every user's Û over every cell, the same draws in the same order.
    let mut rng = Pcg64::seed_from_u64(4);
    let (mut num, mut den) = (vec![0.0; cells.len()], vec![0.0; cells.len()]);
    for i in 0..users.n() {
        let v = users.view(i);
        let k = v.len();
        let report = if k == 1 {
            users.cells[i]
        } else {
            let g = Grr::new(eps, k as usize);
            v.nth(g.release(v.index_of(&users.cells[i]).unwrap() as usize, &mut rng) as u64)
        };
        let g = Grr::new(eps, k as usize);
        for (j, c) in cells.iter().enumerate() {
            if v.contains(c) {
                let u = g.debiased(usize::from(*c != report), 0);
                num[j] += y[i] * u;
                den[j] += u;
            }
        }
    }
    for j in 0..cells.len() {
        assert!(
            (sparse[j].den - den[j]).abs() < 1e-9 * (1.0 + den[j].abs()),
            "{j}"
        );
        assert!(
            (sparse[j].num - num[j]).abs() < 1e-9 * (1.0 + num[j].abs()),
            "{j}"
        );
    }
}

#[test]
fn grr_and_centred_rr_estimators_are_unbiased_on_a_fixed_partition() {
    let (ht, users, y) = users(80, 21);
    let test: Vec<Cell> = (0..3u64)
        .map(|h| Cell { h, leaf: 0 })
        .chain([Cell { h: 1, leaf: 2 }])
        .collect();
    let eps = 1.0;
    let reps = 2000;
    for mech in [CandidateMechanism::Grr, CandidateMechanism::CentredRr] {
        let mut mean = vec![(0.0, 0.0); test.len()];
        for r in 0..reps {
            let s = candidate_sums(&users, &y, &test, mech, eps, &mut Pcg64::seed_from_u64(r));
            for (m, s) in mean.iter_mut().zip(&s) {
                m.0 += s.num / reps as f64;
                m.1 += s.den / reps as f64;
            }
        }
        for (t, c) in test.iter().enumerate() {
            // Expected: Σ over users in c of (Ỹ, 1); variance of each Û from its law.
            let (mut e_num, mut e_den, mut v_num, mut v_den) = (0.0, 0.0, 0.0, 0.0);
            for i in 0..users.n() {
                let v = users.view(i);
                if !v.contains(c) {
                    continue;
                }
                let hit = users.cells[i] == *c;
                let var = match mech {
                    CandidateMechanism::Grr => {
                        let g = Grr::new(eps, v.len() as usize);
                        let p = if hit { g.p_true() } else { g.p_other() };
                        let w = eps.exp() + v.len() as f64 - 1.0;
                        w * w * p * (1.0 - p) / eps.exp_m1().powi(2)
                    }
                    CandidateMechanism::CentredRr => {
                        let keep = 1.0 / (1.0 + (-eps / 2.0).exp());
                        keep * (1.0 - keep) / (2.0 * keep - 1.0).powi(2)
                    }
                };
                if hit {
                    e_num += y[i];
                    e_den += 1.0;
                }
                v_num += y[i] * y[i] * var;
                v_den += var;
            }
            let tol = |v: f64| 5.0 * (v / reps as f64).sqrt();
            assert!(
                (mean[t].1 - e_den).abs() < tol(v_den),
                "{mech:?} {c:?} den {} vs {e_den}",
                mean[t].1
            );
            assert!(
                (mean[t].0 - e_num).abs() < tol(v_num),
                "{mech:?} {c:?} num {} vs {e_num}",
                mean[t].0
            );
        }
        let _ = &ht;
    }
}

#[test]
fn eq_15_on_a_hand_computed_case() {
    // d = 2, n = 4: feature 0 private for users 1, 2, 3, feature 1 for user 3, so the
    // protection order is (0, 1), k_i(0) = (0, 1, 1, 2) and k_i(1) = (0, 0, 0, 1).
    let mask = PrivacyMask::from_rows(vec![
        vec![false, false],
        vec![true, false],
        vec![true, false],
        vec![true, true],
    ]);
    let order = mask.protection_order(&[0, 1]);
    assert_eq!(order, vec![0, 1]);
    // objective = 2^{-2p/(d-s)} + C (ln n/(n eps^2)) 2^{p(d+s)/(d-s)} mean_i 2^{p k_i/(d-s)},
    // C = 0.1, eps = 1, L = ln 4 / 4 = 0.34657359...:
    //  s = 0 (w = 2): p=0: 1 + 0.1 L                      = 1.0346573590279973
    //                 p=1: 0.5 + 0.1 L 2 (1+√2+√2+2)/4    = 0.6009989457154232
    //                 p=2: 0.25 + 0.1 L 4 (1+2+2+4)/4     = 0.5619162312519754  <- argmin
    //  s = 1 (w = 1): p=0: 1 + 0.1 L                      = 1.0346573590279973
    //                 p=1: 0.25 + 0.1 L 8 (1+1+1+2)/4     = 0.5965735902799727
    //                 p=2: 0.0625 + 0.1 L 64 (1+1+1+4)/4  = 3.9441242111356933
    let table = [
        (
            0,
            [1.0346573590279973, 0.6009989457154232, 0.5619162312519754],
            [0, 1, 1, 2],
        ),
        (
            1,
            [1.0346573590279973, 0.5965735902799727, 3.9441242111356933],
            [0, 0, 0, 1],
        ),
    ];
    for (s, values, k) in table {
        for (p, want) in values.iter().enumerate() {
            let got = adaptive_objective(s, p, 2, 4, 1.0, 0.1, &k, true);
            assert!((got - want).abs() < 1e-12, "s={s} p={p}: {got} vs {want}");
        }
    }
    assert!(adaptive_objective(2, 1, 2, 4, 1.0, 0.1, &[0; 4], true).is_infinite());
    // argmin (s, p) = (0, 2): b* = round(2^{2/2}) = 2, then the offset.
    for (offset, bins) in [(0, 2), (-1, 1), (1, 3), (-5, 1)] {
        let sh = adaptive_shape(&mask, &order, 1.0, 0.1, 2, true, offset);
        assert_eq!((sh.s, sh.depth, sh.bins), (0, 2, bins));
    }
    // With C = 1 the variance term dominates: the root (0, 0), one bin.
    let sh = adaptive_shape(&mask, &order, 1.0, 1.0, 2, true, 0);
    assert_eq!((sh.s, sh.depth, sh.bins), (0, 0, 1));
}

fn cmd() -> Command {
    let mut c = Command::cargo_bin("dp-repro").unwrap();
    c.current_dir(common::root())
        .env_remove("DP_REPRO_DATA")
        .envs(common::no_user_data());
    c
}

#[test]
fn list_methods_shows_the_four_presets_as_semi_feature() {
    let out = cmd().args(["list", "methods"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "HistOfTree-ME",
        "HistOfTree-CART",
        "AdHistOfTree-ME",
        "AdHistOfTree-CART",
    ] {
        assert!(
            text.contains(&format!("{name} (semi-feature)")),
            "{name} missing from:\n{text}"
        );
    }
}

#[test]
fn a_semi_feature_baseline_composed_in_yaml_runs_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let mut csv = String::new();
    let mut rng = Pcg64::seed_from_u64(8);
    for _ in 0..150 {
        let x: Vec<f64> = (0..3).map(|_| rng.gen()).collect();
        let y = 3.0 * x[0] + x[1] - x[2] + 0.1 * rng.gen::<f64>();
        csv.push_str(&format!("{y},{},{},{}\n", x[0], x[1], x[2]));
    }
    std::fs::write(tmp.path().join("tiny.csv"), csv).unwrap();
    let spec = "name: semi-baseline\nseed: 3\nrepetitions: 2\ndatasets:\n  - {name: tiny, path: tiny.csv, label_column: 0, task: regression}\nsplit: {public: 0, private: 0.8, test: 0.2}\nlabel_bounds: private_train\nepsilons: [1, 4]\nmethods:\n  - label: HoT-RR\n    compose:\n      partition: {rule: histogram_x_tree, tree: max_edge, grown_on: released, shape: fixed}\n      cell_mechanism: randomized_response\n      label_mechanism: laplace\n      estimator: ratio\n      budget: rho\n    params: {mask: personalized}\n    grid: {s: [0, 1], depth: [1, 2], bins: [1, 2]}\n  - method: HistOfTree-ME\n    params: {mask: aligned, d_p: 1}\n    grid: {depth: [1, 2], bins: [1, 2]}\ntables:\n  - {name: t, epsilons: [1, 4], methods: [HoT-RR, HistOfTree-ME]}\n";
    let path = tmp.path().join("semi.yaml");
    std::fs::write(&path, spec).unwrap();
    let out_dir = tmp.path().join("out");
    let out = cmd()
        .args([
            "run",
            path.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    // HoT-RR: 2 s × 2 depth × 2 bins × 2 ε × 2 reps; HistOfTree-ME: 2 × 2 × 2 × 2.
    assert_eq!(runs.lines().filter(|l| l.contains(",HoT-RR,")).count(), 32);
    assert_eq!(
        runs.lines()
            .filter(|l| l.contains(",HistOfTree-ME,"))
            .count(),
        16
    );
    let table = std::fs::read_to_string(out_dir.join("table-t.md")).expect("the table is rendered");
    assert!(
        table.contains("HoT-RR") && table.contains("HistOfTree-ME"),
        "{table}"
    );
    assert!(table.contains("tiny"), "{table}");
}
