//! LPCT-prune: per leaf, the deepest ancestor whose pooled estimate is trusted (LPCT
//! paper §5, Algorithm 2, eqs. 13–14; method card lpct.md §5).
//!
//! Both versions read one round of the users' LPCT releases (Ũ, Ṽ per leaf, lpct.md §3)
//! on a max-edge tree of depth p0 grown on public data, pool them over the leaves below
//! every node, and walk from each leaf towards the root:
//! * [`prune_reference_v1`] — the authors' V1 code, which produced the reported numbers
//!   (lpct.md §5.4): one round with the full ε, the code's statistic, walk down to p_min,
//!   best statistic as the fallback, no flag.
//! * [`prune_paper`] — Algorithm 2 as reconstructed in lpct.md §5.2–§5.3: noise-dominated
//!   and signal-dominated levels, the closed-form λ, and a flag that asks the caller for a
//!   second round on a depth-p_min partition.

use super::lpct::lpct_class;
use crate::partition::TreeShape;

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
    /// p_min: the walk stops at this depth.
    pub p_min: usize,
}

/// A node's class and statistic under the V1 code (lpct.md §5.4, "adaptive" mode).
fn v1_statistic(s: NodeSums, depth: usize, c: &PruneConfig) -> (f64, f64) {
    let k = depth as f64;
    let h = c.p0.saturating_sub(depth) as f64;
    let n_p = c.n_p as f64;
    let eps = c.epsilon;
    let l = ((c.n_p + c.n_q) as f64).ln() + k + 1.0;
    let l_q = (c.n_q as f64).ln() + k + 1.0;
    let noise = 2f64.powf(h + 1.0)
        * (2.0 * (2.0 * n_p).ln() + eps * 2f64.powf(-k / 2.0) * l.sqrt()).powi(2)
        * n_p
        / (eps * eps * l);
    // (a) no public point: class 1, statistic 0 (quirk Q3 of the code).
    if s.u_q <= 0.0 {
        return (1.0, 0.0);
    }
    let eta_q = s.v_q / s.u_q;
    let s_q = eta_q - 0.5;
    let t_q = s_q.abs() * (s.u_q / l_q).sqrt();
    let public_only = (class_of(eta_q), t_q);
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
            public_only
        } else {
            (class_of(eta), t)
        }
    } else {
        let t_p = s_p.abs() * s.u / (l * w).sqrt();
        if t_p < t_q {
            public_only
        } else {
            (class_of(v / s.u), t_p)
        }
    }
}

fn class_of(eta: f64) -> f64 {
    f64::from(u8::from(eta > 0.5))
}

/// LPCT-prune as the authors' V1 code runs it (lpct.md §5.4), with the paper's semantics
/// for the code's quirks Q1 and Q2: every node is evaluated at its true depth k (h =
/// p0 − k) and once. For each leaf: evaluate the leaf; if its statistic T ≥ 1 keep its
/// class; otherwise move to the parent, and so on, stopping after the node at depth
/// p_min (or the root). If no visited node has T ≥ 1 the leaf takes the class of the
/// visited node with the largest T (the deepest on ties).
///
/// `shape` and `sums` ([`pooled_sums`]) describe the tree; returns the class of every
/// leaf id.
pub fn prune_reference_v1(shape: &TreeShape, sums: &[NodeSums], c: &PruneConfig) -> Vec<f64> {
    let stats: Vec<(f64, f64)> = sums
        .iter()
        .zip(&shape.depth)
        .map(|(&s, &d)| v1_statistic(s, d, c))
        .collect();
    shape
        .leaf_node
        .iter()
        .map(|&leaf| {
            let mut node = leaf;
            let mut best = stats[node];
            loop {
                let (class, t) = stats[node];
                if t >= 1.0 {
                    return class;
                }
                if t > best.1 {
                    best = (class, t);
                }
                match shape.parent[node] {
                    Some(p) if shape.depth[node] > c.p_min => node = p,
                    _ => return best.0,
                }
            }
        })
        .collect()
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

/// A level's estimate and signal-to-noise statistic v under Algorithm 2 (lpct.md §5.2,
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

/// LPCT-prune as the LPCT paper's Algorithm 2 states it (lpct.md §5.2–§5.3): the first
/// round's sums (budget ε/2, passed as `c.epsilon`) are pooled per node; each leaf walks
/// from its own depth up to depth 1, stopping at the first level with v ≥ 1, or — when a
/// noise-dominated level at depth ≤ p_min prefers the private-only estimate — raising
/// the flag. The log is natural; the thresholds use the first round's budget ε/2 (the
/// paper writes ε; lpct.md §5.2 "Reconstruction notes"). Without a trusted level the
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
    use crate::partition::complete_max_edge;

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
        assert_eq!(prune_reference_v1(&shape, &s, &c), vec![1.0, 0.0, 1.0, 0.0]);
        let vq = [12.5; 4];
        let s = pooled_sums(&shape, (&u, &v), (&uq, &vq));
        assert_eq!(prune_reference_v1(&shape, &s, &c), vec![0.0; 4]);
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
        assert_eq!(prune_reference_v1(&shape, &s, &c), vec![1.0, 1.0]);
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
        assert_eq!(prune_reference_v1(&shape, &s, &c), vec![0.0, 0.0, 1.0, 1.0]);
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

    #[test]
    fn second_round_is_the_private_ratio() {
        assert_eq!(
            second_round_classes(&[10.0, 10.0, -1.0], &[6.0, 4.0, -1.0]),
            vec![1.0, 0.0, 1.0]
        );
    }
}
