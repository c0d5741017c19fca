//! DECONV: deconvolution-kernel Nadaraya–Watson regression on locally private reports
//! (Farokhi 2020, as used in the LPDT paper, App. D.1; method card `lpdt.md` §7.5, grid
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
//! very same reports, redrawn from the same stream at each call. Redrawing costs O(n·d)
//! draws, negligible next to the O(n_test·n·d) prediction.
//!
//! **Cost.** One prediction is O(n_test·n·d) time and O(n·d) memory (card §7.5, §10).

use super::{Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData};
use crate::data::{Matrix, Task};
use crate::estimate::LabelBounds;
use crate::privacy::{laplace, Budget, BudgetError};
use rand::Rng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

/// The DECONV builtin (lpdt.md §7.5); registered as [`DECONV`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Deconv;

/// DECONV: deconvolution-kernel regression on Laplace-noised (x, y) reports (lpdt.md §7.5).
pub static DECONV: Deconv = Deconv;

/// The bandwidth h > 0 (grid {0.02, 0.05, 0.1, 0.2, 0.5, 1, 5}, lpdt.md §6). A mechanism
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

/// Every private user's release under DECONV (lpdt.md §7.5): n×d noisy features and n
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

/// Simulates every user's release (lpdt.md §7.5, "User release"): user i, in order,
/// releases X̃_i = clamp(X_i, 0, 1) + b_X·ξ_i (d iid standard Laplace draws, b_X = d/ε_X)
/// and then Ỹ_i = clip(Y_i) + b_Y·ζ_i (b_Y = R/ε_Y), with ε_X = ε_Y = ε/2. Each part is
/// ε/2-LDP (L1 sensitivities d and R), so the release is ε-LDP.
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
    let b_x = x.d as f64 / eps_x;
    let b_y = bounds.range() / eps_y;
    let mut noisy_x = Vec::with_capacity(x.n * x.d);
    let mut noisy_y = Vec::with_capacity(x.n);
    for (i, &yi) in y.iter().enumerate() {
        for &v in x.row(i) {
            noisy_x.push(v.clamp(0.0, 1.0) + laplace(rng, b_x));
        }
        noisy_y.push(bounds.clip(yi) + laplace(rng, b_y));
    }
    Ok(Reports {
        x: Matrix::new(x.n, x.d, noisy_x),
        y: noisy_y,
        b_x,
        b_y,
    })
}

/// The one-dimensional deconvolution kernel for Laplace(b) measurement error with a
/// Gaussian base kernel (lpdt.md §7.5, \[inferred\]):
/// L(u) = φ(u)·[1 + β²(1 − u²)], β = b/h, φ(u) = e^{−u²/2}/√(2π).
///
/// It integrates to 1 over ℝ, and E over Z ~ standard Laplace of L(u − βZ) equals φ(u):
/// averaging over the users' noise recovers the Gaussian kernel on the true features.
pub fn deconvolution_kernel(u: f64, b_over_h: f64) -> f64 {
    let phi = (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt();
    phi * (1.0 + b_over_h * b_over_h * (1.0 - u * u))
}

/// Users handled together in the inner loop, their accumulators held in registers.
const LANES: usize = 8;
/// A nonzero correction factor 1 + c(1 − u²) = A − B·v² (A = 1 + c ≥ 1) computed in f64 has
/// magnitude at least 2^−53: either B·v² ≤ A/2 and it exceeds 1/2, or both terms are ≥ 1/2
/// and their nonzero difference is a multiple of ulp(1/2) = 2^−53.
const MIN_FACTOR_LOG2: f64 = 54.0;

/// Nadaraya–Watson predictions with the product deconvolution kernel (lpdt.md §7.5):
/// m̂(x) = Σ_i Ỹ_i K_h(x − X̃_i) / Σ_i K_h(x − X̃_i) for each row x of `test` (n_test×d),
/// with K_h(v) = ∏_k L(v_k/h) at β = b_X/h ([`deconvolution_kernel`]). Returns n_test values.
///
/// Evaluation (the card's \[choice\]): with v = x − X̃_i,
/// ∏_k φ(v_k/h) = (2π)^{−d/2}·exp(−‖v‖²/(2h²)), so the Gaussian part needs one squared
/// distance per pair, and the correction ∏_k [1 + c(1 − v_k²/h²)], c = β², is accumulated as
/// a binary exponent plus a signed mantissa (renormalized every few coordinates, never
/// overflowing). Each weight is then sign·mantissa·exp(g_i − G) with
/// g_i = exponent_i·ln 2 − ‖v‖²/(2h²) and G = max g_i: the largest weight has magnitude in
/// [1, 2), i.e. the weights are rescaled by the largest magnitude up to the mantissa, which
/// the ratio does not see; the constants (2π)^{−d/2} h^{−d} cancel. No other guard: when
/// the denominator is exactly 0, or every weight is zero, the prediction is mean(Ỹ).
/// Since the rescaling keeps the largest weight at magnitude ≥ 1, weights vanish all
/// together only when every correction product is exactly 0; weights more than e^{−746}
/// below the largest underflow to 0 individually (and are skipped). Test points are spread over rayon's threads; each is computed alone, so the
/// result does not depend on the number of threads.
///
/// # Errors
/// [`MethodError::Other`] when h is not finite and > 0, when `test` and the reports differ
/// in d, when there are no reports, or when a single kernel factor would overflow f64
/// (b_X·|v|/h² beyond ~1e150, far outside any grid of the paper).
pub fn deconvolution_nw(
    reports: &Reports,
    test: &Matrix,
    bandwidth: f64,
) -> Result<Vec<f64>, MethodError> {
    let h = bandwidth;
    if !(h.is_finite() && h > 0.0) {
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
    // Users in groups of LANES, each group stored coordinate-major ([group][k][lane]) so
    // the inner loop reads LANES contiguous values per coordinate; the last group is
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
    let c = (reports.b_x / h).powi(2);
    let a = 1.0 + c;
    let b = c / (h * h);
    let half_inv_h2 = 0.5 / (h * h);
    // Every factor has magnitude ≤ A + B·V², V bounding |x_k − X̃_ik|; a block of L factors
    // starting from a mantissa in [1, 2) stays normal when L·max(54, log2 F) ≤ 1000.
    let max_abs = |s: &[f64]| s.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let v_max = max_abs(&test.data) + max_abs(&reports.x.data);
    let factor_log2 = (a + b * v_max * v_max).log2().max(MIN_FACTOR_LOG2);
    if factor_log2.is_nan() || factor_log2 > 1000.0 {
        return Err(MethodError::Other(format!(
            "DECONV: kernel factors overflow f64 at bandwidth {h} with noise scale b_X = {}",
            reports.b_x
        )));
    }
    let block = ((1000.0 / factor_log2).floor() as usize).max(1);
    let k = Kernel {
        packed: &packed,
        y: &reports.y,
        n,
        d,
        a,
        b,
        half_inv_h2,
        block,
        mean_y,
    };
    Ok((0..test.n)
        .into_par_iter()
        .map_init(
            || Scratch::new(groups * LANES),
            |s, t| k.predict_one(test.row(t), s),
        )
        .collect())
}

/// Read-only inputs of the inner loop.
struct Kernel<'a> {
    /// X̃ packed by groups of LANES users: entry (i, k) at
    /// `[(i / LANES · d + k)·LANES + i % LANES]`.
    packed: &'a [f64],
    /// Ỹ, length n.
    y: &'a [f64],
    n: usize,
    d: usize,
    /// A = 1 + c, c = (b_X/h)².
    a: f64,
    /// B = c/h², so the factor is A − B·v².
    b: f64,
    /// 1/(2h²).
    half_inv_h2: f64,
    /// Renormalize the correction product every `block` coordinates.
    block: usize,
    /// mean(Ỹ), the fallback.
    mean_y: f64,
}

/// Per-thread buffers: g_i and the signed mantissa of each (padded) user's weight.
struct Scratch {
    g: Vec<f64>,
    mant: Vec<f64>,
}

impl Scratch {
    fn new(slots: usize) -> Scratch {
        Scratch {
            g: vec![0.0; slots],
            mant: vec![0.0; slots],
        }
    }
}

/// Moves the binary exponent of each nonzero normal `p` into `e`, leaving a mantissa of
/// magnitude in [1, 2) with the sign of `p`; zeros stay zero.
#[inline(always)]
fn renormalize(prod: &mut [f64; LANES], exp2: &mut [i64; LANES]) {
    const EXP_MASK: u64 = 0x7ff << 52;
    for (p, e) in prod.iter_mut().zip(exp2.iter_mut()) {
        let bits = p.to_bits();
        let biased = ((bits & EXP_MASK) >> 52) as i64;
        if biased != 0 {
            *e += biased - 1023;
            *p = f64::from_bits((bits & !EXP_MASK) | (1023u64 << 52));
        }
    }
}

/// exp(x) is exactly 0 below this (ln of half the smallest subnormal is −745.13), so
/// weights further below the largest are skipped without changing a bit of the result.
const EXP_ZERO_BELOW: f64 = -746.0;

impl Kernel<'_> {
    /// m̂(x) for one test point x (length d).
    fn predict_one(&self, x: &[f64], s: &mut Scratch) -> f64 {
        let (n, d) = (self.n, self.d);
        let (a, b) = (self.a, self.b);
        let mut top = f64::NEG_INFINITY;
        let group_len = d * LANES;
        for (grp, ((coords, g), mant)) in self
            .packed
            .chunks_exact(group_len.max(1))
            .zip(s.g.chunks_exact_mut(LANES))
            .zip(s.mant.chunks_exact_mut(LANES))
            .enumerate()
        {
            let mut sq = [0.0f64; LANES];
            let mut prod = [1.0f64; LANES];
            let mut exp2 = [0i64; LANES];
            let mut k0 = 0;
            while k0 < d {
                let k1 = (k0 + self.block).min(d);
                for (z, &xk) in coords[k0 * LANES..k1 * LANES]
                    .chunks_exact(LANES)
                    .zip(&x[k0..k1])
                {
                    for l in 0..LANES {
                        let v = xk - z[l];
                        let v2 = v * v;
                        sq[l] += v2;
                        prod[l] *= a - b * v2;
                    }
                }
                renormalize(&mut prod, &mut exp2);
                k0 = k1;
            }
            for l in 0..LANES {
                g[l] = exp2[l] as f64 * std::f64::consts::LN_2 - sq[l] * self.half_inv_h2;
                // Padding slots get a zero weight.
                mant[l] = if grp * LANES + l < n { prod[l] } else { 0.0 };
                if mant[l] != 0.0 {
                    top = top.max(g[l]);
                }
            }
        }
        if top == f64::NEG_INFINITY {
            return self.mean_y; // every weight is zero
        }
        let (mut num, mut den) = (0.0, 0.0);
        for ((&g, &m), &y) in s.g.iter().zip(&s.mant).zip(self.y) {
            let shift = g - top;
            if m != 0.0 && shift >= EXP_ZERO_BELOW {
                let w = m * shift.exp();
                num += w * y;
                den += w;
            }
        }
        if den == 0.0 {
            self.mean_y
        } else {
            num / den
        }
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
    fn name(&self) -> &str {
        "DECONV"
    }
    fn description(&self) -> &str {
        "deconvolution-kernel Nadaraya-Watson regression on Laplace-noised (x, y) reports, eps/2 each (Farokhi 2020; LPDT paper App. D.1, which does not give the formula: ours is a reconstruction)"
    }
    fn params(&self) -> &[ParamDecl] {
        PARAMS
    }
    fn private(&self) -> bool {
        true
    }
    fn tasks(&self) -> &'static [Task] {
        &[Task::Regression]
    }
    fn prepare(
        &self,
        data: &RepData,
        _structural: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        Ok(Some(Box::new(PreparedDeconv {
            x: data.private.x.clone(),
            y: data.private.y.clone(),
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
}
