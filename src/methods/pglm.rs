//! PGLM: the locally private generalised linear model of Wang, Xu et al. 2023 with a
//! logistic link, as the LPCT paper's competitor ((ε, δ)-LDP with δ = 1/n_P²; method card
//! `docs/methods/lpct.md` §7.4; LPCT paper, JMLR 2024, Sec. 7).
//!
//! **Releases** (in `privacy::gaussian`). Private user i, with x̃_i = (1, x_i) ∈ ℝ^D,
//! D = d + 1, releases x̃_i x̃_iᵀ and x̃_i y_i through the Gaussian mechanism, each at
//! (ε/2, δ/2) with L2 sensitivity 2r², r = D: per-user variance
//! σ² = 32 r⁴ ln(2.5/δ)/ε² ([`per_user_variance`]). The curator uses only the sums, so the
//! simulation draws the summed noise at once ([`PglmSums::privatize`]), exactly in law under
//! `noise: paper` (variance n_P·σ², a sum of n_P Gaussians) and as the reference code does
//! under `noise: reference` (variance √n_P·σ², the default that reproduces the table; it
//! is n_P^{1/4} too little noise in standard deviation, so the (ε, δ) guarantee does not
//! hold — stated in the table note by [`Method::privacy_notes`]).
//!
//! The sensitivity assumes ‖x̃_i‖₂ ≤ r. Features in \[0,1\]^d give ‖x̃‖² ≤ D ≤ r², but under
//! `scaling: public` a private point may leave the public box; such a user scales x_i down
//! to ‖x̃_i‖ = r before releasing \[choice, ours: keeps the stated sensitivity true; it
//! changes nothing unless ‖x‖² > D² − 1, far outside the box\]. Labels are 0/1.
//!
//! **Curator** ([`fit`]). Σ̂ = Σ x̃x̃ᵀ + noise, ĉ = Σ x̃y + noise, β̂ = Σ̂⁻¹ĉ (LU, nalgebra);
//! on the public points (features only, labels unused) z_i = x̃_iᵀβ̂ and the scale c solves
//! c·mean ψ''(c z) = 1 by 10 Newton steps from c = 1 ([`newton_scale`]; NaN → c = 1);
//! w = c·β̂. Prediction ([`PredictionRule`]): `reference` 1{x̃ᵀw > 0.5} (the code's, a
//! linear score thresholded at 0.5, the default), `logistic` 1{x̃ᵀw > 0} (the logistic
//! model's rule).
//!
//! **A failed fit.** When Σ̂ is singular (LU finds a zero pivot) the reference code's
//! exception is logged as a missing result. The runner stops a whole run on a
//! [`MethodError`], so PGLM instead predicts class 0 for every test point in that case \[choice,
//! ours; documented in the method's description\]. Σ̂ carries continuous Gaussian noise on
//! every entry, so this has probability 0 for any finite ε; it cannot silently shape a
//! table.

use super::{Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData};
use crate::data::{Escape, Matrix};
use crate::privacy::{
    gaussian_mechanism_variance, gaussian_release, gaussian_sum_release,
    symmetric_gaussian_release, symmetric_gaussian_sum_release, BudgetError, Domain,
    GaussianAggregate,
};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_pcg::Pcg64;

/// The PGLM builtin (docs/methods/lpct.md §7.4); registered as [`PGLM`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Pglm;

/// PGLM: Gaussian-mechanism sufficient statistics of the private users, a least-squares
/// fit rescaled to a logistic GLM on unlabelled public features (docs/methods/lpct.md §7.4).
pub static PGLM: Pglm = Pglm;

static PARAMS: &[ParamDecl] = &[
    ParamDecl {
        name: "noise",
        role: ParamRole::Release,
        kind: ParamKind::Choice(&["reference", "paper"]),
        default: Some("reference"),
        doc: "aggregated Gaussian noise variance: reference = sqrt(n_P)*sigma^2 as the LPCT code (reproduces Table 2; too little noise for the stated guarantee), paper = n_P*sigma^2, the exact sum of the users' releases (docs/methods/lpct.md 7.4)",
    },
    ParamDecl {
        name: "prediction",
        role: ParamRole::Curator,
        kind: ParamKind::Choice(&["reference", "logistic"]),
        default: Some("reference"),
        doc: "label rule: reference = 1{x'w > 0.5} as the LPCT code (linear score), logistic = 1{x'w > 0} (docs/methods/lpct.md 7.4 step 5)",
    },
];

/// The label rule on the score x̃ᵀw (docs/methods/lpct.md §7.4 step 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredictionRule {
    /// 1{x̃ᵀw > 0.5}: the reference code's rule (a linear score, not a probability).
    Reference,
    /// 1{x̃ᵀw > 0}: the logistic model's rule, σ(x̃ᵀw) > 1/2.
    Logistic,
}

impl PredictionRule {
    /// The threshold the score must exceed strictly for class 1.
    pub fn threshold(self) -> f64 {
        match self {
            PredictionRule::Reference => 0.5,
            PredictionRule::Logistic => 0.0,
        }
    }
}

/// The sums the curator receives: Σ x̃x̃ᵀ (D×D, row-major) and Σ x̃y (length D) over n
/// users, exact ([`PglmSums::from_private`]) or noisy ([`PglmSums::privatize`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PglmSums {
    /// D = d + 1 (intercept first).
    pub dim: usize,
    /// Number of private users n_P.
    pub n: usize,
    /// Σ x̃x̃ᵀ, D×D row-major.
    pub xx: Vec<f64>,
    /// Σ x̃y, length D.
    pub xy: Vec<f64>,
}

/// The bound r = D on ‖x̃‖ (the reference code's "diameter" for \[0,1\]^d data).
pub(crate) fn radius(dim: usize) -> f64 {
    dim as f64
}

/// x̃ = (1, x) for a row x, scaled so that ‖x̃‖ ≤ r (see the module documentation).
pub(crate) fn augmented(x: &[f64], r: f64) -> Vec<f64> {
    let sq: f64 = x.iter().map(|v| v * v).sum();
    let limit = r * r - 1.0;
    let s = if sq > limit { (limit / sq).sqrt() } else { 1.0 };
    std::iter::once(1.0)
        .chain(x.iter().map(|v| v * s))
        .collect()
}

/// The rows of `x` (n×d) with an intercept column first, as an n×D nalgebra matrix;
/// private rows are norm-bounded to r (`bound`), public and test rows are not.
fn design(x: &Matrix, bound: bool) -> DMatrix<f64> {
    let dim = x.d + 1;
    let r = if bound { radius(dim) } else { f64::INFINITY };
    let mut rows = Vec::with_capacity(x.n * dim);
    for i in 0..x.n {
        rows.extend(augmented(x.row(i), r));
    }
    DMatrix::from_row_slice(x.n, dim, &rows)
}

impl PglmSums {
    /// The exact sums over the private users (n×d features `x`, labels `y` in {0, 1},
    /// clamped into \[0, 1\]), each x̃_i norm-bounded to r as the user would release it.
    ///
    /// # Panics
    /// If `y.len() != x.n`.
    pub fn from_private(x: &Matrix, y: &[f64]) -> PglmSums {
        assert_eq!(y.len(), x.n, "one label per private user");
        let a = design(x, true);
        let yv = DVector::from_iterator(y.len(), y.iter().map(|v| v.clamp(0.0, 1.0)));
        let xx = a.tr_mul(&a);
        let xy = a.tr_mul(&yv);
        let dim = x.d + 1;
        PglmSums {
            dim,
            n: x.n,
            // nalgebra is column-major; Σ x̃x̃ᵀ is symmetric, but transpose for clarity.
            xx: xx.transpose().as_slice().to_vec(),
            xy: xy.as_slice().to_vec(),
        }
    }

    /// The curator's noisy sums at budget ε: the matrix noise (symmetric, drawn first) and
    /// the vector noise, each at the aggregated variance `aggregate.variance(σ², n)` with σ²
    /// = [`per_user_variance`]. Draws D² + D standard normals from `rng`.
    ///
    /// Ledger: the aggregated noise stands for n users' releases at the per-user variance
    /// v/n (v the aggregated variance drawn: σ² under `Sum`, σ²/√n under `SqrtN`); each of
    /// the n users is charged, per part, by the charged sums of the privacy crate
    /// ([`symmetric_gaussian_sum_release`], [`gaussian_sum_release`]), the ε of the
    /// Gaussian mechanism at that variance with L2 sensitivity [`l2_sensitivity`] read at
    /// δ/2, δ = 1/n² (the paper's claim).
    ///
    /// # Errors
    /// [`BudgetError`] when ε is not finite and > 0 or n < 2 (δ = 1/n² must be < 1).
    pub fn privatize<R: Rng + ?Sized>(
        &self,
        epsilon: f64,
        aggregate: GaussianAggregate,
        rng: &mut R,
    ) -> Result<PglmSums, BudgetError> {
        let v = aggregate.variance(per_user_variance(self.dim, self.n, epsilon)?, self.n);
        let half_delta = 0.5 / (self.n as f64 * self.n as f64);
        let (users, domain) = ((0, self.n), Domain::Sensitivity(l2_sensitivity(self.dim)));
        let xx = symmetric_gaussian_sum_release(
            rng,
            &self.xx,
            self.dim,
            v,
            users,
            domain,
            half_delta,
            PGLM_MATRIX_PART,
        );
        let xy = gaussian_sum_release(
            rng,
            &self.xy,
            v,
            users,
            domain,
            half_delta,
            PGLM_VECTOR_PART,
        );
        Ok(PglmSums {
            xx,
            xy,
            ..self.clone()
        })
    }
}

/// The ledger's part name of PGLM's matrix release x̃x̃ᵀ.
pub const PGLM_MATRIX_PART: &str = "matrix x~x~': gaussian";

/// The ledger's part name of PGLM's vector release x̃y.
pub const PGLM_VECTOR_PART: &str = "vector x~y: gaussian";

/// The L2 sensitivity 2r² (r = D) that both of a user's releases are calibrated to and
/// charged at (docs/methods/lpct.md §7.4 step 2): the domain ‖x̃‖ ≤ r (every private x̃ is norm-bounded
/// to r before release, [`PglmSums::from_private`]) and y ∈ \[0, 1\] bound the Frobenius
/// distance of two x̃x̃ᵀ by 2r² and the distance of two x̃y by 2r ≤ 2r²; both are upper
/// bounds (the tight ones are √2·r² and 2r), so the charge never understates the spend.
pub fn l2_sensitivity(dim: usize) -> f64 {
    let r = radius(dim);
    2.0 * r * r
}

/// The per-user Gaussian variance σ² = 32 r⁴ ln(2.5/δ)/ε² for D = `dim`, r = D and
/// δ = 1/n² (docs/methods/lpct.md §7.4 step 2): the Gaussian mechanism with sensitivity 2r² at
/// (ε/2, δ/2) for each of the two releases.
///
/// # Errors
/// [`BudgetError`] when ε is not finite and > 0 or n < 2.
pub fn per_user_variance(dim: usize, n: usize, epsilon: f64) -> Result<f64, BudgetError> {
    let delta = 1.0 / (n as f64 * n as f64);
    if n < 2 {
        return Err(BudgetError::Share {
            name: "delta = 1/n_P^2".into(),
            value: delta,
        });
    }
    gaussian_mechanism_variance(l2_sensitivity(dim), epsilon / 2.0, delta / 2.0)
}

/// One private user's release (docs/methods/lpct.md §7.4 step 2): for the row `x` (d features, norm-
/// bounded as in [`PglmSums::from_private`]) and label `y` ∈ {0, 1}, x̃x̃ᵀ + symmetric
/// Gaussian noise (D×D row-major, drawn first) and x̃y + Gaussian noise (D), each at the
/// per-user variance `sigma2`. The simulation draws the n_P-fold sums at once
/// ([`PglmSums::privatize`]); the privacy audit draws this.
pub fn user_release<R: Rng + ?Sized>(
    x: &[f64],
    y: f64,
    sigma2: f64,
    rng: &mut R,
) -> (Vec<f64>, Vec<f64>) {
    let dim = x.len() + 1;
    let xt = augmented(x, radius(dim));
    let outer: Vec<f64> = xt
        .iter()
        .flat_map(|a| xt.iter().map(move |b| a * b))
        .collect();
    let y = y.clamp(0.0, 1.0);
    let matrix = symmetric_gaussian_release(rng, &outer, dim, sigma2);
    let vector = gaussian_release(rng, &xt.iter().map(|v| v * y).collect::<Vec<_>>(), sigma2);
    (matrix, vector)
}

/// The logistic function 0.5·(1 + tanh(t/2)) (stable for large |t|).
fn logistic(t: f64) -> f64 {
    0.5 * (1.0 + (0.5 * t).tanh())
}

/// The GLM scale c (docs/methods/lpct.md §7.4 step 4): 10 Newton steps from c = 1 on
/// c·mean ψ''(c z) = 1, ψ''(t) = σ(t)(1 − σ(t)), with derivative
/// mean ψ''(cz) + mean(cz·ψ'''(cz)), ψ''' = ψ''(1 − 2σ); 1 if the result is NaN (as is the
/// mean over an empty `z`).
pub fn newton_scale(z: &[f64]) -> f64 {
    let n = z.len() as f64;
    let mut c = 1.0;
    for _ in 0..10 {
        let (mut m2, mut m3) = (0.0, 0.0);
        for &zi in z {
            let t = c * zi;
            let s = logistic(t);
            let p2 = s * (1.0 - s);
            m2 += p2;
            m3 += t * p2 * (1.0 - 2.0 * s);
        }
        let (m2, m3) = (m2 / n, m3 / n);
        c -= (c * m2 - 1.0) / (m2 + m3);
    }
    if c.is_nan() {
        1.0
    } else {
        c
    }
}

/// The GLM weights w = c·β̂ (length D, intercept first) from the noisy sums and the
/// public features (n_Q×d, labels unused): β̂ = Σ̂⁻¹ĉ by LU with partial pivoting, then
/// c = [`newton_scale`] of the public scores x̃ᵀβ̂. None when Σ̂ is singular.
///
/// # Panics
/// If the public features do not have d = D − 1 columns.
pub fn fit(noisy: &PglmSums, public: &Matrix) -> Option<Vec<f64>> {
    assert_eq!(
        public.d + 1,
        noisy.dim,
        "public points have d = D - 1 features"
    );
    let a = DMatrix::from_row_slice(noisy.dim, noisy.dim, &noisy.xx);
    let b = DVector::from_column_slice(&noisy.xy);
    let beta = a.lu().solve(&b)?;
    let z = design(public, false) * &beta;
    let c = newton_scale(z.as_slice());
    Some(beta.iter().map(|v| c * v).collect())
}

/// Labels 1{x̃ᵀw > threshold} (0.0 / 1.0) for the rows of `test` (n_test×d). A NaN score
/// (from a non-finite w) predicts 0, as the comparison does in the reference code.
pub fn predict_labels(w: &[f64], test: &Matrix, rule: PredictionRule) -> Vec<f64> {
    (0..test.n)
        .map(|i| {
            let score = w[0]
                + test
                    .row(i)
                    .iter()
                    .zip(&w[1..])
                    .map(|(x, wk)| x * wk)
                    .sum::<f64>();
            f64::from(u8::from(score > rule.threshold()))
        })
        .collect()
}

/// What PGLM keeps between ε: the exact private sums, the public and test features.
struct PreparedPglm {
    sums: PglmSums,
    public: Matrix,
    test: Matrix,
}

impl Method for Pglm {
    builtin! {
        "PGLM", [Classification], LocalPublicData, PARAMS,
        "locally private logistic GLM: users release x x' and x y by the Gaussian mechanism ((eps, 1/n_P^2)-LDP), rescaled on unlabelled public features (Wang et al. 2023; LPCT paper Sec. 7, card docs/methods/lpct.md 7.4); a singular noisy Gram matrix predicts class 0"
    }
    fn privacy_notes(&self) -> Vec<String> {
        vec![
            "(epsilon, delta)-LDP with delta = 1/n_P^2 (Gaussian mechanism), not pure epsilon-LDP; under noise: reference (the default, as the authors' code) the aggregated noise has variance sqrt(n_P)*sigma^2 instead of n_P*sigma^2, n_P^(1/4) too little in standard deviation, so not even that guarantee holds (noise: paper gives it)".to_string(),
        ]
    }
    fn prepare(
        &self,
        data: &RepData,
        _structural: &Params,
        _rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        Ok(Some(Box::new(PreparedPglm {
            sums: {
                let users = data.private.escape(Escape::UserRelease);
                PglmSums::from_private(&users.x, &users.y)
            },
            public: data.public.x.clone(),
            test: data.test.x.clone(),
        })))
    }
}

/// The aggregate of the `noise` parameter: `paper` the exact sum, `reference` √n_P·σ².
pub fn noise_aggregate(params: &Params) -> GaussianAggregate {
    match params.str("noise") {
        "paper" => GaussianAggregate::Sum,
        _ => GaussianAggregate::SqrtN,
    }
}

impl Prepared for PreparedPglm {
    /// Draws the aggregated noise at ε from the users' stream `rng` (keyed on ε and
    /// `noise`, not on `prediction`), fits and predicts; class 0 everywhere on a singular
    /// fit (module documentation).
    fn predict(
        &self,
        mechanism: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = super::required_epsilon("PGLM", epsilon)?;
        if self.sums.n < 2 {
            return Err(MethodError::Other(format!(
                "PGLM needs at least 2 private users (delta = 1/n_P^2 < 1), got {}",
                self.sums.n
            )));
        }
        let aggregate = noise_aggregate(mechanism);
        let rule = match mechanism.str("prediction") {
            "logistic" => PredictionRule::Logistic,
            _ => PredictionRule::Reference,
        };
        let noisy = self.sums.privatize(epsilon, aggregate, rng)?;
        Ok(match fit(&noisy, &self.public) {
            Some(w) => predict_labels(&w, &self.test, rule),
            None => vec![0.0; self.test.n],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_the_gram_matrix_and_cross_products_with_intercept() {
        let x = Matrix::new(3, 2, vec![0.0, 1.0, 0.5, 0.5, 1.0, 0.0]);
        let y = [1.0, 0.0, 1.0];
        let s = PglmSums::from_private(&x, &y);
        assert_eq!(s.dim, 3);
        // Row-major Σ x̃x̃ᵀ with x̃ = (1, x1, x2).
        let want = [
            3.0, 1.5, 1.5, //
            1.5, 1.25, 0.25, //
            1.5, 0.25, 1.25,
        ];
        for (a, b) in s.xx.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{:?}", s.xx);
        }
        assert_eq!(s.xy, vec![2.0, 1.0, 1.0]);
    }

    #[test]
    fn far_out_private_points_are_norm_bounded_and_box_points_are_not() {
        // D = 2, r = 2: ‖x̃‖ ≤ 2 ⇔ x² ≤ 3.
        assert_eq!(augmented(&[1.0], 2.0), vec![1.0, 1.0]);
        let v = augmented(&[10.0], 2.0);
        assert!((v[1] - 3f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn singular_sums_fail_and_a_solvable_fit_recovers_the_scaled_solution() {
        let x = Matrix::new(2, 1, vec![0.5, 0.5]);
        let s = PglmSums::from_private(&x, &[1.0, 0.0]);
        assert_eq!(
            fit(&s, &x),
            None,
            "two equal points give a singular Gram matrix"
        );
        // A regular system: β̂ = Σ̂⁻¹ĉ, and w = c·β̂ with c from the public scores.
        let x = Matrix::new(3, 1, vec![0.0, 0.5, 1.0]);
        let s = PglmSums::from_private(&x, &[0.0, 0.0, 1.0]);
        let w = fit(&s, &x).unwrap();
        // Least squares of (0, 0, 1) on (1, x): β = (−1/6, 1).
        let c = newton_scale(&[-1.0 / 6.0, 1.0 / 3.0, 5.0 / 6.0]);
        assert!(
            (w[0] + c / 6.0).abs() < 1e-9 && (w[1] - c).abs() < 1e-9,
            "{w:?}"
        );
        // Here c·mean ψ''(cz) = mean_i c ψ''(c z_i) ≤ mean_i 0.224/|z_i| = 0.76 < 1
        // (max_t t ψ''(t) ≈ 0.224): no root, the iteration ends in NaN and c falls back to
        // 1, as in the reference code.
        assert_eq!(c, 1.0);
        // With small scores a root exists and 10 steps from c = 1 reach it.
        let z = [0.05, -0.1, 0.1];
        let c = newton_scale(&z);
        let m2 = z
            .iter()
            .map(|t| {
                let s = logistic(c * t);
                s * (1.0 - s)
            })
            .sum::<f64>()
            / 3.0;
        assert!((c * m2 - 1.0).abs() < 1e-9, "c = {c}");
        assert_eq!(newton_scale(&[]), 1.0);
    }

    #[test]
    fn the_two_rules_threshold_the_score_at_half_and_zero() {
        let test = Matrix::new(3, 1, vec![0.1, 0.4, 0.9]);
        // Score = x − 0.2: −0.1, 0.2, 0.7.
        let w = [-0.2, 1.0];
        assert_eq!(
            predict_labels(&w, &test, PredictionRule::Reference),
            vec![0.0, 0.0, 1.0]
        );
        assert_eq!(
            predict_labels(&w, &test, PredictionRule::Logistic),
            vec![0.0, 1.0, 1.0]
        );
        assert_eq!(
            predict_labels(&[f64::NAN, 1.0], &test, PredictionRule::Logistic),
            vec![0.0; 3]
        );
    }
}
