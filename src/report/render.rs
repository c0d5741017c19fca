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

use std::path::Path;

use serde::Serialize;
use tera::{Context, Tera};

use super::table::{Cell, ColumnGroup, Legend, Row, Table};
use super::ReportError;

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

/// Escapes plain text for LaTeX (text mode, pdflatex-compilable).
///
/// `\ { } _ % & # $ ~ ^` become `\textbackslash{}`, `\{`, `\}`, `\_`, `\%`, `\&`, `\#`,
/// `\$`, `\textasciitilde{}`, `\textasciicircum{}`; `< > |` become `\textless{}`,
/// `\textgreater{}`, `\textbar{}` (they print wrongly in the default OT1 encoding); a `-`
/// followed by another `-` becomes `-{}` so `--` is not a dash ligature; line breaks
/// become spaces. Common non-ASCII symbols pdflatex cannot typeset without extra
/// packages become math: `ε` → `$\varepsilon$` (likewise α β γ δ λ μ ρ σ τ, ≤ ≥ ± × · ∞,
/// → ← ≈ ≠ ∈ − √ ½ ⅓ ⅔), `§` → `\S{}`, `—` → `---`, `–` → `--`, `…` → `\ldots{}`. Other
/// characters pass through.
///
/// ```
/// use dp_repro::report::escape_latex;
/// assert_eq!(escape_latex("min_leaf 5%"), r"min\_leaf 5\%");
/// assert_eq!(escape_latex("ε = 2"), r"$\varepsilon$ = 2");
/// ```
pub fn escape_latex(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let rep: &str = match c {
            '\\' => r"\textbackslash{}",
            '{' => r"\{",
            '}' => r"\}",
            '_' => r"\_",
            '%' => r"\%",
            '&' => r"\&",
            '#' => r"\#",
            '$' => r"\$",
            '~' => r"\textasciitilde{}",
            '^' => r"\textasciicircum{}",
            '<' => r"\textless{}",
            '>' => r"\textgreater{}",
            '|' => r"\textbar{}",
            '-' if chars.peek() == Some(&'-') => "-{}",
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                " "
            }
            '\n' => " ",
            // Straight quotes as TeX quotes: opening after a space, a bracket or at the
            // start, closing otherwise (an apostrophe, `Parkinson's`, stays one).
            '"' if opens(&out) => "``",
            '"' => "''",
            '\'' if opens(&out) => "`",
            '“' => "``",
            '”' => "''",
            '‘' => "`",
            '’' => "'",
            'α' => r"$\alpha$",
            'β' => r"$\beta$",
            'γ' => r"$\gamma$",
            'δ' => r"$\delta$",
            'ε' => r"$\varepsilon$",
            'λ' => r"$\lambda$",
            'μ' => r"$\mu$",
            'ρ' => r"$\rho$",
            'σ' => r"$\sigma$",
            'τ' => r"$\tau$",
            '≤' => r"$\le$",
            '≥' => r"$\ge$",
            '±' => r"$\pm$",
            '×' => r"$\times$",
            '·' => r"$\cdot$",
            '∞' => r"$\infty$",
            '→' => r"$\to$",
            '←' => r"$\leftarrow$",
            '≈' => r"$\approx$",
            '≠' => r"$\neq$",
            '∈' => r"$\in$",
            '−' => r"$-$",
            '√' => r"$\surd$",
            '½' => r"$\frac{1}{2}$",
            '⅓' => r"$\frac{1}{3}$",
            '⅔' => r"$\frac{2}{3}$",
            '§' => r"\S{}",
            '—' => "---",
            '–' => "--",
            '…' => r"\ldots{}",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(rep);
    }
    out
}

/// Whether a quote after `out` opens: at the start, after white space or an opening
/// bracket.
fn opens(out: &str) -> bool {
    out.chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | '`'))
}

/// The segments of `s`: `(text, false)` for plain text, `(math, true)` for the inside of
/// a pair of `$` (inline TeX math). A `$` without a partner is plain text.
fn math_segments(s: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('$') {
        let Some(len) = rest[open + 1..].find('$') else {
            break;
        };
        if open > 0 {
            out.push((&rest[..open], false));
        }
        out.push((&rest[open + 1..open + 1 + len], true));
        rest = &rest[open + 2 + len..];
    }
    if !rest.is_empty() {
        out.push((rest, false));
    }
    out
}

/// Escapes text for LaTeX like [`escape_latex`], except that inline TeX math between a
/// pair of `$` passes through as math (captions and notes).
///
/// ```
/// use dp_repro::report::escape_latex_math;
/// assert_eq!(escape_latex_math("$N_T = 10$, min_leaf"), r"$N_T = 10$, min\_leaf");
/// assert_eq!(escape_latex_math("costs $5"), r"costs \$5");
/// ```
pub fn escape_latex_math(s: &str) -> String {
    math_segments(s)
        .into_iter()
        .map(|(t, math)| {
            if math {
                format!("${t}$")
            } else {
                escape_latex(t)
            }
        })
        .collect()
}

/// Escapes text for Markdown like [`escape_markdown`], with inline TeX math between a
/// pair of `$` turned into Unicode by [`math_to_unicode`] first.
///
/// ```
/// use dp_repro::report::escape_markdown_math;
/// assert_eq!(escape_markdown_math(r"$\varepsilon = 2$, $\mathrm{sd}_0$"), "ε = 2, sd₀");
/// ```
pub fn escape_markdown_math(s: &str) -> String {
    math_segments(s)
        .into_iter()
        .map(|(t, math)| {
            if math {
                escape_markdown(&math_to_unicode(t))
            } else {
                escape_markdown(t)
            }
        })
        .collect()
}

/// Inline TeX math as plain Unicode text, for Markdown and terminals: Greek letters and
/// common symbols (`\varepsilon` → ε, `\rho` → ρ, `\cdot` → ·, `\times` → ×, `\pm` → ±,
/// `\le` → ≤, `\sqrt{n}` → √n, `-` → −), `\mathrm{sd}` and `\text{…}` as their
/// argument, sub- and superscripts in Unicode sub-/superscript characters where every
/// character has one (`sd_0` → sd₀, `B^2` → B²), else kept as `_{…}` / `^{…}` (`N_T`,
/// `t_{0.975,n−1}`); spacing commands dropped, other braces removed.
///
/// ```
/// use dp_repro::report::math_to_unicode;
/// assert_eq!(math_to_unicode(r"t_{0.975,n-1}\,\mathrm{sd}_0/\sqrt{n}"), "t_{0.975,n−1}sd₀/√n");
/// assert_eq!(math_to_unicode(r"4B^2/n"), "4B²/n");
/// assert_eq!(math_to_unicode(r"N_T = 10"), "N_T = 10");
/// ```
pub fn math_to_unicode(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = String::new();
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_alphabetic() {
                    i += 1;
                }
                if i == start && i < chars.len() {
                    // A one-symbol command: `\,` `\;` `\!` `\ ` are spacing, `\{` a brace.
                    let sym = chars[i];
                    i += 1;
                    if !matches!(sym, ',' | ';' | '!' | ':') {
                        out.push(sym);
                    }
                    continue;
                }
                let name: String = chars[start..i].iter().collect();
                match name.as_str() {
                    "sqrt" => {
                        let (arg, next) = group(&chars, i);
                        i = next;
                        let arg = math_to_unicode(&arg);
                        if arg.chars().count() > 1 {
                            out.push_str(&format!("√({arg})"));
                        } else {
                            out.push('√');
                            out.push_str(&arg);
                        }
                    }
                    "mathrm" | "text" | "mathit" | "operatorname" | "textrm" | "mathbf" => {
                        let (arg, next) = group(&chars, i);
                        i = next;
                        out.push_str(&math_to_unicode(&arg));
                    }
                    other => out.push_str(match other {
                        "varepsilon" | "epsilon" => "ε",
                        "alpha" => "α",
                        "beta" => "β",
                        "gamma" => "γ",
                        "delta" => "δ",
                        "lambda" => "λ",
                        "mu" => "μ",
                        "rho" => "ρ",
                        "sigma" => "σ",
                        "tau" => "τ",
                        "cdot" => "·",
                        "times" => "×",
                        "pm" => "±",
                        "le" | "leq" => "≤",
                        "ge" | "geq" => "≥",
                        "infty" => "∞",
                        "to" => "→",
                        "approx" => "≈",
                        "neq" => "≠",
                        "in" => "∈",
                        "ldots" | "dots" => "…",
                        "quad" | "qquad" => " ",
                        other => other,
                    }),
                }
            }
            '^' | '_' => {
                let (arg, next) = group(&chars, i);
                i = next;
                let arg = math_to_unicode(&arg);
                let map = if c == '^' {
                    superscript_char
                } else {
                    subscript_char
                };
                match arg.chars().map(map).collect::<Option<String>>() {
                    Some(script) => out.push_str(&script),
                    None if arg.chars().count() == 1 => {
                        out.push(c);
                        out.push_str(&arg);
                    }
                    None => out.push_str(&format!("{c}{{{arg}}}")),
                }
            }
            '{' | '}' => {}
            '-' => out.push('−'),
            _ => out.push(c),
        }
    }
    out
}

/// The argument at `chars[i..]`: a `{…}` group (braces balanced) or one character;
/// with the index after it.
fn group(chars: &[char], mut i: usize) -> (String, usize) {
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    match chars.get(i) {
        Some('{') => {
            let mut depth = 0;
            let start = i + 1;
            while i < chars.len() {
                match chars[i] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return (chars[start..i].iter().collect(), i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            (chars[start..].iter().collect(), chars.len())
        }
        Some(&'\\') => {
            // A command as the argument: the backslash and its letters.
            let start = i;
            i += 1;
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            (
                chars[start..i.max(start + 1)].iter().collect(),
                i.max(start + 1),
            )
        }
        Some(&c) => (c.to_string(), i + 1),
        None => (String::new(), i),
    }
}

/// The Unicode superscript of `c`, if it has one.
fn superscript_char(c: char) -> Option<char> {
    Some(match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        '+' => '⁺',
        '-' | '−' => '⁻',
        '=' => '⁼',
        '(' => '⁽',
        ')' => '⁾',
        'n' => 'ⁿ',
        'i' => 'ⁱ',
        _ => return None,
    })
}

/// The Unicode subscript of `c`, if it has one.
fn subscript_char(c: char) -> Option<char> {
    Some(match c {
        '0' => '₀',
        '1' => '₁',
        '2' => '₂',
        '3' => '₃',
        '4' => '₄',
        '5' => '₅',
        '6' => '₆',
        '7' => '₇',
        '8' => '₈',
        '9' => '₉',
        '+' => '₊',
        '-' | '−' => '₋',
        '=' => '₌',
        '(' => '₍',
        ')' => '₎',
        'a' => 'ₐ',
        'e' => 'ₑ',
        'o' => 'ₒ',
        'x' => 'ₓ',
        'h' => 'ₕ',
        'k' => 'ₖ',
        'l' => 'ₗ',
        'm' => 'ₘ',
        'n' => 'ₙ',
        'p' => 'ₚ',
        's' => 'ₛ',
        't' => 'ₜ',
        'i' => 'ᵢ',
        'j' => 'ⱼ',
        'r' => 'ᵣ',
        'u' => 'ᵤ',
        'v' => 'ᵥ',
        _ => return None,
    })
}

/// Escapes plain text for a GitHub Markdown table cell or line.
///
/// The characters `\ ` * _ [ ] < > | # ~ $` get a backslash (CommonMark allows escaping
/// any ASCII punctuation), so names like `min_leaf` or `a|b` neither format nor break the
/// table; line breaks become spaces.
///
/// ```
/// use dp_repro::report::escape_markdown;
/// assert_eq!(escape_markdown("min_leaf*"), r"min\_leaf\*");
/// ```
pub fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// ε as text: `2`, `0.5` (shortest representation that round-trips).
fn epsilon_text(e: f64) -> String {
    format!("{}", e)
}

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

/// A group header cell of the LaTeX view.
#[derive(Serialize, Clone)]
struct LatexGroup {
    /// Escaped label, or `$\varepsilon = 2$`.
    text: String,
    /// Number of columns spanned.
    span: usize,
}

/// A row of a view: escaped label and marked-up cells.
#[derive(Serialize, Clone)]
struct ViewRow {
    label: String,
    cells: Vec<String>,
}

/// The row label for LaTeX, escaped, with the row's scale factor in math:
/// `Parkinson's ($\times 10^{-2}$)`.
fn latex_row_label(r: &Row) -> String {
    match r.scale {
        Some(k) => format!(r"{} ($\times 10^{{{k}}}$)", escape_latex(&r.label)),
        None => escape_latex(&r.label),
    }
}

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

/// What the LaTeX template prints: one float per part (one part unless the layout
/// splits by ε), the notes under the last one. The fields of the first part are also
/// given at the top level (`caption`, `colspec`, `rows`, …) for templates written before
/// the layouts.
#[derive(Serialize)]
struct LatexView {
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
    fn new(t: &Table) -> LatexView {
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

/// What the Markdown template prints.
#[derive(Serialize)]
struct MarkdownView {
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
    fn new(t: &Table) -> MarkdownView {
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
