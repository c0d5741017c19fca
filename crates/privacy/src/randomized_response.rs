//! Randomized response on bits (one bit of a one-hot cell vector at a time), and the
//! charged releases of a whole one-hot vector that the methods draw through: [`OneHotRr`]
//! (each bit kept when a uniform f64 falls below κ) and [`OneHotFlips`] (each bit flipped
//! when a u32 falls below a threshold), both charging the ledger from the probability
//! their draws really use (docs/architecture.md, "The ledger").

use crate::ledger::{self, rr_epsilon, Subjects};
use rand::{Rng, RngCore};

/// The probability κ = e^{ε/2}/(1 + e^{ε/2}) of reporting a bit of a one-hot vector
/// truthfully, when the whole vector must be ε-LDP: two one-hot vectors differ in two
/// coordinates, each bit costs ln(κ/(1−κ)) = ε/2 (docs/methods/lpdt.md §2.2). For LPDT, pass ρε: the
/// keep probability is e^{ρε/2}/(1+e^{ρε/2}) (App. D.1 of the LPDT paper, with its typo
/// corrected as in docs/methods/lpdt.md §2.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeepProbability {
    /// κ, the probability a bit is kept.
    pub keep: f64,
    /// γ = 2κ − 1, the debiasing factor E[B − (1−κ) | U] = γ·U.
    pub gamma: f64,
}

/// κ and γ for a one-hot vector released under ε-LDP by bitwise randomized response.
///
/// # Panics
/// If ε is not finite and > 0.
pub fn rr_keep_probability(epsilon: f64) -> KeepProbability {
    assert!(epsilon.is_finite() && epsilon > 0.0, "epsilon must be > 0");
    // Each of the two bits that differ costs ε/2.
    let a = if super::mutants::active("rr-vector-bits-not-split") {
        // Slip: the per-bit loss set to the whole vector's ε.
        epsilon
    } else {
        epsilon / 2.0
    };
    // e^a/(1+e^a) = 1/(1+e^{-a}), stable for large a.
    let keep = 1.0 / (1.0 + (-a).exp());
    // γ = (e^a − 1)/(e^a + 1) = tanh(a/2), accurate for small a.
    let gamma = (a / 2.0).tanh();
    KeepProbability { keep, gamma }
}

/// The u32 threshold t with P(U < t) = 1 − κ for U uniform on u32, up to 2^−32: a bit is
/// flipped when a fresh u32 draw is below t.
#[inline]
pub fn flip_threshold(keep: f64) -> u32 {
    let p = (1.0 - keep).clamp(0.0, 1.0);
    let t = (p * 4294967296.0).round();
    if t >= 4294967295.0 {
        u32::MAX
    } else {
        t as u32
    }
}

/// 64 independent flips at once: bit ℓ of the result is 1 with probability exactly
/// t/2^32 (`threshold` = t, as from [`flip_threshold`]) for every lane ℓ set in `lanes`,
/// independently across lanes, and 0 for the lanes not in `lanes`. This is the law of
/// `rng.next_u32() < t` in every lane, the flip of
/// `dp_repro::estimate::LpdtMechanism::release`, drawn with about 10 u64 draws for 64 lanes
/// instead of 64.
///
/// Why it is exact: give each lane a virtual uniform 32-bit integer U_ℓ whose binary digits,
/// from the most significant, are bit ℓ of successive draws `r = rng.next_u64()`. U_ℓ < t
/// iff at the first digit where U_ℓ and t differ, U_ℓ has 0 and t has 1. Each step reads
/// the next digit of t: lanes whose digit equals t's stay undecided, the others are decided
/// (flipped when t's digit is 1 and theirs 0). A lane still undecided after t's lowest set
/// digit has U_ℓ ≥ t (its remaining digits are ≥ t's zeros), so it is not flipped. The
/// digits of a decided lane are never read, so stopping once no lane is undecided changes
/// nothing; the first [`FLIP_MASK_STEPS`] steps run without that test (it would mispredict
/// at a random step; after them a lane is still undecided with probability 2^−10). Under
/// the usual model of the stream as iid fair bits, the lanes' U_ℓ are iid uniform on
/// 0..2^32 and the result is exactly iid Bernoulli(t/2^32) — the same law, to the same
/// 2^−32 quantization of 1 − κ, as one `next_u32` per bit.
#[inline]
pub fn flip_mask<R: RngCore + ?Sized>(rng: &mut R, threshold: u32, lanes: u64) -> u64 {
    if threshold == 0 || lanes == 0 {
        return 0;
    }
    let lowest = threshold.trailing_zeros();
    let mut flipped = 0u64;
    let mut undecided = lanes;
    let mut digit = 31u32;
    loop {
        let r = rng.next_u64();
        // All ones where t's digit is 1.
        let t_digit = 0u64.wrapping_sub(u64::from((threshold >> digit) & 1));
        // U's digit 0 < t's digit 1: U < t, flipped; U's digit 1 > t's 0: U > t, kept.
        flipped |= undecided & !r & t_digit;
        undecided &= !(r ^ t_digit);
        if digit == lowest {
            return flipped;
        }
        digit -= 1;
        if 31 - digit >= FLIP_MASK_STEPS && undecided == 0 {
            return flipped;
        }
    }
}

/// The number of digits [`flip_mask`] always reads (unless t has fewer), before it starts
/// stopping as soon as every lane is decided.
pub const FLIP_MASK_STEPS: u32 = 10;

/// The bits two neighbouring inputs can change in a vector over `cells` coordinates whose
/// input had `hot` ones: a one-hot vector differs from another in 2 positions (none with a
/// single cell, where every input is the same vector); an input seen with more than one
/// hot coordinate (not one-hot: outside the domain) in up to hot + 1.
fn bits_changed(cells: usize, hot: usize) -> usize {
    if cells <= 1 {
        0
    } else {
        2.max(hot + 1)
    }
}

/// Bitwise randomized response on a one-hot vector that keeps each bit when a uniform f64
/// draw falls below κ (the compositions' `randomized_response` cell, docs/methods/lpdt.md
/// §2.1; HistOfTree's centred bits, docs/methods/histoftree.md §3.2): each bit spends
/// ln(κ/(1 − κ)) nats and two one-hot vectors differ in two bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneHotRr {
    keep: f64,
}

impl OneHotRr {
    /// The mechanism that keeps each bit with probability `keep` (κ, as from
    /// [`rr_keep_probability`]).
    pub fn new(keep: f64) -> OneHotRr {
        OneHotRr { keep }
    }

    /// κ, the probability a bit is kept.
    pub fn keep(&self) -> f64 {
        self.keep
    }

    /// One bit: `truth` kept with probability κ, else flipped (one uniform f64 from
    /// `rng`). Uncharged: the bit of a vector that [`OneHotRr::release`] or
    /// [`OneHotRr::charge_each`] charged.
    #[inline]
    pub fn bit<R: Rng + ?Sized>(&self, truth: bool, rng: &mut R) -> bool {
        truth == (rng.gen::<f64>() < self.keep)
    }

    /// One subject's release of the vector over `cells` coordinates whose bit j is
    /// `hot(j)`: bit by bit in order, each through [`OneHotRr::bit`], handed to `out(j,
    /// bit)`; charged to `who` under `part` at ln(κ/(1 − κ)) per bit two neighbours can
    /// change (2 for a one-hot input, none with one cell, more for an input seen with
    /// several hot coordinates), from the κ the bits are drawn with.
    pub fn release<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        cells: usize,
        hot: impl Fn(usize) -> bool,
        part: &str,
        who: Subjects<'_>,
        mut out: impl FnMut(usize, bool),
    ) {
        let mut ones = 0;
        for j in 0..cells {
            let truth = hot(j);
            ones += usize::from(truth);
            out(j, self.bit(truth, rng));
        }
        if ledger::is_recording() {
            let bits = bits_changed(cells, ones);
            ledger::charge(part, who, rr_epsilon(self.keep, bits), 0.0);
        }
    }

    /// Charges the subjects `first + i` one release each of a one-hot vector over
    /// `cells()[i]` coordinates (an exact shortcut that draws only the bits a curator
    /// reads, with [`OneHotRr::bit`] of this mechanism), under `part`. `cells` is called
    /// only while a recording runs.
    pub fn charge_each<I: IntoIterator<Item = usize>>(
        &self,
        cells: impl FnOnce() -> I,
        part: &str,
        first: usize,
    ) {
        let keep = self.keep;
        ledger::charge_each(
            part,
            first,
            || {
                cells()
                    .into_iter()
                    .map(move |k| rr_epsilon(keep, bits_changed(k, 1)))
            },
            0.0,
        );
    }
}

/// Bitwise randomized response on a one-hot vector that flips each bit when a u32 draw
/// falls below a threshold t (LPDT's release, eq. (5) and App. D.1; docs/methods/lpdt.md
/// §2.1): the flip probability is t/2^32, 1 − κ quantized to 2^−32 ([`flip_threshold`]),
/// and the charge is computed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneHotFlips {
    threshold: u32,
}

impl OneHotFlips {
    /// The flips of the mechanism that keeps each bit with probability `keep` (κ).
    pub fn new(keep: f64) -> OneHotFlips {
        OneHotFlips {
            threshold: flip_threshold(keep),
        }
    }

    /// The threshold t.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// ε (nats) one release of a one-hot vector over `cells` coordinates spends:
    /// ln(κ′/(1 − κ′)) per bit two neighbours can change (2, none with one cell), with
    /// κ′ = 1 − t/2^32 the keep probability the draws really use (it differs from κ by at
    /// most 2^−33, so the charge from ρε by at most 2·2^−33/(κ(1 − κ))).
    pub fn epsilon(&self, cells: usize) -> f64 {
        self.epsilon_bits(bits_changed(cells, 1))
    }

    fn epsilon_bits(&self, bits: usize) -> f64 {
        let p = f64::from(self.threshold) / 4_294_967_296.0;
        rr_epsilon(1.0 - p, bits)
    }

    /// One subject's release: bit j of `bits` is 1{j = `hot`} XOR (a u32 draw < t), one
    /// `next_u32` per bit in order; charged to `who` under `part` at [`OneHotFlips::epsilon`]
    /// over `bits.len()` cells (more bits when `hot` lies outside the vector: its input is
    /// then the zero vector, one bit from any one-hot one, so still 2).
    #[inline]
    pub fn release<R: RngCore + ?Sized>(
        &self,
        rng: &mut R,
        hot: usize,
        bits: &mut [bool],
        part: &str,
        who: Subjects<'_>,
    ) {
        let t = self.threshold;
        for (j, b) in bits.iter_mut().enumerate() {
            let flipped = rng.next_u32() < t;
            *b = (j == hot) != flipped;
        }
        if ledger::is_recording() {
            ledger::charge(part, who, self.epsilon(bits.len()), 0.0);
        }
    }

    /// Charges `who` one release each of a one-hot vector over `cells` coordinates under
    /// `part` and returns the [`FlipMasks`] that draws their flips at this threshold (an
    /// exact shortcut: LPDT's fast simulation draws the n users' flips 64 lanes at a time).
    pub fn charge(&self, cells: usize, part: &str, who: Subjects<'_>) -> FlipMasks {
        ledger::charge(part, who, self.epsilon(cells), 0.0);
        FlipMasks {
            threshold: self.threshold,
        }
    }
}

/// The flips of subjects a [`OneHotFlips::charge`] charged, drawn 64 lanes at a time at
/// the charged threshold ([`flip_mask`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlipMasks {
    threshold: u32,
}

impl FlipMasks {
    /// 64 independent flips at the charged threshold for the lanes set in `lanes`
    /// ([`flip_mask`]).
    #[inline]
    pub fn mask<R: RngCore + ?Sized>(&self, rng: &mut R, lanes: u64) -> u64 {
        flip_mask(rng, self.threshold, lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_c14_values() {
        // docs/methods/lpdt.md §14 C14: ρ = 0.5, ε = 4 → κ = e/(1+e) ≈ 0.7311, γ ≈ 0.4621.
        let k = rr_keep_probability(0.5 * 4.0);
        assert!((k.keep - std::f64::consts::E / (1.0 + std::f64::consts::E)).abs() < 1e-12);
        assert!((k.gamma - (2.0 * k.keep - 1.0)).abs() < 1e-12);
        assert!((k.gamma - 0.4621).abs() < 1e-4);
    }

    /// A stream that returns the given words in order.
    struct Words(std::vec::IntoIter<u64>);
    impl RngCore for Words {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            self.0.next().expect("enough words")
        }
        fn fill_bytes(&mut self, _: &mut [u8]) {
            unreachable!()
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), rand::Error> {
            unreachable!()
        }
    }

    #[test]
    fn flip_mask_compares_each_lanes_digits_with_the_threshold() {
        // t = 0b101 · 2^29 (5/8): only the top three digits of U matter. Lane ℓ < 8 gets
        // the digits of ℓ (most significant first), so it is flipped iff ℓ < 5; lanes
        // outside `lanes` stay 0; the draw stops at t's lowest set digit (three words).
        let t = 5u32 << 29;
        let digit = |d: u32| (0..8u64).fold(0u64, |w, l| w | (((l >> d) & 1) << l));
        let mut words = Words(vec![digit(2), digit(1), digit(0)].into_iter());
        assert_eq!(flip_mask(&mut words, t, 0xFF), 0b1_1111);
        assert!(words.0.next().is_none());
        // t = 1 + 2^30 (digits 01, then 0s, and a 1 at the end): a first word of ones
        // decides every lane (U > t); the draw stops after the fixed FLIP_MASK_STEPS words.
        let steps = FLIP_MASK_STEPS as usize;
        let mut words = Words(vec![!0; steps].into_iter());
        assert_eq!(flip_mask(&mut words, (1u32 << 30) | 1, !0), 0);
        assert!(words.0.next().is_none());
        // When lanes remain undecided after them, it goes on to t's last digit: lanes
        // reading t's digits exactly (U = t) are kept, lanes with a 0 where t has its
        // final 1 are flipped.
        let mut w = vec![0, !0];
        w.extend(std::iter::repeat_n(0, 29));
        w.push(0xFF);
        let mut words = Words(w.into_iter());
        assert_eq!(flip_mask(&mut words, (1u32 << 30) | 1, !0), !0xFF);
        assert!(words.0.next().is_none());
        // Lanes whose digits equal t's down to its lowest set digit have U >= t: kept.
        // Lanes 0..32 read 00 (U < t: flipped), lanes 32..64 read 01 (U >= t: kept).
        let mut words = Words(vec![0, 0xFFFF_FFFF_0000_0000].into_iter());
        assert_eq!(flip_mask(&mut words, 1u32 << 30, !0), 0xFFFF_FFFF);
        // t = 0 never flips and draws nothing.
        assert_eq!(flip_mask(&mut Words(vec![].into_iter()), 0, !0), 0);
    }

    /// The charged releases draw what the plain bits draw and charge from the probability
    /// the draws use: 2 bits over several cells, none over one; the flips' charge moves
    /// with their threshold, not with the κ they were built from.
    #[test]
    fn charged_releases_draw_the_plain_bits_and_charge_their_probability() {
        use crate::ledger::recording;
        use rand::SeedableRng;
        use rand_pcg::Pcg64;
        let k = rr_keep_probability(1.2);
        let rr = OneHotRr::new(k.keep);
        let mut got = Vec::new();
        let ((), r) = recording(|| {
            rr.release(
                &mut Pcg64::seed_from_u64(4),
                3,
                |j| j == 1,
                "cell",
                Subjects::One(2),
                |j, b| got.push((j, b)),
            )
        });
        let mut rng = Pcg64::seed_from_u64(4);
        let want: Vec<(usize, bool)> = (0..3)
            .map(|j| (j, (j == 1) == (rng.gen::<f64>() < k.keep)))
            .collect();
        assert_eq!(got, want);
        assert!((r.max_epsilon - 1.2).abs() < 1e-12);
        // An input with two hot coordinates can differ from a one-hot one in 3 bits.
        let ((), r) = recording(|| {
            rr.release(
                &mut Pcg64::seed_from_u64(4),
                3,
                |j| j > 0,
                "cell",
                Subjects::One(0),
                |_, _| {},
            )
        });
        assert!((r.max_epsilon - 1.8).abs() < 1e-12);
        let ((), r) = recording(|| rr.charge_each(|| [1usize, 4, 4], "cell", 5));
        assert_eq!((r.subjects, r.calls, r.min_epsilon), (3, 2, 0.0));
        assert!((r.max_epsilon - 1.2).abs() < 1e-12);
        let flips = OneHotFlips::new(k.keep);
        let mut bits = [false; 4];
        let ((), r) = recording(|| {
            flips.release(
                &mut Pcg64::seed_from_u64(6),
                2,
                &mut bits,
                "cell",
                Subjects::One(0),
            )
        });
        let mut rng = Pcg64::seed_from_u64(6);
        for (j, b) in bits.iter().enumerate() {
            assert_eq!(*b, (j == 2) != (rng.next_u32() < flips.threshold()));
        }
        assert!((r.max_epsilon - 1.2).abs() < 1e-8);
        assert_eq!(r.max_epsilon, flips.epsilon(4));
        let ((), r) = recording(|| {
            let m = flips.charge(1, "cell", Subjects::Range(0, 10));
            assert_eq!(
                m.mask(&mut Pcg64::seed_from_u64(1), !0),
                flip_mask(&mut Pcg64::seed_from_u64(1), flips.threshold(), !0)
            );
        });
        assert_eq!((r.subjects, r.max_epsilon), (10, 0.0));
        // A threshold of half the range flips a bit with probability 1/2: nothing spent.
        assert_eq!(OneHotFlips::new(0.5).epsilon(3), 0.0);
    }

    /// The threshold is (1 − κ)·2^32 rounded, saturating at u32::MAX: by hand.
    #[test]
    fn flip_threshold_by_hand() {
        assert_eq!(flip_threshold(0.75), 1 << 30);
        assert_eq!(flip_threshold(0.5), 1 << 31);
        assert_eq!(flip_threshold(1.0), 0);
        assert_eq!(flip_threshold(0.0), u32::MAX);
        // 1 − κ = 0.3: 0.3·2^32 = 1288490188.8, rounded up.
        assert_eq!(flip_threshold(0.7), 1_288_490_189);
    }
}
