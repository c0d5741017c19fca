//! The spec's `tables:` section as it is written: which methods, data sets and ε a table
//! shows, its blocks, value, digits, marks, summary rows, layout and the paper's printed
//! values beside ours (`report/` renders it, `summary/table.rs` fills it).

mod validate;

pub(crate) use validate::check_tables;

use crate::schema_parts::{one_of, words};
use crate::seeds::epsilon_text;
use schemars::{json_schema, Schema, SchemaGenerator};
use serde::de;
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

/// A table: rows = data sets, columns = non-private methods then ε × methods.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableEntry {
    /// File stem: `table-<name>.tex` / `.md`.
    pub name: String,
    /// Caption (a note on the selection protocol is appended).
    #[serde(default)]
    pub caption: String,
    /// ε blocks, in order.
    pub epsilons: Vec<f64>,
    /// Method labels compared in every ε block (marks compare these); a non-private
    /// method listed here shows its one result in every block (LPCT Table 2's CT-Q).
    /// Exactly one of `methods` and `blocks` is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<String>,
    /// Several blocks of compared methods per ε, each marked and ranked on its own with its
    /// own tie rule (the aligned and personalized blocks of the HistOfTree tables,
    /// `docs/methods/histoftree.md` §10); columns: for each ε, for each block, its methods. A label may
    /// appear in several blocks. Exactly one of `methods` and `blocks` is given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<TableBlock>,
    /// Non-private method labels, shown first without ε.
    #[serde(default)]
    pub non_private: Vec<String>,
    /// Row labels: the paper's abbreviation from the manifest (default) or the name.
    #[serde(default)]
    pub row_labels: RowLabels,
    /// How the cells of each ε block are marked: `bold_best` (default, LPDT Tables 2/5) or
    /// `star_best` (LPCT Table 2).
    #[serde(default, skip_serializing_if = "MarkStyle::is_default")]
    pub marks: MarkStyle,
    /// Rows under the data rows, after a rule, in this order: `rank_sum` and/or `no1`
    /// (LPCT Table 2, `docs/methods/lpct.md` §10.6); computed per ε block over the `methods`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary_rows: Vec<SummaryRow>,
    /// The tie rule of `rank_sum` for `methods` (see [`RankTies`]): a tie order listing
    /// every label of `methods` once (among equal means the method listed first gets the
    /// better rank), or `min` / `max` (competition ranks of the printed values). Default:
    /// the order of `methods`. With `blocks`, each block has its own.
    #[serde(default, skip_serializing_if = "RankTies::is_default")]
    pub rank_ties: RankTies,
    /// A clause that ends the note on oracle selection (`best_mean`) after a comma, saying
    /// how the paper or its code selected grid points, e.g. `as the authors' public code
    /// does (the LPDT paper, §4, states 5-fold cross-validation)`; no final period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle_note: Option<String>,
    /// What the cells show: `metric` (default; the mean test metric of the selected grid
    /// point), `seconds` (the mean wall time of one fit + predict of the selected grid
    /// point, runs.csv `seconds`; LPCT Table 3, docs/methods/lpct.md §10.8; no marks and no summary
    /// rows) or `{ratio_to: DT, of: means}` (the metric over a denominator method's on the
    /// same data set; the HistOfTree tables, `docs/methods/histoftree.md` §10).
    #[serde(default, skip_serializing_if = "TableValue::is_default")]
    pub value: TableValue,
    /// The paper's values printed beside ours in every cell, `ours (paper)`, from a CSV
    /// file with columns `dataset`, `method`, the value `column` and optionally `epsilon`
    /// (without it a value applies to every ε block). Data sets are matched by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<TableReported>,
    /// An interval printed after each mean: `ci95` = `mean ± t_{0.975,n−1}·sd₀/√n`, the
    /// 95 % Student-t half-width with the population standard deviation (ddof 0) over
    /// the repetitions, as the DiPriMe tables print "±" (`docs/methods/diprime.md` §6.1; not a standard
    /// deviation). Only with `value: metric`. Absent: the mean alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// How the metric's values are printed, overriding the task's default (MSE in
    /// scientific notation, accuracy with 4 decimals): `{significant: 3}` (fixed point,
    /// 3 significant digits: `1.59`, `40.7`, `241`; DiPriMe Table 1) or `{decimals: 3}`
    /// (DiPriMe Table 2). Only with `value: metric`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<Digits>,
    /// Per data set (its name in the spec), the power of ten its row is printed in: `-2`
    /// prints 0.0159 as `1.59` with `(×10⁻²)` after the row label (the DiPriMe paper's
    /// factors, `docs/methods/diprime.md` §11). Needs `digits`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scale: BTreeMap<String, i32>,
    /// Rows of the paper's table whose data set we do not have, printed after the data
    /// rows with every cell missing (`—`) and a note with the reason (DiPriMe's Flight,
    /// HIGGS, PUC-Rio), so the table says so instead of dropping them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableRow>,
    /// How `table-<name>.tex` lays the table out so that it fits the page (Markdown
    /// ignores it); every field defaults to `false`:
    /// - `transpose: true`: data sets as columns, methods as rows under one heading row
    ///   per ε (and block); summary rows become the last columns (the DiPriMe paper's
    ///   layout; the HistOfTree tables, whose twelve method columns are too wide);
    /// - `split: true`: one float per ε, captioned `(a) ε = 0.5`, `(b) …` (the LPCT
    ///   paper's Table 2); needs two or more `epsilons`;
    /// - `landscape: true`: a `sidewaystable` (LaTeX package `rotating`), as wide as the
    ///   text height.
    ///
    /// The options combine (`{split: true, transpose: true}`). The paper tables of
    /// `specs/` choose theirs so that each tabular is at least 80 % of its natural size on
    /// a 6.5-inch line (tests/table_width.rs measures them).
    #[serde(default, skip_serializing_if = "Layout::is_default")]
    pub layout: Layout,
}

/// The interval a table prints after each mean (`interval:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    /// The half-width of a 95 % Student-t interval, `t_{0.975,n−1}·sd₀/√n`, sd₀ with
    /// denominator n ([`crate::stats::ci95_halfwidth`]; `docs/methods/diprime.md` §6.1).
    Ci95,
}

/// How a table prints its values (`digits:`).
///
/// YAML: `{significant: 3}` or `{decimals: 3}` (exactly one of the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Fixed point with this many significant digits (≥ 1).
    Significant(usize),
    /// Fixed point with this many decimals.
    Decimals(usize),
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct DigitsRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    significant: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decimals: Option<usize>,
}

impl TableEntry {
    /// The caption as the rendered table opens with it: the spec's caption, or
    /// `<spec> (<table>)` when it has none, ending its sentence (a full stop is added unless
    /// it already ends with `.`, `!` or `?`, possibly before a closing bracket or quote), so
    /// that the sentences appended after it (the selection, the repetitions) read apart.
    pub fn caption_sentence(&self, spec_name: &str) -> String {
        let base = if self.caption.trim().is_empty() {
            format!("{spec_name} ({})", self.name)
        } else {
            self.caption.trim().to_string()
        };
        let ends = base
            .trim_end_matches([')', ']', '"', '\'', '’', '”'])
            .ends_with(['.', '!', '?']);
        if ends {
            base
        } else {
            format!("{base}.")
        }
    }
}

impl schemars::JsonSchema for Digits {
    fn schema_name() -> Cow<'static, str> {
        "Digits".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let n = g.subschema_for::<usize>();
        json_schema!({
            "description": "How a table prints its values: `{significant: N}` or `{decimals: N}` (exactly one).",
            "type": "object",
            "properties": { "significant": n.clone(), "decimals": n },
            "additionalProperties": false,
            "oneOf": [ { "required": ["significant"] }, { "required": ["decimals"] } ]
        })
    }
}

impl<'de> Deserialize<'de> for Digits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = DigitsRepr::deserialize(d)?;
        match (r.significant, r.decimals) {
            (Some(n), None) => Ok(Digits::Significant(n)),
            (None, Some(n)) => Ok(Digits::Decimals(n)),
            _ => Err(de::Error::custom(
                "digits must be {significant: N} or {decimals: N} (exactly one)",
            )),
        }
    }
}

impl Serialize for Digits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (significant, decimals) = match *self {
            Digits::Significant(n) => (Some(n), None),
            Digits::Decimals(n) => (None, Some(n)),
        };
        DigitsRepr {
            significant,
            decimals,
        }
        .serialize(s)
    }
}

/// A row of the paper's table that we cannot reproduce (`unavailable:`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnavailableRow {
    /// The row label, as the paper names the data set (e.g. `Flight`).
    pub label: String,
    /// Why it is not run, printed in the notes (e.g. `data not available: ...`).
    pub reason: String,
}

/// What a table's cells show.
///
/// YAML: `metric`, `seconds` or `{ratio_to: LABEL, of: means | per_repetition}` (`of`
/// defaults to `means`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TableValue {
    /// The mean test metric (MSE or accuracy) of the selected grid point.
    #[default]
    Metric,
    /// The mean seconds of one fit + predict of the selected grid point.
    Seconds,
    /// The metric divided by the metric of method `ratio_to` (its selected grid point on
    /// the same data set; the HistOfTree tables' MSE(method)/MSE(DT), `histoftree.md`
    /// §10), printed as the paper prints ratios (`1.85`, `22.6`, `7e2`).
    RatioTo {
        /// The denominator's method label.
        ratio_to: String,
        /// Ratio of means or mean of per-repetition ratios.
        of: RatioOf,
    },
}

/// Which ratio a `ratio_to` cell shows (`docs/methods/histoftree.md` §10 leaves it open, [G]).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RatioOf {
    /// The mean metric over repetitions divided by the denominator's mean (default).
    #[default]
    Means,
    /// The mean over repetitions of the per-repetition ratios (repetitions both have).
    PerRepetition,
}

impl TableValue {
    /// Whether this is the default (`metric`), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == TableValue::default()
    }
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RatioToRepr {
    ratio_to: String,
    #[serde(default)]
    of: RatioOf,
}

impl schemars::JsonSchema for TableValue {
    fn schema_name() -> Cow<'static, str> {
        "TableValue".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        one_of(
            "What a table's cells show: `metric`, `seconds` or `{ratio_to: METHOD, of: means | per_repetition}`.",
            vec![words(&["metric", "seconds"]), g.subschema_for::<RatioToRepr>()],
        )
    }
}

impl<'de> Deserialize<'de> for TableValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "metric" => Ok(TableValue::Metric),
            serde_yaml::Value::String(s) if s == "seconds" => Ok(TableValue::Seconds),
            v @ serde_yaml::Value::Mapping(_) => RatioToRepr::deserialize(v)
                .map(|r| TableValue::RatioTo {
                    ratio_to: r.ratio_to,
                    of: r.of,
                })
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "value must be metric, seconds or {{ratio_to: METHOD, of: means | per_repetition}}, got {other:?}"
            ))),
        }
    }
}

impl Serialize for TableValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TableValue::Metric => s.serialize_str("metric"),
            TableValue::Seconds => s.serialize_str("seconds"),
            TableValue::RatioTo { ratio_to, of } => RatioToRepr {
                ratio_to: ratio_to.clone(),
                of: *of,
            }
            .serialize(s),
        }
    }
}

/// The tie rule of a `rank_sum` row.
///
/// YAML: `min`, `max` or a list of the block's method labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RankTies {
    /// Ordinal ranks by mean; among equal means the method listed first gets the better
    /// rank (LPCT Table 2, `docs/methods/lpct.md` §10.6). Empty: the column order.
    Order(Vec<String>),
    /// Competition ranks of the printed values, a tie sharing its best rank (the
    /// personalized block of the HistOfTree tables, `docs/methods/histoftree.md` §10).
    Min,
    /// Competition ranks of the printed values, a tie sharing its worst rank (the aligned
    /// block of the HistOfTree tables, `docs/methods/histoftree.md` §10).
    Max,
}

impl Default for RankTies {
    fn default() -> Self {
        RankTies::Order(Vec::new())
    }
}

impl RankTies {
    /// Whether this is the default (the column order), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == RankTies::default()
    }
}

impl schemars::JsonSchema for RankTies {
    fn schema_name() -> Cow<'static, str> {
        "RankTies".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        one_of(
            "The tie rule of `rank_sum`: `min`, `max` or a list of method labels.",
            vec![
                words(&["min", "max"]),
                json_schema!({ "type": "array", "items": { "type": "string" } }),
            ],
        )
    }
}

impl<'de> Deserialize<'de> for RankTies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(s) if s == "min" => Ok(RankTies::Min),
            serde_yaml::Value::String(s) if s == "max" => Ok(RankTies::Max),
            v @ serde_yaml::Value::Sequence(_) => Vec::<String>::deserialize(v)
                .map(RankTies::Order)
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "rank_ties must be min, max or a list of method labels, got {other:?}"
            ))),
        }
    }
}

impl Serialize for RankTies {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RankTies::Order(v) => v.serialize(s),
            RankTies::Min => s.serialize_str("min"),
            RankTies::Max => s.serialize_str("max"),
        }
    }
}

/// One block of compared methods of a table (`blocks:`): marked and ranked on its own in
/// every ε.
///
/// ```yaml
/// blocks:
///   - {label: Aligned, methods: [HistOfTree(ME) A, ParDT A, Hist], rank_ties: max}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableBlock {
    /// Shown after the ε in the column group's label (`ε = 1 · Aligned`).
    pub label: String,
    /// The block's method labels, in column order.
    pub methods: Vec<String>,
    /// The block's `rank_sum` tie rule; default the column order.
    #[serde(default, skip_serializing_if = "RankTies::is_default")]
    pub rank_ties: RankTies,
}

impl TableEntry {
    /// The blocks of compared methods: `blocks`, or one block with an empty label holding
    /// `methods` and `rank_ties` when the table has no `blocks`.
    pub fn column_blocks(&self) -> Vec<TableBlock> {
        if self.blocks.is_empty() {
            vec![TableBlock {
                label: String::new(),
                methods: self.methods.clone(),
                rank_ties: self.rank_ties.clone(),
            }]
        } else {
            self.blocks.clone()
        }
    }

    /// Every compared method label, in column order within an ε (a label in several
    /// blocks appears once, at its first block).
    pub fn compared_methods(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b in self.column_blocks() {
            for m in b.methods {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        out
    }
}

/// A table's `reported:` field: the paper's values to print beside ours.
///
/// ```yaml
/// reported: {file: ../reported/lpct_table3_time.csv, column: seconds}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableReported {
    /// The CSV file, relative to the spec's folder (a run copies it into the results
    /// folder's `reported/`).
    pub file: std::path::PathBuf,
    /// The column holding the paper's values.
    pub column: String,
    /// What the note calls the values, e.g. `the paper's seconds (72-core Xeon 2.6 GHz)`;
    /// default `the paper's value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// How the cells of a table's ε blocks are marked (among the `methods` of a block; the
/// `non_private` columns and missing cells are never marked).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MarkStyle {
    /// LPDT Tables 2/5 (`docs/methods/lpdt.md` §8.3): the best mean bold, the second best underlined
    /// (italics in Markdown), `*` by the spec's `significance` rule.
    #[default]
    BoldBest,
    /// LPCT Table 2 (`docs/methods/lpct.md` §10.5): `*` on the best mean and on every mean tied with it
    /// at the printed precision; bold on every method a one-sided Wilcoxon signed-rank
    /// test (paired by repetition) does not find significantly worse than the best, the
    /// best included (the spec's `significance` must then be absent, for level 0.05, or
    /// `not_worse_than_best`, whose `alpha` is the level).
    StarBest,
    /// The HistOfTree tables (`docs/methods/histoftree.md` §10): `*` on every cell tied for the best at
    /// the printed precision when each of them is significantly better than every method
    /// of the block not tied with it (one-sided Wilcoxon signed-rank test paired by
    /// repetition, at the `alpha` of the spec's `significance` rule, else 0.05). No bold.
    StarSignificant,
    /// No marks (the DiPriMe tables, which print mean ± half-width only).
    None,
}

impl MarkStyle {
    /// Whether this is the default style (`bold_best`), which a resolved spec leaves out.
    pub fn is_default(&self) -> bool {
        *self == MarkStyle::default()
    }
}

/// A summary row of a table (`docs/methods/lpct.md` §10.6), computed per ε block and method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SummaryRow {
    /// "Rank Sum": on every data set the compared methods are ranked by mean (1 = best;
    /// ordinal ranks, ties by `rank_ties`; a missing result counts as the metric's worst
    /// value) and the ranks are summed over the data sets; `*` on the lowest sum.
    RankSum,
    /// "No. 1": the number of data sets on which the method is starred or bold; `*` on
    /// the highest count.
    No1,
}

impl SummaryRow {
    /// The row label, as LPCT Table 2 prints it: `Rank Sum`, `No. 1`.
    pub fn label(&self) -> &'static str {
        match self {
            SummaryRow::RankSum => "Rank Sum",
            SummaryRow::No1 => "No. 1",
        }
    }
}

/// How table rows are labelled.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RowLabels {
    /// The paper's abbreviation (ABA, AIR, …) when the manifest has one.
    #[default]
    Abbreviation,
    /// The data set name.
    Name,
}

/// How a table is laid out in LaTeX (`layout:` of a spec's table; Markdown has no page
/// width and ignores it). The default is one `table` float with the data sets as rows
/// and the column groups (ε blocks) side by side.
///
/// ```
/// use dp_repro::report::Layout;
/// let l: Layout = serde_yaml::from_str("{transpose: true}").unwrap();
/// assert!(l.transpose && !l.split && !l.landscape);
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// Data sets as columns and methods as rows, grouped under one heading row per column
    /// group (ε and block); summary rows (Rank Sum, No. 1) become the last columns. The
    /// DiPriMe paper prints its tables this way.
    #[serde(default)]
    pub transpose: bool,
    /// One float per ε: the non-private columns and the ε's column groups, captioned
    /// `(a) ε = 0.5`, `(b) ε = 2`, … as the LPCT paper prints its Table 2. Needs column
    /// groups of two or more ε.
    #[serde(default)]
    pub split: bool,
    /// A `sidewaystable` (package `rotating`): the table is turned by 90° and may be as
    /// wide as the text height.
    #[serde(default)]
    pub landscape: bool,
}

impl Layout {
    /// Whether this is the default layout (nothing set).
    pub fn is_default(&self) -> bool {
        *self == Layout::default()
    }
}

/// The paper's printed values by (data set, method, ε text — `None` when the file has no
/// `epsilon` column, i.e. the value holds for every block), as the file writes them.
pub type ReportedCells = BTreeMap<(String, String, Option<String>), String>;

/// Reads a table's `reported:` file: columns `dataset`, `method`, `column` and optionally
/// `epsilon` (written as [`epsilon_text`] writes ε; an empty cell means non-private).
/// Rows with an empty value (the paper prints "−") are left out.
///
/// # Errors
/// A message naming the file and, for a missing column, the columns it has.
pub fn read_reported(path: &Path, column: &str) -> Result<ReportedCells, String> {
    let mut rdr = csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let headers = rdr
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(d), Some(m), Some(v)) = (col("dataset"), col("method"), col(column)) else {
        return Err(format!(
            "{}: needs the columns dataset, method and {column}; it has {}",
            path.display(),
            headers.iter().collect::<Vec<_>>().join(", ")
        ));
    };
    let e = col("epsilon");
    let mut cells = ReportedCells::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| format!("{}: line {}: {e}", path.display(), i + 2))?;
        let value = rec.get(v).unwrap_or("").trim();
        if value.is_empty() {
            continue;
        }
        let eps = match e.map(|e| rec.get(e).unwrap_or("").trim()) {
            None => None,
            Some("") => Some(String::new()),
            Some(t) => Some(t.parse::<f64>().map(epsilon_text).map_err(|_| {
                format!(
                    "{}: line {}: epsilon {t:?} is not a number",
                    path.display(),
                    i + 2
                )
            })?),
        };
        cells.insert(
            (rec[d].trim().to_string(), rec[m].trim().to_string(), eps),
            value.to_string(),
        );
    }
    Ok(cells)
}
