//! Rendering a [`Table`] to LaTeX (booktabs) and GitHub Markdown through tera templates.
//!
//! The templates `templates/table.tex.tera` and `templates/table.md.tera` are embedded at
//! compile time; [`Templates::from_dir`] (or [`render_with_dir`]) loads replacements from
//! a directory. Each template receives two variables:
//! - `view`: the table prepared for that format, every string already escaped and every
//!   cell already marked up (LaTeX: `caption`, `label`, `colspec`, `row_header`,
//!   `has_group_header`, `groups[].{text, span}`, `rules[]`, `columns[]`,
//!   `rows[].{label, cells[]}`, `summary_rows[].{label, cells[]}`, `notes[]`; Markdown:
//!   `caption`, `header[]`, `align[]`, `rows[].{label, cells[]}`,
//!   `summary_rows[].{label, cells[]}`, `notes[]`);
//! - `table`: the raw [`Table`] as serialized by serde, for templates that want to mark up
//!   cells differently (its strings are not escaped).
//!
//! Rendering is deterministic: the same table gives byte-identical output.
//!
//! This module holds the templates and what both formats share (the rows of a view, the
//! legend of the marks, ε as text); `escape` holds the escaping of text and math,
//! `latex` and `markdown` the view each format's template prints.

use std::path::Path;

use serde::Serialize;
use tera::{Context, Tera};

use super::table::{Cell, Legend, Row, Table};
use super::ReportError;

mod escape;
mod latex;
mod markdown;

pub use escape::{
    escape_latex, escape_latex_math, escape_markdown, escape_markdown_math, math_to_unicode,
};
use latex::LatexView;
use markdown::MarkdownView;

/// File name of the LaTeX template, in `templates/` and in override directories.
pub const LATEX_TEMPLATE_NAME: &str = "table.tex.tera";
/// File name of the Markdown template, in `templates/` and in override directories.
pub const MARKDOWN_TEMPLATE_NAME: &str = "table.md.tera";

const LATEX_TEMPLATE: &str = include_str!("../../templates/table.tex.tera");
const MARKDOWN_TEMPLATE: &str = include_str!("../../templates/table.md.tera");

/// An output format of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// LaTeX `table` float with a booktabs `tabular` (needs `\usepackage{booktabs}` and
    /// `\usepackage{graphicx}`).
    Latex,
    /// GitHub-flavoured Markdown pipe table.
    Markdown,
}

impl OutputFormat {
    /// The template file name for this format.
    pub fn template_name(self) -> &'static str {
        match self {
            OutputFormat::Latex => LATEX_TEMPLATE_NAME,
            OutputFormat::Markdown => MARKDOWN_TEMPLATE_NAME,
        }
    }

    /// The output file extension, without the dot: `tex` or `md`.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Latex => "tex",
            OutputFormat::Markdown => "md",
        }
    }

    fn embedded(self) -> &'static str {
        match self {
            OutputFormat::Latex => LATEX_TEMPLATE,
            OutputFormat::Markdown => MARKDOWN_TEMPLATE,
        }
    }
}

const FORMATS: [OutputFormat; 2] = [OutputFormat::Latex, OutputFormat::Markdown];

/// A parsed set of the two table templates, reusable across tables.
pub struct Templates {
    tera: Tera,
    /// Where each template came from (for error messages), in the order of `FORMATS`.
    origins: [String; 2],
}

impl Templates {
    /// The templates embedded in the binary.
    ///
    /// # Errors
    /// [`ReportError::Template`] if an embedded template does not parse (a bug).
    pub fn embedded() -> Result<Templates, ReportError> {
        Templates::build(|f| Ok((f.embedded().to_string(), f.template_name().to_string())))
    }

    /// Templates from `dir`: `dir/table.tex.tera` and `dir/table.md.tera` where they
    /// exist, the embedded template for a file that is absent.
    ///
    /// # Errors
    /// [`ReportError::TemplateDir`] if `dir` is not a directory,
    /// [`ReportError::TemplateIo`] if a file exists but cannot be read,
    /// [`ReportError::Template`] if a template does not parse (with its path, line and
    /// column).
    pub fn from_dir(dir: &Path) -> Result<Templates, ReportError> {
        if !dir.is_dir() {
            return Err(ReportError::TemplateDir {
                path: dir.to_path_buf(),
            });
        }
        Templates::build(|f| {
            let path = dir.join(f.template_name());
            if path.is_file() {
                let text =
                    std::fs::read_to_string(&path).map_err(|source| ReportError::TemplateIo {
                        path: path.clone(),
                        source,
                    })?;
                Ok((text, path.display().to_string()))
            } else {
                Ok((f.embedded().to_string(), f.template_name().to_string()))
            }
        })
    }

    fn build(
        mut source: impl FnMut(OutputFormat) -> Result<(String, String), ReportError>,
    ) -> Result<Templates, ReportError> {
        let mut tera = Tera::default();
        // Escaping is done in Rust, per format; tera's HTML escaping must stay off.
        tera.autoescape_on(vec![]);
        let mut origins = [String::new(), String::new()];
        for (i, f) in FORMATS.into_iter().enumerate() {
            let (text, origin) = source(f)?;
            tera.add_raw_template(f.template_name(), &text)
                .map_err(|e| template_error(&origin, e))?;
            origins[i] = origin;
        }
        Ok(Templates { tera, origins })
    }

    /// Validates `t` ([`Table::validate`]) and renders it in `format`.
    ///
    /// # Errors
    /// The validation errors of [`Table::validate`], or [`ReportError::Template`] if the
    /// template fails at render time (e.g. an override uses an unknown variable).
    pub fn render(&self, t: &Table, format: OutputFormat) -> Result<String, ReportError> {
        t.validate()?;
        let mut ctx = Context::new();
        ctx.insert("table", t);
        match format {
            OutputFormat::Latex => ctx.insert("view", &LatexView::new(t)),
            OutputFormat::Markdown => ctx.insert("view", &MarkdownView::new(t)),
        }
        let i = FORMATS.iter().position(|&f| f == format).unwrap_or(0);
        self.tera
            .render(format.template_name(), &ctx)
            .map_err(|e| template_error(&self.origins[i], e))
    }
}

/// Renders `t` in `format` with the embedded templates.
///
/// # Errors
/// See [`Templates::render`].
pub fn render(t: &Table, format: OutputFormat) -> Result<String, ReportError> {
    Templates::embedded()?.render(t, format)
}

/// Renders `t` in `format` with the template of that format from `dir` if it holds one
/// (`table.tex.tera` / `table.md.tera`), the embedded one otherwise.
///
/// # Errors
/// See [`Templates::from_dir`] and [`Templates::render`].
pub fn render_with_dir(t: &Table, format: OutputFormat, dir: &Path) -> Result<String, ReportError> {
    Templates::from_dir(dir)?.render(t, format)
}

/// Renders `t` as a LaTeX `table` float: `\caption`, `\label{tab:<name>}`, a booktabs
/// `tabular` with one `\multicolumn` header (and `\cmidrule`) per labelled group, bold
/// cells in `\textbf`, underlined ones in `\underline`, starred ones followed by `$^*$`,
/// missing ones as `--`, the summary rows after a `\midrule` (cells without a value
/// empty), and the notes (with a legend of the marks, see [`super::Legend`]) in a
/// footnotesize paragraph under the tabular. All text is escaped with [`escape_latex`].
///
/// The table fits the text width of any document: columns are set 4 pt apart
/// (`\tabcolsep`) and a tabular still wider than `\linewidth` is shrunk to it with
/// `\resizebox` (as the LPDT paper's eleven-column Table 2 is); narrower tables keep their
/// natural size. Needs `\usepackage{booktabs}` and `\usepackage{graphicx}`.
///
/// # Errors
/// See [`Templates::render`].
pub fn render_latex(t: &Table) -> Result<String, ReportError> {
    render(t, OutputFormat::Latex)
}

/// Renders `t` as a GitHub Markdown pipe table: a `Table: <caption>` line, one header row
/// whose names carry their group (`ε=2 LPDT-M`), bold cells as `**…**`, underlined ones
/// in italics (`_…_`: plain Markdown, no HTML, since Markdown has no underline), starred
/// ones followed by `\*`, missing ones as `—`, and the notes (with a legend of the marks,
/// see [`super::Legend`]) as a list below. The summary rows follow the data rows in the
/// same table (a pipe table has no rule between rows, and a separator line would be read
/// as data), their cells without a value empty, so every line has the same number of
/// cells. All text is escaped with [`escape_markdown`].
///
/// # Errors
/// See [`Templates::render`].
pub fn render_markdown(t: &Table) -> Result<String, ReportError> {
    render(t, OutputFormat::Markdown)
}

/// The companion notes file of a LaTeX table (`notes-<table>.md`, see
/// [`Table::notes_file`]): a heading, the caption and every note (with the legend of
/// the bold and underline marks) as a Markdown list, math as Unicode.
///
/// ```
/// use dp_repro::report::{render_notes, Table};
/// let mut t = Table::new("t2", "Mean MSE at $\\varepsilon = 2$.", "Data");
/// t.notes.push("oracle selection".into());
/// assert_eq!(render_notes(&t), "# Notes to table t2\n\nMean MSE at ε = 2.\n\n- oracle selection\n");
/// ```
pub fn render_notes(t: &Table) -> String {
    let mut out = format!("# Notes to table {}\n\n", escape_markdown(&t.name));
    if !t.caption.is_empty() {
        out.push_str(&escape_markdown_math(&t.caption));
        out.push_str("\n\n");
    }
    for n in notes_with_legend(t, "Bold", "underlined") {
        out.push_str("- ");
        out.push_str(&escape_markdown_math(&n));
        out.push('\n');
    }
    out
}

/// ε as text: `2`, `0.5` (shortest representation that round-trips).
fn epsilon_text(e: f64) -> String {
    format!("{}", e)
}

/// An error and its chain of causes as one message (tera hides the useful part of a
/// template error in its causes).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// Collects tera's error and its causes into one message.
fn template_error(origin: &str, e: tera::Error) -> ReportError {
    ReportError::Template {
        template: origin.to_string(),
        message: error_chain(&e),
    }
}

/// The notes of `t` with a legend of its bold (best) / underline (second-best) marks, as
/// each format prints them (`bold`, `second`), inserted after the first note (the one
/// that says what the numbers are); the notes unchanged when no cell carries either mark
/// or when the notes explain the marks themselves ([`Legend::InNotes`]).
fn notes_with_legend(t: &Table, bold: &str, second: &str) -> Vec<String> {
    let cells = || t.rows.iter().flat_map(|r| &r.cells);
    let (any_best, any_second) = (cells().any(|c| c.bold), cells().any(|c| c.underline));
    let mut notes = t.notes.clone();
    if t.legend == Legend::InNotes || !(any_best || any_second) {
        return notes;
    }
    let block = if t.groups.iter().any(|g| g.epsilon.is_some()) {
        "the methods of each ε block"
    } else {
        "the methods of each column group"
    };
    let legend = match (any_best, any_second) {
        (true, true) => format!("{bold}: best, {second}: second best among {block}."),
        (true, false) => format!("{bold}: best among {block}."),
        _ => format!("{second}: second best among {block}."),
    };
    notes.insert(notes.len().min(1), legend);
    notes
}

/// A row of a view: escaped label and marked-up cells.
#[derive(Serialize, Clone)]
struct ViewRow {
    label: String,
    cells: Vec<String>,
}

impl ViewRow {
    /// The view of a data row (`cell` marks up each cell) or, with `summary`, of a summary
    /// row, whose cells without a value are empty; `label` escapes the label and adds the
    /// row's scale factor.
    fn new(r: &Row, label: fn(&Row) -> String, cell: fn(&Cell) -> String, summary: bool) -> Self {
        ViewRow {
            label: label(r),
            cells: r
                .cells
                .iter()
                .map(|c| {
                    if summary && c.value.is_none() {
                        String::new()
                    } else {
                        cell(c)
                    }
                })
                .collect(),
        }
    }
}
