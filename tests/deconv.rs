//! DECONV (docs/methods/lpdt.md §7.5): the users' release law, the deconvolution kernel's identities,
//! the large-ε limit, the fallback and determinism. Fixed seeds; every statistical
//! tolerance is derived in a comment (5 standard deviations), never tuned.

use dp_repro::data::{Dataset, Escape, Matrix, PrivateRows, Task};
use dp_repro::estimate::LabelBounds;
use dp_repro::methods::deconv::{
    deconvolution_kernel, deconvolution_nw, deconvolution_nw_bandwidths, deconvolution_nw_with,
    release, Pruning, Reports,
};
use dp_repro::methods::{find, ParamRole, ParamValue, Params, RepData};
use dp_repro::privacy::laplace;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

mod common;

use dp_repro::spec::{parse_str, validate};

fn phi(u: f64) -> f64 {
    (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Composite Simpson rule on [a, b] with `m` (even) intervals.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, m: usize) -> f64 {
    assert!(m.is_multiple_of(2));
    let h = (b - a) / m as f64;
    let mut s = f(a) + f(b);
    for i in 1..m {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

fn bandwidth(h: f64) -> Params {
    Params(vec![("bandwidth".into(), ParamValue::Float(h))])
}

fn dataset(x: Matrix, y: Vec<f64>) -> Dataset {
    Dataset {
        name: "toy".into(),
        x,
        y,
        task: Task::Regression,
        fixed_public: 0,
        leaf_occupancy: None,
        categorical: Vec::new(),
        unbinned: Vec::new(),
    }
}

/// A small repetition: uniform features on [0,1]^d, labels sin(4 x_0) + x_{d−1} in [−1, 2].
fn toy(n: usize, n_test: usize, d: usize, seed: u64) -> RepData {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut draw = |n: usize| {
        let x: Vec<f64> = (0..n * d).map(|_| rng.gen::<f64>()).collect();
        let y = (0..n)
            .map(|i| (4.0 * x[i * d]).sin() + x[i * d + d - 1])
            .collect();
        dataset(Matrix::new(n, d, x), y)
    };
    RepData {
        public: draw(10),
        private: PrivateRows::new(draw(n)),
        test: draw(n_test),
        bounds: LabelBounds { lo: -1.0, hi: 2.0 },
        masks: None,
    }
}

fn run(data: &RepData, h: f64, eps: f64, prepare_seed: u64, predict_seed: u64) -> Vec<f64> {
    let m = find("DECONV").unwrap();
    let mut rng = Pcg64::seed_from_u64(prepare_seed);
    let p = m
        .prepare(data, &Params::default(), &mut rng)
        .unwrap()
        .unwrap();
    let mut rng = Pcg64::seed_from_u64(predict_seed);
    p.predict(&bandwidth(h), Some(eps), &mut rng).unwrap()
}

#[test]
fn deconv_is_a_registered_private_regression_method_with_a_curator_side_bandwidth() {
    let m = find("DECONV").unwrap();
    assert!(m.private());
    assert_eq!(m.tasks(), &[Task::Regression]);
    let names: Vec<_> = m.params().iter().map(|p| (p.name, p.role)).collect();
    assert_eq!(names, vec![("bandwidth", ParamRole::Curator)]);
    assert!(m.params()[0].kind.check(&ParamValue::Float(0.02)).is_ok());
    assert!(m.params()[0].kind.check(&ParamValue::Float(0.0)).is_err());
}

#[test]
fn the_release_adds_laplace_noise_of_scale_d_over_half_eps_and_r_over_half_eps() {
    // n = 20,000 users, d = 3, ε = 2 → ε_X = ε_Y = 1, b_X = d/ε_X = 3, b_Y = R/ε_Y = 2.
    // |Laplace(b)| is Exp with mean b and sd b, so the mean of n absolute noises has sd
    // b/√n; tolerance 5·b/√n (0.106 for X, 0.071 for Y). The signed label noise has sd
    // √2·b_Y, so mean(Ỹ − clip y) is 0 within 5·√2·b_Y/√n = 0.1; labels are ±1 outside
    // the bounds [0, 2], so a missing clip would move that mean by 1.
    let (n, d, eps) = (20_000, 3, 2.0);
    let mut rng = Pcg64::seed_from_u64(11);
    let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen::<f64>()).collect());
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.0 } else { 3.0 })
        .collect();
    let bounds = LabelBounds { lo: 0.0, hi: 2.0 };
    let r: Reports = release(&x, &y, bounds, eps, &mut rng).unwrap();
    assert_eq!(r.b_x, 3.0);
    assert_eq!(r.b_y, 2.0);
    assert_eq!((r.x.n, r.x.d, r.y.len()), (n, d, n));
    let sqrt_n = (n as f64).sqrt();
    for k in 0..d {
        let mean_abs = (0..n)
            .map(|i| (r.x.get(i, k) - x.get(i, k)).abs())
            .sum::<f64>()
            / n as f64;
        assert!(
            (mean_abs - 3.0).abs() < 5.0 * 3.0 / sqrt_n,
            "coordinate {k}: mean |X̃ − X| = {mean_abs}, expected b_X = 3"
        );
    }
    let clipped: Vec<f64> = y.iter().map(|&v| bounds.clip(v)).collect();
    let mean_abs =
        r.y.iter()
            .zip(&clipped)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / n as f64;
    assert!(
        (mean_abs - 2.0).abs() < 5.0 * 2.0 / sqrt_n,
        "mean |Ỹ − y| = {mean_abs}, expected b_Y = 2"
    );
    let mean = r.y.iter().zip(&clipped).map(|(a, b)| a - b).sum::<f64>() / n as f64;
    assert!(
        mean.abs() < 5.0 * 2f64.sqrt() * 2.0 / sqrt_n,
        "mean(Ỹ − clip y) = {mean}"
    );
    assert!(release(&x, &y, bounds, 0.0, &mut rng).is_err());
}

#[test]
fn the_deconvolution_kernel_integrates_to_one() {
    // ∫L = ∫φ + β²∫(1 − u²)φ = 1 + β²(1 − 1) = 1. Simpson on [−40, 40] (the tails are
    // below e^{−800}) with step 1e-3: error ≤ 80·h⁴·max|L⁗|/180 ≤ 80·1e-12·(2 + 32β²)/180
    // < 2e-9 for β ≤ 10 (|φ⁗| ≤ 1.2, |(u²φ)⁗| < 30); rounding of the 80,000-term sum adds
    // < 1e-10. Tolerance 1e-8.
    for beta in [0.0, 0.1, 1.0, 3.0, 10.0] {
        let integral = simpson(|u| deconvolution_kernel(u, beta), -40.0, 40.0, 80_000);
        assert!((integral - 1.0).abs() < 1e-8, "β = {beta}: ∫L = {integral}");
    }
}

#[test]
fn averaging_the_kernel_over_laplace_noise_gives_the_gaussian_kernel_by_quadrature() {
    // E L(u − βZ), Z standard Laplace, = ∫ L(u − βz) e^{−|z|}/2 dz = φ(u) (the
    // deconvolution property: the Fourier transform of L is that of φ times 1 + β²t²,
    // which cancels the Laplace characteristic function 1/(1 + β²t²)). Quadrature on
    // [−50, 0] and [0, 50] (smooth on each half; the tails weigh < e^{−50}·(0.4 + 0.6β²)),
    // 100,000 Simpson intervals each (h = 5e-4): with |L^{(j)}| ≤ 2(1+β²) + 30β² and
    // Leibniz, |g⁗| ≤ (1+β)⁴·(1 + 16β²) ≤ 4e4 for β ≤ 3, so the error is
    // ≤ 50·h⁴·4e4/180 < 1e-9 per half. Tolerance 1e-8.
    for beta in [0.5, 1.0, 3.0] {
        for u in [0.0, 0.7, 2.5] {
            let g = |z: f64| deconvolution_kernel(u - beta * z, beta) * (-z.abs()).exp() / 2.0;
            let e = simpson(g, -50.0, 0.0, 100_000) + simpson(g, 0.0, 50.0, 100_000);
            assert!(
                (e - phi(u)).abs() < 1e-8,
                "β = {beta}, u = {u}: E L = {e}, φ(u) = {}",
                phi(u)
            );
        }
    }
}

#[test]
fn averaging_the_kernel_over_laplace_draws_gives_the_gaussian_kernel_by_monte_carlo() {
    // The same identity with the crate's Laplace draws: N = 400,000 draws of
    // L((x − X − b·Z)/h) with b/h = 1; tolerance 5 sample standard deviations of the mean.
    let n = 400_000;
    let mut rng = Pcg64::seed_from_u64(5);
    for u in [0.0, 1.3] {
        let draws: Vec<f64> = (0..n)
            .map(|_| deconvolution_kernel(u - laplace(&mut rng, 1.0), 1.0))
            .collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let var = draws.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let tol = 5.0 * (var / n as f64).sqrt();
        assert!(
            (mean - phi(u)).abs() < tol,
            "u = {u}: mean {mean}, φ(u) = {}, tolerance {tol}",
            phi(u)
        );
    }
}

#[test]
fn at_a_huge_epsilon_deconv_is_gaussian_nadaraya_watson_on_the_true_data() {
    // ε = 1e12: b_X = d/(ε/2) = 4e-12 and b_Y = R/(ε/2) = 6e-12, so c = (b_X/h)² ≈ 1e-22
    // and the reports move by ~1e-10 at most; the predictions then differ from Gaussian
    // Nadaraya–Watson on the true data by ~1e-9 (weight log-derivative ‖v‖/h² ≤ 20 times
    // the noise). Tolerance 1e-7.
    let data = toy(7, 5, 2, 3);
    for h in [0.1, 0.3, 1.0] {
        let pred = run(&data, h, 1e12, 1, 2);
        for (t, &p) in pred.iter().enumerate() {
            let x = data.test.x.row(t);
            let (mut num, mut den) = (0.0, 0.0);
            let private = data.private.escape(Escape::Bookkeeping);
            for i in 0..private.n() {
                let xi = private.x.row(i);
                let d2: f64 = x.iter().zip(xi).map(|(a, b)| (a - b).powi(2)).sum();
                let w = (-d2 / (2.0 * h * h)).exp();
                num += w * private.y[i];
                den += w;
            }
            assert!(
                (p - num / den).abs() < 1e-7,
                "h = {h}, test point {t}: {p} vs {}",
                num / den
            );
        }
    }
}

#[test]
fn when_every_weight_is_zero_deconv_predicts_the_mean_noisy_label() {
    // With the log-magnitude rescaling the largest weight is never lost to underflow, so
    // every weight vanishes only through exact zeros of the correction factor
    // 1 + c(1 − u²) = A − B·v²: b_X = 2.25, h = 3 give c = 0.5625, A = 1.5625,
    // B = c/h² = 0.0625, all exact, and |v| = 5 makes B·v² = A.
    let reports = Reports {
        x: Matrix::new(3, 1, vec![5.0, -5.0, 5.0]),
        y: vec![1.0, 2.0, 6.0],
        b_x: 2.25,
        b_y: 1.0,
    };
    assert!(deconvolution_kernel(5.0 / 3.0, 0.75).abs() < 1e-15);
    let test = Matrix::new(2, 1, vec![0.0, 0.0]);
    assert_eq!(
        deconvolution_nw(&reports, &test, 3.0).unwrap(),
        vec![3.0, 3.0]
    );
}

#[test]
fn weights_that_would_underflow_directly_are_rescaled_not_dropped() {
    // No feature noise (c = 0): the weights are e^{−5000} and e^{−5010.005}, both 0 in
    // direct evaluation; rescaled, the prediction is (1 + 2r)/(1 + r) with
    // r = e^{−(100.1² − 100²)/2} ≈ 4.5e-5, not the fallback mean 1.5. Tolerance 1e-12
    // (rounding of 100.1² − 100² ≈ 1e-12 relative, times 10 in the exponent).
    let reports = Reports {
        x: Matrix::new(2, 1, vec![100.0, 100.1]),
        y: vec![1.0, 2.0],
        b_x: 0.0,
        b_y: 1.0,
    };
    assert_eq!((-5000.0f64).exp(), 0.0);
    let pred = deconvolution_nw(&reports, &Matrix::new(1, 1, vec![0.0]), 1.0).unwrap();
    let r = (-(100.1f64.powi(2) - 100.0f64.powi(2)) / 2.0).exp();
    let expected = (1.0 + 2.0 * r) / (1.0 + r);
    assert!((pred[0] - expected).abs() < 1e-12, "{pred:?} vs {expected}");
}

#[test]
fn the_kernel_matches_a_direct_evaluation_where_nothing_underflows() {
    // The fast path (one squared distance per pair, exponent and mantissa of the
    // correction product) against Σ Ỹ_i ∏_k L(v_k/h) / Σ ∏_k L(v_k/h) evaluated naively,
    // where nothing under- or overflows: d = 3 (one renormalization block) and d = 40
    // (three blocks). Relative tolerance 1e-9: a few hundred rounding errors of 1e-16 on
    // sums whose denominators are far from 0 (c ≤ 0.16, so most weights are positive).
    for (d, eps, h) in [(3, 30.0, 0.5), (40, 400.0, 1.0)] {
        let mut rng = Pcg64::seed_from_u64(9);
        let data = toy(40, 6, d, 4);
        let r = release(
            &data.private.escape(Escape::Bookkeeping).x,
            &data.private.escape(Escape::Bookkeeping).y,
            data.bounds,
            eps,
            &mut rng,
        )
        .unwrap();
        let pred = deconvolution_nw(&r, &data.test.x, h).unwrap();
        for (t, &p) in pred.iter().enumerate() {
            let x = data.test.x.row(t);
            let (mut num, mut den) = (0.0, 0.0);
            for i in 0..r.x.n {
                let w: f64 = x
                    .iter()
                    .zip(r.x.row(i))
                    .map(|(a, b)| deconvolution_kernel((a - b) / h, r.b_x / h))
                    .product();
                num += w * r.y[i];
                den += w;
            }
            let direct = num / den;
            assert!(
                (p - direct).abs() <= 1e-9 * direct.abs().max(1.0),
                "d = {d}, test point {t}: {p} vs {direct}"
            );
        }
    }
}

#[test]
fn at_small_epsilon_predictions_are_finite_and_can_be_wild() {
    // docs/methods/lpdt.md §12 item 4: no guard beyond the card's; the predictions stay finite (the
    // weights are bounded by 2 after rescaling) but are not confined to the label range.
    let data = toy(500, 50, 5, 10);
    for h in [0.02, 0.5, 5.0] {
        let pred = run(&data, h, 0.5, 1, 2);
        assert!(pred.iter().all(|p| p.is_finite()), "h = {h}: {pred:?}");
    }
}

#[test]
fn predictions_are_deterministic_for_fixed_seeds_and_do_not_depend_on_threads() {
    let data = toy(300, 20, 4, 6);
    let a = run(&data, 0.2, 1.0, 1, 2);
    assert_eq!(a, run(&data, 0.2, 1.0, 1, 2));
    assert_ne!(a, run(&data, 0.2, 1.0, 1, 7), "another release stream");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let three = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    assert_eq!(a, one.install(|| run(&data, 0.2, 1.0, 1, 2)));
    assert_eq!(a, three.install(|| run(&data, 0.2, 1.0, 1, 2)));
}

#[test]
fn the_same_release_stream_gives_the_same_reports_whatever_the_bandwidth() {
    // One private user: m̂(x) = Ỹ_1·K/K = Ỹ_1 whatever h (up to the rounding of the
    // product and the quotient, 2 ulps), so equal predictions across bandwidths show that
    // the same report was used. The runner hands every bandwidth the same stream (the
    // bandwidth is curator-side; tests/streams.rs); another ε or stream draws another
    // report.
    let data = toy(1, 3, 2, 8);
    let y1 = run(&data, 0.02, 2.0, 1, 100)[0];
    for h in [0.1, 1.0, 5.0] {
        let p = run(&data, h, 2.0, 1, 100);
        let same = |v: f64| (v - y1).abs() <= 4.0 * f64::EPSILON * y1.abs();
        assert!(p.iter().all(|&v| same(v)), "h = {h}: {p:?} vs {y1}");
    }
    assert!((y1 - run(&data, 0.02, 4.0, 1, 100)[0]).abs() > 1e-6);
    assert!((y1 - run(&data, 0.02, 2.0, 1, 101)[0]).abs() > 1e-6);
}

/// The unpruned evaluation in its plainest form, as the module documents it: per report
/// the squared distance S_i and the correction product as a mantissa in [1, 2) and a
/// binary exponent (renormalized after every factor: rescaling by powers of 2 is exact,
/// so the bits do not depend on where it happens), g_i = e_i·ln 2 − S_i/(2h²), G the
/// largest g_i of a nonzero product, and the sums over every report in index order.
fn reference_nw(r: &Reports, test: &Matrix, h: f64) -> Vec<f64> {
    let c = (r.b_x / h).powi(2);
    let (a, b, half_inv_h2) = (1.0 + c, c / (h * h), 0.5 / (h * h));
    let mean_y = r.y.iter().sum::<f64>() / r.x.n as f64;
    (0..test.n)
        .map(|t| {
            let x = test.row(t);
            let weights: Vec<(f64, f64)> = (0..r.x.n)
                .map(|i| {
                    let (mut sq, mut m, mut e) = (0.0, 1.0f64, 0i64);
                    for (xk, zk) in x.iter().zip(r.x.row(i)) {
                        let v = xk - zk;
                        let v2 = v * v;
                        sq += v2;
                        m *= a - b * v2;
                        if m != 0.0 {
                            let biased = ((m.to_bits() >> 52) & 0x7ff) as i64;
                            e += biased - 1023;
                            m = f64::from_bits((m.to_bits() & !(0x7ffu64 << 52)) | (1023 << 52));
                        }
                    }
                    (m, e as f64 * std::f64::consts::LN_2 - sq * half_inv_h2)
                })
                .collect();
            let top = weights
                .iter()
                .filter(|(m, _)| *m != 0.0)
                .fold(f64::NEG_INFINITY, |acc, (_, g)| acc.max(*g));
            if top == f64::NEG_INFINITY {
                return mean_y;
            }
            let (mut num, mut den) = (0.0, 0.0);
            for ((m, g), y) in weights.iter().zip(&r.y) {
                let shift = g - top;
                if *m != 0.0 && shift >= -746.0 {
                    let w = m * shift.exp();
                    num += w * y;
                    den += w;
                }
            }
            if den == 0.0 {
                mean_y
            } else {
                num / den
            }
        })
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The largest relative difference |a − b|/|b| over two prediction vectors (0 where both
/// are the same number, ∞ where exactly one is not finite).
fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0f64, |m, (&x, &y)| {
        let r = if x == y {
            0.0
        } else if !(x.is_finite() && y.is_finite()) {
            f64::INFINITY
        } else {
            (x - y).abs() / y.abs()
        };
        m.max(r)
    })
}

/// The agreement the DECONV evaluation is held to against [`reference_nw`] (the plain
/// evaluation: one `f64::exp` per report, the sums in index order). The fast path adds
/// the same terms in the same order, its exps evaluated eight at a time
/// (`dp_repro::methods::lane_exp`, within 1 ulp of `f64::exp`), so only the last bits may
/// move: a relative 1e-12.
const REL_TOL: f64 = 1e-12;

#[test]
fn pruning_and_the_lane_exp_agree_with_the_plain_evaluation() {
    // The fast path skips reports whose weight a bound proves to round to 0 (exact: the
    // pruned and unpruned evaluations are the same bits) and sums the rest in index order
    // with exps evaluated eight at a time (within REL_TOL of the plain evaluation). Cases span the paper's
    // bandwidths and ε (most reports pruned at small h and ε, none at large), several d
    // (one and several renormalization blocks) and labels of mixed sign and size.
    let hs = [0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 5.0];
    let mut worst = 0.0f64;
    for (d, n, seed) in [(1, 37, 1), (4, 300, 2), (12, 250, 3), (30, 120, 4)] {
        let mut data = toy(n, 25, d, seed);
        let mut private = data.private.escape(Escape::Bookkeeping).clone();
        for (i, y) in private.y.iter_mut().enumerate() {
            *y *= [1.0, -1e3, 1e-6, 7.0][i % 4];
        }
        data.private = PrivateRows::new(private);
        data.bounds = LabelBounds { lo: -2e3, hi: 2e3 };
        for eps in [0.5, 2.0, 8.0, 50.0] {
            let mut rng = Pcg64::seed_from_u64(seed * 100 + eps as u64);
            let r = release(
                &data.private.escape(Escape::Bookkeeping).x,
                &data.private.escape(Escape::Bookkeeping).y,
                data.bounds,
                eps,
                &mut rng,
            )
            .unwrap();
            let batch = deconvolution_nw_bandwidths(&r, &data.test.x, &hs).unwrap();
            let unpruned = deconvolution_nw_with(&r, &data.test.x, &hs, Pruning::Off).unwrap();
            for (j, &h) in hs.iter().enumerate() {
                let reference = reference_nw(&r, &data.test.x, h);
                let rel = max_rel_diff(&batch[j], &reference);
                assert!(rel <= REL_TOL, "d {d}, ε {eps}, h {h}: relative {rel:e}");
                worst = worst.max(rel);
                assert_eq!(bits(&unpruned[j]), bits(&batch[j]), "d {d}, ε {eps}, h {h}");
                let single = deconvolution_nw(&r, &data.test.x, h).unwrap();
                assert_eq!(bits(&single), bits(&batch[j]), "d {d}, ε {eps}, h {h}");
            }
        }
    }
    eprintln!("toy cases: largest relative difference {worst:e}");
}

#[test]
fn on_three_real_data_sets_predictions_agree_with_the_plain_evaluation() {
    // LPDT Table 2's protocol (split 1:7:2, scaling: whole, public label bounds) on three
    // data sets, every bandwidth of the paper's grid at ε 0.5, 2 and 8, repetition 1: the
    // fast evaluation within REL_TOL of the plain one on every test point.
    let files = ["abalone.csv", "airfoil.csv", "concrete.csv"];
    let Some(dir) = common::real_data(&files) else {
        return;
    };
    let text = "name: s\nseed: 2023\nrepetitions: 1\ndatasets: [abalone, airfoil, concrete]\nsplit: {public: 0.1, private: 0.7, test: 0.2}\nscaling: whole\nlabel_bounds: public\nepsilons: [2]\nmethods:\n  - method: DECONV\n    grid: {bandwidth: [0.1]}\n";
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = std::path::Path::new("s.yaml");
    let exp = validate(
        parse_str(text, path).unwrap(),
        path,
        &[root.join("datasets")],
    )
    .unwrap();
    let loaded = dp_repro::run::load_datasets(&exp, Some(&dir)).unwrap();
    let hs = [0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 5.0];
    for (plan, all) in exp.datasets.iter().zip(&loaded) {
        let data = dp_repro::run::repetition_data(&exp, plan, all.as_deref(), 1).unwrap();
        let mut worst = 0.0f64;
        for eps in [0.5, 2.0, 8.0] {
            let mut rng = Pcg64::seed_from_u64(eps as u64 + 7);
            let r = release(
                &data.private.escape(Escape::Bookkeeping).x,
                &data.private.escape(Escape::Bookkeeping).y,
                data.bounds,
                eps,
                &mut rng,
            )
            .unwrap();
            let fast = deconvolution_nw_bandwidths(&r, &data.test.x, &hs).unwrap();
            for (j, &h) in hs.iter().enumerate() {
                let rel = max_rel_diff(&fast[j], &reference_nw(&r, &data.test.x, h));
                assert!(
                    rel <= REL_TOL,
                    "{}, ε {eps}, h {h}: relative {rel:e}",
                    plan.name
                );
                worst = worst.max(rel);
            }
        }
        eprintln!("{}: largest relative difference {worst:e}", plan.name);
    }
}

#[test]
fn the_agreement_check_sees_a_changed_weight() {
    // The comparison above is not vacuous: one report's label moved by a relative 1e-9
    // moves some prediction by more than REL_TOL.
    let data = toy(300, 25, 4, 2);
    let mut rng = Pcg64::seed_from_u64(9);
    let mut r = release(
        &data.private.escape(Escape::Bookkeeping).x,
        &data.private.escape(Escape::Bookkeeping).y,
        data.bounds,
        8.0,
        &mut rng,
    )
    .unwrap();
    let before = deconvolution_nw_bandwidths(&r, &data.test.x, &[0.5]).unwrap();
    r.y[17] *= 1.0 + 1e-9;
    let reference = reference_nw(&r, &data.test.x, 0.5);
    assert!(max_rel_diff(&before[0], &reference) > REL_TOL);
}

#[test]
fn predicting_several_bandwidths_on_one_stream_equals_predicting_each() {
    // The runner hands every bandwidth of a grid the same users' stream; predict_shared
    // draws the reports once and must return, per bandwidth, the bits of predict and leave
    // each stream where predict leaves it. Unequal streams fall back to one call each.
    let data = toy(200, 30, 3, 12);
    let m = find("DECONV").unwrap();
    let p = m
        .prepare(&data, &Params::default(), &mut Pcg64::seed_from_u64(1))
        .unwrap()
        .unwrap();
    let points: Vec<Params> = [0.05, 0.5, 5.0].iter().map(|&h| bandwidth(h)).collect();
    let refs: Vec<&Params> = points.iter().collect();
    for seeds in [[4, 4, 4], [4, 5, 6]] {
        let mut rngs: Vec<Pcg64> = seeds.iter().map(|&s| Pcg64::seed_from_u64(s)).collect();
        let shared = p.predict_shared(&refs, Some(1.0), &mut rngs).unwrap();
        for (j, point) in points.iter().enumerate() {
            let mut rng = Pcg64::seed_from_u64(seeds[j]);
            let one = p.predict(point, Some(1.0), &mut rng).unwrap();
            assert_eq!(bits(&shared[j]), bits(&one), "streams {seeds:?}, point {j}");
            assert!(rng == rngs[j], "stream {j} left elsewhere");
        }
    }
}
