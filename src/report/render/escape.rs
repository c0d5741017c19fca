//! Escaping text for LaTeX and for Markdown, and inline TeX math as Unicode: how both
//! formats print captions, notes, labels and cells.

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
pub(super) fn superscript_char(c: char) -> Option<char> {
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
