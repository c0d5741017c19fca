//! Every table of the specs in `specs/` fits the page: rendered to LaTeX from its real
//! spec definition, each tabular's natural width is at most 1/0.8 of a 6.5-inch line
//! (469.75 pt), or of the 9-inch text height (650.43 pt) for a landscape
//! `sidewaystable`, so `\resizebox` never shrinks it below 80 %; and the notes under it
//! take at most three lines.
//!
//! The results are made in-process (no run): every selected grid point gets ten
//! repetitions of a value that prints as wide as the table's number format allows
//! (`2.13e+6` for MSEs, `1.59 ± 0.07` for the DiPriMe intervals, `0.8381` for accuracies,
//! `22.6` for ratios), and every cell of the compared methods carries the widest marks
//! its convention can give (bold and `*`), so the measured width bounds what a real run
//! prints.
//!
//! The width is measured with pdflatex when it is installed (the tabular is set in box 0
//! by the template; the test document reports `\wd0` from a redefined `\usebox`).
//! Without pdflatex it is estimated from the rendered text with the widths of the bold
//! font for every character and full column padding, deliberately above what TeX sets
//! (when pdflatex is there, the test checks that the estimate is never below the
//! measurement), so a doubtful table fails rather than passes.

mod common;

use common::root;
use dp_repro::report::{render_latex, Layout, Table};
use dp_repro::run::seeds::epsilon_text;
use dp_repro::spec::raw::{Digits, MarkStyle, TableEntry, TableValue};
use dp_repro::spec::{parse_file, validate, Experiment};
use dp_repro::summary::table::{build_table, Selected, SelectedMap};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A 6.5-inch line in TeX points (72.27 pt to the inch).
const TEXT_WIDTH_PT: f64 = 469.75;
/// A 9-inch text height, the line of a `sidewaystable`.
const TEXT_HEIGHT_PT: f64 = 650.43;
/// The smallest scale a table may be printed at.
const MIN_SCALE: f64 = 0.8;
/// The most lines the notes under a table may take.
const MAX_NOTE_LINES: usize = 3;
/// Repetitions of every synthetic result.
const REPS: usize = 10;

/// Every spec of `specs/` and its paper folders that defines tables.
fn spec_paths() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["", "lpdt", "lpct", "histoftree", "diprime"] {
        let dir = root().join("specs").join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            if text.lines().any(|l| l.starts_with("tables:")) {
                out.push(p);
            }
        }
    }
    out
}

fn experiment(path: &Path) -> Experiment {
    let (spec, _) = parse_file(path).unwrap();
    validate(spec, path, &[root().join("datasets")])
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value a cell of data set `dataset` shows at its widest in table `t`, before the
/// row's scale (the DiPriMe factors) is applied.
fn widest_value(t: &TableEntry, exp: &Experiment, dataset: &str) -> f64 {
    let lower = exp.lower_is_better();
    let scale = t.scale.get(dataset).map_or(1.0, |k| 10f64.powi(*k));
    match (t.digits, lower) {
        // `1.59 ± 0.07` under a factor, `241 ± 56` without.
        (Some(Digits::Significant(_)), true) if t.interval.is_some() => {
            if t.scale.contains_key(dataset) {
                1.59 * scale
            } else {
                0.241
            }
        }
        // MSEs in their widest form, an exponent: `2.13e+6`.
        (_, true) => 2.13e6,
        (_, false) => 0.8381,
    }
}

/// The selected results of every data set × method × ε table `t` shows (and its ratio
/// denominator), ten repetitions each around the widest value.
fn synthetic_results(t: &TableEntry, exp: &Experiment) -> SelectedMap {
    let mut selected = SelectedMap::new();
    let mut put = |dataset: &str, method: &str, eps: String, v: f64| {
        let values: BTreeMap<usize, f64> = (0..REPS)
            .map(|r| (r, v * (1.0 + 0.04 * (r as f64 - 4.5))))
            .collect();
        let seconds = (0..REPS).map(|r| (r, 0.00123)).collect();
        selected.insert(
            (dataset.to_string(), method.to_string(), eps),
            Selected::new("p=1", values).with_seconds(seconds),
        );
    };
    for d in &exp.datasets {
        let v = widest_value(t, exp, &d.name);
        for m in &t.non_private {
            put(&d.name, m, String::new(), v);
        }
        let ratio_to = match &t.value {
            TableValue::RatioTo { ratio_to, .. } => Some(ratio_to.clone()),
            _ => None,
        };
        for e in &t.epsilons {
            for m in t.compared_methods() {
                // A ratio of 22.6, the widest the HistOfTree format prints.
                let v = if ratio_to.is_some() { 22.64 * v } else { v };
                put(&d.name, &m, epsilon_text(*e), v);
            }
            if let Some(r) = &ratio_to {
                put(&d.name, r, epsilon_text(*e), v);
            }
        }
        if let Some(r) = &ratio_to {
            put(&d.name, r, String::new(), v);
        }
    }
    selected
}

/// Table `t` of `exp` as `dp-repro run` writes it (short notes, full notes beside),
/// with the widest marks its convention allows on every compared cell.
fn worst_case_table(exp: &Experiment, t: &TableEntry) -> Table {
    let selected = synthetic_results(t, exp);
    let mut table = build_table(exp, t, &selected, exp.selection[0]).unwrap();
    table.notes_file = Some(format!("notes-{}.md", t.name));
    let compared: Vec<bool> = table
        .groups
        .iter()
        .flat_map(|g| std::iter::repeat_n(g.epsilon.is_some(), g.columns.len()))
        .collect();
    let (bold, star) = match t.marks {
        _ if t.value == TableValue::Seconds => (false, false),
        MarkStyle::BoldBest | MarkStyle::StarBest => (true, true),
        MarkStyle::StarSignificant => (false, true),
        MarkStyle::None => (false, false),
    };
    for row in &mut table.rows {
        for (c, &on) in row.cells.iter_mut().zip(&compared) {
            if on && c.value.is_some() {
                c.bold |= bold;
                c.underline &= !bold;
                c.star |= star;
            }
        }
    }
    for row in &mut table.summary_rows {
        for c in row.cells.iter_mut().filter(|c| c.value.is_some()) {
            c.star = true;
        }
    }
    table
}

/// One rendered table to measure.
struct Rendered {
    /// `spec file: table name`.
    what: String,
    tex: String,
    landscape: bool,
}

impl Rendered {
    fn new(what: String, table: &Table) -> Rendered {
        Rendered {
            what,
            tex: render_latex(table).unwrap(),
            landscape: table.layout.landscape,
        }
    }

    /// The line the table is scaled to.
    fn line(&self) -> f64 {
        if self.landscape {
            TEXT_HEIGHT_PT
        } else {
            TEXT_WIDTH_PT
        }
    }

    /// The tabulars of the rendered text: what the template sets in box 0.
    fn tabulars(&self) -> Vec<&str> {
        self.tex
            .split(r"\sbox0{")
            .skip(1)
            .map(|s| s.split("}%\n\\ifdim").next().unwrap())
            .collect()
    }

    /// The paragraphs of the notes under the last float.
    fn notes(&self) -> Vec<&str> {
        match self.tex.split("{\\footnotesize\\raggedright\n").nth(1) {
            Some(rest) => rest
                .split("\n}\n")
                .next()
                .unwrap()
                .split("\\par\n")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| p.trim_end_matches("\\par"))
                .collect(),
            None => Vec::new(),
        }
    }
}

/// Every table of every spec, worst case, in its spec's layout.
fn all_tables() -> Vec<Rendered> {
    let mut out = Vec::new();
    for path in spec_paths() {
        let exp = experiment(&path);
        let file = path.strip_prefix(root()).unwrap().display().to_string();
        for t in &exp.spec.tables {
            let table = worst_case_table(&exp, t);
            out.push(Rendered::new(format!("{file}: {}", t.name), &table));
        }
    }
    assert!(out.len() >= 20, "only {} tables found", out.len());
    out
}

fn pdflatex_available() -> bool {
    Command::new("pdflatex")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// What pdflatex measured of one rendered table.
#[derive(Debug, Default)]
struct Measured {
    /// Natural width of each tabular, in pt.
    widths: Vec<f64>,
    /// Lines of the notes paragraphs.
    note_lines: usize,
}

/// Typesets every table in one document with a 6.5 × 9 inch text block and reads the
/// natural width of each tabular (`\wd0` when the template uses box 0) and the number of
/// lines of its notes (`\prevgraf` of each paragraph, set at the float's line width).
fn measure_with_pdflatex(tables: &[Rendered]) -> Vec<Measured> {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = String::from(
        "\\documentclass{article}\n\\usepackage[textwidth=6.5in,textheight=9in]{geometry}\n\\usepackage{booktabs,graphicx,rotating}\n\\let\\dporigusebox\\usebox\n\\renewcommand\\usebox[1]{\\typeout{DPWIDTH=\\the\\wd#1}\\dporigusebox{#1}}\n\\newcount\\dplines\n\\begin{document}\n",
    );
    for (i, t) in tables.iter().enumerate() {
        let file = format!("t{i}.tex");
        std::fs::write(dir.path().join(&file), &t.tex).unwrap();
        doc.push_str(&format!(
            "\\typeout{{DPTABLE={i}}}\n\\input{{{file}}}\n\\clearpage\n"
        ));
        let hsize = if t.landscape {
            "\\textheight"
        } else {
            "\\textwidth"
        };
        doc.push_str(&format!(
            "\\global\\dplines=0\n\\setbox2\\vbox{{\\hsize={hsize}\\footnotesize\\raggedright\n"
        ));
        for n in t.notes() {
            doc.push_str(&format!("{n}\\par\\global\\advance\\dplines\\prevgraf\n"));
        }
        doc.push_str("}\n\\typeout{DPLINES=\\the\\dplines}\n");
    }
    doc.push_str("\\end{document}\n");
    std::fs::write(dir.path().join("widths.tex"), doc).unwrap();
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "widths.tex"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "pdflatex failed:\n{log}");
    let mut measured: Vec<Measured> = tables.iter().map(|_| Measured::default()).collect();
    let mut current = None;
    for line in log.lines() {
        if let Some(i) = line.strip_prefix("DPTABLE=") {
            current = Some(i.trim().parse::<usize>().unwrap());
        } else if let Some(w) = line.strip_prefix("DPWIDTH=") {
            let w: f64 = w.trim().trim_end_matches("pt").parse().unwrap();
            measured[current.unwrap()].widths.push(w);
        } else if let Some(n) = line.strip_prefix("DPLINES=") {
            measured[current.unwrap()].note_lines = n.trim().parse().unwrap();
        }
    }
    for (t, m) in tables.iter().zip(&measured) {
        assert_eq!(
            m.widths.len(),
            t.tabulars().len(),
            "{}: every tabular reports its width",
            t.what
        );
    }
    measured
}

// ------------------------------------------------------------------ the estimate

/// The width in pt of `c` in the bold font cmbx10, with 10 pt for a character it has no
/// width for.
fn bold_width(c: char) -> f64 {
    match c {
        '0'..='9' | '*' | '/' => 5.75,
        '.' | ',' | ':' | ';' | '\'' | '`' | '[' | ']' | '!' => 3.19,
        '(' | ')' => 4.47,
        '-' | ' ' => 3.83,
        // In math `=` and `+` are relations or operators with space around them.
        '+' | '=' => 14.5,
        '<' | '>' => 8.94,
        '?' => 5.43,
        '%' | '#' | '&' => 9.58,
        'A' => 8.69,
        'B' => 8.18,
        'C' => 8.31,
        'D' => 8.82,
        'E' => 7.56,
        'F' => 7.24,
        'G' => 9.04,
        'H' => 8.99,
        'I' => 4.36,
        'J' => 5.94,
        'K' => 9.01,
        'L' => 6.92,
        'M' => 10.9,
        'N' => 8.99,
        'O' | 'Q' => 8.63,
        'P' => 7.86,
        'R' => 8.62,
        'S' => 6.39,
        'T' => 8.0,
        'U' => 8.84,
        'V' | 'X' | 'Y' => 8.69,
        'W' => 11.9,
        'Z' => 7.03,
        'a' => 5.59,
        'b' | 'd' | 'h' | 'n' | 'p' | 'u' => 6.39,
        'c' | 'z' => 5.11,
        'e' => 5.27,
        'f' | 'j' => 3.51,
        'g' | 'o' => 5.75,
        'i' | 'l' => 3.19,
        'k' | 'q' | 'v' | 'x' | 'y' => 6.07,
        'm' => 9.58,
        'r' => 4.74,
        's' => 4.54,
        't' => 4.47,
        'w' => 8.31,
        _ => 10.0,
    }
}

/// The width in pt of `c` in the roman font cmr10, with 10 pt for a character it has no
/// width for.
fn roman_width(c: char) -> f64 {
    match c {
        '0'..='9' | '*' | '/' => 5.0,
        '.' | ',' | ':' | ';' | '\'' | '`' | '[' | ']' | '!' => 2.78,
        '(' | ')' => 3.89,
        '-' | ' ' => 3.33,
        '+' | '=' => 13.4,
        '<' | '>' => 7.78,
        '?' => 4.72,
        '%' | '#' | '&' => 8.33,
        'A' | 'H' | 'N' | 'U' | 'V' | 'X' | 'Y' => 7.5,
        'B' => 7.08,
        'C' | 'T' => 7.22,
        'D' => 7.64,
        'E' | 'P' => 6.81,
        'F' => 6.53,
        'G' => 7.85,
        'I' => 3.61,
        'J' => 5.14,
        'K' | 'O' | 'Q' => 7.78,
        'L' => 6.25,
        'M' => 9.17,
        'R' => 7.36,
        'S' => 5.56,
        'W' => 10.28,
        'Z' => 6.11,
        'a' | 'g' | 'o' => 5.0,
        'b' | 'd' | 'h' | 'n' | 'p' | 'u' => 5.56,
        'c' | 'e' | 'z' => 4.44,
        'f' | 'j' => 3.06,
        'i' | 'l' => 2.78,
        'k' | 'q' | 'v' | 'x' | 'y' => 5.28,
        'm' => 8.33,
        'r' => 3.92,
        's' => 3.94,
        't' => 3.89,
        'w' => 7.22,
        _ => 10.0,
    }
}

/// The width of a LaTeX command's glyph (0 for markup such as `\textbf`).
fn command_width(name: &str) -> f64 {
    match name {
        "varepsilon" | "alpha" | "rho" | "sigma" | "mu" | "delta" | "lambda" | "tau" => 6.0,
        "cdot" => 7.8,
        "times" | "pm" | "le" | "ge" | "approx" | "neq" | "to" => 14.5,
        "infty" => 10.0,
        "textless" | "textgreater" => 8.94,
        "textbar" | "textasciitilde" | "textasciicircum" | "textbackslash" | "S" => 5.75,
        "ldots" => 15.0,
        _ => 0.0,
    }
}

/// The safety margin of the estimate over the fonts' widths (TeX's kerns only narrow).
const ESTIMATE_MARGIN: f64 = 1.05;

/// An upper estimate of the width of one cell's LaTeX text: a stacked header (nested
/// tabular) as its widest line, markup commands as nothing, glyph commands as
/// [`command_width`], `$^*$` as 5 pt, the characters inside `\textbf{…}` at
/// [`bold_width`] and the others at [`roman_width`], all times [`ESTIMATE_MARGIN`].
fn text_width(s: &str) -> f64 {
    if let Some(inner) = s.strip_prefix(r"\begin{tabular}[b]{@{}c@{}}") {
        let inner = inner.trim_end_matches(r"\end{tabular}");
        return inner.split(r"\\").map(text_width).fold(0.0, f64::max);
    }
    let s = s.replace("$^*$", "\u{1}");
    let chars: Vec<char> = s.chars().collect();
    let mut w = 0.0;
    let mut i = 0;
    // Brace depth, and the depth of the group `\textbf` opened (bold while inside it).
    let mut depth = 0usize;
    let mut bold_at: Option<usize> = None;
    let width = |c: char, bold: bool| if bold { bold_width(c) } else { roman_width(c) };
    while i < chars.len() {
        let bold = bold_at.is_some();
        match chars[i] {
            '\u{1}' => w += 5.0,
            '\\' => {
                let start = i + 1;
                i += 1;
                while i < chars.len() && chars[i].is_ascii_alphabetic() {
                    i += 1;
                }
                if i == start && i < chars.len() {
                    // `\%`, `\_`, `\&`, `\#`, `\$`, `\{`, `\}`.
                    w += width(chars[i], bold).max(5.75);
                    i += 1;
                } else {
                    let name: String = chars[start..i].iter().collect();
                    if name == "textbf" && bold_at.is_none() {
                        bold_at = Some(depth + 1);
                    }
                    w += command_width(&name);
                }
                continue;
            }
            '{' => depth += 1,
            '}' => {
                if bold_at == Some(depth) {
                    bold_at = None;
                }
                depth = depth.saturating_sub(1);
            }
            '$' | '^' | '_' | '~' => {}
            c => w += width(c, bold),
        }
        i += 1;
    }
    w * ESTIMATE_MARGIN
}

/// The cells of a tabular row line: `(first column, span, text)`.
fn row_cells(line: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut col = 0;
    for cell in line.split(" & ") {
        let cell = cell.trim();
        if let Some(rest) = cell.strip_prefix(r"\multicolumn{") {
            let (span, rest) = rest.split_once('}').unwrap();
            let span: usize = span.parse().unwrap();
            // `{c}{text}`: the text is the last group.
            let text = rest.split_once("}{").map_or("", |(_, t)| t);
            let text = text.strip_suffix('}').unwrap_or(text);
            out.push((col, span, text.to_string()));
            col += span;
        } else {
            out.push((col, 1, cell.to_string()));
            col += 1;
        }
    }
    out
}

/// An upper estimate of a tabular's natural width: per column the widest cell, cells
/// spanning several columns widening the last of them when they need more room, plus
/// 2 × 4 pt of padding per column.
fn estimate_width(tabular: &str) -> f64 {
    let mut widths: Vec<f64> = Vec::new();
    let mut spans = Vec::new();
    for line in tabular.lines() {
        let Some(line) = line.strip_suffix(r" \\") else {
            continue;
        };
        if line.starts_with(r"\cmidrule") {
            continue;
        }
        for (col, span, text) in row_cells(line) {
            if widths.len() < col + span {
                widths.resize(col + span, 0.0);
            }
            let w = text_width(&text);
            if span == 1 {
                widths[col] = widths[col].max(w);
            } else {
                spans.push((col, span, w));
            }
        }
    }
    for (col, span, w) in spans {
        let room: f64 = widths[col..col + span].iter().sum::<f64>() + 8.0 * (span - 1) as f64;
        if w > room {
            widths[col + span - 1] += w - room;
        }
    }
    widths.iter().sum::<f64>() + 8.0 * widths.len() as f64
}

/// An upper estimate of the lines the notes take at footnote size on `line` pt: each
/// paragraph's characters at 5 pt (the footnote font averages under 4.5 pt), rounded up.
fn estimate_note_lines(notes: &[&str], line: f64) -> usize {
    notes
        .iter()
        .map(|n| {
            let w = text_width(n) * 0.8 + 2.0 * n.matches("\\texttt").count() as f64;
            (w / line).ceil().max(1.0) as usize
        })
        .sum()
}

// ------------------------------------------------------------------ the checks

/// The scale `\resizebox` prints a tabular of natural width `w` at on `line`.
fn scale(w: f64, line: f64) -> f64 {
    (line / w).min(1.0)
}

#[test]
fn every_spec_table_fits_the_page_at_80_percent_or_more() {
    let tables = all_tables();
    // DP_REPRO_TABLE_DUMP=DIR keeps the rendered tables for a look.
    if let Some(dir) = std::env::var_os("DP_REPRO_TABLE_DUMP") {
        for (i, t) in tables.iter().enumerate() {
            let name = t.what.replace(['/', ':', ' '], "_");
            std::fs::write(Path::new(&dir).join(format!("{i:02}-{name}.tex")), &t.tex).unwrap();
        }
    }
    let measured = pdflatex_available().then(|| measure_with_pdflatex(&tables));
    if measured.is_none() {
        eprintln!("pdflatex not found: widths estimated from the text (conservatively)");
    }
    let mut failures = Vec::new();
    for (k, t) in tables.iter().enumerate() {
        let estimates: Vec<f64> = t.tabulars().iter().map(|s| estimate_width(s)).collect();
        let widths = match &measured {
            Some(m) => m[k].widths.clone(),
            None => estimates.clone(),
        };
        for (part, w) in widths.iter().enumerate() {
            let s = scale(*w, t.line());
            eprintln!(
                "{} part {}: {w:.1} pt, scale {:.0} % (estimate {:.1} pt)",
                t.what,
                part + 1,
                100.0 * s,
                estimates[part]
            );
            if s < MIN_SCALE {
                failures.push(format!(
                    "{} (part {}): natural width {w:.1} pt, printed at {:.0} % of its size on a {:.2} pt line",
                    t.what,
                    part + 1,
                    100.0 * s,
                    t.line()
                ));
            }
        }
        let lines = match &measured {
            Some(m) => m[k].note_lines,
            None => estimate_note_lines(&t.notes(), t.line()),
        };
        if lines > MAX_NOTE_LINES {
            failures.push(format!(
                "{}: the notes under the table take {lines} lines (at most {MAX_NOTE_LINES})",
                t.what
            ));
        }
        if let Some(m) = &measured {
            // The estimate must stay on the safe side of TeX's measurement.
            for (e, w) in estimates.iter().zip(&m[k].widths) {
                assert!(
                    e >= w,
                    "{}: the estimate {e:.1} pt is below the measured {w:.1} pt",
                    t.what
                );
            }
            assert!(
                estimate_note_lines(&t.notes(), t.line()) >= m[k].note_lines,
                "{}: the note estimate is below the measured {} lines",
                t.what,
                m[k].note_lines
            );
        }
    }
    assert!(
        failures.is_empty(),
        "tables that do not fit:\n{}",
        failures.join("\n")
    );
}

/// LPCT Table 2 laid out as before the layouts (31 columns side by side) is far too wide:
/// the check catches it, measured and estimated alike.
#[test]
fn lpct_table2_side_by_side_fails_the_check() {
    let path = root().join("specs/lpct/table2.yaml");
    let exp = experiment(&path);
    let t = exp.spec.tables.iter().find(|t| t.name == "table2").unwrap();
    assert!(t.layout.split, "the spec splits LPCT Table 2 by epsilon");
    let mut table = worst_case_table(&exp, t);
    table.layout = Layout::default();
    let old = Rendered::new("LPCT Table 2, side by side".into(), &table);
    assert_eq!(old.tabulars().len(), 1);
    let estimate = estimate_width(old.tabulars()[0]);
    assert!(
        scale(estimate, TEXT_WIDTH_PT) < 0.5,
        "estimated at {estimate:.1} pt"
    );
    if pdflatex_available() {
        let m = measure_with_pdflatex(std::slice::from_ref(&old));
        let w = m[0].widths[0];
        assert!(scale(w, TEXT_WIDTH_PT) < 0.5, "measured at {w:.1} pt");
        assert!(estimate >= w);
    }
    // The spec's layout: three floats, each one ε block.
    table.layout = t.layout;
    let new = Rendered::new("LPCT Table 2".into(), &table);
    assert_eq!(new.tabulars().len(), 3);
    assert!(new
        .tex
        .contains(r"(b) $\varepsilon = 2$; continued from Table~\ref{tab:table2}."));
}

/// `split` needs two or more ε: validation names the field.
#[test]
fn split_with_one_epsilon_is_rejected() {
    let path = root().join("specs/ci-histoftree.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("layout: {transpose: true}"));
    let text = text.replacen("layout: {transpose: true}", "layout: {split: true}", 1);
    let spec = dp_repro::spec::parse_str(&text, &path).unwrap();
    let err = validate(spec, &path, &[root().join("datasets")])
        .err()
        .expect("split with one epsilon must not validate")
        .to_string();
    assert!(err.contains("tables[0].layout.split"), "{err}");
    assert!(err.contains("1 epsilon"), "{err}");
    // An unknown layout field is refused by name.
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "layout: {transpose: true}",
        "layout: {sideways: true}",
        1,
    );
    let err = dp_repro::spec::parse_str(&text, &path)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("sideways"), "{err}");
}
