//! Seeded public / private / test splits (LPDT paper §4.2; docs/methods/lpdt.md §8.3).

use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::Rng;

use super::{Buffer, Dataset, Matrix, MinMax};

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

/// All rows of one split in a single buffer — the public rows first, then the private,
/// then the test rows, each part in its index order — from which the three parts are made
/// as views ([`SplitRows::parts`]) instead of three copies.
#[derive(Debug)]
pub struct SplitRows {
    /// The data set the rows come from, without its values (name, task, feature kinds).
    template: Dataset,
    /// Row-major values of all rows, width `template.d()`.
    x: Buffer,
    /// Labels in the same order.
    y: Vec<f64>,
    /// Rows of each part.
    sizes: SplitSizes,
}

impl SplitRows {
    /// The rows of split `s` of `all`, gathered into one new buffer (one copy of the rows
    /// the split uses).
    pub fn gather(all: &Dataset, s: &SplitIndices) -> SplitRows {
        let d = all.d();
        let order = || s.public.iter().chain(&s.private).chain(&s.test);
        let mut x = Vec::with_capacity((s.public.len() + s.private.len() + s.test.len()) * d);
        for &i in order() {
            x.extend_from_slice(all.x.row(i));
        }
        SplitRows {
            template: template_of(all),
            x: Buffer::heap(x),
            y: order().map(|&i| all.y[i]).collect(),
            sizes: sizes_of(s),
        }
    }

    /// The rows of split `s` of `all`, where the parts together hold every row once: the
    /// rows are moved into split order in place (O(n·d) moves, one row of extra memory)
    /// when `all`'s values are a buffer of their own, else gathered as
    /// [`SplitRows::gather`] does.
    ///
    /// # Panics
    /// If the parts are not a permutation of the rows 0..n.
    pub fn permute(all: Dataset, s: &SplitIndices) -> SplitRows {
        let n = all.n();
        let order: Vec<usize> = s
            .public
            .iter()
            .chain(&s.private)
            .chain(&s.test)
            .copied()
            .collect();
        assert_eq!(
            order.len(),
            n,
            "the parts of a permuted split hold every row"
        );
        let template = template_of(&all);
        let d = all.d();
        let y = order.iter().map(|&i| all.y[i]).collect();
        let mut x = all.x.data.into_buffer();
        permute_rows(x.as_mut_slice(), d, &order);
        SplitRows {
            template,
            x,
            y,
            sizes: sizes_of(s),
        }
    }

    /// Min-max scales every row by the features' ranges over the public rows (LPDT's
    /// `scaling: public`; docs/methods/lpdt.md §8.3), as [`MinMax`] fitted on the public part and applied
    /// to each part.
    pub fn scale_by_public(&mut self) {
        let d = self.template.d();
        let values = self.x.as_mut_slice();
        let fitted = if crate::privacy::mutants::active("scaler-fitted-on-private-rows") {
            self.sizes.public + self.sizes.private
        } else {
            self.sizes.public
        };
        let scaler = MinMax::fit_values(&values[..fitted * d], d);
        scaler.transform_values(values, d);
    }

    /// The public, private and test parts, as data sets over the shared buffer (no copy).
    pub fn parts(self) -> (Dataset, Dataset, Dataset) {
        let SplitRows {
            template,
            x,
            mut y,
            sizes,
        } = self;
        let d = template.d();
        let buffer = Arc::new(x);
        let test_y = y.split_off(sizes.public + sizes.private);
        let private_y = y.split_off(sizes.public);
        let part = |first: usize, n: usize, labels: Vec<f64>| Dataset {
            x: Matrix::shared(n, d, buffer.clone(), first),
            y: labels,
            ..template.clone()
        };
        (
            part(0, sizes.public, y),
            part(sizes.public, sizes.private, private_y),
            part(sizes.public + sizes.private, sizes.test, test_y),
        )
    }
}

/// `all` without its rows (an n = 0 data set of the same width), `fixed_public` 0 as for
/// any selection of rows.
fn template_of(all: &Dataset) -> Dataset {
    Dataset {
        name: all.name.clone(),
        x: Matrix {
            n: 0,
            d: all.d(),
            data: Default::default(),
        },
        y: Vec::new(),
        task: all.task,
        fixed_public: 0,
        categorical: all.categorical.clone(),
        unbinned: all.unbinned.clone(),
        leaf_occupancy: all.leaf_occupancy,
    }
}

/// The part sizes of `s`.
fn sizes_of(s: &SplitIndices) -> SplitSizes {
    SplitSizes {
        public: s.public.len(),
        private: s.private.len(),
        test: s.test.len(),
    }
}

/// Reorders the rows (width `d`) of `values` in place so that row j becomes the old row
/// `order[j]`, following each cycle of the permutation with one row of scratch space.
///
/// # Panics
/// If `order` is not a permutation of 0..n.
fn permute_rows(values: &mut [f64], d: usize, order: &[usize]) {
    let n = order.len();
    assert_eq!(values.len(), n * d);
    let mut placed = vec![false; n];
    let mut scratch = vec![0.0; d];
    for start in 0..n {
        if placed[start] {
            continue;
        }
        if order[start] == start {
            placed[start] = true;
            continue;
        }
        scratch.copy_from_slice(&values[start * d..(start + 1) * d]);
        let mut j = start;
        loop {
            placed[j] = true;
            let from = order[j];
            if from == start {
                values[j * d..(j + 1) * d].copy_from_slice(&scratch);
                break;
            }
            assert!(!placed[from], "not a permutation: row {from} used twice");
            values.copy_within(from * d..(from + 1) * d, j * d);
            j = from;
        }
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

    fn toy(n: usize, d: usize) -> Dataset {
        Dataset {
            name: "toy".into(),
            x: Matrix::new(n, d, (0..n * d).map(|v| v as f64).collect()),
            y: (0..n).map(|i| i as f64 * 10.0).collect(),
            task: crate::data::Task::Regression,
            fixed_public: 3,
            categorical: vec![1],
            unbinned: Vec::new(),
            leaf_occupancy: Some(5),
        }
    }

    #[test]
    fn gathered_and_permuted_parts_equal_selected_rows() {
        let all = toy(50, 3);
        let s = random_split(
            50,
            SplitSizes {
                public: 5,
                private: 35,
                test: 10,
            },
            &mut rand_pcg::Pcg64::seed_from_u64(3),
        );
        let expected = [
            all.select(&s.public),
            all.select(&s.private),
            all.select(&s.test),
        ];
        for rows in [
            SplitRows::gather(&all, &s),
            SplitRows::permute(all.clone(), &s),
        ] {
            let (a, b, c) = rows.parts();
            for (got, want) in [a, b, c].iter().zip(&expected) {
                assert_eq!((&got.x, &got.y), (&want.x, &want.y));
                assert_eq!(
                    (got.fixed_public, &got.categorical, got.leaf_occupancy),
                    (0, &vec![1], Some(5))
                );
                assert!(got.x.data.is_shared());
            }
        }
    }

    #[test]
    fn public_scaling_of_the_shared_rows_equals_scaling_each_part() {
        let mut all = toy(40, 2);
        all.x.data[5] = -7.0;
        let s = random_split(
            40,
            SplitSizes {
                public: 8,
                private: 22,
                test: 10,
            },
            &mut rand_pcg::Pcg64::seed_from_u64(4),
        );
        let mut parts = [
            all.select(&s.public),
            all.select(&s.private),
            all.select(&s.test),
        ];
        let mm = MinMax::fit(&parts[0].x);
        for p in &mut parts {
            mm.transform(&mut p.x);
        }
        let mut rows = SplitRows::permute(all, &s);
        rows.scale_by_public();
        let (a, b, c) = rows.parts();
        for (got, want) in [a, b, c].iter().zip(&parts) {
            let bits = |m: &Matrix| m.data.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got.x), bits(&want.x));
        }
    }

    #[test]
    fn permuting_rows_in_place_follows_every_cycle() {
        let order = [3, 0, 4, 1, 2, 5, 7, 6];
        let mut values: Vec<f64> = (0..16).map(f64::from).collect();
        permute_rows(&mut values, 2, &order);
        let want: Vec<f64> = order
            .iter()
            .flat_map(|&i| [2.0 * i as f64, 2.0 * i as f64 + 1.0])
            .collect();
        assert_eq!(values, want);
    }
}
