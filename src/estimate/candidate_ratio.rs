//! HistOfTree's ratio estimator over candidate cells (method card histoftree.md §5.6–§5.7,
//! eq. (9) [R]): f̂(x) = Σ_i Ỹ_i Û_i^{j(x)} / Σ_i Û_i^{j(x)}, where user i releases its
//! cell j_i through a mechanism over its candidate set I_i (generalized randomized
//! response, eq. (17), or centred randomized-response bits, eq. (8)) and Û_i^j = 0 off I_i.
//!
//! Sparse accumulation (card §5 hint): cells are keys, never array indices, and only the
//! cells of the test points are accumulated.
//! * GRR: Û_i^j = (w_i·1{report_i = j} − 1{j ∈ I_i})/(e^ε − 1) with w_i = e^ε + K_i − 1
//!   (exactly 1{j = j_i} when K_i = 1). So Σ_i Ỹ_i Û_i^j = [Σ_{i: report_i = j} w_i Ỹ_i −
//!   Σ_{i: j ∈ I_i} Ỹ_i]/(e^ε − 1): the first sum is one hash update per report, the second
//!   sums groups of users with the same H-signature (per H-axis bin or "any") and a common
//!   compatible leaf, which a test cell matches without visiting the users.
//! * Centred RR: every user's bits are independent across cells and the curator reads
//!   only the test cells' sums, so only those bits are drawn (per distinct test cell, in
//!   order of first appearance, for the users with the cell in I_i; bits off I_i are 0).
//!   This is exact in law for everything the curator computes, not the full release
//!   vector's draw order.

use crate::partition::{CandidateTable, Cell};
use crate::privacy::{rr_keep_probability, Grr};
use rand::Rng;
use rustc_hash::FxHashMap;

/// The cell mechanism over a user's candidate set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CandidateMechanism {
    /// Generalized randomized response over I_i (card §3.3, eq. (17)).
    Grr,
    /// Centred randomized response on the bits 1{j = j_i}, j ∈ I_i, each at ε/2 (card
    /// §3.2, eq. (8)).
    CentredRr,
}

/// The debiased sums of one test cell: numerator Σ_i Ỹ_i Û_i^j and count Σ_i Û_i^j.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CellSums {
    /// Σ_i Ỹ_i Û_i^j.
    pub num: f64,
    /// Σ_i Û_i^j (the debiased count).
    pub den: f64,
}

/// Simulates every user's release under `mech` at budget `eps_cell` and returns the
/// curator's debiased sums for each of `test` (one entry per test cell, duplicates
/// allowed). `users` holds the users' true cells and candidate sets; `y` their released
/// noisy labels (round 1). Draws from `rng`: GRR, users in order, [`Grr::release`] over
/// the K_i candidates (nothing when K_i = 1); centred RR, per distinct test cell in order
/// of first appearance, one uniform per user with the cell among its candidates.
///
/// # Panics
/// If `y` and `users` differ in length, a user's cell is not among its candidates, or
/// ε_cell is not finite and > 0.
pub fn candidate_sums<R: Rng + ?Sized>(
    users: &CandidateTable,
    y: &[f64],
    test: &[Cell],
    mech: CandidateMechanism,
    eps_cell: f64,
    rng: &mut R,
) -> Vec<CellSums> {
    assert_eq!(users.n(), y.len(), "one noisy label per user");
    assert!(
        eps_cell.is_finite() && eps_cell > 0.0,
        "epsilon must be > 0"
    );
    let mut slot: FxHashMap<Cell, usize> = FxHashMap::default();
    let mut distinct: Vec<Cell> = Vec::new();
    let slots: Vec<usize> = test
        .iter()
        .map(|c| {
            *slot.entry(*c).or_insert_with(|| {
                distinct.push(*c);
                distinct.len() - 1
            })
        })
        .collect();
    let sums = match mech {
        CandidateMechanism::Grr => grr_sums(users, y, &slot, &distinct, eps_cell, rng),
        CandidateMechanism::CentredRr => rr_sums(users, y, &distinct, eps_cell, rng),
    };
    slots.iter().map(|&k| sums[k]).collect()
}

fn grr_sums<R: Rng + ?Sized>(
    users: &CandidateTable,
    y: &[f64],
    slot: &FxHashMap<Cell, usize>,
    distinct: &[Cell],
    eps: f64,
    rng: &mut R,
) -> Vec<CellSums> {
    let e = eps.exp();
    // Hits: Σ_{i: report_i = j} (w_i, w_i Ỹ_i) for the test cells j.
    let mut hits = vec![CellSums::default(); distinct.len()];
    // Groups: (leaf, H-signature) → (count, Σ Ỹ) over the users with the leaf compatible.
    let mut groups: FxHashMap<(usize, u128), CellSums> = FxHashMap::default();
    for (i, &yi) in y.iter().enumerate() {
        let cand = users.view(i);
        let cell = users.cells[i];
        let k = cand.len();
        let report = if k == 1 {
            cell
        } else {
            let truth = cand
                .index_of(&cell)
                .expect("a user's cell is among its candidates");
            let g = Grr::new(eps, k as usize);
            cand.nth(g.release(truth as usize, rng) as u64)
        };
        if let Some(&s) = slot.get(&report) {
            let w = e + k as f64 - 1.0;
            hits[s].den += w;
            hits[s].num += w * yi;
        }
        for &leaf in cand.leaves {
            let g = groups.entry((leaf, cand.sig)).or_default();
            g.den += 1.0;
            g.num += yi;
        }
    }
    let mut by_leaf: FxHashMap<usize, Vec<(u128, CellSums)>> = FxHashMap::default();
    for (&(leaf, sig), s) in &groups {
        by_leaf.entry(leaf).or_default().push((sig, *s));
    }
    // Summation order must not depend on the hash map's iteration order.
    for v in by_leaf.values_mut() {
        v.sort_unstable_by_key(|g| g.0);
    }
    let scale = eps.exp_m1();
    distinct
        .iter()
        .zip(&hits)
        .map(|(c, hit)| {
            let mut corr = CellSums::default();
            for &(sig, s) in by_leaf.get(&c.leaf).map_or(&[][..], Vec::as_slice) {
                let v = crate::partition::CandidatesView {
                    sig,
                    free: 0,
                    s: users.s,
                    bins: users.bins,
                    leaves: &[],
                };
                if v.matches_h(c.h) {
                    corr.den += s.den;
                    corr.num += s.num;
                }
            }
            CellSums {
                num: (hit.num - corr.num) / scale,
                den: (hit.den - corr.den) / scale,
            }
        })
        .collect()
}

/// One user's randomized-response bit for one candidate cell (card §3.2): the indicator
/// `in_cell` = 1{j = j_i}, kept with probability `keep` = e^{ε/2}/(1 + e^{ε/2}), else
/// flipped; one uniform from `rng`. The curator centres it by q = 1 − keep.
pub fn centred_rr_bit<R: Rng + ?Sized>(in_cell: bool, keep: f64, rng: &mut R) -> bool {
    in_cell == (rng.gen::<f64>() < keep)
}

fn rr_sums<R: Rng + ?Sized>(
    users: &CandidateTable,
    y: &[f64],
    distinct: &[Cell],
    eps: f64,
    rng: &mut R,
) -> Vec<CellSums> {
    // Each bit at ε/2: kept with probability e^{ε/2}/(1 + e^{ε/2}) = 1 − q, centred by q,
    // debiased by 1/(1 − 2q) (card §3.2).
    let rr = rr_keep_probability(eps);
    let q = 1.0 - rr.keep;
    distinct
        .iter()
        .map(|c| {
            let mut s = CellSums::default();
            for (i, &yi) in y.iter().enumerate() {
                if !users.view(i).contains(c) {
                    continue;
                }
                let bit = centred_rr_bit(users.cells[i] == *c, rr.keep, rng);
                let uhat = (f64::from(u8::from(bit)) - q) / rr.gamma;
                s.den += uhat;
                s.num += yi * uhat;
            }
            s
        })
        .collect()
}

/// The estimator's prediction per test cell from its sums: num/den when den > `tau_n`
/// (τ·n, [G] τ = 0), else `fallback[t]` (card §4.6 [G]); clipped into `clip` when given.
pub fn ratio_predictions(
    sums: &[CellSums],
    tau_n: f64,
    fallback: &[f64],
    clip: Option<(f64, f64)>,
) -> Vec<f64> {
    sums.iter()
        .zip(fallback)
        .map(|(s, &f)| {
            let v = if s.den > tau_n && s.den > 0.0 {
                s.num / s.den
            } else {
                f
            };
            clip.map_or(v, |(lo, hi)| v.clamp(lo, hi))
        })
        .collect()
}
