//! What a reader sees in the rendered outputs, checked at its sources: no text that a spec,
//! a reported file or the program's own strings put into a table, a note, a check report or
//! a page cites an internal issue number (a reader outside the project cannot look it up);
//! and a table's caption ends its sentence before the generated ones follow it.

use dp_repro::spec::raw::TableEntry;
use std::fs;
use std::path::{Path, PathBuf};

/// Whether `text` cites an issue by number: `issue 12`, `Issue #4`, `issues 8`.
fn cites_issue(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let before_ok = lower[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let rest = lower[at + "issue".len()..].trim_start_matches('s');
        let rest = rest.trim_start_matches([' ', '#']);
        before_ok && rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Every file under `dir` whose name ends with one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if exts.iter().any(|x| p.to_string_lossy().ends_with(x)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every string of a YAML document, keys and values.
fn strings(v: &serde_yaml::Value, out: &mut Vec<String>) {
    match v {
        serde_yaml::Value::String(s) => out.push(s.clone()),
        serde_yaml::Value::Sequence(items) => items.iter().for_each(|x| strings(x, out)),
        serde_yaml::Value::Mapping(m) => {
            for (k, x) in m {
                strings(k, out);
                strings(x, out);
            }
        }
        serde_yaml::Value::Tagged(t) => strings(&t.value, out),
        _ => {}
    }
}

/// The texts a file gives the rendered outputs: a YAML file's strings (not its comments),
/// a Rust file's lines outside comments (its string literals), a template's lines.
fn rendered_texts(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.to_string_lossy();
    if name.ends_with(".yaml") {
        let doc: serde_yaml::Value = serde_yaml::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not YAML: {e}", path.display()));
        let mut out = Vec::new();
        strings(&doc, &mut out);
        out
    } else if name.ends_with(".rs") {
        text.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| l.split(" // ").next().unwrap_or(l).to_string())
            .collect()
    } else {
        text.lines().map(str::to_string).collect()
    }
}

/// The places whose texts reach a rendered output, with every text citing an issue.
fn citations(roots: &[(&str, &[&str])]) -> Vec<String> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for (dir, exts) in roots {
        for path in files(&top.join(dir), exts) {
            for t in rendered_texts(&path).into_iter().filter(|t| cites_issue(t)) {
                let short: String = t.trim().chars().take(160).collect();
                found.push(format!("{}: {short}", path.display()));
            }
        }
    }
    found
}

#[test]
fn the_issue_pattern_finds_what_it_must() {
    for yes in ["issue 12", "(Issue #4)", "issues 8 and 9", "see issue 30."] {
        assert!(cites_issue(yes), "{yes}");
    }
    for no in ["an issue of scale", "tissue 12", "issued 2023", "issue: 12"] {
        assert!(!cites_issue(no), "{no}");
    }
}

#[test]
fn no_rendered_text_cites_an_internal_issue_number() {
    let found = citations(&[
        ("specs", &[".yaml"]),
        ("datasets", &[".yaml"]),
        ("templates", &[".tera", ".css"]),
        ("src", &[".rs"]),
    ]);
    assert!(
        found.is_empty(),
        "texts that reach tables, notes, check reports or pages cite an issue number:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_citation_in_a_reported_reason_is_seen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("specs");
    fs::create_dir_all(&sub).unwrap();
    fs::write(
        sub.join("reported.yaml"),
        "# a comment may say issue 3\ncells:\n  - reason: >-\n      unexplained: as issue 12\n      found\n",
    )
    .unwrap();
    let texts = rendered_texts(&sub.join("reported.yaml"));
    let cited: Vec<&String> = texts.iter().filter(|t| cites_issue(t)).collect();
    assert_eq!(
        cited,
        ["unexplained: as issue 12 found"],
        "the reason, not the comment"
    );
}

#[test]
fn captions_end_their_sentence() {
    let entry = |caption: &str| TableEntry {
        name: "t2".into(),
        caption: caption.into(),
        ..TableEntry::default()
    };
    for (given, shown) in [
        ("Test MSE", "Test MSE."),
        (
            "Test MSE (DT is non-private)",
            "Test MSE (DT is non-private).",
        ),
        ("Test MSE.", "Test MSE."),
        ("Is it lower?", "Is it lower?"),
        ("Accuracy (ε = 1.)", "Accuracy (ε = 1.)"),
        ("  Test MSE  ", "Test MSE."),
        ("", "spec (t2)."),
    ] {
        assert_eq!(entry(given).caption_sentence("spec"), shown, "{given:?}");
    }
}
