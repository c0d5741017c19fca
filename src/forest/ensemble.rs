//! Forests of DiPriMe trees (card diprime.md §3.9): rows shared out to the trees, one
//! seeded sub-stream per tree, predictions averaged.

use super::budget::TreeRows;
use super::ranges::Ranges;
use super::tree::{Tree, TreeConfig};
use super::ForestError;
use crate::data::Matrix;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A fitted forest.
#[derive(Debug, Clone)]
pub struct Forest {
    /// The N_T trees.
    pub trees: Vec<Tree>,
}

/// The training rows of each of `trees` trees over `n` rows: `Disjoint` shuffles `0..n`
/// with `rng` and cuts it into `trees` consecutive blocks whose sizes differ by at most 1
/// (the first `n mod trees` blocks are one longer); `All` gives every tree `0..n` and
/// draws nothing.
pub fn tree_rows<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    trees: usize,
    rows: TreeRows,
) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..n).collect();
    match rows {
        TreeRows::All => vec![all; trees],
        TreeRows::Disjoint => {
            let mut idx = all;
            idx.shuffle(rng);
            let (q, r) = (n / trees, n % trees);
            let mut out = Vec::with_capacity(trees);
            let mut at = 0;
            for t in 0..trees {
                let len = q + usize::from(t < r);
                out.push(idx[at..at + len].to_vec());
                at += len;
            }
            out
        }
    }
}

impl Forest {
    /// Fits `trees` trees on (`x`, `y`) with the root dict `ranges`: first the row shares
    /// ([`tree_rows`]), then one u64 seed per tree drawn from `rng` up front, so each tree
    /// draws from its own `Pcg64` stream and the result does not depend on the order or the
    /// threads the trees are fitted in.
    ///
    /// # Errors
    /// From [`Tree::fit`].
    pub fn fit<R: Rng + ?Sized>(
        x: &Matrix,
        y: &[f64],
        ranges: &Ranges,
        cfg: &TreeConfig,
        (trees, rows): (usize, TreeRows),
        rng: &mut R,
    ) -> Result<Forest, ForestError> {
        let shares = tree_rows(rng, x.n, trees.max(1), rows);
        let seeds: Vec<u64> = shares.iter().map(|_| rng.gen()).collect();
        let trees = shares
            .into_iter()
            .zip(seeds)
            .map(|(rows, seed)| {
                let mut r = Pcg64::seed_from_u64(seed);
                Tree::fit(x, y, rows, ranges.clone(), cfg, &mut r)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Forest { trees })
    }

    /// The mean over trees of the leaf values for every row of `x` (regression
    /// predictions; for classification the averaged fractions, thresholded by the caller).
    pub fn predict_mean(&self, x: &Matrix) -> Vec<f64> {
        let t = self.trees.len() as f64;
        (0..x.n)
            .map(|i| {
                self.trees
                    .iter()
                    .map(|tr| tr.predict(x.row(i)))
                    .sum::<f64>()
                    / t
            })
            .collect()
    }
}
