//! DiPriMe card §10 tests of the central-DP mechanisms and the tree
//! engine: EM median bins against exact weights, PF two-candidate frequencies, categorical
//! enumeration, range propagation, the EM median's privacy loss on neighbouring data sets,
//! Thm 3 / Cor 3.1 (card §8) and the Thm 2 flip identity.
//!
//! Tolerances of Monte-Carlo checks: 5 binomial standard deviations sqrt(p(1-p)/N) (a
//! correct implementation fails with probability < 1e-6 per check; the seeds are fixed).

use dp_repro::data::{Matrix, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::forest::leaf::leaf_value;
use dp_repro::forest::median::{
    categorical_split, continuous_threshold, em_bin_probabilities, partition_of,
};
use dp_repro::forest::{
    AttrRange, AttributeMechanism, MedianMechanism, MedianOptions, PfWidth, Ranges, Split, Tree,
    TreeConfig,
};
use dp_repro::privacy::{permute_and_flip, permute_and_flip_probabilities};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::BTreeSet;

const NO_QUIRKS: MedianOptions = MedianOptions {
    floors: false,
    pf_width: PfWidth::Linear,
    pf_log_width_floor: false,
    score_sensitivity: 1.0,
};

fn five_sd(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

/// Card §3.4 on a hand-made sample: bin i has weight w_i · e^{−ε|2i−M|/2}.
#[test]
fn em_median_bins_have_the_exact_weights_and_the_sampler_follows_them() {
    let v = [0.1, 0.2, 0.2, 0.5, 0.9];
    let (lo, hi, eps) = (0.0, 1.0, 1.3);
    let widths = [0.1, 0.1, 0.0, 0.3, 0.4, 0.1];
    let m = v.len() as f64;
    let w: Vec<f64> = (0..6)
        .map(|i| widths[i] * (-eps * (2.0 * i as f64 - m).abs() / 2.0).exp())
        .collect();
    let total: f64 = w.iter().sum();
    let (edges, p) = em_bin_probabilities(&v, lo, hi, eps, false);
    assert_eq!(edges, vec![0.0, 0.1, 0.2, 0.2, 0.5, 0.9, 1.0]);
    for i in 0..6 {
        assert!(
            (p[i] - w[i] / total).abs() < 1e-14,
            "bin {i}: {} vs {}",
            p[i],
            w[i] / total
        );
    }
    assert_eq!(
        p[2], 0.0,
        "a zero-width bin between ties has probability 0 without floors"
    );
    // With the reference floors: (w_i e^{..} + 1e-12) / Σ.
    let (_, pf) = em_bin_probabilities(&v, lo, hi, eps, true);
    let tf: f64 = w.iter().map(|x| x + 1e-12).sum();
    assert!((pf[2] - 1e-12 / tf).abs() < 1e-20);
    // The sampler: the bin a drawn threshold falls in (open bins; the zero-width one is
    // never drawn).
    let mut rng = Pcg64::seed_from_u64(11);
    let n = 200_000;
    let mut counts = [0usize; 6];
    for _ in 0..n {
        let mut vals = v.to_vec();
        let r = continuous_threshold(
            &mut rng,
            &mut vals,
            (lo, hi),
            MedianMechanism::Exponential,
            eps,
            &NO_QUIRKS,
            &[],
        );
        let bin = match r {
            r if r < 0.1 => 0,
            r if r < 0.2 => 1,
            r if r < 0.5 => 3,
            r if r < 0.9 => 4,
            _ => 5,
        };
        counts[bin] += 1;
    }
    for i in 0..6 {
        let freq = counts[i] as f64 / n as f64;
        assert!(
            (freq - p[i]).abs() <= five_sd(p[i], n) + 1e-12,
            "bin {i}: {freq} vs {}",
            p[i]
        );
    }
}

/// Card §2.3: with scores (0, q), PF returns the second candidate with probability
/// p/2, p = e^{εq/(2Δ)} (it must come first in the permutation and pass its coin).
#[test]
fn permute_and_flip_two_candidates_match_the_closed_form() {
    let mut rng = Pcg64::seed_from_u64(5);
    for (q, eps, delta) in [(-2.0, 1.0, 1.0), (-0.5, 2.0, 0.5), (-3.0, 0.4, 1.0)] {
        let p2 = (eps * q / (2.0 * delta) as f64).exp() / 2.0;
        let exact = permute_and_flip_probabilities(&[0.0, q], delta, eps, 0.0);
        assert!((exact[1] - p2).abs() < 1e-15);
        let n = 200_000;
        let hits = (0..n)
            .filter(|_| permute_and_flip(&mut rng, &[0.0, q], delta, eps, 0.0) == 1)
            .count();
        let freq = hits as f64 / n as f64;
        assert!((freq - p2).abs() <= five_sd(p2, n), "q {q}: {freq} vs {p2}");
    }
    // Three candidates against the exact law summed over orders.
    let scores = [0.0, -1.0, -2.5];
    let exact = permute_and_flip_probabilities(&scores, 1.0, 1.0, 0.0);
    let n = 200_000;
    let mut c = [0usize; 3];
    for _ in 0..n {
        c[permute_and_flip(&mut rng, &scores, 1.0, 1.0, 0.0)] += 1;
    }
    for j in 0..3 {
        let f = c[j] as f64 / n as f64;
        assert!(
            (f - exact[j]).abs() <= five_sd(exact[j], n),
            "candidate {j}"
        );
    }
}

/// Card §3.5: the encodings j = 1..2^(m−1)−1 give 2^(m−1)−1 distinct unordered non-trivial
/// partitions (hence all of them).
#[test]
fn categorical_enumeration_gives_every_unordered_partition_once() {
    for m in 2..=10usize {
        let cats: Vec<f64> = (0..m).map(|k| (3 * k) as f64).collect();
        let mut seen = BTreeSet::new();
        for j in 1..(1usize << (m - 1)) {
            let (c, rest) = partition_of(j, &cats);
            assert!(!c.is_empty() && !rest.is_empty(), "m {m} j {j} trivial");
            assert!(!c.contains(&cats[0]), "s_0 is never in C");
            assert_eq!(c.len() + rest.len(), m);
            let key = |s: &[f64]| s.iter().map(|x| *x as i64).collect::<Vec<_>>();
            let (a, b) = (key(&c), key(&rest));
            assert!(
                seen.insert(if a < b { (a, b) } else { (b, a) }),
                "m {m} j {j} repeated"
            );
        }
        assert_eq!(seen.len(), (1 << (m - 1)) - 1);
    }
    // The exact categorical median: counts (0: 5, 1: 3, 2: 2) → C = {1, 2} balances 5 : 5.
    let v: Vec<f64> = [0.0; 5]
        .iter()
        .chain(&[1.0; 3])
        .chain(&[2.0; 2])
        .cloned()
        .collect();
    let mut rng = Pcg64::seed_from_u64(1);
    let s = categorical_split(
        &mut rng,
        4,
        &v,
        &[0.0, 1.0, 2.0],
        MedianMechanism::Exact,
        0.0,
        &NO_QUIRKS,
        &[],
    )
    .unwrap();
    assert_eq!(
        s,
        Split::Subset {
            attr: 4,
            subset: vec![1.0, 2.0],
            rest: vec![0.0]
        }
    );
}

fn random_data(rng: &mut Pcg64, n: usize) -> (Matrix, Vec<f64>) {
    // Columns: 0 continuous, 1 categorical (5 codes), 2 continuous with ties, 3 constant.
    let mut data = Vec::with_capacity(n * 4);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let a: f64 = rng.gen();
        let c = rng.gen_range(0..5) as f64;
        let t = (rng.gen::<f64>() * 4.0).floor();
        data.extend_from_slice(&[a, c, t, 7.0]);
        y.push((a + 0.1 * c + rng.gen::<f64>() * 0.2).min(1.0));
    }
    (Matrix::new(n, 4, data), y)
}

fn config(median: MedianMechanism, attribute: AttributeMechanism, depth: usize) -> TreeConfig {
    TreeConfig {
        median,
        attribute,
        k: Some(2),
        depth,
        eps_median: 0.5,
        eps_attribute: 0.5,
        eps_leaf: Some(1.0),
        bounds: LabelBounds { lo: 0.0, hi: 1.0 },
        task: Task::Regression,
        median_options: MedianOptions {
            floors: true,
            pf_width: PfWidth::Power,
            pf_log_width_floor: false,
            score_sensitivity: 1.0,
        },
        categorical_bug: true,
        privacy: dp_repro::forest::budget::Privacy::AsPublished,
    }
}

fn inside(range: &AttrRange, v: f64) -> bool {
    match range {
        AttrRange::Continuous { lo, hi } => *lo <= v && v <= *hi,
        AttrRange::Categorical(c) => c.contains(&v),
    }
}

/// Card §3.7: walking a fitted tree with SPLITRANGE from the root dict, every training row
/// lies inside the range of every attribute still in its node's dict, at every node it
/// passes; many random data sets, every median and attribute mechanism.
#[test]
fn range_propagation_keeps_every_training_row_inside_its_node_range() {
    use AttributeMechanism as A;
    use MedianMechanism as M;
    let mut rng = Pcg64::seed_from_u64(42);
    let mut nodes_checked = 0usize;
    for case in 0..60 {
        let n = rng.gen_range(0..120);
        let (x, y) = random_data(&mut rng, n);
        let (median, attribute) = [
            (M::Exponential, A::Uniform),
            (M::Exponential, A::Exponential),
            (M::PermuteFlip, A::PermuteFlip),
            (M::Exact, A::Argmin),
            (M::Uniform, A::Uniform),
        ][case % 5];
        let root = Ranges::root(&[&x], &[1]);
        if n > 0 {
            assert!(
                root.get(3).is_some(),
                "a constant continuous column is still in the root dict"
            );
        }
        let tree = Tree::fit(
            &x,
            &y,
            (0..n).collect(),
            root.clone(),
            &config(median, attribute, 5),
            &mut rng,
        )
        .unwrap();
        for i in 0..n {
            let row = x.row(i);
            let (mut at, mut ranges) = (0usize, root.clone());
            loop {
                for (a, r) in &ranges.0 {
                    assert!(
                        inside(r, row[*a]),
                        "case {case} row {i} attr {a} outside {r:?}"
                    );
                }
                nodes_checked += 1;
                match &tree.nodes[at] {
                    dp_repro::forest::tree::Node::Leaf { .. } => break,
                    dp_repro::forest::tree::Node::Internal {
                        split,
                        upper,
                        lower,
                    } => {
                        let (u, l) = ranges.children(split);
                        (at, ranges) = if split.upper(row) {
                            (*upper, u)
                        } else {
                            (*lower, l)
                        };
                    }
                }
            }
        }
        // Leaf counts add up to the rows.
        assert_eq!(tree.leaf_counts().iter().sum::<usize>(), n);
    }
    assert!(nodes_checked > 10_000);
}

/// The exact probability that the EM threshold on values `v` in [lo, hi] falls in each
/// cell of `grid` (the density is constant on each bin, so cell masses are exact).
fn em_cell_masses(v: &[f64], lo: f64, hi: f64, eps: f64, grid: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let (edges, p) = em_bin_probabilities(&s, lo, hi, eps, false);
    grid.windows(2)
        .map(|c| {
            (0..p.len())
                .filter(|&i| edges[i + 1] > edges[i])
                .map(|i| {
                    let overlap = (c[1].min(edges[i + 1]) - c[0].max(edges[i])).max(0.0);
                    p[i] * overlap / (edges[i + 1] - edges[i])
                })
                .sum()
        })
        .collect()
}

/// The EM median is ε-DP under add/remove-one neighbours (score −|n_L − n_R| has
/// sensitivity 1): for data sets D and D ∪ {x}, the exact probability of every output
/// cell differs by a factor ≤ e^ε (up to 1e-9 rounding), and sampled frequencies agree with
/// it within 5 sd of the log-frequency (delta method: sd(ln p̂) ≈ sqrt((1−p)/(N p))).
#[test]
fn em_median_privacy_loss_on_neighbouring_data_is_at_most_epsilon() {
    let mut rng = Pcg64::seed_from_u64(9);
    let grid: Vec<f64> = (0..=200).map(|k| k as f64 / 200.0).collect();
    let mut worst: f64 = 0.0;
    for _ in 0..200 {
        let m = rng.gen_range(2..30);
        let d: Vec<f64> = (0..m).map(|_| rng.gen::<f64>()).collect();
        let mut d2 = d.clone();
        d2.push(rng.gen::<f64>());
        let eps = [0.1, 0.5, 1.0, 3.0][rng.gen_range(0..4)];
        let (a, b) = (
            em_cell_masses(&d, 0.0, 1.0, eps, &grid),
            em_cell_masses(&d2, 0.0, 1.0, eps, &grid),
        );
        for (pa, pb) in a.iter().zip(&b) {
            let loss = (pa / pb).ln().abs();
            assert!(loss <= eps + 1e-9, "loss {loss} > eps {eps}");
            worst = worst.max(loss / eps);
        }
    }
    // The bound is nearly attained somewhere (the check is not vacuous).
    assert!(worst > 0.9, "largest loss/eps {worst}");
    // Sampled: D = 8 values, D' = D plus one; 10 output cells of [0,1].
    let d = [0.05, 0.2, 0.3, 0.35, 0.5, 0.55, 0.8, 0.95];
    let mut d2 = d.to_vec();
    d2.push(0.4);
    let eps = 1.0;
    let cells: Vec<f64> = (0..=10).map(|k| k as f64 / 10.0).collect();
    let n = 300_000;
    let sample = |vals: &[f64], rng: &mut Pcg64| {
        let mut c = vec![0usize; 10];
        for _ in 0..n {
            let mut v = vals.to_vec();
            let r = continuous_threshold(
                rng,
                &mut v,
                (0.0, 1.0),
                MedianMechanism::Exponential,
                eps,
                &NO_QUIRKS,
                &[],
            );
            c[((r * 10.0) as usize).min(9)] += 1;
        }
        c
    };
    let (ca, cb) = (sample(&d, &mut rng), sample(&d2, &mut rng));
    let (ea, eb) = (
        em_cell_masses(&d, 0.0, 1.0, eps, &cells),
        em_cell_masses(&d2, 0.0, 1.0, eps, &cells),
    );
    for k in 0..10 {
        let (fa, fb) = (ca[k] as f64 / n as f64, cb[k] as f64 / n as f64);
        let sd = ((1.0 - fa) / (n as f64 * fa) + (1.0 - fb) / (n as f64 * fb)).sqrt();
        assert!(
            (fa / fb).ln().abs() <= eps + 5.0 * sd,
            "cell {k}: sampled loss {}",
            (fa / fb).ln()
        );
        assert!(
            ((fa / fb).ln() - (ea[k] / eb[k]).ln()).abs() <= 5.0 * sd,
            "cell {k}: sampled vs exact"
        );
    }
}

/// Card §8, Thm 3 and Cor 3.1, exactly on random configurations: with d = x_(N−t) − x_(t+1)
/// (1-based), the EM mass of bins with min(i, N−i) ≥ t+1 is ≥ d / (R e^{−ε} + d(1 − e^{−ε}))
/// ≥ d / R (the uniform threshold's, i.e. DP-ERT's, mass), with equality at ε = 0.
#[test]
fn theorem_3_and_corollary_3_1_hold_exactly() {
    let mut rng = Pcg64::seed_from_u64(2024);
    for _ in 0..2000 {
        let n = rng.gen_range(3..40);
        let mut x: Vec<f64> = (0..n)
            .map(|_| rng.gen::<f64>().powi(rng.gen_range(1..4)))
            .collect();
        x.sort_by(f64::total_cmp);
        let (lo, hi) = (
            x[0] - rng.gen::<f64>() * 0.2,
            x[n - 1] + rng.gen::<f64>() * 0.2,
        );
        let r = hi - lo;
        let t = rng.gen_range(1..n.div_ceil(2));
        if 2 * t >= n {
            continue;
        }
        let d = x[n - t - 1] - x[t];
        for eps in [0.0, 0.05, 0.3, 1.0, 4.0] {
            let (_, p) = em_bin_probabilities(&x, lo, hi, eps, false);
            let mass: f64 = (0..=n).filter(|&i| i.min(n - i) > t).map(|i| p[i]).sum();
            let e = (-eps).exp();
            let bound = d / (r * e + d * (1.0 - e));
            assert!(
                mass >= bound - 1e-12,
                "Thm 3: n {n} t {t} eps {eps}: {mass} < {bound}"
            );
            let uniform = d / r;
            assert!(1.0 - mass <= 1.0 - uniform + 1e-12, "Cor 3.1");
            if eps == 0.0 {
                assert!((mass - uniform).abs() < 1e-12, "equality at eps 0");
            }
        }
    }
}

/// Card §8, Thm 2: a leaf with counts n_0 < n_1 (Δ = n_1 − n_0), each noised by Lap(1/ε)
/// and clipped at 0, both-zero ties by a fair coin, flips its majority with probability
/// (1/2 + εΔ/4) e^{−εΔ}; the leaf estimate of §3.8 is the noisy fraction of class 1.
#[test]
fn theorem_2_flip_probability_identity() {
    let mut rng = Pcg64::seed_from_u64(77);
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    for (n0, n1, eps) in [(1usize, 3usize, 1.0), (2, 3, 0.7), (0, 2, 0.5)] {
        let y: Vec<f64> = std::iter::repeat(0.0)
            .take(n0)
            .chain(std::iter::repeat(1.0).take(n1))
            .collect();
        let delta = (n1 - n0) as f64;
        let pf = (0.5 + eps * delta / 4.0) * (-eps * delta).exp();
        let n = 300_000;
        let mut flips = 0usize;
        for _ in 0..n {
            let v = leaf_value(
                &mut rng,
                &y,
                &[],
                Task::Classification,
                bounds,
                Some(eps),
                dp_repro::forest::budget::Privacy::AsPublished,
            );
            if v < 0.5 || (v == 0.5 && rng.gen::<bool>()) {
                flips += 1;
            }
        }
        let f = flips as f64 / n as f64;
        assert!(
            (f - pf).abs() <= five_sd(pf, n),
            "n=({n0},{n1}) eps {eps}: {f} vs {pf}"
        );
    }
}
