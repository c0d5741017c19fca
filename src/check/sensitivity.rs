//! How wrong a method's numbers must be before `check` sees it:
//! `dp-repro check SPEC --results DIR --sensitivity F`.
//!
//! For each method of the results, its errors are multiplied by `F` (> 1: numbers too
//! bad; < 1: too good, e.g. a test metric computed on training rows) and the reported
//! cells (the paper layer; not the golden file, not the claims) are checked again: a
//! method is *detected* when at least one of its cells that was not a regression becomes
//! one, and the table gives the share of those cells that turn. Beside it, the factor
//! nearest 1 that any of its cells resolves (found on a grid of 0.5 % steps out to
//! [`MAX_FACTOR`], or 1/[`MAX_FACTOR`] below 1) and what holds the other factors back at
//! `F`: the tolerance, the paper's printed spread (a tolerance in half-widths) or the band
//! of a known deviation.
//!
//! **Why scaling `selected.csv` is scaling the results.** Multiplying a method's error in
//! every row of `runs.csv` by `f` maps each repetition's value through the same
//! increasing affine map (MSE: `v ↦ f·v`; accuracy: its error rate, `a ↦ 1 − f·(1 − a)`),
//! so the selected grid point is unchanged and the mean, standard deviation and median of
//! the selected row transform exactly: mean and median through the map, the standard
//! deviation times `f`. The check therefore works on a scaled copy of the selected rows in
//! memory and never touches the results folder (tested against a rescaled `runs.csv` in
//! `tests/check_sensitivity.rs`).

use std::collections::HashMap;
use std::path::Path;

use super::{
    cell_verdict, compare_reported, CellCheck, CheckError, ReportedSpec, RowIndex, SelectedRow,
    Verdict,
};

/// The largest factor searched for a method's resolvable factor.
pub const MAX_FACTOR: f64 = 10.0;

/// A method's rows with its errors multiplied by `factor`: MSE-like metrics (`lower`,
/// lower is better) times `factor`; accuracy (`!lower`) through its error rate,
/// `1 − factor·(1 − a)`; the standard deviation times `factor`. Other methods' rows are
/// unchanged.
pub fn scale_method(
    selected: &[SelectedRow],
    method: &str,
    factor: f64,
    lower: bool,
) -> Vec<SelectedRow> {
    selected
        .iter()
        .map(|r| {
            if r.method != method {
                return r.clone();
            }
            let map = |v: f64| {
                if lower {
                    v * factor
                } else {
                    1.0 - factor * (1.0 - v)
                }
            };
            SelectedRow {
                mean: map(r.mean),
                median: map(r.median),
                std: r.std * factor,
                ..r.clone()
            }
        })
        .collect()
}

/// What keeps a method's cells from turning at the factor asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Detected: nothing.
    None,
    /// The relative or standard-error tolerance.
    Tolerance,
    /// The paper's printed spread: a tolerance in half-widths of the paper's 95 %
    /// interval.
    PaperSpread,
    /// The band of a known deviation.
    Band,
    /// Every compared cell is already a regression, or none is compared.
    NothingToTurn,
}

/// One row of the sensitivity table.
#[derive(Debug, Clone, PartialEq)]
pub struct SensitivityRow {
    /// Method label.
    pub method: String,
    /// Reported cells compared (a paper value and ours).
    pub compared: usize,
    /// Cells that were not a regression and are one at the factor.
    pub turned: usize,
    /// Cells that were not a regression before scaling (what `turned` is a share of).
    pub turnable: usize,
    /// At least one cell turned.
    pub detected: bool,
    /// The factor nearest 1 on the side of the one asked for (up to [`MAX_FACTOR`], or
    /// down to 1/[`MAX_FACTOR`], on a 0.5 % grid) at which some cell of the method turns;
    /// `None` when none does.
    pub resolvable: Option<f64>,
    /// What holds the cells back at the factor asked for (for the cell that resolves
    /// the smallest factor).
    pub limit: Limit,
}

impl SensitivityRow {
    /// The note printed beside the row.
    pub fn note(&self, factor: f64) -> String {
        let at = |f: Option<f64>| match f {
            Some(f) => format!("{f:.3}×"),
            None if factor < 1.0 => format!("no factor down to {:.1}×", 1.0 / MAX_FACTOR),
            None => format!("no factor up to {MAX_FACTOR}×"),
        };
        match self.limit {
            Limit::None => String::new(),
            Limit::NothingToTurn => "no cell to turn (none compared, or all already regressions)".into(),
            Limit::Tolerance => format!(
                "the tolerance cannot see {factor}×; it resolves {}",
                at(self.resolvable)
            ),
            Limit::PaperSpread => format!(
                "the paper's printed spread (its 95 % half-widths) cannot see {factor}×; it resolves {}",
                at(self.resolvable)
            ),
            Limit::Band => format!(
                "a known deviation's band absorbs {factor}×; it resolves {}",
                at(self.resolvable)
            ),
        }
    }
}

/// The sensitivity table of a results folder: one row per method with reported cells
/// compared, in order of first appearance.
///
/// `lower` says whether the metric is an error (lower is better) or an accuracy.
///
/// # Errors
/// Those of [`compare_reported`].
pub fn sensitivity(
    spec: &ReportedSpec,
    spec_dir: &Path,
    selected: &[SelectedRow],
    abbreviations: &HashMap<String, String>,
    factor: f64,
    lower: bool,
) -> Result<Vec<SensitivityRow>, CheckError> {
    let base = compare_reported(spec, spec_dir, selected, abbreviations)?;
    let compared = |c: &CellCheck| c.paper.is_some() && c.ours.is_some();
    let mut methods: Vec<&str> = Vec::new();
    for c in base.iter().filter(|c| compared(c)) {
        if !methods.contains(&c.method.as_str()) {
            methods.push(&c.method);
        }
    }
    let mut out = Vec::new();
    for m in methods {
        let cells: Vec<&CellCheck> = base
            .iter()
            .filter(|c| c.method == m && compared(c) && c.verdict != Verdict::Regression)
            .collect();
        let n_compared = base.iter().filter(|c| c.method == m && compared(c)).count();
        let verdicts_at = |f: f64| -> Vec<(Verdict, bool)> {
            let scaled = scale_method(selected, m, f, lower);
            let index = RowIndex::new(spec, &scaled);
            cells
                .iter()
                .map(|c| {
                    let Some(row) = index.get(&c.dataset, &c.method, c.epsilon) else {
                        return (Verdict::NotRun, false);
                    };
                    let paper = c.paper.unwrap_or(f64::NAN);
                    let (v, _, _) = cell_verdict(
                        spec,
                        row,
                        paper,
                        c.paper_halfwidth,
                        (&c.dataset, &c.reported_dataset, &c.method, c.epsilon),
                    );
                    // Whether the half-width criterion is what accepts the cell.
                    let t = &spec.tolerance;
                    let plain = super::Tolerance {
                        halfwidths: None,
                        ..*t
                    };
                    let spread =
                        v == Verdict::Ok && !plain.accepts(row.mean, row.std_error(), paper);
                    (v, spread)
                })
                .collect()
        };
        let at_factor = verdicts_at(factor);
        let turned = at_factor
            .iter()
            .filter(|(v, _)| *v == Verdict::Regression)
            .count();
        // The factor nearest 1, on the side of `factor`, on a 0.5 % grid at which some
        // cell turns.
        let step = if factor < 1.0 { 1.0 / 1.005 } else { 1.005 };
        let inside = |f: f64| {
            if factor < 1.0 {
                f >= 1.0 / MAX_FACTOR - 1e-12
            } else {
                f <= MAX_FACTOR + 1e-9
            }
        };
        let mut resolvable = None;
        let mut f = step;
        while inside(f) && !cells.is_empty() {
            if verdicts_at(f)
                .iter()
                .any(|(v, _)| *v == Verdict::Regression)
            {
                resolvable = Some(f);
                break;
            }
            f *= step;
        }
        let limit = if turned > 0 {
            Limit::None
        } else if cells.is_empty() {
            Limit::NothingToTurn
        } else if at_factor
            .iter()
            .any(|(v, _)| matches!(v, Verdict::KnownDeviation(_)))
        {
            Limit::Band
        } else if at_factor.iter().any(|(_, spread)| *spread)
            && at_factor
                .iter()
                .all(|(v, spread)| *spread || *v != Verdict::Ok)
        {
            Limit::PaperSpread
        } else {
            Limit::Tolerance
        };
        out.push(SensitivityRow {
            method: m.to_string(),
            compared: n_compared,
            turned,
            turnable: cells.len(),
            detected: turned > 0,
            resolvable,
            limit,
        });
    }
    Ok(out)
}

/// The sensitivity table as Markdown (what `check --sensitivity` prints).
pub fn sensitivity_markdown(rows: &[SensitivityRow], factor: f64, title: &str) -> String {
    let mut s = format!(
        "# {title}: sensitivity to {factor}× errors\n\nEach method's errors (MSE, or accuracy's error rate) multiplied by {factor}, the reported cells checked again (not the golden file, not the claims).\n\n| method | cells compared | turned to regression | detected | factor nearest 1 resolved | share turned | note |\n| --- | ---: | ---: | --- | ---: | ---: | --- |\n"
    );
    for r in rows {
        let share = if r.turnable == 0 {
            "–".to_string()
        } else {
            format!("{:.0} %", 100.0 * r.turned as f64 / r.turnable as f64)
        };
        let unresolved = if factor < 1.0 {
            format!("< {:.1}", 1.0 / MAX_FACTOR)
        } else {
            format!("> {MAX_FACTOR}")
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.method,
            r.compared,
            r.turned,
            if r.detected { "yes" } else { "no" },
            r.resolvable
                .map(|f| format!("{f:.3}"))
                .unwrap_or(unresolved),
            share,
            r.note(factor)
        ));
    }
    let missed = rows.iter().filter(|r| !r.detected).count();
    s.push_str(&format!(
        "\n{} of {} methods detected at {factor}×.\n",
        rows.len() - missed,
        rows.len()
    ));
    s
}
