//! PHIST and APHIST (LPDT paper App. D.1; lpdt.md §7.3–§7.4).

use super::{Method, MethodError, ParamDecl, ParamKind, Params, Prepared, RepData};
use crate::data::Task;
use crate::estimate::{histogram_predict, HistogramConfig, LabelBounds};
use crate::partition::{grid_allowed, Grid};
use rand_pcg::Pcg64;

/// A private histogram regressor on a regular grid.
pub struct Histogram {
    name: &'static str,
    adjusted: bool,
    description: &'static str,
    params: &'static [ParamDecl],
}

const BINS: ParamDecl = ParamDecl {
    name: "bins",
    structural: true,
    kind: ParamKind::Int { min: 1 },
    default: None,
    doc: "m = 1/h bins per feature on [0,1]^d (grids with d*ln m > 30 ln 2 or d > 21 and m > 1 are skipped, card §7.3)",
};
const T: ParamDecl = ParamDecl {
    name: "t",
    structural: false,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: false,
    },
    default: None,
    doc: "truncation level: a cell whose (estimated) denominator is below t predicts 0",
};
const Y_CENTER: ParamDecl = ParamDecl {
    name: "y_center",
    structural: false,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "shift labels by the midpoint of the label bounds (option; the paper uses raw labels)",
};

/// PHIST: Berrett–Györfi–Walk private histogram.
pub static PHIST: Histogram = Histogram {
    name: "PHIST",
    adjusted: false,
    description: "private histogram regression, Laplace on the cell vector and on y times it (Berrett, Gyorfi & Walk 2021; LPDT paper App. D.1; lpdt.md §7.3)",
    params: &[BINS, T, Y_CENTER],
};

/// APHIST: Györfi–Kroll adjusted private histogram.
pub static APHIST: Histogram = Histogram {
    name: "APHIST",
    adjusted: true,
    description: "adjusted private histogram, denominator mixes the noisy cell mass with the cell volume (Gyorfi & Kroll 2022; LPDT paper App. D.1; lpdt.md §7.4)",
    params: &[
        BINS,
        T,
        ParamDecl {
            name: "weights",
            structural: false,
            kind: ParamKind::Choice(&["average", "reported_fit"]),
            default: Some("average"),
            doc: "denominator weights: average = (mu+lambda)/2 (paper's words), reported_fit = mu + lambda/2 (card §7.4)",
        },
        Y_CENTER,
    ],
};

struct PreparedHistogram {
    grid: Grid,
    private_cells: Vec<u64>,
    test_cells: Vec<u64>,
    y: Vec<f64>,
    bounds: LabelBounds,
    adjusted: bool,
}

impl Method for Histogram {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn params(&self) -> &'static [ParamDecl] {
        self.params
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
        p: &Params,
    ) -> Result<Option<Box<dyn Prepared>>, MethodError> {
        let d = data.private.d();
        let m = p.usize("bins");
        if !grid_allowed(m, d) {
            return Ok(None);
        }
        let grid = Grid { m, d };
        let cells = |x: &crate::data::Matrix| (0..x.n).map(|i| grid.cell_of(x.row(i))).collect();
        Ok(Some(Box::new(PreparedHistogram {
            private_cells: cells(&data.private.x),
            test_cells: cells(&data.test.x),
            grid,
            y: data.private.y.clone(),
            bounds: data.bounds,
            adjusted: self.adjusted,
        })))
    }
}

impl Prepared for PreparedHistogram {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = epsilon.ok_or_else(|| MethodError::Other("PHIST needs an epsilon".into()))?;
        let weights = if !self.adjusted {
            (1.0, 0.0)
        } else if m.str("weights") == "reported_fit" {
            (1.0, 0.5)
        } else {
            (0.5, 0.5)
        };
        let cfg = HistogramConfig {
            epsilon,
            t: m.f64("t"),
            bounds: self.bounds,
            weights,
            y_center: m.bool("y_center"),
        };
        Ok(histogram_predict(
            &self.grid,
            &self.private_cells,
            &self.y,
            &self.test_cells,
            &cfg,
            rng,
        )?)
    }
}
