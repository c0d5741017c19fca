//! LPCT-prune: per leaf, the deepest ancestor whose pooled estimate is trusted (LPCT
//! paper §5, Algorithm 2, eqs. 13–14; method card docs/methods/lpct.md §5).
//!
//! Both versions read one round of the users' LPCT releases (Ũ, Ṽ per leaf, docs/methods/lpct.md §3)
//! on a max-edge tree of depth p0 grown on public data, pool them over the leaves below
//! every node, and walk from each leaf towards the root:
//! * [`prune_reference_v1`] — the authors' V1 code, which produced the reported numbers
//!   (docs/methods/lpct.md §5.4): one round with the full ε, the code's statistic, walk down to p_min,
//!   best statistic as the fallback, no flag.
//! * [`prune_paper`] — Algorithm 2 as reconstructed in docs/methods/lpct.md §5.2–§5.3: noise-dominated
//!   and signal-dominated levels, the closed-form λ, and a flag that asks the caller for a
//!   second round on a depth-p_min partition.

use super::lpct::lpct_class;
use crate::partition::{Node, TreeShape};
use std::collections::VecDeque;

/// One node's pooled sums: the users' noisy counts Ũ_B, Ṽ_B and the public counts
/// U_Q,B, V_Q,B summed over the leaves below node B.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NodeSums {
    /// Ũ_B.
    pub u: f64,
    /// Ṽ_B.
    pub v: f64,
    /// U_Q,B.
    pub u_q: f64,
    /// V_Q,B.
    pub v_q: f64,
}

/// Per node of `shape`, the sums over the leaves below it (a leaf's own sums for a leaf).
/// `u`, `v`, `u_q`, `v_q` have one entry per leaf id.
pub fn pooled_sums(
    shape: &TreeShape,
    (u, v): (&[f64], &[f64]),
    (u_q, v_q): (&[f64], &[f64]),
) -> Vec<NodeSums> {
    let mut s = vec![NodeSums::default(); shape.parent.len()];
    for (leaf, &node) in shape.leaf_node.iter().enumerate() {
        s[node] = NodeSums {
            u: u[leaf],
            v: v[leaf],
            u_q: u_q[leaf],
            v_q: v_q[leaf],
        };
    }
    // Pre-order: children come after their parent, so a reverse pass adds each finished
    // node into its parent.
    for node in (1..s.len()).rev() {
        if let Some(p) = shape.parent[node] {
            let c = s[node];
            let t = &mut s[p];
            t.u += c.u;
            t.v += c.v;
            t.u_q += c.u_q;
            t.v_q += c.v_q;
        }
    }
    s
}

/// Sizes and depths of a pruning run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PruneConfig {
    /// n_P, the number of private users (the whole private training set).
    pub n_p: usize,
    /// n_Q, the size of the whole public set.
    pub n_q: usize,
    /// ε_q, the budget of the privatized round (reference V1: ε; paper: ε/2).
    pub epsilon: f64,
    /// p0, the depth the tree was grown to.
    pub p0: usize,
    /// p_min: the walk stops at this depth (with [`V1Quirks::walk_heights`], after
    /// p0 − p_min steps).
    pub p_min: usize,
}

/// The V1 code's constants for a node evaluated at level k = p0 − h and height h
/// (docs/methods/lpct.md §5.4): L = ln(n_P + n_Q) + k + 1, L_Q = ln(n_Q) + k + 1 and the noise
/// proxy B = 2^{h+1}·(2 ln(2 n_P) + ε_q 2^{−k/2} sqrt(L))²·n_P/(ε_q² L).
fn v1_constants(k: usize, h: usize, c: &PruneConfig) -> (f64, f64, f64) {
    let (k, h) = (k as f64, h as f64);
    let n_p = c.n_p as f64;
    let eps = c.epsilon;
    let l = ((c.n_p + c.n_q) as f64).ln() + k + 1.0;
    let l_q = (c.n_q as f64).ln() + k + 1.0;
    let noise = 2f64.powf(h + 1.0)
        * (2.0 * (2.0 * n_p).ln() + eps * 2f64.powf(-k / 2.0) * l.sqrt()).powi(2)
        * n_p
        / (eps * eps * l);
    (l, l_q, noise)
}

/// A node's class and statistic T under the V1 code's "adaptive" mode (docs/methods/lpct.md §5.4) at
/// level `k` and height `h`, and λ* when the node reached the "same sign" branch (the
/// value the code stores in the node, quirk Q2), else None.
fn v1_statistic(s: NodeSums, k: usize, h: usize, c: &PruneConfig) -> (f64, f64, Option<f64>) {
    let (l, l_q, noise) = v1_constants(k, h, c);
    // (a) no public point: class 1, statistic 0 (quirk Q3 of the code).
    if s.u_q <= 0.0 {
        return (1.0, 0.0, None);
    }
    let eta_q = s.v_q / s.u_q;
    let s_q = eta_q - 0.5;
    let t_q = s_q.abs() * (s.u_q / l_q).sqrt();
    let public_only = (class_of(eta_q), t_q, None);
    // (b) a non-positive noisy count or label sum: public only.
    if s.u <= 0.0 || s.v <= 0.0 {
        return public_only;
    }
    let (v, w) = if s.v > s.u {
        // (c) ratio above 1: truncated to 1, the noise proxy as the variance.
        (s.u, noise)
    } else if noise > s.u {
        // (d) noise-dominated node: public only.
        return public_only;
    } else {
        (s.v, s.u)
    };
    let s_p = v / s.u - 0.5;
    if s_p * s_q > 0.0 {
        let lambda = (w / s.u) * (s_q / s_p);
        let den = s.u + lambda * s.u_q;
        let eta = (v + lambda * s.v_q) / den;
        let r = (l * (w + lambda * lambda * s.u_q)).sqrt() / den;
        let t = (eta - 0.5).abs() / r;
        if t < t_q {
            (public_only.0, public_only.1, Some(lambda))
        } else {
            (class_of(eta), t, Some(lambda))
        }
    } else {
        let t_p = s_p.abs() * s.u / (l * w).sqrt();
        if t_p < t_q {
            public_only
        } else {
            (class_of(v / s.u), t_p, None)
        }
    }
}

/// The V1 code's "fixed-λ" statistic (docs/methods/lpct.md §5.4), which a node that stored λ* uses
/// when another leaf revisits it (quirk Q2): η = (Ṽ + λV_Q)/(Ũ + λU_Q) with the
/// untruncated Ṽ, r = sqrt(L (B + λ² U_Q))/(Ũ + λU_Q), T = |η − 1/2|/r, no public-only
/// comparison. Returns the class 1{η > 1/2} and T.
fn v1_fixed_lambda(s: NodeSums, k: usize, h: usize, lambda: f64, c: &PruneConfig) -> (f64, f64) {
    let (l, _, noise) = v1_constants(k, h, c);
    let den = s.u + lambda * s.u_q;
    let eta = (s.v + lambda * s.v_q) / den;
    let r = (l * (noise + lambda * lambda * s.u_q)).sqrt() / den;
    (class_of(eta), (eta - 0.5).abs() / r)
}

fn class_of(eta: f64) -> f64 {
    f64::from(u8::from(eta > 0.5))
}

/// Which behaviours of the authors' V1 pruning code (`RecursiveTreeBuilder.prune` with
/// the pooled node estimator, docs/methods/lpct.md §5.4 "Quirks") [`prune_reference_v1`] reproduces.
/// All off ([`V1Quirks::NONE`], the default) is the paper's semantics of the V1
/// statistic: every node is evaluated at its true depth, once, from the sums of the
/// leaves below it, and each leaf walks up to depth p_min. All on
/// ([`V1Quirks::AS_CODED`]) is the walk as the code runs it, leaf after leaf in the
/// code's order ([`code_walk_order`]), carrying state from one leaf's walk to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V1Quirks {
    /// Q1, heights counted along the walk: a leaf is evaluated at height h = 0 (level
    /// k = p0 even when the leaf is shallower), a pooled ancestor at the number of steps
    /// from the first leaf whose walk reaches it (kept for later visits), and a walk
    /// stops after the step whose count reaches p0 − p_min (p_min capped at p0), so it
    /// climbs at least one step and, from a shallow leaf, above depth p_min. Off: the
    /// node's true depth k and h = p0 − k; the walk stops after the node at depth p_min.
    pub walk_heights: bool,
    /// Q2, λ* kept on revisits: a node evaluated in the "same sign" branch stores λ*; a
    /// later visit from another leaf uses the fixed-λ statistic (untruncated Ṽ, variance
    /// proxy B, no public-only comparison). The class cannot change (η stays on the same
    /// side of 1/2), T can. Off: each node's statistic is computed once.
    pub fixed_lambda_revisits: bool,
    /// Q4, pooled sums from the leaves' adopted estimators: the code builds an ancestor's
    /// sums when a walk first reaches it, from the estimator each leaf below holds at that
    /// moment, and a leaf whose walk has ended holds the estimator of the node it adopted
    /// (its ancestor's pooled sums, not its own), so those sums are counted once per such
    /// leaf. Off: every node pools its leaves' own sums ([`pooled_sums`]).
    pub adopted_sums: bool,
}

impl V1Quirks {
    /// The paper's semantics (the default).
    pub const NONE: V1Quirks = V1Quirks {
        walk_heights: false,
        fixed_lambda_revisits: false,
        adopted_sums: false,
    };
    /// Every quirk on: the V1 code's walk.
    pub const AS_CODED: V1Quirks = V1Quirks {
        walk_heights: true,
        fixed_lambda_revisits: true,
        adopted_sums: true,
    };
}

/// The leaf ids of a tree in the order the V1 code walks them: the order in which its
/// builder creates the leaves, breadth first from a FIFO queue into which a split node
/// puts its right child (x ≥ threshold) before its left one (docs/methods/lpct.md §5.4 "Walk"; the
/// code iterates over a dict filled as leaves are created). Our partitions number nodes
/// depth first and do not record creation order, so it is derived from the tree: a
/// breadth-first pass over `nodes` (`nodes[0]` the root) with the same queue discipline
/// visits the nodes in the code's creation order.
pub fn code_walk_order(nodes: &[Node]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut queue = VecDeque::from([0usize]);
    while let Some(i) = queue.pop_front() {
        match nodes[i] {
            Node::Leaf { leaf } => out.push(leaf),
            Node::Split { left, right, .. } => queue.extend([right, left]),
        }
    }
    out
}

/// A node's state once some walk has reached it.
#[derive(Debug, Clone, Copy)]
struct Visited {
    sums: NodeSums,
    /// Level k and height h of the statistic.
    k: usize,
    h: usize,
    /// (class, T) of the first evaluation.
    first: (f64, f64),
    /// λ* stored by the first evaluation (kept only under quirk Q2).
    lambda: Option<f64>,
}

/// Per node, the leaf ids below it (a leaf: its own id).
fn leaves_below(shape: &TreeShape) -> Vec<Vec<usize>> {
    let mut below = vec![Vec::new(); shape.parent.len()];
    for (leaf, &node) in shape.leaf_node.iter().enumerate() {
        let mut n = Some(node);
        while let Some(i) = n {
            below[i].push(leaf);
            n = shape.parent[i];
        }
    }
    below
}

/// LPCT-prune as the authors' V1 code runs it (docs/methods/lpct.md §5.4): one round with the full
/// ε, the code's statistic, and for each leaf a walk towards the root that stops at the
/// first node whose statistic T ≥ 1 (the leaf takes its class) or at the end of the walk
/// (the node at depth p_min, or the root); if no visited node has T ≥ 1 the leaf takes
/// the class of the visited node with the largest T (the deepest on ties).
///
/// `quirks` chooses, for the code's quirks Q1, Q2 and Q4, between the paper's semantics
/// ([`V1Quirks::NONE`]: every node at its true depth k with h = p0 − k, evaluated once,
/// from its leaves' own sums) and the code's behaviour (see [`V1Quirks`]); quirk Q3 (a
/// node without public points: class 1, T = 0) holds in both. `shape` and `sums`
/// ([`pooled_sums`]) describe the tree; `order` lists the leaf ids in the order they walk
/// (the code's: [`code_walk_order`]; without quirks the order does not matter). Returns
/// the class of every leaf id.
///
/// # Panics
/// If `order` does not list every leaf id once (a programming error).
pub fn prune_reference_v1(
    shape: &TreeShape,
    sums: &[NodeSums],
    c: &PruneConfig,
    quirks: V1Quirks,
    order: &[usize],
) -> Vec<f64> {
    let n_leaves = shape.leaf_node.len();
    assert_eq!(
        order.len(),
        n_leaves,
        "the walk order lists every leaf once"
    );
    let below = quirks.adopted_sums.then(|| leaves_below(shape));
    let mut visited: Vec<Option<Visited>> = vec![None; sums.len()];
    // The node whose estimator each leaf holds: its own until its walk adopts one.
    let mut adopted: Vec<usize> = shape.leaf_node.clone();
    let mut classes = vec![f64::NAN; n_leaves];
    let max_steps = c.p0.saturating_sub(c.p_min);
    for &leaf in order {
        let mut node = shape.leaf_node[leaf];
        let mut steps = 0usize;
        // (class, T, node) of the best visited node so far.
        let mut best: Option<(f64, f64, usize)> = None;
        let (class, chosen) = loop {
            let (class, t) = match visited[node] {
                // A revisit (a walk never meets a node twice): the stored λ* under Q2.
                Some(v) => match v.lambda {
                    Some(lambda) => v1_fixed_lambda(v.sums, v.k, v.h, lambda, c),
                    None => v.first,
                },
                None => {
                    let (k, h) = if quirks.walk_heights {
                        (c.p0.saturating_sub(steps), steps)
                    } else {
                        (shape.depth[node], c.p0.saturating_sub(shape.depth[node]))
                    };
                    let s = match &below {
                        Some(below) if steps > 0 => {
                            below[node].iter().fold(NodeSums::default(), |acc, &j| {
                                let a = adopted[j];
                                let s = visited[a].map_or(sums[a], |v| v.sums);
                                NodeSums {
                                    u: acc.u + s.u,
                                    v: acc.v + s.v,
                                    u_q: acc.u_q + s.u_q,
                                    v_q: acc.v_q + s.v_q,
                                }
                            })
                        }
                        _ => sums[node],
                    };
                    let (class, t, lambda) = v1_statistic(s, k, h, c);
                    visited[node] = Some(Visited {
                        sums: s,
                        k,
                        h,
                        first: (class, t),
                        lambda: lambda.filter(|_| quirks.fixed_lambda_revisits),
                    });
                    (class, t)
                }
            };
            if t >= 1.0 {
                break (class, node);
            }
            if best.is_none_or(|b| t > b.1) {
                best = Some((class, t, node));
            }
            let go_on = if quirks.walk_heights {
                steps == 0 || steps < max_steps
            } else {
                shape.depth[node] > c.p_min
            };
            match shape.parent[node] {
                Some(p) if go_on => {
                    node = p;
                    steps += 1;
                }
                _ => {
                    let (class, _, node) = best.expect("the leaf was evaluated");
                    break (class, node);
                }
            }
        };
        classes[leaf] = class;
        adopted[leaf] = chosen;
    }
    classes
}

/// The outcome of [`prune_paper`]'s first round.
#[derive(Debug, Clone, PartialEq)]
pub enum PaperPrune {
    /// The class of every leaf id.
    Classes(Vec<f64>),
    /// Some leaf trusted only private data at a level ≤ p_min: a second round on a
    /// depth-p_min partition with the private-only estimator decides (Algorithm 2 step 4).
    SecondRound,
}

/// A level's estimate and signal-to-noise statistic v under Algorithm 2 (docs/methods/lpct.md §5.2,
/// §5.3), and whether it is a private-only estimate of a noise-dominated level.
fn paper_statistic(s: NodeSums, depth: usize, c: &PruneConfig) -> (f64, f64, bool) {
    let n_p = c.n_p as f64;
    let eps2 = c.epsilon * c.epsilon;
    let l = ((c.n_p + c.n_q) as f64).ln();
    let m = 2f64.powi((c.p0.saturating_sub(depth)) as i32);
    let eta_p = if s.u > 0.0 { s.v / s.u } else { 0.0 };
    let s_p = eta_p - 0.5;
    let eta_q = if s.u_q > 0.0 { s.v_q / s.u_q } else { 0.5 };
    let s_q = eta_q - 0.5;
    if 8.0 * m * n_p / eps2 >= s.u {
        // Noise-dominated level: the better of private only and public only.
        let v_q = if s.u_q > 0.0 {
            s_q.abs() / (4.0 * l / s.u_q).sqrt()
        } else {
            0.0
        };
        let v_p = if s.u > 0.0 {
            s_p.abs() * s.u / (32.0 * m * n_p * l / eps2).sqrt()
        } else {
            0.0
        };
        if v_q <= v_p {
            (eta_p, v_p, true)
        } else {
            (eta_q, v_q, false)
        }
    } else {
        // Signal-dominated: max over λ ≥ 0 of |S_P + λ S_Q| / sqrt(L (32 Ũ + 4 λ² U_Q)).
        let (sp, sq) = (s.u * s_p, s.u_q * s_q);
        let (wp, wq) = (32.0 * s.u, 4.0 * s.u_q);
        if wq > 0.0 && s_p * s_q > 0.0 {
            let lambda = 8.0 * s_q / s_p;
            let eta = (s.v + lambda * s.v_q) / (s.u + lambda * s.u_q);
            let v = (sp * sp / wp + sq * sq / wq).sqrt() / l.sqrt();
            (eta, v, false)
        } else {
            let v_private = sp.abs() / (l * wp).sqrt();
            let v_public = if wq > 0.0 {
                sq.abs() / (l * wq).sqrt()
            } else {
                0.0
            };
            if v_private >= v_public {
                (eta_p, v_private, false)
            } else {
                (eta_q, v_public, false)
            }
        }
    }
}

/// LPCT-prune as the LPCT paper's Algorithm 2 states it (docs/methods/lpct.md §5.2–§5.3): the first
/// round's sums (budget ε/2, passed as `c.epsilon`) are pooled per node; each leaf walks
/// from its own depth up to depth 1, stopping at the first level with v ≥ 1, or — when a
/// noise-dominated level at depth ≤ p_min prefers the private-only estimate — raising
/// the flag. The log is natural; the thresholds use the first round's budget ε/2 (the
/// paper writes ε; docs/methods/lpct.md §5.2 "Reconstruction notes"). Without a trusted level the
/// leaf takes the level with the largest v.
///
/// Returns the class of every leaf id, or [`PaperPrune::SecondRound`] when the flag is
/// raised for any leaf.
pub fn prune_paper(shape: &TreeShape, sums: &[NodeSums], c: &PruneConfig) -> PaperPrune {
    let stats: Vec<(f64, f64, bool)> = sums
        .iter()
        .zip(&shape.depth)
        .map(|(&s, &d)| paper_statistic(s, d, c))
        .collect();
    let mut classes = Vec::with_capacity(shape.leaf_node.len());
    for &leaf in &shape.leaf_node {
        let mut node = leaf;
        let mut best: Option<(f64, f64)> = None;
        let class = loop {
            let (eta, v, private_noisy) = stats[node];
            if private_noisy && shape.depth[node] <= c.p_min {
                return PaperPrune::SecondRound;
            }
            if v >= 1.0 {
                break eta;
            }
            if best.is_none_or(|b| v > b.1) {
                best = Some((eta, v));
            }
            match shape.parent[node] {
                Some(p) if shape.depth[node] > 1 => node = p,
                _ => break best.map_or(0.5, |b| b.0),
            }
        };
        classes.push(class_of(class));
    }
    PaperPrune::Classes(classes)
}

/// The second round of Algorithm 2 (step 4): the private-only estimator (λ = 0,
/// [`lpct_class`]) on the depth-p_min partition's fresh sums. Returns the class of
/// every leaf id of that partition.
pub fn second_round_classes(u: &[f64], v: &[f64]) -> Vec<f64> {
    u.iter()
        .zip(v)
        .map(|(&u, &v)| lpct_class(u, v, 0.0, 0.0, 0.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::{complete_max_edge, Partition};

    /// The reference walk with the paper's semantics of the quirks.
    fn v1(shape: &TreeShape, s: &[NodeSums], c: &PruneConfig) -> Vec<f64> {
        let order: Vec<usize> = (0..shape.leaf_node.len()).collect();
        prune_reference_v1(shape, s, c, V1Quirks::NONE, &order)
    }

    fn config(n_p: usize, epsilon: f64, p0: usize, p_min: usize) -> PruneConfig {
        PruneConfig {
            n_p,
            n_q: 100,
            epsilon,
            p0,
            p_min,
        }
    }

    #[test]
    fn pooled_sums_add_leaves_into_ancestors() {
        let part = complete_max_edge(2, 2); // 4 leaves, root depth 0
        let shape = part.shape();
        let u = [1.0, 2.0, 3.0, 4.0];
        let v = [0.5, 0.5, 1.0, 1.0];
        let uq = [10.0, 0.0, 5.0, 5.0];
        let vq = [1.0, 0.0, 2.0, 3.0];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        assert_eq!(s[0].u, 10.0);
        assert_eq!(s[0].v, 3.0);
        assert_eq!(s[0].u_q, 20.0);
        assert_eq!(s[0].v_q, 6.0);
        assert_eq!(shape.depth[shape.leaf_node[0]], 2);
    }

    /// The V1 noise proxy B is about 2^{h+1−k}·n_P at large ε, more than any node's
    /// count, so private sums of ordinary size are noise-dominated and the code uses the
    /// public-only estimate: here each leaf's public majority (T_Q = 0.3·sqrt(25/7.6) ≈
    /// 0.54 < 1), the parents' balanced public counts (T_Q = 0) lose to it, and the
    /// fallback keeps the leaf's class. With public labels exactly balanced everywhere
    /// every T is 0 and the class is 0 (η = 1/2 is not > 1/2).
    #[test]
    fn v1_noise_dominated_nodes_fall_back_to_public_estimates() {
        let part = complete_max_edge(1, 2); // leaves [0,.25), [.25,.5), [.5,.75), [.75,1]
        let shape = part.shape();
        let n_p = 1_000_000;
        let u = [250_000.0; 4];
        let v = [10_000.0, 240_000.0, 10_000.0, 240_000.0];
        let uq = [25.0; 4];
        let vq = [20.0, 5.0, 20.0, 5.0];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        let c = config(n_p, 1000.0, 2, 1);
        assert_eq!(v1(&shape, &s, &c), vec![1.0, 0.0, 1.0, 0.0]);
        let vq = [12.5; 4];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        assert_eq!(v1(&shape, &s, &c), vec![0.0; 4]);
    }

    /// A ratio above 1 is truncated to 1 and skips the noise test (case (c)): with a weak
    /// public majority of the same sign (T_Q ≈ 0.09) the λ*-weighted estimate has
    /// T ≈ 3.7 (B ≈ 4.2e4, λ* ≈ 1.7): class 1 from the private sums.
    #[test]
    fn v1_truncated_ratio_uses_the_private_sums() {
        let part = complete_max_edge(1, 1);
        let shape = part.shape();
        let u = [5_000.0, 5_000.0];
        let v = [6_000.0, 6_000.0];
        let uq = [10.0, 10.0];
        let vq = [6.0, 6.0];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        let c = config(10_000, 8.0, 1, 1);
        assert_eq!(v1(&shape, &s, &c), vec![1.0, 1.0]);
    }

    /// A leaf without public points has class 1 and T = 0 (code quirk Q3); its parent,
    /// with a clear public majority and trusted, decides.
    #[test]
    fn v1_walks_up_to_a_trusted_parent() {
        let part = complete_max_edge(1, 2);
        let shape = part.shape();
        let u = [0.0; 4];
        let v = [0.0; 4];
        let uq = [0.0, 400.0, 400.0, 400.0];
        let vq = [0.0, 0.0, 400.0, 400.0];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        let c = config(1000, 1.0, 2, 0);
        // Leaf 0 (no public point) → parent [0, .5) pools 400 public zeros: T_Q =
        // 0.5·sqrt(400/(ln 100 + 2)) ≈ 4 ≥ 1 → class 0.
        assert_eq!(v1(&shape, &s, &c), vec![0.0, 0.0, 1.0, 1.0]);
    }

    /// Algorithm 2: noise-dominated levels whose private estimate beats the public one at
    /// depth ≤ p_min raise the flag; a strong public signal does not.
    #[test]
    fn paper_flag_and_public_signal() {
        let part = complete_max_edge(1, 2);
        let shape = part.shape();
        let uq = [400.0; 4];
        let vq = [400.0, 0.0, 400.0, 0.0];
        let u = [10.0; 4];
        let v = [5.0; 4];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        let c = config(10_000, 0.5, 2, 1);
        assert_eq!(
            prune_paper(&shape, &s, &c),
            PaperPrune::Classes(vec![1.0, 0.0, 1.0, 0.0])
        );
        // No public signal (balanced), a private signal in the pooled counts: at the
        // leaves v_Q = 0 ≤ v_P and depth 2 > p_min = 1, so the walk goes on; at depth 1
        // the private estimate wins again and the flag is raised.
        let vq = [200.0; 4];
        let v = [9.0; 4];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        assert_eq!(prune_paper(&shape, &s, &c), PaperPrune::SecondRound);
    }

    /// A hand-made unbalanced tree (p0 = 3) in our depth-first numbering:
    ///
    /// ```text
    /// node 0 root ─┬─ left:  node 1, leaf A (id 0), depth 1
    ///              └─ right: node 2 ─┬─ left:  node 3 ─┬─ left:  node 4, leaf D (id 1), depth 3
    ///                                │                  └─ right: node 5, leaf E (id 2), depth 3
    ///                                └─ right: node 6, leaf F (id 3), depth 2
    /// ```
    fn unbalanced() -> Partition {
        let split = |left, right| Node::Split {
            feature: 0,
            threshold: 0.5,
            left,
            right,
        };
        let leaf = |leaf| Node::Leaf { leaf };
        Partition {
            nodes: vec![
                split(1, 2),
                leaf(0),
                split(3, 6),
                split(4, 5),
                leaf(1),
                leaf(2),
                leaf(3),
            ],
            domain_lo: vec![0.0],
            domain_hi: vec![1.0],
            cells: vec![(vec![0.0], vec![1.0]); 4],
            leaf_means: vec![0.0; 4],
            leaf_counts: vec![0; 4],
        }
    }

    /// The code creates nodes breadth first, the right child before the left: root,
    /// node 2, A, F, node 3, E, D.
    #[test]
    fn code_walk_order_is_breadth_first_right_before_left() {
        assert_eq!(code_walk_order(&unbalanced().nodes), vec![0, 3, 2, 1]);
        // A complete depth-2 tree numbered depth first, leaves 0..3 from left to right.
        let part = complete_max_edge(1, 2);
        assert_eq!(code_walk_order(&part.nodes), vec![3, 2, 1, 0]);
    }

    fn sums_of(leaves: [(f64, f64, f64, f64); 4], shape: &TreeShape) -> Vec<NodeSums> {
        let col = |f: fn(&(f64, f64, f64, f64)) -> f64| leaves.iter().map(f).collect::<Vec<_>>();
        let (u, v, uq, vq) = (col(|l| l.0), col(|l| l.1), col(|l| l.2), col(|l| l.3));
        pooled_sums(shape, (&u, &v), (&uq, &vq))
    }

    /// Q1 (heights counted along the walk). Public counts only (Ũ = Ṽ = 0: every node is
    /// public-only, T = |s_Q|·sqrt(U_Q/L_Q) with L_Q = ln 400 + k + 1). The shallow leaf A
    /// (depth 1, U_Q = 100, V_Q = 80): at its true level k = 1, L_Q = 7.99 and T = 0.3·
    /// sqrt(100/7.99) = 1.06 ≥ 1, so A keeps its class 1. The code evaluates A at h = 0,
    /// k = p0 = 3: L_Q = 9.99, T = 0.95 < 1, so A walks to the root, which A reaches first
    /// and so fixes at h = 1, k = 2 (its true depth is 0): U_Q = 400, V_Q = 100, T = 0.25·
    /// sqrt(400/8.99) = 1.67, class 0. D, E (T = 0.4·sqrt(100/9.99) = 1.26) and F keep
    /// their class 0 either way. With p_min = p0 = 3 the paper's walk stops at every leaf,
    /// while the code's walk climbs one step all the same.
    #[test]
    fn q1_heights_along_the_walk_change_a_shallow_leafs_class() {
        let part = unbalanced();
        let shape = part.shape();
        let order = code_walk_order(&part.nodes);
        let sums = sums_of(
            [
                (0.0, 0.0, 100.0, 80.0),
                (0.0, 0.0, 100.0, 10.0),
                (0.0, 0.0, 100.0, 10.0),
                (0.0, 0.0, 100.0, 0.0),
            ],
            &shape,
        );
        let q1 = V1Quirks {
            walk_heights: true,
            ..V1Quirks::NONE
        };
        for p_min in [0, 3] {
            let c = PruneConfig {
                n_p: 10_000,
                n_q: 400,
                epsilon: 1000.0,
                p0: 3,
                p_min,
            };
            let run = |q| prune_reference_v1(&shape, &sums, &c, q, &order);
            assert_eq!(
                run(V1Quirks::NONE),
                vec![1.0, 0.0, 0.0, 0.0],
                "p_min {p_min}"
            );
            assert_eq!(run(q1), vec![0.0, 0.0, 0.0, 0.0], "p_min {p_min}");
            assert_eq!(run(V1Quirks::AS_CODED), run(q1), "p_min {p_min}");
        }
    }

    /// The sums and sizes of the revisit case on [`unbalanced`]: two leaves below node 3
    /// that both reach it (see `q2_a_revisit_with_the_stored_lambda_changes_t`).
    fn revisit_case(shape: &TreeShape) -> (Vec<NodeSums>, PruneConfig) {
        let sums = sums_of(
            [
                (0.0, 0.0, 100.0, 100.0),
                (250.0, 350.0, 5.0, 3.0),
                (250.0, 350.0, 5.0, 3.0),
                (0.0, -1000.0, 200.0, 0.0),
            ],
            shape,
        );
        let c = PruneConfig {
            n_p: 10_000,
            n_q: 400,
            epsilon: 1000.0,
            p0: 3,
            p_min: 0,
        };
        (sums, c)
    }

    /// Q2 (λ* kept on revisits), at ε = 1000, n_P = 10⁴, n_Q = 400, p0 = 3, p_min = 0.
    /// D and E carry Ũ = 250, Ṽ = 350 (a ratio above 1), U_Q = 5, V_Q = 3: each leaf has
    /// T = 0.68 < 1. Their parent (node 3, k = 2, h = 1, B = 10,228) pools Ũ = 500, Ṽ =
    /// 700, U_Q = 10, V_Q = 6: Ṽ is truncated to Ũ, λ* = (B/Ũ)(s_Q/s_P) = 4.09 and T =
    /// 0.71 < 1, so the walk goes on to node 2, whose pooled Ṽ = 700 − 1000 < 0 leaves the
    /// public counts (U_Q = 210, V_Q = 6, T = 2.4): class 0. E walks first (the code's
    /// order A, F, E, D) and takes class 0. When D revisits node 3 the code uses the
    /// stored λ* with the untruncated Ṽ = 700: T = 1.27 ≥ 1, so D takes node 3's class 1;
    /// evaluated once, node 3 still has T = 0.71 and D takes class 0 like E.
    #[test]
    fn q2_a_revisit_with_the_stored_lambda_changes_t() {
        let part = unbalanced();
        let shape = part.shape();
        let order = code_walk_order(&part.nodes);
        let (sums, c) = revisit_case(&shape);
        let q2 = V1Quirks {
            fixed_lambda_revisits: true,
            ..V1Quirks::NONE
        };
        let run = |q| prune_reference_v1(&shape, &sums, &c, q, &order);
        assert_eq!(run(V1Quirks::NONE), vec![1.0, 0.0, 0.0, 0.0]);
        assert_eq!(run(q2), vec![1.0, 1.0, 0.0, 0.0]);
        assert_eq!(run(V1Quirks::AS_CODED), run(q2));
        // Walked in the other order, E is the one that revisits.
        assert_eq!(
            prune_reference_v1(&shape, &sums, &c, q2, &[0, 1, 2, 3]),
            vec![1.0, 0.0, 1.0, 0.0]
        );
    }

    /// Without quirks the statistic of every node is fixed, so the walk order does not
    /// matter (the default's results do not depend on how leaves are numbered).
    #[test]
    fn without_quirks_the_order_does_not_matter() {
        let part = unbalanced();
        let shape = part.shape();
        let (sums, c) = revisit_case(&shape);
        let a = prune_reference_v1(&shape, &sums, &c, V1Quirks::NONE, &[0, 1, 2, 3]);
        let b = prune_reference_v1(&shape, &sums, &c, V1Quirks::NONE, &[3, 2, 1, 0]);
        assert_eq!(a, b);
    }

    #[test]
    fn second_round_is_the_private_ratio() {
        assert_eq!(
            second_round_classes(&[10.0, 10.0, -1.0], &[6.0, 4.0, -1.0]),
            vec![1.0, 0.0, 1.0]
        );
    }
}
