//! The parameter declarations the blocks of a composition share (structural, release and
//! curator parameters of docs/methods/lpdt.md, docs/methods/lpct.md and the LPDT paper
//! App. D.1). Below every block kind: `params.rs` picks them for a composition, and
//! `semi_feature.rs` declares some of them too.

use crate::methods::{ParamDecl, ParamKind, ParamRole};

const fn int(
    name: &'static str,
    min: i64,
    default: Option<&'static str>,
    structural: bool,
    doc: &'static str,
) -> ParamDecl {
    ParamDecl {
        name,
        role: if structural {
            ParamRole::Structural
        } else {
            ParamRole::Release
        },
        kind: ParamKind::Int { min },
        default,
        doc,
    }
}

pub(super) const DEPTH: ParamDecl = int("depth", 0, None, true, "maximum depth s of the partition");
pub(super) const MIN_LEAF: ParamDecl = int(
    "min_leaf",
    1,
    None,
    true,
    "n_l, minimum number of points of the growing sample in each child of a split",
);
pub(super) const MSS: ParamDecl = int(
    "min_samples_split",
    1,
    Some("2"),
    true,
    "a node with <= this many points (or distinct rows) is a leaf (the authors' code's default is 2)",
);
pub(super) const MSS_LPCT: ParamDecl = int(
    "min_samples_split",
    0,
    Some("1"),
    true,
    "m_s: a node with <= this many public points (or distinct rows) is a leaf (LPCT's code uses 1, docs/methods/lpct.md §2.1)",
);
pub(super) const P_MIN: ParamDecl = int(
    "p_min",
    0,
    Some("1"),
    true,
    "p_min: the pruning walk stops at this depth (reference_v1), or the flag's second round uses a depth-p_min partition (paper); real data in LPCT's code: p0 = depth = 2, p_min = 1 (docs/methods/lpct.md §5.4)",
);
pub(super) const PRUNE: ParamDecl = ParamDecl {
    name: "prune",
    role: ParamRole::Release,
    kind: ParamKind::Choice(&["reference_v1", "reference_v1_as_coded", "paper"]),
    default: Some("reference_v1"),
    doc: "reference_v1: one round with the full epsilon and the code's statistic, which produced the LPCT paper's numbers (docs/methods/lpct.md §5.4), every node at its true depth and evaluated once; reference_v1_as_coded: the same with the V1 code's walk state (quirks Q1, Q2 and the pooled sums of adopted nodes: heights counted from the first leaf that reaches a node and a walk of at least one step, lambda* kept on revisits, a finished leaf's adopted node summed into ancestors built later); paper: Algorithm 2, epsilon/2 + epsilon/2 with the flag's second round (§5.2)",
};
pub(super) const LAMBDA: ParamDecl = ParamDecl {
    name: "lambda",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: None,
    doc: "weight of the public counts in (V + lambda V_Q)/(U + lambda U_Q) (LPCT paper eq. 8); 0 = private only (LPCT-P, LPDT)",
};
pub(super) const SEARCH: ParamDecl = int(
    "search_number",
    1,
    Some("10"),
    true,
    "number of quantile threshold candidates per feature for the CART split search on public data",
);
pub(super) const MAX_DEPTH: ParamDecl = int(
    "max_depth",
    0,
    None,
    true,
    "maximum depth of the CART tree (sklearn DecisionTreeRegressor defaults otherwise)",
);
pub(super) const MIN_SAMPLES_LEAF: ParamDecl = int(
    "min_samples_leaf",
    1,
    Some("1"),
    true,
    "sklearn's min_samples_leaf of the CART (partition option min_samples_leaf; 1 = sklearn's default)",
);
pub(super) const CELLS: ParamDecl = ParamDecl {
    name: "cells",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["capped", "sparse"]),
    default: Some("capped"),
    doc: "capped: grids over the memory rule (bins > 1 with d > 21 or more than 2^30 cells) are skipped (LPDT paper App. D.1); sparse: cells keyed by their per-axis bins, any d, noise drawn only for the cells test points fall in (exact in law for what the curator reads; HistOfTree card §8)",
};
pub(super) const BINS: ParamDecl = int("bins", 1, None, true, "m = 1/h bins per feature on [0,1]^d (grids with d*ln m > 30 ln 2 or d > 21 and m > 1 are skipped: the memory limit of LPDT paper App. D.1)");
pub(super) const DELTA: ParamDecl = ParamDecl {
    name: "delta",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1.0,
        open: false,
    },
    default: None,
    doc: "share of public points in the mixed partition set (grown_on: mixture; LPDT paper §4.3, Fig. 5)",
};
pub(super) const PRIVATE_SHARE: ParamDecl = ParamDecl {
    name: "private_share",
    role: ParamRole::Structural,
    kind: ParamKind::Float { lo: 0.0, hi: 1.0, open: false },
    default: Some("1"),
    doc: "share delta of the private users the fit uses (the first ceil(delta*n) of the repetition's random order)",
};
pub(super) const RHO: ParamDecl = ParamDecl {
    name: "rho",
    role: ParamRole::Release,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: 1.0,
        open: true,
    },
    default: Some("0.5"),
    doc: "share of epsilon for the cell mechanism; the label gets 1 - rho",
};
pub(super) const SIMULATION: ParamDecl = ParamDecl {
    name: "simulation",
    role: ParamRole::Release,
    kind: ParamKind::Choice(crate::estimate::Simulation::NAMES),
    default: Some("fast"),
    doc: "how the users' LPDT releases are simulated, the same law either way: fast (per leaf, the users' bit flips drawn 64 at a time; exact in distribution for the curator's sums, see estimate/lpdt_fast.rs) or per_user (every user's bit vector drawn as the user would, one draw per user and leaf; for audits)",
};
pub(super) const TAU: ParamDecl = ParamDecl {
    name: "tau",
    role: ParamRole::Curator,
    kind: ParamKind::Float { lo: 0.0, hi: f64::INFINITY, open: false },
    default: Some("0"),
    doc: "fallback threshold: a leaf takes its public mean when its debiased count <= tau*n (the paper's estimator, eq. (5), falls back only at 0: tau = 0)",
};
pub(super) const OOD: ParamDecl = ParamDecl {
    name: "ood",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["zero", "route"]),
    default: Some("zero"),
    doc: "test points outside [0,1]^d: zero (paper) or route by thresholds (the authors' code)",
};
pub(super) const T: ParamDecl = ParamDecl {
    name: "t",
    role: ParamRole::Curator,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: false,
    },
    default: None,
    doc: "truncation level: a cell whose (estimated) denominator is below t predicts 0",
};
pub(super) const WEIGHTS: ParamDecl = ParamDecl {
    name: "weights",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["average", "reported_fit"]),
    default: Some("average"),
    doc: "denominator weights: average = (mu+lambda)/2 (paper's words), reported_fit = mu + lambda/2 (fits the reported APHIST; LPDT paper App. D.1)",
};
pub(super) const Y_CENTER: ParamDecl = ParamDecl {
    name: "y_center",
    role: ParamRole::Release,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "shift labels by the midpoint of the label bounds (option; the paper uses raw labels)",
};
