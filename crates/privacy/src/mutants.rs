//! Deliberate privacy slips for the mutation suite (issue 27; `tests/privacy_mutants.rs`),
//! compiled in only with the cargo feature `privacy-mutants` (off by default).
//!
//! A slip is a realistic mistake written at the place it would be made (a scale halved, a
//! share not divided, a parallel composition claimed over overlapping rows), guarded by
//! [`active`]`("name")`. Without the feature [`active`] is the constant `false` and every
//! guarded branch is compiled out; with it, a test switches one slip on at a time with
//! [`switch`] and checks that the privacy audit or the ledger catches it. The names and
//! what each slip does are listed in [`SLIPS`].

/// One deliberate slip.
#[derive(Debug, Clone, Copy)]
pub struct Slip {
    /// Its switch name (kebab-case).
    pub name: &'static str,
    /// What it does and where, in words (the list in docs/audit.md).
    pub what: &'static str,
    /// The spec (path from the repository root) whose audit and ledger must catch it.
    pub spec: &'static str,
}

/// Every slip of the mutation suite.
pub const SLIPS: &[Slip] = &[
    Slip {
        name: "lpct-full-eps-each-vector",
        what: "LPCT's own release code (methods/compose/lpct.rs, lpct_release) gives each of its two Laplace vectors the whole epsilon instead of its share (epsilon/2 each): scales 2/epsilon, the user spends 2 epsilon",
        spec: "specs/ci-lpct.yaml",
    },
    Slip {
        name: "budget-split-full-eps",
        what: "the shared budget function Budget::split (crates/privacy/src/budget.rs) returns the whole epsilon for both parts: LPDT's bits and label each at epsilon, the claimed shares move with it",
        spec: "specs/ci.yaml",
    },
    Slip {
        name: "rr-vector-bits-not-split",
        what: "randomized response on a one-hot vector keeps each bit with probability e^eps/(1+e^eps) instead of e^(eps/2)/(1+e^(eps/2)) (crates/privacy/src/randomized_response.rs, rr_keep_probability): two differing bits spend 2 eps_cell",
        spec: "specs/ci.yaml",
    },
    Slip {
        name: "rho-both-full",
        what: "LPDT's budgets (estimate/lpdt.rs, LpdtMechanism::new) charge rho and 1 - rho both at epsilon: the bits at epsilon and the label at epsilon, 2 epsilon per user",
        spec: "specs/ci.yaml",
    },
    Slip {
        name: "histoftree-label-scale-halved",
        what: "HistOfTree's round-1 label Laplace scale halved where the method computes it (methods/compose/semi_feature.rs round1_labels: R/(2 eps_Y), the half-range M read as the sensitivity)",
        spec: "tests/privacy/histoftree.yaml",
    },
    Slip {
        name: "noisy-label-helper-scale-halved",
        what: "the shared noisy-label helper (methods/pardt.rs noisy_labels_of, used by HistOfTree, ParDT, LabelDT and KRR) draws with half the scale it is given",
        spec: "tests/privacy/histoftree.yaml",
    },
    Slip {
        name: "grr-wrong-categories",
        what: "generalized randomized response (crates/privacy/src/generalized_rr.rs) computes its probabilities for k - 1 categories while drawing among k (HistOfTree's candidate cells, KRR's bins)",
        spec: "tests/privacy/histoftree.yaml",
    },
    Slip {
        name: "diprime-depth-not-divided",
        what: "forest/budget.rs node_budgets: a DiPriMe tree's per-level split budget rho*eps_T not divided by the depth (the code's claims move with it, the DiPriMe paper's budgets the audit holds the forest parts against do not; a row's ledger total along a tree exceeds eps)",
        spec: "tests/privacy/diprime.yaml",
    },
    Slip {
        name: "diprime-leaf-scale-from-leaf-range",
        what: "forest/leaf.rs leaf_value: a DiPriMe leaf's Laplace scale from the leaf's own label range max - min instead of the bound width W (a private quantity; the charge W/n over the scale exceeds eps_l)",
        spec: "tests/privacy/diprime-regression.yaml",
    },
    Slip {
        name: "partition-on-public-and-private",
        what: "a composition whose partition is declared grown on the public sample (methods/compose/composed.rs, grown_on: public; LPDT-M, LPDT-V, LPCT) grows it on the public and private rows pooled",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "scaler-fitted-on-private-rows",
        what: "scaling: public (data/split.rs, SplitRows::scale_by_public) fits the min-max scaler on the public and private rows instead of the public rows alone",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "laplace-draw-scale-halved",
        what: "the Laplace samplers themselves (crates/privacy/src/laplace.rs, where laplace and laplace_sum read their scale) draw with half the scale their caller passes: the charged releases charge from the scale the draw used, so every Laplace part is charged twice its share",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "label-bounds-from-all-train-labels",
        what: "label_bounds: public (run/repetition.rs, finish_repetition) takes the label range over the public and private labels pooled: the clipping range and every noise scale then move with the private labels",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "lpdt-label-unclipped",
        what: "LPDT's label release (estimate/lpdt.rs, LpdtMechanism::noisy_label) adds its Laplace noise to the label as handed in, without clipping it into the declared bounds (the runner hands it clipped labels, so only the release's own contract breaks)",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "histogram-label-unclipped",
        what: "the private histogram's user release (estimate/histogram.rs, HistogramMechanism::release: PHIST, APHIST) builds its label vector from the label as handed in, not clipped into the declared bounds",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "deconv-features-unclamped",
        what: "DECONV's user release (methods/deconv.rs, release) adds its Laplace noise to the features as handed in instead of the features clamped into [0, 1]^d",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "deconv-features-full-eps",
        what: "DECONV's user release (methods/deconv.rs, release) draws the features' Laplace noise at scale d/eps, the whole budget, instead of d/(eps/2), while the label keeps its half",
        spec: "tests/privacy/local.yaml",
    },
    Slip {
        name: "gradient-norm-unclipped",
        what: "PrivUnitG (privacy crate, PrivUnitGParams::release_into; PSGD-L, PSGD-N) scales every gradient by 1/C instead of 1/max(norm, C), so a gradient above the clipping level leaves the unit ball",
        spec: "specs/ci-lpct.yaml",
    },
    Slip {
        name: "exponential-weights-sensitivity-halved",
        what: "the exponential mechanism's log weights (privacy crate, exponential_log_weights; DiPriMe's and DiPriMeExp's medians and attribute choices) use eps q / sensitivity instead of eps q / (2 sensitivity): a slip at the draw, every caller's stated coefficient unchanged",
        spec: "tests/privacy/diprime.yaml",
    },
    Slip {
        name: "permute-and-flip-sensitivity-halved",
        what: "permute-and-flip (privacy crate, its acceptance probabilities; DiPriMeFlip's medians and attribute choices) calibrated for half the sensitivity it is passed: a slip at the draw",
        spec: "tests/privacy/diprime.yaml",
    },
    Slip {
        name: "dp-rf-split-sensitivity-halved",
        what: "DP-RF's regression split (forest/dp_rf.rs, regression_split) calibrates its exponential mechanism for sensitivity 2B^2/n, half the 4B^2/n the ledger charges and the paper states",
        spec: "tests/privacy/diprime-regression.yaml",
    },
];

/// Slips that only the privacy ledger catches (it totals what each row pays across the
/// trees of a forest against the column's ε, and records a noise scale read from private
/// rows; no audited part and no end-to-end pair sees them at the suite's sizes). They are not counted in the
/// mutation suite, whose slips must each be caught by an audit or the typed flow; the
/// ledger's own tests (`tests/forest_ledger.rs`) switch them on.
pub const LEDGER_SLIPS: &[Slip] = &[
    Slip {
        name: "overlapping-tree-shares",
        what: "forest/ensemble.rs Forest::fit: with disjoint tree rows each tree's share also takes the next share's first row while every tree still gets the whole eps (parallel composition claimed over overlapping rows)",
        spec: "tests/privacy/diprime.yaml",
    },
    Slip {
        name: "user-split-groups-overlap",
        what: "run/point.rs user_split_groups gives every candidate of user_split all the training users instead of its own block: each training user releases once per candidate",
        spec: "tests/honest_tuning.rs",
    },
    Slip {
        name: "stopping-epsilon-not-divided",
        what: "crates/privacy/src/selection.rs StoppingLaw::candidate_epsilon returns the column's epsilon instead of epsilon/(2 + eta): every candidate run of random stopping spends the whole budget",
        spec: "tests/honest_tuning.rs",
    },
    Slip {
        name: "mean-sensitivity-private-n",
        what: "forest/leaf.rs leaf_value under privacy: dp: the leaf releases clamp(mean + Lap(W/(n eps_l))), a mean's sensitivity with the private count n, instead of the noisy sum and count",
        spec: "tests/privacy/diprime.yaml",
    },
];

/// Whether slip `name` is switched on (always false without `privacy-mutants`): by
/// [`switch`], or, until the first [`switch`], by the environment variable
/// `DP_REPRO_PRIVACY_SLIP` (so that a `privacy-mutants` build of the command line can be
/// run with one slip on, e.g. `DP_REPRO_PRIVACY_SLIP=rho-both-full cargo run
/// --release --features privacy-mutants -- audit SPEC`).
#[inline(always)]
pub fn active(name: &str) -> bool {
    #[cfg(feature = "privacy-mutants")]
    {
        imp::ENV.call_once(|| {
            if let Ok(slip) = std::env::var("DP_REPRO_PRIVACY_SLIP") {
                if let Ok(mut a) = imp::ACTIVE.write() {
                    a.get_or_insert(slip);
                }
            }
        });
        imp::ACTIVE
            .read()
            .map(|a| a.as_deref() == Some(name))
            .unwrap_or(false)
    }
    #[cfg(not(feature = "privacy-mutants"))]
    {
        let _ = name;
        false
    }
}

/// Switches slip `name` on (None: every slip off) for the whole process.
///
/// # Panics
/// If `name` is in neither [`SLIPS`] nor [`LEDGER_SLIPS`].
#[cfg(feature = "privacy-mutants")]
pub fn switch(name: Option<&str>) {
    if let Some(n) = name {
        assert!(
            SLIPS.iter().chain(LEDGER_SLIPS).any(|s| s.name == n),
            "unknown privacy slip {n}"
        );
    }
    imp::ENV.call_once(|| {});
    *imp::ACTIVE.write().expect("slip switch") = name.map(str::to_string);
}

#[cfg(feature = "privacy-mutants")]
mod imp {
    pub(super) static ACTIVE: std::sync::RwLock<Option<String>> = std::sync::RwLock::new(None);
    pub(super) static ENV: std::sync::Once = std::sync::Once::new();
}

#[cfg(all(test, feature = "privacy-mutants"))]
mod tests {
    use super::*;

    /// One slip at a time: switching one on makes it, and only it, active; None switches
    /// every slip off. (The only test that switches slips in this crate, so no other test
    /// sees a slip on.)
    #[test]
    fn switch_turns_one_slip_on_at_a_time() {
        let (a, b) = (SLIPS[0].name, SLIPS[1].name);
        assert!(!active(a) && !active(b));
        switch(Some(a));
        assert!(active(a) && !active(b));
        switch(Some(b));
        assert!(!active(a) && active(b));
        switch(None);
        assert!(!active(a) && !active(b));
    }

    #[test]
    #[should_panic(expected = "unknown privacy slip")]
    fn an_unknown_slip_is_refused() {
        switch(Some("no-such-slip"));
    }
}
