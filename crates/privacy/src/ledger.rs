//! The privacy ledger (docs/architecture.md, "The ledger"): every mechanism call charges the ε it
//! actually spent to the subjects whose data it read, and a ledger run totals the charges
//! per subject along the code path that ran.
//!
//! **What a charge is.** A release charges at the place it draws its noise, from the scale
//! or probabilities it really used and the sensitivity of the input domain it really saw:
//! a Laplace draw of scale b over a domain of sensitivity Δ charges Δ/b
//! ([`laplace_epsilon`]); a randomized-response bit kept with probability κ charges
//! ln(κ/(1 − κ)) per bit that two neighbouring inputs can change ([`rr_epsilon`]); a
//! generalized randomized response over k categories charges ln(p_true/p_other) of the
//! probabilities it drew with ([`grr_epsilon`]); a Gaussian draw of variance σ² charges
//! the ε that Dwork & Roth's Theorem A.1 gives at its δ ([`gaussian_epsilon`]); an
//! exponential mechanism whose log-weights are c·u for a score of sensitivity Δ charges
//! 2cΔ ([`exponential_epsilon`]). None of them reads the budget function that chose the
//! shares, so a slip in a scale, in a share or in the budget function moves the charge.
//!
//! **Who pays.** Local models (LPDT, LPCT, HistOfTree): the private user whose record the
//! release is made of ([`Subjects::One`]), or every user of a range at once for an exact
//! shortcut that draws n users' noise in one call ([`Subjects::Range`]). Central DP
//! (DiPriMe): every private row the mechanism read ([`Subjects::Rows`]). Sequential
//! composition is the sum of a subject's charges; parallel composition is what the
//! per-subject sum gives when mechanisms read disjoint rows, and only then: a row read by
//! two mechanisms pays both.
//!
//! **Private quantities.** A noise scale, clipping range, bin edge, scaling or threshold
//! computed from private rows outside any mechanism is recorded with
//! [`private_quantity`]: it is a finding unless a spec declares it.
//!
//! **Recording.** Charges go to the ledger of the current thread while
//! [`recording`] runs a closure, and nowhere otherwise (a charge outside a recording costs
//! one thread-local read). [`recording`] runs its closure in a one-thread rayon pool so
//! that parallel code inside it charges the same ledger.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Who a charge falls on: private users (local models) or private rows (central DP), by
/// their index in the private training sample.
#[derive(Debug, Clone, Copy)]
pub enum Subjects<'a> {
    /// One user or row.
    One(usize),
    /// Every index in `start..end`, each once (an exact shortcut that draws the noise of
    /// users start..end in one call).
    Range(usize, usize),
    /// These rows, each once per occurrence (a central mechanism reading a node's rows; a
    /// row listed twice pays twice).
    Rows(&'a [usize]),
}

/// A quantity computed from private rows outside a mechanism (a label range, a scaling, a
/// bin edge, a split threshold), as the ledger recorded it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PrivateQuantity {
    /// A short name, e.g. `label_bounds` or `leaf scale n`.
    pub name: String,
    /// What was computed from which rows, in words.
    pub detail: String,
}

/// One part of a subject's composition path: every charge of one part name.
#[derive(Debug, Clone, PartialEq)]
pub struct PathPart {
    /// The part's name (e.g. `cell: randomized response`).
    pub part: String,
    /// How many charges of this part the subject paid.
    pub calls: u64,
    /// Their total ε.
    pub epsilon: f64,
    /// Their total δ.
    pub delta: f64,
}

/// The totals of one recording.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LedgerReport {
    /// Subjects charged at least once.
    pub subjects: usize,
    /// The largest total ε any subject paid (0 with no charge).
    pub max_epsilon: f64,
    /// That subject's total δ (the largest total δ when ε totals tie).
    pub max_delta: f64,
    /// The smallest total ε among the subjects charged.
    pub min_epsilon: f64,
    /// The index of the subject who paid `max_epsilon`.
    pub worst: Option<usize>,
    /// That subject's composition path, part by part in order of first charge.
    pub path: Vec<PathPart>,
    /// Mechanism calls charged.
    pub calls: u64,
    /// Quantities computed from private rows outside a mechanism, each once.
    pub private_quantities: Vec<PrivateQuantity>,
}

impl LedgerReport {
    /// The worst subject's path in words: `part: calls x ε per call`, with `(delta δ per
    /// call)` for approximate DP, joined by ` + `.
    pub fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|p| {
                let each = p.epsilon / p.calls.max(1) as f64;
                if p.delta > 0.0 {
                    let each_delta = p.delta / p.calls.max(1) as f64;
                    format!(
                        "{}: {} x {:.6} (delta {:.3e})",
                        p.part, p.calls, each, each_delta
                    )
                } else {
                    format!("{}: {} x {:.6}", p.part, p.calls, each)
                }
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

#[derive(Default, Clone)]
struct State {
    parts: Vec<String>,
    /// Per part: per subject (ε total, δ total, calls).
    per_part: Vec<Vec<(f64, f64, u64)>>,
    totals: Vec<(f64, f64)>,
    charged: Vec<bool>,
    calls: u64,
    quantities: BTreeMap<(String, String), ()>,
    /// The captures running ([`capturing`]), innermost last: every charge and private
    /// quantity is also kept in each.
    captures: Vec<Captured>,
    /// The captures already charged to this recording (drawn or replayed in it), by id.
    applied: std::collections::BTreeSet<u64>,
}

impl State {
    fn part_index(&mut self, part: &str) -> usize {
        if let Some(i) = self.parts.iter().position(|p| p == part) {
            return i;
        }
        self.parts.push(part.to_string());
        self.per_part.push(Vec::new());
        self.parts.len() - 1
    }

    fn charge_one(&mut self, part: usize, subject: usize, epsilon: f64, delta: f64) {
        if self.totals.len() <= subject {
            self.totals.resize(subject + 1, (0.0, 0.0));
            self.charged.resize(subject + 1, false);
        }
        let row = &mut self.per_part[part];
        if row.len() <= subject {
            row.resize(subject + 1, (0.0, 0.0, 0));
        }
        row[subject].0 += epsilon;
        row[subject].1 += delta;
        row[subject].2 += 1;
        self.totals[subject].0 += epsilon;
        self.totals[subject].1 += delta;
        self.charged[subject] = true;
    }

    fn report(self) -> LedgerReport {
        let mut worst: Option<usize> = None;
        let (mut subjects, mut min_epsilon) = (0usize, f64::INFINITY);
        for (i, &(e, d)) in self.totals.iter().enumerate() {
            if !self.charged[i] {
                continue;
            }
            subjects += 1;
            min_epsilon = min_epsilon.min(e);
            // NaN charges (a NaN scale) are the worst of all.
            let better = match worst {
                None => true,
                Some(w) => {
                    let (we, wd) = self.totals[w];
                    e.is_nan() && !we.is_nan() || e > we || (e == we && d > wd)
                }
            };
            if better {
                worst = Some(i);
            }
        }
        let (max_epsilon, max_delta) = worst.map_or((0.0, 0.0), |w| self.totals[w]);
        let path = worst.map_or_else(Vec::new, |w| {
            self.parts
                .iter()
                .zip(&self.per_part)
                .filter_map(|(name, row)| {
                    let &(epsilon, delta, calls) = row.get(w)?;
                    (calls > 0).then(|| PathPart {
                        part: name.clone(),
                        calls,
                        epsilon,
                        delta,
                    })
                })
                .collect()
        });
        LedgerReport {
            subjects,
            max_epsilon,
            max_delta,
            min_epsilon: if subjects == 0 { 0.0 } else { min_epsilon },
            worst,
            path,
            calls: self.calls,
            private_quantities: self
                .quantities
                .into_keys()
                .map(|(name, detail)| PrivateQuantity { name, detail })
                .collect(),
        }
    }
}

thread_local! {
    static LEDGER: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Whether a recording is running on this thread (a release may skip building a charge's
/// arguments when it is not).
pub fn is_recording() -> bool {
    LEDGER.with(|l| l.borrow().is_some())
}

/// Charges `epsilon` (and `delta`, 0 for pure ε-DP) to each of `subjects` under the part
/// name `part`, when a recording runs on this thread; nothing otherwise. `epsilon` is what
/// the call actually spent (from [`laplace_epsilon`] and its siblings), never a share
/// read from a budget function.
pub fn charge(part: &str, subjects: Subjects<'_>, epsilon: f64, delta: f64) {
    LEDGER.with(|l| {
        let mut guard = l.borrow_mut();
        let Some(state) = guard.as_mut() else {
            return;
        };
        if !state.captures.is_empty() {
            let who = OwnedSubjects::of(subjects);
            for c in &mut state.captures {
                c.charges
                    .push((part.to_string(), who.clone(), epsilon, delta));
            }
        }
        let p = state.part_index(part);
        state.calls += 1;
        match subjects {
            Subjects::One(i) => state.charge_one(p, i, epsilon, delta),
            Subjects::Range(a, b) => {
                for i in a..b {
                    state.charge_one(p, i, epsilon, delta);
                }
            }
            Subjects::Rows(rows) => {
                for &i in rows {
                    state.charge_one(p, i, epsilon, delta);
                }
            }
        }
    });
}

/// Records a quantity computed from private rows outside any mechanism (`name`, and
/// `detail` in words, built only while recording).
pub fn private_quantity(name: &str, detail: impl FnOnce() -> String) {
    LEDGER.with(|l| {
        if let Some(state) = l.borrow_mut().as_mut() {
            let q = (name.to_string(), detail());
            for c in &mut state.captures {
                c.quantities.push(q.clone());
            }
            state.quantities.insert(q, ());
        }
    });
}

/// [`Subjects`] that own their rows, for a [`Captured`] charge.
#[derive(Debug, Clone, PartialEq)]
enum OwnedSubjects {
    One(usize),
    Range(usize, usize),
    Rows(Vec<usize>),
}

impl OwnedSubjects {
    fn of(s: Subjects<'_>) -> OwnedSubjects {
        match s {
            Subjects::One(i) => OwnedSubjects::One(i),
            Subjects::Range(a, b) => OwnedSubjects::Range(a, b),
            Subjects::Rows(r) => OwnedSubjects::Rows(r.to_vec()),
        }
    }

    fn borrow(&self) -> Subjects<'_> {
        match self {
            OwnedSubjects::One(i) => Subjects::One(*i),
            OwnedSubjects::Range(a, b) => Subjects::Range(*a, *b),
            OwnedSubjects::Rows(r) => Subjects::Rows(r),
        }
    }
}

/// The charges and private quantities made while a release was drawn, kept with the
/// release by a cache that hands the same release to later fits (HistOfTree's round-1
/// labels, the trees grown on released data): [`replay`] charges them to each recording
/// that uses the cached release without drawing it. Empty when drawn outside a recording.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Captured {
    /// Unique per capture (0: nothing captured).
    id: u64,
    charges: Vec<(String, OwnedSubjects, f64, f64)>,
    quantities: Vec<(String, String)>,
}

/// Runs `f` (a release's draw) and returns, with its result, everything it charged to the
/// running recording ([`Captured`]; nothing outside a recording). The charges go to the
/// recording as usual, which counts the capture as applied to it.
pub fn capturing<T>(f: impl FnOnce() -> T) -> (T, Captured) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let started = LEDGER.with(|l| match l.borrow_mut().as_mut() {
        Some(state) => {
            let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            state.captures.push(Captured {
                id,
                ..Captured::default()
            });
            state.applied.insert(id);
            true
        }
        None => false,
    });
    let out = f();
    let captured = if started {
        LEDGER.with(|l| {
            l.borrow_mut()
                .as_mut()
                .and_then(|state| state.captures.pop())
                .unwrap_or_default()
        })
    } else {
        Captured::default()
    };
    (out, captured)
}

impl Captured {
    /// The ε each subject was charged in total by the captured calls (pure ε summed under
    /// basic composition), as (subject index, ε) in index order: the subjects of the
    /// capture's own numbering, which a caller maps to its own (a group of users inside a
    /// larger sample).
    pub fn per_subject(&self) -> Vec<(usize, f64)> {
        let mut total: std::collections::BTreeMap<usize, f64> = Default::default();
        for (_, who, epsilon, _) in &self.charges {
            let mut add = |i: usize| *total.entry(i).or_default() += *epsilon;
            match who {
                OwnedSubjects::One(i) => add(*i),
                OwnedSubjects::Range(a, b) => (*a..*b).for_each(add),
                OwnedSubjects::Rows(r) => r.iter().copied().for_each(add),
            }
        }
        total.into_iter().collect()
    }
}

/// Charges the running recording what `captured` holds, once per recording (a recording
/// that drew the release, or already replayed it, is not charged again); nothing outside a
/// recording.
pub fn replay(captured: &Captured) {
    let fresh = LEDGER.with(|l| match l.borrow_mut().as_mut() {
        Some(state) if captured.id != 0 => state.applied.insert(captured.id),
        _ => false,
    });
    if !fresh {
        return;
    }
    for (part, who, epsilon, delta) in &captured.charges {
        charge(part, who.borrow(), *epsilon, *delta);
    }
    for (name, detail) in &captured.quantities {
        private_quantity(name, || detail.clone());
    }
}

/// What a recording charged so far, to continue from: a fit's preparation recorded once
/// and each of its releases recorded on top of it ([`recording_from`]) totals what one
/// recording of the whole fit would.
#[derive(Clone, Default)]
pub struct Recorded(State);

impl Recorded {
    /// The totals of what was recorded ([`LedgerReport`]).
    pub fn report(&self) -> LedgerReport {
        self.0.clone().report()
    }
}

impl std::fmt::Debug for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Recorded").field(&self.report()).finish()
    }
}

/// Runs `f` with a fresh ledger on a one-thread rayon pool (so that parallel code inside
/// `f` charges the same ledger) and returns its result with the ledger's totals.
///
/// # Panics
/// If the pool cannot be built, or when `f` panics.
pub fn recording<T: Send>(f: impl FnOnce() -> T + Send) -> (T, LedgerReport) {
    let (out, recorded) = recording_from(&Recorded::default(), f);
    (out, recorded.0.report())
}

/// Runs `f` as [`recording`] does, on a ledger that starts with the charges and private
/// quantities of `start`, and returns its result with everything recorded (`start`'s
/// included).
///
/// # Panics
/// If the pool cannot be built, or when `f` panics.
pub fn recording_from<T: Send>(start: &Recorded, f: impl FnOnce() -> T + Send) -> (T, Recorded) {
    Recorder::new().record_from(start, f)
}

/// A one-thread rayon pool that runs recordings one after another: a ledger run's worker
/// records thousands of fits, and building a pool (and a thread) per recording would cost
/// more than many of the fits.
pub struct Recorder {
    pool: rayon::ThreadPool,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl Recorder {
    /// A recorder with its own one-thread pool.
    ///
    /// # Panics
    /// If the pool cannot be built.
    pub fn new() -> Recorder {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool for a ledger recording");
        Recorder { pool }
    }

    /// [`recording_from`] on this recorder's pool.
    ///
    /// # Panics
    /// When `f` panics (the recorder stays usable).
    pub fn record_from<T: Send>(
        &self,
        start: &Recorded,
        f: impl FnOnce() -> T + Send,
    ) -> (T, Recorded) {
        let state = start.0.clone();
        self.pool.install(move || {
            // A recording that panicked on this pool left its ledger behind: drop it.
            LEDGER.with(|l| *l.borrow_mut() = Some(state));
            let out = f();
            let state = LEDGER.with(|l| l.borrow_mut().take()).expect("recording");
            (out, Recorded(state))
        })
    }
}

/// The domain a release's input is declared to lie in, from which its charge's
/// sensitivity comes ([`Domain::sensitivity_seen`]). Sensitivities are L1 (Laplace,
/// randomized response) or L2 (Gaussian) distances between two neighbouring inputs, in the
/// input's own units (a label's range R, a count's 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// Every coordinate in \[lo, hi\]: a label clipped into its bounds (one coordinate,
    /// Δ = hi − lo; LPDT eq. (5), docs/methods/lpdt.md §2.1), or features clamped into
    /// \[0, 1\]^d (d coordinates, L1 Δ = d·(hi − lo); DECONV, docs/methods/lpdt.md §7.5).
    Interval {
        /// The declared lower end.
        lo: f64,
        /// The declared upper end (≥ lo).
        hi: f64,
    },
    /// A vector of `cells` coordinates, zero but at one, which holds a value in \[lo,
    /// hi\]: a one-hot indicator (lo = hi = 1) or a label vector y·U (LPCT paper §3; LPDT
    /// paper App. D.1). Two such vectors are at most 2·max(|lo|, |hi|) apart in L1 when
    /// `cells` ≥ 2 (two coordinates differ), hi − lo with one cell. Only whether `cells`
    /// exceeds 1 matters, so a caller may pass 2 for "several".
    OneHot {
        /// The declared lower end of the hot coordinate's value.
        lo: f64,
        /// The declared upper end of the hot coordinate's value.
        hi: f64,
        /// The number of coordinates.
        cells: usize,
    },
    /// A sensitivity the caller states, for an input whose domain is none of the above (a
    /// node's class counts, which one row moves by 1; a mean over n rows of labels in a
    /// range W, W/n; a norm-bounded gradient): nothing to widen, except that a non-finite
    /// coordinate makes it infinite.
    Sensitivity(f64),
}

impl Domain {
    /// The sensitivity a release of the input `seen` (its coordinates, before noise) is
    /// charged at: the declared domain widened to take in what was actually seen, so that
    /// a value released without being clipped into its domain is charged for the distance
    /// it really spans, and +∞ when a coordinate is NaN or infinite.
    ///
    /// * [`Domain::Interval`]: Σ_j (max(hi, x_j) − min(lo, x_j)) (hi − lo per coordinate
    ///   inside the domain; a label 1000 ranges above hi is charged about 1001 ranges).
    /// * [`Domain::OneHot`] with `cells` ≥ 2: max(2M, ‖x‖₁ + M), M = max(|lo|, |hi|): a
    ///   seen vector x is at most ‖x‖₁ + M from any vector of the domain; with one cell,
    ///   as [`Domain::Interval`] on its one coordinate.
    /// * [`Domain::Sensitivity`]: the stated Δ.
    pub fn sensitivity_seen(&self, seen: &[f64]) -> f64 {
        if seen.iter().any(|v| !v.is_finite()) {
            return f64::INFINITY;
        }
        let widened =
            |lo: f64, hi: f64| -> f64 { seen.iter().map(|&v| hi.max(v) - lo.min(v)).sum() };
        match *self {
            Domain::Interval { lo, hi } => widened(lo, hi),
            Domain::OneHot { lo, hi, cells } if cells <= 1 => widened(lo, hi),
            Domain::OneHot { lo, hi, .. } => {
                let m = lo.abs().max(hi.abs());
                let norm: f64 = seen.iter().map(|v| v.abs()).sum();
                (2.0 * m).max(norm + m)
            }
            Domain::Sensitivity(delta) => delta,
        }
    }
}

/// Charges subject `first + i` the ε `epsilons` gives for it, for every i, under `part`
/// (δ = `delta` each), when a recording runs; nothing, and `epsilons` is never called,
/// otherwise. Consecutive subjects charged the same ε share one charge over their
/// [`Subjects::Range`], so an exact shortcut that stands for n users whose inputs all lie
/// in their domain makes one call. The charged sums (`crate::LaplaceSums`) and flips
/// charge their users through it.
pub fn charge_each<I: IntoIterator<Item = f64>>(
    part: &str,
    first: usize,
    epsilons: impl FnOnce() -> I,
    delta: f64,
) {
    if !is_recording() {
        return;
    }
    let mut run: Option<(usize, usize, f64)> = None;
    let flush = |r: Option<(usize, usize, f64)>| {
        if let Some((a, b, e)) = r {
            charge(part, Subjects::Range(a, b), e, delta);
        }
    };
    for (i, e) in epsilons().into_iter().enumerate() {
        let s = first + i;
        match &mut run {
            // Bit-equal ε (NaN included) extends the run.
            Some((_, b, prev)) if prev.to_bits() == e.to_bits() => *b = s + 1,
            _ => {
                flush(run.take());
                run = Some((s, s + 1, e));
            }
        }
    }
    flush(run);
}

/// ε spent by a Laplace draw of scale `scale` on a value of sensitivity `sensitivity` (L1
/// distance two neighbouring inputs can move it): Δ/b (Dwork & Roth 2014, Theorem 3.6).
/// A scale of 0 spends an infinite ε (Δ > 0; IEEE division gives +∞); NaN in, or Δ = b = 0,
/// gives NaN.
pub fn laplace_epsilon(sensitivity: f64, scale: f64) -> f64 {
    sensitivity / scale
}

/// ε spent by randomized response that keeps each bit with probability `keep` (κ > 1/2)
/// on a bit vector two neighbouring inputs differ in at most `bits` positions:
/// bits · ln(κ/(1 − κ)) (Warner 1965; LPDT eq. (5): κ = e^{ε/2}/(1 + e^{ε/2}) over a
/// one-hot vector, 2 bits, spends ε).
pub fn rr_epsilon(keep: f64, bits: usize) -> f64 {
    bits as f64 * (keep / (1.0 - keep)).ln().abs()
}

/// ε spent by generalized randomized response that reports the true category with
/// probability `p_true` and each other one with `p_other`: ln(p_true/p_other) (Kairouz,
/// Oh & Viswanath 2014).
pub fn grr_epsilon(p_true: f64, p_other: f64) -> f64 {
    (p_true / p_other).ln().abs()
}

/// ε spent by a Gaussian draw of variance `variance` on a value of L2 sensitivity
/// `sensitivity`, read at δ: Δ·√(2 ln(1.25/δ))/σ, the inverse of
/// [`super::gaussian_mechanism_variance`] (Dwork & Roth 2014, Theorem A.1).
pub fn gaussian_epsilon(sensitivity: f64, variance: f64, delta: f64) -> f64 {
    sensitivity * (2.0 * (1.25 / delta).ln()).sqrt() / variance.sqrt()
}

/// ε spent by an exponential mechanism (or permute-and-flip) whose log-weights are c·u for
/// a utility u of sensitivity Δ: 2cΔ (McSherry & Talwar 2007; a mechanism with weights
/// exp(εu/(2Δ)) spends ε).
pub fn exponential_epsilon(coefficient: f64, sensitivity: f64) -> f64 {
    2.0 * coefficient * sensitivity
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_recording_no_charge() {
        charge("x", Subjects::One(0), 1.0, 0.0);
        assert!(!is_recording());
        let ((), r) = recording(|| ());
        assert_eq!(r, LedgerReport::default());
    }

    /// Sequential composition by hand: user 0 pays a cell release at 0.4 and a label
    /// release at 0.6 (1.0); user 1 pays the cell release twice (0.8); the worst is user 0
    /// at exactly 1.0 with its path.
    #[test]
    fn sequential_composition_sums_a_subjects_charges() {
        let ((), r) = recording(|| {
            charge("cell", Subjects::One(0), 0.4, 0.0);
            charge("label", Subjects::One(0), 0.6, 0.0);
            charge("cell", Subjects::One(1), 0.4, 0.0);
            charge("cell", Subjects::One(1), 0.4, 0.0);
            assert!(is_recording());
        });
        assert_eq!(r.subjects, 2);
        assert_eq!(r.calls, 4);
        assert!((r.max_epsilon - 1.0).abs() < 1e-15);
        assert!((r.min_epsilon - 0.8).abs() < 1e-15);
        assert_eq!(r.worst, Some(0));
        assert_eq!(r.path.len(), 2);
        assert_eq!((r.path[0].part.as_str(), r.path[0].calls), ("cell", 1));
        assert_eq!(r.path_text(), "cell: 1 x 0.400000 + label: 1 x 0.600000");
    }

    /// Parallel composition by hand: a depth-2 tree over rows 0..6 spends 0.3 at the root
    /// (all rows), 0.3 at each child (rows 0..3 and 3..6, disjoint) and 0.4 at each leaf:
    /// every row pays 0.3 + 0.3 + 0.4 = 1.0, not 0.3 + 2·0.3 + 4·0.4. Two trees on
    /// disjoint halves stay at 1.0; two trees sharing row 2 make row 2 pay 2.0.
    #[test]
    fn parallel_composition_holds_only_over_disjoint_rows() {
        let tree = |rows: &[usize]| {
            charge("median", Subjects::Rows(rows), 0.3, 0.0);
            let (l, r) = rows.split_at(rows.len() / 2);
            for child in [l, r] {
                charge("median", Subjects::Rows(child), 0.3, 0.0);
                let (a, b) = child.split_at(child.len() / 2);
                for leaf in [a, b] {
                    charge("leaf", Subjects::Rows(leaf), 0.4, 0.0);
                }
            }
        };
        let ((), one) = recording(|| tree(&[0, 1, 2, 3, 4, 5]));
        assert_eq!(one.subjects, 6);
        assert!((one.max_epsilon - 1.0).abs() < 1e-12);
        assert!((one.min_epsilon - 1.0).abs() < 1e-12);
        let ((), disjoint) = recording(|| {
            tree(&[0, 1, 2, 3]);
            tree(&[4, 5, 6, 7]);
        });
        assert!((disjoint.max_epsilon - 1.0).abs() < 1e-12);
        let ((), overlapping) = recording(|| {
            tree(&[0, 1, 2, 3]);
            tree(&[2, 5, 6, 7]);
        });
        assert!((overlapping.max_epsilon - 2.0).abs() < 1e-12);
        assert_eq!(overlapping.worst, Some(2));
        assert_eq!(overlapping.path[0].calls, 4);
    }

    #[test]
    fn ranges_charge_each_index_and_private_quantities_are_kept_once() {
        let ((), r) = recording(|| {
            charge("label", Subjects::Range(0, 1000), 0.5, 0.0);
            charge("cell", Subjects::Range(0, 500), 0.5, 0.0);
            private_quantity("label_bounds", || "min/max of private labels".into());
            private_quantity("label_bounds", || "min/max of private labels".into());
        });
        assert_eq!(r.subjects, 1000);
        assert_eq!((r.max_epsilon, r.min_epsilon), (1.0, 0.5));
        assert_eq!(r.private_quantities.len(), 1);
    }

    /// A captured release replays its charges and quantities once into each other
    /// recording that uses it, and never into the one that drew it; a capture outside a
    /// recording holds nothing.
    #[test]
    fn a_captured_release_is_charged_once_per_recording_that_uses_it() {
        let (c, drawn) = recording(|| {
            let ((), c) = capturing(|| {
                charge("label", Subjects::Range(0, 3), 0.5, 0.0);
                charge("rows", Subjects::Rows(&[4, 4]), 0.1, 0.0);
                private_quantity("q", || "d".into());
            });
            replay(&c);
            c
        });
        assert_eq!(
            (drawn.subjects, drawn.calls, drawn.max_epsilon),
            (4, 2, 0.5)
        );
        let ((), again) = recording(|| {
            replay(&c);
            replay(&c);
        });
        assert_eq!(again, drawn);
        let ((), none) = capturing(|| charge("x", Subjects::One(0), 1.0, 0.0));
        assert_eq!(none, Captured::default());
        let ((), r) = recording(|| replay(&none));
        assert_eq!(r, LedgerReport::default());
    }

    /// A recorder runs recordings one after another on its one thread, each with its own
    /// ledger, also after one of them panicked.
    #[test]
    fn a_recorder_runs_recordings_one_after_another() {
        let r = Recorder::new();
        let ((), a) = r.record_from(&Recorded::default(), || {
            charge("x", Subjects::One(0), 1.0, 0.0)
        });
        let ((), b) = r.record_from(&Recorded::default(), || {
            charge("x", Subjects::One(1), 2.0, 0.0)
        });
        assert_eq!((a.report().worst, b.report().worst), (Some(0), Some(1)));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            r.record_from(&Recorded::default(), || panic!("inside"))
        }));
        assert!(caught.is_err());
        let ((), c) = r.record_from(&a, || charge("x", Subjects::One(2), 0.5, 0.0));
        assert_eq!(c.report().subjects, 2);
    }

    /// A recording continued from another totals what one recording of both would.
    #[test]
    fn a_continued_recording_totals_both() {
        let ((), prep) = recording_from(&Recorded::default(), || {
            charge("prep", Subjects::One(1), 0.25, 0.0);
            private_quantity("q", || "d".into());
        });
        let ((), both) = recording_from(&prep, || charge("fit", Subjects::Range(0, 2), 0.5, 0.0));
        let ((), once) = recording(|| {
            charge("prep", Subjects::One(1), 0.25, 0.0);
            private_quantity("q", || "d".into());
            charge("fit", Subjects::Range(0, 2), 0.5, 0.0);
        });
        assert_eq!(both.report(), once);
        assert_eq!(prep.report().max_epsilon, 0.25);
        assert!(format!("{prep:?}").starts_with("Recorded(LedgerReport"));
    }

    #[test]
    fn a_panicking_recording_leaves_the_thread_clean() {
        let caught = std::panic::catch_unwind(|| recording(|| panic!("inside")));
        assert!(caught.is_err());
        let ((), r) = recording(|| charge("x", Subjects::One(3), 0.1, 0.0));
        assert_eq!(r.subjects, 1);
    }

    #[test]
    fn nan_and_infinite_charges_are_the_worst() {
        let ((), r) = recording(|| {
            charge("x", Subjects::One(0), 5.0, 0.0);
            charge("x", Subjects::One(1), laplace_epsilon(1.0, 0.0), 0.0);
        });
        assert_eq!(r.worst, Some(1));
        assert!(r.max_epsilon.is_infinite());
        let ((), r) = recording(|| {
            charge("x", Subjects::One(0), 5.0, 0.0);
            charge("x", Subjects::One(1), f64::NAN, 0.0);
        });
        assert_eq!(r.worst, Some(1));
    }

    /// The formulas against the mechanisms' own calibrations at hand-computed values.
    #[test]
    fn spent_epsilon_inverts_each_calibration() {
        assert!((laplace_epsilon(2.0, 2.0 / 0.7) - 0.7).abs() < 1e-15);
        assert!(laplace_epsilon(0.0, 0.0).is_nan());
        let k = super::super::rr_keep_probability(1.3);
        assert!((rr_epsilon(k.keep, 2) - 1.3).abs() < 1e-12);
        assert!((rr_epsilon(k.keep, 1) - 0.65).abs() < 1e-12);
        let (e, k4) = (0.9f64.exp(), 4.0);
        assert!((grr_epsilon(e / (e + k4 - 1.0), 1.0 / (e + k4 - 1.0)) - 0.9).abs() < 1e-12);
        let v = super::super::gaussian_mechanism_variance(1.5, 0.4, 1e-6).unwrap();
        assert!((gaussian_epsilon(1.5, v, 1e-6) - 0.4).abs() < 1e-12);
        assert!((exponential_epsilon(0.25, 2.0) - 1.0).abs() < 1e-15);
        assert!((exponential_epsilon(0.3, 2.0) - 1.2).abs() < 1e-15);
    }

    /// Approximate DP composes by hand too: δ adds up per subject like ε, and the path
    /// keeps each part's total (user 0: 2 × (0.2, 1e-6) in "gauss" and 0.1 in "lap").
    #[test]
    fn delta_composes_and_the_path_shows_it() {
        let ((), r) = recording(|| {
            charge("gauss", Subjects::One(0), 0.2, 1e-6);
            charge("gauss", Subjects::One(0), 0.2, 1e-6);
            charge("lap", Subjects::One(0), 0.1, 0.0);
            charge("lap", Subjects::One(1), 0.1, 0.0);
        });
        assert_eq!(r.worst, Some(0));
        assert!((r.max_epsilon - 0.5).abs() < 1e-15);
        assert!((r.max_delta - 2e-6).abs() < 1e-18);
        assert_eq!(r.path[0].calls, 2);
        assert!((r.path[0].delta - 2e-6).abs() < 1e-18);
        assert_eq!(
            r.path_text(),
            "gauss: 2 x 0.200000 (delta 1.000e-6) + lap: 1 x 0.100000"
        );
    }

    /// Ties: the first subject with the largest ε is the worst, unless a later one has the
    /// same ε and a larger δ.
    #[test]
    fn ties_keep_the_first_subject_unless_delta_is_larger() {
        let ((), r) = recording(|| {
            charge("x", Subjects::Range(0, 3), 0.5, 0.0);
        });
        assert_eq!(r.worst, Some(0));
        let ((), r) = recording(|| {
            charge("x", Subjects::Range(0, 3), 0.5, 0.0);
            charge("y", Subjects::One(2), 0.0, 1e-9);
        });
        assert_eq!(r.worst, Some(2));
        // A smaller ε with a larger δ is not worse.
        let ((), r) = recording(|| {
            charge("x", Subjects::One(0), 0.5, 0.0);
            charge("x", Subjects::One(1), 0.4, 1e-3);
        });
        assert_eq!(r.worst, Some(0));
        // A NaN charge stays the worst when a larger finite one follows.
        let ((), r) = recording(|| {
            charge("x", Subjects::One(0), f64::NAN, 0.0);
            charge("x", Subjects::One(1), 9.0, 0.0);
        });
        assert_eq!(r.worst, Some(0));
    }

    /// The worst subject's path lists only the parts it paid, even when another subject
    /// with a larger index was charged in another part.
    #[test]
    fn the_path_has_only_the_worst_subjects_parts() {
        let ((), r) = recording(|| {
            charge("big", Subjects::One(0), 2.0, 0.0);
            charge("other", Subjects::One(5), 0.1, 0.0);
        });
        assert_eq!(r.worst, Some(0));
        assert_eq!(r.path.len(), 1, "{:?}", r.path);
        assert_eq!(r.path_text(), "big: 1 x 2.000000");
        assert_eq!((r.subjects, r.min_epsilon), (2, 0.1));
    }
}
