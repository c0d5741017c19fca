//! One spec's page: what the template shows, built from a [`ResultsFolder`].

use super::folder::{CheckRow, MarkRow, ResultsFolder};
use super::verdict::{CellClass, CLASSES};
use serde::Serialize;
use std::collections::BTreeMap;

/// A number as the tables write it: 4 significant digits, plain notation between 10⁻³ and
/// 10⁵, scientific outside; empty for text that is not a finite number.
pub fn number(text: &str) -> String {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => number_f(v),
        _ => String::new(),
    }
}

/// [`number`] of a value: the tables' own formatting with 4 significant digits
/// ([`crate::report::format_significant`]); empty when not finite.
pub fn number_f(v: f64) -> String {
    if v.is_finite() {
        crate::report::format_significant(v, 4)
    } else {
        String::new()
    }
}

/// A count of one class.
#[derive(Debug, Clone, Serialize)]
pub struct ClassCount {
    /// `data-verdict` word.
    pub attr: &'static str,
    /// Symbol.
    pub symbol: &'static str,
    /// Legend words.
    pub words: &'static str,
    /// How many cells.
    pub count: usize,
}

/// One table cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellView {
    /// `data-verdict` word.
    pub attr: &'static str,
    /// Symbol.
    pub symbol: &'static str,
    /// The paper's value and spread (may be empty).
    pub paper: String,
    /// The paper's 95 % half-width.
    pub paper_spread: String,
    /// Ours.
    pub ours: String,
    /// Our standard error.
    pub ours_spread: String,
    /// The authors' code on the cell and whom it agrees with (empty when not run).
    pub authors: String,
    /// The hover text: verdict, reason, band, source.
    pub title: String,
    /// Footnote number (0: none).
    pub note: usize,
    /// Our value's marks as our rendered tables print them (`bold`, `underline`, `star`,
    /// space-separated; empty: none), for the `data-marks` attribute.
    pub marks: String,
    /// Where the marks come from, and each table's or block's own marks when they differ.
    pub marks_title: String,
}

/// One row of a reported table.
#[derive(Debug, Clone, Serialize)]
pub struct RowView {
    /// Data set.
    pub dataset: String,
    /// Cells in column order (None: no such cell).
    pub cells: Vec<Option<CellView>>,
}

/// One column: a method at an ε.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnView {
    /// Method label.
    pub method: String,
    /// ε text (empty: non-private).
    pub epsilon: String,
}

/// A footnote beside a table.
#[derive(Debug, Clone, Serialize)]
pub struct Footnote {
    /// Its number.
    pub n: usize,
    /// `data-verdict` word of its cell.
    pub attr: &'static str,
    /// Symbol.
    pub symbol: &'static str,
    /// What it says.
    pub text: String,
}

/// One reported table laid out as the paper lays it: data sets as rows, (ε, method)
/// columns in the order the paper's file gives them.
#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    /// The reported file's stem.
    pub name: String,
    /// Columns.
    pub columns: Vec<ColumnView>,
    /// Rows.
    pub rows: Vec<RowView>,
    /// Footnotes of the cells that are not ok.
    pub notes: Vec<Footnote>,
    /// Counts per class.
    pub counts: Vec<ClassCount>,
}

/// Any row of check.csv that regressed, for the list at the top of the page.
#[derive(Debug, Clone, Serialize)]
pub struct Regression {
    /// check.csv's kind.
    pub kind: String,
    /// What it is.
    pub what: String,
    /// Why.
    pub reason: String,
}

/// A claim and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimView {
    /// The claim's id.
    pub id: String,
    /// The paper's words.
    pub text: String,
    /// `ok`, `explained` (a known failure) or `regression`.
    pub attr: &'static str,
    /// Symbol.
    pub symbol: &'static str,
    /// Data sets it holds on / needs.
    pub count: String,
    /// The evidence.
    pub evidence: String,
}

/// One method's privacy verdict.
#[derive(Debug, Clone, Serialize)]
pub struct PrivacyView {
    /// Method label.
    pub method: String,
    /// Parts audited.
    pub parts: usize,
    /// Parts whose certified bound exceeds the claim.
    pub violations: usize,
    /// The largest certified bound over the claim.
    pub worst_ratio: String,
    /// The ledger's largest ε per fit, as a multiple of the column's ε.
    pub per_fit: String,
    /// And with the selection counted.
    pub with_tuning: String,
    /// The ledger's findings.
    pub findings: String,
    /// The spec's known violations of this method (part: why).
    pub known: Vec<String>,
}

/// A rendered table of the run (its Markdown parsed), with the marks as the LaTeX.
#[derive(Debug, Clone, Serialize)]
pub struct RunTable {
    /// The table's name.
    pub name: String,
    /// Header cells (HTML, escaped).
    pub header: Vec<String>,
    /// Body rows (HTML, escaped; bold as `<strong>`).
    pub rows: Vec<Vec<String>>,
    /// The notes under it (HTML, escaped).
    pub notes: Vec<String>,
}

/// A linked file.
#[derive(Debug, Clone, Serialize)]
pub struct FileLink {
    /// Link target, relative to the page.
    pub href: String,
    /// File name.
    pub name: String,
    /// Size in readable units.
    pub size: String,
}

/// A figure on the page.
#[derive(Debug, Clone, Serialize)]
pub struct FigureView {
    /// Image source, relative to the page.
    pub src: String,
    /// Alt text.
    pub alt: String,
}

/// Everything a page shows.
#[derive(Debug, Clone, Serialize)]
pub struct PageView {
    /// The spec's name.
    pub name: String,
    /// The page's folder name in the site.
    pub slug: String,
    /// The spec's description.
    pub description: String,
    /// PASS or FAIL.
    pub verdict: &'static str,
    /// The headline in plain words.
    pub headline: String,
    /// Counts over every reported cell.
    pub counts: Vec<ClassCount>,
    /// Reported cells in all.
    pub cells: usize,
    /// Claims holding / in all.
    pub claims_held: usize,
    /// Claims in all.
    pub claims_total: usize,
    /// Every regressed row.
    pub regressions: Vec<Regression>,
    /// Reported tables.
    pub tables: Vec<TableView>,
    /// Whether the folder has marks.csv (our tables' marks beside our values).
    pub has_marks: bool,
    /// Claims.
    pub claims: Vec<ClaimView>,
    /// The ε readings (epsilon_match_method rows), as lines.
    pub readings: Vec<String>,
    /// The run's own tables.
    pub run_tables: Vec<RunTable>,
    /// Figures.
    pub figures: Vec<FigureView>,
    /// Privacy per method.
    pub privacy: Vec<PrivacyView>,
    /// Provenance (label, value).
    pub provenance: Vec<(String, String)>,
    /// Files.
    pub files: Vec<FileLink>,
    /// When the run finished.
    pub finished: String,
    /// How long the last `run` or `check` of the folder took, with the tasks it
    /// computed and reused (a check that reuses every task takes seconds).
    pub duration: String,
}

fn counts(classes: impl Iterator<Item = CellClass>) -> Vec<ClassCount> {
    let mut n: BTreeMap<CellClass, usize> = BTreeMap::new();
    for c in classes {
        *n.entry(c).or_default() += 1;
    }
    CLASSES
        .iter()
        .map(|&c| ClassCount {
            attr: c.attr(),
            symbol: c.symbol(),
            words: c.words(),
            count: n.get(&c).copied().unwrap_or(0),
        })
        .collect()
}

fn cell_view(r: &CheckRow, class: CellClass, note: usize) -> CellView {
    let mut title = vec![class.words().to_string()];
    if !r.reason.is_empty() {
        title.push(r.reason.clone());
    }
    if !r.band.is_empty() {
        title.push(format!("band {}", r.band));
    }
    if !r.tolerance.is_empty() {
        title.push(format!("tolerance ±{}", number(&r.tolerance)));
    }
    if !r.source.is_empty() {
        title.push(format!("paper: {}", r.source));
    }
    CellView {
        attr: class.attr(),
        symbol: class.symbol(),
        paper: number(&r.reported),
        paper_spread: number(&r.reported_halfwidth),
        ours: number(&r.reproduced),
        ours_spread: number(&r.std_error),
        authors: match (number(&r.authors_code), r.authors_agreement.as_str()) {
            (v, "") if v.is_empty() => String::new(),
            (v, "cannot_run") if v.is_empty() => "cannot run".to_string(),
            (v, a) => format!("{v} ({})", a.replace('_', " ")),
        },
        title: title.join("; "),
        note,
        marks: String::new(),
        marks_title: String::new(),
    }
}

/// The marks of (data set, method, ε) in our rendered tables (`marks.csv`): the union of
/// every table and block that holds the cell, as (`data-marks` words, where they come
/// from). A cell that two blocks hold with different marks (HistOfTree's Hist, in both
/// settings) says so in the second part.
fn cell_marks(marks: &[MarkRow], r: &CheckRow) -> (String, String) {
    // A non-private method that the paper repeats in every ε block (LPCT's CT-W) is one
    // column of ours, with no ε.
    let at = |eps: &str| -> Vec<&MarkRow> {
        marks
            .iter()
            .filter(|m| m.dataset == r.dataset && m.method == r.method && m.epsilon == eps)
            .collect()
    };
    let held = match at(&r.epsilon) {
        h if h.is_empty() => at(""),
        h => h,
    };
    let words = |m: &MarkRow| {
        [
            ("bold", &m.bold),
            ("underline", &m.underline),
            ("star", &m.star),
        ]
        .into_iter()
        .filter(|(_, v)| v.as_str() == "1")
        .map(|(w, _)| w)
        .collect::<Vec<_>>()
    };
    let mut union: Vec<&str> = Vec::new();
    for m in &held {
        for w in words(m) {
            if !union.contains(&w) {
                union.push(w);
            }
        }
    }
    union.sort_by_key(|w| ["bold", "underline", "star"].iter().position(|x| x == w));
    let wherefrom: Vec<String> = held
        .iter()
        .map(|m| {
            let place = if m.block.is_empty() {
                format!("table {}", m.table)
            } else {
                format!("table {} · {}", m.table, m.block)
            };
            let w = words(m);
            format!(
                "{place}: {}",
                if w.is_empty() {
                    "no mark".to_string()
                } else {
                    w.join(", ")
                }
            )
        })
        .collect();
    let title = if held.is_empty() {
        String::new()
    } else {
        format!("marks of our tables: {}", wherefrom.join("; "))
    };
    (union.join(" "), title)
}

fn table_views(rows: &[CheckRow], marks: &[MarkRow]) -> Vec<TableView> {
    let mut order: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.kind == "cell") {
        if !order.contains(&r.table) {
            order.push(r.table.clone());
        }
    }
    order
        .into_iter()
        .map(|name| {
            let cells: Vec<&CheckRow> = rows
                .iter()
                .filter(|r| r.kind == "cell" && r.table == name)
                .collect();
            let mut columns: Vec<(String, String)> = Vec::new();
            let mut datasets: Vec<String> = Vec::new();
            for r in &cells {
                let c = (r.epsilon.clone(), r.method.clone());
                if !columns.contains(&c) {
                    columns.push(c);
                }
                if !datasets.contains(&r.dataset) {
                    datasets.push(r.dataset.clone());
                }
            }
            // A reported file may hold two cells of one data set, method and ε (two of
            // the paper's tables in one file, as HistOfTree's settings): the second gets
            // a row of its own, named by its line in the file, so no cell is hidden.
            let mut notes = Vec::new();
            let mut grid: BTreeMap<(usize, usize), CellView> = BTreeMap::new();
            let mut classes = Vec::new();
            for r in &cells {
                let Some(class) = CellClass::of(r) else {
                    continue;
                };
                classes.push(class);
                let col = columns
                    .iter()
                    .position(|c| c.0 == r.epsilon && c.1 == r.method)
                    .unwrap_or(0);
                let mut row = datasets.iter().position(|d| *d == r.dataset).unwrap_or(0);
                if grid.contains_key(&(row, col)) {
                    let label = format!("{} ({})", r.dataset, r.source);
                    row = match datasets.iter().position(|d| *d == label) {
                        Some(i) => i,
                        None => {
                            datasets.push(label);
                            datasets.len() - 1
                        }
                    };
                }
                let note = if class != CellClass::Ok && !r.reason.is_empty() {
                    notes.push(Footnote {
                        n: notes.len() + 1,
                        attr: class.attr(),
                        symbol: class.symbol(),
                        text: format!(
                            "{}, {}{}: {}{}",
                            r.dataset,
                            r.method,
                            if r.epsilon.is_empty() {
                                String::new()
                            } else {
                                format!(", ε = {}", r.epsilon)
                            },
                            r.reason,
                            if r.band.is_empty() {
                                String::new()
                            } else {
                                format!(" (band {})", r.band)
                            }
                        ),
                    });
                    notes.len()
                } else {
                    0
                };
                let mut view = cell_view(r, class, note);
                (view.marks, view.marks_title) = cell_marks(marks, r);
                if !view.marks_title.is_empty() {
                    view.title = format!("{}; {}", view.title, view.marks_title);
                }
                grid.insert((row, col), view);
            }
            let width = columns.len();
            TableView {
                name: name.clone(),
                columns: columns
                    .into_iter()
                    .map(|(epsilon, method)| ColumnView { method, epsilon })
                    .collect(),
                rows: datasets
                    .iter()
                    .enumerate()
                    .map(|(i, d)| RowView {
                        dataset: d.clone(),
                        cells: (0..width).map(|j| grid.get(&(i, j)).cloned()).collect(),
                    })
                    .collect(),
                notes,
                counts: counts(classes.into_iter()),
            }
        })
        .collect()
}

/// HTML-escapes `s`.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One Markdown table cell as HTML: escaped, Markdown's escapes removed, `**x**` bold.
fn markdown_cell(s: &str) -> String {
    let plain = s
        .trim()
        .replace("\\*", "*")
        .replace("\\_", "_")
        .replace("\\|", "|")
        .replace("\\<", "<")
        .replace("\\>", ">");
    let escaped = escape(&plain);
    let mut out = String::new();
    for (i, part) in escaped.split("**").enumerate() {
        if i % 2 == 1 {
            out.push_str("<strong>");
            out.push_str(part);
            out.push_str("</strong>");
        } else {
            out.push_str(part);
        }
    }
    if escaped.split("**").count().is_multiple_of(2) {
        // An odd number of `**`: not bold after all.
        return escaped;
    }
    out
}

/// A rendered Markdown table (`table-*.md`) as header, rows and notes.
pub fn run_table(name: &str, text: &str) -> RunTable {
    let split = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        let mut cells = Vec::new();
        let mut cur = String::new();
        let mut prev = ' ';
        for ch in inner.chars() {
            if ch == '|' && prev != '\\' {
                cells.push(markdown_cell(&cur));
                cur.clear();
            } else {
                cur.push(ch);
            }
            prev = ch;
        }
        cells.push(markdown_cell(&cur));
        cells
    };
    let mut header = Vec::new();
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('|') {
            let is_rule = t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
            if is_rule {
                continue;
            }
            if header.is_empty() {
                header = split(t);
            } else {
                rows.push(split(t));
            }
        } else if let Some(n) = t.strip_prefix("- ") {
            notes.push(markdown_cell(n));
        } else if !t.is_empty() && !t.starts_with('#') && rows.is_empty() && header.is_empty() {
            notes.push(markdown_cell(t));
        }
    }
    RunTable {
        name: name.to_string(),
        header,
        rows,
        notes,
    }
}

fn privacy_views(f: &ResultsFolder) -> Vec<PrivacyView> {
    let ledger = f.ledger_by_method();
    let mut methods: Vec<String> = f.audit.iter().map(|a| a.method.clone()).collect();
    methods.extend(ledger.keys().cloned());
    methods.sort();
    methods.dedup();
    methods
        .into_iter()
        .map(|m| {
            let rows: Vec<_> = f.audit.iter().filter(|a| a.method == m).collect();
            let worst = rows
                .iter()
                .filter_map(|a| {
                    let (x, c) = (
                        a.audited_epsilon.parse::<f64>().ok()?,
                        a.claimed_epsilon.parse::<f64>().ok()?,
                    );
                    (c > 0.0).then_some(x / c)
                })
                .fold(f64::NAN, f64::max);
            let l = ledger.get(&m);
            PrivacyView {
                parts: rows.len(),
                violations: rows.iter().filter(|a| a.verdict == "violation").count(),
                worst_ratio: number_f(worst),
                per_fit: l.map(|l| number_f(l.0)).unwrap_or_default(),
                with_tuning: l.map(|l| number_f(l.1)).unwrap_or_default(),
                findings: l.map(|l| l.2.join("; ")).unwrap_or_default(),
                known: f
                    .known
                    .iter()
                    .filter(|k| k.method == m || k.method == "*")
                    .map(|k| format!("{}: {}", k.part, k.why))
                    .collect(),
                method: m,
            }
        })
        .collect()
}

fn describe(r: &CheckRow) -> String {
    let mut parts = vec![r.kind.replace('_', " ")];
    for x in [&r.table, &r.method, &r.dataset] {
        if !x.is_empty() {
            parts.push(x.clone());
        }
    }
    if !r.epsilon.is_empty() {
        parts.push(format!("ε = {}", r.epsilon));
    }
    if !r.reported.is_empty() || !r.reproduced.is_empty() {
        parts.push(format!(
            "paper {} · ours {}",
            number(&r.reported),
            number(&r.reproduced)
        ));
    }
    parts.join(", ")
}

/// An RFC 3339 time as "2026-11-29 05:09 UTC" (the text itself when it does not parse).
fn when(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map(|d| {
            d.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M UTC")
                .to_string()
        })
        .unwrap_or_else(|_| t.to_string())
}

/// Seconds between two RFC 3339 times as "1 h 02 min" / "3 min 05 s" / "12 s".
fn duration(started: &str, finished: &str) -> String {
    let (Ok(a), Ok(b)) = (
        chrono::DateTime::parse_from_rfc3339(started),
        chrono::DateTime::parse_from_rfc3339(finished),
    ) else {
        return String::new();
    };
    let s = (b - a).num_seconds().max(0);
    match s {
        s if s >= 3600 => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
        s if s >= 60 => format!("{} min {:02} s", s / 60, s % 60),
        s => format!("{s} s"),
    }
}

/// The page of `f`, to be written into the site's folder `slug`; `files` and `figures`
/// are the links the caller has written beside it.
pub fn page_view(
    f: &ResultsFolder,
    slug: &str,
    files: Vec<FileLink>,
    figures: Vec<FigureView>,
) -> PageView {
    let cell_rows: Vec<&CheckRow> = f.check.iter().filter(|r| r.kind == "cell").collect();
    let classes: Vec<CellClass> = cell_rows.iter().filter_map(|r| CellClass::of(r)).collect();
    let regressions: Vec<Regression> = f
        .check
        .iter()
        .filter(|r| r.verdict == "regression")
        .map(|r| Regression {
            kind: r.kind.clone(),
            what: describe(r),
            reason: r.reason.clone(),
        })
        .collect();
    let claims: Vec<ClaimView> = f
        .check
        .iter()
        .filter(|r| r.kind == "claim")
        .map(|r| {
            let class = match r.verdict.as_str() {
                "ok" => CellClass::Ok,
                "deviation" => CellClass::Explained,
                _ => CellClass::Regression,
            };
            ClaimView {
                id: r.method.clone(),
                text: r.source.clone(),
                attr: class.attr(),
                symbol: class.symbol(),
                count: format!("{} of {} needed", r.reproduced, r.reported),
                evidence: r.reason.clone(),
            }
        })
        .collect();
    let claims_held = claims.iter().filter(|c| c.attr == "ok").count();
    let count_of = |c: CellClass| classes.iter().filter(|&&x| x == c).count();
    let verdict = if regressions.is_empty() {
        "PASS"
    } else {
        "FAIL"
    };
    let deviations = count_of(CellClass::Explained) + count_of(CellClass::Unexplained);
    let headline = if regressions.is_empty() {
        format!(
            "PASS: nothing regressed. Of {} reported cells, {} are within tolerance; {} differ from the paper by a known deviation, each inside the band measured for it and listed with its reason ({} of them not yet explained), and {} have no number on one side. A PASS means every difference is either within tolerance or a known, bounded deviation, not that our numbers equal the paper's.",
            classes.len(),
            count_of(CellClass::Ok),
            deviations,
            count_of(CellClass::Unexplained),
            count_of(CellClass::NotRun) + count_of(CellClass::NotReported),
        )
    } else {
        format!(
            "FAIL: {} {} regressed (listed first, in red): outside tolerance with no known reason, or a claim that no longer holds.",
            regressions.len(),
            if regressions.len() == 1 { "item" } else { "items" }
        )
    };
    let readings = f
        .check
        .iter()
        .filter(|r| r.kind == "epsilon_match_method")
        .map(|r| r.reason.clone())
        .collect();
    let mut provenance = vec![
        ("spec".to_string(), f.name.clone()),
        ("spec hash (sha256)".to_string(), f.run_text("spec_hash")),
        ("commit".to_string(), f.run_text("git_commit")),
        (
            "dp-repro version".to_string(),
            f.run_text("dp_repro_version"),
        ),
        ("seed".to_string(), f.seed.clone()),
        (
            "repetitions run".to_string(),
            format!(
                "{} of the spec's {}",
                f.run_text("repetitions"),
                f.spec_repetitions
            ),
        ),
        ("machine".to_string(), f.run_text("host")),
        ("threads".to_string(), f.run_text("threads")),
        ("started".to_string(), f.run_text("started")),
        ("finished".to_string(), f.run_text("finished")),
    ];
    provenance.retain(|(_, v)| !v.is_empty() && v != " of the spec's ");
    PageView {
        name: f.name.clone(),
        slug: slug.to_string(),
        description: f.description.clone(),
        verdict,
        headline,
        counts: counts(classes.iter().copied()),
        cells: classes.len(),
        claims_held,
        claims_total: claims.len(),
        regressions,
        tables: table_views(&f.check, &f.marks),
        has_marks: !f.marks.is_empty(),
        claims,
        readings,
        run_tables: f.tables.iter().map(|(n, t)| run_table(n, t)).collect(),
        figures,
        privacy: privacy_views(f),
        provenance,
        files,
        finished: when(&f.run_text("finished")),
        duration: {
            let d = duration(&f.run_text("started"), &f.run_text("finished"));
            let (computed, reused) = (f.run_text("tasks_computed"), f.run_text("tasks_reused"));
            match (d.is_empty(), computed.is_empty()) {
                (true, _) => String::new(),
                (false, true) => d,
                (false, false) => format!("{d} ({computed} tasks computed, {reused} reused)"),
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_tables_write_them() {
        assert_eq!(number("1.03"), "1.030");
        assert_eq!(number("0.8424778761061947"), "0.8425");
        assert_eq!(number("12345.678"), "12346");
        assert_eq!(number("0.0001234"), "1.234e-4");
        assert_eq!(number("NaN"), "");
        assert_eq!(number(""), "");
    }

    #[test]
    fn markdown_tables_keep_their_marks() {
        let t = run_table(
            "t",
            "| data | A | B |\n| :--- | ---: | ---: |\n| x | **0.5**\\* | 0.7 |\n\n- note \\*: best\n",
        );
        assert_eq!(t.header, ["data", "A", "B"]);
        assert_eq!(t.rows[0][1], "<strong>0.5</strong>*");
        assert_eq!(t.notes, ["note *: best"]);
    }
}
