//! The mixed partition set of `grown_on: mixture` (LPDT Fig. 5, distribution shift;
//! docs/methods/lpdt.md §8.6) and its ledger entries.

use crate::data::Escape;
use crate::methods::RepData;
use rand_pcg::Pcg64;

/// The mixed partition set of `grown_on: mixture` (docs/methods/lpdt.md §8.6): of its m = n_pub points,
/// round(δ·m) are public points drawn at random with `rng` and the rest are the first
/// private users of the repetition's random order (at most all but one of them), who are
/// then removed from the reporting users. Returns the data with the reduced private sample
/// and the partition set.
///
/// **Ledger.** The k private users of the partition set are used in the clear: each is
/// charged an infinite ε (part `partition set: record in the clear`), and the set is
/// recorded as a private quantity by its escape ([`Escape::PartitionSet`]); the method
/// declares it (`non_private_users`). The ledger numbers the reporting users first
/// (0..n − k, the reduced sample's order, as the release charges them) and the partition
/// set's users after them (n − k..n).
pub fn mixture(data: &RepData, delta: f64, rng: &mut Pcg64) -> (RepData, crate::data::Dataset) {
    use rand::seq::SliceRandom;
    let m = data.public.n();
    let k_pub = ((delta * m as f64).round() as usize).min(m);
    let k_priv = (m - k_pub).min(data.private.n().saturating_sub(1));
    let mut pub_idx: Vec<usize> = (0..m).collect();
    pub_idx.shuffle(rng);
    let mut grow = data.public.select(&pub_idx[..k_pub]);
    let drawn = data.private.select(&(0..k_priv).collect::<Vec<_>>());
    let drawn = drawn.escape(Escape::PartitionSet {
        users: k_priv,
        delta,
    });
    grow.x.data.extend_from_slice(&drawn.x.data);
    grow.x.n += drawn.n();
    grow.y.extend_from_slice(&drawn.y);
    let rest: Vec<usize> = (k_priv..data.private.n()).collect();
    let n = data.private.n();
    crate::privacy::ledger::charge(
        "partition set: record in the clear",
        crate::privacy::ledger::Subjects::Range(n - k_priv, n),
        f64::INFINITY,
        0.0,
    );
    (
        RepData {
            private: data.private.select(&rest),
            masks: data.masks_of(&rest),
            ..data.clone()
        },
        grow,
    )
}
