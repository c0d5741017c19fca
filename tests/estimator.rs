//! Edge cases of the LPDT estimator (docs/methods/lpdt.md §2.3) and the histogram estimators
//! (§7.3–§7.4), with fixed seeds.

use dp_repro::data::{Dataset, Matrix, PrivateRows, Task};
use dp_repro::estimate::{
    histogram_predict, lpdt_leaf_values, HistogramConfig, LabelBounds, LpdtConfig, Simulation,
};
use dp_repro::methods::{find, ParamValue, Params, RepData};
use dp_repro::partition::Grid;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn cfg(epsilon: f64, tau: f64, bounds: LabelBounds, simulation: Simulation) -> LpdtConfig {
    LpdtConfig {
        epsilon,
        rho: 0.5,
        bounds,
        tau,
        simulation,
    }
}

/// Both simulations of the users' releases: every edge case holds for each.
const SIMULATIONS: [Simulation; 2] = [Simulation::Fast, Simulation::PerUser];

#[test]
fn a_huge_tau_makes_every_leaf_fall_back_to_its_public_mean() {
    for sim in SIMULATIONS {
        let leaves = vec![0, 1, 2, 0, 1, 2, 0, 0];
        let y = vec![1.0; 8];
        let fallback = vec![0.25, 0.5, 0.75];
        let mut rng = Pcg64::seed_from_u64(1);
        let est = lpdt_leaf_values(
            &leaves,
            &y,
            &fallback,
            &cfg(1.0, 1e9, LabelBounds { lo: 0.0, hi: 2.0 }, sim),
            &mut rng,
        )
        .unwrap();
        assert_eq!(est.values, fallback);
        assert_eq!(est.fallbacks, 3);
    }
}

#[test]
fn at_a_huge_epsilon_empty_leaves_fall_back_and_full_leaves_estimate_their_mean() {
    for sim in SIMULATIONS {
        // ε = 60, ρ = 0.5: flip probability 1/(1+e^15) ≈ 3e-7, so with 400×4 bits no flip is
        // expected (P(any flip) ≈ 5e-4). An empty leaf then has S = −n(1−κ) < 0 → fallback.
        // Label noise β = R/((1−ρ)ε) = 4/30; a leaf mean of n_j = 200 noisy labels has sd
        // β·√2/√200 ≈ 0.0133; tolerance 5 sd. Labels above the bound are clipped first.
        let n = 400;
        let leaves: Vec<usize> = (0..n).map(|i| if i % 2 == 0 { 0 } else { 2 }).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { 10.0 })
            .collect();
        let bounds = LabelBounds { lo: 0.0, hi: 4.0 };
        let fallback = vec![-1.0, -2.0, -3.0, -4.0];
        let mut rng = Pcg64::seed_from_u64(2);
        let est = lpdt_leaf_values(
            &leaves,
            &y,
            &fallback,
            &cfg(60.0, 0.0, bounds, sim),
            &mut rng,
        )
        .unwrap();
        let sd = (4.0 / 30.0) * 2f64.sqrt() / 200f64.sqrt();
        assert!((est.values[0] - 1.0).abs() < 5.0 * sd, "{:?}", est.values);
        assert!(
            (est.values[2] - 4.0).abs() < 5.0 * sd,
            "clipped to the upper bound: {:?}",
            est.values
        );
        assert_eq!(est.values[1], -2.0, "empty leaf falls back");
        assert_eq!(est.values[3], -4.0, "empty leaf falls back");
        assert_eq!(est.fallbacks, 2);
    }
}

#[test]
fn constant_labels_give_exactly_that_constant() {
    for sim in SIMULATIONS {
        // R = 0: the label noise scale is 0, every Ỹ equals the constant, and T_j = c·S_j.
        let leaves = vec![0, 1, 1, 0, 1];
        let y = vec![3.0; 5];
        let mut rng = Pcg64::seed_from_u64(3);
        let est = lpdt_leaf_values(
            &leaves,
            &y,
            &[0.0, 0.0],
            &cfg(2.0, 0.0, LabelBounds { lo: 3.0, hi: 3.0 }, sim),
            &mut rng,
        )
        .unwrap();
        for (v, fb) in est.values.iter().zip([0.0, 0.0]) {
            assert!((v - 3.0).abs() < 1e-9 || *v == fb, "{v}");
        }
    }
}

#[test]
fn the_estimator_is_shift_equivariant() {
    for sim in SIMULATIONS {
        // docs/methods/lpdt.md §2.3: (T_j + c·S_j)/S_j = T_j/S_j + c. Same seed, labels and bounds shifted
        // by c: the same Laplace and flip draws, so values shift by c (up to rounding) unless
        // the leaf fell back.
        let leaves: Vec<usize> = (0..300).map(|i| i % 3).collect();
        let y: Vec<f64> = (0..300).map(|i| ((i * 7) % 11) as f64).collect();
        let c = 100.0;
        let ys: Vec<f64> = y.iter().map(|v| v + c).collect();
        let b = LabelBounds { lo: 0.0, hi: 10.0 };
        let bs = LabelBounds {
            lo: c,
            hi: 10.0 + c,
        };
        let a = lpdt_leaf_values(
            &leaves,
            &y,
            &[0.0; 3],
            &cfg(4.0, 0.0, b, sim),
            &mut Pcg64::seed_from_u64(4),
        )
        .unwrap();
        let s = lpdt_leaf_values(
            &leaves,
            &ys,
            &[c; 3],
            &cfg(4.0, 0.0, bs, sim),
            &mut Pcg64::seed_from_u64(4),
        )
        .unwrap();
        assert_eq!(a.fallbacks, s.fallbacks);
        for (x, z) in a.values.iter().zip(&s.values) {
            assert!((x + c - z).abs() < 1e-6, "{x} + {c} != {z}");
        }
    }
}

#[test]
fn invalid_budgets_are_errors() {
    for sim in SIMULATIONS {
        let b = LabelBounds { lo: 0.0, hi: 1.0 };
        let mut rng = Pcg64::seed_from_u64(5);
        assert!(lpdt_leaf_values(&[0], &[0.5], &[0.0], &cfg(0.0, 0.0, b, sim), &mut rng).is_err());
        let mut c = cfg(1.0, 0.0, b, sim);
        c.rho = 0.0;
        assert!(lpdt_leaf_values(&[0], &[0.5], &[0.0], &c, &mut rng).is_err());
    }
}

#[test]
fn histogram_truncates_cells_below_t_and_recovers_means_at_large_epsilon() {
    // 2 bins on [0,1]; private points only in the left bin. ε = 1e4: noise scales
    // 4/ε and 4·M_Y/ε are negligible, so μ̂_left = 1, μ̂_right ≈ 0 < t → right predicts 0.
    let grid = Grid { m: 2, d: 1 };
    let private_cells = vec![0u64; 100];
    let y: Vec<f64> = (0..100).map(|i| 2.0 + (i % 2) as f64).collect();
    let bounds = LabelBounds { lo: 0.0, hi: 4.0 };
    let phist = HistogramConfig {
        eps_cell: 5e3,
        eps_label: 5e3,
        t: 0.05,
        bounds,
        weights: (1.0, 0.0),
        y_center: false,
    };
    let mut rng = Pcg64::seed_from_u64(6);
    let pred = histogram_predict(&grid, &private_cells, &y, &[0, 1, 0], &phist, &mut rng).unwrap();
    assert!((pred[0] - 2.5).abs() < 1e-2, "{pred:?}");
    assert_eq!(
        pred[1], 0.0,
        "truncated cell predicts 0 (uncentred, the paper's convention)"
    );
    assert_eq!(
        pred[0], pred[2],
        "one noise draw per cell, shared by its test points"
    );
    // y_center: truncated cells predict the midpoint of the bounds.
    let centred = HistogramConfig {
        y_center: true,
        ..phist
    };
    let pred = histogram_predict(&grid, &private_cells, &y, &[1], &centred, &mut rng).unwrap();
    assert_eq!(pred[0], 2.0);
    // APHIST `average`: D = (μ̂ + λ)/2 with λ = 1/2 → left: (1 + 0.5)/2 = 0.75,
    // m̂ = ν̂/D = 2.5/0.75.
    let aphist = HistogramConfig {
        weights: (0.5, 0.5),
        ..phist
    };
    let pred = histogram_predict(&grid, &private_cells, &y, &[0], &aphist, &mut rng).unwrap();
    assert!((pred[0] - 2.5 / 0.75).abs() < 1e-2, "{pred:?}");
}

fn dataset(rows: Vec<Vec<f64>>, y: Vec<f64>) -> Dataset {
    Dataset {
        name: "t".into(),
        x: Matrix::from_rows(&rows),
        y,
        task: Task::Regression,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

#[test]
fn lpdt_predicts_zero_outside_the_domain_box_unless_routed() {
    // docs/methods/lpdt.md §2.4: `ood = zero` (paper and code) predicts 0 outside [0,1]^d.
    let public = dataset(
        (0..40).map(|i| vec![i as f64 / 40.0]).collect(),
        (0..40).map(|i| 5.0 + (i % 3) as f64).collect(),
    );
    let private = dataset(
        (0..400).map(|i| vec![(i % 100) as f64 / 100.0]).collect(),
        vec![6.0; 400],
    );
    let test = dataset(vec![vec![0.5], vec![1.5]], vec![6.0, 6.0]);
    let data = RepData {
        bounds: LabelBounds::of(&public.y),
        masks: None,
        public,
        private: PrivateRows::new(private),
        test,
    };
    let m = find("LPDT-M").unwrap();
    let structural = Params(vec![
        ("depth".into(), ParamValue::Int(1)),
        ("min_leaf".into(), ParamValue::Int(5)),
        ("min_samples_split".into(), ParamValue::Int(2)),
    ]);
    let prepared = m
        .prepare(&data, &structural, &mut Pcg64::seed_from_u64(0))
        .unwrap()
        .unwrap();
    let mech = |ood: &str| {
        Params(vec![
            ("rho".into(), ParamValue::Float(0.5)),
            ("tau".into(), ParamValue::Int(0)),
            ("ood".into(), ParamValue::Str(ood.into())),
            ("simulation".into(), ParamValue::Str("fast".into())),
        ])
    };
    let p = prepared
        .predict(&mech("zero"), Some(8.0), &mut Pcg64::seed_from_u64(7))
        .unwrap();
    assert_eq!(p[1], 0.0);
    assert!(p[0] > 4.0, "{p:?}");
    let p = prepared
        .predict(&mech("route"), Some(8.0), &mut Pcg64::seed_from_u64(7))
        .unwrap();
    assert!(p[1] > 4.0, "{p:?}");
}
