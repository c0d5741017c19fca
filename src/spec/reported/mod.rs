//! The spec's `reported:` section as it is written: which files hold the paper's numbers,
//! how their rows name data sets and methods, the tolerance and known deviations of a
//! cell, its `epsilon_match:` and `rank_sums:` parts, and the verdict of a compared cell.
//! The checks that read it (`check/`: cells in `reported.rs`, ε inference in
//! `epsilon_match.rs`, rank sums in `rank_sums.rs`) import it from here.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

mod anchor;
mod authors_code;
mod tolerance;

pub use anchor::Anchor;
pub use authors_code::AuthorsCode;

pub use tolerance::{Band, KnownDeviation, Tolerance};

use super::FieldError;

/// The spec's `reported:` section: which files hold the paper's numbers and how each cell
/// is compared with ours.
///
/// ```yaml
/// reported:
///   files: [reported/lpdt_table2.csv, reported/lpdt_table5.csv]  # relative to the spec
///   dataset_names: abbreviation     # ABA → abalone through the manifests (default)
///   tolerance: {relative: 0.25, se: 3}
///   known_deviations:
///     - {methods: [LPDT-M, LPDT-V], epsilons: [0.5, 1], reason: "docs/methods/lpdt.md §12 item 2"}
///     - {methods: [DECONV], reason: "not implemented"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportedSpec {
    /// CSV files of reported values, relative to the folder of the spec file. Cells that
    /// appear identically (same data set, method, ε and value) in several files are
    /// checked once; differing values are all kept.
    pub files: Vec<PathBuf>,
    /// How the `dataset` column of the files names data sets.
    #[serde(default)]
    pub dataset_names: DatasetNames,
    /// When a cell counts as reproduced.
    pub tolerance: Tolerance,
    /// Cells allowed to fall outside the tolerance, each selector with its reason. The
    /// first selector that matches gives the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_deviations: Vec<KnownDeviation>,
    /// The column of the files holding the reported values (default `value`; the LPCT
    /// files call it `accuracy`).
    #[serde(
        default = "default_value_column",
        skip_serializing_if = "is_default_value_column"
    )]
    pub value_column: String,
    /// Infer the ε of each table of a reported file instead of assuming it (the
    /// HistOfTree tables, `docs/methods/histoftree.md` §10): one summary line per table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon_match: Option<EpsilonMatchSpec>,
    /// The columns whose non-empty fields, joined by `/`, make a row's method key
    /// (default `[method]`): the HistOfTree file's `[setting, method, partition]` gives
    /// `aligned/HistOfTree/ME` and `personalized/Hist`.
    #[serde(
        default = "default_method_columns",
        skip_serializing_if = "is_default_method_columns"
    )]
    pub method_columns: Vec<String>,
    /// Method key → our method label. Absent: the key is the label. Given: rows whose key
    /// is not in the map are left out; several keys may map onto one label (both Hist
    /// keys onto `Hist`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methods: Option<BTreeMap<String, String>>,
    /// What the reported values are, when not our plain means: `{ratio_to: DT}` = the
    /// paper's MSE ratios, compared with our mean over the mean of the `ratio_to` row
    /// (the non-private one, or the one at the same ε) on the same data set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<ReportedValue>,
    /// Rank sums of the paper (one row per table, block and method) against those our
    /// spec table computes (`reported.rank_sums`, the HistOfTree tables' last rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_sums: Option<RankSumSpec>,
    /// The column of the files holding ε (default `epsilon`; the DiPriMe files call the
    /// nominal ε `eps_nominal`): empty for a non-private method.
    #[serde(
        default = "default_epsilon_column",
        skip_serializing_if = "is_default_epsilon_column"
    )]
    pub epsilon_column: String,
    /// The column holding the paper's 95 % interval half-width of each value (the
    /// DiPriMe files' `mse_ci95_halfwidth` / `acc_ci95_halfwidth`, `docs/methods/diprime.md` §11):
    /// printed beside the paper's value and needed by `tolerance.halfwidths`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halfwidth_column: Option<String>,
    /// Reported data set name → our data set name, for names the manifests' abbreviations
    /// do not map (the DiPriMe files' `turbine` → `gas_turbine`); checked before
    /// `dataset_names`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub datasets: BTreeMap<String, String>,
    /// The ε each of the paper's tables is read at, when the paper does not print it
    /// legibly (the HistOfTree tables): overrides the files' ε column for every private
    /// cell of a table named in the map. Stated in the spec with where the reading comes
    /// from; `epsilon_match` shows in check.md how well every ε we ran fits each table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon_reading: Option<EpsilonReading>,
    /// Reported data sets we cannot run (no data), each group with its reason: their
    /// cells are listed with the verdict *not available* (never a regression) instead of
    /// being left out silently (DiPriMe's Flight, HIGGS and PUC-Rio).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_available: Vec<NotAvailable>,
    /// Baselines whose absolute metric anchors a table of ratios ([`Anchor`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<Anchor>,
    /// The authors' own code run on our splits: a third value per cell, and the
    /// classification of each deviation by it ([`AuthorsCode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors_code: Option<AuthorsCode>,
}

/// `reported.epsilon_reading`: the ε of each reported table, read rather than printed.
///
/// ```yaml
/// epsilon_reading:
///   column: table                      # the files' column naming each row's table
///   epsilons: {T1: 2, C3a: 1, C3b: 4}  # table -> the ε its cells are compared at
///   source: "inferred: the ε we ran whose cells fit each table best (epsilon_match)"
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpsilonReading {
    /// The column naming each row's table.
    pub column: String,
    /// Table → ε (> 0).
    pub epsilons: BTreeMap<String, f64>,
    /// Where the reading comes from (printed in check.md), e.g. the method card's reading
    /// or the inference of `epsilon_match`.
    pub source: String,
}

impl EpsilonReading {
    /// The line check.md prints: `ε read per table (source): T1 at 2, …`.
    pub fn line(&self) -> String {
        let tables: Vec<String> = self
            .epsilons
            .iter()
            .map(|(t, e)| format!("{t} at ε = {e}"))
            .collect();
        format!("ε read per table ({}): {}.", self.source, tables.join(", "))
    }
}

/// `reported.not_available`: reported data sets without data here, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotAvailable {
    /// The data sets as the reported files name them.
    pub datasets: Vec<String>,
    /// Why they are not run (printed in the report).
    pub reason: String,
}

fn default_epsilon_column() -> String {
    "epsilon".to_string()
}

fn is_default_epsilon_column(c: &String) -> bool {
    c == "epsilon"
}

/// `reported.value`: the reported numbers are ratios of our means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportedValue {
    /// The denominator method's label (e.g. `DT`, the HistOfTree paper's non-private
    /// tree, `docs/methods/histoftree.md` §10): ours = mean / mean of this method on the data set.
    pub ratio_to: String,
}

fn default_method_columns() -> Vec<String> {
    vec!["method".to_string()]
}

fn is_default_method_columns(c: &[String]) -> bool {
    c == ["method"]
}

impl ReportedSpec {
    /// The section with these files and tolerance and every other field at its YAML
    /// default (abbreviated data set names, columns `dataset,method,epsilon,value`, no known
    /// deviations).
    pub fn new(files: Vec<PathBuf>, tolerance: Tolerance) -> ReportedSpec {
        ReportedSpec {
            files,
            dataset_names: DatasetNames::default(),
            tolerance,
            known_deviations: Vec::new(),
            value_column: default_value_column(),
            epsilon_match: None,
            method_columns: default_method_columns(),
            methods: None,
            value: None,
            rank_sums: None,
            epsilon_column: default_epsilon_column(),
            halfwidth_column: None,
            datasets: BTreeMap::new(),
            epsilon_reading: None,
            not_available: Vec::new(),
            anchors: Vec::new(),
            authors_code: None,
        }
    }

    /// The denominator of `value: {ratio_to: …}`, if any.
    pub fn ratio_to(&self) -> Option<&str> {
        self.value.as_ref().map(|v| v.ratio_to.as_str())
    }

    /// The method label of a row: its key (the non-empty fields of `method_columns`
    /// joined by `/`) through the `methods` map; `None` when a map is given and lacks
    /// the key.
    pub fn method_label(&self, key: &str) -> Option<String> {
        match &self.methods {
            None => Some(key.to_string()),
            Some(m) => m.get(key).cloned(),
        }
    }
}

fn default_value_column() -> String {
    "value".to_string()
}

fn is_default_value_column(c: &String) -> bool {
    c == "value"
}

/// How reported files name data sets.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DatasetNames {
    /// The paper's abbreviations (`ABA`), mapped to manifest names (`abalone`) through
    /// `paper.abbreviation` of `datasets/<name>.yaml`; a name absent from the map is
    /// used as it is.
    #[default]
    Abbreviation,
    /// Our data set names, used as they are.
    Name,
}

impl ReportedSpec {
    /// Checks the section: at least one file; a tolerance with at least one criterion,
    /// each finite and ≥ 0; known deviations with a non-empty reason, non-empty selector
    /// lists (omit a list to match any) and positive ε.
    ///
    /// # Errors
    /// [`FieldError`] naming the field (`reported.tolerance`,
    /// `reported.known_deviations[i].reason`, …) and what would be valid.
    pub fn validate(&self) -> Result<(), FieldError> {
        let invalid = |field: String, message: &str| FieldError {
            field,
            message: message.to_string(),
        };
        if self.files.is_empty() {
            return Err(invalid(
                "reported.files".into(),
                "is empty; list at least one CSV of reported values (relative to the spec)",
            ));
        }
        let t = &self.tolerance;
        if t.relative.is_none() && t.se.is_none() && t.halfwidths.is_none() {
            return Err(invalid(
                "reported.tolerance".into(),
                "gives no criterion; set `relative` (a fraction, e.g. 0.1), `se` (a band in standard errors, e.g. 3) and/or `halfwidths` (a band in 95 % half-widths, e.g. 2, with `halfwidth_column`)",
            ));
        }
        if t.halfwidths.is_some() && self.halfwidth_column.is_none() {
            return Err(invalid(
                "reported.tolerance.halfwidths".into(),
                "needs the paper's half-widths: set `reported.halfwidth_column` to the files' column holding them (e.g. mse_ci95_halfwidth)",
            ));
        }
        if self.epsilon_column.trim().is_empty()
            || self
                .halfwidth_column
                .as_ref()
                .is_some_and(|c| c.trim().is_empty())
        {
            return Err(invalid(
                "reported.epsilon_column".into(),
                "an empty column name (epsilon_column or halfwidth_column); name a column of the files or omit the field",
            ));
        }
        if let Some(a) = &self.authors_code {
            if !(a.alpha > 0.0 && a.alpha < 0.5) {
                return Err(invalid(
                    "reported.authors_code.alpha".into(),
                    "must lie strictly between 0 and 0.5 (a two-sided test level, e.g. 0.01)",
                ));
            }
        }
        for (i, a) in self.anchors.iter().enumerate() {
            if a.method.trim().is_empty() || a.reason.trim().is_empty() {
                return Err(invalid(
                    format!("reported.anchors[{i}]"),
                    "needs a `method` (our label of the baseline) and a `reason` (why the other paper's value stands for ours, with the measured gap)",
                ));
            }
        }
        let known = self.epsilon_match.iter().flat_map(|m| &m.known_methods);
        for (i, k) in known.enumerate() {
            if k.table.trim().is_empty()
                || k.method.trim().is_empty()
                || k.reason.trim().is_empty()
                || !(k.max_gap.is_finite() && k.max_gap >= 0.0)
            {
                return Err(invalid(
                    format!("reported.epsilon_match.known_methods[{i}]"),
                    "needs a `table`, a `method`, a `reason` (the measured gap and its cause) and a finite `max_gap` ≥ 0",
                ));
            }
        }
        for (i, n) in self.not_available.iter().enumerate() {
            if n.datasets.is_empty() || n.reason.trim().is_empty() {
                return Err(invalid(
                    format!("reported.not_available[{i}]"),
                    "needs a non-empty `datasets` list and a `reason`",
                ));
            }
        }
        for (name, v) in [
            ("relative", t.relative),
            ("se", t.se),
            ("halfwidths", t.halfwidths),
        ] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(invalid(
                        format!("reported.tolerance.{name}"),
                        &format!("{v} is not a finite number ≥ 0"),
                    ));
                }
            }
        }
        if self.method_columns.is_empty() || self.method_columns.iter().any(|c| c.trim().is_empty())
        {
            return Err(invalid(
                "reported.method_columns".into(),
                "is empty or names an empty column; list the columns whose fields make the method key, e.g. [setting, method, partition]",
            ));
        }
        if let Some(m) = &self.methods {
            if m.is_empty() {
                return Err(invalid(
                    "reported.methods".into(),
                    "is an empty map, which leaves every row out; map each method key to our label or omit the field",
                ));
            }
            if let Some((k, _)) = m.iter().find(|(_, v)| v.trim().is_empty()) {
                return Err(invalid(
                    format!("reported.methods.{k}"),
                    "is empty; give our method label",
                ));
            }
        }
        if self.ratio_to().is_some_and(|d| d.trim().is_empty()) {
            return Err(invalid(
                "reported.value.ratio_to".into(),
                "is empty; name the denominator method (e.g. DT)",
            ));
        }
        for (i, k) in self.known_deviations.iter().enumerate() {
            k.validate(&format!("reported.known_deviations[{i}]"))?;
        }
        if let Some(er) = &self.epsilon_reading {
            if er.column.trim().is_empty() || er.epsilons.is_empty() || er.source.trim().is_empty()
            {
                return Err(invalid(
                    "reported.epsilon_reading".into(),
                    "needs a `column`, a non-empty `epsilons` map (table -> epsilon) and a `source` saying where the reading comes from",
                ));
            }
            if let Some((t, e)) = er
                .epsilons
                .iter()
                .find(|(_, e)| !(e.is_finite() && **e > 0.0))
            {
                return Err(invalid(
                    format!("reported.epsilon_reading.epsilons.{t}"),
                    &format!("{e} is not a positive number"),
                ));
            }
        }
        Ok(())
    }
}

/// The outcome of one reported cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Within [`Tolerance`].
    Ok,
    /// Outside tolerance, but a [`KnownDeviation`] matches; its reason.
    KnownDeviation(String),
    /// Outside tolerance and not a known deviation: a regression.
    Regression,
    /// Nothing to compare: the paper prints "−", or we have no result for this method or
    /// ε (e.g. DECONV, not implemented). Not a regression.
    NotRun,
    /// The data set is listed in `reported.not_available` (we have no data for it); the
    /// reason. Not a regression.
    NotAvailable(String),
}

impl Verdict {
    /// The verdict as `check.csv` writes it: `ok`, `deviation`, `regression` or
    /// `not_run` (a data set without data is not run).
    pub fn csv_name(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::KnownDeviation(_) => "deviation",
            Verdict::Regression => "regression",
            Verdict::NotRun | Verdict::NotAvailable(_) => "not_run",
        }
    }

    /// Short name: `ok`, `known deviation`, `regression`, `not run`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::KnownDeviation(_) => "known deviation",
            Verdict::Regression => "regression",
            Verdict::NotRun => "not run",
            Verdict::NotAvailable(_) => "not available",
        }
    }
}

/// The `epsilon_match:` part of a spec's `reported:` section: a reported file whose
/// tables' ε are to be inferred rather than assumed. Every field but `group_column` and
/// `require_stated` defaults to the `reported:` section's own (its one file,
/// `method_columns`, `methods`, `value.ratio_to`, `value_column`), so
/// `epsilon_match: {}` infers the ε of the cells the section checks.
///
/// ```yaml
/// epsilon_match:
///   file: histoftree_tables.csv          # relative to the spec's folder
///   group_column: table                  # default `table`
///   method_columns: [setting, method, partition]
///   methods: {aligned/HistOfTree/ME: HistOfTree(ME) A, personalized/Hist: Hist}
///   ratio_to: DT                         # ours = mean / mean of DT on the data set
///   require_stated: false                # a disagreement is informational (default)
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpsilonMatchSpec {
    /// The reported CSV, relative to the spec's folder; default the section's only file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The column naming each row's table; default `table`.
    #[serde(default = "default_group_column")]
    pub group_column: String,
    /// The columns whose non-empty fields, joined by `/`, make the method key; default
    /// the section's `method_columns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_columns: Option<Vec<String>>,
    /// Method key → our method label; rows with other keys are left out. Default the
    /// section's `methods` (required there or here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methods: Option<BTreeMap<String, String>>,
    /// Compare our ratio to this method's mean on the same data set (MSE ratios);
    /// default the section's `value.ratio_to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to: Option<String>,
    /// The value column; default the section's `value_column`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_column: Option<String>,
    /// Whether a best ε other than the stated one is a regression (default: no, the
    /// stated ε may be an inference itself).
    #[serde(default)]
    pub require_stated: bool,
    /// Methods whose cells of a table fit another ε of ours better than the table's read
    /// (or printed) ε beyond the score's noise, on a faithful run: each with the largest
    /// score gap allowed and why. Any other such method is a regression.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_methods: Vec<KnownEpsilonGap>,
}

/// A method of a reported table allowed to fit another ε of ours better than the one the
/// table is read at (`reported.epsilon_match.known_methods`).
///
/// ```yaml
/// known_methods:
///   - {table: C3a, method: KRR A, max_gap: 0.4, reason: "measured gap 0.316: …"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnownEpsilonGap {
    /// The table, a value of `group_column` (`C3a`; `0.5` for a file grouped by its ε).
    pub table: String,
    /// Our method label.
    pub method: String,
    /// The largest accepted gap between the method's score at the read ε and its best
    /// score, in the score's |ln(ours / paper)| units (≥ 0).
    pub max_gap: f64,
    /// Why (printed with the verdict): the measured gap and its cause.
    pub reason: String,
}

fn default_group_column() -> String {
    "table".to_string()
}

/// `reported.rank_sums`: a file of the paper's rank sums and the spec table ours come
/// from. Method keys and labels are the section's `method_columns` and `methods`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankSumSpec {
    /// The CSV of rank sums, relative to the folder of the `reported:` file.
    pub file: PathBuf,
    /// The name of the spec's table (`tables[].name`) whose rank sums are ours, for every
    /// table of the file; or give `tables`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The paper's table (values of `group_column`) → the spec's table holding ours, when
    /// the spec renders one table per paper table (`{T1: T1, C3a: C3a, C3b: C3b}`); rows
    /// of unmapped tables are left out. Exactly one of `table` and `tables`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<BTreeMap<String, String>>,
    /// The column naming the paper's table of a row; default `table`.
    #[serde(default = "default_group_column")]
    pub group_column: String,
    /// The column naming the block of a row; default `setting`.
    #[serde(default = "default_block_column")]
    pub block_column: String,
    /// The paper's block names (values of `block_column`) → our block labels
    /// (`tables[].blocks[].label`); a table without blocks has the one block `""`.
    pub blocks: BTreeMap<String, String>,
    /// The column of the rank sums; default `rank_sum`.
    #[serde(default = "default_rank_sum_column")]
    pub value_column: String,
    /// When our rank sum reproduces the paper's.
    pub tolerance: RankSumTolerance,
    /// Rank sums allowed outside the tolerance (`methods`, `epsilons`; `datasets` never
    /// matches a rank sum), each with its reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_deviations: Vec<KnownDeviation>,
}

/// `|ours − paper| ≤ absolute` (rank sums are integers; 10 data sets and 5 methods give
/// sums from 10 to 50).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankSumTolerance {
    /// Largest accepted difference, ≥ 0.
    pub absolute: f64,
}

fn default_block_column() -> String {
    "setting".to_string()
}

fn default_rank_sum_column() -> String {
    "rank_sum".to_string()
}
