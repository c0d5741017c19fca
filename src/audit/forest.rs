//! Audit cases of a DiPriMe forest's node mechanisms (central DP, card diprime.md §2–§3,
//! §3.11): two data sets "differing on at most one element" (the DiPriMe paper's §2, after
//! Dwork 2008: one holds one row more), each part drawn by the engine's own functions
//! ([`continuous_threshold`], [`choose`], [`leaf_value`]). Under replace-one neighbours the
//! median's score −|n_below − n_above| would move by 2 and the two class counts of a leaf
//! both, each part spending twice its claim.
//!
//! Parts, each against the budget the forest assigns it:
//! * `median` — one private median of a continuous attribute in \[0, 1\]: nine rows at
//!   0.1, …, 0.9 vs the same and one more at 0; the statistic is the threshold r. Claims
//!   the budget of one draw.
//! * `K medians` (K > 1) — the K candidate medians of a node, drawn on the same rows (K
//!   attributes holding those values, the added row at 0 in every one): the
//!   statistic is the smallest threshold, whose half-line {min r > t} is every median's
//!   event at once. Claims ε_s, which the paper and the code charge for the K together
//!   (card §3.11 caveat 1); under `k_medians: shared` each is drawn at ε_s, so this is
//!   where K·ε_s shows.
//! * `attribute choice` (when it spends) — K candidates whose within-child errors differ
//!   by the claimed sensitivity Δ = 4B∞²/n between the data sets (n = 100, B∞ = 1):
//!   all at Δ vs the first at 2Δ and the others at 0; the event {first chosen}. This audits
//!   the mechanism given that sensitivity, not the sensitivity itself.
//! * `leaf (regression)` — nine rows at 0.5 vs the same and one more at 1 (the scale
//!   W/(n·ε_ℓ) uses the exact count, caveat 2, so it differs too); the statistic is the
//!   clamped noisy mean.
//! * `leaf (classification)` — ten rows of labels 0, 1, 0, 1, … vs the same and one more
//!   row of label 1; the statistic is the stored fraction.
//!
//! Not audited: the composition along a tree and across trees, categorical medians, and
//! the data-dependent special cases of caveat 3.

use super::AuditCase;
use crate::data::Task;
use crate::estimate::LabelBounds;
use crate::forest::attribute::choose;
use crate::forest::leaf::leaf_value;
use crate::forest::median::{continuous_threshold, MedianMechanism, MedianOptions};
use crate::forest::AttributeMechanism;
use rand_pcg::Pcg64;

/// A forest's node mechanisms and the budgets it gives them.
#[derive(Debug, Clone, Copy)]
pub struct ForestNodes {
    /// The median mechanism and its options.
    pub median: MedianMechanism,
    /// Options of the median draw (floors, PF width).
    pub median_options: MedianOptions,
    /// The budget one median draw is made with.
    pub eps_median: f64,
    /// K, the candidate medians per node (1: no `K medians` part).
    pub k: usize,
    /// ε_s, what the K medians of a node are charged.
    pub eps_split: f64,
    /// The attribute mechanism and its budget ε_a.
    pub attribute: AttributeMechanism,
    /// ε_a.
    pub eps_attribute: f64,
    /// The reference's weight floors in the attribute choice.
    pub floors: bool,
    /// ε_ℓ of a leaf.
    pub eps_leaf: f64,
}

/// The rows of the median cases: nine rows at 0.1, …, 0.9, and one more at 0 (`added`).
fn median_rows(added: bool) -> Vec<f64> {
    let mut v: Vec<f64> = (1..=9).map(|i| f64::from(i) / 10.0).collect();
    if added {
        v.push(0.0);
    }
    v
}

/// The cases of `nodes`; `setting` (e.g. the depth used for the budgets) is added to every
/// case's neighbours.
pub fn forest_node_cases(nodes: ForestNodes, setting: &str) -> Vec<AuditCase> {
    let mut cases = Vec::new();
    let case =
        |part: &str, neighbours: &str, claimed: f64, a: super::Release, b: super::Release| {
            AuditCase {
                part: part.into(),
                neighbours: format!("{neighbours}; {setting}"),
                claimed,
                delta: 0.0,
                release_a: a,
                release_b: b,
            }
        };
    if matches!(
        nodes.median,
        MedianMechanism::Exponential | MedianMechanism::PermuteFlip
    ) {
        let n = nodes;
        let draw = move |added: bool, k: usize, rng: &mut Pcg64| {
            (0..k)
                .map(|_| {
                    let mut v = median_rows(added);
                    continuous_threshold(
                        rng,
                        &mut v,
                        (0.0, 1.0),
                        n.median,
                        n.eps_median,
                        &n.median_options,
                    )
                })
                .fold(f64::INFINITY, f64::min)
        };
        cases.push(case(
            "median",
            "rows 0.1..0.9 vs the same and one more at 0; statistic the threshold",
            n.eps_median,
            Box::new(move |r| draw(false, 1, r)),
            Box::new(move |r| draw(true, 1, r)),
        ));
        if n.k > 1 {
            let k = n.k;
            cases.push(case(
                "K medians",
                &format!("K = {k} attributes on the same rows, the added row at 0 in every one; statistic the smallest threshold"),
                n.eps_split,
                Box::new(move |r| draw(false, k, r)),
                Box::new(move |r| draw(true, k, r)),
            ));
        }
    }
    if nodes.attribute.spends() {
        let n = nodes;
        let k = n.k.max(2);
        let rows = 100;
        let delta = 4.0 / rows as f64;
        let pick = move |mse: Vec<f64>| {
            move |rng: &mut Pcg64| {
                let j = choose(rng, n.attribute, &mse, rows, 1.0, n.eps_attribute, n.floors);
                f64::from(u8::from(j == 0))
            }
        };
        let mut mse_b = vec![0.0; k];
        mse_b[0] = 2.0 * delta;
        cases.push(case(
            "attribute choice",
            &format!("K = {k} candidates, errors all 4/n vs 8/n for the first and 0 for the others (n = {rows}, the claimed sensitivity 4B^2/n apart); event the first chosen"),
            n.eps_attribute,
            Box::new(pick(vec![delta; k])),
            Box::new(pick(mse_b)),
        ));
    }
    let eps_leaf = nodes.eps_leaf;
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    let regression = move |added: bool| {
        let mut y = vec![0.5; 9];
        if added {
            y.push(1.0);
        }
        move |rng: &mut Pcg64| leaf_value(rng, &y, Task::Regression, bounds, Some(eps_leaf))
    };
    cases.push(case(
        "leaf (regression)",
        "nine rows at 0.5 vs the same and one more at 1; statistic the noisy mean",
        eps_leaf,
        Box::new(regression(false)),
        Box::new(regression(true)),
    ));
    let classification = move |extra: bool| {
        let mut y: Vec<f64> = (0..10).map(|i| f64::from(i % 2)).collect();
        if extra {
            y.push(1.0);
        }
        move |rng: &mut Pcg64| leaf_value(rng, &y, Task::Classification, bounds, Some(eps_leaf))
    };
    cases.push(case(
        "leaf (classification)",
        "labels 0, 1, ... on ten rows vs the same and one more row of label 1; statistic the noisy fraction",
        eps_leaf,
        Box::new(classification(false)),
        Box::new(classification(true)),
    ));
    cases
}

/// Ten rows of labels 0, 1, 0, 1, … and the same with one more row of label 1, as class
/// counts.
const CLASS_COUNTS: ([f64; 2], [f64; 2]) = ([5.0, 5.0], [5.0, 6.0]);

/// DP-RF's node mechanisms (card §4.4–§4.5; [`crate::forest::dp_rf`]), data sets one row
/// apart: a node's noisy class counts (statistic: the class-1 count) and its noisy mean
/// (nine rows at 0.5 vs one more at 1), each claiming e_node; the regression split draw at
/// the budget the code uses (`e_used`: ε_T as run, e_split per level) on errors the
/// claimed sensitivity 4B∞²/n apart, claiming e_split.
pub fn dp_rf_cases(
    e_node: f64,
    e_split: f64,
    e_used: f64,
    node_means: crate::forest::dp_rf::NodeMeans,
    floors: bool,
    setting: &str,
) -> Vec<AuditCase> {
    use crate::forest::dp_rf::{noisy_class_counts, noisy_mean, regression_split};
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    let counts = move |c: [f64; 2]| move |rng: &mut Pcg64| noisy_class_counts(&c, e_node, rng)[1];
    let mean = move |added: bool| {
        let (m, n) = if added { (5.5 / 10.0, 10) } else { (0.5, 9) };
        move |rng: &mut Pcg64| noisy_mean(m, n, bounds, e_node, node_means, rng)
    };
    let (k, rows) = (5, 100);
    let delta = 4.0 / rows as f64;
    let split = move |mse: Vec<f64>| {
        move |rng: &mut Pcg64| {
            f64::from(u8::from(
                regression_split(rng, &mse, rows, 1.0, e_used, floors) == 0,
            ))
        }
    };
    let mut mse_b = vec![0.0; k];
    mse_b[0] = 2.0 * delta;
    let with = |s: &str| format!("{s}; {setting}");
    vec![
        AuditCase {
            part: "node counts (classification)".into(),
            neighbours: with("class counts (5, 5) vs (5, 6); statistic the noisy count of class 1"),
            claimed: e_node,
            delta: 0.0,
            release_a: Box::new(counts(CLASS_COUNTS.0)),
            release_b: Box::new(counts(CLASS_COUNTS.1)),
        },
        AuditCase {
            part: "node mean (regression)".into(),
            neighbours: with("nine rows at 0.5 vs the same and one more at 1; statistic the noisy mean"),
            claimed: e_node,
            delta: 0.0,
            release_a: Box::new(mean(false)),
            release_b: Box::new(mean(true)),
        },
        AuditCase {
            part: "split choice (regression)".into(),
            neighbours: with(&format!("K = {k} attributes, errors all 4/n vs 8/n for the first and 0 for the others (n = {rows}); event the first chosen")),
            claimed: e_split,
            delta: 0.0,
            release_a: Box::new(split(vec![delta; k])),
            release_b: Box::new(split(mse_b)),
        },
    ]
}

/// DP-DF's node counts (card §4.6 step 1; [`crate::forest::dp_df::noisy_present_counts`])
/// on a node with class counts (5, 0) vs (5, 1), claiming the query budget e_q; the
/// statistic is the noisy count of class 1, which the code noises only when the class is
/// present.
pub fn dp_df_cases(e_q: f64, setting: &str) -> Vec<AuditCase> {
    use crate::forest::dp_df::noisy_present_counts;
    let counts = move |c: [usize; 2]| move |rng: &mut Pcg64| noisy_present_counts(&c, e_q, rng)[1];
    vec![AuditCase {
        part: "node counts".into(),
        neighbours: format!(
            "class counts (5, 0) vs (5, 1); statistic the noisy count of class 1; {setting}"
        ),
        claimed: e_q,
        delta: 0.0,
        release_a: Box::new(counts([5, 0])),
        release_b: Box::new(counts([5, 1])),
    }]
}
