//! Forests of DiPriMe trees (card docs/methods/diprime.md §3.9): rows shared out to the trees, one
//! seeded sub-stream per tree, predictions averaged.

use super::budget::{Privacy, TreeRows};
use super::columns::Columns;
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

/// The tree of each row by its own content (the DP mode's disjoint shares): row i goes to
/// tree `h(seed, x_i, y_i) mod trees`, h a 64-bit mix of the seed and the bits of the row's
/// features and label. Adding or removing a row moves no other row between trees, so the
/// shares stay disjoint under add/remove and replace-one neighbours and parallel
/// composition across trees holds (shuffle-then-cut, [`tree_rows`], moves rows when one is
/// added). Shares are in increasing row order.
pub fn tree_rows_by_content(seed: u64, x: &Matrix, y: &[f64], trees: usize) -> Vec<Vec<usize>> {
    fn mix(h: u64, v: u64) -> u64 {
        // SplitMix64's finaliser over h + v.
        let mut z = h.wrapping_add(v).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let mut out = vec![Vec::new(); trees];
    for (i, &label) in y.iter().enumerate().take(x.n) {
        let h = x
            .row(i)
            .iter()
            .chain(std::iter::once(&label))
            .fold(seed, |h, v| mix(h, v.to_bits()));
        out[(h % trees as u64) as usize].push(i);
    }
    out
}

impl Forest {
    /// Fits `trees` trees on (`x`, `y`) with the root dict `ranges`: first the row shares
    /// ([`tree_rows`]; in the DP mode with disjoint rows [`tree_rows_by_content`] from one
    /// u64 seed), then one u64 seed per tree drawn from `rng` up front, so each tree
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
        let mut shares = if cfg.privacy == Privacy::Dp && rows == TreeRows::Disjoint {
            let seed: u64 = rng.gen();
            tree_rows_by_content(seed, x, y, trees.max(1))
        } else {
            tree_rows(rng, x.n, trees.max(1), rows)
        };
        if rows == TreeRows::Disjoint && crate::privacy::mutants::active("overlapping-tree-shares")
        {
            // Slip: each share also takes the next share's first row, while every tree
            // still gets the whole ε.
            let firsts: Vec<Option<usize>> = shares.iter().map(|s| s.first().copied()).collect();
            let t = shares.len();
            for (j, share) in shares.iter_mut().enumerate() {
                if let Some(r) = firsts[(j + 1) % t] {
                    if t > 1 {
                        share.push(r);
                    }
                }
            }
        }
        let seeds: Vec<u64> = shares.iter().map(|_| rng.gen()).collect();
        let cols = Columns::new(x);
        let trees = shares
            .into_iter()
            .zip(seeds)
            .map(|(rows, seed)| {
                let mut r = Pcg64::seed_from_u64(seed);
                Tree::fit_columns(&cols, y, rows, ranges.clone(), cfg, &mut r)
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
