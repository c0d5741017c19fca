//! The repository stands alone: nothing in it points outside the checkout, and every
//! citation of the project's own method notes (`docs/methods/<paper>.md §N`, `§N item K`)
//! lands on a section (or numbered item) that exists. Both checks are also run on
//! deliberately broken inputs, so they are seen to fail.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

/// The folders and files whose text a user reads or the tool needs.
const ROOTS: [&str; 7] = [
    "specs",
    "src",
    "templates",
    "tests",
    "docs",
    "crates",
    "README.md",
];

fn text_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for e in fs::read_dir(path).unwrap() {
            text_files(&e.unwrap().path(), out);
        }
    } else if path.extension().is_some_and(|x| {
        [
            "rs", "yaml", "md", "tera", "toml", "csv", "json", "py", "sh",
        ]
        .contains(&x.to_str().unwrap_or(""))
    }) {
        out.push(path.to_path_buf());
    }
}

fn all_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for r in ROOTS {
        let p = common::root().join(r);
        if p.exists() {
            text_files(&p, &mut out);
        }
    }
    out
}

/// A path out of the checkout into the reference folder its authors had beside it. Built
/// from parts so that this file does not contain it.
fn outside_needle() -> String {
    ["..", "/", "sha", "red"].concat()
}

/// The lines of `text` that point outside the checkout.
fn points_outside(text: &str) -> Vec<&str> {
    let needle = outside_needle();
    text.lines().filter(|l| l.contains(&needle)).collect()
}

#[test]
fn nothing_points_outside_the_checkout() {
    let mut found = Vec::new();
    for f in all_files() {
        let Ok(text) = fs::read_to_string(&f) else {
            continue;
        };
        for l in points_outside(&text) {
            found.push(format!("{}: {}", f.display(), l.trim()));
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    // Seen to fail: a spec comment and a reported file path that leave the checkout.
    let bad = format!(
        "# Method notes: {}/methods/lpdt.md §6\nreported: {{file: ../../{}/reported/t.csv}}\n",
        outside_needle(),
        &outside_needle()[3..]
    );
    assert_eq!(points_outside(&bad).len(), 2, "{bad}");
}

/// One citation: the page, the section (`2.1`) and the numbered item, if any.
#[derive(Debug, PartialEq)]
struct Citation {
    page: String,
    section: String,
    item: Option<String>,
}

/// Every `docs/methods/<page>.md §<section>[ item <k>]` in `text` (also LaTeX's `\S{}`).
fn citations(text: &str) -> Vec<Citation> {
    let mut out = Vec::new();
    let key = "docs/methods/";
    let mut rest = text;
    while let Some(i) = rest.find(key) {
        rest = &rest[i + key.len()..];
        let Some(dot) = rest.find(".md") else { break };
        let page = &rest[..dot];
        if page.is_empty() || !page.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let after = &rest[dot + 3..];
        let after = after
            .strip_prefix(" §")
            .or_else(|| after.strip_prefix(r" \S{}"));
        let Some(after) = after else { continue };
        let section: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let section = section.trim_end_matches('.').to_string();
        if section.is_empty() {
            continue;
        }
        let tail = &after[section.len()..];
        let item = tail
            .trim_start_matches('.')
            .strip_prefix(" item ")
            .or_else(|| tail.strip_prefix(" items "))
            .map(|t| {
                t.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .filter(|k| !k.is_empty());
        out.push(Citation {
            page: page.to_string(),
            section,
            item,
        });
    }
    out
}

/// Whether `page` (its text) has the section: a heading `## 2.` / `### 2.1`, or, for a
/// numbered item, a line `K.` after that heading and before the next heading of the same
/// or a higher level.
fn resolves(page: &str, c: &Citation) -> bool {
    let lines: Vec<&str> = page.lines().collect();
    let level = if c.section.contains('.') { 3 } else { 2 };
    let heading = |l: &str| -> Option<(usize, String)> {
        let hashes = l.chars().take_while(|&ch| ch == '#').count();
        if hashes == 0 {
            return None;
        }
        let num: String = l[hashes..]
            .trim_start()
            .chars()
            .take_while(|ch| ch.is_ascii_digit() || *ch == '.')
            .collect();
        Some((hashes, num.trim_end_matches('.').to_string()))
    };
    let Some(start) = lines
        .iter()
        .position(|l| heading(l).is_some_and(|(h, n)| h == level && n == c.section))
    else {
        return false;
    };
    let Some(item) = &c.item else { return true };
    let prefix = format!("{item}.");
    lines[start + 1..]
        .iter()
        .take_while(|l| heading(l).is_none_or(|(h, _)| h > level))
        .any(|l| l.trim_start().starts_with(&prefix))
}

#[test]
fn every_citation_of_the_method_notes_resolves() {
    let mut broken = Vec::new();
    let mut n = 0;
    // This file's own examples below cite a page `p` on purpose.
    for f in all_files()
        .into_iter()
        .filter(|f| !f.ends_with("stands_alone.rs"))
    {
        let Ok(text) = fs::read_to_string(&f) else {
            continue;
        };
        for c in citations(&text) {
            n += 1;
            let page = common::root().join(format!("docs/methods/{}.md", c.page));
            let ok = fs::read_to_string(&page).is_ok_and(|p| resolves(&p, &c));
            if !ok {
                broken.push(format!("{}: {c:?}", f.display()));
            }
        }
    }
    assert!(n > 500, "only {n} citations found: is the parser broken?");
    assert!(broken.is_empty(), "{} broken: {broken:#?}", broken.len());

    // Seen to fail: a section, an item and a page that do not exist.
    let page = "# P\n## 1. One\ntext\n### 1.2 Sub\n1. first\n2. second\n## 2. Two\n3. not in 1.2\n";
    let cite = |s: &str| citations(s).pop().unwrap();
    assert!(resolves(page, &cite("docs/methods/p.md §1")));
    assert!(resolves(page, &cite("docs/methods/p.md §1.2 item 2")));
    assert!(!resolves(page, &cite("docs/methods/p.md §1.3")));
    assert!(!resolves(page, &cite("docs/methods/p.md §1.2 item 3")));
    assert!(!resolves(page, &cite("docs/methods/p.md §3")));
    assert_eq!(
        cite(r"(docs/methods/lpdt.md \S{}12 item 2)"),
        Citation {
            page: "lpdt".into(),
            section: "12".into(),
            item: Some("2".into())
        }
    );
}
