//! Reporting: the table model, number formatting, and rendering to LaTeX and Markdown
//! through tera templates (docs/architecture.md, `report/`).
//!
//! A stage upstream builds a [`Table`] (rows = data sets, columns = methods grouped by ε,
//! cells = mean test metric with bold / underline / `*` marks, optional summary rows); [`render_latex`] and
//! [`render_markdown`] print it with the templates in `templates/` (embedded at compile
//! time, overridable from a directory with [`render_with_dir`] or [`Templates::from_dir`]).
//!
//! ```
//! use dp_repro::report::{render_markdown, ColumnGroup, NumberFormat, Row, Table};
//! let mut t = Table::new("demo", "Average MSE", "Data");
//! t.groups.push(ColumnGroup::plain("", vec!["DT".into()]));
//! t.groups.push(ColumnGroup::private(2.0, vec!["LPDT-M".into(), "PHIST".into()]));
//! t.rows.push(Row::from_values("ABA", &[Some(5.67), Some(10.1), None], NumberFormat::Sci));
//! let md = render_markdown(&t).unwrap();
//! assert!(md.contains("| ABA | 5.67e+0 | 1.01e+1 | — |"));
//! ```

pub mod figure;
pub mod format;
pub mod render;
pub mod selected;
pub mod table;

use std::path::PathBuf;

pub use figure::{
    render_figures, validate_figures, write_panel, FigureContext, FigureError, FigureSpec,
    LegendPosition, Line, Panel, Point,
};
pub use format::{
    format_fixed, format_ratio, format_sci, format_significant, significant_decimals,
};
pub use render::{
    error_chain, escape_latex, escape_latex_math, escape_markdown, escape_markdown_math,
    math_to_unicode, render, render_latex, render_markdown, render_notes, render_with_dir,
    OutputFormat, Templates,
};
pub use table::{Cell, ColumnGroup, Layout, Legend, NumberFormat, Row, Table};

/// Errors of table validation and rendering.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// [`Table::name`] is empty.
    #[error("table name is empty; a name is needed for the LaTeX label `tab:<name>` and the output file names")]
    EmptyName,
    /// The table has no value column at all.
    #[error("table `{table}` has no columns; add at least one ColumnGroup with a column")]
    NoColumns {
        /// Table name.
        table: String,
    },
    /// A column group without columns.
    #[error("table `{table}`: column group {index} (`{label}`) has no columns; every group needs at least one")]
    EmptyGroup {
        /// Table name.
        table: String,
        /// Index of the group in [`Table::groups`].
        index: usize,
        /// Label of the group.
        label: String,
    },
    /// A row whose number of cells differs from the number of columns.
    #[error("table `{table}`: row `{row}` (index {index}) has {found} cells, but the column groups define {expected} columns: {columns}")]
    CellCount {
        /// Table name.
        table: String,
        /// Row label.
        row: String,
        /// Row index in [`Table::rows`].
        index: usize,
        /// Number of cells in the row.
        found: usize,
        /// Number of columns over all groups.
        expected: usize,
        /// The columns, comma-separated, each prefixed by its group label.
        columns: String,
    },
    /// A cell marked both bold and underlined.
    #[error("table `{table}`: cell (row `{row}`, column `{column}`) is marked both bold and underlined; a cell carries at most one of the two marks")]
    BoldAndUnderline {
        /// Table name.
        table: String,
        /// Row label.
        row: String,
        /// Column name, prefixed by its group label.
        column: String,
    },
    /// A cell with a value but an empty text.
    #[error("table `{table}`: cell (row `{row}`, column `{column}`) has a value but no text; build cells with Cell::new or call Table::fill_text")]
    MissingText {
        /// Table name.
        table: String,
        /// Row label.
        row: String,
        /// Column name, prefixed by its group label.
        column: String,
    },
    /// A template failed to parse or to render (the message includes tera's cause chain,
    /// with the line and column of a parse error).
    #[error("template `{template}`: {message}")]
    Template {
        /// Template name, e.g. `table.tex.tera`, or its path when loaded from a directory.
        template: String,
        /// tera's error and its causes.
        message: String,
    },
    /// The template directory given for overrides does not exist or is not a directory.
    #[error("template directory `{}` does not exist or is not a directory; it should hold table.tex.tera and/or table.md.tera", path.display())]
    TemplateDir {
        /// The directory.
        path: PathBuf,
    },
    /// A template file could not be read.
    #[error("cannot read template file `{}`: {source}", path.display())]
    TemplateIo {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}
