//! Generalized (k-ary) randomized response on an index (Kairouz, Oh & Viswanath 2016;
//! HistOfTree card §3.3, the paper's App. A.1 eqs. (16)/(17)).
//!
//! Law: a user whose true index is j* ∈ {0, …, k−1} reports
//!
//! ```text
//! j̃ = j*                      with probability p_true  = e^ε/(e^ε + k − 1)
//! j̃ = j (any j ≠ j*)          with probability p_other = 1/(e^ε + k − 1) each
//! ```
//!
//! so p_true/p_other = e^ε and the report is ε-LDP for the index. The debiased indicator
//! Û^j = ((e^ε + k − 1)·1{j̃ = j} − 1)/(e^ε − 1) has E[Û^j] = 1{j = j*}:
//! for j = j*, ((e^ε+k−1)·p_true − 1)/(e^ε−1) = (e^ε − 1)/(e^ε − 1) = 1; for j ≠ j*,
//! ((e^ε+k−1)·p_other − 1)/(e^ε−1) = 0. Its variance is
//! Var(Û^j) = (e^ε+k−1)²·p_j(1−p_j)/(e^ε−1)² with p_j = P(j̃ = j).
//! With k = 1 the report is the true index (the index is public) and Û = 1.

use crate::ledger::{self, Subjects};
use rand::Rng;

/// Generalized randomized response over k candidates at budget ε.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grr {
    k: usize,
    epsilon: f64,
}

impl Grr {
    /// The mechanism over `k` candidates at budget `epsilon`.
    ///
    /// # Panics
    /// Unless ε is finite and > 0 and k ≥ 1.
    pub fn new(epsilon: f64, k: usize) -> Grr {
        assert!(
            epsilon.is_finite() && epsilon > 0.0,
            "GRR needs a finite epsilon > 0, got {epsilon}"
        );
        assert!(k >= 1, "GRR needs at least one candidate");
        Grr { k, epsilon }
    }

    /// The number of candidates k.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The budget ε.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// e^ε + k − 1, the normalizer of the law (and the weight of a hit in [`Grr::debiased`]).
    fn normalizer(&self) -> f64 {
        if crate::mutants::active("grr-wrong-categories") {
            // Slip: the law written for k − 1 categories (the k − 1 *other* indices taken
            // for the number of categories) while the report is drawn among all k.
            return self.epsilon.exp() + self.k as f64 - 2.0;
        }
        self.epsilon.exp() + self.k as f64 - 1.0
    }

    /// The ε one report of [`Grr::release`] really spends, from the law it draws with:
    /// p_true against the probability of each other index, (1 − p_true)/(k − 1) (a miss
    /// is uniform over the k − 1 others), through
    /// [`crate::ledger::grr_epsilon`]. A p_true computed for another number of
    /// categories than the k the report is drawn from shows here. 0 at k = 1 (the report
    /// is the only index whatever the input).
    pub fn spent_epsilon(&self) -> f64 {
        if self.k == 1 {
            return 0.0;
        }
        let p = self.p_true();
        super::ledger::grr_epsilon(p, (1.0 - p) / (self.k - 1) as f64)
    }

    /// P(report = true index) = e^ε/(e^ε + k − 1); 1 at k = 1.
    pub fn p_true(&self) -> f64 {
        if self.k == 1 {
            1.0
        } else {
            self.epsilon.exp() / self.normalizer()
        }
    }

    /// P(report = a given other index) = 1/(e^ε + k − 1); 0 at k = 1.
    pub fn p_other(&self) -> f64 {
        if self.k == 1 {
            0.0
        } else {
            1.0 / self.normalizer()
        }
    }

    /// One user's report (in 0..k) of `true_index`. Draw order (kept identical to the
    /// inline GRR of `methods::compose::simulate_sums`, so either can replace the other
    /// without shifting a stream): nothing at k = 1; else one uniform f64 compared with
    /// [`Grr::p_true`], and on a miss one `gen_range(0..k−1)` shifted past the true index.
    ///
    /// # Panics
    /// If `true_index >= k`.
    pub fn release<R: Rng + ?Sized>(&self, true_index: usize, rng: &mut R) -> usize {
        assert!(
            true_index < self.k,
            "true index {true_index} outside 0..{}",
            self.k
        );
        if self.k == 1 || rng.gen::<f64>() < self.p_true() {
            true_index
        } else {
            let r = rng.gen_range(0..self.k - 1);
            if r >= true_index {
                r + 1
            } else {
                r
            }
        }
    }

    /// One subject's report of `true_index` as [`Grr::release`] draws it (the same draws),
    /// charged to `who` under `part` at [`Grr::spent_epsilon`] (nats), the ε of the law the
    /// draw used over the k indices it drew from (0 at k = 1). HistOfTree's candidate
    /// cells (eq. (17)), KRR's bins and the compositions' `generalized_rr` cell draw here.
    ///
    /// # Panics
    /// If `true_index >= k`.
    pub fn release_charged<R: Rng + ?Sized>(
        &self,
        true_index: usize,
        rng: &mut R,
        part: &str,
        who: Subjects<'_>,
    ) -> usize {
        let report = self.release(true_index, rng);
        if ledger::is_recording() {
            ledger::charge(part, who, self.spent_epsilon(), 0.0);
        }
        report
    }

    /// Û^j = ((e^ε + k − 1)·1{report = j} − 1)/(e^ε − 1), unbiased for 1{j = true index};
    /// 1 at k = 1.
    pub fn debiased(&self, report: usize, j: usize) -> f64 {
        if self.k == 1 {
            return 1.0;
        }
        let hit = if report == j { self.normalizer() } else { 0.0 };
        (hit - 1.0) / self.epsilon.exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn law_sums_to_one_and_debiasing_is_exact_in_expectation() {
        for &(e, k) in &[(0.5, 2usize), (2.0, 5), (1.0, 64)] {
            let g = Grr::new(e, k);
            let total = g.p_true() + (k - 1) as f64 * g.p_other();
            assert!((total - 1.0).abs() < 1e-12);
            // E[Û^j*] computed from the law, exactly.
            let mean_true = g.p_true() * g.debiased(0, 0) + (1.0 - g.p_true()) * g.debiased(1, 0);
            assert!((mean_true - 1.0).abs() < 1e-9, "{mean_true}");
        }
    }

    /// The spent ε is the budget at every k ≥ 2 and 0 at k = 1; the getters answer.
    #[test]
    fn spent_epsilon_is_the_budget_and_getters_answer() {
        for &(e, k) in &[(0.3, 2usize), (1.0, 4), (8.0, 4), (2.5, 300)] {
            let g = Grr::new(e, k);
            assert!((g.spent_epsilon() - e).abs() < 1e-9, "{e} {k}");
            assert_eq!((g.k(), g.epsilon()), (k, e));
        }
        assert_eq!(Grr::new(1.0, 1).spent_epsilon(), 0.0);
    }

    /// The charged report is the plain report, charged the law's ε.
    #[test]
    fn a_charged_report_is_the_plain_one() {
        use rand::SeedableRng;
        let g = Grr::new(0.7, 5);
        for seed in 0..20 {
            let mut a = rand_pcg::Pcg64::seed_from_u64(seed);
            let mut b = rand_pcg::Pcg64::seed_from_u64(seed);
            let (got, r) =
                crate::ledger::recording(|| g.release_charged(3, &mut a, "cell", Subjects::One(1)));
            assert_eq!(got, g.release(3, &mut b));
            assert!((r.max_epsilon - 0.7).abs() < 1e-12);
        }
    }
}
