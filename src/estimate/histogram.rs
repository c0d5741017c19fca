//! PHIST (Berrett–Györfi–Walk private histogram) and APHIST (Györfi–Kroll adjusted
//! histogram) on a regular grid (LPDT paper App. D.1; docs/methods/lpdt.md §7.3–§7.4).

use super::LabelBounds;
use crate::partition::Grid;
use crate::privacy::ledger::Subjects;
use crate::privacy::{
    laplace_sums, laplace_vector_release, Budget, BudgetError, Domain, LaplaceSums,
};
use rand::RngCore;
use std::collections::HashMap;
use std::hash::Hash;

/// The ledger's part name of the PHIST/APHIST noisy cell indicator W.
pub const HISTOGRAM_CELL_PART: &str = "cell: laplace vector";

/// The ledger's part name of the PHIST/APHIST noisy label vector Z.
pub const HISTOGRAM_LABEL_PART: &str = "label: laplace vector";

/// Parameters of one PHIST / APHIST privatization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramConfig {
    /// Budget ε_cell > 0 of the noisy indicator vector (ε/2 in the paper).
    pub eps_cell: f64,
    /// Budget ε_label > 0 of the noisy label vector y·U (ε/2 in the paper).
    pub eps_label: f64,
    /// Truncation level t: a cell predicts the fallback unless its denominator ≥ t.
    pub t: f64,
    /// Label bounds; private labels are clipped into them.
    pub bounds: LabelBounds,
    /// Denominator weights (w_μ, w_λ): D_j = w_μ·μ̂_j + w_λ·λ_j. PHIST is (1, 0);
    /// APHIST `average` is (½, ½), APHIST `reported_fit` is (1, ½) (docs/methods/lpdt.md §7.4).
    pub weights: (f64, f64),
    /// `y_center` option: shift labels by the midpoint of the bounds, so M_Y = R/2 and a
    /// truncated cell predicts the midpoint; default false (uncentred, M_Y = max|bound|,
    /// truncated cells predict 0, as in the paper).
    pub y_center: bool,
}

/// What every PHIST/APHIST user releases (docs/methods/lpdt.md §7.3): over K cells, the noisy
/// indicator W = U + Lap(b_w)^K and the noisy label vector Z = (clip(y) − shift)·U +
/// Lap(b_z)^K, U the one-hot vector of the user's cell. Used by [`histogram_predict`] for its
/// scales (it draws the per-cell sums of these releases directly) and by the privacy audit
/// (`audit::histogram`) for single releases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramMechanism {
    /// Laplace scale of W: L1 sensitivity 2 (two cells differ) over ε_cell.
    pub b_w: f64,
    /// Laplace scale of Z: L1 sensitivity 2·M_Y over ε_label, M_Y the largest |label −
    /// shift| within the bounds.
    pub b_z: f64,
    /// The label shift: the bounds' midpoint with `y_center`, else 0.
    pub shift: f64,
    /// The label bounds private labels are clipped into.
    pub bounds: LabelBounds,
}

impl HistogramMechanism {
    /// The scales of `cfg`'s release.
    ///
    /// # Errors
    /// When a budget is not finite and > 0.
    pub fn new(cfg: &HistogramConfig) -> Result<Self, BudgetError> {
        let (eps_w, eps_z) = (
            Budget::new(cfg.eps_cell)?.epsilon(),
            Budget::new(cfg.eps_label)?.epsilon(),
        );
        let (centred, shift) = cfg.bounds.centred(cfg.y_center);
        let m_y = centred.lo.abs().max(centred.hi.abs());
        // L1 sensitivity 2 for the one-hot vector and 2·M_Y for y·U, each at its budget.
        Ok(HistogramMechanism {
            b_w: 2.0 / eps_w,
            b_z: 2.0 * m_y / eps_z,
            shift,
            bounds: cfg.bounds,
        })
    }

    /// The domain of W over `cells` cells: a one-hot indicator vector (L1 sensitivity 2,
    /// none with a single cell).
    fn cell_domain(cells: usize) -> Domain {
        Domain::OneHot {
            lo: 1.0,
            hi: 1.0,
            cells,
        }
    }

    /// The domain of Z over `cells` cells: the shifted label (clip(y) − shift) at the
    /// user's cell, L1 sensitivity 2·M_Y (M_Y the largest |label − shift| within the
    /// bounds), the range R with a single cell.
    fn label_domain(&self, cells: usize) -> Domain {
        Domain::OneHot {
            lo: self.bounds.lo - self.shift,
            hi: self.bounds.hi - self.shift,
            cells,
        }
    }

    /// One user's release: writes W into `w` and Z into `z` (both of length K, the user's
    /// cell `cell` < K), coordinate by coordinate, W before Z, from `rng`, each through
    /// [`laplace_vector_release`], which charges `who` each vector once from the scale it
    /// drew with (2/b_w and 2·M_Y/b_z; none and R/b_z with a single cell).
    ///
    /// # Panics
    /// If the lengths differ or `cell` ≥ K.
    pub fn release<R: RngCore + ?Sized>(
        &self,
        cell: usize,
        y: f64,
        (w, z): (&mut [f64], &mut [f64]),
        who: Subjects<'_>,
        rng: &mut R,
    ) {
        assert!(
            w.len() == z.len() && cell < w.len(),
            "cell {cell} of {} cells",
            w.len()
        );
        // Slip: the label vector built from the label as handed in, not clipped.
        let label = if crate::privacy::mutants::active("histogram-label-unclipped") {
            y - self.shift
        } else {
            self.bounds.clip(y) - self.shift
        };
        for (j, wj) in w.iter_mut().enumerate() {
            *wj = f64::from(u8::from(j == cell));
        }
        let cells = w.len();
        laplace_vector_release(
            rng,
            w,
            Self::cell_domain(cells),
            self.b_w,
            HISTOGRAM_CELL_PART,
            who,
        );
        for (j, zj) in z.iter_mut().enumerate() {
            *zj = if j == cell { label } else { 0.0 };
        }
        laplace_vector_release(
            rng,
            z,
            self.label_domain(cells),
            self.b_z,
            HISTOGRAM_LABEL_PART,
            who,
        );
    }

    /// The noise of the per-cell sums of n users' W and Z, which the curator reads: one
    /// [`LaplaceSums`] each, charging every user `0..n` one release of its W and of its Z
    /// over `cells` cells ([`laplace_sums`]; the inputs of Z are the users' shifted labels
    /// `labels`, so a label outside the bounds is charged for what it spans).
    pub fn sums<I: IntoIterator<Item = f64>>(
        &self,
        cells: usize,
        labels: impl FnOnce() -> I,
        n: usize,
    ) -> (LaplaceSums, LaplaceSums) {
        let w = laplace_sums(
            Self::cell_domain(cells),
            n,
            || std::iter::repeat_n(1.0, n),
            self.b_w,
            HISTOGRAM_CELL_PART,
            0,
        );
        let z = laplace_sums(
            self.label_domain(cells),
            n,
            labels,
            self.b_z,
            HISTOGRAM_LABEL_PART,
            0,
        );
        (w, z)
    }
}

/// Simulates every private user's PHIST/APHIST release on `grid` and predicts `test`
/// points (given by their grid cells).
///
/// User i releases W_i = U_i + Lap(4/ε)^K and Z_i = y_i·U_i + Lap(4M_Y/ε)^K (lpdt.md
/// §7.3). The curator only uses per-cell sums, so the noise of cell j is drawn as one
/// exact sum of n Laplace draws ([`HistogramMechanism::sums`], which charges the n users),
/// lazily and only for the cells that test points fall in, in the order test points first
/// hit them. μ̂_j = ΣW_ij/n,
/// ν̂_j = ΣZ_ij/n, D_j = w_μ μ̂_j + w_λ λ_j and m̂ = ν̂_j/D_j when D_j ≥ t, else 0 (the
/// midpoint with `y_center`).
///
/// * `private_cells`, `y`: length n, grid cell and label of every private user.
/// * `test_cells`: cells of the test points; returns one prediction per test point.
///
/// Cells are keys of any type `K` that identifies them: the mixed-radix index
/// ([`Grid::cell_of`]) or the per-axis bins ([`Grid::cell_key`], any d, never m^d of
/// anything). Only the cells the test points hit get noise, so the result, and the draws
/// taken from `rng`, do not depend on the key type: this is exact in law for what the
/// curator reads, since the per-cell noise sums are independent across cells.
///
/// # Errors
/// When a budget is ≤ 0.
pub fn histogram_predict<K: Hash + Eq + Clone, R: RngCore + ?Sized>(
    grid: &Grid,
    private_cells: &[K],
    y: &[f64],
    test_cells: &[K],
    cfg: &HistogramConfig,
    rng: &mut R,
) -> Result<Vec<f64>, BudgetError> {
    let mech = HistogramMechanism::new(cfg)?;
    let (n, shift) = (y.len(), mech.shift);
    let mut counts: HashMap<&K, (f64, f64)> = HashMap::new();
    for (c, &yi) in private_cells.iter().zip(y) {
        let e = counts.entry(c).or_insert((0.0, 0.0));
        e.0 += 1.0;
        e.1 += cfg.bounds.clip(yi) - shift;
    }
    // The per-cell noise sums below stand for the n users' whole vectors W_i and Z_i
    // (every user releases every cell's coordinate): each user is charged one release of
    // each, at the scales the sums are drawn with.
    let cells = if grid.m > 1 && grid.d > 0 { 2 } else { 1 };
    let (w_noise, z_noise) =
        mech.sums(cells, || y.iter().map(|&yi| cfg.bounds.clip(yi) - shift), n);
    let volume = grid.volume();
    let mut estimates: HashMap<&K, f64> = HashMap::new();
    let mut out = Vec::with_capacity(test_cells.len());
    for c in test_cells {
        let value = *estimates.entry(c).or_insert_with(|| {
            let (cnt, sy) = counts.get(c).copied().unwrap_or((0.0, 0.0));
            let mu = (cnt + w_noise.draw(rng)) / n as f64;
            let nu = (sy + z_noise.draw(rng)) / n as f64;
            let denom = cfg.weights.0 * mu + cfg.weights.1 * volume;
            if denom >= cfg.t && denom > 0.0 {
                nu / denom + shift
            } else {
                shift
            }
        });
        out.push(value);
    }
    Ok(out)
}
