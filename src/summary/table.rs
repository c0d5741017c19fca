//! One table of a spec (`tables:`), built from the selected grid points: the data rows
//! with their marks, the summary rows, the notes and the caption.
//!
//! Two marking conventions ([`MarkStyle`]): LPDT Tables 2/5 (`bold_best`: best bold,
//! second underlined, `*` by the spec's significance rule; `docs/methods/lpdt.md` §8.3) and LPCT
//! Table 2 (`star_best`: `*` on the best mean and its ties at the printed precision, bold
//! on every method not significantly worse than the best; `docs/methods/lpct.md` §10.5). Summary rows
//! ("Rank Sum", "No. 1"; `docs/methods/lpct.md` §10.6) are computed per ε block over the compared
//! methods. [`table_rows`] is the pure part (selected results in, rows out); [`build_table`]
//! adds what comes from the experiment (notes on selection, privacy and skipped methods).
//!
//! This module holds the selected results a table reads and [`build_table`]; `rows`
//! holds [`table_rows`] (cells, marks, summary rows) and `notes` the notes and warnings
//! that explain them.

mod notes;
mod rows;

pub use notes::{repetition_warnings, too_few_repetitions};
pub use rows::table_rows;

use crate::data::Task;
use crate::report::{ColumnGroup, Legend, Table};
use crate::run::seeds::epsilon_text;
use crate::spec::raw::{
    MarkStyle, RatioOf, RowLabels, Selection, TableBlock, TableEntry, TableValue,
};
use crate::spec::tables::read_reported;
pub use crate::spec::tables::ReportedCells;
use crate::spec::Experiment;
use crate::stats::{summarize, SignificanceRule, Summary};
use notes::{
    data_alpha, interval_notes, rule_note, short_note, star_best_note, star_significant_note,
    summary_notes, test_level,
};
use std::collections::BTreeMap;

/// The selected grid point of one data set × method × ε.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The grid point (`name=value;…`), or for per-repetition selections the modal one
    /// with its count.
    pub params: String,
    /// Summary of `values` over repetitions.
    pub summary: Summary,
    /// Repetition → test metric of the selected grid point (MSE or accuracy).
    pub values: BTreeMap<usize, f64>,
    /// Repetition → seconds of one fit + predict of the grid point that gave that
    /// repetition's value (runs.csv `seconds`); empty when not known.
    pub seconds: BTreeMap<usize, f64>,
}

impl Selected {
    /// A selection from its grid point and per-repetition values (summarised here).
    pub fn new(params: impl Into<String>, values: BTreeMap<usize, f64>) -> Selected {
        Selected {
            params: params.into(),
            summary: summarize(&values.values().copied().collect::<Vec<_>>()),
            values,
            seconds: BTreeMap::new(),
        }
    }

    /// The same selection with the seconds of every repetition.
    pub fn with_seconds(mut self, seconds: BTreeMap<usize, f64>) -> Selected {
        self.seconds = seconds;
        self
    }
}

/// Selected grid points by (data set, method label, ε text — `""` for non-private
/// methods, else as [`epsilon_text`] writes it).
pub type SelectedMap = BTreeMap<(String, String, String), Selected>;

/// What [`table_rows`] reads besides the table entry.
#[derive(Debug, Clone, Copy)]
pub struct TableData<'a> {
    /// One row per data set, in order: (data set name as in `selected`, row label).
    pub datasets: &'a [(String, String)],
    /// The selected grid points.
    pub selected: &'a SelectedMap,
    /// The task of the data sets: it decides the metric's direction (higher accuracy,
    /// lower MSE is better), the number format and the worst value a missing result
    /// counts as in rank sums.
    pub task: Task,
    /// The spec's `significance` rule: the `*` of `bold_best`; for `star_best`, the level
    /// of its `not_worse_than_best` bold (absent: [`DEFAULT_ALPHA`](crate::stats::DEFAULT_ALPHA)).
    pub significance: Option<SignificanceRule>,
    /// The paper's values to print beside ours (the table's `reported:` file), as
    /// [`read_reported`] returns them.
    pub reported: Option<&'a ReportedCells>,
}

/// The label of the column group of block `block` in ε block `e`: `ε = 1`, or
/// `ε = 1 · Aligned` for a labelled block.
fn group_label(e: f64, block: &TableBlock) -> String {
    if block.label.is_empty() {
        format!("ε = {}", epsilon_text(e))
    } else {
        format!("ε = {} · {}", epsilon_text(e), block.label)
    }
}

/// Table `t` of the experiment under selection `mode`: [`table_rows`], then the notes
/// (what the numbers are and how grid points were selected, the marks, the summary rows,
/// privacy, methods not run) and the caption (the spec's, with the selection appended).
///
/// # Errors
/// A message naming the table's `reported:` file when it cannot be read.
pub fn build_table(
    exp: &Experiment,
    t: &TableEntry,
    selected: &SelectedMap,
    mode: Selection,
) -> Result<Table, String> {
    let (task, lower, metric) = task_direction(exp);
    let datasets: Vec<(String, String)> = exp
        .datasets
        .iter()
        .map(|d| {
            let label = match t.row_labels {
                RowLabels::Abbreviation => d.row_label.clone(),
                RowLabels::Name => d.name.clone(),
            };
            (d.name.clone(), label)
        })
        .collect();
    let reported = match &t.reported {
        Some(r) => {
            let dir = exp.path.parent().unwrap_or(std::path::Path::new(""));
            Some(
                read_reported(&dir.join(&r.file), &r.column)
                    .map_err(|e| format!("table {}: reported: {e}", t.name))?,
            )
        }
        None => None,
    };
    let (rows, summary_rows) = table_rows(
        t,
        &TableData {
            datasets: &datasets,
            selected,
            task,
            significance: exp.spec.significance,
            reported: reported.as_ref(),
        },
    );
    let mut groups = Vec::new();
    if !t.non_private.is_empty() {
        groups.push(ColumnGroup {
            label: String::new(),
            epsilon: None,
            block: String::new(),
            columns: t.non_private.clone(),
        });
    }
    let blocks = t.column_blocks();
    for e in &t.epsilons {
        for blk in &blocks {
            groups.push(ColumnGroup {
                label: group_label(*e, blk),
                epsilon: Some(*e),
                block: blk.label.clone(),
                columns: blk.methods.clone(),
            });
        }
    }
    let reps = selected.values().map(|s| s.summary.n).max().unwrap_or(0);
    let how = match mode {
        Selection::BestMean => {
            let paper = t
                .oracle_note
                .as_ref()
                .map(|n| format!(", {}", n.trim()))
                .unwrap_or_default();
            format!("Oracle selection (best_mean): for each data set, method and ε the grid point with the best mean test {metric} over repetitions{paper}.")
        }
        Selection::Cv => format!("Cross-validated selection (cv): in each repetition the grid point with the best mean held-out {metric} over {} folds of the private training data, each fold fitted with fresh privatization; its fit on the whole private training data is reported (LPDT paper §4; the folds' privacy cost is not accounted, as in the paper).", exp.spec.tuning.cv_folds),
        Selection::PrivateValidation => format!("Private validation (private_validation): in each repetition {}% of the private training users are held out and report their clipped squared error under every grid point's model with Laplace noise of scale R²·k/ε; the grid point with the lowest mean noisy error is reported, fitted on the other users (LPDT paper App. D.2, with basic composition where the paper uses advanced composition).", exp.spec.tuning.validation_share * 100.0),
        Selection::Public => format!("Public tuning (public): in each repetition {}% of the public sample is held out and the rest split in halves, a mock public sample and mock private users (at most as many as the real ones) released at ε as if private; each grid point is fitted on the mock split and scored without noise on the held-out public rows, and the grid point of least {metric} is reported, fitted on the real private users. The choice reads public rows only: each user releases once, at ε.", exp.spec.tuning.public_share * 100.0),
        Selection::UserSplit => format!("User split (user_split): in each repetition {}% of the private training users form a validation group and the rest are split into disjoint groups, one per candidate grid point ({}); each candidate is fitted on its group at ε and scored by its share of the validation group, each of whom releases one clipped loss with Laplace noise at ε; the candidate of least mean noisy loss is reported. Every user releases once, at ε (parallel composition); non-private methods are fitted on all training users and scored without noise.", exp.spec.tuning.validation_share * 100.0, exp.spec.tuning.candidates.map_or("every grid point".to_string(), |c| format!("{c} drawn at random from the grid"))),
        Selection::RandomStopping => { let st = exp.spec.tuning.stopping; format!("Random stopping (random_stopping): in each repetition {}% of the private training rows are held out for validation; a random number K of candidate runs (truncated negative binomial, η = {}, E[K] = {}), each a grid point drawn uniformly, fitted at ε/{} on the training rows and scored by its validation loss with Laplace noise at ε/{}; the run of least noisy loss is reported (Liu & Talwar 2019; Papernot & Steinke 2022, Theorem 2: the selection is ε-DP). Non-private methods are fitted once per grid point and scored without noise.", exp.spec.tuning.validation_share * 100.0, st.eta, st.mean, 2.0 + st.eta, 2.0 + st.eta) }
    };
    let what = match &t.value {
        TableValue::Metric => format!("Mean test {metric} over {reps} repetitions."),
        TableValue::RatioTo { ratio_to, of: RatioOf::Means } => format!("Mean test {metric} over {reps} repetitions divided by the mean test {metric} of {ratio_to} (its selected grid point) on the same data set; ratios below 10 with two decimals, below 100 with one, above with one significant digit (HistOfTree paper, method card docs/methods/histoftree.md §10)."),
        TableValue::RatioTo { ratio_to, of: RatioOf::PerRepetition } => format!("Mean over {reps} repetitions of the ratio of the test {metric} to the test {metric} of {ratio_to} (its selected grid point) on the same data set and repetition; ratios below 10 with two decimals, below 100 with one, above with one significant digit (HistOfTree paper, method card docs/methods/histoftree.md §10)."),
        TableValue::Seconds => format!("Mean wall-clock seconds of one fit + predict of the selected grid point over {reps} repetitions, on this machine: the fit on the private training data (the partition grown on public data, the users' releases, the estimator) and the prediction of the test set; the time to load and split the data is not counted (LPCT paper Table 3, method card docs/methods/lpct.md §10.8)."),
    };
    let mut notes = vec![format!("{what} {how}")];
    if let Some(r) = &t.reported {
        let label = r.label.as_deref().unwrap_or("the paper's value");
        notes.push(format!("In parentheses: {label}."));
    }
    let rule = exp.spec.significance.unwrap_or(SignificanceRule::None);
    let marks_note = match t.marks {
        _ if t.value == TableValue::Seconds => String::new(),
        MarkStyle::BoldBest => rule_note(&rule, lower),
        MarkStyle::StarBest => star_best_note(t, &rule, metric, lower),
        MarkStyle::StarSignificant => star_significant_note(data_alpha(exp), lower),
        MarkStyle::None => String::new(),
    };
    if !marks_note.is_empty() {
        notes.push(marks_note);
    }
    if let Some(alpha) = test_level(t, exp) {
        notes.extend(too_few_repetitions(reps, alpha));
    }
    notes.extend(interval_notes(t, exp));
    notes.extend(summary_notes(t, task, datasets.len()));
    let compared = t.compared_methods();
    let shown: Vec<&str> = compared.iter().map(String::as_str).collect();
    let all: Vec<&str> = t
        .non_private
        .iter()
        .map(String::as_str)
        .chain(shown.iter().copied())
        .collect();
    notes.extend(crate::run::accounting::model_notes(exp, &all));
    notes.extend(crate::run::accounting::privacy_notes(exp, &shown, mode));
    for u in &t.unavailable {
        notes.push(format!("—: {} not available: {}", u.label, u.reason));
    }
    for s in &exp.spec.skip {
        if compared.contains(&s.method) || t.non_private.contains(&s.method) {
            notes.push(format!(
                "—: {} not run on {}: {}",
                s.method,
                s.datasets.join(", "),
                s.reason
            ));
        }
    }
    let base = t.caption_sentence(&exp.spec.name);
    let selection = match mode {
        Selection::BestMean => {
            "oracle selection of grid points (best mean test metric over repetitions)"
        }
        Selection::Cv => "grid points selected by cross-validation on the private training data",
        Selection::PrivateValidation => {
            "grid points selected by private validation (held-out users report noisy errors)"
        }
        Selection::Public => "grid points selected on the public sample alone (no privacy cost)",
        Selection::UserSplit => {
            "grid points selected by a user split (each user releases once, at ε)"
        }
        Selection::RandomStopping => {
            "grid points selected by random stopping (the selection is ε-DP)"
        }
    };
    let mut caption = format!("{base} Selection: {selection}.");
    if reps != exp.spec.repetitions {
        caption.push_str(&format!(
            " Repetitions run: {reps} of the spec's {}.",
            exp.spec.repetitions
        ));
    }
    let short_notes = vec![short_note(
        t,
        exp,
        &rows,
        reps,
        !t.unavailable.is_empty() || notes.iter().any(|n| n.starts_with("—:")),
    )];
    Ok(Table {
        name: t.name.clone(),
        caption,
        row_header: "Data".into(),
        groups,
        rows,
        summary_rows,
        notes,
        legend: match t.marks {
            MarkStyle::BoldBest => Legend::BoldBestUnderlineSecond,
            MarkStyle::StarBest | MarkStyle::StarSignificant | MarkStyle::None => Legend::InNotes,
        },
        layout: t.layout,
        short_notes,
        notes_file: None,
    })
}

/// The experiment's task (the first data set's; regression without data sets), whether
/// lower values are better (MSE) or higher (accuracy), and the metric's name.
fn task_direction(exp: &Experiment) -> (Task, bool, &'static str) {
    let task = exp
        .datasets
        .first()
        .map(|d| d.task)
        .unwrap_or(Task::Regression);
    (task, task.lower_is_better(), task.metric_name())
}
