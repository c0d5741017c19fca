//! Rendering a [`CheckReport`] to Markdown and LaTeX through the tera templates
//! `templates/check.md.tera` and `templates/check.tex.tera` (embedded at compile time, as
//! in `report/render.rs`).
//!
//! Each template receives one variable, `view`, with every string already escaped for its
//! format ([`escape_markdown`] / [`escape_latex`]) and marked up:
//! - `title`, `status` (`PASS` / `REGRESSION`), `regressed`, `headline` (the result in
//!   plain words, with references to the lists of known deviations and violations),
//!   `summary[]` (lines);
//! - `cells[]` with `dataset, method, epsilon, paper, ours, ratio, verdict` (a known
//!   deviation carries the number of its reason in `deviations[]`), `cells_note`;
//! - `by_method[]` with `method, ok, known, regression, not_run`;
//! - `epsilons[]` (ε texts of the private cells, ascending) and `by_epsilon[]` with
//!   `method, counts[]`: per ε, `ok/compared` (cells within tolerance of those the paper
//!   and we both have) or `—`, for the private methods;
//! - `claims[]` with `label, description, result, counts, text, details`;
//! - `epsilon_matches[]` (one line per inferred table, then one per method of it whose
//!   ε verdict is not ok) and `rank_sums[]` with `table,
//!   epsilon, block, method, paper, ours, verdict`, `rank_sums_note` (both empty without
//!   the sections);
//! - `epsilon_orders[]` (one line per pair of consecutive ε that regressed or has
//!   identical values; [`crate::check::epsilon_order`]);
//! - `budgets[]` with `table, selection, method, epsilon, per_fit, with_tuning, ratio,
//!   source` (ε per fit and ε with tuning of every private method of every table, from the
//!   ledger or the grid; [`crate::check::budget`]) and `budgets_note`;
//! - `audited`, `known_violations[]` (one line per method and part, with its reason) and
//!   `failing_violations[]` (capped like the golden lists) of the privacy audit;
//! - `golden` (absent when not compared) with `file, mode, compared, changed[],
//!   missing[], extra[]` (each list capped at [`MAX_LISTED`] entries plus a "… more"
//!   line).
//!
//! The LaTeX output is a fragment for an `article`-like class (`\section*`,
//! `\subsection*`) and needs `\usepackage{booktabs}` and `\usepackage{longtable}`; it is
//! pdflatex-compilable (non-ASCII symbols the escaping knows become math).

use serde::Serialize;
use tera::{Context, Tera};

use super::authors_code::{Agreement, AuthorsValue};
use super::{eps_text, CellCheck, CheckError, CheckReport, Verdict};
use crate::report::{escape_latex, escape_markdown, format_fixed, format_sci};

/// File name of the Markdown template in `templates/`.
pub const MARKDOWN_TEMPLATE_NAME: &str = "check.md.tera";
/// File name of the LaTeX template in `templates/`.
pub const LATEX_TEMPLATE_NAME: &str = "check.tex.tera";
/// At most this many golden differences of each kind are listed (all are counted).
pub const MAX_LISTED: usize = 100;

const MARKDOWN_TEMPLATE: &str = include_str!("../../templates/check.md.tera");
const LATEX_TEMPLATE: &str = include_str!("../../templates/check.tex.tera");

/// Escaping and markup of one output format.
struct Fmt {
    esc: fn(&str) -> String,
    bold: fn(&str) -> String,
    sup: fn(usize) -> String,
    /// Whether the data set column shows our name after the reported one when they
    /// differ (`ABA (abalone)`); LaTeX shows the reported name only, to fit the page.
    both_names: bool,
    /// A reference to a section of the report (escaped text, anchor): a link in Markdown,
    /// words pointing below in LaTeX.
    link: fn(&str, &str) -> String,
}

const MARKDOWN: Fmt = Fmt {
    esc: escape_markdown,
    bold: |s| format!("**{s}**"),
    // No HTML: the reason number in parentheses, matching the numbered list.
    sup: |n| format!(" ({n})"),
    both_names: true,
    link: |text, anchor| format!("[{text}](#{anchor})"),
};

const LATEX: Fmt = Fmt {
    esc: escape_latex,
    bold: |s| format!(r"\textbf{{{s}}}"),
    sup: |n| format!(r"\textsuperscript{{{n}}}"),
    both_names: false,
    link: |text, _| format!("{text}, below"),
};

#[derive(Serialize)]
struct CellView {
    dataset: String,
    method: String,
    epsilon: String,
    paper: String,
    ours: String,
    ratio: String,
    verdict: String,
    /// The authors' code's value and whom it agrees with (empty without one).
    authors: String,
}

#[derive(Serialize)]
struct MethodCount {
    method: String,
    ok: usize,
    known: usize,
    regression: usize,
    not_run: usize,
}

#[derive(Serialize)]
struct ClaimView {
    label: String,
    /// The generated description when the label is an id, else empty.
    description: String,
    result: String,
    counts: String,
    text: String,
    details: String,
}

#[derive(Serialize)]
struct GoldenView {
    file: String,
    mode: String,
    compared: usize,
    changed: Vec<String>,
    missing: Vec<String>,
    extra: Vec<String>,
}

#[derive(Serialize)]
struct View {
    title: String,
    status: String,
    regressed: bool,
    /// The result in plain words, marked up ([`headline`]).
    headline: String,
    summary: Vec<String>,
    cells: Vec<CellView>,
    /// Some cell has the authors' code's value: the tables get its column.
    has_authors: bool,
    cells_note: String,
    deviations: Vec<String>,
    /// Reasons of the data sets not available, numbered as the cells cite them.
    unavailable: Vec<String>,
    by_method: Vec<MethodCount>,
    epsilons: Vec<String>,
    by_epsilon: Vec<EpsilonCounts>,
    claims: Vec<ClaimView>,
    golden: Option<GoldenView>,
    /// One summary line per reported table whose ε was inferred (escaped).
    epsilon_matches: Vec<String>,
    /// The paper's rank sums against ours (absent section: empty).
    rank_sums: Vec<RankSumView>,
    /// What the rank-sum table compares (empty without rank sums).
    rank_sums_note: String,
    /// The ε-order pairs that regressed or have identical values, one line each.
    epsilon_orders: Vec<String>,
    /// ε per fit and with tuning per table, selection, method and ε (empty without tables).
    budgets: Vec<BudgetView>,
    /// What the budget table shows (empty without it).
    budgets_note: String,
    /// Whether the privacy audit ran (its section is shown).
    audited: bool,
    /// The known privacy violations found, one line per method and part with its reason.
    known_violations: Vec<String>,
    /// The violations that count against the check (capped at [`MAX_LISTED`]).
    failing_violations: Vec<String>,
}

/// One private method's budget at one ε of one table ([`crate::check::budget`]).
#[derive(Serialize)]
struct BudgetView {
    table: String,
    selection: String,
    method: String,
    epsilon: String,
    per_fit: String,
    with_tuning: String,
    /// ε with tuning over the column's ε.
    ratio: String,
    /// `ledger` or `grid`.
    source: String,
}

#[derive(Serialize)]
struct RankSumView {
    table: String,
    epsilon: String,
    block: String,
    method: String,
    paper: String,
    ours: String,
    verdict: String,
}

/// Cells within tolerance per ε of one private method.
#[derive(Serialize)]
struct EpsilonCounts {
    method: String,
    /// `ok/compared` per ε of the view's `epsilons`, `—` where nothing was compared.
    counts: Vec<String>,
}

/// Per private method and ε: how many cells are within tolerance of those compared (a
/// verdict other than "not run"). Returns the ε texts (ascending) and the rows.
fn counts_by_epsilon(report: &CheckReport, f: &Fmt) -> (Vec<String>, Vec<EpsilonCounts>) {
    let in_spec = || report.cells.iter().filter(|c| c.in_spec());
    let mut eps: Vec<f64> = in_spec().filter_map(|c| c.epsilon).collect();
    eps.sort_by(f64::total_cmp);
    eps.dedup();
    let mut methods: Vec<&str> = Vec::new();
    for c in in_spec().filter(|c| c.epsilon.is_some()) {
        if !methods.contains(&c.method.as_str()) {
            methods.push(&c.method);
        }
    }
    let rows = methods
        .iter()
        .map(|m| EpsilonCounts {
            method: (f.esc)(m),
            counts: eps
                .iter()
                .map(|&e| {
                    let compared: Vec<&Verdict> = report
                        .cells
                        .iter()
                        .filter(|c| c.method == *m && c.epsilon == Some(e))
                        .map(|c| &c.verdict)
                        .filter(|v| !matches!(v, Verdict::NotRun | Verdict::NotAvailable(_)))
                        .collect();
                    let ok = compared.iter().filter(|v| matches!(v, Verdict::Ok)).count();
                    (f.esc)(&if compared.is_empty() {
                        "—".to_string()
                    } else {
                        format!("{ok}/{}", compared.len())
                    })
                })
                .collect(),
        })
        .collect();
    (
        eps.into_iter().map(|e| (f.esc)(&eps_text(e))).collect(),
        rows,
    )
}

/// The paper's value, with its 95 % half-width when the files give one
/// (`1.59e-2 ± 7.00e-4`), or `—`.
fn paper_text(paper: Option<f64>, halfwidth: Option<f64>) -> String {
    match (paper, halfwidth) {
        (Some(p), Some(h)) => format!("{} ± {}", format_sci(p), format_sci(h)),
        (Some(p), None) => format_sci(p),
        (None, _) => "—".into(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn ratio_text(r: f64) -> String {
    if r.is_finite() && (0.1..1000.0).contains(&r.abs()) {
        format_fixed(r, 2)
    } else {
        format_sci(r)
    }
}

/// A charged ε: 4 significant digits (`132.0`, `0.5000`), in scientific notation outside
/// [0.01, 10⁶).
fn budget_text(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format_sci(v);
    }
    let exponent = v.abs().log10().floor() as i32;
    if (-2..=5).contains(&exponent) {
        format_fixed(v, (3 - exponent).max(0) as usize)
    } else {
        format_sci(v)
    }
}

fn capped(list: &[String], f: &Fmt) -> Vec<String> {
    let mut out: Vec<String> = list.iter().take(MAX_LISTED).map(|s| (f.esc)(s)).collect();
    if list.len() > MAX_LISTED {
        out.push((f.esc)(&format!("… and {} more", list.len() - MAX_LISTED)));
    }
    out
}

/// `bit-exact` or `relative tolerance <t>`.
fn golden_mode(t: f64) -> String {
    if t == 0.0 {
        "bit-exact".to_string()
    } else {
        format!("relative tolerance {t}")
    }
}

/// The authors' code's cell as the tables print it: `mean ± sd (n=k), agrees with us`,
/// `cannot run: …`, or `—`.
fn authors_text(c: &CellCheck) -> String {
    match c.authors.as_ref() {
        None => "—".into(),
        Some(a) => match &a.value {
            AuthorsValue::Ran {
                mean, std, reps, ..
            } => {
                let mut s = format!("{} ± {} (n={reps})", format_sci(*mean), format_sci(*std));
                if let Some(g) = a.agreement {
                    s.push_str(", ");
                    s.push_str(g.words());
                }
                s
            }
            AuthorsValue::CannotRun { note, .. } if note.starts_with("cannot run") => note.clone(),
            AuthorsValue::CannotRun { note, .. } => format!("cannot run: {note}"),
        },
    }
}

/// How the authors' code's values (`reported.authors_code`) classify the cells, over all
/// cells beside which it ran and over the deviating ones (known deviation or regression);
/// None when no cell has one.
fn authors_line(report: &CheckReport) -> Option<String> {
    // Cells of data sets this spec does not run (a CI subset) carry the authors' value in
    // check.csv but are not counted: there is no value of ours to classify against.
    let with: Vec<&CellCheck> = report
        .cells
        .iter()
        .filter(|c| c.authors.is_some() && c.in_spec())
        .collect();
    if with.is_empty() {
        return None;
    }
    let tally = |cells: &[&CellCheck]| {
        let n = |g: Option<Agreement>| {
            cells
                .iter()
                .filter(|c| {
                    let a = c.authors.as_ref().expect("filtered");
                    matches!(a.value, AuthorsValue::Ran { .. }) && a.agreement == g
                })
                .count()
        };
        let cannot = cells
            .iter()
            .filter(|c| {
                matches!(
                    c.authors.as_ref().map(|a| &a.value),
                    Some(AuthorsValue::CannotRun { .. })
                )
            })
            .count();
        format!(
            "{} with us only, {} with the paper only, {} with both, {} with neither, {} cannot run",
            n(Some(Agreement::WithUs)),
            n(Some(Agreement::WithPaper)),
            n(Some(Agreement::Both)),
            n(Some(Agreement::Neither)),
            cannot
        )
    };
    let deviating: Vec<&CellCheck> = with
        .iter()
        .copied()
        .filter(|c| matches!(c.verdict, Verdict::KnownDeviation(_) | Verdict::Regression))
        .collect();
    let all_deviating = report
        .cells
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::KnownDeviation(_) | Verdict::Regression))
        .count();
    let deviating_text = if all_deviating == 0 {
        "No cell deviates from the paper.".to_string()
    } else {
        format!(
            "Of the {} deviating cells it stands beside {}: {}.",
            all_deviating,
            deviating.len(),
            tally(&deviating)
        )
    };
    Some(format!(
        "The authors' code beside {} cells: {}. {deviating_text}",
        with.len(),
        tally(&with),
    ))
}

/// The reported cells with a known deviation, and how many of them are explained.
struct Deviations {
    /// Cells with a known deviation inside its band.
    known: usize,
    /// Of them, those the authors' code reproduces (explained by it, whatever the reason says).
    by_authors: usize,
    /// Of the rest, those whose reason says the deviation is not explained yet.
    unexplained: usize,
}

impl Deviations {
    fn of(report: &CheckReport) -> Deviations {
        let by_authors = |c: &&CellCheck| {
            c.authors.as_ref().and_then(|a| a.agreement) == Some(Agreement::WithUs)
        };
        let deviations = || {
            report
                .cells
                .iter()
                .filter(|c| matches!(c.verdict, Verdict::KnownDeviation(_)))
        };
        Deviations {
            known: deviations().count(),
            by_authors: deviations().filter(by_authors).count(),
            unexplained: deviations()
                .filter(|c| !by_authors(c))
                .filter(|c| matches!(&c.verdict, Verdict::KnownDeviation(r) if r.trim_start().starts_with("unexplained")))
                .count(),
        }
    }
}

/// The result in plain words, escaped and marked up for `f`: `PASS` or `REGRESSION`, and
/// what a PASS can still carry — known deviations from the paper (how many not explained
/// yet) and known privacy violations — each with a reference to its list.
fn headline(report: &CheckReport, f: &Fmt) -> String {
    let esc = f.esc;
    if report.regressed() {
        return format!(
            "{}{}",
            (f.bold)("REGRESSION"),
            esc(": something regressed. The summary names the layer (paper, golden numbers, privacy audit), and each failing cell, claim, golden row or violation is in bold or listed in its section below.")
        );
    }
    let mut s = format!("{}{}", (f.bold)("PASS"), esc(": nothing regressed."));
    let dev = Deviations::of(report);
    let known_violations = report
        .audit
        .as_ref()
        .map_or(0, |a| a.violations.len() - a.unexplained().count());
    if dev.known > 0 {
        s.push_str(&esc(&format!(
            " A PASS does not say that our numbers equal the paper's. It says that every cell is within its tolerance or a known deviation: {} from the paper by more than the tolerance but {} inside the band measured for {}, {} of them with no explanation yet (",
            plural(dev.known, "cell differs", "cells differ"),
            if dev.known == 1 { "stays" } else { "stay" },
            if dev.known == 1 { "it" } else { "them" },
            dev.unexplained
        )));
        s.push_str(&(f.link)(
            &esc("the deviations and their reasons"),
            "known-deviations",
        ));
        s.push_str(&esc(")."));
    }
    if known_violations > 0 {
        s.push_str(&esc(&format!(
            " The privacy audit passes with {}: steps of the paper's own protocol that the audit flags (such as oracle tuning, which spends ε once per grid point it chooses among), each expected and given its reason in the spec (",
            plural(known_violations, "known violation", "known violations")
        )));
        s.push_str(&(f.link)(&esc("the known violations"), "privacy-audit"));
        s.push_str(&esc(")."));
    }
    s
}

/// The three summary lines of a report, plain text: reported cells by verdict, claims
/// holding, golden status.
fn summary_lines(report: &CheckReport) -> Vec<String> {
    let count = |p: fn(&Verdict) -> bool| report.cells.iter().filter(|c| p(&c.verdict)).count();
    let n_ok = count(|v| *v == Verdict::Ok);
    let Deviations {
        known: n_known,
        by_authors: n_by_authors,
        unexplained: n_unexplained,
    } = Deviations::of(report);
    let n_reg = count(|v| *v == Verdict::Regression);
    let n_not = count(|v| *v == Verdict::NotRun);
    let n_out = report.cells.iter().filter(|c| !c.in_spec()).count();
    let n_na = count(|v| matches!(v, Verdict::NotAvailable(_)));

    let mut summary = vec![verdict_line(report)];
    summary.extend(report.readings.iter().cloned());
    if let Some((run, spec)) = report.provisional {
        summary.push(format!(
            "Provisional: {run} of the spec's {spec} repetitions were run; standard errors use {run}, and a full run may change verdicts."
        ));
    }
    summary.push(if report.cells.is_empty() {
        "Reported cells: none checked.".to_string()
    } else if report.compared_nothing() {
        format!(
            "Reported cells: {}, and not one compared (each not run or not available): a check that compares nothing fails; see check.csv's notes.",
            report.cells.len()
        )
    } else {
        format!(
            "Reported cells: {} — {} ok (within tolerance), {} ({} explained{}, {} unexplained), {}, {} not run{}{}.",
            report.cells.len(),
            n_ok,
            plural(n_known, "known deviation inside its band", "known deviations inside their bands"),
            n_known - n_unexplained,
            if n_by_authors > 0 {
                format!(", {n_by_authors} of them by the authors' code agreeing with us")
            } else {
                String::new()
            },
            n_unexplained,
            plural(n_reg, "regression", "regressions"),
            n_not,
            if n_out > 0 {
                format!(" ({n_out} of data sets this spec does not run, listed in check.csv)")
            } else {
                String::new()
            },
            if n_na > 0 {
                format!(", {n_na} not available (no data)")
            } else {
                String::new()
            },
        )
    });
    summary.extend(authors_line(report));
    let n_hold = report.claims.iter().filter(|c| c.holds).count();
    let n_known_fail = report
        .claims
        .iter()
        .filter(|c| !c.holds && c.known_failure.is_some())
        .count();
    let n_claim_reg = report.claims.iter().filter(|c| c.regressed()).count();
    summary.push(if report.claims.is_empty() {
        "Claims: none checked.".to_string()
    } else {
        format!(
            "Claims: {} of {} hold; {} fail as known failures, {} regressed.",
            n_hold,
            report.claims.len(),
            n_known_fail,
            n_claim_reg
        )
    });
    if !report.rank_sums.is_empty() {
        let n = |p: fn(&Verdict) -> bool| report.rank_sums.iter().filter(|r| p(&r.verdict)).count();
        summary.push(format!(
            "Rank sums: {} — {} ok (within tolerance), {}, {}, {} not run.",
            report.rank_sums.len(),
            n(|v| *v == Verdict::Ok),
            plural(
                n(|v| matches!(v, Verdict::KnownDeviation(_))),
                "known deviation",
                "known deviations"
            ),
            plural(
                n(|v| *v == Verdict::Regression),
                "regression",
                "regressions"
            ),
            n(|v| *v == Verdict::NotRun),
        ));
    }
    if !report.anchors.is_empty() {
        let red = report
            .anchors
            .iter()
            .filter(|c| c.verdict == Verdict::Regression)
            .count();
        summary.push(format!(
            "Anchors (a ratio table's baseline against another paper's absolute values): {} compared, {} ok, {}.",
            report.anchors.len(),
            report.anchors.len() - red,
            plural(red, "regression", "regressions")
        ));
    }
    if !report.suspects.is_empty() {
        summary.push(format!(
            "Suspect repetitions: {} far beyond their cell's robust spread (flagged, not a regression), {} outside the metric's range (regressions); task keys in check.csv.",
            report.suspects.iter().filter(|x| !x.impossible).count(),
            report.suspects.iter().filter(|x| x.impossible).count()
        ));
    }
    if let Some(a) = &report.audit {
        summary.push(a.summary_line());
    }
    summary.extend(super::epsilon_order::summary_line(&report.epsilon_orders));
    let mode = golden_mode;
    summary.push(match &report.golden {
        None if report.golden_left_out => "Golden numbers: left out (--no-golden).".to_string(),
        None => "Golden numbers: not checked.".to_string(),
        Some(g) if !g.regressed() => format!(
            "Golden numbers: {} compared with {} ({}): no change.",
            plural(g.compared, "row", "rows"),
            g.golden_file.display(),
            mode(g.relative_tolerance)
        ),
        Some(g) => format!(
            "Golden numbers: {} compared with {} ({}): {} changed, {} missing, {} extra.",
            plural(g.compared, "row", "rows"),
            g.golden_file.display(),
            mode(g.relative_tolerance),
            g.changed.len(),
            g.missing.len(),
            g.extra.len()
        ),
    });

    summary
}

/// The verdicts of the layers apart, e.g. `Verdicts: paper PASS; golden REGRESSION;
/// privacy audit PASS.`: the paper layer judges the run against the paper alone, the
/// golden against our blessed numbers (which turn any change red).
fn verdict_line(report: &CheckReport) -> String {
    let word = |regressed: bool| if regressed { "REGRESSION" } else { "PASS" };
    let golden = match &report.golden {
        Some(_) => word(report.golden_regressed()),
        None if report.golden_left_out => "left out",
        None => "not checked",
    };
    let audit = match &report.audit {
        Some(_) => word(report.audit_regressed()),
        None => "not run",
    };
    format!(
        "Verdicts: paper {}; golden {golden}; privacy audit {audit}.",
        word(report.paper_regressed())
    )
}

/// What `dp-repro check --quiet` prints, plain text, one line each: every failing item
/// — a reported cell that regressed (with the paper's value, ours and where the reported
/// value comes from), a claim that fails without a `known_failure`, a golden row that
/// changed, is missing or is extra — then the verdict line (`PASS` or `REGRESSION`,
/// `title` and the summary counts). Known deviations and known failures are not failing
/// items.
pub fn quiet_lines(report: &CheckReport, title: &str) -> Vec<String> {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut lines = Vec::new();
    for c in report
        .cells
        .iter()
        .chain(&report.anchors)
        .filter(|c| c.verdict == Verdict::Regression)
    {
        let eps = c
            .epsilon
            .map(|e| format!(" ε={}", eps_text(e)))
            .unwrap_or_default();
        let ours = c
            .ours
            .map(|(m, se, n)| format!("{} ± {} ({n} reps)", format_sci(m), format_sci(se)))
            .unwrap_or_else(|| "—".into());
        let paper = paper_text(c.paper, c.paper_halfwidth);
        let ratio = c
            .ratio
            .map(|r| format!(", ratio {}", ratio_text(r)))
            .unwrap_or_default();
        lines.push(one_line(&format!(
            "regression: {} {}{eps}: paper {paper}, ours {ours}{ratio} ({})",
            c.reported_dataset, c.method, c.source
        )));
    }
    for c in report.claims.iter().filter(|c| c.regressed()) {
        let what = if c.label == c.description {
            c.label.clone()
        } else {
            format!("{} ({})", c.label, c.description)
        };
        lines.push(one_line(&format!(
            "claim fails: {what}: {} of {} data sets, needs {}; {}",
            c.count, c.out_of, c.needed, c.details
        )));
    }
    for r in report
        .rank_sums
        .iter()
        .filter(|r| r.verdict == Verdict::Regression)
    {
        lines.push(one_line(&format!("regression: {}", r.line())));
    }
    for x in &report.suspects {
        let eps = x
            .epsilon
            .map(|e| format!(" ε={}", eps_text(e)))
            .unwrap_or_default();
        lines.push(one_line(&format!(
            "{}: {} {}{eps} {} repetition {} (task {}): {}",
            if x.impossible {
                "regression"
            } else {
                "suspect"
            },
            x.dataset,
            x.method,
            x.params,
            x.repetition,
            x.task,
            x.reason
        )));
    }
    for p in report
        .epsilon_orders
        .iter()
        .filter(|p| p.verdict == Verdict::Regression)
    {
        lines.push(one_line(&format!("ε order {}", p.line())));
    }
    for m in &report.epsilon_matches {
        let flag = if m.regressed() { "regression: " } else { "" };
        lines.push(one_line(&format!("{flag}{}", m.summary_line())));
        lines.extend(
            m.methods
                .iter()
                .filter(|x| x.verdict == Verdict::Regression)
                .map(|x| one_line(&format!("regression: {}", x.line(&m.group)))),
        );
    }
    if let Some(g) = &report.golden {
        for (kind, list) in [
            ("changed", &g.changed),
            ("missing from our summary", &g.missing),
            ("not in the golden file", &g.extra),
        ] {
            for item in list {
                lines.push(one_line(&format!("golden row {kind}: {item}")));
            }
        }
    }
    if let Some(a) = &report.audit {
        lines.extend(a.failing_lines().iter().map(|l| one_line(l)));
    }
    let status = if report.regressed() {
        "REGRESSION"
    } else {
        "PASS"
    };
    lines.push(one_line(&format!(
        "{status} ({title}): {}",
        summary_lines(report).join(" ")
    )));
    lines
}

fn build(report: &CheckReport, title: &str, f: &Fmt) -> View {
    let esc = f.esc;
    let regressed = report.regressed();

    // Reasons of known deviations, numbered in order of first appearance.
    let mut reasons: Vec<&str> = Vec::new();
    for c in &report.cells {
        if let Verdict::KnownDeviation(r) = &c.verdict {
            if !reasons.contains(&r.as_str()) {
                reasons.push(r);
            }
        }
    }
    // Reasons of data sets not available, numbered apart.
    let mut unavailable: Vec<&str> = Vec::new();
    for c in &report.cells {
        if let Verdict::NotAvailable(r) = &c.verdict {
            if !unavailable.contains(&r.as_str()) {
                unavailable.push(r);
            }
        }
    }
    let reps: Vec<usize> = report
        .cells
        .iter()
        .filter_map(|c| c.ours.map(|o| o.2))
        .collect();
    let uniform_reps = reps.windows(2).all(|w| w[0] == w[1]);
    let cells: Vec<CellView> = report
        .cells
        .iter()
        .filter(|c| c.in_spec())
        .map(|c| {
            let dataset = if c.dataset == c.reported_dataset || !f.both_names {
                c.reported_dataset.clone()
            } else {
                format!("{} ({})", c.reported_dataset, c.dataset)
            };
            let ours = match c.ours {
                Some((m, se, n)) => {
                    let mut s = format!("{} ± {}", format_sci(m), format_sci(se));
                    if !uniform_reps {
                        s.push_str(&format!(" (n={n})"));
                    }
                    s
                }
                None => "—".into(),
            };
            let verdict = match &c.verdict {
                Verdict::KnownDeviation(r) => {
                    let i = reasons.iter().position(|x| x == r).unwrap_or(0) + 1;
                    format!("{}{}", esc("known deviation"), (f.sup)(i))
                }
                Verdict::NotAvailable(r) => {
                    let i = unavailable.iter().position(|x| x == r).unwrap_or(0) + 1;
                    format!("{}{}", esc("not available"), (f.sup)(i))
                }
                Verdict::Regression => match &c.note {
                    Some(n) => format!("{} ({})", (f.bold)(&esc("regression")), esc(n)),
                    None => (f.bold)(&esc("regression")),
                },
                Verdict::NotRun => match &c.note {
                    Some(n) => esc(&format!("not run: {n}")),
                    None => esc("not run"),
                },
                v => esc(v.name()),
            };
            CellView {
                dataset: esc(&dataset),
                method: esc(&c.method),
                epsilon: esc(&c.epsilon.map(eps_text).unwrap_or_else(|| "—".into())),
                paper: esc(&paper_text(c.paper, c.paper_halfwidth)),
                ours: esc(&ours),
                ratio: esc(&c.ratio.map(ratio_text).unwrap_or_else(|| "—".into())),
                verdict,
                authors: esc(&authors_text(c)),
            }
        })
        .collect();

    let mut by_method: Vec<MethodCount> = Vec::new();
    for c in report.cells.iter().filter(|c| c.in_spec()) {
        let m = esc(&c.method);
        let i = match by_method.iter().position(|x| x.method == m) {
            Some(i) => i,
            None => {
                by_method.push(MethodCount {
                    method: m,
                    ok: 0,
                    known: 0,
                    regression: 0,
                    not_run: 0,
                });
                by_method.len() - 1
            }
        };
        let e = &mut by_method[i];
        match c.verdict {
            Verdict::Ok => e.ok += 1,
            Verdict::KnownDeviation(_) => e.known += 1,
            Verdict::Regression => e.regression += 1,
            Verdict::NotRun | Verdict::NotAvailable(_) => e.not_run += 1,
        }
    }
    let summary = summary_lines(report);
    let (epsilons, by_epsilon) = counts_by_epsilon(report, f);

    let cells_note = if report.cells.is_empty() {
        String::new()
    } else {
        let mut s = "Paper: the reported value (— where the paper prints none). Ours: mean ± standard error (std/√reps) of the selected grid point".to_string();
        if uniform_reps {
            if let Some(n) = reps.first() {
                s.push_str(&format!(" over {n} repetitions"));
            }
        }
        s.push_str(". Ratio: ours / paper.");
        if report.cells.iter().any(|c| c.authors.is_some()) {
            s.push_str(" Authors' code: the authors' own code on our splits (mean ± standard deviation over its repetitions, the grid point its selection picks), and whom it agrees with: ours by Welch's t-test, the paper by the cell's tolerance (check.csv's authors_detail gives both tests).");
        }
        if report.cells.iter().any(|c| c.paper_halfwidth.is_some()) {
            s.push_str(" Paper ±: the paper's 95 % Student-t half-width of its mean (not a standard deviation); a tolerance in half-widths compares |ours − paper| with k·√(h_paper² + h_ours²), h_ours the same half-width of ours.");
        }
        esc(&s)
    };

    let claims = report
        .claims
        .iter()
        .map(|c| {
            let result = match (c.holds, &c.known_failure) {
                (true, None) => esc("holds"),
                (true, Some(r)) => esc(&format!("holds (although listed as a known failure: {r})")),
                (false, Some(r)) => esc(&format!("fails, a known failure: {r}")),
                (false, None) => (f.bold)(&esc("fails")),
            };
            ClaimView {
                label: esc(&c.label),
                description: if c.label == c.description {
                    String::new()
                } else {
                    esc(&c.description)
                },
                result,
                counts: esc(&format!(
                    "{} of {} data sets, needs {}",
                    c.count, c.out_of, c.needed
                )),
                text: c.text.as_deref().map(esc).unwrap_or_default(),
                details: esc(&c.details),
            }
        })
        .collect();

    let golden = report.golden.as_ref().map(|g| GoldenView {
        file: esc(&g.golden_file.display().to_string()),
        mode: esc(&golden_mode(g.relative_tolerance)),
        compared: g.compared,
        changed: capped(&g.changed, f),
        missing: capped(&g.missing, f),
        extra: capped(&g.extra, f),
    });

    View {
        title: esc(title),
        status: if regressed { "REGRESSION" } else { "PASS" }.to_string(),
        regressed,
        headline: headline(report, f),
        summary: summary.iter().map(|s| esc(s)).collect(),
        cells,
        has_authors: report.cells.iter().any(|c| c.authors.is_some()),
        cells_note,
        deviations: reasons.iter().map(|r| esc(r)).collect(),
        unavailable: unavailable.iter().map(|r| esc(r)).collect(),
        by_method,
        epsilons,
        by_epsilon,
        claims,
        golden,
        epsilon_matches: report
            .epsilon_matches
            .iter()
            .flat_map(|m| std::iter::once(m.summary_line()).chain(m.method_lines()))
            .map(|l| esc(&l))
            .collect(),
        epsilon_orders: capped(
            &super::epsilon_order::listed(&report.epsilon_orders)
                .map(|p| p.line())
                .collect::<Vec<_>>(),
            f,
        ),
        rank_sums: report
            .rank_sums
            .iter()
            .map(|r| RankSumView {
                table: esc(&r.table),
                epsilon: esc(&r.epsilon.map(eps_text).unwrap_or_else(|| "—".into())),
                block: esc(&r.block),
                method: esc(&r.method),
                paper: esc(&format!("{}", r.paper)),
                ours: esc(&r.ours.map(|o| format!("{o}")).unwrap_or_else(|| "—".into())),
                verdict: match &r.verdict {
                    Verdict::Regression => (f.bold)(&esc("regression")),
                    Verdict::KnownDeviation(reason) => esc(&format!("known deviation: {reason}")),
                    v => esc(v.name()),
                },
            })
            .collect(),
        budgets: report
            .budgets
            .iter()
            .map(|b| BudgetView {
                table: esc(&b.table),
                selection: esc(b.selection.name()),
                method: esc(&b.method),
                epsilon: esc(&eps_text(b.epsilon)),
                per_fit: esc(&budget_text(b.per_fit)),
                with_tuning: esc(&budget_text(b.with_tuning)),
                ratio: esc(&budget_text(b.with_tuning / b.epsilon)),
                source: esc(if b.from_ledger { "ledger" } else { "grid" }),
            })
            .collect(),
        budgets_note: if report.budgets.is_empty() {
            String::new()
        } else {
            esc("What the worst user (or row) pays for a cell of each table, in nats: in one fit (ε per fit, the column's ε when the fit spends what it claims) and once the selection of the cell among the method's grid points is counted (ε with tuning, basic composition over the k distinct release configurations the selection stands on: k·ε under oracle selection, more under cv, what the validation protocol spends under private_validation; docs/audit.md, \"The privacy ledger\"). From the ledger (the largest over its data sets, repetitions and grid points) when this check ran it, else from the grid.")
        },
        audited: report.audit.is_some(),
        known_violations: report
            .audit
            .as_ref()
            .map(|a| {
                a.known_lines()
                    .iter()
                    .map(|l| esc(l.strip_prefix("known: ").unwrap_or(l)))
                    .collect()
            })
            .unwrap_or_default(),
        failing_violations: report
            .audit
            .as_ref()
            .map(|a| capped(&a.failing_lines(), f))
            .unwrap_or_default(),
        rank_sums_note: if report.rank_sums.is_empty() {
            String::new()
        } else {
            esc("Per table of the paper, at the ε the reported file states for it: the paper's rank sum and ours, computed by the spec table's own rules (ratios and printed precision as the table shows them, each block with its tie rule) over our data sets.")
        },
    }
}

/// Collects tera's error and its causes into one message.
fn template_error(template: &str, e: tera::Error) -> CheckError {
    CheckError::Template {
        template: template.to_string(),
        message: crate::report::error_chain(&e),
    }
}

/// Renders `report` as (Markdown, LaTeX), titled `title`: a result line (PASS or
/// REGRESSION) and a summary (cells ok / known deviation / regression / not run; claims
/// holding; golden status), then a table of every reported cell (data set, method, ε,
/// paper, ours mean ± s.e., ratio, verdict; known deviations point to numbered reasons
/// listed under the table) and the counts per method, then every claim with its counts
/// and details, then the golden differences. Deterministic: the same report gives
/// byte-identical output.
///
/// The LaTeX is a fragment for an `article`-like class needing `\usepackage{booktabs}`
/// and `\usepackage{longtable}` (the cell table is a `longtable` that breaks across
/// pages).
///
/// # Errors
/// [`CheckError::Template`] if an embedded template fails to parse or render (a bug).
pub fn render_check(report: &CheckReport, title: &str) -> Result<(String, String), CheckError> {
    let mut tera = Tera::default();
    // Escaping is done in Rust, per format; tera's HTML escaping must stay off.
    tera.autoescape_on(vec![]);
    for (name, text) in [
        (MARKDOWN_TEMPLATE_NAME, MARKDOWN_TEMPLATE),
        (LATEX_TEMPLATE_NAME, LATEX_TEMPLATE),
    ] {
        tera.add_raw_template(name, text)
            .map_err(|e| template_error(name, e))?;
    }
    let render = |name: &str, f: &Fmt| -> Result<String, CheckError> {
        let mut ctx = Context::new();
        ctx.insert("view", &build(report, title, f));
        tera.render(name, &ctx).map_err(|e| template_error(name, e))
    };
    Ok((
        render(MARKDOWN_TEMPLATE_NAME, &MARKDOWN)?,
        render(LATEX_TEMPLATE_NAME, &LATEX)?,
    ))
}
