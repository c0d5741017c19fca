//! The authors' code as a third column (docs/check.md, "The authors' code as a third
//! column"): the values `scripts/authors-<paper>.py` measured with the authors' own code on
//! our splits, read from `reported.authors_code`, set beside the paper's value and ours in
//! every reported cell, and each cell classified by whom the authors' code agrees with.
//!
//! - *with us* (and not the paper): the paper's value is not what its own code gives on
//!   these data; a deviation of ours from the paper is explained by it, with the file;
//! - *with the paper* (and not us): a difference of ours; a known deviation turns into a
//!   regression unless it names the option of ours that behaves as their code
//!   ([`KnownDeviation::option`](crate::spec::reported::KnownDeviation));
//! - *both*: the three agree within noise; *neither*: unexplained, with both gaps.
//!
//! Agreement with us is Welch's two-sample t-test at level `alpha` on the two sets of
//! repetitions ([`welch_test`]); agreement with the paper is the cell's own tolerance, the
//! yardstick ours is held to, applied to the authors' mean.

use std::collections::HashMap;
use std::path::Path;

use super::{eps_text, CellCheck, CheckError};
use crate::csv_table::CsvTable;
use crate::spec::reported::{AuthorsCode, ReportedSpec, Verdict};
use crate::stats::welch_test;

/// The authors' code's value of one cell: mean and sample standard deviation over its
/// repetitions, or why their code cannot run it.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthorsValue {
    /// Their code ran: `mean` (unit of the reported values), `std` (sample, n − 1; 0 for one
    /// repetition), `reps`, the selected grid point(s) and the file and first line.
    Ran {
        /// Mean over repetitions.
        mean: f64,
        /// Sample standard deviation over repetitions (0 with one repetition).
        std: f64,
        /// Repetitions.
        reps: usize,
        /// The grid point(s) their selection picked (distinct ones joined by ` | `).
        grid_point: String,
        /// `<file>:<line>` of the cell's first row.
        source: String,
    },
    /// Their code cannot run the cell: the file's note and `<file>:<line>`.
    CannotRun {
        /// Why (crash, no implementation, hours of CPU: the script's words).
        note: String,
        /// `<file>:<line>`.
        source: String,
    },
}

impl AuthorsValue {
    /// `<file>:<line>` of the cell's first row.
    pub fn source(&self) -> &str {
        match self {
            AuthorsValue::Ran { source, .. } | AuthorsValue::CannotRun { source, .. } => source,
        }
    }
}

/// Whom the authors' code agrees with in one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// With ours only: the paper's value is not what its own code gives on these data.
    WithUs,
    /// With the paper only: a difference of ours.
    WithPaper,
    /// With both (all three agree within noise).
    Both,
    /// With neither.
    Neither,
}

impl Agreement {
    /// The word check.csv writes: `with_us`, `with_paper`, `both`, `neither`.
    pub fn csv_name(self) -> &'static str {
        match self {
            Agreement::WithUs => "with_us",
            Agreement::WithPaper => "with_paper",
            Agreement::Both => "both",
            Agreement::Neither => "neither",
        }
    }

    /// Plain words for the reports.
    pub fn words(self) -> &'static str {
        match self {
            Agreement::WithUs => "agrees with us",
            Agreement::WithPaper => "agrees with the paper",
            Agreement::Both => "agrees with both",
            Agreement::Neither => "agrees with neither",
        }
    }
}

/// The authors' code beside one cell: its value, and when it ran and both the paper's
/// value and ours exist, whom it agrees with and the two tests' details.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorsCell {
    /// The value.
    pub value: AuthorsValue,
    /// Whom it agrees with (None: their code did not run the cell, or the cell lacks the
    /// paper's value or ours).
    pub agreement: Option<Agreement>,
    /// The tests in words: Welch's t against ours (t, df, critical value) and the gap to
    /// the paper against the cell's tolerance.
    pub detail: String,
}

/// Reads the authors' code file of `a` (relative to `dir`): one entry per (data set,
/// method, ε text) — repetitions gathered into mean and standard deviation, or the note
/// of a cell their code cannot run.
///
/// # Errors
/// [`CheckError::Table`] for a file that does not read, a missing column, a non-numeric
/// value, or a cell with both values and a "cannot run" row (file, line, column).
pub fn read_authors_code(
    a: &AuthorsCode,
    dir: &Path,
) -> Result<HashMap<(String, String, String), AuthorsValue>, CheckError> {
    let path = dir.join(&a.file);
    let t = CsvTable::read(
        &path,
        &[
            "dataset",
            "method",
            "epsilon",
            "repetition",
            "grid_point",
            "value",
            "note",
        ],
    )?;
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Per cell: first line, values, grid points, note of a cell that cannot run.
    type Gathered = (u64, Vec<f64>, Vec<String>, Option<String>);
    let mut cells: HashMap<(String, String, String), Gathered> = HashMap::new();
    let mut order = Vec::new();
    for (line, r) in &t.records {
        let dataset = t.text(*line, r, "dataset")?;
        let method = t.text(*line, r, "method")?;
        let epsilon = t
            .epsilon(*line, r, "epsilon")?
            .map(eps_text)
            .unwrap_or_default();
        let value = t.opt_f64(*line, r, "value")?;
        let key = (dataset, method, epsilon);
        let e = cells.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (*line, Vec::new(), Vec::new(), None)
        });
        match value {
            Some(v) => {
                let gp = t.get(r, "grid_point").to_string();
                if !e.2.contains(&gp) {
                    e.2.push(gp);
                }
                e.1.push(v);
            }
            None => e.3 = Some(t.get(r, "note").to_string()),
        }
        if e.3.is_some() && !e.1.is_empty() {
            return Err(t
                .field_error(
                    *line,
                    "value",
                    t.get(r, "value"),
                    "either values (one row per repetition) or one row with an empty value and a note, not both, for one cell",
                )
                .into());
        }
    }
    let mut out = HashMap::new();
    for key in order {
        let (line, values, grid, note) = cells.remove(&key).expect("gathered above");
        let source = format!("{name}:{line}");
        let v = match note {
            Some(note) => AuthorsValue::CannotRun { note, source },
            None => {
                let n = values.len();
                let mean = values.iter().sum::<f64>() / n as f64;
                let std = if n >= 2 {
                    (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64)
                        .sqrt()
                } else {
                    0.0
                };
                AuthorsValue::Ran {
                    mean,
                    std,
                    reps: n,
                    grid_point: grid.join(" | "),
                    source,
                }
            }
        };
        out.insert(key, v);
    }
    Ok(out)
}

/// Sets the authors' code beside every cell of `cells` that `spec.authors_code` covers,
/// classifies it ([`Agreement`]) and turns a known deviation whose authors' code agrees
/// with the paper and not with us into a regression, unless the deviation names the
/// option of ours that behaves as their code (`option`). Does nothing without
/// `authors_code`.
///
/// # Errors
/// The file's errors ([`read_authors_code`]).
pub fn attach_authors_code(
    spec: &ReportedSpec,
    dir: &Path,
    cells: &mut [CellCheck],
) -> Result<(), CheckError> {
    let Some(a) = &spec.authors_code else {
        return Ok(());
    };
    let values = read_authors_code(a, dir)?;
    for c in cells.iter_mut() {
        let key = (
            c.dataset.clone(),
            c.method.clone(),
            c.epsilon.map(eps_text).unwrap_or_default(),
        );
        // A non-private method's ε-less row stands for every ε the paper's file gives it,
        // as our own selected rows do.
        let plain = (key.0.clone(), key.1.clone(), String::new());
        let Some(v) = values.get(&key).or_else(|| values.get(&plain)) else {
            continue;
        };
        let (agreement, detail) = classify(spec, a.alpha, c, v);
        if agreement == Some(Agreement::WithPaper) {
            if let Verdict::KnownDeviation(_) = c.verdict {
                let option = spec
                    .known_deviations
                    .iter()
                    .find(|k| k.matches(&c.dataset, &c.reported_dataset, &c.method, c.epsilon))
                    .and_then(|k| k.option.clone());
                if option.is_none() {
                    c.verdict = Verdict::Regression;
                    c.note = Some(format!(
                        "the authors' code gives the paper's value and ours does not ({detail}): a difference of ours; fix it, or name the option of ours that behaves as their code in the known deviation's `option`"
                    ));
                }
            }
        }
        c.authors = Some(AuthorsCell {
            value: v.clone(),
            agreement,
            detail,
        });
    }
    Ok(())
}

/// Whom the authors' value `v` of cell `c` agrees with, and the tests in words.
fn classify(
    spec: &ReportedSpec,
    alpha: f64,
    c: &CellCheck,
    v: &AuthorsValue,
) -> (Option<Agreement>, String) {
    let AuthorsValue::Ran {
        mean, std, reps, ..
    } = v
    else {
        return (None, String::new());
    };
    let (Some(paper), Some((ours, se, n))) = (c.paper, c.ours) else {
        return (None, String::new());
    };
    let ours_std = se * (n as f64).sqrt();
    let welch = welch_test((*mean, *std, *reps), (ours, ours_std, n), alpha);
    let with_us = match welch {
        Some((t, _, crit)) => t.abs() <= crit,
        None => *mean == ours,
    };
    // Their mean held to the cell's own tolerance (one repetition: our spread stands in
    // for theirs, as in the Welch test).
    let their_std = if *reps >= 2 { *std } else { ours_std };
    let their_se = their_std / (*reps as f64).sqrt();
    let allowed = spec
        .tolerance
        .allowed(their_se, their_std, *reps, paper, c.paper_halfwidth);
    let gap = (mean - paper).abs();
    let with_paper = gap.is_finite() && gap <= allowed;
    let agreement = match (with_us, with_paper) {
        (true, false) => Agreement::WithUs,
        (false, true) => Agreement::WithPaper,
        (true, true) => Agreement::Both,
        (false, false) => Agreement::Neither,
    };
    let welch_text = match welch {
        Some((t, df, crit)) => {
            format!("vs ours: Welch t = {t:.2}, df {df:.1}, |t| ≤ {crit:.2} agrees")
        }
        None => "vs ours: no spread to test".to_string(),
    };
    let detail = format!(
        "authors' code {} (n={reps}); {welch_text}; vs the paper: |{} − {}| = {} against a tolerance of {}",
        crate::report::format_sci(*mean),
        crate::report::format_sci(*mean),
        crate::report::format_sci(paper),
        crate::report::format_sci(gap),
        crate::report::format_sci(allowed),
    );
    (Some(agreement), detail)
}
