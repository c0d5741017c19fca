//! Tests of `dp_repro::report`: number formatting, the table model, and rendering to
//! LaTeX and Markdown (hand-written snapshots, structural checks, escaping, overrides).

use std::path::Path;
use std::process::Command;

use dp_repro::report::{
    escape_latex, escape_markdown, format_fixed, format_sci, render, render_latex, render_markdown,
    render_notes, render_with_dir, Cell, ColumnGroup, Layout, NumberFormat, OutputFormat,
    ReportError, Row, Table, Templates,
};

// ---------------------------------------------------------------- format_sci / fixed

#[test]
fn format_sci_paper_examples() {
    assert_eq!(format_sci(10.1), "1.01e+1");
    assert_eq!(format_sci(0.0212), "2.12e-2");
    assert_eq!(format_sci(175000.0), "1.75e+5");
    assert_eq!(format_sci(4.08e-27), "4.08e-27");
    assert_eq!(format_sci(0.0), "0.00e+0");
}

#[test]
fn format_sci_signs_and_special_values() {
    assert_eq!(format_sci(-0.0), "0.00e+0");
    assert_eq!(format_sci(-3.5), "-3.50e+0");
    assert_eq!(format_sci(-0.0212), "-2.12e-2");
    assert_eq!(format_sci(f64::NAN), "nan");
    assert_eq!(format_sci(f64::INFINITY), "inf");
    assert_eq!(format_sci(f64::NEG_INFINITY), "-inf");
}

#[test]
fn format_sci_rounding_and_exponents() {
    // Rounding that carries into the exponent.
    assert_eq!(format_sci(9.996), "1.00e+1");
    assert_eq!(format_sci(0.99996), "1.00e+0");
    assert_eq!(format_sci(99999.0), "1.00e+5");
    assert_eq!(format_sci(-9.999), "-1.00e+1");
    // Plain rounding.
    assert_eq!(format_sci(9.994), "9.99e+0");
    assert_eq!(format_sci(123.456), "1.23e+2");
    assert_eq!(format_sci(1.0), "1.00e+0");
    assert_eq!(format_sci(1.0e7), "1.00e+7");
    assert_eq!(format_sci(0.5), "5.00e-1");
    // Extremes: three-digit exponents, subnormals.
    assert_eq!(format_sci(1.0e100), "1.00e+100");
    assert_eq!(format_sci(f64::MAX), "1.80e+308");
    assert_eq!(format_sci(f64::MIN_POSITIVE), "2.23e-308");
    assert_eq!(format_sci(5e-324), "4.94e-324");
}

/// Every number of LPDT Table 2 as transcribed in `specs/reported/` (the copy that
/// tests/check.rs compares with the shared one) survives a parse → format round trip: our
/// format is the paper's format.
#[test]
fn format_sci_round_trips_reported_lpdt_table2() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/reported/lpdt_table2.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let value = line.split(',').nth(3).expect("value column");
        if let Ok(v) = value.parse::<f64>() {
            assert_eq!(format_sci(v), value, "line `{line}`");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} values checked");
}

#[test]
fn format_fixed_cases() {
    assert_eq!(format_fixed(0.91234, 3), "0.912");
    assert_eq!(format_fixed(0.9125, 2), "0.91");
    assert_eq!(format_fixed(0.995, 1), "1.0");
    assert_eq!(format_fixed(12.5, 0), "12");
    assert_eq!(format_fixed(13.5, 0), "14");
    assert_eq!(format_fixed(1234.5678, 2), "1234.57");
    assert_eq!(format_fixed(-2.345, 1), "-2.3");
    assert_eq!(format_fixed(-0.0001, 2), "0.00");
    assert_eq!(format_fixed(-0.0, 3), "0.000");
    assert_eq!(format_fixed(0.0, 0), "0");
    assert_eq!(format_fixed(f64::NAN, 2), "nan");
    assert_eq!(format_fixed(f64::INFINITY, 2), "inf");
    assert_eq!(format_fixed(f64::NEG_INFINITY, 2), "-inf");
}

#[test]
fn number_format_dispatch() {
    assert_eq!(NumberFormat::Sci.format(10.1), "1.01e+1");
    assert_eq!(NumberFormat::Fixed(2).format(0.876), "0.88");
    assert_eq!(Cell::new(Some(0.0212), NumberFormat::Sci).text, "2.12e-2");
    assert_eq!(Cell::new(None, NumberFormat::Sci).text, "");
}

// ---------------------------------------------------------------- table model

/// A small LPDT-Table-2-like table: DT, then two ε groups, with a missing cell, a star,
/// and names that need escaping.
fn sample() -> Table {
    let s = NumberFormat::Sci;
    let mut t = Table::new("lpdt_table2", "Average MSE over 50% & more", "Data");
    t.groups.push(ColumnGroup::plain("", vec!["DT".into()]));
    t.groups.push(ColumnGroup::private(
        2.0,
        vec!["LPDT-M".into(), "min_leaf".into(), "PHIST".into()],
    ));
    t.groups.push(ColumnGroup::private(
        0.5,
        vec!["LPDT-M".into(), "PHIST".into()],
    ));
    t.rows.push(Row::from_values(
        "ABA",
        &[
            Some(5.67),
            Some(10.1),
            Some(10.2),
            Some(18.9),
            Some(8.38),
            Some(10.5),
        ],
        s,
    ));
    t.rows.push(Row::from_values(
        "BUI_2",
        &[
            Some(175000.0),
            Some(1.5e6),
            Some(1.64e6),
            None,
            Some(1.44e6),
            None,
        ],
        s,
    ));
    // Marks as stats::rank_marks would set them (ranking lives in stats, not here).
    for (r, c) in [(0, 1), (0, 4), (1, 1)] {
        t.rows[r].cells[c].bold = true;
    }
    for (r, c) in [(0, 2), (0, 5), (1, 2)] {
        t.rows[r].cells[c].underline = true;
    }
    t.rows[0].cells[4].star = true; // ε = 0.5, LPDT-M
    t.rows[1].cells[1].star = true; // ε = 2, LPDT-M
    t.rows[1].cells[2].star = true; // ε = 2, min_leaf (second)
    t.notes
        .push("oracle selection: best grid point by mean test MSE".into());
    t.notes.push("PHIST ran out of memory on BUI_2 (#2)".into());
    t
}

#[test]
fn validate_accepts_sample() {
    sample().validate().unwrap();
    assert_eq!(sample().n_columns(), 6);
}

#[test]
fn validate_rejects_wrong_cell_count() {
    let mut t = sample();
    t.rows[1].cells.pop();
    let err = t.validate().unwrap_err();
    assert!(matches!(
        err,
        ReportError::CellCount {
            found: 5,
            expected: 6,
            index: 1,
            ..
        }
    ));
    let msg = err.to_string();
    assert!(msg.contains("table `lpdt_table2`"), "{msg}");
    assert!(msg.contains("row `BUI_2` (index 1) has 5 cells"), "{msg}");
    assert!(msg.contains("define 6 columns"), "{msg}");
    assert!(msg.contains("DT, ε = 2 / LPDT-M"), "{msg}");
    // Renderers validate first.
    assert!(matches!(
        render_latex(&t),
        Err(ReportError::CellCount { .. })
    ));
    assert!(matches!(
        render_markdown(&t),
        Err(ReportError::CellCount { .. })
    ));
}

#[test]
fn validate_rejects_other_defects() {
    let mut t = sample();
    t.rows[0].cells[1].underline = true; // already bold
    let msg = t.validate().unwrap_err().to_string();
    assert!(
        msg.contains("row `ABA`, column `ε = 2 / LPDT-M`")
            && msg.contains("both bold and underlined"),
        "{msg}"
    );

    let mut t = sample();
    t.rows[0].cells[0].text.clear();
    assert!(matches!(t.validate(), Err(ReportError::MissingText { .. })));
    t.fill_text(NumberFormat::Sci);
    t.validate().unwrap();

    let mut t = sample();
    t.name = " ".into();
    assert!(matches!(t.validate(), Err(ReportError::EmptyName)));

    let mut t = sample();
    t.groups.push(ColumnGroup::private(8.0, vec![]));
    assert!(matches!(
        t.validate(),
        Err(ReportError::EmptyGroup { index: 3, .. })
    ));

    let t = Table::new("empty", "", "Data");
    assert!(matches!(t.validate(), Err(ReportError::NoColumns { .. })));
}

// ---------------------------------------------------------------- escaping

#[test]
fn latex_escaping() {
    assert_eq!(
        escape_latex(r"_ % & # $ { } ~ ^ \"),
        r"\_ \% \& \# \$ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{}"
    );
    assert_eq!(escape_latex("LPDT-M"), "LPDT-M");
    assert_eq!(escape_latex("a--b"), "a-{}-b");
    assert_eq!(
        escape_latex("a<b|c>d"),
        r"a\textless{}b\textbar{}c\textgreater{}d"
    );
    assert_eq!(
        escape_latex("ε = 2, ρ ≤ 1"),
        r"$\varepsilon$ = 2, $\rho$ $\le$ 1"
    );
    assert_eq!(escape_latex("two\nlines"), "two lines");
}

#[test]
fn markdown_escaping() {
    assert_eq!(escape_markdown("min_leaf"), r"min\_leaf");
    assert_eq!(escape_markdown("a|b*c"), r"a\|b\*c");
    assert_eq!(escape_markdown("<u>"), r"\<u\>");
    assert_eq!(escape_markdown(r"\ ` [ ] # ~ $"), r"\\ \` \[ \] \# \~ \$");
    assert_eq!(escape_markdown("LPDT-M ε=2"), "LPDT-M ε=2");
}

// ---------------------------------------------------------------- rendering

const SAMPLE_LATEX: &str = r"% Generated by dp-repro from table lpdt\_table2.
% Requires \usepackage{booktabs} and \usepackage{graphicx} (\resizebox shrinks the
% tabular to the text width when it is wider).
\begin{table}[htbp]
\centering
\caption{Average MSE over 50\% \& more}
\label{tab:lpdt_table2}
\setlength{\tabcolsep}{4pt}%
\sbox0{\begin{tabular}{lrrrrrr}
\toprule
 & \multicolumn{1}{c}{} & \multicolumn{3}{c}{$\varepsilon = 2$} & \multicolumn{2}{c}{$\varepsilon = 0.5$} \\
\cmidrule(lr){3-5} \cmidrule(lr){6-7}
Data & DT & LPDT-M & min\_leaf & PHIST & LPDT-M & PHIST \\
\midrule
ABA & 5.67e+0 & \textbf{1.01e+1} & \underline{1.02e+1} & 1.89e+1 & \textbf{8.38e+0}$^*$ & \underline{1.05e+1} \\
BUI\_2 & 1.75e+5 & \textbf{1.50e+6}$^*$ & \underline{1.64e+6}$^*$ & -- & 1.44e+6 & -- \\
\bottomrule
\end{tabular}}%
\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi
\par\smallskip
{\footnotesize\raggedright
oracle selection: best grid point by mean test MSE\par
Bold: best, underlined: second best among the methods of each $\varepsilon$ block.\par
PHIST ran out of memory on BUI\_2 (\#2)\par
}
\end{table}
";

const SAMPLE_MARKDOWN: &str = r"Table: Average MSE over 50% & more

| Data | DT | ε=2 LPDT-M | ε=2 min\_leaf | ε=2 PHIST | ε=0.5 LPDT-M | ε=0.5 PHIST |
| :--- | ---: | ---: | ---: | ---: | ---: | ---: |
| ABA | 5.67e+0 | **1.01e+1** | _1.02e+1_ | 1.89e+1 | **8.38e+0**\* | _1.05e+1_ |
| BUI\_2 | 1.75e+5 | **1.50e+6**\* | _1.64e+6_\* | — | 1.44e+6 | — |

- oracle selection: best grid point by mean test MSE
- Bold: best, italics: second best among the methods of each ε block.
- PHIST ran out of memory on BUI\_2 (\#2)
";

#[test]
fn latex_snapshot() {
    let out = render_latex(&sample()).unwrap();
    assert_eq!(out, SAMPLE_LATEX, "\n--- got ---\n{out}");
}

#[test]
fn markdown_snapshot() {
    let out = render_markdown(&sample()).unwrap();
    assert_eq!(out, SAMPLE_MARKDOWN, "\n--- got ---\n{out}");
}

/// Number of `sep` characters that are not escaped by a backslash (`\&`, `\|`).
fn unescaped(line: &str, sep: char) -> usize {
    let mut n = 0;
    let mut prev = ' ';
    for c in line.chars() {
        if c == sep && prev != '\\' {
            n += 1;
        }
        // `\\` is an escaped backslash, so the char after it is not escaped.
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    n
}

#[test]
fn latex_structure() {
    let t = sample();
    let out = render_latex(&t).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    let body_start = lines.iter().position(|l| *l == r"\midrule").unwrap() + 1;
    let body_end = lines.iter().position(|l| *l == r"\bottomrule").unwrap();
    assert_eq!(body_end - body_start, t.rows.len());
    // Every tabular row (group header, column header, body) spans 1 + n_columns columns:
    // its `&` separators plus the extra columns of its `\multicolumn{k}` cells.
    for l in lines.iter().filter(|l| l.ends_with(r" \\")) {
        let extra: usize = l
            .split(r"\multicolumn{")
            .skip(1)
            .map(|rest| rest.split('}').next().unwrap().parse::<usize>().unwrap() - 1)
            .sum();
        assert_eq!(unescaped(l, '&') + extra, t.n_columns(), "line `{l}`");
    }
    // Body rows: exactly n_columns separators.
    for l in &lines[body_start..body_end] {
        assert_eq!(unescaped(l, '&'), t.n_columns(), "line `{l}`");
    }
    assert_eq!(
        unescaped(lines[body_start - 2], '&'),
        t.n_columns(),
        "column header"
    );
    assert_eq!(
        lines.iter().filter(|l| l.ends_with(r" \\")).count(),
        2 + t.rows.len()
    );
    for needle in [
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
        r"\label{tab:lpdt_table2}",
        r"\textbf{1.01e+1}",
        r"\underline{1.02e+1}",
        r"\textbf{8.38e+0}$^*$",
        r"\multicolumn{3}{c}{$\varepsilon = 2$}",
        r"\cmidrule(lr){3-5}",
        r"min\_leaf",
        r"\footnotesize",
    ] {
        assert!(out.contains(needle), "missing `{needle}` in\n{out}");
    }
    // No raw special characters left outside commands: every `_`, `%`, `#` is escaped.
    for (i, c) in out.char_indices() {
        if matches!(c, '_' | '%' | '#') && i > 0 {
            let before = &out[..i];
            let in_label = before
                .rsplit_once(r"\label{")
                .is_some_and(|(_, rest)| !rest.contains('}'));
            let comment = before.rsplit('\n').next().unwrap_or("").starts_with('%');
            // A `%` that ends a line on purpose (no space from the line break).
            let line_end = c == '%' && out[i + 1..].starts_with('\n');
            assert!(
                before.ends_with('\\')
                    || in_label
                    || comment
                    || line_end
                    || (c == '%' && before.ends_with('\n')),
                "unescaped `{c}` at byte {i}"
            );
        }
    }
}

#[test]
fn markdown_structure() {
    let t = sample();
    let out = render_markdown(&t).unwrap();
    let table_lines: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table_lines.len(), 2 + t.rows.len());
    // n_columns + 1 cells need n_columns + 2 pipes.
    for l in &table_lines {
        assert_eq!(unescaped(l, '|'), t.n_columns() + 2, "line `{l}`");
    }
    assert!(table_lines[0].contains("| ε=2 LPDT-M |"));
    assert!(out.starts_with("Table: Average MSE"));
    assert!(
        out.contains("**1.01e+1**")
            && out.contains("_1.02e+1_")
            && !out.contains("<u>")
            && out.contains("**8.38e+0**\\*")
    );
    assert!(out.ends_with("- PHIST ran out of memory on BUI\\_2 (\\#2)\n"));
}

#[test]
fn escaping_in_every_text() {
    let s = NumberFormat::Sci;
    let mut t = Table::new("odd name%", "cap_tion & {x}", "Data #");
    t.groups.push(ColumnGroup::plain(
        "grid ~ ^",
        vec!["a|b".into(), r"c\d".into()],
    ));
    t.rows
        .push(Row::from_values("row$1", &[Some(1.0), Some(2.0)], s));
    t.notes.push("50% of *users*".into());
    let tex = render_latex(&t).unwrap();
    assert!(tex.contains(r"\label{tab:odd-name-}"), "{tex}");
    assert!(tex.contains(r"\caption{cap\_tion \& \{x\}}"), "{tex}");
    assert!(
        tex.contains(r"\multicolumn{2}{c}{grid \textasciitilde{} \textasciicircum{}}"),
        "{tex}"
    );
    assert!(
        tex.contains(r"Data \# & a\textbar{}b & c\textbackslash{}d \\"),
        "{tex}"
    );
    assert!(tex.contains(r"row\$1 & 1.00e+0 & 2.00e+0 \\"), "{tex}");
    assert!(tex.contains(r"50\% of *users*\par"), "{tex}");
    let md = render_markdown(&t).unwrap();
    assert!(
        md.contains(r"| Data \# | grid \~ ^ a\|b | grid \~ ^ c\\d |"),
        "{md}"
    );
    assert!(md.contains(r"| row\$1 | 1.00e+0 | 2.00e+0 |"), "{md}");
    assert!(md.contains(r"- 50% of \*users\*"), "{md}");
}

#[test]
fn fixed_format_table_and_no_group_header() {
    let mut t = Table::new("acc", "", "Data");
    t.groups
        .push(ColumnGroup::plain("", vec!["RF".into(), "ERT".into()]));
    t.rows.push(Row::from_values(
        "MUS",
        &[Some(0.91234), Some(0.9)],
        NumberFormat::Fixed(3),
    ));
    let tex = render_latex(&t).unwrap();
    assert!(!tex.contains(r"\multicolumn"), "{tex}");
    assert!(!tex.contains(r"\cmidrule"), "{tex}");
    assert!(!tex.contains(r"\footnotesize"), "{tex}");
    assert!(
        tex.contains(
            "\\toprule\nData & RF & ERT \\\\\n\\midrule\nMUS & 0.912 & 0.900 \\\\\n\\bottomrule\n"
        ),
        "{tex}"
    );
    let md = render_markdown(&t).unwrap();
    assert_eq!(
        md,
        "| Data | RF | ERT |\n| :--- | ---: | ---: |\n| MUS | 0.912 | 0.900 |\n"
    );
}

#[test]
fn deterministic_and_serde_round_trip() {
    let t = sample();
    assert_eq!(render_latex(&t).unwrap(), render_latex(&t).unwrap());
    assert_eq!(render_markdown(&t).unwrap(), render_markdown(&t).unwrap());
    let json = serde_json::to_string(&t).unwrap();
    let back: Table = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
    assert_eq!(render_latex(&back).unwrap(), SAMPLE_LATEX);
    let templates = Templates::embedded().unwrap();
    assert_eq!(
        templates.render(&t, OutputFormat::Markdown).unwrap(),
        SAMPLE_MARKDOWN
    );
    assert_eq!(render(&t, OutputFormat::Latex).unwrap(), SAMPLE_LATEX);
    assert_eq!(OutputFormat::Latex.extension(), "tex");
    assert_eq!(OutputFormat::Markdown.template_name(), "table.md.tera");
}

// ---------------------------------------------------------------- template overrides

#[test]
fn override_from_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("table.md.tera"),
        "{{ view.caption }}|{% for r in table.rows %}{{ r.label }}={{ r.cells | length }};{% endfor %}\n",
    )
    .unwrap();
    let t = sample();
    let md = render_with_dir(&t, OutputFormat::Markdown, dir.path()).unwrap();
    assert_eq!(md, "Average MSE over 50% & more|ABA=6;BUI_2=6;\n");
    // The LaTeX template is absent from the directory: the embedded one is used.
    let tex = render_with_dir(&t, OutputFormat::Latex, dir.path()).unwrap();
    assert_eq!(tex, SAMPLE_LATEX);
}

#[test]
fn override_errors_are_clear() {
    let missing = Path::new("/nonexistent/dp-repro-templates");
    let err = render_with_dir(&sample(), OutputFormat::Latex, missing).unwrap_err();
    assert!(matches!(err, ReportError::TemplateDir { .. }));
    assert!(
        err.to_string().contains("/nonexistent/dp-repro-templates"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("table.tex.tera");
    std::fs::write(&bad, "{% for x in %}\n").unwrap();
    let err = Templates::from_dir(dir.path()).err().expect("parse error");
    let msg = err.to_string();
    assert!(msg.contains(&bad.display().to_string()), "{msg}");

    std::fs::write(&bad, "{{ view.no_such_field }}\n").unwrap();
    let err = render_with_dir(&sample(), OutputFormat::Latex, dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ReportError::Template { .. }), "{msg}");
    assert!(msg.contains("no_such_field"), "{msg}");
}

// ---------------------------------------------------------------- pdflatex

/// Compiles the rendered LaTeX with pdflatex when it is installed; skipped otherwise.
#[test]
fn latex_compiles_with_pdflatex_if_available() {
    let available = Command::new("pdflatex")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !available {
        eprintln!("skipped: pdflatex not found on PATH");
        return;
    }
    let mut t = sample();
    t.notes
        .push(r"odd: _ % & # $ { } ~ ^ \ < > | -- ε ρ ≤ — …".into());
    t.groups[0].label = "non-private".into();
    let body = render_latex(&t).unwrap();
    let doc = format!(
        "\\documentclass{{article}}\n\\usepackage[T1]{{fontenc}}\n\\usepackage{{booktabs}}\n\\usepackage{{graphicx}}\n\\begin{{document}}\n{body}\\end{{document}}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.tex"), doc).unwrap();
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "t.tex"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "pdflatex failed:\n{log}");
    assert!(
        !log.contains("Overfull"),
        "the table overflows the line:\n{log}"
    );
}

// ---------------------------------------------------------------- layouts and notes

#[test]
fn significant_digits_use_an_exponent_only_outside_fixed_point_range() {
    let f = NumberFormat::Significant(3);
    assert_eq!(f.format(10.1), "10.1");
    assert_eq!(f.format(0.0212), "0.0212");
    assert_eq!(f.format(8620.0), "8620");
    assert_eq!(f.format(99_949.0), "99949"); // all integer digits below 10⁵
    assert_eq!(f.format(99_950.0), "1.00e+5");
    assert_eq!(f.format(1.5e6), "1.50e+6");
    assert_eq!(f.format(0.001), "0.00100");
    assert_eq!(f.format(0.000999), "9.99e-4");
    assert_eq!(f.format(4.08e-27), "4.08e-27");
    assert_eq!(f.format(0.0), "0.00");
}

#[test]
fn split_prints_one_float_per_epsilon_with_the_non_private_columns() {
    let mut t = sample();
    t.layout = Layout {
        split: true,
        ..Layout::default()
    };
    let tex = render_latex(&t).unwrap();
    assert_eq!(tex.matches(r"\begin{table}[htbp]").count(), 2, "{tex}");
    assert!(tex.contains(r"(a) $\varepsilon = 2$.}"), "{tex}");
    assert!(
        tex.contains(
            r"\caption{(b) $\varepsilon = 0.5$; continued from Table~\ref{tab:lpdt_table2}.}"
        ),
        "{tex}"
    );
    assert!(tex.contains(r"\label{tab:lpdt_table2-b}"), "{tex}");
    // Part (b): DT, then the two ε = 0.5 columns.
    assert!(
        tex.contains("ABA & 5.67e+0 & \\textbf{8.38e+0}$^*$ & \\underline{1.05e+1} \\\\"),
        "{tex}"
    );
    // The notes follow the last part only.
    assert_eq!(tex.matches(r"\footnotesize").count(), 1, "{tex}");
    // Markdown ignores the layout.
    let mut plain = t.clone();
    plain.layout = Layout::default();
    assert_eq!(
        render_markdown(&t).unwrap(),
        render_markdown(&plain).unwrap()
    );
}

#[test]
fn transpose_puts_data_sets_in_columns_and_groups_in_sections() {
    let mut t = sample();
    t.summary_rows.push(Row::from_values(
        "Rank Sum",
        &[None, Some(3.0), Some(4.0), Some(5.0), Some(2.0), Some(1.0)],
        NumberFormat::Fixed(0),
    ));
    t.rows[0].scale = Some(-2);
    t.layout = Layout {
        transpose: true,
        landscape: true,
        ..Layout::default()
    };
    let tex = render_latex(&t).unwrap();
    assert!(tex.contains(r"\begin{sidewaystable}[htbp]"), "{tex}");
    assert!(tex.contains(r"\usepackage{rotating}"), "{tex}");
    assert!(tex.contains(r"\begin{tabular}{lrrr}"), "{tex}");
    assert!(
        tex.contains(r"Method & \begin{tabular}[b]{@{}c@{}}ABA\\($\times 10^{-2}$)\end{tabular} & BUI\_2 & Rank Sum \\"),
        "{tex}"
    );
    // The non-private group has no heading; each ε group has one.
    assert!(
        tex.contains("\\midrule\nDT & 5.67e+0 & 1.75e+5 &  \\\\\n"),
        "{tex}"
    );
    assert!(
        tex.contains("\\addlinespace\n\\multicolumn{4}{l}{$\\varepsilon = 2$} \\\\\nLPDT-M & \\textbf{1.01e+1} & \\textbf{1.50e+6}$^*$ & 3 \\\\"),
        "{tex}"
    );
}

#[test]
fn latex_keeps_a_short_note_and_the_notes_file_holds_all() {
    let mut t = sample();
    t.short_notes = vec!["Mean test MSE over 20 repetitions.".into()];
    t.notes_file = Some("notes-lpdt_table2.md".into());
    t.notes
        .push(r#"the paper prints "-" at $t_{0.975,n-1}$"#.into());
    let tex = render_latex(&t).unwrap();
    assert!(
        tex.contains("Mean test MSE over 20 repetitions. Full notes: \\texttt{notes-lpdt\\_table2.md}.\\par\n}"),
        "{tex}"
    );
    assert!(!tex.contains("PHIST ran out of memory"), "{tex}");
    let md = render_markdown(&t).unwrap();
    assert!(
        md.contains("- PHIST ran out of memory on BUI\\_2 (\\#2)"),
        "{md}"
    );
    let notes = render_notes(&t);
    assert!(
        notes.starts_with("# Notes to table lpdt\\_table2\n\n"),
        "{notes}"
    );
    assert!(
        notes.contains("- Bold: best, underlined: second best"),
        "{notes}"
    );
    assert!(
        notes.contains(r#"- the paper prints "-" at t\_{0.975,n−1}"#),
        "{notes}"
    );
}

#[test]
fn latex_quotes_are_balanced_and_math_passes_through() {
    assert_eq!(
        escape_latex(r#"prints "-" (the 'lost' caption), Parkinson's"#),
        r"prints ``-'' (the `lost' caption), Parkinson's"
    );
    let mut t = sample();
    t.caption = "DiPriMe: $N_T = 10$, ρ = 0.5, costs $5".into();
    let tex = render_latex(&t).unwrap();
    assert!(
        tex.contains(r"\caption{DiPriMe: $N_T = 10$, $\rho$ = 0.5, costs \$5}"),
        "{tex}"
    );
    let md = render_markdown(&t).unwrap();
    assert!(
        md.starts_with("Table: DiPriMe: N\\_T = 10, ρ = 0.5, costs \\$5\n"),
        "{md}"
    );
}
