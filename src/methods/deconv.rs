//! DECONV: deconvolution-kernel Nadaraya–Watson regression on locally private reports
//! (Farokhi 2020, as used in the LPDT paper, App. D.1; method card `docs/methods/lpdt.md` §7.5, grid
//! §6, expectations §12 item 4).
//!
//! **What is reconstructed.** The paper says only that noise is added to (X_i, Y_i) and
//! that a deconvolution kernel is used; the card marks the whole formula as \[inferred\]
//! and the budget split and noise scales as \[choice\]. This module implements the card
//! verbatim:
//!
//! - *User release* ([`release`]): X̃_i = X_i + b_X·ξ_i with ξ_i ∈ ℝ^d of iid standard
//!   Laplace coordinates, b_X = d/ε_X (the L1 sensitivity of x ∈ \[0,1\]^d is d), and
//!   Ỹ_i = clip(Y_i) + b_Y·ζ_i with b_Y = R/ε_Y; ε_X = ε_Y = ε/2 ([`Budget::halves`]).
//!   Labels are clipped into the label bounds (public by default) as everywhere in the
//!   harness; features are clamped into \[0,1\]^d, a no-op under `scaling: whole` that keeps
//!   the sensitivity d true under `scaling: public` \[choice, ours\]. Whether Farokhi
//!   calibrates each coordinate separately is uncertain (card §7.5).
//! - *Kernel* ([`deconvolution_kernel`]): per coordinate L_h(u) = φ(u)·[1 + (b_X/h)²(1 − u²)]
//!   with φ the standard normal density, i.e. L = φ − (b/h)²φ″, the deconvolution of φ by
//!   the Laplace characteristic function 1/(1 + b²t²); the product kernel is
//!   K_h(v) = ∏_k L_h(v_k/h).
//! - *Estimator* ([`deconvolution_nw`]): m̂(x) = Σ_i Ỹ_i K_h(x − X̃_i) / Σ_i K_h(x − X̃_i).
//!   The kernel changes sign, so the denominator can be near 0 or negative; as the card's
//!   \[choice\] says, the weights are evaluated in log-magnitude with a sign and rescaled by
//!   the largest magnitude, with no further guard; a denominator of exactly 0, or every
//!   weight vanishing, predicts mean(Ỹ). MSEs of 1e5–1e10 at small ε are expected
//!   (card §12 item 4).
//!
//! **Reports do not depend on the bandwidth.** A user releases once; the bandwidth h is the
//! curator's choice, declared [`ParamRole::Curator`], so the runner keys the users' noise
//! stream on (repetition, ε) and not on h: every bandwidth of the grid is evaluated on the
//! very same reports. The runner asks for all of them at once
//! ([`Prepared::predict_shared`]): the reports are drawn once per ε and
//! [`deconvolution_nw_bandwidths`] computes the squared distances once for every bandwidth.
//!
//! **Cost.** One prediction is O(n_test·n·d) time and O(n·d) memory (card §7.5, §10) at
//! worst; pruning reports whose weight is provably 0 (exact, see
//! [`deconvolution_nw_bandwidths`]) leaves O(n_test·n·d) for the squared distances, shared
//! by the bandwidths, plus the product and exp for the reports that count.

use super::lane_exp::{exp_lanes, LANES};
use super::{Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData};
use crate::data::{Escape, Matrix};
use crate::estimate::LabelBounds;
use crate::privacy::ledger::Subjects;
use crate::privacy::{laplace_release, laplace_vector_release, Budget, BudgetError, Domain};
use multiversion::multiversion;
use rand::Rng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

/// The DECONV builtin (docs/methods/lpdt.md §7.5); registered as [`DECONV`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Deconv;

/// DECONV: deconvolution-kernel regression on Laplace-noised (x, y) reports (docs/methods/lpdt.md §7.5).
pub static DECONV: Deconv = Deconv;

/// The bandwidth h > 0 (grid {0.02, 0.05, 0.1, 0.2, 0.5, 1, 5}, docs/methods/lpdt.md §6). A mechanism
/// parameter: it changes nothing the users release, so one `prepare` serves every h.
const BANDWIDTH: ParamDecl = ParamDecl {
    name: "bandwidth",
    role: ParamRole::Curator,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: true,
    },
    default: None,
    doc: "kernel bandwidth h > 0 on [0,1]-scaled features (paper grid 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5; LPDT paper App. D.1)",
};

static PARAMS: &[ParamDecl] = &[BANDWIDTH];

/// The ledger's part name of DECONV's noisy features.
pub const DECONV_FEATURES_PART: &str = "features: laplace";

/// The ledger's part name of DECONV's noisy label.
pub const DECONV_LABEL_PART: &str = "label: laplace";

/// Every private user's release under DECONV (docs/methods/lpdt.md §7.5): n×d noisy features and n
/// noisy labels, with the Laplace scales used.
#[derive(Debug, Clone, PartialEq)]
pub struct Reports {
    /// X̃ (n×d): the clamped features plus Laplace(b_x) noise per coordinate.
    pub x: Matrix,
    /// Ỹ (length n): the clipped labels plus Laplace(b_y) noise.
    pub y: Vec<f64>,
    /// Feature noise scale b_X = d/ε_X, ε_X = ε/2.
    pub b_x: f64,
    /// Label noise scale b_Y = R/ε_Y, ε_Y = ε/2, R the width of the label bounds.
    pub b_y: f64,
}

/// Simulates every user's release (docs/methods/lpdt.md §7.5, "User release"): user i, in order,
/// releases X̃_i = clamp(X_i, 0, 1) + b_X·ξ_i (d iid standard Laplace draws, b_X = d/ε_X)
/// and then Ỹ_i = clip(Y_i) + b_Y·ζ_i (b_Y = R/ε_Y), with ε_X = ε_Y = ε/2. Each part is
/// ε/2-LDP (L1 sensitivities d and R), so the release is ε-LDP.
///
/// Ledger: user i is charged, by the charged releases that draw its noise
/// ([`laplace_vector_release`], [`laplace_release`]), d/b_X for its features (the clamp to
/// \[0,1\]^d bounds their L1 distance by d) and R/b_Y for its label, from the scales
/// drawn with and the domains widened by what they were handed.
///
/// `x` is n×d, `y` has length n; every draw comes from `rng`.
///
/// # Errors
/// [`BudgetError::Epsilon`] unless ε is finite and > 0.
///
/// # Panics
/// If `y.len() != x.n`.
pub fn release<R: Rng + ?Sized>(
    x: &Matrix,
    y: &[f64],
    bounds: LabelBounds,
    epsilon: f64,
    rng: &mut R,
) -> Result<Reports, BudgetError> {
    assert_eq!(y.len(), x.n, "one label per private user");
    let (eps_x, eps_y) = Budget::new(epsilon)?.halves();
    // Slip: the features' scale from the whole ε instead of their half.
    let b_x = if crate::privacy::mutants::active("deconv-features-full-eps") {
        x.d as f64 / epsilon
    } else {
        x.d as f64 / eps_x
    };
    let b_y = bounds.range() / eps_y;
    let mut noisy_x = Vec::with_capacity(x.n * x.d);
    let mut noisy_y = Vec::with_capacity(x.n);
    let box01 = Domain::Interval { lo: 0.0, hi: 1.0 };
    let label_domain = Domain::Interval {
        lo: bounds.lo,
        hi: bounds.hi,
    };
    for (i, &yi) in y.iter().enumerate() {
        let who = Subjects::One(i);
        let start = noisy_x.len();
        if crate::privacy::mutants::active("deconv-features-unclamped") {
            // Slip: the features released as handed in, not clamped into [0, 1]^d.
            noisy_x.extend_from_slice(x.row(i));
        } else {
            noisy_x.extend(x.row(i).iter().map(|v| v.clamp(0.0, 1.0)));
        }
        let row = &mut noisy_x[start..];
        laplace_vector_release(rng, row, box01, b_x, DECONV_FEATURES_PART, who);
        let label = laplace_release(
            rng,
            bounds.clip(yi),
            label_domain,
            b_y,
            DECONV_LABEL_PART,
            who,
        );
        noisy_y.push(label);
    }
    Ok(Reports {
        x: Matrix::new(x.n, x.d, noisy_x),
        y: noisy_y,
        b_x,
        b_y,
    })
}

/// The one-dimensional deconvolution kernel for Laplace(b) measurement error with a
/// Gaussian base kernel (docs/methods/lpdt.md §7.5, \[inferred\]):
/// L(u) = φ(u)·[1 + β²(1 − u²)], β = b/h, φ(u) = e^{−u²/2}/√(2π).
///
/// It integrates to 1 over ℝ, and E over Z ~ standard Laplace of L(u − βZ) equals φ(u):
/// averaging over the users' noise recovers the Gaussian kernel on the true features.
pub fn deconvolution_kernel(u: f64, b_over_h: f64) -> f64 {
    let phi = (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt();
    phi * (1.0 + b_over_h * b_over_h * (1.0 - u * u))
}

/// A nonzero correction factor 1 + c(1 − u²) = A − B·v² (A = 1 + c ≥ 1) computed in f64 has
/// magnitude at least 2^−53: either B·v² ≤ A/2 and it exceeds 1/2, or both terms are ≥ 1/2
/// and their nonzero difference is a multiple of ulp(1/2) = 2^−53.
const MIN_FACTOR_LOG2: f64 = 54.0;
/// exp(x) is exactly 0 below this (ln of half the smallest subnormal is −745.13), so
/// weights further below the largest are skipped without changing a bit of the result.
const EXP_ZERO_BELOW: f64 = -746.0;

/// Nadaraya–Watson predictions with the product deconvolution kernel (docs/methods/lpdt.md §7.5):
/// m̂(x) = Σ_i Ỹ_i K_h(x − X̃_i) / Σ_i K_h(x − X̃_i) for each row x of `test` (n_test×d),
/// with K_h(v) = ∏_k L(v_k/h) at β = b_X/h ([`deconvolution_kernel`]). Returns n_test values.
/// One bandwidth of [`deconvolution_nw_bandwidths`], which documents the evaluation.
///
/// # Errors
/// As [`deconvolution_nw_bandwidths`].
pub fn deconvolution_nw(
    reports: &Reports,
    test: &Matrix,
    bandwidth: f64,
) -> Result<Vec<f64>, MethodError> {
    let mut out = deconvolution_nw_bandwidths(reports, test, &[bandwidth])?;
    Ok(out.pop().expect("one bandwidth"))
}

/// How [`deconvolution_nw_with`] skips users whose weight is exactly zero after rescaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pruning {
    /// Skip the users that a bound on their log-weight proves more than e^{−746} below the
    /// largest weight (the default; see [`deconvolution_nw_bandwidths`]).
    Bound,
    /// Evaluate every user's weight (for audits and tests: the results are the same bits).
    Off,
}

/// [`deconvolution_nw`] at every bandwidth of `bandwidths` on the same reports: one vector
/// of n_test predictions per bandwidth, in order. What the bandwidths share (the squared
/// distances ‖x − X̃_i‖², the nearest report) is computed once per test point.
///
/// Evaluation (the card's \[choice\]): with v = x − X̃_i,
/// ∏_k φ(v_k/h) = (2π)^{−d/2}·exp(−‖v‖²/(2h²)), so the Gaussian part needs one squared
/// distance per pair, and the correction ∏_k [1 + c(1 − v_k²/h²)], c = β², is accumulated as
/// a binary exponent plus a signed mantissa (renormalized every few coordinates, never
/// overflowing). Each weight is then sign·mantissa·exp(g_i − G) with
/// g_i = exponent_i·ln 2 − ‖v‖²/(2h²) and G = max g_i: the largest weight has magnitude in
/// [1, 2), i.e. the weights are rescaled by the largest magnitude up to the mantissa, which
/// the ratio does not see; the constants (2π)^{−d/2} h^{−d} cancel. The exps are those of
/// [`exp_lanes`] (within 1 ulp of `f64::exp`, and mostly the same bits), so predictions
/// agree with a plain evaluation by `f64::exp` to a relative 1e-12, not to the bit. No other guard: when
/// the denominator is exactly 0, or every weight is zero, the prediction is mean(Ỹ).
/// Since the rescaling keeps the largest weight at magnitude ≥ 1, weights vanish all
/// together only when every correction product is exactly 0; weights more than e^{−746}
/// below the largest underflow to 0 individually and are skipped.
///
/// **Pruning (exact).** By |A − B·v²| ≤ A + B·v² and the concavity of ln (Jensen),
/// g_i ≤ f(S_i) = d·ln(A + B·S_i/d) − S_i/(2h²) with S_i = ‖x − X̃_i‖², a concave function
/// of S_i alone, decreasing beyond its maximum. The weight of the report nearest to x in
/// S gives a lower bound on G; every user whose S_i lies beyond the point where f falls
/// more than 746 (plus a rounding margin) below that bound has a weight that exp rounds
/// to 0, is skipped by the unpruned evaluation too, and is not evaluated
/// ([`Pruning::Bound`]). The sums run over the remaining users in index order, so every
/// bit of the result is that of [`Pruning::Off`]; only the work changes (at small h or ε
/// almost every user is pruned).
///
/// Test points are spread over rayon's threads; each is computed alone, so the result
/// does not depend on the number of threads.
///
/// # Errors
/// [`MethodError::Other`] when a bandwidth is not finite and > 0, when `test` and the
/// reports differ in d, when there are no reports, or when a single kernel factor would
/// overflow f64 (b_X·|v|/h² beyond ~1e150, far outside any grid of the paper).
pub fn deconvolution_nw_bandwidths(
    reports: &Reports,
    test: &Matrix,
    bandwidths: &[f64],
) -> Result<Vec<Vec<f64>>, MethodError> {
    deconvolution_nw_with(reports, test, bandwidths, Pruning::Bound)
}

/// [`deconvolution_nw_bandwidths`] with the choice of [`Pruning`]; both choices give the
/// same bits.
///
/// # Errors
/// As [`deconvolution_nw_bandwidths`].
pub fn deconvolution_nw_with(
    reports: &Reports,
    test: &Matrix,
    bandwidths: &[f64],
    pruning: Pruning,
) -> Result<Vec<Vec<f64>>, MethodError> {
    if let Some(h) = bandwidths.iter().find(|h| !(h.is_finite() && **h > 0.0)) {
        return Err(MethodError::Other(format!(
            "DECONV bandwidth must be a finite number > 0, got {h}"
        )));
    }
    let (n, d) = (reports.x.n, reports.x.d);
    if test.d != d {
        return Err(MethodError::Other(format!(
            "DECONV: test points have d = {} but the reports have d = {d}",
            test.d
        )));
    }
    if n == 0 {
        return Err(MethodError::Other(
            "DECONV needs at least one private user".into(),
        ));
    }
    let mean_y = reports.y.iter().sum::<f64>() / n as f64;
    let max_abs = |s: &[f64]| s.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let v_max = max_abs(&test.data) + max_abs(&reports.x.data);
    let bands = bandwidths
        .iter()
        .map(|&h| Band::new(h, reports.b_x, v_max))
        .collect::<Result<Vec<_>, _>>()?;
    if d == 0 {
        // No coordinates: no weight is evaluated and every prediction is the fallback.
        return Ok(vec![vec![mean_y; test.n]; bands.len()]);
    }
    // Users in groups of LANES, each group stored coordinate-major ([group][k][lane]) so
    // the inner loops read LANES contiguous values per coordinate; the last group is
    // padded with copies of user 0, whose weights are never read.
    let groups = n.div_ceil(LANES);
    let mut packed = vec![0.0; groups * d * LANES];
    for slot in 0..groups * LANES {
        let i = if slot < n { slot } else { 0 };
        let (grp, lane) = (slot / LANES, slot % LANES);
        for (k, &v) in reports.x.row(i).iter().enumerate() {
            packed[(grp * d + k) * LANES + lane] = v;
        }
    }
    let y_exp: Vec<f64> = (0..groups * LANES)
        .map(|i| reports.y.get(i).map_or(-1023.0, |&y| label_exponent(y)))
        .collect();
    let group_y_exp = y_exp
        .chunks_exact(LANES)
        .map(|c| c.iter().fold(-1023.0f64, |m, &e| m.max(e)))
        .collect();
    let k = Kernel {
        packed: &packed,
        y: (0..groups * LANES)
            .map(|i| reports.y.get(i).copied().unwrap_or(0.0))
            .collect(),
        group_y_exp,
        real: (0..groups * LANES)
            .map(|i| if i < n { 1.0 } else { 0.0 })
            .collect(),
        d,
        groups,
        bands: &bands,
        mean_y,
        pruning,
    };
    let nb = bands.len();
    let mut flat = vec![0.0; test.n * nb];
    if nb > 0 {
        flat.par_chunks_mut(nb).enumerate().for_each_init(
            || Scratch::new(groups),
            |s, (t, out)| predict_point(&k, test.row(t), s, out),
        );
    }
    Ok((0..nb)
        .map(|j| flat.iter().skip(j).step_by(nb).copied().collect())
        .collect())
}

/// The constants of one bandwidth h.
struct Band {
    /// A = 1 + c, c = (b_X/h)².
    a: f64,
    /// B = c/h², so the correction factor is A − B·v².
    b: f64,
    /// 1/(2h²).
    half_inv_h2: f64,
    /// Renormalize the correction product every `block` coordinates.
    block: usize,
}

impl Band {
    /// The constants at bandwidth `h` for feature noise b_X = `b_x`, with `v_max` bounding
    /// every |x_k − X̃_ik|.
    fn new(h: f64, b_x: f64, v_max: f64) -> Result<Band, MethodError> {
        let c = (b_x / h).powi(2);
        let a = 1.0 + c;
        let b = c / (h * h);
        // Every factor has magnitude ≤ A + B·V²; a block of L factors starting from a
        // mantissa in [1, 2) stays normal when L·max(54, log2 F) ≤ 1000.
        let factor_log2 = (a + b * v_max * v_max).log2().max(MIN_FACTOR_LOG2);
        if factor_log2.is_nan() || factor_log2 > 1000.0 {
            return Err(MethodError::Other(format!(
                "DECONV: kernel factors overflow f64 at bandwidth {h} with noise scale b_X = {b_x}"
            )));
        }
        Ok(Band {
            a,
            b,
            half_inv_h2: 0.5 / (h * h),
            block: ((1000.0 / factor_log2).floor() as usize).max(1),
        })
    }

    /// A squared distance S beyond which every report's weight is exactly 0 once rescaled,
    /// given a lower bound `top` on the largest log-weight G (the weight of one report);
    /// +∞ when no such S is found.
    ///
    /// The evaluated log-weight is g = e·ln 2 − S/(2h²) with |mantissa|·2^e the computed
    /// correction product, so g ≤ ln|∏_k fl(A − B·v_k²)| − S/(2h²) ≤ f(S) + 3d·2^−53 with
    /// f(S) = d·ln(A + B·S/d) − S/(2h²) (module documentation). f is concave, so once it
    /// is past its maximum and below top − 746 − margin it stays there: the weights of
    /// every S ≥ the returned value are below e^{−746}·(largest) and exp gives 0. The
    /// margin (1 + 1e-9 of the magnitudes involved) covers the rounding of g and of f.
    fn prune_beyond(&self, d: usize, top: f64) -> f64 {
        let dd = d as f64;
        let f = |s: f64| dd * (self.a + self.b * (s / dd)).ln() - s * self.half_inv_h2;
        let threshold = top + EXP_ZERO_BELOW - (1.0 + 1e-9 * (top.abs() + 710.0 * dd));
        // f′(S) = B/(A + B·S/d) − 1/(2h²) vanishes at S = d·(B/(1/(2h²)) − A)/B.
        let peak = if self.b > 0.0 {
            (dd * (self.b / self.half_inv_h2 - self.a) / self.b).max(0.0)
        } else {
            0.0
        };
        let at_peak = f(peak);
        if at_peak.is_nan() || at_peak < threshold {
            return f64::INFINITY; // not expected: the nearest report itself passes
        }
        // Bracket: f(lo) ≥ threshold > f(hi) with peak ≤ lo < hi; then bisect to a
        // relative width of 1e-6 (the cut need not be tight, only safe).
        let (mut lo, mut hi) = (peak, peak.max(1.0));
        while f(hi) >= threshold {
            lo = hi;
            hi *= 2.0;
            if !hi.is_finite() {
                return f64::INFINITY;
            }
        }
        while hi - lo > 1e-6 * hi {
            let mid = 0.5 * (lo + hi);
            if f(mid) >= threshold {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// Read-only inputs of the inner loops.
struct Kernel<'a> {
    /// X̃ packed by groups of LANES users: entry (i, k) at
    /// `[(i / LANES · d + k)·LANES + i % LANES]`.
    packed: &'a [f64],
    /// Ỹ per padded slot (0 for padding, whose weight is 0).
    y: Vec<f64>,
    /// The largest [`label_exponent`] of each group's labels (−1023 for padding).
    group_y_exp: Vec<f64>,
    /// 1 for a user's slot, 0 for padding (its mantissa is multiplied by it).
    real: Vec<f64>,
    d: usize,
    /// ⌈n / LANES⌉.
    groups: usize,
    /// One entry per bandwidth.
    bands: &'a [Band],
    /// mean(Ỹ), the fallback.
    mean_y: f64,
    pruning: Pruning,
}

/// Per-thread buffers, one slot per (padded) user: the squared distance S_i, the
/// log-weight g_i and the signed mantissa of the weight; per group, the smallest S; the
/// groups evaluated at the current bandwidth with the largest g_i of a nonzero weight.
struct Scratch {
    sq: Vec<f64>,
    g: Vec<f64>,
    mant: Vec<f64>,
    group_min: Vec<f64>,
    live: Vec<(usize, f64)>,
}

impl Scratch {
    fn new(groups: usize) -> Scratch {
        Scratch {
            sq: vec![0.0; groups * LANES],
            g: vec![0.0; groups * LANES],
            mant: vec![0.0; groups * LANES],
            group_min: vec![0.0; groups],
            live: Vec::with_capacity(groups),
        }
    }
}

/// Moves the binary exponent of each nonzero `p` into `e`, leaving a mantissa of
/// magnitude in [1, 2) with the sign of `p`; zeros stay zero. Products are never
/// subnormal here (see [`Band::new`]), so a zero exponent field means p = ±0. The
/// exponents are whole numbers far below 2^53 kept in f64, and the steps are written
/// without branches so that they run in vector registers; every step is exact.
#[inline(always)]
fn renormalize(prod: &mut [f64; LANES], exp2: &mut [f64; LANES]) {
    const EXP_MASK: u64 = 0x7ff << 52;
    // The f64 with the bits of 2^52 or'ed with k < 2^52 is 2^52 + k exactly.
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    for l in 0..LANES {
        let bits = prod[l].to_bits();
        let biased = f64::from_bits(TWO_52.to_bits() | ((bits & EXP_MASK) >> 52)) - TWO_52;
        let nonzero = biased.min(1.0); // 1 for a normal p, 0 for ±0
        exp2[l] += (biased - 1023.0) * nonzero;
        prod[l] = f64::from_bits((bits & !EXP_MASK) | (1023u64 << 52)) * nonzero;
    }
}

/// The binary exponent e of a normal `x` (2^e ≤ |x| < 2^{e+1}); None for zero, subnormal,
/// infinite or NaN values.
#[inline(always)]
fn binade(x: f64) -> Option<i64> {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i64;
    (biased != 0 && biased != 0x7ff).then_some(biased - 1023)
}

/// e_y with |y| < 2^{e_y + 1}: the binary exponent of a normal `y`, −1023 for zero and
/// subnormal values (as f64, a whole number).
fn label_exponent(y: f64) -> f64 {
    binade(y).unwrap_or(-1023) as f64
}

/// The running sums num = Σ w·Ỹ and den = Σ w of one prediction, in index order, with
/// the bounds below which a further term cannot change either of them.
///
/// A term t with |t| < ulp(s)/4 leaves a normal sum s unchanged under round-to-nearest
/// (the spacing of f64 around s is at least ulp(s)/2, even just below a power of 2). With
/// e_s the binary exponent of s, ulp(s)/4 = 2^{e_s − 54}. A weight w = m·e^{shift} has
/// |m| < 2, [`exp_lanes`] is within 2 ulp of e^{shift} and the product is rounded once, so
/// |w| ≤ 2·e^{shift}·(1 + 5·2^−53); with |Ỹ| < 2^{e_y + 1}, |fl(w·Ỹ)| ≤ |w|·2^{e_y + 1}·(1 + 2^−53).
/// So the term is negligible in den when shift·log₂e + 1.01 ≤ e_den − 54 and in num when
/// shift·log₂e + e_y + 2.02 ≤ e_num − 54. The computed shift·log₂e + e_y is off by less
/// than 1e-12 (|shift| ≤ 746, |e_y| ≤ 1023), and one more unit of margin is taken: the
/// bounds are e_den − 56 and e_num − 57. Zero or subnormal sums are never skipped over (a
/// first term, or a sign of zero, could change them).
#[derive(Debug, Clone, Copy)]
struct Sums {
    num: f64,
    den: f64,
    /// e_den − 56, or −∞ while either sum is zero or subnormal.
    den_bound: f64,
    /// e_num − 57, or −∞ likewise.
    num_bound: f64,
}

impl Default for Sums {
    fn default() -> Sums {
        Sums {
            num: 0.0,
            den: 0.0,
            den_bound: f64::NEG_INFINITY,
            num_bound: f64::NEG_INFINITY,
        }
    }
}

impl Sums {
    /// Whether a weight m·e^{shift} (|m| < 2) of reports with label exponent `e_y` (from
    /// [`label_exponent`]; a bound over several reports serves for all of them) would
    /// leave both sums bit for bit unchanged, so that its exp need not be evaluated.
    #[inline(always)]
    fn negligible(&self, shift: f64, e_y: f64) -> bool {
        let s2 = shift * std::f64::consts::LOG2_E;
        s2 < self.den_bound && s2 + e_y < self.num_bound
    }

    /// Recomputes the bounds from the sums (after a group's terms were added).
    #[inline(always)]
    fn rebound(&mut self) {
        (self.den_bound, self.num_bound) = match (binade(self.num), binade(self.den)) {
            (Some(e_num), Some(e_den)) => ((e_den - 56) as f64, (e_num - 57) as f64),
            _ => (f64::NEG_INFINITY, f64::NEG_INFINITY),
        };
    }
}

/// m̂(x) at every bandwidth for one test point x (length d), into `out`.
///
/// Compiled twice, for the baseline x86-64 and for AVX2 with FMA (chosen at run time when
/// the CPU has them), so the lane loops run 4 rather than 2 wide. Only the instructions
/// differ: each f64 operation is the same IEEE-754 operation in the same order (Rust never
/// contracts a·b + c; the fused multiply-adds of [`exp_lanes`] are explicit `mul_add`s,
/// one rounding on every CPU), so the bits are the same on every CPU.
#[multiversion(targets("x86_64+avx2+fma"))]
fn predict_point(k: &Kernel<'_>, x: &[f64], s: &mut Scratch, out: &mut [f64]) {
    // The squared distances, shared by every bandwidth, accumulated coordinate by
    // coordinate in order from 0.
    for grp in 0..k.groups {
        let mut sq = [0.0f64; LANES];
        for (z, &xk) in k.group(grp).chunks_exact(LANES).zip(x) {
            for l in 0..LANES {
                let v = xk - z[l];
                sq[l] += v * v;
            }
        }
        s.sq[grp * LANES..(grp + 1) * LANES].copy_from_slice(&sq);
        s.group_min[grp] = sq.iter().fold(f64::INFINITY, |m, &v| m.min(v));
    }
    // The group holding the nearest report (in S); any report's weight bounds G below.
    let nearest = (1..k.groups).fold(0, |best, grp| {
        if s.group_min[grp] < s.group_min[best] {
            grp
        } else {
            best
        }
    });
    for (band, o) in k.bands.iter().zip(out.iter_mut()) {
        *o = k.predict_band(x, band, nearest, s);
    }
}

impl Kernel<'_> {
    /// The coordinates of group `grp` ([k][lane]).
    #[inline(always)]
    fn group(&self, grp: usize) -> &[f64] {
        let len = self.d * LANES;
        &self.packed[grp * len..(grp + 1) * len]
    }

    /// m̂(x) at one bandwidth, the squared distances in `s.sq`; `first` is the group of
    /// the nearest report. The terms are added in index order, their exps evaluated eight
    /// at a time by [`exp_lanes`] (within 1 ulp of `f64::exp`: the result is within a
    /// relative 1e-12 of the plain evaluation, tests/deconv.rs); a group whose terms cannot
    /// change the running sums is skipped ([`Sums::negligible`]), which leaves the bits of
    /// adding them.
    #[inline(always)]
    fn predict_band(&self, x: &[f64], band: &Band, first: usize, s: &mut Scratch) -> f64 {
        let (cut, first_top) = match self.pruning {
            Pruning::Off => (f64::INFINITY, f64::NEG_INFINITY),
            Pruning::Bound => {
                let top = self.weights(first, x, band, s);
                if top == f64::NEG_INFINITY {
                    (f64::INFINITY, top)
                } else {
                    (band.prune_beyond(self.d, top), top)
                }
            }
        };
        s.live.clear();
        for grp in 0..self.groups {
            let group_top = if self.pruning == Pruning::Bound && grp == first {
                first_top
            } else {
                if s.group_min[grp] > cut {
                    continue; // every report of the group is beyond the cut
                }
                self.weights(grp, x, band, s)
            };
            s.live.push((grp, group_top));
        }
        let top = s.live.iter().fold(f64::NEG_INFINITY, |m, &(_, t)| m.max(t));
        if top == f64::NEG_INFINITY {
            return self.mean_y; // every weight is zero
        }
        let mut sums = Sums::default();
        for &(grp, group_top) in &s.live {
            // A group whose largest weight cannot change the sums is skipped whole (the
            // sums do not change while its terms are skipped).
            let shift = group_top - top;
            if shift < EXP_ZERO_BELOW || sums.negligible(shift, self.group_y_exp[grp]) {
                continue;
            }
            let lanes = grp * LANES..(grp + 1) * LANES;
            let (m, g, y) = (&s.mant[lanes.clone()], &s.g[lanes.clone()], &self.y[lanes]);
            let mut shifts = [0.0f64; LANES];
            for l in 0..LANES {
                shifts[l] = g[l] - top;
            }
            let e = exp_lanes(&shifts);
            // The terms in index order. A term of a zero product or of a weight below
            // e^{−746} of the largest is not added (−0 is the identity of +); every other
            // term is, those too small to change the sums included, which leaves the
            // bits of skipping them.
            for l in 0..LANES {
                let counts = m[l] != 0.0 && shifts[l] >= EXP_ZERO_BELOW;
                let w = m[l] * e[l];
                sums.num += if counts { w * y[l] } else { -0.0 };
                sums.den += if counts { w } else { -0.0 };
            }
            sums.rebound();
        }
        if sums.den == 0.0 {
            self.mean_y
        } else {
            sums.num / sums.den
        }
    }

    /// The log-weight g_i and signed mantissa of every user of group `grp` at one
    /// bandwidth (padding slots get a zero mantissa), from the squared distances in
    /// `s.sq`; returns the largest g_i of a nonzero weight (−∞ if none).
    #[inline(always)]
    fn weights(&self, grp: usize, x: &[f64], band: &Band, s: &mut Scratch) -> f64 {
        let coords = self.group(grp);
        let (a, b) = (band.a, band.b);
        let mut prod = [1.0f64; LANES];
        let mut exp2 = [0.0f64; LANES];
        let mut k0 = 0;
        while k0 < self.d {
            let k1 = (k0 + band.block).min(self.d);
            for (z, &xk) in coords[k0 * LANES..k1 * LANES]
                .chunks_exact(LANES)
                .zip(&x[k0..k1])
            {
                for l in 0..LANES {
                    let v = xk - z[l];
                    let v2 = v * v;
                    prod[l] *= a - b * v2;
                }
            }
            renormalize(&mut prod, &mut exp2);
            k0 = k1;
        }
        let lanes = grp * LANES..(grp + 1) * LANES;
        let (sq, real) = (&s.sq[lanes.clone()], &self.real[lanes.clone()]);
        let (gs, ms) = (&mut s.g[lanes.clone()], &mut s.mant[lanes]);
        let mut counted = [f64::NEG_INFINITY; LANES];
        for l in 0..LANES {
            let g = exp2[l] * std::f64::consts::LN_2 - sq[l] * band.half_inv_h2;
            let m = prod[l] * real[l];
            gs[l] = g;
            ms[l] = m;
            counted[l] = if m != 0.0 { g } else { f64::NEG_INFINITY };
        }
        // The largest (no NaN arises: g is finite), pairwise so that it stays in registers.
        let mut width = LANES / 2;
        while width > 0 {
            for l in 0..width {
                let (a, b) = (counted[l], counted[l + width]);
                counted[l] = if b > a { b } else { a };
            }
            width /= 2;
        }
        counted[0]
    }
}

/// What DECONV keeps between ε and bandwidths: the private sample, the test points and the
/// label bounds.
struct PreparedDeconv {
    x: Matrix,
    y: Vec<f64>,
    test: Matrix,
    bounds: LabelBounds,
}

impl Method for Deconv {
    builtin! {
        "DECONV", [Regression], LocalPublicData, PARAMS,
        "deconvolution-kernel Nadaraya-Watson regression on Laplace-noised (x, y) reports, eps/2 each (Farokhi 2020; LPDT paper App. D.1, which does not give the formula: ours is a reconstruction)"
    }
    fn prepare(
        &self,
        data: &RepData,
        _structural: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let users = data.private.escape(Escape::UserRelease);
        Ok(Some(Box::new(PreparedDeconv {
            x: users.x.clone(),
            y: users.y.clone(),
            test: data.test.x.clone(),
            bounds: data.bounds,
        })))
    }
}

impl Prepared for PreparedDeconv {
    /// Releases the reports at ε from the users' stream `rng` (keyed on ε, not on the
    /// bandwidth; see the module documentation) and predicts with bandwidth h.
    fn predict(
        &self,
        mechanism: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = super::required_epsilon("DECONV", epsilon)?;
        let reports = release(&self.x, &self.y, self.bounds, epsilon, rng)?;
        deconvolution_nw(&reports, &self.test, mechanism.f64("bandwidth"))
    }

    /// Every bandwidth of `mechanisms` on one release: when the streams are equal (as the
    /// runner hands them, the bandwidth being curator-side), the reports are drawn once and
    /// [`deconvolution_nw_bandwidths`] shares the squared distances; otherwise one
    /// [`Prepared::predict`] per point.
    fn predict_shared(
        &self,
        mechanisms: &[&Params],
        epsilon: Option<f64>,
        rngs: &mut [Pcg64],
    ) -> Result<Vec<Vec<f64>>, MethodError> {
        assert_eq!(mechanisms.len(), rngs.len(), "one stream per grid point");
        let Some(first) = rngs.first() else {
            return Ok(Vec::new());
        };
        if rngs.iter().any(|r| r != first) {
            return super::predict_each(self, mechanisms, epsilon, rngs);
        }
        let epsilon = super::required_epsilon("DECONV", epsilon)?;
        let mut rng = first.clone();
        let reports = release(&self.x, &self.y, self.bounds, epsilon, &mut rng)?;
        let bandwidths: Vec<f64> = mechanisms.iter().map(|m| m.f64("bandwidth")).collect();
        let out = deconvolution_nw_bandwidths(&reports, &self.test, &bandwidths)?;
        for r in rngs.iter_mut() {
            r.clone_from(&rng);
        }
        Ok(out)
    }
}
