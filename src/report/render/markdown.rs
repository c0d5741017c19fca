//! The Markdown view of a table, what `table.md.tera` prints: a header whose names carry
//! their group, marked-up cells, row labels with their scale in superscripts.

use serde::Serialize;

use super::escape::superscript_char;
use super::{epsilon_text, escape_markdown, escape_markdown_math, notes_with_legend, ViewRow};
use crate::report::table::{Cell, Row, Table};

/// The row label for Markdown, escaped, with the row's scale factor in Unicode
/// superscripts: `Parkinson's (×10⁻²)`.
fn markdown_row_label(r: &Row) -> String {
    match r.scale {
        Some(k) => format!("{} (×10{})", escape_markdown(&r.label), superscript(k)),
        None => escape_markdown(&r.label),
    }
}

/// An integer in Unicode superscript digits: `-2` → `⁻²`.
fn superscript(k: i32) -> String {
    k.to_string()
        .chars()
        .map(|c| superscript_char(c).unwrap_or(c))
        .collect()
}

/// What the Markdown template prints.
#[derive(Serialize)]
pub(super) struct MarkdownView {
    caption: String,
    /// Header cells: the row header, then `ε=2 LPDT-M`-style names.
    header: Vec<String>,
    /// Alignment cells: `:---` for the row labels, `---:` for the values.
    align: Vec<String>,
    rows: Vec<ViewRow>,
    summary_rows: Vec<ViewRow>,
    notes: Vec<String>,
}

fn markdown_cell(c: &Cell) -> String {
    if c.value.is_none() {
        return "—".to_string();
    }
    let text = escape_markdown(&c.text);
    let mut s = if c.bold {
        format!("**{text}**")
    } else if c.underline {
        format!("_{text}_")
    } else {
        text
    };
    if c.star {
        s.push_str(r"\*");
    }
    s
}

impl MarkdownView {
    pub(super) fn new(t: &Table) -> MarkdownView {
        let mut header = vec![escape_markdown(&t.row_header)];
        for g in &t.groups {
            let prefix = match g.epsilon {
                Some(e) if g.block.is_empty() => format!("ε={} ", epsilon_text(e)),
                Some(e) => format!("ε={} · {} ", epsilon_text(e), escape_markdown(&g.block)),
                None if g.label.is_empty() => String::new(),
                None => format!("{} ", escape_markdown(&g.label)),
            };
            header.extend(
                g.columns
                    .iter()
                    .map(|c| format!("{prefix}{}", escape_markdown(c))),
            );
        }
        let mut align = vec![":---".to_string()];
        align.extend(vec!["---:".to_string(); t.n_columns()]);
        MarkdownView {
            caption: escape_markdown_math(&t.caption),
            header,
            align,
            rows: t
                .rows
                .iter()
                .map(|r| ViewRow::new(r, markdown_row_label, markdown_cell, false))
                .collect(),
            summary_rows: t
                .summary_rows
                .iter()
                .map(|r| ViewRow::new(r, markdown_row_label, markdown_cell, true))
                .collect(),
            notes: notes_with_legend(t, "Bold", "italics")
                .iter()
                .map(|n| escape_markdown_math(n))
                .collect(),
        }
    }
}
