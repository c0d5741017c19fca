//! The LPDT curator's sums (S_j, T_j) without one draw per user and leaf
//! (docs/architecture.md "Releases are first-class"): exact in distribution for what the
//! curator reads.
//!
//! What the curator reads (docs/methods/lpdt.md §2.2, LPDT paper eq. (5)): for every leaf j,
//! S_j = Σ_i (B_ij − q) and T_j = Σ_i Ỹ_i (B_ij − q), with B_ij = U_ij XOR F_ij, U_i the
//! one-hot leaf vector of user i, F_ij iid Bernoulli(p) flips and Ỹ_i = clip(y_i) + Lap(β)
//! one noisy label per user shared by all leaves. [`super::LpdtMechanism::release`] draws
//! F_ij as `next_u32() < t` with t = [`flip_threshold`](crate::privacy::flip_threshold)(κ),
//! so p = t/2^32 (1 − κ quantized to 2^−32), and the curator centres with q = 1 − κ.
//!
//! What this module samples, and why the law is the same:
//! 1. Ỹ_i for every user, in user order, from the task stream, exactly as the per-user
//!    simulation does (one Laplace(β) per user, the same function).
//! 2. The users are laid out sorted by leaf (a counting sort: leaf j owns positions
//!    start_j..start_{j+1}). The flips are iid over (user, leaf) and independent of the
//!    labels, so giving the flips of position π(i) to user i, for a permutation π fixed by
//!    the data, leaves the joint law of all (F_ij, Ỹ_i) unchanged.
//! 3. Every leaf j gets its own stream (`Pcg64Mcg`), seeded with 16 bytes drawn from the
//!    task stream in leaf order (after the labels), and draws its flips 64 positions at a
//!    time with [`flip_mask`](crate::privacy::flip_mask) (through the [`FlipMasks`] the users were
//!    charged with): 64 iid Bernoulli(t/2^32) bits, the very law of
//!    `next_u32() < t`. The released bits of those 64 users are then `mask XOR in_leaf`,
//!    in_leaf the lanes of users whose leaf is j (nonzero only in the blocks that overlap
//!    leaf j's positions).
//! 4. ones_j = Σ popcount(bits) and ΣỸ_j = Σ over the set bits of Ỹ; S_j = ones_j − n·q and
//!    T_j = ΣỸ_j − q·ΣỸ as in [`super::lpdt_sums`].
//!
//! So (S_1..S_K, T_1..T_K) has exactly the joint law of the per-user simulation (shared
//! Ỹ_i included, hence the covariance of T_j and T_k), to the same 2^−32 quantization of
//! the flip probability; only the floating-point summation order differs (users in leaf
//! order, a fixed summation tree per block of 64, [`block_sum`]). The cost is about 10 u64
//! draws per 64 users and leaf plus, per block, eight table reads (from per-byte subset
//! sums shared by all leaves) or one addition per released 1-bit, instead of one draw and
//! two branches per user and leaf.
//!
//! Determinism: leaf j's stream, its blocks and its summation order do not depend on the
//! other leaves, nor on whether its sums are read from tables, so when the leaves are
//! spread over rayon's threads (large n·K) the sums are bit-identical for any number of
//! threads, and to the sequential pass.

use super::lpdt::{LpdtMechanism, LpdtSums};
use crate::privacy::ledger::Subjects;
use crate::privacy::FlipMasks;
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

/// Blocks of 64 users per tile: the tile's labels and byte tables (16 KiB per block) stay
/// in cache while the leaves go over them.
const TILE_BLOCKS: usize = 4;

/// Below this many user × leaf pairs the leaves are processed on the calling thread
/// (rayon's overhead would dominate; the results are the same either way).
const PARALLEL_MIN: usize = 1 << 22;

/// From this many leaves per pass, the blocks' subset sums are read from byte tables
/// (2,040 additions per block, shared by the leaves) instead of summed bit by bit; both
/// give the same bits ([`block_sum`]).
const TABLE_MIN_LEAVES: usize = 32;

/// One leaf's stream and running sums.
struct LeafPass {
    rng: Pcg64Mcg,
    /// The leaf's positions in the leaf-sorted order: lo..hi.
    lo: usize,
    hi: usize,
    /// #{i : B_ij = 1}.
    ones: u64,
    /// Σ_{i : B_ij = 1} Ỹ_i, summed block by block ([`block_sum`]).
    sum_y: f64,
}

/// The curator's sums [`LpdtSums`] of every private user's LPDT release, sampled exactly
/// in law as described in the module documentation (the `fast` simulation). `leaf_of_user`
/// (leaves 0..K) and `y` have length n; `rng` is the task's release stream. Cost
/// O(n + K) memory and O(n·K) cheap work, parallel over leaves when n·K ≥ 2^22.
///
/// # Panics
/// If the lengths differ or a leaf is ≥ K.
pub fn lpdt_sums_fast<R: RngCore + ?Sized>(
    mech: &LpdtMechanism,
    leaf_of_user: &[usize],
    y: &[f64],
    rng: &mut R,
) -> LpdtSums {
    assert_eq!(leaf_of_user.len(), y.len(), "one label per user");
    let k = mech.k;
    let n = y.len();
    // Counting sort: leaf j owns positions start[j]..start[j + 1].
    let mut start = vec![0usize; k + 1];
    for &leaf in leaf_of_user {
        assert!(leaf < k, "leaf {leaf} out of 0..{k}");
        start[leaf + 1] += 1;
    }
    for j in 0..k {
        start[j + 1] += start[j];
    }
    // 1. One noisy label per user, in user order, placed at the user's position; the
    // array is padded with zeros to whole blocks of 64 (padding lanes are never set).
    let mut next = start.clone();
    let mut noisy = vec![0.0f64; n.div_ceil(64) * 64];
    let mut total_y = 0.0;
    for (i, (&leaf, &yi)) in leaf_of_user.iter().zip(y).enumerate() {
        // The user's label part, drawn and charged as the per-user release does.
        let v = mech.noisy_label(i, yi, rng);
        total_y += v;
        noisy[next[leaf]] = v;
        next[leaf] += 1;
    }
    // 3. One stream per leaf, seeded from the task stream in leaf order.
    let mut passes: Vec<LeafPass> = (0..k)
        .map(|j| {
            let mut seed = [0u8; 16];
            rng.fill_bytes(&mut seed);
            LeafPass {
                rng: Pcg64Mcg::from_seed(seed),
                lo: start[j],
                hi: start[j + 1],
                ones: 0,
                sum_y: 0.0,
            }
        })
        .collect();
    // The flips below stand for every user's bit vector: each of the n users is charged
    // its bits once, at the threshold the masks are drawn with.
    let flips = mech.charge_bits(Subjects::Range(0, n));
    let threads = rayon::current_num_threads();
    if n.saturating_mul(k) >= PARALLEL_MIN && threads > 1 {
        let chunk = k.div_ceil(2 * threads).max(1);
        passes
            .par_chunks_mut(chunk)
            .for_each(|leaves| run_passes(leaves, &noisy, n, flips));
    } else {
        run_passes(&mut passes, &noisy, n, flips);
    }
    let q = 1.0 - mech.keep.keep;
    let nf = n as f64;
    LpdtSums {
        s: passes.iter().map(|p| p.ones as f64 - nf * q).collect(),
        t: passes.iter().map(|p| p.sum_y - q * total_y).collect(),
    }
}

/// Runs the passes of some leaves over all n positions of `noisy` (padded to blocks of
/// 64), tile by tile (steps 3–4).
fn run_passes(leaves: &mut [LeafPass], noisy: &[f64], n: usize, flips: FlipMasks) {
    let tables = leaves.len() >= TABLE_MIN_LEAVES;
    let mut tabs = vec![[[0.0f64; 256]; 8]; if tables { TILE_BLOCKS } else { 0 }];
    for (ti, tile) in noisy.chunks(64 * TILE_BLOCKS).enumerate() {
        let tile_lo = ti * 64 * TILE_BLOCKS;
        if tables {
            for (tab, block) in tabs.iter_mut().zip(tile.chunks_exact(64)) {
                byte_tables(block, tab);
            }
        }
        for p in leaves.iter_mut() {
            for (bi, block) in tile.chunks_exact(64).enumerate() {
                let lo = tile_lo + 64 * bi;
                let lanes = low_lanes(n - lo);
                let bits = flips.mask(&mut p.rng, lanes) ^ in_leaf(lo, p.lo, p.hi);
                p.ones += u64::from(bits.count_ones());
                p.sum_y += if tables {
                    table_sum(&tabs[bi], bits)
                } else {
                    block_sum(block, bits)
                };
            }
        }
    }
}

/// Σ of `block[ℓ]` over the set bits ℓ of `bits`, in a fixed order: within each byte
/// c (lanes 8c..8c+8) from 0.0 in increasing lane order, then the eight byte sums as
/// ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)). [`table_sum`] gives the same bits.
fn block_sum(block: &[f64], bits: u64) -> f64 {
    let mut s = [0.0f64; 8];
    for (c, sc) in s.iter_mut().enumerate() {
        let mut b = (bits >> (8 * c)) & 0xFF;
        while b != 0 {
            *sc += block[8 * c + b.trailing_zeros() as usize];
            b &= b - 1;
        }
    }
    tree8(&s)
}

/// The subset sums of every byte of a block of 64: `tab[c][b]` is the sum of
/// `block[8c + ℓ]` over the set bits ℓ of b, from 0.0 in increasing ℓ (as in
/// [`block_sum`]: the highest lane is added last, to the sum of the lower ones).
fn byte_tables(block: &[f64], tab: &mut [[f64; 256]; 8]) {
    for (c, tc) in tab.iter_mut().enumerate() {
        tc[0] = 0.0;
        for b in 1..256usize {
            let high = usize::BITS - 1 - b.leading_zeros();
            tc[b] = tc[b ^ (1 << high)] + block[8 * c + high as usize];
        }
    }
}

/// [`block_sum`] read from the byte tables of the block.
#[inline]
fn table_sum(tab: &[[f64; 256]; 8], bits: u64) -> f64 {
    let mut s = [0.0f64; 8];
    for (c, sc) in s.iter_mut().enumerate() {
        *sc = tab[c][((bits >> (8 * c)) & 0xFF) as usize];
    }
    tree8(&s)
}

#[inline]
fn tree8(s: &[f64; 8]) -> f64 {
    ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

/// The mask of lanes 0..m (all 64 when m ≥ 64).
#[inline]
fn low_lanes(m: usize) -> u64 {
    if m >= 64 {
        u64::MAX
    } else {
        (1u64 << m) - 1
    }
}

/// The lanes of the block of 64 positions from `lo` that lie in `a..b`.
#[inline]
fn in_leaf(lo: usize, a: usize, b: usize) -> u64 {
    let from = a.max(lo);
    let to = b.min(lo + 64);
    if from >= to {
        0
    } else {
        low_lanes(to - lo) & !low_lanes(from - lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_leaf_lanes() {
        assert_eq!(in_leaf(0, 0, 64), u64::MAX);
        assert_eq!(in_leaf(64, 0, 64), 0);
        assert_eq!(in_leaf(64, 60, 70), 0b11_1111);
        assert_eq!(in_leaf(64, 100, 200), u64::MAX << 36);
        assert_eq!(in_leaf(128, 130, 1000), u64::MAX << 2);
        assert_eq!(in_leaf(0, 3, 3), 0);
        assert_eq!(low_lanes(5), 0b1_1111);
    }

    #[test]
    fn table_and_bitwise_block_sums_are_the_same_bits() {
        use rand::Rng;
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let block: Vec<f64> = (0..64).map(|_| rng.gen::<f64>() * 1e3 - 400.0).collect();
        let mut tab = [[0.0; 256]; 8];
        byte_tables(&block, &mut tab);
        for bits in [0, u64::MAX, 1, 1 << 63, 0xF0F0_0000_0000_0F0F]
            .into_iter()
            .chain((0..2000).map(|_| rng.next_u64()))
        {
            let want: f64 = block_sum(&block, bits);
            assert_eq!(table_sum(&tab, bits).to_bits(), want.to_bits(), "{bits:x}");
            let plain: f64 = (0..64)
                .filter(|l| bits >> l & 1 == 1)
                .map(|l| block[l])
                .sum();
            assert!((want - plain).abs() < 1e-9, "{want} vs {plain}");
        }
    }
}
