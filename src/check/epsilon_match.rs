//! Which of our ε fits each reported table best (issue 10 item 5; method card
//! `docs/methods/histoftree.md` §10 and §12 item 2).
//!
//! The HistOfTree paper does not print the ε of its three real-data tables; the shared
//! CSV carries an inferred ε per table (C3a 0.5, T1 1, C3b 2, [G]). Rather than assume
//! that mapping, `check` scores every ε we ran against every reported table: a table's
//! cells (data set × method) are compared with our cells of the same data set and method
//! at ε, and the score is the median over the cells both have of |ln(ours / paper)| — a
//! relative distance that ignores scale, symmetric in over- and under-estimation, and
//! robust to a few wild cells (Hist's 1e4–9e5 ratios, the paper's copied values). The ε
//! with the lowest score is the table's best match; one summary line per table says it,
//! beside all scores and the ε the file states.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::reported_rows::{method_key, ratio_rows};
use super::{eps_text, CheckError, CsvTable, SelectedRow};
use crate::spec::reported::{DatasetNames, ReportedSpec};

/// One reported cell of a table whose ε is to be inferred.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedCell {
    /// The table (group) it belongs to, e.g. `T1`.
    pub group: String,
    /// Our data set name.
    pub dataset: String,
    /// Our method label.
    pub method: String,
    /// The ε the file states for the table (an inference itself for HistOfTree).
    pub stated: Option<f64>,
    /// The paper's value (finite, > 0 for a ratio to be taken).
    pub paper: f64,
}

/// The score of one of our ε against one reported table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpsilonScore {
    /// Our ε.
    pub epsilon: f64,
    /// Median over the compared cells of |ln(ours / paper)|; NaN with no cell.
    pub score: f64,
    /// How many cells were compared (both values finite and > 0).
    pub cells: usize,
}

/// The ε inference of one reported table.
#[derive(Debug, Clone, PartialEq)]
pub struct EpsilonMatch {
    /// The table, e.g. `T1`.
    pub group: String,
    /// The ε the reported file states for it (the first stated value met), if any.
    pub stated: Option<f64>,
    /// One score per ε of ours, in the order given.
    pub scores: Vec<EpsilonScore>,
    /// The ε with the lowest score (the first on ties); `None` when no ε had a cell.
    pub best: Option<f64>,
    /// The ε the spec reads the table at (`reported.epsilon_reading`), when it names
    /// one: then agreement is judged against it rather than against the file's ε.
    pub read: Option<f64>,
    /// Whether a disagreement with the stated (or read) ε is a regression
    /// (`require_stated`).
    pub required: bool,
}

impl EpsilonMatch {
    /// Whether the best ε is the one the table is read at (`read`, else the stated one;
    /// `None` when either is unknown).
    pub fn agrees(&self) -> Option<bool> {
        Some(self.best? == self.read.or(self.stated)?)
    }

    /// Whether this is a regression: the stated ε is required and the best differs.
    pub fn regressed(&self) -> bool {
        self.required && self.agrees() == Some(false)
    }

    /// The summary line of `check`, e.g.
    /// `ε match T1: best ε = 1 (stated 1, agrees); median |ln(ours/paper)|: ε 0.5: 0.412 (60 cells), ε 1: 0.081 (60 cells), …`.
    pub fn summary_line(&self) -> String {
        let best = self
            .best
            .map(|e| format!("best ε = {}", eps_text(e)))
            .unwrap_or_else(|| "no ε of ours has a cell of this table".to_string());
        let verdict = match self.agrees() {
            Some(true) => ", agrees",
            Some(false) => ", DISAGREES",
            None => "",
        };
        let stated = match (self.stated, self.read) {
            (Some(s), Some(r)) => format!(
                " (file states {}, read at {}{verdict})",
                eps_text(s),
                eps_text(r)
            ),
            (None, Some(r)) => format!(" (read at {}{verdict})", eps_text(r)),
            (Some(s), None) => format!(" (stated {}{verdict})", eps_text(s)),
            (None, None) => " (no stated ε)".to_string(),
        };
        let scores = self
            .scores
            .iter()
            .map(|s| {
                format!(
                    "ε {}: {:.3} ({} cells)",
                    eps_text(s.epsilon),
                    s.score,
                    s.cells
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "ε match {}: {best}{stated}; median |ln(ours/paper)|: {scores}",
            self.group
        )
    }
}

/// Median of `v` (sorted here); NaN when empty.
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Scores every ε of `epsilons` against every table of `cells` (tables in order of first
/// appearance) with our values `ours[(data set, method, ε text)]` (ε as [`eps_text`]
/// writes it). A cell counts when both values are finite and > 0 (a ratio's log must
/// exist). Pure; see the module docs for the score.
pub fn match_epsilons(
    cells: &[GroupedCell],
    ours: &HashMap<(String, String, String), f64>,
    epsilons: &[f64],
) -> Vec<EpsilonMatch> {
    let mut groups: Vec<EpsilonMatch> = Vec::new();
    let mut members: BTreeMap<String, Vec<&GroupedCell>> = BTreeMap::new();
    for c in cells {
        if !members.contains_key(&c.group) {
            groups.push(EpsilonMatch {
                group: c.group.clone(),
                stated: None,
                read: None,
                scores: Vec::new(),
                best: None,
                required: false,
            });
        }
        members.entry(c.group.clone()).or_default().push(c);
    }
    for g in &mut groups {
        let cells = &members[&g.group];
        g.stated = cells.iter().find_map(|c| c.stated);
        for &e in epsilons {
            let et = eps_text(e);
            let logs: Vec<f64> = cells
                .iter()
                .filter_map(|c| {
                    let o = *ours.get(&(c.dataset.clone(), c.method.clone(), et.clone()))?;
                    let ok = |v: f64| v.is_finite() && v > 0.0;
                    (ok(o) && ok(c.paper)).then(|| (o / c.paper).ln().abs())
                })
                .collect();
            g.scores.push(EpsilonScore {
                epsilon: e,
                cells: logs.len(),
                score: median(logs),
            });
        }
        g.best = g
            .scores
            .iter()
            .filter(|s| s.cells > 0)
            .min_by(|a, b| a.score.total_cmp(&b.score))
            .map(|s| s.epsilon);
    }
    groups
}

/// How a grouped reported file is read: the table column, the columns whose non-empty
/// fields joined by `/` make the method key, and the map from those keys to our labels.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedFile<'a> {
    /// The column naming the table of a row, e.g. `table`.
    pub group_column: &'a str,
    /// The columns making the method key, e.g. `[setting, method, partition]` →
    /// `aligned/HistOfTree/ME`, `personalized/Hist`.
    pub method_columns: &'a [String],
    /// Method key → our label; rows whose key is absent are left out.
    pub methods: &'a BTreeMap<String, String>,
    /// The column of the values.
    pub value_column: &'a str,
}

/// Reads the cells of a grouped reported file (e.g. `histoftree_tables.csv`) with our
/// data set names from `dataset_of` (the reported name → ours) and our method labels from
/// `how.methods`. Values `""`, `-`, `−`, `—` are left out; the `epsilon` column, if
/// present, is the stated ε.
///
/// # Errors
/// [`CheckError::Table`] ([`super::CsvError`]) (with file, line and column) for unreadable files.
pub fn read_grouped_cells(
    path: &Path,
    how: &GroupedFile,
    dataset_of: impl Fn(&str) -> String,
) -> Result<Vec<GroupedCell>, CheckError> {
    let mut required = vec!["dataset", how.group_column, how.value_column];
    required.extend(how.method_columns.iter().map(String::as_str));
    let t = CsvTable::read(path, &required)?;
    let has_eps = t.columns.contains_key("epsilon");
    let mut out = Vec::new();
    for (line, r) in &t.records {
        let raw = t.get(r, how.value_column);
        if matches!(raw, "" | "-" | "−" | "—") {
            continue;
        }
        let key = method_key(&t, r, how.method_columns);
        let Some(method) = how.methods.get(&key) else {
            continue;
        };
        out.push(GroupedCell {
            group: t.text(*line, r, how.group_column)?,
            dataset: dataset_of(&t.text(*line, r, "dataset")?),
            method: method.clone(),
            stated: if has_eps {
                t.epsilon(*line, r, "epsilon")?
            } else {
                None
            },
            paper: t.f64(*line, r, how.value_column)?,
        });
    }
    Ok(out)
}

/// Our values for [`match_epsilons`] from selected rows: each private row's mean, or with
/// `ratio_to` its ratio as [`ratio_rows`] takes it (the `ratio_to` row at the same ε, else
/// the non-private one, of the same data set); rows without a denominator are left out.
pub fn our_values(
    selected: &[SelectedRow],
    ratio_to: Option<&str>,
) -> HashMap<(String, String, String), f64> {
    let ratios;
    let rows = match ratio_to {
        Some(d) => {
            ratios = ratio_rows(selected, d);
            &ratios[..]
        }
        None => selected,
    };
    rows.iter()
        .filter_map(|r| {
            let e = r.epsilon?;
            Some(((r.dataset.clone(), r.method.clone(), eps_text(e)), r.mean))
        })
        .collect()
}

/// The ε inference of a spec's `reported.epsilon_match` (empty without one): the file's
/// cells (data set names mapped as `spec.dataset_names` says, through `abbreviations`)
/// against our `selected` rows at every ε they have, as [`match_epsilons`] scores them,
/// with `required` set from `require_stated`.
///
/// # Errors
/// The errors of [`read_grouped_cells`] (file, line, column); [`CheckError::Invalid`]
/// naming `reported.epsilon_match.method_columns` or `.methods` when empty.
pub fn epsilon_matches(
    spec: &ReportedSpec,
    spec_dir: &Path,
    selected: &[SelectedRow],
    abbreviations: &HashMap<String, String>,
) -> Result<Vec<EpsilonMatch>, CheckError> {
    let Some(m) = &spec.epsilon_match else {
        return Ok(Vec::new());
    };
    let method_columns = m.method_columns.as_ref().unwrap_or(&spec.method_columns);
    let Some(methods) = m.methods.as_ref().or(spec.methods.as_ref()) else {
        return Err(CheckError::Invalid {
            field: "reported.epsilon_match.methods".to_string(),
            message: "is missing here and in `reported.methods`; map each method key of the file to our method label".to_string(),
        });
    };
    for (field, empty) in [
        ("method_columns", method_columns.is_empty()),
        ("methods", methods.is_empty()),
    ] {
        if empty {
            return Err(CheckError::Invalid {
                field: format!("reported.epsilon_match.{field}"),
                message: "is empty; name the columns that make the method key and map each key to our method label".to_string(),
            });
        }
    }
    let file = match (&m.file, spec.files.as_slice()) {
        (Some(f), _) => f,
        (None, [f]) => f,
        (None, _) => {
            return Err(CheckError::Invalid {
                field: "reported.epsilon_match.file".to_string(),
                message: format!(
                    "is missing and `reported.files` lists {} files; name the file whose tables' ε are inferred",
                    spec.files.len()
                ),
            })
        }
    };
    let how = GroupedFile {
        group_column: &m.group_column,
        method_columns,
        methods,
        value_column: m.value_column.as_deref().unwrap_or(&spec.value_column),
    };
    let cells = read_grouped_cells(&spec_dir.join(file), &how, |d| match spec.dataset_names {
        DatasetNames::Abbreviation => abbreviations
            .get(d)
            .cloned()
            .unwrap_or_else(|| d.to_string()),
        DatasetNames::Name => d.to_string(),
    })?;
    let mut epsilons: Vec<f64> = selected.iter().filter_map(|r| r.epsilon).collect();
    epsilons.sort_by(f64::total_cmp);
    epsilons.dedup();
    let ours = our_values(selected, m.ratio_to.as_deref().or(spec.ratio_to()));
    let mut matches = match_epsilons(&cells, &ours, &epsilons);
    for g in &mut matches {
        g.required = m.require_stated;
        // The reading names tables by its own column: it applies when that is the
        // column grouping the cells here.
        g.read = spec
            .epsilon_reading
            .as_ref()
            .filter(|r| r.column == m.group_column)
            .and_then(|r| r.epsilons.get(&g.group).copied());
    }
    Ok(matches)
}
