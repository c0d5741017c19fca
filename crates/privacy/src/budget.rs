//! A per-user privacy budget ε whose splits can never exceed it.

use thiserror::Error;

/// An invalid budget or budget split.
#[derive(Debug, Error, PartialEq)]
pub enum BudgetError {
    /// ε must be a finite number > 0.
    #[error("epsilon must be a finite number > 0, got {0}")]
    Epsilon(f64),
    /// A share (such as ρ) must lie strictly between 0 and 1.
    #[error("budget share {name} must lie strictly between 0 and 1, got {value}")]
    Share { name: String, value: f64 },
}

/// The privacy budget ε of one user (local DP) or of the whole release (central DP).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    epsilon: f64,
}

impl Budget {
    /// A budget of ε > 0.
    ///
    /// # Errors
    /// [`BudgetError::Epsilon`] when ε is not finite or ε ≤ 0.
    pub fn new(epsilon: f64) -> Result<Self, BudgetError> {
        if !(epsilon.is_finite() && epsilon > 0.0) {
            return Err(BudgetError::Epsilon(epsilon));
        }
        Ok(Budget { epsilon })
    }

    /// The total ε.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// Splits ε into (share·ε, (1 − share)·ε); the two parts add up to ε exactly up to
    /// rounding, and the second is computed as ε − first so it never exceeds the rest.
    /// LPDT uses share = ρ: ρε for the randomized response on the cell indicator,
    /// (1 − ρ)ε for the Laplace mechanism on the label (docs/methods/lpdt.md §2.2, App. D.1).
    ///
    /// # Errors
    /// [`BudgetError::Share`] unless 0 < share < 1.
    pub fn split(&self, name: &str, share: f64) -> Result<(f64, f64), BudgetError> {
        if !(share > 0.0 && share < 1.0) {
            return Err(BudgetError::Share {
                name: name.to_string(),
                value: share,
            });
        }
        if super::mutants::active("budget-split-full-eps") {
            // Slip: both parts get the whole budget.
            return Ok((self.epsilon, self.epsilon));
        }
        let first = share * self.epsilon;
        Ok((first, (self.epsilon - first).max(0.0)))
    }

    /// Splits ε in two equal halves (PHIST / APHIST: ε/2 for the indicator vector and
    /// ε/2 for the label vector, docs/methods/lpdt.md §7.3).
    pub fn halves(&self) -> (f64, f64) {
        (self.epsilon / 2.0, self.epsilon / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_positive_epsilon() {
        assert!(Budget::new(0.0).is_err());
        assert!(Budget::new(-1.0).is_err());
        assert!(Budget::new(f64::NAN).is_err());
        assert!(Budget::new(f64::INFINITY).is_err());
    }

    #[test]
    fn split_never_exceeds_epsilon() {
        let b = Budget::new(0.7).unwrap();
        for rho in [0.3, 0.5, 0.7, 0.1, 0.9999] {
            let (a, c) = b.split("rho", rho).unwrap();
            assert!(a > 0.0 && c >= 0.0);
            assert!(a + c <= 0.7 + 1e-15);
        }
        assert!(b.split("rho", 1.0).is_err());
        assert!(b.split("rho", 0.0).is_err());
    }

    /// The getter returns the ε given, and the split's first part is exactly share × ε with
    /// the rest summing to ε (each value hand-computed).
    #[test]
    fn epsilon_and_split_return_the_given_budget() {
        for e in [0.25, 0.7, 1.0, 3.5, 8.0] {
            assert_eq!(Budget::new(e).unwrap().epsilon(), e);
        }
        let (a, c) = Budget::new(2.0).unwrap().split("rho", 0.25).unwrap();
        assert_eq!((a, c), (0.5, 1.5));
        let (a, c) = Budget::new(0.5).unwrap().split("rho", 0.5).unwrap();
        assert_eq!((a, c), (0.25, 0.25));
        assert_eq!(
            Budget::new(1.0).unwrap().split("rho", 1.5),
            Err(BudgetError::Share {
                name: "rho".into(),
                value: 1.5
            })
        );
        assert_eq!(Budget::new(-2.0), Err(BudgetError::Epsilon(-2.0)));
    }

    /// DECONV's split: two halves of exactly ε/2, whatever ε.
    #[test]
    fn halves_are_each_half_of_epsilon() {
        for (e, h) in [(1.0, 0.5), (0.3, 0.15), (8.0, 4.0)] {
            assert_eq!(Budget::new(e).unwrap().halves(), (h, h));
        }
    }
}
