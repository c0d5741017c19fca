//! PSGD-L and PSGD-N: sequentially interactive locally private SGD with public data
//! (Lowy et al. 2023), the LPCT paper's competitors (method card `docs/methods/lpct.md` §7.5; LPCT paper,
//! JMLR 2024, Sec. 7).
//!
//! **Models.** PSGD-L: logistic regression, p(x) = sigmoid(wᵀx + b) — two parameter tensors
//! (w: 1×d, b: 1). PSGD-N: one hidden ReLU layer of width H, p(x) = sigmoid(w₂ᵀ relu(W₁x +
//! b₁) + b₂) — four tensors (W₁: H×d, b₁: H, w₂: 1×H, b₂: 1), H = ⌊width_ratio·d⌋ (at
//! least 1), the reference code's `int(hidden_dim_ratio * d)`. Double precision; PyTorch's
//! default initialisation, every weight and bias U(−1/√fan_in, 1/√fan_in), drawn in
//! PyTorch's order (layer by layer, weight then bias; weights row-major) from the
//! structural grid point's stream in `prepare` — the reference seeds torch with the
//! repetition, so every ε and η start from the same model. Forward and backward passes are
//! written out (the models are tiny); the full-batch products of the warm start use faer's
//! GEMM (one thread; the runner runs units in parallel).
//!
//! **Loss.** Binary cross-entropy on the sigmoid output, with PyTorch's gradient: for output
//! p and label y the gradient at the logit is (p − y)/max(p(1−p), 10⁻¹²)·p(1−p) (BCELoss's
//! backward clamps its denominator, then sigmoid's backward multiplies by p(1−p)); it
//! equals p − y unless the sigmoid saturates.
//!
//! **Training** (card §7.5). Warm start: 100 full-batch gradient steps on the public data
//! (mean loss) with learning rate η (skipped without public points). Then one pass over a
//! uniformly random permutation of the n_P + n_Q points, drawn from the users' stream: a
//! public point makes a plain SGD step θ ← θ − η∇ℓ; a private user computes the gradient of
//! its own loss at the current model and releases, for every parameter tensor separately,
//! PrivUnitG(gradient of that tensor; ε_t, C = 1) (`privacy::PrivUnitGParams`); the
//! curator steps θ_t ← θ_t − η·release_t. Prediction 1{p(x) > 1/2}.
//!
//! **Budget** (`epsilon_split`). `per_tensor` (the default, the reference code): every
//! tensor's release spends the full ε, so a private user's release is (#tensors)·ε-LDP —
//! 2ε for PSGD-L, 4ε for PSGD-N; the table note says so ([`Method::privacy_notes`]).
//! `split`: ε/#tensors per tensor, ε in all (basic composition). PrivUnitG's ε ≥ 20 cap
//! (q = 1/(4·10⁸)) applies per tensor, so ε = 1000 behaves like ε ≈ 20 per tensor.
//!
//! **Reuse.** The warm start does not depend on ε or on the users' noise: it is computed
//! once per η and kept (the runner calls `predict` for every ε of a grid point).

use super::{Method, MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData};
use crate::data::{Escape, Matrix};
use crate::privacy::ledger::Subjects;
use crate::privacy::{Budget, PrivUnitGParams};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_pcg::Pcg64;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// The clipping level C of PrivUnitG (card §7.5).
const CLIP: f64 = 1.0;

/// Full-batch warm-start steps on the public data (card §7.5).
pub const WARM_START_STEPS: usize = 100;

/// The PSGD builtins (docs/methods/lpct.md §7.5): [`PSGD_L`] (no hidden layer) and [`PSGD_N`].
#[derive(Debug, Clone, Copy)]
pub struct Psgd {
    /// Whether the model has the hidden ReLU layer (PSGD-N).
    hidden: bool,
}

/// PSGD-L: logistic regression trained by one pass of public SGD steps and PrivUnitG
/// private steps after a public warm start (docs/methods/lpct.md §7.5).
pub static PSGD_L: Psgd = Psgd { hidden: false };

/// PSGD-N: the same with one hidden ReLU layer of width ⌊width_ratio·d⌋ (docs/methods/lpct.md §7.5).
pub static PSGD_N: Psgd = Psgd { hidden: true };

const ETA: ParamDecl = ParamDecl {
    name: "eta",
    role: ParamRole::Release,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: true,
    },
    default: None,
    doc: "learning rate of every step, warm start included (code grid 1e-5, 1e-3, 1e-1, 1; paper 1e-5, 1e-4, ..., 1; docs/methods/lpct.md 7.5); it changes the model at which users compute what they release",
};

const EPSILON_SPLIT: ParamDecl = ParamDecl {
    name: "epsilon_split",
    role: ParamRole::Release,
    kind: ParamKind::Choice(&["per_tensor", "split"]),
    default: Some("per_tensor"),
    doc: "per_tensor = every parameter tensor privatized with the full epsilon as the LPCT code (true guarantee #tensors*epsilon), split = epsilon/#tensors per tensor (epsilon in all)",
};

const WIDTH_RATIO: ParamDecl = ParamDecl {
    name: "width_ratio",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: true,
    },
    default: Some("1"),
    doc: "hidden width H = floor(width_ratio*d), at least 1 (code: ratio 1 only; paper: 0.5, 1, 2; docs/methods/lpct.md 7.5)",
};

static PARAMS_L: &[ParamDecl] = &[ETA, EPSILON_SPLIT];
static PARAMS_N: &[ParamDecl] = &[WIDTH_RATIO, ETA, EPSILON_SPLIT];

/// The logistic function 1/(1 + e^{−t}), as PyTorch computes it.
fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + (-t).exp())
}

/// PyTorch's gradient of BCE(sigmoid(o), y) at the logit o, given p = sigmoid(o)
/// (module documentation).
fn logit_gradient(p: f64, y: f64) -> f64 {
    let s = (1.0 - p) * p;
    (p - y) / s.max(1e-12) * s
}

/// A PSGD model: its shape and its parameters, flat, tensors in PyTorch's order
/// (PSGD-L: w, b; PSGD-N: W₁ row-major, b₁, w₂, b₂).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Input dimension d.
    pub d: usize,
    /// Hidden width H (PSGD-N) or None (PSGD-L).
    pub hidden: Option<usize>,
    /// All parameters, length [`Model::len_for`].
    pub params: Vec<f64>,
}

impl Model {
    /// Number of parameters: d + 1, or H·d + H + H + 1.
    pub fn len_for(d: usize, hidden: Option<usize>) -> usize {
        match hidden {
            None => d + 1,
            Some(h) => h * d + 2 * h + 1,
        }
    }

    /// The index ranges of the tensors in `params`, in PyTorch's order.
    pub fn tensors(&self) -> Vec<Range<usize>> {
        let d = self.d;
        match self.hidden {
            None => vec![0..d, d..d + 1],
            Some(h) => {
                let w1 = h * d;
                vec![
                    0..w1,
                    w1..w1 + h,
                    w1 + h..w1 + 2 * h,
                    w1 + 2 * h..w1 + 2 * h + 1,
                ]
            }
        }
    }

    /// PyTorch's default initialisation: each layer's weight then bias drawn
    /// U(−1/√fan_in, 1/√fan_in) (fan_in = d for the first layer, H for the output layer).
    pub fn init<R: Rng + ?Sized>(d: usize, hidden: Option<usize>, rng: &mut R) -> Model {
        let mut params = Vec::with_capacity(Self::len_for(d, hidden));
        let mut layer = |fan_in: usize, outputs: usize, params: &mut Vec<f64>| {
            let bound = 1.0 / (fan_in as f64).sqrt();
            for _ in 0..outputs * fan_in + outputs {
                params.push(rng.gen_range(-bound..bound));
            }
        };
        match hidden {
            None => layer(d, 1, &mut params),
            Some(h) => {
                layer(d, h, &mut params);
                layer(h, 1, &mut params);
            }
        }
        Model { d, hidden, params }
    }

    /// The logit at x (length d); for PSGD-N fills `pre` (length H) with W₁x + b₁.
    fn logit(&self, x: &[f64], pre: &mut [f64]) -> f64 {
        let d = self.d;
        match self.hidden {
            None => self.params[d] + dot(&self.params[..d], x),
            Some(h) => {
                let w1 = h * d;
                let mut o = self.params[w1 + 2 * h];
                for (j, pj) in pre[..h].iter_mut().enumerate() {
                    let a = self.params[w1 + j] + dot(&self.params[j * d..(j + 1) * d], x);
                    *pj = a;
                    o += self.params[w1 + h + j] * a.max(0.0);
                }
                o
            }
        }
    }

    /// The gradient of one point's loss BCE(p(x), y) with respect to every parameter,
    /// written into `grad` (length [`Model::len_for`]); `pre` is scratch of length H.
    pub fn point_gradient(&self, x: &[f64], y: f64, grad: &mut [f64], pre: &mut [f64]) {
        let d = self.d;
        let g = logit_gradient(sigmoid(self.logit(x, pre)), y);
        match self.hidden {
            None => {
                for (gk, xk) in grad[..d].iter_mut().zip(x) {
                    *gk = g * xk;
                }
                grad[d] = g;
            }
            Some(h) => {
                let w1 = h * d;
                for j in 0..h {
                    let a = pre[j];
                    grad[w1 + h + j] = g * a.max(0.0);
                    // ReLU passes the gradient where its input is > 0.
                    let dh = if a > 0.0 {
                        g * self.params[w1 + h + j]
                    } else {
                        0.0
                    };
                    for (gk, xk) in grad[j * d..(j + 1) * d].iter_mut().zip(x) {
                        *gk = dh * xk;
                    }
                    grad[w1 + j] = dh;
                }
                grad[w1 + 2 * h] = g;
            }
        }
    }

    /// The gradient of the mean loss over the rows of `x` (n×d) with labels `y` (length n).
    /// Empty data gives a zero gradient. [`Model::batch_gradient_into`] on a batch of its
    /// own.
    pub fn batch_gradient(&self, x: &Matrix, y: &[f64]) -> Vec<f64> {
        let mut grad = vec![0.0; self.params.len()];
        self.batch_gradient_into(&mut Batch::new(x, y), &mut grad);
        grad
    }

    /// The gradient of the mean loss over `batch` (n×d rows, n labels), written into
    /// `grad` (length [`Model::len_for`]); the batch keeps its scratch between calls, so
    /// that the warm start's steps allocate nothing.
    ///
    /// The two matrix products of a model with a hidden layer (A = XW₁ᵀ and dW₁ = dHᵀX)
    /// are faer's GEMM over blocks of [`ROW_BLOCK`] rows, so that a block's n×H
    /// pre-activations stay in cache from the product that makes them to the one that
    /// reads them; every matrix-vector product and column sum is a sum over rows started by
    /// row 0's term, fused into one pass. The GEMM's summation order is its own: the test
    /// `batch_gradient_matches_the_textbook_products` holds the gradient to the textbook
    /// nalgebra products within a relative 10⁻¹².
    ///
    /// # Panics
    /// A batch of another dimension than the model's.
    pub fn batch_gradient_into(&self, batch: &mut Batch<'_>, grad: &mut [f64]) {
        let (x, y) = (batch.x, batch.y);
        assert_eq!(x.d, self.d, "batch and model dimensions");
        let (n, d) = (x.n, self.d);
        grad.fill(0.0);
        if n == 0 {
            return;
        }
        let scale = 1.0 / n as f64;
        match self.hidden {
            None => {
                let (w, b) = (&self.params[..d], self.params[d]);
                let (gw, gb) = grad.split_at_mut(d);
                let mut dz_sum = 0.0;
                for (i, &yi) in y.iter().enumerate() {
                    let xi = x.row(i);
                    let dz = scale * logit_gradient(sigmoid(gemv_dot(xi, w) + b), yi);
                    // Xᵀ dz: a sum over rows, started by row 0's product.
                    accumulate(gw, xi.iter().map(|xk| xk * dz), i == 0);
                    dz_sum += dz;
                }
                gb[0] = dz_sum;
            }
            Some(h) => {
                let w1 = h * d;
                let (w1m, rest) = self.params.split_at(w1);
                let (b1, w2, b2) = (&rest[..h], &rest[h..2 * h], rest[2 * h]);
                let (gw1, rest) = grad.split_at_mut(w1);
                let (gb1, rest) = rest.split_at_mut(h);
                let (gw2, gb2) = rest.split_at_mut(h);
                let mut dz_sum = 0.0;
                for (block_index, rows) in row_blocks(n).enumerate() {
                    let m = rows.len();
                    // Overwritten whole by the product (Accum::Replace): grown, never cleared.
                    if batch.rows.len() < m * h {
                        batch.rows.resize(m * h, 0.0);
                    }
                    let a = &mut batch.rows[..m * h];
                    let xb =
                        MatRef::from_row_major_slice(&x.data[rows.start * d..rows.end * d], m, d);
                    // Pre-activations A = X W₁ᵀ (m×H, row-major) of the block's rows.
                    matmul(
                        MatMut::from_row_major_slice_mut(a, m, h),
                        Accum::Replace,
                        xb,
                        MatRef::from_row_major_slice(w1m, h, d).transpose(),
                        1.0,
                        Par::Seq,
                    );
                    clean_upper();
                    for (row, i) in a.chunks_exact_mut(h).zip(rows.clone()) {
                        // R = relu(A + b₁) in place (R > 0 exactly where A + b₁ > 0).
                        for (v, bj) in row.iter_mut().zip(b1) {
                            *v = (*v + bj).max(0.0);
                        }
                        let dz = scale * logit_gradient(sigmoid(lanes_dot(row, w2) + b2), y[i]);
                        // relu(A)ᵀ dz, a sum over rows started by row 0's product.
                        accumulate(gw2, row.iter().map(|v| v * dz), i == 0);
                        // dH = dz w₂ᵀ ⊙ 1{A > 0} in place of R; b₁'s gradient sums its
                        // columns. (Simple loops, one per quantity, that the compiler
                        // vectorises; the ReLU's gate is a bit mask, not a branch that
                        // half the units would mispredict: dz·w₂ⱼ where R > 0, else +0.0.)
                        for (v, wj) in row.iter_mut().zip(w2) {
                            let keep = u64::from(*v > 0.0).wrapping_neg();
                            *v = f64::from_bits((dz * wj).to_bits() & keep);
                        }
                        for (g, v) in gb1.iter_mut().zip(&*row) {
                            *g += v;
                        }
                        dz_sum += dz;
                    }
                    // dW₁ = dHᵀ X (H×d, row-major in the gradient), a sum over the blocks'
                    // rows: the first block writes it, the others add.
                    matmul(
                        MatMut::from_row_major_slice_mut(gw1, h, d),
                        if block_index == 0 {
                            Accum::Replace
                        } else {
                            Accum::Add
                        },
                        MatRef::from_row_major_slice(a, m, h).transpose(),
                        xb,
                        1.0,
                        Par::Seq,
                    );
                    clean_upper();
                }
                gb2[0] = dz_sum;
            }
        }
    }

    /// Labels 1{p(x) > 1/2} (0.0 / 1.0) for the rows of `x` (n×d).
    pub fn predict(&self, x: &Matrix) -> Vec<f64> {
        let mut pre = vec![0.0; self.hidden.unwrap_or(0)];
        (0..x.n)
            .map(|i| f64::from(u8::from(sigmoid(self.logit(x.row(i), &mut pre)) > 0.5)))
            .collect()
    }
}

/// A full batch for [`Model::batch_gradient_into`]: n×d rows and n labels, with the
/// scratch its gradients reuse (a block's pre-activations, [`ROW_BLOCK`]×H).
#[derive(Debug)]
pub struct Batch<'a> {
    x: &'a Matrix,
    y: &'a [f64],
    rows: Vec<f64>,
}

impl<'a> Batch<'a> {
    /// The batch of rows `x` (n×d) and labels `y` (length n).
    ///
    /// # Panics
    /// `y` not of length n.
    pub fn new(x: &'a Matrix, y: &'a [f64]) -> Batch<'a> {
        assert_eq!(x.n, y.len(), "one label per row");
        Batch {
            x,
            y,
            rows: Vec::new(),
        }
    }
}

/// Rows per block of the full-batch gradient: the block's pre-activations (ROW_BLOCK×H)
/// stay in cache from the product that makes them to the product that reads them. At 512
/// rows, dW₁'s inner dimension fits one of the GEMM's depth chunks (faer's x86 kernels
/// cut the inner dimension at 512, whatever the caches), so each entry of a block's
/// product is one multiply-add chain over its rows in order and the blocks add up in
/// order: the same numbers whatever the machine's caches.
const ROW_BLOCK: usize = 512;

/// The row ranges of [`ROW_BLOCK`] rows that cover 0..n, the last one shorter.
fn row_blocks(n: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n.div_ceil(ROW_BLOCK)).map(move |b| b * ROW_BLOCK..((b + 1) * ROW_BLOCK).min(n))
}

/// Σ_k a_k b_k, a_0 b_0 first, then a_k b_k + sum.
fn gemv_dot(a: &[f64], b: &[f64]) -> f64 {
    match (a.first(), b.first()) {
        (Some(a0), Some(b0)) => a[1..]
            .iter()
            .zip(&b[1..])
            .fold(a0 * b0, |s, (x, y)| x * y + s),
        _ => 0.0,
    }
}

/// One row's terms added to running sums over rows:
/// the first row's terms start the sums (`first`), later rows' are added as term + sum.
fn accumulate(sums: &mut [f64], terms: impl Iterator<Item = f64>, first: bool) {
    if first {
        sums.iter_mut().zip(terms).for_each(|(s, t)| *s = t);
    } else {
        sums.iter_mut().zip(terms).for_each(|(s, t)| *s += t);
    }
}

/// Clears the upper halves of the vector registers after the GEMM (`vzeroupper`), when the
/// processor has AVX: faer's x86 kernels return with them dirty, and the rest of the
/// program, compiled for plain x86-64, then runs its floating point under a false
/// dependency on them (measured: every later fit on the thread 1.2–2× slower).
fn clean_upper() {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx")]
        unsafe fn zero_upper() {
            std::arch::x86_64::_mm256_zeroupper();
        }
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the processor has AVX (checked above).
            unsafe { zero_upper() }
        }
    }
}

/// Σ_k a_k b_k over eight running sums (lanes the compiler vectorises, no chain of
/// dependent additions), added up at the end.
fn lanes_dot(a: &[f64], b: &[f64]) -> f64 {
    const L: usize = 8;
    let mut acc = [0.0; L];
    let (ca, cb) = (a.chunks_exact(L), b.chunks_exact(L));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..L {
            acc[k] += x[k] * y[k];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f64>() + tail
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// θ ← θ − η·g.
fn step(params: &mut [f64], grad: &[f64], eta: f64) {
    for (p, g) in params.iter_mut().zip(grad) {
        *p -= eta * g;
    }
}

/// The warm start (card §7.5): [`WARM_START_STEPS`] full-batch gradient steps of size η
/// on the public rows `x` (n_Q×d) with labels `y`; none when there are no public rows.
pub fn warm_start(model: &Model, x: &Matrix, y: &[f64], eta: f64) -> Model {
    let mut m = model.clone();
    if x.n == 0 {
        return m;
    }
    let mut batch = Batch::new(x, y);
    let mut g = vec![0.0; m.params.len()];
    for _ in 0..WARM_START_STEPS {
        m.batch_gradient_into(&mut batch, &mut g);
        step(&mut m.params, &g, eta);
    }
    m
}

/// The ledger's part name of one tensor's PrivUnitG release.
pub const PSGD_TENSOR_PART: &str = "gradient tensor: PrivUnitG";

/// The one pass (card §7.5) from `model`: a permutation of the n_P + n_Q points drawn from
/// `rng`, then in that order a plain SGD step for a public point and, for a private user,
/// a step along the PrivUnitG releases of its gradient, tensor by tensor, each at the
/// parameters `mechanism` (drawn from `rng` in the tensors' order). Ledger: private user i
/// is charged, per tensor released, by [`PrivUnitGParams::release_into_charged`], the ε
/// the parameters the draw used realise ([`PrivUnitGParams::spent_epsilon`]).
pub fn private_pass<R: Rng + ?Sized>(
    model: &Model,
    private: (&Matrix, &[f64]),
    public: (&Matrix, &[f64]),
    eta: f64,
    mechanism: &PrivUnitGParams,
    rng: &mut R,
) -> Model {
    let (xp, yp) = private;
    let (xq, yq) = public;
    let mut m = model.clone();
    let mut order: Vec<usize> = (0..xp.n + xq.n).collect();
    order.shuffle(rng);
    let tensors = m.tensors();
    let mut grad = vec![0.0; m.params.len()];
    let mut noisy = vec![0.0; m.params.len()];
    let mut pre = vec![0.0; m.hidden.unwrap_or(0)];
    for i in order {
        if i < xp.n {
            m.point_gradient(xp.row(i), yp[i], &mut grad, &mut pre);
            for t in &tensors {
                mechanism.release_into_charged(
                    &grad[t.clone()],
                    CLIP,
                    rng,
                    &mut noisy[t.clone()],
                    PSGD_TENSOR_PART,
                    Subjects::One(i),
                );
            }
            step(&mut m.params, &noisy, eta);
        } else {
            let j = i - xp.n;
            m.point_gradient(xq.row(j), yq[j], &mut grad, &mut pre);
            step(&mut m.params, &grad, eta);
        }
    }
    m
}

/// What PSGD keeps between η and ε: the data, the initial model and the warm starts
/// already computed (by η's bits).
struct PreparedPsgd {
    private: (Matrix, Vec<f64>),
    public: (Matrix, Vec<f64>),
    test: Matrix,
    init: Model,
    warm: Mutex<Vec<(u64, Arc<Model>)>>,
}

impl PreparedPsgd {
    /// The warm-started model for η, computed once.
    fn warm(&self, eta: f64) -> Arc<Model> {
        let key = eta.to_bits();
        if let Some((_, m)) = self
            .warm
            .lock()
            .expect("warm-start cache")
            .iter()
            .find(|(k, _)| *k == key)
        {
            return m.clone();
        }
        let m = Arc::new(warm_start(&self.init, &self.public.0, &self.public.1, eta));
        self.warm
            .lock()
            .expect("warm-start cache")
            .push((key, m.clone()));
        m
    }
}

impl Psgd {
    /// The sizes of the model's parameter tensors on d features, in PyTorch's order:
    /// PSGD-L w (d), b (1); PSGD-N W₁ (H·d), b₁ (H), w₂ (H), b₂ (1), H from `params`.
    pub fn tensor_sizes(&self, params: &Params, d: usize) -> Vec<usize> {
        match self.width(params, d) {
            None => vec![d, 1],
            Some(h) => vec![h * d, h, h, 1],
        }
    }

    /// The PrivUnitG parameters of one tensor's release at grid point `params` and
    /// budget ε, as the runner uses them ([`tensor_epsilon`]).
    ///
    /// # Errors
    /// When ε is not finite and > 0.
    pub fn tensor_mechanism(
        &self,
        params: &Params,
        epsilon: f64,
    ) -> Result<PrivUnitGParams, MethodError> {
        let eps_t = tensor_epsilon(params.str("epsilon_split"), epsilon, self.n_tensors())?;
        Ok(PrivUnitGParams::new(eps_t)?)
    }

    /// The hidden width at `structural` for d features (None for PSGD-L).
    fn width(&self, structural: &Params, d: usize) -> Option<usize> {
        self.hidden.then(|| {
            let h = (structural.f64("width_ratio") * d as f64).floor();
            (h as usize).max(1)
        })
    }

    /// Number of parameter tensors.
    fn n_tensors(&self) -> usize {
        if self.hidden {
            4
        } else {
            2
        }
    }
}

impl Method for Psgd {
    fn name(&self) -> &str {
        if self.hidden {
            "PSGD-N"
        } else {
            "PSGD-L"
        }
    }
    fn description(&self) -> &str {
        if self.hidden {
            "one-hidden-layer ReLU network: public warm start, then one SGD pass with PrivUnitG-privatized private gradients, per tensor (Lowy et al. 2023; LPCT paper Sec. 7, card docs/methods/lpct.md 7.5)"
        } else {
            "logistic regression: public warm start, then one SGD pass with PrivUnitG-privatized private gradients, per tensor (Lowy et al. 2023; LPCT paper Sec. 7, card docs/methods/lpct.md 7.5)"
        }
    }
    fn params(&self) -> &[ParamDecl] {
        if self.hidden {
            PARAMS_N
        } else {
            PARAMS_L
        }
    }
    builtin! { [Classification], LocalPublicData }
    fn privacy_notes(&self) -> Vec<String> {
        let k = self.n_tensors();
        vec![format!(
            "under epsilon_split: per_tensor (the default, as the authors' code) each of its {k} parameter tensors is privatized with the full epsilon, so a private user's release is {k}*epsilon-LDP, not epsilon-LDP (epsilon_split: split spends epsilon/{k} per tensor); PrivUnitG caps epsilon at 20 per tensor as the code does"
        )]
    }
    /// The warm start's [`WARM_START_STEPS`] full-batch gradients (two n×d×H products
    /// each, shared by the unit's tasks), then per task one pass whose every user draws
    /// PrivUnitG releases of its (d + 1)(H + 1) gradient entries.
    fn unit_cost(&self, structural: &Params, n: usize, d: usize, tasks: usize) -> f64 {
        let width = (d as f64 + 1.0) * (self.width(structural, d).unwrap_or(0) as f64 + 1.0);
        n as f64 * width * (4.0 * WARM_START_STEPS as f64 + 10.0 * tasks as f64)
    }
    fn prepare(
        &self,
        data: &RepData,
        structural: &Params,
        rng: &mut Pcg64,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let d = data.private.d();
        let init = Model::init(d, self.width(structural, d), rng);
        let public = &data.public.x;
        Ok(Some(Box::new(PreparedPsgd {
            private: {
                let users = data.private.escape(Escape::UserRelease);
                (users.x.clone(), users.y.clone())
            },
            public: (public.clone(), data.public.y.clone()),
            test: data.test.x.clone(),
            init,
            warm: Mutex::new(Vec::new()),
        })))
    }
}

/// The PrivUnitG budget of one tensor's release: ε under `per_tensor`, ε/#tensors under
/// `split`.
fn tensor_epsilon(split: &str, epsilon: f64, tensors: usize) -> Result<f64, MethodError> {
    let eps = Budget::new(epsilon)?.epsilon();
    Ok(match split {
        "split" => eps / tensors as f64,
        _ => eps,
    })
}

impl Prepared for PreparedPsgd {
    /// Warm start for η (cached), then the pass with the users' stream `rng` at ε.
    fn predict(
        &self,
        mechanism: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = super::required_epsilon("PSGD", epsilon)?;
        let eta = mechanism.f64("eta");
        let warm = self.warm(eta);
        let eps_t = tensor_epsilon(
            mechanism.str("epsilon_split"),
            epsilon,
            warm.tensors().len(),
        )?;
        let priv_unit = PrivUnitGParams::new(eps_t)?;
        let model = private_pass(
            &warm,
            (&self.private.0, &self.private.1),
            (&self.public.0, &self.public.1),
            eta,
            &priv_unit,
            rng,
        );
        Ok(model.predict(&self.test))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The mean BCE loss at `m` over rows of `x` (for finite differences).
    fn loss(m: &Model, x: &Matrix, y: &[f64]) -> f64 {
        let mut pre = vec![0.0; m.hidden.unwrap_or(0)];
        (0..x.n)
            .map(|i| {
                let p = sigmoid(m.logit(x.row(i), &mut pre));
                -(y[i] * p.ln() + (1.0 - y[i]) * (1.0 - p).ln())
            })
            .sum::<f64>()
            / x.n as f64
    }

    fn toy() -> (Matrix, Vec<f64>) {
        let x = Matrix::new(
            4,
            3,
            vec![0.1, 0.9, 0.3, 0.7, 0.2, 0.5, 0.4, 0.4, 0.8, 0.95, 0.6, 0.1],
        );
        (x, vec![0.0, 1.0, 1.0, 0.0])
    }

    #[test]
    fn gradients_match_finite_differences_and_the_batch_is_the_mean() {
        let (x, y) = toy();
        for hidden in [None, Some(5)] {
            let m = Model::init(3, hidden, &mut Pcg64::seed_from_u64(1));
            assert_eq!(m.params.len(), Model::len_for(3, hidden));
            let tensors = m.tensors();
            assert_eq!(tensors.last().unwrap().end, m.params.len());
            let g = m.batch_gradient(&x, &y);
            // Mean of the point gradients.
            let mut mean = vec![0.0; m.params.len()];
            let mut pg = vec![0.0; m.params.len()];
            let mut pre = vec![0.0; hidden.unwrap_or(0)];
            for (i, &yi) in y.iter().enumerate() {
                m.point_gradient(x.row(i), yi, &mut pg, &mut pre);
                for (a, b) in mean.iter_mut().zip(&pg) {
                    *a += b / x.n as f64;
                }
            }
            for k in 0..m.params.len() {
                assert!((g[k] - mean[k]).abs() < 1e-12, "{hidden:?} {k}");
                // Central differences (step 1e-6: error O(1e-12) here; ReLU kinks are not
                // hit by these random weights at these points).
                let mut plus = m.clone();
                plus.params[k] += 1e-6;
                let mut minus = m.clone();
                minus.params[k] -= 1e-6;
                let fd = (loss(&plus, &x, &y) - loss(&minus, &x, &y)) / 2e-6;
                assert!((g[k] - fd).abs() < 1e-7, "{hidden:?} {k}: {} vs {fd}", g[k]);
            }
        }
    }

    /// The full-batch gradient as textbook nalgebra products on a column-major copy (the
    /// implementation before the fused pass): the oracle of the bit-identity test.
    fn nalgebra_batch_gradient(m: &Model, x: &Matrix, y: &[f64]) -> Vec<f64> {
        use nalgebra::{DMatrix, DVector};
        let x = DMatrix::from_row_slice(x.n, x.d, &x.data);
        let (n, d) = (x.nrows(), m.d);
        let mut grad = vec![0.0; m.params.len()];
        let scale = 1.0 / n as f64;
        let dz_of = |logits: &DVector<f64>, b: f64| {
            DVector::from_iterator(
                n,
                logits
                    .iter()
                    .zip(y)
                    .map(|(o, yi)| scale * logit_gradient(sigmoid(o + b), *yi)),
            )
        };
        match m.hidden {
            None => {
                let dz = dz_of(
                    &(&x * DVector::from_column_slice(&m.params[..d])),
                    m.params[d],
                );
                grad[..d].copy_from_slice((x.transpose() * &dz).as_slice());
                grad[d] = dz.sum();
            }
            Some(h) => {
                let w1 = h * d;
                let w1m = DMatrix::from_row_slice(h, d, &m.params[..w1]);
                let w2 = &m.params[w1 + h..w1 + 2 * h];
                let mut a = &x * w1m.transpose();
                for (j, mut col) in a.column_iter_mut().enumerate() {
                    col.add_scalar_mut(m.params[w1 + j]);
                }
                let relu = a.map(|v| v.max(0.0));
                let dz = dz_of(
                    &(&relu * DVector::from_column_slice(w2)),
                    m.params[w1 + 2 * h],
                );
                let mut dh = a;
                for (j, mut col) in dh.column_iter_mut().enumerate() {
                    for (i, v) in col.iter_mut().enumerate() {
                        *v = if *v > 0.0 { dz[i] * w2[j] } else { 0.0 };
                    }
                }
                let dw1 = dh.transpose() * &x;
                for j in 0..h {
                    for k in 0..d {
                        grad[j * d + k] = dw1[(j, k)];
                    }
                    grad[w1 + j] = dh.column(j).sum();
                }
                grad[w1 + h..w1 + 2 * h].copy_from_slice((relu.transpose() * &dz).as_slice());
                grad[w1 + 2 * h] = dz.sum();
            }
        }
        grad
    }

    /// Whether `got` is within a relative `1e-12` of `want` (in the largest entry's
    /// scale), the tolerance of the decision that let PSGD's products take a GEMM of
    /// another summation order: a sum of at most 3,079 rows reordered moves by at most
    /// (n − 1)·2⁻⁵³ ≈ 3.4·10⁻¹³ of the sum of its terms' magnitudes.
    fn close(got: &[f64], want: &[f64]) -> bool {
        let scale = want
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| (g - w).abs() <= 1e-12 * scale)
    }

    /// The fused pass with faer's products gives the textbook nalgebra products' gradient
    /// within a relative 10⁻¹², on shapes with one block and several, a short last block
    /// and PSGD-N's Census shape (d = 46, H = 92), and so does a warm start of five steps;
    /// a gradient moved by 10⁻¹⁰ fails the check (seen red).
    #[test]
    fn batch_gradient_matches_the_textbook_products() {
        let mut rng = Pcg64::seed_from_u64(7);
        for (n, d, hidden) in [
            (1, 1, None),
            (4, 3, Some(5)),
            (9, 7, Some(3)),
            (9, 3, Some(8)),
            (40, 8, None),
            (40, 8, Some(4)),
            (300, 7, Some(7)),
            (700, 12, Some(24)),
            (700, 46, Some(92)),
            (2 * ROW_BLOCK + 3, 8, Some(6)),
            (2 * ROW_BLOCK + 300, 9, Some(3)),
            (3 * ROW_BLOCK + 7, 12, Some(10)),
        ] {
            let x = Matrix::new(n, d, (0..n * d).map(|_| rng.gen_range(-1.0..1.0)).collect());
            let y: Vec<f64> = (0..n)
                .map(|_| f64::from(u8::from(rng.gen_bool(0.4))))
                .collect();
            let m = Model::init(d, hidden, &mut rng);
            let want = nalgebra_batch_gradient(&m, &x, &y);
            let got = m.batch_gradient(&x, &y);
            assert!(close(&got, &want), "{n}x{d} {hidden:?}");
            let mut moved = got.clone();
            let k = moved.len() / 2;
            moved[k] += 1e-10 * want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            assert!(!close(&moved, &want), "the check is seen to fail");
            // A warm start of the textbook products against the fused one.
            let mut slow = m.clone();
            for _ in 0..5 {
                let g = nalgebra_batch_gradient(&slow, &x, &y);
                step(&mut slow.params, &g, 0.5);
            }
            let mut fast = m.clone();
            let mut batch = Batch::new(&x, &y);
            let mut g = vec![0.0; m.params.len()];
            for _ in 0..5 {
                fast.batch_gradient_into(&mut batch, &mut g);
                step(&mut fast.params, &g, 0.5);
            }
            assert!(
                close(&fast.params, &slow.params),
                "{n}x{d} {hidden:?} steps"
            );
        }
    }

    #[test]
    fn row_blocks_cover_the_rows_in_order() {
        for n in [1, 5, 6, ROW_BLOCK - 1, ROW_BLOCK, ROW_BLOCK + 5, 5000] {
            let blocks: Vec<_> = row_blocks(n).collect();
            assert_eq!(blocks.first().unwrap().start, 0);
            assert_eq!(blocks.last().unwrap().end, n);
            for (b, pair) in blocks.windows(2).enumerate() {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(pair[0].len(), ROW_BLOCK, "block {b} of {n}");
            }
        }
    }

    #[test]
    fn init_is_uniform_within_the_fan_in_bounds() {
        let m = Model::init(4, Some(9), &mut Pcg64::seed_from_u64(2));
        let t = m.tensors();
        for k in t[0].start..t[1].end {
            assert!(m.params[k].abs() < 0.5); // 1/sqrt(4)
        }
        for k in t[2].start..t[3].end {
            assert!(m.params[k].abs() < 1.0 / 3.0); // 1/sqrt(9)
        }
        assert_eq!(t.iter().map(|r| r.len()).collect::<Vec<_>>(), [36, 9, 9, 1]);
    }

    #[test]
    fn saturated_sigmoid_gradient_follows_pytorch() {
        assert_eq!(logit_gradient(0.25, 1.0), -0.75);
        // p = 1 exactly: PyTorch's clamp gives 0 gradient, not p − y.
        assert_eq!(logit_gradient(1.0, 0.0), 0.0);
    }
}
