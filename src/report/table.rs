//! The table model: what a rendered table shows, independent of the output format.
//!
//! A [`Table`] has one row per data set (or whatever `row_header` names) and its columns
//! come in [`ColumnGroup`]s: in LPDT Table 2 a non-private group with the single column
//! `DT`, then one group per privacy budget ε with the LDP methods. Every [`Row`] holds one
//! [`Cell`] per column, groups flattened in order. A cell carries its value, the text to
//! print (filled by the builder through a [`NumberFormat`]), and its marks: bold,
//! underlined, `*`. What a mark means is the builder's convention, which [`Legend`] tells
//! the renderers (LPDT: bold = best, underlined = second best, `*` = significant; LPCT:
//! `*` = best, bold = not significantly worse than the best). Optional summary rows
//! (LPCT's "Rank Sum" and "No. 1") follow the data rows after a rule.
//!
//! The renderers in [`super::render`] call [`Table::validate`] before printing.

use serde::{Deserialize, Serialize};

use super::format::{
    format_fixed, format_ratio, format_sci, format_significant, significant_decimals,
};
use super::ReportError;
pub use crate::spec::tables::Layout;

/// How cell values are turned into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NumberFormat {
    /// Scientific notation with three significant digits, `1.01e+1` (see
    /// [`format_sci`]); the papers' format for mean squared errors.
    Sci,
    /// Fixed point with the given number of decimals (see [`format_fixed`]); for
    /// accuracies and running times.
    Fixed(usize),
    /// MSE ratios as the HistOfTree tables print them, `1.85`, `22.6`, `7e2` (see
    /// [`format_ratio`]).
    Ratio,
    /// Fixed point with the given number of significant digits (see
    /// [`format_significant`]); the DiPriMe paper's scaled MSEs (`1.59`, `40.7`, `241`).
    Significant(usize),
}

impl NumberFormat {
    /// Formats one value.
    pub fn format(self, v: f64) -> String {
        match self {
            NumberFormat::Sci => format_sci(v),
            NumberFormat::Fixed(decimals) => format_fixed(v, decimals),
            NumberFormat::Ratio => format_ratio(v),
            NumberFormat::Significant(digits) => format_significant(v, digits),
        }
    }

    /// `mean ± halfwidth`, as the DiPriMe tables print a cell (method card `diprime.md`
    /// §6.1, §11: `40.7 ± 6.2`, `241 ± 56`, `0.989 ± 0.007`): the mean through this format,
    /// the half-width with as many decimals as the mean in the fixed-point formats
    /// ([`NumberFormat::Fixed`], [`NumberFormat::Significant`]), in this format otherwise.
    ///
    /// ```
    /// use dp_repro::report::NumberFormat;
    /// assert_eq!(NumberFormat::Significant(3).format_interval(40.676, 6.2078), "40.7 ± 6.2");
    /// assert_eq!(NumberFormat::Fixed(3).format_interval(0.98913, 0.00666), "0.989 ± 0.007");
    /// ```
    pub fn format_interval(self, mean: f64, halfwidth: f64) -> String {
        let half = match self {
            NumberFormat::Fixed(decimals) => format_fixed(halfwidth, decimals),
            NumberFormat::Significant(digits) => {
                let m = self.format(mean);
                if m.contains('e') {
                    // A mean in scientific notation: the half-width too.
                    format_significant(halfwidth, digits)
                } else {
                    format_fixed(halfwidth, significant_decimals(mean, digits))
                }
            }
            NumberFormat::Sci | NumberFormat::Ratio => self.format(halfwidth),
        };
        format!("{} ± {half}", self.format(mean))
    }
}

/// A table ready to be rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Short identifier, e.g. `lpdt_table2`: used for the LaTeX label `tab:<name>` (with
    /// characters other than letters, digits, `-`, `_`, `.`, `:` replaced by `-`) and for
    /// output file names. Must not be empty.
    pub name: String,
    /// Caption, plain text (renderers escape it).
    pub caption: String,
    /// Header of the row-label column, e.g. `Data`.
    pub row_header: String,
    /// Column groups, left to right.
    pub groups: Vec<ColumnGroup>,
    /// Rows, top to bottom.
    pub rows: Vec<Row>,
    /// Summary rows printed after the data rows, below a rule (LaTeX `\midrule`), e.g.
    /// `Rank Sum` with one integer per compared method. Same shape as [`Table::rows`]; a
    /// cell without a value prints empty here (the summary does not apply to that
    /// column), not as a dash.
    #[serde(default)]
    pub summary_rows: Vec<Row>,
    /// Footnotes printed under the table, plain text, e.g. `oracle selection: best grid
    /// point by mean test MSE`. Like the caption, a note may hold inline TeX math between
    /// a pair of `$` (`$t_{0.975,n-1}$`): LaTeX prints it as math, Markdown as Unicode
    /// where it can (see [`super::render::math_to_unicode`]); a lone `$` is a dollar sign.
    pub notes: Vec<String>,
    /// Who explains the bold and underline marks.
    #[serde(default)]
    pub legend: Legend,
    /// How the LaTeX output lays the table out on the page (Markdown ignores it).
    #[serde(default, skip_serializing_if = "Layout::is_default")]
    pub layout: Layout,
    /// The notes printed under the LaTeX table when [`Table::notes_file`] is set: at most
    /// three short lines (what the numbers are, what the marks mean), followed by a
    /// pointer to the companion file that holds [`Table::notes`] in full. Markdown prints
    /// the full notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_notes: Vec<String>,
    /// The companion file that holds the full notes, e.g. `notes-table2.md` beside
    /// `table-table2.tex`; `None`: LaTeX prints the full notes under the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes_file: Option<String>,
}

/// Who explains the marks of a table's cells in its notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Legend {
    /// Bold means best and underline second best (LPDT Tables 2/5): when a cell carries
    /// either mark, each renderer inserts a legend after the first note, in its own words
    /// for the underline (underlined in LaTeX, italics in Markdown). `*` is explained by
    /// the notes.
    #[default]
    BoldBestUnderlineSecond,
    /// The notes explain every mark; the renderers add nothing.
    InNotes,
}

/// A group of adjacent columns sharing a header, e.g. the LDP methods at one ε.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnGroup {
    /// Plain-text label, e.g. `ε = 2`, or `""` for the non-private group. Renderers print
    /// it only when `epsilon` is `None`.
    pub label: String,
    /// Privacy budget ε of the group, if it is one. When set, each renderer prints ε its
    /// own way (`$\varepsilon = 2$` in LaTeX, `ε=2` in Markdown) instead of `label`.
    #[serde(default)]
    pub epsilon: Option<f64>,
    /// The method block within the ε group, e.g. `Aligned` (the HistOfTree tables,
    /// `docs/methods/histoftree.md` §10); printed after the ε (`ε=1 · Aligned`). Empty: none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub block: String,
    /// Column (method) names, e.g. `LPDT-M`, plain text.
    pub columns: Vec<String>,
}

/// One row of a [`Table`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Row label, e.g. the data set `ABA`.
    pub label: String,
    /// One cell per column, groups flattened in order.
    pub cells: Vec<Cell>,
    /// The power of ten the row is printed in (the DiPriMe paper's per-data-set factors,
    /// e.g. `-2` for Parkinson's ×10⁻²): its cells show value / 10^scale and each renderer
    /// appends the factor to the label its own way (`($\times 10^{-2}$)` in LaTeX,
    /// `(×10⁻²)` in Markdown). `None`: values as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<i32>,
}

/// One cell of a [`Row`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The value (e.g. mean test MSE over repetitions); `None` when the method was not run
    /// on this data set, printed as `--` in LaTeX and `—` in Markdown.
    pub value: Option<f64>,
    /// The formatted value, filled by [`Cell::new`] or [`Table::fill_text`]. Must not be
    /// empty when `value` is `Some`; ignored when `value` is `None`.
    #[serde(default)]
    pub text: String,
    /// Printed bold (LPDT: best in its group; LPCT: not significantly worse than the
    /// best).
    #[serde(default, alias = "best")]
    pub bold: bool,
    /// Printed underlined, italics in Markdown (LPDT: second best in its group). Never
    /// together with `bold`.
    #[serde(default, alias = "second")]
    pub underline: bool,
    /// Printed with `*` after the number (LPDT: significant by the spec's rule; LPCT: the
    /// best).
    #[serde(default)]
    pub star: bool,
    /// The half-width of a 95 % interval around `value` (same units, unscaled), printed
    /// after it as `± h` (the DiPriMe tables: `t_{0.975,n−1}·sd₀/√n`, see
    /// [`crate::stats::ci95_halfwidth`]); `None`: the value alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halfwidth: Option<f64>,
}

impl NumberFormat {
    fn text_of(self, value: Option<f64>) -> String {
        value.map(|v| self.format(v)).unwrap_or_default()
    }

    /// The text of a cell holding `value` (and `halfwidth`) in a row printed ×10^`scale`.
    fn cell_text(self, value: Option<f64>, halfwidth: Option<f64>, scale: Option<i32>) -> String {
        let factor = scale.map_or(1.0, |k| 10f64.powi(k));
        match (value, halfwidth) {
            (Some(v), Some(h)) => self.format_interval(v / factor, h / factor),
            (v, _) => self.text_of(v.map(|v| v / factor)),
        }
    }
}

impl Cell {
    /// A cell holding `value` (or nothing, for a method that was not run), with `text`
    /// formatted through `format` and no marks.
    pub fn new(value: Option<f64>, format: NumberFormat) -> Cell {
        Cell {
            value,
            text: format.text_of(value),
            bold: false,
            underline: false,
            star: false,
            halfwidth: None,
        }
    }

    /// The same cell (marks kept) showing its value with the half-width `halfwidth` of
    /// its 95 % interval, in a row printed ×10^`scale` (`None`: as they are): the text is
    /// `mean ± h` of the scaled numbers through [`NumberFormat::format_interval`] (the
    /// scaled value alone when `halfwidth` is `None`), e.g. 0.0159 and 0.0007 at scale −2
    /// in [`NumberFormat::Significant`]`(3)` print `1.59 ± 0.07` (DiPriMe Table 1,
    /// `docs/methods/diprime.md` §11). A cell without a value stays empty.
    ///
    /// ```
    /// use dp_repro::report::{Cell, NumberFormat};
    /// let c = Cell::new(Some(0.0159), NumberFormat::Sci)
    ///     .with_interval(Some(0.0007), NumberFormat::Significant(3), Some(-2));
    /// assert_eq!(c.text, "1.59 ± 0.07");
    /// ```
    pub fn with_interval(
        mut self,
        halfwidth: Option<f64>,
        format: NumberFormat,
        scale: Option<i32>,
    ) -> Cell {
        self.halfwidth = halfwidth.filter(|_| self.value.is_some());
        self.text = format.cell_text(self.value, self.halfwidth, scale);
        self
    }

    /// A cell for a method that was not run (printed as a dash).
    pub fn missing() -> Cell {
        Cell::new(None, NumberFormat::Sci)
    }

    /// The same cell with the given marks: bold, underlined, `*`.
    pub fn with_marks(mut self, bold: bool, underline: bool, star: bool) -> Cell {
        self.bold = bold;
        self.underline = underline;
        self.star = star;
        self
    }
}

impl Row {
    /// A row from its label and one value per column (`None` = not run), texts formatted
    /// through `format`, no marks.
    pub fn from_values(
        label: impl Into<String>,
        values: &[Option<f64>],
        format: NumberFormat,
    ) -> Row {
        Row {
            label: label.into(),
            cells: values.iter().map(|&v| Cell::new(v, format)).collect(),
            scale: None,
        }
    }
}

impl ColumnGroup {
    /// A group without ε, e.g. the non-private `DT` column with `label = ""`.
    pub fn plain(label: impl Into<String>, columns: Vec<String>) -> ColumnGroup {
        ColumnGroup {
            label: label.into(),
            epsilon: None,
            block: String::new(),
            columns,
        }
    }

    /// A group of methods run at privacy budget `epsilon`; `label` is set to `ε = <eps>`
    /// for plain-text consumers.
    pub fn private(epsilon: f64, columns: Vec<String>) -> ColumnGroup {
        ColumnGroup {
            label: format!("ε = {}", epsilon),
            epsilon: Some(epsilon),
            block: String::new(),
            columns,
        }
    }
}

impl Table {
    /// An empty table (no groups, rows, summary rows or notes; the LPDT legend).
    pub fn new(
        name: impl Into<String>,
        caption: impl Into<String>,
        row_header: impl Into<String>,
    ) -> Table {
        Table {
            name: name.into(),
            caption: caption.into(),
            row_header: row_header.into(),
            groups: Vec::new(),
            rows: Vec::new(),
            summary_rows: Vec::new(),
            notes: Vec::new(),
            legend: Legend::default(),
            layout: Layout::default(),
            short_notes: Vec::new(),
            notes_file: None,
        }
    }

    /// Number of value columns (all groups flattened; the row-label column not counted).
    pub fn n_columns(&self) -> usize {
        self.groups.iter().map(|g| g.columns.len()).sum()
    }

    /// The value columns in order as `(group index, column name)`.
    pub fn columns(&self) -> Vec<(usize, &str)> {
        self.groups
            .iter()
            .enumerate()
            .flat_map(|(gi, g)| g.columns.iter().map(move |c| (gi, c.as_str())))
            .collect()
    }

    /// Refills the `text` of every cell of the data rows that has a value through
    /// `format`, with its `halfwidth` and its row's `scale` as [`Cell::with_interval`]
    /// prints them (marks are kept; cells without a value get an empty text). Summary
    /// rows keep their texts (they are counts, formatted apart).
    pub fn fill_text(&mut self, format: NumberFormat) {
        for row in &mut self.rows {
            let scale = row.scale;
            for cell in &mut row.cells {
                cell.text = format.cell_text(cell.value, cell.halfwidth, scale);
            }
        }
    }

    /// Checks that the table can be rendered: a non-empty name, at least one column,
    /// no empty group, every row and summary row with exactly one cell per column, no
    /// cell both bold and underlined, and a text for every cell with a value.
    ///
    /// # Errors
    /// [`ReportError::EmptyName`], [`ReportError::NoColumns`],
    /// [`ReportError::EmptyGroup`], [`ReportError::CellCount`],
    /// [`ReportError::BoldAndUnderline`], [`ReportError::MissingText`]; each names the
    /// table, and the row and column where it applies (summary rows are counted after the
    /// data rows).
    pub fn validate(&self) -> Result<(), ReportError> {
        if self.name.trim().is_empty() {
            return Err(ReportError::EmptyName);
        }
        if let Some((index, g)) = self
            .groups
            .iter()
            .enumerate()
            .find(|(_, g)| g.columns.is_empty())
        {
            return Err(ReportError::EmptyGroup {
                table: self.name.clone(),
                index,
                label: g.label.clone(),
            });
        }
        let columns = self.columns();
        if columns.is_empty() {
            return Err(ReportError::NoColumns {
                table: self.name.clone(),
            });
        }
        for (index, row) in self.rows.iter().chain(&self.summary_rows).enumerate() {
            if row.cells.len() != columns.len() {
                return Err(ReportError::CellCount {
                    table: self.name.clone(),
                    row: row.label.clone(),
                    index,
                    found: row.cells.len(),
                    expected: columns.len(),
                    columns: self.column_list(),
                });
            }
            for (cell, &(gi, column)) in row.cells.iter().zip(&columns) {
                let column = self.column_display(gi, column);
                if cell.bold && cell.underline {
                    return Err(ReportError::BoldAndUnderline {
                        table: self.name.clone(),
                        row: row.label.clone(),
                        column,
                    });
                }
                if cell.value.is_some() && cell.text.is_empty() {
                    return Err(ReportError::MissingText {
                        table: self.name.clone(),
                        row: row.label.clone(),
                        column,
                    });
                }
            }
        }
        Ok(())
    }

    /// `column` prefixed by its group's label, for error messages.
    fn column_display(&self, group: usize, column: &str) -> String {
        let g = &self.groups[group];
        if g.label.is_empty() {
            column.to_string()
        } else {
            format!("{} / {}", g.label, column)
        }
    }

    /// All columns for error messages: `DT, ε = 2 / LPDT-M, …`.
    fn column_list(&self) -> String {
        self.columns()
            .into_iter()
            .map(|(gi, c)| self.column_display(gi, c))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
