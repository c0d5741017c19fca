//! Empirical privacy audits (docs/architecture.md "Releases are first-class"): draw many
//! releases of a mechanism on two neighbouring inputs and certify a lower bound on its
//! privacy loss from the frequencies of output events ([`crate::stats::epsilon_lower_bound`],
//! [`crate::stats::epsilon_delta_lower_bound`] for (ε, δ) claims).
//!
//! A method's [`AuditCase`]s (two neighbouring inputs of one part of its release, a
//! real-valued statistic of the release and the ε, and δ, that part claims) come from the
//! audit's own table ([`table::cases_for`]): the methods never import this module; each
//! family's module here reaches its methods' concrete types and builds the cases by calling
//! the release functions the runner calls: [`local`] (with [`lpdt`], [`histogram`],
//! [`deconv`], [`priv_unit_g`] for PSGD and [`pglm`]) for the local releases and any other
//! composition of a cell and a label mechanism,
//! [`semi_feature`] for HistOfTree, ParDT, LabelDT and KRR, [`forest`] for the central-DP
//! forests; [`sampler`] audits the Laplace samplers' low bits and [`spec`] a whole spec
//! (`dp-repro audit`).
//! [`audit_scalar`] audits one case: the events are the half-lines {z ≤ t} and {z > t} of
//! the statistic.
//!
//! The statistic of a whole release is the log-likelihood ratio of the two inputs under the
//! *claimed* mechanism (white-box, as in Neyman–Pearson): its half-lines are the tightest
//! events when the implementation is what it claims, and when it is not (a noise scale
//! too small, a bit flipped too rarely) the releases' law moves and the same events show the
//! excess loss. Choosing the event and estimating its probabilities on the same draws would
//! bias the bound upwards, so the event is chosen on a pilot sample and its probabilities
//! are counted on fresh draws: the Clopper–Pearson bound then holds at confidence 1 − α for
//! the chosen event, as for any event fixed in advance.

pub mod claims;
pub mod deconv;
pub mod e2e;
pub mod forest;
pub mod histogram;
/// The privacy ledger: every real fit's charges per user, with the tuning counted.
pub mod ledger;
pub mod local;
pub mod lpdt;
pub mod pglm;
pub mod priv_unit_g;
pub mod sampler;
pub mod semi_feature;
pub mod spec;
pub mod table;

use crate::stats::epsilon_delta_lower_bound;
use rand_pcg::Pcg64;

/// A release statistic drawn from a seeded stream.
pub type Release = Box<dyn Fn(&mut Pcg64) -> f64 + Send + Sync>;

/// One audited part of a method's release at one ε: two neighbouring inputs a and b, the
/// statistic of a release of each, and the ε the part claims.
pub struct AuditCase {
    /// The part of the release (e.g. `bits`, `label`, `user release`).
    pub part: String,
    /// The neighbouring inputs, in words (e.g. `leaf 0, y = lo vs leaf 1, y = hi`).
    pub neighbours: String,
    /// The ε this part must not exceed (natural log).
    pub claimed: f64,
    /// The δ of an (ε, δ) claim (0 for pure ε-DP): the bound is
    /// [`crate::stats::epsilon_delta_lower_bound`] at this δ.
    pub delta: f64,
    /// A release statistic on input a.
    pub release_a: Release,
    /// A release statistic on input b.
    pub release_b: Release,
    /// Further candidate pairs of neighbouring inputs for the same part and statistic (the
    /// worst-case search, docs/audit.md "Worst-case neighbours"): the audit chooses among
    /// (a, b) and these, on its pilot draws, the pair and event with the largest bound, and
    /// certifies that one on fresh draws. Empty: the pair (a, b) alone.
    pub alternatives: Vec<NeighbourPair>,
}

/// How far beyond its declared domain a beyond-range input lies, in widths of the domain:
/// far enough that a release which forgot to clip it is told apart from the bound on every
/// draw, at any ε the specs use.
pub const BEYOND: f64 = 1000.0;

/// A value [`BEYOND`] widths of \[`lo`, `hi`\] above `hi`: an input that a release clipping
/// into \[`lo`, `hi`\] maps to `hi`, so a pair (this, `hi`) has one law under a faithful
/// release, and any loss the audit certifies on it is the missing clip's.
pub fn beyond(lo: f64, hi: f64) -> f64 {
    hi + BEYOND * (hi - lo).abs().max(1.0)
}

/// One candidate pair of neighbouring inputs of an audited part: the pair in words and a
/// release statistic drawn on each input.
pub struct NeighbourPair {
    /// The neighbouring inputs, in words.
    pub neighbours: String,
    /// A release statistic on input a.
    pub release_a: Release,
    /// A release statistic on input b.
    pub release_b: Release,
}

impl std::fmt::Debug for AuditCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditCase")
            .field("part", &self.part)
            .field("neighbours", &self.neighbours)
            .field("claimed", &self.claimed)
            .field("delta", &self.delta)
            .finish_non_exhaustive()
    }
}

/// The three cases of a release made of two parts whose statistics are log-likelihood
/// ratios under the claimed budgets: each part alone (`parts[i]` = its name and claimed ε)
/// and the whole release, whose log-likelihood ratio is the parts' sum and whose claim is
/// theirs. `stats(false, rng)` draws one release of input a and returns the two parts'
/// statistics; `stats(true, rng)` the same for input b. Each case draws whole releases.
pub fn two_part_cases<S>(parts: [(&str, f64); 2], neighbours: &str, stats: S) -> Vec<AuditCase>
where
    S: Fn(bool, &mut Pcg64) -> (f64, f64) + Clone + Send + Sync + 'static,
{
    let case = |part: &str, claimed: f64, pick: fn((f64, f64)) -> f64| {
        let (sa, sb) = (stats.clone(), stats.clone());
        AuditCase {
            part: part.into(),
            neighbours: neighbours.into(),
            claimed,
            delta: 0.0,
            release_a: Box::new(move |r| pick(sa(false, r))),
            release_b: Box::new(move |r| pick(sb(true, r))),
            alternatives: Vec::new(),
        }
    };
    let [(first, claim_first), (second, claim_second)] = parts;
    vec![
        case(first, claim_first, |(x, _)| x),
        case(second, claim_second, |(_, y)| y),
        case("user release", claim_first + claim_second, |(x, y)| x + y),
    ]
}

/// The verdict on one case: a certified bound above the claim is a violation at
/// confidence 1 − α; otherwise the releases are consistent with the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The certified lower bound does not exceed the claimed ε.
    Consistent,
    /// The certified lower bound exceeds the claimed ε.
    Violation,
}

impl Verdict {
    /// `consistent` or `violation`, as `audit.csv` writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::Violation => "violation",
        }
    }

    /// The verdict on a certified `bound` against the `claimed` ε.
    pub fn of(bound: f64, claimed: f64) -> Verdict {
        if bound > claimed {
            Verdict::Violation
        } else {
            Verdict::Consistent
        }
    }
}

/// ln p_a(z)/p_b(z) for z drawn from Laplace(scale) centred at `centre_a` against centred
/// at `centre_b`: (|z − b| − |z − a|)/scale, written as a clamp of a + b − 2z to ±|b − a|
/// (the same value in exact arithmetic) so that the extremes ±|b − a|/scale are single
/// values whatever z: the plain difference rounds differently for different z beyond the
/// centres, and those rounding atoms would be events of their own, an artefact of the
/// statistic rather than of the mechanism.
pub fn laplace_log_ratio(z: f64, centre_a: f64, centre_b: f64, scale: f64) -> f64 {
    let (lo, hi) = (centre_a.min(centre_b), centre_a.max(centre_b));
    let d = (lo + hi - 2.0 * z).clamp(lo - hi, hi - lo) / scale;
    if centre_a <= centre_b {
        d
    } else {
        -d
    }
}

/// What a method's audit cases may depend on besides its grid point and ε: the size of
/// the private sample, which sets PGLM's δ = 1/n_P² (and its reference noise slip,
/// n_P^{1/4}) and the depth rule of a DiPriMe forest (hence its per-node budgets). The
/// audit reads no data, so `dp-repro audit` takes it from `--n-private`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditContext {
    /// n_P, the number of private users (local models) or training rows (central DP).
    pub n_private: usize,
}

impl Default for AuditContext {
    /// n_P = 1000, the order of the papers' private samples.
    fn default() -> Self {
        AuditContext { n_private: 1000 }
    }
}

/// How many releases an audit draws and how it chooses its event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuditConfig {
    /// Releases per input used to choose the event.
    pub pilot: usize,
    /// Fresh releases per input used to bound its probabilities.
    pub draws: usize,
    /// Candidate thresholds: the pooled pilot sample's quantiles at j/(thresholds + 1).
    pub thresholds: usize,
    /// The bound holds with probability at least 1 − α over the final draws.
    pub alpha: f64,
    /// The δ of the claim the events are held against (0: pure ε-DP; see
    /// [`AuditCase::delta`]).
    pub delta: f64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            pilot: 100_000,
            draws: 1_000_000,
            thresholds: 64,
            alpha: 0.05,
            delta: 0.0,
        }
    }
}

/// Which side of the threshold an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// {z ≤ t}.
    AtMost,
    /// {z > t}.
    Above,
}

/// An event {z ≤ t} or {z > t} of the release statistic, and the direction of the
/// comparison: `a_over_b` bounds ln P_a\[E\]/P_b\[E\], else ln P_b\[E\]/P_a\[E\].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// The threshold t.
    pub threshold: f64,
    /// The side of t.
    pub side: Side,
    /// Whether input a is the numerator.
    pub a_over_b: bool,
}

impl Event {
    /// Whether `z` is in the event.
    #[inline]
    pub fn contains(&self, z: f64) -> bool {
        match self.side {
            Side::AtMost => z <= self.threshold,
            Side::Above => z > self.threshold,
        }
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = match self.side {
            Side::AtMost => "<=",
            Side::Above => ">",
        };
        let (num, den) = if self.a_over_b {
            ("a", "b")
        } else {
            ("b", "a")
        };
        write!(f, "P_{num}[z {side} {}] / P_{den}[same]", self.threshold)
    }
}

/// What an audit of one pair of inputs found.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditOutcome {
    /// The event chosen on the pilot sample.
    pub event: Event,
    /// Releases of input a (numerator side or not, see the event) in the event, of `draws`.
    pub count_a: u64,
    /// Releases of input b in the event, of `draws`.
    pub count_b: u64,
    /// Fresh releases per input.
    pub draws: u64,
    /// The certified lower bound on ε (natural log), at confidence 1 − α.
    pub epsilon_lower: f64,
    /// The plug-in estimate ln(p̂_num/p̂_den) of the chosen event (∞ when only the
    /// denominator's count is 0, NaN when both are), for the report; not a bound.
    pub epsilon_plug_in: f64,
}

/// Audits a mechanism whose release on input a is drawn by `release_a` and on the
/// neighbouring input b by `release_b` (each returning the release statistic z), with the
/// four independent streams `pilot_a`, `pilot_b`, `final_a`, `final_b` (seeded by the
/// caller, e.g. [`crate::run::seeds::stream`]). Returns the event with the largest pilot
/// bound and its bound on fresh draws.
///
/// Cost: 2·(pilot + draws) releases and O(pilot·thresholds) counting.
///
/// # Panics
/// If `pilot`, `draws` or `thresholds` is 0, or α is not in (0, 1).
pub fn audit_scalar(
    cfg: &AuditConfig,
    mut release_a: impl FnMut(&mut Pcg64) -> f64,
    mut release_b: impl FnMut(&mut Pcg64) -> f64,
    [mut pilot_a, mut pilot_b, mut final_a, mut final_b]: [Pcg64; 4],
) -> AuditOutcome {
    assert!(
        cfg.pilot > 0 && cfg.draws > 0 && cfg.thresholds > 0,
        "an audit needs pilot draws, final draws and thresholds"
    );
    let za: Vec<f64> = (0..cfg.pilot).map(|_| release_a(&mut pilot_a)).collect();
    let zb: Vec<f64> = (0..cfg.pilot).map(|_| release_b(&mut pilot_b)).collect();
    let (_, event) = choose_event(cfg, &za, &zb);
    let count = |release: &mut dyn FnMut(&mut Pcg64) -> f64, rng: &mut Pcg64| {
        (0..cfg.draws)
            .filter(|_| event.contains(release(rng)))
            .count() as u64
    };
    let count_a = count(&mut release_a, &mut final_a);
    let count_b = count(&mut release_b, &mut final_b);
    let n = cfg.draws as u64;
    let (num, den) = if event.a_over_b {
        (count_a, count_b)
    } else {
        (count_b, count_a)
    };
    AuditOutcome {
        event,
        count_a,
        count_b,
        draws: n,
        epsilon_lower: epsilon_delta_lower_bound(num, n, den, n, cfg.alpha, cfg.delta),
        epsilon_plug_in: (num as f64 / den as f64).ln(),
    }
}

/// Audits a part over candidate pairs of neighbouring inputs (the worst-case search):
/// `pairs[i]` draws the statistic on input a and on input b of pair i. Each pair gets
/// `cfg.pilot` pilot draws per input from its own pilot streams (`streams(i)`'s first two),
/// the pair and half-line event with the largest pilot bound are chosen, and that pair
/// alone is certified on `cfg.draws` fresh draws per input from `streams(chosen)`'s last
/// two: choosing among pairs on the pilot keeps the final bound valid at confidence 1 − α,
/// as choosing the event does. Returns the chosen pair's index and its outcome.
///
/// Cost: 2·(pairs·pilot + draws) releases.
///
/// # Panics
/// If `pairs` is empty, or as [`audit_scalar`].
pub fn audit_search(
    cfg: &AuditConfig,
    pairs: &[(&Release, &Release)],
    streams: impl Fn(usize) -> [Pcg64; 4],
) -> (usize, AuditOutcome) {
    assert!(!pairs.is_empty(), "a search needs at least one pair");
    if pairs.len() == 1 {
        return (0, audit_scalar(cfg, pairs[0].0, pairs[0].1, streams(0)));
    }
    let mut best: Option<(f64, usize)> = None;
    for (i, (a, b)) in pairs.iter().enumerate() {
        let [mut pa, mut pb, _, _] = streams(i);
        let za: Vec<f64> = (0..cfg.pilot).map(|_| a(&mut pa)).collect();
        let zb: Vec<f64> = (0..cfg.pilot).map(|_| b(&mut pb)).collect();
        let (bound, _) = choose_event(cfg, &za, &zb);
        if best.is_none_or(|(b, _)| bound > b) {
            best = Some((bound, i));
        }
    }
    let (_, chosen) = best.expect("at least one pair");
    let (a, b) = pairs[chosen];
    (chosen, audit_scalar(cfg, a, b, streams(chosen)))
}

/// The event with the largest [`epsilon_delta_lower_bound`] on the pilot samples `za`, `zb`
/// (ties: the first in threshold order, {≤} before {>}, a over b first), with that pilot
/// bound. Candidate thresholds are the distinct pooled quantiles (so a binary statistic
/// gets t = its lower value, giving the events {z = low} and {z = high}).
pub(crate) fn choose_event(cfg: &AuditConfig, za: &[f64], zb: &[f64]) -> (f64, Event) {
    let mut pooled: Vec<f64> = za.iter().chain(zb).copied().collect();
    pooled.sort_by(f64::total_cmp);
    let m = pooled.len();
    let mut thresholds: Vec<f64> = (1..=cfg.thresholds)
        .map(|j| pooled[(j * m / (cfg.thresholds + 1)).min(m - 1)])
        .collect();
    thresholds.dedup();
    let mut sa = za.to_vec();
    let mut sb = zb.to_vec();
    sa.sort_by(f64::total_cmp);
    sb.sort_by(f64::total_cmp);
    let at_most = |s: &[f64], t: f64| s.partition_point(|&z| z <= t) as u64;
    let (na, nb) = (za.len() as u64, zb.len() as u64);
    let mut best = (f64::NEG_INFINITY, None);
    for &t in &thresholds {
        let (la, lb) = (at_most(&sa, t), at_most(&sb, t));
        for (side, ka, kb) in [(Side::AtMost, la, lb), (Side::Above, na - la, nb - lb)] {
            for (a_over_b, num, n_num, den, n_den) in
                [(true, ka, na, kb, nb), (false, kb, nb, ka, na)]
            {
                let bound = epsilon_delta_lower_bound(num, n_num, den, n_den, cfg.alpha, cfg.delta);
                if bound > best.0 {
                    best = (
                        bound,
                        Some(Event {
                            threshold: t,
                            side,
                            a_over_b,
                        }),
                    );
                }
            }
        }
    }
    (best.0, best.1.expect("at least one threshold"))
}

#[cfg(test)]
mod tests;
