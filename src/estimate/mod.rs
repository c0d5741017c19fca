//! From privatized reports to leaf values (docs/architecture.md, `estimate/`): the LPDT ratio
//! estimator (5) with its public-mean fallback, the PHIST / APHIST histogram
//! estimators, and the LPCT classification estimator (LPCT paper eq. 8) with its pruning
//! (LPCT paper §5), and HistOfTree's ratio over candidate cells (docs/methods/histoftree.md §5).

mod candidate_ratio;
mod histogram;
mod lpct;
mod lpct_prune;
mod lpdt;
mod lpdt_fast;
mod lpdt_values;

pub use candidate_ratio::{
    candidate_sums, centred_rr_keep, centred_rr_release, grr_cell_release, ratio_predictions,
    CandidateMechanism, CellSums, GRR_PART, RR_PART,
};
pub use histogram::{
    histogram_predict, HistogramConfig, HistogramMechanism, HISTOGRAM_CELL_PART,
    HISTOGRAM_LABEL_PART,
};
pub use lpct::{lpct_class, lpct_noisy_sums, lpct_predict, public_counts};
pub use lpct_prune::{
    code_walk_order, pooled_sums, prune_paper, prune_reference_v1, second_round_classes, NodeSums,
    PaperPrune, PruneConfig, V1Quirks,
};
pub use lpdt::{
    lpdt_sums, LpdtConfig, LpdtMechanism, LpdtSums, Simulation, LPDT_CELL_PART, LPDT_LABEL_PART,
};
pub use lpdt_fast::lpdt_sums_fast;
pub use lpdt_values::{lpdt_leaf_values, LeafEstimate};

/// The interval [lo, hi] that labels are clipped into before privatization. It must not
/// come from private labels unless an option says so (docs/methods/lpdt.md §8.3 "Label bounds").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelBounds {
    /// Lower bound y_lo.
    pub lo: f64,
    /// Upper bound y_hi ≥ y_lo.
    pub hi: f64,
}

impl LabelBounds {
    /// The range R = y_hi − y_lo.
    pub fn range(&self) -> f64 {
        self.hi - self.lo
    }

    /// The bounds a release works in and the shift subtracted from every label before it
    /// (the curator adds it back): with `centre`, the midpoint c of [lo, hi], so labels lie
    /// in [−R/2, R/2] and a label vector's L1 sensitivity is R instead of 2·max(|lo|, |hi|)
    /// (the `y_center` option of PHIST/APHIST, LPDT paper App. D.1, and of the ratio
    /// estimator over a Laplace label vector, the LPDT code's Laplace estimator, docs/methods/lpdt.md §5);
    /// without it, the bounds themselves and 0.
    pub fn centred(self, centre: bool) -> (LabelBounds, f64) {
        if !centre {
            return (self, 0.0);
        }
        let c = (self.lo + self.hi) / 2.0;
        (
            LabelBounds {
                lo: self.lo - c,
                hi: self.hi - c,
            },
            c,
        )
    }

    /// y clipped into [lo, hi].
    #[inline]
    pub fn clip(&self, y: f64) -> f64 {
        y.clamp(self.lo, self.hi)
    }

    /// The bounds of a label sample (min, max); (0, 0) for an empty sample.
    pub fn of(y: &[f64]) -> LabelBounds {
        if y.is_empty() {
            return LabelBounds { lo: 0.0, hi: 0.0 };
        }
        let lo = y.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = y.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        LabelBounds { lo, hi }
    }
}
