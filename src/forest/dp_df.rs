//! DP-DF (Fletcher & Islam 2015) as the DiPriMe authors ran it (card docs/methods/diprime.md §4.6), on
//! the 5-bin discretised features of [`super::discretize`]; classification only.
//!
//! **Budget.** `trees` trees on all training rows, each with ε/`trees`, split into 2h − 1
//! equal queries along a root-to-leaf path (h = `height`): every query spends
//! e_q = ε/(N_T(2h − 1)). The ε here is the one the method is *called* with; the tables
//! call it with 1.0 where the paper says 2, which a spec writes as `epsilon_factor: 0.5`.
//!
//! **Node.**
//! 1. noisy counts of the classes present in the node: ñ_c = max(0, trunc(n_c + Lap(1/e_q)))
//!    (truncation towards zero, as Python's `int`); absent classes count 0; s = Σ ñ_c;
//! 2. leaf if s = 0 (it then votes its parent's majority class with its parent's
//!    confidence; an empty root votes class 0 with weight 0), if no attribute is left, if
//!    one class only is present in the data, or — with the height limit
//!    ([`DpDfParams::height_limit`]) — at depth h − 1 (h levels, so a path makes 2h − 1
//!    queries);
//! 3. otherwise an attribute is drawn by the exponential mechanism over every remaining
//!    attribute (at the root, with `root_exclusion`, minus those earlier trees used as
//!    roots, unless that leaves none): score the Gini gain
//!    Gini(node) − Σ_v (n_v/n) Gini(v) on exact counts, sensitivity
//!    1 − ((s/(s+1))² + (1/(s+1))²), weight exp(min(50, e_q·gain/(2·sens)));
//! 4. one child per value of the attribute present in the node; the attribute leaves the
//!    subtree.
//!
//! As run the tracer argument is 0, which switches off both the height limit and the root
//! exclusion: trees grow until attributes or rows run out (`reference_quirks`).
//!
//! **Pruning** (optional, bottom-up): a node whose children are all leaves and which has a
//! grandparent becomes a leaf when the size-weighted mean Gini of its children (noisy
//! counts) is ≥ its own Gini (noisy counts) ([`PruneRule::BottomUp`]). The authors' code
//! weights by the node's own noisy size, stores a size-0 leaf as one row, and cascades
//! each pruning to the parent ([`PruneRule::AsRun`], `reference_quirks`).
//!
//! **Prediction.** A node votes its noisy majority class (the first on ties) with weight
//! its confidence ñ_max/s; the forest predicts the class with the largest summed weight
//! (the smallest on ties). Where a tree's vote comes from ([`Descent`]): as run, the child
//! keys are strings compared with the record's floats, so the descent never leaves the root
//! and DP-DF predicts every record by the trees' noisy root majorities
//! ([`Descent::RootOnly`]); as intended ([`Descent::Categories`]), the record descends to
//! the child of its value while there is one, and the node where it stops votes.
//!
//! Draw order: trees in order, each from its own stream seeded by a u64 drawn up front;
//! within a tree, nodes in pre-order, each its count noise (classes in order) then the
//! mechanism's uniform.

use super::discretize::Coded;
use super::sklearn::argmax_first;
use crate::privacy::ledger::{self, Subjects};
use crate::privacy::{exponential_weights_release, Normalisation};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// One node's noisy class counts (card §4.6 step 1): max(0, trunc(n_c + Lap(1/e_q))) for
/// the classes present in the node (n_c > 0), in order, and exactly 0 for absent ones,
/// which draw nothing.
///
/// Ledger: charges `rows` (the node's rows in the private training sample), at the draw,
/// 1/b (one row moves one count by 1; [`super::dp_rf::node_counts_release`] over the
/// present classes' counts), and records which classes are present as a private quantity:
/// an absent class's exact 0 shows it (card §4.6 step 1).
pub fn noisy_present_counts<R: Rng + ?Sized>(
    exact: &[usize],
    e_q: f64,
    rows: &[usize],
    rng: &mut R,
) -> Vec<f64> {
    if exact.contains(&0) {
        ledger::private_quantity("classes present", || {
            "DP-DF releases an absent class's count as an exact 0: which classes a node holds shows"
                .into()
        });
    }
    // The present classes' counts, released in order; absent ones stay an exact 0.
    let mut present: Vec<f64> = exact
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| k as f64)
        .collect();
    super::dp_rf::node_counts_release(&mut present, e_q, rows, rng);
    let mut noisy = present.into_iter();
    exact
        .iter()
        .map(|&k| match k {
            0 => 0.0,
            _ => noisy
                .next()
                .expect("one release per present class")
                .trunc()
                .max(0.0),
        })
        .collect()
}

/// Where a tree's vote for a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Descent {
    /// The root, for every record (as run).
    RootOnly,
    /// The deepest node on the record's path of category children (as intended).
    Categories,
}

/// How a pruned tree is pruned (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PruneRule {
    /// The card's rule, post-order: a node with a grandparent whose children are all
    /// leaves becomes a leaf when Σ_children (s_child/Σ s) Gini(child) ≥ Gini(node)
    /// (paper).
    BottomUp,
    /// The authors' code (DP_Tree.py `_prune_leaf`): the same test with the children
    /// weighted by s_child/s_node, a leaf of noisy size 0 stored as one row of its parent's
    /// class (size 1, Gini 0), and after each pruning the test is applied to the parent
    /// too (when it is not the root), whether or not its other children are leaves.
    AsRun,
}

/// DP-DF arguments (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpDfParams {
    /// Number of trees N_T (≥ 1).
    pub trees: usize,
    /// Maximum height h (≥ 1): enters e_q always, the tree shape only with `height_limit`.
    pub height: usize,
    /// Stop at depth h − 1 (intended; off as run).
    pub height_limit: bool,
    /// Exclude earlier trees' root attributes at the root (intended; off as run).
    pub root_exclusion: bool,
    /// Bottom-up pruning.
    pub prune: bool,
    /// Which pruning rule (when `prune`).
    pub prune_rule: PruneRule,
    /// Prediction path.
    pub descent: Descent,
}

/// The per-query budget e_q = ε/(N_T(2h − 1)).
pub fn query_budget(epsilon: f64, trees: usize, height: usize) -> f64 {
    epsilon / (trees as f64 * (2 * height - 1) as f64)
}

/// A node of a DP-DF tree.
#[derive(Debug, Clone, PartialEq)]
pub struct DpDfNode {
    /// Exact number of training rows (bookkeeping, Fig 3; never released).
    pub rows: usize,
    /// Noisy class counts ñ_c (0 for classes absent from the node).
    pub counts: Vec<f64>,
    /// The class the node votes.
    pub class: usize,
    /// The weight of its vote (ñ_max/s, or the parent's when s = 0).
    pub confidence: f64,
    /// The split attribute and (category, child) pairs, None for a leaf.
    pub split: Option<(usize, Vec<(usize, usize)>)>,
}

/// One DP-DF tree, nodes in pre-order (pruning keeps unreachable nodes in the list).
#[derive(Debug, Clone, PartialEq)]
pub struct DpDfTree {
    /// Nodes; `nodes[0]` is the root.
    pub nodes: Vec<DpDfNode>,
}

impl DpDfTree {
    /// The node that votes for row i of `x` under `descent`.
    pub fn voter(&self, x: &Coded, i: usize, descent: Descent) -> &DpDfNode {
        let mut node = &self.nodes[0];
        if descent == Descent::RootOnly {
            return node;
        }
        while let Some((a, children)) = &node.split {
            let v = x.get(i, *a);
            match children.iter().find(|(c, _)| *c == v) {
                Some(&(_, child)) => node = &self.nodes[child],
                None => break,
            }
        }
        node
    }

    /// The nodes without children that are reachable from the root (the leaves after
    /// pruning).
    pub fn leaves(&self) -> Vec<&DpDfNode> {
        let mut out = Vec::new();
        let mut stack = vec![0];
        while let Some(j) = stack.pop() {
            match &self.nodes[j].split {
                None => out.push(&self.nodes[j]),
                Some((_, ch)) => stack.extend(ch.iter().rev().map(|&(_, c)| c)),
            }
        }
        out
    }
}

/// A fitted DP-DF.
#[derive(Debug, Clone, PartialEq)]
pub struct DpDf {
    /// The trees.
    pub trees: Vec<DpDfTree>,
    /// Number of classes C.
    pub classes: usize,
    /// Prediction path.
    pub descent: Descent,
}

/// Fits DP-DF at the called budget `epsilon` on coded rows `x` and class labels `y`
/// (0..C−1).
///
/// # Panics
/// If `y.len() != x.n`, ε ≤ 0, trees or height is 0, or a label is not in 0..C.
pub fn fit_dp_df(
    x: &Coded,
    y: &[f64],
    classes: usize,
    p: &DpDfParams,
    epsilon: f64,
    rng: &mut Pcg64,
) -> DpDf {
    assert_eq!(y.len(), x.n, "DP-DF: one label per row");
    assert!(epsilon > 0.0 && epsilon.is_finite(), "DP-DF: epsilon > 0");
    assert!(
        p.trees >= 1 && p.height >= 1,
        "DP-DF: trees and height >= 1"
    );
    assert!(
        y.iter()
            .all(|&v| v >= 0.0 && v.fract() == 0.0 && (v as usize) < classes),
        "DP-DF: class labels must be integers in 0..{classes}"
    );
    let e_q = query_budget(epsilon, p.trees, p.height);
    let seeds: Vec<u64> = (0..p.trees).map(|_| rng.gen()).collect();
    let mut used_roots: Vec<usize> = Vec::new();
    let mut trees = Vec::with_capacity(p.trees);
    for s in seeds {
        let mut r = Pcg64::seed_from_u64(s);
        let mut g = Grower {
            x,
            y,
            classes,
            p,
            e_q,
            rng: &mut r,
            nodes: Vec::new(),
            excluded: if p.root_exclusion {
                used_roots.clone()
            } else {
                Vec::new()
            },
        };
        let mut rows: Vec<usize> = (0..x.n).collect();
        let attrs: Vec<usize> = (0..x.d).collect();
        g.grow(&mut rows, &attrs, 0, (0, 0.0));
        let mut tree = DpDfTree { nodes: g.nodes };
        if p.prune {
            match p.prune_rule {
                PruneRule::BottomUp => prune(&mut tree, 0, 0),
                PruneRule::AsRun => prune_as_run(&mut tree, 0, &mut Vec::new()),
            }
        }
        if let Some((a, _)) = tree.nodes[0].split {
            used_roots.push(a);
        }
        trees.push(tree);
    }
    DpDf {
        trees,
        classes,
        descent: p.descent,
    }
}

impl DpDf {
    /// The predicted class (as f64) of every row of `x`.
    pub fn predict(&self, x: &Coded) -> Vec<f64> {
        (0..x.n)
            .map(|i| {
                let mut votes = vec![0.0; self.classes];
                for t in &self.trees {
                    let v = t.voter(x, i, self.descent);
                    votes[v.class] += v.confidence;
                }
                argmax_first(&votes) as f64
            })
            .collect()
    }
}

/// Gini impurity 1 − Σ (c/s)² of counts with total s (0 when s = 0).
fn gini(counts: &[f64]) -> f64 {
    let s: f64 = counts.iter().sum();
    if s <= 0.0 {
        return 0.0;
    }
    1.0 - counts.iter().map(|c| (c / s) * (c / s)).sum::<f64>()
}

/// Bottom-up pruning of the subtree at `node` (depth `depth`), see the module docs.
fn prune(t: &mut DpDfTree, node: usize, depth: usize) {
    let Some((_, children)) = t.nodes[node].split.clone() else {
        return;
    };
    for &(_, c) in &children {
        prune(t, c, depth + 1);
    }
    if depth < 2 || children.iter().any(|&(_, c)| t.nodes[c].split.is_some()) {
        return;
    }
    let total: f64 = children
        .iter()
        .map(|&(_, c)| t.nodes[c].counts.iter().sum::<f64>())
        .sum();
    let mean_child = if total > 0.0 {
        children
            .iter()
            .map(|&(_, c)| t.nodes[c].counts.iter().sum::<f64>() / total * gini(&t.nodes[c].counts))
            .sum()
    } else {
        0.0
    };
    if mean_child >= gini(&t.nodes[node].counts) {
        t.nodes[node].split = None;
    }
}

/// A node's noisy size and Gini as the authors' code stores them: a leaf of noisy size 0
/// holds `{parent class: 1}`, so size 1 and Gini 0.
fn stored_size_gini(n: &DpDfNode) -> (f64, f64) {
    let s: f64 = n.counts.iter().sum();
    if s > 0.0 {
        (s, gini(&n.counts))
    } else {
        (1.0, 0.0)
    }
}

/// The authors' traversal (DP_Tree.py `_traverse_down` with pruning): children first,
/// then a node with a grandparent whose children are all leaves is tested
/// ([`prune_leaf_as_run`]). `path` holds the ancestors of `node`, root first.
fn prune_as_run(t: &mut DpDfTree, node: usize, path: &mut Vec<usize>) {
    let Some((_, children)) = t.nodes[node].split.clone() else {
        return;
    };
    path.push(node);
    // The list as it was when the loop began: a cascade may make `node` a leaf meanwhile,
    // and the code goes on over its (now unreachable) children, which is harmless.
    for &(_, c) in &children {
        prune_as_run(t, c, path);
    }
    path.pop();
    if let Some((_, now)) = &t.nodes[node].split {
        if path.len() >= 2 && now.iter().all(|&(_, c)| t.nodes[c].split.is_none()) {
            prune_leaf_as_run(t, node, path);
        }
    }
}

/// DP_Tree.py `_prune_leaf`: `node` (ancestors `path`, root first) becomes a leaf when
/// Σ_children (s_child/s_node)·Gini(child) ≥ Gini(node), sizes and Ginis as stored
/// ([`stored_size_gini`]); after a pruning, its parent is tested the same way when the
/// parent is not the root.
fn prune_leaf_as_run(t: &mut DpDfTree, node: usize, path: &[usize]) {
    let Some((_, children)) = t.nodes[node].split.clone() else {
        return;
    };
    let (size, own) = stored_size_gini(&t.nodes[node]);
    let average: f64 = children
        .iter()
        .map(|&(_, c)| {
            let (s, g) = stored_size_gini(&t.nodes[c]);
            g * s / size
        })
        .sum();
    if average >= own {
        t.nodes[node].split = None;
        if path.len() >= 2 {
            let (parent, above) = path.split_last().expect("two ancestors");
            prune_leaf_as_run(t, *parent, above);
        }
    }
}

/// Growth state of one DP-DF tree.
struct Grower<'a> {
    x: &'a Coded,
    y: &'a [f64],
    classes: usize,
    p: &'a DpDfParams,
    e_q: f64,
    rng: &'a mut Pcg64,
    nodes: Vec<DpDfNode>,
    excluded: Vec<usize>,
}

impl Grower<'_> {
    /// Grows the node of `rows`; `parent` is the parent's (class, confidence).
    fn grow(
        &mut self,
        rows: &mut [usize],
        attrs: &[usize],
        depth: usize,
        parent: (usize, f64),
    ) -> usize {
        let c = self.classes;
        let mut exact = vec![0usize; c];
        for &i in rows.iter() {
            exact[self.y[i] as usize] += 1;
        }
        let counts = noisy_present_counts(&exact, self.e_q, rows, self.rng);
        let s: f64 = counts.iter().sum();
        let (class, confidence) = if s > 0.0 {
            let m = argmax_first(&counts);
            (m, counts[m] / s)
        } else {
            parent
        };
        let id = self.nodes.len();
        self.nodes.push(DpDfNode {
            rows: rows.len(),
            counts,
            class,
            confidence,
            split: None,
        });
        let present = exact.iter().filter(|&&k| k > 0).count();
        let capped = self.p.height_limit && depth + 1 >= self.p.height;
        if s == 0.0 || attrs.is_empty() || present <= 1 || capped {
            return id;
        }
        let mut cands: Vec<usize> = attrs.to_vec();
        if depth == 0 && !self.excluded.is_empty() {
            let kept: Vec<usize> = attrs
                .iter()
                .copied()
                .filter(|a| !self.excluded.contains(a))
                .collect();
            if !kept.is_empty() {
                cands = kept;
            }
        }
        let n = rows.len() as f64;
        let parent_gini = gini(&exact.iter().map(|&k| k as f64).collect::<Vec<_>>());
        let sens = 1.0 - ((s / (s + 1.0)).powi(2) + (1.0 / (s + 1.0)).powi(2));
        let gains: Vec<f64> = cands
            .iter()
            .map(|&a| {
                let mut t = vec![0.0; self.x.levels[a] * c];
                for &i in rows.iter() {
                    t[self.x.get(i, a) * c + self.y[i] as usize] += 1.0;
                }
                let children: f64 = t
                    .chunks(c)
                    .map(|ch| ch.iter().sum::<f64>() / n * gini(ch))
                    .sum();
                parent_gini - children
            })
            .collect();
        let log_w: Vec<f64> = gains
            .iter()
            .map(|gain| (self.e_q * gain / (2.0 * sens)).min(50.0))
            .collect();
        // Weights e_q·gain/(2·sens) (capped at 50) with the sensitivity sens of the Gini
        // gain the method states, computed from the noisy size s; charged at the draw for
        // that coefficient, or the steeper one the weights realise on the gains.
        let spend = (self.e_q / (2.0 * sens), sens);
        let who = ("split choice", Subjects::Rows(rows));
        let norm = Normalisation::LogSumExp;
        let a = cands[exponential_weights_release(self.rng, &gains, &log_w, norm, spend, who)];
        let x = self.x;
        rows.sort_by_key(|&i| (x.get(i, a), i));
        let rest: Vec<usize> = attrs.iter().copied().filter(|&b| b != a).collect();
        let mut children = Vec::new();
        let mut start = 0;
        while start < rows.len() {
            let v = x.get(rows[start], a);
            let end = start + rows[start..].partition_point(|&i| x.get(i, a) == v);
            let child = self.grow(&mut rows[start..end], &rest, depth + 1, (class, confidence));
            children.push((v, child));
            start = end;
        }
        self.nodes[id].split = Some((a, children));
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attribute 0 (2 levels) decides the label on rows of level 0 and 1; class 0 is the
    /// majority (2/3 of the rows).
    fn data(n: usize) -> (Coded, Vec<f64>) {
        let mut codes = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let a = u32::from(i % 3 == 0);
            codes.extend([a, (i % 2) as u32]);
            y.push(f64::from(a));
        }
        (
            Coded {
                n,
                d: 2,
                codes,
                levels: vec![2, 2],
            },
            y,
        )
    }

    fn params(descent: Descent) -> DpDfParams {
        DpDfParams {
            trees: 5,
            height: 3,
            height_limit: false,
            root_exclusion: false,
            prune: false,
            prune_rule: PruneRule::BottomUp,
            descent,
        }
    }

    #[test]
    fn root_only_predicts_the_majority_and_categories_descend() {
        let (x, y) = data(300);
        let mut rng = Pcg64::seed_from_u64(1);
        let quirk = fit_dp_df(&x, &y, 2, &params(Descent::RootOnly), 50.0, &mut rng);
        // Every record gets the noisy root majority: class 0 (200 of 300 rows).
        assert!(quirk.predict(&x).iter().all(|&p| p == 0.0));
        let mut rng = Pcg64::seed_from_u64(1);
        let paper = fit_dp_df(&x, &y, 2, &params(Descent::Categories), 50.0, &mut rng);
        // Same trees (same draws), but records descend to the pure children of attribute 0.
        assert_eq!(paper.trees, quirk.trees);
        assert_eq!(paper.predict(&x), y);
    }

    #[test]
    fn counts_are_truncated_laplace_of_present_classes_only() {
        // One class present: the root is a leaf whose absent class counts exactly 0 and
        // whose present count is an integer.
        let x = Coded {
            n: 50,
            d: 1,
            codes: vec![0; 50],
            levels: vec![1],
        };
        let y = vec![1.0; 50];
        let mut rng = Pcg64::seed_from_u64(2);
        for _ in 0..50 {
            let f = fit_dp_df(&x, &y, 2, &params(Descent::RootOnly), 1.0, &mut rng);
            let root = &f.trees[0].nodes[0];
            assert!(root.split.is_none());
            assert_eq!(root.counts[0], 0.0);
            assert_eq!(root.counts[1].fract(), 0.0);
            assert!(root.counts[1] >= 0.0);
        }
        assert_eq!(query_budget(1.0, 10, 3), 1.0 / 50.0);
    }

    #[test]
    fn height_limit_caps_the_depth_and_root_exclusion_rotates_roots() {
        // Three informative-ish attributes; without the limit trees use all of them.
        let n = 400;
        let mut rng = Pcg64::seed_from_u64(3);
        let codes: Vec<u32> = (0..n * 3).map(|_| rng.gen_range(0..3)).collect();
        let x = Coded {
            n,
            d: 3,
            codes,
            levels: vec![3, 3, 3],
        };
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(x.get(i, 0) + x.get(i, 1) + x.get(i, 2) >= 3))
            .collect();
        let depth = |t: &DpDfTree| -> usize {
            fn rec(t: &DpDfTree, j: usize) -> usize {
                match &t.nodes[j].split {
                    None => 0,
                    Some((_, ch)) => 1 + ch.iter().map(|&(_, c)| rec(t, c)).max().unwrap(),
                }
            }
            rec(t, 0)
        };
        let free = fit_dp_df(&x, &y, 2, &params(Descent::Categories), 100.0, &mut rng);
        assert!(free.trees.iter().any(|t| depth(t) == 3));
        let p = DpDfParams {
            height: 2,
            height_limit: true,
            root_exclusion: true,
            trees: 3,
            ..params(Descent::Categories)
        };
        let capped = fit_dp_df(&x, &y, 2, &p, 100.0, &mut rng);
        let mut roots: Vec<usize> = capped
            .trees
            .iter()
            .map(|t| {
                assert!(depth(t) <= 1);
                t.nodes[0].split.as_ref().unwrap().0
            })
            .collect();
        roots.sort();
        assert_eq!(roots, vec![0, 1, 2]);
    }

    #[test]
    fn pruning_collapses_useless_splits_below_the_grandparent_level() {
        // Labels depend on attribute 0 only; attributes 1, 2 are noise, so splits on them
        // at depth >= 2 do not lower the (noisy) Gini at a large budget and get pruned.
        let n = 800;
        let mut rng = Pcg64::seed_from_u64(4);
        let codes: Vec<u32> = (0..n * 3).map(|_| rng.gen_range(0..2)).collect();
        let x = Coded {
            n,
            d: 3,
            codes,
            levels: vec![2, 2, 2],
        };
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(x.get(i, 0) == 1 && rng.gen_bool(0.7)))
            .collect();
        let p = DpDfParams {
            prune: true,
            ..params(Descent::Categories)
        };
        let a = fit_dp_df(&x, &y, 2, &p, 5.0, &mut Pcg64::seed_from_u64(5));
        let b = fit_dp_df(
            &x,
            &y,
            2,
            &DpDfParams { prune: false, ..p },
            5.0,
            &mut Pcg64::seed_from_u64(5),
        );
        let leaves = |f: &DpDf| f.trees.iter().map(|t| t.leaves().len()).sum::<usize>();
        assert!(leaves(&a) < leaves(&b), "{} vs {}", leaves(&a), leaves(&b));
        // Pruning never touches the two top levels: every tree keeps its root split.
        assert!(a.trees.iter().all(|t| t.nodes[0].split.is_some()));
        // Deterministic.
        assert_eq!(
            a,
            fit_dp_df(&x, &y, 2, &p, 5.0, &mut Pcg64::seed_from_u64(5))
        );
    }

    /// Card §4.6 as run: after a pruning, DP_Tree.py's `_prune_leaf` tests the parent too,
    /// although the parent's other child still has children; the card's rule does not.
    #[test]
    fn as_run_pruning_cascades_to_the_parent_and_the_card_rule_does_not() {
        let node = |counts: [f64; 2], split: Option<(usize, Vec<(usize, usize)>)>| DpDfNode {
            rows: counts.iter().sum::<f64>() as usize,
            counts: counts.to_vec(),
            class: 0,
            confidence: 0.5,
            split,
        };
        // root(0) → A(1), H(8); A → B(2), E(5); B → C(3), D(4); E → F(6), G(7).
        // B's children are as mixed as B (mean Gini 0.5 ≥ 0.5): pruned by both rules.
        // E's children are pure (0 < 0.375): kept by both. A (Gini 0.32) against its
        // children as stored, (0.5·60 + 0.375·40)/100 = 0.45 ≥ 0.32: pruned when the
        // pruning of B cascades to it.
        let tree = DpDfTree {
            nodes: vec![
                node([90.0, 30.0], Some((0, vec![(0, 1), (1, 8)]))),
                node([80.0, 20.0], Some((1, vec![(0, 2), (1, 5)]))),
                node([30.0, 30.0], Some((2, vec![(0, 3), (1, 4)]))),
                node([15.0, 15.0], None),
                node([15.0, 15.0], None),
                node([30.0, 10.0], Some((3, vec![(0, 6), (1, 7)]))),
                node([30.0, 0.0], None),
                node([0.0, 10.0], None),
                node([10.0, 10.0], None),
            ],
        };
        let mut as_run = tree.clone();
        prune_as_run(&mut as_run, 0, &mut Vec::new());
        let mut card = tree.clone();
        prune(&mut card, 0, 0);
        let leaf_rows = |t: &DpDfTree| {
            let mut v: Vec<usize> = t.leaves().iter().map(|n| n.rows).collect();
            v.sort_unstable();
            v
        };
        // As run: A and H are the leaves; the root is never pruned.
        assert_eq!(leaf_rows(&as_run), vec![20, 100]);
        assert!(as_run.nodes[0].split.is_some());
        // The card's rule: B becomes a leaf, E keeps its children, so A keeps its split.
        assert_eq!(leaf_rows(&card), vec![10, 20, 30, 60]);
        assert!(card.nodes[1].split.is_some() && card.nodes[5].split.is_some());
    }
}
