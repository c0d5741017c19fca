//! Tests of the partition growers: LPDT-M max-edge (docs/methods/lpdt.md §3), LPDT-V quantile CART
//! (§4), complete max-edge (§5), sklearn-like CART (§7.1) and the PHIST grid (§7.3).
//! Expected trees are worked out by hand in the comments.

use dp_repro::data::Matrix;
use dp_repro::partition::cart::numpy_quantile_linear;
use dp_repro::partition::{
    cart, cart_quantile, cart_quantile_entropy, complete_max_edge, grid_allowed, max_edge,
    max_edge_entropy, Grid, Node, Partition, TreeParams,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn m1(xs: &[f64]) -> Matrix {
    Matrix::new(xs.len(), 1, xs.to_vec())
}

fn params(depth: usize, min_leaf: usize, mss: usize) -> TreeParams {
    TreeParams {
        depth,
        min_leaf,
        min_samples_split: mss,
        threshold: 0.0,
    }
}

fn split_of(p: &Partition, node: usize) -> (usize, f64, usize, usize) {
    match p.nodes[node] {
        Node::Split {
            feature,
            threshold,
            left,
            right,
        } => (feature, threshold, left, right),
        Node::Leaf { .. } => panic!("node {node} is a leaf"),
    }
}

/// Leaf ids met in a depth-first, left-first walk of the nodes.
fn dfs_leaves(p: &Partition) -> Vec<usize> {
    fn rec(p: &Partition, i: usize, out: &mut Vec<usize>) {
        match p.nodes[i] {
            Node::Leaf { leaf } => out.push(leaf),
            Node::Split { left, right, .. } => {
                rec(p, left, out);
                rec(p, right, out);
            }
        }
    }
    let mut out = Vec::new();
    rec(p, 0, &mut out);
    out
}

/// Structural consistency of a partition grown on (x, y): leaf ids in DFS order, every
/// growing point inside its leaf's cell, counts and means per leaf as recomputed through
/// `leaf_of`, counts summing to n.
fn check_consistency(p: &Partition, x: &Matrix, y: &[f64]) {
    let k = p.n_leaves();
    assert_eq!(dfs_leaves(p), (0..k).collect::<Vec<_>>());
    assert_eq!(p.leaf_means.len(), k);
    assert_eq!(p.leaf_counts.len(), k);
    let mut cnt = vec![0usize; k];
    let mut sum = vec![0.0f64; k];
    for (i, &yi) in y.iter().enumerate() {
        let row = x.row(i);
        let j = p.leaf_of(row);
        let (lo, hi) = &p.cells[j];
        for f in 0..x.d {
            assert!(
                lo[f] <= row[f] && row[f] < hi[f] || (hi[f] == 1.0 && row[f] == 1.0),
                "point {i} = {row:?} outside cell {j} = {lo:?}..{hi:?}"
            );
        }
        cnt[j] += 1;
        sum[j] += yi;
    }
    assert_eq!(cnt, p.leaf_counts);
    assert_eq!(p.leaf_counts.iter().sum::<usize>(), x.n);
    for j in 0..k {
        let m = if cnt[j] == 0 {
            0.0
        } else {
            sum[j] / cnt[j] as f64
        };
        assert!((m - p.leaf_means[j]).abs() <= 1e-9 * (1.0 + m.abs()));
    }
}

// ---------------------------------------------------------------- max-edge (§3)

/// 1-D data, depth 3, n_l = 2, mss = 2. In 1-D the only candidate is the midpoint of the
/// cell, so the tree is dyadic:
/// * [0,1): 8 points → split at 0.5: left {.1,.2,.3} (3), right {.6,.7,.8,.9,.95} (5).
/// * [0,.5): 3 > mss → try 0.25: left {.1,.2} (2), right {.3} (1 < n_l) → leaf (3 pts).
/// * [.5,1): 5 points → 0.75: left {.6,.7} (2), right {.8,.9,.95} (3) → split.
/// * [.5,.75): 2 ≤ mss → leaf. [.75,1): try 0.875: left {.8} (1 < 2) → leaf.
///
/// Leaves in DFS order: [0,.5) mean (1+2+3)/3 = 2, [.5,.75) mean 6.5,
/// [.75,1) mean (8+9+9.5)/3.
#[test]
fn max_edge_1d_dyadic_pruned_by_min_leaf() {
    let xs = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95];
    let y = [1.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 9.5];
    let x = m1(&xs);
    let p = max_edge(&x, &y, &params(3, 2, 2));
    assert_eq!(p.n_leaves(), 3);
    let cells: Vec<(f64, f64)> = p.cells.iter().map(|(l, h)| (l[0], h[0])).collect();
    assert_eq!(cells, vec![(0.0, 0.5), (0.5, 0.75), (0.75, 1.0)]);
    assert_eq!(p.leaf_counts, vec![3, 2, 3]);
    assert_eq!(p.leaf_means[0], 2.0);
    assert_eq!(p.leaf_means[1], 6.5);
    assert!((p.leaf_means[2] - 26.5 / 3.0).abs() < 1e-12);
    assert_eq!(p.domain_lo, vec![0.0]);
    assert_eq!(p.domain_hi, vec![1.0]);
    assert_eq!(p.depth(), 2);
    // Nodes in pre-order: root, leaf [0,.5), split at .75, two leaves.
    let (f, t, l, r) = split_of(&p, 0);
    assert_eq!((f, t, l), (0, 0.5, 1));
    assert_eq!(split_of(&p, r).1, 0.75);
    check_consistency(&p, &x, &y);

    // With n_l = 1 every cell with > 2 distinct points splits down to depth 3:
    // [0,.25) {.1,.2} leaf (2 ≤ mss), [.25,.5) {.3}, [.5,.75) {.6,.7},
    // [.75,1) 3 pts → [.75,.875) {.8}, [.875,1) {.9,.95} (depth 3 reached... 2 ≤ mss).
    let p = max_edge(&x, &y, &params(3, 1, 2));
    let cells: Vec<(f64, f64)> = p.cells.iter().map(|(l, h)| (l[0], h[0])).collect();
    assert_eq!(
        cells,
        vec![
            (0.0, 0.25),
            (0.25, 0.5),
            (0.5, 0.75),
            (0.75, 0.875),
            (0.875, 1.0)
        ]
    );
    assert_eq!(p.leaf_counts, vec![2, 1, 2, 1, 2]);
    check_consistency(&p, &x, &y);
}

/// Depth limit: the same data with s = 1 gives the two halves; s = 0 a single leaf.
#[test]
fn max_edge_depth_limit() {
    let xs = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95];
    let y = [1.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 9.5];
    let x = m1(&xs);
    let p = max_edge(&x, &y, &params(1, 1, 2));
    assert_eq!(p.n_leaves(), 2);
    assert_eq!(p.leaf_counts, vec![3, 5]);
    assert_eq!(p.depth(), 1);
    let p = max_edge(&x, &y, &params(0, 1, 2));
    assert_eq!(p.n_leaves(), 1);
    assert_eq!(p.leaf_counts, vec![8]);
    assert!((p.leaf_means[0] - 45.5 / 8.0).abs() < 1e-12);
    assert_eq!(p.cells[0], (vec![0.0], vec![1.0]));
}

/// 2-D, mss = 1, n_l = 1, depth 2. Points (x0, x1; y):
/// p1 (.2,.2; 0), p2 (.7,.3; 0), p3 (.3,.8; 10), p4 (.8,.7; 10).
/// Root [0,1)²: both edges are 1. Feature 0 at .5 gives L {p1,p3} = {0,10},
/// R {p2,p4} = {0,10}: r = 0. Feature 1 at .5 gives L {p1,p2} = {0,0}, R {10,10}:
/// r = SSE(P)/4 = 100/4 = 25. Sorted: [f1, f0]; 2 < 15 candidates → keep 1 → split on x1.
/// Children [0,1)×[0,.5) and [0,1)×[.5,1): the longest edge is now x0 only, so both split
/// on x0 at .5 although the reduction there is 0 for {p1,p2} (r = 0 ≥ threshold 0).
#[test]
fn max_edge_2d_longest_edge_then_larger_reduction() {
    let x = Matrix::from_rows(&[
        vec![0.2, 0.2],
        vec![0.7, 0.3],
        vec![0.3, 0.8],
        vec![0.8, 0.7],
    ]);
    let y = [0.0, 0.0, 10.0, 10.0];
    let p = max_edge(&x, &y, &params(2, 1, 1));
    let (f, t, l, r) = split_of(&p, 0);
    assert_eq!((f, t), (1, 0.5));
    assert_eq!(split_of(&p, l).0, 0);
    assert_eq!(split_of(&p, l).1, 0.5);
    assert_eq!(split_of(&p, r).0, 0);
    assert_eq!(p.n_leaves(), 4);
    assert_eq!(
        p.cells,
        vec![
            (vec![0.0, 0.0], vec![0.5, 0.5]),
            (vec![0.5, 0.0], vec![1.0, 0.5]),
            (vec![0.0, 0.5], vec![0.5, 1.0]),
            (vec![0.5, 0.5], vec![1.0, 1.0]),
        ]
    );
    assert_eq!(p.leaf_means, vec![0.0, 0.0, 10.0, 10.0]);
    assert_eq!(p.leaf_counts, vec![1, 1, 1, 1]);
    check_consistency(&p, &x, &y);
}

/// Equal edges and equal reductions: (.2,.2; 0) and (.8,.8; 10) give r = 25 on both
/// features, and the stable sort keeps feature 0 first.
#[test]
fn max_edge_ties_go_to_lowest_feature() {
    let x = Matrix::from_rows(&[vec![0.2, 0.2], vec![0.8, 0.8]]);
    let y = [0.0, 10.0];
    let p = max_edge(&x, &y, &params(1, 1, 1));
    assert_eq!(split_of(&p, 0).0, 0);
}

/// The best candidate violates n_l and, with fewer than 15 candidates, it is the only
/// one tried, so the node stays a leaf (docs/methods/lpdt.md §3 steps 4–6).
/// Points (x0, x1; y): (.2,.2; 0), (.7,.3; 0), (.3,.4; 0), (.8,.9; 100), n_l = 2.
/// mean 25, SSE(P) = 3·625 + 5625 = 7500. x1 at .5: children {0,0,0} | {100}, r = 1875;
/// x0 at .5: {0,0} | {0,100}, SSE = 5000, r = 625. x1 first; its right child has 1 < 2
/// points → leaf, although x0 would have been valid.
///
/// With d = 15 (13 extra constant features at 0.1, r = 0 each) the number of kept
/// candidates is ⌊(15+5)/10⌋ = 2, so the second candidate is tried. Data for that case
/// (x0, x1; y): (.2,.2; 0), (.2,.3; 0), (.3,.7; 4), (.9,.8; 10). mean 3.5, SSE(P) = 67.
/// x0: {0,0,4} | {10}: SSE(L) = 96/9, r = (67 − 96/9)/4 ≈ 14.08, right child has 1 point;
/// x1: {0,0} | {4,10}: SSE(R) = 18, r = 49/4 = 12.25, both children 2 points → split on x1.
/// With d = 14, ⌊19/10⌋ = 1 candidate → leaf.
#[test]
fn max_edge_top_candidates_and_min_leaf() {
    let x = Matrix::from_rows(&[
        vec![0.2, 0.2],
        vec![0.7, 0.3],
        vec![0.3, 0.4],
        vec![0.8, 0.9],
    ]);
    let y = [0.0, 0.0, 0.0, 100.0];
    let p = max_edge(&x, &y, &params(3, 2, 1));
    assert_eq!(p.n_leaves(), 1);
    assert_eq!(p.leaf_counts, vec![4]);
    // With n_l = 1 the same data splits on x1.
    let p = max_edge(&x, &y, &params(1, 1, 1));
    assert_eq!(split_of(&p, 0).0, 1);

    let base = [[0.2, 0.2], [0.2, 0.3], [0.3, 0.7], [0.9, 0.8]];
    let y = [0.0, 0.0, 4.0, 10.0];
    let make = |d: usize| {
        let rows: Vec<Vec<f64>> = base
            .iter()
            .map(|r| {
                let mut v = r.to_vec();
                v.resize(d, 0.1);
                v
            })
            .collect();
        Matrix::from_rows(&rows)
    };
    let p = max_edge(&make(15), &y, &params(1, 2, 1));
    let (f, t, _, _) = split_of(&p, 0);
    assert_eq!((f, t), (1, 0.5));
    assert_eq!(p.leaf_counts, vec![2, 2]);
    let p = max_edge(&make(14), &y, &params(1, 2, 1));
    assert_eq!(p.n_leaves(), 1);
}

/// Stop checks: |P| ≤ mss, and at most mss distinct rows (x, y).
#[test]
fn max_edge_min_samples_split_and_distinct_rows() {
    // 3 points: mss = 3 → |P| = 3 ≤ 3 → leaf; mss = 2 → splits at 0.5.
    let x = m1(&[0.1, 0.2, 0.9]);
    let y = [0.0, 1.0, 2.0];
    assert_eq!(max_edge(&x, &y, &params(4, 1, 3)).n_leaves(), 1);
    let p = max_edge(&x, &y, &params(1, 1, 2));
    assert_eq!(p.leaf_counts, vec![2, 1]);

    // 5 points but only 2 distinct rows (x, y) = (.1, 1), (.9, 2): 2 ≤ mss = 2 → leaf.
    let x = m1(&[0.1, 0.1, 0.1, 0.9, 0.9]);
    let y = [1.0, 1.0, 1.0, 2.0, 2.0];
    assert_eq!(max_edge(&x, &y, &params(4, 1, 2)).n_leaves(), 1);
    // Changing one label gives 3 distinct rows: the root splits at 0.5 into {.1 ×3} and
    // {.9 ×2}; the left child has 2 distinct rows ≤ 2 → leaf; the right has 2 points.
    let y = [1.0, 1.5, 1.0, 2.0, 2.0];
    let p = max_edge(&x, &y, &params(4, 1, 2));
    assert_eq!(p.leaf_counts, vec![3, 2]);
    check_consistency(&p, &x, &y);
}

/// A point at x = 1 (the closed top of the domain) goes to the last cell; a reduction
/// threshold above every r keeps the root a leaf.
#[test]
fn max_edge_threshold_and_boundary() {
    let x = m1(&[0.0, 0.25, 0.75, 1.0]);
    let y = [0.0, 0.0, 1.0, 1.0];
    // r at 0.5 = SSE(P)/4 = 1/4 = 0.25.
    let mut pr = params(1, 1, 1);
    pr.threshold = 0.25;
    assert_eq!(max_edge(&x, &y, &pr).n_leaves(), 2);
    pr.threshold = 0.2500001;
    assert_eq!(max_edge(&x, &y, &pr).n_leaves(), 1);
    let p = max_edge(&x, &y, &params(1, 1, 1));
    assert_eq!(p.leaf_of(&[1.0]), 1);
    assert_eq!(p.leaf_of(&[0.5]), 1);
    assert_eq!(p.leaf_of(&[0.4999]), 0);
    check_consistency(&p, &x, &y);
}

#[test]
fn tree_params_defaults() {
    let p = TreeParams::default();
    assert_eq!(
        (p.depth, p.min_leaf, p.min_samples_split, p.threshold),
        (4, 1, 2, 0.0)
    );
}

// ------------------------------------------------------- complete max-edge (§5)

/// 1-D depth 3: 8 equal bins [i/8, (i+1)/8). 2-D depth 3: x0 at .5, then x1 at .5, then x0
/// at .25/.75, so leaf 0 is [0,.25)×[0,.5) and leaf 7 is [.75,1)×[.5,1).
#[test]
fn complete_max_edge_cells() {
    let p = complete_max_edge(1, 3);
    assert_eq!(p.n_leaves(), 8);
    for i in 0..8 {
        assert_eq!(
            p.cells[i],
            (vec![i as f64 / 8.0], vec![(i + 1) as f64 / 8.0])
        );
        assert_eq!(p.leaf_of(&[(i as f64 + 0.5) / 8.0]), i);
    }
    assert_eq!(p.leaf_of(&[1.0]), 7);
    assert!(p.leaf_means.iter().all(|&m| m == 0.0));
    assert!(p.leaf_counts.iter().all(|&c| c == 0));

    let p = complete_max_edge(2, 3);
    assert_eq!(p.n_leaves(), 8);
    assert_eq!(p.depth(), 3);
    assert_eq!(split_of(&p, 0).0, 0);
    assert_eq!(split_of(&p, 1).0, 1);
    assert_eq!(split_of(&p, 2).0, 0);
    assert_eq!(p.cells[0], (vec![0.0, 0.0], vec![0.25, 0.5]));
    assert_eq!(p.cells[7], (vec![0.75, 0.5], vec![1.0, 1.0]));
    assert_eq!(dfs_leaves(&p), (0..8).collect::<Vec<_>>());
    assert_eq!(complete_max_edge(3, 0).n_leaves(), 1);
}

// ------------------------------------------------------ quantile CART (§4)

/// NumPy values from
/// `python3 -c "import numpy as np; print(np.quantile(np.array([0.1,0.35,0.4,0.72,0.9]),
/// [(2*i+1)/20 for i in range(10)]))"` (NumPy 2.4.6, printed with repr):
/// 0.15, 0.25, 0.35, 0.37, 0.39, 0.4640000000000001, 0.5920000000000001, 0.72, 0.792,
/// 0.864 — compared bit for bit.
#[test]
fn numpy_quantile_matches_numpy() {
    let v = [0.1, 0.35, 0.4, 0.72, 0.9];
    let expect = [
        0.15,
        0.25,
        0.35,
        0.37,
        0.39,
        0.4640000000000001,
        0.5920000000000001,
        0.72,
        0.792,
        0.864,
    ];
    for (i, &e) in expect.iter().enumerate() {
        let q = (2 * i + 1) as f64 / 20.0;
        assert_eq!(numpy_quantile_linear(&v, q), e, "level {q}");
    }
    assert_eq!(numpy_quantile_linear(&v, 1.0), 0.9);
    assert_eq!(numpy_quantile_linear(&v, 0.0), 0.1);
    assert_eq!(numpy_quantile_linear(&[3.0], 0.7), 3.0);
}

/// A 0/1 feature: the distinct values are {0, 1}, the candidates 0.05, 0.15, …, 0.95
/// (`np.unique(np.quantile([0.,1.], levels))`), all giving the same split, so the first,
/// 0.05, is kept (strictly larger reduction needed to move on).
#[test]
fn cart_quantile_binary_feature_threshold_005() {
    let x = m1(&[0.0, 0.0, 1.0, 1.0]);
    let y = [0.0, 0.0, 1.0, 1.0];
    let p = cart_quantile(&x, &y, &params(1, 1, 1), 10);
    let (f, t, _, _) = split_of(&p, 0);
    assert_eq!((f, t), (0, 0.05));
    assert_eq!(p.leaf_means, vec![0.0, 1.0]);
    assert_eq!(p.domain_lo, vec![f64::NEG_INFINITY]);
    assert_eq!(p.cells[0], (vec![f64::NEG_INFINITY], vec![0.05]));
    assert_eq!(p.cells[1], (vec![0.05], vec![f64::INFINITY]));
    check_consistency(&p, &x, &y);
}

/// Quantiles of the *distinct* values: x has values {0 (×7), .5, 1 (×2)}; the distinct
/// values {0, .5, 1} give candidates .05, .15, …; the labels are 0 at x = 0 and 1
/// elsewhere, so every candidate below .5 gives the best split and the first, 0.05, wins.
/// (Quantiles of all ten values would start at 0.) A step at x = .5 on ten equally spaced
/// values i/10: the candidates are 0.045…, 0.135, …, 0.405, 0.495, … (numpy output
/// `np.unique(np.quantile(np.arange(10)/10, levels))`); 0.405 and 0.495 both separate
/// {0..0.4} from {0.5..0.9} with the largest reduction, and the first, 0.405, is kept.
#[test]
fn cart_quantile_distinct_values_and_first_best() {
    let x = m1(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 1.0]);
    let y = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let p = cart_quantile(&x, &y, &params(1, 1, 1), 10);
    assert_eq!(split_of(&p, 0).1, 0.05);
    assert_eq!(p.leaf_counts, vec![7, 3]);

    let xs: Vec<f64> = (0..10).map(|i| i as f64 / 10.0).collect();
    let y: Vec<f64> = (0..10).map(|i| if i < 5 { 0.0 } else { 1.0 }).collect();
    let p = cart_quantile(&m1(&xs), &y, &params(1, 1, 1), 10);
    assert_eq!(split_of(&p, 0).1, 0.405);
    assert_eq!(p.leaf_counts, vec![5, 5]);
}

/// The threshold ignores n_l: on x = i/10 with y = (100, 0, …, 0) the best candidate is
/// 0.045… (isolating x = 0); with n_l = 2 that child is too small and, d < 15, no other
/// feature is tried → leaf. With n_l = 1 it splits there. A 2-feature case picks the
/// feature with the larger reduction (x1 separates the labels exactly).
#[test]
fn cart_quantile_min_leaf_and_feature_choice() {
    let xs: Vec<f64> = (0..10).map(|i| i as f64 / 10.0).collect();
    let mut y = vec![0.0; 10];
    y[0] = 100.0;
    let x = m1(&xs);
    assert_eq!(cart_quantile(&x, &y, &params(2, 2, 1), 10).n_leaves(), 1);
    let p = cart_quantile(&x, &y, &params(1, 1, 1), 10);
    assert_eq!(split_of(&p, 0).1, 0.045000000000000005);
    assert_eq!(p.leaf_counts, vec![1, 9]);

    // (x0, x1; y): x0 mixes the labels, x1 separates them.
    let x = Matrix::from_rows(&[
        vec![0.1, 0.9],
        vec![0.2, 0.1],
        vec![0.3, 0.8],
        vec![0.4, 0.2],
    ]);
    let y = [5.0, 0.0, 5.0, 0.0];
    let p = cart_quantile(&x, &y, &params(1, 1, 1), 10);
    assert_eq!(split_of(&p, 0).0, 1);
    assert_eq!(p.leaf_means, vec![0.0, 5.0]);
    check_consistency(&p, &x, &y);

    // Constant labels: no strictly positive reduction anywhere → leaf.
    let p = cart_quantile(&x, &[3.0; 4], &params(3, 1, 1), 10);
    assert_eq!(p.n_leaves(), 1);
}

// ------------------------------------------------------------- DT / CART (§7.1)

/// 1-D, x = 1..6, y = (1,1,1,5,5,6). Reduction ∝ n_L n_R (ȳ_L − ȳ_R)² / n at each
/// midpoint: 1.5 → 5·2.6²/6 = 5.63; 2.5 → 8·3.25²/6 = 14.08; 3.5 → 9·(13/3)²/6 = 28.17;
/// 4.5 → 8·3.5²/6 = 16.33; 5.5 → 5·3.4²/6 = 9.63. Best: 3.5. Depth 2: {1,1,1} is pure →
/// leaf; {5,5,6} at x = 4,5,6: 4.5 → 2·0.5²/3 = 0.17, 5.5 → 2·1²/3 = 0.67 → 5.5.
/// Thresholds are stored as the next float above the midpoint (x ≤ t goes left, as
/// sklearn).
#[test]
fn cart_best_split_and_midpoints() {
    let x = m1(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let y = [1.0, 1.0, 1.0, 5.0, 5.0, 6.0];
    let p = cart(&x, &y, 1);
    let (f, t, _, _) = split_of(&p, 0);
    assert_eq!((f, t), (0, 3.5f64.next_up()));
    assert_eq!(p.leaf_means[0], 1.0);
    assert!((p.leaf_means[1] - 16.0 / 3.0).abs() < 1e-12);
    // sklearn routes x = 3.5 (≤ threshold) left.
    assert_eq!(p.leaf_of(&[3.5]), 0);
    assert_eq!(p.leaf_of(&[3.5000001]), 1);

    let p = cart(&x, &y, 2);
    assert_eq!(p.n_leaves(), 3);
    assert_eq!(p.leaf_means, vec![1.0, 5.0, 6.0]);
    assert_eq!(p.leaf_counts, vec![3, 2, 1]);
    let (_, _, _, r) = split_of(&p, 0);
    assert_eq!(split_of(&p, r).1, 5.5f64.next_up());
    check_consistency(&p, &x, &y);

    // max_depth 0 → one leaf with the mean.
    let p = cart(&x, &y, 0);
    assert_eq!(p.n_leaves(), 1);
    assert!((p.leaf_means[0] - 19.0 / 6.0).abs() < 1e-12);
}

/// 2-D: rows (x0, x1; y) = (0,5; 0), (.3,1; 10), (1,3; 0), (.6,2; 10).
/// x0 sorted: 0 (0), .3 (10), .6 (10), 1 (0): best r ∝ 1·3·(20/3)²/4 = 33.3.
/// x1 sorted: 1 (10), 2 (10), 3 (0), 5 (0): split after 2 → 2·2·10²/4 = 100, the best:
/// feature 1, midpoint (2+3)/2 = 2.5. Non-uniform spacing: midpoints of x0 are .15, .45,
/// .8 — check one by forcing a 1-feature tree.
/// Ties: two identical columns → feature 0.
#[test]
fn cart_picks_best_feature_and_ties_lowest() {
    let x = Matrix::from_rows(&[
        vec![0.0, 5.0],
        vec![0.3, 1.0],
        vec![1.0, 3.0],
        vec![0.6, 2.0],
    ]);
    let y = [0.0, 10.0, 0.0, 10.0];
    let p = cart(&x, &y, 1);
    let (f, t, _, _) = split_of(&p, 0);
    assert_eq!((f, t), (1, 2.5f64.next_up()));
    assert_eq!(p.leaf_means, vec![10.0, 0.0]);

    // Only x0: ties between .15 (after 1 point) and .8 (after 3) → lowest threshold
    // (0 + 0.3)/2 = 0.15 (as computed by sklearn: 0/2 + 0.3/2).
    let x0 = m1(&[0.0, 0.3, 1.0, 0.6]);
    let p = cart(&x0, &y, 1);
    assert_eq!(split_of(&p, 0).1, (0.0f64 / 2.0 + 0.3 / 2.0).next_up());
    assert_eq!(p.leaf_counts, vec![1, 3]);

    let x = Matrix::from_rows(&[vec![0.1, 0.1], vec![0.2, 0.2], vec![0.7, 0.7]]);
    let p = cart(&x, &[0.0, 0.0, 1.0], 3);
    assert_eq!(split_of(&p, 0).0, 0);
    assert_eq!(p.n_leaves(), 2); // both children pure
}

/// Leaf rules: pure nodes, single points and constant features are leaves; an impure node
/// is split even with zero reduction (sklearn). XOR: (0,0;0), (0,1;1), (1,0;1), (1,1;0):
/// at the root every split has r = 0 → split on x0 at .5 (lowest feature); each child
/// then splits on x1 → 4 pure leaves.
#[test]
fn cart_leaf_rules() {
    let x = m1(&[1.0, 2.0, 3.0]);
    assert_eq!(cart(&x, &[2.0, 2.0, 2.0], 4).n_leaves(), 1);
    // Constant feature, impure labels → no threshold → leaf.
    let x = m1(&[1.0, 1.0, 1.0]);
    assert_eq!(cart(&x, &[1.0, 2.0, 3.0], 4).n_leaves(), 1);
    // Single point and empty data.
    assert_eq!(cart(&m1(&[0.5]), &[1.0], 4).n_leaves(), 1);
    let p = cart(&Matrix::new(0, 2, vec![]), &[], 4);
    assert_eq!(
        (p.n_leaves(), p.leaf_means[0], p.leaf_counts[0]),
        (1, 0.0, 0)
    );

    let x = Matrix::from_rows(&[
        vec![0.0, 0.0],
        vec![0.0, 1.0],
        vec![1.0, 0.0],
        vec![1.0, 1.0],
    ]);
    let y = [0.0, 1.0, 1.0, 0.0];
    let p = cart(&x, &y, 2);
    assert_eq!(split_of(&p, 0).0, 0);
    assert_eq!(p.n_leaves(), 4);
    assert_eq!(p.leaf_means, vec![0.0, 1.0, 1.0, 0.0]);
    check_consistency(&p, &x, &y);
}

// ------------------------------------------------------------------ grid (§7.3)

#[test]
fn grid_cell_of_boundaries() {
    let g = Grid { m: 3, d: 2 };
    // index = b0·3 + b1
    assert_eq!(g.cell_of(&[0.0, 0.0]), 0);
    assert_eq!(g.cell_of(&[1.0, 1.0]), 8); // x = 1 → last bin
    assert_eq!(g.cell_of(&[-0.5, 0.5]), 1); // x < 0 → bin 0; ⌊1.5⌋ = 1
    assert_eq!(g.cell_of(&[0.999, 0.34]), 7);
    assert_eq!(g.cell_of(&[2.0, -3.0]), 6); // beyond 1 → last bin
    assert_eq!(g.cell_of(&[1.0 / 3.0, 0.0]), 3); // 3·(1/3) = 1 → bin 1
    assert_eq!(g.n_cells(), Some(9));
    assert_eq!(g.volume(), 1.0 / 9.0);

    let g1 = Grid { m: 1, d: 107 };
    assert_eq!(g1.cell_of(&vec![0.7; 107]), 0);
    assert_eq!(g1.n_cells(), Some(1));
    assert_eq!(g1.volume(), 1.0);

    assert_eq!(Grid { m: 2, d: 63 }.n_cells(), Some(1 << 63));
    assert_eq!(Grid { m: 2, d: 64 }.n_cells(), None);
    assert_eq!(Grid { m: 4, d: 3 }.volume(), 1.0 / 64.0);
    assert_eq!(Grid { m: 2, d: 1 }.cell_of(&[0.5]), 1);
    assert_eq!(Grid { m: 2, d: 1 }.cell_of(&[0.4999]), 0);
}

/// m^d ≤ 2^30 and d ≤ 21, m = 1 always: 4^15 = 2^30 allowed, 4^16 not; 3^18 ≈ 3.9e8
/// allowed, 3^19 ≈ 1.16e9 > 2^30 ≈ 1.07e9 not; d = 22 not even for m = 2.
#[test]
fn grid_allowed_rule() {
    assert!(grid_allowed(1, 107));
    assert!(grid_allowed(1, 1000));
    assert!(grid_allowed(2, 21));
    assert!(!grid_allowed(2, 22));
    assert!(grid_allowed(4, 15));
    assert!(!grid_allowed(4, 16));
    assert!(grid_allowed(3, 18));
    assert!(!grid_allowed(3, 19));
    assert!(grid_allowed(4, 6));
    assert!(!grid_allowed(0, 1));
}

// -------------------------------------------------------- property-style tests

/// Random data (seeded Pcg64), several shapes and parameters: every partition is
/// consistent (points inside their cells, counts and means through `leaf_of`, DFS leaf
/// ids, counts summing to n); max-edge / quantile-CART leaves respect n_l (when n ≥ n_l)
/// and depth ≤ s; max-edge cells tile [0,1]^d (volumes sum to 1); CART leaves ≤ 2^depth.
#[test]
fn random_partitions_are_consistent() {
    let mut rng = Pcg64::seed_from_u64(20240611);
    for case in 0..60 {
        let n = rng.gen_range(0..300);
        let d = rng.gen_range(1..20);
        let discrete = case % 3 == 0;
        let data: Vec<f64> = (0..n * d)
            .map(|_| {
                let u: f64 = rng.gen();
                if discrete {
                    (u * 4.0).floor() / 3.0
                } else {
                    u
                }
            })
            .collect();
        let x = Matrix::new(n, d, data);
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let r = x.row(i);
                10.0 * r[0] - 5.0 * r[d - 1] + rng.gen::<f64>()
            })
            .collect();
        let p = TreeParams {
            depth: rng.gen_range(0..7),
            min_leaf: rng.gen_range(1..30),
            min_samples_split: rng.gen_range(1..6),
            threshold: 0.0,
        };
        let me = max_edge(&x, &y, &p);
        let cq = cart_quantile(&x, &y, &p, 10);
        for part in [&me, &cq] {
            check_consistency(part, &x, &y);
            assert!(part.depth() <= p.depth);
            if n >= p.min_leaf {
                assert!(
                    part.leaf_counts.iter().all(|&c| c >= p.min_leaf),
                    "case {case}: {:?} < {}",
                    part.leaf_counts,
                    p.min_leaf
                );
            }
        }
        let vol: f64 = me
            .cells
            .iter()
            .map(|(lo, hi)| lo.iter().zip(hi).map(|(l, h)| h - l).product::<f64>())
            .sum();
        assert!((vol - 1.0).abs() < 1e-12);
        let depth = rng.gen_range(0..6);
        let dt = cart(&x, &y, depth);
        check_consistency(&dt, &x, &y);
        assert!(dt.depth() <= depth && dt.n_leaves() <= 1 << depth);
        assert!(dt.leaf_counts.iter().all(|&c| c >= 1) || n == 0);
    }
}

/// CART on distinct-x data with no depth limit fits the training labels exactly (every
/// leaf pure or a single point), a check of the exhaustive search.
#[test]
fn cart_deep_interpolates_training_data() {
    let mut rng = Pcg64::seed_from_u64(7);
    let n = 200;
    let d = 3;
    let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen::<f64>()).collect());
    let y: Vec<f64> = (0..n).map(|_| rng.gen::<f64>()).collect();
    let p = cart(&x, &y, 64);
    for (i, &yi) in y.iter().enumerate() {
        assert_eq!(p.leaf_means[p.leaf_of(x.row(i))], yi);
    }
}

/// Ties within rounding. Labels (.22, .46, 5.29, 5.02): feature 0 puts rows {0,1} left and
/// feature 1 puts rows {2,3} left — the same split, so the reductions are equal in exact
/// arithmetic. In floating point the left sums are accumulated in different orders and
/// the feature-1 value comes out larger in the last bits (5.796056250000003 against
/// 5.796056249999999, checked with a Python emulation of the sums). Both growers must
/// still treat them as tied and pick the lowest feature index.
#[test]
fn ties_within_rounding_go_to_lowest_feature() {
    let y = [0.22, 0.46, 5.29, 5.02];
    // DT: x0 sorted r0,r1,r2,r3; x1 sorted r2,r3,r0,r1.
    let x = Matrix::from_rows(&[
        vec![0.1, 0.7],
        vec![0.2, 0.8],
        vec![0.3, 0.1],
        vec![0.4, 0.2],
    ]);
    let p = cart(&x, &y, 1);
    assert_eq!(split_of(&p, 0).0, 0);
    assert_eq!(p.leaf_counts, vec![2, 2]);
    // Max-edge: both midpoints 0.5 give the same split.
    let x = Matrix::from_rows(&[
        vec![0.1, 0.7],
        vec![0.2, 0.8],
        vec![0.6, 0.1],
        vec![0.7, 0.2],
    ]);
    let p = max_edge(&x, &y, &params(1, 1, 1));
    assert_eq!(split_of(&p, 0).0, 0);
    let p = cart_quantile(&x, &y, &params(1, 1, 1), 10);
    assert_eq!(split_of(&p, 0).0, 0);
}

/// LPCT's max-edge rule scores candidates by binary-entropy information gain (lpct.md
/// §2.2), not by variance reduction, and the two can disagree. Eight points, two ones, both
/// root edges longest (midpoints 0.5):
/// * feature 0 puts the single point (0.2, 0.7) = 1 on the left: left 1 point (1 one),
///   right 7 (1 one). Variance reduction (of 0/1 labels: p(1−p) terms) 0.0804; entropy
///   gain 0.2936 bits.
/// * feature 1 puts the four zeros with x₁ < 0.5 on the left: left 4 (0 ones), right 4
///   (2 ones). Variance reduction 0.0625; entropy gain H(1/4) − ½H(1/2) = 0.8113 − 0.5 =
///   0.3113 bits.
///
/// So LPDT's max_edge cuts feature 0 and LPCT's cuts feature 1.
#[test]
fn lpct_max_edge_ranks_by_entropy_gain_where_variance_disagrees() {
    let rows = [
        ([0.2, 0.7], 1.0),
        ([0.8, 0.9], 1.0),
        ([0.6, 0.1], 0.0),
        ([0.7, 0.2], 0.0),
        ([0.8, 0.3], 0.0),
        ([0.9, 0.4], 0.0),
        ([0.6, 0.6], 0.0),
        ([0.7, 0.8], 0.0),
    ];
    let x = Matrix::from_rows(&rows.iter().map(|r| r.0.to_vec()).collect::<Vec<_>>());
    let y: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let by_variance = max_edge(&x, &y, &params(1, 1, 1));
    let by_entropy = max_edge_entropy(&x, &y, &params(1, 1, 1));
    assert_eq!(split_of(&by_variance, 0).0, 0);
    assert_eq!(split_of(&by_entropy, 0).0, 1);
    assert_eq!(split_of(&by_entropy, 0).1, 0.5);
    // The leaves' public counts and shares of ones: {4 zeros} and {2 ones of 4}.
    let mut leaves: Vec<(usize, f64)> = by_entropy
        .leaf_counts
        .iter()
        .copied()
        .zip(by_entropy.leaf_means.iter().copied())
        .collect();
    leaves.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(leaves, vec![(4, 0.0), (4, 0.5)]);
    // m_l = 5: neither candidate leaves 5 public points on both sides, so the root stays a
    // leaf (docs/methods/lpct.md §2.1 rule 4).
    assert_eq!(max_edge_entropy(&x, &y, &params(1, 5, 1)).n_leaves(), 1);
    // m_s = 8: a node with ≤ 8 public points is a leaf (§2.1 rule 1).
    assert_eq!(max_edge_entropy(&x, &y, &params(1, 1, 8)).n_leaves(), 1);
    // A non-informative split (all labels equal) has gain 0, kept at τ = 0: the rule cuts
    // the lowest longest edge, as the paper's "min argmin".
    let p = max_edge_entropy(&x, &[0.0; 8], &params(1, 1, 1));
    assert_eq!(split_of(&p, 0).0, 0);
}

/// LPCT (CART) (docs/methods/lpct.md §2.4): LPDT-V's quantile candidates scored by entropy gain. Eight
/// points where the criteria disagree (scores computed by hand with Python's math module
/// over the same ten quantile thresholds (2i+1)/20 of each feature's distinct values):
/// * feature 0, best threshold 0.6 (left 6 points, 3 ones): variance reduction 0.0469,
///   entropy gain 0.2044 bits;
/// * feature 1, best threshold 0.75 (left 7 points, 5 ones): variance reduction 0.0558,
///   entropy gain 0.1992 bits.
///
/// So LPDT-V cuts feature 1 at 0.75 and LPCT (CART) feature 0 at 0.6.
#[test]
fn lpct_cart_ranks_quantile_candidates_by_entropy_gain() {
    let rows = [
        ([0.2, 0.9], 0.0),
        ([0.4, 0.1], 1.0),
        ([0.7, 0.7], 1.0),
        ([0.3, 0.1], 1.0),
        ([0.0, 0.6], 1.0),
        ([0.9, 0.0], 1.0),
        ([0.4, 0.3], 0.0),
        ([0.5, 0.0], 0.0),
    ];
    let x = Matrix::from_rows(&rows.iter().map(|r| r.0.to_vec()).collect::<Vec<_>>());
    let y: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let (k, t, _, _) = split_of(&cart_quantile(&x, &y, &params(1, 1, 1), 10), 0);
    assert_eq!(k, 1);
    assert!((t - 0.75).abs() < 1e-12, "{t}");
    let p = cart_quantile_entropy(&x, &y, &params(1, 1, 1), 10);
    let (k, t, _, _) = split_of(&p, 0);
    assert_eq!(k, 0);
    assert!((t - 0.6).abs() < 1e-12, "{t}");
    let mut counts = p.leaf_counts.clone();
    counts.sort_unstable();
    assert_eq!(counts, vec![2, 6]);
}

/// `leaves_of` (rows routed eight at a time, branch-free) gives every row the leaf
/// `leaf_of` gives it: unbalanced CART and max-edge trees of depth 0 to 7, row counts
/// that are not multiples of eight, points outside the domain, on thresholds and NaN.
#[test]
fn batch_routing_matches_routing_one_point() {
    let mut rng = Pcg64::seed_from_u64(11);
    for trial in 0..40 {
        let (n, d) = (rng.gen_range(1..300), rng.gen_range(1..6));
        let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen::<f64>()).collect());
        let y: Vec<f64> = (0..n)
            .map(|i| x.row(i)[0] * 3.0 + rng.gen::<f64>())
            .collect();
        let depth = trial % 8;
        let trees = [
            cart(&x, &y, depth),
            max_edge(&x, &y, &params(depth, 1 + trial % 5, 2)),
        ];
        let m = rng.gen_range(0..100);
        let mut pts: Vec<f64> = (0..m * d).map(|_| rng.gen_range(-0.5..1.5)).collect();
        for (j, v) in pts.iter_mut().enumerate() {
            match j % 17 {
                0 => *v = f64::NAN,
                1 => *v = 0.5,                      // a max-edge midpoint
                2 => *v = x.data[j % x.data.len()], // a CART data value
                _ => {}
            }
        }
        let test = Matrix::new(m, d, pts);
        for tree in &trees {
            let one: Vec<usize> = (0..m).map(|i| tree.leaf_of(test.row(i))).collect();
            assert_eq!(tree.leaves_of(&test), one, "trial {trial}, depth {depth}");
            let own: Vec<usize> = (0..n).map(|i| tree.leaf_of(x.row(i))).collect();
            assert_eq!(tree.leaves_of(&x), own, "trial {trial}: growing rows");
        }
    }
}
