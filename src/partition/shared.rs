//! Partitions grown once on a public sample and shared by every repetition that has the
//! same public sample (docs/architecture.md, "Partitions shared across repetitions").
//!
//! Where the public sample does not depend on the repetition (chosen by rule, cut once,
//! or shipped, as in every LPCT table), a grower that draws no random numbers gives the
//! same tree in every repetition. The runner keeps one [`PartitionCache`] per data set
//! and hands each repetition a [`SharedPublic`]: the cache and the fingerprint of that
//! repetition's public sample. A method asks it for a tree by a key naming everything the
//! grower reads besides the public sample (rule, criterion, parameters); the key of the
//! cache is that text with the public sample's fingerprint, so a public sample that
//! differs in any bit never meets another's trees.

use super::Partition;
use crate::data::Dataset;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One cached tree: grown by the first thread that asks, waited for by the others.
type Slot = Arc<OnceLock<Arc<Partition>>>;

/// Trees keyed by (public sample fingerprint, grower description), shared by threads.
/// Two threads asking for the same key grow it once: the second waits for the first.
#[derive(Debug, Default)]
pub struct PartitionCache {
    trees: Mutex<HashMap<(u128, String), Slot>>,
}

impl PartitionCache {
    /// An empty cache.
    pub fn new() -> PartitionCache {
        PartitionCache::default()
    }

    /// Number of trees held (grown or being grown).
    pub fn len(&self) -> usize {
        self.trees.lock().expect("cache lock").len()
    }

    /// Whether no tree is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every tree (the runner calls it when a data set's last repetition is done).
    pub fn clear(&self) {
        self.trees.lock().expect("cache lock").clear();
    }

    /// The tree of `key`, grown by `grow` the first time it is asked for.
    fn get_or_grow(&self, key: (u128, String), grow: impl FnOnce() -> Partition) -> Arc<Partition> {
        // The map's lock is held only to find the key's cell; the tree is grown outside
        // it, so other keys are served meanwhile.
        let cell = self
            .trees
            .lock()
            .expect("cache lock")
            .entry(key)
            .or_default()
            .clone();
        cell.get_or_init(|| Arc::new(grow())).clone()
    }
}

/// A repetition's public sample as the key of shared trees: the data set's cache and
/// the fingerprint of the public sample (n_pub×d features and n_pub labels, bit for
/// bit).
#[derive(Debug, Clone, Copy)]
pub struct SharedPublic<'a> {
    cache: &'a PartitionCache,
    fingerprint: u128,
    shape: (usize, usize),
}

impl<'a> SharedPublic<'a> {
    /// `public` (one repetition's public sample, as the methods will see it: split and
    /// scaled) with `cache`. Hashes its features and labels once (xxh3-128 of their bits).
    pub fn new(cache: &'a PartitionCache, public: &Dataset) -> SharedPublic<'a> {
        SharedPublic {
            cache,
            fingerprint: fingerprint(public),
            shape: (public.n(), public.d()),
        }
    }

    /// The tree that `grow` grows on `public` (which must be the sample this value was
    /// made from), taken from the cache when a tree of the same `grower` description on
    /// the same public sample was grown before. `grower` must name everything `grow`
    /// reads besides `public` (rule, criterion, every parameter), and `grow` must draw
    /// no random numbers: the cached tree then equals the one `grow` would give.
    ///
    /// # Panics
    /// When `public` has another shape than the sample this value was made from (a
    /// caller's bug).
    pub fn get_or_grow(
        &self,
        public: &Dataset,
        grower: String,
        grow: impl FnOnce() -> Partition,
    ) -> Arc<Partition> {
        assert_eq!(
            (public.n(), public.d()),
            self.shape,
            "SharedPublic used with another public sample"
        );
        debug_assert_eq!(fingerprint(public), self.fingerprint);
        self.cache.get_or_grow((self.fingerprint, grower), grow)
    }
}

/// xxh3-128 of the shape, the features' bits (row-major) and the labels' bits.
fn fingerprint(d: &Dataset) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&(d.n() as u64).to_le_bytes());
    h.update(&(d.d() as u64).to_le_bytes());
    h.update(bytemuck::cast_slice::<f64, u8>(&d.x.data[..]));
    h.update(bytemuck::cast_slice::<f64, u8>(&d.y));
    h.digest128()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Matrix, Task};

    fn sample(y0: f64) -> Dataset {
        Dataset::numeric(
            "s",
            Task::Classification,
            Matrix::new(2, 1, vec![0.25, 0.75]),
            vec![y0, 1.0],
        )
    }

    fn tree(mean: f64) -> Partition {
        let mut t = crate::partition::complete_max_edge(1, 0);
        t.leaf_means = vec![mean];
        t
    }

    /// One grow per (public sample, grower): a second request is served from the cache,
    /// another grower or a public sample differing in one label grows anew.
    #[test]
    fn a_tree_is_grown_once_per_public_sample_and_grower() {
        let cache = PartitionCache::new();
        let (a, b) = (sample(0.0), sample(1.0));
        let (sa, sb) = (SharedPublic::new(&cache, &a), SharedPublic::new(&cache, &b));
        let grows = std::cell::Cell::new(0);
        let grow = |m: f64| {
            grows.set(grows.get() + 1);
            tree(m)
        };
        let t1 = sa.get_or_grow(&a, "g".into(), || grow(1.0));
        let t2 = sa.get_or_grow(&a, "g".into(), || grow(2.0));
        assert_eq!(grows.get(), 1);
        assert!(Arc::ptr_eq(&t1, &t2));
        sa.get_or_grow(&a, "h".into(), || grow(3.0));
        let t4 = sb.get_or_grow(&b, "g".into(), || grow(4.0));
        assert_eq!(grows.get(), 3);
        assert_eq!(t4.leaf_means, vec![4.0]);
        assert_eq!(cache.len(), 3);
        cache.clear();
        assert!(cache.is_empty());
    }
}
