//! Seeded public / private / test splits (LPDT paper §4.2; lpdt.md §8.3).

use rand::seq::SliceRandom;
use rand::Rng;

/// Sizes of the three parts of a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitSizes {
    /// Public sample size n_pub.
    pub public: usize,
    /// Private training sample size n.
    pub private: usize,
    /// Test sample size.
    pub test: usize,
}

/// Split ratios, e.g. LPDT's public 0.1 : private 0.7 : test 0.2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitRatios {
    /// Share of the public part.
    pub public: f64,
    /// Share of the private training part.
    pub private: f64,
    /// Share of the test part.
    pub test: f64,
}

/// A split that leaves a part empty for a data set of n rows.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct EmptyPart {
    /// The part: `public`, `private` or `test` (the spec field is `split.<part>`).
    pub part: &'static str,
    /// Rows of the data set (for a `pair`, of its private data set).
    pub n: usize,
    /// The part's ratio in the spec.
    pub ratio: f64,
    /// The smallest ratio that gives the part at least one row for this n, rounded up to
    /// three significant digits (public and test: 0.5/n, as sizes are rounded to the
    /// nearest row; private, which takes the rest: 2/n suffices whatever the other two).
    pub min_ratio: f64,
}

impl EmptyPart {
    fn describe(&self) -> String {
        let (part, n, ratio) = (self.part, self.n, self.ratio);
        let why = if part == "private" {
            "the public and test parts take every row".to_string()
        } else {
            format!("{ratio} × {n} rounds to 0 rows")
        };
        format!(
            "the split leaves the {part} part empty for n = {n} rows ({why}); the smallest valid `split.{part}` for this n is {}",
            self.min_ratio
        )
    }
}

/// `x` rounded up to three significant digits (so that the printed value still
/// satisfies a lower bound).
fn ceil_3_significant(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let scale = 10f64.powi(2 - x.log10().floor() as i32);
    // The small slack keeps an exact x (e.g. 0.0125) from being bumped by rounding noise.
    let up = (x * scale - 1e-9).ceil() / scale;
    format!("{up:.12}").parse().unwrap_or(up)
}

impl SplitRatios {
    /// Part sizes for n rows: public and test are rounded to the nearest integer, the
    /// private part takes the rest.
    ///
    /// # Errors
    /// [`EmptyPart`] when the private or test part would be empty, or the public part
    /// would be empty although its ratio is > 0.
    pub fn sizes(&self, n: usize) -> Result<SplitSizes, EmptyPart> {
        let public = (self.public * n as f64).round() as usize;
        let test = (self.test * n as f64).round() as usize;
        let private = n.saturating_sub(public + test);
        let sizes = SplitSizes {
            public,
            private,
            test,
        };
        let nf = n.max(1) as f64;
        for (part, size, ratio, min) in [
            ("public", public, self.public, 0.5 / nf),
            ("private", private, self.private, 2.0 / nf),
            ("test", test, self.test, 0.5 / nf),
        ] {
            if size == 0 && (ratio > 0.0 || part != "public") {
                return Err(EmptyPart {
                    part,
                    n,
                    ratio,
                    min_ratio: ceil_3_significant(min).min(1.0),
                });
            }
        }
        Ok(sizes)
    }
}

/// Index sets of one split.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitIndices {
    /// Rows of the public sample.
    pub public: Vec<usize>,
    /// Rows of the private training sample.
    pub private: Vec<usize>,
    /// Rows of the test sample.
    pub test: Vec<usize>,
}

/// A uniformly random split of rows 0..n into parts of the given sizes, drawn from `rng`
/// (the repetition's split stream, so every method of a repetition sees the same split).
pub fn random_split<R: Rng + ?Sized>(n: usize, sizes: SplitSizes, rng: &mut R) -> SplitIndices {
    assert_eq!(sizes.public + sizes.private + sizes.test, n);
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(rng);
    let private = idx.split_off(sizes.public);
    let (private, test) = private.split_at(sizes.private);
    SplitIndices {
        public: idx,
        private: private.to_vec(),
        test: test.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn sizes_add_up_and_parts_are_disjoint() {
        let r = SplitRatios {
            public: 0.1,
            private: 0.7,
            test: 0.2,
        };
        let s = r.sizes(1599).unwrap();
        assert_eq!(s.public + s.private + s.test, 1599);
        assert_eq!((s.public, s.test), (160, 320));
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let sp = random_split(1599, s, &mut rng);
        let mut all: Vec<usize> = sp
            .public
            .iter()
            .chain(&sp.private)
            .chain(&sp.test)
            .cloned()
            .collect();
        all.sort();
        assert_eq!(all, (0..1599).collect::<Vec<_>>());
    }

    #[test]
    fn tiny_data_leaves_a_part_empty() {
        let r = SplitRatios {
            public: 0.1,
            private: 0.7,
            test: 0.2,
        };
        let e = r.sizes(3).unwrap_err();
        assert_eq!((e.part, e.n), ("public", 3));
        assert!(e.to_string().contains("public part empty"), "{e}");
    }

    #[test]
    fn the_smallest_valid_ratio_is_valid_and_the_next_smaller_is_not() {
        for n in [3, 7, 40, 120, 1599, 4177] {
            let e = SplitRatios {
                public: 0.0,
                private: 1.0 - 0.1 / n as f64,
                test: 0.1 / n as f64,
            }
            .sizes(n)
            .unwrap_err();
            assert_eq!(e.part, "test");
            let ok = SplitRatios {
                public: 0.0,
                private: 1.0 - e.min_ratio,
                test: e.min_ratio,
            };
            assert!(ok.sizes(n).is_ok(), "n = {n}: {e}");
            // 3 significant digits: one unit less in the last digit is too small.
            let digits = 10f64.powi(2 - e.min_ratio.log10().floor() as i32);
            let smaller = e.min_ratio - 1.0 / digits;
            assert_eq!((smaller * n as f64).round(), 0.0, "n = {n}: {smaller}");
        }
        assert_eq!(ceil_3_significant(0.0125), 0.0125);
        assert_eq!(ceil_3_significant(0.5 / 3.0), 0.167);
    }
}
