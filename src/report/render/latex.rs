//! The LaTeX view of a table, what `table.tex.tera` prints: the parts of a table split
//! by ε, rows or (transposed) columns as data sets, header cells and marked-up cells.

use serde::Serialize;

use super::{epsilon_text, escape_latex, escape_latex_math, notes_with_legend, ViewRow};
use crate::report::table::{Cell, ColumnGroup, Row, Table};

/// `tab:<name>` with characters that are unsafe in a `\label` replaced by `-`.
fn latex_label(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':') {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("tab:{safe}")
}

/// A group header cell of the LaTeX view.
#[derive(Serialize, Clone)]
struct LatexGroup {
    /// Escaped label, or `$\varepsilon = 2$`.
    text: String,
    /// Number of columns spanned.
    span: usize,
}

/// The row label for LaTeX, escaped, with the row's scale factor in math:
/// `Parkinson's ($\times 10^{-2}$)`.
fn latex_row_label(r: &Row) -> String {
    match r.scale {
        Some(k) => format!(r"{} ($\times 10^{{{k}}}$)", escape_latex(&r.label)),
        None => escape_latex(&r.label),
    }
}

/// What the LaTeX template prints: one float per part (one part unless the layout
/// splits by ε), the notes under the last one. The fields of the first part are also
/// given at the top level (`caption`, `colspec`, `rows`, …) for templates written before
/// the layouts.
#[derive(Serialize)]
pub(super) struct LatexView {
    name: String,
    /// `table`, or `sidewaystable` for a landscape layout.
    env: &'static str,
    landscape: bool,
    parts: Vec<LatexPart>,
    notes: Vec<String>,
    #[serde(flatten)]
    first: LatexPart,
}

/// One tabular of the LaTeX view, in its own float.
#[derive(Serialize, Clone)]
struct LatexPart {
    caption: String,
    label: String,
    colspec: String,
    /// Number of tabular columns (row labels included), for full-width heading rows.
    ncols: usize,
    row_header: String,
    has_group_header: bool,
    groups: Vec<LatexGroup>,
    /// `\cmidrule` column ranges like `3-7` (tabular columns, 1-based, row labels = 1).
    rules: Vec<String>,
    columns: Vec<String>,
    /// The data rows in sections, each under an optional heading row spanning the table
    /// (the column groups of a transposed table); one untitled section otherwise.
    sections: Vec<LatexSection>,
    /// Every data row, sections flattened.
    rows: Vec<ViewRow>,
    summary_rows: Vec<ViewRow>,
}

/// A run of data rows under an optional heading.
#[derive(Serialize, Clone)]
struct LatexSection {
    /// Empty: no heading row.
    title: String,
    rows: Vec<ViewRow>,
}

fn latex_group_text(g: &ColumnGroup) -> String {
    match g.epsilon {
        Some(e) if g.block.is_empty() => format!(r"$\varepsilon = {}$", epsilon_text(e)),
        Some(e) => format!(
            r"$\varepsilon = {}$ {}",
            epsilon_text(e),
            escape_latex(&format!("· {}", g.block))
        ),
        None => escape_latex(&g.label),
    }
}

fn latex_cell(c: &Cell) -> String {
    if c.value.is_none() {
        return "--".to_string();
    }
    let text = escape_latex(&c.text);
    let mut s = if c.bold {
        format!(r"\textbf{{{text}}}")
    } else if c.underline {
        format!(r"\underline{{{text}}}")
    } else {
        text
    };
    if c.star {
        s.push_str("$^*$");
    }
    s
}

/// A header cell of one or two lines: `first` over `second` in a nested tabular when
/// `second` is not empty.
fn stacked(first: &str, second: &str) -> String {
    if second.is_empty() {
        first.to_string()
    } else {
        format!(r"\begin{{tabular}}[b]{{@{{}}c@{{}}}}{first}\\{second}\end{{tabular}}")
    }
}

/// A column name as a LaTeX header cell: a name with a parenthesized part after its
/// first character breaks before the parenthesis, `LPCT-prune` over `(Maxedge)`, as the
/// papers stack method and variant; other names stay on one line.
fn latex_column_header(name: &str) -> String {
    match name.find('(') {
        Some(i) if i > 0 => stacked(
            &escape_latex(name[..i].trim_end()),
            &escape_latex(&name[i..]),
        ),
        _ => escape_latex(name),
    }
}

/// A row label as a LaTeX column header of a transposed table: the label over its scale
/// factor, `Parkinson's` over `($\times 10^{-2}$)`.
fn latex_row_as_header(r: &Row) -> String {
    match r.scale {
        Some(k) => stacked(&escape_latex(&r.label), &format!(r"($\times 10^{{{k}}}$)")),
        None => latex_column_header(&r.label),
    }
}

/// `t` cut into its parts: one per ε when the layout splits (each with the groups
/// without ε and the groups of that ε, the cells and summary cells sliced to match),
/// else `t` alone. The part tables keep the name, caption and row header of `t`.
fn split_parts(t: &Table) -> Vec<Table> {
    let mut epsilons: Vec<f64> = Vec::new();
    for e in t.groups.iter().filter_map(|g| g.epsilon) {
        if !epsilons.iter().any(|x| x.to_bits() == e.to_bits()) {
            epsilons.push(e);
        }
    }
    if !t.layout.split || epsilons.len() < 2 {
        return vec![t.clone()];
    }
    epsilons
        .iter()
        .map(|e| {
            // Which flattened columns the part keeps.
            let mut keep = Vec::new();
            let mut groups = Vec::new();
            for g in &t.groups {
                let kept = g.epsilon.is_none_or(|x| x.to_bits() == e.to_bits());
                keep.extend(std::iter::repeat_n(kept, g.columns.len()));
                if kept {
                    groups.push(g.clone());
                }
            }
            let slice = |rows: &[Row]| -> Vec<Row> {
                rows.iter()
                    .map(|r| Row {
                        cells: r
                            .cells
                            .iter()
                            .zip(&keep)
                            .filter(|(_, &k)| k)
                            .map(|(c, _)| c.clone())
                            .collect(),
                        ..r.clone()
                    })
                    .collect()
            };
            Table {
                groups,
                rows: slice(&t.rows),
                summary_rows: slice(&t.summary_rows),
                ..t.clone()
            }
        })
        .collect()
}

impl LatexPart {
    /// The part of (part) table `t`, data sets as rows.
    fn rows_as_data_sets(t: &Table, caption: String, label: String) -> LatexPart {
        let groups: Vec<LatexGroup> = t
            .groups
            .iter()
            .map(|g| LatexGroup {
                text: latex_group_text(g),
                span: g.columns.len(),
            })
            .collect();
        let mut rules = Vec::new();
        let mut first = 2; // column 1 holds the row labels
        for (g, lg) in t.groups.iter().zip(&groups) {
            let last = first + g.columns.len() - 1;
            if !lg.text.is_empty() {
                rules.push(format!("{first}-{last}"));
            }
            first = last + 1;
        }
        let rows: Vec<ViewRow> = t
            .rows
            .iter()
            .map(|r| ViewRow::new(r, latex_row_label, latex_cell, false))
            .collect();
        LatexPart {
            caption,
            label,
            colspec: format!("l{}", "r".repeat(t.n_columns())),
            ncols: t.n_columns() + 1,
            row_header: escape_latex(&t.row_header),
            has_group_header: groups.iter().any(|g| !g.text.is_empty()),
            groups,
            rules,
            columns: t
                .columns()
                .iter()
                .map(|(_, c)| latex_column_header(c))
                .collect(),
            sections: vec![LatexSection {
                title: String::new(),
                rows: rows.clone(),
            }],
            rows,
            summary_rows: t
                .summary_rows
                .iter()
                .map(|r| ViewRow::new(r, latex_row_label, latex_cell, true))
                .collect(),
        }
    }

    /// The part of (part) table `t` transposed: one column per data row, then one per
    /// summary row; one row per value column, in one section per column group under a
    /// heading with the group's text (none for an unlabelled group).
    fn columns_as_data_sets(t: &Table, caption: String, label: String) -> LatexPart {
        let n = t.rows.len() + t.summary_rows.len();
        let mut sections = Vec::new();
        let mut index = 0;
        for g in &t.groups {
            let rows = g
                .columns
                .iter()
                .map(|c| {
                    let i = index;
                    index += 1;
                    let mut cells: Vec<String> =
                        t.rows.iter().map(|r| latex_cell(&r.cells[i])).collect();
                    cells.extend(t.summary_rows.iter().map(|r| {
                        let c = &r.cells[i];
                        if c.value.is_none() {
                            String::new()
                        } else {
                            latex_cell(c)
                        }
                    }));
                    ViewRow {
                        label: escape_latex(c),
                        cells,
                    }
                })
                .collect();
            sections.push(LatexSection {
                title: latex_group_text(g),
                rows,
            });
        }
        let mut columns: Vec<String> = t.rows.iter().map(latex_row_as_header).collect();
        columns.extend(t.summary_rows.iter().map(latex_row_as_header));
        let rows = sections.iter().flat_map(|s| s.rows.clone()).collect();
        LatexPart {
            caption,
            label,
            colspec: format!("l{}", "r".repeat(n)),
            ncols: n + 1,
            row_header: "Method".to_string(),
            has_group_header: false,
            groups: Vec::new(),
            rules: Vec::new(),
            columns,
            sections,
            rows,
            summary_rows: Vec::new(),
        }
    }
}

impl LatexView {
    pub(super) fn new(t: &Table) -> LatexView {
        let parts = split_parts(t);
        let caption = escape_latex_math(&t.caption);
        let label = latex_label(&t.name);
        let many = parts.len() > 1;
        let parts: Vec<LatexPart> = parts
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let letter = char::from(b'a' + (k % 26) as u8);
                let eps = p
                    .groups
                    .iter()
                    .find_map(|g| g.epsilon)
                    .map(|e| format!(r"$\varepsilon = {}$", epsilon_text(e)))
                    .unwrap_or_default();
                let (caption, label) = match (many, k) {
                    (false, _) => (caption.clone(), label.clone()),
                    (true, 0) => (format!("{caption} ({letter}) {eps}."), label.clone()),
                    (true, _) => (
                        format!(r"({letter}) {eps}; continued from Table~\ref{{{label}}}."),
                        format!("{label}-{letter}"),
                    ),
                };
                if t.layout.transpose {
                    LatexPart::columns_as_data_sets(p, caption, label)
                } else {
                    LatexPart::rows_as_data_sets(p, caption, label)
                }
            })
            .collect();
        let notes = match &t.notes_file {
            Some(file) => {
                // One paragraph: the short notes, then where the rest is.
                let mut note: Vec<String> =
                    t.short_notes.iter().map(|n| escape_latex_math(n)).collect();
                note.push(format!(r"Full notes: \texttt{{{}}}.", escape_latex(file)));
                vec![note.join(" ")]
            }
            None => notes_with_legend(t, "Bold", "underlined")
                .iter()
                .map(|n| escape_latex_math(n))
                .collect(),
        };
        LatexView {
            name: escape_latex(&t.name),
            env: if t.layout.landscape {
                "sidewaystable"
            } else {
                "table"
            },
            landscape: t.layout.landscape,
            first: parts[0].clone(),
            parts,
            notes,
        }
    }
}
