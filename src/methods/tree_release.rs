//! The CART-on-released-data machinery shared by the HistOfTree competitors ParDT, LabelDT
//! and KRR (HistOfTree card §8): the tree grid's curator parameters `max_depth` and
//! `min_samples_leaf`, and a per-fit cache that grows one deepest tree per (release,
//! min_samples_leaf) and answers every `max_depth` from it.
//!
//! Why the cache is exact. The runner gives every (mechanism grid point, ε) a fresh users'
//! stream keyed on the release key, which leaves out curator parameters, so grid points
//! that differ only in `max_depth` / `min_samples_leaf` get the same stream and hence the
//! very same release. The cache is keyed on the stream's state itself (and ε and a tag for
//! release parameters that do not reach the stream), so a hit is the release a fresh draw
//! would give, bit for bit, and the stream is then advanced to the state the draw leaves
//! behind. The depth-p CART is the depth-p prefix of the deepest one (`cart_with`: a node's
//! split does not depend on max_depth), so [`NestedCart::predict_at_depth`] equals the
//! prediction of a tree regrown at depth p (tested).

use super::{MethodError, ParamDecl, ParamKind, ParamRole};
use crate::data::Matrix;
use crate::partition::{cart_nested, CartParams, Missing, NestedCart};
use rand_pcg::Pcg64;
use std::sync::{Arc, Mutex};

/// `max_depth`: the tree depth, a curator parameter (the tree is grown by the curator on
/// the released data).
pub(crate) const MAX_DEPTH: ParamDecl = ParamDecl {
    name: "max_depth",
    role: ParamRole::Curator,
    kind: ParamKind::Int { min: 0 },
    default: None,
    doc: "maximum depth of the curator's CART (sklearn DecisionTreeRegressor) on the released data; card §8 grid [G] 1..10",
};

/// `min_samples_leaf`: sklearn's minimum leaf size, a curator parameter.
pub(crate) const MIN_SAMPLES_LEAF: ParamDecl = ParamDecl {
    name: "min_samples_leaf",
    role: ParamRole::Curator,
    kind: ParamKind::Int { min: 1 },
    default: Some("1"),
    doc: "sklearn's min_samples_leaf of the curator's CART; card §8 grid [G] 1, 5, 10, 20",
};

/// The depth every cached tree is grown to at least: the top of the card's grid (§8 [G]
/// max_depth 1..10). A request for a deeper tree grows that deep instead.
const DEEPEST: usize = 10;

/// What the curator receives: the training matrix it grows on and the noisy labels.
pub(crate) struct Release {
    /// n×d' released (or public) features.
    pub x: Arc<Matrix>,
    /// n noisy labels.
    pub y: Vec<f64>,
    /// How the tree treats NaN entries of `x` (ParDT `impute: nan_aware`).
    pub missing: Missing,
}

/// One cached release with its deepest trees.
struct Entry {
    tag: String,
    epsilon: u64,
    before: Pcg64,
    after: Pcg64,
    release: Arc<Release>,
    /// What drawing the release charged the ledger, charged again to each other
    /// recording that takes it from the cache ([`crate::privacy::ledger::replay`]).
    charged: crate::privacy::ledger::Captured,
    /// (min_samples_leaf, tree).
    trees: Vec<(usize, Arc<Grown>)>,
}

/// A deepest tree and the max_depth it was grown with.
struct Grown {
    tree: NestedCart,
    tree_depth_limit: usize,
}

/// Releases and deepest trees of one fit (one repetition and structural grid point).
#[derive(Default)]
pub(crate) struct TreeCache {
    entries: Mutex<Vec<Entry>>,
}

impl TreeCache {
    /// Test predictions of the CART (`max_depth`, `min_samples_leaf`) grown on the release
    /// `draw(rng)` at budget `epsilon`; `tag` names the release parameters that `draw`
    /// depends on besides the stream and ε. `test` is the test matrix in the columns of the
    /// release. On return `rng` is where `draw` leaves it.
    ///
    /// # Errors
    /// Those of `draw`.
    pub(crate) fn predict(
        &self,
        (tag, epsilon): (&str, f64),
        rng: &mut Pcg64,
        draw: impl FnOnce(&mut Pcg64) -> Result<Release, MethodError>,
        test: &Matrix,
        (max_depth, min_samples_leaf): (usize, usize),
    ) -> Result<Vec<f64>, MethodError> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let found = entries
            .iter()
            .position(|e| e.tag == tag && e.epsilon == epsilon.to_bits() && e.before == *rng);
        let at = match found {
            Some(i) => {
                *rng = entries[i].after.clone();
                crate::privacy::ledger::replay(&entries[i].charged);
                i
            }
            None => {
                let before = rng.clone();
                let (release, charged) = crate::privacy::ledger::capturing(|| draw(rng));
                let release = Arc::new(release?);
                entries.push(Entry {
                    tag: tag.to_string(),
                    epsilon: epsilon.to_bits(),
                    before,
                    after: rng.clone(),
                    release,
                    charged,
                    trees: Vec::new(),
                });
                entries.len() - 1
            }
        };
        let e = &mut entries[at];
        let tree = match e
            .trees
            .iter()
            .find(|(m, t)| *m == min_samples_leaf && t.tree_depth_limit >= max_depth)
        {
            Some((_, t)) => t.clone(),
            None => {
                let p = CartParams {
                    max_depth: max_depth.max(DEEPEST),
                    min_samples_leaf,
                    missing: e.release.missing,
                };
                let t = Arc::new(Grown {
                    tree: cart_nested(&e.release.x, &e.release.y, &p),
                    tree_depth_limit: p.max_depth,
                });
                e.trees.retain(|(m, _)| *m != min_samples_leaf);
                e.trees.push((min_samples_leaf, t.clone()));
                t
            }
        };
        drop(entries);
        Ok((0..test.n)
            .map(|i| tree.tree.predict_at_depth(test.row(i), max_depth))
            .collect())
    }
}
