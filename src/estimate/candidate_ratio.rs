//! HistOfTree's ratio estimator over candidate cells (method card docs/methods/histoftree.md §5.6–§5.7,
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

use crate::partition::{CandidateTable, CandidatesView, Cell};
use crate::privacy::ledger::Subjects;
use crate::privacy::{rr_keep_probability, Grr, OneHotRr};
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
        let k = cand.len();
        let report = grr_cell_release(&cand, users.cells[i], eps, i, rng);
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

/// The ledger part of the GRR cell report.
pub const GRR_PART: &str = "cell (generalized RR over I_i)";
/// The ledger part of the centred RR bits.
pub const RR_PART: &str = "cell (centred RR bits over I_i)";

/// One user's round-2 release under generalized randomized response (card §3.3,
/// eq. (17)): the report, a cell of the user's candidate set `cand` (K = |I_i| cells, a
/// function of its public coordinates), of its true cell `cell` through [`Grr`] at ε_U =
/// `eps` over the K candidates in the order of [`CandidatesView::nth`]; with K = 1 the
/// true cell, nothing drawn. The runner ([`candidate_sums`]) and the audit call it.
///
/// Ledger: private user `user` is charged, by [`Grr::release_charged`],
/// [`Grr::spent_epsilon`] of the law it drew with over the K cells it drew from (0 at
/// K = 1: the cell is fixed by public coordinates).
///
/// # Panics
/// If `cell` is not among the candidates, or ε is not finite and > 0 (K ≥ 2).
pub fn grr_cell_release<R: Rng + ?Sized>(
    cand: &CandidatesView<'_>,
    cell: Cell,
    eps: f64,
    user: usize,
    rng: &mut R,
) -> Cell {
    let k = cand.len();
    let who = Subjects::One(user);
    if k == 1 {
        // One candidate: nothing drawn, nothing spent, the user on the ledger at 0.
        Grr::new(eps, 1).release_charged(0, rng, GRR_PART, who);
        return cell;
    }
    let truth = cand
        .index_of(&cell)
        .expect("a user's cell is among its candidates");
    let g = Grr::new(eps, k as usize);
    cand.nth(g.release_charged(truth as usize, rng, GRR_PART, who) as u64)
}

/// The keep probability of the centred randomized-response bits at ε_U = `eps` (card
/// §3.2): e^{ε_U/2}/(1 + e^{ε_U/2}), each bit at ε_U/2 so that the two bits two
/// neighbours can change cost ε_U (two neighbours agree on the public coordinates, hence
/// on I_i, and their one-hot vectors differ in at most two positions; none when |I_i| =
/// 1). [`candidate_sums`] and [`centred_rr_release`] both read it, and draw and charge the
/// bits through [`OneHotRr`] at its κ.
pub fn centred_rr_keep(eps: f64) -> crate::privacy::KeepProbability {
    rr_keep_probability(eps)
}

/// One user's whole round-2 release under centred randomized response (card §3.2,
/// eq. (8)): one bit 1{j = `cell`} per candidate j of `cand`, in the order of
/// [`CandidatesView::nth`], each through [`OneHotRr::bit`] at [`centred_rr_keep`] of
/// `eps` (bits off I_i are 0 and not drawn). The runner's [`candidate_sums`] draws the
/// same bits (same keep, same bit function) only for the test cells, exact in law for
/// what the curator reads; the audit calls this. Charges `user` as [`candidate_sums`]
/// does.
///
/// # Panics
/// If ε is not finite and > 0.
pub fn centred_rr_release<R: Rng + ?Sized>(
    cand: &CandidatesView<'_>,
    cell: Cell,
    eps: f64,
    user: usize,
    rng: &mut R,
) -> Vec<bool> {
    assert!(eps.is_finite() && eps > 0.0, "epsilon must be > 0");
    let rr = OneHotRr::new(centred_rr_keep(eps).keep);
    let k = cand.len() as usize;
    let mut bits = vec![false; k];
    rr.release(
        rng,
        k,
        |j| cand.nth(j as u64) == cell,
        RR_PART,
        Subjects::One(user),
        |j, b| bits[j] = b,
    );
    bits
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
    let rr = centred_rr_keep(eps);
    let q = 1.0 - rr.keep;
    let bits = OneHotRr::new(rr.keep);
    // Ledger: every user releases its whole bit vector over I_i once (this shortcut draws
    // only the bits the curator reads), charged from the keep the bits are drawn with.
    bits.charge_each(
        || (0..users.n()).map(|i| users.view(i).len() as usize),
        RR_PART,
        0,
    );
    distinct
        .iter()
        .map(|c| {
            let mut s = CellSums::default();
            for (i, &yi) in y.iter().enumerate() {
                if !users.view(i).contains(c) {
                    continue;
                }
                let bit = bits.bit(users.cells[i] == *c, rng);
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
