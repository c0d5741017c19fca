//! The regular grid of PHIST / APHIST (method card docs/methods/lpdt.md §7.3 and §7.4): m = 1/h bins per
//! axis on [0,1]^d, K = m^d cells of volume m^{−d}.

/// A regular grid with `m` bins per axis on [0,1]^d (docs/methods/lpdt.md §7.3).
///
/// Cells are numbered in mixed radix m with the *first* feature most significant (C /
/// row-major order, like `numpy.ravel_multi_index`): cell (b_0, …, b_{d−1}) has index
/// ((b_0·m + b_1)·m + …)·m + b_{d−1}.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Bins per axis, m = 1/h; must be ≥ 1 ([`Grid::bin`] and [`Grid::cell_of`] panic on 0).
    pub m: usize,
    /// Number of features d.
    pub d: usize,
}

/// The grid's cell indices ([`Grid::cell_of`]) as a partition built without data: every
/// user's cell is a release input of PHIST/APHIST (LPDT paper App. D.1).
impl crate::data::PublicPartition for Grid {
    type Cell = u64;
    fn cells_of(&self, x: &crate::data::Matrix) -> Vec<u64> {
        (0..x.n).map(|i| self.cell_of(x.row(i))).collect()
    }
}

/// The same grid with each cell named by its per-axis bins ([`Grid::cell_key`], PHIST's
/// `cells: sparse`): the same partition, for any d.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SparseGrid(pub Grid);

impl crate::data::PublicPartition for SparseGrid {
    type Cell = Vec<u32>;
    fn cells_of(&self, x: &crate::data::Matrix) -> Vec<Vec<u32>> {
        (0..x.n).map(|i| self.0.cell_key(x.row(i))).collect()
    }
}

impl Grid {
    /// Bin of one coordinate: min(⌊m·v⌋, m−1), and 0 when m·v < 0 (or v is NaN).
    #[inline]
    pub fn bin(&self, v: f64) -> usize {
        let f = (self.m as f64 * v).floor();
        if f >= (self.m - 1) as f64 {
            self.m - 1
        } else if f > 0.0 {
            f as usize
        } else {
            0
        }
    }

    /// Cell index of `x` (length d): the mixed-radix index of the per-coordinate bins
    /// min(⌊m·x_k⌋, m−1) clamped at 0 below (docs/methods/lpdt.md §7.3). So x_k = 1 falls in the last
    /// bin, x_k < 0 in bin 0, x_k > 1 in the last bin.
    ///
    /// # Panics
    /// If `x.len() != d`, or if the index overflows `u64` (only possible when
    /// [`Grid::n_cells`] is `None`).
    pub fn cell_of(&self, x: &[f64]) -> u64 {
        assert_eq!(x.len(), self.d, "Grid::cell_of: x must have length d");
        let m = self.m as u64;
        x.iter().fold(0u64, |acc, &v| {
            acc.checked_mul(m)
                .and_then(|a| a.checked_add(self.bin(v) as u64))
                .expect("Grid::cell_of: m^d overflows u64")
        })
    }

    /// The cell of `x` (length d) as its per-axis bins [`Grid::bin`], for any d (PHIST's
    /// `cells: sparse`): two points share a cell exactly when they share
    /// [`Grid::cell_of`], without ever forming m^d.
    ///
    /// # Panics
    /// If `x.len() != d` or m > 2^32.
    pub fn cell_key(&self, x: &[f64]) -> Vec<u32> {
        assert_eq!(x.len(), self.d, "Grid::cell_key: x must have length d");
        assert!(
            u32::try_from(self.m).is_ok(),
            "Grid::cell_key: m fits in u32"
        );
        x.iter().map(|&v| self.bin(v) as u32).collect()
    }

    /// Number of cells K = m^d, or `None` if it overflows `u64`.
    pub fn n_cells(&self) -> Option<u64> {
        let d = u32::try_from(self.d).ok()?;
        (self.m as u64).checked_pow(d)
    }

    /// Volume of a cell, λ = m^{−d} (docs/methods/lpdt.md §7.3; the APHIST denominator, §7.4).
    pub fn volume(&self) -> f64 {
        match self.n_cells() {
            // 1/K is correctly rounded when K is exact in f64.
            Some(k) if k <= 1 << 53 => 1.0 / k as f64,
            _ => (self.m as f64).powf(-(self.d as f64)),
        }
    }
}

/// The memory rule of docs/methods/lpdt.md §7.3 for PHIST / APHIST with m bins per axis in d
/// dimensions: m = 1 is always allowed; otherwise the grid is refused when
/// d·ln m > 30·ln 2 (more than 2^30 cells, [LPCT-code]'s cap) or d > 21 (the paper uses
/// only h = 1 for d > 21). m = 0 is never allowed.
///
/// The cell cap is checked in integers (m^d > 2^30), so the boundary m^d = 2^30 (e.g.
/// m = 4, d = 15) is allowed exactly.
pub fn grid_allowed(m: usize, d: usize) -> bool {
    const CAP: u64 = 1 << 30;
    match m {
        0 => false,
        1 => true,
        _ => {
            d <= 21
                && u32::try_from(d)
                    .ok()
                    .and_then(|d| (m as u64).checked_pow(d))
                    .is_some_and(|k| k <= CAP)
        }
    }
}
