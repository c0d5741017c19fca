//! The equal-width discretisation of the DP-RF and DP-DF inputs (card docs/methods/diprime.md §4.7).
//!
//! The authors replace every numeric column by `pandas.cut(col, bins=5, labels=False)` on
//! the **full** data set, once, before the train/test split: 5 equal-width bins between the
//! column's min and max, the lowest edge moved down by 0.1 % of the range, bins (a, b]
//! labelled 0..4. Columns declared categorical ([`crate::data::Dataset::categorical`]) keep
//! their codes. Each column's category list is its distinct values (codes or bin labels)
//! over the full data.
//!
//! **Credit's rule** (§4.7: only LIMIT_BAL, AGE, BILL_AMT1–6 and PAY_AMT1–6 are binned; SEX,
//! EDUCATION, MARRIAGE and PAY_0, PAY_2..PAY_6 keep their values) is data, not code: the
//! caller passes the columns that keep their values — the data set's categorical columns
//! and those its manifest declares unbinned (Credit's PAY_*) — so DiPriMe's own view of
//! the columns (`Dataset::categorical`, where PAY_* are numeric) stays as it is.

use crate::data::Matrix;

/// Number of bins of the authors' `pandas.cut` call.
pub const BINS: usize = 5;

/// The edges of `pandas.cut(x, bins, right=True)` for a column with minimum `min` and
/// maximum `max` (pandas' `_nbins_to_bins`): `numpy.linspace(min, max, bins + 1)` with the
/// first edge lowered by 0.1 % of the range; for a constant column (`min == max`) both ends
/// are first moved out by 0.1 % of |value| (0.001 when the value is 0). Length `bins + 1`.
///
/// # Panics
/// If `bins` is 0 or an end is not finite (pandas raises there too).
pub fn pandas_cut_edges(min: f64, max: f64, bins: usize) -> Vec<f64> {
    assert!(bins >= 1, "pandas.cut needs at least one bin");
    assert!(
        min.is_finite() && max.is_finite(),
        "pandas.cut: cannot cut a column with infinite values"
    );
    let (mut mn, mut mx) = (min, max);
    let constant = mn == mx;
    if constant {
        mn -= if mn != 0.0 { 0.001 * mn.abs() } else { 0.001 };
        mx += if mx != 0.0 { 0.001 * mx.abs() } else { 0.001 };
    }
    // numpy.linspace: start + i·step, the last edge set to stop.
    let step = (mx - mn) / bins as f64;
    let mut edges: Vec<f64> = (0..=bins).map(|i| i as f64 * step + mn).collect();
    edges[bins] = mx;
    if !constant {
        edges[0] -= (mx - mn) * 0.001;
    }
    edges
}

/// The `labels=False` code of `v` under `edges` (right-closed bins): the i with
/// edges[i] < v ≤ edges[i+1], found as NumPy's `searchsorted(edges, v, side="left") − 1`;
/// None outside (edges[0], edges[last]] (pandas gives NaN).
pub fn pandas_cut_code(edges: &[f64], v: f64) -> Option<usize> {
    let i = edges.partition_point(|&e| e < v);
    (i >= 1 && i < edges.len()).then(|| i - 1)
}

/// How one column is coded.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnCoding {
    /// Binned with these edges ([`pandas_cut_edges`]).
    Binned(Vec<f64>),
    /// Values kept as category codes (categorical and declared-unbinned columns).
    Codes,
}

/// The discretisation of every column, fitted on the full data, with each column's
/// category list (its distinct coded values over the full data, increasing).
#[derive(Debug, Clone, PartialEq)]
pub struct Discretizer {
    /// Coding of each of the d columns.
    pub columns: Vec<ColumnCoding>,
    /// Distinct coded values of each column over the full data, increasing.
    pub categories: Vec<Vec<f64>>,
}

impl Discretizer {
    /// Fits the coding on the full data `parts` (all of the same width d; for a repetition,
    /// its private and test rows — the contract's "full data"). The columns in `kept`
    /// (categorical and declared-unbinned ones, see the module documentation) keep their
    /// values as codes; every other column is binned.
    ///
    /// # Panics
    /// If the parts differ in width, hold no row, or a value is not finite.
    pub fn fit(parts: &[&Matrix], kept: &[usize]) -> Self {
        let d = parts.first().map_or(0, |m| m.d);
        assert!(
            parts.iter().all(|m| m.d == d),
            "discretize: parts differ in width"
        );
        assert!(
            parts.iter().any(|m| m.n > 0),
            "discretize: no rows to fit the bins on"
        );
        let mut columns = Vec::with_capacity(d);
        let mut categories = Vec::with_capacity(d);
        for k in 0..d {
            let mut vals: Vec<f64> = parts
                .iter()
                .flat_map(|m| (0..m.n).map(move |i| m.get(i, k)))
                .collect();
            assert!(
                vals.iter().all(|v| v.is_finite()),
                "discretize: column {k} has a missing or infinite value"
            );
            vals.sort_by(f64::total_cmp);
            vals.dedup();
            let coding = if kept.contains(&k) {
                ColumnCoding::Codes
            } else {
                ColumnCoding::Binned(pandas_cut_edges(vals[0], vals[vals.len() - 1], BINS))
            };
            let mut cats: Vec<f64> = vals.iter().map(|&v| code(&coding, v)).collect();
            cats.dedup();
            columns.push(coding);
            categories.push(cats);
        }
        Discretizer {
            columns,
            categories,
        }
    }

    /// The coded n×d matrix of `x` (bin labels 0..4 as f64, or the kept values).
    ///
    /// # Panics
    /// If `x` has another width, or a binned value lies outside the fitted range (the
    /// fit is on the full data, so it cannot).
    pub fn apply(&self, x: &Matrix) -> Matrix {
        assert_eq!(
            x.d,
            self.columns.len(),
            "discretize: width differs from fit"
        );
        let data = x
            .data
            .iter()
            .enumerate()
            .map(|(j, &v)| code(&self.columns[j % x.d], v))
            .collect();
        Matrix::new(x.n, x.d, data)
    }

    /// The index of every coded value of `x` (from [`Discretizer::apply`]) in its column's
    /// category list, row-major n×d.
    ///
    /// # Panics
    /// If a value is not in its column's list.
    pub fn category_indices(&self, coded: &Matrix) -> Vec<u32> {
        coded
            .data
            .iter()
            .enumerate()
            .map(|(j, &v)| {
                let cats = &self.categories[j % coded.d];
                let i = cats.partition_point(|&c| c < v);
                assert!(
                    i < cats.len() && cats[i] == v,
                    "discretize: value {v} of column {} is not a fitted category",
                    j % coded.d
                );
                i as u32
            })
            .collect()
    }
}

/// A discretised n×d matrix as category indices: entry (i, k) is the index of the row's
/// coded value in column k's category list (< `levels[k]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Coded {
    /// Number of rows.
    pub n: usize,
    /// Number of columns.
    pub d: usize,
    /// Row-major category indices, length n·d.
    pub codes: Vec<u32>,
    /// Number of categories of each column (over the full data).
    pub levels: Vec<usize>,
}

impl Coded {
    /// Category index of row i in column k.
    #[inline]
    pub fn get(&self, i: usize, k: usize) -> usize {
        self.codes[i * self.d + k] as usize
    }
}

impl Discretizer {
    /// `x` discretised ([`Discretizer::apply`]) and mapped to category indices
    /// ([`Discretizer::category_indices`]).
    ///
    /// # Panics
    /// As those two.
    pub fn encode(&self, x: &Matrix) -> Coded {
        Coded {
            n: x.n,
            d: x.d,
            codes: self.category_indices(&self.apply(x)),
            levels: self.categories.iter().map(Vec::len).collect(),
        }
    }
}

fn code(coding: &ColumnCoding, v: f64) -> f64 {
    match coding {
        ColumnCoding::Codes => v,
        ColumnCoding::Binned(edges) => pandas_cut_code(edges, v)
            .unwrap_or_else(|| panic!("discretize: {v} outside the fitted range"))
            as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_match_a_hand_computation_of_pandas_cut() {
        // pandas.cut([0, 1, 2, 3, 4, 10], 5, retbins=True)[1]:
        // linspace(0, 10, 6) = [0, 2, 4, 6, 8, 10], first edge 0 − 0.01.
        let e = pandas_cut_edges(0.0, 10.0, 5);
        assert_eq!(e, vec![-0.01, 2.0, 4.0, 6.0, 8.0, 10.0]);
        // Right-closed bins: 0 → 0, 2 → 0 (2 ∈ (−0.01, 2]), 2.5 → 1, 4 → 1, 10 → 4.
        let codes: Vec<Option<usize>> = [0.0, 2.0, 2.5, 4.0, 10.0, -0.02, 10.5]
            .iter()
            .map(|&v| pandas_cut_code(&e, v))
            .collect();
        assert_eq!(
            codes,
            vec![Some(0), Some(0), Some(1), Some(1), Some(4), None, None]
        );
        // A negative range: min −3, max 2: step 1, edges −3 − 0.005, −2, …, 2.
        assert_eq!(
            pandas_cut_edges(-3.0, 2.0, 5),
            vec![-3.005, -2.0, -1.0, 0.0, 1.0, 2.0]
        );
        // Constant column 5: ends 4.995 and 5.005, edges linspace; 5 falls in the middle bin.
        let c = pandas_cut_edges(5.0, 5.0, 5);
        assert_eq!((c[0], c[5]), (4.995, 5.005));
        assert_eq!(pandas_cut_code(&c, 5.0), Some(2));
        // Constant 0: ±0.001.
        let z = pandas_cut_edges(0.0, 0.0, 5);
        assert_eq!((z[0], z[5]), (-0.001, 0.001));
        assert_eq!(pandas_cut_code(&z, 0.0), Some(2));
    }

    #[test]
    fn fit_on_full_data_keeps_categorical_and_few_valued_columns() {
        // Column 0 numeric (range from the test part), column 1 categorical codes 7/9,
        // column 2 numeric with 3 distinct values.
        let train = Matrix::from_rows(&[
            vec![1.0, 7.0, -1.0],
            vec![2.0, 9.0, 0.0],
            vec![3.0, 7.0, 2.0],
        ]);
        let test = Matrix::from_rows(&[vec![11.0, 9.0, 2.0]]);
        let dz = Discretizer::fit(&[&train, &test], &[1]);
        // Column 0: min 1, max 11, step 2: edges 0.99, 3, 5, 7, 9, 11.
        assert_eq!(
            dz.columns[0],
            ColumnCoding::Binned(vec![0.99, 3.0, 5.0, 7.0, 9.0, 11.0])
        );
        assert_eq!(dz.columns[1], ColumnCoding::Codes);
        let coded = dz.apply(&train);
        // Column 2: min −1, max 2, step 0.6: edges −1.003, −0.4, 0.2, 0.8, 1.4, 2; 0 → bin 1.
        assert_eq!(
            coded.data,
            vec![0.0, 7.0, 0.0, 0.0, 9.0, 1.0, 0.0, 7.0, 4.0]
        );
        assert_eq!(dz.apply(&test).data, vec![4.0, 9.0, 4.0]);
        // Category lists: bins present in the full data only (no row in bins 1..3 of
        // column 0), codes as given.
        assert_eq!(dz.categories[0], vec![0.0, 4.0]);
        assert_eq!(dz.categories[1], vec![7.0, 9.0]);
        assert_eq!(dz.categories[2], vec![0.0, 1.0, 4.0]);
        assert_eq!(dz.category_indices(&coded), vec![0, 0, 0, 0, 1, 1, 0, 0, 2]);
        // Column 2 declared unbinned as well: it keeps its values, column 0 is still binned.
        let kept = Discretizer::fit(&[&train, &test], &[1, 2]);
        assert_eq!(kept.columns[2], ColumnCoding::Codes);
        assert!(matches!(kept.columns[0], ColumnCoding::Binned(_)));
        assert_eq!(kept.categories[2], vec![-1.0, 0.0, 2.0]);
    }
}
