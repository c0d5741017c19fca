//! Random max-edge partitions: the split dimension is drawn uniformly among the longest
//! edges of the cell and the cell is cut at its midpoint, so the partition does not
//! depend on labels at all (the data-independent tree of random-forest theory; docs/architecture.md
//! lists it among the partition rules; a building block for baselines defined in YAML).

use super::builder::{grow_halves, lpdt_stop, mean_of, TreeBuilder};
use super::presort::stable_partition;
use super::{Partition, TreeParams};
use crate::data::Matrix;
use rand::Rng;

/// Grows a random max-edge partition of [0,1]^d.
///
/// * `x`, `y`: n×d points and n labels the tree is grown on, or `None` to grow without
///   data: then every cell is split down to depth `p.depth`, with no pruning.
/// * `p`: depth s, min_leaf n_l and min_samples_split as for max-edge (docs/methods/lpdt.md §3 step 1):
///   with data, a node is a leaf when the stop checks fire or when the drawn split leaves a
///   child with fewer than n_l points (the split is pruned, as LPDT's is).
/// * `rng`: the draws of the split dimensions (one per internal node, in depth-first
///   order).
///
/// Leaf means and counts are those of `y` (0 and 0 without data).
pub fn random_max_edge<R: Rng + ?Sized>(
    data: Option<(&Matrix, &[f64])>,
    d: usize,
    p: &TreeParams,
    rng: &mut R,
) -> Partition {
    let mut g = Grower {
        data,
        p,
        rng,
        b: TreeBuilder::new(),
        scratch: Vec::new(),
    };
    let mut idx: Vec<usize> = data.map_or(Vec::new(), |(x, _)| (0..x.n).collect());
    let mut lo = vec![0.0; d];
    let mut hi = vec![1.0; d];
    g.grow(&mut idx, &mut lo, &mut hi, 0);
    g.b.finish(vec![0.0; d], vec![1.0; d])
}

struct Grower<'a, R: Rng + ?Sized> {
    data: Option<(&'a Matrix, &'a [f64])>,
    p: &'a TreeParams,
    rng: &'a mut R,
    b: TreeBuilder,
    scratch: Vec<usize>,
}

impl<R: Rng + ?Sized> Grower<'_, R> {
    fn leaf(&mut self, idx: &[usize], lo: &[f64], hi: &[f64]) -> usize {
        let mean = self.data.map_or(0.0, |(_, y)| mean_of(y, idx));
        self.b.leaf(lo, hi, mean, idx.len())
    }

    fn grow(&mut self, idx: &mut [usize], lo: &mut [f64], hi: &mut [f64], depth: usize) -> usize {
        let stop = match self.data {
            Some((x, y)) => lpdt_stop(x, y, idx, depth, self.p),
            None => depth >= self.p.depth,
        };
        if stop || lo.is_empty() {
            return self.leaf(idx, lo, hi);
        }
        let longest = lo
            .iter()
            .zip(hi.iter())
            .map(|(l, h)| h - l)
            .fold(f64::NEG_INFINITY, f64::max);
        let cand: Vec<usize> = (0..lo.len())
            .filter(|&k| hi[k] - lo[k] == longest)
            .collect();
        let k = cand[self.rng.gen_range(0..cand.len())];
        let c = (lo[k] + hi[k]) / 2.0;
        let n_left = match self.data {
            Some((x, _)) => stable_partition(idx, &mut self.scratch, |i| x.get(i, k) < c),
            None => 0,
        };
        if self.data.is_some() && (n_left < self.p.min_leaf || idx.len() - n_left < self.p.min_leaf)
        {
            return self.leaf(idx, lo, hi);
        }
        let node = self.b.split(k, c);
        let halves = idx.split_at_mut(n_left);
        let (left, right) = grow_halves(lo, hi, k, c, halves, |idx, lo, hi| {
            self.grow(idx, lo, hi, depth + 1)
        });
        self.b.set_children(node, left, right);
        node
    }
}
