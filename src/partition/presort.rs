//! The stable presort of one feature column for the CART growers ([`super::cart`]).
//!
//! The result is always the order of a stable sort by [`total_order_key`] (ties in row
//! order, NaN last): the CART split scans and their floating-point sums depend on it, so
//! every path below must give exactly that permutation.

use crate::data::Matrix;

/// Maps `v` to a `u64` whose unsigned order is `f64::total_cmp`'s order, with every NaN
/// (whatever its sign bit) mapped to `u64::MAX`, i.e. missing values last.
#[inline]
pub(crate) fn total_order_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Reusable buffers of [`Presorter::sort_column`].
#[derive(Default)]
pub(crate) struct Presorter {
    keys: Vec<(u64, u32)>,
    sorted: Vec<u32>,
    bucket: Vec<u32>,
    ends: Vec<u32>,
}

/// Largest bucket that is insertion-sorted; larger ones (a skewed column) are radix-sorted.
const INSERTION_MAX: usize = 32;

impl Presorter {
    /// Appends to `order` the rows 0..col.len() sorted stably by `total_order_key(col[i])`.
    ///
    /// A column with two distinct values (one-hot, say) is split in one pass. A column of
    /// finite values is bucketed by ⌊(v − min)·B/(max − min)⌋ (B ≈ n/2 buckets), which is
    /// non-decreasing in v (a correctly rounded subtraction and product by a positive
    /// constant are monotone, and so is truncation), so the buckets are ordered; the rows are
    /// scattered into them in row order and each bucket is sorted by a stable sort (insertion
    /// for a few rows, radix beyond). Any other column (NaN, ±∞, few rows) is radix-sorted
    /// whole. Each path is a stable sort by the same key, hence the same permutation.
    ///
    /// # Panics
    /// If `col.len()` exceeds `u32::MAX`.
    pub(crate) fn sort_column(&mut self, col: &[f64], order: &mut Vec<usize>) {
        let n = col.len();
        assert!(n <= u32::MAX as usize, "cart: at most 2^32 rows");
        let key = |i: u32| total_order_key(col[i as usize]);
        if let Some(low) = two_valued(col) {
            order.extend((0..n).filter(|&i| total_order_key(col[i]) == low));
            order.extend((0..n).filter(|&i| total_order_key(col[i]) != low));
            return;
        }
        // Plain comparisons (they vectorize): with a NaN, `finite` is false and the range is
        // not used.
        let (mut lo, mut hi, mut finite) = (f64::INFINITY, f64::NEG_INFINITY, true);
        for &v in col {
            finite &= v.abs() < f64::INFINITY;
            lo = if v < lo { v } else { lo };
            hi = if v > hi { v } else { hi };
        }
        let buckets = (n / 2).next_power_of_two();
        let scale = buckets as f64 / (hi - lo);
        if !finite || n < 64 || !(scale.is_finite() && scale > 0.0) {
            self.keys.clear();
            self.keys.extend((0..n as u32).map(|i| (key(i), i)));
            radsort::sort_by_key(&mut self.keys, |&(key, _)| key);
            order.extend(self.keys.iter().map(|&(_, i)| i as usize));
            return;
        }
        let last = (buckets - 1) as u32;
        // ends[b] counts the rows of buckets < b, then (after the scatter) those ≤ b.
        self.ends.clear();
        self.ends.resize(buckets + 1, 0);
        self.bucket.clear();
        self.bucket
            .extend(col.iter().map(|&v| (((v - lo) * scale) as u32).min(last)));
        for &b in &self.bucket {
            self.ends[b as usize + 1] += 1;
        }
        for b in 1..=buckets {
            self.ends[b] += self.ends[b - 1];
        }
        // Every slot is written by the scatter: no need to clear it.
        self.sorted.resize(n, 0);
        for (i, &b) in self.bucket.iter().enumerate() {
            let at = &mut self.ends[b as usize];
            self.sorted[*at as usize] = i as u32;
            *at += 1;
        }
        // Now ends[b] is the end of bucket b, and ends[b − 1] its start (0 for b = 0).
        let mut start = 0usize;
        for b in 0..buckets {
            let end = self.ends[b] as usize;
            let run = &mut self.sorted[start..end];
            if run.len() > INSERTION_MAX {
                // A large bucket is often one repeated value (a discrete feature): sorted.
                let first = key(run[0]);
                if run.iter().any(|&i| key(i) != first) {
                    self.keys.clear();
                    self.keys.extend(run.iter().map(|&i| (key(i), i)));
                    radsort::sort_by_key(&mut self.keys, |&(key, _)| key);
                    for (slot, &(_, i)) in run.iter_mut().zip(&self.keys) {
                        *slot = i;
                    }
                }
            } else {
                insertion_sort(run, key);
            }
            start = end;
        }
        order.extend(self.sorted.iter().map(|&i| i as usize));
    }
}

/// The n×d matrix `x` copied column-major: `col[k·n + i]` = x_ik (cache-friendly scans of
/// one feature over a node's rows).
pub(crate) fn column_major(x: &Matrix) -> Vec<f64> {
    let (n, d) = (x.n, x.d);
    let mut col = vec![0.0; n * d];
    for i in 0..n {
        for (k, &v) in x.row(i).iter().enumerate() {
            col[k * n + i] = v;
        }
    }
    col
}

/// Every column of the column-major n×d `col` ([`column_major`]) presorted: `order[k·n ..
/// (k+1)·n]` holds the rows 0..n sorted stably by [`total_order_key`] of x_k (ties in row
/// order, NaN last), the order [`Presorter::sort_column`] gives.
pub(crate) fn presort_columns(col: &[f64], n: usize) -> Vec<usize> {
    let d = col.len().checked_div(n).unwrap_or(0);
    let mut order = Vec::with_capacity(n * d);
    let mut presorter = Presorter::default();
    for k in 0..d {
        presorter.sort_column(&col[k * n..(k + 1) * n], &mut order);
    }
    order
}

/// Stable insertion sort of the rows `run` by `key`.
#[inline]
fn insertion_sort(run: &mut [u32], key: impl Fn(u32) -> u64) {
    for j in 1..run.len() {
        let cur = run[j];
        let k = key(cur);
        let mut i = j;
        while i > 0 && key(run[i - 1]) > k {
            run[i] = run[i - 1];
            i -= 1;
        }
        run[i] = cur;
    }
}

/// `Some(lower key)` when the column's keys take at most two distinct values, else `None`.
fn two_valued(col: &[f64]) -> Option<u64> {
    let first = total_order_key(*col.first()?);
    let mut other = None;
    for &v in col {
        let key = total_order_key(v);
        if key != first {
            match other {
                None => other = Some(key),
                Some(o) if o != key => return None,
                Some(_) => {}
            }
        }
    }
    Some(other.map_or(first, |o| o.min(first)))
}

/// Reorders `seg` so that the entries with `goes_left` come first, each side keeping its
/// order; returns the number of left entries. `scratch` is a reusable buffer. Branch-free
/// (every entry is written to both sides and the side counter advanced), since the
/// predicate is typically unpredictable.
#[inline]
pub(crate) fn stable_partition<T: Copy + Default>(
    seg: &mut [T],
    scratch: &mut Vec<T>,
    goes_left: impl Fn(T) -> bool,
) -> usize {
    scratch.clear();
    scratch.resize(seg.len(), T::default());
    // A plain slice, so its address stays in a register through the loop's stores.
    let right = &mut scratch[..];
    let (mut w, mut s) = (0, 0);
    for r in 0..seg.len() {
        let i = seg[r];
        let left = goes_left(i);
        seg[w] = i; // w ≤ r: seg[r] has been read already
        right[s] = i;
        w += usize::from(left);
        s += usize::from(!left);
    }
    seg[w..].copy_from_slice(&right[..s]);
    w
}

/// Sorts `v` in the order of `f64::total_cmp` (the same list as `sort_by(f64::total_cmp)`:
/// values equal under it are the same bits). Each value's bits are mapped in place to an
/// integer of the same order (negative: all bits flipped; positive: the sign bit set), the
/// integers sorted, and mapped back: integer comparisons instead of `total_cmp`'s.
pub(crate) fn sort_total_order(v: &mut [f64]) {
    const SIGN: u64 = 1 << 63;
    let mut keys: Vec<u64> = v
        .iter()
        .map(|x| {
            let b = x.to_bits();
            if b & SIGN != 0 {
                !b
            } else {
                b | SIGN
            }
        })
        .collect();
    keys.sort_unstable();
    for (x, k) in v.iter_mut().zip(keys) {
        *x = f64::from_bits(if k & SIGN != 0 { k & !SIGN } else { !k });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The reference: a stable comparison sort by key.
    fn reference(col: &[f64]) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..col.len()).collect();
        rows.sort_by_key(|&i| total_order_key(col[i]));
        rows
    }

    fn presort(col: &[f64]) -> Vec<usize> {
        let mut order = Vec::new();
        Presorter::default().sort_column(col, &mut order);
        order
    }

    #[test]
    fn every_path_is_the_stable_sort_by_key() {
        let mut rng = Pcg64::seed_from_u64(7);
        let mut cases: Vec<Vec<f64>> = vec![
            vec![],
            vec![1.0],
            vec![0.0, -0.0, 0.0, -0.0],
            (0..100).map(|i| (i % 2) as f64).collect(),
            (0..100).map(|_| 3.5).collect(),
        ];
        for n in [50, 64, 65, 500, 3000] {
            // Continuous values.
            cases.push((0..n).map(|_| rng.gen::<f64>()).collect());
            // Few distinct values (many ties), with signed zeros.
            cases.push(
                (0..n)
                    .map(|_| [0.0, -0.0, 0.25, 0.5, 1.0][rng.gen_range(0..5)])
                    .collect(),
            );
            // Three decimals, as in abalone.
            cases.push(
                (0..n)
                    .map(|_| (rng.gen_range(0..1000) as f64) / 1000.0)
                    .collect(),
            );
            // Skewed: one outlier puts all other rows into the first bucket.
            let mut skew: Vec<f64> = (0..n).map(|_| rng.gen::<f64>()).collect();
            skew[n / 3] = 1e12;
            cases.push(skew);
            // Non-finite values: NaN of both signs and infinities.
            let mut odd: Vec<f64> = (0..n).map(|_| rng.gen::<f64>() - 0.5).collect();
            odd[1] = f64::NAN;
            odd[n / 2] = -f64::NAN;
            odd[n - 1] = f64::NEG_INFINITY;
            cases.push(odd);
            // A range too wide for (max − min) to be finite.
            let mut wide: Vec<f64> = (0..n).map(|_| rng.gen::<f64>()).collect();
            wide[0] = f64::MAX;
            wide[1] = -f64::MAX;
            cases.push(wide);
        }
        for col in &cases {
            assert_eq!(presort(col), reference(col), "column {col:?}");
        }
    }

    #[test]
    fn nan_sorts_last_whatever_its_sign() {
        assert_eq!(total_order_key(-f64::NAN), u64::MAX);
        assert!(total_order_key(f64::INFINITY) < total_order_key(f64::NAN));
        assert!(total_order_key(-0.0) < total_order_key(0.0));
        assert!(total_order_key(-1.0) < total_order_key(-0.5));
    }

    #[test]
    fn integer_keys_sort_as_total_cmp_does() {
        let mut rng = Pcg64::seed_from_u64(9);
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MIN_POSITIVE / 4.0,
            -f64::MIN_POSITIVE / 4.0,
            f64::MAX,
            f64::MIN,
        ];
        for case in 0..500 {
            let m = case % 60;
            let v: Vec<f64> = (0..m)
                .map(|_| match case % 3 {
                    0 => rng.gen::<f64>() * 2.0 - 1.0,
                    1 => specials[rng.gen_range(0..specials.len())],
                    _ => (rng.gen_range(0..5) as f64) - 2.0,
                })
                .collect();
            let mut ours = v.clone();
            sort_total_order(&mut ours);
            let mut reference = v.clone();
            reference.sort_by(f64::total_cmp);
            let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&reference), "{v:?}");
        }
    }
}
