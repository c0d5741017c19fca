//! Unbalanced flow brackets in YAML text: a `[` or `{` that is never closed makes YAML
//! read the following lines as part of the list (serde_yaml then complains about a value
//! far away, e.g. `invalid type: string "2 methods"`), so the opening bracket is found
//! and named instead.

/// A flow bracket that is not closed (or a closing one that does not match).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unbalanced {
    /// 1-based line of the bracket at fault.
    pub line: usize,
    /// 1-based column of the bracket at fault.
    pub column: usize,
    /// What is wrong, in words, with the fix.
    pub message: String,
}

/// The partner of an opening bracket.
fn closing(open: char) -> char {
    if open == '[' {
        ']'
    } else {
        '}'
    }
}

/// Whether `line` (without its indentation) starts like a block key (`name:`) or a block
/// list item (`- `), i.e. not like the continuation of a flow collection.
fn starts_block_entry(trimmed: &str) -> bool {
    if trimmed.starts_with("- ") || trimmed == "-" {
        return true;
    }
    let key_len = trimmed
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(trimmed.len());
    key_len > 0 && {
        let rest = &trimmed[key_len..];
        rest == ":" || rest.starts_with(": ")
    }
}

/// Finds the first flow bracket of `text` that is not closed before the file ends or
/// before a later line that starts a block entry (`key:` or `- `) no deeper than the
/// line that opened it, or a closing bracket of the wrong kind. Quoted scalars,
/// comments and block scalars (`|`, `>`) are skipped; brackets inside a plain scalar
/// (`note: see [1`) are text, not flow indicators. None when the brackets balance.
pub fn unbalanced(text: &str) -> Option<Unbalanced> {
    // Open brackets: (bracket, line, column, indentation of its line).
    let mut open: Vec<(char, usize, usize, usize)> = Vec::new();
    let mut quote: Option<char> = None;
    // Lines indented more than this belong to a block scalar.
    let mut block_scalar: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if let Some(b) = block_scalar {
            if trimmed.trim().is_empty() || indent > b {
                continue;
            }
            block_scalar = None;
        }
        if let (Some(&(c, l, col, at)), None) = (open.first(), quote) {
            if indent <= at && starts_block_entry(trimmed) {
                return Some(Unbalanced {
                    line: l,
                    column: col,
                    message: format!(
                        "unclosed `{c}`: the {} opened here is not closed before line {n} (`{}`); close it with `{}`",
                        if c == '[' { "list" } else { "mapping" },
                        trimmed.trim_end(),
                        closing(c)
                    ),
                });
            }
        }
        let chars: Vec<char> = line.chars().collect();
        // A value may start here: at the line start, after `- `, `: `, and in a flow
        // collection after `[`, `{`, `,`.
        let mut value_start = true;
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            if let Some(q) = quote {
                if c == '\\' && q == '"' {
                    k += 2;
                    continue;
                }
                if c == q {
                    if q == '\'' && chars.get(k + 1) == Some(&'\'') {
                        k += 2;
                        continue;
                    }
                    quote = None;
                    value_start = false;
                }
                k += 1;
                continue;
            }
            let after_space = k == 0 || chars[k - 1] == ' ' || chars[k - 1] == '\t';
            match c {
                ' ' | '\t' => {}
                '#' if after_space => break,
                '"' | '\'' if value_start => quote = Some(c),
                '[' | '{' if value_start || !open.is_empty() => {
                    open.push((c, n, k + 1, indent));
                    value_start = true;
                }
                ']' | '}' if !open.is_empty() => {
                    let (o, l, col, _) = open.pop().expect("not empty");
                    if closing(o) != c {
                        return Some(Unbalanced {
                            line: n,
                            column: k + 1,
                            message: format!(
                                "`{c}` does not close the `{o}` opened at line {l}, column {col}; close it with `{}`",
                                closing(o)
                            ),
                        });
                    }
                    value_start = false;
                }
                ',' if !open.is_empty() => value_start = true,
                ':' if chars.get(k + 1).is_none_or(|n| *n == ' ') => value_start = true,
                '-' if value_start && chars.get(k + 1).is_none_or(|n| *n == ' ') => {}
                '|' | '>' if value_start && open.is_empty() => {
                    block_scalar = Some(indent);
                    break;
                }
                _ => value_start = false,
            }
            k += 1;
        }
    }
    open.first().map(|&(c, l, col, _)| Unbalanced {
        line: l,
        column: col,
        message: format!(
            "unclosed `{c}`: the {} opened here is not closed before the end of the file; close it with `{}`",
            if c == '[' { "list" } else { "mapping" },
            closing(c)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_text_passes() {
        let text = "name: t\ndatasets: [a, b,\n           c]\nsplit: {public: 0.1, private: 0.9}\nnote: see [1 in the paper\ncaption: \"x [\" # a comment [\ndescription: >-\n  [ folded text\nseed: 1\n";
        assert_eq!(unbalanced(text), None);
    }

    #[test]
    fn an_unclosed_list_before_the_next_key() {
        let u = unbalanced("name: t\nepsilons: [1, 2\nmethods:\n  - method: DT\n").unwrap();
        assert_eq!((u.line, u.column), (2, 11));
        assert!(
            u.message.starts_with("unclosed `[`") && u.message.contains("line 3"),
            "{}",
            u.message
        );
    }

    #[test]
    fn an_unclosed_list_at_the_end_and_a_wrong_closer() {
        let u = unbalanced("methods:\n  - grid: {depth: [1, 2}\n").unwrap();
        assert_eq!((u.line, u.column), (2, 24));
        assert!(
            u.message.contains("does not close the `[`"),
            "{}",
            u.message
        );
        let u = unbalanced("tables:\n  - methods: [LPDT-M\n").unwrap();
        assert_eq!((u.line, u.column), (2, 14));
        assert!(u.message.contains("end of the file"), "{}", u.message);
    }
}
