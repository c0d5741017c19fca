//! Plain-words YAML errors: serde_yaml's (libyaml's) messages rewritten for a person who
//! edits a spec, a data-set manifest or a method file by hand (on the ground floor, so
//! `data/`, `methods/` and `spec/` explain a broken file in one way) — a tab says it is a tab, an indentation mistake says which line
//! is indented differently from which block, and the position appears once (the caller
//! prints it as `path:line:column`).
//!
//! serde_yaml 0.9 exposes its errors as text only ("did not find expected key at line 10
//! column 7, while parsing a block mapping at line 8 column 5"), so the rewriting reads
//! that text; `tests/errors.rs` pins every case, so a serde_yaml release that words its
//! errors differently fails the tests instead of silently degrading the messages.

pub mod brackets;
pub mod duplicates;

/// `line L, column C: ` in words, or nothing when the position is unknown (line 0): how
/// a YAML file's errors (a spec's, a data-set manifest's) give their position.
pub fn position(line: usize, column: usize) -> String {
    match (line, column) {
        (0, _) => String::new(),
        (l, 0) => format!("line {l}: "),
        (l, c) => format!("line {l}, column {c}: "),
    }
}

/// Whether `text` holds no YAML content: only blank lines, comments or a bare document
/// marker (`---` / `...`).
pub fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

/// A position `(line, column)`, both 1-based.
type Pos = (usize, usize);

/// Splits a trailing ` at line L column C` off `s`.
fn strip_position(s: &str) -> (&str, Option<Pos>) {
    if let Some(idx) = s.rfind(" at line ") {
        let mut parts = s[idx + " at line ".len()..].split(" column ");
        if let (Some(l), Some(c), None) = (parts.next(), parts.next(), parts.next()) {
            if let (Ok(l), Ok(c)) = (l.parse(), c.parse()) {
                return (&s[..idx], Some((l, c)));
            }
        }
    }
    (s, None)
}

/// Line `line` (1-based) of `text`, without its line break.
fn line_of(text: &str, line: usize) -> Option<&str> {
    text.lines().nth(line.checked_sub(1)?)
}

/// The 1-based column of the first character that is not a space, or None for a blank
/// or comment line.
fn indent_column(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(' ');
    if rest.trim().is_empty() || rest.starts_with('#') {
        None
    } else {
        Some(line.len() - rest.len() + 1)
    }
}

/// The last line before `line` that holds content, with its indentation column.
fn previous_content_line(text: &str, line: usize) -> Option<(usize, usize)> {
    (1..line)
        .rev()
        .find_map(|l| line_of(text, l).and_then(indent_column).map(|c| (l, c)))
}

/// The next line after `line` that holds content, with its indentation column.
fn next_content_line(text: &str, line: usize) -> Option<(usize, usize)> {
    let total = text.lines().count();
    (line + 1..=total).find_map(|l| line_of(text, l).and_then(indent_column).map(|c| (l, c)))
}

/// The character at (line, column), columns counted in characters from 1.
fn char_at(text: &str, (line, column): Pos) -> Option<char> {
    line_of(text, line)?.chars().nth(column.checked_sub(1)?)
}

/// Rewrites a serde_yaml error on `text` as `(line, column, message)`: the position of
/// the problem (0, 0 when serde_yaml gives none) and a message in plain words that does
/// not repeat it.
pub fn explain(e: &serde_yaml::Error, text: &str) -> (usize, usize, String) {
    // An unclosed bracket makes YAML read on far past it: name the bracket instead.
    if let Some(u) = brackets::unbalanced(text) {
        return (u.line, u.column, u.message);
    }
    let raw = e.to_string();
    if raw.starts_with("repetition limit exceeded") {
        return alias_bomb(text);
    }
    let (problem, context) = match raw.split_once(", while ") {
        Some((p, c)) => (p, Some(c)),
        None => (raw.as_str(), None),
    };
    let (problem, problem_pos) = strip_position(problem);
    let context = context.map(strip_position);
    let pos = e
        .location()
        .map(|l| (l.line(), l.column()))
        .or(problem_pos)
        .unwrap_or((0, 0));
    // serde_yaml places a repeated key at the start of its mapping: find the second one.
    if let Some(key) = duplicates::duplicated_key(problem) {
        if let Some(r) = duplicates::repeated_key(text, pos, key) {
            let at = problem.find("duplicate").unwrap_or(0);
            return (
                r.line,
                r.column,
                format!(
                    "{}`{key}` is given twice in one mapping (first at line {}); keep one of them",
                    &problem[..at],
                    r.first_line
                ),
            );
        }
    }
    let message = plain_types(&plain_message(problem, context, pos, text));
    (pos.0, pos.1, message)
}

/// The first alias (`*name`) of `text` outside comments and quoted strings: its position
/// and name. A plain scan of the text, for errors serde_yaml reports without a position.
fn first_alias(text: &str) -> Option<(Pos, &str)> {
    let is_name = |c: char| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}');
    text.lines().enumerate().find_map(|(i, line)| {
        let mut quote = None;
        let mut prev = ' ';
        for (at, c) in line.char_indices() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '#') if prev.is_whitespace() => return None,
                (None, '*') if prev.is_whitespace() || matches!(prev, '[' | '{' | ',') => {
                    let rest = &line[at + 1..];
                    let len = rest.find(|c| !is_name(c)).unwrap_or(rest.len());
                    if len > 0 {
                        let column = line[..at].chars().count() + 1;
                        return Some(((i + 1, column), &rest[..len]));
                    }
                }
                _ => {}
            }
            prev = c;
        }
        None
    })
}

/// serde_yaml's "repetition limit exceeded" in words: where the first alias is, why the
/// file is refused and what to write instead.
fn alias_bomb(text: &str) -> (usize, usize, String) {
    let why = "the aliases of this file expand beyond the limit: each alias `*name` repeats \
               the value of its anchor `&name`, and anchors whose values hold aliases \
               multiply the copies, so these few lines would stand for an enormous file \
               (an alias bomb, or a far too deep reuse of anchors)";
    let fix = "write the repeated values out, or use aliases only of anchors whose values \
               hold no alias";
    match first_alias(text) {
        Some(((line, column), name)) => (
            line,
            column,
            format!("{why}; the first alias is `*{name}` here. Nothing was read: {fix}"),
        ),
        None => (0, 0, format!("{why}. Nothing was read: {fix}")),
    }
}

/// serde's Rust type names in `message` put in words a spec's author knows: `expected
/// struct Spec` → a spec (a mapping of fields), `expected struct …` → a mapping of fields,
/// `expected u64`/`usize`/`u32` → a whole number ≥ 0, `expected i64` → a whole number,
/// `expected f64` → a number, `expected enum …` → one of the names the field takes,
/// `expected internally tagged enum …` → a mapping of fields, and
/// `data did not match any variant of untagged enum …` → none of the field's forms.
pub fn plain_types(message: &str) -> String {
    const WORDS: [(&str, &str); 5] = [
        ("usize", "a whole number >= 0"),
        ("u64", "a whole number >= 0"),
        ("u32", "a whole number >= 0"),
        ("i64", "a whole number"),
        ("f64", "a number"),
    ];
    let mut out = message
        .replace(
            "expected struct Spec",
            "expected a spec: a mapping of fields (name:, datasets:, methods:, …)",
        )
        .replace("expected internally tagged enum ", "expected struct ");
    const UNTAGGED: &str = "data did not match any variant of untagged enum ";
    if let Some(i) = out.find(UNTAGGED) {
        let name = i + UNTAGGED.len();
        let end = out[name..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(out.len(), |j| name + j);
        out.replace_range(
            i..end,
            "the value has none of the forms this field takes (see its description)",
        );
    }
    for (rust, words) in WORDS {
        out = out.replace(&format!("expected {rust}"), &format!("expected {words}"));
    }
    for kind in ["struct", "enum"] {
        while let Some(i) = out.find(&format!("expected {kind} ")) {
            let start = i + "expected ".len();
            let end = out[start + kind.len() + 1..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(out.len(), |j| start + kind.len() + 1 + j);
            let words = if kind == "struct" {
                "a mapping of fields"
            } else {
                "one of the names this field takes"
            };
            out.replace_range(start..end, words);
        }
    }
    out
}

fn plain_message(
    problem: &str,
    context: Option<(&str, Option<Pos>)>,
    pos: Pos,
    text: &str,
) -> String {
    let (line, _) = pos;
    // A tab where YAML expects indentation or a token.
    let tab_on_line =
        line_of(text, line).and_then(|l| l.find('\t').map(|i| l[..i].chars().count() + 1));
    if char_at(text, pos) == Some('\t') || problem.contains("tab character") {
        let column = if char_at(text, pos) == Some('\t') {
            pos.1
        } else {
            tab_on_line.unwrap_or(pos.1)
        };
        let at = if column == pos.1 {
            String::new()
        } else {
            format!(" (column {column})")
        };
        return format!(
            "this line holds a tab character{at}; YAML indents with spaces only: replace the tab with spaces"
        );
    }
    if problem.contains("cannot start any token") {
        if let Some(c) = char_at(text, pos) {
            return format!(
                "the character `{c}` cannot start a YAML value; put the value in quotes (\"{c}…\")"
            );
        }
    }
    let this_column = line_of(text, line).and_then(indent_column);
    let block = context.and_then(|(ctx, at)| {
        let list = ctx.contains("block collection") || ctx.contains("block sequence");
        if !list && !ctx.contains("block mapping") {
            return None;
        }
        at.map(|at| (list, at))
    });
    let indentation = problem.starts_with("did not find expected key")
        || problem.starts_with("did not find expected '-' indicator")
        || problem.starts_with("block sequence entries are not allowed");
    if indentation {
        let advice =
            "Indent every key exactly as far as the other keys of its mapping, with spaces";
        let lead = "this line is indented differently from the lines around it";
        let (Some((list, (l2, c2))), Some(col)) = (block, this_column) else {
            return format!("{lead}. {advice}");
        };
        if !list {
            return format!(
                "{lead}: it starts in column {col}, but the mapping that starts at line {l2} has its keys in column {c2}. {advice}"
            );
        }
        // The column of the first key after the `- ` of the list's first item.
        let key_column = line_of(text, l2).and_then(|l| {
            let after = l.get(c2 - 1..)?.strip_prefix('-')?;
            let rest = after.trim_start_matches(' ');
            (!rest.is_empty()).then(|| c2 + 1 + after.len() - rest.len())
        });
        let keys = key_column
            .map(|k| format!(" and the keys of an item in column {k}"))
            .unwrap_or_default();
        return format!(
            "{lead}: it starts in column {col}, but the list that starts at line {l2} has its `- ` items in column {c2}{keys}. {advice}"
        );
    }
    if problem.starts_with("mapping values are not allowed") {
        if let (Some((prev, prev_col)), Some(col)) =
            (previous_content_line(text, line), this_column)
        {
            if col > prev_col {
                return format!(
                    "this line is indented more than line {prev}, so YAML reads it as part of the value on line {prev}; indent it like the keys it belongs beside"
                );
            }
        }
        return "a `key: value` inside a value (a second `: ` on the line); put the value in quotes if it contains `: `".to_string();
    }
    let mut message = with_suggestion(problem);
    // A value that swallowed the next line: `seed: 1` followed by an over-indented key.
    if problem.contains("invalid type: string") {
        if let (Some(col), Some((next, next_col))) = (this_column, next_content_line(text, line)) {
            let key_line = line_of(text, line).unwrap_or("");
            if next_col > col && key_line.contains(": ") {
                message.push_str(&format!(
                    " (line {next} is indented more than line {line}, so YAML reads it as the continuation of this value; if it is a key of its own, indent it like line {line})"
                ));
            }
        }
    }
    if let Some((ctx, Some((l2, _)))) = context {
        let what = ctx
            .trim_start_matches("parsing ")
            .trim_start_matches("scanning ");
        message.push_str(&format!(" (while reading {what} that starts at line {l2})"));
    }
    message
}

/// serde's `unknown field `x`, expected one of `a`, `b`` (or `unknown variant`) with
/// the closest expected name suggested right after the unknown one (see
/// [`crate::suggest`]); other messages unchanged.
pub fn with_suggestion(problem: &str) -> String {
    let Some(start) = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| problem.find(p).map(|i| i + p.len()))
    else {
        return problem.to_string();
    };
    let Some(len) = problem[start..].find('`') else {
        return problem.to_string();
    };
    let name = &problem[start..start + len];
    let after = start + len + 1;
    let Some(expected) = problem[after..].find("expected") else {
        return problem.to_string();
    };
    // The expected names are the backquoted words after `expected`.
    let valid: Vec<&str> = problem[after + expected..]
        .split('`')
        .skip(1)
        .step_by(2)
        .collect();
    format!(
        "{}{}{}",
        &problem[..after],
        crate::suggest::did_you_mean(name, valid),
        &problem[after..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain_text(text: &str) -> (usize, usize, String) {
        let e = serde_yaml::from_str::<serde_yaml::Value>(text).unwrap_err();
        explain(&e, text)
    }

    #[test]
    fn blank_files() {
        assert!(is_blank(""));
        assert!(is_blank("  \n# a comment\n\n---\n"));
        assert!(!is_blank("name: t\n"));
    }

    #[test]
    fn rust_type_names_are_put_in_words() {
        assert_eq!(
            plain_types("invalid type: sequence, expected struct Spec"),
            "invalid type: sequence, expected a spec: a mapping of fields (name:, datasets:, methods:, …)"
        );
        assert_eq!(
            plain_types("seed: invalid type: integer `-1`, expected u64"),
            "seed: invalid type: integer `-1`, expected a whole number >= 0"
        );
        assert_eq!(
            plain_types("invalid type: string \"x\", expected struct RawGrid at the top"),
            "invalid type: string \"x\", expected a mapping of fields at the top"
        );
        assert_eq!(
            plain_types("invalid value, expected enum Selection"),
            "invalid value, expected one of the names this field takes"
        );
        assert_eq!(
            plain_types(".[1]: invalid type: integer `5`, expected internally tagged enum Claim"),
            ".[1]: invalid type: integer `5`, expected a mapping of fields"
        );
        assert_eq!(
            plain_types("data did not match any variant of untagged enum BudgetBlock"),
            "the value has none of the forms this field takes (see its description)"
        );
        assert_eq!(plain_types("no type here"), "no type here");
    }

    #[test]
    fn strips_positions() {
        assert_eq!(
            strip_position("did not find expected key at line 10 column 7"),
            ("did not find expected key", Some((10, 7)))
        );
        assert_eq!(strip_position("no position"), ("no position", None));
    }

    #[test]
    fn unknown_fields_and_variants_get_a_suggestion() {
        assert_eq!(
            with_suggestion("unknown field `epsilon`, expected one of `seed`, `epsilons`"),
            "unknown field `epsilon` (did you mean `epsilons`?), expected one of `seed`, `epsilons`"
        );
        assert_eq!(
            with_suggestion("unknown variant `Best_Mean`, expected `best_mean` or `cv`"),
            "unknown variant `Best_Mean` (did you mean `best_mean`?), expected `best_mean` or `cv`"
        );
        assert_eq!(
            with_suggestion("unknown field `zzz`, expected `a` or `b`"),
            "unknown field `zzz`, expected `a` or `b`"
        );
        assert_eq!(with_suggestion("invalid type"), "invalid type");
    }

    #[test]
    fn a_tab_is_named() {
        let (l, c, m) = explain_text("a: 1\n\tb: 2\n");
        assert_eq!((l, c), (2, 1));
        assert!(m.contains("tab character") && m.contains("spaces"), "{m}");
        assert!(!m.contains("line 2"), "{m}");
    }

    #[test]
    fn indentation_names_the_block() {
        let text = "a:\n  b: 1\n  c:\n    d: 1\n   e: 2\n";
        let (l, _, m) = explain_text(text);
        assert_eq!(l, 5);
        assert!(
            m.contains("indented differently") && m.contains("column 4"),
            "{m}"
        );
        assert!(!m.contains("at line 5"), "{m}");
    }

    #[test]
    fn an_alias_bomb_names_its_first_alias() {
        let mut text =
            String::from("# not *here\nq: \"*nor here\"\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let copies = vec![format!("*a{}", i - 1); 9].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{copies}]\n"));
        }
        let (l, c, m) = explain_text(&text);
        assert_eq!((l, c), (4, 10));
        assert!(m.contains("`*a0`") && m.contains("alias bomb"), "{m}");
        assert_eq!(first_alias("a: [1, *b]\n"), Some(((1, 8), "b")));
        assert_eq!(first_alias("a: 2*3 # *c\n"), None);
    }

    #[test]
    fn an_over_indented_line_after_a_scalar() {
        let (l, _, m) = explain_text("a: 1\n  b: 2\n");
        assert_eq!(l, 2);
        assert!(m.contains("indented more than line 1"), "{m}");
    }
}
