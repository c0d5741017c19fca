//! The interval labels are clipped into before any release ([`LabelBounds`]): a public
//! domain that the spec declares or that the public labels give (docs/methods/lpdt.md §8.3),
//! so that a label can leave the private rows only clipped
//! ([`PrivateRows::clipped_labels`](super::PrivateRows::clipped_labels)).

/// The interval [lo, hi] that labels are clipped into before privatization. It must not
/// come from private labels unless an option says so (docs/methods/lpdt.md §8.3 "Label bounds").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelBounds {
    /// Lower bound y_lo.
    pub lo: f64,
    /// Upper bound y_hi ≥ y_lo.
    pub hi: f64,
}

impl LabelBounds {
    /// The range R = y_hi − y_lo.
    pub fn range(&self) -> f64 {
        self.hi - self.lo
    }

    /// The bounds a release works in and the shift subtracted from every label before it
    /// (the curator adds it back): with `centre`, the midpoint c of [lo, hi], so labels lie
    /// in [−R/2, R/2] and a label vector's L1 sensitivity is R instead of 2·max(|lo|, |hi|)
    /// (the `y_center` option of PHIST/APHIST, LPDT paper App. D.1, and of the ratio
    /// estimator over a Laplace label vector, the LPDT code's Laplace estimator, docs/methods/lpdt.md §5);
    /// without it, the bounds themselves and 0.
    pub fn centred(self, centre: bool) -> (LabelBounds, f64) {
        if !centre {
            return (self, 0.0);
        }
        let c = (self.lo + self.hi) / 2.0;
        (
            LabelBounds {
                lo: self.lo - c,
                hi: self.hi - c,
            },
            c,
        )
    }

    /// y clipped into [lo, hi].
    #[inline]
    pub fn clip(&self, y: f64) -> f64 {
        y.clamp(self.lo, self.hi)
    }

    /// The bounds of a label sample (min, max); (0, 0) for an empty sample.
    pub fn of(y: &[f64]) -> LabelBounds {
        if y.is_empty() {
            return LabelBounds { lo: 0.0, hi: 0.0 };
        }
        let lo = y.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = y.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        LabelBounds { lo, hi }
    }
}
