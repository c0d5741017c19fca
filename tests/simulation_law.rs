//! The `fast` simulation of the LPDT users' releases ([`lpdt_sums_fast`]) against the
//! per-user one ([`lpdt_sums`]): the curator's sums (S_j, T_j) of two leaves, jointly,
//! over many seeded replications, compared with their closed-form moments. Also: the
//! 64-lane flips of [`flip_mask`] and bit-identical sums for any number of threads.
//!
//! # The closed forms
//! User i (i = 1..n) is in leaf l(i), U_ij = 1{l(i) = j}, with clipped label c_i. It
//! releases Ỹ_i = c_i + βL_i (L_i standard Laplace, one per user, shared by all leaves) and
//! B_ij = U_ij XOR F_ij, F_ij iid Bernoulli(p) independent of the L's, p = t/2^32 with
//! t = `flip_threshold(κ)`. The curator centres with q = 1 − κ: C_ij = B_ij − q,
//! S_j = Σ_i C_ij, T_j = Σ_i Ỹ_i C_ij. Write
//! * e_ij = E C_ij = U_ij(1 − p) + (1 − U_ij)p − q (≈ γU_ij, as p = q up to 2^−33),
//! * v = Var C_ij = p(1 − p), w_ij = E C_ij² = v + e_ij²,
//! * σ² = Var Ỹ_i = 2β², E Ỹ_i = c_i, E Ỹ_i² = c_i² + σ².
//!
//! Users are independent, so every (co)variance is a sum over i of one user's term; within
//! a user, C_ij, C_ik (j ≠ k) and Ỹ_i are independent. Hence
//! * E S_j = Σ_i e_ij and Var S_j = n·v;
//! * E T_j = Σ_i c_i e_ij and Var T_j = Σ_i [(c_i² + σ²) w_ij − c_i² e_ij²]
//!   (Var(XY) = E X² E Y² − (E X E Y)² for independent X, Y);
//! * Cov(S_j, T_j) = Σ_i (E[Ỹ_i C_ij²] − c_i e_ij²) = Σ_i c_i v;
//! * Cov(T_j, T_k) = Σ_i (E Ỹ_i² e_ij e_ik − c_i² e_ij e_ik) = σ² Σ_i e_ij e_ik, which the
//!   centring makes ≈ 0 (e_ij e_ik = O(p − q) for one-hot U);
//! * Cov(S_j, S_k) = 0 and Cov(S_j, T_k) = Σ_i c_i e_ij e_ik − c_i e_ij e_ik = 0.
//!
//! Cov(T_j, T_k) ≈ 0 whether or not Ỹ_i is shared across leaves, so it cannot tell a
//! shortcut that drew one label per user and leaf. A fourth moment can: with every c_i = 0
//! (Ỹ_i = βL_i symmetric, E Ỹ⁴ = 24β⁴, σ⁴ = 4β⁴), expanding T_j²T_k² over quadruples of
//! users, only index pairings survive, and
//! * Cov(T_j², T_k²) = Σ_i (E Ỹ_i⁴ − σ⁴) w_ij w_ik + 2σ⁴ Σ_{i ≠ i'} e_ij e_ik e_i'j e_i'k
//!   = 20β⁴ Σ_i w_ij w_ik + (terms of order (p − q)²),
//!
//! while labels drawn afresh per leaf would give E[Ỹ²]E[Ỹ'²] − σ⁴ = 0 for the first sum.
//!
//! # The tolerance
//! Each compared statistic is a sample mean over R iid replications of one term (x for a
//! mean, (x − x̄)(y − ȳ) for a (co)variance, with centring by the sample means changing it
//! by O(1/R)); by the central limit theorem its standard error is the sample sd of the
//! terms over √R. We allow 5 standard errors: a correct sampler fails a given check with
//! probability ≈ 6·10⁻⁷ (two-sided normal tail), and the seeds are fixed. Each test also
//! asserts that the closed form of a plausible wrong sampler (shared flips, or labels
//! drawn per leaf) lies far outside that band, so the checks have power.

use dp_repro::estimate::{lpdt_sums, lpdt_sums_fast, LabelBounds, LpdtConfig, LpdtMechanism};
use dp_repro::privacy::{flip_mask, flip_threshold};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// A simulation: the per-user one or the fast one.
type Sums = fn(&LpdtMechanism, &[usize], &[f64], &mut Pcg64) -> dp_repro::estimate::LpdtSums;

const SAMPLERS: [(&str, Sums); 2] = [
    ("per_user", |m, l, y, r| lpdt_sums(m, l, y, r)),
    ("fast", |m, l, y, r| lpdt_sums_fast(m, l, y, r)),
];

fn mechanism(k: usize, epsilon: f64, bounds: LabelBounds) -> LpdtMechanism {
    LpdtMechanism::new(
        k,
        &LpdtConfig {
            epsilon,
            rho: 0.5,
            bounds,
            tau: 0.0,
            simulation: Default::default(),
        },
    )
    .expect("valid budget")
}

/// A statistic's sample value and standard error: the mean of `terms` and sd/√R.
fn mean_se(terms: &[f64]) -> (f64, f64) {
    let r = terms.len() as f64;
    let m = terms.iter().sum::<f64>() / r;
    let var = terms.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (r - 1.0);
    (m, (var / r).sqrt())
}

/// The sample covariance of x and y and its standard error (the mean of the centred
/// products and their sd/√R).
fn cov_se(x: &[f64], y: &[f64]) -> (f64, f64) {
    let r = x.len() as f64;
    let mx = x.iter().sum::<f64>() / r;
    let my = y.iter().sum::<f64>() / r;
    let terms: Vec<f64> = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).collect();
    mean_se(&terms)
}

fn assert_within(name: &str, what: &str, (got, se): (f64, f64), want: f64) {
    assert!(
        (got - want).abs() <= 5.0 * se,
        "{name}: {what} = {got} ± {se} (5 SE: {}), closed form {want}",
        5.0 * se
    );
}

/// R replications of (S_a, T_a, S_b, T_b), each from its own seeded stream.
fn replicate(
    sums: Sums,
    mech: &LpdtMechanism,
    (leaves, y): (&[usize], &[f64]),
    (a, b): (usize, usize),
    reps: usize,
) -> [Vec<f64>; 4] {
    let mut out: [Vec<f64>; 4] = Default::default();
    for r in 0..reps {
        let s = sums(
            mech,
            leaves,
            y,
            &mut Pcg64::seed_from_u64(1_000_000 + r as u64),
        );
        for (o, v) in out.iter_mut().zip([s.s[a], s.t[a], s.s[b], s.t[b]]) {
            o.push(v);
        }
    }
    out
}

/// The moments' ingredients of the module docs: p, q, e_ij, v, w_ij.
struct Law {
    p: f64,
    q: f64,
}

impl Law {
    fn of(mech: &LpdtMechanism) -> Law {
        Law {
            p: f64::from(flip_threshold(mech.keep.keep)) / 4294967296.0,
            q: 1.0 - mech.keep.keep,
        }
    }
    fn e(&self, in_leaf: bool) -> f64 {
        if in_leaf {
            1.0 - self.p - self.q
        } else {
            self.p - self.q
        }
    }
    fn v(&self) -> f64 {
        self.p * (1.0 - self.p)
    }
    fn w(&self, in_leaf: bool) -> f64 {
        self.v() + self.e(in_leaf).powi(2)
    }
}

/// 150 users over K = 40 leaves (so blocks of 64 straddle leaf ranges, the last block is
/// partial, and the fast sampler reads its byte tables), labels partly outside the bounds.
fn hand_made() -> (Vec<usize>, Vec<f64>) {
    let leaves = (0..150usize)
        .map(|i| match i % 5 {
            0 | 1 => 1,
            2 => 2,
            3 => 0,
            _ => 3 + i % 37,
        })
        .collect();
    let y = (0..150).map(|i| (i % 7) as f64 * 0.8 - 0.5).collect();
    (leaves, y)
}

#[test]
fn both_simulations_have_the_closed_form_moments_of_two_leaves_jointly() {
    // ε = 2, ρ = 0.5: κ = 1/(1 + e^−0.5) ≈ 0.622, β = R/((1 − ρ)ε) = 4.
    let bounds = LabelBounds { lo: 0.0, hi: 4.0 };
    let mech = mechanism(40, 2.0, bounds);
    let (leaves, y) = hand_made();
    let c: Vec<f64> = y.iter().map(|&v| bounds.clip(v)).collect();
    let law = Law::of(&mech);
    let sigma2 = 2.0 * mech.label_scale.powi(2);
    let n = leaves.len() as f64;
    let (a, b) = (1, 2);
    let e_s = |j: usize| leaves.iter().map(|&l| law.e(l == j)).sum::<f64>();
    let e_t = |j: usize| {
        (0..leaves.len())
            .map(|i| c[i] * law.e(leaves[i] == j))
            .sum::<f64>()
    };
    let var_t = |j: usize| {
        (0..leaves.len())
            .map(|i| {
                let u = leaves[i] == j;
                (c[i] * c[i] + sigma2) * law.w(u) - c[i] * c[i] * law.e(u).powi(2)
            })
            .sum::<f64>()
    };
    let cov_st = c.iter().sum::<f64>() * law.v();
    let cov_tt: f64 = leaves
        .iter()
        .map(|&l| sigma2 * law.e(l == a) * law.e(l == b))
        .sum();
    // Power: flips shared by the two leaves (F_ia = F_ib) would make E[C_ia C_ib] =
    // ±v + e_ia e_ib (+ for users outside both leaves, − inside one), adding
    // Σ_i ±(c_i² + σ²)v to Cov(T_a, T_b).
    let shared_flips: f64 = (0..leaves.len())
        .map(|i| {
            let sign = if leaves[i] == a || leaves[i] == b {
                -1.0
            } else {
                1.0
            };
            sign * (c[i] * c[i] + sigma2) * law.v()
        })
        .sum();
    let reps = 20_000;
    for (name, sums) in SAMPLERS {
        let [sa, ta, sb, tb] = replicate(sums, &mech, (&leaves, &y), (a, b), reps);
        for (j, s, t) in [(a, &sa, &ta), (b, &sb, &tb)] {
            assert_within(name, &format!("E S_{j}"), mean_se(s), e_s(j));
            assert_within(name, &format!("E T_{j}"), mean_se(t), e_t(j));
            assert_within(name, &format!("Var S_{j}"), cov_se(s, s), n * law.v());
            assert_within(name, &format!("Var T_{j}"), cov_se(t, t), var_t(j));
            assert_within(name, &format!("Cov(S_{j}, T_{j})"), cov_se(s, t), cov_st);
        }
        let tt = cov_se(&ta, &tb);
        assert_within(name, "Cov(T_1, T_2)", tt, cov_tt);
        // The wrong sampler's shift of Cov(T_1, T_2), either sign, is far outside the band.
        assert!(
            shared_flips.abs() > 20.0 * tt.1,
            "power: {shared_flips} vs SE {}",
            tt.1
        );
        assert_within(name, "Cov(S_1, S_2)", cov_se(&sa, &sb), 0.0);
        assert_within(name, "Cov(S_1, T_2)", cov_se(&sa, &tb), 0.0);
        assert_within(name, "Cov(T_1, S_2)", cov_se(&ta, &sb), 0.0);
    }
}

#[test]
fn both_simulations_share_each_users_noisy_label_across_leaves() {
    // Every label 0 inside [−1, 1] (β = 2/((1 − ρ)ε) = 2 at ε = 2): Cov(T_a², T_b²) is
    // 20β⁴ Σ_i w_ia w_ib (+ O((p − q)²)) with the label shared, 0 if drawn per leaf. Few
    // users (24) keep it large against the sampling error (it is O(n) against O(n²)).
    let bounds = LabelBounds { lo: -1.0, hi: 1.0 };
    let mech = mechanism(40, 2.0, bounds);
    let leaves: Vec<usize> = (0..24usize).map(|i| [1, 2, 0, 5, 39, 1][i % 6]).collect();
    let y = vec![0.0; leaves.len()];
    let law = Law::of(&mech);
    let beta = mech.label_scale;
    let sigma4 = 4.0 * beta.powi(4);
    let (a, b) = (1, 2);
    let first: f64 = leaves
        .iter()
        .map(|&l| 20.0 * beta.powi(4) * law.w(l == a) * law.w(l == b))
        .sum();
    let pair: Vec<f64> = leaves
        .iter()
        .map(|&l| law.e(l == a) * law.e(l == b))
        .collect();
    let cross =
        2.0 * sigma4 * (pair.iter().sum::<f64>().powi(2) - pair.iter().map(|x| x * x).sum::<f64>());
    let want = first + cross;
    let reps = 40_000;
    for (name, sums) in SAMPLERS {
        let [_, ta, _, tb] = replicate(sums, &mech, (&leaves, &y), (a, b), reps);
        let sq = |t: &[f64]| t.iter().map(|x| x * x).collect::<Vec<f64>>();
        let got = cov_se(&sq(&ta), &sq(&tb));
        assert_within(name, "Cov(T_1², T_2²)", got, want);
        assert!(want > 10.0 * got.1, "power: {want} vs SE {}", got.1);
        // And the second moments the fourth rests on: Var T_j = σ² Σ_i w_ij.
        for (j, t) in [(a, &ta), (b, &tb)] {
            let var: f64 = leaves
                .iter()
                .map(|&l| 2.0 * beta * beta * law.w(l == j))
                .sum();
            assert_within(name, &format!("Var T_{j}"), cov_se(t, t), var);
        }
    }
}

#[test]
fn flip_masks_are_iid_bernoulli_lanes() {
    // 20,000 masks of 64 lanes at t = flip_threshold(κ) for ε_cell = 1: every lane's
    // frequency is p = t/2^32 (SE √(p(1−p)/R)), and neighbouring lanes, the same lane in
    // consecutive masks, and lanes 0 and 63 are uncorrelated (the product of two
    // independent Bernoulli(p) lanes has mean p², SE √(p²(1−p²)/R)).
    let keep = dp_repro::privacy::rr_keep_probability(1.0).keep;
    let t = flip_threshold(keep);
    let p = f64::from(t) / 4294967296.0;
    let mut rng = Pcg64::seed_from_u64(9);
    let reps = 20_000;
    let masks: Vec<u64> = (0..reps)
        .map(|_| flip_mask(&mut rng, t, u64::MAX))
        .collect();
    let bit = |m: u64, l: u32| f64::from(u8::from(m >> l & 1 == 1));
    let r = reps as f64;
    let se1 = (p * (1.0 - p) / r).sqrt();
    let se2 = (p * p * (1.0 - p * p) / r).sqrt();
    for l in 0..64 {
        let f = masks.iter().map(|&m| bit(m, l)).sum::<f64>() / r;
        assert!((f - p).abs() < 5.0 * se1, "lane {l}: {f} vs {p}");
    }
    for (what, f) in [
        (
            "lanes 0, 1",
            masks.iter().map(|&m| bit(m, 0) * bit(m, 1)).sum::<f64>() / r,
        ),
        (
            "lanes 0, 63",
            masks.iter().map(|&m| bit(m, 0) * bit(m, 63)).sum::<f64>() / r,
        ),
        (
            "lane 5 twice",
            masks
                .windows(2)
                .map(|w| bit(w[0], 5) * bit(w[1], 5))
                .sum::<f64>()
                / (r - 1.0),
        ),
    ] {
        assert!((f - p * p).abs() < 5.0 * se2, "{what}: {f} vs {}", p * p);
    }
    // Lanes outside `lanes` are never set.
    assert_eq!(flip_mask(&mut rng, u32::MAX, 0b101) & !0b101, 0);
}

#[test]
fn fast_sums_are_bit_identical_for_any_number_of_threads() {
    // n·K = 70,000 × 64 ≥ 2^22: the leaves are spread over rayon's threads.
    let k = 64;
    let leaves: Vec<usize> = (0..70_000usize).map(|i| (i * 7919) % k).collect();
    let y: Vec<f64> = (0..leaves.len()).map(|i| (i % 13) as f64 / 3.0).collect();
    let mech = mechanism(k, 4.0, LabelBounds { lo: 0.0, hi: 4.0 });
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| lpdt_sums_fast(&mech, &leaves, &y, &mut Pcg64::seed_from_u64(4)))
    };
    let one = run(1);
    for threads in [2, 3] {
        let other = run(threads);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&one.s), bits(&other.s), "{threads} threads");
        assert_eq!(bits(&one.t), bits(&other.t), "{threads} threads");
    }
}
