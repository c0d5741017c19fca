//! The paper's rank sums against ours (method card `docs/methods/histoftree.md` §10).
//!
//! The HistOfTree tables end with a rank-sum row per block (`histoftree_ranksum.csv`:
//! `table,epsilon,setting,method,partition,rank_sum`). `check` recomputes ours with the
//! spec table's own rules — [`table_rows`] on our selected rows, so the ratios, their
//! printed precision and the blocks' tie rules (`rank_ties: max` aligned, `min`
//! personalized) are exactly those of the rendered table — and compares each (table,
//! block, method) at the ε the file states for the table, within an absolute tolerance.
//!
//! ```yaml
//! reported:
//!   method_columns: [setting, method, partition]   # shared with the cells
//!   methods: {aligned/HistOfTree/ME: HistOfTree(ME) A, …}
//!   rank_sums:
//!     file: histoftree_ranksum.csv      # relative to this file
//!     table: histoftree                 # the name of a table of the spec (tables:), or
//!     # tables: {T1: T1, C3a: C3a, C3b: C3b}   # paper table → spec table
//!     block_column: setting             # default `setting`
//!     blocks: {aligned: Aligned, personalized: Personalized}   # → our block labels
//!     tolerance: {absolute: 6}
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::reported_rows::method_key;
use super::{eps_text, CheckError, CsvTable, SelectedRow};
use crate::data::Task;
use crate::spec::raw::{RatioOf, SummaryRow, TableEntry, TableValue};
use crate::spec::reported::{RankSumSpec, ReportedSpec, Verdict};
use crate::stats::Summary;
use crate::summary::table::{table_rows, Selected, SelectedMap, TableData};

/// One reported rank sum compared with ours.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSumCheck {
    /// The paper's table, e.g. `T1`.
    pub table: String,
    /// The ε the file states for it (where ours is read).
    pub epsilon: Option<f64>,
    /// Our block label.
    pub block: String,
    /// Our method label.
    pub method: String,
    /// The paper's rank sum.
    pub paper: f64,
    /// Ours; `None` when our table has no such ε, block or method.
    pub ours: Option<f64>,
    /// Ok within tolerance, a known deviation, a regression, or not run.
    pub verdict: Verdict,
    /// `<file name>:<line>`.
    pub source: String,
}

impl RankSumCheck {
    /// One line, e.g. `rank sum T1 (ε 1) Aligned HistOfTree(ME) A: paper 22, ours 24 — ok`.
    pub fn line(&self) -> String {
        let eps = self
            .epsilon
            .map(|e| format!(" (ε {})", eps_text(e)))
            .unwrap_or_default();
        let ours = self
            .ours
            .map(|o| format!("{o}"))
            .unwrap_or_else(|| "—".to_string());
        let block = if self.block.is_empty() {
            String::new()
        } else {
            format!(" {}", self.block)
        };
        format!(
            "rank sum {}{eps}{block} {}: paper {}, ours {ours} — {} ({})",
            self.table,
            self.method,
            self.paper,
            self.verdict.name(),
            self.source
        )
    }
}

/// Our rank sums of table `t` by (ε text, block label, method label), computed by
/// [`table_rows`] from `selected` (data sets `datasets`, in any order): ratios and printed
/// values as the table shows them, each block with its tie rule.
///
/// # Errors
/// [`CheckError::Invalid`] naming `field` when the table shows means of per-repetition
/// ratios (`value: {of: per_repetition}`), which `selected.csv` cannot give.
pub fn our_rank_sums(
    t: &TableEntry,
    datasets: &[String],
    selected: &[SelectedRow],
    task: Task,
    field: &str,
) -> Result<HashMap<(String, String, String), f64>, CheckError> {
    if let TableValue::RatioTo {
        of: RatioOf::PerRepetition,
        ..
    } = t.value
    {
        return Err(CheckError::Invalid {
            field: field.to_string(),
            message: format!(
                "table `{}` shows means of per-repetition ratios, which check cannot recompute from selected.csv; compare the rank sums of a table with `value: {{ratio_to: …, of: means}}`",
                t.name
            ),
        });
    }
    let mut map = SelectedMap::new();
    for r in selected {
        let summary = Summary {
            mean: r.mean,
            std: r.std,
            median: r.median,
            n: r.reps,
        };
        map.insert(
            (
                r.dataset.clone(),
                r.method.clone(),
                r.epsilon.map(eps_text).unwrap_or_default(),
            ),
            Selected {
                params: r.params.clone(),
                summary,
                values: BTreeMap::new(),
                seconds: BTreeMap::new(),
            },
        );
    }
    let rows: Vec<(String, String)> = datasets.iter().map(|d| (d.clone(), d.clone())).collect();
    let mut entry = t.clone();
    entry.summary_rows = vec![SummaryRow::RankSum];
    let (_, summary) = table_rows(
        &entry,
        &TableData {
            datasets: &rows,
            selected: &map,
            task,
            significance: None,
            reported: None,
        },
    );
    let cells = &summary[0].cells;
    let mut out = HashMap::new();
    let mut k = entry.non_private.len();
    for e in &entry.epsilons {
        for blk in entry.column_blocks() {
            for m in &blk.methods {
                if let Some(v) = cells.get(k).and_then(|c| c.value) {
                    out.insert((eps_text(*e), blk.label.clone(), m.clone()), v);
                }
                k += 1;
            }
        }
    }
    Ok(out)
}

/// Compares the rank sums of `reported.rank_sums` (file relative to `spec_dir`) with
/// `ours` (by spec table name, then as [`our_rank_sums`] keys them); empty without the
/// section. Rows whose method key is not in `reported.methods`, whose block is not in
/// `blocks`, or whose table `tables` does not map, are left out.
///
/// # Errors
/// [`CheckError::Invalid`] for an invalid section (empty `blocks`, a negative or
/// non-finite tolerance, an empty reason); the read errors of the file (file, line,
/// column).
pub fn compare_rank_sums(
    spec: &ReportedSpec,
    spec_dir: &Path,
    ours: &HashMap<String, HashMap<(String, String, String), f64>>,
) -> Result<Vec<RankSumCheck>, CheckError> {
    let Some(rs) = &spec.rank_sums else {
        return Ok(Vec::new());
    };
    rs.validate()?;
    let path = spec_dir.join(&rs.file);
    let mut required = vec![
        rs.group_column.as_str(),
        rs.block_column.as_str(),
        rs.value_column.as_str(),
        "epsilon",
    ];
    required.extend(spec.method_columns.iter().map(String::as_str));
    let t = CsvTable::read(&path, &required)?;
    let file_name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let mut out = Vec::new();
    for (line, r) in &t.records {
        let line = *line;
        let Some(method) = spec.method_label(&method_key(&t, r, &spec.method_columns)) else {
            continue;
        };
        let Some(block) = rs.blocks.get(t.get(r, &rs.block_column)) else {
            continue;
        };
        let table = t.text(line, r, &rs.group_column)?;
        let Some(spec_table) = rs.spec_table(&table) else {
            continue;
        };
        let epsilon = t.epsilon(line, r, "epsilon")?;
        // A table's ε read rather than printed (`reported.epsilon_reading`), as for its
        // cells: the reading names tables as this file's group column does.
        let epsilon = match (&spec.epsilon_reading, epsilon) {
            (Some(er), Some(e)) if er.column == rs.group_column => {
                Some(er.epsilons.get(&table).copied().unwrap_or(e))
            }
            (_, e) => e,
        };
        let paper = t.f64(line, r, &rs.value_column)?;
        let et = epsilon.map(eps_text).unwrap_or_default();
        let ours = ours
            .get(spec_table)
            .and_then(|o| o.get(&(et, block.clone(), method.clone())))
            .copied();
        let verdict = match ours {
            None => Verdict::NotRun,
            Some(o) if (o - paper).abs() <= rs.tolerance.absolute => Verdict::Ok,
            Some(o) => match rs
                .known_deviations
                .iter()
                .find(|k| k.datasets.is_none() && k.matches("", "", &method, epsilon))
            {
                Some(k) if k.band.contains(o, paper) => Verdict::KnownDeviation(k.note()),
                _ => Verdict::Regression,
            },
        };
        out.push(RankSumCheck {
            table,
            epsilon,
            block: block.clone(),
            method,
            paper,
            ours,
            verdict,
            source: format!("{file_name}:{line}"),
        });
    }
    Ok(out)
}

impl RankSumSpec {
    /// The spec table holding our rank sums for the paper's table `paper_table`.
    pub fn spec_table(&self, paper_table: &str) -> Option<&str> {
        match (&self.table, &self.tables) {
            (Some(t), _) => Some(t),
            (None, Some(m)) => m.get(paper_table).map(String::as_str),
            (None, None) => None,
        }
    }

    /// Every spec table named (`table`, or the values of `tables`), without repeats.
    pub fn spec_tables(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.table.iter().map(String::as_str).collect();
        for t in self.tables.iter().flat_map(|m| m.values()) {
            if !out.contains(&t.as_str()) {
                out.push(t);
            }
        }
        out
    }

    /// Checks the section: exactly one of `table` and `tables` (non-empty names),
    /// `blocks` non-empty, the tolerance finite and ≥ 0, known deviations with a reason
    /// and without `datasets`.
    ///
    /// # Errors
    /// [`CheckError::Invalid`] naming `reported.rank_sums.<field>`.
    pub fn validate(&self) -> Result<(), CheckError> {
        let invalid = |field: &str, message: String| CheckError::Invalid {
            field: format!("reported.rank_sums.{field}"),
            message,
        };
        match (&self.table, &self.tables) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(invalid(
                    "table",
                    "give exactly one of `table` (the spec table holding our rank sums) and `tables` (paper table → spec table)".into(),
                ))
            }
            (Some(t), None) if t.trim().is_empty() => {
                return Err(invalid(
                    "table",
                    "is empty; name the spec table (tables[].name) whose rank sums are ours".into(),
                ))
            }
            (None, Some(m)) if m.is_empty() || m.values().any(|t| t.trim().is_empty()) => {
                return Err(invalid(
                    "tables",
                    "map each paper table (e.g. T1) to the name of a spec table".into(),
                ))
            }
            _ => {}
        }
        if self.blocks.is_empty() {
            return Err(invalid(
                "blocks",
                "is empty; map each block name of the file (e.g. aligned) to our block label"
                    .into(),
            ));
        }
        let a = self.tolerance.absolute;
        if !(a.is_finite() && a >= 0.0) {
            return Err(invalid(
                "tolerance.absolute",
                format!("{a} is not a finite number ≥ 0"),
            ));
        }
        for (i, k) in self.known_deviations.iter().enumerate() {
            k.validate(&format!("reported.rank_sums.known_deviations[{i}]"))?;
            if k.datasets.is_some() {
                return Err(invalid(
                    &format!("known_deviations[{i}].datasets"),
                    "a rank sum runs over every data set; select by methods and epsilons".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The rank-sum comparison of `check` for an experiment: ours from the spec tables of
/// `reported.rank_sums` over the experiment's data sets ([`our_rank_sums`]), the
/// paper's from the file ([`compare_rank_sums`]); empty without the section.
///
/// # Errors
/// [`CheckError::Invalid`] naming `reported.rank_sums.table(s)` when the spec has no table
/// of a name given (the names it has listed); the errors of [`our_rank_sums`] and
/// [`compare_rank_sums`].
pub fn rank_sum_checks(
    spec: &ReportedSpec,
    spec_dir: &Path,
    exp: &crate::spec::Experiment,
    selected: &[SelectedRow],
) -> Result<Vec<RankSumCheck>, CheckError> {
    let Some(rs) = &spec.rank_sums else {
        return Ok(Vec::new());
    };
    rs.validate()?;
    let task = exp
        .datasets
        .first()
        .map(|d| d.task)
        .unwrap_or(Task::Regression);
    let datasets: Vec<String> = exp.datasets.iter().map(|d| d.name.clone()).collect();
    let field = if rs.table.is_some() {
        "reported.rank_sums.table"
    } else {
        "reported.rank_sums.tables"
    };
    let mut ours = HashMap::new();
    for name in rs.spec_tables() {
        let Some(t) = exp.spec.tables.iter().find(|t| t.name == name) else {
            let names: Vec<&str> = exp.spec.tables.iter().map(|t| t.name.as_str()).collect();
            return Err(CheckError::Invalid {
                field: field.to_string(),
                message: format!(
                    "the spec has no table `{name}`; its tables are: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            });
        };
        ours.insert(
            name.to_string(),
            our_rank_sums(t, &datasets, selected, task, field)?,
        );
    }
    compare_rank_sums(spec, spec_dir, &ours)
}
