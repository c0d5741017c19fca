//! Error non-increasing in ε, checked rather than read.
//!
//! More budget means less noise: a private method's error at a larger ε is not expected
//! above its error at a smaller one. For every private method of the spec's tables, every
//! data set and every two consecutive ε of the run, the repetitions of the selected grid
//! point at each ε are paired by repetition number (the same data split: only the noise
//! and the selected grid point differ) and the errors (MSE, or 1 − accuracy) compared:
//!
//! - a one-sided Wilcoxon signed-rank test ([`wilcoxon_signed_rank`]) of d = error at the
//!   larger ε − error at the smaller, H1: d tends to be positive;
//! - the p-values of every pair of the check form one family, adjusted by Holm's procedure
//!   ([`holm_adjust`]): an honest run raises a false alarm on some pair with probability at
//!   most [`ALPHA`];
//! - a pair regresses when its adjusted p-value is ≤ [`ALPHA`] and the median paired
//!   increase exceeds [`MARGIN`] times the mean error at the smaller ε (a significant but
//!   negligible increase is the selection's jitter on a plateau, not a lost budget);
//! - separately, a pair whose two repetition vectors are identical is a regression when
//!   the metric is an MSE: the release streams are keyed on ε
//!   ([`crate::run::seeds::release_stream`]), so the noise at the two ε is independent
//!   and continuous, and an identical MSE on every split means a column copied from one ε
//!   to the other. An accuracy counts correctly classified test rows: a noise that flips
//!   no prediction leaves it unchanged, so identical accuracies are reported but are not
//!   a copy by themselves (measured on `specs/ci-lpct.yaml`: 35 of its 108 pairs,
//!   LPCT-prune's noise-dominated nodes falling back on the public counts among them).
//!
//! docs/check.md ("Error non-increasing in ε") derives α and the margin and gives the
//! counts measured on the CI specs' results.

use std::collections::BTreeMap;

use super::repetitions::Repetitions;
use super::{eps_text, SelectedRow, Verdict};
use crate::stats::{holm_adjust, wilcoxon_signed_rank, Alternative};

/// Family-wise error rate of the ε-order test over all pairs of one check (Holm).
///
/// The smallest p-value n paired repetitions give is 2⁻ⁿ (every repetition worse, no tie),
/// and Holm rejects it only when 2⁻ⁿ ≤ α/m for m tested pairs. The CI specs of LPCT and
/// HistOfTree run n = 10 with m = 54 to 73 pairs, so α = 0.05 could never flag a pair
/// there (m·2⁻¹⁰ = 0.053 to 0.071); 0.1 is the smallest round level at which a pair whose
/// every repetition got worse is flagged on each of them (docs/check.md).
pub const ALPHA: f64 = 0.1;

/// The smallest median paired increase of the error, relative to the mean error at the
/// smaller ε, that counts as a regression (a fraction: 0.1 = 10 %): half the 20 % error
/// the check is built to see (`check --sensitivity 1.2`, docs/check.md), so such an error
/// clears it with room for the median's noise over 10 pairs.
pub const MARGIN: f64 = 0.1;

/// Two consecutive ε of one private method on one data set, compared.
#[derive(Debug, Clone, PartialEq)]
pub struct EpsilonPair {
    /// Data set name.
    pub dataset: String,
    /// Method label.
    pub method: String,
    /// The smaller ε.
    pub lower: f64,
    /// The next larger ε of the run.
    pub higher: f64,
    /// Repetitions present at both ε (paired by repetition number).
    pub paired: usize,
    /// Mean error over the paired repetitions at the smaller ε (units of the error: MSE,
    /// or 1 − accuracy).
    pub error_lower: f64,
    /// Mean error over the paired repetitions at the larger ε.
    pub error_higher: f64,
    /// Median over the pairs of error at the larger ε − error at the smaller (units of
    /// the error; > 0 is an increase).
    pub median_increase: f64,
    /// The one-sided Wilcoxon p-value (H1: the error at the larger ε is larger); `None`
    /// when the test is undefined (no pair, or every difference zero).
    pub p_value: Option<f64>,
    /// The p-value adjusted over the check's family ([`holm_adjust`]); `None` with
    /// `p_value`.
    pub adjusted: Option<f64>,
    /// Whether every paired repetition (at least two) has the same error at both ε, bit
    /// for bit.
    pub identical: bool,
    /// Whether the error is an MSE (else 1 − accuracy): identical MSEs are a copied
    /// column, identical accuracies need not be.
    pub continuous: bool,
    /// [`Verdict::Regression`] for a significant increase beyond the margin or identical
    /// MSEs, [`Verdict::Ok`] otherwise, [`Verdict::NotRun`] with fewer than two pairs.
    pub verdict: Verdict,
}

impl EpsilonPair {
    /// The median paired increase relative to the mean error at the smaller ε (NaN when
    /// that error is 0).
    pub fn relative_increase(&self) -> f64 {
        self.median_increase / self.error_lower
    }

    /// Whether the pair is a copied column: identical MSEs ([`EpsilonPair::identical`]
    /// with [`EpsilonPair::continuous`]).
    pub fn copied(&self) -> bool {
        self.identical && self.continuous
    }

    /// What was found, one plain line: a copied column, identical accuracies, or the
    /// errors, the median paired increase, the p-values, α and the margin.
    pub fn details(&self) -> String {
        let eps = format!("ε {} → {}", eps_text(self.lower), eps_text(self.higher));
        if self.copied() {
            return format!(
                "{eps}: copied: the {} paired repetitions have identical MSEs at both ε; the noise at each ε is drawn afresh, so one ε's values were copied to the other",
                self.paired
            );
        }
        if self.identical {
            return format!(
                "{eps}: the {} paired repetitions have identical accuracies at both ε: the noise flips no prediction of the selected grid points (not a copy by itself: an accuracy counts test rows)",
                self.paired
            );
        }
        let p = |v: Option<f64>| v.map_or("undefined".to_string(), |v| format!("{v:.3e}"));
        format!(
            "{eps}: mean error {:.4e} → {:.4e}, median paired increase {:.3e} ({:+.1} % of the error at ε {}), one-sided Wilcoxon p {} over {} pairs, Holm-adjusted {} (α {ALPHA}, margin {:.0} %)",
            self.error_lower,
            self.error_higher,
            self.median_increase,
            100.0 * self.relative_increase(),
            eps_text(self.lower),
            p(self.p_value),
            self.paired,
            p(self.adjusted),
            100.0 * MARGIN
        )
    }
}

/// The summary line of `check` (`None` without pairs): how many pairs were compared and
/// tested, how many regressed, were copied or have identical accuracies, at which α and
/// margin.
pub fn summary_line(pairs: &[EpsilonPair]) -> Option<String> {
    if pairs.is_empty() {
        return None;
    }
    let count = |f: fn(&EpsilonPair) -> bool| pairs.iter().filter(|p| f(p)).count();
    let copied = count(EpsilonPair::copied);
    let increases = count(|p| p.verdict == Verdict::Regression) - copied;
    Some(format!(
        "Error non-increasing in ε: {compared} pairs of consecutive ε compared ({tested} tested: one-sided Wilcoxon, Holm over all, α {ALPHA}, margin {margin:.0} % of the error) — {increases} {word}, {copied} copied, {identical} with identical accuracies (not a regression).",
        compared = pairs.len(),
        tested = count(|p| p.p_value.is_some()),
        margin = 100.0 * MARGIN,
        word = if increases == 1 { "increase" } else { "increases" },
        identical = count(|p| p.identical && !p.copied()),
    ))
}

/// The pairs `check.md` lists: those that regressed and those with identical values.
pub fn listed(pairs: &[EpsilonPair]) -> impl Iterator<Item = &EpsilonPair> {
    pairs
        .iter()
        .filter(|p| p.verdict == Verdict::Regression || p.identical)
}

impl EpsilonPair {
    /// One line for the report: verdict, data set, method and [`EpsilonPair::details`].
    pub fn line(&self) -> String {
        let verdict = if self.verdict == Verdict::Regression {
            "regression"
        } else {
            "ok"
        };
        format!(
            "{verdict}: {} · {}: {}",
            self.dataset,
            self.method,
            self.details()
        )
    }
}

/// The private methods of `exp`'s tables (each once, in table and column order).
pub fn table_private_methods(exp: &crate::spec::Experiment) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in &exp.spec.tables {
        for m in super::budget::private_compared(exp, t) {
            if !out.contains(&m.label) {
                out.push(m.label.clone());
            }
        }
    }
    out
}

/// Compares every two consecutive ε of each method of `methods` on each data set, from the
/// selected rows and their repetitions; `lower_is_better` says whether the metric is an
/// error (MSE) or an accuracy (error = 1 − accuracy). Pairs in data set, method and ε
/// order; the Holm adjustment runs over all of them. Pure.
pub fn epsilon_orders(
    methods: &[String],
    selected: &[SelectedRow],
    repetitions: &Repetitions,
    lower_is_better: bool,
) -> Vec<EpsilonPair> {
    let error = |v: f64| if lower_is_better { v } else { 1.0 - v };
    // (data set, method) → its selected rows, ε ascending.
    let mut cells: BTreeMap<(&str, &str), Vec<&SelectedRow>> = BTreeMap::new();
    for r in selected
        .iter()
        .filter(|r| r.epsilon.is_some() && methods.contains(&r.method))
    {
        cells.entry((&r.dataset, &r.method)).or_default().push(r);
    }
    let mut pairs = Vec::new();
    for ((dataset, method), mut rows) in cells {
        rows.sort_by(|a, b| {
            a.epsilon
                .unwrap_or(0.0)
                .total_cmp(&b.epsilon.unwrap_or(0.0))
        });
        for w in rows.windows(2) {
            let (lo, hi) = (repetitions.of(w[0]), repetitions.of(w[1]));
            let (x, y): (Vec<f64>, Vec<f64>) = hi
                .iter()
                .filter_map(|h| {
                    let l = lo.iter().find(|l| l.repetition == h.repetition)?;
                    Some((error(h.value), error(l.value)))
                })
                .unzip();
            pairs.push(compare(
                dataset,
                method,
                (w[0], w[1]),
                &x,
                &y,
                lower_is_better,
            ));
        }
    }
    let tested: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i].p_value.is_some())
        .collect();
    let adjusted = holm_adjust(
        &tested
            .iter()
            .map(|&i| pairs[i].p_value.unwrap_or(f64::NAN))
            .collect::<Vec<_>>(),
    );
    for (&i, a) in tested.iter().zip(adjusted) {
        let p = &mut pairs[i];
        p.adjusted = Some(a);
        if a <= ALPHA && p.relative_increase() > MARGIN {
            p.verdict = Verdict::Regression;
        }
    }
    pairs
}

/// One pair before the family's adjustment: `x` the errors at the larger ε, `y` at the
/// smaller, paired by position; `continuous` when they are MSEs.
fn compare(
    dataset: &str,
    method: &str,
    (lo, hi): (&SelectedRow, &SelectedRow),
    x: &[f64],
    y: &[f64],
    continuous: bool,
) -> EpsilonPair {
    let n = x.len();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let diffs: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let identical = n >= 2 && x.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits());
    // Undefined without pairs, with every difference zero or a non-finite error: no
    // claim of order either way.
    let p_value = wilcoxon_signed_rank(x, y, Alternative::Greater)
        .ok()
        .map(|r| r.p_value);
    let verdict = if identical && continuous {
        Verdict::Regression
    } else if n < 2 {
        Verdict::NotRun
    } else {
        Verdict::Ok
    };
    EpsilonPair {
        dataset: dataset.to_string(),
        method: method.to_string(),
        lower: lo.epsilon.unwrap_or(f64::NAN),
        higher: hi.epsilon.unwrap_or(f64::NAN),
        paired: n,
        error_lower: mean(y),
        error_higher: mean(x),
        median_increase: crate::stats::summarize(&diffs).median,
        p_value,
        adjusted: None,
        identical,
        continuous,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_row::RunRow;

    fn row(dataset: &str, epsilon: f64) -> SelectedRow {
        SelectedRow {
            dataset: dataset.into(),
            method: "M".into(),
            epsilon: Some(epsilon),
            mean: 0.0,
            std: 0.0,
            median: 0.0,
            reps: 10,
            params: "p=1".into(),
        }
    }

    /// The pairs of method `M` on one data set whose errors per ε are `errors[ε]` (one
    /// value per repetition), as MSEs (`continuous`) or accuracies (1 − error).
    fn pairs(errors: &[(f64, Vec<f64>)], continuous: bool) -> Vec<EpsilonPair> {
        let selected: Vec<SelectedRow> = errors.iter().map(|(e, _)| row("d", *e)).collect();
        let runs = errors.iter().flat_map(|(e, v)| {
            v.iter().enumerate().map(move |(i, &err)| RunRow {
                dataset: "d".into(),
                method: "M".into(),
                params: "p=1".into(),
                epsilon: Some(*e),
                repetition: i + 1,
                value: if continuous { err } else { 1.0 - err },
                ..RunRow::default()
            })
        });
        let reps = Repetitions::from_runs(runs, &selected);
        epsilon_orders(&["M".to_string()], &selected, &reps, continuous)
    }

    fn noisy(base: f64, n: usize) -> Vec<f64> {
        (0..n).map(|i| base * (1.0 + 0.01 * i as f64)).collect()
    }

    #[test]
    fn an_error_that_grows_with_epsilon_on_every_repetition_regresses() {
        let p = pairs(&[(1.0, noisy(1.0, 10)), (2.0, noisy(2.0, 10))], true);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].p_value, Some(1.0 / 1024.0));
        assert_eq!(p[0].verdict, Verdict::Regression, "{}", p[0].details());
    }

    #[test]
    fn an_error_that_falls_with_epsilon_is_ok() {
        let p = pairs(&[(1.0, noisy(2.0, 10)), (2.0, noisy(1.0, 10))], true);
        assert_eq!(p[0].verdict, Verdict::Ok);
        assert!(p[0].relative_increase() < 0.0);
    }

    #[test]
    fn a_consistent_increase_below_the_margin_is_ok() {
        let p = pairs(&[(1.0, noisy(1.0, 10)), (2.0, noisy(1.05, 10))], true);
        assert_eq!(p[0].p_value, Some(1.0 / 1024.0));
        assert_eq!(p[0].verdict, Verdict::Ok, "{}", p[0].details());
    }

    #[test]
    fn holm_counts_every_pair_of_the_check() {
        // One clear increase among 200 pairs: its adjusted p-value is 200/1024 > α.
        let mut errors = vec![(1.0, noisy(1.0, 10)), (2.0, noisy(2.0, 10))];
        for k in 0..200 {
            errors.push((3.0 + k as f64, noisy(1.0 / (k + 2) as f64, 10)));
        }
        let p = pairs(&errors, true);
        assert_eq!(p.len(), 201);
        assert_eq!(p[0].adjusted, Some(201.0 / 1024.0));
        assert_eq!(p[0].verdict, Verdict::Ok);
    }

    #[test]
    fn identical_mses_are_a_copied_column_identical_accuracies_are_not() {
        let same = [(1.0, noisy(0.3, 10)), (2.0, noisy(0.3, 10))];
        let p = pairs(&same, true);
        assert!(p[0].copied() && p[0].p_value.is_none());
        assert_eq!(p[0].verdict, Verdict::Regression);
        assert!(p[0].details().contains("copied"), "{}", p[0].details());
        let p = pairs(&same, false);
        assert!(p[0].identical && !p[0].copied());
        assert_eq!(p[0].verdict, Verdict::Ok);
    }
}
