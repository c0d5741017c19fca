//! Spreads a damaged run cannot widen, and repetitions that cannot be right.
//!
//! A tolerance in units of our standard error widens with our own spread: one repetition
//! multiplied by 20 doubles a cell's mean but widens its standard error even more, and
//! the cell passed. Two guards close that door:
//! - [`cap_by_golden`]: where the spec's golden file holds the same cell with the same
//!   number of repetitions, our standard deviation is capped at
//!   [`GOLDEN_SPREAD_FACTOR`] times the golden's. A run with the spec's seed reproduces
//!   the golden's spread exactly (every draw is seeded), so the cap only bites on a run
//!   whose repetitions changed; the factor leaves room for an honest run under another
//!   seed: for normal errors the ratio of two sample variances over 20 repetitions each is
//!   F(19, 19), and P(F > 1.5²) ≈ 0.04, P(F > 2²) ≈ 0.002.
//! - [`suspects`]: a repetition whose error lies more than [`SUSPECT_RATIO`] times (or
//!   less than 1/[`SUSPECT_RATIO`]) from its cell's median error **and** more than
//!   [`SUSPECT_SPREADS`] robust standard deviations from it on the log scale
//!   (1.4826 × the median absolute deviation of ln(error / median)), or a value outside
//!   the metric's range (an MSE below 0, an accuracy outside [0, 1], not finite). Both
//!   conditions are needed: the histogram methods at ε = 0.5 legitimately have
//!   repetitions 280 times their median, inside a log spread that wide, while a
//!   tightly spread method has repetitions 20 robust deviations out at twice its median.
//!   Measured on the four CI result folders (every selected cell, 17,600 repetitions):
//!   no repetition is suspect; on the full HistOfTree tables (50 repetitions) 2 honest
//!   repetitions are (Hist on music at ε 1, 16.8 times its median; AdHistOfTree(CART) P
//!   on abalone at ε 4, 5.7 times). So a suspect repetition is flagged in `check.csv`
//!   and the report, with its task key, but is not a regression; a value outside the
//!   metric's range is.

use std::collections::HashMap;

use super::golden::row_key;
use super::repetitions::Repetitions;
use super::{eps_text, SelectedRow};

/// How many times the golden's standard deviation ours may reach (see the module docs).
pub const GOLDEN_SPREAD_FACTOR: f64 = 1.5;

/// How far from its cell's median (as a ratio of errors) a suspect repetition lies.
pub const SUSPECT_RATIO: f64 = 5.0;

/// How many robust standard deviations of ln(error) a suspect repetition lies out.
pub const SUSPECT_SPREADS: f64 = 10.0;

/// The fewest repetitions a cell needs for its median absolute deviation to judge one
/// of them.
pub const SUSPECT_MIN_REPS: usize = 5;

/// `selected` with every row's standard deviation capped at [`GOLDEN_SPREAD_FACTOR`]
/// times the golden's for the same cell (data set, method, ε, grid point) when the golden
/// has it with the same number of repetitions ([`super::golden::golden_spreads`]); and
/// how many rows were capped.
pub fn cap_by_golden(
    selected: &[SelectedRow],
    golden: &HashMap<String, (f64, usize)>,
) -> (Vec<SelectedRow>, usize) {
    let mut capped = 0;
    let rows = selected
        .iter()
        .map(|row| {
            let key = row_key(
                &row.dataset,
                &row.method,
                &row.epsilon.map(eps_text).unwrap_or_default(),
                &row.params,
            );
            match golden.get(&key) {
                Some(&(std, reps)) if reps == row.reps && row.std > GOLDEN_SPREAD_FACTOR * std => {
                    capped += 1;
                    SelectedRow {
                        std: GOLDEN_SPREAD_FACTOR * std,
                        ..row.clone()
                    }
                }
                _ => row.clone(),
            }
        })
        .collect();
    (rows, capped)
}

/// A repetition that cannot be right.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// ε of the cell (`None`: a non-private method).
    pub epsilon: Option<f64>,
    /// The cell's grid point.
    pub params: String,
    /// Repetition number, 1-based.
    pub repetition: usize,
    /// The task key of its row in `runs.csv`.
    pub task: String,
    /// Its test metric.
    pub value: f64,
    /// The median test metric of its cell.
    pub median: f64,
    /// Why it is suspect, in words.
    pub reason: String,
    /// Its value lies outside the metric's range: not merely suspect, impossible (a
    /// regression of the check). A repetition far beyond its cell's spread is flagged
    /// only: honest heavy tails produce a few (see the module docs).
    pub impossible: bool,
}

/// The suspect repetitions of the selected cells (see the module docs), in the order of
/// `selected`. `lower_is_better`: the metric is an error (MSE) rather than an accuracy,
/// whose error is 1 − accuracy.
pub fn suspects(
    selected: &[SelectedRow],
    repetitions: &Repetitions,
    lower_is_better: bool,
) -> Vec<Suspect> {
    let mut out = Vec::new();
    for row in selected {
        let reps = repetitions.of(row);
        let error = |v: f64| if lower_is_better { v } else { 1.0 - v };
        let errors: Vec<f64> = reps.iter().map(|r| error(r.value)).collect();
        let median_error = crate::stats::summarize(&errors).median;
        let logs: Vec<f64> = errors
            .iter()
            .map(|&e| (e / median_error).ln())
            .filter(|l| l.is_finite())
            .collect();
        let robust_sd = 1.4826
            * crate::stats::summarize(&logs.iter().map(|l| l.abs()).collect::<Vec<_>>()).median;
        for r in reps {
            let e = error(r.value);
            let impossible = !r.value.is_finite()
                || if lower_is_better {
                    r.value < 0.0
                } else {
                    !(0.0..=1.0).contains(&r.value)
                };
            let reason = if impossible {
                Some(format!(
                    "{} is outside the metric's range ({})",
                    r.value,
                    if lower_is_better {
                        "an MSE is ≥ 0"
                    } else {
                        "an accuracy is in [0, 1]"
                    }
                ))
            } else {
                let l = (e / median_error).ln();
                (reps.len() >= SUSPECT_MIN_REPS
                    && l.is_finite()
                    && l.abs() > SUSPECT_RATIO.ln()
                    && l.abs() > SUSPECT_SPREADS * robust_sd)
                    .then(|| {
                        format!(
                            "its error is {:.3}× its cell's median, {:.1} robust standard deviations of ln(error) out (suspect beyond ×{SUSPECT_RATIO} and {SUSPECT_SPREADS})",
                            e / median_error,
                            l.abs() / robust_sd
                        )
                    })
            };
            if let Some(reason) = reason {
                out.push(Suspect {
                    dataset: row.dataset.clone(),
                    method: row.method.clone(),
                    epsilon: row.epsilon,
                    params: row.params.clone(),
                    repetition: r.repetition,
                    task: r.task.clone(),
                    value: r.value,
                    median: row.median,
                    reason,
                    impossible,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(std: f64, reps: usize) -> SelectedRow {
        SelectedRow {
            dataset: "abalone".into(),
            method: "LPDT-M".into(),
            epsilon: Some(2.0),
            mean: 5.0,
            std,
            median: 5.0,
            reps,
            params: "depth=2".into(),
        }
    }

    #[test]
    fn a_spread_wider_than_the_goldens_is_capped_and_a_narrower_one_kept() {
        let golden: HashMap<String, (f64, usize)> =
            [(row_key("abalone", "LPDT-M", "2", "depth=2"), (0.4, 20))].into();
        let (rows, n) = cap_by_golden(&[row(4.0, 20)], &golden);
        assert_eq!((n, rows[0].std), (1, 0.6000000000000001));
        let (rows, n) = cap_by_golden(&[row(0.5, 20)], &golden);
        assert_eq!((n, rows[0].std), (0, 0.5));
        // Another repetition count: not the same cell's spread, left alone.
        let (rows, n) = cap_by_golden(&[row(4.0, 10)], &golden);
        assert_eq!((n, rows[0].std), (0, 4.0));
    }

    fn repetitions(values: &[f64]) -> (SelectedRow, Repetitions) {
        let r = row(1.0, values.len());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let mut text = format!("{}\n", crate::run_row::RUNS_HEADER);
        for (i, v) in values.iter().enumerate() {
            text.push_str(&format!(
                "t{i},abalone,LPDT-M,depth=2,2,{},mse,{v},0.1\n",
                i + 1
            ));
        }
        std::fs::write(&path, text).unwrap();
        let reps = Repetitions::read(&path, std::slice::from_ref(&r)).unwrap();
        (r, reps)
    }

    #[test]
    fn a_repetition_far_beyond_its_cells_spread_is_suspect_and_an_honest_tail_is_not() {
        let tight = [5.0, 5.2, 4.9, 5.1, 5.0, 4.8, 5.3, 5.1];
        let (r, reps) = repetitions(&tight);
        assert!(suspects(std::slice::from_ref(&r), &reps, true).is_empty());
        // Repetition 1 × 20.
        let mut damaged = tight;
        damaged[0] *= 20.0;
        let (r, reps) = repetitions(&damaged);
        let s = suspects(std::slice::from_ref(&r), &reps, true);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].repetition, s[0].task.as_str()), (1, "t0"));
        assert!(!s[0].impossible);
        // A wide honest spread (a histogram at small ε): a value 8 times the median is
        // inside it.
        let wide = [1.0, 3.0, 0.5, 8.0, 2.0, 0.7, 1.5, 4.0];
        let (r, reps) = repetitions(&wide);
        assert!(suspects(std::slice::from_ref(&r), &reps, true).is_empty());
        // A negative MSE is impossible, however close.
        let mut negative = tight;
        negative[3] = -0.1;
        let (r, reps) = repetitions(&negative);
        let s = suspects(std::slice::from_ref(&r), &reps, true);
        assert!(s.len() == 1 && s[0].reason.contains("outside the metric's range"));
        assert!(s[0].impossible);
    }
}
