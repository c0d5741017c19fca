//! Things given twice in a spec: a value repeated in a list (an ε, a grid value), which
//! would compute the same tasks twice, and a key repeated in one YAML mapping, which
//! serde_yaml reports at the start of the mapping (line 1, column 1 for a top-level key)
//! rather than where the second one is.

/// The positions (first, second) of the first value of `values` that repeats an earlier
/// one; values are compared as given (callers pass canonical text or numbers).
pub fn first_repeat<T: PartialEq>(values: &[T]) -> Option<(usize, usize)> {
    (1..values.len()).find_map(|j| {
        values[..j]
            .iter()
            .position(|v| *v == values[j])
            .map(|i| (i, j))
    })
}

/// A key given twice in one mapping: where the second one is (1-based line and column)
/// and the line of the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatedKey {
    /// Line of the second occurrence.
    pub line: usize,
    /// Column of the second occurrence.
    pub column: usize,
    /// Line of the first occurrence.
    pub first_line: usize,
}

/// The key a serde or serde_yaml duplicate-key message names: ``duplicate field `k` ``
/// or `duplicate entry with key "k"`.
pub fn duplicated_key(message: &str) -> Option<&str> {
    for (lead, close) in [
        ("duplicate field `", '`'),
        ("duplicate entry with key \"", '"'),
    ] {
        if let Some(i) = message.find(lead) {
            let rest = &message[i + lead.len()..];
            return rest.find(close).map(|j| &rest[..j]);
        }
    }
    None
}

/// A key written `key:` (bare or quoted) at the start of `s`, or None.
fn key_at(s: &str) -> Option<&str> {
    let (key, rest) = match s.chars().next()? {
        q @ ('"' | '\'') => {
            let end = s[1..].find(q)? + 1;
            (&s[1..end], &s[end + 1..])
        }
        _ => {
            let colon = s.find(':')?;
            (s[..colon].trim_end(), &s[colon..])
        }
    };
    let rest = rest.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(key)
}

/// The second `key` of the mapping that starts at `start` (1-based line and column, as
/// serde_yaml locates a duplicate-key error): a flow mapping (`{` at `start`) is read up
/// to its closing brace, a block mapping line by line while its keys stay in `start`'s
/// column. None when the mapping does not hold `key` twice.
pub fn repeated_key(text: &str, start: (usize, usize), key: &str) -> Option<RepeatedKey> {
    let lines: Vec<&str> = text.lines().collect();
    let (line0, col0) = start;
    let first = lines.get(line0.checked_sub(1)?)?;
    if first.chars().nth(col0.checked_sub(1)?) == Some('{') {
        return repeated_in_flow(&lines, start, key);
    }
    let mut seen: Option<usize> = None;
    for (i, line) in lines.iter().enumerate().skip(line0 - 1) {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.trim().is_empty() || trimmed.starts_with('#') || trimmed.trim() == "---" {
            continue;
        }
        let indent = line.len() - trimmed.len();
        // `- ` items: the key of an item starts after its dashes.
        let mut content = trimmed;
        let mut column = indent + 1;
        while let Some(rest) = content.strip_prefix("- ") {
            let inner = rest.trim_start_matches(' ');
            column += content.len() - inner.len();
            content = inner;
        }
        let new_item = content.len() != trimmed.len();
        if i + 1 > line0 && (column < col0 || (column == col0 && new_item && indent + 1 < col0)) {
            break; // the mapping has ended (a shallower line, or the next list item)
        }
        if column != col0 {
            continue;
        }
        if key_at(content) == Some(key) {
            match seen {
                None => seen = Some(i + 1),
                Some(first_line) => {
                    return Some(RepeatedKey {
                        line: i + 1,
                        column,
                        first_line,
                    })
                }
            }
        }
    }
    None
}

/// [`repeated_key`] in a flow mapping `{…}` that opens at `start` (it may span lines).
fn repeated_in_flow(
    lines: &[&str],
    (line0, col0): (usize, usize),
    key: &str,
) -> Option<RepeatedKey> {
    let mut depth = 0usize;
    let mut expect_key = false;
    let mut seen: Option<usize> = None;
    let mut quote: Option<char> = None;
    for (i, line) in lines.iter().enumerate().skip(line0 - 1) {
        let skip = if i + 1 == line0 { col0 - 1 } else { 0 };
        let chars: Vec<char> = line.chars().collect();
        let mut k = skip;
        while k < chars.len() {
            let c = chars[k];
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                }
                k += 1;
                continue;
            }
            match c {
                '{' | '[' => {
                    depth += 1;
                    expect_key = c == '{' && depth == 1;
                }
                '}' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return None;
                    }
                }
                ',' if depth == 1 => expect_key = true,
                ' ' | '\t' => {}
                _ if expect_key => {
                    expect_key = false;
                    let rest: String = chars[k..].iter().collect();
                    if key_at(&rest) == Some(key) {
                        match seen {
                            None => seen = Some(i + 1),
                            Some(first_line) => {
                                return Some(RepeatedKey {
                                    line: i + 1,
                                    column: k + 1,
                                    first_line,
                                })
                            }
                        }
                    }
                    if c == '"' || c == '\'' {
                        quote = Some(c);
                    }
                }
                '"' | '\'' if chars[..k].iter().rev().find(|c| **c != ' ') == Some(&':') => {
                    quote = Some(c)
                }
                _ => {}
            }
            k += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_values() {
        assert_eq!(first_repeat(&[1.0, 1.0, 2.0]), Some((0, 1)));
        assert_eq!(first_repeat(&["1", "2", "3", "2"]), Some((1, 3)));
        assert_eq!(first_repeat(&[1, 2, 3]), None);
        assert_eq!(first_repeat::<u8>(&[]), None);
    }

    #[test]
    fn names_the_key_of_either_message() {
        assert_eq!(duplicated_key("duplicate field `name`"), Some("name"));
        assert_eq!(
            duplicated_key("methods[0]: duplicate entry with key \"grid\""),
            Some("grid")
        );
        assert_eq!(duplicated_key("invalid type"), None);
    }

    #[test]
    fn a_top_level_key_twice() {
        let text = "# a comment\nname: a\nseed: 1\nname: b\n";
        assert_eq!(
            repeated_key(text, (1, 1), "name"),
            Some(RepeatedKey {
                line: 4,
                column: 1,
                first_line: 2
            })
        );
        assert_eq!(repeated_key(text, (1, 1), "seed"), None);
    }

    #[test]
    fn a_key_twice_in_a_list_item_not_across_items() {
        let text = "m:\n  - method: x\n    grid: {}\n  - method: y\n    grid: {}\n    method: z\n";
        assert_eq!(repeated_key(text, (2, 5), "method"), None);
        let r = repeated_key(text, (4, 5), "method").unwrap();
        assert_eq!((r.line, r.column, r.first_line), (6, 5, 4));
    }

    #[test]
    fn a_key_twice_in_a_flow_mapping() {
        let text = "m:\n  - grid: {a: [1, 2], b: 3, a: [4]}\n";
        let r = repeated_key(text, (2, 11), "a").unwrap();
        assert_eq!((r.line, r.column, r.first_line), (2, 29, 2));
    }
}
