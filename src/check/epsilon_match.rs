//! Which of our ε fits each reported table best (method card
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
//!
//! The same score is taken per method ([`MethodMatch`]): where the ε a table's cells are
//! compared at is known (the spec's `reported.epsilon_reading`, or the ε the file prints
//! for the table), a method whose cells fit another ε of ours better than that one, by
//! more than the score's own noise ([`method_margin`]), is a regression unless the spec
//! lists it in `epsilon_match.known_methods` with its measured gap and a reason. A file
//! whose ε is printed per row (LPCT's Table 2) is scored with `group_column: epsilon`:
//! one table per printed ε, each compared at its own ε.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::reported_rows::{method_key, ratio_rows};
use super::{eps_text, CheckError, CsvTable, SelectedRow, Verdict};
use crate::spec::reported::{DatasetNames, KnownEpsilonGap, ReportedSpec};

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
    /// The same score per method of the table, judged at the read (else stated) ε; empty
    /// when that ε is unknown ([`judge_methods`]).
    pub methods: Vec<MethodMatch>,
}

/// How well one method's cells of a reported table fit each ε of ours, judged at the ε the
/// table is compared at.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodMatch {
    /// Our method label.
    pub method: String,
    /// The ε the table's cells are compared at (`reported.epsilon_reading`, else the ε
    /// the file prints for the table).
    pub at: f64,
    /// One score per ε of ours (median over the method's cells of |ln(ours / paper)|).
    pub scores: Vec<EpsilonScore>,
    /// The ε with the lowest score (`at` on ties).
    pub best: f64,
    /// Score at `at` − score at `best`, in |ln| units (≥ 0).
    pub gap: f64,
    /// The largest gap that is noise ([`method_margin`]), in |ln| units.
    pub margin: f64,
    /// `ok` (gap ≤ margin), `known deviation` (a `known_methods` entry's `max_gap` holds
    /// the gap) or `regression`.
    pub verdict: Verdict,
}

impl MethodMatch {
    /// One line, e.g. `ε match T1, ParDT A: read at 2 (score 0.091), best ε 1 (0.030), gap
    /// 0.061 ≤ margin 0.170: ok`.
    pub fn line(&self, group: &str) -> String {
        let at = |e: f64| {
            self.scores
                .iter()
                .find(|s| s.epsilon == e)
                .map_or(f64::NAN, |s| s.score)
        };
        let verdict = match &self.verdict {
            Verdict::Ok => "ok".to_string(),
            Verdict::KnownDeviation(why) => format!("known deviation: {why}"),
            v => v.name().to_string(),
        };
        let cmp = if self.gap > self.margin { ">" } else { "≤" };
        format!(
            "ε match {group}, {}: read at {} (score {:.3}), best ε {} ({:.3}), gap {:.3} {cmp} margin {:.3}: {verdict}",
            self.method,
            eps_text(self.at),
            at(self.at),
            eps_text(self.best),
            at(self.best),
            self.gap,
            self.margin
        )
    }
}

/// How many standard deviations of the gap's noise a gap must exceed to be a regression
/// (one-sided, about 2 % of honest gaps beyond it under normal noise).
pub const MARGIN_SDS: f64 = 2.0;

/// The largest score gap (|ln| units) between a method's read ε and its best ε that is the
/// noise of our means: [`MARGIN_SDS`] × √(s_at² + s_best²), where s_e is the median over
/// the method's cells of the relative standard error of our mean at ε e (std / (mean
/// √reps), the standard deviation of ln(mean) to first order: a median of |ln(ours /
/// paper)| moves by about that much when our means are redrawn). NaN inputs (no standard
/// error) give a NaN margin, which no gap exceeds.
pub fn method_margin(s_at: f64, s_best: f64) -> f64 {
    MARGIN_SDS * s_at.hypot(s_best)
}

/// The verdict of a method's gap: ok within `margin`; beyond it, a known deviation when
/// `known` (the spec's entry for this table and method) allows the gap, else a regression.
pub fn method_verdict(gap: f64, margin: f64, known: Option<&KnownEpsilonGap>) -> Verdict {
    let beyond = gap > margin;
    if !beyond {
        return Verdict::Ok;
    }
    match known {
        Some(k) if gap <= k.max_gap => Verdict::KnownDeviation(k.reason.clone()),
        _ => Verdict::Regression,
    }
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

    /// How many verdicts of this table regressed: the table's own ([`Self::regressed`])
    /// and its methods' ([`MethodMatch`]).
    pub fn regressions(&self) -> usize {
        usize::from(self.regressed())
            + self
                .methods
                .iter()
                .filter(|m| m.verdict == Verdict::Regression)
                .count()
    }

    /// The summary line of `check`, e.g.
    /// `ε match T1: best ε = 1 (stated 1, agrees); median |ln(ours/paper)|: ε 0.5: 0.412 (60 cells), ε 1: 0.081 (60 cells), …`,
    /// ending with the count of each method verdict when the methods were judged.
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
        let methods = if self.methods.is_empty() {
            String::new()
        } else {
            let count =
                |v: fn(&Verdict) -> bool| self.methods.iter().filter(|m| v(&m.verdict)).count();
            format!(
                "; per method at {}: {} ok, {} known deviations, {} regressions",
                self.methods
                    .first()
                    .map_or(String::new(), |m| eps_text(m.at)),
                count(|v| *v == Verdict::Ok),
                count(|v| matches!(v, Verdict::KnownDeviation(_))),
                count(|v| *v == Verdict::Regression)
            )
        };
        format!(
            "ε match {}: {best}{stated}; median |ln(ours/paper)|: {scores}{methods}",
            self.group
        )
    }

    /// The lines of the methods whose verdict is not ok ([`MethodMatch::line`]).
    pub fn method_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.methods
            .iter()
            .filter(|m| m.verdict != Verdict::Ok)
            .map(|m| m.line(&self.group))
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
                methods: Vec::new(),
            });
        }
        members.entry(c.group.clone()).or_default().push(c);
    }
    for g in &mut groups {
        let cells = &members[&g.group];
        g.stated = cells.iter().find_map(|c| c.stated);
        g.scores = epsilons.iter().map(|&e| score(cells, ours, e)).collect();
        g.best = best(&g.scores, None);
    }
    groups
}

/// The key of our values: (data set, method label, ε as [`eps_text`] writes it).
pub type OursKey = (String, String, String);

/// The key of `ours` for a cell at ε.
fn key(c: &GroupedCell, e: f64) -> OursKey {
    (c.dataset.clone(), c.method.clone(), eps_text(e))
}

/// The score of ε against `cells`: the median of |ln(ours / paper)| over the cells whose
/// two values are finite and > 0.
fn score(cells: &[&GroupedCell], ours: &HashMap<OursKey, f64>, e: f64) -> EpsilonScore {
    let logs: Vec<f64> = cells
        .iter()
        .filter_map(|c| {
            let o = *ours.get(&key(c, e))?;
            let ok = |v: f64| v.is_finite() && v > 0.0;
            (ok(o) && ok(c.paper)).then(|| (o / c.paper).ln().abs())
        })
        .collect();
    EpsilonScore {
        epsilon: e,
        cells: logs.len(),
        score: median(logs),
    }
}

/// The ε of the lowest score among those with a cell; on ties `prefer` if it is among
/// them, else the first.
fn best(scores: &[EpsilonScore], prefer: Option<f64>) -> Option<f64> {
    let scored = scores.iter().filter(|s| s.cells > 0);
    let low = scored.clone().map(|s| s.score).min_by(f64::total_cmp)?;
    let tied = || scored.clone().filter(|s| s.score == low);
    tied()
        .find(|s| Some(s.epsilon) == prefer)
        .or_else(|| tied().next())
        .map(|s| s.epsilon)
}

/// Judges each method of `table` (its cells among `cells`) at the ε `at` the table is
/// compared at: scores as [`match_epsilons`] takes them, the gap between the score at `at`
/// and the best one, the margin of [`method_margin`] from the relative standard errors
/// `rse` (keyed as `ours`) and the verdict of [`method_verdict`] with the `known` entries
/// naming this table. Methods are in order of first appearance; a method with no cell at
/// `at` is left out. Pure.
pub fn judge_methods(
    table: &str,
    cells: &[GroupedCell],
    ours: &HashMap<OursKey, f64>,
    rse: &HashMap<OursKey, f64>,
    epsilons: &[f64],
    at: f64,
    known: &[KnownEpsilonGap],
) -> Vec<MethodMatch> {
    let mut order: Vec<&str> = Vec::new();
    let mut members: HashMap<&str, Vec<&GroupedCell>> = HashMap::new();
    for c in cells.iter().filter(|c| c.group == table) {
        if !members.contains_key(c.method.as_str()) {
            order.push(&c.method);
        }
        members.entry(&c.method).or_default().push(c);
    }
    order
        .into_iter()
        .filter_map(|method| {
            let cells = &members[method];
            let scores: Vec<EpsilonScore> =
                epsilons.iter().map(|&e| score(cells, ours, e)).collect();
            let at_score = scores
                .iter()
                .find(|s| s.epsilon == at && s.cells > 0)?
                .score;
            let best = best(&scores, Some(at))?;
            let best_score = scores.iter().find(|s| s.epsilon == best)?.score;
            let spread = |e: f64| {
                median(
                    cells
                        .iter()
                        .filter_map(|c| rse.get(&key(c, e)).copied())
                        .collect(),
                )
            };
            let margin = method_margin(spread(at), spread(best));
            let gap = at_score - best_score;
            let entry = known
                .iter()
                .find(|k| k.table == table && k.method == method);
            Some(MethodMatch {
                method: method.to_string(),
                at,
                scores,
                best,
                gap,
                margin,
                verdict: method_verdict(gap, margin, entry),
            })
        })
        .collect()
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
    /// Method key → our label; rows whose key is absent are left out. `None`: the key is
    /// the label.
    pub methods: Option<&'a BTreeMap<String, String>>,
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
        let method = match how.methods {
            Some(map) => match map.get(&key) {
                Some(label) => label.clone(),
                None => continue,
            },
            None => key,
        };
        out.push(GroupedCell {
            group: t.text(*line, r, how.group_column)?,
            dataset: dataset_of(&t.text(*line, r, "dataset")?),
            method,
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
    keyed(rows, |r| r.mean)
}

/// The relative standard error of each private row's mean, std / (mean √reps) (the same
/// for a ratio to another method's mean, whose own noise is not propagated), keyed as
/// [`our_values`]; rows with mean 0 or no repetition give NaN.
pub fn relative_errors(selected: &[SelectedRow]) -> HashMap<OursKey, f64> {
    keyed(selected, |r| r.std_error() / r.mean.abs())
}

/// `value` of each private row, keyed by (data set, method, ε text).
fn keyed(rows: &[SelectedRow], value: impl Fn(&SelectedRow) -> f64) -> HashMap<OursKey, f64> {
    rows.iter()
        .filter_map(|r| {
            let e = r.epsilon?;
            Some(((r.dataset.clone(), r.method.clone(), eps_text(e)), value(r)))
        })
        .collect()
}

/// The ε inference of a spec's `reported.epsilon_match` (empty without one): the file's
/// cells (data set names mapped as `spec.dataset_names` says, through `abbreviations`)
/// against our `selected` rows at every ε they have, as [`match_epsilons`] scores them,
/// with `required` set from `require_stated` and each method judged at the table's read
/// (else stated) ε ([`judge_methods`], with `known_methods`).
///
/// # Errors
/// The errors of [`read_grouped_cells`] (file, line, column); [`CheckError::Invalid`]
/// naming `reported.epsilon_match.method_columns` or `.methods` when empty (an absent
/// `methods` map, here and in the section, reads the method key as our label).
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
    let methods = m.methods.as_ref().or(spec.methods.as_ref());
    for (field, empty) in [
        ("method_columns", method_columns.is_empty()),
        ("methods", methods.is_some_and(BTreeMap::is_empty)),
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
    let rse = relative_errors(selected);
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
        if let Some(at) = g.read.or(g.stated) {
            g.methods = judge_methods(
                &g.group,
                &cells,
                &ours,
                &rse,
                &epsilons,
                at,
                &m.known_methods,
            );
        }
    }
    Ok(matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(max_gap: f64) -> KnownEpsilonGap {
        KnownEpsilonGap {
            table: "C3a".into(),
            method: "KRR A".into(),
            max_gap,
            reason: "measured".into(),
        }
    }

    #[test]
    fn a_gap_beyond_two_noise_deviations_regresses_unless_a_known_entry_holds_it() {
        // Relative standard errors of 0.03 and 0.04 at the read and the best ε: the gap's
        // noise is √(0.03² + 0.04²) = 0.05, the margin twice that.
        let margin = method_margin(0.03, 0.04);
        assert!((margin - 0.1).abs() < 1e-12, "{margin}");
        assert_eq!(method_verdict(0.0, margin, None), Verdict::Ok);
        assert_eq!(method_verdict(0.099, margin, None), Verdict::Ok);
        assert_eq!(method_verdict(0.101, margin, None), Verdict::Regression);
        assert_eq!(
            method_verdict(0.3, margin, Some(&known(0.35))),
            Verdict::KnownDeviation("measured".into())
        );
        assert_eq!(
            method_verdict(0.4, margin, Some(&known(0.35))),
            Verdict::Regression
        );
        // No standard error (one repetition): nothing to measure the gap against.
        assert_eq!(
            method_verdict(1.0, method_margin(f64::NAN, 0.1), None),
            Verdict::Ok
        );
    }

    #[test]
    fn each_method_is_judged_at_the_read_epsilon() {
        let cell = |d: &str, m: &str, paper: f64| GroupedCell {
            group: "T1".into(),
            dataset: d.into(),
            method: m.into(),
            stated: Some(1.0),
            paper,
        };
        let cells = vec![cell("a", "good", 1.0), cell("a", "off", 1.0)];
        let mut ours = HashMap::new();
        let mut rse = HashMap::new();
        for (m, at1, at2) in [("good", 1.0, 2.0), ("off", 2.0, 1.0)] {
            for (e, v) in [(1.0, at1), (2.0, at2)] {
                ours.insert(("a".into(), m.into(), eps_text(e)), v);
                rse.insert(("a".into(), m.into(), eps_text(e)), 0.05);
            }
        }
        let judged = judge_methods("T1", &cells, &ours, &rse, &[1.0, 2.0], 1.0, &[]);
        let verdicts: Vec<(&str, f64, Verdict)> = judged
            .iter()
            .map(|m| (m.method.as_str(), m.best, m.verdict.clone()))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("good", 1.0, Verdict::Ok),
                ("off", 2.0, Verdict::Regression)
            ]
        );
        assert!((judged[1].gap - 2f64.ln()).abs() < 1e-12);
        assert!(judged[1]
            .line("T1")
            .starts_with("ε match T1, off: read at 1 (score 0.693), best ε 2 (0.000), gap 0.693 > margin 0.141: regression"));
    }
}
