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

use super::format::{format_fixed, format_ratio, format_sci};
use super::ReportError;

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
}

impl NumberFormat {
    /// Formats one value.
    pub fn format(self, v: f64) -> String {
        match self {
            NumberFormat::Sci => format_sci(v),
            NumberFormat::Fixed(decimals) => format_fixed(v, decimals),
            NumberFormat::Ratio => format_ratio(v),
        }
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
    /// point by mean test MSE`.
    pub notes: Vec<String>,
    /// Who explains the bold and underline marks.
    #[serde(default)]
    pub legend: Legend,
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
    /// `histoftree.md` §10); printed after the ε (`ε=1 · Aligned`). Empty: none.
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
}

impl NumberFormat {
    fn text_of(self, value: Option<f64>) -> String {
        value.map(|v| self.format(v)).unwrap_or_default()
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
        }
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
    /// `format` (marks are kept; cells without a value get an empty text). Summary rows
    /// keep their texts (they are counts, formatted apart).
    pub fn fill_text(&mut self, format: NumberFormat) {
        for cell in self.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
            cell.text = format.text_of(cell.value);
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
