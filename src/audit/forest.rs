//! Audit cases of the DiPriMe paper's central-DP forests (card docs/methods/diprime.md §2–§4, §3.11):
//! the `forest` compositions (DiPriMe, DiPriMeExp, DiPriMeFlip, DP-ERT) and the builtins
//! DP-RF and DP-DF, registered in the audit's table as [`cases`]. Every case draws
//! with the engine's own functions ([`node_median`], [`choose`], [`leaf_value`], DP-RF's
//! and DP-DF's node releases) at the budgets the runner's fit uses
//! ([`node_release`] for the compositions).
//!
//! **Neighbours.** The DiPriMe paper's relation (§2, after Dwork 2008: data sets
//! "differing on at most one element", one holding one row more: add/remove), and
//! replace-one where a part's loss differs under it. Under `privacy: as_published` the
//! paper's mechanism is flagged where it is not ε-DP: an empty leaf (un-noised Uniform
//! value) against a one-row leaf (clamp(mean + Laplace), point masses at the bounds), and
//! under replace-one the classification leaf (two counts move; the median's score moves by
//! 2 too, which these rows do not show); under `privacy: dp` every case is consistent.
//!
//! Parts of a forest composition, each against the budget the forest assigns it:
//! * `median` — one private median of a continuous attribute in \[0, 1\]: nine rows at
//!   0.1, …, 0.9 vs the same and one more at 0; the statistic is the threshold r. Claims
//!   the budget of one draw. `median (replace one)`: the row at 0.9 replaced by 0 (the
//!   score moves by 2; on these rows the certified loss stays near ε_s as published).
//! * `K medians` (K > 1) — the K candidate medians of a node, drawn on the same rows (K
//!   attributes holding those values, the added row at 0 in every one): the statistic is
//!   the smallest threshold, whose half-line {min r > t} is every median's event at once.
//!   Claims ε_s; under `k_medians: shared` each is drawn at ε_s, so K·ε_s shows.
//! * `attribute choice` (when it spends) — K candidates whose errors differ by the claimed
//!   sensitivity between the data sets (4B∞²/n with n = 100 as published, 4B∞² for the DP
//!   mode's sums; B∞ = 1): all at Δ vs the first at 2Δ and the others at 0; the event
//!   {first chosen}. This audits the mechanism given that sensitivity.
//! * `leaf (regression)` — nine rows at 0.5 vs the same and one more at 1; the statistic is
//!   the leaf value. `leaf (classification)` — ten rows of labels 0, 1, 0, 1, … vs one more
//!   of label 1.
//! * `leaf empty vs one row (regression | classification)` — no row vs one row at 1; the
//!   statistic is 1 when the value sits on an atom the empty leaf of the paper's mechanism
//!   never has (a bound; 0.5 for classification), else 0.
//! * `leaf replace one (regression | classification)` — one row at 0 vs one row at 1.
//!
//! Not audited here: the composition along a tree and across trees (the privacy ledger
//! totals those per row), categorical medians.

use super::{AuditCase, AuditContext};
use crate::data::Task;
use crate::estimate::LabelBounds;
use crate::forest::attribute::{choose, ScoreForm};
use crate::forest::budget::Privacy;
use crate::forest::leaf::leaf_value;
use crate::forest::median::MedianMechanism;
use crate::forest::tree::node_median;
use crate::forest::{d_mult, depth_rule};
use crate::methods::compose::forest::{forest_shape, node_release, NodeRelease};
use crate::methods::compose::Composed;
use crate::methods::diprime_baselines::{called_epsilon, dp_rf_params, DpDfMethod, DpRfMethod};
use crate::methods::{Method, MethodError, ParamValue, Params};
use rand_pcg::Pcg64;

/// The cases of `method` at grid point `params` and budget ε when it is one of this
/// family's (see the module docs); None otherwise.
pub fn cases(
    method: &dyn Method,
    params: &Params,
    epsilon: f64,
    ctx: &AuditContext,
) -> Option<Result<Vec<AuditCase>, MethodError>> {
    let any = method.as_any();
    if let Some(c) = any.downcast_ref::<Composed>() {
        let f = c.composition.forest.as_ref()?;
        if !c.composition.private() {
            return None;
        }
        return Some((|| {
            let epsilon = crate::privacy::Budget::new(epsilon)?.epsilon();
            let (trees, disjoint, k) = forest_shape(params);
            let parts = if disjoint { trees } else { 1 };
            let (depth, setting) = audit_depth(params, ctx, |n, o| depth_rule(n, o, 2, parts));
            // K attributes at least (k: all on two attributes).
            let k = k.unwrap_or(2);
            let nodes = node_release(f, params, epsilon, depth, k, Task::Regression);
            Ok(forest_node_cases(nodes, k, &setting))
        })());
    }
    if any.downcast_ref::<DpRfMethod>().is_some() {
        return Some((|| {
            let eps = called_epsilon("DP-RF", Some(epsilon), params)?;
            let (depth, setting) = audit_depth(params, ctx, d_mult);
            let p = dp_rf_params(params, depth);
            let eps_tree = eps / p.trees as f64;
            let (e_node, e_split) =
                crate::forest::dp_rf::budgets(eps_tree, params.f64("rho"), depth);
            let e_used = crate::forest::dp_rf::split_epsilon(p.split_budget, eps_tree, e_split);
            Ok(dp_rf_cases(
                e_node,
                e_split,
                e_used,
                p.node_means,
                p.weight_floors,
                &setting,
            ))
        })());
    }
    if any.downcast_ref::<DpDfMethod>().is_some() {
        return Some((|| {
            let eps = called_epsilon("DP-DF", Some(epsilon), params)?;
            let (height, setting) = audit_depth(params, ctx, d_mult);
            let e_q = crate::forest::dp_df::query_budget(eps, params.usize("trees"), height.max(1));
            Ok(dp_df_cases(e_q, &setting))
        })());
    }
    None
}

/// `depth` at grid point `p` for an audit, which reads no data: the integer, or the §5
/// rule `rule(n, occupancy)` at n = n_P (`ctx`) and the grid point's occupancy (25 for
/// `occupancy: dataset`); and the words that say so. Shared by the DiPriMe forests.
pub fn audit_depth(
    p: &Params,
    ctx: &AuditContext,
    rule: impl Fn(usize, usize) -> usize,
) -> (usize, String) {
    match p.get("depth") {
        ParamValue::Int(d) => (*d as usize, format!("depth {d}")),
        _ => {
            let occupancy = match p.get("occupancy") {
                ParamValue::Int(o) => *o as usize,
                _ => 25,
            };
            let n = ctx.n_private;
            let d = rule(n, occupancy);
            (
                d,
                format!("depth {d} (rule at n = {n}, occupancy {occupancy})"),
            )
        }
    }
}

/// The rows of the median cases: nine rows at 0.1, …, 0.9, and one more at 0 (`added`);
/// with `replaced` the row at 0.9 is 0 instead.
fn median_rows(added: bool, replaced: bool) -> Vec<f64> {
    let mut v: Vec<f64> = (1..=9).map(|i| f64::from(i) / 10.0).collect();
    if replaced {
        v[8] = 0.0;
    }
    if added {
        v.push(0.0);
    }
    v
}

/// `0..n`, the rows of a case's node (the ledger is not recording in an audit).
fn rows(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// The cases of the node mechanisms `nodes` of a forest with K = `k` candidates per node;
/// `setting` (e.g. the depth used for the budgets) is added to every case's neighbours.
pub fn forest_node_cases(nodes: NodeRelease, k: usize, setting: &str) -> Vec<AuditCase> {
    let mut cases = Vec::new();
    let mode = match nodes.privacy {
        Privacy::AsPublished => "as published",
        Privacy::Dp => "privacy dp",
    };
    let case =
        |part: &str, neighbours: &str, claimed: f64, a: super::Release, b: super::Release| {
            AuditCase {
                part: part.into(),
                neighbours: format!("{neighbours}; {setting}; {mode}"),
                claimed,
                delta: 0.0,
                release_a: a,
                release_b: b,
                alternatives: Vec::new(),
            }
        };
    if matches!(
        nodes.median,
        MedianMechanism::Exponential | MedianMechanism::PermuteFlip
    ) {
        let n = nodes;
        let draw = move |added: bool, replaced: bool, k: usize, rng: &mut Pcg64| {
            (0..k)
                .map(|_| {
                    let mut v = median_rows(added, replaced);
                    let r = rows(v.len());
                    node_median(
                        rng,
                        &mut v,
                        (0.0, 1.0),
                        n.median,
                        n.eps_median,
                        &n.median_options,
                        n.privacy,
                        &r,
                    )
                })
                .fold(f64::INFINITY, f64::min)
        };
        cases.push(case(
            "median",
            "rows 0.1..0.9 vs the same and one more at 0; statistic the threshold",
            n.eps_median,
            Box::new(move |r| draw(false, false, 1, r)),
            Box::new(move |r| draw(true, false, 1, r)),
        ));
        cases.push(case(
            "median (replace one)",
            "rows 0.1..0.9 vs the same with 0.9 replaced by 0; statistic the threshold",
            n.eps_median,
            Box::new(move |r| draw(false, false, 1, r)),
            Box::new(move |r| draw(false, true, 1, r)),
        ));
        if k > 1 {
            cases.push(case(
                "K medians",
                &format!("K = {k} attributes on the same rows, the added row at 0 in every one; statistic the smallest threshold"),
                n.eps_split,
                Box::new(move |r| draw(false, false, k, r)),
                Box::new(move |r| draw(true, false, k, r)),
            ));
        }
    }
    if nodes.attribute.spends() {
        let n = nodes;
        let k = k.max(2);
        let node_rows = 100;
        let (delta, form) = match n.privacy {
            Privacy::AsPublished => (
                4.0 / node_rows as f64,
                ScoreForm::MeanError { subset_bug: false },
            ),
            Privacy::Dp => (4.0, ScoreForm::SumError),
        };
        let floors = n.median_options.floors;
        let pick = move |mse: Vec<f64>| {
            move |rng: &mut Pcg64| {
                let r = rows(node_rows);
                let j = choose(
                    rng,
                    n.attribute,
                    &mse,
                    &r,
                    1.0,
                    n.eps_attribute,
                    floors,
                    form,
                );
                f64::from(u8::from(j == 0))
            }
        };
        let mut mse_b = vec![0.0; k];
        mse_b[0] = 2.0 * delta;
        cases.push(case(
            "attribute choice",
            &format!("K = {k} candidates, errors all D vs 2D for the first and 0 for the others (D = {delta}, the claimed sensitivity; n = {node_rows}); event the first chosen"),
            n.eps_attribute,
            Box::new(pick(vec![delta; k])),
            Box::new(pick(mse_b)),
        ));
    }
    let (eps_leaf, privacy) = (nodes.eps_leaf, nodes.privacy);
    let bounds = LabelBounds { lo: 0.0, hi: 1.0 };
    // A leaf's value, or (atoms) 1 when it sits on an atom the paper's empty leaf never
    // has (a bound, or 0.5 for classification), else 0.
    let leaf = move |task: Task, y: Vec<f64>, atoms: bool| {
        move |rng: &mut Pcg64| {
            let v = leaf_value(
                rng,
                &y,
                &rows(y.len()),
                task,
                bounds,
                Some(eps_leaf),
                privacy,
            );
            if atoms {
                f64::from(u8::from(
                    v == 0.0 || v == 1.0 || (task == Task::Classification && v == 0.5),
                ))
            } else {
                v
            }
        }
    };
    let nine = vec![0.5; 9];
    let mut ten = nine.clone();
    ten.push(1.0);
    let alternating: Vec<f64> = (0..10).map(|i| f64::from(i % 2)).collect();
    let mut eleven = alternating.clone();
    eleven.push(1.0);
    let r = Task::Regression;
    let c = Task::Classification;
    // (part, neighbours, task, labels of a, labels of b, atom statistic)
    type LeafCase = (&'static str, &'static str, Task, Vec<f64>, Vec<f64>, bool);
    let leaf_cases: [LeafCase; 6] = [
        ("leaf (regression)", "nine rows at 0.5 vs the same and one more at 1; statistic the leaf value", r, nine, ten, false),
        ("leaf (classification)", "labels 0, 1, ... on ten rows vs the same and one more row of label 1; statistic the leaf value", c, alternating, eleven, false),
        ("leaf empty vs one row (regression)", "no row vs one row at 1; statistic 1 when the value is a bound", r, vec![], vec![1.0], true),
        ("leaf empty vs one row (classification)", "no row vs one row of label 1; statistic 1 when the value is 0, 0.5 or 1", c, vec![], vec![1.0], true),
        ("leaf replace one (regression)", "one row at 0 vs one row at 1; statistic the leaf value", r, vec![0.0], vec![1.0], false),
        ("leaf replace one (classification)", "one row of label 0 vs one of label 1; statistic the leaf value", c, vec![0.0], vec![1.0], false),
    ];
    for (part, neighbours, task, a, b, atoms) in leaf_cases {
        cases.push(case(
            part,
            neighbours,
            eps_leaf,
            Box::new(leaf(task, a, atoms)),
            Box::new(leaf(task, b, atoms)),
        ));
    }
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
    let counts = move |c: [f64; 2]| {
        move |rng: &mut Pcg64| {
            let r = rows(c.iter().sum::<f64>() as usize);
            noisy_class_counts(&c, e_node, &r, rng)[1]
        }
    };
    let mean = move |added: bool| {
        let (m, n) = if added { (5.5 / 10.0, 10) } else { (0.5, 9) };
        move |rng: &mut Pcg64| noisy_mean(m, n, bounds, e_node, node_means, &rows(n), rng)
    };
    let (k, node_rows) = (5, 100);
    let delta = 4.0 / node_rows as f64;
    let split = move |mse: Vec<f64>| {
        move |rng: &mut Pcg64| {
            f64::from(u8::from(
                regression_split(rng, &mse, &rows(node_rows), 1.0, e_used, floors) == 0,
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
            alternatives: Vec::new(),
        },
        AuditCase {
            part: "node mean (regression)".into(),
            neighbours: with("nine rows at 0.5 vs the same and one more at 1; statistic the noisy mean"),
            claimed: e_node,
            delta: 0.0,
            release_a: Box::new(mean(false)),
            release_b: Box::new(mean(true)),
            alternatives: Vec::new(),
        },
        AuditCase {
            part: "split choice (regression)".into(),
            neighbours: with(&format!("K = {k} attributes, errors all 4/n vs 8/n for the first and 0 for the others (n = {node_rows}); event the first chosen")),
            claimed: e_split,
            delta: 0.0,
            release_a: Box::new(split(vec![delta; k])),
            release_b: Box::new(split(mse_b)),
            alternatives: Vec::new(),
        },
    ]
}

/// DP-DF's node counts (card §4.6 step 1; [`crate::forest::dp_df::noisy_present_counts`])
/// on a node with class counts (5, 0) vs (5, 1), claiming the query budget e_q; the
/// statistic is the noisy count of class 1, which the code noises only when the class is
/// present.
pub fn dp_df_cases(e_q: f64, setting: &str) -> Vec<AuditCase> {
    use crate::forest::dp_df::noisy_present_counts;
    let counts = move |c: [usize; 2]| {
        move |rng: &mut Pcg64| noisy_present_counts(&c, e_q, &rows(c[0] + c[1]), rng)[1]
    };
    vec![AuditCase {
        part: "node counts".into(),
        neighbours: format!(
            "class counts (5, 0) vs (5, 1); statistic the noisy count of class 1; {setting}"
        ),
        claimed: e_q,
        delta: 0.0,
        release_a: Box::new(counts([5, 0])),
        release_b: Box::new(counts([5, 1])),
        alternatives: Vec::new(),
    }]
}
