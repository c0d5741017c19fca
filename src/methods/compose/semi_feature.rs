//! HistOfTree and AdHistOfTree as compositions (method card docs/methods/histoftree.md §4–§7; the
//! semi-feature model of docs/architecture.md "Privacy models"): `partition: {rule: histogram_x_tree,
//! tree: max_edge | cart, grown_on: released, shape: fixed | adaptive}`, a cell mechanism
//! over each user's candidate cells (`generalized_rr`, eq. (17), or `randomized_response`,
//! eq. (8)), `label_mechanism: laplace`, `estimator: ratio`, `budget: rho`.
//!
//! Round 1: every user releases its public coordinates and Ỹ_i = Y_i + Lap(R/ε_Y). The
//! T-tree is grown on these releases (`partition::masked_tree`), the histogram is fixed.
//! Round 2: every user releases its cell through the cell mechanism over its candidate
//! set, a function of its public coordinates only (`partition::hist_tree`). The curator's
//! estimator is `estimate::candidate_ratio`. This file wires; it does not compute.
//!
//! Noise seeding (results identical for any thread count): `prepare` draws a label seed
//! from its partition stream; Ỹ at (ρ, ε) comes from a stream of that seed and (ρ, ε) only,
//! so grid points differing in depth, bins or curator parameters share Ỹ and the T-tree
//! grown on it. The deepest tree is grown once per (s, ρ, ε) and cached (depth p is its
//! prefix, `truncate`); the cell release draws from the runner's release stream.

use super::decls::{MSS, RHO, SEARCH, TAU};
use super::{
    BudgetBlock, CellMechanism, Composition, EstimatorBlock, GrownOn, LabelMechanism, Rule,
    SemiShape, SemiTree,
};
use crate::data::PrivacyMask;
use crate::data::{Escape, Matrix};
use crate::estimate::{candidate_sums, ratio_predictions, CandidateMechanism, LabelBounds};
use crate::methods::mask_params::{mask_of, mask_skip_reason, MASK_PARAMS};
use crate::methods::{MethodError, ParamDecl, ParamKind, ParamRole, Params, Prepared, RepData};
use crate::partition::{
    adaptive_shape, leaf_map, masked_cart, masked_max_edge, truncate, CandidateTable, Candidates,
    Cell, HCandidates, HistTree, MaskedGrowth, MaskedTree, Routing, TreeParams,
};
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Depth the T-tree is grown to at least, so every depth of the usual grid (0..8, card §9)
/// is a prefix of one tree; a deeper request regrows (the same tree, deeper).
const GROW_DEPTH: usize = 8;
/// Histograms with more cells cannot be indexed by `Cell::h`.
const MAX_H_CELLS: u64 = 1 << 60;

const S: ParamDecl = ParamDecl {
    name: "s",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 0 },
    default: Some("1"),
    doc: "personalized masks: number of histogram axes, the s most protected features (card §5.2); aligned masks use s = d_p; grid points with s above d are skipped",
};
const ROUTING: ParamDecl = ParamDecl {
    name: "routing",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["compatible", "drop"]),
    default: Some("compatible"),
    doc: "Algorithm 1 [G]: a user private on a split axis goes into both children (compatible) or is dropped from the subtree (drop)",
};
const MIN_LEAF: ParamDecl = ParamDecl {
    name: "min_leaf",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 1 },
    default: Some("1"),
    doc: "n_l: minimum number of eligible users (split feature public) in each child of a T-split [G]",
};
const DEPTH: ParamDecl = ParamDecl {
    name: "depth",
    role: ParamRole::Release,
    kind: ParamKind::Int { min: 0 },
    default: Some("4"),
    doc: "depth p of the T-tree (a release parameter: every depth is a prefix of one tree grown on the same noisy labels)",
};
const BINS: ParamDecl = ParamDecl {
    name: "bins",
    role: ParamRole::Release,
    kind: ParamKind::Int { min: 1 },
    default: Some("2"),
    doc: "b = 1/h bins per histogram axis (card §3.5)",
};
const H_CANDIDATES: ParamDecl = ParamDecl {
    name: "h_candidates",
    role: ParamRole::Release,
    kind: ParamKind::Choice(&["compatible", "all"]),
    default: Some("compatible"),
    doc: "candidate histogram bins [G]: compatible (a public H-coordinate fixes its bin) or all (b^s bins, Lemma B.10's count)",
};
const FALLBACK: ParamDecl = ParamDecl {
    name: "fallback",
    role: ParamRole::Curator,
    kind: ParamKind::Choice(&["global_mean", "leaf_mean"]),
    default: Some("global_mean"),
    doc: "prediction of a cell whose debiased count is <= tau*n [G]: the mean of all noisy labels, or the mean noisy label of the users in the cell's T-leaf",
};
const CLIP: ParamDecl = ParamDecl {
    name: "clip",
    role: ParamRole::Curator,
    kind: ParamKind::Bool,
    default: Some("false"),
    doc: "clip predictions into the label bounds [G]",
};
const C: ParamDecl = ParamDecl {
    name: "c",
    role: ParamRole::Structural,
    kind: ParamKind::Float {
        lo: 0.0,
        hi: f64::INFINITY,
        open: true,
    },
    default: Some("1"),
    doc: "constant C of the variance term of eq. (15) (card §7 [G] grid 0.01, 0.1, 1, 10)",
};
const BINS_OFFSET: ParamDecl = ParamDecl {
    name: "bins_offset",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: -64 },
    default: Some("0"),
    doc: "b = max(1, b* + bins_offset), the neighbourhood of the default bins (card §7 [T/G])",
};
const P_MAX: ParamDecl = ParamDecl {
    name: "p_max",
    role: ParamRole::Structural,
    kind: ParamKind::Int { min: 0 },
    default: Some("8"),
    doc: "largest depth eq. (15) considers [G]",
};
const LOG_N: ParamDecl = ParamDecl {
    name: "log_n",
    role: ParamRole::Structural,
    kind: ParamKind::Bool,
    default: Some("true"),
    doc: "keep log n in the variance term of eq. (15) (false: absorbed in C) [G]",
};
const OBJECTIVE_EPSILON: ParamDecl = ParamDecl {
    name: "objective_epsilon",
    role: ParamRole::Structural,
    kind: ParamKind::Choice(&["total", "cell"]),
    default: Some("total"),
    doc: "the epsilon of eq. (15) [G]: the total epsilon or the cell share rho*epsilon",
};

/// Checks a composition that uses `histogram_x_tree`, `grown_on: released`, `tree` or
/// `shape` (called first by [`Composition::check`]).
///
/// # Errors
/// A sentence naming the block and what would be valid.
pub(super) fn check(c: &Composition) -> Result<(), String> {
    let p = c.partition;
    if p.rule != Rule::HistogramXTree || p.grown_on != GrownOn::Released {
        return Err("the semi-feature partition is `partition: {rule: histogram_x_tree, grown_on: released, tree: max_edge|cart, shape: fixed|adaptive}`: `grown_on: released`, `tree` and `shape` belong to it and it needs all of them".into());
    }
    if p.tree.is_none() {
        return Err("`rule: histogram_x_tree` needs `tree: max_edge` or `tree: cart`".into());
    }
    if !matches!(
        c.cell_mechanism,
        CellMechanism::GeneralizedRr | CellMechanism::RandomizedResponse
    ) {
        return Err("`rule: histogram_x_tree` releases each user's cell over its candidate cells: `cell_mechanism: generalized_rr` (eq. 17) or `randomized_response` (centred bits, eq. 8)".into());
    }
    if c.label_mechanism != LabelMechanism::Laplace {
        return Err("`rule: histogram_x_tree` needs `label_mechanism: laplace` (round 1 releases one noisy label, card §3.1)".into());
    }
    if c.estimator != EstimatorBlock::Ratio {
        return Err("`rule: histogram_x_tree` needs `estimator: ratio` (eq. 9)".into());
    }
    if c.budget != BudgetBlock::default() {
        return Err("`rule: histogram_x_tree` needs `budget: rho` (rho = cell share)".into());
    }
    if c.subsample || c.non_private_users {
        return Err("`rule: histogram_x_tree` works on every private user's releases: `subsample` and `non_private_users` do not apply".into());
    }
    Ok(())
}

/// The parameters, structural first.
pub(super) fn params(c: &Composition) -> Vec<ParamDecl> {
    let p = c.partition;
    let mut out: Vec<ParamDecl> = MASK_PARAMS.to_vec();
    let adaptive = p.shape == Some(SemiShape::Adaptive);
    if adaptive {
        out.extend([C, BINS_OFFSET, P_MAX, LOG_N, OBJECTIVE_EPSILON]);
    } else {
        out.push(S);
    }
    out.extend([ROUTING, MIN_LEAF, MSS]);
    if p.tree == Some(SemiTree::Cart) {
        out.push(SEARCH);
    }
    out.push(RHO);
    if !adaptive {
        out.extend([DEPTH, BINS]);
    }
    out.extend([H_CANDIDATES, TAU, FALLBACK, CLIP]);
    out
}

/// The number of histogram axes of a fixed-shape grid point on `d` features.
fn fixed_s(p: &Params) -> usize {
    match p.str("mask") {
        "aligned" => p.usize("d_p"),
        _ => p.usize("s"),
    }
}

/// The user's round-2 mechanism over its candidate set: centred RR bits for
/// `cell_mechanism: randomized_response` (card eq. (8)), else generalized RR (eq. (17)).
pub fn candidate_mechanism(c: &Composition) -> CandidateMechanism {
    match c.cell_mechanism {
        CellMechanism::RandomizedResponse => CandidateMechanism::CentredRr,
        _ => CandidateMechanism::Grr,
    }
}

/// Why a structural grid point does not apply to `d` features.
pub(super) fn skip_reason(c: &Composition, p: &Params, d: usize) -> Option<String> {
    if let Some(r) = mask_skip_reason(p, d) {
        return Some(r);
    }
    (c.partition.shape != Some(SemiShape::Adaptive) && fixed_s(p) > d)
        .then(|| "s above the data set's d".to_string())
}

/// (ε_U, ε_Y) = (ε_cell, ε_label) of a HistOfTree composition `c` at budget ε and grid
/// point `params` (`budget: rho`: ε_U = ρε, ε_Y = (1 − ρ)ε), as the fit splits it; the audit
/// reads the same split.
///
/// # Errors
/// ε not finite and > 0, or ρ outside (0, 1).
pub fn histoftree_budgets(
    c: &Composition,
    epsilon: f64,
    params: &Params,
) -> Result<(f64, f64), crate::privacy::BudgetError> {
    c.budgets(epsilon, params)
}

/// Round 1 of HistOfTree and AdHistOfTree (card §3.1, LPDT eq. (4) template): every user's
/// noisy label Ỹ_i = clip(y_i) + Lap(R/ε_Y), users 0..y.len() in order from `rng`, with R
/// the range of `bounds` (the domain the label is clipped to: its sensitivity) and
/// ε_Y = `eps_label`. The scale is computed here; the draws and the ledger charge (each
/// user R/scale) are [`crate::methods::pardt::noisy_labels`]'s. The fit and the audit
/// (`audit::semi_feature`) both call it.
pub fn round1_labels<R: rand::Rng + ?Sized>(
    y: &[f64],
    bounds: LabelBounds,
    eps_label: f64,
    rng: &mut R,
) -> Vec<f64> {
    let scale = if crate::privacy::mutants::active("histoftree-label-scale-halved") {
        // Slip: the card's 2M/ε_Y with the half-range M = R/2 read as M/ε_Y.
        bounds.range() / (2.0 * eps_label)
    } else {
        bounds.range() / eps_label
    };
    crate::methods::pardt::noisy_labels(y, bounds, scale, rng)
}

/// Fits what does not depend on ε or the release parameters.
pub(super) fn prepare(
    c: &Composition,
    data: &RepData,
    p: &Params,
    rng: &mut Pcg64,
) -> Result<Option<Box<dyn Prepared>>, MethodError> {
    let d = data.private.d();
    if skip_reason(c, p, d).is_some() {
        return Ok(None);
    }
    let mask = mask_of(data, p)?;
    let ranking = data
        .masks
        .as_ref()
        .map(|m| m.ranking().to_vec())
        .unwrap_or_else(|| (0..d).collect());
    let order = mask.protection_order(&ranking);
    Ok(Some(Box::new(PreparedHistTree {
        composition: c.clone(),
        label_seed: rng.gen(),
        // Each simulated user's releases read its own record: its public coordinates
        // (per the mask) in the clear, its histogram cell through the cell mechanism.
        x: data.private.escape(Escape::UserRelease).x.clone(),
        y: data.private.clipped_labels(data.bounds),
        test: data.test.x.clone(),
        bounds: data.bounds,
        fixed_s: (c.partition.shape != Some(SemiShape::Adaptive)).then(|| fixed_s(p)),
        tree_params: TreeParams {
            depth: GROW_DEPTH,
            min_leaf: p.usize("min_leaf"),
            min_samples_split: p.usize("min_samples_split"),
            threshold: 0.0,
        },
        routing: match p.str("routing") {
            "drop" => Routing::Drop,
            _ => Routing::Compatible,
        },
        search_number: (c.partition.tree == Some(SemiTree::Cart)).then(|| p.usize("search_number")),
        adaptive: (c.partition.shape == Some(SemiShape::Adaptive)).then(|| Adaptive {
            c: p.f64("c"),
            bins_offset: p.get("bins_offset").as_f64().unwrap_or(0.0) as i64,
            p_max: p.usize("p_max"),
            log_n: p.bool("log_n"),
            cell_epsilon: p.str("objective_epsilon") == "cell",
        }),
        mask,
        order,
        grown: Mutex::new(HashMap::new()),
    })))
}

/// The adaptive shape's options.
struct Adaptive {
    c: f64,
    bins_offset: i64,
    p_max: usize,
    log_n: bool,
    cell_epsilon: bool,
}

/// Ỹ and the deepest T-tree at one (s, ρ, ε), with every user's and test point's leaves
/// in it (each depth maps them through [`leaf_map`], without walking the tree again).
struct Grown {
    y_noisy: Vec<f64>,
    /// What drawing Ỹ charged the ledger, charged again to each other recording that
    /// takes this cached Ỹ ([`ledger::replay`](crate::privacy::ledger::replay)).
    charged: crate::privacy::ledger::Captured,
    tree: MaskedTree,
    depth: usize,
    /// Leaf of every private user.
    user_leaf: Vec<usize>,
    /// Compatible leaves of user i: `leaves[leaf_start[i]..leaf_start[i + 1]]`.
    leaf_start: Vec<usize>,
    leaves: Vec<usize>,
    /// Leaf of every test point.
    test_leaf: Vec<usize>,
}

struct PreparedHistTree {
    composition: Composition,
    label_seed: u64,
    x: Matrix,
    /// Labels clipped into the bounds.
    y: Vec<f64>,
    test: Matrix,
    bounds: LabelBounds,
    mask: PrivacyMask,
    /// Protection order (most protected first): H-axes = order[..s].
    order: Vec<usize>,
    fixed_s: Option<usize>,
    tree_params: TreeParams,
    routing: Routing,
    search_number: Option<usize>,
    adaptive: Option<Adaptive>,
    /// (s, ρ bits, ε bits) → Ỹ and the deepest tree.
    grown: Mutex<HashMap<(usize, u64, u64), Arc<Grown>>>,
}

impl PreparedHistTree {
    /// Ỹ and a T-tree of depth ≥ `depth` at (s, ρ, ε), from the cache or grown.
    fn grown(&self, s: usize, (rho, eps, eps_label): (f64, f64, f64), depth: usize) -> Arc<Grown> {
        let key = (s, rho.to_bits(), eps.to_bits());
        let mut cache = self.grown.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = cache.get(&key).filter(|g| g.depth >= depth) {
            crate::privacy::ledger::replay(&g.charged);
            return g.clone();
        }
        // Ỹ depends on the label seed and (ρ, ε) only (shared by every s, depth, bins).
        let mut stream = crate::seeds::stream(
            self.label_seed,
            &["histoftree-labels", &format!("{rho}"), &format!("{eps}")],
        );
        // Round 1 (card §3.1): the users' labels, clipped at preparation, plus Lap(R/ε_Y).
        let (y_noisy, charged) = crate::privacy::ledger::capturing(|| {
            round1_labels(&self.y, self.bounds, eps_label, &mut stream)
        });
        let mut axes: Vec<usize> = self.order[s..].to_vec();
        axes.sort_unstable();
        let g = MaskedGrowth {
            x: &self.x,
            y: &y_noisy,
            mask: &self.mask,
            axes: &axes,
        };
        let tp = TreeParams {
            depth: depth.max(GROW_DEPTH),
            ..self.tree_params
        };
        let tree = match self.search_number {
            Some(sn) => masked_cart(&g, &tp, sn, self.routing),
            None => masked_max_edge(&g, &tp, self.routing),
        };
        // The compatible leaves from public coordinates only (HistTree::candidates with no
        // histogram axes).
        let deep = HistTree {
            h_axes: Vec::new(),
            bins: 1,
            tree: tree.partition.clone(),
        };
        let (mut leaf_start, mut leaves) = (vec![0], Vec::new());
        let (mut c, mut stack) = (Candidates::default(), Vec::new());
        for i in 0..self.x.n {
            deep.candidates_into(
                self.x.row(i),
                self.mask.row(i),
                HCandidates::All,
                &mut c,
                &mut stack,
            );
            leaves.extend_from_slice(&c.leaves);
            leaf_start.push(leaves.len());
        }
        let grown = Arc::new(Grown {
            user_leaf: (0..self.x.n)
                .map(|i| deep.tree.leaf_of(self.x.row(i)))
                .collect(),
            test_leaf: (0..self.test.n)
                .map(|i| deep.tree.leaf_of(self.test.row(i)))
                .collect(),
            leaf_start,
            leaves,
            tree,
            depth: tp.depth,
            y_noisy,
            charged,
        });
        cache.insert(key, grown.clone());
        grown
    }
}

impl Prepared for PreparedHistTree {
    fn predict(
        &self,
        m: &Params,
        epsilon: Option<f64>,
        rng: &mut Pcg64,
    ) -> Result<Vec<f64>, MethodError> {
        let epsilon = crate::methods::required_epsilon("HistOfTree", epsilon)?;
        let c = &self.composition;
        let (eps_cell, eps_label) = histoftree_budgets(c, epsilon, m)?;
        let (s, depth, bins) = match (&self.adaptive, self.fixed_s) {
            (Some(a), _) => {
                let e = if a.cell_epsilon { eps_cell } else { epsilon };
                let sh = adaptive_shape(
                    &self.mask,
                    &self.order,
                    e,
                    a.c,
                    a.p_max,
                    a.log_n,
                    a.bins_offset,
                );
                (sh.s, sh.depth, sh.bins)
            }
            (None, Some(s)) => (s, m.usize("depth"), m.usize("bins")),
            (None, None) => unreachable!("a fixed shape has s"),
        };
        let h_axes = self.order[..s].to_vec();
        if u32::try_from(s)
            .ok()
            .and_then(|s| (bins as u64).checked_pow(s))
            .is_none_or(|k| k > MAX_H_CELLS)
        {
            return Err(MethodError::Other(format!(
                "HistOfTree: bins^s = {bins}^{s} histogram cells exceed the cap 2^60"
            )));
        }
        let grown = self.grown(s, (m.f64("rho"), epsilon, eps_label), depth);
        let tree = truncate(&grown.tree, depth);
        let map = leaf_map(&grown.tree, depth);
        let hist = HistTree {
            h_axes,
            bins,
            tree: tree.partition,
        };
        let compatible = m.str("h_candidates") != "all";
        let mut users = CandidateTable::new(bins, s);
        let mut scratch = Vec::new();
        for i in 0..self.x.n {
            let (x, private) = (self.x.row(i), self.mask.row(i));
            scratch.clear();
            for &l in &grown.leaves[grown.leaf_start[i]..grown.leaf_start[i + 1]] {
                // Deep leaves are ascending and the map non-decreasing: dedup neighbours.
                if scratch.last() != Some(&map[l]) {
                    scratch.push(map[l]);
                }
            }
            let h = hist
                .h_axes
                .iter()
                .map(|&a| (compatible && !private[a]).then(|| hist.bin(x[a])));
            let cell = Cell {
                h: hist.h_of(x),
                leaf: map[grown.user_leaf[i]],
            };
            users.push(cell, h, scratch.iter().copied());
        }
        let test_cells: Vec<Cell> = (0..self.test.n)
            .map(|i| Cell {
                h: hist.h_of(self.test.row(i)),
                leaf: map[grown.test_leaf[i]],
            })
            .collect();
        let mech = candidate_mechanism(c);
        let sums = candidate_sums(&users, &grown.y_noisy, &test_cells, mech, eps_cell, rng);
        let n = grown.y_noisy.len();
        let global = grown.y_noisy.iter().sum::<f64>() / n.max(1) as f64;
        let fallback: Vec<f64> = match m.str("fallback") {
            "leaf_mean" => test_cells
                .iter()
                .map(|c| match hist.tree.leaf_counts[c.leaf] {
                    0 => global,
                    _ => hist.tree.leaf_means[c.leaf],
                })
                .collect(),
            _ => vec![global; test_cells.len()],
        };
        let clip = m.bool("clip").then_some((self.bounds.lo, self.bounds.hi));
        Ok(ratio_predictions(
            &sums,
            m.f64("tau") * n as f64,
            &fallback,
            clip,
        ))
    }
}

/// The ledger of real HistOfTree and AdHistOfTree fits: every private user
/// pays its round-1 label and its round-2 cell, and no more than ε.
#[cfg(test)]
mod ledger_tests {
    use crate::estimate::{candidate_sums, CandidateMechanism, GRR_PART, RR_PART};
    use crate::methods::mask_params::test_support::{point, rep_data};
    use crate::methods::pardt::LABEL_PART;
    use crate::methods::{find, ParamValue};
    use crate::partition::{CandidateTable, Cell};
    use crate::privacy::ledger::{self, LedgerReport};
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    const N: usize = 300;

    /// One real prepare + predict of `name` at `set` and ε on 300 users × 4 features.
    fn fit(name: &str, set: &[(&str, ParamValue)], eps: f64) -> LedgerReport {
        let data = rep_data(N, 40, 4);
        let m = find(name).unwrap();
        let p = point(m.params(), set);
        let (pred, r) = ledger::recording(|| {
            let fit = m
                .prepare(&data, &p, &mut Pcg64::seed_from_u64(1))
                .unwrap()
                .unwrap();
            fit.predict(&p, Some(eps), &mut Pcg64::seed_from_u64(2))
                .unwrap()
        });
        assert_eq!(pred.len(), 40);
        r
    }

    fn s(v: &str) -> ParamValue {
        ParamValue::Str(v.into())
    }

    /// Aligned mask, d_p = 2, 2 bins: every user's candidate set holds the 4 bins of its
    /// two private axes, so every user pays (1 − ρ)ε for the label and ρε for GRR over
    /// its candidates: exactly ε, each part once.
    #[test]
    fn an_aligned_histoftree_fit_charges_every_user_exactly_epsilon() {
        let (eps, rho) = (1.3, 0.35);
        let r = fit(
            "HistOfTree-ME",
            &[
                ("mask", s("aligned")),
                ("d_p", ParamValue::Int(2)),
                ("rho", ParamValue::Float(rho)),
                ("depth", ParamValue::Int(3)),
                ("bins", ParamValue::Int(2)),
            ],
            eps,
        );
        assert_eq!(r.subjects, N);
        assert!((r.max_epsilon - eps).abs() < 1e-9, "{r:?}");
        assert!((r.min_epsilon - eps).abs() < 1e-9, "{r:?}");
        assert_eq!(r.path.len(), 2, "{}", r.path_text());
        let part = |name: &str| r.path.iter().find(|p| p.part == name).unwrap();
        assert_eq!(part(LABEL_PART).calls, 1);
        assert!((part(LABEL_PART).epsilon - (1.0 - rho) * eps).abs() < 1e-9);
        assert_eq!(part(GRR_PART).calls, 1);
        assert!((part(GRR_PART).epsilon - rho * eps).abs() < 1e-9);
        assert!(r.private_quantities.is_empty(), "{r:?}");
    }

    /// A preparation fits several grid points, and the round-1 labels of one (s, ρ, ε)
    /// are drawn once and cached for the others: each fit recorded on top of the
    /// preparation (as the ledger run records them) is still charged the labels it
    /// stands on, as a fresh preparation's fit is, and once.
    #[test]
    fn a_fit_on_cached_round1_labels_is_charged_them() {
        let data = rep_data(N, 40, 4);
        let m = find("HistOfTree-ME").unwrap();
        let at = |bins: i64| {
            point(
                m.params(),
                &[
                    ("mask", s("aligned")),
                    ("d_p", ParamValue::Int(2)),
                    ("rho", ParamValue::Float(0.35)),
                    ("depth", ParamValue::Int(3)),
                    ("bins", ParamValue::Int(bins)),
                ],
            )
        };
        let (fit, start) = ledger::recording_from(&ledger::Recorded::default(), || {
            m.prepare(&data, &at(2), &mut Pcg64::seed_from_u64(1))
                .unwrap()
                .unwrap()
        });
        let mut reports = Vec::new();
        for bins in [2, 3, 2] {
            let (_, r) = ledger::recording_from(&start, || {
                fit.predict(&at(bins), Some(1.3), &mut Pcg64::seed_from_u64(2))
                    .unwrap()
            });
            reports.push(r.report());
        }
        for r in &reports {
            assert_eq!(r.subjects, N);
            assert!((r.max_epsilon - 1.3).abs() < 1e-9, "{}", r.path_text());
            let label = r.path.iter().find(|p| p.part == LABEL_PART).unwrap();
            assert_eq!(label.calls, 1, "{}", r.path_text());
        }
        assert_eq!(reports[0], reports[2]);
    }

    /// Personalized masks (HistOfTree-CART with s = 1, AdHistOfTree-ME): every user pays
    /// its label; the worst user also a cell report over two or more candidates, ε in all;
    /// nobody more.
    #[test]
    fn personalized_and_adaptive_fits_charge_at_most_epsilon_to_every_user() {
        let personalized = [
            ("mask", s("personalized")),
            ("mask_tau", ParamValue::Float(1.0)),
        ];
        let mut hot = personalized.to_vec();
        hot.extend([
            ("s", ParamValue::Int(1)),
            ("rho", ParamValue::Float(0.5)),
            ("depth", ParamValue::Int(4)),
            ("bins", ParamValue::Int(3)),
        ]);
        let mut ad = personalized.to_vec();
        ad.push(("rho", ParamValue::Float(0.65)));
        for (name, set, eps) in [("HistOfTree-CART", hot, 2.0), ("AdHistOfTree-ME", ad, 1.0)] {
            let r = fit(name, &set, eps);
            assert_eq!(r.subjects, N, "{name}");
            assert!((r.max_epsilon - eps).abs() < 1e-9, "{name}: {r:?}");
            assert!(r.min_epsilon > 0.0, "{name}: {r:?}");
            assert!(r.private_quantities.is_empty(), "{name}: {r:?}");
        }
    }

    /// The centred RR bits (eq. (8)): the shortcut draws only the test cells' bits but
    /// charges every user its whole vector once, rr_epsilon(keep, 2) = ε_U, and a user
    /// whose candidate set is one cell nothing; consecutive users charged alike share one
    /// charge (users 0..20 and 20..30: two), where GRR charges each report (30).
    #[test]
    fn centred_rr_bits_charge_each_user_its_whole_vector_once() {
        let mut users = CandidateTable::new(3, 1);
        for i in 0..30u64 {
            // Users 0..20: private H-axis (3 candidates); users 20..30: public (1).
            let h = (i % 3) as usize;
            let any = if i < 20 { None } else { Some(h) };
            users.push(
                Cell {
                    h: h as u64,
                    leaf: 0,
                },
                std::iter::once(any),
                [0].into_iter(),
            );
        }
        let y = vec![0.5; 30];
        let test: Vec<Cell> = (0..3).map(|h| Cell { h, leaf: 0 }).collect();
        for (mech, part, calls) in [
            (CandidateMechanism::CentredRr, RR_PART, 2),
            (CandidateMechanism::Grr, GRR_PART, 30),
        ] {
            let (_, r) = ledger::recording(|| {
                candidate_sums(&users, &y, &test, mech, 0.8, &mut Pcg64::seed_from_u64(5))
            });
            assert_eq!(r.subjects, 30, "{part}");
            assert!((r.max_epsilon - 0.8).abs() < 1e-9, "{part}: {r:?}");
            assert_eq!(r.min_epsilon, 0.0, "{part}");
            assert_eq!(r.calls, calls, "{part}");
            assert_eq!(r.path[0].part, part);
        }
    }
}
