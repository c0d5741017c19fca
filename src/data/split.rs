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

impl SplitRatios {
    /// Part sizes for n rows: public and test are rounded to the nearest integer, the
    /// private part takes the rest.
    ///
    /// # Errors
    /// A message when a part would be empty (naming the part and n).
    pub fn sizes(&self, n: usize) -> Result<SplitSizes, String> {
        let public = (self.public * n as f64).round() as usize;
        let test = (self.test * n as f64).round() as usize;
        let private = n.saturating_sub(public + test);
        let sizes = SplitSizes {
            public,
            private,
            test,
        };
        for (part, size, ratio) in [
            ("public", public, self.public),
            ("private", private, self.private),
            ("test", test, self.test),
        ] {
            if size == 0 && ratio > 0.0 || size == 0 && part != "public" {
                return Err(format!(
                    "the split leaves the {part} part empty for n = {n} rows (ratio {ratio})"
                ));
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
        assert!(r.sizes(3).unwrap_err().contains("public part empty"));
    }
}
