//! The folders of `src/` stand on floors (docs/architecture.md, "The folders of `src/`"):
//! every `crate::` path in a folder's code names a folder on a lower floor, so there is
//! no import circle and no arrow back up. A new folder has to be placed on a floor here.

use std::collections::BTreeSet;
use std::path::Path;

/// The floors, lowest first. A room (a folder of `src/`, or a module file directly in
/// it) may import rooms of lower floors only; rooms of one floor import none of each
/// other. `privacy` is the privacy crate, re-exported as `crate::privacy`.
const FLOORS: &[&[&str]] = &[
    // The privacy crate: a crate of its own, which cannot import this one.
    &["privacy"],
    &[
        "seeds",
        "csv_table",
        "run_row",
        "suggest",
        "schema_parts",
        "yaml_word",
        "stats",
    ],
    &["yaml_error"],
    &["data"],
    &["partition"],
    &["estimate"],
    &["forest"],
    &["methods"],
    &["spec"],
    &["report"],
    &["run"],
    &["summary"],
    &["bench"],
    &["audit"],
    &["check"],
    &["site"],
    &["cli"],
];

/// The floor of `room`, if it has one.
fn floor(room: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&room))
}

/// The room a file of `src/` belongs to: `run/table/rows.rs` → `run`, `seeds.rs` → `seeds`;
/// `None` for the crate roots `lib.rs` and `main.rs`, which only declare and call.
fn room(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => None,
        Some(module) => Some(module.to_string()),
        None => Some(first.to_string()),
    }
}

/// `text` without its comment lines and without its test code: an item under
/// `#[cfg(test)]` (a `mod … { … }` to its matching brace, anything else to its end) is
/// dropped wherever it stands, and reading goes on after it.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let joined = lines.join("\n");
    let mut out = String::new();
    let mut rest = joined.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        // The item runs to the `}` matching its first `{`, or to its `;` if that comes
        // first (a `use`, a `mod x;`).
        let (open, semi) = (after.find('{'), after.find(';'));
        let end = match (open, semi) {
            (Some(o), Some(s)) if s < o => s + 1,
            (None, Some(s)) => s + 1,
            (Some(o), _) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, ch) in after[o..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The leading identifier of `s`.
fn ident(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The rooms named by the code of `text` (see [`code_of`]): `crate::room` paths, each
/// room of a `crate::{a, b::c, …}` group (over several lines too), and the privacy crate
/// by its own name (`dp_privacy::` is the room `privacy`).
fn imports(text: &str) -> BTreeSet<String> {
    let code = code_of(text);
    let mut out = BTreeSet::new();
    for (prefix, fixed) in [("crate::", None), ("dp_privacy::", Some("privacy"))] {
        for (i, _) in code.match_indices(prefix) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // e.g. `dp_repro_crate::`, not this crate
            }
            if let Some(room) = fixed {
                out.insert(room.to_string());
                continue;
            }
            let after = &code[i + prefix.len()..];
            if let Some(group) = after.strip_prefix('{') {
                // The top-level items of the group, to its matching brace.
                let mut depth = 1usize;
                let mut item_start = true;
                for (k, ch) in group.char_indices() {
                    if item_start && depth == 1 {
                        let name = ident(&group[k..]);
                        if !name.is_empty() {
                            out.insert(name);
                            item_start = false;
                        }
                    }
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        ',' if depth == 1 => item_start = true,
                        _ => {}
                    }
                }
            } else {
                let name = ident(after);
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// Every arrow that breaks the order, as `from → to (file)`: an import of a room on the
/// same or a higher floor, or of or from a room on no floor. `files` are (path relative
/// to `src/`, text).
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        let Some(from) = room(Path::new(path)) else {
            continue;
        };
        let Some(from_floor) = floor(&from) else {
            out.push(format!(
                "{from} ({path}) is on no floor; place it in FLOORS"
            ));
            continue;
        };
        for to in imports(text) {
            if to == from {
                continue;
            }
            match floor(&to) {
                None => out.push(format!("{from} → {to} ({path}): `{to}` is on no floor")),
                Some(f) if f >= from_floor => out.push(format!(
                    "{from} → {to} ({path}): floor {from_floor} imports floor {f}"
                )),
                Some(_) => {}
            }
        }
    }
    out
}

/// Every `.rs` file below `dir`, as (path relative to `root`, text).
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let relative = path.strip_prefix(root).expect("below src/");
            out.push((relative.to_string_lossy().into_owned(), text));
        }
    }
}

#[test]
fn every_import_of_src_points_down_a_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "arrows that break the floors:\n{}",
        found.join("\n")
    );
}

#[test]
fn an_arrow_up_sideways_or_to_an_unplaced_room_is_found() {
    let file = |path: &str, text: &str| vec![(path.to_string(), text.to_string())];
    // Down: fine, in code, in an attribute string, in a file at the crate root.
    for (path, text) in [
        ("run/mod.rs", "use crate::spec::Experiment;\n"),
        (
            "spec/raw.rs",
            "#[schemars(schema_with = \"crate::schema_parts::x\")]\n",
        ),
        ("seeds.rs", "use sha2::Sha256;\n"),
        ("lib.rs", "pub mod run;\nuse crate::cli;\n"),
        ("run/table/rows.rs", "use crate::run::seeds;\n"),
    ] {
        assert_eq!(
            violations(&file(path, text)),
            Vec::<String>::new(),
            "{path}"
        );
    }
    // Comments and tests do not count.
    let commented = "// see crate::run::seeds\n/// [`crate::check::x`]\n";
    assert!(violations(&file("methods/krr.rs", commented)).is_empty());
    let in_tests = "fn f() {}\n#[cfg(test)]\nmod tests { use crate::audit::x; }\n";
    assert!(violations(&file("methods/krr.rs", in_tests)).is_empty());
    // Up, sideways on one floor, and unplaced rooms on either side are each found.
    let up = violations(&file("methods/krr.rs", "use crate::run::seeds::stream;\n"));
    assert_eq!(up.len(), 1, "{up:?}");
    assert!(up[0].starts_with("methods → run"), "{up:?}");
    let nested = violations(&file(
        "data/encode/loader.rs",
        "    let x = crate::spec::suggest(a);\n",
    ));
    assert_eq!(nested.len(), 1, "{nested:?}");
    let sideways = violations(&file("seeds.rs", "use crate::stats::x;\n"));
    assert_eq!(sideways.len(), 1, "{sideways:?}");
    let unplaced_target = violations(&file("run/mod.rs", "use crate::newroom::x;\n"));
    assert!(
        unplaced_target[0].contains("`newroom` is on no floor"),
        "{unplaced_target:?}"
    );
    // Test code in the middle of a file does not stop the reading: code after it counts.
    let after_tests = "#[cfg(test)]\nmod tests { use crate::audit::x; }\nuse crate::run::y;\n";
    let found = violations(&file("methods/krr.rs", after_tests));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("methods → run"), "{found:?}");
    // A group, over lines, names each of its rooms; `self`-free nested paths too.
    let group = "use crate::{\n    data::X,\n    run::{a, b},\n};\n";
    let found = violations(&file("methods/krr.rs", group));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("methods → run"), "{found:?}");
    // The privacy crate by its own name is the room `privacy`, on the lowest floor.
    assert!(imports("use dp_privacy::ledger;\n").contains("privacy"));
    assert_eq!(floor("privacy"), Some(0));
    let unplaced_source = violations(&file("newroom/mod.rs", "use crate::data::x;\n"));
    assert!(
        unplaced_source[0].contains("newroom"),
        "{unplaced_source:?}"
    );
}

/// The files of the scheduler: splitting, running and recording a repetition.
const SCHEDULER: [&str; 5] = [
    "run/mod.rs",
    "run/repetition.rs",
    "run/point.rs",
    "run/units.rs",
    "run/records.rs",
];

/// The lines of the scheduler's `files` that name a privacy model or a kind of
/// per-repetition record: what a method reads per repetition comes through the method
/// (`Method::repetition_record`, its `prepare`), not through a case in the scheduler.
fn model_cases(files: &[(String, String)]) -> Vec<String> {
    let names = ["PrivacyModel", "MASK_RECORD", "mask_record", "mask_params"];
    let mut out = Vec::new();
    for (path, text) in files {
        if !SCHEDULER.contains(&path.as_str()) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some(name) = names.iter().find(|n| code.contains(*n)) {
                out.push(format!("{path}:{}: {name}", i + 1));
            }
        }
    }
    out
}

#[test]
fn the_scheduler_names_no_privacy_model() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let read = files
        .iter()
        .filter(|(p, _)| SCHEDULER.contains(&p.as_str()))
        .count();
    assert_eq!(read, SCHEDULER.len(), "a scheduler file moved");
    let found = model_cases(&files);
    assert!(
        found.is_empty(),
        "privacy-model cases in the scheduler:\n{}",
        found.join("\n")
    );
    // Seen red: a filter on the semi-feature model, as the scheduler once drew masks.
    let case = "    if m.method.privacy_model() == PrivacyModel::SemiFeature {\n";
    let injected = vec![("run/repetition.rs".to_string(), case.to_string())];
    assert_eq!(model_cases(&injected).len(), 1);
    let elsewhere = vec![("run/accounting.rs".to_string(), case.to_string())];
    assert!(
        model_cases(&elsewhere).is_empty(),
        "table notes may name models"
    );
}
