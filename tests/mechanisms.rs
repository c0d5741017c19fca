//! Statistical tests of the laws of LPDT's release and of the LPDT sums (the Laplace
//! law itself: crates/privacy/tests/laplace_law.rs), with
//! fixed seeds. Every tolerance is 5 standard deviations of the estimator under test,
//! derived from the exact law in the comment next to it (never tuned): a correct
//! implementation fails with probability below 1e-6 per check, a wrong keep probability
//! or noise scale by more than a few percent fails for sure at these sample sizes.

use dp_repro::estimate::{lpdt_sums, LabelBounds, LpdtConfig, LpdtMechanism, Simulation};
use dp_repro::privacy::{rr_keep_probability, Budget};
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

fn mechanism(k: usize, epsilon: f64, rho: f64, bounds: LabelBounds) -> LpdtMechanism {
    LpdtMechanism::new(
        k,
        &LpdtConfig {
            epsilon,
            rho,
            bounds,
            tau: 0.0,
            simulation: Simulation::default(),
        },
    )
    .unwrap()
}

#[test]
fn randomized_response_keeps_bits_with_the_stated_probability() {
    // LPDT App. D.1: each bit is reported truthfully with probability e^{ρε/2}/(1+e^{ρε/2}).
    // Kept-bit frequency over N = users·K bits is Binomial(N, κ)/N: sd sqrt(κ(1−κ)/N).
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    for (epsilon, rho) in [(0.5, 0.3), (2.0, 0.5), (8.0, 0.7)] {
        let k = 8;
        let mech = mechanism(k, epsilon, rho, bounds);
        let a: f64 = rho * epsilon / 2.0;
        let kappa = a.exp() / (1.0 + a.exp());
        assert!((mech.keep.keep - kappa).abs() < 1e-12);
        let mut r = rng(3);
        let users = 50_000;
        let mut kept = 0usize;
        let mut bits = vec![false; k];
        for i in 0..users {
            let leaf = i % k;
            mech.release(0, leaf, 0.5, &mut bits, &mut r);
            kept += bits
                .iter()
                .enumerate()
                .filter(|(j, b)| (*j == leaf) == **b)
                .count();
        }
        let n = (users * k) as f64;
        let freq = kept as f64 / n;
        let sd = (kappa * (1.0 - kappa) / n).sqrt();
        assert!(
            (freq - kappa).abs() < 5.0 * sd,
            "eps {epsilon} rho {rho}: kept {freq}, want {kappa}"
        );
    }
}

#[test]
fn label_noise_has_scale_range_over_label_budget() {
    // Ỹ − clip(y) ~ Laplace(R/((1−ρ)ε)); E|Ỹ − y| = β with sd β per draw.
    let bounds = LabelBounds { lo: -2.0, hi: 3.0 };
    let (epsilon, rho) = (2.0, 0.3);
    let mech = mechanism(4, epsilon, rho, bounds);
    let beta = 5.0 / ((1.0 - rho) * epsilon);
    assert!((mech.label_scale - beta).abs() < 1e-12);
    let mut r = rng(4);
    let n = 200_000;
    let mut bits = vec![false; 4];
    let mut sum_abs = 0.0;
    for _ in 0..n {
        // y = 10 is clipped to 3 before the noise.
        sum_abs += (mech.release(0, 0, 10.0, &mut bits, &mut r) - 3.0).abs();
    }
    let mean_abs = sum_abs / n as f64;
    assert!(
        (mean_abs - beta).abs() < 5.0 * beta / (n as f64).sqrt(),
        "E|noise| {mean_abs}, want {beta}"
    );
}

#[test]
fn lpdt_sums_are_unbiased_for_gamma_times_counts_and_label_sums() {
    // docs/methods/lpdt.md §14 C14: E[S_j] = γ·n_j and E[T_j] = γ·Σ_{i∈A_j} y_i. Over `reps`
    // independent privatizations, the mean of S_j has sd sd(S_j)/sqrt(reps), estimated
    // from the same replications.
    let bounds = LabelBounds { lo: 0.0, hi: 4.0 };
    let mech = mechanism(3, 4.0, 0.5, bounds);
    // ρ = 0.5, ε = 4: κ = e/(1+e) ≈ 0.7311, γ ≈ 0.4621 (C14).
    assert!((mech.keep.gamma - 0.4621).abs() < 1e-4);
    let leaves: Vec<usize> = (0..300).map(|i| [0, 0, 1, 2, 2, 2][i % 6]).collect();
    let y: Vec<f64> = (0..300).map(|i| (i % 5) as f64).collect();
    let reps = 4000;
    let mut r = rng(5);
    let mut s_all = vec![Vec::new(); 3];
    let mut t_all = vec![Vec::new(); 3];
    for _ in 0..reps {
        let sums = lpdt_sums(&mech, &leaves, &y, &mut r);
        for j in 0..3 {
            s_all[j].push(sums.s[j]);
            t_all[j].push(sums.t[j]);
        }
    }
    let mean_sd = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64;
        (m, (var / v.len() as f64).sqrt())
    };
    for j in 0..3 {
        let n_j = leaves.iter().filter(|&&l| l == j).count() as f64;
        let sum_y: f64 = leaves
            .iter()
            .zip(&y)
            .filter(|(l, _)| **l == j)
            .map(|(_, y)| y)
            .sum();
        let (ms, ss) = mean_sd(&s_all[j]);
        let (mt, st) = mean_sd(&t_all[j]);
        let g = mech.keep.gamma;
        assert!(
            (ms - g * n_j).abs() < 5.0 * ss,
            "leaf {j}: E S = {ms}, want {}",
            g * n_j
        );
        assert!(
            (mt - g * sum_y).abs() < 5.0 * st,
            "leaf {j}: E T = {mt}, want {}",
            g * sum_y
        );
        // Var S_j = n κ(1−κ) exactly (n independent bits).
        let var_s = ss * ss * reps as f64;
        let want = 300.0 * mech.keep.keep * (1.0 - mech.keep.keep);
        // Sample variance of a near-normal variable: relative sd sqrt(2/(reps−1)).
        assert!(
            (var_s / want - 1.0).abs() < 5.0 * (2.0 / (reps as f64 - 1.0)).sqrt(),
            "Var S {var_s} want {want}"
        );
    }
}

#[test]
fn budget_split_is_checked() {
    assert!(Budget::new(-1.0).is_err());
    assert!(LpdtMechanism::new(
        2,
        &LpdtConfig {
            epsilon: 1.0,
            rho: 1.0,
            bounds: LabelBounds { lo: 0.0, hi: 1.0 },
            tau: 0.0,
            simulation: Simulation::default(),
        }
    )
    .is_err());
    assert!(LpdtMechanism::new(
        2,
        &LpdtConfig {
            epsilon: 0.0,
            rho: 0.5,
            bounds: LabelBounds { lo: 0.0, hi: 1.0 },
            tau: 0.0,
            simulation: Simulation::default(),
        }
    )
    .is_err());
    let k = rr_keep_probability(1e-9);
    assert!((k.keep - 0.5).abs() < 1e-9 && k.gamma > 0.0);
}
