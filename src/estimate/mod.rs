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

/// The label bounds live with the data ([`crate::data::LabelBounds`]): the private rows'
/// release inputs clip into them.
pub use crate::data::LabelBounds;
