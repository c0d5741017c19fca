//! The budget split of a DiPriMe forest (card docs/methods/diprime.md §3.2, §3.9, §3.11).

use serde::{Deserialize, Serialize};

/// Which rows each tree of a forest is grown on (card §3.9, the `partition` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TreeRows {
    /// Disjoint, nearly equal random shares (partition = True): each tree gets ε
    /// (parallel composition).
    Disjoint,
    /// Every tree on all training rows (partition = False): each tree gets ε / N_T
    /// (sequential composition).
    All,
}

/// The privacy guarantee a DiPriMe forest is run under (the `privacy`
/// parameter of a `forest` composition).
///
/// * [`Privacy::AsPublished`] (default): the paper's mechanism as the `mode` and quirk
///   parameters set it. It reads exact node counts in the clear (leaf scale W/(n ε_ℓ), the
///   empty-leaf branch), takes root ranges from private rows, and under add-one neighbours
///   the shuffle-then-cut tree shares move rows between trees (card §3.11).
/// * [`Privacy::Dp`]: ε-DP under add/remove and under replace-one neighbours. Leaves release
///   a noisy sum and a noisy count (ε_ℓ/2 each) whose law does not depend on whether the
///   leaf is empty; medians are scored with sensitivity 2 (replace-one moves
///   |n_L − n_R| by 2) and the K candidates of a node share ε_s; continuous medians are drawn
///   by the exponential mechanism (permute-and-flip over a continuum has no DP analysis,
///   card §3.4); the attribute choice scores the within-child sum of squares with its
///   sensitivity 4B∞² (no node count); a row's tree is a function of its own content;
///   root ranges come from the test rows, never from the private training rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Privacy {
    /// The paper's mechanism.
    #[default]
    AsPublished,
    /// The ε-DP mode.
    Dp,
}

/// The sensitivity of a median's score −|n_L − n_R| the draw is calibrated to: 1 as
/// published (add/remove neighbours), 2 in the DP mode (replace-one neighbours too).
pub fn median_score_sensitivity(privacy: Privacy) -> f64 {
    match privacy {
        Privacy::AsPublished => 1.0,
        Privacy::Dp => 2.0,
    }
}

/// How much of a level's split budget the median draw gets when the attribute choice
/// spends nothing (uniform or argmin; card §3.2, §9 item 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MedianBudget {
    /// The reference code: ε_s = ε_lvl / 2 for every variant, so plain DiPriMe leaves half
    /// of its split budget unspent.
    Halved,
    /// The paper: ε_s = ε_lvl when the attribute choice spends nothing.
    Full,
}

/// The per-node budgets of one tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeBudgets {
    /// ε_T of one tree.
    pub per_tree: f64,
    /// ε_s of a median draw.
    pub median: f64,
    /// ε_a of an attribute choice.
    pub attribute: f64,
    /// ε_ℓ of the leaves.
    pub leaf: f64,
}

/// ε_T = ε (disjoint rows) or ε / N_T (all rows); ε_lvl = ρ ε_T / d_max; ε_s = ε_a =
/// ε_lvl / 2, except ε_s = ε_lvl with [`MedianBudget::Full`] when the attribute choice
/// spends nothing; ε_ℓ = (1 − ρ) ε_T. A depth-0 tree has no splits (ε_lvl = 0).
/// A median drawn uniformly (DP-ERT) reads no data and spends nothing of ε_s either.
pub fn node_budgets(
    epsilon: f64,
    rows: TreeRows,
    trees: usize,
    rho: f64,
    depth: usize,
    attribute_spends: bool,
    median_budget: MedianBudget,
) -> NodeBudgets {
    let per_tree = match rows {
        TreeRows::Disjoint => epsilon,
        TreeRows::All => epsilon / trees as f64,
    };
    let level = if depth == 0 {
        0.0
    } else if crate::privacy::mutants::active("diprime-depth-not-divided") {
        // Slip: the split budget of the whole tree spent at every level.
        rho * per_tree
    } else {
        rho * per_tree / depth as f64
    };
    let median = if !attribute_spends && median_budget == MedianBudget::Full {
        level
    } else {
        level / 2.0
    };
    NodeBudgets {
        per_tree,
        median,
        attribute: if attribute_spends { level / 2.0 } else { 0.0 },
        leaf: (1.0 - rho) * per_tree,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diprime_halves_its_median_budget_only_in_reference_mode() {
        // Table 1: ε = 10, ρ = 0.5, d = 4, disjoint: ε_lvl = 1.25.
        let r = node_budgets(
            10.0,
            TreeRows::Disjoint,
            10,
            0.5,
            4,
            false,
            MedianBudget::Halved,
        );
        assert_eq!((r.median, r.attribute, r.leaf), (0.625, 0.0, 5.0));
        let p = node_budgets(
            10.0,
            TreeRows::Disjoint,
            10,
            0.5,
            4,
            false,
            MedianBudget::Full,
        );
        assert_eq!(p.median, 1.25);
        let e = node_budgets(
            10.0,
            TreeRows::Disjoint,
            10,
            0.5,
            4,
            true,
            MedianBudget::Full,
        );
        assert_eq!((e.median, e.attribute), (0.625, 0.625));
        // DP-ERT called with 2ε = 20 on all rows: leaves get ε / N_T = 1.
        let d = node_budgets(20.0, TreeRows::All, 10, 0.5, 7, false, MedianBudget::Halved);
        assert_eq!(d.leaf, 1.0);
    }
}
