//! The LPDT estimator: every private user releases a randomized one-hot cell vector and one
//! Laplace-noised label; the curator forms a ratio of two noisy sums per leaf (LPDT paper
//! eq. (3)–(5) and App. D.1; docs/methods/lpdt.md §2).

use super::LabelBounds;
use crate::privacy::ledger::Subjects;
use crate::privacy::{
    laplace_release, rr_keep_probability, Budget, BudgetError, Domain, FlipMasks, KeepProbability,
    OneHotFlips,
};
use rand::RngCore;

/// The ledger's part name of LPDT's bit vector (randomized response on the one-hot leaf
/// vector).
pub const LPDT_CELL_PART: &str = "cell: randomized response";

/// The ledger's part name of LPDT's noisy label (scalar Laplace).
pub const LPDT_LABEL_PART: &str = "label: laplace";

/// Parameters of one LPDT privatization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LpdtConfig {
    /// Per-user budget ε > 0.
    pub epsilon: f64,
    /// Share ρ ∈ (0,1) of ε spent on the randomized response of the cell vector; the
    /// label gets (1 − ρ)ε.
    pub rho: f64,
    /// Label bounds [y_lo, y_hi]; private labels are clipped into them and the Laplace
    /// scale is R/((1−ρ)ε) with R = y_hi − y_lo.
    pub bounds: LabelBounds,
    /// Fallback threshold τ ≥ 0: leaf j takes its public mean when the debiased private
    /// count S_j/γ ≤ τ·n (docs/methods/lpdt.md §2.3; τ = 0 fires when S_j ≤ 0).
    pub tau: f64,
    /// How the users' releases are simulated: the same law either way
    /// ([`Simulation`]).
    pub simulation: Simulation,
}

/// How the LPDT users' releases are simulated (method parameter `simulation`). Both give
/// the curator's sums (S_j, T_j) the same joint law; they differ in the random draws,
/// hence in the realised numbers for a given stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Simulation {
    /// Aggregate-exact shortcut ([`super::lpdt_sums_fast`]): per leaf, the users'
    /// flips 64 at a time. The default.
    #[default]
    Fast,
    /// Every user's release drawn as the user would ([`LpdtMechanism::release`], one draw
    /// per user and leaf; [`lpdt_sums`]): for audits.
    PerUser,
}

impl Simulation {
    /// The names accepted by the method parameter, default first.
    pub const NAMES: &'static [&'static str] = &["fast", "per_user"];

    /// The mode named `name` (one of [`Simulation::NAMES`]).
    pub fn from_name(name: &str) -> Option<Simulation> {
        match name {
            "fast" => Some(Simulation::Fast),
            "per_user" => Some(Simulation::PerUser),
            _ => None,
        }
    }
}

/// The local randomizer every private user runs (docs/methods/lpdt.md §2.1).
#[derive(Debug, Clone, Copy)]
pub struct LpdtMechanism {
    /// Number of leaves K (length of the one-hot vector).
    pub k: usize,
    /// κ and γ of the bitwise randomized response at budget ρε.
    pub keep: KeepProbability,
    /// Laplace scale β = R/((1−ρ)ε) of the label noise, in label units.
    pub label_scale: f64,
    /// Label bounds the label is clipped into.
    pub bounds: LabelBounds,
    /// The bits' randomized response: a bit is flipped when a u32 draw is below the
    /// threshold t (probability t/2^32 = 1 − κ up to 2^−32), and charged from t.
    pub(super) flips: OneHotFlips,
}

impl LpdtMechanism {
    /// The randomizer for a partition with `k` leaves.
    ///
    /// # Errors
    /// When ε ≤ 0 or ρ ∉ (0,1).
    pub fn new(k: usize, cfg: &LpdtConfig) -> Result<Self, BudgetError> {
        let budget = Budget::new(cfg.epsilon)?;
        let (eps_cell, eps_label) = if crate::privacy::mutants::active("rho-both-full") {
            // Slip: ρ and 1 − ρ each read as the whole budget.
            budget.split("rho", cfg.rho)?;
            (cfg.epsilon, cfg.epsilon)
        } else {
            budget.split("rho", cfg.rho)?
        };
        Ok(Self::with_budgets(k, eps_cell, eps_label, cfg.bounds))
    }

    /// The randomizer with explicit budgets: ε_cell for the bits (each kept with
    /// probability e^{ε_cell/2}/(1+e^{ε_cell/2})) and ε_label for the label
    /// (Laplace scale R/ε_label). Both must be > 0.
    pub fn with_budgets(k: usize, eps_cell: f64, eps_label: f64, bounds: LabelBounds) -> Self {
        let keep = rr_keep_probability(eps_cell);
        LpdtMechanism {
            k,
            keep,
            label_scale: bounds.range() / eps_label,
            bounds,
            flips: OneHotFlips::new(keep.keep),
        }
    }

    /// One user's release: writes the K randomized bits B_j = U_j XOR F_j,
    /// F_j ~ Bernoulli(1 − κ) independently, into `bits` (length K; U is one-hot at
    /// `leaf`) and returns the noisy label Ỹ = clip(y) + Lap(β), drawn once and shared by
    /// all leaves (docs/methods/lpdt.md §2.1 and §2.2 item 5). ε-LDP: ρε for the bits, (1−ρ)ε for Ỹ.
    ///
    /// `user` is the user's index in the private sample: the privacy ledger charges it,
    /// in the samplers, what the bits and the label spent ([`OneHotFlips::release`] from
    /// the flip threshold the bits are drawn with, [`LpdtMechanism::noisy_label`]; nothing
    /// outside a recording).
    #[inline]
    pub fn release<R: RngCore + ?Sized>(
        &self,
        user: usize,
        leaf: usize,
        y: f64,
        bits: &mut [bool],
        rng: &mut R,
    ) -> f64 {
        let noisy_y = self.noisy_label(user, y, rng);
        self.flips
            .release(rng, leaf, bits, LPDT_CELL_PART, Subjects::One(user));
        noisy_y
    }

    /// The label part of user `user`'s release: Ỹ = clip(y) + Lap(β), one draw from
    /// `rng` through [`laplace_release`], which charges the user Δ/β from the scale it drew
    /// with and Δ = R, the range of the bounds the label is clipped into, widened to take
    /// in the label it was handed (docs/methods/lpdt.md §2.2 item 2). The per-user release
    /// and the fast simulation ([`super::lpdt_sums_fast`]) both draw the labels here.
    #[inline]
    pub fn noisy_label<R: RngCore + ?Sized>(&self, user: usize, y: f64, rng: &mut R) -> f64 {
        let domain = Domain::Interval {
            lo: self.bounds.lo,
            hi: self.bounds.hi,
        };
        // Slip: the label released as handed in, not clipped into the bounds.
        let label = if crate::privacy::mutants::active("lpdt-label-unclipped") {
            y
        } else {
            self.bounds.clip(y)
        };
        laplace_release(
            rng,
            label,
            domain,
            self.label_scale,
            LPDT_LABEL_PART,
            Subjects::One(user),
        )
    }

    /// ε (nats) spent by the bit vector of one release: κ/(1 − κ) per bit that two
    /// one-hot vectors can change (2, or 0 with a single leaf), with κ = 1 − t/2^32 the
    /// keep probability the draws really use (the flip threshold t quantizes 1 − κ to
    /// 2^−32, so this differs from ρε by at most 2·2^−33/(κ(1 − κ))); what
    /// [`OneHotFlips::release`] charges.
    pub fn bits_epsilon(&self) -> f64 {
        self.flips.epsilon(self.k)
    }

    /// The flip threshold t of the bits.
    pub fn flip_threshold(&self) -> u32 {
        self.flips.threshold()
    }

    /// Charges `who` one bit vector each and returns the flips to draw them with (the
    /// threshold the charge was computed from): the fast simulation's shortcut.
    #[inline]
    pub(super) fn charge_bits(&self, who: Subjects<'_>) -> FlipMasks {
        self.flips.charge(self.k, LPDT_CELL_PART, who)
    }
}

/// The curator's per-leaf sums of eq. (5): S_j = Σ_i (B_ij − (1−κ)) and
/// T_j = Σ_i Ỹ_i (B_ij − (1−κ)), with E[S_j] = γ·n_j and E[T_j] = γ·Σ_{i∈A_j} y_i.
#[derive(Debug, Clone, PartialEq)]
pub struct LpdtSums {
    /// S_j, length K.
    pub s: Vec<f64>,
    /// T_j, length K.
    pub t: Vec<f64>,
}

/// Simulates every private user's release ([`LpdtMechanism::release`]) and aggregates
/// the reports into [`LpdtSums`] (the `per_user` simulation). `leaf_of_user` and `y` have
/// length n (the private sample). Cost O(n·K) bit draws; [`super::lpdt_sums_fast`] samples
/// the same law faster.
pub fn lpdt_sums<R: RngCore + ?Sized>(
    mech: &LpdtMechanism,
    leaf_of_user: &[usize],
    y: &[f64],
    rng: &mut R,
) -> LpdtSums {
    assert_eq!(leaf_of_user.len(), y.len(), "one label per user");
    let k = mech.k;
    // ones[j] = #{i : B_ij = 1}, sum_y[j] = Σ_{i: B_ij = 1} Ỹ_i.
    let mut ones = vec![0u64; k];
    let mut sum_y = vec![0.0f64; k];
    let mut total_y = 0.0;
    let mut bits = vec![false; k];
    for (i, (&leaf, &yi)) in leaf_of_user.iter().zip(y).enumerate() {
        let noisy_y = mech.release(i, leaf, yi, &mut bits, rng);
        total_y += noisy_y;
        for j in 0..k {
            if bits[j] {
                ones[j] += 1;
                sum_y[j] += noisy_y;
            }
        }
    }
    let q = 1.0 - mech.keep.keep;
    let n = y.len() as f64;
    LpdtSums {
        s: ones.iter().map(|&c| c as f64 - n * q).collect(),
        t: sum_y.iter().map(|&sy| sy - q * total_y).collect(),
    }
}
